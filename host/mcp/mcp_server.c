/*
 * mcp_server.c - JSON-RPC 2.0 / MCP request handling.
 */
#include "mcp_server.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/records/audit.h"
#include "core/session/session.h"
#include "core/tenants/tenants.h"
#include "util/defer.h"
#include "util/log.h"
#include "json_util.h"
#include "mcp_call.h"
#include "mcp/tools/resources.h"
#include "transport.h"

#define LOG_MODULE "mcp"

#ifndef SBX_VERSION
#define SBX_VERSION "0"
#endif

/* JSON-RPC error codes */
#define E_PARSE (-32700)
#define E_INVALID_REQUEST (-32600)
#define E_METHOD (-32601)
#define E_PARAMS (-32602)
#define E_INTERNAL (-32603)
#define E_UNSUPPORTED_VERSION (-32022) /* the stateless revision's */

/* 2025-03-26 is not among them: it requires JSON-RPC batches, which this
 * server does not take. A client that asks for it is offered 2024-11-05
 * (on_initialize). */
const char *const mcp_protocol_versions[] = {
	MCP_MODERN_VERSION, "2025-11-25", "2025-06-18", "2024-11-05", NULL,
};
/* The first of them an initialize may negotiate. */
#define LEGACY_VERSIONS (mcp_protocol_versions + 1)

/* The keys of a stateless request's _meta. */
#define META_VERSION "io.modelcontextprotocol/protocolVersion"
#define META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT "io.modelcontextprotocol/clientInfo"
#define META_SERVER "io.modelcontextprotocol/serverInfo"
/* How long a client may keep our tool list (it changes with the server's
 * build and configuration only), in ms. */
#define TOOLS_TTL_MS 3600000

static const char instructions[] =
	"This server runs code in isolated Docker containers. Call "
	"sandbox_execute "
	"with {language, code} (optionally timeout in ms) to run a program: "
	"the code is "
	"written to a file in /work and executed as an unprivileged user with "
	"no "
	"network, a read-only system, and memory/CPU/process limits. A call on "
	"its own "
	"starts from a clean container: files, variables and processes do not "
	"survive. "
	"To keep state, create a session (sandbox_session action create, with "
	"a "
	"language) and pass its name as session to sandbox_execute: files "
	"persist, and "
	"for python, javascript, typescript and bash so do variables, imports "
	"and "
	"functions, so load data once and explore it over many calls. Print "
	"what you "
	"want to see; the result has exitCode, stdout, stderr, timedOut and "
	"durationMs. "
	"Long output is truncated in the middle (beginning and end kept). Use "
	"the "
	"language list in the tool's schema.";

struct cached_tool {
	const struct tool *tool;
	cJSON *input;
	cJSON *validate;
	cJSON *output;
};

struct mcp_server {
	const struct tool_env *env;
	struct transport *tr; /* stdio's; NULL for a connection fed by HTTP */
	struct mcp_out out;   /* where messages go when tr is NULL */
	void *ex;	      /* the exchange whose message is being handled */
	struct tenant
		*tenant; /* whose connection (HTTP with tokens), or NULL */
	struct cached_tool *tools;
	size_t ntools;
	int shares_tools;     /* tools are another server's (mcp_server_new) */
	char version[16];     /* negotiated protocol revision */
	int initialized;      /* initialize answered */
	int client_log_level; /* notifications/message threshold */
	struct mcp_call_list calls;
	int shutting_down; /* no new tools/call */
	void (*on_eof)(void *);
	void *on_eof_arg;
	int aborted;
	void (*closed)(void *); /* mcp_server_close's done */
	void *closed_arg;
	int test_mode; /* no transport: collect the reply */
	char *test_reply;
	/* Calls that wait for the sessions' re-adoption, in arrival order. */
	struct waiting_call *waiting, **waiting_tail;
};

/* A tools/call that names a session (or creates one) while the previous
 * server's sessions are being re-adopted: it runs once that is over, so
 * a name is never "not found" only because it was not adopted yet, and a
 * create counts the adopted sessions against the limit. */
struct waiting_call {
	struct waiting_call *next;
	struct mcp_server *s;
	struct mcp_call *c;
	const struct tool *tool; /* NULL: a resources/read of args (a URI) */
	cJSON *args;
};

int mcp_version_at_least(const char *a, const char *b)
{
	return strcmp(a, b) >= 0; /* revisions are dates */
}

int mcp_server_proto_at_least(const struct mcp_server *s, const char *v)
{
	return mcp_version_at_least(s->version, v);
}

static cJSON *server_info(void)
{
	cJSON *info = cJSON_CreateObject();

	cJSON_AddStringToObject(info, "name", "mcp-sandbox");
	cJSON_AddStringToObject(info, "title", "MCP Sandbox");
	cJSON_AddStringToObject(info, "version", SBX_VERSION);
	return info;
}

cJSON *mcp_server_shape_result(cJSON *r, const char *version, int cacheable)
{
	cJSON *meta;

	if (!r || strcmp(version, MCP_MODERN_VERSION) != 0)
		return r;
	cJSON_AddStringToObject(r, "resultType", "complete");
	if (cacheable && !cJSON_GetObjectItemCaseSensitive(r, "ttlMs")) {
		/* What a session holds changes with every call. */
		cJSON_AddNumberToObject(r, "ttlMs", 0);
		cJSON_AddStringToObject(r, "cacheScope", "private");
	}
	meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");
	if (!cJSON_IsObject(meta))
		meta = cJSON_AddObjectToObject(r, "_meta");
	cJSON_AddItemToObject(meta, META_SERVER, server_info());
	return r;
}

/* msg for the client: on stdio a line; else to the exchange ex, final
 * when it is the response that ends ex's request. */
static void send_to(struct mcp_server *s, void *ex, cJSON *msg)
{
	char *text = cJSON_PrintUnformatted(msg);
	int final = cJSON_GetObjectItemCaseSensitive(msg, "method") == NULL;

	if (!text) {
		log_error("out of memory serializing a reply");
		return;
	}
	if (s->test_mode) {
		free(s->test_reply);
		s->test_reply = text;
		return;
	}
	if (s->tr) {
		if (transport_send(s->tr, text, strlen(text)) != 0)
			log_error("cannot write a reply to stdout");
	} else if (s->out.send) {
		s->out.send(s->out.arg, ex, text, strlen(text), final);
	}
	free(text);
}

/* Largest integer a double (and so cJSON) holds exactly. */
#define MAX_SAFE_ID 9007199254740991.0

