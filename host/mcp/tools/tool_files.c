/*
 * tool_files.c - sandbox_file_ops: write, read, list, stat, mkdir, delete
 * and move files in a session's work directory (core/session/session.h,
 * session_file(); the agent does the work as the sandbox user,
 * agent/files.h). docs/files.md has the rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/records/artifact_store.h"
#include "core/session/transfer.h"
#include "mcp/json_util.h"
#include "resources.h"
#include "tools.h"

/* A read without `length` returns this much at most: about what a client
 * shows a model in one result. */
#define READ_DEFAULT_BYTES (64u * 1024)
/* Export and import move a file in pieces of this size: each is held
 * about three times on its way (the piece, the frame, the socket's queue),
 * so the server stays within 16 MiB of its size however large the file. */
#define TRANSFER_CHUNK (2u << 20)

/* The actions in the order of the schema; the first seven are one
 * AP_FILE operation each, export and import are transfers. */
static const char *const actions[] = {
	"write",  "read", "list",   "stat",   "mkdir",
	"delete", "move", "export", "import", NULL,
};
static const char *const encodings[] = {"utf-8", "base64", NULL};
static const uint32_t action_ops[] = {
	AP_FOP_WRITE, AP_FOP_READ,   AP_FOP_LIST, AP_FOP_STAT,
	AP_FOP_MKDIR, AP_FOP_DELETE, AP_FOP_MOVE,
};
#define ACTION_EXPORT 7
#define ACTION_IMPORT 8

static const cJSON *arg(const cJSON *args, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(args, name);
}

