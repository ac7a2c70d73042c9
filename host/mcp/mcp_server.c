/*
 * mcp_server.c - one client connection's JSON-RPC 2.0 and MCP: a message
 * is read strictly (json_util.h), its envelope checked, its era chosen
 * (docs/architecture.md, "Two protocol eras") and its method dispatched:
 * initialize, ping, logging/setLevel, server/discover, tools/list and
 * tools/call (tool_table.h, mcp_call.h), resources.
 */
#include "mcp_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adoption_wait.h"
#include "audit_events.h"
#include "core/records/audit.h"
#include "core/session/session.h"
#include "json_util.h"
#include "mcp/tools/resources.h"
#include "mcp_call.h"
#include "mcp_version.h"
#include "tasks.h"
#include "tool_table.h"
#include "transport.h"
#include "util/defer.h"
#include "util/log.h"

#define LOG_MODULE "mcp"

/* The first of mcp_version_all an initialize may negotiate. */
#define LEGACY_VERSIONS (mcp_version_all + 1)
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

struct mcp_server {
	const struct tool_env *env;
	struct transport *tr; /* stdio's; NULL for a connection fed by HTTP */
	struct mcp_out out;   /* where messages go when tr is NULL */
	void *ex;	      /* the exchange whose message is being handled */
	struct tenant
		*tenant; /* whose connection (HTTP with tokens), or NULL */
	const struct tool_table *tools;
	struct tool_table *own_tools; /* stdio's: built at its start */
	char version[16];	      /* negotiated protocol revision */
	int initialized;	      /* initialize answered */
	int client_log_level;	      /* notifications/message threshold */
	struct mcp_call_list calls;
	int shutting_down; /* no new tools/call */
	void (*on_eof)(void *);
	void *on_eof_arg;
	int aborted;
	void (*closed)(void *); /* mcp_server_close's done */
	void *closed_arg;
	struct adoption_wait waiting;
	int listening; /* to its tasks' ends (task_store_listen) */
};

/* msg (taken) for the client: on stdio a line; else to the exchange ex. */
static void send_msg(struct mcp_server *s, void *ex, cJSON *msg,
		     enum jsonrpc_kind kind)
{
	char *text = cJSON_PrintUnformatted(msg);

	cJSON_Delete(msg);
	if (!text) {
		log_error("out of memory serializing a reply");
		return;
	}
	if (s->tr) {
		if (transport_send(s->tr, text, strlen(text)) != 0)
			log_error("cannot write a reply to stdout");
		return; /* text taken */
	}
	if (s->out.send)
		s->out.send(s->out.arg, ex, kind, text, strlen(text));
	free(text);
}

/* The calls' messages (mcp_call.h). */
static void call_send(void *arg, void *ex, cJSON *msg, enum jsonrpc_kind kind)
{
	send_msg(arg, ex, msg, kind);
}

static void call_ended(void *arg, void *ex)
{
	struct mcp_server *s = arg;

	if (!s->tr && s->out.ended)
		s->out.ended(s->out.arg, ex);
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

static void send_result(struct mcp_server *s, const cJSON *id, cJSON *result)
{
	send_msg(s, s->ex, jsonrpc_result(id, result), JSONRPC_RESULT);
}

/* An error for the request id (NULL: id null) of the message being
 * handled; data is taken, or NULL. */
static void send_error_data(struct mcp_server *s, const cJSON *id, int code,
			    const char *message, cJSON *data)
{
	send_msg(s, s->ex, jsonrpc_error(id, code, message, data),
		 jsonrpc_error_kind(id, code));
}

static void send_error(struct mcp_server *s, const cJSON *id, int code,
		       const char *message)
{
	send_error_data(s, id, code, message, NULL);
}

/* Forward log records to the client as notifications/message. */
static void forward_log_cb(enum log_level level, const char *logger,
			   const char *msg, void *arg)
{
	struct mcp_server *s = arg;
	cJSON *p;

	if (!s->initialized || (int)level < s->client_log_level)
		return;
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "level", log_level_name(level));
	cJSON_AddStringToObject(p, "logger", logger);
	cJSON_AddStringToObject(p, "data", msg);
	send_msg(s, NULL, jsonrpc_notification("notifications/message", p),
		 JSONRPC_NOTIFICATION);
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
		send_error(s, id, JSONRPC_INVALID_REQUEST,
			   "already initialized: initialize comes once on a "
			   "connection");
		return;
	}
	if (!cJSON_IsObject(params) || !cJSON_IsString(pv)) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
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
	if (s->env->tasks && strcmp(s->version, TASKS_LEGACY_VERSION) == 0) {
		/* The revision's experimental tasks (docs/tasks.md). */
		cJSON *t = cJSON_AddObjectToObject(caps, "tasks");

		cJSON_AddObjectToObject(t, "list");
		cJSON_AddObjectToObject(t, "cancel");
		cJSON_AddObjectToObject(
			cJSON_AddObjectToObject(
				cJSON_AddObjectToObject(t, "requests"),
				"tools"),
			"call");
	}
	info = mcp_version_server_info();
	if (!mcp_version_at_least(s->version, "2025-06-18"))
		cJSON_DeleteItemFromObjectCaseSensitive(info, "title");
	cJSON_AddItemToObject(r, "serverInfo", info);
	cJSON_AddStringToObject(r, "instructions", instructions);
	s->initialized = 1;
	log_info("client initialized (protocol %s)", s->version);
	send_result(s, id, r);
}

