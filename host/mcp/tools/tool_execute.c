/*
 * tool_execute.c - sandbox_execute: run code once in a fresh-or-reset
 * container of the requested language.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/records/artifact_store.h"
#include "core/tenants/links.h"
#include "core/tenants/tenants.h"
#include "core/exec/executor.h"
#include "core/packages/install.h"
#include "util/media.h"
#include "mcp/json_util.h"
#include "resources.h"
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
	const struct tool_env *env;
	struct mcp_call *call;
	struct exec_job *job;	    /* one-off */
	struct session_call *scall; /* in a session */
	const char *session;	    /* name, for the result (owned copy) */
	uint64_t started;	    /* uv_now() */
	/* The result being put together: the run's JSON, its image
	 * blocks, and for a one-off call the artifacts being kept. */
	cJSON *result, *images;
	int *kept_as; /* per artifact: its index among the kept, or -1 */
	size_t nkept_as;
	char **paths; /* per artifact: its path as the agent sent it, for
			 the uri (the JSON's is made valid UTF-8) */
	size_t npaths;
	char store_id[ARTIFACT_ID_LEN + 1];
	cJSON *packages; /* the installed set's summary, or NULL */
	cJSON *links;	 /* resource_link blocks of the kept artifacts */
	/* stdout and stderr (copied: the outcome is borrowed), fitted into
	 * the result's budget, and where the cut ones are kept. */
	struct run_streams streams;
	char *stream_bytes;
	char *stream_uri[2];
	char stream_id[ARTIFACT_ID_LEN + 1];
	char not_kept[ERROR_MSG_MAX];
};

