/*
 * mcp_call.c - one tools/call in flight (mcp_call.h, tools.h).
 */
#include "mcp_call.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adoption_wait.h"
#include "audit_events.h"
#include "core/packages/install.h"
#include "core/tenants/tenants.h"
#include "mcp_version.h"

struct mcp_call {
	void *ex; /* the exchange the request came in (mcp_server.h) */
	struct tenant *tenant; /* the caller, or NULL (no tenants) */
	int counted;	       /* an execution of the tenant's (tenant_begin) */
	int session_held;      /* tenant_hold_session */
	uint64_t artifacts_held; /* tenant_hold_artifacts */
	struct mcp_call_list *list;
	cJSON *id; /* owned */
	void (*cancel_cb)(void *);
	void *cancel_arg;
	int cancelled;
	cJSON *progress_token; /* owned; NULL when none was given */
	double last_progress;
	cJSON *audit;	    /* owned: the call's audit event, or NULL */
	struct audit *log;  /* where it goes */
	int egress_refused; /* its install's proxy refused (install.h) */
	char version[16];   /* the revision the result is shaped for */
	int cacheable;
	struct mcp_call *prev, *next;
};

void mcp_call_set_audit(struct mcp_call *c, struct audit *a, cJSON *ev)
{
	cJSON_Delete(c->audit);
	c->audit = ev;
	c->log = a;
}

void mcp_call_note_install(struct mcp_call *c, const struct error *err,
			   const struct install_result *res)
{
	if (!c->audit || !res)
		return;
	if (err)
		c->egress_refused |= res->egress_refused;
	else
		audit_events_install(c->audit, res);
}

void mcp_call_note_run(struct mcp_call *c, const struct exec_outcome *o)
{
	if (c->audit)
		audit_events_run(c->audit, o);
}

/* Hand the audit event over with the call's outcome: e, the tool's error,
 * or NULL. */
static void audit_end(struct mcp_call *c, enum audit_events_end how,
		      const struct error *e)
{
	if (!c->audit)
		return;
	audit_events_end(c->log, c->audit,
			 c->cancelled ? AUDIT_END_CANCELLED : how, e,
			 c->egress_refused);
	c->audit = NULL;
}

static int id_equal(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring) == 0;
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return 0;
}

struct mcp_call *mcp_call_new(struct mcp_call_list *list, void *ex,
			      const cJSON *id, const cJSON *progress_token,
			      const char *version, int cacheable)
{
	struct mcp_call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	snprintf(c->version, sizeof(c->version), "%s", version);
	c->cacheable = cacheable;
	c->ex = ex;
	c->list = list;
	c->id = cJSON_Duplicate(id, 1);
	c->progress_token =
		progress_token ? cJSON_Duplicate(progress_token, 1) : NULL;
	if (!c->id || (progress_token && !c->progress_token)) {
		cJSON_Delete(c->id);
		cJSON_Delete(c->progress_token);
		free(c);
		return NULL;
	}
	c->next = list->head;
	if (list->head)
		list->head->prev = c;
	list->head = c;
	list->n++;
	return c;
}

int mcp_call_cancel_id(struct mcp_call_list *list, const cJSON *id)
{
	struct mcp_call *c;

	for (c = list->head; c; c = c->next)
		if (id_equal(c->id, id) && !c->cancelled) {
			c->cancelled = 1;
			if (c->cancel_cb)
				c->cancel_cb(c->cancel_arg);
			return 1;
		}
	return 0;
}

int mcp_call_cancel_ex(struct mcp_call_list *list, const void *ex)
{
	struct mcp_call *c, *next;
	int n = 0;

	/* A cancel hook may finish its call (and others): start over after
	 * each. */
	do {
		for (c = list->head; c; c = next) {
			next = c->next;
			if (c->ex == ex && !c->cancelled)
				break;
		}
		if (!c)
			break;
		c->cancelled = 1;
		n++;
		if (c->cancel_cb)
			c->cancel_cb(c->cancel_arg);
	} while (c);
	return n;
}

int mcp_call_in_flight(const struct mcp_call_list *list, const cJSON *id)
{
	const struct mcp_call *c;

	for (c = list->head; c; c = c->next)
		if (id_equal(c->id, id))
			return 1;
	return 0;
}

/* Unlinked and freed; the connection hears that ex's call ended. */
static void call_free(struct mcp_call *c)
{
	struct mcp_call_out out = c->list->out;
	void *ex = c->ex;

	if (c->counted)
		tenant_end(c->tenant);
	if (c->session_held)
		tenant_release_session(c->tenant);
	if (c->artifacts_held)
		tenant_release_artifacts(c->tenant, c->artifacts_held);
	cJSON_Delete(c->id);
	cJSON_Delete(c->progress_token);
	free(c);
	if (out.ended)
		out.ended(out.arg, ex);
}

static void call_unlink(struct mcp_call *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		c->list->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->list->n--;
}

