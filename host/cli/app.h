/*
 * app.h - one run of the mcp-sandbox binary: the state its subcommands
 * share (configuration, plugins, engines, the serve-only parts) and the
 * steps more than one of them takes. One struct app a process, owned by
 * cli_run(); a subcommand's handler (commands.h) fills what it uses and
 * app_free() frees what was made.
 */
#ifndef SBX_CLI_APP_H
#define SBX_CLI_APP_H

#include <limits.h>
#include <stddef.h>
#include <uv.h>

#include "cli.h"
#include "core/engines/identity.h"
#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "mcp/tools/tools.h"

struct task_store;

struct app {
	uv_loop_t *loop;
	struct config cfg;
	struct plugin_set plugins;
	int loaded; /* app_load's result: nonzero, sandbox.ini was refused */
	struct identity id;
	struct docker *docker; /* doctor and check-config: one engine's */
	struct engines *engines;
	struct session_mgr *sessions;
	struct tool_env env;
	struct artifact_store *artifacts;
	struct snapshot_store *snapshots; /* NULL: none kept */
	struct pkg_cache *pkg_cache;	  /* the first engine's */
	struct installer *installer;	  /* the first engine's */
	struct pkg_cache *pkg_caches[CONFIG_MAX_ENGINES];
	struct installer *installers[CONFIG_MAX_ENGINES];
	struct audit *audit;
	char pkg_volume_label[96]; /* INSTALL_VOLUME_ID_LABEL=<instance> */
	struct mcp_server *server; /* serve on stdio */
	struct http_server *http;  /* serve --http */
	struct links *links;	   /* its signed artifact links */
	uv_signal_t sigterm, sigint;
	uv_signal_t sighup; /* serve --http: reload the tokens */
	int sighup_init;
	uv_timer_t deadline;	  /* serve: bounds the shutdown */
	struct task_store *tasks; /* serve: calls kept as tasks */
	int proto_fd;		  /* serve: the private copy of stdout */
	int exit_code;
	int stopping;
	int quick_stop; /* a signal: pools are shut down quickly */
	int closed;	/* server_closed_cb ran */
	unsigned stop_deadline_ms;
	/* run mode */
	char *code;
	size_t code_len;
	char *stdin_data; /* run --stdin */
	size_t stdin_len;
	int json;
	struct exec_job *job;
	int doctor_cli;	    /* doctor's report is printed, not logged */
	int image_problems; /* check-config: images missing */
	char agent_sha[65]; /* the agent beside the binary, or "" */
	char build_images[PATH_MAX]; /* doctor's fixes: the image script */
};

/* sandbox.ini (--config, else where self_find_config looks), the plugins,
 * the SANDBOX_* variables, --files-root. 0, or nonzero when the server
 * would not start (the reason logged). */
int app_load(struct app *a, const char *config_arg, const char *files_root);

/* The engines, their clients and pools; nothing is contacted yet. */
int app_start_engines(struct app *a);
/* The plugins' seccomp profiles as files in the state directory, which
 * Podman engines take (a warning when they cannot be written). */
void app_seccomp_files(struct app *a);
/* After app_start_engines and the command's loop: the installers and
 * the engines' clients closed, every handle closed, the loop closed. */
void app_stop_engines(struct app *a);
/* Everything the commands made; the struct itself is the caller's. */
void app_free(struct app *a);

/* The package caches' indexes and the installers, one each per engine;
 * the first engine's are a->pkg_cache and a->installer (NULL when they
 * could not be made: a warning says why). */
void app_open_packages(struct app *a);

/* a->agent_sha: the agent the images should carry (serve, doctor). */
void app_agent_sha(struct app *a);

/* SIGTERM and SIGINT call cb (h->data is a) until app_unwatch_signals. */
void app_watch_signals(struct app *a, uv_signal_cb cb);
void app_unwatch_signals(struct app *a);
/* A one-shot command's signal (run, install, cache): the engines shut
 * down (the container is removed) and the exit status is 128 + signum. */
void app_signal_cb(uv_signal_t *h, int signum);
/* engines_shutdown's callback for a one-shot command: the process can
 * end once the loop empties. arg: the app. */
void app_pool_done_cb(void *arg);
/* uv_walk callback: closes each handle not already closing. */
void app_close_walk_cb(uv_handle_t *h, void *arg);

/* Nonzero when flag is one of argv's argc arguments. */
int app_has_flag(int argc, char **argv, const char *flag);

#endif