/* A call with packages, while they are installed. */
struct pending_run {
	const struct tool_env *env;
	cJSON *args;	   /* a copy: the request's own is gone by then */
	struct engine *on; /* where the set is installed: the run goes there */
};

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
				"language may then be omitted; the session "
				"fixes the runtime (python in a session "
				"created with ml: true runs in python-ml).");

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
		 "to analyse: inline (content, all together at most %u "
		 "bytes) or taken from the user's machine (from).",
		 env->cfg->files_max_staged);
	cJSON_AddStringToObject(p, "description", desc);
	{
		static const char *const encodings[] = {"utf-8", "base64",
							NULL};
		cJSON *it = cJSON_AddObjectToObject(p, "items"), *ip, *q;

		cJSON_AddStringToObject(it, "type", "object");
		ip = cJSON_AddObjectToObject(it, "properties");
		tool_prop(ip, "path", "string",
			  "Relative to /work (or absolute under it).");
		tool_prop(ip, "content", "string",
			  "The file's bytes (give content or from).");
		tool_enum_prop(ip, "encoding", encodings, NULL);
		tool_prop(ip, "from", "string",
			  "A file or directory on the user's machine under "
			  "the files root (relative to it, or absolute inside "
			  "it), copied to path without passing through the "
			  "conversation: a directory brings the files below "
			  "it. Any size up to the /work size.");
		q = cJSON_AddArrayToObject(it, "required");
		cJSON_AddItemToArray(q, cJSON_CreateString("path"));
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

	if (tool_any_ml_variant(env)) {
		p = cJSON_AddObjectToObject(props, "ml");
		cJSON_AddStringToObject(p, "type", "boolean");
		cJSON_AddStringToObject(
			p, "description",
			"Use the language's machine-learning runtime (for "
			"python: numpy, pandas, scikit-learn, torch, "
			"matplotlib already imported and fast).");
	}
	add_option_props(env, props);
	tool_packages_schema(props,
			     "Packages the code needs, installed first (or "
			     "taken from the cache) and visible to it "
			     "read-only; one-off runs only. ");

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
	cJSON_Delete(ec->result);
	cJSON_Delete(ec->images);
	cJSON_Delete(ec->packages);
	cJSON_Delete(ec->links);
	free(ec->stream_bytes);
	free(ec->stream_uri[0]);
	free(ec->stream_uri[1]);
	free(ec->kept_as);
	while (ec->npaths)
		free(ec->paths[--ec->npaths]);
	free(ec->paths);
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

/* Why image e is not shown (written into buf), or NULL when it is a real
 * image within the caps (*mime its type). */
static const char *not_shown(const struct exec_artifact *e,
			     const struct config *cfg, uint32_t shown,
			     const char **mime, char *buf, size_t size)
{
	enum media_verdict v = MEDIA_SHOWN;
	uint32_t w = 0, h = 0;

	if (e->data)
		v = media_image_check(e->data, e->len, cfg->art_image_px,
				      cfg->art_image_pixels, mime, &w, &h);
	if (e->size > cfg->art_image_bytes || e->len > cfg->art_image_bytes)
		snprintf(buf, size,
			 "not shown: over %u bytes ([artifacts] "
			 "image_max_bytes)",
			 cfg->art_image_bytes);
	else if (!e->data && e->skip != EXEC_ART_TOO_MANY)
		snprintf(buf, size, "not shown: %s",
			 e->skip == EXEC_ART_OVER_TOTAL
				 ? "over the bytes one call may read back"
			 : e->skip == EXEC_ART_TOO_LARGE
				 ? "it grew past its cap while read back"
				 : "could not be read back");
	else if (v == MEDIA_NOT_IMAGE)
		snprintf(buf, size,
			 "not shown: not a PNG, JPEG, GIF or WebP image");
	else if (v == MEDIA_OVER_SIDE)
		snprintf(buf, size,
			 "not shown: %ux%u px, over %u on a side "
			 "([artifacts] image_max_px)",
			 w, h, cfg->art_image_px);
	else if (v == MEDIA_OVER_PIXELS)
		snprintf(buf, size,
			 "not shown: %ux%u px, %llu MB decoded, over %u "
			 "pixels in all ([artifacts] image_max_pixels)",
			 w, h,
			 (unsigned long long)(media_decoded_bytes(w, h) /
					      1000000),
			 cfg->art_image_pixels);
	else if (!e->data || shown >= cfg->art_images)
		snprintf(buf, size,
			 "not shown: more than %u images in one result "
			 "([artifacts] images)",
			 cfg->art_images);
	else
		return NULL;
	return buf;
}

/* Why a one-off run's file was not kept (no uri). */
static void keep_note(cJSON *a, const struct exec_artifact *e,
		      const struct config *cfg)
{
	char note[160];

	if (e->skip == EXEC_ART_TOO_LARGE)
		snprintf(note, sizeof(note),
			 "not kept: over %u bytes ([artifacts] "
			 "keep_max_bytes)",
			 cfg->art_keep_bytes);
	else if (e->skip == EXEC_ART_OVER_TOTAL)
		snprintf(note, sizeof(note),
			 "not kept: over %u bytes with the files before it "
			 "([artifacts] keep_call_bytes)",
			 cfg->art_keep_call);
	else if (e->skip == EXEC_ART_UNREADABLE)
		snprintf(note, sizeof(note),
			 "not kept: not a regular file (a symlink, a FIFO), "
			 "or gone");
	else
		return;
	cJSON_AddStringToObject(a, "note", note);
}

/* An image block for e when it is a real image within the caps (1), else
 * the note says why not (0). */
static int add_image(struct execute_call *ec, cJSON *a,
		     const struct exec_artifact *e, uint32_t shown)
{
	const char *mime = NULL, *why;
	char note[160];
	cJSON *b;

	why = not_shown(e, ec->env->cfg, shown, &mime, note, sizeof(note));
	if (why) {
		cJSON_AddStringToObject(a, "note", why);
		return 0;
	}
	b = tool_image_block(e->data, e->len, mime);
	if (!b)
		return 0;
	cJSON_AddItemToArray(ec->images, b);
	cJSON_AddBoolToObject(a, "shown", 1);
	return 1;
}

/* The result's text (its streams filled in), images and links, then the
 * answer. */
static void answer(struct execute_call *ec)
{
	cJSON *res, *content;

	if (run_result_streams(ec->result, &ec->streams)) {
		mcp_call_finish_errorf(ec->call, ERR_SANDBOX, "out of memory");
		ec_free(ec);
		return;
	}
	res = tool_ok_text(ec->result);
	ec->result = NULL;
	content = cJSON_GetObjectItemCaseSensitive(res, "content");
	while (cJSON_GetArraySize(ec->images))
		cJSON_AddItemToArray(content,
				     cJSON_DetachItemFromArray(ec->images, 0));
	while (cJSON_GetArraySize(ec->links))
		cJSON_AddItemToArray(content,
				     cJSON_DetachItemFromArray(ec->links, 0));
	mcp_call_finish(ec->call, res);
	ec_free(ec);
}

static int hold_quota(struct execute_call *ec, uint64_t bytes,
		      struct error *err);

static void streams_kept_cb(const struct error *err, const unsigned char *kept,
			    void *arg)
{
	struct execute_call *ec = arg;
	size_t i, n = 0;

	if (err)
		snprintf(ec->not_kept, sizeof(ec->not_kept), "%s", err->msg);
	for (i = 0; i < 2; i++) {
		struct run_stream *st = &ec->streams.s[i];

		if (!output_fit_is_cut(&st->cut))
			continue;
		if (!err && kept[n] &&
		    (ec->stream_uri[i] =
			     resources_uri("artifact", ec->stream_id,
					   i ? "stderr" : "stdout")))
			st->uri = ec->stream_uri[i];
		n++;
	}
	answer(ec);
}

/* The streams a cut left partly unseen go to the artifact store, as
 * sandbox://artifact/<id>/stdout and .../stderr, one-off or in a session
 * (1: answer() follows from streams_kept_cb); else not_kept says why. */
static int keep_streams(struct execute_call *ec)
{
	const struct tenant *t = mcp_call_tenant(ec->call);
	struct exec_file files[2];
	uint64_t bytes = 0;
	struct error err;
	size_t i, n = 0;

	if (!ec->env->artifacts) {
		snprintf(ec->not_kept, sizeof(ec->not_kept),
			 "no artifacts are kept here ([artifacts] "
			 "store_max_mb is 0)");
		return 0;
	}
	for (i = 0; i < 2; i++) {
		const struct run_stream *st = &ec->streams.s[i];

		if (!output_fit_is_cut(&st->cut))
			continue;
		files[n++] = (struct exec_file){i ? "stderr" : "stdout",
						(const unsigned char *)st->data,
						st->len, NULL};
		bytes += st->len;
	}
	if (hold_quota(ec, bytes, &err)) {
		snprintf(ec->not_kept, sizeof(ec->not_kept), "%s", err.msg);
		return 0;
	}
	if (artifact_store_put(ec->env->artifacts, t ? t->name : NULL, files, n,
			       ec->stream_id, streams_kept_cb, ec) == 0)
		return 1;
	snprintf(ec->not_kept, sizeof(ec->not_kept), "out of memory");
	return 0;
}

/* The streams fitted into the result's budget ([limits]
 * result_max_tokens), the rest of the result being final. */
static void fit_streams(struct execute_call *ec)
{
	const struct config *cfg = ec->env->cfg;
	/* A byte a token: a page fits the same budget even when escaping
	 * makes its text twice as long. */
	uint32_t page = cfg->result_max_tokens;

	ec->streams.not_kept = ec->not_kept;
	if (page > cfg->files_max_read)
		page = cfg->files_max_read;
	if (!run_result_fit(ec->result, &ec->streams, cfg->result_max_tokens,
			    page) ||
	    !keep_streams(ec))
		answer(ec);
}

/* The kept artifacts' uris (and links), the packages installed, then the
 * streams. */
static void artifacts_done(struct execute_call *ec, const unsigned char *kept)
{
	cJSON *arts = cJSON_GetObjectItemCaseSensitive(ec->result, "artifacts");
	cJSON *a;
	size_t i = 0;

	cJSON_ArrayForEach(a, arts)
	{
		const char *path =
			ec->paths && i < ec->npaths ? ec->paths[i] : NULL;
		int read = i < ec->nkept_as && ec->kept_as[i] >= 0;
		char *uri = NULL;

		if (path && ec->session)
			uri = resources_uri("session", ec->session, path);
		else if (path && read && kept && kept[ec->kept_as[i]])
			uri = resources_uri("artifact", ec->store_id, path);
		else if (read && kept && !cJSON_HasObjectItem(a, "note"))
			cJSON_AddStringToObject(a, "note",
						"not kept: the store refused "
						"its path");
		i++;
		if (!uri)
			continue;
		cJSON_AddStringToObject(a, "uri", uri);
		/* Over HTTP a kept file is also a signed link (links.h). */
		if (ec->env->links && !ec->session && path) {
			const struct tenant *t = mcp_call_tenant(ec->call);
			char *url = links_url(ec->env->links,
					      t ? t->name : NULL, ec->store_id,
					      path, (int64_t)time(NULL));

			if (url)
				cJSON_AddStringToObject(a, "url", url);
			free(url);
		}
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "shown")))
			cJSON_AddItemToArray(ec->links,
					     tool_link_block(a, uri));
		free(uri);
	}
	if (ec->packages) {
		cJSON_AddItemToObject(ec->result, "packages", ec->packages);
		ec->packages = NULL;
	}
	fit_streams(ec);
}

