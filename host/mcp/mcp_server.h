/*
 * mcp_server.h - the MCP server: JSON-RPC 2.0, one client connection.
 *
 * This is where a tool call enters: a message becomes a request, is
 * checked, dispatched to a tool (tools.h) and answered. Many calls may be
 * in flight at once; nothing here waits on Docker. On stdio one struct
 * mcp_server is the connection and owns its transport (transport.h);
 * over HTTP (http_server.h) each 2025-era session, and each stateless
 * request, is one, fed by mcp_server_handle() and answering through a
 * struct mcp_out, message by message to the exchange (the HTTP request)
 * that carried the request.
 */
#ifndef SBX_MCP_SERVER_H
#define SBX_MCP_SERVER_H

#include "jsonrpc.h"
#include "mcp/tools/tools.h"

struct mcp_server;
struct tool_table;

/*
 * Start serving: requests from stdin, frames to out_fd (see
 * transport_guard_stdout). on_eof runs when stdin closes; the owner then
 * shuts down in its own order (host/main.c) and ends with
 * mcp_server_close(). env is borrowed for the server's lifetime; the
 * tools' table (tool_table.h) is the server's own.
 */
int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_eof)(void *arg), void *arg,
		     struct mcp_server **out);

/* Where a connection without a transport of its own sends. */
struct mcp_out {
	/* One message (json, len: borrowed) for exchange ex, as passed to
	 * mcp_server_handle(); kind says what it is (jsonrpc.h): anything
	 * but JSONRPC_NOTIFICATION is the response that ends ex's
	 * request. */
	void (*send)(void *arg, void *ex, enum jsonrpc_kind kind,
		     const char *json, size_t len);
	/* A call that came in exchange ex has ended, answered or cancelled.
	 * Runs inside the server's code: free nothing of it now (defer). */
	void (*ended)(void *arg, void *ex);
	void *arg;
};

/* The sessions' re-adoption is over (session_mgr_on_adopted): the calls
 * of s that waited for it run, in order. mcp_server_start registers this
 * for its connection; a transport of several connections (http_server.c)
 * calls it for each. */
void mcp_server_adopted(struct mcp_server *s);

/* A connection fed by mcp_server_handle(), offering the tools of tools
 * (borrowed: it must outlive the connection). 0 or -ENOMEM. Free with
 * mcp_server_free() once mcp_server_inflight() is 0. */
int mcp_server_new(const struct tool_env *env, const struct tool_table *tools,
		   const struct mcp_out *out, struct mcp_server **res);

/* One message from the client: len bytes, with a NUL at msg[len]. Its
 * answers go to out with ex, now or later. The stdio transport feeds
 * its lines to the same function. */
void mcp_server_handle(struct mcp_server *s, void *ex, const char *msg,
		       size_t len);

/* Exchange ex's client went away: its calls are cancelled (no answer is
 * sent; each still ends through out.ended). Returns how many. */
int mcp_server_drop_exchange(struct mcp_server *s, void *ex);

/* The tenant whose connection this is (HTTP with tokens; borrowed, it
 * outlives the server): its calls see only what is its own and count
 * against its quotas. */
struct tenant;
void mcp_server_set_tenant(struct mcp_server *s, struct tenant *t);

/* Calls in flight (cancelled ones that have not ended included). */
unsigned mcp_server_inflight(const struct mcp_server *s);

/* The revision initialize negotiated, or NULL before initialize. */
const char *mcp_server_session_version(const struct mcp_server *s);

/* What a message (parsed, or NULL when it did not parse) is, for a
 * transport that routes by it (HTTP). */
enum mcp_msg_kind {
	MCP_MSG_INVALID,      /* not a JSON-RPC object */
	MCP_MSG_INITIALIZE,   /* initialize: opens a 2025-era session */
	MCP_MSG_REQUEST,      /* a request of the 2025 era's session */
	MCP_MSG_MODERN,	      /* a stateless request (mcp_version.h) */
	MCP_MSG_NOTIFICATION, /* never answered */
	MCP_MSG_RESPONSE,     /* a client's answer: we ask nothing */
};
enum mcp_msg_kind mcp_message_kind(const cJSON *msg);

/* Read no more requests; a tools/call that still arrives is refused.
 * Calls in flight are still answered when they end. Idempotent. */
void mcp_server_stop_reading(struct mcp_server *s);

/* Flush what is queued for stdout and close it; done runs once, from the
 * loop. Log records are no longer forwarded to the client. */
void mcp_server_close(struct mcp_server *s, void (*done)(void *arg), void *arg);

/* Close stdout now, dropping what is queued (the shutdown deadline);
 * mcp_server_close's done does not run, pending or later. */
void mcp_server_abort(struct mcp_server *s);

void mcp_server_free(struct mcp_server *s);

#endif
