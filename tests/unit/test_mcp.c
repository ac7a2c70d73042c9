/*
 * MCP framing and errors, answered by the real server over its real stdio
 * transport: each exchange starts a server whose stdin is a file holding
 * the client's lines (an initialize first, unless the test wants a fresh
 * server) and whose stdout is another, and runs the loop until the server
 * has read them all, answered and closed. Malformed JSON, wrong shapes,
 * unknown methods and tools, schema failures as isError results, version
 * negotiation.
 */
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#include "mcp/json_util.h"
#include "mcp/mcp_server.h"
#include "mcp/tools/tools.h"
#include "testlib.h"
#include "util/log.h"

static struct tool_env env;
static uv_loop_t loop;

/* How a notification to the client starts (a response has an id). */
static const char notification_start[] = "{\"jsonrpc\":\"2.0\",\"method\":";

static const char init_line[] =
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	"\"params\":{\"protocolVersion\":\"2025-11-25\"}}";

struct conversation {
	struct mcp_server *s;
	int closed;
};

static void closed_cb(void *arg)
{
	((struct conversation *)arg)->closed = 1;
}

/* stdin's end: the server closes, as main.c has it close. */
static void eof_cb(void *arg)
{
	struct conversation *c = arg;

	mcp_server_close(c->s, closed_cb, c);
}

/* The whole of f, NUL-terminated (caller frees). */
static char *slurp(FILE *f)
{
	long n;
	char *buf;

	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || !(buf = malloc((size_t)n + 1)))
		return NULL;
	buf[fread(buf, 1, (size_t)n, f)] = '\0';
	return buf;
}

/* The responses (messages with an id: notifications, the log records a
 * client gets, are left out) to line, newline-separated, or NULL when
 * there is none. initialized: the server has answered initialize
 * first (its response is not among them). */