static void kept_cb(const struct error *err, const unsigned char *kept,
		    void *arg)
{
	struct execute_call *ec = arg;

	artifacts_done(ec, err ? NULL : kept);
}

/* Room in a tenant's artifact quota for bytes more (tool_hold_artifacts). */
static int hold_quota(struct execute_call *ec, uint64_t bytes,
		      struct error *err)
{
	return tool_hold_artifacts(ec->env, ec->call, bytes, err);
}

/* 1 when a tenant's artifact quota has no room for bytes more: each
 * file of the call then says so. Else the room is held (hold_quota). */
static int over_artifact_quota(struct execute_call *ec, uint64_t bytes)
{
	struct error err;
	char note[ERROR_MSG_MAX + 32];
	cJSON *a;

	if (hold_quota(ec, bytes, &err) == 0)
		return 0;
	snprintf(note, sizeof(note), "not kept: quota_exceeded (%s)", err.msg);
	cJSON_ArrayForEach(
		a, cJSON_GetObjectItemCaseSensitive(ec->result, "artifacts"))
	{
		if (!cJSON_HasObjectItem(a, "note") &&
		    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "shown")))
			cJSON_AddStringToObject(a, "note", note);
	}
	return 1;
}

/* A one-off box is reset after the call: what was read back of it goes to
 * the artifact store first (1: artifacts_done() follows from kept_cb). A
 * tenant's set is its own (tenants.h). */
