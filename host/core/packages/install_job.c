/*
 * install_job.c - an install that is not in the cache: a job, which
 * install.c starts once the request's image id, the package volume and
 * its key are known (install_internal.h). The job runs these steps, each
 * the callback of the one before:
 *
 *   network -> hand-over and socket volumes
 *   (tmpfs, made together) -> install box (the language's image,
 *   sandbox limits, no network, the cache read-only; then the forwarder
 *   in its loopback, install_proxy.h) and, once the registries are
 *   known, the egress proxy at the same time -> registries (sandbox.ini's
 *   mirror, or what the image's installer is configured with; then the
 *   proxy, allowing those hosts only) -> probe (the key stored already?)
 *   -> install (into the hand-over volume, the disk budget) -> manifest
 *   -> store (a root helper copies the set into the cache under a
 *   temporary name, renames it to the key, evicts) -> proxy log ->
 *   remove the containers (the forwarder before the install box), then
 *   the volumes -> answer every request waiting for this key
 *   (install_job_end()).
 *
 * Every step that fails ends the job the same way (job_fail): containers
 * removed, nothing in the volume but what a finished rename put there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "docker/container.h"
#include "docker/network.h"
#include "install_internal.h"
#include "install_proxy.h"
#include "pkg_volume.h"
#include "registry_check.h"
#include "util/log.h"

#define LOG_MODULE "install"

#define MAX_ARGS (PKG_MAX_SPECS + 32)
/* The steps besides the install itself (registries, manifest, finish). */
#define STEP_TIMEOUT_MS 60000

static void progress(struct job *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void progress(struct job *j, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_debug("%.12s: %s", j->key, buf);
	for (i = 0; i < j->nw; i++)
		if (j->w[i]->progress)
			j->w[i]->progress(buf, j->w[i]->arg);
}

static void volume_removed_cb(const struct error *err, void *arg)
{
	struct job *j = arg;

	if (err)
		log_warn("removing an install's volume: %s", err->msg);
	if (--j->removing == 0)
		install_job_end(j);
}

/* The hand-over and socket volumes, both at once, then the end. */
static void volumes_remove(struct job *j)
{
	j->removing = 1;
	if (j->scratch[0] && !j->scratch_gone) {
		j->scratch_gone = 1;
		if (volume_remove(j->in->d, j->scratch, volume_removed_cb, j) ==
		    0)
			j->removing++;
	}
	if (j->sock[0] && !j->sock_gone) {
		j->sock_gone = 1;
		if (volume_remove(j->in->d, j->sock, volume_removed_cb, j) == 0)
			j->removing++;
	}
	volume_removed_cb(NULL, j);
}

static void removed_cb(const struct error *err, const char *id, void *arg)
{
	struct job *j = arg;

	(void)err;
	(void)id;
	if (--j->removing > 0)
		return;
	/* The volumes last: the containers held them. */
	volumes_remove(j);
}

static void box_remove(struct job *j)
{
	if (j->box_id[0] &&
	    container_remove(j->in->d, j->box_id, removed_cb, j) == 0)
		j->removing++;
}

static void fwd_removed_cb(const struct error *err, const char *id, void *arg)
{
	struct job *j = arg;

	box_remove(j);
	removed_cb(err, id, j);
}

/* The proxy, and the forwarder before the install container: Podman
 * refuses to remove a container whose network namespace another one
 * uses ("has dependent containers", even with force), Docker does not
 * mind; the volumes once all three are gone. */
static void job_cleanup(struct job *j)
{
	if (j->ac) {
		agent_client_close(j->ac);
		j->ac = NULL;
	}
	j->removing = 1;
	if (j->proxy_id[0] &&
	    container_remove(j->in->d, j->proxy_id, removed_cb, j) == 0)
		j->removing++;
	if (j->fwd_id[0] &&
	    container_remove(j->in->d, j->fwd_id, fwd_removed_cb, j) == 0)
		j->removing++;
	else
		box_remove(j);
	removed_cb(NULL, NULL, j);
}

/* Append a proxy's log (an array, taken) to the job's connections. */
static void connections_add(struct job *j, cJSON *more)
{
	cJSON *c;

	if (!more)
		return;
	if (!j->connections) {
		j->connections = more;
		return;
	}
	while ((c = cJSON_DetachItemFromArray(more, 0)))
		cJSON_AddItemToArray(j->connections, c);
	cJSON_Delete(more);
}

/* "registry unreachable: <what>", then what to set for this language,
 * then (when not NULL) what the installer said, into out. */
static void unreachable_msg(const struct job *j, const char *what,
			    const char *then, char *out, size_t size)
{
	char advice[600];

	registry_advice(j->pl->desc->name, j->pl->policy.registry,
			j->in->upstream, advice, sizeof(advice));
	snprintf(out, size,
		 "registry unreachable: %s\n%s's installer needs it: %s.%s%s",
		 what, j->pl->desc->name, advice, then ? "\n" : "",
		 then ? then : "");
}

/* A failed installer's message, said again with what the proxy's log
 * and its output tell first: a registry the proxy could not reach (an
 * allowed request it answered with a 5xx: its own error, then named, or
 * the upstream's; a client that went away is logged with the status it
 * had, not one of these), or a certificate the installer did not trust. */
static void explain_failure(struct job *j)
{
	char first[600] = "", was[ERROR_MSG_MAX], msg[ERROR_MSG_MAX + 600];
	size_t used = 0, bad = 0;
	const cJSON *c;

	cJSON_ArrayForEach(c, j->connections)
	{
		const cJSON *h = cJSON_GetObjectItemCaseSensitive(c, "host");
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "port");
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(c, "status");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(c, "error");
		int status = cJSON_IsNumber(st) ? st->valueint : 0;

		if (!cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(c, "allowed")) ||
		    !cJSON_IsString(h) || status < 500 ||
		    used >= sizeof(first) || bad >= 3)
			continue;
		used += (size_t)snprintf(
			first + used, sizeof(first) - used,
			"%s%s:%d: answered %d through the egress proxy%s%s%s",
			bad++ ? "; " : "", h->valuestring,
			cJSON_IsNumber(p) ? p->valueint : 0, status,
			cJSON_IsString(e) ? " (its error: " : "",
			cJSON_IsString(e) ? e->valuestring : "",
			cJSON_IsString(e) ? ")" : "");
	}
	memcpy(was, j->err.msg, sizeof(was));
	if (bad) {
		unreachable_msg(j, first, was, msg, sizeof(msg));
		j->unreachable = 1;
	} else if (registry_tls_untrusted(j->tail)) {
		snprintf(msg, sizeof(msg),
			 "registry TLS failure: %s's installer did not trust "
			 "a registry's certificate (a network that intercepts "
			 "TLS?): set [packages] ca_bundle = the PEM file of "
			 "its CA (SANDBOX_PACKAGES_CA_BUNDLE)%s.\n%s",
			 j->pl->desc->name,
			 j->in->ca ? "; the bundle given now does not have it"
				   : "",
			 was);
	} else {
		return;
	}
	error_set_msg(&j->err, ERR_REGISTRY_UNREACHABLE, msg);
}

