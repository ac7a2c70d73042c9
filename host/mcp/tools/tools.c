/*
 * tools.c - the tool list and result helpers shared by all tools.
 */
#include "tools.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "core/records/artifact_store.h"
#include "core/session/session.h"
#include "core/tenants/tenants.h"
#include "util/beneath.h"
#include "util/log.h"
#include "util/media.h"
#include "mcp/json_util.h"

extern const struct tool tool_execute;
extern const struct tool tool_session;
extern const struct tool tool_process;
extern const struct tool tool_http;
extern const struct tool tool_files;
extern const struct tool tool_install;
extern const struct tool tool_security;
extern const struct tool tool_inspect;

const struct tool *const tools_all[] = {
	&tool_execute, &tool_session,  &tool_files,
	&tool_install, &tool_security, &tool_inspect,
	&tool_process, &tool_http,     NULL,
};

/* The result of one text block; text is its JSON string, printed
 * (a raw item, taken): cJSON does not scan a large one again. */
static cJSON *text_block(cJSON *text, int is_error)
{
	cJSON *res = cJSON_CreateObject(), *content, *item;

	content = cJSON_AddArrayToObject(res, "content");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddItemToObject(item, "text",
			      text ? text : cJSON_CreateString(""));
	cJSON_AddItemToArray(content, item);
	cJSON_AddBoolToObject(res, "isError", is_error);
	return res;
}

static cJSON *text_result(const char *text, int is_error)
{
	return text_block(text ? json_raw_string(text, strlen(text)) : NULL,
			  is_error);
}

const char *tool_error_code(int code)
{
	if (error_is_ours(code))
		return error_name(code);
	if (code == -ECANCELED)
		return error_name(ERR_CANCELLED);
	if (code == -ESHUTDOWN)
		return error_name(ERR_SHUTTING_DOWN);
	return error_name(ERR_SANDBOX);
}

cJSON *tool_error_result(const struct error *e)
{
	cJSON *body = cJSON_CreateObject(), *err, *res;
	char *text;

	err = cJSON_AddObjectToObject(body, "error");
	cJSON_AddStringToObject(err, "code", tool_error_code(e->code));
	cJSON_AddStringToObject(err, "message", e->msg);
	text = cJSON_PrintUnformatted(body);
	res = text_result(text, 1);
	free(text);
	cJSON_Delete(body);
	return res;
}

cJSON *tool_error(int code, const char *fmt, ...)
{
	struct error e;
	va_list ap;

	va_start(ap, fmt);
	error_vset(&e, code, fmt, ap);
	va_end(ap);
	return tool_error_result(&e);
}

cJSON *tool_ok_text_bytes(cJSON *json, const char *key, const unsigned char *p,
			  size_t n, int is_text)
{
	char *head = cJSON_PrintUnformatted(json), *text, *o;
	size_t hl, kl = strlen(key), body;

	cJSON_Delete(json);
	hl = head ? strlen(head) : 0;
	if (hl < 2 || head[hl - 1] != '}') {
		free(head);
		return tool_error(ERR_SANDBOX, "out of memory");
	}
	hl--; /* the closing brace: the member goes before it */
	/* In the text block the member's string is inside a string: escaped
	 * twice, in one pass; base64 needs no escape. */
	body = is_text ? json_escaped_len((const char *)p, n, 1)
		       : 4 * ((n + 2) / 3);
	text = cJSON_malloc(json_escaped_len(head, hl, 0) + kl + body + 16);
	if (!text) {
		free(head);
		return tool_error(ERR_SANDBOX, "out of memory");
	}
	o = text;
	*o++ = '"';
	o = json_escape(o, head, hl, 0);
	free(head);
	if (hl > 1)
		*o++ = ',';
	o += sprintf(o, "\\\"%s\\\":\\\"", key); /* \"key\":\" */
	if (is_text)
		o = json_escape(o, (const char *)p, n, 1);
	else
		o += EVP_EncodeBlock((unsigned char *)o, p, (int)n);
	memcpy(o, "\\\"}\"", 5); /* \"}" and the NUL */
	return text_block(json_raw_take(text), 0);
}

