/*
 * app.c - the steps the subcommands share: loading sandbox.ini and the
 * plugins, starting and closing the engines, the package caches, signals
 * (see app.h).
 */
#include "app.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/doctor.h"
#include "core/engines/engines.h"
#include "core/packages/install.h"
#include "core/packages/pkg_cache.h"
#include "core/records/artifact_store.h"
#include "core/records/snapshot_store.h"
#include "core/session/session.h"
#include "core/tenants/links.h"
#include "mcp/mcp_server.h"
#include "self.h"
#include "util/log.h"
#include "util/state_dir.h"

/* The CLI's own lines have always said "main:". */
#define LOG_MODULE "main"

extern char **environ;

/* --files-root wins over sandbox.ini and the environment; the root is
 * made absolute now, while the working directory is the one the user
 * started us in. */
static void set_files_root(struct config *cfg, const char *arg)
{
	char abs[PATH_MAX];

	if (arg) {
		free(cfg->files_host_root);
		cfg->files_host_root = strdup(arg);
	}
	if (!cfg->files_host_root || !*cfg->files_host_root)
		return;
	if (!realpath(cfg->files_host_root, abs)) {
		log_warn("files root %s: %s (export and import will fail)",
			 cfg->files_host_root, strerror(errno));
		return;
	}
	free(cfg->files_host_root);
	cfg->files_host_root = strdup(abs);
	log_info("files root for export and import: %s", abs);
}

/* The built-in directory, then plugins_dir's, each relative to the file
 * that named it (the working directory for the environment's). */
