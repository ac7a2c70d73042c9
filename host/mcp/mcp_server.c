/*
 * mcp_server.c - JSON-RPC 2.0 / MCP request handling.
 */
#include "mcp_server.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"
#include "json_util.h"
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
#define E_NOT_INITIALIZED (-32002)

/* How long a shutdown may take before the process exits anyway. */
#define SHUTDOWN_DEADLINE_MS 20000

const char *const mcp_protocol_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL,
};

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

struct mcp_call {
	struct mcp_server *srv;
	cJSON *id; /* owned */
	const struct tool *tool;
	void (*cancel_cb)(void *);
	void *cancel_arg;
	int cancelled;
	cJSON *progress_token; /* owned; NULL when none was given */
	double last_progress;
	struct mcp_call *prev, *next;
};

struct mcp_server {
	const struct tool_env *env;
	struct transport *tr;
	struct cached_tool *tools;
	size_t ntools;
	char version[16];     /* negotiated protocol revision */
	int initialized;      /* initialize answered */
	int client_log_level; /* notifications/message threshold */
	struct mcp_call *calls;
	unsigned ncalls;
	int shutting_down;
	uv_timer_t deadline;
	int deadline_started;
	void (*on_exit)(void *);
	void *on_exit_arg;
	int test_mode; /* no transport: collect the reply */
	char *test_reply;
};

static int proto_at_least(const struct mcp_server *s, const char *v)
{
	return strcmp(s->version, v) >= 0;
}

static void send_json(struct mcp_server *s, cJSON *msg)
{
	char *text = cJSON_PrintUnformatted(msg);

	if (!text) {
		log_error("out of memory serializing a reply");
		return;
	}
	if (s->test_mode) {
		free(s->test_reply);
		s->test_reply = text;
		return;
	}
	if (s->tr && transport_send(s->tr, text, strlen(text)) != 0)
		log_error("cannot write a reply to stdout");
	free(text);
}

/* Largest integer a double (and so cJSON) holds exactly. */
#define MAX_SAFE_ID 9007199254740991.0

/* Echo an id exactly: cJSON prints large numbers with %g, which would
 * change them, so integers are written out digit for digit. */
static cJSON *id_copy(const cJSON *id)
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

static int id_equal(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring) == 0;
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return 0;
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
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", id_copy(id));
	cJSON_AddItemToObject(msg, "result", result);
	send_json(s, msg);
	cJSON_Delete(msg);
}

static void send_error(struct mcp_server *s, const cJSON *id, int code,
		       const char *message)
{
	cJSON *msg = cJSON_CreateObject(), *err;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", id_copy(id));
	err = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	send_json(s, msg);
	cJSON_Delete(msg);
}

static void send_notification(struct mcp_server *s, const char *method,
			      cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	send_json(s, msg);
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
	send_notification(s, "notifications/message", p);
}

/* ------------------------------------------------------------------ */
/* methods                                                              */

static void on_initialize(struct mcp_server *s, const cJSON *id,
			  const cJSON *params)
{
	const cJSON *pv =
		cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
	const char *chosen = mcp_protocol_versions[0];
	cJSON *r, *caps, *info;
	size_t i;

	if (!cJSON_IsObject(params) || !cJSON_IsString(pv)) {
		send_error(s, id, E_PARAMS,
			   "initialize needs params.protocolVersion (string)");
		return;
	}
	for (i = 0; mcp_protocol_versions[i]; i++)
		if (strcmp(pv->valuestring, mcp_protocol_versions[i]) == 0)
			chosen = mcp_protocol_versions[i];
	snprintf(s->version, sizeof(s->version), "%s", chosen);

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "protocolVersion", s->version);
	caps = cJSON_AddObjectToObject(r, "capabilities");
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(caps, "tools"),
			      "listChanged", 0);
	cJSON_AddObjectToObject(caps, "logging");
	info = cJSON_AddObjectToObject(r, "serverInfo");
	cJSON_AddStringToObject(info, "name", "mcp-sandbox");
	if (proto_at_least(s, "2025-06-18"))
		cJSON_AddStringToObject(info, "title", "MCP Sandbox");
	cJSON_AddStringToObject(info, "version", SBX_VERSION);
	cJSON_AddStringToObject(r, "instructions", instructions);
	s->initialized = 1;
	log_info("client initialized (protocol %s)", s->version);
	send_result(s, id, r);
}

