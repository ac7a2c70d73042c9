/*
 * cmd_serve.c - `mcp-sandbox serve [--http [ADDR:PORT]]`, the default
 * command: the server's wiring (sessions, artifacts, package caches, the
 * audit log, the tool environment, then the MCP server on stdio or over
 * HTTP) and its shutdown order.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "app.h"
#include "commands.h"
#include "core/engines/engine_checks.h"
#include "core/engines/engines.h"
#include "core/exec/executor.h"
#include "core/records/artifact_store.h"
#include "core/records/snapshot_store.h"
#include "core/records/audit.h"
#include "core/session/session.h"
#include "core/tenants/links.h"
#include "mcp/http_server.h"
#include "mcp/mcp_server.h"
#include "mcp/tasks.h"
#include "util/log.h"

/* The CLI's own lines have always said "main:". */
#define LOG_MODULE "main"
/* How long a shutdown may take before the process exits anyway. */
#define SHUTDOWN_DEADLINE_MS 20000
/* The same after a signal: the client is about to kill the server (Claude
 * Code sends SIGINT, SIGTERM 100 ms later and SIGKILL 400 ms after that),
 * so what is still awaited then (a container being created, to remove it)
 * gets this long, and the process is gone well before the SIGKILL. */
#define SIGNAL_DEADLINE_MS 250

/* serve --http [ADDR:PORT]: the address given, else [http] listen, else
 * loopback's 8808. */
static int http_listen(struct app *a, const char *addr)
{
	struct error err;

	if (!addr && !a->cfg.http_listen)
		addr = "127.0.0.1:8808";
	if (addr && config_set(&a->cfg, "http", "listen", addr, &err)) {
		log_error("--http %s: %s", addr, err.msg);
		return -EINVAL;
	}
	return 0;
}

/* serve: an engine answers for the first time (or again). The first
 * time, this server's predecessors' orphans there go, and the engine is
 * checked. */
static void engine_up_cb(struct engine *e, int first, void *arg)
{
	struct app *a = arg;

	if (!first)
		return;
	identity_reap_orphans(engine_docker(e), &a->id);
	(void)engine_checks_start(a->loop, engine_docker(e));
	cmd_doctor_log(a, engine_docker(e), engine_description(e));
}

/*
 * Shutdown (stdin EOF, SIGTERM, SIGINT), in this order: stop reading
 * requests; end the sessions' calls and keep their containers for the next
 * server; remove the pool's containers (ending the one-off calls that run
 * in them, each answered "shutting_down"); flush and close stdout; close
 * what is left so the loop ends. A deadline bounds it all: a stuck engine
 * or a client that stops reading cannot keep the process alive. After a
 * signal the pools are shut down quickly (pool_shutdown_quick: the
 * removals are sent, and only those of containers that would not end with
 * their agents are waited for) and the deadline is SIGNAL_DEADLINE_MS.
 */
static void server_closed_cb(void *arg)
{
	struct app *a = arg;

	/* Once: the deadline may have come first, then the close ends. */
	if (a->closed)
		return;
	a->closed = 1;
	uv_close((uv_handle_t *)&a->deadline, NULL);
	app_unwatch_signals(a);
	task_store_close(a->tasks);
	a->tasks = NULL;
	a->env.tasks = NULL;
	engines_close_clients(a->engines);
	if (a->audit) {
		unsigned removed = 0, pending = 0;
		cJSON *ev = cJSON_CreateObject();

		engines_shutdown_counts(a->engines, &removed, &pending);
		cJSON_AddStringToObject(ev, "event", "server_stop");
		cJSON_AddNumberToObject(ev, "containersRemoved", removed);
		audit_event(a->audit, ev);
		{
			struct audit_anchor head;

			audit_head(a->audit, &head);
			log_info("audit log: %s, head at stop %" PRIu64 ":%s",
				 audit_path(a->audit), head.seq, head.hash);
		}
		/* The loop runs until the last lines are written. */
		audit_close(a->audit, NULL, NULL);
		a->audit = NULL;
		a->env.audit = NULL;
		session_mgr_set_audit(a->sessions, NULL);
	}
	/* h2o keeps handles of its own until http_server_free(). */
	if (a->http)
		uv_stop(a->loop);
}