static int keep(struct execute_call *ec, const struct exec_outcome *o)
{
	const struct tenant *t = mcp_call_tenant(ec->call);
	struct exec_file *files;
	uint64_t bytes = 0;
	size_t i, n = 0;
	int rc;

	if (ec->session || !ec->env->artifacts || !o->nartifacts)
		return 0;
	files = calloc(o->nartifacts, sizeof(*files));
	ec->kept_as = malloc(o->nartifacts * sizeof(*ec->kept_as));
	if (!files || !ec->kept_as) {
		free(files);
		free(ec->kept_as);
		ec->kept_as = NULL; /* artifacts_done() reads it by nkept_as */
		ec->nkept_as = 0;
		return 0;
	}
	ec->nkept_as = o->nartifacts;
	for (i = 0; i < o->nartifacts; i++) {
		const struct exec_artifact *e = &o->artifacts[i];

		ec->kept_as[i] = -1;
		if (!e->data)
			continue;
		ec->kept_as[i] = (int)n;
		files[n++] = (struct exec_file){e->path, e->data, e->len, NULL};
	}
	for (i = 0; i < n; i++)
		bytes += files[i].len;
	rc = n && !over_artifact_quota(ec, bytes)
		     ? artifact_store_put(ec->env->artifacts,
					  t ? t->name : NULL, files, n,
					  ec->store_id, kept_cb, ec)
		     : -1;
	free(files);
	return rc == 0;
}

