/*
 * run_result.c - one run's result as JSON (run_result.h).
 */
#include "run_result.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/media.h"
#include "mcp/json_util.h"
#include "tools.h"

static void add_text(cJSON *o, const char *name, const char *buf, size_t len)
{
	char *s = utf8_sanitize(buf, len);

	cJSON_AddStringToObject(o, name, s ? s : "");
	free(s);
}

static void add_artifacts(cJSON *r, const struct exec_outcome *o)
{
	size_t i;
	cJSON *arr;

	if (!o->nartifacts && !o->artifacts_more)
		return;
	arr = cJSON_AddArrayToObject(r, "artifacts");
	for (i = 0; i < o->nartifacts; i++) {
		const struct exec_artifact *e = &o->artifacts[i];
		cJSON *a = cJSON_CreateObject();
		char *path = utf8_sanitize(e->path, strlen(e->path));

		cJSON_AddStringToObject(a, "path", path ? path : "");
		tool_add_escaped(a, "pathEscaped", e->path, strlen(e->path));
		cJSON_AddNumberToObject(a, "size", (double)e->size);
		cJSON_AddStringToObject(a, "mime",
					media_type(path ? path : "", 0));
		free(path);
		cJSON_AddItemToArray(arr, a);
	}
	if (o->artifacts_more)
		cJSON_AddNumberToObject(r, "artifactsMore",
					o->artifacts_more == UINT32_MAX
						? -1
						: (double)o->artifacts_more);
}

void run_result_add_hint(cJSON *r, const struct plugin_set *set,
			 const struct exec_outcome *o)
{
	const struct plugin *pl =
		o->language ? plugins_find(set, o->language) : NULL;
	const struct plugin *v;
	char module[129], hint[400];

	/* A run that failed: one that dealt with the error went on. */
	if (!r || !pl || (o->exited && o->exit_code == 0) ||
	    !(v = plugins_module_elsewhere(set, pl, o->err, o->err_len, module,
					   sizeof(module))))
		return;
	snprintf(hint, sizeof(hint),
		 "%s is in the %s runtime, not in %s: create the session "
		 "with ml: true, or pass ml: true for a one-off run (or "
		 "language %s)",
		 module, v->desc->name, pl->desc->name, v->desc->name);
	cJSON_AddStringToObject(r, "hint", hint);
}

/* blocklist = warn: what matched, with where (the code ran). */
cJSON *run_result_blocklist(const struct exec_outcome *o)
{
	cJSON *arr;

	if (!o->nblocklist)
		return NULL;
	arr = cJSON_CreateArray();
	for (size_t i = 0; i < o->nblocklist; i++) {
		const struct blocklist_hit *h = &o->blocklist[i];
		cJSON *a = cJSON_CreateObject();

		cJSON_AddNumberToObject(a, "line", h->line);
		cJSON_AddNumberToObject(a, "column", h->column);
		add_text(a, "match", h->match, strlen(h->match));
		cJSON_AddStringToObject(a, "reason", h->rule->reason);
		cJSON_AddStringToObject(a, "rule",
					h->rule->from_config ? "sandbox.ini"
							     : "plugin");
		cJSON_AddItemToArray(arr, a);
	}
	return arr;
}

const char *run_result_signal(const struct exec_outcome *o, char *buf,
			      size_t size)
{
	const char *abbr;

	if (o->exited || o->signal <= 0)
		return NULL;
	abbr = sigabbrev_np(o->signal);
	if (abbr)
		snprintf(buf, size, "SIG%s", abbr);
	else
		snprintf(buf, size, "SIG%d", o->signal);
	return buf;
}

cJSON *run_result_json(const struct exec_outcome *o, const char *session)
{
	cJSON *r = cJSON_CreateObject(), *bl;
	char sig[32];

	if (!r)
		return NULL;
	if (o->exited)
		cJSON_AddNumberToObject(r, "exitCode", o->exit_code);
	else
		cJSON_AddNullToObject(r, "exitCode");
	if (run_result_signal(o, sig, sizeof(sig)))
		cJSON_AddStringToObject(r, "signal", sig);
	else
		cJSON_AddNullToObject(r, "signal");
	add_text(r, "stdout", o->out, o->out_len);
	add_text(r, "stderr", o->err, o->err_len);
	cJSON_AddBoolToObject(r, "stdoutTruncated", o->out_truncated);
	cJSON_AddBoolToObject(r, "stderrTruncated", o->err_truncated);
	cJSON_AddBoolToObject(r, "timedOut", o->timed_out);
	cJSON_AddBoolToObject(r, "oomKilled", o->oom_killed);
	if (o->oom_killed) {
		char msg[200];

		snprintf(msg, sizeof(msg),
			 "a process was killed for using more than the %u MiB "
			 "memory limit (files in /work, /tmp and /dev/shm "
			 "count toward it)",
			 o->memory_mb);
		cJSON_AddStringToObject(r, "message", msg);
	}
	cJSON_AddNumberToObject(r, "durationMs", o->duration_ms);
	cJSON_AddStringToObject(r, "language", o->language);
	if (o->engine)
		cJSON_AddStringToObject(r, "engine", o->engine);
	cJSON_AddStringToObject(r, "phase", o->phase ? o->phase : "run");
	add_artifacts(r, o);
	if ((bl = run_result_blocklist(o)))
		cJSON_AddItemToObject(r, "blocklist", bl);
	if (session) {
		cJSON_AddStringToObject(r, "session", session);
		cJSON_AddBoolToObject(r, "stateKept",
				      o->interpreter && o->state_kept);
		cJSON_AddBoolToObject(r, "freshState",
				      !o->interpreter || o->fresh);
	}
	return r;
}
