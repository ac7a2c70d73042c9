/*
 * typescript.c - the TypeScript plugin.
 *
 * There is no build step by default: node runs /work/main.ts with the
 * image's preload (/opt/sbx/require.mjs), which transpiles it in that same
 * process with swc's native binding (esbuild for what swc refuses, and for
 * the wording of a syntax error) and hands node the result as an ES module
 * with an inline source map: stack traces name main.ts and its lines, and
 * the program runs as the javascript plugin runs its code. So the
 * pre-started node (docs/prestart.md) has its transpiler loaded before the
 * call, and a typescript one-off costs what a javascript one does.
 *
 * The "typecheck" option adds a build step, /opt/sbx/bin/ts-build:
 * TypeScript's native tsc with /opt/sbx/tsconfig.json (strict). A type
 * error fails it: a normal result with the diagnostics on stderr and phase
 * "build". Everything named here lives in the node image (images/node/).
 */
#include <mcp-sandbox/plugin.h>

#include "../common/js_blocklist.h"
#include <mcp-sandbox/lex.h>
#include "../common/npm_packages.h"

static const char *const aliases[] = {"ts", NULL};
static const char *const run_cmd[] = {
	"node",
	"--enable-source-maps",
	"--import=/opt/sbx/require.mjs",
	"main.ts",
	NULL,
};
static const char *const typecheck_build_cmd[] = {
	"/opt/sbx/bin/ts-build",
	NULL,
};
static const char *const env[] = {
	"npm_config_update_notifier=false",
	"npm_config_fund=false",
	"npm_config_audit=false",
	NULL,
};
/* The session interpreter (docs/session-interpreters.md): types are
 * stripped per call, not checked. */
static const char *const session_cmd[] = {
	"node",
	"--no-force-async-hooks-checks",
	"/opt/sbx/repl.mjs",
	"--typescript",
	NULL,
};
static const struct sbx_option options[] = {
	{
		.name = "typecheck",
		.description = "type-check with tsc (strict) before running; "
			       "type errors fail the build with tsc's "
			       "diagnostics on stderr",
		.build_cmd = typecheck_build_cmd,
	},
	{.name = NULL},
};

/* What check-plugin --run runs (ABI 1.7; session_fds 1.10). */
static const struct sbx_samples samples = {
	.hello = "const greeting: string = 'hello'; console.log(greeting)",
	.echo = "process.stdin.pipe(process.stdout)",
	.fail = "console.error('oops'); process.exit(3)",
	.spin = "for (;;) {}",
	.session_set = "(globalThis as any).x = 41",
	.session_get = "console.log((globalThis as any).x + 1)",
	.session_fds = "void require('node:child_process').execSync("
		       "'ls -l /proc/self/fd', { stdio: 'inherit' })",
};

/* The run step's node waits in every warm box while nothing runs, with
 * swc loaded (docs/prestart.md); after ts-build when typecheck is set. */
static const struct sbx_prestart prestart = {.handover = SBX_PRESTART_FD3};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "typescript",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "TypeScript on Node.js 24 LTS (transpiled with swc, "
		       "not type-checked unless typecheck is set)",
	.image = "mcp-sandbox/node:latest",
	.file_name = "main.ts",
	.run_cmd = run_cmd,
	.env = env,
	/* As javascript; tsc (typecheck) needs about 60 MB on top. */
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
	.options = options,
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