static void logs_cb(const struct error *err, const char *text, size_t len,
		    void *arg)
{
	struct job *j = arg;
	unsigned refused = 0;

	if (!err)
		connections_add(j, pkg_proxy_log_json(text, len, &refused));
	if (j->failed && refused && j->connections) {
		size_t used = strlen(j->err.msg);
		const cJSON *c;

		j->egress_refused = 1;
		snprintf(j->err.msg + used, sizeof(j->err.msg) - used,
			 "\nthe egress proxy refused:");
		cJSON_ArrayForEach(c, j->connections)
		{
			const cJSON *ok =
				cJSON_GetObjectItemCaseSensitive(c, "allowed");
			const cJSON *h =
				cJSON_GetObjectItemCaseSensitive(c, "host");
			const cJSON *p =
				cJSON_GetObjectItemCaseSensitive(c, "port");

			used = strlen(j->err.msg);
			if (!cJSON_IsFalse(ok) || !cJSON_IsString(h))
				continue;
			snprintf(j->err.msg + used, sizeof(j->err.msg) - used,
				 " %s:%d", h->valuestring,
				 cJSON_IsNumber(p) ? p->valueint : 0);
		}
	} else if (j->failed && j->err.code == ERR_INSTALL_FAILED) {
		explain_failure(j);
	}
	job_cleanup(j);
}

/* The job is over (failed or not): read the proxy's log, then clean up. */
static void job_finish(struct job *j)
{
	if (j->proxy_id[0] &&
	    container_logs(j->in->d, j->proxy_id, logs_cb, j) == 0)
		return;
	job_cleanup(j);
}