cJSON *tool_ok_text(cJSON *json)
{
	char *text = cJSON_PrintUnformatted(json);
	cJSON *res = text_result(text, 0);

	free(text);
	cJSON_Delete(json);
	return res;
}

int tool_qualify(const struct tenant *t, const char *name, char *out,
		 size_t outsz)
{
	int n;

	/* No name a caller gives has a '.': none reaches a tenant's. */
	if (strchr(name, '.'))
		return -1;
	if (!t)
		n = snprintf(out, outsz, "%s", name);
	else
		n = snprintf(out, outsz, "%s.%s", t->name, name);
	return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

const char *tool_unqualify(const struct tenant *t, const char *qname)
{
	size_t n;

	if (!t)
		return qname;
	n = strlen(t->name);
	return strncmp(qname, t->name, n) == 0 && qname[n] == '.'
		       ? qname + n + 1
		       : qname;
}

int tool_owns(const struct tenant *t, const char *qname)
{
	return !t || tool_unqualify(t, qname) != qname;
}

struct session *tool_find_session(const struct tool_env *env,
				  const struct mcp_call *call, const char *name)
{
	char q[SESSION_QNAME_MAX + 1];

	if (tool_qualify(mcp_call_tenant(call), name, q, sizeof(q)) ||
	    !session_valid_name(q))
		return NULL;
	return session_find(env->sessions, q);
}

int tool_no_session(const struct tool_env *env, const struct mcp_call *call,
		    const char *name, struct error *e)
{
	char q[SESSION_QNAME_MAX + 1];

	if (tool_qualify(mcp_call_tenant(call), name, q, sizeof(q)) ||
	    !session_valid_name(q))
		return error_set(e, ERR_SESSION_NOT_FOUND,
				 "no session named '(invalid name)'");
	if (session_missing(env->sessions, q, e) == ERR_SESSION_NOT_FOUND)
		error_set(e, ERR_SESSION_NOT_FOUND,
			  "no session named '%s' (create one with "
			  "sandbox_session)",
			  name);
	return e->code;
}

cJSON *tool_ok(const struct mcp_call *call, cJSON *structured)
{
	char *text = cJSON_PrintUnformatted(structured);
	cJSON *res = text_result(text, 0);

	free(text);
	if (mcp_call_structured(call))
		cJSON_AddItemToObject(res, "structuredContent", structured);
	else
		cJSON_Delete(structured);
	return res;
}

/* The plugin that pl's ml_variant names, or NULL. */
static const struct plugin *ml_of(const struct tool_env *env,
				  const struct plugin *pl)
{
	return pl->desc->ml_variant
		       ? plugins_find(env->plugins, pl->desc->ml_variant)
		       : NULL;
}

const struct plugin *tool_language(const struct tool_env *env, const char *name,
				   int ml, struct error *err)
{
	const struct plugin *pl = plugins_find(env->plugins, name);
	char names[512];
	size_t i, off = 0;

	if (pl && pl->policy.enabled && ml) {
		const struct plugin *v = ml_of(env, pl);

		if (v != pl && (!v || !v->policy.enabled)) {
			error_set(err, ERR_UNKNOWN_LANGUAGE,
				  "language '%s' has no machine-learning "
				  "runtime here",
				  pl->desc->name);
			return NULL;
		}
		pl = v;
	}
	if (pl && pl->policy.enabled)
		return pl;
	names[0] = '\0';
	for (i = 0; i < env->plugins->n && off < sizeof(names); i++)
		if (env->plugins->v[i].policy.enabled)
			off += (size_t)snprintf(
				names + off, sizeof(names) - off, "%s%s",
				off ? ", " : "", env->plugins->v[i].desc->name);
	error_set(err, ERR_UNKNOWN_LANGUAGE,
		  "no language '%s' here; available: %s",
		  strlen(name) <= 64 && utf8_valid(name, strlen(name))
			  ? name
			  : "(name too long)",
		  off ? names : "none (no plugins loaded)");
	return NULL;
}

const struct plugin *tool_session_language(const struct tool_env *env,
					   const struct session *s,
					   const char *name,
					   const struct plugin *pl,
					   struct error *err)
{
	const struct plugin *sp = session_plugin(s);

	if (pl == sp || ml_of(env, pl) == sp)
		return sp;
	if (ml_of(env, sp) == pl)
		error_set(err, ERR_LANGUAGE_MISMATCH,
			  "session '%s' runs %s, without its "
			  "machine-learning runtime %s: create a session "
			  "with ml: true (language %s) for that, or run once "
			  "with ml: true and no session",
			  name, sp->desc->name, pl->desc->name, pl->desc->name);
	else
		error_set(err, ERR_LANGUAGE_MISMATCH,
			  "session '%s' runs %s, not %s", name, sp->desc->name,
			  pl->desc->name);
	return NULL;
}

int tool_any_ml_variant(const struct tool_env *env)
{
	size_t i;

	for (i = 0; i < env->plugins->n; i++)
		if (env->plugins->v[i].policy.enabled &&
		    env->plugins->v[i].desc->ml_variant)
			return 1;
	return 0;
}

void tool_language_enum(const struct tool_env *env, cJSON *prop)
{
	cJSON *en = cJSON_AddArrayToObject(prop, "enum");
	size_t i;

	for (i = 0; i < env->plugins->n; i++)
		if (env->plugins->v[i].policy.enabled)
			cJSON_AddItemToArray(
				en, cJSON_CreateString(
					    env->plugins->v[i].desc->name));
}

cJSON *tool_prop(cJSON *props, const char *name, const char *type,
		 const char *desc)
{
	cJSON *p = cJSON_AddObjectToObject(props, name);

	cJSON_AddStringToObject(p, "type", type);
	if (desc)
		cJSON_AddStringToObject(p, "description", desc);
	return p;
}

void tool_add_props(cJSON *props, const char *const (*rows)[3])
{
	for (; rows[0][0]; rows++)
		tool_prop(props, rows[0][0], rows[0][1], rows[0][2]);
}

cJSON *tool_list_schema(const char *one, const char *many, cJSON *(*item)(void),
			const char *const (*rows)[3])
{
	cJSON *s = cJSON_CreateObject(), *props, *p;

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	cJSON_AddItemToObject(props, one, item());
	p = cJSON_AddObjectToObject(props, many);
	cJSON_AddStringToObject(p, "type", "array");
	cJSON_AddItemToObject(p, "items", item());
	tool_add_props(props, rows);
	return s;
}

cJSON *tool_enum_prop(cJSON *props, const char *name, const char *const *values,
		      const char *desc)
{
	cJSON *p = tool_prop(props, name, "string", desc), *en;

	en = cJSON_AddArrayToObject(p, "enum");
	while (*values)
		cJSON_AddItemToArray(en, cJSON_CreateString(*values++));
	return p;
}

const char *tool_setting(char *buf, size_t size, const char *lang,
			 const char *key)
{
	char env[80];
	size_t i, n;

	n = (size_t)snprintf(env, sizeof(env), "SANDBOX_%s_%s", lang, key);
	for (i = 8; i < n && i < sizeof(env); i++)
		env[i] = env[i] == '-' ? '_'
				       : (char)toupper((unsigned char)env[i]);
	snprintf(buf, size, "%s in [limits] or [%s] of sandbox.ini (%s)", key,
		 lang, env);
	return buf;
}

const char *tool_host_path(const struct tool_env *env, struct mcp_call *mc,
			   const char *path, struct error *err)
{
	const char *root = env->cfg->files_host_root;
	size_t n;

	/* The host directory is the operator's, one for every client: no
	 * tenant's to write to or read from (docs/http.md, "Tenants"). */
	if (mcp_call_tenant(mc)) {
		error_set(err, ERR_FILES_ROOT_NOT_SET,
			  "files on the server's machine are not offered to a "
			  "tenant of an HTTP server: send files inline, read "
			  "them with read or their artifact links");
		return NULL;
	}
	if (!root) {
		error_set(err, ERR_FILES_ROOT_NOT_SET,
			  "files of your machine are off: allow a directory "
			  "with --files-root DIR on the server's command line "
			  "(Claude Code: claude mcp add sandbox -- mcp-sandbox "
			  "--files-root \"$PWD\"), SANDBOX_FILES_HOST_ROOT, "
			  "or [files] host_root in sandbox.ini");
		return NULL;
	}
	n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (path[0] == '/') {
		if (strncmp(path, root, n) != 0 || path[n] != '/') {
			error_set(err, ERR_INVALID_PATH,
				  "'%s' is outside the files root %.*s: give a "
				  "path inside it, relative to it or absolute",
				  path, (int)n, root);
			return NULL;
		}
		path += n + 1;
	}
	if (beneath_check(path)) {
		error_set(err, ERR_INVALID_PATH,
			  "'%s': give a path inside the files root %.*s, "
			  "relative to it (or absolute inside it), without "
			  "'..'",
			  path, (int)n, root);
		return NULL;
	}
	return path;
}

uint64_t tool_file_cap(const struct tool_env *env, const struct plugin *pl)
{
	if (env->cfg->files_max_write)
		return env->cfg->files_max_write;
	return (uint64_t)pl->policy.limits.work_mb << 20;
}

int tool_content(const char *s, int base64, uint64_t max, const char *what,
		 const unsigned char **bytes, size_t *len,
		 unsigned char **owned, struct error *err)
{
	size_t n = strlen(s), pad;
	unsigned char *out;
	int got;

	*owned = NULL;
	if (!base64) {
		if (n > max)
			goto too_large;
		*bytes = (const unsigned char *)s;
		*len = n;
		return 0;
	}
	if ((uint64_t)(n / 4 * 3) > max + 2)
		goto too_large;
	if (n % 4)
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "%s is not base64 (its length is not a "
				 "multiple of 4)",
				 what);
	out = malloc(n / 4 * 3 + 1);
	if (!out)
		return error_set(err, ERR_SANDBOX, "out of memory");
	got = EVP_DecodeBlock(out, (const unsigned char *)s, (int)n);
	if (got < 0) {
		free(out);
		return error_set(err, ERR_INVALID_ARGUMENTS, "%s is not base64",
				 what);
	}
	/* EVP_DecodeBlock counts the padding as zero bytes. */
	pad = (size_t)(n && s[n - 1] == '=') + (n > 1 && s[n - 2] == '=');
	*len = (size_t)got - pad;
	if (*len > max) {
		free(out);
		goto too_large;
	}
	*bytes = *owned = out;
	return 0;
too_large:
	return error_set(err, ERR_TOO_LARGE,
			 "%s is over %llu bytes, the largest file taken: 0 to "
			 "%llu ([files] max_write_bytes, by default the /work "
			 "size, [limits] work_mb)",
			 what, (unsigned long long)max,
			 (unsigned long long)max);
}