/* Echo an id exactly: cJSON prints large numbers with %g, which would
 * change them, so integers are written out digit for digit. */
cJSON *mcp_id_copy(const cJSON *id)
{
	char buf[32];

	if (!id)
		return cJSON_CreateNull();
	if (cJSON_IsNumber(id)) {
		snprintf(buf, sizeof(buf), "%.0f", id->valuedouble);
		return cJSON_CreateRaw(buf);
	}
	return cJSON_Duplicate(id, 1);
}

void mcp_id_as_sent(cJSON *msg, const char *text, size_t len)
{
	struct json_id_scan scan;
	const char *raw;
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id"), *r;

	if (!cJSON_IsString(id))
		return;
	json_id_scan_init(&scan);
	json_id_scan_feed(&scan, text, len);
	if ((raw = json_id_scan_id(&scan)) && (r = cJSON_CreateRaw(raw)))
		cJSON_ReplaceItemInObjectCaseSensitive(msg, "id", r);
}

/* Length of the longest prefix of s, at most max bytes, that ends on a
 * UTF-8 character boundary (s is valid UTF-8). */
static int utf8_prefix(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return (int)n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return (int)max;
}

void mcp_server_send_result(struct mcp_server *s, void *ex, const cJSON *id,
			    cJSON *result)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", mcp_id_copy(id));
	cJSON_AddItemToObject(msg, "result", result);
	send_to(s, ex, msg);
	cJSON_Delete(msg);
}

void mcp_server_send_error(struct mcp_server *s, void *ex, const cJSON *id,
			   int code, const char *message, cJSON *data)
{
	cJSON *msg = cJSON_CreateObject(), *err;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", mcp_id_copy(id));
	err = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	if (data)
		cJSON_AddItemToObject(err, "data", data);
	send_to(s, ex, msg);
	cJSON_Delete(msg);
}

static void send_error(struct mcp_server *s, const cJSON *id, int code,
		       const char *message)
{
	mcp_server_send_error(s, s->ex, id, code, message, NULL);
}

void mcp_server_send_notification(struct mcp_server *s, void *ex,
				  const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	send_to(s, ex, msg);
	cJSON_Delete(msg);
}

/* Forward log records to the client as notifications/message. */
static void forward_log_cb(enum log_level level, const char *logger,
			   const char *msg, void *arg)
{
	struct mcp_server *s = arg;
	cJSON *p;

	if (!s->initialized || s->test_mode || (int)level < s->client_log_level)
		return;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "level", log_level_name(level));
	cJSON_AddStringToObject(p, "logger", logger);
	cJSON_AddStringToObject(p, "data", msg);
	mcp_server_send_notification(s, NULL, "notifications/message", p);
}

/* ------------------------------------------------------------------ */
/* methods                                                              */

/* The client's name and version (an Implementation object, or NULL) for
 * the audit log's later events. */
static void note_client(struct mcp_server *s, const cJSON *ci)
{
	const cJSON *cn = cJSON_GetObjectItemCaseSensitive(ci, "name");
	const cJSON *cv = cJSON_GetObjectItemCaseSensitive(ci, "version");
	char client[160];

	snprintf(client, sizeof(client), "%.80s%s%.40s",
		 cJSON_IsString(cn) ? cn->valuestring : "?",
		 cJSON_IsString(cv) ? "/" : "",
		 cJSON_IsString(cv) ? cv->valuestring : "");
	audit_set_client(s->env->audit, client);
}

static void on_initialize(struct mcp_server *s, const cJSON *id,
			  const cJSON *params)
{
	const cJSON *pv =
		cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *chosen = NULL;
	cJSON *r, *caps, *info;
	size_t i;

	if (s->initialized) {
		send_error(s, id, E_INVALID_REQUEST,
			   "already initialized: initialize comes once on a "
			   "connection");
		return;
	}
	if (!cJSON_IsObject(params) || !cJSON_IsString(pv)) {
		send_error(s, id, E_PARAMS,
			   "initialize needs params.protocolVersion (string)");
		return;
	}
	/* The version asked for; else the newest one older than it, which
	 * a client that knows the asked one knows too (2025-03-26 gets
	 * 2024-11-05); else the newest. The stateless revision has no
	 * handshake: it is never negotiated here. */
	for (i = 0; LEGACY_VERSIONS[i] && !chosen; i++)
		if (strcmp(pv->valuestring, LEGACY_VERSIONS[i]) >= 0 &&
		    (strcmp(pv->valuestring, LEGACY_VERSIONS[i]) == 0 ||
		     strcmp(pv->valuestring, MCP_MODERN_VERSION) < 0))
			chosen = LEGACY_VERSIONS[i];
	snprintf(s->version, sizeof(s->version), "%s",
		 chosen ? chosen : LEGACY_VERSIONS[0]);
	note_client(s, cJSON_GetObjectItemCaseSensitive(params, "clientInfo"));

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "protocolVersion", s->version);
	caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"),
			      "listChanged", 0);
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "resources"),
			      "listChanged", 0);
	cJSON_AddObjectToObject(caps, "logging");
	info = server_info();
	if (!mcp_server_proto_at_least(s, "2025-06-18"))
		cJSON_DeleteItemFromObjectCaseSensitive(info, "title");
	cJSON_AddItemToObject(r, "serverInfo", info);
	cJSON_AddStringToObject(r, "instructions", instructions);
	s->initialized = 1;
	log_info("client initialized (protocol %s)", s->version);
	mcp_server_send_result(s, s->ex, id, r);
}

static cJSON *tool_json(const char *version, const struct cached_tool *ct)
{
	const struct tool *t = ct->tool;
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "name", t->name);
	if (mcp_version_at_least(version, "2025-06-18"))
		cJSON_AddStringToObject(o, "title", t->title);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddItemToObject(o, "inputSchema", cJSON_Duplicate(ct->input, 1));
	if (ct->output && mcp_version_at_least(version, "2025-06-18"))
		cJSON_AddItemToObject(o, "outputSchema",
				      cJSON_Duplicate(ct->output, 1));
	if (mcp_version_at_least(version, "2025-03-26")) {
		a = cJSON_AddObjectToObject(o, "annotations");
		cJSON_AddStringToObject(a, "title", t->title);
		cJSON_AddBoolToObject(a, "readOnlyHint", t->read_only);
		cJSON_AddBoolToObject(a, "destructiveHint", t->destructive);
		cJSON_AddBoolToObject(a, "idempotentHint", t->idempotent);
		cJSON_AddBoolToObject(a, "openWorldHint", t->open_world);
	}
	return o;
}

