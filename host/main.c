/*
 * main.c - mcp-sandbox entry point.
 *
 *   mcp-sandbox [--config FILE]                 MCP server on stdio
 *   mcp-sandbox serve --http [ADDR:PORT]        ... over HTTP
 * (mcp/http_server.h) mcp-sandbox run LANG (-c CODE | FILE | -)   run once,
 * print, exit with
 *                [--timeout MS] [--json]        the program's status
 *   mcp-sandbox install LANG SPEC... [--json]   install packages into the
 *                                               cache (docs/packages.md)
 *   mcp-sandbox cache list [--json] | prune     the package cache
 *   mcp-sandbox check-config                    report config problems
 *   mcp-sandbox token NAME [--file FILE]        a tenant's new token
 *   mcp-sandbox --version | --help
 *
 * Wiring only: configuration, plugins, the Docker client, the pool, then
 * either the MCP server (mcp/) or one execution (core/executor).
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>
#include <curl/curl.h>

#include "core/records/artifact_store.h"
#include "core/tenants/links.h"
#include "core/tenants/tenants.h"
#include "revision.h"
#include "core/records/audit.h"
#include "core/packages/install.h"
#include "core/packages/pkg_cache.h"
#include "core/plugins/config.h"
#include "cli/doctor.h"
#include "core/exec/executor.h"
#include "core/engines/engine_checks.h"
#include "core/engines/engines.h"
#include "core/engines/identity.h"
#include "util/log.h"
#include "core/plugins/plugins.h"
#include "cli/plugin_check.h"
#include "core/engines/pool.h"
#include "core/session/session.h"
#include "core/session/session_store.h"
#include "docker/docker.h"
#include "mcp/json_util.h"
#include "mcp/http_server.h"
#include "mcp/mcp_server.h"
#include "mcp/tools/run_result.h"
#include "mcp/tools/tools.h"
#include "mcp/transport.h"
#include <cjson/cJSON.h>

#define LOG_MODULE "main"
/* How long a shutdown may take before the process exits anyway. */
#define SHUTDOWN_DEADLINE_MS 20000
/* The same after a signal: the client is about to kill the server (Claude
 * Code sends SIGINT, SIGTERM 100 ms later and SIGKILL 400 ms after that),
 * so what is still awaited then (a container being created, to remove it)
 * gets this long, and the process is gone well before the SIGKILL. */
#define SIGNAL_DEADLINE_MS 250

#ifndef SBX_VERSION
#define SBX_VERSION "0"
#endif

extern char **environ;

struct app {
	uv_loop_t *loop;
	struct config cfg;
	struct plugin_set plugins;
	struct identity id;
	struct docker *docker; /* doctor and check-config: one engine's */
	struct engines *engines;
	struct session_mgr *sessions;
	struct tool_env env;
	struct artifact_store *artifacts;
	struct pkg_cache *pkg_cache; /* the first engine's */
	struct installer *installer; /* the first engine's */
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
	uv_timer_t deadline; /* serve: bounds the shutdown */
	int proto_fd;	     /* serve: the private copy of stdout */
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

static void usage(FILE *f)
{
	fprintf(f, "usage: mcp-sandbox [--config FILE] [--files-root DIR]\n"
		   "                                                serve MCP "
		   "on stdio\n"
		   "       mcp-sandbox serve --http [ADDR:PORT]      serve MCP "
		   "over HTTP\n"
		   "       mcp-sandbox run LANG (-c CODE | FILE | -) "
		   "[--stdin FILE] [--timeout MS] [--json] [-v]\n"
		   "       mcp-sandbox install LANG SPEC... [--json]\n"
		   "       mcp-sandbox cache list [--json] | cache prune\n"
		   "       mcp-sandbox audit verify [--anchor SEQ:HASH] "
		   "[FILE...] | audit head [FILE...]\n"
		   "       mcp-sandbox token NAME [--file FILE]\n"
		   "       mcp-sandbox blocklist LANG [FILE... | -]\n"
		   "       mcp-sandbox doctor [--json]\n"
		   "       mcp-sandbox check-config [--config FILE]\n"
		   "       mcp-sandbox check-plugin PATH.so [--run]\n"
		   "       mcp-sandbox --version\n"
		   "Environment: SANDBOX_CONFIG, SANDBOX_<SECTION>_<KEY>, "
		   "DOCKER_HOST.\n");
}

/* mcp-sandbox token NAME [--file FILE]: a new tenant, its line (the
 * token's SHA-256) appended to the tokens file ([http] tokens_file, made
 * 0600 if missing), the token itself printed once on stdout. */
static int token_cli(struct app *a, int argc, char **argv)
{
	const char *name = NULL, *file = a->cfg.http_tokens_file;
	char token[128], line[256], have[1024];
	size_t n;
	FILE *f;
	int i, fd, ok;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--file") == 0 && i + 1 < argc)
			file = argv[++i];
		else if (!name)
			name = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!name || !tenant_valid_name(name)) {
		fprintf(stderr, "token: a tenant's name is 1 to 32 characters "
				"of a-z, 0-9, '_' and '-'\n");
		return 2;
	}
	if (!file) {
		fprintf(stderr, "token: no tokens file: give --file FILE or "
				"set [http] tokens_file\n");
		return 2;
	}
	n = strlen(name);
	if ((f = fopen(file, "re"))) {
		while (fgets(have, sizeof(have), f))
			if (strncmp(have, name, n) == 0 &&
			    (have[n] == ' ' || have[n] == '\t')) {
				fclose(f);
				fprintf(stderr,
					"token: %s already names tenant %s: "
					"remove its line to give it a new "
					"token\n",
					file, name);
				return 1;
			}
		fclose(f);
	}
	if (tenant_new_token(name, token, sizeof(token), line, sizeof(line))) {
		fprintf(stderr, "token: no randomness to be had\n");
		return 1;
	}
	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	ok = fd >= 0 && write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	if (fd >= 0 && close(fd) != 0)
		ok = 0;
	if (!ok) {
		fprintf(stderr, "token: %s: %s\n", file, strerror(errno));
		return 1;
	}
	printf("%s\n", token);
	fprintf(stderr,
		"tenant %s added to %s; its token (above) is shown only now. "
		"A running server reads the file again on SIGHUP.\n",
		name, file);
	return 0;
}