static cJSON *input_schema(const struct tool_env *env)
{
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;
	char desc[512];

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_enum_prop(
		props, "action", actions,
		"write: create a file (parents too) from content; read: a "
		"file's bytes; list: a directory; stat: one path; mkdir; "
		"delete; move: path to `to`; export: copy the file or "
		"directory at path to the user's machine (`to`, relative to "
		"the files root the user allowed); import: copy the file "
		"`from` on the user's machine to path.");
	tool_prop(props, "session", "string",
		  "The session whose /work is used (sandbox_session create). "
		  "Not needed when path is an artifact's uri.");
	tool_prop(props, "path", "string",
		  "Path in the session, relative to /work or absolute under "
		  "/work (list: default /work); or the `uri` of an artifact "
		  "from a sandbox_execute result (sandbox://artifact/... for "
		  "read and export, sandbox://session/... for any action), "
		  "or its stdoutUri or stderrUri.");
	tool_prop(props, "content", "string",
		  "write: the file's content, text or base64 (see encoding).");
	tool_enum_prop(
		props, "encoding", encodings,
		"write: how content is encoded (default utf-8). read: "
		"base64 forces base64; by default text (UTF-8 without NUL) "
		"comes back as text and anything else as base64.");
	tool_prop(props, "overwrite", "boolean",
		  "write, move: replace an existing file (default false: "
		  "file_exists).");
	tool_prop(props, "append", "boolean",
		  "write: add content at the end of the file, in place "
		  "(created when missing).");
	tool_prop(props, "recursive", "boolean",
		  "list: every level below path; delete: a directory with "
		  "its contents.");
	p = tool_prop(props, "offset", "integer",
		      "read: first byte to return (default 0). write: put "
		      "content at this byte of the file, in place (0 creates "
		      "it; at most its size), to send a large file in "
		      "pieces.");
	cJSON_AddNumberToObject(p, "minimum", 0);
	snprintf(desc, sizeof(desc),
		 "read: bytes to return at most (default %u, at most %u); "
		 "list: entries per page (at most 1000).",
		 READ_DEFAULT_BYTES, env->cfg->files_max_read);
	p = tool_prop(props, "length", "integer", desc);
	cJSON_AddNumberToObject(p, "minimum", 1);
	tool_prop(props, "cursor", "string",
		  "list: nextCursor of the previous page.");
	tool_prop(props, "to", "string",
		  "move: the new path in the session; export: the path on the "
		  "user's machine, relative to the files root.");
	tool_prop(props, "from", "string",
		  "import: the path on the user's machine, relative to the "
		  "files root.");
	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("action"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

/* ---- results ---------------------------------------------------------- */

struct files_call {
	struct mcp_call *call;
	struct session_call *sc;
	uint32_t op;
	int want_base64;
	uint64_t offset;
	char *path;
	char *to;
	unsigned char *data;	 /* write: the decoded base64 content */
	const struct plugin *pl; /* the session's, to name its settings */
};

/* The call's error; a full /work also says the setting that sizes it
 * (the agent knows the size, not the settings). */
static void finish_error(struct files_call *fc, const struct error *err)
{
	struct error e;
	char how[160];

	if (err->code != ERR_NO_SPACE || !fc->pl) {
		mcp_call_finish_error(fc->call, err);
		return;
	}
	error_set(
		&e, err->code, "%s; its size is %s", err->msg,
		tool_setting(how, sizeof(how), fc->pl->desc->name, "work_mb"));
	mcp_call_finish_error(fc->call, &e);
}

static void fc_free(struct files_call *fc)
{
	free(fc->path);
	free(fc->to);
	free(fc->data);
	free(fc);
}

/* A read's result: o (taken) with the read's fields, its bytes last. */
static cJSON *read_result(struct files_call *fc, cJSON *o,
			  const unsigned char *data, size_t len, uint64_t size,
			  int eof)
{
	size_t cut = 0;
	int text;

	/* A part that ends inside a character, with more to come: it ends
	 * at the last whole character instead, and the next part starts
	 * with the bytes held back (docs/files.md, "Reads"). */
	if (!fc->want_base64 && !eof && len > 1) {
		cut = utf8_cut_tail((const char *)data, len);
		if (cut &&
		    (cut == len || !utf8_text((const char *)data, len - cut)))
			cut = 0;
	}
	len -= cut;
	text = !fc->want_base64 && utf8_text((const char *)data, len);
	cJSON_AddStringToObject(o, "encoding", text ? "utf-8" : "base64");
	cJSON_AddNumberToObject(o, "offset", (double)fc->offset);
	cJSON_AddNumberToObject(o, "length", (double)len);
	cJSON_AddNumberToObject(o, "size", (double)size);
	cJSON_AddBoolToObject(o, "eof", eof);
	if (!eof)
		cJSON_AddNumberToObject(o, "nextOffset",
					(double)(fc->offset + len));
	if (cut)
		cJSON_AddNumberToObject(o, "heldBack", (double)cut);
	return tool_ok_text_bytes(o, "content", data, len, text);
}

static void file_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct files_call *fc = arg;
	struct ap_file_entry e;
	cJSON *o, *list, *res = NULL;
	size_t off = 0;
	char mode[8];

	mcp_call_on_cancel(fc->call, NULL, NULL);
	if (err) {
		finish_error(fc, err);
		fc_free(fc);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", fc->path);
	tool_add_escaped(o, "pathEscaped", fc->path, strlen(fc->path));
	switch (fc->op) {
	case AP_FOP_WRITE:
		cJSON_AddNumberToObject(o, "size", (double)r->size);
		cJSON_AddBoolToObject(o, "created", r->created);
		break;
	case AP_FOP_READ:
		res = read_result(fc, o, r->data, r->data_len, r->size, r->eof);
		break;
	case AP_FOP_LIST:
		list = cJSON_AddArrayToObject(o, "entries");
		while (ap_file_entry_next(r, &off, &e))
			cJSON_AddItemToArray(list, tool_entry_json(&e));
		if (r->cursor) {
			char *c = utf8_sanitize(r->cursor, r->cursor_len);

			cJSON_AddStringToObject(o, "nextCursor", c ? c : "");
			free(c);
		}
		break;
	case AP_FOP_STAT:
		if (ap_file_entry_next(r, &off, &e)) {
			cJSON *ej = tool_entry_json(&e);

			/* The entry's fields but its name: path says it. */
			cJSON_AddItemToObject(
				o, "type",
				cJSON_DetachItemFromObject(ej, "type"));
			cJSON_AddItemToObject(
				o, "size",
				cJSON_DetachItemFromObject(ej, "size"));
			cJSON_AddItemToObject(
				o, "mtime",
				cJSON_DetachItemFromObject(ej, "mtime"));
			cJSON_Delete(ej);
			snprintf(mode, sizeof(mode), "%04o", e.mode & 07777);
			cJSON_AddStringToObject(o, "mode", mode);
		}
		break;
	case AP_FOP_MKDIR:
		cJSON_AddBoolToObject(o, "created", r->created);
		break;
	case AP_FOP_DELETE:
		cJSON_AddBoolToObject(o, "deleted", 1);
		break;
	default:
		cJSON_AddStringToObject(o, "to", fc->to);
		break;
	}
	mcp_call_finish(fc->call, res ? res : tool_ok_text(o));
	fc_free(fc);
}

static void transfer_done(const struct error *err,
			  const struct transfer_done *d, void *arg)
{
	struct files_call *fc = arg;
	cJSON *o;

	if (err) {
		finish_error(fc, err);
		fc_free(fc);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", fc->path);
	cJSON_AddStringToObject(o, fc->op == ACTION_EXPORT ? "to" : "from",
				fc->to);
	cJSON_AddNumberToObject(o, "size", (double)d->bytes);
	cJSON_AddNumberToObject(o, "files", d->files);
	if (d->left_out) {
		cJSON_AddNumberToObject(o, "leftOut", d->left_out);
		cJSON_AddStringToObject(
			o, "note",
			"entries whose names hold control or bidirectional "
			"characters (or bytes that are not UTF-8) were left "
			"out: list shows them with nameEscaped");
	}
	mcp_call_finish(fc->call, tool_ok_text(o));
	fc_free(fc);
}

/* export and import: between the session (or for an export the artifact
 * store, when id is set) and the files root. */
static void call_transfer(const struct tool_env *env, struct mcp_call *mc,
			  const char *session, const char *path, size_t action,
			  const cJSON *args, const char *id,
			  const struct plugin *pl)
{
	const cJSON *other = arg(args, action == ACTION_EXPORT ? "to" : "from");
	struct transfer_req req;
	struct files_call *fc;
	struct error err;
	const char *host;
	int rc;

	/* Off (or a tenant's call) first, then the arguments. */
	host = tool_host_path(env, mc, other ? other->valuestring : "-", &err);
	if (!host) {
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (!path || !other) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "%s needs path and %s", actions[action],
				       action == ACTION_EXPORT ? "to" : "from");
		return;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc || !(fc->path = strdup(path)) || !(fc->to = strdup(host))) {
		if (fc)
			fc_free(fc);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	fc->call = mc;
	fc->op = (uint32_t)action;
	fc->pl = pl;
	memset(&req, 0, sizeof(req));
	req.sessions = env->sessions;
	req.session = session;
	req.root = env->cfg->files_host_root;
	req.session_path = fc->path;
	req.host_path = fc->to;
	req.overwrite = cJSON_IsTrue(arg(args, "overwrite"));
	req.chunk = TRANSFER_CHUNK;
	req.max_bytes = pl ? tool_file_cap(env, pl) : 0;
	req.timeout_ms = env->cfg->files_timeout_ms;
	if (id) {
		req.store = env->artifacts;
		req.artifact_id = id;
	}
	rc = action == ACTION_EXPORT
		     ? transfer_export(env->loop, &req, transfer_done, fc, &err)
		     : transfer_import(env->loop, &req, transfer_done, fc,
				       &err);
	if (rc) {
		fc_free(fc);
		mcp_call_finish_error(mc, &err);
	}
}

static void cancel_cb(void *arg)
{
	struct files_call *fc = arg;

	session_call_cancel(fc->sc);
}

static void call_session(const struct tool_env *env, struct mcp_call *mc,
			 size_t i, const char *sname, const char *pathv,
			 const cJSON *args);

/* ---- the call --------------------------------------------------------- */

/* read's window: offset, and length within [files] max_read_bytes. 0,
 * or the code with err. */
static int read_window(const struct tool_env *env, const cJSON *args,
		       uint64_t *offset, uint32_t *length, struct error *err)
{
	const cJSON *len = arg(args, "length"), *off = arg(args, "offset");
	uint32_t max = env->cfg->files_max_read;

	*length = READ_DEFAULT_BYTES < max ? READ_DEFAULT_BYTES : max;
	if (len && len->valuedouble > max)
		return error_set(err, ERR_TOO_LARGE,
				 "length is over %u bytes ([files] "
				 "max_read_bytes); read in parts with offset",
				 max);
	if (len)
		*length = (uint32_t)len->valuedouble;
	*offset = off ? (uint64_t)off->valuedouble : 0;
	return 0;
}

static void stored_cb(const struct error *err, const unsigned char *data,
		      size_t len, uint64_t size, int eof, void *arg)
{
	struct files_call *fc = arg;
	cJSON *o;

	if (err) {
		mcp_call_finish_error(fc->call, err);
	} else {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", fc->path);
		mcp_call_finish(fc->call,
				read_result(fc, o, data, len, size, eof));
	}
	fc_free(fc);
}

/* A kept artifact (path was its sandbox://artifact/ URI): read or
 * export; it is not in any session, and never changes. */
static void call_artifact(const struct tool_env *env, struct mcp_call *mc,
			  size_t action, const char *id, const char *path,
			  const cJSON *args)
{
	const cJSON *enc = arg(args, "encoding");
	struct files_call *fc;
	char key[ARTIFACT_KEY_MAX + 1];
	uint32_t length;
	struct error err;
	int rc;

	if (!env->artifacts) {
		mcp_call_finish_errorf(mc, ERR_NOT_FOUND,
				       "no artifacts are kept here "
				       "([artifacts] store_max_mb "
				       "is 0)");
		return;
	}
	/* A tenant's set is "<tenant>.<id>" in the store (tenants.h). */
	tool_qualify(mcp_call_tenant(mc), id, key, sizeof(key));
	if (action == ACTION_EXPORT) {
		call_transfer(env, mc, NULL, path, action, args, key, NULL);
		return;
	}
	if (action_ops[action] != AP_FOP_READ) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "an artifact can be read or "
				       "exported, not %s: run code "
				       "in a session to change files",
				       actions[action]);
		return;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc || !(fc->path = resources_uri("artifact", id, path))) {
		free(fc);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	fc->call = mc;
	fc->want_base64 = enc && !strcmp(enc->valuestring, "base64");
	rc = read_window(env, args, &fc->offset, &length, &err);
	if (!rc && artifact_store_read(env->artifacts, key, path, fc->offset,
				       length, stored_cb, fc))
		rc = error_set(&err, ERR_SANDBOX, "out of memory");
	if (rc) {
		fc_free(fc);
		mcp_call_finish_error(mc, &err);
	}
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const cJSON *sess = arg(args, "session"), *path = arg(args, "path");
	const char *action = arg(args, "action")->valuestring;
	char owner[SESSION_QNAME_MAX + 1];
	char *decoded = NULL;
	int kind = 0;
	size_t i;

	for (i = 0; actions[i] && strcmp(actions[i], action) != 0; i++)
		;
	if (path) {
		kind = resources_artifact(path->valuestring, owner, &decoded);
		if (kind > 0) {
			call_artifact(env, mc, i, owner, decoded, args);
			free(decoded);
			return;
		}
		if (kind == 0)
			kind = resources_session(path->valuestring, owner,
						 sizeof(owner), &decoded);
		if (kind < 0) {
			mcp_call_finish_errorf(mc, ERR_INVALID_PATH,
					       "'%s' is not a file's URI: "
					       "sandbox://session/{name}/"
					       "{path} or "
					       "sandbox://artifact/{id}/"
					       "{path}",
					       path->valuestring);
			return;
		}
	}
	if (!kind && !sess) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "session is required (unless "
				       "path is an artifact's uri)");
		return;
	}
	call_session(env, mc, i, kind ? owner : sess->valuestring,
		     kind   ? decoded
		     : path ? path->valuestring
			    : NULL,
		     args);
	free(decoded);
}