static void on_tools_list(struct mcp_server *s, const cJSON *id,
			  const char *version)
{
	cJSON *r = cJSON_CreateObject(), *arr;
	size_t i;

	arr = cJSON_AddArrayToObject(r, "tools");
	for (i = 0; i < s->ntools; i++)
		cJSON_AddItemToArray(arr, tool_json(version, &s->tools[i]));
	if (strcmp(version, MCP_MODERN_VERSION) == 0) {
		cJSON_AddNumberToObject(r, "ttlMs", TOOLS_TTL_MS);
		cJSON_AddStringToObject(r, "cacheScope", "public");
	}
	mcp_server_send_result(s, s->ex, id,
			       mcp_server_shape_result(r, version, 1));
}

/* server/discover (stateless revision): what this server speaks and
 * offers. No tasks extension: calls run to their end within the request
 * (progress notifications keep a long one alive). */
static void on_discover(struct mcp_server *s, const cJSON *id)
{
	cJSON *r = cJSON_CreateObject(), *caps;

	cJSON_AddItemToObject(
		r, "supportedVersions",
		cJSON_CreateStringArray(
			(const char *const[]){MCP_MODERN_VERSION}, 1));
	caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddObjectToObject(caps, "tools");
	cJSON_AddObjectToObject(caps, "resources");
	cJSON_AddStringToObject(r, "instructions", instructions);
	cJSON_AddNumberToObject(r, "ttlMs", TOOLS_TTL_MS);
	cJSON_AddStringToObject(r, "cacheScope", "public");
	mcp_server_send_result(
		s, s->ex, id,
		mcp_server_shape_result(r, MCP_MODERN_VERSION, 1));
}

static void on_set_level(struct mcp_server *s, const cJSON *id,
			 const cJSON *params)
{
	const cJSON *lv = cJSON_GetObjectItemCaseSensitive(params, "level");
	int l = cJSON_IsString(lv) ? log_level_parse(lv->valuestring) : -1;

	if (l < 0) {
		send_error(s, id, E_PARAMS,
			   "level must be one of debug, info, notice, warning, "
			   "error, critical, alert, emergency");
		return;
	}
	s->client_log_level = l;
	mcp_server_send_result(s, s->ex, id, cJSON_CreateObject());
}

/* --- tools/call --- */

/* ---- the audit log (core/records/audit.h) ---- */

static void copy_string(cJSON *ev, const cJSON *args, const char *key,
			const char *as)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);

	if (cJSON_IsString(v))
		cJSON_AddStringToObject(ev, as, v->valuestring);
}

/* What a tools/call asks for: the tool, the language, session, action
 * and path, a hash of the code (the code itself with store_code), the
 * packages. */
static cJSON *audit_call_event(struct mcp_server *s, const struct tool *t,
			       const cJSON *args)
{
	cJSON *ev = cJSON_CreateObject();
	const cJSON *code = cJSON_GetObjectItemCaseSensitive(args, "code");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const struct plugin *pl;
	char hash[AUDIT_HASH_HEX + 1];

	cJSON_AddStringToObject(ev, "event", "tool_call");
	cJSON_AddStringToObject(ev, "tool", t->name);
	if (s->tenant)
		cJSON_AddStringToObject(ev, "tenant", s->tenant->name);
	/* The language by its plugin's name, whatever alias the call used
	 * (so that a filter on "ruby" finds the calls that said "rb"). */
	if (cJSON_IsString(lang) && s->env->plugins &&
	    (pl = plugins_find(s->env->plugins, lang->valuestring))) {
		cJSON_AddStringToObject(ev, "language", pl->desc->name);
		if (strcmp(pl->desc->name, lang->valuestring) != 0)
			cJSON_AddStringToObject(ev, "languageAsked",
						lang->valuestring);
	} else {
		copy_string(ev, args, "language", "language");
	}
	copy_string(ev, args, "session", "session");
	copy_string(ev, args, "action", "action");
	if (strcmp(t->name, "sandbox_session") == 0)
		copy_string(ev, args, "name", "session");
	copy_string(ev, args, "path", "path");
	if (cJSON_IsString(code)) {
		audit_sha256_hex(code->valuestring, strlen(code->valuestring),
				 hash);
		cJSON_AddStringToObject(ev, "codeSha256", hash);
		if (audit_stores_code(s->env->audit))
			cJSON_AddStringToObject(ev, "code", code->valuestring);
	}
	if (cJSON_IsArray(pk))
		cJSON_AddItemToObject(ev, "packages", cJSON_Duplicate(pk, 1));
	return ev;
}

/* The destinations the egress proxy refused, from an install's result. */
static void refused_hosts(cJSON *ev, const cJSON *body)
{
	const cJSON *c,
		*conns = cJSON_GetObjectItemCaseSensitive(body, "connections");
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(ev, "refused");

	cJSON_ArrayForEach(c, conns)
	{
		const cJSON *ok =
			cJSON_GetObjectItemCaseSensitive(c, "allowed");
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(c, "host");

		if (!cJSON_IsFalse(ok) || !cJSON_IsString(h))
			continue;
		if (!arr)
			arr = cJSON_AddArrayToObject(ev, "refused");
		cJSON_AddItemToArray(arr, cJSON_CreateString(h->valuestring));
	}
}

static void set_outcome(cJSON *ev, const char *outcome, int violation)
{
	cJSON_DeleteItemFromObjectCaseSensitive(ev, "outcome");
	cJSON_AddStringToObject(ev, "outcome", outcome);
	if (violation && !cJSON_GetObjectItemCaseSensitive(ev, "violation"))
		cJSON_AddBoolToObject(ev, "violation", 1);
}

