/*
 * tool_security.c - sandbox_security: what the audit log (core/records/audit.h)
 * recorded, read on the thread pool once every event so far is written.
 *
 *   events      the latest events (since, limit)
 *   violations  the latest violations: code refused by policy, refused
 *               destinations, memory and time limits hit, processes the
 *               seccomp filter killed
 *   stats       counts by event, tool, outcome; violations; the time span
 *   verify      whether the hash chain holds, anchored at both ends as
 *               `mcp-sandbox audit verify` checks it (anchor: a head
 *               kept elsewhere), and where it breaks
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/records/audit.h"
#include "core/tenants/tenants.h"
#include "mcp/json_util.h"
#include "tools.h"

#define LIMIT_DEFAULT 50
#define LIMIT_MAX 500

static const char *const actions[] = {"events", "violations", "stats", "verify",
				      NULL};

static cJSON *input_schema(const struct tool_env *env)
{
	cJSON *s = cJSON_CreateObject(), *props, *p;

	(void)env;
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_enum_prop(props, "action", actions,
		       "events: the latest audit events; violations: only "
		       "refused code, refused network destinations, memory "
		       "and time limits hit, seccomp kills; stats: counts; "
		       "verify: check the log's hash chain.");
	tool_prop(props, "since", "string",
		  "Only events at or after this time (ISO 8601, UTC, e.g. "
		  "2026-11-25T10:00:00Z).");
	p = tool_prop(props, "limit", "integer",
		      "At most this many events, the newest (default 50, at "
		      "most 500).");
	cJSON_AddNumberToObject(p, "minimum", 1);
	cJSON_AddNumberToObject(p, "maximum", LIMIT_MAX);
	tool_prop(props, "anchor", "string",
		  "verify: a head kept outside the server (SEQ:HASH, as "
		  "`mcp-sandbox audit head` prints it or the server logs it "
		  "at start and stop): the chain must hold that line with "
		  "that hash.");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(s, "required"),
			     cJSON_CreateString("action"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

struct security_call {
	struct mcp_call *call;
	uv_loop_t *loop;
	uv_work_t work;
	char action[16];
	char since[40];
	size_t limit;
	char path[4096];
	char tenant[40]; /* "": every event (no tenants) */
	struct audit_anchor anchor;
	int anchored; /* anchor given */
	unsigned keep;
	cJSON *out; /* built on the thread pool */
};

static void count(cJSON *obj, const char *key)
{
	cJSON *n;

	if (!key)
		return;
	n = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (n)
		cJSON_SetNumberValue(n, n->valuedouble + 1);
	else
		cJSON_AddNumberToObject(obj, key, 1);
}

static cJSON *stats(cJSON *events)
{
	cJSON *o = cJSON_CreateObject(), *by_event, *by_tool, *by_outcome, *e;
	size_t violations = 0;
	const char *first = NULL, *last = NULL;

	by_event = cJSON_AddObjectToObject(o, "byEvent");
	by_tool = cJSON_AddObjectToObject(o, "byTool");
	by_outcome = cJSON_AddObjectToObject(o, "byOutcome");
	cJSON_ArrayForEach(e, events)
	{
		const char *t = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(e, "time"));

		count(by_event,
		      cJSON_GetStringValue(
			      cJSON_GetObjectItemCaseSensitive(e, "event")));
		count(by_tool,
		      cJSON_GetStringValue(
			      cJSON_GetObjectItemCaseSensitive(e, "tool")));
		count(by_outcome,
		      cJSON_GetStringValue(
			      cJSON_GetObjectItemCaseSensitive(e, "outcome")));
		violations += (size_t)audit_is_violation(e);
		if (t && !first)
			first = t;
		if (t)
			last = t;
	}
	cJSON_AddNumberToObject(o, "events", cJSON_GetArraySize(events));
	cJSON_AddNumberToObject(o, "violations", (double)violations);
	if (first) {
		cJSON_AddStringToObject(o, "from", first);
		cJSON_AddStringToObject(o, "to", last);
	}
	return o;
}

