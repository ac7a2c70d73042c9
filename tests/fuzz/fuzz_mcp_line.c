/*
 * fuzz_mcp_line.c - libFuzzer harness for what a client's line meets
 * first: UTF-8 checks, the strict JSON rules (control characters,
 * duplicate keys, \u0000), JSON-RPC validation and dispatch, the tool
 * schemas. Each input is one message to a fresh connection (an
 * initialized one when its size is odd), through mcp_server_handle(), the
 * function both transports feed; the loop then runs until every call it
 * started has been answered (one that never is aborts). The server's
 * engine is one that cannot be reached (a socket path that does not
 * exist), so sandbox_inspect asks it and gets docker_unavailable, as a
 * real server would. A line that would start work needing a live engine
 * stops at validation (no plugins: no language passes the schema), or is
 * skipped (sessions, files, the audit log, installs, resources).
 * The id scan of an oversize line (json_util.h) sees every input too, cut
 * in two at a point the input picks: an id it gives must be JSON that
 * parses as a string or a number. A line the one-pass reading takes
 * (json_parse_fast) must be one the slow way takes (UTF-8, cJSON, the
 * strict rules), read to the same tree.
 * Under ASan and UBSan.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "core/engines/engines.h"
#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "mcp/json_util.h"
#include "mcp/mcp_server.h"
#include "mcp/tool_table.h"
#include "mcp/tools/tools.h"
#include "util/log.h"

#define NO_ENGINE "unix:///nonexistent/mcp-sandbox-fuzz/docker.sock"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char init_line[] =
	"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
	"\"params\":{\"protocolVersion\":\"2025-11-25\"}}";

/* What the connection answers is one JSON object. */
static void out_send(void *arg, void *ex, enum jsonrpc_kind kind,
		     const char *json, size_t len)
{
	cJSON *msg = cJSON_ParseWithLength(json, len);

	(void)arg;
	(void)ex;
	(void)kind;
	if (!cJSON_IsObject(msg))
		abort();
	cJSON_Delete(msg);
}

static void out_ended(void *arg, void *ex)
{
	(void)arg;
	(void)ex;
}

/* The server's world, made once: a loop, the default configuration with
 * the engine that cannot be reached, no plugins, the tools' table. */
static void setup(struct tool_env *env, struct tool_table **tools)
{
	static const char *const labels[] = {"org.mcp-sandbox.test=fuzz", NULL};
	static uv_loop_t loop;
	static struct config cfg;
	static struct plugin_set ps;
	static struct engines *es;
	struct error err;

	log_set_level(LOG_LEVEL_EMERGENCY);
	if (uv_loop_init(&loop))
		abort();
	config_init(&cfg);
	if (config_set(&cfg, "docker", "host", NO_ENGINE, &err) ||
	    engines_new(&loop, &cfg, &ps,
			&(struct engines_options){.labels = labels}, &es,
			&err)) {
		fprintf(stderr, "fuzz_mcp_line: %s\n", err.msg);
		abort();
	}
	env->loop = &loop;
	env->cfg = &cfg;
	env->plugins = &ps; /* none: every language is unknown */
	env->engines = es;
	if (tool_table_new(env, tools))
		abort();
}

/* One message to a fresh connection, and the calls it started to their
 * end. */
static void converse(const struct tool_env *env, const struct tool_table *tools,
		     int initialized, const char *line, size_t len)
{
	static const struct mcp_out out = {
		.send = out_send,
		.ended = out_ended,
	};
	struct mcp_server *s;

	if (mcp_server_new(env, tools, &out, &s))
		return;
	if (initialized)
		mcp_server_handle(s, NULL, init_line, strlen(init_line));
	mcp_server_handle(s, NULL, line, len);
	while (mcp_server_inflight(s) && uv_run(env->loop, UV_RUN_ONCE))
		;
	if (mcp_server_inflight(s))
		abort(); /* a request that is never answered */
	mcp_server_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tool_env env;
	static struct tool_table *tools;
	char *line;

	if (!tools)
		setup(&env, &tools);
	if (size > (1u << 20) || memchr(data, '\n', size))
		return 0; /* one line, as the transport cuts them */
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	/* The transport's scan, fed in two pieces. */
	{
		static struct json_id_scan scan;
		size_t cut = size ? data[0] % size : 0;
		const char *id;

		json_id_scan_init(&scan);
		json_id_scan_feed(&scan, line, cut);
		json_id_scan_feed(&scan, line + cut, size - cut);
		if ((id = json_id_scan_id(&scan))) {
			cJSON *v = cJSON_Parse(id);

			if (!cJSON_IsString(v) && !cJSON_IsNumber(v))
				abort();
			cJSON_Delete(v);
		}
	}
	/* The one-pass reading agrees with the slow way. */
	{
		cJSON *fast = json_parse_fast(line, size), *slow = NULL;
		const char *what;
		char *pf, *ps;
		int nul;

		if (fast) {
			if (!utf8_valid(line, size) ||
			    !(slow = cJSON_ParseWithLengthOpts(line, size + 1,
							       NULL, 1)) ||
			    json_not_strict(line, size, &what, &nul) >= 0)
				abort();
			pf = cJSON_PrintUnformatted(fast);
			ps = cJSON_PrintUnformatted(slow);
			if (!pf || !ps || strcmp(pf, ps) != 0)
				abort();
			free(pf);
			free(ps);
		}
		cJSON_Delete(fast);
		cJSON_Delete(slow);
	}
	/* What the HTTP transport reads first to route a body. */
	{
		cJSON *msg = cJSON_ParseWithLength(line, size);

		(void)mcp_message_kind(msg);
		cJSON_Delete(msg);
	}
	/* Lines that would reach a session, a file, the audit log, an
	 * install or a resource need what this harness does not have. */
	if (!strstr(line, "session") && !strstr(line, "sandbox_file") &&
	    !strstr(line, "sandbox_security") &&
	    !strstr(line, "sandbox_install") && !strstr(line, "resources/"))
		converse(&env, tools, size & 1, line, size);
	free(line);
	return 0;
}
