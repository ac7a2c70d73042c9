/*
 * tool_execute.c - sandbox_execute: run code once in a fresh-or-reset
 * container of the requested language.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/executor.h"
#include "json_util.h"
#include "run_result.h"
#include "tools.h"

/* How often a call with a progress token says it is alive even when the
 * program prints nothing. */
#define HEARTBEAT_MS 1000
/* New output goes to the client at most this often. */
#define PROGRESS_INTERVAL_MS 100
/* Staged input files per call at most. */
#define MAX_STAGED_FILES 100

struct execute_call {
	uv_timer_t heartbeat; /* embedded: freed in its close callback */
	struct mcp_call *call;
	struct exec_job *job;	    /* one-off */
	struct session_call *scall; /* in a session */
	const char *session;	    /* name, for the result (owned copy) */
	uint64_t started;	    /* uv_now() */
};

static int any_ml_variant(const struct tool_env *env)
{
	size_t i;

	for (i = 0; i < env->plugins->n; i++)
		if (env->plugins->v[i].policy.enabled &&
		    env->plugins->v[i].desc->ml_variant)
			return 1;
	return 0;
}

/* One boolean property per option name, whichever languages offer it. */
static void add_option_props(const struct tool_env *env, cJSON *props)
{
	const struct sbx_option *o;
	char desc[512];
	size_t i, k, off;

	for (i = 0; i < env->plugins->n; i++) {
		if (!env->plugins->v[i].policy.enabled)
			continue;
		for (o = env->plugins->v[i].desc->options; o && o->name; o++) {
			cJSON *p;

			if (cJSON_GetObjectItemCaseSensitive(props, o->name))
				continue; /* described with its first language
					   */
			off = (size_t)snprintf(desc, sizeof(desc), "%s (",
					       o->description ? o->description
							      : o->name);
			for (k = i; k < env->plugins->n && off < sizeof(desc);
			     k++)
				if (env->plugins->v[k].policy.enabled &&
				    plugin_option(&env->plugins->v[k], o->name))
					off += (size_t)snprintf(
						desc + off, sizeof(desc) - off,
						"%s%s", k == i ? "" : ", ",
						env->plugins->v[k].desc->name);
			if (off < sizeof(desc) - 1)
				snprintf(desc + off, sizeof(desc) - off, ")");
			p = cJSON_AddObjectToObject(props, o->name);
			cJSON_AddStringToObject(p, "type", "boolean");
			cJSON_AddStringToObject(p, "description", desc);
		}
	}
}