/* The verdict of audit_cli, what it checked and what it could not. */
static void audit_report(const struct audit_verdict *v, size_t nfiles,
			 const char *log, char *const *files,
			 const struct audit_anchor *anchor)
{
	if (!v->ok) {
		if (v->line)
			printf("audit: the chain breaks at %s:%zu: %s\n",
			       v->file, v->line, v->reason);
		else
			printf("audit: the chain breaks at the end of %s: %s\n",
			       v->file, v->reason);
		return;
	}
	printf("audit: the chain holds: %zu lines in %zu file(s)", v->lines,
	       nfiles);
	if (v->lines)
		printf(", seq %" PRIu64 " to %" PRIu64, v->first_seq,
		       v->last_seq);
	printf("\n");
	if (!v->lines)
		return;
	if (v->start == AUDIT_START_FIRST)
		printf("audit: start: seq 1, the first line of the chain\n");
	else if (v->start == AUDIT_START_ROTATED)
		printf("audit: start: right after the last line rotated away "
		       "(seq %" PRIu64 ", as the .head records it)\n",
		       v->first_seq - 1);
	else
		printf("audit: start: not checked: %s follows seq %" PRIu64
		       " of a file not given (give the files before it, or "
		       "no FILE for the whole log)\n",
		       files[0], v->first_seq - 1);
	if (v->end_checked)
		printf("audit: end: the head the server recorded (%s.head)\n",
		       log ? log : files[nfiles - 1]);
	else
		printf("audit: end: not checked: no .head beside %s (a rotated "
		       "file; the next file checks its end); --anchor checks "
		       "a head kept elsewhere\n",
		       files[nfiles - 1]);
	if (anchor)
		printf("audit: anchor %" PRIu64
		       ": found, with the anchor's hash\n",
		       anchor->seq);
	printf("audit: head %" PRIu64 ":%s\n", v->last_seq, v->head);
}

/* mcp-sandbox audit verify [--anchor SEQ:HASH] [FILE...]: check the audit
 * log's chain (the configured log and its rotated files, oldest first,
 * anchored at both ends; or the files given, in that order, as far as they
 * allow). Exit 0 when it holds, 1 where it breaks.
 * mcp-sandbox audit head [FILE...]: print the last line's seq:hash, for
 * keeping outside the state directory. */
static int audit_cli(struct app *a, int argc, char **argv)
{
	struct audit_verdict v;
	struct audit_anchor anchor, *an = NULL;
	char path[PATH_MAX], **files = NULL;
	const char *log = NULL;
	size_t n;
	int rc, i = 1, head;

	if (argc < 1 ||
	    (strcmp(argv[0], "verify") != 0 && strcmp(argv[0], "head") != 0)) {
		usage(stderr);
		return 2;
	}
	head = strcmp(argv[0], "head") == 0;
	/* --anchor anywhere among the files (argv is ours to reorder) */
	for (int k = 1; k < argc; k++) {
		if (head || strcmp(argv[k], "--anchor") != 0) {
			argv[i++] = argv[k];
			continue;
		}
		if (k + 1 >= argc || audit_anchor_parse(argv[++k], &anchor)) {
			fprintf(stderr, "audit: --anchor takes SEQ:HASH, as "
					"`mcp-sandbox audit head` prints it "
					"(a seq from 1 and 64 hex digits)\n");
			return 2;
		}
		an = &anchor;
	}
	argc = i;
	i = 1;
	if (argc > i) {
		files = argv + i;
		n = (size_t)(argc - i);
	} else {
		if (audit_config_path(&a->cfg, path, sizeof(path))) {
			fprintf(stderr, "audit: the audit log is off "
					"([audit] file = none)\n");
			return 2;
		}
		n = audit_files(path, a->cfg.audit_keep, &files);
		if (!n) {
			fprintf(stderr, "audit: no log at %s\n", path);
			audit_files_free(files, n);
			return 2;
		}
		log = path;
	}
	if (head) {
		rc = audit_last(files, n, &anchor);
		if (rc)
			fprintf(stderr, "audit: %s\n",
				rc == -ENOENT ? "the log has no line yet"
					      : strerror(-rc));
		else
			printf("%" PRIu64 ":%s\n", anchor.seq, anchor.hash);
		if (log)
			audit_files_free(files, n);
		return rc ? 2 : 0;
	}
	rc = audit_verify(files, n,
			  &(struct audit_verify_opts){.log = log, .anchor = an},
			  &v);
	if (rc)
		fprintf(stderr, "audit: cannot read the log: %s\n",
			strerror(-rc));
	else
		audit_report(&v, n, log, files, an);
	if (log)
		audit_files_free(files, n);
	return rc ? 2 : v.ok ? 0 : 1;
}

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

