/*
 * resources.c - MCP resources (docs/files.md): every session's files,
 * under sandbox://session/{name}/{path}, and the files kept from one-off
 * runs, under sandbox://artifact/{id}/{path} (core/records/artifact_store.h).
 * resources/list names one resource per session, its /work, whose content
 * is the directory's listing, and each kept file; resources/read of a file
 * gives its bytes (text, or base64 in a blob), of a session's directory
 * its listing as JSON. A session's bytes come through session_file(), in
 * order with the session's calls, like sandbox_file_ops. Paths in URIs are
 * percent-encoded (RFC 3986), '/' kept.
 */
#include "resources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/records/artifact_store.h"
#include "core/records/snapshot_store.h"
#include "core/tenants/tenants.h"
#include "util/log.h"
#include "util/media.h"
#include "mcp/json_util.h"

#define URI_PREFIX "sandbox://session/"
#define ARTIFACT_PREFIX "sandbox://artifact/"
/* Entries a snapshot's listing names at most. */
#define SNAPSHOT_LIST_MAX 10000
/* A read returns at most this much of a file. */
#define RESOURCE_MAX_BYTES (1u << 20)
/* Kept files resources/list names at most, newest first. */
#define LIST_MAX_ARTIFACTS 200

static int unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~' || c == '/';
}

char *resources_uri(const char *kind, const char *owner, const char *path)
{
	size_t n = strlen(kind) + strlen(owner) + 3 * strlen(path) + 16;
	char *u = malloc(n), *o;
	const unsigned char *p;

	if (!u)
		return NULL;
	o = u + snprintf(u, n, "sandbox://%s/%s/", kind, owner);
	for (p = (const unsigned char *)path; *p; p++)
		if (unreserved(*p))
			*o++ = (char)*p;
		else
			o += snprintf(o, 4, "%%%02X", *p);
	*o = '\0';
	return u;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

char *resources_pct_decode(const char *s)
{
	char *d = malloc(strlen(s) + 1), *o = d;

	for (; d && *s; s++) {
		int hi, lo;

		if (*s != '%') {
			*o++ = *s;
			continue;
		}
		hi = hexval(s[1]);
		lo = hi < 0 ? -1 : hexval(s[2]);
		if (lo < 0 || (hi | lo) == 0) {
			free(d);
			return NULL;
		}
		*o++ = (char)(hi << 4 | lo);
		s += 2;
	}
	if (d)
		*o = '\0';
	return d;
}

/* uri as <prefix><owner>/<rest>: 1 with owner copied (size bytes at
 * most) and *rest after the '/'; 0 when uri has another prefix; -1 when it
 * has this one but no '/' or too long an owner. */
static int split_uri(const char *uri, const char *prefix, char *owner,
		     size_t size, const char **rest)
{
	const char *p = uri + strlen(prefix), *slash;

	if (strncmp(uri, prefix, strlen(prefix)) != 0)
		return 0;
	slash = strchr(p, '/');
	if (!slash || (size_t)(slash - p) >= size)
		return -1;
	memcpy(owner, p, (size_t)(slash - p));
	owner[slash - p] = '\0';
	*rest = slash + 1;
	return 1;
}

/* split_uri() of a file's URI, its path decoded into *path. */
static int file_uri(const char *uri, const char *prefix, char *owner,
		    size_t size, char **path)
{
	const char *rest;
	int rc = split_uri(uri, prefix, owner, size, &rest);

	*path = NULL;
	if (rc <= 0)
		return rc;
	return *rest && (*path = resources_pct_decode(rest)) ? 1 : -1;
}

int resources_session(const char *uri, char *name, size_t size, char **path)
{
	return file_uri(uri, URI_PREFIX, name, size, path);
}

int resources_artifact(const char *uri, char *id, char **path)
{
	int rc = file_uri(uri, ARTIFACT_PREFIX, id, ARTIFACT_ID_LEN + 1, path);

	if (rc > 0 && !artifact_id_valid(id, strlen(id))) {
		free(*path);
		*path = NULL;
		return -1;
	}
	return rc;
}

static void session_resource(cJSON *arr, const struct tenant *t,
			     const struct session *s)
{
	struct session_info in;
	cJSON *o;
	char uri[sizeof(URI_PREFIX) + 80], title[160];
	const char *name;

	session_info(s, &in);
	if (!tool_owns(t, in.name))
		return; /* another tenant's */
	name = tool_unqualify(t, in.name);
	o = cJSON_CreateObject();
	snprintf(uri, sizeof(uri), URI_PREFIX "%s/", name);
	snprintf(title, sizeof(title), "/work of session %s (%s)", name,
		 in.language);
	cJSON_AddStringToObject(o, "uri", uri);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "title", title);
	cJSON_AddStringToObject(o, "description",
				"The session's work directory: its listing. "
				"Each file is " URI_PREFIX "{name}/{path}.");
	cJSON_AddStringToObject(o, "mimeType", "application/json");
	cJSON_AddItemToArray(arr, o);
}