static void on_tools_list(struct mcp_server *s, const cJSON *id,
			  const char *version)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddItemToObject(r, "tools", tool_table_list(s->tools, version));
	if (strcmp(version, MCP_MODERN_VERSION) == 0) {
		cJSON_AddNumberToObject(r, "ttlMs", TOOLS_TTL_MS);
		cJSON_AddStringToObject(r, "cacheScope", "public");
	}
	send_result(s, id, mcp_version_shape(r, version, 1));
}

/* server/discover (stateless revision): what this server speaks and
 * offers, the tasks extension included (docs/tasks.md). */
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
	if (s->env->tasks)
		cJSON_AddObjectToObject(
			cJSON_AddObjectToObject(caps, "extensions"),
			TASKS_EXTENSION);
	cJSON_AddStringToObject(r, "instructions", instructions);
	cJSON_AddNumberToObject(r, "ttlMs", TOOLS_TTL_MS);
	cJSON_AddStringToObject(r, "cacheScope", "public");
	send_result(s, id, mcp_version_shape(r, MCP_MODERN_VERSION, 1));
}

static void on_set_level(struct mcp_server *s, const cJSON *id,
			 const cJSON *params)
{
	const cJSON *lv = cJSON_GetObjectItemCaseSensitive(params, "level");
	int l = cJSON_IsString(lv) ? log_level_parse(lv->valuestring) : -1;

	if (l < 0) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   "level must be one of debug, info, notice, warning, "
			   "error, critical, alert, emergency");
		return;
	}
	s->client_log_level = l;
	send_result(s, id, cJSON_CreateObject());
}

/* --- tools/call --- */

/* A progress token is a string or an integer (echoed exactly). */
static const cJSON *progress_token(const cJSON *params)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *tok =
		cJSON_GetObjectItemCaseSensitive(meta, "progressToken");

	if (cJSON_IsString(tok) ||
	    (cJSON_IsNumber(tok) && json_safe_integer(tok->valuedouble)))
		return tok;
	return NULL;
}

/* The arguments (params.arguments, or an empty object in *empty, freed by
 * the caller) when they pass the tool's input schema; else NULL, the
 * request answered. */
static const cJSON *call_arguments(struct mcp_server *s, const cJSON *id,
				   const cJSON *params,
				   const struct tool_entry *te,
				   const char *version, cJSON **empty)
{
	const cJSON *args =
		cJSON_GetObjectItemCaseSensitive(params, "arguments");
	struct error err;

	if (args && !cJSON_IsObject(args)) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   "params.arguments must be an object");
		return NULL;
	}
	if (!args)
		args = *empty = cJSON_CreateObject();
	if (schema_validate(te->validate ? te->validate : te->input, args,
			    &err)) {
		send_result(
			s, id,
			mcp_version_shape(tool_error_result(&err), version, 0));
		return NULL;
	}
	return args;
}

/* A call of te with args runs (or waits for the sessions' re-adoption):
 * audited, counted against a tenant's quotas. */
