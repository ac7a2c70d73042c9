/*
 * audit_events.c - a tools/call's audit event (audit_events.h).
 */
#include "audit_events.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/exec/executor.h"
#include "core/packages/install.h"
#include "core/records/audit.h"
#include "core/tenants/tenants.h"
#include "mcp/tools/run_result.h"

static void copy_string(cJSON *ev, const cJSON *args, const char *key,
			const char *as)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	if (cJSON_IsString(v))
		cJSON_AddStringToObject(ev, as, v->valuestring);
}

cJSON *audit_events_call(const struct tool_env *env, const struct tenant *t,
			 const struct tool *tool, const cJSON *args)
{
	cJSON *ev = cJSON_CreateObject();
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const struct plugin *pl;
	char hash[AUDIT_HASH_HEX + 1];

	cJSON_AddStringToObject(ev, "event", "tool_call");
	cJSON_AddStringToObject(ev, "tool", tool->name);
	if (t)
		cJSON_AddStringToObject(ev, "tenant", t->name);
	/* The language by its plugin's name, whatever alias the call used
	 * (so that a filter on "ruby" finds the calls that said "rb"). */
	if (cJSON_IsString(lang) && env->plugins &&
	    (pl = plugins_find(env->plugins, lang->valuestring))) {
		cJSON_AddStringToObject(ev, "language", pl->desc->name);
		if (strcmp(pl->desc->name, lang->valuestring) != 0)
			cJSON_AddStringToObject(ev, "languageAsked",
						lang->valuestring);
	} else {
		copy_string(ev, args, "language", "language");
	}
	copy_string(ev, args, "session", "session");
	copy_string(ev, args, "action", "action");
	if (strcmp(tool->name, "sandbox_session") == 0)
		copy_string(ev, args, "name", "session");
	copy_string(ev, args, "path", "path");
	if (cJSON_IsString(code)) {
		audit_sha256_hex(code->valuestring, strlen(code->valuestring),
				 hash);
		cJSON_AddStringToObject(ev, "codeSha256", hash);
		if (audit_stores_code(env->audit))
			cJSON_AddStringToObject(ev, "code", code->valuestring);
	}
	/* A background process's command is code too. */
	code = cJSON_GetObjectItemCaseSensitive(args, "command");
	if (strcmp(tool->name, "sandbox_process") == 0 &&
	    cJSON_IsString(code)) {
		audit_sha256_hex(code->valuestring, strlen(code->valuestring),
				 hash);
		cJSON_AddStringToObject(ev, "commandSha256", hash);
		if (audit_stores_code(env->audit))
			cJSON_AddStringToObject(ev, "command",
						code->valuestring);
	}
	copy_string(ev, args, "signal", "signal");
	/* sandbox_http: where the request went (its path is "path"). */
	copy_string(ev, args, "method", "method");
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(args, "port")))
		cJSON_AddNumberToObject(
			ev, "port",
			cJSON_GetObjectItemCaseSensitive(args, "port")
				->valuedouble);
	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(args, "pid")))
		cJSON_AddNumberToObject(
			ev, "pid",
			cJSON_GetObjectItemCaseSensitive(args, "pid")
				->valuedouble);
	if (cJSON_IsArray(pk))
		cJSON_AddItemToObject(ev, "packages", cJSON_Duplicate(pk, 1));
	return ev;
}

static void set_violation(cJSON *ev)
{
	if (!cJSON_GetObjectItemCaseSensitive(ev, "violation"))
		cJSON_AddBoolToObject(ev, "violation", 1);
}

static void set_outcome(cJSON *ev, const char *outcome, int violation)
{
	cJSON_DeleteItemFromObjectCaseSensitive(ev, "outcome");
	cJSON_AddStringToObject(ev, "outcome", outcome);
	if (violation)
		set_violation(ev);
}

void audit_events_install(cJSON *ev, const struct install_result *res)
{
	const cJSON *c;
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(ev, "refused");

	/* The proxy's log (install.h): each destination asked for. */
	cJSON_ArrayForEach(c, res->connections)
	{
		const cJSON *ok =
			cJSON_GetObjectItemCaseSensitive(c, "allowed");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(c, "host");

		if (!cJSON_IsFalse(ok) || !cJSON_IsString(h))
			continue;
		if (!arr)
			arr = cJSON_AddArrayToObject(ev, "refused");
		cJSON_AddItemToArray(arr, cJSON_CreateString(h->valuestring));
	}
	if (arr)
		set_violation(ev);
}

void audit_events_run(cJSON *ev, const struct exec_outcome *o)
{
	cJSON *bl = run_result_blocklist(o);
	char outcome[64], sig[32];

	/* blocklist = warn: the matches (the code ran) */
	if (bl) {
		cJSON_AddItemToObject(ev, "blocklist", bl);
		set_violation(ev);
	}
	if (o->timed_out)
		set_outcome(ev, "timed_out", 1);
	else if (o->oom_killed)
		set_outcome(ev, "oom_killed", 1);
	else if (!o->exited && o->signal == SIGSYS)
		set_outcome(ev, "seccomp_kill", 1);
	else if (o->exited) {
		snprintf(outcome, sizeof(outcome), "exit %d", o->exit_code);
		set_outcome(ev, outcome, 0);
	} else {
		snprintf(outcome, sizeof(outcome), "%.40s",
			 run_result_signal(o, sig, sizeof(sig)) ? sig
								: "ended");
		set_outcome(ev, outcome, 0);
	}
	if (o->out_truncated || o->err_truncated)
		cJSON_AddBoolToObject(ev, "outputTruncated", 1);
}

void audit_events_end(struct audit *a, cJSON *ev, enum audit_events_end how,
		      const struct error *e, int egress_refused)
{
	if (how == AUDIT_END_CANCELLED) {
		set_outcome(ev, "cancelled", 0);
	} else if (how == AUDIT_END_PROTOCOL) {
		set_outcome(ev, "protocol_error", 0);
	} else if (e) {
		set_outcome(ev, tool_error_code(e->code),
			    e->code == ERR_CODE_BLOCKED || egress_refused);
		cJSON_AddStringToObject(ev, "message", e->msg);
	} else if (!cJSON_GetObjectItemCaseSensitive(ev, "outcome")) {
		set_outcome(ev, "ok", 0);
	}
	audit_event(a, ev);
}