static void job_fail(struct job *j, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_fail(struct job *j, int code, const char *fmt, ...)
{
	va_list ap;

	if (!j->failed) {
		va_start(ap, fmt);
		error_vset(&j->err, code, fmt, ap);
		va_end(ap);
		j->failed = 1;
		log_info("%s: install of %.12s failed: %s", j->pl->desc->name,
			 j->key, j->err.msg);
	}
	/* One of two chains starting together: the other one finishes. */
	if (j->parallel) {
		if (--j->starting > 0)
			return;
		j->parallel = 0;
	}
	job_finish(j);
}

/* ---- containers ---- */

/* This server's labels and org.mcp-sandbox.role=<role>, into out (24). */
static const char *const *role_labels(const struct installer *in,
				      const char *role, char *buf, size_t size,
				      const char **out)
{
	size_t i;

	for (i = 0; i < in->nlabels && i < 20; i++)
		out[i] = in->labels[i];
	snprintf(buf, size, "org.mcp-sandbox.role=%s", role);
	out[i++] = buf;
	out[i] = NULL;
	return out;
}

struct helper {
	struct installer *in;
	helper_done_fn done;
	void *arg;
	int output;
	char id[80];
	char *out; /* its stdout, when asked for */
	size_t out_len;
	struct error err;
	int failed;
};

static void helper_end(struct helper *h)
{
	h->done(h->failed ? &h->err : NULL, h->failed ? NULL : h->out,
		h->out_len, h->arg);
	free(h->out);
	free(h);
}

static void helper_removed_cb(const struct error *err, const char *id,
			      void *arg)
{
	(void)err;
	(void)id;
	helper_end(arg);
}

static void helper_remove(struct helper *h)
{
	if (container_remove(h->in->d, h->id, helper_removed_cb, h))
		helper_end(h);
}

static void helper_logs_cb(const struct error *err, const char *text,
			   size_t len, void *arg)
{
	struct helper *h = arg;

	if (err) {
		h->failed = 1;
		error_set(&h->err, ERR_INSTALL_FAILED, "reading its output: %s",
			  err->msg);
	} else if (!(h->out = malloc(len + 1))) {
		h->failed = 1;
		error_set(&h->err, -ENOMEM, NULL);
	} else {
		memcpy(h->out, text, len);
		h->out[len] = '\0';
		h->out_len = len;
	}
	helper_remove(h);
}

static void helper_waited_cb(const struct error *err, int status, void *arg)
{
	struct helper *h = arg;

	if (err || status != 0) {
		h->failed = 1;
		if (err)
			error_set_msg(&h->err, ERR_INSTALL_FAILED, err->msg);
		else
			error_set(&h->err, ERR_INSTALL_FAILED,
				  "it exited with status %d", status);
	}
	/* Its log is read before it is removed (a service container is
	 * not removed by the engine as it exits). */
	if (!h->failed && h->output &&
	    container_logs(h->in->d, h->id, helper_logs_cb, h) == 0)
		return;
	if (!h->failed && h->output) {
		h->failed = 1;
		error_set(&h->err, ERR_INSTALL_FAILED,
			  "its output could not be read");
	}
	helper_remove(h);
}

static void helper_started_cb(const struct error *err, const char *id,
			      void *arg)
{
	struct helper *h = arg;

	if (err) {
		h->failed = 1;
		error_set_msg(&h->err, ERR_INSTALL_FAILED, err->msg);
		helper_end(h);
		return;
	}
	snprintf(h->id, sizeof(h->id), "%s", id);
	if (container_wait(h->in->d, id, helper_waited_cb, h))
		helper_waited_cb(NULL, -1, h);
}

int install_run_helper(struct installer *in, const struct install_helper *hs,
		       helper_done_fn done, void *arg)
{
	const struct container_mount mounts[] = {
		{in->cfg->pkg_volume, INSTALL_MOUNT, hs->volume_ro,
		 in->volume_labels},
		{hs->scratch, SCRATCH_MOUNT, 1, NULL},
		{NULL, NULL, 0, NULL},
	};
	const char *labels[24];
	char role_buf[64];
	struct container_spec spec = {
		.image = hs->image,
		.labels = role_labels(in, hs->role, role_buf, sizeof(role_buf),
				      labels),
		.memory_mb = 256,
		.cpu_millis = 1000,
		.pids = 16,
		.nofile = 256,
		.fsize_mb = in->cfg->pkg_disk_mb, /* it copies a whole set */
		.tmp_mb = 1,
		.shm_mb = 1,
		.network = "none",
		.mounts = mounts,
		.service = 1,
		.user = hs->user,
		.caps = hs->caps,
		.entrypoint = hs->argv,
		.seccomp = in->seccomp,
		.seccomp_file = in->seccomp_file,
	};
	struct helper *h = calloc(1, sizeof(*h));
	int rc;

	if (!h)
		return -ENOMEM;
	h->in = in;
	h->done = done;
	h->arg = arg;
	h->output = hs->output;
	rc = container_run(in->d, &spec, helper_started_cb, h);
	if (rc)
		free(h);
	return rc;
}

/* ---- running a step in the install box ---- */

typedef void (*step_fn)(struct job *j, const struct agent_exec_result *r);

struct step {
	struct job *j;
	step_fn next;
	const char *what;
};

/* Keep the last TAIL_MAX bytes of the output in j->tail. */
static void tail_add(struct job *j, const char *p, size_t n)
{
	size_t have = strlen(j->tail);

	if (n >= TAIL_MAX) {
		memcpy(j->tail, p + n - TAIL_MAX, TAIL_MAX);
		j->tail[TAIL_MAX] = '\0';
		return;
	}
	if (have + n > TAIL_MAX) {
		memmove(j->tail, j->tail + (have + n - TAIL_MAX), TAIL_MAX - n);
		have = TAIL_MAX - n;
	}
	memcpy(j->tail + have, p, n);
	j->tail[have + n] = '\0';
}

/* The tail for a person: from its first whole line (when it was cut),
 * with one of pip's retry warnings, which repeat one error five times. */
static void tail_trim(const char *tail, char *out, size_t size)
{
	const char *p = tail, *nl;
	size_t o = 0;
	int retries = 0;

	if (strlen(tail) >= TAIL_MAX && (nl = strchr(tail, '\n')))
		p = nl + 1;
	out[0] = '\0';
	while (*p && o + 1 < size) {
		size_t n = strcspn(p, "\n");

		size_t line = n + (p[n] == '\n');

		if (!memmem(p, n, "Retrying (Retry(", 16) || !retries++) {
			size_t k = line < size - 1 - o ? line : size - 1 - o;

			memcpy(out + o, p, k);
			o += k;
			out[o] = '\0';
		}
		p += line;
	}
}

static void step_output_cb(const char *out, size_t out_len, const char *err,
			   size_t err_len, void *arg)
{
	struct step *s = arg;
	char line[400];

	if (out_len)
		tail_add(s->j, out, out_len);
	if (err_len)
		tail_add(s->j, err, err_len);
	snprintf(line, sizeof(line), "%.*s%.*s",
		 (int)(out_len > 190 ? 190 : out_len), out,
		 (int)(err_len > 190 ? 190 : err_len), err);
	if (line[0])
		progress(s->j, "%s", line);
}

static void step_done_cb(struct agent_client *ac, const struct error *err,
			 const struct agent_exec_result *res, void *arg)
{
	struct step *s = arg;
	struct job *j = s->j;
	step_fn next = s->next;
	const char *what = s->what;

	(void)ac;
	free(s);
	if (err) {
		job_fail(j, ERR_INSTALL_FAILED, "%s: %s", what, err->msg);
		return;
	}
	if (res->cancelled || j->cancelled) {
		job_fail(j, ERR_CANCELLED, "the install was cancelled (%s)",
			 what);
		return;
	}
	if (res->timed_out) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "%s took longer than its %u ms budget ([packages] "
			 "timeout_ms)\n%s",
			 what, j->in->cfg->pkg_timeout_ms, j->tail);
		return;
	}
	if (!res->exited || res->exit_code != 0) {
		char tail[TAIL_MAX + 1];

		tail_add(j, res->out, res->out_len);
		tail_add(j, res->err, res->err_len);
		tail_trim(j->tail, tail, sizeof(tail));
		job_fail(j, ERR_INSTALL_FAILED, "%s failed (%s %d):\n%s", what,
			 res->exited ? "exit status" : "signal",
			 res->exited ? res->exit_code : res->signal, tail);
		return;
	}
	next(j, res);
}