/* The outcome's streams, copied: the result is finished after the
 * outcome has gone (artifacts kept off the loop). 0 or -ENOMEM. */
static int copy_streams(struct execute_call *ec, const struct exec_outcome *o)
{
	struct run_streams *rs = &ec->streams;

	run_streams_init(rs, o);
	ec->stream_bytes = malloc(o->out_len + o->err_len + 1);
	if (!ec->stream_bytes)
		return -ENOMEM;
	memcpy(ec->stream_bytes, o->out, o->out_len);
	memcpy(ec->stream_bytes + o->out_len, o->err, o->err_len);
	rs->s[0].data = ec->stream_bytes;
	rs->s[1].data = ec->stream_bytes + o->out_len;
	return 0; /* rs->language is the plugin's name: it outlives the call */
}

static void done_cb(const struct error *err, const struct exec_outcome *o,
		    void *arg)
{
	struct execute_call *ec = arg;
	uint32_t shown = 0;
	cJSON *arts, *a;
	size_t i = 0;

	mcp_call_on_cancel(ec->call, NULL, NULL);
	if (err) {
		mcp_call_finish_error(ec->call, err);
		ec_free(ec);
		return;
	}
	ec->result = run_result_base(o, ec->session);
	run_result_add_hint(ec->result, ec->env->plugins, o);
	mcp_call_note_run(ec->call, o);
	ec->images = cJSON_CreateArray();
	ec->links = cJSON_CreateArray();
	if (!ec->result || !ec->images || !ec->links || copy_streams(ec, o)) {
		mcp_call_finish_errorf(ec->call, ERR_SANDBOX, "out of memory");
		ec_free(ec);
		return;
	}
	ec->paths =
		calloc(o->nartifacts ? o->nartifacts : 1, sizeof(*ec->paths));
	for (i = 0; ec->paths && i < o->nartifacts; i++)
		if ((ec->paths[i] = strdup(o->artifacts[i].path)))
			ec->npaths = i + 1;
	i = 0;
	arts = cJSON_GetObjectItemCaseSensitive(ec->result, "artifacts");
	cJSON_ArrayForEach(a, arts)
	{
		const struct exec_artifact *e = &o->artifacts[i++];

		if (e->skip == EXEC_ART_BAD_NAME) {
			/* No uri: no file operation takes such a path. */
			if (ec->paths && i - 1 < ec->npaths) {
				free(ec->paths[i - 1]);
				ec->paths[i - 1] = NULL;
			}
			cJSON_AddStringToObject(
				a, "note",
				"not shown or kept: its name holds a control "
				"character, which file operations refuse "
				"(rename the file)");
		} else if (e->image)
			shown += (uint32_t)add_image(ec, a, e, shown);
		else if (!ec->session && ec->env->artifacts)
			keep_note(a, e, ec->env->cfg);
	}
	if (!keep(ec, o))
		artifacts_done(ec, NULL);
}

/* sandbox_execute's files as exec_files (the bytes in bufs, freed by the
 * caller with free_staged): 0, or the code with err. */
static int staged_files(const struct tool_env *env, struct mcp_call *mc,
			const struct plugin *pl, const cJSON *files,
			struct exec_file *out, unsigned char **bufs, size_t *n,
			struct error *err)
{
	const cJSON *f;
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
		const cJSON *from = cJSON_GetObjectItemCaseSensitive(f, "from");
		size_t len = 0;

