/*
 * MCP framing and errors, answered by the real dispatch code without a
 * transport: malformed JSON, wrong shapes, unknown methods and tools,
 * schema failures as isError results, version negotiation.
 */
#include <stdlib.h>

#include "util/log.h"
#include "mcp/json_util.h"
#include "mcp/mcp_server.h"
#include "testlib.h"

static struct tool_env env;

static char *ask(const char *line)
{
	return mcp_server_handle_line_for_test(&env, line);
}

#define EXPECT(line, needle)                                                \
	do {                                                                \
		char *r_ = ask(line);                                       \
		CHECK_STR_CONTAINS(r_, needle);                             \
		free(r_);                                                   \
	} while (0)

static void framing(void)
{
	char *deep, *r;
	size_t i, n = 100000;

	EXPECT("{bad json", "\"code\":-32700");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing", "-32700");
	EXPECT("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", "\"code\":-32600");
	EXPECT("42", "\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", "\"id\":1,\"error\":{\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", "\"id\":null,\"error\":{\"code\":-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1}", "-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", "-32602");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":\"x\"}", "-32600");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"nope\"}", "\"id\":\"abc\",\"error\":{\"code\":-32601");
	/* invalid UTF-8 */
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", "-32700");
	/* a notification gets no answer */
	r = ask("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
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
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
	       "\"protocolVersion\":\"2025-06-18\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}",
	       "\"protocolVersion\":\"2025-11-25\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}",
	       "\"instructions\":");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}", "-32602");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"debug\"}}",
	       "\"result\":{}");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"loud\"}}",
	       "-32602");
}

static void tools(void)
{
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "\"name\":\"sandbox_execute\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "\"outputSchema\":{\"type\":\"object\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "\"readOnlyHint\":false");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\",\"arguments\":{}}}",
	       "\"error\":{\"code\":-32602,\"message\":\"Unknown tool: nope\"");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":\"x\"}}",
	       "-32602");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\",\"code\":5}}}",
	       "invalid_arguments");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\",\"code\":5}}}",
	       "\"isError\":true");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\"}}}",
	       "missing required property 'code'");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\",\"code\":\"1\",\"timeout\":\"5\"}}}",
	       "timeout: expected integer, got string");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\",\"code\":\"1\",\"timeout\":1.5}}}",
	       "invalid_arguments");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"python\",\"code\":\"1\",\"extra\":1}}}",
	       "unknown property 'extra'");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"cobol\",\"code\":\"x\"}}}",
	       "unknown_language");
	EXPECT("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"sandbox_execute\",\"arguments\":{\"language\":\"cobol\",\"code\":\"x\"}}}",
	       "available: bash, python");
}

static void utf8(void)
{
	char *s;

	CHECK(utf8_valid("h\xc3\xa9llo", 6));
	CHECK(!utf8_valid("\xc0\xaf", 2));        /* overlong */
	CHECK(!utf8_valid("\xed\xa0\x80", 3));    /* surrogate */
	CHECK(!utf8_valid("\xe2\x82", 2));        /* truncated */
	s = utf8_sanitize("a\xff" "b\0c", 5);
	CHECK(s && strcmp(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c") == 0);
	free(s);
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
	config_init(&cfg);
	CHECK(plugins_load_dir(&ps, argv[1]) == 0);
	CHECK(plugins_apply_config(&ps, &cfg) == 0);
	env.cfg = &cfg;
	env.plugins = &ps;
	framing();
	lifecycle();
	tools();
	utf8();
	plugins_close(&ps);
	config_close(&cfg);
	return t_summary("mcp");
}