/* Run one step; file (name, data) is written to /work first. */
static void job_exec(struct job *j, const char *what, const char *const *build,
		     const char *const *run, const struct env_buf *env,
		     uint32_t timeout_ms, const char *file, const char *data,
		     size_t len, int stream, step_fn next)
{
	struct step *s = calloc(1, sizeof(*s));
	struct agent_exec_req q = {
		.file_name = file ? file : "step",
		.code = data ? data : "",
		.code_len = data ? len : 0,
		.build_argv = build,
		.run_argv = run,
		.env = env->v,
		.seccomp_deny = j->pl->policy.seccomp_deny,
		.timeout_ms = timeout_ms,
		.stdout_cap = 1u << 20,
		.stderr_cap = 64u << 10,
		.stream_ms = stream ? 500 : 0,
		.output_cb = stream ? step_output_cb : NULL,
	};

	if (j->cancelled) {
		free(s);
		job_fail(j, ERR_CANCELLED, "the install was cancelled");
		return;
	}
	if (!s) {
		job_fail(j, -ENOMEM, NULL);
		return;
	}
	s->j = j;
	s->next = next;
	s->what = what;
	progress(j, "%s", what);
	if (agent_client_exec(j->ac, &q, step_done_cb, s)) {
		free(s);
		job_fail(j, ERR_INSTALL_FAILED,
			 "%s: the install container "
			 "did not take the request",
			 what);
	}
}

/* ---- the steps ---- */

/* The store step, run by a helper container as root (no capability but
 * reading the hand-over's files): copy the set into the package volume
 * under a temporary name and rename it to its key (an existing key stays:
 * another install got there first), then remove the evicted sets. What
 * it writes belongs to root, so no install container (uid 1000) can ever
 * change a stored set. Arguments, never code: $1 nonce, $2 key, the rest
 * evicted keys. */
static const char store_script[] =
	"set -eu; cd " INSTALL_MOUNT "; t=.tmp-$2-$1; rm -rf \"$t\"; "
	"cp -R " SCRATCH_MOUNT "/pkg \"$t\"; "
	"cp " SCRATCH_MOUNT "/manifest.json \"$t/\"; "
	"chmod -R u+rwX,go+rX,go-w \"$t\"; "
	"if mv -T \"$t\" \"$2\" 2>/dev/null; then echo new; "
	"else rm -rf \"$t\"; test -f \"$2/manifest.json\"; echo exists; fi; "
	"k=$2; shift 2; for v; do [ \"$v\" != \"$k\" ] && rm -rf \"$v\"; "
	"done; true";

static void store_done(const struct error *err, const char *out, size_t len,
		       void *arg)
{
	struct job *j = arg;

	(void)out;
	(void)len;
	if (err) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "storing the set in the package volume failed: %s",
			 err->msg);
		return;
	}
	job_finish(j);
}

static void job_step_store(struct job *j, const struct agent_exec_result *r)
{
	static const char *const caps[] = {"DAC_READ_SEARCH", NULL};
	const char *argv[MAX_EVICT + 8];
	const struct install_helper hs = {
		.role = "store",
		.image = j->pl->policy.image,
		.user = "0",
		.caps = caps,
		.argv = argv,
		.scratch = j->scratch,
	};
	uint64_t cap = (uint64_t)j->in->cfg->pkg_cache_max_mb << 20;
	uint64_t mine = pkg_manifest_bytes(j->manifest);
	char nonce[32];
	size_t n = 0, i;

	(void)r;
	/* Make room first, so that the volume with this set stays under its
	 * cap (a set larger than the cap alone is still kept). */
	j->nevicted = pkg_cache_evict(j->in->cache, mine < cap ? cap - mine : 0,
				      j->key, j->in->busy, j->in->busy_arg,
				      j->evicted, MAX_EVICT);
	snprintf(nonce, sizeof(nonce), "%lx%lx", (unsigned long)uv_hrtime(),
		 ++j->in->seq);
	argv[n++] = "/bin/bash";
	argv[n++] = "-c";
	argv[n++] = store_script;
	argv[n++] = "store";
	argv[n++] = nonce;
	argv[n++] = j->key;
	for (i = 0; i < j->nevicted; i++)
		argv[n++] = j->evicted[i];
	argv[n] = NULL;
	progress(j, "storing the set in the cache");
	if (install_run_helper(j->in, &hs, store_done, j))
		job_fail(j, ERR_INSTALL_FAILED,
			 "the store step could not be started");
}

/* The install container puts the set's record (pkg_volume.h: the
 * manifest, and what lets any server list the set without an index of
 * its own) beside the set it installed into the hand-over volume. */
static void job_step_handover(struct job *j)
{
	const char *argv[] = {"/bin/cp", "/work/manifest.json",
			      SCRATCH_MOUNT "/manifest.json", NULL};
	struct env_buf env;
	cJSON *specs = install_specs_json(&j->specs);
	cJSON *rec = specs ? pkg_record_new(j->manifest, j->pl->desc->name,
					    specs, (int64_t)time(NULL),
					    (double)(uv_hrtime() - j->t0) / 1e9)
			   : NULL;
	char *text = rec ? cJSON_PrintUnformatted(rec) : NULL;

	cJSON_Delete(specs);
	cJSON_Delete(rec);
	if (!text) {
		job_fail(j, -ENOMEM, NULL);
		return;
	}
	install_job_env(j, &env, 0);
	job_exec(j, "handing the set over", NULL, argv, &env, STEP_TIMEOUT_MS,
		 "manifest.json", text, strlen(text), 0, job_step_store);
	install_env_buf_free(&env);
	cJSON_free(text);
}