		if (!content == !from)
			return error_set(err, ERR_INVALID_ARGUMENTS,
					 "files[%zu] takes content or from, "
					 "one of them",
					 *n);
		if (from) {
			const char *host =
				tool_host_path(env, mc, from->valuestring, err);

			if (!host)
				return err->code;
			bufs[*n] = NULL;
			out[*n] = (struct exec_file){path->valuestring, NULL, 0,
						     host};
			++*n;
			continue;
		}

		snprintf(what, sizeof(what), "files[%zu].content", *n);
		bufs[*n] = tool_content_bytes(
			content->valuestring,
			enc && strcmp(enc->valuestring, "base64") == 0,
			tool_file_cap(env, pl), what, &len, err);
		if (!bufs[*n])
			return err->code;
		out[*n] = (struct exec_file){path->valuestring, bufs[*n], len,
					     NULL};
		++*n;
		total += len;
		if (total > env->cfg->files_max_staged)
			return error_set(err, ERR_TOO_LARGE,
					 "the files are over %u bytes "
					 "together ([files] max_staged_bytes)",
					 env->cfg->files_max_staged);
	}
	return 0;
}

static void free_staged(unsigned char **bufs, size_t n)
{
	while (n)
		free(bufs[--n]);
}

/* What a call reads back: the images it shows, and from a one-off box
 * what the artifact store keeps. */
static struct exec_collect collect_policy(const struct tool_env *env,
					  int in_session)
{
	const struct config *cfg = env->cfg;
	struct exec_collect c = {
		.images = cfg->art_images,
		.image_max_bytes = cfg->art_image_bytes,
		.max_total = (uint64_t)cfg->art_images * cfg->art_image_bytes,
		.chunk = cfg->files_max_read,
	};

	if (!in_session && env->artifacts) {
		c.other_max_bytes = cfg->art_keep_bytes;
		c.max_total = cfg->art_keep_call;
	}
	return c;
}

static void cancel_cb(void *arg)
{
	struct execute_call *ec = arg;

	if (ec->scall)
		session_call_cancel(ec->scall);
	else
		exec_cancel(ec->job);
}

static void installed_cb(struct mcp_call *mc, const struct pkg_entry *e,
			 cJSON *summary, void *arg);

/* The plugin the call runs, and the session it names (*session, or
 * NULL). NULL with err when the call cannot run. */
static const struct plugin *call_target(const struct tool_env *env,
					struct mcp_call *mc, const cJSON *args,
					struct session **session,
					struct error *err)
{
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const cJSON *ml = cJSON_GetObjectItemCaseSensitive(args, "ml");
	const cJSON *sess = cJSON_GetObjectItemCaseSensitive(args, "session");
	const struct plugin *pl;

	*session = NULL;
	if (sess &&
	    !(*session = tool_find_session(env, mc, sess->valuestring))) {
		tool_no_session(env, mc, sess->valuestring, err);
		return NULL;
	}
	if (lang) {
		pl = tool_language(env, lang->valuestring, cJSON_IsTrue(ml),
				   err);
		if (!pl)
			return NULL;
	} else if (*session) {
		pl = session_plugin(*session);
	} else {
		error_set(err, ERR_INVALID_ARGUMENTS,
			  "language is required (unless session is given)");
		return NULL;
	}
	if (*session && !(pl = tool_session_language(
				  env, *session, sess->valuestring, pl, err)))
		return NULL;
	if (pk && *session) {
		error_set(err, ERR_INVALID_ARGUMENTS,
			  "packages go with a one-off run; for session '%.64s' "
			  "call sandbox_install {session: \"%.64s\", packages} "
			  "(its next call imports them) or give them to "
			  "sandbox_session create",
			  sess->valuestring, sess->valuestring);
		return NULL;
	}
	return pl;
}

/* The call's packages are installed first (or found in the cache): the
 * run follows from installed_cb, or tool_packages answers the call. 0,
 * or the code with err (nothing started). */
static int install_first(const struct tool_env *env, struct mcp_call *mc,
			 const struct plugin *pl, const cJSON *args,
			 struct error *err)
{
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	struct pending_run *pr = calloc(1, sizeof(*pr));

