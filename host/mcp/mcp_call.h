/*
 * mcp_call.h - one tools/call (or resources/read) in flight: its id, its
 * progress token, the tool's cancel hook, its audit event, and the list
 * of a connection's calls. What a tool may do with its call (finish,
 * progress, on_cancel) is declared in tools.h; this header is the side
 * of the connection that makes calls (mcp_server.c). A call writes its
 * messages itself (jsonrpc.h) and hands them to its list's out.
 */
#ifndef SBX_MCP_CALL_H
#define SBX_MCP_CALL_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "jsonrpc.h"
#include "mcp/tools/tools.h"

struct audit;

/* Where the calls of a list send (the connection's). */
struct mcp_call_out {
	/* A message (taken) of kind for the exchange ex. */
	void (*send)(void *arg, void *ex, cJSON *msg, enum jsonrpc_kind kind);
	/* A call of exchange ex has left the list (answered or
	 * cancelled). */
	void (*ended)(void *arg, void *ex);
	void *arg;
};

struct mcp_call_list {
	struct mcp_call *head;
	unsigned n;
	struct mcp_call_out out;
};

/* A new call in list for the request id (copied), which came in the
 * exchange ex (mcp_server.h: its answer goes there); progress_token (copied)
 * is the request's _meta.progressToken, or NULL; version is the protocol
 * revision its result is shaped for (the request's own in the stateless
 * revision, else the one initialize negotiated); cacheable: its result
 * carries the stateless revision's cache hints. NULL when out of memory.
 * The call leaves the list and is freed when it is finished. */
struct mcp_call *mcp_call_new(struct mcp_call_list *list, void *ex,
			      const cJSON *id, const cJSON *progress_token,
			      const char *version, int cacheable);

/* notifications/cancelled for request id: the call's result will not be
 * sent and its tool's cancel hook runs. Returns 1 if such a call runs. */
int mcp_call_cancel_id(struct mcp_call_list *list, const cJSON *id);
/* The client of exchange ex went away: its calls are cancelled as by
 * notifications/cancelled. Returns how many. */
int mcp_call_cancel_ex(struct mcp_call_list *list, const void *ex);
/* 1 if a call for request id has not ended (cancelled ones included). */
int mcp_call_in_flight(const struct mcp_call_list *list, const cJSON *id);

/* The connection the call came on (its list's out.arg). */
void *mcp_call_origin(const struct mcp_call *c);
/* 1 once the call was cancelled (its answer will not be sent). */
int mcp_call_cancelled(const struct mcp_call *c);
/* The request's id (the call's). */
const cJSON *mcp_call_id(const struct mcp_call *c);
/* The call reports progress (as with a progress token) though its
 * request had none: a task's call, whose progress is its status. */
void mcp_call_track_progress(struct mcp_call *c);

struct adoption_wait;
/* Run c, a call of tool with args (borrowed): audited, counted against
 * its tenant's quotas, after the sessions' re-adoption (w) when it names
 * a session. */
void mcp_call_start(const struct tool_env *env, struct adoption_wait *w,
		    struct mcp_call *c, const struct tool *tool,
		    const cJSON *args);

/* The tenant the call is made for (mcp_server_set_tenant). */
void mcp_call_set_tenant(struct mcp_call *c, struct tenant *t);
/* An execution starts: it counts against the tenant's quotas until the
 * call ends. 0 (also without a tenant), or ERR_QUOTA_EXCEEDED. */
int mcp_call_begin_execution(struct mcp_call *c, uint64_t now_ms,
			     struct error *err);
/* The call's audit event (taken, audit_events.h): completed with what
 * the call came to and written to a (borrowed) when it ends. */
void mcp_call_set_audit(struct mcp_call *c, struct audit *a, cJSON *ev);

#endif