static void job_step_manifest(struct job *j, const struct agent_exec_result *r)
{
	struct error err;
	cJSON *m = pkg_manifest_parse(r->out, r->out_len, &err);

	if (!m) {
		job_fail(j, ERR_INSTALL_FAILED, "%s's manifest: %s",
			 j->pl->desc->name, err.msg);
		return;
	}
	j->manifest = m;
	job_step_handover(j);
}

static void job_step_installed(struct job *j, const struct agent_exec_result *r)
{
	const char *argv[MAX_ARGS];
	struct env_buf env;

	(void)r;
	if (install_expand(j->pl->desc->manifest_cmd, &j->specs, argv,
			   MAX_ARGS)) {
		job_fail(j, ERR_PLUGIN, "%s: no manifest_cmd",
			 j->pl->desc->name);
		return;
	}
	install_job_env(j, &env, 0);
	job_exec(j, "reading what was installed", NULL, argv, &env,
		 STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_manifest);
	install_env_buf_free(&env);
}

static void job_step_install(struct job *j);

/* The probe's answer: a set that another server stored under this key is
 * taken as it is (nothing is downloaded), else the install runs. */
static void job_step_probed(struct job *j, const struct agent_exec_result *r)
{
	cJSON *m = r->out_len && r->out[0] == '{'
			   ? pkg_manifest_parse(r->out, r->out_len, NULL)
			   : NULL;

	if (!m) {
		job_step_install(j);
		return;
	}
	j->manifest = m;
	j->cached = 1;
	progress(j, "found in the package volume");
	job_finish(j);
}

/* Is the key in the volume already? `cat` of its manifest; a missing
 * file prints nothing (the step itself succeeds). */
static void job_step_probe(struct job *j)
{
	char path[sizeof(INSTALL_MOUNT) + PKG_KEY_LEN + 32];
	const char *argv[] = {"bash",  "-c", "cat -- \"$1\" 2>/dev/null; true",
			      "probe", path, NULL};
	struct env_buf env;

	snprintf(path, sizeof(path), INSTALL_MOUNT "/%s/manifest.json", j->key);
	install_job_env(j, &env, 0);
	job_exec(j, "looking for the set in the package volume", NULL, argv,
		 &env, STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_probed);
	install_env_buf_free(&env);
}

/* The proxied step that waited for the registry check runs, with the
 * proxy variables, the mirror and the CA bundle. */
static void job_run_after_check(struct job *j)
{
	const char *argv[MAX_ARGS];
	struct env_buf env;

	if (install_expand(j->after_check.cmd, &j->specs, argv, MAX_ARGS)) {
		job_fail(j, ERR_PLUGIN, "%s: %s: too many arguments",
			 j->pl->desc->name, j->after_check.what);
		return;
	}
	install_job_env(j, &env, 1);
	job_exec(j, j->after_check.what, NULL, argv, &env,
		 j->after_check.timeout_ms, j->in->ca ? CA_FILE : NULL,
		 j->in->ca, j->in->ca_len, j->after_check.stream,
		 j->after_check.next);
	install_env_buf_free(&env);
}

static size_t allow_index(const struct job *j, const char *hostport)
{
	size_t k;

	for (k = 0; k < j->nallow; k++)
		if (strcmp(j->allow[k], hostport) == 0)
			break;
	return k;
}

/* The check's answer: every registry answered, or the install fails
 * with each one that did not, how, and what to set. */
static void job_step_checked(struct job *j, const struct agent_exec_result *r)
{
	struct registry_result got[MAX_ALLOW], *res[MAX_ALLOW] = {0};
	size_t n = registry_check_parse(r->out, r->out_len, got, MAX_ALLOW);
	const struct config *cfg = j->in->cfg;
	char how[MAX_ALLOW][400], list[ERROR_MSG_MAX], msg[ERROR_MSG_MAX + 700];
	size_t i, k, used = 0, bad = 0;

	j->proxy_ready = 1;
	/* In the allow-list's order, not the order they answered in. */
	for (i = 0; i < n; i++) {
		k = allow_index(j, got[i].hostport);
		if (k < j->nallow) {
			res[k] = &got[i];
			j->checked |= 1u << k;
		}
	}
	for (i = 0; i < j->nallow; i++) {
		cJSON *o;

		if (!res[i])
			continue;
		registry_describe(res[i], j->in->upstream,
				  cfg->pkg_registry_timeout_ms, how[i],
				  sizeof(how[i]));
		if (!j->registries || !(o = cJSON_CreateObject()))
			continue;
		cJSON_AddStringToObject(o, "registry", res[i]->hostport);
		cJSON_AddBoolToObject(o, "ok", res[i]->state == REGISTRY_OK);
		if (res[i]->state != REGISTRY_OK)
			cJSON_AddStringToObject(o, "problem", how[i]);
		cJSON_AddItemToArray(j->registries, o);
	}
	/* Registries that failed alike are named together. */
#define FAILED(x) (res[x] && res[x]->state != REGISTRY_OK)
	for (i = 0; i < j->nallow; i++) {
		if (!FAILED(i))
			continue;
		for (k = 0; k < i && !(FAILED(k) && !strcmp(how[k], how[i]));
		     k++)
			;
		if (k < i || used >= sizeof(list))
			continue;
		used += (size_t)snprintf(list + used, sizeof(list) - used,
					 "%s%s", bad++ ? "; " : "",
					 res[i]->hostport);
		for (k = i + 1; k < j->nallow && used < sizeof(list); k++)
			if (FAILED(k) && strcmp(how[k], how[i]) == 0)
				used += (size_t)snprintf(
					list + used, sizeof(list) - used,
					", %s", res[k]->hostport);
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used,
						 sizeof(list) - used, ": %s",
						 how[i]);
	}