static char *converse(int initialized, const char *line)
{
	struct conversation c = {0};
	FILE *in = tmpfile(), *out = tmpfile();
	char *text = NULL, *responses = NULL, *more, *p, *nl;
	size_t len = 0;
	int skip = initialized;

	if (!in || !out) {
		CHECK(!"tmpfile");
		goto done;
	}
	if (initialized)
		fprintf(in, "%s\n", init_line);
	fprintf(in, "%s\n", line);
	fflush(in);
	/* The transport reads fd 0 and closes the fd it writes to. */
	CHECK(dup2(fileno(in), 0) == 0);
	CHECK(mcp_server_start(&env, dup(fileno(out)), eof_cb, &c, &c.s) == 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	CHECK(c.closed);
	mcp_server_free(c.s);
	text = slurp(out);
	for (p = text; p && *p; p = nl + 1) {
		size_t n;

		nl = strchr(p, '\n');
		if (!nl)
			break;
		n = (size_t)(nl - p);
		if (strncmp(p, notification_start,
			    sizeof(notification_start) - 1) == 0)
			continue;
		if (skip) {
			skip = 0; /* initialize's response */
			continue;
		}
		more = realloc(responses, len + n + 2);
		if (!more) {
			CHECK(!"out of memory");
			break;
		}
		responses = more;
		memcpy(responses + len, p, n);
		len += n;
		responses[len++] = '\n';
		responses[len] = '\0';
	}
done:
	free(text);
	if (in)
		fclose(in);
	if (out)
		fclose(out);
	return responses;
}

/* The answer of a server that has been initialized. */
static char *ask(const char *line)
{
	return converse(1, line);
}

/* The answer of a server that has not (the first line a client sends). */
static char *ask_fresh(const char *line)
{
	return converse(0, line);
}

/* 1 when an initialized server answers line with no response. */
static int unanswered(const char *line)
{
	char *r = ask(line);
	int none = r == NULL;

	free(r);
	return none;
}

#define EXPECT_FROM(fn, line, needle)                                          \
	do {                                                                   \
		char *r_ = fn(line);                                           \
		CHECK_STR_CONTAINS(r_, needle);                                \
		free(r_);                                                      \
	} while (0)
#define EXPECT(line, needle) EXPECT_FROM(ask, line, needle)
#define EXPECT_FRESH(line, needle) EXPECT_FROM(ask_fresh, line, needle)

static void framing(void)
{
	char *deep, *r;
	size_t i, n = 100000;

	EXPECT("{bad json", "\"code\":-32700");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing",
	       "-32700");
	EXPECT("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
	       "\"code\":-32600");
	EXPECT("42", "\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
	       "\"id\":1,\"error\":{\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
	       "\"id\":null,\"error\":{\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1}", "-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":["
	       "1]}",
	       "-32602");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":"
	       "\"x\"}",
	       "-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}",
	       "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"nope\"}",
	       "\"id\":\"abc\",\"error\":{\"code\":-32601");
	/* invalid UTF-8 */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}",
	       "-32700");
	/* ids are echoed exactly, up to 2^53-1; beyond that they are refused */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,\"method\":"
	       "\"ping\"}",
	       "\"id\":9007199254740991,\"result\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":-42,\"method\":\"ping\"}",
	       "\"id\":-42,\"result\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":"
	       "\"ping\"}",
	       "-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1e300,\"method\":\"ping\"}",
	       "-32600");
	/* a NUL inside a string would silently cut the code short */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{"
	       "\"x\":\"a\\u0000b\"}}",
	       "-32600");
	/* ... answered with the request's id, so the client is not left
	 * waiting */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{"
	       "\"x\":\"a\\u0000b\"}}",
	       "\"id\":7,\"error\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{"
	       "\"x\":\"a\\\\u0000b\"}}",
	       "\"result\":{}");
	/* an error message that cuts a long name keeps valid UTF-8 */
	{
		char line[600], *reply;
		size_t k, start;

		k = (size_t)snprintf(
			line, sizeof(line),
			"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"");
		/* 199 bytes then a 2-byte character: the cut at 200 falls
		 * inside it */
		for (start = k; k < start + 199;)
			line[k++] = 'x';
		memcpy(line + k, "\xc3\xa9\"}", 4);
		line[k + 4] = '\0';
		reply = ask(line);
		CHECK(reply && utf8_valid(reply, strlen(reply)));
		CHECK_STR_CONTAINS(reply, "-32601");
		free(reply);
	}
	/* a notification gets no answer */
	r = ask("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
		"initialized\"}");
	CHECK(r == NULL);
	free(r);
	/* deep nesting */
	deep = malloc(2 * n + 1);
	for (i = 0; i < n; i++) {
		deep[i] = '[';
		deep[n + i] = ']';
	}
	deep[2 * n] = '\0';
	EXPECT(deep, "-32700");
	free(deep);
}

static void lifecycle(void)
{
	/* Before initialize only ping and initialize are served. */
	/* Not -32002: MCP gives that code a missing resource. */
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
		     "\"code\":-32600");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
		     "\"result\":{}");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{\"protocolVersion\":\"2025-06-18\","
		     "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\","
		     "\"version\":"
		     "\"1\"}}}",
		     "\"protocolVersion\":\"2025-06-18\"");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{\"protocolVersion\":\"1999-01-01\"}}",
		     "\"protocolVersion\":\"2025-11-25\"");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{\"protocolVersion\":\"2025-11-25\"}}",
		     "\"instructions\":");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{}}",
		     "-32602");
	/* 2025-03-26 needs batches, which are not served: the newest older
	 * revision instead; never the stateless one through a handshake. */
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{\"protocolVersion\":\"2025-03-26\"}}",
		     "\"protocolVersion\":\"2024-11-05\"");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		     "\"params\":{\"protocolVersion\":\"2026-07-28\"}}",
		     "\"protocolVersion\":\"2025-11-25\"");
	/* initialize comes once */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	       "\"params\":{\"protocolVersion\":\"2025-11-25\"}}",
	       "\"code\":-32600,\"message\":\"already initialized");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/"
	       "setLevel\",\"params\":{\"level\":\"debug\"}}",
	       "\"result\":{}");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/"
	       "setLevel\",\"params\":{\"level\":\"loud\"}}",
	       "-32602");
}