/* notifications/tasks/status of a task this connection created
 * (2025-11-25, tasks.h), once it is initialized at that revision. */
static void task_notify(void *arg, cJSON *params)
{
	struct mcp_server *s = arg;

	if (!s->initialized || strcmp(s->version, TASKS_LEGACY_VERSION) != 0) {
		cJSON_Delete(params);
		return;
	}
	send_msg(s, NULL,
		 jsonrpc_notification("notifications/tasks/status", params),
		 JSONRPC_NOTIFICATION);
}

/* The client takes tasks (2026-07-28): the extension in the capabilities
 * of the request's _meta. */
static int client_has_tasks(const cJSON *params)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
	const cJSON *caps =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CAPS);
	const cJSON *ext = cJSON_GetObjectItemCaseSensitive(caps, "extensions");

	return cJSON_IsObject(
		cJSON_GetObjectItemCaseSensitive(ext, TASKS_EXTENSION));
}

/* 1 when this tools/call runs as a task (docs/tasks.md), with the ttl
 * asked for in *ttl (0: none): in 2025-11-25 when the client asks
 * (params.task) for a tool that may; in 2026-07-28 when the client
 * allows it and the call may be long (tasks_policy_wants). -1: refused,
 * answered. */
static int task_mode(struct mcp_server *s, const cJSON *id, const cJSON *params,
		     const struct tool_entry *te, const cJSON *args,
		     const char *version, uint64_t *ttl)
{
	const cJSON *task = cJSON_GetObjectItemCaseSensitive(params, "task");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(task, "ttl");

	*ttl = 0;
	if (!s->env->tasks)
		return 0;
	if (strcmp(version, MCP_MODERN_VERSION) == 0)
		return client_has_tasks(params) &&
		       tasks_policy_wants(s->env->cfg, te->tool->name, args);
	if (strcmp(version, TASKS_LEGACY_VERSION) != 0 || !task)
		return 0;
	if (!cJSON_IsObject(task) ||
	    (t && !(cJSON_IsNumber(t) && t->valuedouble >= 0 &&
		    json_safe_integer(t->valuedouble)))) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   "params.task must be an object, its ttl a number "
			   "of milliseconds");
		return -1;
	}
	if (!tasks_tool_supported(te->tool->name)) {
		send_error(s, id, JSONRPC_METHOD_NOT_FOUND,
			   "this tool does not run as a task (its "
			   "execution.taskSupport is forbidden): call it "
			   "without params.task");
		return -1;
	}
	if (t)
		*ttl = (uint64_t)t->valuedouble;
	return 1;
}

static void on_tools_call(struct mcp_server *s, const cJSON *id,
			  const cJSON *params, const char *version)
{
	uint64_t ttl;
	int as_task;
	struct error err;
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const struct tool_entry *te;
	const cJSON *args;
	cJSON *empty = NULL;
	struct mcp_call *c;
	char why[300];

	if (!cJSON_IsObject(params) || !cJSON_IsString(name)) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   "tools/call needs params.name (string)");
		return;
	}
	te = tool_table_find(s->tools, name->valuestring);
	if (!te) {
		snprintf(why, sizeof(why), "Unknown tool: %.*s",
			 utf8_prefix(name->valuestring, 200),
			 name->valuestring);
		send_error(s, id, JSONRPC_INVALID_PARAMS, why);
		return;
	}
	args = call_arguments(s, id, params, te, version, &empty);
	if (!args)
		goto out;
	as_task = task_mode(s, id, params, te, args, version, &ttl);
	if (as_task < 0)
		goto out;
	if (s->calls.n >= s->env->cfg->max_inflight) {
		send_result(s, id,
			    mcp_version_shape(
				    tool_error(ERR_SERVER_BUSY,
					       "%u calls are already running; "
					       "try again shortly",
					       s->calls.n),
				    version, 0));
		goto out;
	}
	c = mcp_call_new(&s->calls, s->ex, id, progress_token(params), version,
			 0);
	if (!c) {
		send_error(s, id, JSONRPC_INTERNAL_ERROR, "out of memory");
		goto out;
	}
	mcp_call_set_tenant(c, s->tenant);
	if (as_task) {
		/* Its end is told to this connection in 2025-11-25. */
		if (!s->listening && strcmp(version, MCP_MODERN_VERSION) != 0) {
			task_store_listen(s->env->tasks, s, task_notify);
			s->listening = 1;
		}
		/* c is answered once the task is written (tasks.h). */
		if (task_create(s->env->tasks, s->tenant, te->tool, args,
				version, ttl, c, &err))
			mcp_call_finish_error(c, &err);
		goto out;
	}
	mcp_call_start(s->env, &s->waiting, c, te->tool, args);