static cJSON *schema_common(const struct tool_env *env, int with_enum)
{
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;
	char desc[1024];
	size_t i, off = 0;

	desc[0] = '\0';
	for (i = 0; i < env->plugins->n; i++) {
		const struct plugin *pl = &env->plugins->v[i];

		if (pl->policy.enabled)
			off += (size_t)snprintf(
				desc + off, sizeof(desc) - off, "%s%s (%s)",
				off ? ", " : "", pl->desc->name,
				pl->desc->description ? pl->desc->description
						      : "");
		if (off >= sizeof(desc))
			break;
	}
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");

	p = cJSON_AddObjectToObject(props, "language");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(p, "description", desc);
	if (with_enum) {
		tool_language_enum(env, p);
	}

	p = cJSON_AddObjectToObject(props, "session");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(p, "description",
				"Run in this session (see sandbox_session) "
				"instead of a fresh container: "
				"files and, for interpreted languages, "
				"variables persist between calls. "
				"language may then be omitted.");

	p = cJSON_AddObjectToObject(props, "code");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(p, "description",
				"The program's source code, written to a file "
				"in /work and run.");

	p = cJSON_AddObjectToObject(props, "files");
	cJSON_AddStringToObject(p, "type", "array");
	cJSON_AddNumberToObject(p, "maxItems", MAX_STAGED_FILES);
	snprintf(desc, sizeof(desc),
		 "Input files written into /work before the code runs "
		 "(directories created, existing files replaced), e.g. a CSV "
		 "to analyse. Each at most %u bytes, all together at most %u.",
		 env->cfg->files_max_write, env->cfg->files_max_staged);
	cJSON_AddStringToObject(p, "description", desc);
	{
		static const char *const encodings[] = {"utf-8", "base64",
							NULL};
		cJSON *it = cJSON_AddObjectToObject(p, "items"), *ip, *q;

		cJSON_AddStringToObject(it, "type", "object");
		ip = cJSON_AddObjectToObject(it, "properties");
		tool_prop(ip, "path", "string",
			  "Relative to /work (or absolute under it).");
		tool_prop(ip, "content", "string", NULL);
		tool_enum_prop(ip, "encoding", encodings, NULL);
		q = cJSON_AddArrayToObject(it, "required");
		cJSON_AddItemToArray(q, cJSON_CreateString("path"));
		cJSON_AddItemToArray(q, cJSON_CreateString("content"));
		cJSON_AddBoolToObject(it, "additionalProperties", 0);
	}

	p = cJSON_AddObjectToObject(props, "timeout");
	cJSON_AddStringToObject(p, "type", "integer");
	cJSON_AddNumberToObject(p, "minimum", 1);
	snprintf(desc, sizeof(desc),
		 "Wall-clock limit in milliseconds (default %u, at most %u). "
		 "On timeout every process the code started is killed and "
		 "partial output is returned.",
		 env->cfg->limits.timeout_ms, env->cfg->max_timeout_ms);
	cJSON_AddStringToObject(p, "description", desc);

	p = cJSON_AddObjectToObject(props, "stdin");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(
		p, "description",
		"Text fed to the program's standard input (default: empty).");

	if (any_ml_variant(env)) {
		p = cJSON_AddObjectToObject(props, "ml");
		cJSON_AddStringToObject(p, "type", "boolean");
		cJSON_AddStringToObject(
			p, "description",
			"Use the language's machine-learning runtime (for "
			"python: numpy, pandas, scikit-learn, torch, "
			"matplotlib already imported and fast).");
	}
	add_option_props(env, props);

	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("code"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

static cJSON *input_schema(const struct tool_env *env)
{
	return schema_common(env, 1);
}

static cJSON *validate_schema(const struct tool_env *env)
{
	/* Without the enum, so that an unknown language gets its own error
	 * code and the list of languages. */
	return schema_common(env, 0);
}

static void ec_closed_cb(uv_handle_t *h)
{
	struct execute_call *ec = h->data;

	free((char *)ec->session);
	free(ec);
}

static void ec_free(struct execute_call *ec)
{
	uv_close((uv_handle_t *)&ec->heartbeat, ec_closed_cb);
}

static void heartbeat_cb(uv_timer_t *t)
{
	struct execute_call *ec = t->data;

	mcp_call_progress(ec->call, (double)(uv_now(t->loop) - ec->started),
			  NULL);
}

/* New output while the code runs: one notifications/progress. */
static void output_cb(const char *out, size_t out_len, const char *err,
		      size_t err_len, void *arg)
{
	struct execute_call *ec = arg;
	char *both, *text;

	both = malloc(out_len + err_len + 1);
	if (!both)
		return;
	memcpy(both, out, out_len);
	memcpy(both + out_len, err, err_len);
	text = utf8_sanitize(both, out_len + err_len);
	free(both);
	mcp_call_progress(ec->call,
			  (double)(uv_now(ec->heartbeat.loop) - ec->started),
			  text);
	free(text);
	uv_timer_again(&ec->heartbeat);
}

static void done_cb(const struct exec_outcome *o, void *arg)
{
	struct execute_call *ec = arg;
	cJSON *r;

	mcp_call_on_cancel(ec->call, NULL, NULL);
	if (o->error)
		r = tool_error_result(o->error);
	else if (!(r = run_result_json(o, ec->session)))
		r = tool_error(ERR_SANDBOX, "out of memory");
	else
		r = tool_ok(ec->call, r);
	mcp_call_finish(ec->call, r);
	ec_free(ec);
}

/* sandbox_execute's files as exec_files (the bytes in bufs, freed by the
 * caller with free_staged); NULL result on success, else the error. */
static cJSON *staged_files(const struct tool_env *env, const cJSON *files,
			   struct exec_file *out, unsigned char **bufs,
			   size_t *n)
{
	const cJSON *f;
	cJSON *res = NULL;
	uint64_t total = 0;
	char what[48];

	*n = 0;
	cJSON_ArrayForEach(f, files)
	{
		const cJSON *path = cJSON_GetObjectItemCaseSensitive(f, "path");
		const cJSON *content =
			cJSON_GetObjectItemCaseSensitive(f, "content");
		const cJSON *enc =
			cJSON_GetObjectItemCaseSensitive(f, "encoding");
		size_t len = 0;

		snprintf(what, sizeof(what), "files[%zu].content", *n);
		bufs[*n] = tool_content_bytes(
			content->valuestring,
			enc && strcmp(enc->valuestring, "base64") == 0,
			env->cfg->files_max_write, what, &len, &res);
		if (!bufs[*n])
			return res;
		out[*n] = (struct exec_file){path->valuestring, bufs[*n], len};
		++*n;
		total += len;
		if (total > env->cfg->files_max_staged)
			return tool_error(ERR_TOO_LARGE,
					  "the files are over %u bytes "
					  "together ([files] "
					  "max_staged_bytes)",
					  env->cfg->files_max_staged);
	}
	return NULL;
}

static void free_staged(unsigned char **bufs, size_t n)
{
	while (n)
		free(bufs[--n]);
}

static void cancel_cb(void *arg)
{
	struct execute_call *ec = arg;

	if (ec->scall)
		session_call_cancel(ec->scall);
	else
		exec_cancel(ec->job);
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
	const cJSON *timeout =
		cJSON_GetObjectItemCaseSensitive(args, "timeout");
	const cJSON *ml = cJSON_GetObjectItemCaseSensitive(args, "ml");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(args, "stdin");
	const cJSON *sess = cJSON_GetObjectItemCaseSensitive(args, "session");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(args, "files");
	struct exec_file staged[MAX_STAGED_FILES];
	unsigned char *bufs[MAX_STAGED_FILES];
	size_t nstaged = 0;
	const cJSON *it;
	const struct plugin *pl;
	struct session *session = NULL;
	struct exec_request req;
	struct execute_call *ec;
	cJSON *error = NULL;
	struct error err;
	double t;

	if (sess &&
	    !(session = session_valid_name(sess->valuestring)
				? session_find(env->sessions, sess->valuestring)
				: NULL)) {
		mcp_call_finish(mc,
				tool_error(ERR_SESSION_NOT_FOUND,
					   "no session named '%s' (create one "
					   "with sandbox_session)",
					   session_valid_name(sess->valuestring)
						   ? sess->valuestring
						   : "(invalid name)"));
		return;
	}
	if (lang) {
		pl = tool_language(env, lang->valuestring, cJSON_IsTrue(ml),
				   &error);
		if (!pl) {
			mcp_call_finish(mc, error);
			return;
		}
	} else if (session) {
		pl = session_plugin(session);
	} else {
		mcp_call_finish(mc, tool_error(ERR_INVALID_ARGUMENTS,
					       "language is required (unless "
					       "session is given)"));
		return;
	}
	if (session && pl != session_plugin(session)) {
		mcp_call_finish(mc,
				tool_error(ERR_LANGUAGE_MISMATCH,
					   "session '%s' runs %s, not %s",
					   sess->valuestring,
					   session_plugin(session)->desc->name,
					   pl->desc->name));
		return;
	}
	req = (struct exec_request){.pl = pl};
	/* Every other boolean argument is an option: the language must
	 * offer each one switched on. */
	cJSON_ArrayForEach(it, args)
	{
		const struct sbx_option *o;

		if (!cJSON_IsBool(it) || strcmp(it->string, "ml") == 0)
			continue;
		o = plugin_option(pl, it->string);
		if (!o) {
			if (cJSON_IsTrue(it)) {
				mcp_call_finish(
					mc,
					tool_error(ERR_INVALID_ARGUMENTS,
						   "language '%s' has "
						   "no option '%s'",
						   pl->desc->name, it->string));
				return;
			}
			continue;
		}
		if (cJSON_IsTrue(it) && req.nopts < EXEC_MAX_OPTIONS)
			req.opts[req.nopts++] = o;
	}
	ec = calloc(1, sizeof(*ec));
	if (!ec) {
		mcp_call_finish(mc, tool_error(ERR_SANDBOX, "out of memory"));
		return;
	}
	ec->call = mc;
	uv_timer_init(env->loop, &ec->heartbeat);
	ec->heartbeat.data = ec;
	ec->started = uv_now(env->loop);
	if (session && !(ec->session = strdup(sess->valuestring))) {
		ec_free(ec);
		mcp_call_finish(mc, tool_error(ERR_SANDBOX, "out of memory"));
		return;
	}
	if (mcp_call_wants_progress(mc)) {
		req.output_cb = output_cb;
		req.stream_ms = PROGRESS_INTERVAL_MS;
		uv_timer_start(&ec->heartbeat, heartbeat_cb, HEARTBEAT_MS,
			       HEARTBEAT_MS);
	}
	/* As asked: the executor applies the language's cap. */
	t = timeout ? timeout->valuedouble : 0;
	req.timeout_ms = t >= UINT32_MAX ? UINT32_MAX : (uint32_t)t;
	req.code = code->valuestring;
	req.code_len = strlen(code->valuestring);
	if (in) {
		req.stdin_data = in->valuestring;
		req.stdin_len = strlen(in->valuestring);
	}
	if (files &&
	    (error = staged_files(env, files, staged, bufs, &nstaged))) {
		free_staged(bufs, nstaged);
		mcp_call_finish(mc, error);
		ec_free(ec);
		return;
	}
	req.files = staged;
	req.nfiles = nstaged;
	/* Both copy the request: the staged bytes go now either way. */
	if (session) {
		if (session_exec(session, &req, done_cb, ec, &ec->scall,
				 &err)) {
			free_staged(bufs, nstaged);
			mcp_call_finish(mc, tool_error_result(&err));
			ec_free(ec);
			return;
		}
	} else if (exec_start(env->loop, env->pool, &req, done_cb, ec,
			      &ec->job)) {
		free_staged(bufs, nstaged);
		mcp_call_finish(mc, tool_error(ERR_SANDBOX, "out of memory"));
		ec_free(ec);
		return;
	}
	free_staged(bufs, nstaged);
	mcp_call_on_cancel(mc, cancel_cb, ec);
}

static cJSON *output_schema_cb(const struct tool_env *env)
{
	(void)env;
	return run_result_schema();
}

const struct tool tool_execute = {
	.name = "sandbox_execute",
	.title = "Run code in a sandbox",
	.description = "Run a program in an isolated, network-less container "
		       "and return its exit code, "
		       "stdout, stderr and duration. The code is saved as a "
		       "file in /work (writable, "
		       "wiped after the call) and run as an unprivileged user. "
		       "With `session` (see "
		       "sandbox_session) it runs in that session's container "
		       "instead, where files and, "
		       "for python, javascript, typescript and bash, variables "
		       "persist between calls. "
		       "`files` puts input files (a CSV, an image) into /work "
		       "first. "
		       "A failing program is a normal result (isError false) "
		       "with its exit code and stderr.",
	.input_schema = input_schema,
	.validate_schema = validate_schema,
	.output_schema = output_schema_cb,
	.read_only = 0,
	.destructive = 0,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