struct artifact_list {
	cJSON *arr;
	const struct tenant *t;
	size_t n; /* listed so far: the caller's own, at most LIST_MAX */
};

static void artifact_resource(const char *key, const char *path, uint64_t size,
			      int64_t mtime_ms, void *arg)
{
	struct artifact_list *al = arg;
	cJSON *o, *ann;
	char *uri;
	char when[40];

	if (!tool_owns(al->t, key) || (!al->t && strchr(key, '.')) ||
	    al->n >= LIST_MAX_ARTIFACTS)
		return; /* another tenant's (a tenant's, on stdio), or enough */
	al->n++;
	o = cJSON_CreateObject();
	uri = resources_uri("artifact", tool_unqualify(al->t, key), path);

	cJSON_AddStringToObject(o, "uri", uri ? uri : "");
	free(uri);
	cJSON_AddStringToObject(o, "name", path);
	cJSON_AddStringToObject(o, "title",
				"A file a one-off run made, or a run's stdout "
				"or stderr kept whole");
	cJSON_AddStringToObject(o, "mimeType", media_type(path, 0));
	cJSON_AddNumberToObject(o, "size", (double)size);
	iso_time_ms(mtime_ms, when, sizeof(when));
	ann = cJSON_AddObjectToObject(o, "annotations");
	cJSON_AddStringToObject(ann, "lastModified", when);
	cJSON_AddItemToArray(al->arr, o);
}

/* One resource a snapshot of the tenant's: its files' listing. */
static void snapshot_resources(const struct tool_env *env, cJSON *arr,
			       const struct tenant *t)
{
	const struct snapshot *sn = NULL;
	const char *label;
	char uri[sizeof(RESOURCES_SNAPSHOT_PREFIX) + SNAPSHOT_ID_LEN];
	cJSON *o;

	while (env->snapshots &&
	       (sn = snapshot_store_next(env->snapshots, sn))) {
		if (strcmp(sn->owner, t ? t->name : "") != 0 || sn->corrupt)
			continue;
		snprintf(uri, sizeof(uri), RESOURCES_SNAPSHOT_PREFIX "%s",
			 sn->id);
		label = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(sn->meta, "label"));
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "uri", uri);
		cJSON_AddStringToObject(o, "name", label ? label : sn->id);
		cJSON_AddStringToObject(o, "title",
					"The files of a session's snapshot "
					"(their listing)");
		cJSON_AddStringToObject(o, "mimeType", "application/json");
		cJSON_AddNumberToObject(o, "size", (double)sn->tar_bytes);
		cJSON_AddItemToArray(arr, o);
	}
}