void mcp_server_audit_note(cJSON *ev, const cJSON *body)
{
	const cJSON *ec = cJSON_GetObjectItemCaseSensitive(body, "exitCode");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(body, "signal");
	char outcome[64];

	const cJSON *bl = cJSON_GetObjectItemCaseSensitive(body, "blocklist");

	refused_hosts(ev, body);
	/* blocklist = warn: the matches (the code ran) */
	if (cJSON_IsArray(bl) && cJSON_GetArraySize(bl) > 0)
		cJSON_AddItemToObject(ev, "blocklist", cJSON_Duplicate(bl, 1));
	if ((cJSON_GetObjectItemCaseSensitive(ev, "refused") ||
	     cJSON_GetObjectItemCaseSensitive(ev, "blocklist")) &&
	    !cJSON_GetObjectItemCaseSensitive(ev, "violation"))
		cJSON_AddBoolToObject(ev, "violation", 1);
	if (!ec)
		return; /* not a run's result */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body, "timedOut")))
		snprintf(outcome, sizeof(outcome), "timed_out");
	else if (cJSON_IsTrue(
			 cJSON_GetObjectItemCaseSensitive(body, "oomKilled")))
		snprintf(outcome, sizeof(outcome), "oom_killed");
	else if (cJSON_IsString(sig) && strcmp(sig->valuestring, "SIGSYS") == 0)
		snprintf(outcome, sizeof(outcome), "seccomp_kill");
	else if (cJSON_IsNumber(ec))
		snprintf(outcome, sizeof(outcome), "exit %d", ec->valueint);
	else
		snprintf(outcome, sizeof(outcome), "%.40s",
			 cJSON_IsString(sig) ? sig->valuestring : "ended");
	set_outcome(ev, outcome,
		    strcmp(outcome, "timed_out") == 0 ||
			    strcmp(outcome, "oom_killed") == 0 ||
			    strcmp(outcome, "seccomp_kill") == 0);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(body,
							  "stdoutTruncated")) ||
	    cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(body, "stderrTruncated")))
		cJSON_AddBoolToObject(ev, "outputTruncated", 1);
}

/* The call ended: the outcome the tool noted (mcp_call_audit_result), or
 * an error's code from its (small) text, or "ok". */
void mcp_server_audit_end(struct mcp_server *s, cJSON *ev, const cJSON *result,
			  int cancelled)
{
	const cJSON *content =
		cJSON_GetObjectItemCaseSensitive(result, "content");
	const cJSON *text = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(content, 0), "text");

	if (cancelled) {
		set_outcome(ev, "cancelled", 0);
	} else if (!result) {
		set_outcome(ev, "protocol_error", 0);
	} else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
								 "isError"))) {
		cJSON *body = cJSON_IsString(text)
				      ? cJSON_Parse(text->valuestring)
				      : NULL;
		const cJSON *err =
			cJSON_GetObjectItemCaseSensitive(body, "error");
		const cJSON *code =
			cJSON_GetObjectItemCaseSensitive(err, "code");
		const cJSON *msg =
			cJSON_GetObjectItemCaseSensitive(err, "message");

		set_outcome(ev,
			    cJSON_IsString(code) ? code->valuestring : "error",
			    (cJSON_IsString(code) &&
			     strcmp(code->valuestring, "code_blocked") == 0) ||
				    (cJSON_IsString(msg) &&
				     strstr(msg->valuestring,
					    "the egress proxy refused")));
		if (cJSON_IsString(msg))
			cJSON_AddStringToObject(ev, "message",
						msg->valuestring);
		cJSON_Delete(body);
	} else if (!cJSON_GetObjectItemCaseSensitive(ev, "outcome")) {
		set_outcome(ev, "ok", 0);
	}
	audit_event(s->env->audit, ev);
}

/* Does this call depend on which sessions exist? One-off runs and
 * installs do not; everything else might (a session's files, a create). */
static int names_session(const struct tool *t, const cJSON *args)
{
	if (cJSON_GetObjectItemCaseSensitive(args, "session"))
		return 1;
	return strcmp(t->name, "sandbox_execute") != 0 &&
	       strcmp(t->name, "sandbox_install") != 0;
}

static void waiting_unlink(struct waiting_call *w)
{
	struct mcp_server *s = w->s;
	struct waiting_call **pp;

	for (pp = &s->waiting; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	s->waiting_tail = &s->waiting;
	while (*s->waiting_tail)
		s->waiting_tail = &(*s->waiting_tail)->next;
}

static void waiting_cancel_cb(void *arg)
{
	struct waiting_call *w = arg;

	waiting_unlink(w);
	mcp_call_finish(w->c, tool_error(ERR_CANCELLED, NULL));
	cJSON_Delete(w->args);
	free(w);
}

static int wait_for_adoption(struct mcp_server *s, struct mcp_call *c,
			     const struct tool *t, const cJSON *args)
{
	struct waiting_call *w = calloc(1, sizeof(*w));

	if (!w || !(w->args = cJSON_Duplicate(args, 1))) {
		free(w);
		return -ENOMEM;
	}
	w->s = s;
	w->c = c;
	w->tool = t;
	if (!s->waiting_tail)
		s->waiting_tail = &s->waiting;
	*s->waiting_tail = w;
	s->waiting_tail = &w->next;
	mcp_call_on_cancel(c, waiting_cancel_cb, w);
	log_debug("%s waits for the re-adoption of the sessions",
		  t ? t->name : "resources/read");
	return 0;
}

/* The re-adoption is over: the waiting calls run, in order. */
static void adopted_cb(void *arg)
{
	struct mcp_server *s = arg;
	struct waiting_call *w;

	while ((w = s->waiting)) {
		s->waiting = w->next;
		if (!s->waiting)
			s->waiting_tail = &s->waiting;
		mcp_call_on_cancel(w->c, NULL, NULL);
		if (w->tool)
			w->tool->call(s->env, w->c, w->args);
		else
			resources_read(s->env, w->c, w->args->valuestring);
		cJSON_Delete(w->args);
		free(w);
	}
}

static void on_tools_call(struct mcp_server *s, const cJSON *id,
			  const cJSON *params, const char *version)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args =
		cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const struct cached_tool *ct = NULL;
	cJSON *empty = NULL;
	struct mcp_call *c;
	struct error err;
	char why[300];
	size_t i;

	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		send_error(s, id, E_PARAMS,
			   "tools/call needs params.name (string)");
		return;
	}
	for (i = 0; i < s->ntools; i++)
		if (strcmp(s->tools[i].tool->name, name->valuestring) == 0)
			ct = &s->tools[i];
	if (!ct) {
		snprintf(why, sizeof(why), "Unknown tool: %.*s",
			 utf8_prefix(name->valuestring, 200),
			 name->valuestring);
		send_error(s, id, E_PARAMS, why);
		return;
	}
	if (args && !cJSON_IsObject(args)) {
		send_error(s, id, E_PARAMS,
			   "params.arguments must be an object");
		return;
	}
	if (!args)
		args = empty = cJSON_CreateObject();
	if (schema_validate(ct->validate ? ct->validate : ct->input, args,
			    &err)) {
		cJSON *r = tool_error_result(&err);

		mcp_server_send_result(s, s->ex, id,
				       mcp_server_shape_result(r, version, 0));
		cJSON_Delete(empty);
		return;
	}
	if (s->calls.n >= s->env->cfg->max_inflight) {
		mcp_server_send_result(
			s, s->ex, id,
			mcp_server_shape_result(
				tool_error(ERR_SERVER_BUSY,
					   "%u calls are already running; "
					   "try again shortly",
					   s->calls.n),
				version, 0));
		cJSON_Delete(empty);
		return;
	}
	{
		const cJSON *meta =
			cJSON_GetObjectItemCaseSensitive(params, "_meta");
		const cJSON *tok =
			cJSON_GetObjectItemCaseSensitive(meta, "progressToken");

		/* A token is a string or an integer (echoed exactly). */
		if (!cJSON_IsString(tok) &&
		    !(cJSON_IsNumber(tok) &&
		      json_safe_integer(tok->valuedouble)))
			tok = NULL;
		c = mcp_call_new(s, s->ex, &s->calls, id, tok, version, 0);
		if (c)
			mcp_call_set_tenant(c, s->tenant);
	}
	if (!c) {
		send_error(s, id, E_INTERNAL, "out of memory");
		cJSON_Delete(empty);
		return;
	}
	if (s->env->audit)
		mcp_call_set_audit(c, audit_call_event(s, ct->tool, args));
	/* A tenant's executions count against its quotas until they end. */
	if (s->tenant && strcmp(ct->tool->name, "sandbox_execute") == 0) {
		struct error qe;

		if (mcp_call_begin_execution(c, uv_now(s->env->loop), &qe)) {
			mcp_call_finish(c, tool_error_result(&qe));
			cJSON_Delete(empty);
			return;
		}
	}
	if (names_session(ct->tool, args) &&
	    session_mgr_adopting(s->env->sessions) &&
	    wait_for_adoption(s, c, ct->tool, args) == 0) {
		cJSON_Delete(empty);
		return;
	}
	ct->tool->call(s->env, c, args); /* may finish c before returning */
	cJSON_Delete(empty);
}