out:
	cJSON_Delete(empty);
}

/* The tasks methods (docs/tasks.md). 0 when m is none this era has. */
static int on_tasks(struct mcp_server *s, const cJSON *id, const char *m,
		    const cJSON *params, const char *version)
{
	int modern = strcmp(version, MCP_MODERN_VERSION) == 0;
	struct tasks_reply r;
	struct mcp_call *c;
	cJSON *data;

	if (!s->env->tasks ||
	    (!modern && strcmp(version, TASKS_LEGACY_VERSION) != 0))
		return 0;
	if (modern && !client_has_tasks(params)) {
		data = cJSON_CreateObject();
		cJSON_AddObjectToObject(
			cJSON_AddObjectToObject(
				cJSON_AddObjectToObject(data,
							"requiredCapabilities"),
				"extensions"),
			TASKS_EXTENSION);
		send_error_data(s, id, JSONRPC_MISSING_CAPABILITY,
				"tasks need the client capability "
				"extensions[\"" TASKS_EXTENSION "\"] in "
				"params._meta",
				data);
		return 1;
	}
	if (!modern && strcmp(m, "tasks/result") == 0) {
		c = mcp_call_new(&s->calls, s->ex, id, NULL, version, 0);
		if (!c) {
			send_error(s, id, JSONRPC_INTERNAL_ERROR,
				   "out of memory");
			return 1;
		}
		mcp_call_set_tenant(c, s->tenant);
		tasks_result_wait(s->env->tasks, s->tenant, params, c);
		return 1;
	}
	if (!tasks_method(s->env->tasks, s->tenant, m, params, version, &r))
		return 0;
	if (r.result)
		send_result(s, id, mcp_version_shape(r.result, version, 0));
	else
		send_error(s, id, r.code, r.message);
	return 1;
}