cJSON *resources_list(const struct tool_env *env, const struct tenant *tenant)
{
	cJSON *r = cJSON_CreateObject();
	struct artifact_list al = {cJSON_AddArrayToObject(r, "resources"),
				   tenant, 0};
	struct session *s;

	for (s = session_next(env->sessions, NULL); s;
	     s = session_next(env->sessions, s))
		session_resource(al.arr, tenant, s);
	if (env->artifacts)
		artifact_store_each(env->artifacts, SIZE_MAX, artifact_resource,
				    &al);
	snapshot_resources(env, al.arr, tenant);
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
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uriTemplate",
				ARTIFACT_PREFIX "{id}/{+path}");
	cJSON_AddStringToObject(o, "name", "artifact");
	cJSON_AddStringToObject(o, "title",
				"A file kept from a one-off run, or a run's "
				"output");
	cJSON_AddStringToObject(o, "description",
				"The `uri` of a sandbox_execute artifact, or "
				"its stdoutUri or stderrUri; kept for a while "
				"([artifacts] keep_minutes).");
	cJSON_AddItemToArray(arr, o);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "uriTemplate",
				RESOURCES_SNAPSHOT_PREFIX "{id}");
	cJSON_AddStringToObject(o, "name", "snapshot");
	cJSON_AddStringToObject(o, "title",
				"The files of a session's snapshot");
	cJSON_AddStringToObject(o, "description",
				"A sandbox_session snapshot's uri: the listing "
				"of its files (path, type, size) as JSON.");
	cJSON_AddStringToObject(o, "mimeType", "application/json");
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
	/* The specification's "resource not found": -32002 until 2025-11-25,
	 * invalid params in the stateless revision. */
	mcp_call_fail(rc->call,
		      err->code == ERR_NOT_FOUND ||
				      err->code == ERR_SESSION_NOT_FOUND ||
				      err->code == ERR_SNAPSHOT_NOT_FOUND
			      ? (mcp_call_modern(rc->call) ? -32602 : -32002)
			      : -32603,
		      err->msg, data);
	rc_free(rc);
}

/* A file's bytes as the one content of the answer; a file larger than a
 * read returns is refused rather than cut short. */
static void answer_bytes(struct read_call *rc, const unsigned char *data,
			 size_t len, uint64_t size)
{
	cJSON *res, *c, *bytes;
	struct error err;
	int text;

	if (size > len) {
		error_set(&err, ERR_TOO_LARGE,
			  "%s is %llu bytes, over the %u a resource read "
			  "returns: use sandbox_file_ops read with offset "
			  "and length",
			  rc->uri, (unsigned long long)size,
			  RESOURCE_MAX_BYTES);
		fail_read(rc, &err);
		return;
	}
	bytes = tool_bytes_string(data, len, 1, &text);
	res = cJSON_CreateObject();
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", rc->uri);
	cJSON_AddStringToObject(c, "mimeType", media_type(rc->path, text));
	cJSON_AddItemToObject(c, text ? "text" : "blob", bytes);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "contents"), c);
	mcp_call_finish(rc->call, res);
	rc_free(rc);
}

static void read_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct read_call *rc = arg;
	cJSON *res, *contents, *c, *list, *arr;
	struct ap_file_entry e;
	size_t off = 0;
	char *txt;

	mcp_call_on_cancel(rc->call, NULL, NULL);
	if (err) {
		fail_read(rc, err);
		return;
	}
	if (!rc->listing) {
		answer_bytes(rc, r->data, r->data_len,
			     r->has_size ? r->size : r->data_len);
		return;
	}
	res = cJSON_CreateObject();
	contents = cJSON_AddArrayToObject(res, "contents");
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", rc->uri);
	list = cJSON_CreateObject();
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
	cJSON_AddItemToArray(contents, c);
	mcp_call_finish(rc->call, res);
	rc_free(rc);
}

static void stored_cb(const struct error *err, const unsigned char *data,
		      size_t len, uint64_t size, int eof, void *arg)
{
	struct read_call *rc = arg;

	(void)eof;
	if (err)
		fail_read(rc, err);
	else
		answer_bytes(rc, data, len, size);
}

static void read_artifact(const struct tool_env *env, struct read_call *rc)
{
	char id[ARTIFACT_ID_LEN + 1], key[ARTIFACT_KEY_MAX + 1];
	struct error err;
	int rc2 = resources_artifact(rc->uri, id, &rc->path);

	if (rc2 <= 0 || !env->artifacts) {
		error_set(&err, rc2 < 0 ? ERR_INVALID_PATH : ERR_NOT_FOUND,
			  rc2 < 0 ? "not an artifact URI: give %s{id}/{path}"
				  : "no artifacts are kept here ([artifacts] "
				    "store_max_mb is 0)",
			  ARTIFACT_PREFIX);
		fail_read(rc, &err);
		return;
	}
	tool_qualify(mcp_call_tenant(rc->call), id, key, sizeof(key));
	if (artifact_store_read(env->artifacts, key, rc->path, 0,
				RESOURCE_MAX_BYTES, stored_cb, rc)) {
		error_set(&err, ERR_SANDBOX, "out of memory");
		fail_read(rc, &err);
	}
}