#undef FAILED
	if (bad) {
		unreachable_msg(j, list, NULL, msg, sizeof(msg));
		j->unreachable = 1;
		job_fail(j, ERR_REGISTRY_UNREACHABLE, "%s", msg);
	} else if (j->check_only) {
		job_finish(j);
	} else {
		job_run_after_check(j);
	}
}

/* Check the registries not checked yet through the current proxy (which
 * the script waits for first), then go on with the waiting step (or, for
 * a check alone, end). */
static void job_check_registries(struct job *j)
{
	const char *argv[MAX_ALLOW + 8];
	char ms[16];
	size_t n = 0, i;
	struct env_buf env;

	argv[n++] = "bash";
	argv[n++] = "-c";
	argv[n++] = registry_check_script;
	argv[n++] = "check";
	snprintf(ms, sizeof(ms), "%u", j->in->cfg->pkg_registry_timeout_ms);
	argv[n++] = ms;
	for (i = 0; i < j->nallow; i++)
		if (!(j->checked & (1u << i)))
			argv[n++] = j->check[i][0] ? j->check[i] : j->allow[i];
	argv[n] = NULL;
	if (n == 5 && j->proxy_ready) {
		if (j->check_only)
			job_finish(j);
		else
			job_run_after_check(j);
		return;
	}
	install_job_env(j, &env, 0);
	job_exec(j, "checking the registries", NULL, argv, &env,
		 STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_checked);
	install_env_buf_free(&env);
}

/* Run one of the plugin's commands through the egress proxy: once the
 * proxy answers and the registries it allows answer through it. */
static void job_exec_proxied(struct job *j, const char *what,
			     const char *const *cmd, uint32_t timeout_ms,
			     int stream, step_fn next)
{
	j->after_check.what = what;
	j->after_check.cmd = cmd;
	j->after_check.timeout_ms = timeout_ms;
	j->after_check.stream = stream;
	j->after_check.next = next;
	job_check_registries(j);
}

static void job_step_install(struct job *j)
{
	if (!j->pl->desc->install_cmd) {
		job_fail(j, ERR_PLUGIN, "%s: no install_cmd",
			 j->pl->desc->name);
		return;
	}
	job_exec_proxied(j, "installing", j->pl->desc->install_cmd,
			 j->in->cfg->pkg_timeout_ms, 1, job_step_installed);
}

static void job_after_proxy(struct job *j);

/* One of the two chains started together is ready. */
static void parallel_done(struct job *j)
{
	if (--j->starting > 0)
		return;
	j->parallel = 0;
	if (j->failed)
		job_finish(j);
	else
		job_after_proxy(j);
}

static void proxy_started_cb(const struct error *err, const char *id, void *arg)
{
	struct job *j = arg;

	if (err) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "the egress proxy (%s) did not start: %s",
			 j->in->cfg->pkg_proxy_image, err->msg);
		return;
	}
	snprintf(j->proxy_id, sizeof(j->proxy_id), "%s", id);
	if (j->parallel)
		parallel_done(j);
	else
		job_after_proxy(j);
}

static void job_step_proxy(struct job *j)
{
	const struct config *cfg = j->in->cfg;
	char allow[MAX_ALLOW * 300 + 32], role_buf[64];
	const char *labels[24];
	struct install_proxy_spec spec;

	install_allow_join(j, allow, sizeof(allow));
	j->proxy_ready = 0;
	role_labels(j->in, "proxy", role_buf, sizeof(role_buf), labels);
	snprintf(j->proxy_name, sizeof(j->proxy_name), "sbx-proxy-%s-%lx",
		 j->in->nonce, ++j->in->seq);
	spec = (struct install_proxy_spec){
		.name = j->proxy_name,
		.image = cfg->pkg_proxy_image,
		.network = cfg->pkg_network,
		.allow = allow,
		.upstream = j->in->upstream,
		.socket_volume = j->sock,
		.labels = labels,
		.seccomp = j->in->seccomp,
		.seccomp_file = j->in->seccomp_file,
	};
	progress(j, "starting the egress proxy (allowing %s)", allow);
	if (install_proxy_run(j->in->d, &spec, proxy_started_cb, j))
		job_fail(j, ERR_INSTALL_FAILED,
			 "the egress proxy could not be created");
}
static void job_step_registries(struct job *j,
				const struct agent_exec_result *r)
{
	if (install_allow_urls(j, r->out, r->out_len)) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "%s's installer names no http(s) registry (it "
			 "printed '%.200s'); set [%s] registry in sandbox.ini",
			 j->pl->desc->name, r->out_len ? r->out : "",
			 j->pl->desc->name);
		return;
	}
	job_step_proxy(j);
}

/* ---- the registries' own word on downloads (registry_follow_cmd) ---- */

static void proxy_replaced_cb(const struct error *err, const char *id,
			      void *arg)
{
	struct job *j = arg;

	(void)id;
	if (err)
		log_warn("removing the egress proxy %s: %s", j->proxy_name,
			 err->msg);
	job_step_proxy(j);
}

/* The first proxy's log is kept; it goes, and one allowing the download
 * hosts too takes its place. */
static void proxy_replace_logs_cb(const struct error *err, const char *text,
				  size_t len, void *arg)
{
	struct job *j = arg;
	unsigned refused = 0;
	char id[sizeof(j->proxy_id)];

	if (!err && text)
		connections_add(j, pkg_proxy_log_json(text, len, &refused));
	memcpy(id, j->proxy_id, sizeof(id));
	j->proxy_id[0] = '\0';
	if (container_remove(j->in->d, id, proxy_replaced_cb, j))
		job_step_proxy(j);
}

