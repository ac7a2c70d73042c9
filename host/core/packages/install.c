/*
 * install.c - package installs (install.h, docs/packages.md).
 *
 * An install that is not in the cache is a job, run by these steps, each
 * the callback of the one before:
 *
 *   image id -> volume -> network -> hand-over and socket volumes
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
 *   the volumes -> answer every request waiting for this key.
 *
 * Every step that fails ends the job the same way (job_fail): containers
 * removed, nothing in the volume but what a finished rename put there.
 */
#include "install.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/exec/executor.h"
#include "install_proxy.h"
#include "core/engines/seccomp_profile.h"
#include "util/state_dir.h"
#include "docker/agent_client.h"
#include "docker/container.h"
#include "docker/network.h"
#include "util/defer.h"
#include "util/log.h"

#define LOG_MODULE "install"

#define MAX_ENV 64
#define MAX_ARGS (PKG_MAX_SPECS + 32)
#define MAX_WAITERS 64
#define MAX_ALLOW 8
#define TAIL_MAX 700
/* The steps besides the install itself (registries, manifest, finish). */
#define STEP_TIMEOUT_MS 60000
/* The hand-over volume (a tmpfs of the disk budget, per install): the
 * install container installs into SCRATCH_MOUNT/pkg ("{dir}"), the store
 * step reads it from there. */
#define SCRATCH_MOUNT "/opt/sbx/scratch"
#define WORK_DIR SCRATCH_MOUNT "/pkg"
#define CA_FILE "ca.pem"
#define MAX_EVICT ((size_t)32)

struct lookup;

/* A request (installer_install's handle), from the call until its
 * callback: in its lookup first, then among its job's waiters. */
struct install_req {
	install_cb cb;
	install_progress_cb progress;
	void *arg;
	struct lookup *l; /* while it is looked up, else NULL */
	struct job *j;	  /* once it waits for its job */
};

struct job {
	struct installer *in;
	struct job *next;
	const struct plugin *pl;
	struct install_specs specs;
	char key[PKG_KEY_LEN + 1];
	char image_id[160];
	uint64_t t0;
	struct install_req *w[MAX_WAITERS];
	size_t nw;

	char box_id[80];
	char scratch[96]; /* the hand-over volume's name, or "" */
	int scratch_gone;
	char sock[96]; /* the proxy's socket volume, or "" */
	int sock_gone;
	struct agent_client *ac;
	char proxy_name[64];
	char proxy_id[80];
	char fwd_id[80]; /* the forwarder (install_proxy.h) */
	/* Two things awaited together (the two volumes; then the forwarder
	 * and the agent's first answer once the box runs): how many are
	 * still out, and the first failure. */
	int box_pending;
	int box_failed;
	struct error box_err;
	char allow[MAX_ALLOW][300];
	size_t nallow;

	cJSON *manifest;
	cJSON *connections;
	char evicted[MAX_EVICT][PKG_KEY_LEN + 1];
	size_t nevicted;
	struct error err; /* set once the job fails */
	int failed;
	int egress_refused;	 /* err names what the proxy refused */
	char tail[TAIL_MAX + 1]; /* the installer's output, for failures */
	int removing;		 /* containers left to remove */
	int cached;		 /* the key turned out to be there */
	/* The install container and the proxy start together when the
	 * registries are known: starting counts the two chains still
	 * running; each ends in parallel_done() or job_fail(). */
	int parallel;
	int starting;
	/* The allow-list came from the index (found before for this image
	 * and mirror): no registry_cmd, no registry_follow_cmd. */
	int known;
	int followed;  /* registry_follow_cmd ran */
	int cancelled; /* every request withdrew: no further step */
};

struct installer {
	uv_loop_t *loop;
	struct docker *d;
	const struct config *cfg;
	struct pkg_cache *cache;
	char **labels;
	size_t nlabels;
	struct job *jobs;
	struct lookup *lookups; /* requests before their job */
	char volume_label[128]; /* INSTALL_VOLUME_ID_LABEL=<random> */
	char upstream[300];	/* host:port the proxy chains to, or "" */
	char nonce[40];		/* the instance id: in container names */
	const char *volume_labels[3];
	char *ca;      /* the CA bundle's bytes, or NULL */
	char *seccomp; /* the floor's profile (seccomp_profile.h), or NULL */
	char *seccomp_file; /* ... as a file, for Podman, or NULL */
	size_t ca_len;
	int closing;
	unsigned long seq;
	pkg_busy_fn busy;
	void *busy_arg;
};