static void pool_done_cb(void *arg)
{
	struct app *a = arg;
	unsigned removed, pending;

	engines_shutdown_counts(a->engines, &removed, &pending);
	if (pending)
		log_info("shutdown: %u containers removed, %u more end with "
			 "their agents (their connections are closed)",
			 removed, pending);
	else
		log_info("shutdown: %u containers removed", removed);
	if (a->http)
		http_server_close(a->http, server_closed_cb, a);
	else
		mcp_server_close(a->server, server_closed_cb, a);
}

static void sessions_done_cb(void *arg)
{
	struct app *a = arg;

	if (a->quick_stop)
		engines_shutdown_quick(a->engines, pool_done_cb, a);
	else
		engines_shutdown(a->engines, pool_done_cb, a);
}

static void deadline_cb(uv_timer_t *t)
{
	struct app *a = t->data;

	unsigned removed = 0, pending = 0;

	engines_shutdown_counts(a->engines, &removed, &pending);
	/* After a signal this is the plan, not a failure. */
	log_write(a->quick_stop ? LOG_LEVEL_WARNING : LOG_LEVEL_ERROR,
		  LOG_MODULE,
		  "shutdown did not finish in %u ms: exiting anyway (%u "
		  "containers removed, %u removals unanswered: those end "
		  "with their agents when this process does)",
		  a->stop_deadline_ms, removed, pending);
	if (a->server)
		mcp_server_abort(a->server);
	server_closed_cb(a);
}

/* quick: a signal. The pools then wait only for the removals of
 * containers that would not end by themselves (pool_shutdown_quick), and
 * a stdio server's whole shutdown for SIGNAL_DEADLINE_MS at most, also
 * when it began otherwise (stdin EOF, then a signal). An HTTP server keeps
 * the long deadline: its answers in flight are sent (docs/http.md). */
static void serve_shutdown(struct app *a, int quick)
{
	if (a->stopping) {
		if (quick && !a->quick_stop && !a->http &&
		    uv_is_active((uv_handle_t *)&a->deadline)) {
			a->quick_stop = 1;
			a->stop_deadline_ms = SIGNAL_DEADLINE_MS;
			uv_timer_start(&a->deadline, deadline_cb,
				       SIGNAL_DEADLINE_MS, 0);
		}
		return;
	}
	a->stopping = 1;
	a->quick_stop = quick;
	task_store_stop(a->tasks);
	a->stop_deadline_ms =
		quick && !a->http ? SIGNAL_DEADLINE_MS : SHUTDOWN_DEADLINE_MS;
	if (a->server)
		mcp_server_stop_reading(a->server);
	if (a->http)
		http_server_stop_accepting(a->http);
	uv_timer_start(&a->deadline, deadline_cb, a->stop_deadline_ms, 0);
	session_mgr_shutdown(a->sessions, sessions_done_cb, a);
}

static void stdin_eof_cb(void *arg)
{
	serve_shutdown(arg, 0);
}

static void signal_cb(uv_signal_t *h, int signum)
{
	struct app *a = h->data;

	log_info("signal %d: shutting down", signum);
	serve_shutdown(a, 1);
}

static void sighup_cb(uv_signal_t *h, int signum)
{
	struct app *a = h->data;

	(void)signum;
	log_info("SIGHUP: reading the tokens file again");
	http_server_reload(a->http);
}

/* Only the languages warm at start get containers now; the others on their
 * first call (docs/config.md, "How the pool sizes itself"). */
