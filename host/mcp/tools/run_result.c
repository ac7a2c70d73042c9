/*
 * run_result.c - one run's result as JSON (run_result.h).
 */
#include "run_result.h"

#include <ctype.h>
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

/* Appends a sentence to the result's message (one string, sentences in
 * the order they matter). */
static void add_sentence(cJSON *r, const char *s)
{
	cJSON *m = cJSON_GetObjectItemCaseSensitive(r, "message");
	char *joined;
	size_t n;

	if (!cJSON_IsString(m)) {
		cJSON_AddStringToObject(r, "message", s);
		return;
	}
	n = strlen(m->valuestring) + strlen(s) + 2;
	joined = malloc(n);
	if (!joined)
		return;
	snprintf(joined, n, "%s %s", m->valuestring, s);
	cJSON_SetValuestring(m, joined);
	free(joined);
}

/* Case-insensitive: is needle in the first n bytes of hay? */
static int says(const char *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle), i, j;

	for (i = 0; k <= n && i <= n - k; i++) {
		for (j = 0;
		     j < k && tolower((unsigned char)hay[i + j]) == needle[j];
		     j++)
			;
		if (j == k)
			return 1;
	}
	return 0;
}

/* Every limit that ended or stunted the call, by name, with the setting
 * that raises it (docs/limits.md): `limitsHit` for a program, `message`
 * for the model. The errno texts are what every libc-based runtime
 * prints (strerror), in any language. */
static void add_limits(cJSON *r, const struct exec_outcome *o,
		       const char *session)
{
	const struct sbx_limits *l = o->lang_limits;
	const char *lang = o->language;
	cJSON *hit = cJSON_CreateArray();
	char msg[512], how[160];
	int sig_xfsz = !o->exited && o->signal == SIGXFSZ;

	if (!hit)
		return;
	if (o->oom_killed) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("memory"));
		snprintf(msg, sizeof(msg),
			 "A process was killed for using more than the %u MiB "
			 "memory limit (files in /work, /tmp and /dev/shm "
			 "count toward it)%s; raise it with %s.",
			 o->memory_mb,
			 session && o->interpreter && !o->state_kept
				 ? ": the session's interpreter went with it, "
				   "so its variables, imports and definitions "
				   "are gone and the next call starts a fresh "
				   "one"
				 : "",
			 tool_setting(how, sizeof(how), lang, "memory_mb"));
		add_sentence(r, msg);
	}
	if (o->limits_hit & AP_LIMIT_PIDS) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("pids"));
		snprintf(msg, sizeof(msg),
			 "A process could not be started: the limit of %u "
			 "processes and threads was reached; raise it with %s.",
			 l ? l->pids : 0,
			 tool_setting(how, sizeof(how), lang, "pids"));
		add_sentence(r, msg);
	}
	if (o->limits_hit & AP_LIMIT_WORK) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("work"));
		snprintf(msg, sizeof(msg),
			 "/work is full (%u MiB): writes there fail with \"No "
			 "space left on device\"; delete files or raise its "
			 "size with %s (it counts toward the memory limit).",
			 l ? l->work_mb : 0,
			 tool_setting(how, sizeof(how), lang, "work_mb"));
		add_sentence(r, msg);
	}
	if (o->limits_hit & AP_LIMIT_TMP) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("tmp"));
		snprintf(msg, sizeof(msg),
			 "/tmp is full (%u MiB): write large files to /work, "
			 "or raise its size with %s.",
			 l ? l->tmp_mb : 0,
			 tool_setting(how, sizeof(how), lang, "tmp_mb"));
		add_sentence(r, msg);
	}
	if (sig_xfsz || says(o->err, o->err_len, "file too large")) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("fsize"));
		snprintf(msg, sizeof(msg),
			 "A file reached the file size limit (%u MiB); raise "
			 "it with %s.",
			 l ? l->fsize_mb : 0,
			 tool_setting(how, sizeof(how), lang, "fsize_mb"));
		add_sentence(r, msg);
	}
	if (says(o->err, o->err_len, "too many open files") ||
	    says(o->out, o->out_len, "too many open files")) {
		cJSON_AddItemToArray(hit, cJSON_CreateString("nofile"));
		snprintf(msg, sizeof(msg),
			 "A process ran out of file descriptors (the limit is "
			 "%u open files); close files, or raise it with %s.",
			 l ? l->nofile : 0,
			 tool_setting(how, sizeof(how), lang, "nofile"));
		add_sentence(r, msg);
	}
	if (session && o->interpreter && o->fresh && !o->oom_killed)
		add_sentence(r, "This call ran in a new interpreter: the "
				"variables, imports and definitions of earlier "
				"calls are gone (files in /work are kept).");
	if (cJSON_GetArraySize(hit))
		cJSON_AddItemToObject(r, "limitsHit", hit);
	else
		cJSON_Delete(hit);
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
	add_limits(r, o, session);
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
		/* The state from before the call is there after it: not
		 * when the call had to start a new interpreter. */
		cJSON_AddBoolToObject(r, "stateKept",
				      o->interpreter && o->state_kept &&
					      !o->fresh);
		cJSON_AddBoolToObject(r, "freshState",
				      !o->interpreter || o->fresh);
	}
	return r;
}