#define META(v)                                                                \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" v "\","    \
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* The stateless revision, with no initialize: each request says its
 * version in _meta. */
static void stateless(void)
{
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/"
		     "discover\",\"params\":{" META("2026-07-28") "}}",
		     "\"supportedVersions\":[\"2026-07-28\"]");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/"
		     "discover\",\"params\":{" META("2026-07-28") "}}",
		     "\"resultType\":\"complete\"");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
		     "list\",\"params\":{" META("2026-07-28") "}}",
		     "\"ttlMs\":3600000,\"cacheScope\":\"public\","
		     "\"resultType\":\"complete\",\"_meta\":{"
		     "\"io.modelcontextprotocol/serverInfo\":{\"name\":"
		     "\"mcp-sandbox\"");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
		     "list\",\"params\":{" META("2099-01-01") "}}",
		     "\"code\":-32022,\"message\":\"Unsupported protocol "
		     "version\",\"data\":{\"supported\":[\"2026-07-28\"],"
		     "\"requested\":\"2099-01-01\"}");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
		     "list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
		     "protocolVersion\":\"2026-07-28\"}}}",
		     "\"code\":-32602");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/"
		     "discover\"}",
		     "\"code\":-32602");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\","
		     "\"params\":{" META("2026-07-28") "}}",
		     "\"code\":-32601");
	EXPECT_FRESH("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/"
		     "call\",\"params\":{\"name\":\"sandbox_execute\","
		     "\"arguments\":{\"code\":5}," META("2026-07-28") "}}",
		     "\"isError\":true,\"resultType\":\"complete\"");
}

static void tools(void)
{
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
	       "\"name\":\"sandbox_execute\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
	       "\"outputSchema\":{\"type\":\"object\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
	       "\"readOnlyHint\":false");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"nope\",\"arguments\":{}}}",
	       "\"error\":{\"code\":-32602,\"message\":\"Unknown tool: nope\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":"
	       "\"x\"}}",
	       "-32602");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\",\"code\":5}}}",
	       "invalid_arguments");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\",\"code\":5}}}",
	       "\"isError\":true");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\"}}}",
	       "missing required property 'code'");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\",\"code\":\"1\",\"timeout\":\"5\"}}}",
	       "timeout: expected integer, got string");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\",\"code\":\"1\",\"timeout\":1.5}}}",
	       "invalid_arguments");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"python\",\"code\":\"1\",\"extra\":1}}}",
	       "unknown property 'extra'");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"cobol\",\"code\":\"x\"}}}",
	       "unknown_language");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{"
	       "\"language\":\"cobol\",\"code\":\"x\"}}}",
	       "available: bash, ");
	/* A value outside an enum: the message lists the allowed ones. */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/"
	       "call\",\"params\":{\"name\":\"sandbox_inspect\",\"arguments\":{"
	       "\"what\":\"nope\"}}}",
	       "what: value is not one of the allowed values: all, pool, "
	       "sessions, engine, plugins, limits");
}

/* sandbox_install's schema offers only the languages with an installer
 * (bash has none), and sandbox_execute offers them all. */
