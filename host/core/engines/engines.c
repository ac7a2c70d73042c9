/*
 * engines.c - the engines, their health and placement (engines.h).
 */
#define LOG_MODULE "engines"

#include "engines.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_info.h"
#include "util/defer.h"
#include "error.h"
#include "util/log.h"

/* A request for a box, from engines_acquire() until its callback (or
 * engines_cancel_acquire): the handle callers hold. */
struct engines_wait {
	struct engines *es;
	const struct plugin *pl;
	struct engine *only;
	unsigned flags; /* pool_acquire()'s */
	pool_acquire_cb cb;
	void *arg;
	struct engine *at;    /* the engine whose pool it waits in, or NULL */
	struct pool_wait *pw; /* ... and its handle there */
	uint32_t tried;	      /* engines asked, by index bit */
	int deferred;	      /* its answer is on the way through the loop */
	int parked;	      /* waits for an engine's first answer */
	int cancelled;	      /* ... and nobody wants it any more */
	struct error err;     /* what the engines said when none could */
	struct engines_wait *prev, *next;
};

struct engine {
	struct engines *es;
	size_t index;
	char name[33];
	struct docker *d;
	struct pool *pool;
	uint32_t weight;
	uint32_t max_containers;
	enum engine_health health;
	int ever_up;
	int contacted; /* its first negotiation has answered, either way */
	struct installer *installer; /* borrowed (engine_set_installer) */
	int probing;		     /* a GET /_ping in flight */
	int negotiating;	     /* a GET /version in flight */
	unsigned failures;
	unsigned sessions; /* pinned here (engine_count_session) */
	int64_t since_ms;  /* of the current health */
	unsigned long placed, failovers, downs;
	char last_error[256];
	cJSON *desc; /* what it said of itself when it last came up */
};

struct engines {
	uv_loop_t *loop;
	const struct config *cfg;
	const struct plugin_set *ps; /* borrowed, outlives es */
	struct engine *v;
	size_t n;
	uv_timer_t probe; /* embedded; closed at shutdown */
	int probe_init;
	struct engines_wait *waiting;
	int started;	      /* engines_start ran */
	unsigned uncontacted; /* engines whose first answer is awaited */
	int refill;	      /* engines_set_refill's wish */
	engines_up_cb up_cb;
	void *up_arg;
	int shutting_down;
	unsigned pools_left;
	void (*done)(void *arg);
	void *done_arg;
};

static int64_t now_ms(void)
{
	uv_timeval64_t tv;

	if (uv_gettimeofday(&tv) != 0)
		return 0;
	return tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int engines_new(uv_loop_t *loop, const struct config *cfg,
		const struct plugin_set *ps, const struct engines_options *opt,
		struct engines **out, struct error *err)
{
	const struct engine_config *ec;
	struct engines *es;
	size_t i, n;
	int rc;

	ec = config_engines(cfg, &n);
	es = calloc(1, sizeof(*es));
	if (!es || !(es->v = calloc(n, sizeof(*es->v)))) {
		free(es);
		return error_set(err, -ENOMEM, "out of memory");
	}
	es->loop = loop;
	es->cfg = cfg;
	es->ps = ps;
	es->refill = 1;
	for (i = 0; i < n; i++, es->n++) {
		struct engine *e = &es->v[i];
		struct docker_options o = {
			.host = ec[i].host,
			.tls_ca = ec[i].tls_ca,
			.tls_cert = ec[i].tls_cert,
			.tls_key = ec[i].tls_key,
			.allow_plaintext = (int)ec[i].allow_plaintext,
		};
		struct error derr;

		e->es = es;
		e->index = i;
		snprintf(e->name, sizeof(e->name), "%s", ec[i].name);
		e->weight = ec[i].weight ? ec[i].weight : 1;
		e->max_containers = ec[i].max_containers ? ec[i].max_containers
							 : cfg->max_containers;
		e->since_ms = now_ms();
		rc = docker_new(loop, &o, &e->d, &derr);
		if (rc) {
			error_set(err, rc, "engine %s: %s", e->name, derr.msg);
			goto fail;
		}
		docker_set_timeout(e->d, (long)cfg->api_timeout_ms);
		rc = pool_new(
			loop, e->d, ps,
			&(struct pool_options){
				.max_containers = e->max_containers,
				.idle_shrink_s = cfg->idle_shrink_s,
				.memory_budget_mb = cfg->memory_budget_mb,
				.labels = opt->labels,
				.pkg_volume = opt->pkg_volume,
				.pkg_mount = opt->pkg_mount,
				.pkg_volume_label = opt->pkg_volume_label,
				.floor_capped = ec[i].pool_size >= 0,
				.floor_cap = ec[i].pool_size >= 0
						     ? (uint32_t)ec[i].pool_size
						     : 0,
			},
			&e->pool);
		if (rc) {
			docker_free(e->d);
			error_set(err, rc, "engine %s: out of memory", e->name);
			goto fail;
		}
	}
	*out = es;
	return 0;
fail:
	/* Only the clients exist: their handles close with the loop. */
	while (i-- > 0) {
		docker_free(es->v[i].d);
		pool_free(es->v[i].pool);
	}
	free(es->v);
	free(es);
	return rc;
}

void engines_on_up(struct engines *es, engines_up_cb cb, void *arg)
{
	es->up_cb = cb;
	es->up_arg = arg;
}

size_t engines_count(const struct engines *es)
{
	return es->n;
}

struct engine *engines_at(const struct engines *es, size_t i)
{
	return i < es->n ? &es->v[i] : NULL;
}

struct engine *engines_find(const struct engines *es, const char *name)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (strcmp(es->v[i].name, name) == 0)
			return &es->v[i];
	return NULL;
}

