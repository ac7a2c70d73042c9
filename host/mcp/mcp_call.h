/*
 * mcp_call.h - one tools/call in flight: its id, its progress token, the
 * tool's cancel hook, and the server's list of them. What a tool may do
 * with its call (finish, progress, on_cancel) is declared in tools.h; this
 * header is the server's side.
 */
#ifndef SBX_MCP_CALL_H
#define SBX_MCP_CALL_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "mcp/tools/tools.h"

struct mcp_server;

struct mcp_call_list {
	struct mcp_call *head;
	unsigned n;
};

/* A new call in list for the request id (copied), which came in the
 * exchange ex (mcp_server.h: its answer goes there); progress_token (copied)
 * is the request's _meta.progressToken, or NULL; version is the protocol
 * revision its result is shaped for (the request's own in the stateless
 * revision, else the one initialize negotiated); cacheable: its result
 * carries the stateless revision's cache hints. NULL when out of memory.
 * The call leaves the list and is freed by mcp_call_finish(). */
struct mcp_call *mcp_call_new(struct mcp_server *srv, void *ex,
			      struct mcp_call_list *list, const cJSON *id,
			      const cJSON *progress_token, const char *version,
			      int cacheable);

/* notifications/cancelled for request id: the call's result will not be
 * sent and its tool's cancel hook runs. Returns 1 if such a call runs. */
int mcp_call_cancel_id(struct mcp_call_list *list, const cJSON *id);
/* The tenant the call is made for (mcp_server_set_tenant). */
void mcp_call_set_tenant(struct mcp_call *c, struct tenant *t);
/* An execution starts: it counts against the tenant's quotas until the
 * call ends. 0 (also without a tenant), or ERR_QUOTA_EXCEEDED. */
int mcp_call_begin_execution(struct mcp_call *c, uint64_t now_ms,
			     struct error *err);
/* The client of exchange ex went away: its calls are cancelled as by
 * notifications/cancelled. Returns how many. */
int mcp_call_cancel_ex(struct mcp_call_list *list, const void *ex);
/* The audit event of the call (taken): completed with the call's outcome
 * and written when it ends (mcp_server_audit_end). */
void mcp_call_set_audit(struct mcp_call *c, cJSON *ev);
/* The outcome of a tool's own result JSON into the call's event. */
void mcp_server_audit_note(cJSON *ev, const cJSON *body);
void mcp_server_audit_end(struct mcp_server *s, cJSON *ev, const cJSON *result,
			  int cancelled);
/* 1 if a call for request id has not ended (cancelled ones included). */
int mcp_call_in_flight(const struct mcp_call_list *list, const cJSON *id);
/* End the request with a JSON-RPC error (data: owned, or NULL) instead
 * of a result. */
void mcp_call_fail(struct mcp_call *c, int code, const char *message,
		   cJSON *data);
/* Provided by mcp_server.c for the calls; ex: the exchange the message
 * belongs to. */
void mcp_server_send_error(struct mcp_server *s, void *ex, const cJSON *id,
			   int code, const char *message, cJSON *data);
void mcp_server_send_result(struct mcp_server *s, void *ex, const cJSON *id,
			    cJSON *result);
/* A call of exchange ex has left the list (answered or cancelled). */
void mcp_server_call_ended(struct mcp_server *s, void *ex);
/* result (taken) as the revision version wants it: in the stateless one
 * with resultType, the server's identity in _meta and, when cacheable,
 * the cache hints. */
cJSON *mcp_server_shape_result(cJSON *result, const char *version,
			       int cacheable);
/* 1 if revision a is b or later. */
int mcp_version_at_least(const char *a, const char *b);
void mcp_server_send_notification(struct mcp_server *s, void *ex,
				  const char *method, cJSON *params);
int mcp_server_proto_at_least(const struct mcp_server *s, const char *v);
/* A copy of a request id that prints exactly as it came (new object). */
cJSON *mcp_id_copy(const cJSON *id);
/* msg parsed from text[0..len): its top-level string "id" becomes the
 * member's own text (a raw item), which cJSON's copy is not when the
 * string holds \u0000, so that an answer before the server's own checks
 * echoes it exactly. */
void mcp_id_as_sent(cJSON *msg, const char *text, size_t len);

#endif