static void job_step_followed(struct job *j, const struct agent_exec_result *r)
{
	size_t before = j->nallow;

	j->followed = 1;
	(void)install_allow_urls(j, r->out, r->out_len);
	if (j->nallow == before) {
		job_after_proxy(j);
		return;
	}
	progress(j, "the registries name %s more", j->allow[before]);
	if (container_logs(j->in->d, j->proxy_id, proxy_replace_logs_cb, j))
		proxy_replace_logs_cb(NULL, NULL, 0, j);
}

static void job_step_follow(struct job *j)
{
	job_exec_proxied(j, "asking the registries where downloads come from",
			 j->pl->desc->registry_follow_cmd, STEP_TIMEOUT_MS, 0,
			 job_step_followed);
}

/* The proxy and the install container are up: ask the registries where
 * their downloads come from if the language says they may name other
 * hosts (once per image and mirror), then look for the set. */
static void job_after_proxy(struct job *j)
{
	char key[sizeof(j->image_id) + 512], allow[MAX_ALLOW * 520];

	if (!j->known && !j->followed && j->pl->desc->registry_follow_cmd) {
		job_step_follow(j);
		return;
	}
	if (!j->known && !j->check_only) {
		/* The next install of this image starts its proxy at once.
		 * (A check alone writes no index: `doctor` may run beside a
		 * server that saves the same file.) */
		install_registries_key(j, key, sizeof(key));
		install_allow_join_urls(j, allow, sizeof(allow));
		pkg_cache_set_registries(j->in->cache, key, allow);
	}
	j->known = 1;
	if (j->check_only)
		job_check_registries(j);
	else
		job_step_probe(j);
}

/* The forwarder runs and the agent answered (or one of them failed). */
static void box_ready(struct job *j)
{
	const char *reg = j->pl->policy.registry;
	const char *argv[MAX_ARGS];
	struct env_buf env;

	if (--j->box_pending > 0)
		return;
	if (j->box_failed) {
		job_fail(j, j->box_err.code, "%s", j->box_err.msg);
		return;
	}
	if (j->parallel) {
		parallel_done(j);
		return;
	}
	if (reg) {
		if (install_allow_urls(j, reg, strlen(reg))) {
			job_fail(j, ERR_INSTALL_FAILED,
				 "[%s] registry = %s is not an http(s) URL",
				 j->pl->desc->name, reg);
			return;
		}
		job_step_proxy(j);
		return;
	}
	if (install_expand(j->pl->desc->registry_cmd, &j->specs, argv,
			   MAX_ARGS)) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "%s has no registry_cmd: set [%s] registry in "
			 "sandbox.ini",
			 j->pl->desc->name, j->pl->desc->name);
		return;
	}
	install_job_env(j, &env, 0);
	job_exec(j, "reading the installer's registries", NULL, argv, &env,
		 STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_registries);
	install_env_buf_free(&env);
}