struct engine *engines_of_pool(const struct engines *es, const struct pool *p)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (es->v[i].pool == p)
			return &es->v[i];
	return NULL;
}

const char *engine_name(const struct engine *e)
{
	return e->name;
}

struct docker *engine_docker(const struct engine *e)
{
	return e->d;
}

const cJSON *engine_description(const struct engine *e)
{
	return e->desc;
}

struct pool *engine_pool(const struct engine *e)
{
	return e->pool;
}

enum engine_health engine_health(const struct engine *e)
{
	return e->health;
}

void engine_set_installer(struct engine *e, struct installer *in)
{
	e->installer = in;
}

struct installer *engine_installer(const struct engine *e)
{
	return e->installer;
}

const char *engine_health_name(enum engine_health h)
{
	switch (h) {
	case ENGINE_UP:
		return "up";
	case ENGINE_DOWN:
		return "down";
	case ENGINE_REFUSED:
		return "refused";
	default:
		return "unknown";
	}
}

/* ------------------------------------------------------------------ */
/* Health                                                              */

static void placement_move_off(struct engine *e);
static void placement_unpark(struct engines *es);

/* The first answer of e's first negotiation, either way: callers that
 * waited for it are placed now. */
static void contacted(struct engine *e)
{
	if (e->contacted)
		return;
	e->contacted = 1;
	e->es->uncontacted--;
	placement_unpark(e->es);
}

static void mark_down(struct engine *e, const char *reason)
{
	snprintf(e->last_error, sizeof(e->last_error), "%s", reason);
	if (e->health == ENGINE_DOWN)
		return;
	log_warn("engine %s (%s) is down: %s", e->name, docker_endpoint(e->d),
		 reason);
	e->health = ENGINE_DOWN;
	e->since_ms = now_ms();
	e->downs++;
	/* Whoever waits there for a box goes elsewhere now rather than
	 * after a connect timeout. */
	placement_move_off(e);
}

static void probe_failed(struct engine *e, const char *reason)
{
	e->failures++;
	snprintf(e->last_error, sizeof(e->last_error), "%s", reason);
	if (e->failures >= e->es->cfg->down_after)
		mark_down(e, reason);
}

static void go_up(struct engine *e);

static void unreachable(struct engine *e, const char *reason)
{
	probe_failed(e, reason);
	if (!e->ever_up && e->failures == 1)
		log_error("engine %s (%s) is not reachable (%s): its calls go "
			  "to other engines, or fail with docker_unavailable, "
			  "until it is",
			  e->name, docker_endpoint(e->d), reason);
	contacted(e);
}

/* /info's CPU count: no container on e gets more (container_run clamps),
 * and each language asking for more is told, once per engine and count.
 * Policy is resolved once for every engine (plugins_apply_config), and
 * engines may differ: the clamp is per engine, at creation. */