static cJSON *tool_json(const struct mcp_server *s,
			const struct cached_tool *ct)
{
	const struct tool *t = ct->tool;
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "name", t->name);
	if (proto_at_least(s, "2025-06-18"))
		cJSON_AddStringToObject(o, "title", t->title);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddItemToObject(o, "inputSchema", cJSON_Duplicate(ct->input, 1));
	if (ct->output && proto_at_least(s, "2025-06-18"))
		cJSON_AddItemToObject(o, "outputSchema",
				      cJSON_Duplicate(ct->output, 1));
	if (proto_at_least(s, "2025-03-26")) {
		a = cJSON_AddObjectToObject(o, "annotations");
		cJSON_AddStringToObject(a, "title", t->title);
		cJSON_AddBoolToObject(a, "readOnlyHint", t->read_only);
		cJSON_AddBoolToObject(a, "destructiveHint", t->destructive);
		cJSON_AddBoolToObject(a, "idempotentHint", t->idempotent);
		cJSON_AddBoolToObject(a, "openWorldHint", t->open_world);
	}
	return o;
}

static void on_tools_list(struct mcp_server *s, const cJSON *id)
{
	cJSON *r = cJSON_CreateObject(), *arr;
	size_t i;

	arr = cJSON_AddArrayToObject(r, "tools");
	for (i = 0; i < s->ntools; i++)
		cJSON_AddItemToArray(arr, tool_json(s, &s->tools[i]));
	send_result(s, id, r);
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
	send_result(s, id, cJSON_CreateObject());
}

/* --- tools/call --- */

static void call_unlink(struct mcp_call *c)
{
	struct mcp_server *s = c->srv;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->calls = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->ncalls--;
}

void mcp_call_finish(struct mcp_call *c, cJSON *result)
{
	struct mcp_server *s = c->srv;

	/* A cancelled request gets no response (MCP cancellation rules). */
	if (!c->cancelled)
		send_result(s, c->id, result);
	else
		cJSON_Delete(result);
	call_unlink(c);
	cJSON_Delete(c->id);
	cJSON_Delete(c->progress_token);
	free(c);
}

int mcp_call_wants_progress(const struct mcp_call *c)
{
	return c->progress_token != NULL;
}

void mcp_call_progress(struct mcp_call *c, double progress, const char *message)
{
	cJSON *p;

	if (!c->progress_token || c->cancelled)
		return;
	/* The spec wants it to increase with every notification. */
	if (progress <= c->last_progress)
		progress = c->last_progress + 1;
	c->last_progress = progress;
	p = cJSON_CreateObject();
	cJSON_AddItemToObject(p, "progressToken", id_copy(c->progress_token));
	cJSON_AddNumberToObject(p, "progress", progress);
	if (message && proto_at_least(c->srv, "2025-03-26"))
		cJSON_AddStringToObject(p, "message", message);
	send_notification(c->srv, "notifications/progress", p);
}

void mcp_call_on_cancel(struct mcp_call *c, void (*cb)(void *), void *arg)
{
	c->cancel_cb = cb;
	c->cancel_arg = arg;
}

int mcp_call_structured(const struct mcp_call *c)
{
	return proto_at_least(c->srv, "2025-06-18");
}