static void serve_prewarm(struct app *a)
{
	size_t i;

	for (i = 0; i < a->plugins.n; i++) {
		const struct plugin *p = &a->plugins.v[i];

		log_info(
			"[%s] image %s, pool %u..%u %s, memory %u MiB, timeout "
			"%u ms%s",
			p->desc->name, p->policy.image, p->policy.pool_size,
			p->policy.pool_max_size,
			p->policy.warm_at_start ? "from start" : "on first use",
			p->policy.limits.memory_mb, p->policy.limits.timeout_ms,
			p->policy.enabled ? "" : " (disabled)");
	}
	log_info("pool: memory budget %u MiB%s, idle containers above the "
		 "floor removed after %u s%s",
		 a->cfg.memory_budget_mb,
		 a->cfg.memory_budget_mb ? "" : " (none)", a->cfg.idle_shrink_s,
		 a->cfg.idle_shrink_s ? "" : " (never)");
	engines_prewarm(a->engines);
}

/* Where one-off runs' files are kept; without it results still show
 * their images, only the other files are not kept. */
static void open_artifacts(struct app *a)
{
	struct error err;
	int rc;

	if (!a->cfg.art_store_mb)
		return;
	rc = artifact_store_open(
		a->loop, a->cfg.state_dir, (uint64_t)a->cfg.art_store_mb << 20,
		a->cfg.art_keep_minutes * 60u, &a->artifacts, &err);
	if (rc)
		log_warn("artifacts of one-off runs will not be kept: %s",
			 err.msg);
}

/* Where sessions' snapshots are kept ([snapshots]); without it the
 * snapshot actions say so. */
static void open_snapshots(struct app *a)
{
	struct snapshot_limits lim = {
		.max_bytes = (uint64_t)a->cfg.snap_max_mb << 20,
		.total_bytes = (uint64_t)a->cfg.snap_total_mb << 20,
		.keep_s = a->cfg.snap_keep_days * 86400u,
	};
	struct error err;

	if (!a->cfg.snap_total_mb)
		return;
	if (snapshot_store_open(a->loop, a->cfg.state_dir, &lim, &a->snapshots,
				&err))
		log_warn("no snapshots: %s", err.msg);
}

/* The audit log ([audit]); the server runs without one if it cannot be
 * opened, and says so. */
static void open_audit(struct app *a)
{
	struct audit_anchor head;
	struct error err;
	cJSON *ev;
	size_t i;

	if (audit_open(a->loop, &a->cfg, a->id.instance, &a->audit, &err)) {
		log_error("no audit log: %s", err.msg);
		return;
	}
	if (!a->audit) {
		log_info("audit log: off ([audit] file = none)");
		return;
	}
	/* The head as this server finds it, before its first line: beside
	 * the previous server's "at stop" line in the journal, a tail
	 * removed in between shows. */
	audit_head(a->audit, &head);
	log_info("audit log: %s, head at start %" PRIu64 ":%s",
		 audit_path(a->audit), head.seq, head.hash);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "event", "server_start");
	cJSON_AddStringToObject(ev, "version", SBX_VERSION);
	cJSON_AddNumberToObject(ev, "pid", (double)getpid());
	{
		cJSON *langs = cJSON_AddArrayToObject(ev, "languages");

		for (i = 0; i < a->plugins.n; i++)
			cJSON_AddItemToArray(
				langs,
				cJSON_CreateString(a->plugins.v[i].desc->name));
	}
	audit_event(a->audit, ev);
}

/* serve --http: the artifact links, the HTTP server, SIGHUP reloading
 * the tokens. 0, or -1 when the server cannot listen (logged). */