/* Where the plugins and the agent are, relative to the prefix (the
 * binary's directory's parent): CMake passes the directories it installs
 * them to, and a build tree has the plugins at the same place. */
#ifndef SBX_PLUGIN_INSTALL_DIR
#define SBX_PLUGIN_INSTALL_DIR "lib/mcp-sandbox/plugins"
#endif
#ifndef SBX_AGENT_INSTALL_DIR
#define SBX_AGENT_INSTALL_DIR "libexec/mcp-sandbox"
#endif

/* Directory of the running binary, for paths relative to an install or a
 * build tree (build/bin -> build/lib/mcp-sandbox/plugins). */
static int exe_dir(char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return -1;
	path[n] = '\0';
	snprintf(buf, size, "%s", dirname(path));
	return 0;
}

static int file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Nonzero when the binary runs from its build tree. */
static int in_build_tree(void)
{
#ifdef SBX_BUILD_BIN_DIR
	char dir[PATH_MAX];

	return exe_dir(dir, sizeof(dir)) == 0 &&
	       strcmp(dir, SBX_BUILD_BIN_DIR) == 0;
#else
	return 0;
#endif
}

/* The agent the images should carry: beside the binary in a build tree
 * (build/bin/sbx-agent), else where an install puts it
 * (<prefix>/libexec/mcp-sandbox/sbx-agent). Returns -1 when neither
 * exists. */
static int agent_path(char *buf, size_t size)
{
	char dir[PATH_MAX / 2];

	if (exe_dir(dir, sizeof(dir)) != 0)
		return -1;
	snprintf(buf, size, "%s/sbx-agent", dir);
	if (file_exists(buf))
		return 0;
	snprintf(buf, size, "%s/../" SBX_AGENT_INSTALL_DIR "/sbx-agent", dir);
	return file_exists(buf) ? 0 : -1;
}

/* --config, else $SANDBOX_CONFIG, else the source tree's sandbox.ini when
 * running from its build tree, else <prefix>/etc/mcp-sandbox/sandbox.ini,
 * else /etc/mcp-sandbox/sandbox.ini, else built-in defaults. */