static void work_cb(uv_work_t *w)
{
	struct security_call *sc = w->data;
	char **files = NULL;
	size_t n = audit_files(sc->path, sc->keep, &files);
	cJSON *events;

	sc->out = cJSON_CreateObject();
	cJSON_AddStringToObject(sc->out, "action", sc->action);
	if (!sc->tenant[0]) /* a tenant is not told where the server keeps it */
		cJSON_AddStringToObject(sc->out, "log", sc->path);
	if (strcmp(sc->action, "verify") == 0) {
		struct audit_verdict v;

		struct audit_verify_opts o = {
			.log = sc->path,
			.anchor = sc->anchored ? &sc->anchor : NULL,
		};

		if (audit_verify(files, n, &o, &v) == 0) {
			cJSON_AddBoolToObject(sc->out, "ok", v.ok);
			/* A tenant learns whether the chain holds, not how
			 * much the others did nor where the log is. */
			if (sc->tenant[0]) {
				audit_files_free(files, n);
				return;
			}
			cJSON_AddNumberToObject(sc->out, "lines",
						(double)v.lines);
			cJSON_AddNumberToObject(sc->out, "files", (double)n);
			if (v.ok && v.lines) {
				char head[AUDIT_HASH_HEX + 32];

				snprintf(head, sizeof(head), "%" PRIu64 ":%s",
					 v.last_seq, v.head);
				cJSON_AddNumberToObject(sc->out, "firstSeq",
							(double)v.first_seq);
				cJSON_AddStringToObject(sc->out, "head", head);
				cJSON_AddStringToObject(
					sc->out, "start",
					v.start == AUDIT_START_FIRST ? "seq 1"
					: v.start == AUDIT_START_ROTATED
						? "after the lines rotated "
						  "away"
						: "not checked");
				if (sc->anchored)
					cJSON_AddBoolToObject(sc->out,
							      "anchored", 1);
			}
			if (!v.ok) {
				cJSON *b = cJSON_AddObjectToObject(sc->out,
								   "broken");

				cJSON_AddStringToObject(b, "file", v.file);
				cJSON_AddNumberToObject(b, "line",
							(double)v.line);
				cJSON_AddStringToObject(b, "reason", v.reason);
			}
		} else {
			cJSON_AddBoolToObject(sc->out, "ok", 0);
			cJSON_AddStringToObject(sc->out, "error",
						"the log cannot be read");
		}
	} else {
		/* stats counts every event of the span; the lists return
		 * the newest. */
		events = audit_read(
			files, n, sc->since,
			strcmp(sc->action, "violations") == 0 ? "violations"
							      : NULL,
			sc->tenant[0] ? sc->tenant : NULL,
			strcmp(sc->action, "stats") == 0 ? (size_t)1 << 22
							 : sc->limit);
		if (!events)
			cJSON_AddStringToObject(sc->out, "error",
						"the log cannot be read");
		else if (strcmp(sc->action, "stats") == 0) {
			cJSON_AddItemToObject(sc->out, "stats", stats(events));
			cJSON_Delete(events);
		} else {
			cJSON_AddItemToObject(sc->out, "events", events);
		}
	}
	audit_files_free(files, n);
}

static void after_cb(uv_work_t *w, int status)
{
	struct security_call *sc = w->data;

	if (status) {
		mcp_call_finish_errorf(sc->call, ERR_CANCELLED, NULL);
		cJSON_Delete(sc->out);
	} else {
		mcp_call_finish(sc->call, tool_ok_text(sc->out)); /* takes it */
	}
	free(sc);
}

static void flushed_cb(void *arg)
{
	struct security_call *sc = arg;

	sc->work.data = sc;
	if (uv_queue_work(sc->loop, &sc->work, work_cb, after_cb)) {
		mcp_call_finish_errorf(sc->call, ERR_SANDBOX,
				       "cannot read the log");
		free(sc);
	}
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const cJSON *action = cJSON_GetObjectItemCaseSensitive(args, "action");
	const cJSON *since = cJSON_GetObjectItemCaseSensitive(args, "since");
	const cJSON *limit = cJSON_GetObjectItemCaseSensitive(args, "limit");
	const cJSON *anchor = cJSON_GetObjectItemCaseSensitive(args, "anchor");
	struct audit_anchor an;
	struct security_call *sc;

	if (!env->audit) {
		mcp_call_finish_errorf(mc, ERR_AUDIT_OFF,
				       "the audit log is off ([audit] "
				       "file = none, or it could not "
				       "be opened: see the server's "
				       "log)");
		return;
	}
	if (anchor && (!cJSON_IsString(anchor) ||
		       audit_anchor_parse(anchor->valuestring, &an))) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "anchor: SEQ:HASH, as `mcp-sandbox "
				       "audit head` prints it (a seq "
				       "from 1 and 64 hex digits)");
		return;
	}
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	sc->call = mc;
	sc->loop = env->loop;
	snprintf(sc->action, sizeof(sc->action), "%s", action->valuestring);
	if (cJSON_IsString(since))
		snprintf(sc->since, sizeof(sc->since), "%s",
			 since->valuestring);
	sc->limit = cJSON_IsNumber(limit) ? (size_t)limit->valuedouble
					  : LIMIT_DEFAULT;
	snprintf(sc->path, sizeof(sc->path), "%s", audit_path(env->audit));
	/* A tenant reads its own events only. */
	if (mcp_call_tenant(mc))
		snprintf(sc->tenant, sizeof(sc->tenant), "%s",
			 mcp_call_tenant(mc)->name);
	sc->keep = audit_keep(env->audit);
	if (anchor) {
		sc->anchor = an;
		sc->anchored = 1;
	}
	audit_flush(env->audit, flushed_cb, sc);
}

const struct tool tool_security = {
	.name = "sandbox_security",
	.title = "Audit log of the sandbox",
	.description =
		"What the server recorded in its hash-chained audit log: every "
		"tool call with its outcome (the code's SHA-256, not the "
		"code), installs and the destinations the egress proxy "
		"refused, code refused by policy, memory and time limits hit, "
		"processes the seccomp filter killed. action events | "
		"violations | stats | verify (checks the chain).",
	.input_schema = input_schema,
	.read_only = 1,
	.destructive = 0,
	.idempotent = 1,
	.open_world = 0,
	.call = call,
};
