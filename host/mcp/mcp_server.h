/*
 * mcp_server.h - the MCP server: JSON-RPC 2.0 over the stdio transport.
 *
 * This is where a tool call enters: a line from stdin becomes a request,
 * is checked, dispatched to a tool (tools.h) and answered on stdout. Many
 * calls may be in flight at once; nothing here waits on Docker.
 */
#ifndef SBX_MCP_SERVER_H
#define SBX_MCP_SERVER_H

#include "tools.h"

struct mcp_server;

/* The protocol revisions served (docs/architecture.md, "Two protocol
 * eras"), newest first: the stateless one, chosen per request by its
 * _meta, and those an initialize handshake may negotiate. */
#define MCP_MODERN_VERSION "2026-07-28"
extern const char *const mcp_protocol_versions[];

/*
 * Start serving: requests from stdin, frames to out_fd (see
 * transport_guard_stdout). on_eof runs when stdin closes; the owner then
 * shuts down in its own order (host/main.c) and ends with
 * mcp_server_close(). env is borrowed for the server's lifetime.
 */
int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_eof)(void *arg), void *arg,
		     struct mcp_server **out);

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

/* Answer one line as the server would, without a transport: for the unit
 * tests of framing and errors. initialized: a real initialize request is
 * handled first, as a client would send it. Returns the response text
 * (caller frees) or NULL for notifications. Only synchronous methods are
 * answered. */
char *mcp_server_handle_line_for_test(const struct tool_env *env,
				      int initialized, const char *line);

#endif