static void listed_cb(const struct error *err, cJSON *files, size_t total,
		      void *arg)
{
	struct read_call *rc = arg;
	cJSON *res, *c, *doc;
	char *txt;

	if (err) {
		fail_read(rc, err);
		return;
	}
	doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "files", files);
	cJSON_AddNumberToObject(doc, "total", (double)total);
	if (total > SNAPSHOT_LIST_MAX)
		cJSON_AddBoolToObject(doc, "truncated", 1);
	txt = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	res = cJSON_CreateObject();
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "uri", rc->uri);
	cJSON_AddStringToObject(c, "mimeType", "application/json");
	cJSON_AddStringToObject(c, "text", txt ? txt : "{}");
	free(txt);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "contents"), c);
	mcp_call_finish(rc->call, res);
	rc_free(rc);
}

/* sandbox://snapshot/<id>: the listing of its files (the caller's own). */
static void read_snapshot(const struct tool_env *env, struct read_call *rc)
{
	const char *id = rc->uri + strlen(RESOURCES_SNAPSHOT_PREFIX);
	const struct tenant *t = mcp_call_tenant(rc->call);
	const struct snapshot *sn =
		env->snapshots ? snapshot_store_find(env->snapshots,
						     t ? t->name : NULL, id)
			       : NULL;
	struct error err;

	if (!sn || sn->corrupt) {
		error_set(&err,
			  sn ? ERR_SNAPSHOT_CORRUPT : ERR_SNAPSHOT_NOT_FOUND,
			  sn ? "the snapshot's record does not match its hash"
			     : "no such snapshot");
		fail_read(rc, &err);
		return;
	}
	if (snapshot_store_files(env->snapshots, sn, SNAPSHOT_LIST_MAX,
				 listed_cb, rc)) {
		error_set(&err, ERR_SANDBOX, "out of memory");
		fail_read(rc, &err);
	}
}

static void cancel_cb(void *arg)
{
	(void)arg; /* a read ends within [files] timeout_ms anyway */
}

void resources_read(const struct tool_env *env, struct mcp_call *call,
		    const char *uri)
{
	struct read_call *rc;
	struct session_call *sc;
	struct ap_file q;
	struct session *s;
	struct error err;
	const char *rest;
	char name[80];

	rc = calloc(1, sizeof(*rc));
	if (!rc || !(rc->uri = strdup(uri))) {
		free(rc);
		error_set(&err, ERR_SANDBOX, "out of memory");
		mcp_call_fail(call, -32603, err.msg, NULL);
		return;
	}
	rc->call = call;
	if (strncmp(uri, ARTIFACT_PREFIX, strlen(ARTIFACT_PREFIX)) == 0) {
		read_artifact(env, rc);
		return;
	}
	if (strncmp(uri, RESOURCES_SNAPSHOT_PREFIX,
		    strlen(RESOURCES_SNAPSHOT_PREFIX)) == 0) {
		read_snapshot(env, rc);
		return;
	}
	if (split_uri(uri, URI_PREFIX, name, sizeof(name), &rest) <= 0) {
		error_set(&err, ERR_NOT_FOUND,
			  "not a resource of this server: give "
			  "%s{session}/{path} or %s{id}/{path}",
			  URI_PREFIX, ARTIFACT_PREFIX);
		fail_read(rc, &err);
		return;
	}
	s = tool_find_session(env, call, name);
	if (!s) {
		error_set(&err, ERR_SESSION_NOT_FOUND, "no session named '%s'",
			  name);
		fail_read(rc, &err);
		return;
	}
	rc->listing = !*rest || rest[strlen(rest) - 1] == '/';
	rc->path = *rest ? resources_pct_decode(rest) : strdup(".");
	if (!rc->path) {
		error_set(&err, ERR_INVALID_PATH, "%s: a malformed %% escape",
			  uri);
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