/* ---- set-up ---- */

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
	    n < 16L * 1024 * 1024 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) == (size_t)n) {
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

int installer_new(uv_loop_t *loop, struct docker *d, const struct config *cfg,
		  const char *const *labels, const char *instance,
		  struct pkg_cache *cache, struct installer **out)
{
	struct installer *in = calloc(1, sizeof(*in));
	const char *env_proxy;
	char dir[PATH_MAX];
	struct error err;
	size_t n = 0, i;

	if (!in)
		return -ENOMEM;
	in->loop = loop;
	in->d = d;
	in->cfg = cfg;
	in->cache = cache;
	snprintf(in->volume_label, sizeof(in->volume_label),
		 INSTALL_VOLUME_ID_LABEL "=%s", instance);
	/* This server's instance id names its proxies and hand-over volumes
	 * (unique among servers installing the same set at once) and marks
	 * a volume it makes. */
	snprintf(in->nonce, sizeof(in->nonce), "%s", instance);
	in->volume_labels[0] = "org.mcp-sandbox.role=packages";
	in->volume_labels[1] = in->volume_label;
	while (labels && labels[n])
		n++;
	in->labels = calloc(n + 2, sizeof(*in->labels));
	if (!in->labels) {
		free(in);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		in->labels[i] = strdup(labels[i]);
	in->nlabels = n;
	/* [packages] upstream_proxy, else the host's own HTTPS_PROXY (which
	 * must be reachable from a container: not a loopback address). */
	if (cfg->pkg_upstream_proxy)
		snprintf(in->upstream, sizeof(in->upstream), "%s",
			 cfg->pkg_upstream_proxy);
	else if ((env_proxy = getenv("HTTPS_PROXY")) ||
		 (env_proxy = getenv("https_proxy"))) {
		if (pkg_url_hostport(env_proxy, in->upstream,
				     sizeof(in->upstream)) ||
		    strncmp(in->upstream, "127.", 4) == 0 ||
		    strncmp(in->upstream, "localhost:", 10) == 0) {
			log_warn("HTTPS_PROXY=%s cannot be chained to from a "
				 "container; set [packages] upstream_proxy",
				 env_proxy);
			in->upstream[0] = '\0';
		}
	}
	if (cfg->pkg_ca_bundle && strcmp(cfg->pkg_ca_bundle, "none") != 0) {
		in->ca = read_file(cfg->pkg_ca_bundle, &in->ca_len);
		if (!in->ca && cfg->pkg_ca_bundle_set)
			log_warn("[packages] ca_bundle %s cannot be read: "
				 "installs use the images' own CA "
				 "certificates",
				 cfg->pkg_ca_bundle);
	}
	/* The proxy's and the store step's profile: the floor alone. */
	in->seccomp = seccomp_profile_json(NULL, &err);
	if (!in->seccomp && err.code != -ENOMEM)
		log_warn("%s: the proxy and store containers keep the "
			 "engine's default profile",
			 err.msg);
	if (in->seccomp &&
	    state_dir_subdir(cfg->state_dir, "seccomp", dir, sizeof(dir)) ==
		    0 &&
	    seccomp_profile_file(in->seccomp, dir, &in->seccomp_file, &err) !=
		    0)
		log_warn("%s: a Podman engine cannot run installs", err.msg);
	*out = in;
	return 0;
}

void installer_set_busy(struct installer *in, pkg_busy_fn busy, void *arg)
{
	in->busy = busy;
	in->busy_arg = arg;
}

int installer_enabled(const struct installer *in)
{
	return in && strcmp(in->cfg->pkg_network, "none") != 0;
}

/* ---- specs ---- */

void install_specs_free(struct install_specs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

int install_specs_parse(const struct plugin *pl, const cJSON *packages,
			struct install_specs *out, struct error *err)
{
	const char *eco = pl->desc->package_ecosystem;
	char norm[PKG_SPEC_MAX + 1];
	struct error bad;
	const cJSON *it;

	out->n = 0;
	if (!eco)
		return error_set(err, ERR_NO_INSTALLER,
				 "%s installs no packages", pl->desc->name);
	if (!cJSON_IsArray(packages) || !cJSON_GetArraySize(packages))
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "packages must be a non-empty array of "
				 "strings");
	if (cJSON_GetArraySize(packages) > PKG_MAX_SPECS)
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "at most %d packages in one request",
				 PKG_MAX_SPECS);
	cJSON_ArrayForEach(it, packages)
	{
		if (!cJSON_IsString(it)) {
			install_specs_free(out);
			return error_set(err, ERR_INVALID_ARGUMENTS,
					 "packages must be strings");
		}
		if (pkg_spec_check(eco, it->valuestring, norm, &bad)) {
			install_specs_free(out);
			return error_set(err, bad.code,
					 "'%.256s' is not a %s package spec: "
					 "%s",
					 it->valuestring, eco, bad.msg);
		}
		if (!(out->v[out->n] = strdup(norm))) {
			install_specs_free(out);
			return error_set(err, -ENOMEM, NULL);
		}
		out->n++;
	}
	out->n = pkg_specs_sort(out->v, out->n);
	return 0;
}

static cJSON *specs_json(const struct install_specs *s)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; arr && i < s->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s->v[i]));
	return arr;
}