static void on_resources_read(struct mcp_server *s, const cJSON *id,
			      const cJSON *params, const char *version)
{
	const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");
	struct mcp_call *c;

	if (!cJSON_IsString(uri)) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   "resources/read needs params.uri (string)");
		return;
	}
	if (s->shutting_down) {
		send_error(s, id, JSONRPC_INTERNAL_ERROR,
			   "the server is shutting down");
		return;
	}
	if (s->calls.n >= s->env->cfg->max_inflight) {
		send_error(s, id, JSONRPC_INTERNAL_ERROR,
			   "too many requests in flight");
		return;
	}
	c = mcp_call_new(&s->calls, s->ex, id, NULL, version, 1);
	if (!c) {
		send_error(s, id, JSONRPC_INTERNAL_ERROR, "out of memory");
		return;
	}
	mcp_call_set_tenant(c, s->tenant);
	if (adoption_wait_read(&s->waiting, s->env, c, uri))
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
			send_error(s, id, JSONRPC_INTERNAL_ERROR,
				   "the server is shutting down");
		else
			on_tools_call(s, id, params, version);
	} else if (strcmp(m, "resources/list") == 0) {
		send_result(s, id,
			    mcp_version_shape(resources_list(s->env, s->tenant),
					      version, 1));
	} else if (strcmp(m, "resources/templates/list") == 0) {
		send_result(
			s, id,
			mcp_version_shape(resources_templates(), version, 1));
	} else if (strcmp(m, "resources/read") == 0) {
		on_resources_read(s, id, params, version);
	} else if (strncmp(m, "tasks/", 6) == 0) {
		return on_tasks(s, id, m, params, version);
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
	const cJSON *pv =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_VERSION);
	const cJSON *caps =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CAPS);
	const cJSON *ci =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CLIENT);
	char why[300];

	if (!cJSON_IsString(pv) || !cJSON_IsObject(caps)) {
		send_error(s, id, JSONRPC_INVALID_PARAMS,
			   !cJSON_IsObject(meta) ? "params._meta is required"
			   : !cJSON_IsString(pv)
				   ? "params._meta." MCP_META_VERSION
				     " must be a string"
				   : "params._meta." MCP_META_CAPS
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
		send_error_data(s, id, JSONRPC_UNSUPPORTED_VERSION,
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
		send_error(s, id, JSONRPC_METHOD_NOT_FOUND, why);
	}
}

/* MCP: an id is never reused in a session. An error with this id would
 * reach the client before the first request's result and be taken for
 * it, so the refusal has id null (as Go's jsonrpc2 does) and names the id
 * in its data; the first request's result is its only response
 * (docs/architecture.md, contract 6). */
static void refuse_duplicate(struct mcp_server *s, const cJSON *id)
{
	cJSON *data = cJSON_CreateObject();

	cJSON_AddItemToObject(data, "duplicateId", jsonrpc_id_copy(id));
	log_warn("a request reused the id of one still in flight: not run, "
		 "refused with id null");
	send_msg(s, s->ex,
		 jsonrpc_error(NULL, JSONRPC_INVALID_REQUEST,
			       "request id already in use by a request still "
			       "in flight: this request was not run (MCP: an "
			       "id is never reused in a session)",
			       data),
		 JSONRPC_DUPLICATE_ID);
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
		send_error(s, NULL, JSONRPC_INVALID_REQUEST,
			   cJSON_IsArray(msg)
				   ? "batches are not supported: send one "
				     "message per line"
				   : "a message must be a JSON object");
		return;
	}
	if (id && !valid_id(id)) {
		send_error(
			s, NULL, JSONRPC_INVALID_REQUEST,
			"id must be a string or an integer of at most 2^53-1");
		return;
	}
	if (!cJSON_IsString(jv) || strcmp(jv->valuestring, "2.0") != 0) {
		send_error(s, id, JSONRPC_INVALID_REQUEST,
			   "jsonrpc must be \"2.0\"");
		return;
	}
	if (!cJSON_IsString(method)) {
		/* A response from the client (we send no requests) or junk. */
		if (!id || (!cJSON_GetObjectItemCaseSensitive(msg, "result") &&
			    !cJSON_GetObjectItemCaseSensitive(msg, "error")))
			send_error(s, id, JSONRPC_INVALID_REQUEST,
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
				   cJSON_IsArray(params)
					   ? JSONRPC_INVALID_PARAMS
					   : JSONRPC_INVALID_REQUEST,
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
		refuse_duplicate(s, id);
		return;
	}
	/* The era is the request's own: a protocol version in its _meta is
	 * the stateless revision, anything else the handshake's. */
	if (cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(params, "_meta"),
		    MCP_META_VERSION) ||
	    strcmp(m, "server/discover") == 0) {
		handle_modern(s, id, m, params);
		return;
	}
	if (strcmp(m, "ping") == 0) {
		send_result(s, id, cJSON_CreateObject());
	} else if (strcmp(m, "initialize") == 0) {
		on_initialize(s, id, params);
	} else if (!s->initialized && (strncmp(m, "tools/", 6) == 0 ||
				       strncmp(m, "resources/", 10) == 0 ||
				       strcmp(m, "logging/setLevel") == 0)) {
		/* Not -32002, which MCP gives a missing resource. */
		send_error(s, id, JSONRPC_INVALID_REQUEST,
			   "the server is not initialized: send initialize "
			   "first, or a " MCP_MODERN_VERSION
			   " request (its protocol version in params._meta)");
	} else if (strcmp(m, "logging/setLevel") == 0) {
		on_set_level(s, id, params);
	} else if (!dispatch(s, id, m, params, s->version)) {
		snprintf(why, sizeof(why), "Method not found: %.*s",
			 utf8_prefix(m, 200), m);
		send_error(s, id, JSONRPC_METHOD_NOT_FOUND, why);
	}
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

	if (notification && code != JSONRPC_PARSE_ERROR && s->tr) {
		log_warn("a notification was refused and is not answered: %s",
			 message);
	} else {
		send_error(s, id, code, message);
	}
	cJSON_Delete(id);
}