static void load_plugins(struct app *a, const char *config_path)
{
	char buf[2 * PATH_MAX + 2], dir[PATH_MAX], *list, *tok, *save = NULL;
	int rc;

	if (a->cfg.builtin_plugins && self_dir(dir, sizeof(dir)) == 0) {
		snprintf(buf, sizeof(buf), "%s/../" SBX_PLUGIN_INSTALL_DIR,
			 dir);
		rc = plugins_load_dir(&a->plugins, buf);
		if (rc)
			log_error("cannot read the built-in plugins' directory "
				  "%s: %s",
				  buf, strerror(-rc));
	}
	list = a->cfg.plugins_dir ? strdup(a->cfg.plugins_dir) : NULL;
	for (tok = list ? strtok_r(list, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		tok[strcspn(tok, " \t")] = '\0';
		if (!*tok)
			continue;
		if (tok[0] != '/' && config_path &&
		    !getenv("SANDBOX_SERVER_PLUGINS_DIR")) {
			snprintf(dir, sizeof(dir), "%s", config_path);
			snprintf(buf, sizeof(buf), "%s/%s", dirname(dir), tok);
		} else {
			snprintf(buf, sizeof(buf), "%s", tok);
		}
		rc = plugins_load_dir(&a->plugins, buf);
		if (rc)
			log_error("cannot read plugins directory %s: %s", buf,
				  strerror(-rc));
	}
	free(list);
	if (a->plugins.n == 0)
		log_error("no language plugin loaded (built-in: %s; "
			  "plugins_dir: %s)",
			  a->cfg.builtin_plugins ? "yes" : "no",
			  a->cfg.plugins_dir ? a->cfg.plugins_dir : "none");
}

int app_load(struct app *a, const char *config_arg, const char *files_root)
{
	char buf[PATH_MAX];
	const char *path = self_find_config(config_arg, buf, sizeof(buf));
	const char *names[256];
	size_t i, n = 0;
	int rc;

	config_init(&a->cfg);
	a->cfg.log_level = log_get_level();
	if (path) {
		rc = config_load(&a->cfg, path);
		if (rc) {
			log_error("cannot read %s: %s", path, strerror(-rc));
			return rc;
		}
		log_info("configuration: %s", path);
	} else {
		log_info("configuration: built-in defaults (no sandbox.ini "
			 "found)");
	}
	log_set_level(a->cfg.log_level);

	/* Which plugins there are decides which SANDBOX_<LANG>_* variables
	 * mean something, so the variables are applied after loading; the
	 * two that say where plugins are come first. */
	for (i = 0; i < 2; i++) {
		const char *var = i ? "SANDBOX_SERVER_BUILTIN_PLUGINS"
				    : "SANDBOX_SERVER_PLUGINS_DIR";
		const char *v = getenv(var);
		struct error err;

		if (v &&
		    config_set(&a->cfg, "server",
			       i ? "builtin_plugins" : "plugins_dir", v, &err))
			log_error("environment: %s='%s': %s", var, v, err.msg);
	}
	load_plugins(a, path);

	/* Environment overrides may name any language a plugin provides. */
	for (i = 0; i < a->plugins.n && n < 255; i++)
		names[n++] = a->plugins.v[i].desc->name;
	for (i = 0; i < a->cfg.nlangs && n < 255; i++)
		names[n++] = a->cfg.langs[i].name;
	config_apply_env(&a->cfg, environ, names, n);
	log_set_level(a->cfg.log_level);
	set_files_root(&a->cfg, files_root);
	return plugins_apply_config(&a->plugins, &a->cfg);
}

int app_start_engines(struct app *a)
{
	struct error err;
	int rc;

	rc = identity_init(&a->id);
	if (rc)
		return rc;
	snprintf(a->pkg_volume_label, sizeof(a->pkg_volume_label), "%s=%s",
		 INSTALL_VOLUME_ID_LABEL, a->id.instance);
	rc = engines_new(
		a->loop, &a->cfg, &a->plugins,
		&(struct engines_options){
			.labels = a->id.label_ptrs,
			.pkg_volume = strcmp(a->cfg.pkg_network, "none") != 0
					      ? a->cfg.pkg_volume
					      : NULL,
			.pkg_mount = INSTALL_MOUNT,
			.pkg_volume_label = a->pkg_volume_label,
		},
		&a->engines, &err);
	if (rc) {
		log_error("%s", err.msg);
		return rc;
	}
	app_seccomp_files(a);
	return 0;
}

void app_seccomp_files(struct app *a)
{
	char dir[PATH_MAX];
	struct error err;

	/* Podman takes seccomp profiles as files on its host (this one). */
	if (state_dir_subdir(a->cfg.state_dir, "seccomp", dir, sizeof(dir)) !=
		    0 ||
	    plugins_write_seccomp(&a->plugins, dir, &err) != 0)
		log_warn("seccomp profiles as files: %s: Podman engines "
			 "cannot start sandboxes",
			 dir);
}

void app_stop_engines(struct app *a)
{
	/* Close whatever is left so the loop can be closed cleanly. */
	for (size_t k = 0; k < CONFIG_MAX_ENGINES; k++) {
		if (a->installers[k] && a->engines &&
		    k < engines_count(a->engines))
			engine_set_installer(engines_at(a->engines, k), NULL);
		installer_free(a->installers[k]);
		a->installers[k] = NULL;
	}
	a->installer = NULL;
	if (a->engines)
		engines_close_clients(a->engines);
	uv_walk(a->loop, app_close_walk_cb, NULL);
	uv_run(a->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(a->loop) != 0)
		log_warn("event loop closed with handles still open");
}

void app_free(struct app *a)
{
	session_mgr_free(a->sessions);
	artifact_store_free(a->artifacts);
	snapshot_store_free(a->snapshots);
	for (size_t k = 0; k < CONFIG_MAX_ENGINES; k++)
		pkg_cache_close(a->pkg_caches[k]);
	engines_free(a->engines);
	mcp_server_free(a->server);
	links_free(a->links);
	plugins_close(&a->plugins);
	config_close(&a->cfg);
	free(a->code);
	free(a->stdin_data);
}

/* A set a session imports from, or a snapshot names, stays in the
 * cache. */
static int sessions_use_packages(const char *key, void *arg)
{
	struct app *a = arg;

	return (a->sessions && session_mgr_uses_packages(a->sessions, key)) ||
	       (a->snapshots &&
		snapshot_store_uses_packages(a->snapshots, key));
}

/* The package caches' indexes and the installers (docs/packages.md): one
 * each per engine, with the engine's own egress proxy and cache volume
 * (docs/scaling.md); the first engine's serve the CLI. */
void app_open_packages(struct app *a)
{
	char dir[PATH_MAX], name[64];
	size_t i, n = engines_count(a->engines);
	int rc;

	rc = state_dir_resolve(a->cfg.state_dir, dir, sizeof(dir));
	for (i = 0; !rc && i < n && i < CONFIG_MAX_ENGINES; i++) {
		struct engine *e = engines_at(a->engines, i);

		/* The first keeps the index of a server of one engine. */
		snprintf(name, sizeof(name), i ? "packages-%s" : "packages",
			 engine_name(e));
		rc = pkg_cache_open(a->loop, dir, name, &a->pkg_caches[i]);
		if (!rc)
			rc = installer_new(a->loop, engine_docker(e), &a->cfg,
					   a->id.label_ptrs, a->id.instance,
					   a->pkg_caches[i], &a->installers[i]);
		if (rc)
			break;
		engine_set_installer(e, a->installers[i]);
		if (a->sessions)
			installer_set_busy(a->installers[i],
					   sessions_use_packages, a);
	}
	a->pkg_cache = a->pkg_caches[0];
	a->installer = a->installers[0];
	if (rc)
		log_warn("package installs are unavailable%s%s: %s",
			 i ? " on engine " : "",
			 i ? engine_name(engines_at(a->engines, i)) : "",
			 strerror(-rc));
}

void app_agent_sha(struct app *a)
{
	/* Read before the loop serves anything. */
	char agent[PATH_MAX];

	if (self_agent_path(agent, sizeof(agent)) == 0)
		doctor_agent_sha(agent, a->agent_sha);
}

void app_watch_signals(struct app *a, uv_signal_cb cb)
{
	uv_signal_init(a->loop, &a->sigterm);
	uv_signal_init(a->loop, &a->sigint);
	a->sigterm.data = a->sigint.data = a;
	uv_signal_start(&a->sigterm, cb, SIGTERM);
	uv_signal_start(&a->sigint, cb, SIGINT);
}

/* The process is leaving: the signal handles go, and so does any further
 * SIGINT or SIGTERM. libuv gives them back their default action, which
 * would end the process mid-way through its last writes (the audit log's
 * stop line) when the client's next signal comes: Claude Code sends
 * SIGTERM 100 ms after SIGINT. SIGKILL stays the client's last word. */
void app_unwatch_signals(struct app *a)
{
	uv_close((uv_handle_t *)&a->sigterm, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (a->sighup_init)
		uv_close((uv_handle_t *)&a->sighup, NULL);
}

void app_signal_cb(uv_signal_t *h, int signum)
{
	struct app *a = h->data;

	log_info("signal %d: shutting down", signum);
	if (!a->stopping) {
		/* run: remove the container and exit like the signal would */
		a->stopping = 1;
		a->exit_code = 128 + signum;
		engines_shutdown(a->engines, app_pool_done_cb, a);
	}
}

void app_pool_done_cb(void *arg)
{
	struct app *a = arg;

	app_unwatch_signals(a);
	engines_close_clients(a->engines);
}

void app_close_walk_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

int app_has_flag(int argc, char **argv, const char *flag)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], flag) == 0)
			return 1;
	return 0;
}
