/*
 * cmd_check.c - the commands that check instead of serving: `mcp-sandbox
 * doctor` (the checks of cli/doctor.h, engine after engine, printed),
 * `check-config` (sandbox.ini, the plugins and their images) and
 * `check-plugin` (cli/plugin_check.h); also the same checks logged when
 * a serving engine first answers (cmd_doctor_log).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "app.h"
#include "commands.h"
#include "cli/doctor.h"
#include "cli/plugin_check.h"
#include "core/packages/install.h"
#include "core/packages/pkg_cache.h"
#include "docker/docker.h"
#include "util/state_dir.h"
#include "self.h"
#include "util/log.h"

/* The CLI's own lines have always said "main:". */
#define LOG_MODULE "main"

/* doctor_run_cli's mode for check-config: only the images' problems. */
#define DOCTOR_IMAGES 2

/* check-config asks no engine for its CPU count; a cpu_millis above this
 * host's is worth a warning (an engine here has as many; a remote one may
 * have more). The server gives containers at most their engine's count. */
static void check_cpus(const struct app *a)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	for (size_t i = 0; n > 0 && i < a->plugins.n; i++) {
		const struct plugin *pl = &a->plugins.v[i];

		if (pl->policy.enabled &&
		    pl->policy.limits.cpu_millis > (unsigned long)n * 1000)
			log_warn("[%s] cpu_millis %u is more than this host's "
				 "%ld CPUs: an engine here gives its "
				 "containers %ld; set cpu_millis to at most "
				 "%ld",
				 pl->desc->name, pl->policy.limits.cpu_millis,
				 n, n * 1000, n * 1000);
	}
}

/* A client for the configured engine number i (doctor's). */
static int engine_client(struct app *a, size_t i, struct error *err)
{
	size_t n;
	const struct engine_config *e = config_engines(&a->cfg, &n) + i;
	struct docker_options o = {
		.host = e->host,
		.tls_ca = e->tls_ca,
		.tls_cert = e->tls_cert,
		.tls_key = e->tls_key,
		.allow_plaintext = (int)e->allow_plaintext,
	};

	return docker_new(a->loop, &o, &a->docker, err);
}

/* check-config's view of one doctor check: a missing image is a problem,
 * another agent build in one a warning (as in doctor), and without an
 * engine the images go unchecked. */
static void image_problem(struct app *a, const char *check, const char *status,
			  const char *detail, const cJSON *fix)
{
	if (strcmp(check, "engine") == 0 && strcmp(status, "ok") != 0)
		fprintf(stderr, "images: not checked, no engine answers (%s)\n",
			detail);
	if (strncmp(check, "image ", 6) != 0 || strcmp(status, "ok") == 0)
		return;
	fprintf(stderr, "%s%s: %s%s%s%s\n",
		strcmp(status, "fail") ? "warning: " : "", check, detail,
		cJSON_IsString(fix) ? " (fix: " : "",
		cJSON_IsString(fix) ? fix->valuestring : "",
		cJSON_IsString(fix) ? ")" : "");
	a->image_problems += strcmp(status, "fail") == 0;
}

/* doctor's report: printed (`mcp-sandbox doctor`), or logged (at
 * start-up: what failed or warns at warning level, the rest at info). */