/* The message of line, read strictly (json_util.h); NULL when the line
 * was refused (and answered). */
static cJSON *read_line(struct mcp_server *s, const char *line, size_t len)
{
	const char *what = NULL;
	char why[200];
	cJSON *msg;
	long at;
	int nul;

	/* Most messages are plainly strict: read in one pass. */
	msg = json_parse_fast(line, len);
	if (msg)
		return msg;
	if (!utf8_valid(line, len)) {
		send_error(s, NULL, JSONRPC_PARSE_ERROR,
			   "Parse error: the message is not valid UTF-8");
		return NULL;
	}
	msg = cJSON_ParseWithLengthOpts(line, len + 1, NULL, 1);
	if (!msg) {
		/* Also the answer for nesting beyond cJSON's limit. */
		send_error(s, NULL, JSONRPC_PARSE_ERROR,
			   "Parse error: invalid JSON");
		return NULL;
	}
	if ((at = json_not_strict(line, len, &what, &nul)) < 0)
		return msg;
	/* \u0000 is JSON, but not a request this server takes. */
	if (nul)
		snprintf(why, sizeof(why), "%s", what);
	else
		snprintf(why, sizeof(why), "Parse error: %s at byte %ld", what,
			 at);
	refuse_line(s, line, len,
		    nul ? JSONRPC_INVALID_REQUEST : JSONRPC_PARSE_ERROR, why);
	cJSON_Delete(msg);
	return NULL;
}

static void handle_line(struct mcp_server *s, const char *line, size_t len)
{
	cJSON *msg = read_line(s, line, len);
	const char *dup;
	char why[200];

	if (!msg)
		return;
	if ((dup = json_duplicate_key(msg))) {
		snprintf(why, sizeof(why),
			 "duplicate key \"%.*s\" in an object",
			 utf8_prefix(dup, 100), dup);
		/* The id itself may be the duplicate: then it is not known
		 * (the scan finds two and gives none). */
		refuse_line(s, line, len, JSONRPC_INVALID_REQUEST, why);
	} else {
		handle_message(s, msg);
	}
	cJSON_Delete(msg);
}

static void line_cb(struct transport *t, char *line, size_t len, void *arg)
{
	(void)t;
	mcp_server_handle(arg, NULL, line, len);
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
	send_error_data(s, id, JSONRPC_INVALID_REQUEST, why, data);
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
/* what the transports call                                             */

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
		    MCP_META_VERSION) ||
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

static struct mcp_server *server_new(const struct tool_env *env,
				     const struct tool_table *tools)
{
	struct mcp_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->env = env;
	s->tools = tools;
	s->client_log_level = LOG_LEVEL_WARNING;
	snprintf(s->version, sizeof(s->version), "%s", LEGACY_VERSIONS[0]);
	s->calls.out = (struct mcp_call_out){
		.send = call_send,
		.ended = call_ended,
		.arg = s,
	};
	return s;
}

int mcp_server_new(const struct tool_env *env, const struct tool_table *tools,
		   const struct mcp_out *out, struct mcp_server **res)
{
	struct mcp_server *s = server_new(env, tools);

	if (!s)
		return -ENOMEM;
	s->out = *out;
	*res = s;
	return 0;
}

void mcp_server_adopted(struct mcp_server *s)
{
	adoption_wait_run(&s->waiting, s->env);
	task_store_adopted(s->env->tasks);
}

/* The re-adoption is over: the calls that waited for it run. */
static void adopted_cb(void *arg)
{
	mcp_server_adopted(arg);
}

int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_eof)(void *), void *arg, struct mcp_server **out)
{
	static const struct transport_cbs cbs = {
		.on_line = line_cb,
		.on_oversize = oversize_cb,
		.on_eof = eof_cb,
	};
	struct tool_table *tools;
	struct mcp_server *s;
	int rc;

	if (tool_table_new(env, &tools))
		return -ENOMEM;
	s = server_new(env, tools);
	if (!s) {
		tool_table_free(tools);
		return -ENOMEM;
	}
	s->own_tools = tools;
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
	if (!s)
		return;
	if (s->listening)
		task_store_unlisten(s->env->tasks, s);
	tool_table_free(s->own_tools);
	free(s);
}