static void install_enum(void)
{
	char *r =
		ask("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	cJSON *msg = r ? cJSON_Parse(r) : NULL, *t, *en;
	const cJSON *tools = cJSON_GetObjectItem(
		cJSON_GetObjectItem(msg, "result"), "tools");
	int install = 0, execute = 0;

	cJSON_ArrayForEach(t, tools)
	{
		const char *name =
			cJSON_GetStringValue(cJSON_GetObjectItem(t, "name"));
		int bash = 0, go = 0;
		const cJSON *v;

		en = cJSON_GetObjectItem(
			cJSON_GetObjectItem(
				cJSON_GetObjectItem(
					cJSON_GetObjectItem(t, "inputSchema"),
					"properties"),
				"language"),
			"enum");
		cJSON_ArrayForEach(v, en)
		{
			bash |= strcmp(cJSON_GetStringValue(v), "bash") == 0;
			go |= strcmp(cJSON_GetStringValue(v), "go") == 0;
		}
		if (name && strcmp(name, "sandbox_install") == 0) {
			install = 1;
			CHECK(go && !bash);
		} else if (name && strcmp(name, "sandbox_execute") == 0) {
			execute = 1;
			CHECK(go && bash);
		}
	}
	CHECK(install && execute);
	cJSON_Delete(msg);
	free(r);
}

/* schema_validate's enum message: every value while they fit, numbers as
 * JSON, then "..." (never a value cut in two). */
static void enum_message(void)
{
	struct error err;
	cJSON *schema, *v;
	char big[4096];
	size_t off = 0;
	int i;

	schema = cJSON_Parse("{\"enum\":[1,2.5,\"x\",true]}");
	v = cJSON_CreateString("y");
	memset(&err, 0, sizeof(err));
	CHECK(schema_validate(schema, v, &err) == ERR_INVALID_ARGUMENTS);
	CHECK(strcmp(err.msg, "value is not one of the allowed values: 1, 2.5, "
			      "x, true") == 0);
	cJSON_Delete(schema);

	off += (size_t)snprintf(big, sizeof(big), "{\"enum\":[");
	for (i = 0; i < 60; i++)
		off += (size_t)snprintf(big + off, sizeof(big) - off,
					"%s\"value%02d\"", i ? "," : "", i);
	snprintf(big + off, sizeof(big) - off, "]}");
	schema = cJSON_Parse(big);
	memset(&err, 0, sizeof(err));
	CHECK(schema_validate(schema, v, &err) == ERR_INVALID_ARGUMENTS);
	CHECK(strstr(err.msg, "allowed values: value00, value01, ") != NULL);
	CHECK(strlen(err.msg) > 5 &&
	      strcmp(err.msg + strlen(err.msg) - 5, ", ...") == 0);
	CHECK(strstr(err.msg, "value59") == NULL);
	/* Whole values only before the "...". */
	CHECK(strstr(err.msg, "value, ...") == NULL);
	cJSON_Delete(schema);
	cJSON_Delete(v);
}

static void utf8(void)
{
	char *s;

	CHECK(utf8_valid("h\xc3\xa9llo", 6));
	CHECK(!utf8_valid("\xc0\xaf", 2));     /* overlong */
	CHECK(!utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	CHECK(!utf8_valid("\xe2\x82", 2));     /* truncated */
	/* The ASCII words and the bytes after them. */
	CHECK(utf8_valid("0123456789abcdefg", 17));
	CHECK(!utf8_valid("01234567\xff", 9));
	CHECK(!utf8_valid("0123456\xff"
			  "89abcdef",
			  16));
	CHECK(utf8_valid("01234567\xc3\xa9xyz", 13));
	/* Text for a read: UTF-8 without NUL, in the ASCII words too. */
	CHECK(utf8_valid("abc\0def", 7));
	CHECK(!utf8_text("abc\0def", 7));
	CHECK(!utf8_text("0123456789ab\0def", 16));
	CHECK(!utf8_text("\xff\xfe"
			 "a\0",
			 4)); /* UTF-16 with its BOM */
	CHECK(utf8_text("0123456789abcdefg\xc3\xa9", 19));
	/* A part that ends inside a character. */
	CHECK(utf8_cut_tail("h\xc3", 2) == 1);
	CHECK(utf8_cut_tail("h\xe2\x82", 3) == 2);
	CHECK(utf8_cut_tail("\xf0\x9f\x98", 3) == 3);
	CHECK(utf8_cut_tail("h\xc3\xa9", 3) == 0); /* whole */
	CHECK(utf8_cut_tail("abc", 3) == 0);
	CHECK(utf8_cut_tail("h\xed\xa0", 3) == 0); /* a surrogate's start */
	CHECK(utf8_cut_tail("h\xe0\x80", 3) == 0); /* an overlong's start */
	CHECK(utf8_cut_tail("h\xff", 2) == 0);
	CHECK(utf8_cut_tail("\xa9\xa9\xa9", 3) == 0);
	s = utf8_sanitize("a\xff"
			  "b\0c",
			  5);
	CHECK(s && strcmp(s, "a\xef\xbf\xbd"
			     "b\xef\xbf\xbd"
			     "c") == 0);
	free(s);
}

#define CHECK_SAME(got, want, what)                                            \
	do {                                                                   \
		const char *g_ = (got);                                        \
		CHECK(strcmp(g_, (want)) == 0);                                \
		if (strcmp(g_, (want)) != 0)                                   \
			fprintf(stderr, "  %s: '%s', not '%s'\n", (what), g_,  \
				(want));                                       \
	} while (0)

/* The scanned id of msg, fed in pieces of n bytes (every split must give
 * the same answer), or "" for none; notification set as the scan says. */
static const char *scan_id(const char *msg, size_t n, int *notification)
{
	static struct json_id_scan scan;
	size_t len = strlen(msg), i;
	const char *id;

	json_id_scan_init(&scan);
	for (i = 0; i < len; i += n)
		json_id_scan_feed(&scan, msg + i, len - i < n ? len - i : n);
	*notification = json_id_scan_notification(&scan);
	id = json_id_scan_id(&scan);
	return id ? id : "";
}

static void id_scan(void)
{
	static const struct {
		const char *msg, *id;
		int notification;
	} cases[] = {
		{"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}", "9", 0},
		/* The SDK writes the id last, after the params. */
		{"{\"method\":\"tools/call\",\"params\":{\"id\":1,\"a\":[{"
		 "\"id\":2},\"}\\\"\"]},\"jsonrpc\":\"2.0\", \"id\" : "
		 "\"a\\\"b\" }",
		 "\"a\\\"b\"", 0},
		{"{\"id\":\"x\\u0000y\",\"method\":\"ping\"}", "\"x\\u0000y\"",
		 0},
		{"{\"\\u0069d\":-42,\"method\":\"ping\"}", "-42", 0},
		{"{\"id\":9007199254740991}", "9007199254740991", 0},
		/* None to echo: no id, two, not an id's type or form, not
		 * strict JSON, not a whole object. */
		{"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}", "", 1},
		{"{\"jsonrpc\":\"2.0\",\"params\":{}}", "", 0},
		{"{\"id\":1,\"id\":2,\"method\":\"ping\"}", "", 0},
		{"{\"id\":9007199254740992}", "", 0},
		{"{\"id\":1.0}", "", 0},
		{"{\"id\":1e2}", "", 0},
		{"{\"id\":01}", "", 0},
		{"{\"id\":null}", "", 0},
		{"{\"id\":{\"a\":1}}", "", 0},
		{"{\"id\":\"a\tb\"}", "", 0},
		{"{\"id\":\"\\x\"}", "", 0},
		{"{\"id\":\"\\u00\"}", "", 0},
		{"{\"id\":\"\xff\"}", "", 0},
		{"{\"id\":1", "", 0},
		{"{\"id\":1}}", "", 0},
		{"{\"id\":1} {\"id\":2}", "", 0},
		{"[{\"id\":1}]", "", 0},
		{"\"id\"", "", 0},
	};
	char long_id[JSON_ID_MAX + 32];
	int notification;
	size_t i, n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (n = 1; n <= strlen(cases[i].msg); n++) {
			CHECK_SAME(scan_id(cases[i].msg, n, &notification),
				   cases[i].id, cases[i].msg);
			CHECK(notification == cases[i].notification);
		}
	/* A backslash before a NUL byte is no escape: such an id would be
	 * cut at the NUL where it is echoed (found by fuzz_mcp_line). */
	{
		static const char nul_escape[] = "{\"id\":\"\\\0\"}";
		static struct json_id_scan scan;

		json_id_scan_init(&scan);
		json_id_scan_feed(&scan, nul_escape, sizeof(nul_escape) - 1);
		CHECK(json_id_scan_id(&scan) == NULL);
	}
	/* An id longer than the scan keeps is none. */
	snprintf(long_id, sizeof(long_id), "{\"id\":\"%0*d\"}", JSON_ID_MAX, 0);
	CHECK_SAME(scan_id(long_id, 7, &notification), "", "a long id");

	/* Refusals echo the id as it came; a notification is refused
	 * without an answer, unless it is no Request object at all. */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":\"x\\u0000y\",\"method\":"
	       "\"ping\"}",
	       "{\"jsonrpc\":\"2.0\",\"id\":\"x\\u0000y\",\"error\":{"
	       "\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":\"\\u0041\",\"method\":\"a\","
	       "\"method\":\"b\"}",
	       "{\"jsonrpc\":\"2.0\",\"id\":\"\\u0041\",\"error\":{");
	CHECK(unanswered("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
			 "x\",\"params\":{\"s\":\"\\u0000\"}}"));
	CHECK(unanswered("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
			 "x\",\"method\":\"y\"}"));
	CHECK(unanswered("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
			 "x\",\"params\":[1]}"));
	EXPECT("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"bar\"}",
	       "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"s\":"
	       "\"a\tb\"}}",
	       "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700");
}

/* What cJSON prints for s as a string (caller frees). */
static char *cjson_string(const char *s)
{
	cJSON *v = cJSON_CreateString(s);
	char *out = cJSON_PrintUnformatted(v);

	cJSON_Delete(v);
	return out;
}

/* json_escape() and json_raw_string() print what cJSON prints, once and
 * twice (a string inside a string), across the 16-byte words. */
static void json_out(void)
{
	char s[300], buf[2100], *want, *twice, *o;
	cJSON *raw;
	size_t i, n;

	for (i = 1; i < 256; i++) { /* every byte, at every place of a word */
		for (n = 0; n < 40; n++)
			s[n] = (char)('a' + n % 26);
		s[(i * 7) % 40] = (char)i;
		s[40] = '\0';
		want = cjson_string(s);
		raw = json_raw_string(s, 40);
		CHECK(raw && strcmp(raw->valuestring, want) == 0);
		CHECK(json_escaped_len(s, 40, 0) == strlen(want) - 2);
		/* Twice: the string of the string's JSON, less its quotes. */
		twice = cjson_string(want);
		o = json_escape(buf, s, 40, 0);
		CHECK((size_t)(o - buf) == strlen(want) - 2);
		o = json_escape(buf, s, 40, 1);
		*o = '\0';
		CHECK(strlen(twice) == strlen(buf) + 6 &&
		      strncmp(twice + 3, buf, strlen(buf)) == 0);
		CHECK(json_escaped_len(s, 40, 1) == strlen(buf));
		free(want);
		free(twice);
		cJSON_Delete(raw);
	}
	for (n = 0; n < sizeof(s) - 1; n++) /* long runs, then specials */
		s[n] = n % 37 == 36 ? '"' : n % 53 == 52 ? '\n' : 'x';
	s[sizeof(s) - 1] = '\0';
	want = cjson_string(s);
	raw = json_raw_string(s, strlen(s));
	CHECK(raw && strcmp(raw->valuestring, want) == 0);
	free(want);
	cJSON_Delete(raw);
}

/* A read's result: the tool's JSON with its bytes last, in one text
 * block, as tool_ok_text() of the whole object would give it. */
static void ok_text_bytes(void)
{
	static const unsigned char bin[] = {0, 1, 2, 0xff, 'a'};
	cJSON *res, *o, *text, *body;
	char *printed;
	const char *kinds[] = {"text", "base64", "empty"};
	int k, failed;

	for (k = 0; k < 3; k++) {
		failed = t_failed;
		o = cJSON_CreateObject();
		if (k < 2)
			cJSON_AddStringToObject(o, "path", "a\"b\\c\n");
		res = k == 1 ? tool_ok_text_bytes(o, "content", bin,
						  sizeof(bin), 0)
			     : tool_ok_text_bytes(o, "content",
						  (const unsigned char
							   *)"x\"y\\z\n\x01\xc3"
							     "\xa9",
						  9, 1);
		printed = cJSON_PrintUnformatted(res);
		cJSON_Delete(res);
		res = cJSON_Parse(printed);
		free(printed);
		text = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
						   res, "content"),
					   0),
			"text");
		CHECK(cJSON_IsString(text));
		body = cJSON_IsString(text) ? cJSON_Parse(text->valuestring)
					    : NULL;
		CHECK(body != NULL);
		if (k < 2)
			CHECK_STR_CONTAINS(
				cJSON_GetStringValue(
					cJSON_GetObjectItemCaseSensitive(
						body, "path")),
				"a\"b\\c\n");
		CHECK(cJSON_GetArraySize(body) == (k < 2 ? 2 : 1));
		if (k == 1)
			CHECK(strcmp(cJSON_GetStringValue(
					     cJSON_GetObjectItemCaseSensitive(
						     body, "content")),
				     "AAEC/2E=") == 0);
		else
			CHECK(strcmp(cJSON_GetStringValue(
					     cJSON_GetObjectItemCaseSensitive(
						     body, "content")),
				     "x\"y\\z\n\x01\xc3\xa9") == 0);
		if (t_failed > failed)
			fprintf(stderr, "  (%s)\n", kinds[k]);
		cJSON_Delete(body);
		cJSON_Delete(res);
	}
}