	if (!pr || !(pr->args = cJSON_Duplicate(args, 1))) {
		free(pr);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	pr->env = env;
	pr->on = tool_install_engine(env, pl);
	if (tool_packages(env, mc, pl, pk, pr->on, installed_cb, pr)) {
		cJSON_Delete(pr->args);
		free(pr);
	}
	return 0;
}

/* A run that imports the installed set e, on the engine on whose cache
 * volume holds it (docs/scaling.md, "What is per engine"): its
 * environment entries go into pkg_env (freed by the caller with
 * install_env_free). 0, or the code with err. */
static int use_packages(const struct plugin *pl, const struct pkg_entry *e,
			struct engine *on, char **pkg_env,
			struct exec_request *req, struct error *err)
{
	char *path = install_paths(pl, &e->key, 1, ':');
	int n = path ? install_run_env(pl, path, pkg_env,
				       EXEC_MAX_EXTRA_ENV + 1)
		     : -ENOMEM;

	free(path);
	if (n < 0)
		return error_set(err, ERR_PLUGIN,
				 "the plugin's package environment is too "
				 "long");
	req->extra_env = (const char *const *)pkg_env;
	req->engine = on;
	return 0;
}

/* Every other boolean argument is an option: the language must offer
 * each one switched on. 0, or the code with err. */
static int options(const struct plugin *pl, const cJSON *args,
		   struct exec_request *req, struct error *err)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, args)
	{
		const struct sbx_option *o;

		if (!cJSON_IsBool(it) || strcmp(it->string, "ml") == 0)
			continue;
		o = plugin_option(pl, it->string);
		if (!o) {
			if (cJSON_IsTrue(it))
				return error_set(err, ERR_INVALID_ARGUMENTS,
						 "language '%s' has no option "
						 "'%s'",
						 pl->desc->name, it->string);
			continue;
		}
		if (cJSON_IsTrue(it) && req->nopts < EXEC_MAX_OPTIONS)
			req->opts[req->nopts++] = o;
	}
	return 0;
}

/* The call's state while it runs; session: the name it runs in, or
 * NULL. NULL with err when out of memory. */
static struct execute_call *execute_call_new(const struct tool_env *env,
					     struct mcp_call *mc,
					     const char *session,
					     struct error *err)
{
	struct execute_call *ec = calloc(1, sizeof(*ec));