unsigned char *tool_content_bytes(const char *s, int base64, uint64_t max,
				  const char *what, size_t *len,
				  struct error *err)
{
	const unsigned char *bytes = NULL;
	unsigned char *out;

	if (tool_content(s, base64, max, what, &bytes, len, &out, err) ||
	    !bytes)
		return NULL;
	if (out)
		return out;
	out = malloc(*len + 1);
	if (!out) {
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	memcpy(out, bytes, *len + 1);
	return out;
}

cJSON *tool_entry_json(const struct ap_file_entry *e)
{
	static const char *const types[] = {
		[AP_FT_FILE] = "file",
		[AP_FT_DIR] = "directory",
		[AP_FT_SYMLINK] = "symlink",
		[AP_FT_OTHER] = "other",
	};
	cJSON *o = cJSON_CreateObject();
	char *name = utf8_sanitize(e->name, e->name_len);
	char t[40];

	cJSON_AddStringToObject(o, "name", name ? name : "");
	free(name);
	tool_add_escaped(o, "nameEscaped", e->name, e->name_len);
	cJSON_AddStringToObject(o, "type",
				e->type >= AP_FT_FILE && e->type <= AP_FT_OTHER
					? types[e->type]
					: "other");
	cJSON_AddNumberToObject(o, "size", (double)e->size);
	iso_time_ms((int64_t)e->mtime_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "mtime", t);
	return o;
}

void tool_add_escaped(cJSON *o, const char *key, const char *name, size_t len)
{
	char *esc = media_name_escape(name, len);

	if (esc)
		cJSON_AddStringToObject(o, key, esc);
	free(esc);
}

cJSON *tool_bytes_string(const unsigned char *p, size_t n, int text_ok,
			 int *is_text)
{
	char *s;
	int k;

	*is_text = text_ok && utf8_text((const char *)p, n);
	if (*is_text)
		return json_raw_string((const char *)p, n);
	/* base64 needs no escape: its JSON string is itself in quotes. */
	s = cJSON_malloc(4 * ((n + 2) / 3) + 3);
	if (!s)
		return NULL;
	s[0] = '"';
	k = EVP_EncodeBlock((unsigned char *)s + 1, p, (int)n);
	s[k + 1] = '"';
	s[k + 2] = '\0';
	return json_raw_take(s);
}

cJSON *tool_image_block(const unsigned char *data, size_t len, const char *mime)
{
	cJSON *b = cJSON_CreateObject();
	int is_text;

	if (!b)
		return NULL;
	cJSON_AddStringToObject(b, "type", "image");
	cJSON_AddItemToObject(b, "data",
			      tool_bytes_string(data, len, 0, &is_text));
	cJSON_AddStringToObject(b, "mimeType", mime);
	return b;
}

cJSON *tool_link_block(const cJSON *artifact, const char *uri)
{
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(artifact, "path");
	const cJSON *size = cJSON_GetObjectItemCaseSensitive(artifact, "size");
	const cJSON *mime = cJSON_GetObjectItemCaseSensitive(artifact, "mime");
	cJSON *b = cJSON_CreateObject();

	if (!b)
		return NULL;
	cJSON_AddStringToObject(b, "type", "resource_link");
	cJSON_AddStringToObject(b, "uri", uri);
	cJSON_AddStringToObject(b, "name",
				cJSON_IsString(path) ? path->valuestring : "");
	if (cJSON_IsString(mime))
		cJSON_AddStringToObject(b, "mimeType", mime->valuestring);
	if (cJSON_IsNumber(size))
		cJSON_AddNumberToObject(b, "size", size->valuedouble);
	return b;
}

struct usage {
	const struct tenant *t;
	uint64_t bytes;
};

static void usage_cb(const char *key, const char *path, uint64_t size,
		     int64_t mtime_ms, void *arg)
{
	struct usage *u = arg;

	(void)path;
	(void)mtime_ms;
	if (tool_unqualify(u->t, key) != key)
		u->bytes += size;
}

int tool_hold_artifacts(const struct tool_env *env, struct mcp_call *call,
			uint64_t bytes, struct error *err)
{
	const struct tenant *t = mcp_call_tenant(call);
	struct usage u = {t, 0};

	if (!t || !t->quota.artifact_bytes)
		return 0;
	artifact_store_each(env->artifacts, SIZE_MAX, usage_cb, &u);
	return mcp_call_hold_artifacts(call, u.bytes, bytes, err);
}
