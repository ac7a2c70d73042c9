/*
 * fuzz_mcp_line.c - libFuzzer harness for what a client's line meets
 * first: UTF-8 checks, the strict JSON rules (control characters,
 * duplicate keys, \u0000), JSON-RPC validation and dispatch, the tool
 * schemas. A line that would start a tool's work (tools/call of a known
 * tool with arguments that pass its schema, resources/read) reaches code
 * that needs the engine: the harness has none, so such lines stop at
 * validation (no plugins: no language passes the schema) or are skipped.
 * The id scan of an oversize line (json_util.h) sees every input too, cut
 * in two at a point the input picks: an id it gives must be JSON that
 * parses as a string or a number.
 * Under ASan and UBSan.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "mcp/json_util.h"
#include "mcp/mcp_server.h"
#include "mcp/tools/tools.h"
#include "util/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct config cfg;
	static struct plugin_set ps;
	static struct tool_env env;
	static int ready;
	char *line, *reply;

	if (!ready) {
		log_set_level(LOG_LEVEL_EMERGENCY);
		config_init(&cfg);
		env.cfg = &cfg;
		env.plugins = &ps; /* none: every language is unknown */
		ready = 1;
	}
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
	/* What the HTTP transport reads first to route a body. */
	{
		cJSON *msg = cJSON_ParseWithLength(line, size);

		(void)mcp_message_kind(msg);
		cJSON_Delete(msg);
	}
	/* Lines that would reach a session, a file or the audit log need
	 * what this harness does not have (see above). */
	if (!strstr(line, "session") && !strstr(line, "sandbox_file") &&
	    !strstr(line, "sandbox_security") &&
	    !strstr(line, "sandbox_install") && !strstr(line, "resources/")) {
		reply = mcp_server_handle_line_for_test(&env, size & 1, line);
		free(reply);
	}
	free(line);
	return 0;
}