static void doctor_report_cb(const struct error *err, cJSON *report, int ok,
			     void *arg)
{
	struct app *a = arg;
	const cJSON *r;

	if (err) {
		log_error("doctor: %s", err->msg);
		a->exit_code = 1;
		return;
	}
	if (a->doctor_cli == 1 && a->json) {
		char *text = cJSON_PrintUnformatted(report);

		if (text)
			puts(text);
		free(text);
	}
	cJSON_ArrayForEach(r, report)
	{
		const char *check = cJSON_GetObjectItemCaseSensitive(r, "check")
					    ->valuestring;
		const char *status =
			cJSON_GetObjectItemCaseSensitive(r, "status")
				->valuestring;
		const char *detail =
			cJSON_GetObjectItemCaseSensitive(r, "detail")
				->valuestring;
		const cJSON *fix = cJSON_GetObjectItemCaseSensitive(r, "fix");

		if (a->doctor_cli == DOCTOR_IMAGES)
			image_problem(a, check, status, detail, fix);
		else if (a->doctor_cli && !a->json)
			printf("%-4s  %-16s %s%s%s\n", status, check, detail,
			       cJSON_IsString(fix)
				       ? "\n                       fix: "
				       : "",
			       cJSON_IsString(fix) ? fix->valuestring : "");
		else if (!a->doctor_cli && strcmp(status, "ok") == 0)
			log_info("doctor: %s: %s", check, detail);
		else if (!a->doctor_cli)
			log_warn("doctor: %s %s: %s%s%s", check, status, detail,
				 cJSON_IsString(fix) ? " (fix: " : "",
				 cJSON_IsString(fix) ? fix->valuestring : "");
	}
	if (a->doctor_cli == 1) {
		if (!a->json)
			printf("%s\n", ok ? "the server can run here"
					  : "the server cannot run as it is: "
					    "see fail above");
		fflush(stdout);
		a->exit_code = ok ? 0 : 1;
	}
	cJSON_Delete(report);
}

static void doctor_start(struct app *a, struct docker *d, const cJSON *desc,
			 int cli, struct installer *in)
{
	struct doctor_env env = {
		.cfg = &a->cfg,
		.plugins = &a->plugins,
		.docker = d,
		.desc = desc,
		.in_tree = self_in_build_tree(),
		.installer = in,
	};

	if (self_build_images(a->build_images) == 0)
		env.build_images = a->build_images;
	memcpy(env.agent_sha, a->agent_sha, sizeof(env.agent_sha));
	a->doctor_cli = cli;
	if (doctor_run(&env, doctor_report_cb, a) != 0)
		log_error("doctor: out of memory");
}

void cmd_doctor_log(struct app *a, struct docker *d, const struct cJSON *desc)
{
	doctor_start(a, d, desc, 0, NULL);
}

static void negotiated_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	if (res->err && res->err != -ECANCELED)
		log_debug("API version negotiation failed: %s",
			  res->errmsg ? res->errmsg : "?");
}

/* The doctor's installer on engine i, with the index that engine's
 * installer uses (read for the registries found before; a check writes
 * nothing to it), or NULL (installs off, no state directory: the check
 * says nothing). */
static struct installer *doctor_installer(struct app *a, size_t i,
					  const char *engine,
					  struct pkg_cache **cache)
{
	struct installer *in = NULL;
	char dir[PATH_MAX], name[80];

	*cache = NULL;
	if (strcmp(a->cfg.pkg_network, "none") == 0 ||
	    (!a->id.instance[0] && identity_init(&a->id) != 0) ||
	    state_dir_resolve(a->cfg.state_dir, dir, sizeof(dir)) != 0)
		return NULL;
	snprintf(name, sizeof(name), i ? "packages-%s" : "packages", engine);
	if (pkg_cache_open(a->loop, dir, name, cache) != 0)
		return NULL;
	if (installer_new(a->loop, a->docker, &a->cfg, a->id.label_ptrs,
			  a->id.instance, *cache, &in) != 0) {
		pkg_cache_close(*cache);
		*cache = NULL;
		return NULL;
	}
	return in;
}

/* Runs the doctor's checks on the loop until they end, engine after
 * engine (mode: 1 prints the report, DOCTOR_IMAGES only the images'
 * problems; with several engines each report is headed by its engine's
 * name, one JSON array a line with --json); a->exit_code is the worst.
 * registries: also check each installer's registries. 0, or -1 when a
 * Docker client cannot be made. */