static const char *find_config(const char *arg, char *buf, size_t size)
{
	char dir[PATH_MAX / 2];
	const char *env = getenv("SANDBOX_CONFIG");

	if (arg)
		return arg;
	if (env && *env)
		return env;
	if (exe_dir(dir, sizeof(dir)) == 0) {
		if (in_build_tree() &&
		    file_exists(SBX_SOURCE_DIR "/sandbox.ini"))
			return SBX_SOURCE_DIR "/sandbox.ini";
		snprintf(buf, size, "%s/../etc/mcp-sandbox/sandbox.ini", dir);
		if (file_exists(buf))
			return buf;
	}
	if (file_exists("/etc/mcp-sandbox/sandbox.ini"))
		return "/etc/mcp-sandbox/sandbox.ini";
	return NULL;
}

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

	if (a->cfg.builtin_plugins && exe_dir(dir, sizeof(dir)) == 0) {
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

static int load_everything(struct app *a, const char *config_arg,
			   const char *files_root)
{
	char buf[PATH_MAX];
	const char *path = find_config(config_arg, buf, sizeof(buf));
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

static void engine_up_cb(struct engine *e, int first, void *arg);

/* The engines, their clients and pools; nothing is contacted yet. */
static int start_engines(struct app *a)
{
	char dir[PATH_MAX];
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
	/* Podman takes seccomp profiles as files on its host (this one). */
	if (session_store_subdir(a->cfg.state_dir, "seccomp", dir,
				 sizeof(dir)) != 0 ||
	    plugins_write_seccomp(&a->plugins, dir, &err) != 0)
		log_warn("seccomp profiles as files: %s: Podman engines "
			 "cannot start sandboxes",
			 dir);
	return 0;
}

/* doctor's report: printed (`mcp-sandbox doctor`), or logged (at
 * start-up: what failed or warns at warning level, the rest at info). */
/* doctor_cli's mode for check-config: only the images' problems. */
#define DOCTOR_IMAGES 2

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

static void doctor_start(struct app *a, struct docker *d, int cli)
{
	struct doctor_env env = {
		.cfg = &a->cfg,
		.plugins = &a->plugins,
		.docker = d,
		.in_tree = in_build_tree(),
	};
	char dir[PATH_MAX / 2], script[PATH_MAX];

	if (env.in_tree)
		env.build_images = SBX_SOURCE_DIR "/scripts/build-images.sh";
	else if (exe_dir(dir, sizeof(dir)) == 0) {
		snprintf(script, sizeof(script),
			 "%s/../share/mcp-sandbox/scripts/build-images.sh",
			 dir);
		if (realpath(script, a->build_images))
			env.build_images = a->build_images;
	}
	memcpy(env.agent_sha, a->agent_sha, sizeof(env.agent_sha));
	a->doctor_cli = cli;
	if (doctor_run(&env, doctor_report_cb, a) != 0)
		log_error("doctor: out of memory");
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
	doctor_start(a, engine_docker(e), 0);
}

static void close_walk_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* ---- serve ---- */

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
static void unwatch_signals(struct app *a);

static void server_closed_cb(void *arg)
{
	struct app *a = arg;

	/* Once: the deadline may have come first, then the close ends. */
	if (a->closed)
		return;
	a->closed = 1;
	uv_close((uv_handle_t *)&a->deadline, NULL);
	unwatch_signals(a);
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

static void run_pool_done_cb(void *arg);

static void signal_cb(uv_signal_t *h, int signum)
{
	struct app *a = h->data;

	log_info("signal %d: shutting down", signum);
	if (a->server || a->http) {
		serve_shutdown(a, 1);
	} else if (!a->stopping) {
		/* run: remove the container and exit like the signal would */
		a->stopping = 1;
		a->exit_code = 128 + signum;
		engines_shutdown(a->engines, run_pool_done_cb, a);
	}
}

static void sighup_cb(uv_signal_t *h, int signum)
{
	struct app *a = h->data;

	(void)signum;
	log_info("SIGHUP: reading the tokens file again");
	http_server_reload(a->http);
}

static void watch_signals(struct app *a)
{
	uv_signal_init(a->loop, &a->sigterm);
	uv_signal_init(a->loop, &a->sigint);
	a->sigterm.data = a->sigint.data = a;
	uv_signal_start(&a->sigterm, signal_cb, SIGTERM);
	uv_signal_start(&a->sigint, signal_cb, SIGINT);
}

/* The process is leaving: the signal handles go, and so does any further
 * SIGINT or SIGTERM. libuv gives them back their default action, which
 * would end the process mid-way through its last writes (the audit log's
 * stop line) when the client's next signal comes: Claude Code sends
 * SIGTERM 100 ms after SIGINT. SIGKILL stays the client's last word. */
static void unwatch_signals(struct app *a)
{
	uv_close((uv_handle_t *)&a->sigterm, NULL);
	uv_close((uv_handle_t *)&a->sigint, NULL);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	if (a->sighup_init)
		uv_close((uv_handle_t *)&a->sighup, NULL);
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

static int sessions_use_packages(const char *key, void *arg)
{
	return session_mgr_uses_packages(arg, key);
}

/* The package caches' indexes and the installers (docs/packages.md): one
 * each per engine, with the engine's own egress proxy and cache volume
 * (docs/scaling.md); the first engine's serve the CLI. */
static void open_packages(struct app *a)
{
	char dir[PATH_MAX], name[64];
	size_t i, n = engines_count(a->engines);
	int rc;

	rc = session_store_dir(a->cfg.state_dir, dir, sizeof(dir));
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
					   sessions_use_packages, a->sessions);
	}
	a->pkg_cache = a->pkg_caches[0];
	a->installer = a->installers[0];
	if (rc)
		log_warn("package installs are unavailable%s%s: %s",
			 i ? " on engine " : "",
			 i ? engine_name(engines_at(a->engines, i)) : "",
			 strerror(-rc));
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

static int serve(struct app *a)
{
	int rc;

	rc = session_mgr_new(a->loop, a->engines, &a->plugins, &a->cfg,
			     &a->sessions);
	if (rc) {
		log_error("cannot set up sessions: %s", strerror(-rc));
		return 1;
	}
	open_artifacts(a);
	open_packages(a);
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
	};
	session_mgr_set_audit(a->sessions, a->audit);
	watch_signals(a);
	engines_set_warmup(a->engines, exec_warmup);
	uv_timer_init(a->loop, &a->deadline);
	a->deadline.data = a;
	uv_unref((uv_handle_t *)&a->deadline);
	if (a->cfg.http_listen) {
		char why[512], base[200];
		struct error err;
		const char *url;

		/* Signed links to kept artifacts (core/tenants/links.h):
		 * without them results name sandbox:// URIs only. */
		if (a->artifacts &&
		    links_open(a->cfg.state_dir, a->cfg.http_link_ttl_s,
			       &a->links, &err) != 0)
			log_warn("no artifact links: %s", err.msg);
		a->env.links = a->links;
		rc = http_server_start(&a->env, &a->http, why, sizeof(why));
		if (rc) {
			log_error("cannot serve MCP over HTTP: %s", why);
			return 1;
		}
		url = http_server_url(a->http);
		snprintf(base, sizeof(base), "%.*s",
			 (int)(strlen(url) - strlen("/mcp")), url);
		if (a->links)
			links_set_base(a->links,
				       a->cfg.http_public_url
					       ? a->cfg.http_public_url
					       : base);
		uv_signal_init(a->loop, &a->sighup);
		a->sighup.data = a;
		a->sighup_init = 1;
		uv_signal_start(&a->sighup, sighup_cb, SIGHUP);
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

/* ---- run (one-shot CLI) ---- */

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void run_pool_done_cb(void *arg)
{
	struct app *a = arg;

	unwatch_signals(a);
	engines_close_clients(a->engines);
}

static void run_negotiated_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	if (res->err && res->err != -ECANCELED)
		log_debug("API version negotiation failed: %s",
			  res->errmsg ? res->errmsg : "?");
}

static void run_done_cb(const struct error *err, const struct exec_outcome *o,
			void *arg)
{
	struct app *a = arg;

	if (a->stopping)
		return; /* a signal ended it: exit with 128 + signal */
	if (err) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n",
			tool_error_code(err->code), err->msg);
		a->exit_code = 125;
	} else if (a->json) {
		/* One JSON object: the MCP tool's result, built by the same
		 * function. */
		cJSON *r = run_result_json(o, NULL);
		char *text = r ? cJSON_PrintUnformatted(r) : NULL;

		if (text)
			puts(text);
		free(text);
		cJSON_Delete(r);
		a->exit_code = o->exited ? o->exit_code : 128 + o->signal;
	} else {
		fflush(stdout);
		write_all(1, o->out, o->out_len);
		write_all(2, o->err, o->err_len);
		for (size_t k = 0; k < o->nblocklist; k++)
			fprintf(stderr,
				"mcp-sandbox: blocklist: line %u, column %u: "
				"%s (`%s`)\n",
				o->blocklist[k].line, o->blocklist[k].column,
				o->blocklist[k].rule->reason,
				o->blocklist[k].match);
		if (o->timed_out)
			fprintf(stderr, "mcp-sandbox: timed out after %u ms\n",
				o->duration_ms);
		a->exit_code = o->exited ? o->exit_code : 128 + o->signal;
	}
	fflush(stdout);
	if (!a->stopping) {
		a->stopping = 1;
		engines_shutdown(a->engines, run_pool_done_cb, a);
	}
}

/* The whole of path ("-": stdin) into *out (NUL-terminated), 64 MiB at
 * most. */
static int read_source(const char *path, char **out, size_t *out_len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 65536, n, len = 0;
	char *buf;

	if (!f) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *p = cap > (64u << 20) ? NULL
						    : realloc(buf, cap * 2 + 1);

			if (!p) {
				fprintf(stderr,
					"mcp-sandbox: %s is too large\n", path);
				free(buf);
				if (f != stdin)
					fclose(f);
				return -1;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!buf)
		return -1;
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

/* mcp-sandbox blocklist LANG [FILE...]: what the language's blocklist
 * (plugin rules and sandbox.ini's, through the plugin's lexer) finds in
 * each file (stdin without one), one line a match, as a compiler prints
 * them. Exit 0 when nothing matches, 1 when something does, 2 on error.
 * Needs no engine: for trying rules and patterns on code. */
static int blocklist_cli(struct app *a, int argc, char **argv)
{
	char *stdin_only[] = {"-", NULL};
	const struct plugin *pl;
	int found = 0;

	if (argc < 1) {
		usage(stderr);
		return 2;
	}
	pl = plugins_find(&a->plugins, argv[0]);
	if (!pl) {
		fprintf(stderr, "blocklist: no language '%s'\n", argv[0]);
		return 2;
	}
	printf("%s: blocklist = %s, %zu rule(s)\n", pl->desc->name,
	       blocklist_mode_name(pl->policy.blocklist.mode),
	       pl->policy.blocklist.n);
	for (char **f = argc > 1 ? argv + 1 : stdin_only; *f; f++) {
		struct blocklist_hit h[BLOCKLIST_MAX_HITS];
		int n;

		free(a->code);
		a->code = NULL;
		a->code_len = 0;
		if (read_source(*f, &a->code, &a->code_len))
			return 2;
		n = blocklist_scan(&pl->policy.blocklist, a->code, a->code_len,
				   h, BLOCKLIST_MAX_HITS);
		if (n < 0) {
			fprintf(stderr, "blocklist: out of memory\n");
			return 2;
		}
		for (int k = 0; k < n; k++)
			printf("%s:%u:%u: %s (`%s`)\n", *f, h[k].line,
			       h[k].column, h[k].rule->reason, h[k].match);
		found |= n > 0;
	}
	return found;
}

/* mcp-sandbox doctor [--json]: every check (cli/doctor.h), each with
 * its fix; exit 0 when the server can run here, 1 when not. loaded: what
 * loading sandbox.ini and the plugins returned (a refused configuration
 * is a failed check, not an early exit). */
/* Runs the doctor's checks on the loop until they end, engine after
 * engine (mode: 1 prints the report, DOCTOR_IMAGES only the images'
 * problems; with several engines each report is headed by its engine's
 * name, one JSON array a line with --json); a->exit_code is the worst.
 * 0, or -1 when a Docker client cannot be made. */
static int doctor_run_cli(struct app *a, int mode)
{
	size_t i, n;
	const struct engine_config *ec = config_engines(&a->cfg, &n);
	int worst = 0;
	struct error err;

	for (i = 0; i < n; i++) {
		if (n > 1 && !a->json)
			fprintf(mode == DOCTOR_IMAGES ? stderr : stdout,
				"%sengine %s\n", i ? "\n" : "", ec[i].name);
		if (engine_client(a, i, &err) != 0) {
			fprintf(stderr, "doctor: engine %s: %s\n", ec[i].name,
				err.msg);
			return -1;
		}
		docker_negotiate(a->docker, run_negotiated_cb, a);
		a->exit_code = 1;
		doctor_start(a, a->docker, mode);
		uv_run(a->loop, UV_RUN_DEFAULT);
		docker_free(a->docker);
		a->docker = NULL;
		uv_walk(a->loop, close_walk_cb, NULL);
		uv_run(a->loop, UV_RUN_DEFAULT);
		if (a->exit_code > worst)
			worst = a->exit_code;
	}
	a->exit_code = worst;
	return 0;
}

static int doctor_cli(struct app *a, int loaded, int argc, char **argv)
{
	for (int k = 0; k < argc; k++) {
		if (strcmp(argv[k], "--json") == 0) {
			a->json = 1;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (loaded)
		fprintf(stderr, "doctor: sandbox.ini or the plugins were "
				"refused (see above): the server would not "
				"start\n");
	if (doctor_run_cli(a, 1) != 0)
		return 1;
	return loaded ? 1 : a->exit_code;
}

static int run_once(struct app *a, int argc, char **argv)
{
	const char *lang = NULL, *src = NULL, *inline_code = NULL,
		   *stdin_file = NULL;
	struct exec_request req;
	const struct plugin *pl;
	unsigned long timeout = 0;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			inline_code = argv[++i];
		else if (strcmp(argv[i], "--stdin") == 0 && i + 1 < argc)
			stdin_file = argv[++i];
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			timeout = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--json") == 0)
			a->json = 1;
		else if (strcmp(argv[i], "-v") == 0)
			continue;
		else if (!lang)
			lang = argv[i];
		else if (!src)
			src = argv[i];
		else {
			usage(stderr);
			return 2;
		}
	}
	if (!lang || (!inline_code && !src)) {
		usage(stderr);
		return 2;
	}
	pl = plugins_find(&a->plugins, lang);
	if (!pl || !pl->policy.enabled) {
		fprintf(stderr, "mcp-sandbox: unknown language '%s'\n", lang);
		return 2;
	}
	if (inline_code) {
		a->code = strdup(inline_code);
		a->code_len = strlen(inline_code);
	} else if (read_source(src, &a->code, &a->code_len)) {
		return 2;
	}
	if (stdin_file &&
	    read_source(stdin_file, &a->stdin_data, &a->stdin_len))
		return 2;
	engines_set_refill(a->engines, 0);
	watch_signals(a);
	req = (struct exec_request){
		.pl = pl,
		.code = a->code,
		.code_len = a->code_len,
		.stdin_data = a->stdin_data,
		.stdin_len = a->stdin_len,
		.timeout_ms = (uint32_t)timeout,
	};
	a->exit_code = 125;
	if (exec_start(a->loop, a->engines, &req, run_done_cb, a, &a->job))
		return 125;
	uv_run(a->loop, UV_RUN_DEFAULT);
	return a->exit_code;
}

/* ---- install, cache (one-shot CLI, docs/packages.md) ---- */

static int has_flag(int argc, char **argv, const char *flag)
{
	int i;

	for (i = 0; i < argc; i++)
		if (strcmp(argv[i], flag) == 0)
			return 1;
	return 0;
}

static void cli_finish(struct app *a)
{
	if (!a->stopping) {
		a->stopping = 1;
		engines_shutdown(a->engines, run_pool_done_cb, a);
	}
}

static void cli_progress_cb(const char *text, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s%s", text,
		*text && text[strlen(text) - 1] == '\n' ? "" : "\n");
}

static void cli_installed_cb(const struct error *err,
			     const struct install_result *res, void *arg)
{
	struct app *a = arg;
	cJSON *o;
	const cJSON *p;
	char *text;

	if (err) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n",
			tool_error_code(err->code), err->msg);
		a->exit_code = 1;
		cli_finish(a);
		return;
	}
	o = tool_packages_json(res);
	if (a->json) {
		text = o ? cJSON_PrintUnformatted(o) : NULL;
		if (text)
			puts(text);
		free(text);
	} else {
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(o, "packages"))
			printf("%s %s%s (%.0f bytes)\n",
			       cJSON_GetObjectItem(p, "name")->valuestring,
			       cJSON_GetObjectItem(p, "version")->valuestring,
			       cJSON_IsTrue(cJSON_GetObjectItem(p, "requested"))
				       ? ""
				       : ", a dependency",
			       cJSON_GetObjectItem(p, "bytes")->valuedouble);
		printf("%s set %.12s: %s in %.2f s\n", res->entry->lang,
		       res->entry->key, res->cached ? "cached" : "installed",
		       res->seconds);
	}
	cJSON_Delete(o);
	a->exit_code = 0;
	cli_finish(a);
}