static void box_fail(struct job *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void box_fail(struct job *j, const char *fmt, ...)
{
	va_list ap;

	if (!j->box_failed) {
		va_start(ap, fmt);
		error_vset(&j->box_err, ERR_INSTALL_FAILED, fmt, ap);
		va_end(ap);
		j->box_failed = 1;
	}
	box_ready(j);
}

static void box_open_cb(struct agent_client *ac, const struct error *err,
			void *arg)
{
	struct job *j = arg;

	if (err) {
		j->ac = NULL;
		box_fail(j, "the install container's agent did not answer: %s",
			 err->msg);
		return;
	}
	j->ac = ac;
	box_ready(j);
}

static void fwd_started_cb(const struct error *err, const char *id, void *arg)
{
	struct job *j = arg;

	if (err) {
		/* An image built before the forwarder existed has no socat. */
		box_fail(j,
			 "the install container's way to its proxy (a "
			 "forwarder from %s) did not start: %s%s",
			 j->in->cfg->pkg_proxy_image, err->msg,
			 strstr(err->msg, "socat") ? " (rebuild the image: "
						     "scripts/build-images.sh "
						     "proxy)"
						   : "");
		return;
	}
	snprintf(j->fwd_id, sizeof(j->fwd_id), "%s", id);
	box_ready(j);
}

static void box_lost_cb(struct agent_client *ac, void *arg)
{
	struct job *j = arg;

	(void)ac;
	/* A pending exec gets its error callback; nothing else to do. */
	(void)j;
}

static void box_started_cb(const struct error *err, const char *id, void *arg)
{
	struct job *j = arg;
	struct install_forwarder_spec fwd;
	const char *labels[24];
	char role_buf[64];

	if (err) {
		job_fail(j,
			 err->code == -ENOENT ? ERR_IMAGE_MISSING
					      : ERR_INSTALL_FAILED,
			 "the install container did not start: %s", err->msg);
		return;
	}
	snprintf(j->box_id, sizeof(j->box_id), "%s", id);
	/* The forwarder needs the box's network namespace; the agent's
	 * first answer does not need the forwarder: both at once. */
	role_labels(j->in, "forwarder", role_buf, sizeof(role_buf), labels);
	fwd = (struct install_forwarder_spec){
		.box_id = j->box_id,
		.image = j->in->cfg->pkg_proxy_image,
		.socket_volume = j->sock,
		.labels = labels,
		.seccomp = j->in->seccomp,
		.seccomp_file = j->in->seccomp_file,
	};
	j->box_pending = 2;
	if (install_forwarder_run(j->in->d, &fwd, fwd_started_cb, j))
		box_fail(j, "the forwarder to the egress proxy could not be "
			    "created");
	if (agent_client_open(j->in->d, id, box_open_cb, box_lost_cb, j,
			      &j->ac))
		box_fail(j, "cannot attach to the install container");
}

static void job_step_box(struct job *j)
{
	const struct config *cfg = j->in->cfg;
	const struct policy *po = &j->pl->policy;
	const struct container_mount mounts[] = {
		{cfg->pkg_volume, INSTALL_MOUNT, 1, j->in->volume_labels},
		{j->scratch, SCRATCH_MOUNT, 0, NULL},
		{NULL, NULL, 0, NULL},
	};
	const char *labels[24];
	char role_buf[64];
	struct container_spec spec;

	role_labels(j->in, "install", role_buf, sizeof(role_buf), labels);
	/* The set goes to the hand-over volume, downloads and build
	 * directories to /work: each a tmpfs of the disk budget, which
	 * counts as the container's memory. */
	spec = (struct container_spec){
		.image = po->image,
		.labels = labels,
		.memory_mb = (po->limits.memory_mb > cfg->pkg_memory_mb
				      ? po->limits.memory_mb
				      : cfg->pkg_memory_mb) +
			     2 * cfg->pkg_disk_mb,
		.cpu_millis = po->limits.cpu_millis,
		.pids = po->limits.pids > 256 ? po->limits.pids : 256,
		.nofile = po->limits.nofile,
		.fsize_mb = cfg->pkg_disk_mb,
		.work_mb = cfg->pkg_disk_mb,
		.tmp_mb = po->limits.tmp_mb,
		.shm_mb = po->shm_mb,
		/* Its only way out is the forwarder in its loopback. */
		.network = "none",
		.mounts = mounts,
		.seccomp = po->seccomp_profile,
		.seccomp_file = po->seccomp_file,
	};
	progress(j, "starting the install container");
	if (container_run(j->in->d, &spec, box_started_cb, j))
		job_fail(j, ERR_INSTALL_FAILED,
			 "the install container could not be created");
}

static void job_start(struct job *j);

/* The install container, and at the same time the proxy when the
 * registries are known (a mirror, or found before for this image). */
static void job_start(struct job *j)
{
	const char *reg = j->pl->policy.registry;
	const char *known;
	char key[sizeof(j->image_id) + 512];

	install_registries_key(j, key, sizeof(key));
	known = pkg_cache_registries(j->in->cache, key);
	if (known) {
		install_allow_split(j, known);
		j->parallel = j->known = j->nallow > 0;
	}
	if (!j->parallel && reg && install_allow_urls(j, reg, strlen(reg)) == 0)
		j->parallel = 1;
	if (!j->parallel) {
		j->nallow = 0;
		job_step_box(j);
		return;
	}
	j->starting = 2;
	job_step_box(j);
	job_step_proxy(j);
}

/* One of the two volumes is made (or not); the job goes on once both
 * answered, so that a failure leaves no creation in flight. */
static void volume_ready(struct job *j, const struct error *err,
			 const char *what, char *name)
{
	if (err) {
		name[0] = '\0';
		if (!j->box_failed) {
			error_set(&j->box_err, ERR_INSTALL_FAILED, "%s: %s",
				  what, err->msg);
			j->box_failed = 1;
		}
	}
	if (--j->box_pending > 0)
		return;
	if (j->box_failed) {
		j->box_failed = 0;
		job_fail(j, j->box_err.code, "%s", j->box_err.msg);
		return;
	}
	job_start(j);
}

static void scratch_ready_cb(const struct error *err, void *arg)
{
	struct job *j = arg;

	volume_ready(j, err, "the hand-over volume", j->scratch);
}

static void sock_ready_cb(const struct error *err, void *arg)
{
	struct job *j = arg;

	volume_ready(j, err, "the egress proxy's socket volume", j->sock);
}

static void net_ready_cb(const struct error *err, void *arg)
{
	struct job *j = arg;
	const char *labels[24];
	char role_buf[64];
	struct error e;

	if (err) {
		job_fail(j, install_engine_code(err),
			 "the install network %s: %s", j->in->cfg->pkg_network,
			 err->msg);
		return;
	}
	/* The set goes from the install container to the store step through
	 * a tmpfs volume of its own, as large as the disk budget; the
	 * proxy's socket lives on another, shared with the forwarder only.
	 * Both are made at once. */
	j->box_pending = 2;
	snprintf(j->scratch, sizeof(j->scratch), "sbx-pkgtmp-%s-%lx",
		 j->in->nonce, ++j->in->seq);
	role_labels(j->in, "handover", role_buf, sizeof(role_buf), labels);
	if (volume_create_tmpfs(j->in->d, j->scratch, j->in->cfg->pkg_disk_mb,
				1000, 0700, labels, scratch_ready_cb, j)) {
		error_set_msg(&e, -EINVAL, "it could not be created");
		scratch_ready_cb(&e, j);
	}
	snprintf(j->sock, sizeof(j->sock), "sbx-pkgsock-%s-%lx", j->in->nonce,
		 ++j->in->seq);
	role_labels(j->in, "proxysocket", role_buf, sizeof(role_buf), labels);
	if (install_socket_volume_create(j->in->d, j->sock, labels,
					 sock_ready_cb, j)) {
		error_set_msg(&e, -EINVAL, "it could not be created");
		sock_ready_cb(&e, j);
	}
}

void install_job_run(struct job *j)
{
	struct installer *in = j->in;
	const char *labels[] = {"org.mcp-sandbox.role=packages", NULL};

	if (network_ensure(in->d, in->cfg->pkg_network, 1, labels, net_ready_cb,
			   j))
		job_fail(j, ERR_INSTALL_FAILED,
			 "the install network name %s is not valid",
			 in->cfg->pkg_network);
}