/* write's content and where it goes: a whole file through a temporary
 * name, or in place at offset / at the end (append), never making a file
 * larger than the cap. */
static int write_request(const struct tool_env *env, const struct plugin *pl,
			 const cJSON *args, struct files_call *fc,
			 struct ap_file *req, struct error *err)
{
	const cJSON *content = arg(args, "content"), *off = arg(args, "offset");
	int append = cJSON_IsTrue(arg(args, "append"));
	uint64_t cap = tool_file_cap(env, pl), at = 0;

	if (append && off)
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "write takes offset or append, not both");
	if (off) {
		at = (uint64_t)off->valuedouble;
		req->flags |= AP_FF_AT;
		req->offset = at;
	} else if (append) {
		req->flags |= AP_FF_APPEND;
	}
	if (at > cap)
		return error_set(err, ERR_TOO_LARGE,
				 "offset %llu is past the largest file taken: "
				 "0 to %llu ([files] max_write_bytes, by "
				 "default the /work size, [limits] work_mb)",
				 (unsigned long long)at,
				 (unsigned long long)cap);
	/* Text is not copied: session_file() takes it from the arguments
	 * before it returns. */
	return tool_content(content ? content->valuestring : "",
			    fc->want_base64, cap - at, "content", &req->data,
			    &req->data_len, &fc->data, err);
}