static void cpus_known(struct engine *e, const cJSON *info)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(info, "cpus");
	unsigned cpus = cJSON_IsNumber(n) && n->valuedouble >= 1
				? (unsigned)n->valuedouble
				: 0;
	size_t i;

	if (!cpus || cpus == docker_cpus(e->d))
		return;
	docker_set_cpus(e->d, cpus);
	for (i = 0; e->es->ps && i < e->es->ps->n; i++) {
		const struct plugin *pl = &e->es->ps->v[i];

		if (pl->policy.limits.cpu_millis > cpus * 1000u)
			log_warn("[%s] cpu_millis %u is more than engine %s "
				 "has (%u CPUs): its containers there get %u; "
				 "set cpu_millis to at most %u (sandbox.ini, "
				 "[%s] or [limits])",
				 pl->desc->name, pl->policy.limits.cpu_millis,
				 e->name, cpus, cpus * 1000u, cpus * 1000u,
				 pl->desc->name);
	}
}

unsigned engine_cpus(const struct engine *e)
{
	return docker_cpus(e->d);
}

/* /info: can it enforce the limits? */
static void limits_cb(const struct error *err, cJSON *info, void *arg)
{
	struct engine *e = arg;
	struct error refused;

	e->negotiating = 0;
	if (e->es->shutting_down) {
		cJSON_Delete(info);
		return;
	}
	if (err) {
		unreachable(e, err->msg);
		return;
	}
	if (engine_info_cannot_limit(info, &refused)) {
		cJSON_Delete(info);
		log_error("engine %s (%s) is refused: %s", e->name,
			  docker_endpoint(e->d), refused.msg);
		snprintf(e->last_error, sizeof(e->last_error),
			 "refused: %.199s", refused.msg);
		e->health = ENGINE_REFUSED;
		e->since_ms = now_ms();
		placement_move_off(e);
		contacted(e);
		return;
	}
	cpus_known(e, info);
	cJSON_Delete(e->desc);
	e->desc = info;
	go_up(e);
}

static void negotiated_cb(const struct docker_response *res, void *arg)
{
	struct engine *e = arg;

	if (res->err == -ECANCELED || e->es->shutting_down) {
		e->negotiating = 0;
		return;
	}
	if (res->err || res->status != 200) {
		e->negotiating = 0;
		unreachable(e, res->errmsg ? res->errmsg : "no answer");
		return;
	}
	e->failures = 0;
	e->last_error[0] = '\0';
	if (e->health == ENGINE_UP) {
		e->negotiating = 0;
		return;
	}
	/* Still negotiating until /info has answered. */
	if (engine_info_get(e->d, limits_cb, e) != 0) {
		struct error err;

		error_set(&err, ERR_DOCKER_UNAVAILABLE, "cannot ask GET /info");
		limits_cb(&err, NULL, e);
	}
}

static void go_up(struct engine *e)
{
	int first = !e->ever_up;

	log_info("engine %s at %s%s%s is up, API %s%s", e->name,
		 docker_endpoint(e->d), docker_tls(e->d) ? " (TLS)" : "",
		 docker_is_podman(e->d) ? " (Podman)" : "",
		 docker_api_version(e->d) ? docker_api_version(e->d) : "?",
		 first ? "" : " (back)");
	e->health = ENGINE_UP;
	e->since_ms = now_ms();
	e->ever_up = 1;
	/* Warm containers only once the engine's kind is known (Podman
	 * takes its seccomp profile differently). */
	pool_set_refill(e->pool, e->es->refill);
	pool_wake(e->pool);
	if (e->es->up_cb)
		e->es->up_cb(e, first, e->es->up_arg);
	contacted(e);
}

static void negotiate(struct engine *e)
{
	if (e->negotiating || e->es->shutting_down)
		return;
	if (docker_negotiate(e->d, negotiated_cb, e) == 0)
		e->negotiating = 1;
}

static void probe_cb(const struct docker_response *res, void *arg)
{
	struct engine *e = arg;

	e->probing = 0;
	if (res->err == -ECANCELED || e->es->shutting_down)
		return;
	if (res->err || res->status != 200) {
		probe_failed(e, res->errmsg ? res->errmsg : "no answer");
		return;
	}
	e->failures = 0;
	/* Back (or first seen by the probe): the version may have changed
	 * with the daemon, and the pool waits to be woken. */
	if (e->health != ENGINE_UP)
		negotiate(e);
}

static void probe(struct engine *e)
{
	if (e->probing || e->negotiating || e->es->shutting_down ||
	    e->health == ENGINE_REFUSED)
		return;
	if (docker_request(e->d, "GET", "/_ping", NULL,
			   (long)e->es->cfg->probe_timeout_ms, probe_cb,
			   e) == 0)
		e->probing = 1;
}

