/*
 * resources.c - MCP resources: every session's files, under
 * sandbox://session/{name}/{path} (docs/files.md). resources/list names
 * one resource per session, its /work, whose content is the directory's
 * listing; resources/read of a file gives its bytes (text, or base64 in
 * a blob), of a directory its listing as JSON. The bytes come through
 * session_file(), in order with the session's calls, like
 * sandbox_file_ops.
 */
#include "resources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_util.h"
#include "mcp_call.h"

#define URI_PREFIX "sandbox://session/"
/* A read returns at most this much of a file. */
#define RESOURCE_MAX_BYTES (1u << 20)

static void session_resource(cJSON *arr, const struct session *s)
{
	struct session_info in;
	cJSON *o = cJSON_CreateObject();
	char uri[sizeof(URI_PREFIX) + 80], title[160];

	session_info(s, &in);
	snprintf(uri, sizeof(uri), URI_PREFIX "%s/", in.name);
	snprintf(title, sizeof(title), "/work of session %s (%s)", in.name,
		 in.language);
	cJSON_AddStringToObject(o, "uri", uri);
	cJSON_AddStringToObject(o, "name", in.name);
	cJSON_AddStringToObject(o, "title", title);
	cJSON_AddStringToObject(o, "description",
				"The session's work directory: its listing. "
				"Each file is " URI_PREFIX "{name}/{path}.");
	cJSON_AddStringToObject(o, "mimeType", "application/json");
	cJSON_AddItemToArray(arr, o);
}

cJSON *resources_list(const struct tool_env *env)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(r, "resources");
	struct session *s;

	for (s = session_next(env->sessions, NULL); s;
	     s = session_next(env->sessions, s))
		session_resource(arr, s);
	return r;
}

cJSON *resources_templates(void)
{
	cJSON *r = cJSON_CreateObject(), *o;
	cJSON *arr = cJSON_AddArrayToObject(r, "resourceTemplates");

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uriTemplate", URI_PREFIX "{name}/{+path}");
	cJSON_AddStringToObject(o, "name", "session-file");
	cJSON_AddStringToObject(o, "title", "A file in a sandbox session");
	cJSON_AddStringToObject(o, "description",
				"path is relative to the session's /work; a "
				"directory reads as its listing (JSON).");
	cJSON_AddItemToArray(arr, o);
	return r;
}

/* ---- resources/read ---- */

struct read_call {
	struct mcp_call *call;
	char *uri;
	char *path; /* in the session */
	int listing;
};

static void rc_free(struct read_call *rc)
{
	free(rc->uri);
	free(rc->path);
	free(rc);
}

static void fail_read(struct read_call *rc, const struct error *err)
{
	cJSON *data = cJSON_CreateObject();

	cJSON_AddStringToObject(data, "uri", rc->uri);
	cJSON_AddStringToObject(data, "code", tool_error_code(err->code));
	/* -32002: the specification's "resource not found". */
	mcp_call_fail(rc->call,
		      err->code == ERR_NOT_FOUND ||
				      err->code == ERR_SESSION_NOT_FOUND
			      ? -32002
			      : -32603,
		      err->msg, data);
	rc_free(rc);
}

static void read_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct read_call *rc = arg;
	cJSON *res, *contents, *c;
	int text;

	mcp_call_on_cancel(rc->call, NULL, NULL);
	if (err) {
		fail_read(rc, err);
		return;
	}
	res = cJSON_CreateObject();
	contents = cJSON_AddArrayToObject(res, "contents");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", rc->uri);
	if (rc->listing) {
		struct ap_file_entry e;
		cJSON *list = cJSON_CreateObject(), *arr;
		size_t off = 0;
		char *txt;

		arr = cJSON_AddArrayToObject(list, "entries");
		while (ap_file_entry_next(r, &off, &e))
			cJSON_AddItemToArray(arr, tool_entry_json(&e));
		if (r->cursor)
			cJSON_AddBoolToObject(list, "truncated", 1);
		txt = cJSON_PrintUnformatted(list);
		cJSON_Delete(list);
		cJSON_AddStringToObject(c, "mimeType", "application/json");
		cJSON_AddStringToObject(c, "text", txt ? txt : "{}");
		free(txt);
	} else {
		cJSON *bytes =
			tool_bytes_string(r->data, r->data_len, 1, &text);

		cJSON_AddStringToObject(c, "mimeType",
					tool_mime(rc->path, text));
		cJSON_AddItemToObject(c, text ? "text" : "blob", bytes);
	}
	cJSON_AddItemToArray(contents, c);
	mcp_call_finish(rc->call, res);
	rc_free(rc);
}

static void cancel_cb(void *arg)
{
	(void)arg; /* a read ends within [files] timeout_ms anyway */
}

void resources_read(const struct tool_env *env, struct mcp_call *call,
		    const char *uri)
{
	const char *p = uri + strlen(URI_PREFIX), *slash;
	struct read_call *rc;
	struct session_call *sc;
	struct ap_file q;
	struct session *s;
	struct error err;
	char name[80];

	rc = calloc(1, sizeof(*rc));
	if (!rc || !(rc->uri = strdup(uri))) {
		free(rc);
		error_set(&err, ERR_SANDBOX, "out of memory");
		mcp_call_fail(call, -32603, err.msg, NULL);
		return;
	}
	rc->call = call;
	slash = strncmp(uri, URI_PREFIX, strlen(URI_PREFIX)) == 0
			? strchr(p, '/')
			: NULL;
	if (!slash || (size_t)(slash - p) >= sizeof(name)) {
		error_set(&err, ERR_NOT_FOUND,
			  "not a resource of this server: give "
			  "%s{session}/{path}",
			  URI_PREFIX);
		fail_read(rc, &err);
		return;
	}
	memcpy(name, p, (size_t)(slash - p));
	name[slash - p] = '\0';
	s = session_valid_name(name) ? session_find(env->sessions, name) : NULL;
	if (!s) {
		error_set(&err, ERR_SESSION_NOT_FOUND, "no session named '%s'",
			  name);
		fail_read(rc, &err);
		return;
	}
	rc->listing = !slash[1] || slash[strlen(slash) - 1] == '/';
	rc->path = strdup(slash[1] ? slash + 1 : ".");
	if (!rc->path) {
		error_set(&err, ERR_SANDBOX, "out of memory");
		fail_read(rc, &err);
		return;
	}
	memset(&q, 0, sizeof(q));
	q.op = rc->listing ? AP_FOP_LIST : AP_FOP_READ;
	q.path = rc->path;
	q.path_len = strlen(rc->path);
	q.length = rc->listing ? 1000 : RESOURCE_MAX_BYTES;
	q.timeout_ms = env->cfg->files_timeout_ms;
	if (session_file(s, &q, read_cb, rc, &sc, &err)) {
		fail_read(rc, &err);
		return;
	}
	mcp_call_on_cancel(call, cancel_cb, rc);
}