/* Every action on a session's /work. */
static void call_session(const struct tool_env *env, struct mcp_call *mc,
			 size_t i, const char *sname, const char *pathv,
			 const cJSON *args)
{
	const cJSON *to = arg(args, "to"), *enc = arg(args, "encoding");
	const cJSON *length = arg(args, "length");
	const cJSON *cursor = arg(args, "cursor");
	const char *action = actions[i];
	struct ap_file req = {0};
	struct files_call *fc;
	struct session *s;
	struct error err;

	s = tool_find_session(env, mc, sname);
	if (!s) {
		tool_no_session(env, mc, sname, &err);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (i == ACTION_EXPORT || i == ACTION_IMPORT) {
		char q[SESSION_QNAME_MAX + 1];

		/* The transfer finds the session by the server's name. */
		tool_qualify(mcp_call_tenant(mc), sname, q, sizeof(q));
		call_transfer(env, mc, q, pathv, i, args, NULL,
			      session_plugin(s));
		return;
	}
	req.op = action_ops[i];
	if (!pathv && req.op != AP_FOP_LIST) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "%s needs path", action);
		return;
	}
	if (req.op == AP_FOP_MOVE && !to) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "move needs to");
		return;
	}
	fc = calloc(1, sizeof(*fc));
	if (!fc || !(fc->path = strdup(pathv ? pathv : "/work")) ||
	    (to && !(fc->to = strdup(to->valuestring)))) {
		if (fc)
			fc_free(fc);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	fc->call = mc;
	fc->op = req.op;
	fc->pl = session_plugin(s);
	fc->want_base64 = enc && !strcmp(enc->valuestring, "base64");
	req.path = fc->path;
	req.path_len = strlen(fc->path);
	if (fc->to) {
		req.path2 = fc->to;
		req.path2_len = strlen(fc->to);
	}
	if (cJSON_IsTrue(arg(args, "overwrite")))
		req.flags |= AP_FF_OVERWRITE;
	if (cJSON_IsTrue(arg(args, "recursive")))
		req.flags |= AP_FF_RECURSIVE;
	if (req.op == AP_FOP_WRITE || req.op == AP_FOP_MKDIR ||
	    req.op == AP_FOP_MOVE)
		req.flags |= AP_FF_PARENTS;
	if (req.op == AP_FOP_WRITE &&
	    write_request(env, session_plugin(s), args, fc, &req, &err)) {
		fc_free(fc);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (req.op == AP_FOP_READ) {
		if (read_window(env, args, &req.offset, &req.length, &err)) {
			fc_free(fc);
			mcp_call_finish_error(mc, &err);
			return;
		}
		fc->offset = req.offset;
	} else if (req.op == AP_FOP_LIST && length) {
		req.length = length->valuedouble > 1000
				     ? 1000
				     : (uint32_t)length->valuedouble;
	}
	if (cursor) {
		req.cursor = cursor->valuestring;
		req.cursor_len = strlen(cursor->valuestring);
	}
	req.timeout_ms = env->cfg->files_timeout_ms;
	if (session_file(s, &req, file_cb, fc, &fc->sc, &err)) {
		fc_free(fc);
		mcp_call_finish_error(mc, &err);
		return;
	}
	mcp_call_on_cancel(mc, cancel_cb, fc);
}

const struct tool tool_files = {
	.name = "sandbox_file_ops",
	.title = "Files in a sandbox session",
	.description =
		"Write, read, list, stat, mkdir, delete and move files in a "
		"session's work directory (/work), where its code runs. "
		"Binary content travels as base64. Paths stay inside /work: "
		"\"..\", absolute paths elsewhere and symlinks that leave it "
		"are refused (invalid_path). Operations run in order with the "
		"session's sandbox_execute calls. The result is one JSON "
		"text, with pathEscaped (list: nameEscaped) when a name holds "
		"control or bidirectional characters: read {encoding, "
		"offset, length, size, eof, nextOffset?, heldBack?, "
		"content} (content is text only when the bytes "
		"are UTF-8 without NUL, else base64; length is the bytes "
		"delivered; heldBack: bytes of a character cut by length, "
		"left for nextOffset); list {entries: [{name, type, size, "
		"mtime}], "
		"nextCursor?}; stat {type, size, mtime, mode}; write {size, "
		"created} (a large file: write it in pieces with offset or "
		"append, or import it); mkdir {created}; export and import "
		"{size, files, leftOut?}. "
		"Files a one-off sandbox_execute made are read or exported "
		"with their artifact `uri` as path (no session), and so is "
		"the whole of a stream a result cut (its stdoutUri or "
		"stderrUri): read it in pages with offset and length.",
	.input_schema = input_schema,
	.read_only = 0,
	.destructive = 1,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
