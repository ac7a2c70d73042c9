/*
 * run_result.c - one run's result as JSON (run_result.h).
 */
#include "run_result.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
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

	if (!m) {
		cJSON_AddStringToObject(r, "message", s);
		return;
	}
	if (!cJSON_IsString(m)) { /* the placeholder */
		cJSON_ReplaceItemInObjectCaseSensitive(r, "message",
						       cJSON_CreateString(s));
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

/* Does stderr say strerror's text (errno's, in every runtime; its first
 * letter's case varies, "Too many" or "too many", so it is left out)? */
static int says(const struct exec_outcome *o, const char *rest)
{
	return o->err && memmem(o->err, o->err_len, rest, strlen(rest));
}

/* One limit the call ran into: name in hit, fmt's sentence in message. */
static void limit_hit(cJSON *r, cJSON *hit, const char *name, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));

static void limit_hit(cJSON *r, cJSON *hit, const char *name, const char *fmt,
		      ...)
{
	char msg[512];
	va_list ap;

	cJSON_AddItemToArray(hit, cJSON_CreateString(name));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	add_sentence(r, msg);
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
	if (o->limits_hit & AP_LIMIT_PIDS)
		limit_hit(r, hit, "pids",
			  "A process could not be started: the limit of %u "
			  "processes and threads was reached; raise it with "
			  "%s.",
			  l ? l->pids : 0,
			  tool_setting(how, sizeof(how), lang, "pids"));
	if (o->limits_hit & AP_LIMIT_WORK)
		limit_hit(r, hit, "work",
			  "/work is full (%u MiB): writes there fail with \"No "
			  "space left on device\"; delete files or raise its "
			  "size with %s (it counts toward the memory limit).",
			  l ? l->work_mb : 0,
			  tool_setting(how, sizeof(how), lang, "work_mb"));
	if (o->limits_hit & AP_LIMIT_TMP)
		limit_hit(r, hit, "tmp",
			  "/tmp is full (%u MiB): write large files to /work, "
			  "or raise its size with %s.",
			  l ? l->tmp_mb : 0,
			  tool_setting(how, sizeof(how), lang, "tmp_mb"));
	if (sig_xfsz || says(o, "ile too large"))
		limit_hit(r, hit, "fsize",
			  "A file reached the file size limit (%u MiB); raise "
			  "it with %s.",
			  l ? l->fsize_mb : 0,
			  tool_setting(how, sizeof(how), lang, "fsize_mb"));
	if (says(o, "oo many open files"))
		limit_hit(r, hit, "nofile",
			  "A process ran out of file descriptors (the limit is "
			  "%u open files); close files, or raise it with %s.",
			  l ? l->nofile : 0,
			  tool_setting(how, sizeof(how), lang, "nofile"));
	if (session && o->interpreter && o->fresh && !o->oom_killed)
		add_sentence(r, "This call ran in a new interpreter: the "
				"variables, imports and definitions of earlier "
				"calls are gone (files in /work are kept).");
	if (cJSON_GetArraySize(hit))
		cJSON_AddItemToObject(r, "limitsHit", hit);
	else
		cJSON_Delete(hit);
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

static const char *const field[2] = {"stdout", "stderr"};
static const char *const uri_field[2] = {"stdoutUri", "stderrUri"};

/* r's value under key replaced in its place (added when missing); v NULL:
 * the key goes. */
static void set_item(cJSON *r, const char *key, cJSON *v)
{
	if (!v)
		cJSON_DeleteItemFromObjectCaseSensitive(r, key);
	else if (cJSON_HasObjectItem(r, key))
		cJSON_ReplaceItemInObjectCaseSensitive(r, key, v);
	else
		cJSON_AddItemToObject(r, key, v);
}

/* Appends to out (size bytes, NUL-terminated) what printf would. */
static void say(char *out, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *out, size_t size, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	if (n + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, size - n, fmt, ap);
	va_end(ap);
}

/* Why stream i is not whole though nothing cut it for the budget: its
 * capture cap, and the settings that raise it. */
static void say_capped(char *m, size_t size, const struct run_streams *rs,
		       int i)
{
	const struct run_stream *st = &rs->s[i];
	char env[64];
	size_t k;

	snprintf(env, sizeof(env), "SANDBOX_%s_%s_CAP", rs->language, field[i]);
	for (k = 0; env[k]; k++)
		env[k] = env[k] == '-' ? '_'
				       : (char)toupper((unsigned char)env[k]);
	say(m, size, "%s", *m ? " " : "");
	if (st->total != UINT64_MAX)
		say(m, size,
		    "%s was %llu bytes, over its capture cap of %u: its "
		    "beginning and end were kept, its middle was not",
		    field[i], (unsigned long long)st->total, st->cap);
	else
		say(m, size,
		    "%s passed its capture cap of %u bytes: its middle was "
		    "not kept",
		    field[i], st->cap);
	if (st->cap < POLICY_OUTPUT_CAP_MAX)
		say(m, size,
		    " (raise %s_cap in sandbox.ini's [limits] or [%s] "
		    "section, or %s; at most %u).",
		    field[i], rs->language, env, POLICY_OUTPUT_CAP_MAX);
	else
		say(m, size,
		    " (%u is the most captured: write output that large to "
		    "a file in /work instead).",
		    st->cap);
}

/* What the budget cut (cut[i]), and how to read the rest. */
static void say_cut(char *m, size_t size, const struct run_streams *rs,
		    const int cut[2], const char *const uri[2])
{
	int both = cut[0] && cut[1];
	int kept = (!cut[0] || uri[0]) && (!cut[1] || uri[1]);
	int one = cut[0] ? 0 : 1; /* the one cut, unless both are */

	say(m, size,
	    "%sOnly the beginning and end of %s %s shown here, to keep this "
	    "result under %u tokens ([limits] result_max_tokens).",
	    *m ? " " : "", both ? "stdout and stderr" : field[one],
	    both ? "are" : "is", rs->budget);
	if (kept)
		say(m, size,
		    " The rest is kept: read it with sandbox_file_ops "
		    "{action: \"read\", path: <%s>, offset: <the byte the "
		    "marker names>, length: %u}, then on from nextOffset.",
		    both ? "stdoutUri or stderrUri" : uri_field[one], rs->page);
	else
		say(m, size, " The rest is not kept: %.200s.",
		    rs->not_kept && *rs->not_kept
			    ? rs->not_kept
			    : "the artifact store refused it");
}

/* r's stream fields from rs, with text[i] shown for stream i, cut[i]
 * when the budget cut it and uri[i] where it is kept. */
static int fill(cJSON *r, const struct run_streams *rs,
		const char *const text[2], const int cut[2],
		const char *const uri[2])
{
	char m[2048], key[32];
	const cJSON *old = cJSON_GetObjectItemCaseSensitive(r, "message");
	int i;

	m[0] = '\0';
	if (cJSON_IsString(old))
		say(m, sizeof(m), "%s", old->valuestring);
	for (i = 0; i < 2; i++) {
		const struct run_stream *st = &rs->s[i];
		int not_whole = st->capped || cut[i];

		set_item(r, field[i], cJSON_CreateString(text[i]));
		snprintf(key, sizeof(key), "%sTruncated", field[i]);
		set_item(r, key, cJSON_CreateBool(not_whole));
		snprintf(key, sizeof(key), "%sBytes", field[i]);
		set_item(r, key,
			 not_whole && st->total != UINT64_MAX
				 ? cJSON_CreateNumber((double)st->total)
				 : NULL);
		set_item(r, uri_field[i],
			 cut[i] && uri[i] ? cJSON_CreateString(uri[i]) : NULL);
		if (st->capped)
			say_capped(m, sizeof(m), rs, i);
	}
	if (cut[0] || cut[1])
		say_cut(m, sizeof(m), rs, cut, uri);
	set_item(r, "message", *m ? cJSON_CreateString(m) : NULL);
	return cJSON_GetObjectItemCaseSensitive(r, "stderr") ? 0 : -ENOMEM;
}

int run_result_streams(cJSON *r, const struct run_streams *rs)
{
	char *text[2] = {NULL, NULL};
	int cut[2], i, rc = -ENOMEM;
	const char *uri[2];

	for (i = 0; i < 2; i++) {
		const struct run_stream *st = &rs->s[i];

		cut[i] = output_fit_is_cut(&st->cut);
		uri[i] = cut[i] ? st->uri : NULL;
		text[i] = output_fit_text(st->data, st->len, &st->cut,
					  uri[i] ? uri_field[i] : NULL);
	}
	if (text[0] && text[1])
		rc = fill(r, rs, (const char *const *)text, cut, uri);
	free(text[0]);
	free(text[1]);
	return rc;
}

/* The bytes r's text would take with the streams as cut[] says and
 * shown empty (a kept stream's uri as long as a real one). */
static size_t measure(const cJSON *r, const struct run_streams *rs,
		      const int cut[2])
{
	static const char *const empty[2] = {"", ""};
	static const char *const uri[2] = {
		"sandbox://artifact/0123456789abcdef/stdout",
		"sandbox://artifact/0123456789abcdef/stderr"};
	cJSON *d = cJSON_Duplicate(r, 1);
	char *text = NULL;
	size_t n = SIZE_MAX;

	if (d && fill(d, rs, empty, cut, uri) == 0 &&
	    (text = cJSON_PrintUnformatted(d)))
		n = strlen(text);
	free(text);
	cJSON_Delete(d);
	return n;
}

int run_result_fit(const cJSON *r, struct run_streams *rs, uint32_t budget,
		   uint32_t page)
{
	static const int none[2] = {0, 0}, both[2] = {1, 1};
	size_t room, rest, cost[2], share[2];
	int i, any = 0;

	rs->budget = budget;
	rs->page = page;
	for (i = 0; i < 2; i++)
		rs->s[i].cut = (struct output_cut){rs->s[i].len, rs->s[i].len};
	if (!budget)
		return 0;
	room = 2 * (size_t)budget;
	for (i = 0; i < 2; i++)
		cost[i] = output_fit_cost(rs->s[i].data, rs->s[i].len, room);
	rest = measure(r, rs, none);
	if (rest <= room && cost[0] <= room - rest &&
	    cost[1] <= room - rest - cost[0])
		return 0;
	/* Room for the fields and the message a cut brings, as if both
	 * were cut and kept (the longest they can be). */
	rest = measure(r, rs, both);
	output_fit_share(cost, rest < room ? room - rest : 0, share);
	for (i = 0; i < 2; i++) {
		output_fit_cut(rs->s[i].data, rs->s[i].len, share[i],
			       uri_field[i], &rs->s[i].cut);
		any |= output_fit_is_cut(&rs->s[i].cut);
	}
	return any;
}

/* A stream as captured, shown whole. */
static struct run_stream whole(const char *data, size_t len, uint64_t total,
			       uint32_t cap, int capped)
{
	return (struct run_stream){.data = data,
				   .len = len,
				   .total = total,
				   .cap = cap,
				   .capped = capped,
				   .cut = {len, len}};
}

void run_streams_init(struct run_streams *rs, const struct exec_outcome *o)
{
	memset(rs, 0, sizeof(*rs));
	rs->s[0] = whole(o->out, o->out_len, o->out_total, o->out_cap,
			 o->out_truncated);
	rs->s[1] = whole(o->err, o->err_len, o->err_total, o->err_cap,
			 o->err_truncated);
	rs->language = o->language;
}

cJSON *run_result_base(const struct exec_outcome *o, const char *session)
{
	cJSON *r = cJSON_CreateObject(), *bl;
	char sig[32];
	int i;

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
	/* Placeholders, in the order the fields are read. */
	cJSON_AddStringToObject(r, "stdout", "");
	cJSON_AddStringToObject(r, "stderr", "");
	cJSON_AddBoolToObject(r, "stdoutTruncated", 0);
	cJSON_AddBoolToObject(r, "stderrTruncated", 0);
	for (i = 0; i < 2; i++) {
		char key[32];

		snprintf(key, sizeof(key), "%sBytes", field[i]);
		cJSON_AddNullToObject(r, key);
	}
	cJSON_AddNullToObject(r, uri_field[0]);
	cJSON_AddNullToObject(r, uri_field[1]);
	cJSON_AddBoolToObject(r, "timedOut", o->timed_out);
	cJSON_AddBoolToObject(r, "oomKilled", o->oom_killed);
	/* A placeholder where it is read: add_limits() and the streams
	 * fill it, or it goes. */
	cJSON_AddNullToObject(r, "message");
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

cJSON *run_result_json(const struct exec_outcome *o, const char *session)
{
	cJSON *r = run_result_base(o, session);
	struct run_streams rs;

	run_streams_init(&rs, o);
	if (r && run_result_streams(r, &rs)) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}
