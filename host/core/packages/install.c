/*
 * install.c - package installs (install.h, docs/packages.md): the
 * installer and its requests. A request is looked up first (the image id,
 * the package volume, the cache key in the index): a set in the cache is
 * answered at once, a set being installed gets the request as one more
 * waiter, any other set starts a job (install_job.c). Here too: the
 * answers, every waiter's exactly once, and cancellation by handle.
 * What the parts share: install_internal.h.
 */
#include "install.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/engines/seccomp_profile.h"
#include "docker/container.h"
#include "docker/network.h"
#include "install_internal.h"
#include "util/log.h"
#include "util/state_dir.h"

#define LOG_MODULE "install"

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

cJSON *install_specs_json(const struct install_specs *s)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; arr && i < s->n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s->v[i]));
	return arr;
}

/* ---- answering ---- */

static double since(uint64_t t0)
{
	return (double)(uv_hrtime() - t0) / 1e9;
}

/* The request's one answer; the handle is freed after it. */
static void answer_waiter(struct install_req *w, const struct error *err,
			  const struct pkg_entry *e, int cached, double secs,
			  const cJSON *conns, int egress_refused,
			  const cJSON *registries)
{
	struct install_result res = {
		.entry = err ? NULL : e,
		.cached = cached,
		.seconds = secs,
		.connections = conns,
		.egress_refused = err && egress_refused,
		.registries = registries,
	};

	w->cb(err, &res, w->arg);
	free(w);
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

/* ---- registries found unreachable ([packages] registry_retry_ms) ---- */

static void unreachable_add(struct installer *in, const struct job *j)
{
	struct unreachable *u = &in->unreachable[0];
	uint64_t now = uv_now(in->loop);
	char key[sizeof(u->key)];
	size_t i;

	if (!in->cfg->pkg_registry_retry_ms)
		return;
	install_registries_key(j, key, sizeof(key));
	/* The same key's slot, else the oldest. */
	for (i = 0; i < sizeof(in->unreachable) / sizeof(*u); i++) {
		struct unreachable *x = &in->unreachable[i];

		if (strcmp(x->key, key) == 0) {
			u = x;
			break;
		}
		if (x->until < u->until)
			u = x;
	}
	memcpy(u->key, key, sizeof(key));
	u->at = now;
	u->until = now + in->cfg->pkg_registry_retry_ms;
	snprintf(u->msg, sizeof(u->msg), "%s", j->err.msg);
}

/* A registry this image (and mirror) needs failed lately: its answer,
 * said again, into e; else 0. */
static int unreachable_find(struct installer *in, const char *image_id,
			    const struct plugin *pl, struct error *e)
{
	uint64_t now = uv_now(in->loop);
	char key[sizeof(in->unreachable[0].key)];
	size_t i;

	install_registries_key_of(image_id, pl, key, sizeof(key));
	for (i = 0; i < sizeof(in->unreachable) / sizeof(in->unreachable[0]);
	     i++) {
		const struct unreachable *u = &in->unreachable[i];

		if (u->until > now && strcmp(u->key, key) == 0) {
			error_set(e, ERR_REGISTRY_UNREACHABLE,
				  "%s\nFound %.1f s ago, and not tried again "
				  "for %.1f s more ([packages] "
				  "registry_retry_ms).",
				  u->msg, (double)(now - u->at) / 1e3,
				  (double)(u->until - now) / 1e3);
			return 1;
		}
	}
	return 0;
}

void install_job_end(struct job *j)
{
	struct installer *in = j->in;
	struct pkg_entry *e = NULL;
	size_t i;

	job_unlink(j);
	if (j->failed && j->unreachable)
		unreachable_add(in, j);
	if (!j->failed && !j->check_only) {
		cJSON *specs = install_specs_json(&j->specs);

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
		answer_waiter(j->w[i],
			      e || (j->check_only && !j->failed) ? NULL
								 : &j->err,
			      e, j->cached, since(j->t0), j->connections,
			      j->egress_refused, j->registries);
	install_specs_free(&j->specs);
	cJSON_Delete(j->manifest);
	cJSON_Delete(j->connections);
	cJSON_Delete(j->registries);
	free(j);
	if (in->closing && !in->jobs)
		installer_destroy(in);
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
	int check_only; /* installer_check_registries() */
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
	answer_waiter(l->w, &e, NULL, 0, 0, NULL, 0, NULL);
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

/* A job for the lookup's request, which waits for it from now on. */
static void job_new(struct lookup *l)
{
	struct installer *in = l->in;
	struct job *j = calloc(1, sizeof(*j));

	if (!j || (l->check_only && !(j->registries = cJSON_CreateArray()))) {
		free(j);
		lookup_fail(l, -ENOMEM, NULL);
		return;
	}
	j->in = in;
	j->pl = l->pl;
	j->check_only = l->check_only;
	j->specs = l->specs;
	l->specs.n = 0;
	memcpy(j->key, l->key, sizeof(j->key));
	memcpy(j->image_id, l->image_id, sizeof(j->image_id));
	j->t0 = l->t0;
	join(j, l);
	j->next = in->jobs;
	in->jobs = j;
	install_job_run(j);
}

static void volume_cb_(const struct error *err, const char *created_at,
		       int created, void *arg)
{
	struct lookup *l = arg;
	struct installer *in = l->in;
	struct pkg_entry *e;
	struct job *j;
	struct error e2;

	if (l->cancelled) {
		lookup_fail(l, ERR_CANCELLED, "the install was cancelled");
		return;
	}
	if (err) {
		lookup_fail(l, install_engine_code(err), err->msg);
		return;
	}
	/* A volume this index does not describe: its sets are unknown. */
	(void)created;
	pkg_cache_bind_volume(in->cache, created_at);
	e = pkg_cache_find(in->cache, l->key);
	if (e) {
		e->last_used = (int64_t)time(NULL);
		pkg_cache_save(in->cache);
		answer_waiter(l->w, NULL, e, 1, since(l->t0), NULL, 0, NULL);
		lookup_free(l);
		return;
	}
	for (j = in->jobs; j; j = j->next)
		if (strcmp(j->key, l->key) == 0 && !j->cancelled &&
		    j->nw < MAX_WAITERS) {
			join(j, l);
			return;
		}
	if (unreachable_find(in, l->image_id, l->pl, &e2)) {
		lookup_fail(l, e2.code, e2.msg);
		return;
	}
	job_new(l);
}

static void image_cb_(const struct error *err, const char *id, void *arg)
{
	struct lookup *l = arg;
	char **v = l->specs.v;
	char installer[1024];
	struct error e;

	if (l->cancelled) {
		lookup_fail(l, ERR_CANCELLED, "the install was cancelled");
		return;
	}
	if (err) {
		lookup_fail(l,
			    err->code == -ENOENT ? ERR_IMAGE_MISSING
						 : install_engine_code(err),
			    err->msg);
		return;
	}
	snprintf(l->image_id, sizeof(l->image_id), "%s", id);
	if (l->check_only) {
		snprintf(l->key, sizeof(l->key), "registry-check");
		job_new(l);
		return;
	}
	/* Keyed by the installer, not the language: languages that share
	 * one installer and one image share their sets. */
	if (pkg_installer_id(l->pl->desc->package_ecosystem,
			     l->pl->desc->install_cmd, l->pl->desc->install_env,
			     installer, sizeof(installer)) ||
	    pkg_key(installer, l->image_id, l->options, v, l->specs.n,
		    l->key)) {
		lookup_fail(l, -ENOMEM, NULL);
		return;
	}
	if (install_volume(l->in, volume_cb_, l, &e))
		lookup_fail(l, e.code, e.msg);
}

int install_volume(struct installer *in, volume_cb cb, void *arg,
		   struct error *err)
{
	if (volume_ensure(in->d, in->cfg->pkg_volume, in->volume_labels,
			  INSTALL_VOLUME_ID_LABEL, cb, arg))
		return error_set(err, ERR_INSTALL_FAILED,
				 "the package volume name is not valid");
	return 0;
}

static int lookup_begin(struct installer *in, const struct plugin *pl,
			const char *owner, struct install_specs *specs,
			int check_only, install_progress_cb progress_cb,
			install_cb cb, void *arg, struct install_req **req,
			struct error *err)
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
	l->check_only = check_only;
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

int installer_install(struct installer *in, const struct plugin *pl,
		      const char *owner, struct install_specs *specs,
		      install_progress_cb progress_cb, install_cb cb, void *arg,
		      struct install_req **req, struct error *err)
{
	return lookup_begin(in, pl, owner, specs, 0, progress_cb, cb, arg, req,
			    err);
}

const char *installer_upstream(const struct installer *in)
{
	return in->upstream;
}

int installer_check_registries(struct installer *in, const struct plugin *pl,
			       install_progress_cb progress_cb, install_cb cb,
			       void *arg, struct error *err)
{
	struct install_specs none = {.n = 0};

	return lookup_begin(in, pl, NULL, &none, 1, progress_cb, cb, arg, NULL,
			    err);
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
	answer_waiter(r, &e, NULL, 0, since(j->t0), NULL, 0, NULL);
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
