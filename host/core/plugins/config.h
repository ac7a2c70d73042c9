/*
 * config.h - sandbox.ini (inih) plus SANDBOX_* environment overrides.
 *
 * Every problem (unknown section or key, bad value) is reported with file
 * and line and then skipped: the default stays in force and the server
 * still starts. `mcp-sandbox check-config` exits non-zero on any problem.
 * docs/config.md is the reference; sandbox.ini documents every key.
 */
#ifndef SBX_CONFIG_H
#define SBX_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include <mcp-sandbox/plugin.h>

#include "error.h"

#define CONFIG_MAX_LIST 64

/* Optional per-language values: a zero / NULL / -1 field is "not set". */
struct lang_config {
	char name[33];
	int enabled; /* -1 unset, 0, 1 */
	char *image;
	int pool_size;	   /* -1 unset */
	int pool_max_size; /* -1 unset */
	int max_uses;	   /* -1 unset */
	struct sbx_limits limits;
	uint32_t max_timeout_ms;
	uint32_t start_timeout_ms; /* 0: not set */
	uint32_t reset_timeout_ms; /* 0: not set */
	char *network;
	char *registry;	    /* the installer's registry (a mirror), or NULL */
	int blocklist_mode; /* enum blocklist_mode, -1 unset */
	int prestart;	    /* -1 unset, 0, 1 */
	/* `block` patterns (POSIX ERE), added to the plugin's rules; an
	 * empty `block =` drops the plugin's and those before it. */
	int block_clear;
	char *blocklist[CONFIG_MAX_LIST];
	size_t nblocklist;
	/* Replace the plugin's list when set. */
	int has_seccomp_deny;
	char *seccomp_deny[CONFIG_MAX_LIST];
	size_t nseccomp_deny;
	char *file; /* where the section was first seen */
	int line;
};

/* A container engine: [docker], or one [engine.NAME] section
 * (docs/scaling.md). */
struct engine_config {
	char name[33]; /* "default" for [docker] */
	char *host;    /* NULL: $DOCKER_HOST, else the default socket */
	char *tls_ca;  /* mutual TLS for tcp:// (all three or none) */
	char *tls_cert;
	char *tls_key;
	uint32_t allow_plaintext; /* tcp:// without TLS */
	uint32_t weight;	  /* placement weight, 1-1000 */
	uint32_t max_containers;  /* 0: [pool] max_containers */
	int pool_size;		  /* floor per language here; -1: [pool] */
	char *file;		  /* where the section was first seen */
	int line;
};

/* Engine sections at most. */
#define CONFIG_MAX_ENGINES 16

struct config {
	char *path; /* file read, or NULL for built-in defaults */

	/* [server] */
	int log_level; /* enum log_level */
	/* More plugin directories, comma-separated, loaded in order after
	 * the built-in one (<exe dir>/../lib/mcp-sandbox/plugins), or NULL. */
	char *plugins_dir;
	uint32_t builtin_plugins; /* load the built-in directory (default 1) */
	uint32_t max_message_bytes;
	uint32_t max_inflight; /* tools/call running at once, beyond: queued */

	/* [docker]: the engine when no [engine.NAME] section exists */
	struct engine_config docker;
	uint32_t api_timeout_ms; /* every engine's */
	/* Health probes of every engine (engines.h). */
	uint32_t probe_interval_ms;
	uint32_t probe_timeout_ms;
	uint32_t down_after; /* failed probes in a row that mark it down */
	/* [engine.NAME] sections, in the file's order: when there is one,
	 * these are the engines and [docker]'s own keys are not used. */
	struct engine_config engines[CONFIG_MAX_ENGINES];
	size_t nengines;

	/* [pool] (docs/config.md, "How the pool sizes itself") */
	uint32_t pool_size;	 /* floor: containers kept per used language */
	uint32_t pool_max_size;	 /* ceiling the pool grows to under load */
	uint32_t max_uses;	 /* executions before a container is replaced */
	uint32_t max_containers; /* all containers this server runs at once */
	/* Seconds idle before a container above the floor goes; 0 never. */
	uint32_t idle_shrink_s;
	/* MiB of containers the pool may start on its own; 0 no limit. */
	uint32_t memory_budget_mb;
	/* Warm boxes keep the next call's interpreter started, for the
	 * languages that declare one (docs/prestart.md). */
	uint32_t prestart;
	/* Languages warmed at start-up ("*" = all); the others on first use. */
	char *warm_at_start[CONFIG_MAX_LIST];
	size_t nwarm_at_start;