static void probe_timer_cb(uv_timer_t *t)
{
	struct engines *es = t->data;
	size_t i;

	for (i = 0; i < es->n; i++)
		probe(&es->v[i]);
}

void engines_start(struct engines *es)
{
	size_t i;

	es->started = 1;
	es->uncontacted = (unsigned)es->n;
	for (i = 0; i < es->n; i++) {
		/* No container before the engine has answered. */
		pool_set_refill(es->v[i].pool, 0);
		negotiate(&es->v[i]);
	}
	uv_timer_init(es->loop, &es->probe);
	es->probe.data = es;
	es->probe_init = 1;
	uv_timer_start(&es->probe, probe_timer_cb, es->cfg->probe_interval_ms,
		       es->cfg->probe_interval_ms);
	/* Probes never keep a server alive that has nothing else to do. */
	uv_unref((uv_handle_t *)&es->probe);
}

/* ------------------------------------------------------------------ */
/* Placement                                                           */

static void placement_link(struct engines_wait *pr)
{
	struct engines *es = pr->es;

	pr->next = es->waiting;
	if (es->waiting)
		es->waiting->prev = pr;
	es->waiting = pr;
}

static void placement_free(struct engines_wait *pr)
{
	struct engines *es = pr->es;

	if (pr->prev)
		pr->prev->next = pr->next;
	else
		es->waiting = pr->next;
	if (pr->next)
		pr->next->prev = pr->prev;
	free(pr);
}

/* Lower is better: the tier (idle box, room, any, no image), then the
 * load per weight, then the order of the configuration. */
struct rank {
	int tier;
	uint64_t load; /* (held + waiting + 1) scaled by 1/weight */
};

static struct rank rank_of(const struct engine *e, const struct plugin *pl)
{
	struct pool_stats st;
	struct pool_load ld;
	struct rank r;

	pool_stats(e->pool, pl, &st);
	pool_load(e->pool, &ld);
	if (st.image_missing)
		r.tier = 3;
	else if (st.idle)
		r.tier = 0;
	else if (ld.boxes < ld.max_containers)
		r.tier = 1;
	else
		r.tier = 2;
	/* Fixed point: weights are 1..1000. */
	r.load = ((uint64_t)ld.held + ld.waiting + e->sessions + 1) * 1000000u /
		 e->weight;
	return r;
}

/* The engine to ask next, or NULL when every candidate was asked. */
static struct engine *pick(struct engines *es, const struct plugin *pl,
			   uint32_t tried)
{
	struct engine *best = NULL;
	struct rank br = {0, 0};
	size_t i;
	int pass;

	/* Engines that answer first, then those not yet down; one whose
	 * first answer is awaited is no candidate yet (place() waits for
	 * it). */
	for (pass = 0; pass < 2 && !best; pass++)
		for (i = 0; i < es->n; i++) {
			struct engine *e = &es->v[i];
			struct rank r;

			if (tried & (1u << i) || e->health == ENGINE_DOWN ||
			    e->health == ENGINE_REFUSED ||
			    (pass == 0) != (e->health == ENGINE_UP) ||
			    (es->started && !e->contacted))
				continue;
			r = rank_of(e, pl);
			if (!best || r.tier < br.tier ||
			    (r.tier == br.tier && r.load < br.load)) {
				best = e;
				br = r;
			}
		}
	return best;
}

struct engine *engines_choose(struct engines *es, const struct plugin *pl)
{
	return pick(es, pl, 0);
}

/* Why no engine could take the request, for the caller. */
static void none_left(struct engines_wait *pr)
{
	struct engines *es = pr->es;
	char buf[ERROR_MSG_MAX];
	size_t i, off = 0;

	if (pr->err.code)
		return; /* the last engine's own words */
	off += (size_t)snprintf(buf, sizeof(buf), "no engine answers:");
	for (i = 0; i < es->n && off < sizeof(buf); i++)
		off += (size_t)snprintf(
			buf + off, sizeof(buf) - off, "%s %s (%s)",
			i ? ";" : "", es->v[i].name,
			es->v[i].last_error[0]
				? es->v[i].last_error
				: engine_health_name(es->v[i].health));
	error_set_msg(&pr->err, ERR_DOCKER_UNAVAILABLE, buf);
}

