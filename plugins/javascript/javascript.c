/*
 * javascript.c - the Node.js plugin.
 *
 * The code is /work/main.mjs, an ES module, so top-level await and import
 * work; /opt/sbx/require.mjs (preloaded with --import) adds a require()
 * resolving from /work, since models write CommonJS as often as not.
 * Node's defaults already give what a caller expects: an uncaught
 * exception or an unhandled rejection prints the stack on stderr and exits
 * with status 1. Node, npm and the preload come from the node image
 * (images/node/), which the typescript plugin shares.
 */
#include <mcp-sandbox/plugin.h>

#include "../common/js_blocklist.h"
#include <mcp-sandbox/lex.h>
#include "../common/npm_packages.h"

static const char *const aliases[] = {"js", "node", NULL};
static const char *const run_cmd[] = {
	"node",
	"--import=/opt/sbx/require.mjs",
	"{file}",
	NULL,
};
/* npm's online chatter has no network to reach in the sandbox. */
static const char *const env[] = {
	"npm_config_update_notifier=false",
	"npm_config_fund=false",
	"npm_config_audit=false",
	NULL,
};
/* The session interpreter (docs/session-interpreters.md). */
/* The flag keeps an interrupted callback from corrupting the async hook
 * stack (images/node/repl.mjs). */
static const char *const session_cmd[] = {
	"node",
	"--no-force-async-hooks-checks",
	"/opt/sbx/repl.mjs",
	NULL,
};
/* What check-plugin --run runs (ABI 1.7; session_fds 1.10). */
static const struct sbx_samples samples = {
	.hello = "console.log('hello')",
	.echo = "process.stdin.pipe(process.stdout)",
	.fail = "console.error('oops'); process.exit(3)",
	.spin = "for (;;) {}",
	.session_set = "globalThis.x = 41",
	.session_get = "console.log(x + 1)",
	.session_fds = "void require('node:child_process').execSync("
		       "'ls -l /proc/self/fd', { stdio: 'inherit' })",
};

/* The next one-off call's node waits in every warm box, started with
 * run_cmd itself (docs/prestart.md): the code that waits is the end of
 * the --import preload, images/node/require.mjs. */
static const struct sbx_prestart prestart = {.handover = SBX_PRESTART_FD3};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "javascript",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "JavaScript on Node.js 24 LTS (an ES module: import, "
		       "top-level await; require() works too)",
	.image = "mcp-sandbox/node:latest",
	.file_name = "main.mjs",
	.run_cmd = run_cmd,
	.env = env,
	/* V8 sizes its heap from the cgroup's limit, so running out of heap
	 * is a JavaScript "heap out of memory" error, not the OOM killer.
	 * Node runs about a dozen threads (libuv pool, V8 workers); worker
	 * threads and child processes add to that. */
	.limits =
		{
			.memory_mb = 512,
			.pids = 256,
		},
	.install_cmd = install_cmd,
	.package_ecosystem = "npm",
	.manifest_cmd = manifest_cmd,
	.registry_cmd = registry_cmd,
	.registry_env = registry_env,
	.install_env = install_env,
	.package_path = "node_modules",
	.package_env = package_env,
	.session_cmd = session_cmd,
	.blocklist = js_blocklist,
	.lex_mask = sbx_lex_javascript,
	.prestart = &prestart,
	.samples = &samples,
};

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host);

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host)
{
	(void)host;
	return &plugin;
}