static void cli_pruned_cb(const struct error *err, size_t sets, uint64_t bytes,
			  void *arg)
{
	struct app *a = arg;

	if (err) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n",
			tool_error_code(err->code), err->msg);
		a->exit_code = 1;
	} else {
		printf("removed %zu package set(s), %llu bytes\n", sets,
		       (unsigned long long)bytes);
		a->exit_code = 0;
	}
	cli_finish(a);
}

static int cache_list(struct app *a)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	struct pkg_entry *e;
	char *text;
	size_t i;

	cJSON_AddStringToObject(o, "volume", a->cfg.pkg_volume);
	cJSON_AddNumberToObject(o, "bytes",
				(double)pkg_cache_bytes(a->pkg_cache));
	cJSON_AddNumberToObject(
		o, "maxBytes",
		(double)((uint64_t)a->cfg.pkg_cache_max_mb << 20));
	arr = cJSON_AddArrayToObject(o, "sets");
	for (i = 0; (e = pkg_cache_at(a->pkg_cache, i)); i++) {
		cJSON_AddItemToArray(arr, pkg_entry_json(e));
		if (!a->json) {
			char *specs = cJSON_PrintUnformatted(e->specs);

			printf("%.12s  %-10s %10llu  %s\n", e->key, e->lang,
			       (unsigned long long)e->bytes,
			       specs ? specs : "");
			free(specs);
		}
	}
	if (a->json) {
		text = cJSON_PrintUnformatted(o);
		if (text)
			puts(text);
		free(text);
	} else {
		printf("%zu set(s), %llu of %llu bytes, volume %s\n", i,
		       (unsigned long long)pkg_cache_bytes(a->pkg_cache),
		       (unsigned long long)a->cfg.pkg_cache_max_mb << 20,
		       a->cfg.pkg_volume);
	}
	cJSON_Delete(o);
	return 0;
}