static void placed_cb(struct box *b, const struct error *err, void *arg);

/* Ask engines in placement order until one gives a box or takes the
 * request in its queue. 0 with *out, 1 waiting, or -1 when none is left
 * (pr->err says why) or a negative code from the pool. */
static int place(struct engines_wait *pr, struct box **out)
{
	struct engines *es = pr->es;
	struct engine *e;
	int rc;

	for (;;) {
		if (pr->only)
			e = pr->tried || pr->only->health == ENGINE_DOWN ||
					    pr->only->health == ENGINE_REFUSED
				    ? NULL
				    : pr->only;
		else
			e = pick(es, pr->pl, pr->tried);
		if (!e && es->uncontacted &&
		    (!pr->only || !pr->only->contacted)) {
			pr->parked = 1; /* placement_unpark() */
			return 1;
		}
		if (!e) {
			if (pr->only && !pr->err.code)
				error_set(&pr->err, ERR_DOCKER_UNAVAILABLE,
					  "engine %s does not answer (%s)",
					  pr->only->name,
					  pr->only->last_error[0]
						  ? pr->only->last_error
						  : "down");
			none_left(pr);
			return -1;
		}
		pr->tried |= 1u << e->index;
		rc = pool_acquire(e->pool, pr->pl, pr->flags, placed_cb, pr,
				  out, &pr->pw);
		if (rc == 0) {
			e->placed++;
			return 0;
		}
		if (rc == 1) {
			pr->at = e;
			return 1;
		}
		if (rc != ERR_SHUTTING_DOWN && rc != -ENOMEM)
			continue;
		return rc;
	}
}

static void deferred_cb(void *arg)
{
	struct engines_wait *pr = arg;
	pool_acquire_cb cb = pr->cb;
	void *cb_arg = pr->arg;
	struct error err = pr->err;

	if (pr->cancelled) {
		placement_free(pr);
		return;
	}
	placement_free(pr);
	cb(NULL, &err, cb_arg);
}

/* Whether an engine's failure to give a box sends the request on: no
 * code has run yet, so another engine may as well try. Besides an engine
 * that does not answer and a missing image, a box that would not start
 * (sandbox_error: an engine shutting down answers "grpc: the client
 * connection is closing" while it still answers at all). */
static int fails_over(const struct error *err)
{
	return err->code == ERR_DOCKER_UNAVAILABLE ||
	       err->code == ERR_IMAGE_MISSING || err->code == ERR_SANDBOX ||
	       err->code == ERR_SANDBOX_TIMEOUT;
}

static void placed_cb(struct box *b, const struct error *err, void *arg)
{
	struct engines_wait *pr = arg;
	struct engine *at = pr->at;
	pool_acquire_cb cb = pr->cb;
	void *cb_arg = pr->arg;
	struct box *nb = NULL;
	struct error e2;
	int rc;

	pr->at = NULL;
	pr->pw = NULL;
	if (b) {
		at->placed++;
		placement_free(pr);
		cb(b, NULL, cb_arg);
		return;
	}
	if (pr->es->shutting_down || !fails_over(err)) {
		e2 = *err;
		placement_free(pr);
		cb(NULL, &e2, cb_arg);
		return;
	}
	pr->err = *err;
	if (err->code == ERR_DOCKER_UNAVAILABLE) {
		/* Do not wait for the next tick to find out. */
		at->failures++;
		probe(at);
	}
	rc = place(pr, &nb);
	if (rc == 1) {
		at->failovers++;
		log_info("[%s] engine %s could not give a container: trying "
			 "engine %s",
			 pr->pl->desc->name, at->name, pr->at->name);
		return;
	}
	e2 = pr->err;
	placement_free(pr);
	if (rc == 0) {
		at->failovers++;
		cb(nb, NULL, cb_arg);
	} else {
		if (rc != -1)
			error_set(&e2,
				  rc == ERR_SHUTTING_DOWN ? rc : ERR_SANDBOX,
				  "cannot get a sandbox container");
		cb(NULL, &e2, cb_arg);
	}
}