	/* [sessions] (docs/sessions.md) */
	uint32_t max_sessions;	    /* open sessions at once */
	uint32_t session_ttl_s;	    /* idle time before a session expires */
	uint32_t session_max_ttl_s; /* most a create/extend may ask for */
	uint32_t session_max_lifetime_s; /* hard limit from creation */
	uint32_t session_max_queued; /* calls waiting behind a running one */
	uint32_t interrupt_grace_ms; /* interrupt, then kill after this */
	/* How long a session whose container or engine went away waits for
	 * it to answer again before its name answers session_lost. */
	uint32_t session_reconnect_grace_s;
	/* How often a session's memory figure is measured, in the
	 * background (the engine takes about a second to answer). */
	uint32_t session_memory_refresh_ms;
	/* Background processes (docs/processes.md): running at once in a
	 * session (0: none may start), and the output each keeps. */
	uint32_t session_max_processes;
	uint32_t session_process_log_bytes;
	char *state_dir; /* NULL: $XDG_STATE_HOME or ~/.local/state,
			  * + /mcp-sandbox */

	/* [files] (sandbox_file_ops) */
	uint32_t files_max_read;   /* bytes one read returns at most */
	uint32_t files_max_write;  /* largest file made; 0: the /work size */
	uint32_t files_max_staged; /* sandbox_execute files, all together */
	uint32_t files_timeout_ms; /* one operation in the container */
	/* The host directory export and import may use; NULL: they are
	 * off. Made absolute at start-up. */
	char *files_host_root;

	/* [artifacts] (docs/files.md, "Artifacts and images") */
	uint32_t art_images;	   /* images shown in one result at most */
	uint32_t art_image_bytes;  /* the largest image shown */
	uint32_t art_image_px;	   /* ... and its longest side */
	uint32_t art_image_pixels; /* ... and its pixels (decoded size / 4) */
	uint32_t art_keep_bytes;   /* the largest one-off artifact kept */
	uint32_t art_keep_call;	   /* kept from one call, all together */
	uint32_t art_store_mb;	   /* the store's size; 0: nothing kept */
	uint32_t art_keep_minutes; /* how long a kept artifact lives */

	/* [snapshots] (docs/sessions.md, "Snapshots, restore and fork") */
	uint32_t snap_max_mb;	 /* one snapshot's files at most */
	uint32_t snap_total_mb;	 /* all of them; 0: no snapshots */
	uint32_t snap_keep_days; /* how long one is kept */

	/* [packages] (docs/packages.md) */
	char *pkg_network;	  /* the proxy's network; "none": no installs */
	char *pkg_volume;	  /* the cache's Docker volume */
	char *pkg_proxy_image;	  /* the egress proxy's image */
	char *pkg_upstream_proxy; /* "host:port" to chain to, or NULL */
	char *pkg_ca_bundle;	  /* PEM file handed to installers, or "none" */
	int pkg_ca_bundle_set;	  /* set in the file or environment */
	uint32_t pkg_cache_max_mb; /* the cache's size before LRU eviction */
	uint32_t pkg_timeout_ms;   /* one install's time budget */
	uint32_t pkg_disk_mb;	   /* one install's disk budget */
	uint32_t pkg_memory_mb;	   /* one install container's memory */
	/* A registry must answer the install's check within this... */
	uint32_t pkg_registry_timeout_ms;
	/* ...and one that did not is not tried again for this long. */
	uint32_t pkg_registry_retry_ms;

	/* [tasks] (docs/tasks.md) */
	uint32_t task_threshold_ms; /* a longer call becomes a task */
	uint32_t task_ttl_ms;	    /* kept this long unless asked */
	uint32_t task_max_ttl_ms;   /* the most a client may ask */
	uint32_t task_poll_ms;	    /* pollInterval suggested */
	uint32_t task_sync_ms;	    /* 2026-07-28: a task's call that ends
				     * sooner is answered as a result */
	uint32_t task_max_live;	    /* working tasks a tenant may have */
	uint32_t task_max_kept;	    /* tasks a tenant may have in all */

