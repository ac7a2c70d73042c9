/*
 * run_result.c - one run's result as JSON (run_result.h).
 */
#include "run_result.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/agent_ops.h"
#include "json_util.h"
#include "tools.h"

static void add_prop(cJSON *props, const char *name, const char *type,
		     int nullable, const char *desc)
{
	cJSON *p = cJSON_AddObjectToObject(props, name), *t;

	if (nullable) {
		t = cJSON_AddArrayToObject(p, "type");
		cJSON_AddItemToArray(t, cJSON_CreateString(type));
		cJSON_AddItemToArray(t, cJSON_CreateString("null"));
	} else {
		cJSON_AddStringToObject(p, "type", type);
	}
	cJSON_AddStringToObject(p, "description", desc);
}

cJSON *run_result_schema(void)
{
	static const char *const required[] = {
		"exitCode", "signal",	       "stdout",
		"stderr",   "stdoutTruncated", "stderrTruncated",
		"timedOut", "durationMs",      "language",
		NULL,
	};
	cJSON *s = cJSON_CreateObject(), *props, *req;
	size_t i;

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	add_prop(props, "exitCode", "integer", 1,
		 "Exit status; null when the program was killed by a signal.");
	add_prop(props, "signal", "string", 1,
		 "Terminating signal (e.g. SIGKILL), or null.");
	add_prop(props, "stdout", "string", 0,
		 "Standard output (UTF-8; invalid bytes shown as U+FFFD).");
	add_prop(props, "stderr", "string", 0, "Standard error.");
	add_prop(props, "stdoutTruncated", "boolean", 0,
		 "Output exceeded the cap: its beginning and end are kept with "
		 "a marker between.");
	add_prop(props, "stderrTruncated", "boolean", 0,
		 "Like stdoutTruncated, for stderr.");
	add_prop(props, "timedOut", "boolean", 0,
		 "The timeout expired and every process was killed.");
	add_prop(props, "durationMs", "integer", 0,
		 "Wall time of the execution in milliseconds.");
	add_prop(props, "language", "string", 0, "The language that ran.");
	add_prop(props, "phase", "string", 0,
		 "\"build\" when a compile step failed, else \"run\".");
	add_prop(props, "session", "string", 0,
		 "The session the call ran in (absent for one-off calls).");
	add_prop(props, "stateKept", "boolean", 0,
		 "Session calls: the in-memory state (variables) survived this "
		 "call. False after a timeout that had to kill the "
		 "interpreter, and always for languages without one (go, rust: "
		 "files persist, memory does not).");
	add_prop(props, "freshState", "boolean", 0,
		 "Session calls: this call started in a new interpreter, so "
		 "nothing from earlier calls was in memory (the previous one "
		 "was killed).");
	add_prop(props, "artifacts", "array", 0,
		 "Files the run created or changed in /work: {path (relative "
		 "to /work), size, mime}. In a session they stay (read them "
		 "with sandbox_file_ops); a one-off container is reset after "
		 "the call.");
	add_prop(props, "artifactsMore", "integer", 0,
		 "Artifacts beyond those listed (-1: unknown, too many "
		 "changes to follow).");
	req = cJSON_AddArrayToObject(s, "required");
	for (i = 0; required[i]; i++)
		cJSON_AddItemToArray(req, cJSON_CreateString(required[i]));
	return s;
}

static void add_text(cJSON *o, const char *name, const char *buf, size_t len)
{
	char *s = utf8_sanitize(buf, len);

	cJSON_AddStringToObject(o, name, s ? s : "");
	free(s);
}

static void add_artifacts(cJSON *r, const struct exec_outcome *o)
{
	struct ap_file_entry e;
	size_t off = 0;
	cJSON *arr;

	if (!o->artifacts_len && !o->artifacts_more)
		return;
	arr = cJSON_AddArrayToObject(r, "artifacts");
	while (ap_entries_next(o->artifacts, o->artifacts_len, &off, &e)) {
		cJSON *a = cJSON_CreateObject();
		char *path = utf8_sanitize(e.name, e.name_len);

		cJSON_AddStringToObject(a, "path", path ? path : "");
		cJSON_AddNumberToObject(a, "size", (double)e.size);
		cJSON_AddStringToObject(a, "mime",
					tool_mime(path ? path : "", 0));
		free(path);
		cJSON_AddItemToArray(arr, a);
	}
	if (o->artifacts_more)
		cJSON_AddNumberToObject(r, "artifactsMore",
					o->artifacts_more == UINT32_MAX
						? -1
						: (double)o->artifacts_more);
}

cJSON *run_result_json(const struct exec_outcome *o, const char *session)
{
	cJSON *r = cJSON_CreateObject();
	char sig[32];

	if (!r)
		return NULL;
	if (o->exited)
		cJSON_AddNumberToObject(r, "exitCode", o->exit_code);
	else
		cJSON_AddNullToObject(r, "exitCode");
	if (!o->exited && o->signal > 0) {
		const char *abbr = sigabbrev_np(o->signal);

		if (abbr)
			snprintf(sig, sizeof(sig), "SIG%s", abbr);
		else
			snprintf(sig, sizeof(sig), "SIG%d", o->signal);
		cJSON_AddStringToObject(r, "signal", sig);
	} else {
		cJSON_AddNullToObject(r, "signal");
	}
	add_text(r, "stdout", o->out, o->out_len);
	add_text(r, "stderr", o->err, o->err_len);
	cJSON_AddBoolToObject(r, "stdoutTruncated", o->out_truncated);
	cJSON_AddBoolToObject(r, "stderrTruncated", o->err_truncated);
	cJSON_AddBoolToObject(r, "timedOut", o->timed_out);
	cJSON_AddNumberToObject(r, "durationMs", o->duration_ms);
	cJSON_AddStringToObject(r, "language", o->language);
	cJSON_AddStringToObject(r, "phase", o->phase ? o->phase : "run");
	add_artifacts(r, o);
	if (session) {
		cJSON_AddStringToObject(r, "session", session);
		cJSON_AddBoolToObject(r, "stateKept",
				      o->interpreter && o->state_kept);
		cJSON_AddBoolToObject(r, "freshState",
				      !o->interpreter || o->fresh);
	}
	return r;
}