static void placement_move_off(struct engine *e)
{
	struct engines_wait *pr, *next;
	struct box *b = NULL;
	struct error err;
	int rc;

	for (pr = e->es->waiting; pr; pr = next) {
		next = pr->next;
		if (pr->at != e || pr->only)
			continue;
		pool_cancel_acquire(pr->pw);
		pr->at = NULL;
		pr->pw = NULL;
		rc = place(pr, &b);
		if (rc == 1)
			continue;
		/* Answered from here, in a probe's callback: the caller's
		 * own call has long returned. */
		if (rc == 0) {
			pool_acquire_cb cb = pr->cb;
			void *arg = pr->arg;

			placement_free(pr);
			cb(b, NULL, arg);
			continue;
		}
		err = pr->err;
		if (rc != -1)
			error_set(&err,
				  rc == ERR_SHUTTING_DOWN ? rc : ERR_SANDBOX,
				  "cannot get a sandbox container");
		{
			pool_acquire_cb cb = pr->cb;
			void *arg = pr->arg;

			placement_free(pr);
			cb(NULL, &err, arg);
		}
	}
}

/* An engine answered for the first time: the requests that waited for
 * it are placed again, oldest first (the list is newest first). A
 * callback may start or cancel requests: each round looks afresh. */
static void placement_unpark(struct engines *es)
{
	struct engines_wait *pr, *oldest;
	struct box *b = NULL;
	struct error err;
	pool_acquire_cb cb;
	void *arg;
	int rc;

	for (;;) {
		oldest = NULL;
		/* NOLINTBEGIN(clang-analyzer-unix.Malloc): placement_free
		 * unlinks what it frees; each round starts from the head */
		for (pr = es->waiting; pr; pr = pr->next)
			if (pr->parked && !pr->cancelled)
				oldest = pr;
		/* NOLINTEND(clang-analyzer-unix.Malloc) */
		if (!oldest)
			return;
		pr = oldest;
		pr->parked = 0;
		rc = place(pr, &b);
		if (rc == 1)
			continue;
		cb = pr->cb;
		arg = pr->arg;
		err = pr->err;
		if (rc != 0 && rc != -1)
			error_set(&err,
				  rc == ERR_SHUTTING_DOWN ? rc : ERR_SANDBOX,
				  "cannot get a sandbox container");
		placement_free(pr);
		if (rc == 0)
			cb(b, NULL, arg);
		else
			cb(NULL, &err, arg);
	}
}

int engines_acquire(struct engines *es, const struct plugin *pl,
		    struct engine *only, unsigned flags, pool_acquire_cb cb,
		    void *arg, struct box **out, struct engines_wait **wait)
{
	struct engines_wait *pr;
	int rc;

	if (wait)
		*wait = NULL;
	if (es->shutting_down)
		return ERR_SHUTTING_DOWN;
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return -ENOMEM;
	pr->es = es;
	pr->pl = pl;
	pr->only = only;
	pr->flags = flags;
	pr->cb = cb;
	pr->arg = arg;
	placement_link(pr);
	rc = place(pr, out);
	if (rc == 0 || (rc < 0 && rc != -1)) {
		placement_free(pr);
		return rc;
	}
	if (rc == -1) {
		/* No engine now: the answer goes through the loop, as the
		 * callback contract wants. */
		pr->deferred = 1;
		if (defer_call(es->loop, deferred_cb, pr) != 0) {
			placement_free(pr);
			return -ENOMEM;
		}
	}
	if (wait)
		*wait = pr;
	return 1;
}

void engines_cancel_acquire(struct engines_wait *pr)
{
	if (pr->deferred) {
		pr->cancelled = 1; /* deferred_cb frees it */
		return;
	}
	if (pr->at)
		pool_cancel_acquire(pr->pw);
	placement_free(pr);
}

void engine_count_session(struct engine *e, int delta)
{
	if (delta < 0 && e->sessions > 0)
		e->sessions--;
	else if (delta > 0)
		e->sessions++;
}

/* ------------------------------------------------------------------ */
/* Every pool                                                          */

void engines_set_warmup(struct engines *es, pool_warmup_fn fn)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		pool_set_warmup(es->v[i].pool, fn);
}

void engines_set_refill(struct engines *es, int on)
{
	size_t i;

	es->refill = on;
	for (i = 0; i < es->n; i++)
		if (!es->started || es->v[i].ever_up)
			pool_set_refill(es->v[i].pool, on);
}

void engines_prewarm(struct engines *es)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		pool_prewarm(es->v[i].pool);
}