void mcp_call_fail(struct mcp_call *c, int code, const char *message,
		   cJSON *data)
{
	audit_end(c, AUDIT_END_PROTOCOL, NULL);
	if (!c->cancelled)
		c->list->out.send(c->list->out.arg, c->ex,
				  jsonrpc_error(c->id, code, message, data),
				  jsonrpc_error_kind(c->id, code));
	else
		cJSON_Delete(data);
	call_unlink(c);
	call_free(c);
}

/* The answer: result (taken), and e when it is the tool's error. */
static void finish(struct mcp_call *c, cJSON *result, const struct error *e)
{
	audit_end(c, AUDIT_END_ANSWERED, e);
	/* A cancelled request gets no response (MCP cancellation rules). */
	if (!c->cancelled)
		c->list->out.send(
			c->list->out.arg, c->ex,
			jsonrpc_result(c->id,
				       mcp_version_shape(result, c->version,
							 c->cacheable)),
			JSONRPC_RESULT);
	else
		cJSON_Delete(result);
	call_unlink(c);
	call_free(c);
}

void mcp_call_finish(struct mcp_call *c, cJSON *result)
{
	finish(c, result, NULL);
}

void mcp_call_finish_error(struct mcp_call *c, const struct error *e)
{
	finish(c, tool_error_result(e), e);
}

void mcp_call_finish_errorf(struct mcp_call *c, int code, const char *fmt, ...)
{
	struct error e;
	va_list ap;

	va_start(ap, fmt);
	error_vset(&e, code, fmt, ap);
	va_end(ap);
	mcp_call_finish_error(c, &e);
}

void *mcp_call_origin(const struct mcp_call *c)
{
	return c->list->out.arg;
}

int mcp_call_cancelled(const struct mcp_call *c)
{
	return c->cancelled;
}

const cJSON *mcp_call_id(const struct mcp_call *c)
{
	return c->id;
}

void mcp_call_track_progress(struct mcp_call *c)
{
	if (!c->progress_token)
		c->progress_token = cJSON_CreateString("task");
}

void mcp_call_start(const struct tool_env *env, struct adoption_wait *w,
		    struct mcp_call *c, const struct tool *tool,
		    const cJSON *args)
{
	struct error qe;

	if (env->audit)
		mcp_call_set_audit(
			c, env->audit,
			audit_events_call(env, c->tenant, tool, args));
	/* A tenant's executions count against its quotas until they end. */
	if (c->tenant && strcmp(tool->name, "sandbox_execute") == 0 &&
	    mcp_call_begin_execution(c, uv_now(env->loop), &qe)) {
		mcp_call_finish_error(c, &qe);
		return;
	}
	if (adoption_wait_call(w, env, c, tool, args))
		return;
	tool->call(env, c, args); /* may finish c before returning */
}

void mcp_call_set_tenant(struct mcp_call *c, struct tenant *t)
{
	c->tenant = t;
}

const struct tenant *mcp_call_tenant(const struct mcp_call *c)
{
	return c->tenant;
}

int mcp_call_begin_execution(struct mcp_call *c, uint64_t now_ms,
			     struct error *err)
{
	int rc;

	if (!c->tenant || c->counted)
		return 0;
	rc = tenant_begin(c->tenant, now_ms, err);
	c->counted = rc == 0;
	return rc;
}

int mcp_call_hold_session(struct mcp_call *c, uint32_t open, struct error *err)
{
	int rc;

	if (!c->tenant || c->session_held) /* one a call */
		return 0;
	rc = tenant_hold_session(c->tenant, open, err);
	c->session_held = rc == 0;
	return rc;
}

int mcp_call_hold_artifacts(struct mcp_call *c, uint64_t used, uint64_t bytes,
			    struct error *err)
{
	int rc;

	if (!c->tenant)
		return 0;
	rc = tenant_hold_artifacts(c->tenant, used, bytes, err);
	if (rc == 0)
		c->artifacts_held += bytes;
	return rc;
}

int mcp_call_wants_progress(const struct mcp_call *c)
{
	return c->progress_token != NULL;
}

void mcp_call_progress(struct mcp_call *c, double progress, const char *message)
{
	cJSON *p;

	if (!c->progress_token || c->cancelled)
		return;
	/* The spec wants it to increase with every notification. */
	if (progress <= c->last_progress)
		progress = c->last_progress + 1;
	c->last_progress = progress;
	p = cJSON_CreateObject();
	cJSON_AddItemToObject(p, "progressToken",
			      jsonrpc_id_copy(c->progress_token));
	cJSON_AddNumberToObject(p, "progress", progress);
	if (message && mcp_version_at_least(c->version, "2025-03-26"))
		cJSON_AddStringToObject(p, "message", message);
	c->list->out.send(c->list->out.arg, c->ex,
			  jsonrpc_notification("notifications/progress", p),
			  JSONRPC_NOTIFICATION);
}

void mcp_call_on_cancel(struct mcp_call *c, void (*cb)(void *), void *arg)
{
	c->cancel_cb = cb;
	c->cancel_arg = arg;
}

int mcp_call_structured(const struct mcp_call *c)
{
	return mcp_version_at_least(c->version, "2025-06-18");
}

int mcp_call_modern(const struct mcp_call *c)
{
	return strcmp(c->version, MCP_MODERN_VERSION) == 0;
}