static int doctor_run_cli(struct app *a, int mode, int registries)
{
	size_t i, n;
	const struct engine_config *ec = config_engines(&a->cfg, &n);
	int worst = 0;
	struct error err;
	struct installer *in;
	struct pkg_cache *cache;

	for (i = 0; i < n; i++) {
		if (n > 1 && !a->json)
			fprintf(mode == DOCTOR_IMAGES ? stderr : stdout,
				"%sengine %s\n", i ? "\n" : "", ec[i].name);
		if (engine_client(a, i, &err) != 0) {
			fprintf(stderr, "doctor: engine %s: %s\n", ec[i].name,
				err.msg);
			return -1;
		}
		docker_negotiate(a->docker, negotiated_cb, a);
		a->exit_code = 1;
		in = registries ? doctor_installer(a, i, ec[i].name, &cache)
				: NULL;
		doctor_start(a, a->docker, NULL, mode, in);
		uv_run(a->loop, UV_RUN_DEFAULT);
		installer_free(in);
		pkg_cache_close(in ? cache : NULL);
		docker_free(a->docker);
		a->docker = NULL;
		uv_walk(a->loop, app_close_walk_cb, NULL);
		uv_run(a->loop, UV_RUN_DEFAULT);
		if (a->exit_code > worst)
			worst = a->exit_code;
	}
	a->exit_code = worst;
	return 0;
}

/* mcp-sandbox doctor [--json]: every check (cli/doctor.h), each with
 * its fix; exit 0 when the server can run here, 1 when not. loaded: what
 * loading sandbox.ini and the plugins returned (a refused configuration
 * is a failed check, not an early exit). */
int cmd_doctor(struct app *a, int argc, char **argv)
{
	int loaded = a->loaded;

	int registries = 1;

	/* The agent the images should carry, read before the loop runs. */
	app_agent_sha(a);
	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--json") == 0) {
			a->json = 1;
		} else if (strcmp(argv[k], "--no-registries") == 0) {
			registries = 0;
		} else {
			cli_usage(stderr);
			return 2;
		}
	}
	if (loaded)
		fprintf(stderr, "doctor: sandbox.ini or the plugins were "
				"refused (see above): the server would not "
				"start\n");
	if (registries && !loaded)
		app_seccomp_files(a);
	if (doctor_run_cli(a, 1, registries && !loaded) != 0)
		return 1;
	return loaded ? 1 : a->exit_code;
}

/* mcp-sandbox check-config [--config FILE]: what sandbox.ini and the
 * plugins would do to a server, and whether the images they name are
 * there; exit 1 on any problem. */
int cmd_check_config(struct app *a, int argc, char **argv)
{
	int rc = a->loaded;

	(void)argc;
	(void)argv;
	if (!rc)
		check_cpus(a);
	/* The images the languages name, when an engine answers. */
	if (!rc && a->plugins.n)
		doctor_run_cli(a, DOCTOR_IMAGES, 0);
	fprintf(stderr,
		"%s: %d problem(s), %zu plugin(s) loaded, %zu "
		"rejected, %d image(s) missing%s\n",
		a->cfg.path ? a->cfg.path : "defaults",
		a->cfg.problems + (rc ? 1 : 0), a->plugins.n,
		a->plugins.rejected, a->image_problems,
		rc ? "; the server would not start (see above)" : "");
	rc = rc || a->cfg.problems || a->plugins.rejected || a->image_problems
		     ? 1
		     : 0;
	return rc;
}

/* mcp-sandbox check-plugin PATH.so [--run]: the plugin alone, without
 * the configured ones (a is NULL: CLI_NO_CONFIG). */
int cmd_check_plugin(struct app *a, int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], builtin[PATH_MAX + 64];
	char script[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	struct kit_paths where = {0};

	(void)a;
	if (argc < 1 || len < 0 ||
	    (argc > 1 && strcmp(argv[1], "--run") != 0)) {
		cli_usage(stderr);
		return 2;
	}
	self[len] = '\0';
	where.self = self;
	if (self_dir(dir, sizeof(dir)) == 0) {
		snprintf(builtin, sizeof(builtin),
			 "%s/../" SBX_PLUGIN_INSTALL_DIR, dir);
		where.builtin = builtin;
	}
	if (self_build_images(script) == 0)
		where.build_images = script;
	if (!app_has_flag(argc, argv, "-v"))
		log_set_level(LOG_LEVEL_WARNING);
	return plugin_check(argv[0], app_has_flag(argc, argv, "--run"), &where);
}