/* ---- argv and environment ---- */

/* Replace whole-argument placeholders: "{packages}" by every spec,
 * "{dir}" by WORK_DIR. */
static int expand(const char *const *cmd, const struct install_specs *s,
		  const char **out, size_t max)
{
	size_t n = 0, i, k;

	for (i = 0; cmd && cmd[i]; i++) {
		if (strcmp(cmd[i], "{packages}") == 0) {
			for (k = 0; k < s->n && n + 1 < max; k++)
				out[n++] = s->v[k];
			continue;
		}
		if (n + 1 >= max)
			return -E2BIG;
		out[n++] = strcmp(cmd[i], "{dir}") == 0 ? WORK_DIR : cmd[i];
	}
	out[n] = NULL;
	return n ? 0 : -EINVAL;
}

/* s with every "{name}" replaced by value (allocated). */
static char *subst(const char *s, const char *name, const char *value)
{
	const char *p = strstr(s, name);
	size_t nl = strlen(name), vl = strlen(value), sl = strlen(s), pre;
	char *out;

	if (!p)
		return strdup(s);
	pre = (size_t)(p - s);
	out = malloc(sl - nl + vl + 1);
	if (!out)
		return NULL;
	memcpy(out, s, pre);
	memcpy(out + pre, value, vl);
	memcpy(out + pre + vl, p + nl, sl - pre - nl);
	out[sl - nl + vl] = '\0';
	return out;
}

struct env_buf {
	char *own[MAX_ENV];
	const char *v[MAX_ENV + 1];
	size_t n;
};

static void env_add(struct env_buf *e, const char *s)
{
	if (e->n < MAX_ENV)
		e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

/* Add a copy of s (the buffer owns it). */
static void env_add_copy(struct env_buf *e, const char *s)
{
	char *x;

	if (e->n >= MAX_ENV || !(x = strdup(s)))
		return;
	e->own[e->n] = x;
	env_add(e, x);
}

/* Add s with "{name}" expanded (NULL value: the entry is dropped). */
static void env_add_subst(struct env_buf *e, const char *s, const char *name,
			  const char *value)
{
	char *x;

	if (strstr(s, name) && !value)
		return;
	if (e->n >= MAX_ENV || !(x = subst(s, name, value ? value : "")))
		return;
	e->own[e->n] = x;
	env_add(e, x);
}

static void env_free(struct env_buf *e)
{
	size_t i;

	for (i = 0; i < MAX_ENV; i++)
		free(e->own[i]);
	memset(e, 0, sizeof(*e));
}

/* What every step of the install box runs with; with_install: also the
 * install step's own entries (proxy, CA, mirror). */
static void job_env(struct job *j, struct env_buf *e, int with_install)
{
	const struct sbx_plugin *d = j->pl->desc;
	const char *reg = j->pl->policy.registry;
	static const char *const vars[] = {"HTTPS_PROXY", "https_proxy",
					   "HTTP_PROXY", "http_proxy"};
	char buf[160];
	size_t i;

	memset(e, 0, sizeof(*e));
	/* Temporary files (downloads, build directories: cargo runs build
	 * scripts from there) in /work, within the budget and executable,
	 * not in the small noexec /tmp. */
	for (i = 0; exec_base_env[i]; i++)
		if (strncmp(exec_base_env[i], "TMPDIR=", 7) != 0)
			env_add(e, exec_base_env[i]);
	env_add(e, "TMPDIR=/work");
	for (i = 0; d->env && d->env[i]; i++)
		env_add(e, d->env[i]);
	if (!with_install)
		return;
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "%s=" INSTALL_PROXY_URL, vars[i]);
		env_add_copy(e, buf);
	}
	env_add(e, "NO_PROXY=");
	env_add(e, "no_proxy=");
	for (i = 0; d->install_env && d->install_env[i]; i++)
		env_add_subst(e, d->install_env[i], "{ca}",
			      j->in->ca ? "/work/" CA_FILE : NULL);
	if (j->in->ca)
		env_add(e, "SSL_CERT_FILE=/work/" CA_FILE);
	for (i = 0; reg && d->registry_env && d->registry_env[i]; i++)
		env_add_subst(e, d->registry_env[i], "{registry}", reg);
}