	if (!ec) {
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	ec->call = mc;
	ec->env = env;
	uv_timer_init(env->loop, &ec->heartbeat);
	ec->heartbeat.data = ec;
	ec->started = uv_now(env->loop);
	if (session && !(ec->session = strdup(session))) {
		ec_free(ec);
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	return ec;
}

/* The code, its input and timeout as asked (the executor applies the
 * language's cap), and the output as it comes when the client wants
 * progress. */
static void request_from_args(struct execute_call *ec, const cJSON *args,
			      struct exec_request *req)
{
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
	const cJSON *timeout =
		cJSON_GetObjectItemCaseSensitive(args, "timeout");
	const cJSON *in = cJSON_GetObjectItemCaseSensitive(args, "stdin");
	double t = timeout ? timeout->valuedouble : 0;

	if (mcp_call_wants_progress(ec->call)) {
		req->output_cb = output_cb;
		req->stream_ms = PROGRESS_INTERVAL_MS;
		uv_timer_start(&ec->heartbeat, heartbeat_cb, HEARTBEAT_MS,
			       HEARTBEAT_MS);
	}
	req->timeout_ms = t >= UINT32_MAX ? UINT32_MAX : (uint32_t)t;
	req->code = code->valuestring;
	req->code_len = strlen(code->valuestring);
	if (in) {
		req->stdin_data = in->valuestring;
		req->stdin_len = strlen(in->valuestring);
	}
}

/* The run starts, in the session or on a box of the engines; done_cb
 * follows. Both copy the request. 0, or the code with err. */
static int start(struct execute_call *ec, struct session *session,
		 const struct exec_request *req, struct error *err)
{
	if (session) {
		if (session_exec(session, req, done_cb, ec, &ec->scall, err))
			return err->code;
	} else if (exec_start(ec->env->loop, ec->env->engines, req, done_cb, ec,
			      &ec->job)) {
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	mcp_call_on_cancel(ec->call, cancel_cb, ec);
	return 0;
}

/* The call, once its packages (if any) are installed: e is their set,
 * summary (taken) what the result says of it, on the engine it is on. */
static void run(const struct tool_env *env, struct mcp_call *mc,
		const cJSON *args, const struct pkg_entry *e, cJSON *summary,
		struct engine *on)
{
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *sess = cJSON_GetObjectItemCaseSensitive(args, "session");
	const cJSON *files = cJSON_GetObjectItemCaseSensitive(args, "files");
	struct exec_file staged[MAX_STAGED_FILES];
	unsigned char *bufs[MAX_STAGED_FILES];
	size_t nstaged = 0;
	const struct plugin *pl;
	struct session *session;
	struct exec_request req;
	struct execute_call *ec = NULL;
	char *pkg_env[EXEC_MAX_EXTRA_ENV + 1] = {NULL};
	struct error err;
	int started = 0; /* or the call is answered with err at the end */

	pl = call_target(env, mc, args, &session, &err);
	if (!pl)
		goto done;
	if (pk && !e) {
		/* Answered by tool_packages, or run by installed_cb. */
		started = install_first(env, mc, pl, args, &err) == 0;
		goto done;
	}
	req = (struct exec_request){.pl = pl};
	if ((e && use_packages(pl, e, on, pkg_env, &req, &err)) ||
	    options(pl, args, &req, &err))
		goto done;
	ec = execute_call_new(env, mc, session ? sess->valuestring : NULL,
			      &err);
	if (!ec)
		goto done;
	ec->packages = summary; /* ec owns it from here */
	summary = NULL;
	request_from_args(ec, args, &req);
	if (files &&
	    staged_files(env, mc, pl, files, staged, bufs, &nstaged, &err))
		goto done;
	req.files = staged;
	req.nfiles = nstaged;
	req.files_root = env->cfg->files_host_root;
	req.file_cap = tool_file_cap(env, pl);
	req.collect = collect_policy(env, session != NULL);
	started = start(ec, session, &req, &err) == 0;
done:
	/* The one way out: what this call still holds goes (the request
	 * was copied), and a call that did not start is answered with
	 * err. */
	free_staged(bufs, nstaged);
	install_env_free(pkg_env);
	cJSON_Delete(summary);
	if (!started) {
		mcp_call_finish_error(mc, &err);
		if (ec)
			ec_free(ec);
	}
}

static void installed_cb(struct mcp_call *mc, const struct pkg_entry *e,
			 cJSON *summary, void *arg)
{
	struct pending_run *pr = arg;

	if (e)
		run(pr->env, mc, pr->args, e, summary, pr->on);
	cJSON_Delete(pr->args);
	free(pr);
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	run(env, mc, args, NULL, NULL, NULL);
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
		       "with its exit code and stderr. "
		       "The result is JSON text; files the run created or "
		       "changed are listed in `artifacts`, and every image "
		       "among them (a plot saved as PNG, or matplotlib's "
		       "plt.show()) follows as an image. To get another "
		       "artifact's contents use sandbox_file_ops read (or "
		       "export to save it into the user's project) with the "
		       "artifact's `uri` as path; in a session its path "
		       "works too. A long output is cut to its beginning "
		       "and end so the result stays small; the whole of it is "
		       "kept: `message` says how much, and sandbox_file_ops "
		       "read with path `stdoutUri` (or `stderrUri`), offset "
		       "and length reads the rest.",
	.input_schema = input_schema,
	.validate_schema = validate_schema,
	.read_only = 0,
	.destructive = 0,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