static void on_resources_read(struct mcp_server *s, const cJSON *id,
			      const cJSON *params, const char *version)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	struct mcp_call *c;

	if (!cJSON_IsString(uri)) {
		send_error(s, id, E_PARAMS,
			   "resources/read needs params.uri (string)");
		return;
	}
	if (s->shutting_down) {
		send_error(s, id, E_INTERNAL, "the server is shutting down");
		return;
	}
	if (s->calls.n >= s->env->cfg->max_inflight) {
		send_error(s, id, E_INTERNAL, "too many requests in flight");
		return;
	}
	c = mcp_call_new(s, s->ex, &s->calls, id, NULL, version, 1);
	if (c)
		mcp_call_set_tenant(c, s->tenant);
	if (!c) {
		send_error(s, id, E_INTERNAL, "out of memory");
		return;
	}
	/* A session's file: the session may be one still being adopted. */
	if (strncmp(uri->valuestring, "sandbox://session/", 18) == 0 &&
	    session_mgr_adopting(s->env->sessions) &&
	    wait_for_adoption(s, c, NULL, uri) == 0)
		return;
	resources_read(s->env, c, uri->valuestring);
}

static void on_cancelled(struct mcp_server *s, const cJSON *params)
{
	const cJSON *rid =
		cJSON_GetObjectItemCaseSensitive(params, "requestId");

	if (rid && mcp_call_cancel_id(&s->calls, rid))
		log_info("request cancelled by the client");
}

/* ------------------------------------------------------------------ */
/* dispatch                                                             */

static int valid_id(const cJSON *id)
{
	double v;

	if (cJSON_IsString(id))
		return 1;
	if (!cJSON_IsNumber(id))
		return 0;
	v = id->valuedouble;
	return json_safe_integer(v);
}

/* The methods both eras share, the result shaped for version: 0 when m
 * is none of them. */
static int dispatch(struct mcp_server *s, const cJSON *id, const char *m,
		    const cJSON *params, const char *version)
{
	if (strcmp(m, "tools/list") == 0) {
		on_tools_list(s, id, version);
	} else if (strcmp(m, "tools/call") == 0) {
		if (s->shutting_down)
			send_error(s, id, E_INTERNAL,
				   "the server is shutting down");
		else
			on_tools_call(s, id, params, version);
	} else if (strcmp(m, "resources/list") == 0) {
		mcp_server_send_result(
			s, s->ex, id,
			mcp_server_shape_result(
				resources_list(s->env, s->tenant), version, 1));
	} else if (strcmp(m, "resources/templates/list") == 0) {
		mcp_server_send_result(
			s, s->ex, id,
			mcp_server_shape_result(resources_templates(), version,
						1));
	} else if (strcmp(m, "resources/read") == 0) {
		on_resources_read(s, id, params, version);
	} else {
		return 0;
	}
	return 1;
}

/* A request of the stateless revision: its _meta carries the protocol
 * version and the client's capabilities, and nothing of the connection
 * (initialize, logging/setLevel) applies to it. */
static void handle_modern(struct mcp_server *s, const cJSON *id, const char *m,
			  const cJSON *params)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *pv = cJSON_GetObjectItemCaseSensitive(meta, META_VERSION);
	const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, META_CAPS);
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(meta, META_CLIENT);
	char why[300];

	if (!cJSON_IsString(pv) || !cJSON_IsObject(caps)) {
		send_error(s, id, E_PARAMS,
			   !cJSON_IsObject(meta) ? "params._meta is required"
			   : !cJSON_IsString(pv) ? "params._meta." META_VERSION
						   " must be a string"
						 : "params._meta." META_CAPS
						   " must be an object");
		return;
	}
	if (strcmp(pv->valuestring, MCP_MODERN_VERSION) != 0) {
		cJSON *data = cJSON_CreateObject();

		cJSON_AddItemToObject(
			data, "supported",
			cJSON_CreateStringArray(
				(const char *const[]){MCP_MODERN_VERSION}, 1));
		cJSON_AddStringToObject(data, "requested", pv->valuestring);
		mcp_server_send_error(s, s->ex, id, E_UNSUPPORTED_VERSION,
				      "Unsupported protocol version", data);
		return;
	}
	if (cJSON_IsObject(ci))
		note_client(s, ci);
	if (strcmp(m, "server/discover") == 0) {
		on_discover(s, id);
	} else if (!dispatch(s, id, m, params, MCP_MODERN_VERSION)) {
		/* initialize, ping and logging/setLevel are not of it */
		snprintf(why, sizeof(why),
			 "Method not found in " MCP_MODERN_VERSION ": %.*s",
			 utf8_prefix(m, 200), m);
		send_error(s, id, E_METHOD, why);
	}
}