char *install_paths(const struct plugin *pl,
		    const char (*keys)[PKG_KEY_LEN + 1], size_t n, char sep)
{
	const char *sub = pl->desc->package_path ? pl->desc->package_path : "";
	size_t each = strlen(INSTALL_MOUNT) + PKG_KEY_LEN + strlen(sub) + 3;
	char *out, *o;
	size_t i;

	if (!n || !(out = malloc(n * each + 1)))
		return NULL;
	o = out;
	for (i = 0; i < n; i++)
		o += sprintf(o, "%s" INSTALL_MOUNT "/%s%s%s",
			     i ? (char[]){sep, 0} : "", keys[i],
			     *sub ? "/" : "", sub);
	return out;
}

int install_run_env(const struct plugin *pl, const char *path, char **env,
		    size_t max)
{
	const struct sbx_plugin *d = pl->desc;
	size_t n = 0, i;

	for (i = 0; d->package_env && d->package_env[i]; i++) {
		if (n + 1 >= max) {
			env[n] = NULL;
			install_env_free(env);
			return -E2BIG;
		}
		if (!(env[n] = subst(d->package_env[i], "{path}", path))) {
			install_env_free(env);
			return -ENOMEM;
		}
		n++;
	}
	env[n] = NULL;
	return (int)n;
}

void install_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++) {
		free(env[i]);
		env[i] = NULL;
	}
}

/* ---- answering ---- */

static double since(uint64_t t0)
{
	return (double)(uv_hrtime() - t0) / 1e9;
}

/* The request's one answer; the handle is freed after it. */
static void answer_waiter(struct install_req *w, const struct error *err,
			  const struct pkg_entry *e, int cached, double secs,
			  const cJSON *conns, int egress_refused)
{
	struct install_result res = {
		.entry = err ? NULL : e,
		.cached = cached,
		.seconds = secs,
		.connections = conns,
		.egress_refused = err && egress_refused,
	};

	w->cb(err, &res, w->arg);
	free(w);
}

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

static void installer_destroy(struct installer *in)
{
	size_t i;

	for (i = 0; i < in->nlabels; i++)
		free(in->labels[i]);
	free(in->labels);
	free(in->ca);
	free(in->seccomp);
	free(in->seccomp_file);
	free(in);
}

static void job_unlink(struct job *j)
{
	struct job **pp;

	for (pp = &j->in->jobs; *pp; pp = &(*pp)->next)
		if (*pp == j) {
			*pp = j->next;
			break;
		}
}

/* Every container is gone: answer and free. */
static void job_end(struct job *j)
{
	struct installer *in = j->in;
	struct pkg_entry *e = NULL;
	size_t i;

	job_unlink(j);
	if (!j->failed) {
		cJSON *specs = specs_json(&j->specs);

		e = pkg_cache_add(j->in->cache, j->key, j->pl->desc->name,
				  specs, j->manifest, since(j->t0),
				  (int64_t)time(NULL));
		cJSON_Delete(specs);
		if (!e)
			error_set(&j->err, -ENOMEM, NULL);
		else
			log_info("%s: installed %zu specs as %.12s (%s) in "
				 "%.1f s",
				 j->pl->desc->name, j->specs.n, j->key,
				 j->cached ? "found in the volume"
					   : "downloaded",
				 since(j->t0));
	}
	for (i = 0; i < j->nw; i++)
		answer_waiter(j->w[i], e ? NULL : &j->err, e, j->cached,
			      since(j->t0), j->connections, j->egress_refused);
	install_specs_free(&j->specs);
	cJSON_Delete(j->manifest);
	cJSON_Delete(j->connections);
	free(j);
	if (in->closing && !in->jobs)
		installer_destroy(in);
}