static void on_tools_call(struct mcp_server *s, const cJSON *id,
			  const cJSON *params)
{
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(params, "name");
	const cJSON *args =
		cJSON_GetObjectItemCaseSensitive(params, "arguments");
	const struct cached_tool *ct = NULL;
	cJSON *empty = NULL;
	struct mcp_call *c;
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
	if (schema_validate(ct->validate ? ct->validate : ct->input, args, why,
			    sizeof(why))) {
		cJSON *r = tool_error("invalid_arguments", "%s", why);

		send_result(s, id, r);
		cJSON_Delete(empty);
		return;
	}
	if (s->ncalls >= s->env->cfg->max_inflight) {
		send_result(s, id,
			    tool_error("server_busy",
				       "%u calls are already running; try "
				       "again shortly",
				       s->ncalls));
		cJSON_Delete(empty);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		send_error(s, id, E_INTERNAL, "out of memory");
		cJSON_Delete(empty);
		return;
	}
	c->srv = s;
	c->id = cJSON_Duplicate(id, 1);
	c->tool = ct->tool;
	{
		const cJSON *meta =
			cJSON_GetObjectItemCaseSensitive(params, "_meta");
		const cJSON *tok =
			cJSON_GetObjectItemCaseSensitive(meta, "progressToken");

		/* A token is a string or an integer (echoed exactly). */
		if (cJSON_IsString(tok) ||
		    (cJSON_IsNumber(tok) &&
		     json_safe_integer(tok->valuedouble)))
			c->progress_token = cJSON_Duplicate(tok, 1);
	}
	c->next = s->calls;
	if (s->calls)
		s->calls->prev = c;
	s->calls = c;
	s->ncalls++;
	ct->tool->call(s->env, c, args); /* may finish c before returning */
	cJSON_Delete(empty);
}

static void on_cancelled(struct mcp_server *s, const cJSON *params)
{
	const cJSON *rid =
		cJSON_GetObjectItemCaseSensitive(params, "requestId");
	struct mcp_call *c;

	if (!rid)
		return;
	for (c = s->calls; c; c = c->next)
		if (id_equal(c->id, rid) && !c->cancelled) {
			c->cancelled = 1;
			log_info("request cancelled by the client");
			if (c->cancel_cb)
				c->cancel_cb(c->cancel_arg);
			return;
		}
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
		/* JSON-RPC allows by-position arrays; MCP never uses them. */
		if (id)
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

	if (strcmp(m, "ping") == 0) {
		send_result(s, id, cJSON_CreateObject());
	} else if (strcmp(m, "initialize") == 0) {
		on_initialize(s, id, params);
	} else if (!s->initialized && (strncmp(m, "tools/", 6) == 0 ||
				       strcmp(m, "logging/setLevel") == 0)) {
		send_error(
			s, id, E_NOT_INITIALIZED,
			"the server is not initialized: send initialize first");
	} else if (strcmp(m, "tools/list") == 0) {
		on_tools_list(s, id);
	} else if (strcmp(m, "tools/call") == 0) {
		if (s->shutting_down)
			send_error(s, id, E_INTERNAL,
				   "the server is shutting down");
		else
			on_tools_call(s, id, params);
	} else if (strcmp(m, "logging/setLevel") == 0) {
		on_set_level(s, id, params);
	} else {
		snprintf(why, sizeof(why), "Method not found: %.*s",
			 utf8_prefix(m, 200), m);
		send_error(s, id, E_METHOD, why);
	}
}

/* 1 if a JSON string in line holds \u0000: cJSON would cut the string
 * there and the code that runs would not be the code that was sent.
 * Backslashes only occur inside strings, so no string tracking is needed. */
static int has_escaped_nul(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i++) {
		if (line[i] != '\\')
			continue;
		if (line[i + 1] == 'u' && i + 5 < len &&
		    strncmp(line + i + 2, "0000", 4) == 0)
			return 1;
		i++; /* skip the escaped character */
	}
	return 0;
}

static void handle_line(struct mcp_server *s, const char *line, size_t len)
{
	cJSON *msg;

	if (has_escaped_nul(line, len)) {
		send_error(s, NULL, E_INVALID_REQUEST,
			   "strings may not contain NUL characters (\\u0000)");
		return;
	}
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
	handle_message(s, msg);
	cJSON_Delete(msg);
}

static void line_cb(struct transport *t, char *line, size_t len, void *arg)
{
	(void)t;
	handle_line(arg, line, len);
}

static void oversize_cb(struct transport *t, size_t len, void *arg)
{
	struct mcp_server *s = arg;
	char why[160];

	(void)t;
	snprintf(why, sizeof(why),
		 "message of %zu bytes exceeds the limit of %u bytes "
		 "(max_message_bytes)",
		 len, s->env->cfg->max_message_bytes);
	log_warn("%s", why);
	send_error(s, NULL, E_INVALID_REQUEST, why);
}

