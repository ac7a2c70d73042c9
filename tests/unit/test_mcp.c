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
	utf8();
	id_scan();
	plugins_close(&ps);
	config_close(&cfg);
	CHECK(uv_loop_close(&loop) == 0);
	return t_summary("mcp");
}