static int packages_cli(struct app *a, const char *cmd, int argc, char **argv)
{
	struct install_specs specs;
	const struct plugin *pl;
	cJSON *arr;
	struct error err;
	int i, rc;

	a->json = has_flag(argc, argv, "--json");
	open_packages(a);
	if (!a->installer)
		return 1;
	if (strcmp(cmd, "cache") == 0) {
		if (argc >= 1 && strcmp(argv[0], "list") == 0)
			return cache_list(a);
		if (argc != 1 || strcmp(argv[0], "prune") != 0) {
			usage(stderr);
			return 2;
		}
		rc = installer_prune(a->installer, cli_pruned_cb, a, &err);
	} else {
		if (argc < 2) {
			usage(stderr);
			return 2;
		}
		pl = plugins_find(&a->plugins, argv[0]);
		if (!pl || !pl->policy.enabled) {
			fprintf(stderr, "mcp-sandbox: unknown language '%s'\n",
				argv[0]);
			return 2;
		}
		arr = cJSON_CreateArray();
		for (i = 1; i < argc; i++)
			if (strcmp(argv[i], "--json") != 0 &&
			    strcmp(argv[i], "-v") != 0)
				cJSON_AddItemToArray(
					arr, cJSON_CreateString(argv[i]));
		rc = install_specs_parse(pl, arr, &specs, &err);
		cJSON_Delete(arr);
		if (!rc)
			rc = installer_install(a->installer, pl, NULL, &specs,
					       cli_progress_cb,
					       cli_installed_cb, a, NULL, &err);
		install_specs_free(&specs);
	}
	if (rc) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n", tool_error_code(rc),
			err.msg);
		return rc == ERR_INVALID_PACKAGE ? 2 : 1;
	}
	engines_set_refill(a->engines, 0);
	watch_signals(a);
	a->exit_code = 1;
	uv_run(a->loop, UV_RUN_DEFAULT);
	return a->exit_code;
}

