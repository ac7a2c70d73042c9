/*
 * python.c - the CPython plugin.
 *
 * Runs /work/main.py with Debian's python3. -u keeps stdout unbuffered so
 * output written just before a timeout or crash still reaches the host;
 * -B avoids writing .pyc files into the work directory.
 */
#include <mcp-sandbox/plugin.h>

#include <mcp-sandbox/lex.h>
#include "../common/pip_packages.h"
#include "../common/python_blocklist.h"
#include "../common/python_samples.h"

static const char *const aliases[] = {"py", "python3", NULL};
static const char *const run_cmd[] = {"python3", "-u", "-B", "{file}", NULL};
static const char *const env[] = {
	"PYTHONDONTWRITEBYTECODE=1",
	"PYTHONIOENCODING=utf-8",
	"MPLBACKEND=Agg",
	NULL,
};
/* The session interpreter (docs/session-interpreters.md). */
static const char *const session_cmd[] = {
	"python3", "-u", "-B", "/opt/sbx/repl.py", NULL,
};

/* The next one-off call's python waits in every warm box, started with
 * run_cmd itself (docs/prestart.md); images/python/sitecustomize.py holds
 * the code that waits. */
static const struct sbx_prestart prestart = {.handover = SBX_PRESTART_FD3};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "python",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "CPython 3.11 with numpy, pandas, scipy, matplotlib, "
		       "openpyxl, reportlab",
	.image = "mcp-sandbox/python:latest",
	.file_name = "main.py",
	.run_cmd = run_cmd,
	.env = env,
	.limits =
		{
			.memory_mb = 512,
			.pids = 128,
		},
	.ml_variant = "python-ml",
	.session_cmd = session_cmd,
	PIP_PACKAGE_FIELDS,
	.blocklist = python_blocklist,
	.lex_mask = sbx_lex_python,
	.prestart = &prestart,
	.samples = &python_samples,
	/* The last line of an uncaught ImportError of a module that is not
	 * there at all (a missing submodule names its whole path, so
	 * "sklearn.foo" does not match): when python-ml has it, the result
	 * gets a hint (ABI 1.9). */
	.missing_module = "ModuleNotFoundError: No module named "
			  "'([A-Za-z0-9_]+)'",
};

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host);

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host)
{
	(void)host;
	return &plugin;
}