static void volume_removed_cb(const struct error *err, void *arg)
{
	struct job *j = arg;

	if (err)
		log_warn("removing an install's volume: %s", err->msg);
	if (--j->removing == 0)
		job_end(j);
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

/* A one-shot helper container, run to its end and removed: done gets
 * err NULL when argv exited 0, else why. */
typedef void (*helper_done_fn)(const struct error *err, void *arg);

struct helper {
	struct installer *in;
	helper_done_fn done;
	void *arg;
	char id[80];
	struct error err;
	int failed;
};

static void helper_end(struct helper *h)
{
	h->done(h->failed ? &h->err : NULL, h->arg);
	free(h);
}

static void helper_removed_cb(const struct error *err, const char *id,
			      void *arg)
{
	(void)err;
	(void)id;
	helper_end(arg);
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
	if (container_remove(h->in->d, h->id, helper_removed_cb, h))
		helper_end(h);
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

/* argv run as user in image, with the package volume read-write at
 * INSTALL_MOUNT (and the hand-over volume scratch, when not NULL,
 * read-only at SCRATCH_MOUNT), no network, the capabilities in caps only
 * and small limits. Returns 0 (done is called later) or a negative
 * code. */
static int run_helper(struct installer *in, const char *role, const char *image,
		      const char *user, const char *const *caps,
		      const char *const *argv, const char *scratch,
		      helper_done_fn done, void *arg)
{
	const struct container_mount mounts[] = {
		{in->cfg->pkg_volume, INSTALL_MOUNT, 0, in->volume_labels},
		{scratch, SCRATCH_MOUNT, 1, NULL},
		{NULL, NULL, 0, NULL},
	};
	const char *labels[24];
	char role_buf[64];
	struct container_spec spec = {
		.image = image,
		.labels = role_labels(in, role, role_buf, sizeof(role_buf),
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
		.user = user,
		.caps = caps,
		.entrypoint = argv,
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
		tail_add(j, res->out, res->out_len);
		tail_add(j, res->err, res->err_len);
		job_fail(j, ERR_INSTALL_FAILED, "%s failed (%s %d):\n%s", what,
			 res->exited ? "exit status" : "signal",
			 res->exited ? res->exit_code : res->signal, j->tail);
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

static void store_done(const struct error *err, void *arg)
{
	struct job *j = arg;

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
	if (run_helper(j->in, "store", j->pl->policy.image, "0", caps, argv,
		       j->scratch, store_done, j))
		job_fail(j, ERR_INSTALL_FAILED,
			 "the store step could not be started");
}

/* The install container puts the manifest beside the set it installed
 * into the hand-over volume. */
static void job_step_handover(struct job *j)
{
	const char *argv[] = {"/bin/cp", "/work/manifest.json",
			      SCRATCH_MOUNT "/manifest.json", NULL};
	struct env_buf env;
	char *text = cJSON_PrintUnformatted(j->manifest);

	if (!text) {
		job_fail(j, -ENOMEM, NULL);
		return;
	}
	job_env(j, &env, 0);
	job_exec(j, "handing the set over", NULL, argv, &env, STEP_TIMEOUT_MS,
		 "manifest.json", text, strlen(text), 0, job_step_store);
	env_free(&env);
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
	if (expand(j->pl->desc->manifest_cmd, &j->specs, argv, MAX_ARGS)) {
		job_fail(j, ERR_PLUGIN, "%s: no manifest_cmd",
			 j->pl->desc->name);
		return;
	}
	job_env(j, &env, 0);
	job_exec(j, "reading what was installed", NULL, argv, &env,
		 STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_manifest);
	env_free(&env);
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
	job_env(j, &env, 0);
	job_exec(j, "looking for the set in the package volume", NULL, argv,
		 &env, STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_probed);
	env_free(&env);
}

/* Run one of the plugin's commands through the egress proxy: once the
 * proxy answers, with the proxy variables, the mirror and the CA bundle. */
static void job_exec_proxied(struct job *j, const char *what,
			     const char *const *cmd, uint32_t timeout_ms,
			     int stream, step_fn next)
{
	const char *argv[MAX_ARGS];
	const char *wait[] = {"bash", "-c", install_proxy_wait_script, "wait",
			      NULL};
	struct env_buf env;

	if (expand(cmd, &j->specs, argv, MAX_ARGS)) {
		job_fail(j, ERR_PLUGIN, "%s: %s: too many arguments",
			 j->pl->desc->name, what);
		return;
	}
	job_env(j, &env, 1);
	job_exec(j, what, wait, argv, &env, timeout_ms,
		 j->in->ca ? CA_FILE : NULL, j->in->ca, j->in->ca_len, stream,
		 next);
	env_free(&env);
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

static void allow_join(const struct job *j, char *out, size_t size);

static void job_step_proxy(struct job *j)
{
	const struct config *cfg = j->in->cfg;
	char allow[MAX_ALLOW * 300 + 32], role_buf[64];
	const char *labels[24];
	struct install_proxy_spec spec;

	allow_join(j, allow, sizeof(allow));
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

/* Where the allow-list found for this job's image (and mirror) is kept in
 * the index. */
static void registries_key(const struct job *j, char *out, size_t size)
{
	const char *reg = j->pl->policy.registry;

	snprintf(out, size, "%s%s%s", j->image_id, reg ? " " : "",
		 reg ? reg : "");
}

/* Take the registries' URLs (one a line) as the proxy's allow-list. */
static int allow_urls(struct job *j, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char url[512], hp[300];
		size_t k;

		if (n && n < sizeof(url)) {
			memcpy(url, p, n);
			url[n] = '\0';
			while (n && (url[n - 1] == '\r' || url[n - 1] == ' '))
				url[--n] = '\0';
			if (n && pkg_url_hostport(url, hp, sizeof(hp)) == 0) {
				for (k = 0; k < j->nallow; k++)
					if (strcmp(j->allow[k], hp) == 0)
						break;
				if (k == j->nallow && j->nallow < MAX_ALLOW)
					memcpy(j->allow[j->nallow++], hp,
					       sizeof(hp));
			}
		}
		p += n + 1;
	}
	return j->nallow ? 0 : -ENOENT;
}

/* The allow-list as one string, "host:port host:port". */
static void allow_join(const struct job *j, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < j->nallow && o < size; i++)
		o += (size_t)snprintf(out + o, size - o, "%s%s", i ? " " : "",
				      j->allow[i]);
}

/* The allow-list from allow_join()'s form. */
static void allow_split(struct job *j, const char *s)
{
	while (*s && j->nallow < MAX_ALLOW) {
		size_t n = strcspn(s, " ");

		if (n && n < sizeof(j->allow[0]))
			snprintf(j->allow[j->nallow++], sizeof(j->allow[0]),
				 "%.*s", (int)n, s);
		s += n;
		s += strspn(s, " ");
	}
}

static void job_step_registries(struct job *j,
				const struct agent_exec_result *r)
{
	if (allow_urls(j, r->out, r->out_len)) {
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
	(void)allow_urls(j, r->out, r->out_len);
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
	char key[sizeof(j->image_id) + 512], allow[MAX_ALLOW * 300];

	if (!j->known && !j->followed && j->pl->desc->registry_follow_cmd) {
		job_step_follow(j);
		return;
	}
	if (!j->known) {
		/* The next install of this image starts its proxy at once. */
		registries_key(j, key, sizeof(key));
		allow_join(j, allow, sizeof(allow));
		pkg_cache_set_registries(j->in->cache, key, allow);
		j->known = 1;
	}
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
		if (allow_urls(j, reg, strlen(reg))) {
			job_fail(j, ERR_INSTALL_FAILED,
				 "[%s] registry = %s is not an http(s) URL",
				 j->pl->desc->name, reg);
			return;
		}
		job_step_proxy(j);
		return;
	}
	if (expand(j->pl->desc->registry_cmd, &j->specs, argv, MAX_ARGS)) {
		job_fail(j, ERR_INSTALL_FAILED,
			 "%s has no registry_cmd: set [%s] registry in "
			 "sandbox.ini",
			 j->pl->desc->name, j->pl->desc->name);
		return;
	}
	job_env(j, &env, 0);
	job_exec(j, "reading the installer's registries", NULL, argv, &env,
		 STEP_TIMEOUT_MS, NULL, NULL, 0, 0, job_step_registries);
	env_free(&env);
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

	registries_key(j, key, sizeof(key));
	known = pkg_cache_registries(j->in->cache, key);
	if (known) {
		allow_split(j, known);
		j->parallel = j->known = j->nallow > 0;
	}
	if (!j->parallel && reg && allow_urls(j, reg, strlen(reg)) == 0)
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
		job_fail(j,
			 err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
					      : ERR_INSTALL_FAILED,
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

/* ---- entry: image id, volume, cache lookup ---- */

struct lookup {
	struct installer *in;
	struct lookup *next;
	int cancelled;
	const struct plugin *pl;
	struct install_specs specs;
	struct install_req *w;
	uint64_t t0;
	char image_id[160];
	char key[PKG_KEY_LEN + 1];
	char options[512];
};

static void lookup_free(struct lookup *l)
{
	struct lookup **pp;

	for (pp = &l->in->lookups; *pp; pp = &(*pp)->next)
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	install_specs_free(&l->specs);
	free(l);
}

static void lookup_fail(struct lookup *l, int code, const char *msg)
{
	struct error e;

	error_set_msg(&e, code, msg);
	answer_waiter(l->w, &e, NULL, 0, 0, NULL, 0);
	lookup_free(l);
}

/* The lookup's request waits for job j from now on. */
static void join(struct job *j, struct lookup *l)
{
	l->w->l = NULL;
	l->w->j = j;
	j->w[j->nw++] = l->w;
	lookup_free(l);
}

static void volume_cb_(const struct error *err, const char *created_at,
		       int created, void *arg)
{
	struct lookup *l = arg;
	struct installer *in = l->in;
	struct pkg_entry *e;
	struct job *j;

	if (l->cancelled) {
		lookup_fail(l, ERR_CANCELLED, "the install was cancelled");
		return;
	}
	if (err) {
		lookup_fail(l,
			    err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
						 : ERR_INSTALL_FAILED,
			    err->msg);
		return;
	}
	/* A volume this index does not describe: its sets are unknown. */
	(void)created;
	pkg_cache_bind_volume(in->cache, created_at);
	e = pkg_cache_find(in->cache, l->key);
	if (e) {
		e->last_used = (int64_t)time(NULL);
		pkg_cache_save(in->cache);
		answer_waiter(l->w, NULL, e, 1, since(l->t0), NULL, 0);
		lookup_free(l);
		return;
	}
	for (j = in->jobs; j; j = j->next)
		if (strcmp(j->key, l->key) == 0 && !j->cancelled &&
		    j->nw < MAX_WAITERS) {
			join(j, l);
			return;
		}
	j = calloc(1, sizeof(*j));
	if (!j) {
		lookup_fail(l, -ENOMEM, NULL);
		return;
	}
	j->in = in;
	j->pl = l->pl;
	j->specs = l->specs;
	l->specs.n = 0;
	memcpy(j->key, l->key, sizeof(j->key));
	memcpy(j->image_id, l->image_id, sizeof(j->image_id));
	j->t0 = l->t0;
	join(j, l);
	j->next = in->jobs;
	in->jobs = j;
	{
		const char *labels[] = {"org.mcp-sandbox.role=packages", NULL};

		if (network_ensure(in->d, in->cfg->pkg_network, 1, labels,
				   net_ready_cb, j))
			job_fail(j, ERR_INSTALL_FAILED,
				 "the install network name %s is not valid",
				 in->cfg->pkg_network);
	}
}

static void image_cb_(const struct error *err, const char *id, void *arg)
{
	struct lookup *l = arg;
	char **v = l->specs.v;

	if (l->cancelled) {
		lookup_fail(l, ERR_CANCELLED, "the install was cancelled");
		return;
	}
	if (err) {
		lookup_fail(l,
			    err->code == -ENOENT   ? ERR_IMAGE_MISSING
			    : err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
						   : ERR_INSTALL_FAILED,
			    err->msg);
		return;
	}
	snprintf(l->image_id, sizeof(l->image_id), "%s", id);
	if (pkg_key(l->pl->desc->name, l->image_id, l->options, v, l->specs.n,
		    l->key)) {
		lookup_fail(l, -ENOMEM, NULL);
		return;
	}
	if (volume_ensure(l->in->d, l->in->cfg->pkg_volume,
			  l->in->volume_labels, INSTALL_VOLUME_ID_LABEL,
			  volume_cb_, l))
		lookup_fail(l, ERR_INSTALL_FAILED,
			    "the package volume name is not valid");
}

int installer_install(struct installer *in, const struct plugin *pl,
		      const char *owner, struct install_specs *specs,
		      install_progress_cb progress_cb, install_cb cb, void *arg,
		      struct install_req **req, struct error *err)
{
	struct install_req *w;
	struct lookup *l;
	const char *reg = pl->policy.registry;
	int rc;

	if (!installer_enabled(in))
		return error_set(err, ERR_INSTALLS_DISABLED, NULL);
	if (!pl->desc->package_ecosystem || !pl->desc->install_cmd)
		return error_set(err, ERR_NO_INSTALLER,
				 "%s installs no packages", pl->desc->name);
	if (in->closing)
		return error_set(err, ERR_SHUTTING_DOWN, NULL);
	l = calloc(1, sizeof(*l));
	w = calloc(1, sizeof(*w));
	if (!l || !w) {
		free(l);
		free(w);
		return error_set(err, -ENOMEM, NULL);
	}
	*w = (struct install_req){cb, progress_cb, arg, l, NULL};
	l->in = in;
	l->pl = pl;
	l->specs = *specs;
	specs->n = 0;
	l->w = w;
	l->t0 = uv_hrtime();
	/* The installer's options: the mirror it is pointed at; and whose
	 * set it is, so that a tenant's sets are its own (a cache hit on
	 * another's would tell what that one installed). */
	snprintf(l->options, sizeof(l->options), "registry=%s%s%s",
		 reg ? reg : "", owner ? ";tenant=" : "", owner ? owner : "");
	rc = image_check(in->d, pl->policy.image, image_cb_, l);
	if (rc) {
		*specs = l->specs;
		free(l);
		free(w);
		return error_set(err, rc == -EINVAL ? ERR_IMAGE_MISSING : rc,
				 "cannot look up the image %s",
				 pl->policy.image);
	}
	l->next = in->lookups;
	in->lookups = l;
	if (req)
		*req = w;
	return 0;
}

void installer_cancel(struct install_req *r)
{
	struct job *j = r->j;
	struct error e;
	size_t i;

	if (r->l) {
		r->l->cancelled = 1; /* answered when the lookup ends */
		return;
	}
	for (i = 0; i < j->nw && j->w[i] != r; i++)
		;
	if (i == j->nw)
		return;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	memmove(&j->w[i], &j->w[i + 1], (j->nw - i - 1) * sizeof(j->w[0]));
	j->nw--;
	if (!j->nw && !j->cancelled) {
		/* The step under way ends with cancelled set; job_exec starts
		 * no other. */
		j->cancelled = 1;
		log_info("%s: install of %.12s cancelled", j->pl->desc->name,
			 j->key);
		if (j->ac)
			agent_client_cancel(j->ac);
	}
	error_set(&e, ERR_CANCELLED, "the install was cancelled");
	answer_waiter(r, &e, NULL, 0, since(j->t0), NULL, 0);
}

void installer_free(struct installer *in)
{
	if (!in)
		return;
	/* Jobs under way end through their callbacks (docker_free() cancels
	 * their requests); the last one frees the installer. Their
	 * containers carry this server's labels, so a crash leaves nothing
	 * that the next start's orphan clean-up does not remove. */
	in->closing = 1;
	if (!in->jobs)
		installer_destroy(in);
}

/* ---- prune ---- */

struct prune {
	struct installer *in;
	install_prune_cb cb;
	void *arg;
	struct error err;
	int failed;
};

static void prune_end(struct prune *pr)
{
	struct pkg_cache *c = pr->in->cache;
	size_t sets = 0, i = 0;
	uint64_t bytes = 0;
	struct pkg_entry *e;

	if (!pr->failed) {
		/* What the container removed: every set but those in use. */
		while ((e = pkg_cache_at(c, i))) {
			if (pr->in->busy &&
			    pr->in->busy(e->key, pr->in->busy_arg)) {
				i++;
				continue;
			}
			sets++;
			bytes += e->bytes;
			pkg_cache_remove(c, e->key);
		}
	}
	pr->cb(pr->failed ? &pr->err : NULL, sets, bytes, pr->arg);
	free(pr);
}

static void prune_done(const struct error *err, void *arg)
{
	struct prune *pr = arg;

	if (err) {
		pr->failed = 1;
		error_set(&pr->err, ERR_INSTALL_FAILED,
			  "removing the cached sets failed: %s", err->msg);
	}
	prune_end(pr);
}

static void prune_volume_cb(const struct error *err, const char *ident,
			    int created, void *arg)
{
	struct prune *pr = arg;
	struct installer *in = pr->in;
	const char *argv[MAX_EVICT * 3 + 16];
	struct pkg_entry *e;
	size_t n = 0, i;

	(void)created;
	if (err) {
		pr->failed = 1;
		error_set_msg(&pr->err,
			      err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
						   : ERR_INSTALL_FAILED,
			      err->msg);
		prune_end(pr);
		return;
	}
	pkg_cache_bind_volume(in->cache, ident);
	/* find, not a shell: every entry of the volume but the sets in use
	 * (and nothing when the volume is empty). */
	argv[n++] = "/usr/bin/find";
	argv[n++] = INSTALL_MOUNT;
	argv[n++] = "-mindepth";
	argv[n++] = "1";
	argv[n++] = "-maxdepth";
	argv[n++] = "1";
	for (i = 0; (e = pkg_cache_at(in->cache, i)) && n + 8 < MAX_EVICT * 3;
	     i++) {
		if (!in->busy || !in->busy(e->key, in->busy_arg))
			continue;
		argv[n++] = "!";
		argv[n++] = "-name";
		argv[n++] = e->key;
	}
	argv[n++] = "-exec";
	argv[n++] = "rm";
	argv[n++] = "-rf";
	argv[n++] = "{}";
	argv[n++] = "+";
	argv[n] = NULL;
	if (run_helper(in, "prune", in->cfg->pkg_proxy_image, "0", NULL, argv,
		       NULL, prune_done, pr)) {
		pr->failed = 1;
		error_set(&pr->err, ERR_INSTALL_FAILED,
			  "removing the cached sets failed");
		prune_end(pr);
	}
}

int installer_prune(struct installer *in, install_prune_cb cb, void *arg,
		    struct error *err)
{
	struct prune *pr;

	if (!installer_enabled(in))
		return error_set(err, ERR_INSTALLS_DISABLED, NULL);
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return error_set(err, -ENOMEM, NULL);
	pr->in = in;
	pr->cb = cb;
	pr->arg = arg;
	if (volume_ensure(in->d, in->cfg->pkg_volume, in->volume_labels,
			  INSTALL_VOLUME_ID_LABEL, prune_volume_cb, pr)) {
		free(pr);
		return error_set(err, ERR_INSTALL_FAILED,
				 "the package volume name is not valid");
	}
	return 0;
}