/*
 * Debian's libcurl links librtmp, which links GnuTLS, whose load-time
 * constructor initializes the library and its crypto back ends although
 * this program never uses TLS: about 0.8 MiB of resident memory for
 * nothing. GnuTLS skips that when GNUTLS_NO_IMPLICIT_INIT is set at load
 * time, so the process re-executes itself once with it set. If the
 * re-exec fails, it simply carries on.
 */
static void skip_gnutls_init(char **argv)
{
	if (getenv("GNUTLS_NO_IMPLICIT_INIT"))
		return;
	if (setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 1) != 0)
		return;
	execv("/proc/self/exe", argv);
}

/* libuv's thread pool does one job here, writing the sessions' state file
 * (core/session/session_store.c): one thread does it, where the default four
 * would each cost resident memory. A value the user set is kept. */
static void small_threadpool(void)
{
	setenv("UV_THREADPOOL_SIZE", "1", 0);
}

int main(int argc, char **argv)
{
	static struct app app;
	struct app *a = &app;
	const char *config_arg = NULL, *files_root = NULL, *http_arg = NULL;
	const char *cmd = "serve";
	int serve_http = 0;
	char **sub;
	int i, rc, first = 1, quiet, nsub = 0;

	small_threadpool();
	skip_gnutls_init(argv);
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			config_arg = argv[++i];
		} else if (strcmp(argv[i], "--http") == 0 &&
			   strcmp(cmd, "serve") == 0) {
			/* [ADDR:PORT]; else [http] listen */
			serve_http = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				http_arg = argv[++i];
		} else if (strcmp(argv[i], "--files-root") == 0 &&
			   i + 1 < argc) {
			files_root = argv[++i];
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("mcp-sandbox %s (revision %s, plugin ABI "
			       "%d.%d)\n",
			       SBX_VERSION, SBX_REVISION, SBX_PLUGIN_ABI_MAJOR,
			       SBX_PLUGIN_ABI_MINOR);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 ||
			   strcmp(argv[i], "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (first && (strcmp(argv[i], "run") == 0 ||
				     strcmp(argv[i], "serve") == 0 ||
				     strcmp(argv[i], "install") == 0 ||
				     strcmp(argv[i], "cache") == 0 ||
				     strcmp(argv[i], "audit") == 0 ||
				     strcmp(argv[i], "token") == 0 ||
				     strcmp(argv[i], "blocklist") == 0 ||
				     strcmp(argv[i], "doctor") == 0 ||
				     strcmp(argv[i], "check-plugin") == 0 ||
				     strcmp(argv[i], "check-config") == 0)) {
			cmd = argv[i];
			first = 0;
			if (strcmp(cmd, "run") == 0 ||
			    strcmp(cmd, "install") == 0 ||
			    strcmp(cmd, "cache") == 0 ||
			    strcmp(cmd, "audit") == 0 ||
			    strcmp(cmd, "token") == 0 ||
			    strcmp(cmd, "doctor") == 0 ||
			    strcmp(cmd, "check-plugin") == 0 ||
			    strcmp(cmd, "blocklist") == 0) {
				i++;
				break;
			}
		} else {
			usage(stderr);
			return 2;
		}
	}
	/* The global options may also follow the subcommand (mcp-sandbox
	 * run python --config x.ini -c ...), up to a "--". */
	sub = calloc((size_t)(argc - i) + 1, sizeof(*sub));
	if (!sub)
		return 1;
	for (int k = i, dashes = 0; k < argc; k++) {
		dashes |= strcmp(argv[k], "--") == 0;
		if (!dashes && strcmp(argv[k], "--config") == 0 && k + 1 < argc)
			config_arg = argv[++k];
		else if (!dashes && strcmp(argv[k], "--files-root") == 0 &&
			 k + 1 < argc)
			files_root = argv[++k];
		else
			sub[nsub++] = argv[k];
	}

	if (strcmp(cmd, "check-plugin") == 0) {
		/* The plugin alone, without the configured ones. */
		char self[PATH_MAX];
		ssize_t len =
			readlink("/proc/self/exe", self, sizeof(self) - 1);

		if (nsub < 1 || len < 0 ||
		    (nsub > 1 && strcmp(sub[1], "--run") != 0)) {
			usage(stderr);
			free(sub);
			return 2;
		}
		self[len] = '\0';
		if (!has_flag(nsub, sub, "-v"))
			log_set_level(LOG_LEVEL_WARNING);
		rc = plugin_check(sub[0], has_flag(nsub, sub, "--run"), self);
		free(sub);
		return rc;
	}
	if (strcmp(cmd, "serve") == 0) {
		/* Before anything can print (plugins' init hooks included). */
		a->proto_fd = transport_guard_stdout();
		if (a->proto_fd < 0) {
			fprintf(stderr,
				"mcp-sandbox: cannot set up stdout: %s\n",
				strerror(-a->proto_fd));
			free(sub);
			return 1;
		}
	}
	/* Plain HTTP over a unix socket or TCP: no TLS to initialize, which
	 * also keeps OpenSSL's pages out of the server's resident set. */
	curl_global_init(CURL_GLOBAL_NOTHING);
	a->loop = uv_default_loop();
	/* A one-shot run prints the program's output; keep our own lines to
	 * warnings unless -v was given. */
	quiet = (strcmp(cmd, "run") == 0 || strcmp(cmd, "cache") == 0 ||
		 strcmp(cmd, "audit") == 0 || strcmp(cmd, "blocklist") == 0 ||
		 strcmp(cmd, "token") == 0 || strcmp(cmd, "doctor") == 0) &&
		!has_flag(nsub, sub, "-v");
	if (quiet)
		log_set_level(LOG_LEVEL_WARNING);
	rc = load_everything(a, config_arg, files_root);
	if (!rc && serve_http && strcmp(cmd, "serve") == 0)
		rc = http_listen(a, http_arg);
	else if (strcmp(cmd, "serve") == 0 && a->cfg.http_listen) {
		/* HTTP only when asked for: a client that starts us expects
		 * MCP on stdio whatever the file says. */
		free(a->cfg.http_listen);
		a->cfg.http_listen = NULL;
	}
	if (strcmp(cmd, "serve") == 0 || strcmp(cmd, "doctor") == 0) {
		/* The agent the images should carry (doctor), read before
		 * the loop serves anything. */
		char agent[PATH_MAX];

		if (agent_path(agent, sizeof(agent)) == 0)
			doctor_agent_sha(agent, a->agent_sha);
	}
	if (strcmp(cmd, "check-config") == 0) {
		if (!rc)
			check_cpus(a);
		/* The images the languages name, when an engine answers. */
		if (!rc && a->plugins.n)
			doctor_run_cli(a, DOCTOR_IMAGES);
		fprintf(stderr,
			"%s: %d problem(s), %zu plugin(s) loaded, %zu "
			"rejected, %d image(s) missing%s\n",
			a->cfg.path ? a->cfg.path : "defaults",
			a->cfg.problems + (rc ? 1 : 0), a->plugins.n,
			a->plugins.rejected, a->image_problems,
			rc ? "; the server would not start (see above)" : "");
		rc = rc || a->cfg.problems || a->plugins.rejected ||
				     a->image_problems
			     ? 1
			     : 0;
		goto out;
	}
	if (!rc && strcmp(cmd, "audit") == 0) {
		rc = audit_cli(a, nsub, sub);
		goto out;
	}
	if (strcmp(cmd, "token") == 0) {
		rc = rc ? 2 : token_cli(a, nsub, sub);
		goto out;
	}
	if (strcmp(cmd, "blocklist") == 0) {
		rc = rc ? 2 : blocklist_cli(a, nsub, sub);
		goto out;
	}
	if (strcmp(cmd, "doctor") == 0) {
		rc = doctor_cli(a, rc, nsub, sub);
		goto out;
	}
	if (rc || start_engines(a)) {
		rc = 1;
		goto out;
	}
	if (strcmp(cmd, "run") == 0) {
		engines_start(a->engines);
		rc = run_once(a, nsub, sub);
	} else if (strcmp(cmd, "install") == 0 || strcmp(cmd, "cache") == 0) {
		engines_start(a->engines);
		rc = packages_cli(a, cmd, nsub, sub);
	} else {
		rc = serve(a);
	}
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
	uv_walk(a->loop, close_walk_cb, NULL);
	uv_run(a->loop, UV_RUN_DEFAULT);
	if (uv_loop_close(a->loop) != 0)
		log_warn("event loop closed with handles still open");
out:
	session_mgr_free(a->sessions);
	artifact_store_free(a->artifacts);
	for (size_t k = 0; k < CONFIG_MAX_ENGINES; k++)
		pkg_cache_close(a->pkg_caches[k]);
	engines_free(a->engines);
	mcp_server_free(a->server);
	links_free(a->links);
	plugins_close(&a->plugins);
	config_close(&a->cfg);
	free(a->code);
	free(a->stdin_data);
	free(sub);
	curl_global_cleanup();
	return rc;
}