/* The slow reading of a line (utf8_valid, cJSON, json_not_strict), or
 * NULL where it refuses it. */
static cJSON *slow_parse(const char *line, size_t len)
{
	const char *what;
	char *z = malloc(len + 1); /* NUL-terminated, as the transport has it */
	cJSON *v = NULL;
	int nul;

	if (!z)
		return NULL;
	memcpy(z, line, len);
	z[len] = '\0';
	if (utf8_valid(z, len))
		v = cJSON_ParseWithLengthOpts(z, len + 1, NULL, 1);
	if (v && json_not_strict(z, len, &what, &nul) >= 0) {
		cJSON_Delete(v);
		v = NULL;
	}
	free(z);
	return v;
}

/* 1 when a and b are the same tree: types, keys, strings, numbers to
 * the bit (inf too), members in order. */
static int same_tree(const cJSON *a, const cJSON *b)
{
	for (; a && b; a = a->next, b = b->next)
		if (a->type != b->type || a->valueint != b->valueint ||
		    memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) !=
			    0 ||
		    !a->string != !b->string ||
		    (a->string && strcmp(a->string, b->string) != 0) ||
		    !a->valuestring != !b->valuestring ||
		    (a->valuestring &&
		     strcmp(a->valuestring, b->valuestring) != 0) ||
		    !same_tree(a->child, b->child))
			return 0;
	return !a && !b;
}