	/* [audit] (host/core/records/audit.h) */
	char *audit_file;      /* NULL: <state_dir>/audit.log; "none": off */
	uint32_t audit_max_kb; /* a file is rotated past this size */
	uint32_t audit_keep;   /* rotated files kept */
	uint32_t audit_store_code; /* 1: the code itself, not only its hash */

	/* [http] (docs/http.md): `serve --http` */
	char *http_listen;   /* "ADDR:PORT"; NULL: stdio only */
	char *http_tls_cert; /* PEM; with http_tls_key: HTTPS */
	char *http_tls_key;
	char *http_allowed_origins; /* comma-separated; NULL: none */
	char *http_allowed_hosts;   /* comma-separated Host names */
	char *http_tokens_file;	    /* tenants' bearer tokens; NULL: none */
	char *http_public_url; /* links' base as clients reach it, or NULL */
	uint32_t http_allow_no_auth; /* serve beyond loopback without tokens */
	uint32_t http_request_timeout_ms; /* a request's headers and body */
	uint32_t http_max_sessions;	  /* 2025-era HTTP sessions at once */
	uint32_t http_session_idle_s;	  /* ... ended after this idle */
	uint32_t http_unused_idle_s;	  /* ... if never used */
	uint32_t http_max_stateless;	  /* stateless requests at once */
	uint32_t http_max_connections;	  /* open connections at once */
	uint32_t http_link_ttl_s;	  /* signed artifact links live this */
	/* Preview links (docs/http.md): the listener that serves them
	 * ("ADDR:PORT"; NULL: none, the default), and how long one lives. */
	char *http_preview_listen;
	uint32_t http_preview_ttl_s;
	uint32_t http_heartbeat_ms; /* an idle event stream pings this often */
	/* A tenant's quotas where its line names none; 0: no limit. */
	uint32_t quota_concurrent;
	uint32_t quota_sessions;
	uint32_t quota_per_minute;
	uint32_t quota_artifact_mb;
	uint32_t quota_http_sessions; /* 2025-era HTTP sessions at once */

	/* [limits] defaults for every language */
	struct sbx_limits limits;
	uint32_t max_timeout_ms; /* cap on a per-call timeout */
	/* The most a plugin may declare (docs/plugin-abi.md): its larger
	 * figures are lowered to these; a [language] section is not. */
	uint32_t max_memory_mb;
	uint32_t max_cpu_millis;
	uint32_t max_pids;
	uint32_t max_output_cap; /* stdout_cap and stderr_cap */
	/* A sandbox_execute result's text at most, in tokens counted as 2
	 * bytes each (run_result.h); 0: streams shown whole. */
	uint32_t result_max_tokens;
	/* A new container's start and warm-up, and a session interpreter's
	 * start (python-ml imports its libraries then). */
	uint32_t start_timeout_ms;
	uint32_t reset_timeout_ms; /* a used container's reset and check */
	uint32_t max_code_bytes;
	uint32_t shm_mb;
	char *network;	    /* Docker network mode, "none" */
	int blocklist_mode; /* enum blocklist_mode (blocklist.h) */

	struct lang_config *langs;
	size_t nlangs;

	int problems; /* lines reported as bad or unknown */
};

/* Fill *cfg with built-in defaults. */
void config_init(struct config *cfg);
/* Parse path on top of what *cfg holds. Returns 0, or -ENOENT / -errno if
 * the file cannot be read (problems inside the file are not failures). */
int config_load(struct config *cfg, const char *path);
/* Apply SANDBOX_<SECTION>_<KEY> variables from envp. Language sections are
 * matched against langs[] (names with '-' are written with '_'). */
void config_apply_env(struct config *cfg, char **envp, const char *const *langs,
		      size_t nlangs);
void config_close(struct config *cfg);

/* 1 if s is a valid language name: [a-z0-9_-]{1,32}. */
int config_valid_lang_name(const char *s);

/* The engines this configuration names: the [engine.NAME] sections, else
 * [docker] alone. *n gets how many. */
const struct engine_config *config_engines(const struct config *cfg, size_t *n);

/* The [lang] section, or NULL. */
const struct lang_config *config_lang(const struct config *cfg,
				      const char *name);

/* Set one key as if read from the file (used by the env override and the
 * tests). Returns 0, or a negative code with err: -ENOENT (an unknown
 * section or key: ignored), -EINVAL (a bad value: the default is kept),
 * -ENOMEM. */
int config_set(struct config *cfg, const char *section, const char *key,
	       const char *value, struct error *err);

#endif