void engines_pool_stats(const struct engines *es, const struct plugin *pl,
			struct pool_stats *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; es && i < es->n; i++) {
		struct pool_stats st;

		pool_stats(es->v[i].pool, pl, &st);
		out->idle += st.idle;
		out->busy += st.busy;
		out->starting += st.starting;
		out->resetting += st.resetting;
		out->removing += st.removing;
		out->waiting += st.waiting;
		out->started += st.started;
		out->discarded += st.discarded;
		out->reused += st.reused;
		out->prestarted += st.prestarted;
		out->cold += st.cold;
		out->grown += st.grown;
		out->shrunk += st.shrunk;
		out->in_use |= st.in_use;
		out->image_missing |= st.image_missing;
		if (st.mem_each > out->mem_each)
			out->mem_each = st.mem_each;
	}
}

cJSON *engines_json(const struct engines *es)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; arr && i < es->n; i++) {
		const struct engine *e = &es->v[i];
		cJSON *o = cJSON_CreateObject();
		struct pool_load ld;

		if (!o)
			break;
		pool_load(e->pool, &ld);
		cJSON_AddStringToObject(o, "name", e->name);
		cJSON_AddStringToObject(o, "endpoint", docker_endpoint(e->d));
		cJSON_AddBoolToObject(o, "tls", docker_tls(e->d));
		cJSON_AddStringToObject(o, "health",
					engine_health_name(e->health));
		cJSON_AddNumberToObject(o, "sinceMs", (double)e->since_ms);
		if (docker_api_version(e->d))
			cJSON_AddStringToObject(o, "apiVersion",
						docker_api_version(e->d));
		cJSON_AddNumberToObject(o, "weight", e->weight);
		cJSON_AddNumberToObject(o, "maxContainers", ld.max_containers);
		cJSON_AddNumberToObject(o, "containers", ld.boxes);
		cJSON_AddNumberToObject(o, "inUse", ld.held);
		cJSON_AddNumberToObject(o, "waiting", ld.waiting);
		cJSON_AddNumberToObject(o, "sessions", e->sessions);
		cJSON_AddNumberToObject(o, "placed", (double)e->placed);
		cJSON_AddNumberToObject(o, "failovers", (double)e->failovers);
		cJSON_AddNumberToObject(o, "timesDown", (double)e->downs);
		if (e->last_error[0])
			cJSON_AddStringToObject(o, "lastError", e->last_error);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static void pool_down_cb(void *arg)
{
	struct engines *es = arg;

	if (--es->pools_left == 0 && es->done)
		es->done(es->done_arg);
}

static void shutdown_all(struct engines *es, int quick, void (*done)(void *arg),
			 void *arg)
{
	size_t i;

	if (es->shutting_down)
		return;
	es->shutting_down = 1;
	es->done = done;
	es->done_arg = arg;
	if (es->probe_init && !uv_is_closing((uv_handle_t *)&es->probe))
		uv_close((uv_handle_t *)&es->probe, NULL);
	es->pools_left = (unsigned)es->n;
	for (i = 0; i < es->n; i++)
		if (quick)
			pool_shutdown_quick(es->v[i].pool, pool_down_cb, es);
		else
			pool_shutdown(es->v[i].pool, pool_down_cb, es);
}

void engines_shutdown(struct engines *es, void (*done)(void *arg), void *arg)
{
	shutdown_all(es, 0, done, arg);
}

void engines_shutdown_quick(struct engines *es, void (*done)(void *arg),
			    void *arg)
{
	shutdown_all(es, 1, done, arg);
}

void engines_shutdown_counts(const struct engines *es, unsigned *removed,
			     unsigned *pending)
{
	size_t i;

	*removed = *pending = 0;
	for (i = 0; i < es->n; i++) {
		unsigned r, p;

		pool_shutdown_counts(es->v[i].pool, &r, &p);
		*removed += r;
		*pending += p;
	}
}

void engines_close_clients(struct engines *es)
{
	size_t i;

	for (i = 0; i < es->n; i++) {
		docker_free(es->v[i].d);
		es->v[i].d = NULL;
	}
}

void engines_free(struct engines *es)
{
	struct engines_wait *pr, *next;
	size_t i;

	if (!es)
		return;
	for (i = 0; i < es->n; i++) {
		pool_free(es->v[i].pool);
		cJSON_Delete(es->v[i].desc);
	}
	/* Answers the loop never delivered (it is closed). */
	for (pr = es->waiting; pr; pr = next) {
		next = pr->next;
		free(pr);
	}
	free(es->v);
	free(es);
}