static void handle_message(struct mcp_server *s, const cJSON *msg)
{
	const cJSON *jv = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
	const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *m;
	char why[300];

	if (!cJSON_IsObject(msg)) {
		send_error(s, NULL, E_INVALID_REQUEST,
			   cJSON_IsArray(msg)
				   ? "batches are not supported: send one "
				     "message per line"
				   : "a message must be a JSON object");
		return;
	}
	if (id && !valid_id(id)) {
		send_error(
			s, NULL, E_INVALID_REQUEST,
			"id must be a string or an integer of at most 2^53-1");
		return;
	}
	if (!cJSON_IsString(jv) || strcmp(jv->valuestring, "2.0") != 0) {
		send_error(s, id, E_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
		return;
	}
	if (!cJSON_IsString(method)) {
		/* A response from the client (we send no requests) or junk. */
		if (!id || (!cJSON_GetObjectItemCaseSensitive(msg, "result") &&
			    !cJSON_GetObjectItemCaseSensitive(msg, "error")))
			send_error(s, id, E_INVALID_REQUEST,
				   "method must be a string");
		return;
	}
	if (params && !cJSON_IsObject(params)) {
		/* JSON-RPC allows by-position arrays; MCP never uses them.
		 * A notification with them is still one (never answered);
		 * params of another type make no Request object at all:
		 * -32600 with id null, as JSON-RPC's examples answer. */
		if (id || !cJSON_IsArray(params))
			send_error(s, id,
				   cJSON_IsArray(params) ? E_PARAMS
							 : E_INVALID_REQUEST,
				   "params must be an object");
		return;
	}
	m = method->valuestring;

	if (!id) { /* notifications: never answered */
		if (strcmp(m, "notifications/cancelled") == 0)
			on_cancelled(s, params);
		else if (strcmp(m, "notifications/initialized") == 0)
			log_debug("client sent initialized");
		else
			log_debug("ignoring notification %.*s",
				  utf8_prefix(m, 100), m);
		return;
	}

	if (mcp_call_in_flight(&s->calls, id)) {
		/* MCP: an id is never reused in a session. An error with
		 * this id would reach the client before the first request's
		 * result and be taken for it, so the refusal has id null
		 * (as Go's jsonrpc2 does) and names the id in its data;
		 * the first request's result is its only response
		 * (docs/architecture.md, "Request ids"). */
		cJSON *data = cJSON_CreateObject();

		cJSON_AddItemToObject(data, "duplicateId", mcp_id_copy(id));
		log_warn("a request reused the id of one still in flight: "
			 "not run, refused with id null");
		mcp_server_send_error(
			s, s->ex, NULL, E_INVALID_REQUEST,
			"request id already in use by a request still in "
			"flight: this request was not run (MCP: an id is "
			"never reused in a session)",
			data);
		return;
	}
	/* The era is the request's own: a protocol version in its _meta is
	 * the stateless revision, anything else the handshake's. */
	if (cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(params, "_meta"),
		    META_VERSION) ||
	    strcmp(m, "server/discover") == 0) {
		handle_modern(s, id, m, params);
		return;
	}
	if (strcmp(m, "ping") == 0) {
		mcp_server_send_result(s, s->ex, id, cJSON_CreateObject());
	} else if (strcmp(m, "initialize") == 0) {
		on_initialize(s, id, params);
	} else if (!s->initialized && (strncmp(m, "tools/", 6) == 0 ||
				       strncmp(m, "resources/", 10) == 0 ||
				       strcmp(m, "logging/setLevel") == 0)) {
		/* Not -32002, which MCP gives a missing resource. */
		send_error(s, id, E_INVALID_REQUEST,
			   "the server is not initialized: send initialize "
			   "first, or a " MCP_MODERN_VERSION
			   " request (its protocol version in params._meta)");
	} else if (strcmp(m, "logging/setLevel") == 0) {
		on_set_level(s, id, params);
	} else if (!dispatch(s, id, m, params, s->version)) {
		snprintf(why, sizeof(why), "Method not found: %.*s",
			 utf8_prefix(m, 200), m);
		send_error(s, id, E_METHOD, why);
	}
}

/* The length of the JSON number at p (RFC 8259: -?(0|[1-9][0-9]*)
 * (.[0-9]+)?([eE][+-]?[0-9]+)?), or 0 when what starts there is not one.
 * cJSON reads numbers with strtod, which also takes "01", "1." and "-01". */
static size_t json_number(const char *p, size_t len)
{
	size_t i = 0, d;

	if (i < len && p[i] == '-')
		i++;
	if (i < len && p[i] == '0')
		i++;
	else if (i < len && p[i] >= '1' && p[i] <= '9')
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && p[i] == '.') {
		for (d = ++i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < len && (p[i] == '+' || p[i] == '-'))
			i++;
		for (d = i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i;
}

/* What cJSON lets through and JSON does not (another parser in front of
 * this server could read the message differently): a raw control
 * character (below 0x20) inside a string or, but for JSON's whitespace,
 * outside one; a \u escape without four hex digits; a number outside the
 * grammar ("01", "1.", "2.e3"). Returns the offset and sets *what, or
 * -1. */
/* *what for \u0000: valid JSON, but cJSON would cut the string there and
 * the code that runs would not be the code that was sent. */
static const char escaped_nul[] =
	"strings may not contain NUL characters (\\u0000)";

static long not_strict_json(const char *line, size_t len, const char **what)
{
	int in_string = 0;
	size_t i, n, run;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (in_string) {
			if (c == '\\') {
				/* \u takes four hex digits: cJSON reads
				 * "\uqqqq" as a NUL. */
				if (i + 1 < len && line[i + 1] == 'u' &&
				    (i + 6 > len ||
				     strspn(line + i + 2,
					    "0123456789abcdefABCDEF") < 4)) {
					*what = "a \\u escape without four hex "
						"digits";
					return (long)i;
				}
				if (i + 6 <= len && line[i + 1] == 'u' &&
				    strncmp(line + i + 2, "0000", 4) == 0) {
					*what = escaped_nul;
					return (long)i;
				}
				i++; /* the escaped character */
			} else if (c == '"') {
				in_string = 0;
			} else if (c < 0x20) {
				*what = "a raw control character in a string";
				return (long)i;
			}
		} else if (c == '"') {
			in_string = 1;
		} else if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' &&
			   c != '\r') {
			/* JSON's whitespace is space, tab, LF, CR only. */
			*what = "a control character outside a string";
			return (long)i;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			/* The whole token: what strtod would take. */
			for (run = i; run < len && line[run] &&
				      strchr("0123456789+-.eE", line[run]);
			     run++)
				;
			n = json_number(line + i, run - i);
			if (!n || n != run - i) {
				*what = "a number outside JSON's grammar";
				return (long)i;
			}
			i = run - 1;
		}
	}
	return -1;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The first key that an object of v (at any depth) holds twice, or NULL:
 * cJSON would take the first, another parser maybe the last. Sorting
 * keeps an object with many keys from costing n^2. */