static int serve_http(struct app *a)
{
	char base[200];
	struct error err;
	const char *url;
	int rc;

	/* Signed links to kept artifacts (core/tenants/links.h):
	 * without them results name sandbox:// URIs only. */
	if ((a->artifacts || a->cfg.http_preview_listen) &&
	    links_open(a->cfg.state_dir, a->cfg.http_link_ttl_s, &a->links,
		       &err) != 0)
		log_warn("no artifact or preview links: %s", err.msg);
	a->env.links = a->links;
	rc = http_server_start(&a->env, &a->http, &err);
	if (rc) {
		log_error("cannot serve MCP over HTTP: %s", err.msg);
		return -1;
	}
	url = http_server_url(a->http);
	snprintf(base, sizeof(base), "%.*s",
		 (int)(strlen(url) - strlen("/mcp")), url);
	if (a->links)
		links_set_base(a->links, a->cfg.http_public_url
						 ? a->cfg.http_public_url
						 : base);
	if (a->links && http_server_preview_port(a->http)) {
		links_set_preview_port(a->links,
				       http_server_preview_port(a->http));
		log_info("preview links: http://<a session's "
			 "name>.localhost:%u/preview/...",
			 http_server_preview_port(a->http));
	}
	uv_signal_init(a->loop, &a->sighup);
	a->sighup.data = a;
	a->sighup_init = 1;
	uv_signal_start(&a->sighup, sighup_cb, SIGHUP);
	return 0;
}

static int serve(struct app *a)
{
	struct error err;
	int rc;

	rc = session_mgr_new(a->loop, a->engines, &a->plugins, &a->cfg,
			     &a->sessions);
	if (rc) {
		log_error("cannot set up sessions: %s", strerror(-rc));
		return 1;
	}
	open_artifacts(a);
	open_snapshots(a);
	app_open_packages(a);
	open_audit(a);
	a->env = (struct tool_env){
		.loop = a->loop,
		.cfg = &a->cfg,
		.plugins = &a->plugins,
		.engines = a->engines,
		.sessions = a->sessions,
		.artifacts = a->artifacts,
		.installer = a->installer,
		.pkg_cache = a->pkg_cache,
		.audit = a->audit,
		.snapshots = a->snapshots,
	};
	/* Calls kept as tasks (mcp/tasks.h): without a state directory
	 * every call stays synchronous. */
	if (task_store_open(a->loop, &a->cfg, a->cfg.state_dir, &a->tasks,
			    &err) == 0) {
		a->env.tasks = a->tasks;
		task_store_set_env(a->tasks, &a->env);
	} else {
		log_warn("no tasks: %s", err.msg);
	}
	session_mgr_set_audit(a->sessions, a->audit);
	app_watch_signals(a, signal_cb);
	engines_set_warmup(a->engines, exec_warmup);
	uv_timer_init(a->loop, &a->deadline);
	a->deadline.data = a;
	uv_unref((uv_handle_t *)&a->deadline);
	if (a->cfg.http_listen) {
		if (serve_http(a))
			return 1;
	} else {
		rc = mcp_server_start(&a->env, a->proto_fd, stdin_eof_cb, a,
				      &a->server);
		if (rc) {
			log_error("cannot start the MCP server: %s",
				  uv_strerror(rc));
			return 1;
		}
	}
	engines_on_up(a->engines, engine_up_cb, a);
	engines_start(a->engines);
	session_mgr_start(a->sessions);
	serve_prewarm(a);
	if (a->http)
		log_info("mcp-sandbox %s serving MCP at %s (%zu languages)",
			 SBX_VERSION, http_server_url(a->http), a->plugins.n);
	else
		log_info("mcp-sandbox %s serving MCP on stdio (%zu languages)",
			 SBX_VERSION, a->plugins.n);
	uv_run(a->loop, UV_RUN_DEFAULT);
	http_server_free(a->http);
	a->http = NULL;
	return 0;
}

int cmd_serve(struct app *a, int argc, char **argv)
{
	/* argv: {"--http"[, ADDR:PORT]} or nothing (cli.h) */
	const char *http_arg = argc > 1 ? argv[1] : NULL;
	int rc = a->loaded;

	if (!rc && argc > 0)
		rc = http_listen(a, http_arg);
	else if (a->cfg.http_listen) {
		/* HTTP only when asked for: a client that starts us expects
		 * MCP on stdio whatever the file says. */
		free(a->cfg.http_listen);
		a->cfg.http_listen = NULL;
	}
	/* The agent the images should carry (the doctor's checks at an
	 * engine's first answer). */
	app_agent_sha(a);
	if (rc || app_start_engines(a))
		return 1;
	rc = serve(a);
	app_stop_engines(a);
	return rc;
}