/* json_parse_fast() takes only what the slow way takes, and gives the
 * same tree (same members in the same order, same values). Returns 1
 * when the fast way took it. */
static int same_as_slow(const char *line, size_t len)
{
	cJSON *fast = json_parse_fast(line, len), *slow;
	char *pf, *ps;
	int same;

	if (!fast)
		return 0;
	slow = slow_parse(line, len);
	pf = cJSON_PrintUnformatted(fast);
	ps = slow ? cJSON_PrintUnformatted(slow) : NULL;
	same = slow && same_tree(fast, slow);
	CHECK(same);
	if (!same)
		fprintf(stderr, "  fast and slow differ on '%.*s' (%s, %s)\n",
			(int)len, line, pf ? pf : "-", ps ? ps : "-");
	free(pf);
	free(ps);
	cJSON_Delete(fast);
	cJSON_Delete(slow);
	return 1;
}

static void fast_parse(void)
{
	static const char *const taken[] = {
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
		"\"params\":{\"name\":\"sandbox_file_ops\",\"arguments\":{"
		"\"action\":\"write\",\"content\":\"a,b\\n1,\\\"2\\\"\\r\\n\\t"
		"\\u00e9\\u20ac\\/\\\\ \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\","
		"\"offset\":0,\"x\":[true,false,null,-1.5e3,0.25,-0,1E2]}}}",
		" [ 1 , { } , [ ] , \"\" ] \r\n",
		"\"a\\u0041\\u007f\\u0080\\u07ff\\u0800\\uffff\"",
		"123456789012345678901234567890",
		"{\"a\":1,\"a\":2}", /* the caller refuses duplicates */
		"{\"\":{\"\":[]}}",
	};
	static const char *const slow[] = {
		"",
		"   ",
		"{",
		"{\"a\":1,}",
		"[1,]",
		"01",
		"1.",
		"-",
		".5",
		"+1",
		"1e",
		"\"\\u0000\"",
		"\"\\ud83d\\ude00\"",
		"\"\\udc00\"",
		"\"a\tb\"",
		"\"\\x\"",
		"\"\\u12\"",
		"\"\xff\"",
		"\"\xed\xa0\x80\"",
		"\xef\xbb\xbf{}",
		"{}\x01",
		"{} {}",
		"tru",
		"nul",
		"{\"a\" 1}",
		"\"abc",
		"[1 2]",
		"\x0b{}",
		"{\"n\":1234567890123456789012345678901234567890123456789012345"
		"678901234567890}",
	};
	/* Bytes that make and break JSON, for the mutations below. */
	static const char alphabet[] = "\"\\u0d8eE.-+:,{}[] \t\n\r\x01\x1f"
				       "\x7f\x80\xbf\xc3\xa9\xed\xa0\xef";
	char deep[2 * 70 + 1], line[512];
	unsigned seed = 29, r;
	size_t i, n, len;
	int k, taken_n = 0;

	for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		CHECK(same_as_slow(taken[i], strlen(taken[i])));
	for (i = 0; i < sizeof(slow) / sizeof(slow[0]); i++)
		CHECK(!json_parse_fast(slow[i], strlen(slow[i])));
	/* A NUL byte is not JSON's. */
	CHECK(!json_parse_fast("{}\0", 3) && !json_parse_fast("\"a\0\"", 4));
	/* Deeper than the fast way goes: the slow way's. */
	memset(deep, '[', 70);
	memset(deep + 70, ']', 70);
	CHECK(!json_parse_fast(deep, 140));
	CHECK(same_as_slow(deep + 6, 128));
	/* Random edits of what is taken: never taken unless the slow way
	 * takes it the same. */
	for (k = 0; k < 20000; k++) {
		const char *base =
			taken[k % (sizeof(taken) / sizeof(taken[0]))];

		len = strlen(base);
		memcpy(line, base, len);
		for (n = 0; n < 1 + (size_t)k % 3; n++) {
			seed = seed * 1103515245u + 12345u;
			r = seed >> 8;
			i = r % (len + 1);
			if (r % 3 == 0 && len < sizeof(line) - 1) { /* insert */
				memmove(line + i + 1, line + i, len - i);
				line[i] = alphabet[(r >> 4) %
						   (sizeof(alphabet) - 1)];
				len++;
			} else if (r % 3 == 1 && i < len) { /* delete */
				memmove(line + i, line + i + 1, len - i - 1);
				len--;
			} else if (i < len) {
				line[i] = alphabet[(r >> 4) %
						   (sizeof(alphabet) - 1)];
			}
		}
		taken_n += same_as_slow(line, len);
	}
	/* Both ways were taken (the edits left many lines JSON). */
	CHECK(taken_n > 2000 && taken_n < 18000);
	if (taken_n <= 2000 || taken_n >= 18000)
		fprintf(stderr, "  %d of 20000 edited lines read fast\n",
			taken_n);
}

int main(int argc, char **argv)
{
	static struct plugin_set ps;
	static struct config cfg;

	if (argc < 2) {
		fprintf(stderr, "usage: test_mcp PLUGIN_DIR\n");
		return 2;
	}
	log_set_level(LOG_LEVEL_EMERGENCY);
	CHECK(uv_loop_init(&loop) == 0);
	env.loop = &loop;
	config_init(&cfg);
	CHECK(plugins_load_dir(&ps, argv[1]) == 0);
	CHECK(plugins_apply_config(&ps, &cfg) == 0);
	env.cfg = &cfg;
	env.plugins = &ps;
	framing();
	lifecycle();
	stateless();
	tools();
	enum_message();
	install_enum();
	utf8();
	json_out();
	ok_text_bytes();
	fast_parse();
	id_scan();
	plugins_close(&ps);
	config_close(&cfg);
	CHECK(uv_loop_close(&loop) == 0);
	return t_summary("mcp");
}