static void eof_cb(struct transport *t, void *arg)
{
	(void)t;
	log_info("stdin closed: shutting down");
	mcp_server_shutdown(arg);
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                            */

static void transport_closed_cb(void *arg)
{
	struct mcp_server *s = arg;

	s->tr = NULL;
	log_set_sink(NULL, NULL);
	if (s->deadline_started)
		uv_timer_stop(&s->deadline);
	if (s->on_exit) {
		void (*cb)(void *) = s->on_exit;

		s->on_exit = NULL;
		cb(s->on_exit_arg);
	}
}

static void pool_done_cb(void *arg)
{
	struct mcp_server *s = arg;

	log_info("all containers removed");
	if (s->tr)
		transport_close(s->tr, transport_closed_cb, s);
	else
		transport_closed_cb(s);
}

static void sessions_done_cb(void *arg)
{
	struct mcp_server *s = arg;

	pool_shutdown(s->env->pool, pool_done_cb, s);
}

static void deadline_cb(uv_timer_t *t)
{
	struct mcp_server *s = t->data;

	log_error("shutdown did not finish in %d ms: exiting anyway",
		  SHUTDOWN_DEADLINE_MS);
	if (s->tr) {
		struct transport *tr = s->tr;

		s->tr = NULL;
		transport_close(tr, NULL, NULL);
	}
	transport_closed_cb(s);
}

void mcp_server_shutdown(struct mcp_server *s)
{
	if (s->shutting_down)
		return;
	s->shutting_down = 1;
	if (s->tr)
		transport_stop_reading(s->tr);
	uv_timer_init(s->env->loop, &s->deadline);
	s->deadline.data = s;
	uv_unref((uv_handle_t *)&s->deadline);
	uv_timer_start(&s->deadline, deadline_cb, SHUTDOWN_DEADLINE_MS, 0);
	s->deadline_started = 1;
	/* Sessions keep their containers for the next server (their calls
	 * end now); removing the pool's containers ends what runs in them.
	 * Each call still finishes through its callback, "shutting_down". */
	if (s->env->sessions)
		session_mgr_shutdown(s->env->sessions, sessions_done_cb, s);
	else
		sessions_done_cb(s);
}

static int cache_tools(struct mcp_server *s)
{
	size_t n = 0, i;

	while (tools_all[n])
		n++;
	s->tools = calloc(n, sizeof(*s->tools));
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

static struct mcp_server *server_new(const struct tool_env *env)
{
	struct mcp_server *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->env = env;
	s->client_log_level = LOG_LEVEL_WARNING;
	snprintf(s->version, sizeof(s->version), "%s",
		 mcp_protocol_versions[0]);
	if (cache_tools(s)) {
		free(s);
		return NULL;
	}
	return s;
}

int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_exit)(void *), void *arg,
		     struct mcp_server **out)
{
	static const struct transport_cbs cbs = {
		.on_line = line_cb,
		.on_oversize = oversize_cb,
		.on_eof = eof_cb,
	};
	struct mcp_server *s = server_new(env);
	int rc;

	if (!s)
		return -ENOMEM;
	s->on_exit = on_exit;
	s->on_exit_arg = arg;
	rc = transport_open(env->loop, out_fd, env->cfg->max_message_bytes,
			    &cbs, s, &s->tr);
	if (rc) {
		mcp_server_free(s);
		return rc;
	}
	log_set_sink(forward_log_cb, s);
	*out = s;
	return 0;
}

void mcp_server_free(struct mcp_server *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->ntools; i++) {
		cJSON_Delete(s->tools[i].input);
		cJSON_Delete(s->tools[i].validate);
		cJSON_Delete(s->tools[i].output);
	}
	free(s->tools);
	free(s->test_reply);
	free(s);
}

char *mcp_server_handle_line_for_test(const struct tool_env *env,
				      const char *line)
{
	struct mcp_server *s = server_new(env);
	char *reply;

	if (!s)
		return NULL;
	s->test_mode = 1;
	/* Let tests reach post-initialize methods with one line each. */
	if (strstr(line, "\"initialize\"") == NULL)
		s->initialized = 1;
	handle_line(s, line, strlen(line));
	reply = s->test_reply;
	s->test_reply = NULL;
	mcp_server_free(s);
	return reply;
}