static const char *duplicate_key(const cJSON *v)
{
	const cJSON *c;
	const char **keys, *dup = NULL;
	size_t n = 0, i;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return NULL;
	cJSON_ArrayForEach(c, v)
	{
		if ((dup = duplicate_key(c)))
			return dup;
		n++;
	}
	if (!cJSON_IsObject(v) || n < 2)
		return NULL;
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return NULL;
	i = 0;
	cJSON_ArrayForEach(c, v) keys[i++] = c->string ? c->string : "";
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n && !dup; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/* The id of a request refused before it is handled, so the client can
 * match the error to it: the member's own text, echoed as it came (cJSON
 * would cut a string id at \u0000), when the message has exactly one
 * top-level "id" that is a string or an integer; else NULL. Sets
 * *notification when the message is an object with a method and no id.
 * Caller frees. */
static cJSON *refused_id(const char *line, size_t len, int *notification)
{
	struct json_id_scan scan;
	const char *text;

	json_id_scan_init(&scan);
	json_id_scan_feed(&scan, line, len);
	*notification = json_id_scan_notification(&scan);
	text = json_id_scan_id(&scan);
	return text ? cJSON_CreateRaw(text) : NULL;
}

/* A message refused by the strict rules: answered with its id; on stdio
 * a notification (valid JSON, no id) gets no answer, as JSON-RPC has it,
 * only a log line. Over HTTP its POST still needs a status, and MCP's
 * transport gives a notification it cannot accept a 400 with an error
 * without id: the id-null error below is that. */
static void refuse_line(struct mcp_server *s, const char *line, size_t len,
			int code, const char *message)
{
	int notification;
	cJSON *id = refused_id(line, len, &notification);

	if (notification && code != E_PARSE && (s->tr || s->test_mode)) {
		log_warn("a notification was refused and is not answered: %s",
			 message);
	} else {
		send_error(s, id, code, message);
	}
	cJSON_Delete(id);
}

static void handle_line(struct mcp_server *s, const char *line, size_t len)
{
	const char *dup, *what = NULL;
	char why[200];
	cJSON *msg;
	long at;

	if (!utf8_valid(line, len)) {
		send_error(s, NULL, E_PARSE,
			   "Parse error: the message is not valid UTF-8");
		return;
	}
	msg = cJSON_ParseWithLengthOpts(line, len + 1, NULL, 1);
	if (!msg) {
		/* Also the answer for nesting beyond cJSON's limit. */
		send_error(s, NULL, E_PARSE, "Parse error: invalid JSON");
		return;
	}
	if ((at = not_strict_json(line, len, &what)) >= 0) {
		if (what == escaped_nul)
			snprintf(why, sizeof(why), "%s", what);
		else
			snprintf(why, sizeof(why),
				 "Parse error: %s at byte %ld", what, at);
		refuse_line(s, line, len,
			    what == escaped_nul ? E_INVALID_REQUEST : E_PARSE,
			    why);
	} else if ((dup = duplicate_key(msg))) {
		snprintf(why, sizeof(why),
			 "duplicate key \"%.*s\" in an object",
			 utf8_prefix(dup, 100), dup);
		/* The id itself may be the duplicate: then it is not known
		 * (the scan finds two and gives none). */
		refuse_line(s, line, len, E_INVALID_REQUEST, why);
	} else {
		handle_message(s, msg);
	}
	cJSON_Delete(msg);
}

static void line_cb(struct transport *t, char *line, size_t len, void *arg)
{
	(void)t;
	handle_line(arg, line, len);
}

/* A line over max_message_bytes was not read: answered with its id when
 * the scan found one, so that the client's request ends; a notification
 * gets no answer; anything else an error with id null (JSON-RPC's answer
 * when the id cannot be known). */
static void oversize_cb(struct transport *t, size_t len,
			struct json_id_scan *scan, void *arg)
{
	struct mcp_server *s = arg;
	const char *text = json_id_scan_id(scan);
	unsigned limit = s->env->cfg->max_message_bytes;
	cJSON *id = text ? cJSON_CreateRaw(text) : NULL, *data;
	char why[400];

	(void)t;
	if (!text && json_id_scan_notification(scan)) {
		log_warn("a notification of %zu bytes exceeds the limit of %u "
			 "bytes (max_message_bytes): dropped, unanswered",
			 len, limit);
		return;
	}
	snprintf(why, sizeof(why),
		 "message of %zu bytes exceeds the limit of %u bytes "
		 "([server] max_message_bytes) and was not read. Larger "
		 "inputs: sandbox_file_ops import (a file under the files "
		 "root), or one sandbox_file_ops write per file (each up to "
		 "[files] max_write_bytes), then run the code in that session",
		 len, limit);
	log_warn("message of %zu bytes exceeds the limit of %u bytes "
		 "(max_message_bytes): answered %s",
		 len, limit,
		 text ? "with its id" : "with id null (no id found)");
	data = cJSON_CreateObject();
	cJSON_AddNumberToObject(data, "size", (double)len);
	cJSON_AddNumberToObject(data, "limit", limit);
	mcp_server_send_error(s, s->ex, id, E_INVALID_REQUEST, why, data);
	cJSON_Delete(id);
}

static void eof_cb(struct transport *t, void *arg)
{
	struct mcp_server *s = arg;

	(void)t;
	log_info("stdin closed: shutting down");
	if (s->on_eof)
		s->on_eof(s->on_eof_arg);
}

/* ------------------------------------------------------------------ */
/* connections fed by another transport (HTTP)                          */

void mcp_server_call_ended(struct mcp_server *s, void *ex)
{
	if (!s->tr && s->out.ended)
		s->out.ended(s->out.arg, ex);
}

void mcp_server_handle(struct mcp_server *s, void *ex, const char *msg,
		       size_t len)
{
	void *prev = s->ex;

	s->ex = ex;
	handle_line(s, msg, len);
	s->ex = prev;
}

int mcp_server_drop_exchange(struct mcp_server *s, void *ex)
{
	/* Calls waiting for the re-adoption end through their cancel hook
	 * like the others. */
	int n = mcp_call_cancel_ex(&s->calls, ex);
	if (n)
		log_info("%d request%s cancelled: the client went away", n,
			 n == 1 ? "" : "s");
	return n;
}

void mcp_server_set_tenant(struct mcp_server *s, struct tenant *t)
{
	s->tenant = t;
}

unsigned mcp_server_inflight(const struct mcp_server *s)
{
	return s->calls.n;
}

const char *mcp_server_session_version(const struct mcp_server *s)
{
	return s->initialized ? s->version : NULL;
}

enum mcp_msg_kind mcp_message_kind(const cJSON *j)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "method");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "id");
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");

	if (!cJSON_IsObject(j))
		return MCP_MSG_INVALID;
	if (!cJSON_IsString(m))
		return id ? MCP_MSG_RESPONSE : MCP_MSG_INVALID;
	if (cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(params, "_meta"),
		    META_VERSION) ||
	    strcmp(m->valuestring, "server/discover") == 0)
		return id ? MCP_MSG_MODERN : MCP_MSG_NOTIFICATION;
	if (!id)
		return MCP_MSG_NOTIFICATION;
	return strcmp(m->valuestring, "initialize") == 0 ? MCP_MSG_INITIALIZE
							 : MCP_MSG_REQUEST;
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                            */

