/*
 * python_ml.c - CPython with numpy, pandas, scipy, scikit-learn,
 * matplotlib, seaborn and torch (CPU), all from Debian bookworm.
 *
 * Chosen with "language": "python-ml", or "python" with "ml": true (the
 * python plugin's ml_variant). Importing torch, pandas and sklearn costs
 * about two seconds, so the image ships a fork server
 * (images/python-ml/forkserver.py, installed as /opt/sbx/zygote): the agent
 * starts it once per container and every execution is a fresh forked
 * child of the already-imported interpreter, re-seeded and sandboxed like
 * any other run (docs/agent-protocol.md, "Fork server"). run_cmd is what
 * that child runs, read the way python3 would read it.
 *
 * The thread counts keep numpy/torch from starting pools of a size the
 * container's CPU share does not have; the fork server also relies on no
 * pool existing before fork(). MPLCONFIGDIR must be writable (the root
 * filesystem is read-only) and receives the font list built into the
 * image, so matplotlib neither rescans fonts nor warns.
 */
#include <mcp-sandbox/plugin.h>

#include <mcp-sandbox/lex.h>
#include "../common/pip_packages.h"
#include "../common/python_blocklist.h"
#include "../common/python_samples.h"

static const char *const aliases[] = {"python_ml", NULL};
static const char *const run_cmd[] = {"python3", "-u", "-B", "{file}", NULL};
static const char *const env[] = {
	"PYTHONDONTWRITEBYTECODE=1",
	"PYTHONIOENCODING=utf-8",
	"MPLBACKEND=Agg",
	"MPLCONFIGDIR=/tmp/matplotlib",
	"OMP_NUM_THREADS=1",
	"OPENBLAS_NUM_THREADS=1",
	"MKL_NUM_THREADS=1",
	NULL,
};
/* The libraries the session interpreter imports before the first call:
 * the fork server's list (images/python-ml/forkserver.py). */
static const char preload[] =
	"numpy,numpy.random,pandas,scipy,scipy.stats,sklearn,"
	"sklearn.linear_model,matplotlib,matplotlib.pyplot,seaborn,torch,"
	"torch.nn";
/* The session interpreter (docs/session-interpreters.md). */
static const char *const session_cmd[] = {
	"python3", "-u", "-B", "/opt/sbx/repl.py", "--preload", preload, NULL,
};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "python-ml",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "CPython 3 with numpy, pandas, scipy, scikit-learn, "
		       "matplotlib (Agg), seaborn and torch (CPU), "
		       "pre-imported",
	.image = "mcp-sandbox/python-ml:latest",
	.file_name = "main.py",
	.run_cmd = run_cmd,
	.env = env,
	.limits =
		{
			/* The pre-imported server alone holds about 300 MiB. */
			.memory_mb = 2048,
			.pids = 256,
		},
	/* Starts the fork server (and its imports, about 2 s) when the
	 * container joins the pool, not on somebody's first call. */
	.warmup_code = "pass\n",
	.session_cmd = session_cmd,
	/* pip as in python (the image has python's pip and pkgtool.py). A
	 * one-off run with packages has PYTHONPATH in its environment, so
	 * the agent restarts the fork server with it (its imports again);
	 * a session's interpreter has imported the preload list before it
	 * sees the packages' paths (docs/packages.md). */
	.install_cmd = install_cmd,
	.package_ecosystem = "pypi",
	.manifest_cmd = manifest_cmd,
	.registry_cmd = registry_cmd,
	.registry_env = registry_env,
	.install_env = install_env,
	.package_path = "",
	.package_env = package_env,
	.blocklist = python_blocklist,
	.lex_mask = sbx_lex_python,
	.samples = &python_samples,
};

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host);

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host)
{
	(void)host;
	return &plugin;
}