void mcp_server_stop_reading(struct mcp_server *s)
{
	s->shutting_down = 1;
	if (s->tr)
		transport_stop_reading(s->tr);
}

static void transport_closed_cb(void *arg)
{
	struct mcp_server *s = arg;
	void (*cb)(void *) = s->closed;

	s->tr = NULL;
	s->closed = NULL;
	if (cb)
		cb(s->closed_arg);
}

void mcp_server_close(struct mcp_server *s, void (*done)(void *arg), void *arg)
{
	if (s->aborted)
		return;
	log_set_sink(NULL, NULL);
	mcp_server_stop_reading(s);
	s->closed = done;
	s->closed_arg = arg;
	if (s->tr)
		transport_close(s->tr, transport_closed_cb, s);
	else if (defer_call(s->env->loop, transport_closed_cb, s))
		transport_closed_cb(s);
}

void mcp_server_abort(struct mcp_server *s)
{
	struct transport *tr = s->tr;

	log_set_sink(NULL, NULL);
	s->shutting_down = 1;
	s->aborted = 1;
	s->closed = NULL;
	s->tr = NULL;
	if (tr)
		transport_close(tr, NULL, NULL);
}

static int cache_tools(struct mcp_server *s)
{
	size_t n = 0, i;

	while (tools_all[n])
		n++;
	s->tools = calloc(n + 1, sizeof(*s->tools));
	if (!s->tools)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct tool *t = tools_all[i];

		s->tools[i].tool = t;
		s->tools[i].input = t->input_schema(s->env);
		s->tools[i].validate =
			t->validate_schema ? t->validate_schema(s->env) : NULL;
		s->tools[i].output =
			t->output_schema ? t->output_schema(s->env) : NULL;
	}
	s->ntools = n;
	return 0;
}

/* Staged files travel in base64 inside one message: say so at start when
 * [files] max_staged_bytes of them could not. */
static void check_staged_fits(const struct config *cfg)
{
	uint64_t b64 = ((uint64_t)cfg->files_max_staged + 2) / 3 * 4;

	if (b64 > cfg->max_message_bytes)
		log_warn("[files] max_staged_bytes (%u) of files is %llu bytes "
			 "in base64, over [server] max_message_bytes (%u): "
			 "such a call cannot be sent; raise max_message_bytes "
			 "to at least 4/3 of max_staged_bytes plus the code",
			 cfg->files_max_staged, (unsigned long long)b64,
			 cfg->max_message_bytes);
}

static struct mcp_server *server_new(const struct tool_env *env,
				     const struct mcp_server *tools_from)
{
	struct mcp_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->env = env;
	s->client_log_level = LOG_LEVEL_WARNING;
	snprintf(s->version, sizeof(s->version), "%s", LEGACY_VERSIONS[0]);
	if (tools_from) {
		s->tools = tools_from->tools;
		s->ntools = tools_from->ntools;
		s->shares_tools = 1;
	} else if (cache_tools(s)) {
		free(s);
		return NULL;
	} else {
		check_staged_fits(env->cfg);
	}
	return s;
}

int mcp_server_new(const struct tool_env *env,
		   const struct mcp_server *tools_from,
		   const struct mcp_out *out, struct mcp_server **res)
{
	struct mcp_server *s = server_new(env, tools_from);

	if (!s)
		return -ENOMEM;
	s->out = *out;
	*res = s;
	return 0;
}

int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_eof)(void *), void *arg, struct mcp_server **out)
{
	static const struct transport_cbs cbs = {
		.on_line = line_cb,
		.on_oversize = oversize_cb,
		.on_eof = eof_cb,
	};
	struct mcp_server *s = server_new(env, NULL);
	int rc;

	if (!s)
		return -ENOMEM;
	s->on_eof = on_eof;
	s->on_eof_arg = arg;
	rc = transport_open(env->loop, out_fd, env->cfg->max_message_bytes,
			    &cbs, s, &s->tr);
	if (rc) {
		mcp_server_free(s);
		return rc;
	}
	log_set_sink(forward_log_cb, s);
	if (env->sessions)
		session_mgr_on_adopted(env->sessions, adopted_cb, s);
	*out = s;
	return 0;
}

void mcp_server_free(struct mcp_server *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntools && !s->shares_tools; i++) {
		cJSON_Delete(s->tools[i].input);
		cJSON_Delete(s->tools[i].validate);
		cJSON_Delete(s->tools[i].output);
	}
	if (!s->shares_tools)
		free(s->tools);
	free(s->test_reply);
	free(s);
}

char *mcp_server_handle_line_for_test(const struct tool_env *env,
				      int initialized, const char *line)
{
	static const char init[] =
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
		"\"params\":{\"protocolVersion\":\"2025-11-25\"}}";
	struct mcp_server *s = server_new(env, NULL);
	char *reply;

	if (!s)
		return NULL;
	s->test_mode = 1;
	if (initialized)
		handle_line(s, init, strlen(init));
	free(s->test_reply);
	s->test_reply = NULL;
	handle_line(s, line, strlen(line));
	reply = s->test_reply;
	s->test_reply = NULL;
	mcp_server_free(s);
	return reply;
}
