/*
 * pool.c - warm containers per language, reset and verified between uses,
 * grown under load and shrunk when idle within a memory budget (pool.h).
 */
#include "pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/container.h"
#include "util/log.h"

#define LOG_MODULE "pool"
#define MAX_LABELS 16
/* A container that has not answered HELLO, or RESET, by then is given up. */
#define HOUSEKEEPING_MS 1000
/* Memory a container is assumed to use until one of its language has been
 * measured (capped by the language's limit); docs/config.md. */
#define FALLBACK_MEM_MB 64

enum box_state {
	BOX_STARTING, /* create, attach, start, hello in flight */
	BOX_IDLE,
	BOX_BUSY,      /* handed to a caller */
	BOX_RESETTING, /* back from a caller, agent reset in flight */
	BOX_REMOVING,  /* DELETE in flight */
};

struct box {
	struct pool *pool;
	const struct plugin *pl;
	char id[80];
	struct agent_client *ac;
	enum box_state state;
	unsigned uses;
	uint64_t started_at; /* uv_now() when the start began */
	uint64_t reset_at;   /* uv_now() when the reset was sent */
	uint64_t idle_since; /* uv_now() when it last became idle */
	uint64_t mem;	     /* bytes in use, last sample; 0 unmeasured */
	int samples;	     /* memory samples asked for (2 at most) */
	int held;	     /* a caller has it (BUSY, or doomed while BUSY) */
	int bare;	     /* started for a POOL_BARE caller: no warm-up */
	int removed;	     /* the DELETE answered */
	int doomed;	     /* remove as soon as possible */
	int start_timed_out;
	int start_sent;	   /* container_start in flight: b stays allocated */
	int runs_attached; /* started with our attach stream open: its agent
			    * ends by itself when that stream does */
	int unwaited;	   /* its removal is not waited for (quick stop) */
	int hello_early;   /* HELLO answered before the start was: ready
			    * once the start is */
	int attach_first;  /* created, not started: attach, then start */
	struct box *prev, *next;
};

/* A caller waiting for a box: pool_acquire's handle, until its callback
 * runs or pool_cancel_acquire withdraws it. */
struct pool_wait {
	struct pool *pool;
	const struct plugin *pl;
	unsigned flags; /* enum pool_acquire_flags */
	pool_acquire_cb cb;
	void *arg;
	struct pool_wait *next;
};

struct lang_state {
	const struct plugin *pl;
	int image_missing;  /* suppresses background refill until a start works
			     */
	int start_failures; /* consecutive; refill backs off */
	int in_use;	    /* warm at start or asked for: the floor applies */
	int refilling;	    /* started boxes up to the floor: log when ready */
	int held_back;	    /* a budget refusal was logged since the last
			     * warm start */
	uint64_t mem_est;   /* largest measured idle usage, bytes; 0 none */
	unsigned long started, discarded, reused, grown, shrunk;
	unsigned long prestarted, cold;
};

/* A memory sample in flight: the box may be gone when it answers. */
struct sample_req {
	struct pool *pool;
	const struct plugin *pl;
	char id[80];
};

struct pool {
	uv_timer_t housekeeping; /* embedded; closed by pool_shutdown */
	uv_loop_t *loop;
	struct docker *d;
	const struct plugin_set *ps;
	struct lang_state *langs;
	uint32_t max_containers;
	int floor_capped;
	uint32_t floor_cap;
	uint64_t idle_shrink_ms; /* 0: never */
	uint64_t budget;	 /* bytes; 0: none */
	char *labels[MAX_LABELS + 2];
	size_t nlabels;
	char *pkg_volume, *pkg_mount; /* the package volume, or NULL */
	char *pkg_label[2];	      /* its identity label, NULL-terminated */
	struct box *boxes;
	unsigned nboxes; /* all boxes but those already removed */
	struct pool_wait *wq_head, *wq_tail;
	int dispatching, again;
	int shutting_down;
	/* pool_shutdown_quick: removals of boxes whose agent ends by itself
	 * with our connection (runs_attached) are sent, not waited for. */
	int quick;
	unsigned unwaited;
	unsigned removed_at_shutdown; /* for the shutdown's log */
	int refill;	     /* keep idle boxes warm (off for one-shot runs) */
	unsigned warm_holds; /* pool_hold_warm: no refill while above 0 */
	pool_warmup_fn warmup;
	unsigned pending_removals;
	void (*done)(void *);
	void *done_arg;
};

static void dispatch(struct pool *p);
static void box_opened(struct box *b);
static void housekeeping_cb(uv_timer_t *t);
static void box_remove(struct box *b);

static struct lang_state *lang_of(struct pool *p, const struct plugin *pl)
{
	size_t i;

	for (i = 0; i < p->ps->n; i++)
		if (p->langs[i].pl == pl)
			return &p->langs[i];
	return NULL;
}

/* A language's boxes by state; total leaves out those being removed. */
struct tally {
	unsigned idle, busy, starting, resetting, total;
};

static void tally(const struct pool *p, const struct plugin *pl,
		  struct tally *t)
{
	const struct box *b;

	memset(t, 0, sizeof(*t));
	for (b = p->boxes; b; b = b->next) {
		if (b->pl != pl)
			continue;
		switch (b->state) {
		case BOX_IDLE:
			t->idle++;
			break;
		case BOX_BUSY:
			t->busy++;
			break;
		case BOX_STARTING:
			t->starting++;
			break;
		case BOX_RESETTING:
			t->resetting++;
			break;
		case BOX_REMOVING:
			continue;
		}
		t->total++;
	}
}

static unsigned floor_of(const struct pool *p, const struct lang_state *ls)
{
	unsigned f = ls->in_use ? ls->pl->policy.pool_size : 0;

	return p->floor_capped && f > p->floor_cap ? p->floor_cap : f;
}

/* Bytes one more container of the language is expected to use. */
static uint64_t lang_mem(const struct lang_state *ls)
{
	uint64_t limit = (uint64_t)ls->pl->policy.limits.memory_mb << 20;
	uint64_t fallback = (uint64_t)FALLBACK_MEM_MB << 20;

	if (ls->mem_est)
		return ls->mem_est;
	return fallback < limit ? fallback : limit;
}

/* Estimated bytes in the pool's containers (sessions' are not the pool's). */
static uint64_t pool_mem(struct pool *p)
{
	const struct box *b;
	uint64_t sum = 0;

	for (b = p->boxes; b; b = b->next)
		if (b->state != BOX_REMOVING)
			sum += b->mem ? b->mem : lang_mem(lang_of(p, b->pl));
	return sum;
}

/* May a warm (not asked-for) container of ls's language start? */
static int budget_allows(struct pool *p, struct lang_state *ls)
{
	uint64_t used, need;

	if (!p->budget)
		return 1;
	used = pool_mem(p);
	need = lang_mem(ls);
	if (used + need <= p->budget)
		return 1;
	if (!ls->held_back)
		log_info("[%s] no more warm containers: the memory budget "
			 "(%llu MiB) would be exceeded (about %llu MiB in use, "
			 "%llu MiB more)",
			 ls->pl->desc->name,
			 (unsigned long long)(p->budget >> 20),
			 (unsigned long long)(used >> 20),
			 (unsigned long long)(need >> 20));
	ls->held_back = 1;
	return 0;
}

int pool_new(uv_loop_t *loop, struct docker *d, const struct plugin_set *ps,
	     const struct pool_options *opt, struct pool **out)
{
	struct pool *p = calloc(1, sizeof(*p));
	size_t i;

	if (!p)
		return -ENOMEM;
	p->langs = calloc(ps->n + 1, sizeof(*p->langs));
	if (!p->langs) {
		free(p);
		return -ENOMEM;
	}
	for (i = 0; i < ps->n; i++) {
		p->langs[i].pl = &ps->v[i];
		p->langs[i].in_use = ps->v[i].policy.warm_at_start;
	}
	p->loop = loop;
	p->d = d;
	p->ps = ps;
	p->max_containers = opt->max_containers;
	p->floor_capped = opt->floor_capped;
	p->floor_cap = opt->floor_cap;
	p->idle_shrink_ms = (uint64_t)opt->idle_shrink_s * 1000;
	p->budget = (uint64_t)opt->memory_budget_mb << 20;
	p->refill = 1;
	uv_timer_init(loop, &p->housekeeping);
	p->housekeeping.data = p;
	uv_timer_start(&p->housekeeping, housekeeping_cb, HOUSEKEEPING_MS,
		       HOUSEKEEPING_MS);
	uv_unref((uv_handle_t *)&p->housekeeping);
	for (i = 0; opt->labels && opt->labels[i] && i < MAX_LABELS; i++)
		p->labels[p->nlabels++] = strdup(opt->labels[i]);
	if (opt->pkg_volume && opt->pkg_mount) {
		p->pkg_volume = strdup(opt->pkg_volume);
		p->pkg_mount = strdup(opt->pkg_mount);
		p->pkg_label[0] = opt->pkg_volume_label
					  ? strdup(opt->pkg_volume_label)
					  : NULL;
	}
	*out = p;
	return 0;
}

static void box_unlink_free(struct box *b)
{
	struct pool *p = b->pool;

	if (b->prev)
		b->prev->next = b->next;
	else
		p->boxes = b->next;
	if (b->next)
		b->next->prev = b->prev;
	free(b);
}

static void check_shutdown_done(struct pool *p)
{
	void (*done)(void *);

	if (p->shutting_down && p->pending_removals == p->unwaited && p->done) {
		done = p->done;
		p->done = NULL;
		done(p->done_arg);
	}
}

static void removed_cb(const struct error *err, const char *id, void *arg)
{
	struct box *b = arg;
	struct pool *p = b->pool;

	(void)id;
	b->removed = 1;
	p->pending_removals--;
	if (b->unwaited) {
		b->unwaited = 0;
		p->unwaited--;
	}
	if (p->shutting_down && !err)
		p->removed_at_shutdown++;
	if (!b->held && !b->start_sent)
		box_unlink_free(b);
	check_shutdown_done(p);
	dispatch(p);
}

static void issue_delete(struct box *b)
{
	struct pool *p = b->pool;

	if (container_remove(p->d, b->id, removed_cb, b) != 0) {
		log_error("cannot remove container %.12s", b->id);
		p->pending_removals--;
		if (b->unwaited) {
			b->unwaited = 0;
			p->unwaited--;
		}
		b->removed = 1;
		if (!b->held && !b->start_sent)
			box_unlink_free(b);
		check_shutdown_done(p);
	}
}

/* Close the agent connection and DELETE the container. The box stays
 * linked until the daemon answers (and the caller lets go of it). */
static void box_remove(struct box *b)
{
	struct pool *p = b->pool;

	if (b->state == BOX_REMOVING)
		return;
	b->state = BOX_REMOVING;
	p->nboxes--;
	p->pending_removals++;
	/* A quick stop waits only for containers that would not end by
	 * themselves: not created yet, created but not started, or whose
	 * start is not answered (an engine that never got it would leave
	 * them created). */
	if (p->shutting_down && p->quick && b->runs_attached) {
		b->unwaited = 1;
		p->unwaited++;
	}
	if (b->ac) {
		agent_client_close(b->ac);
		b->ac = NULL;
	}
	if (!b->id[0]) {
		/* Create still in flight: started_cb deletes it on arrival. */
		b->doomed = 1;
		return;
	}
	issue_delete(b);
}

static void fail_waiters(struct pool *p, const struct plugin *pl, int code,
			 const char *msg)
{
	struct pool_wait **pw = &p->wq_head, *w, *prev = NULL;
	struct error err;

	error_set_msg(&err, code, msg);
	while ((w = *pw)) {
		if (pl && w->pl != pl) {
			prev = w;
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		if (p->wq_tail == w)
			p->wq_tail = prev;
		w->cb(NULL, &err, w->arg);
		free(w);
	}
}

static void start_failed(struct box *b, int err, const char *msg)
{
	struct pool *p = b->pool;
	const struct plugin *pl = b->pl;
	struct lang_state *ls = lang_of(p, pl);
	char buf[512];

	/* The engine's words, in the pool's terms. */
	if (err == -ENOENT)
		err = ERR_IMAGE_MISSING;
	else if (err == -ENODEV)
		err = ERR_DOCKER_UNAVAILABLE;
	if (err == ERR_IMAGE_MISSING) {
		snprintf(buf, sizeof(buf),
			 "image %s is missing: build it with "
			 "scripts/build-images.sh %s, or for a plugin with a "
			 "recipe of its own, scripts/build-images.sh "
			 "<that recipe's directory> (`mcp-sandbox doctor` "
			 "gives the exact command)",
			 pl->policy.image, pl->desc->name);
		if (!ls->image_missing)
			log_error("%s", buf);
		ls->image_missing = 1;
	} else if (err == ERR_DOCKER_UNAVAILABLE) {
		/* Only this machine's engine is ours to start. */
		snprintf(buf, sizeof(buf),
			 "cannot reach the Docker engine at %s (%s)%s",
			 docker_endpoint(p->d), msg ? msg : "no answer",
			 strncmp(docker_endpoint(p->d), "unix://", 7) == 0
				 ? "; start one with scripts/docker-up.sh"
				 : "");
	} else {
		snprintf(buf, sizeof(buf), "%s",
			 msg ? msg : "container start failed");
	}
	if (err != ERR_IMAGE_MISSING)
		log_error("[%s] starting a container failed: %s",
			  pl->desc->name, buf);
	ls->start_failures++;
	if (b->id[0]) {
		box_remove(b);
	} else {
		/* Nothing was created. */
		p->nboxes--;
		box_unlink_free(b);
	}
	if (!p->shutting_down) {
		fail_waiters(p, pl, err, buf);
		dispatch(p); /* the slot it held may serve another language */
	}
}

static void box_lost_cb(struct agent_client *ac, void *arg)
{
	struct box *b = arg;

	(void)ac;
	log_warn("[%s] container %.12s went away", b->pl->desc->name, b->id);
	b->ac = NULL;
	if (b->state == BOX_IDLE)
		box_remove(b);
	else if (b->state != BOX_BUSY)
		b->doomed = 1;
	/* A BUSY box's caller learns through its pending callback and
	 * releases it; pool_release then removes it. */
}

static void sampled_cb(const struct error *err, uint64_t bytes, void *arg)
{
	struct sample_req *r = arg;
	struct pool *p = r->pool;
	struct lang_state *ls = lang_of(p, r->pl);
	struct box *b;

	if (err) {
		if (err->code != -ECANCELED)
			log_debug("[%s] memory of %.12s unknown: %s",
				  r->pl->desc->name, r->id, err->msg);
		free(r);
		return;
	}
	if (bytes == 0)
		bytes = 1; /* 0 means unmeasured */
	for (b = p->boxes; b; b = b->next)
		if (b->state != BOX_REMOVING && strcmp(b->id, r->id) == 0)
			b->mem = bytes;
	if (bytes > ls->mem_est)
		ls->mem_est = bytes;
	log_debug("[%s] container %.12s uses %.1f MiB when idle",
		  r->pl->desc->name, r->id, (double)bytes / (1 << 20));
	free(r);
	dispatch(p); /* the estimate may have been too high */
}

/* Measure a box when it first waits idle (started, warmed up) and again
 * after its first use: the interpreter's files it read stay charged to
 * its memory cgroup as page cache, which a fresh box does not show. */
static void sample(struct box *b)
{
	struct sample_req *r;

	b->samples++;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->pool = b->pool;
	r->pl = b->pl;
	snprintf(r->id, sizeof(r->id), "%s", b->id);
	if (container_memory(b->pool->d, b->id, sampled_cb, r, NULL) != 0)
		free(r);
}

/* b has just become idle. */
static void box_ready(struct box *b)
{
	struct pool *p = b->pool;
	struct lang_state *ls = lang_of(p, b->pl);
	struct tally t;

	b->state = BOX_IDLE;
	b->idle_since = uv_now(p->loop);
	/* Only warm starts need the measurement (a one-shot run has none). */
	if (p->refill && p->budget &&
	    (b->samples == 0 || (b->samples == 1 && b->uses > 0)))
		sample(b);
	if (!ls->refilling)
		return;
	tally(p, b->pl, &t);
	if (t.starting || t.total < floor_of(p, ls))
		return;
	/* Once per refill (start-up, first use, a container that left): a
	 * client can wait for this line. */
	ls->refilling = 0;
	log_info("[%s] warm: %u containers (floor %u, ceiling %u)",
		 b->pl->desc->name, t.total, floor_of(p, ls),
		 b->pl->policy.pool_max_size);
}

static void warmup_done(struct box *b, const struct error *err, int used,
			void *arg)
{
	struct pool *p = arg;

	if (b->state != BOX_STARTING)
		return; /* removed meanwhile (shutdown, start timeout) */
	log_debug("[%s] container %.12s warmed up%s", b->pl->desc->name, b->id,
		  err ? ": FAILED, discarded" : "");
	if (!err && !used) {
		box_ready(b);
		dispatch(p);
		return;
	}
	/* From here on like any used box: reset and verified, or removed. */
	b->state = BOX_BUSY;
	b->held = 1;
	pool_release(p, b, err != NULL);
}

static void box_open_cb(struct agent_client *ac, const struct error *err,
			void *arg)
{
	struct box *b = arg;

	(void)ac;
	if (b->state == BOX_REMOVING)
		return; /* closed by shutdown: already being removed */
	if (err) {
		b->ac = NULL; /* freed by the client after this callback */
		if (b->start_timed_out)
			start_failed(b, -ETIMEDOUT,
				     "the sandbox container did not become "
				     "ready in time");
		else if (err->code == -ECONNREFUSED ||
			 err->code == -EHOSTUNREACH)
			/* The engine went away between the start and the
			 * attach. */
			start_failed(b, -ENODEV, err->msg);
		else
			start_failed(b, -EIO, err->msg);
		return;
	}
	if (b->start_sent) {
		/* Only an engine that answers out of order: ready once the
		 * start is confirmed (start_answered_cb). */
		b->hello_early = 1;
		return;
	}
	box_opened(b);
}

/* The agent answered HELLO on our attach stream, and the start (if we
 * sent it) was confirmed. */
static void box_opened(struct box *b)
{
	struct lang_state *ls = lang_of(b->pool, b->pl);

	b->runs_attached = 1;
	ls->image_missing = 0;
	ls->start_failures = 0;
	ls->started++;
	/* Still STARTING while it warms up: nobody gets it before. */
	if (!b->bare && b->pool->warmup &&
	    b->pool->warmup(b, b->pl, warmup_done, b->pool) == 0)
		return;
	log_debug("[%s] container %.12s ready%s", b->pl->desc->name, b->id,
		  b->bare ? " (no warm-up: its caller would not use it)" : "");
	box_ready(b);
	dispatch(b->pool);
}

/* The engine answered the start of a container we are attached to. */
static void start_answered_cb(const struct error *err, const char *id,
			      void *arg)
{
	struct box *b = arg;

	(void)id;
	b->start_sent = 0;
	if (b->state == BOX_REMOVING) {
		/* Removed meanwhile: freed here if the DELETE was answered. */
		if (b->removed && !b->held)
			box_unlink_free(b);
		return;
	}
	if (err) {
		start_failed(b, err->code, err->msg);
		return;
	}
	b->runs_attached = 1;
	if (b->hello_early) {
		b->hello_early = 0;
		box_opened(b);
	}
}

/* Attached to the created container: now it may start. */
static void attached_cb(struct agent_client *ac, void *arg)
{
	struct box *b = arg;

	(void)ac;
	if (b->state == BOX_REMOVING)
		return;
	b->start_sent = 1;
	if (container_start(b->pool->d, b->id, start_answered_cb, b)) {
		/* Not closed from inside the attach's callback: the start
		 * timeout removes the box (housekeeping). */
		b->start_sent = 0;
		log_error("[%s] cannot start container %.12s",
			  b->pl->desc->name, b->id);
	}
}

/* The container exists (Docker: created, not started; Podman: started). */
static void started_cb(const struct error *err, const char *id, void *arg)
{
	struct box *b = arg;
	struct pool *p = b->pool;
	int rc;

	if (b->doomed) {
		/* Removed (shutdown) while the create was in flight. */
		if (err) {
			p->pending_removals--;
			box_unlink_free(b);
			check_shutdown_done(p);
			return;
		}
		snprintf(b->id, sizeof(b->id), "%s", id);
		issue_delete(b);
		return;
	}
	if (err) {
		start_failed(b, err->code, err->msg);
		return;
	}
	snprintf(b->id, sizeof(b->id), "%s", id);
	/* Attached before it starts, its agent's stdin ends whenever this
	 * server goes, even one killed between the start and the first
	 * frame: no container is left waiting for a host that will never
	 * come (docs/agent-protocol.md, "When the host goes"). */
	if (b->attach_first)
		rc = agent_client_open_created(p->d, b->id, attached_cb,
					       box_open_cb, box_lost_cb, b,
					       &b->ac);
	else
		rc = agent_client_open(p->d, b->id, box_open_cb, box_lost_cb, b,
				       &b->ac);
	if (rc)
		start_failed(b, rc, "cannot attach to the container");
}

static int box_start(struct pool *p, const struct plugin *pl, int bare)
{
	const struct policy *po = &pl->policy;
	char lang_label[64];
	const char *labels[MAX_LABELS + 2];
	struct container_mount mounts[2] = {{NULL, NULL, 0, NULL},
					    {NULL, NULL, 0, NULL}};
	struct container_spec spec;
	struct box *b;
	size_t i;
	int rc;

	/* Installed packages, read-only, for languages that install any. */
	if (p->pkg_volume && pl->desc->package_ecosystem)
		mounts[0] = (struct container_mount){
			p->pkg_volume, p->pkg_mount, 1,
			(const char *const *)p->pkg_label};
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->pool = p;
	b->pl = pl;
	b->bare = bare;
	b->state = BOX_STARTING;
	b->started_at = uv_now(p->loop);
	for (i = 0; i < p->nlabels; i++)
		labels[i] = p->labels[i];
	snprintf(lang_label, sizeof(lang_label), "org.mcp-sandbox.language=%s",
		 pl->desc->name);
	labels[i++] = lang_label;
	labels[i] = NULL;
	spec = (struct container_spec){
		.image = po->image,
		.labels = labels,
		.memory_mb = po->limits.memory_mb,
		.cpu_millis = po->limits.cpu_millis,
		.pids = po->limits.pids,
		.nofile = po->limits.nofile,
		.fsize_mb = po->limits.fsize_mb,
		.work_mb = po->limits.work_mb,
		.tmp_mb = po->limits.tmp_mb,
		.shm_mb = po->shm_mb,
		.network = po->network,
		.mounts = mounts,
		.seccomp = po->seccomp_profile,
		.seccomp_file = po->seccomp_file,
	};
	/* Podman's compat API cannot attach before the start. */
	b->attach_first = !docker_is_podman(p->d);
	rc = b->attach_first ? container_create(p->d, &spec, started_cb, b)
			     : container_run(p->d, &spec, started_cb, b);
	if (rc) {
		free(b);
		return rc;
	}
	b->next = p->boxes;
	if (p->boxes)
		p->boxes->prev = b;
	p->boxes = b;
	p->nboxes++;
	return 0;
}

static unsigned waiting(struct pool *p, const struct plugin *pl)
{
	struct pool_wait *w;
	unsigned n = 0;

	for (w = p->wq_head; w; w = w->next)
		if (w->pl == pl)
			n++;
	return n;
}

static struct box *find_idle(struct pool *p, const struct plugin *pl)
{
	struct box *b;

	for (b = p->boxes; b; b = b->next)
		if (b->state == BOX_IDLE && (!pl || b->pl == pl))
			return b;
	return NULL;
}

/* Make room for one more container by removing an idle box of a language
 * nobody is waiting for. */
static int evict_one(struct pool *p, const struct plugin *for_pl)
{
	struct box *b;

	for (b = p->boxes; b; b = b->next)
		if (b->state == BOX_IDLE && b->pl != for_pl &&
		    waiting(p, b->pl) == 0) {
			box_remove(b);
			return 1;
		}
	return 0;
}

/* Whether the n-th waiter for pl (0: the first) asked for a bare box;
 * one past the last: no. */
static int waiter_bare(const struct pool *p, const struct plugin *pl,
		       unsigned n)
{
	const struct pool_wait *w;

	for (w = p->wq_head; w; w = w->next)
		if (w->pl == pl && n-- == 0)
			return (w->flags & POOL_BARE) != 0;
	return 0;
}

/* Misses: start a container for each waiter that no box being reset or
 * started will serve. A box being reset is idle again within milliseconds,
 * so a waiter counts on it before a new container (hundreds of
 * milliseconds, seconds for a fork server). Never held back by the ceiling
 * or the budget. */
static void start_misses(struct pool *p, struct lang_state *ls)
{
	const struct plugin *pl = ls->pl;
	unsigned w = waiting(p, pl);
	struct tally t;
	int rc;

	if (!w)
		return;
	tally(p, pl, &t);
	while (t.starting + t.resetting < w) {
		if (p->nboxes >= p->max_containers && !evict_one(p, pl))
			return;
		/* For the first waiter the boxes on their way do not cover. */
		rc = box_start(p, pl,
			       waiter_bare(p, pl, t.starting + t.resetting));
		if (rc) {
			fail_waiters(p, pl, rc, "cannot start a container");
			return;
		}
		t.starting++;
	}
}

/* Warm starts, within the ceiling, max_containers and the budget. Growth:
 * waiters left to a reset get a container started too, so that sustained
 * demand is not served by too few boxes. Refill: the floor counts every
 * box of the language, busy ones included. */
static void start_warm(struct pool *p, struct lang_state *ls)
{
	const struct plugin *pl = ls->pl;
	const struct policy *po = &pl->policy;
	unsigned w = waiting(p, pl), floor = floor_of(p, ls);
	struct tally t;

	if (!p->refill || !po->enabled || ls->image_missing ||
	    ls->start_failures >= 3)
		return;
	tally(p, pl, &t);
	if (!w && p->warm_holds) {
		if (t.total < floor)
			log_debug("[%s] refill waits: a session's interpreter "
				  "starts",
				  pl->desc->name);
		return;
	}
	while ((w ? t.starting < w : t.total < floor) &&
	       t.total < po->pool_max_size && p->nboxes < p->max_containers &&
	       budget_allows(p, ls)) {
		if (box_start(p, pl, 0) != 0)
			return;
		ls->held_back = 0;
		if (w) {
			ls->grown++;
			log_debug("[%s] growing to %u containers: %u callers "
				  "wait",
				  pl->desc->name, t.total + 1, w);
		} else {
			ls->refilling = 1;
		}
		t.starting++;
		t.total++;
	}
}

static void take(struct box *b)
{
	b->state = BOX_BUSY;
	b->held = 1;
	b->uses++;
}

static void dispatch_once(struct pool *p)
{
	struct pool_wait *w, *prev, *next;
	struct box *b;
	size_t i;

	/* Serve waiters in order with idle boxes. */
	prev = NULL;
	for (w = p->wq_head; w; w = next) {
		next = w->next;
		b = find_idle(p, w->pl);
		if (!b) {
			prev = w;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			p->wq_head = next;
		if (p->wq_tail == w)
			p->wq_tail = prev;
		take(b);
		w->cb(b, NULL, w->arg);
		free(w);
		p->again = 1; /* the callback may have changed anything */
		return;
	}
	/* Start containers: first for waiters, then warm ones. */
	for (i = 0; i < p->ps->n; i++)
		start_misses(p, &p->langs[i]);
	for (i = 0; i < p->ps->n; i++)
		start_warm(p, &p->langs[i]);
}

static void dispatch(struct pool *p)
{
	if (p->shutting_down)
		return;
	if (p->dispatching) {
		p->again = 1;
		return;
	}
	p->dispatching = 1;
	do {
		p->again = 0;
		dispatch_once(p);
	} while (p->again && !p->shutting_down);
	p->dispatching = 0;
}

/* Remove b if it has been idle for idle_shrink_s and its language has more
 * boxes than its floor, with nobody waiting. */
static void maybe_shrink(struct pool *p, struct box *b, uint64_t now)
{
	struct lang_state *ls = lang_of(p, b->pl);
	struct tally t;

	if (!p->idle_shrink_ms || now - b->idle_since < p->idle_shrink_ms)
		return;
	tally(p, b->pl, &t);
	if (t.total <= floor_of(p, ls) || waiting(p, b->pl))
		return;
	ls->shrunk++;
	log_debug("[%s] container %.12s idle for %llu s: removed (%u left, "
		  "floor %u)",
		  b->pl->desc->name, b->id,
		  (unsigned long long)((now - b->idle_since) / 1000),
		  t.total - 1, floor_of(p, ls));
	box_remove(b);
}

/* Give up on containers whose agent never said hello (a broken image, a
 * daemon that hangs); waiters for that language are told why. Shrink
 * languages that have had boxes idle for long. */
static void housekeeping_cb(uv_timer_t *t)
{
	struct pool *p = t->data;
	uint64_t now = uv_now(p->loop);
	struct box *b, *next;

	for (b = p->boxes; b; b = next) {
		next = b->next;
		if (b->state == BOX_IDLE) {
			maybe_shrink(p, b, now);
		} else if (b->state == BOX_STARTING && b->id[0] && b->ac &&
			   now - b->started_at >
				   b->pl->policy.start_timeout_ms) {
			/* Closing settles HELLO at once: box_open_cb fails
			 * the start with the timeout message. */
			b->start_timed_out = 1;
			agent_client_close(b->ac);
		} else if (b->state == BOX_RESETTING && b->ac &&
			   now - b->reset_at > b->pl->policy.reset_timeout_ms) {
			/* Closing settles RESET with an error: reset_cb
			 * discards the box and frees its slot. */
			log_error("[%s] container %.12s did not finish its "
				  "reset in %u ms",
				  b->pl->desc->name, b->id,
				  b->pl->policy.reset_timeout_ms);
			agent_client_close(b->ac);
		}
	}
}

void pool_prewarm(struct pool *p)
{
	dispatch(p);
}

void pool_hold_warm(struct pool *p, int delta)
{
	size_t i;

	if (delta > 0) {
		p->warm_holds++;
		return;
	}
	if (!p->warm_holds || --p->warm_holds || p->shutting_down)
		return;
	/* Only the warm starts: nothing here calls a caller back. */
	if (p->dispatching)
		p->again = 1;
	else
		for (i = 0; i < p->ps->n; i++)
			start_warm(p, &p->langs[i]);
}

void pool_set_refill(struct pool *p, int on)
{
	p->refill = on;
}

void pool_set_warmup(struct pool *p, pool_warmup_fn fn)
{
	p->warmup = fn;
}

int pool_acquire(struct pool *p, const struct plugin *pl, unsigned flags,
		 pool_acquire_cb cb, void *arg, struct box **out,
		 struct pool_wait **wait)
{
	struct pool_wait *w;
	struct box *b;

	if (wait)
		*wait = NULL;
	if (p->shutting_down)
		return ERR_SHUTTING_DOWN;
	if (!lang_of(p, pl)->in_use) {
		/* First use: from now on the language keeps its floor. */
		lang_of(p, pl)->in_use = 1;
		if (p->refill && pl->policy.pool_size)
			log_info("[%s] first use: keeping %u warm containers "
				 "from now on",
				 pl->desc->name, pl->policy.pool_size);
	}
	/* Nobody ahead of us for this language: a warm box is ours now. */
	if (!waiting(p, pl) && (b = find_idle(p, pl))) {
		take(b);
		*out = b;
		dispatch(p); /* refill in the background */
		return 0;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->pool = p;
	w->pl = pl;
	w->flags = flags;
	w->cb = cb;
	w->arg = arg;
	if (wait)
		*wait = w;
	if (p->wq_tail)
		p->wq_tail->next = w;
	else
		p->wq_head = w;
	p->wq_tail = w;
	/* A request clears the "image missing" state: try again for real. */
	lang_of(p, pl)->image_missing = 0;
	lang_of(p, pl)->start_failures = 0;
	dispatch(p);
	return 1;
}

void pool_cancel_acquire(struct pool_wait *wait)
{
	struct pool *p = wait->pool;
	struct pool_wait **pw = &p->wq_head, *w, *prev = NULL;

	for (; (w = *pw); prev = w, pw = &w->next) {
		if (w != wait)
			continue;
		*pw = w->next;
		if (p->wq_tail == w)
			p->wq_tail = prev;
		free(w);
		return;
	}
}

static void reset_cb(struct agent_client *ac, const struct error *err,
		     void *arg)
{
	struct box *b = arg;
	struct pool *p = b->pool; /* box_remove may free b */
	struct lang_state *ls = lang_of(p, b->pl);

	(void)ac;
	if (b->state != BOX_RESETTING)
		return;
	if (err) {
		/* ERR_SANDBOX: the agent's verdict, in its words; else the
		 * request failed in transport. */
		log_warn(
			"[%s] container %.12s failed its reset (%s): discarded",
			b->pl->desc->name, b->id,
			err->code == ERR_SANDBOX ? err->msg : "no answer");
		ls->discarded++;
		box_remove(b);
		dispatch(p);
		return;
	}
	ls->reused++;
	box_ready(b);
	dispatch(p);
}

void pool_release(struct pool *p, struct box *b, int discard)
{
	struct lang_state *ls = lang_of(p, b->pl);

	b->held = 0;
	if (b->state == BOX_REMOVING) {
		if (b->removed)
			box_unlink_free(b);
		return;
	}
	if (discard || b->doomed || !b->ac || p->shutting_down ||
	    b->uses >= b->pl->policy.max_uses) {
		if (discard || b->doomed || !b->ac)
			ls->discarded++;
		box_remove(b);
		dispatch(p);
		return;
	}
	b->state = BOX_RESETTING;
	b->reset_at = uv_now(p->loop);
	if (agent_client_reset(b->ac, reset_cb, b) != 0) {
		ls->discarded++;
		box_remove(b);
		dispatch(p);
	}
}

int pool_detach(struct pool *p, struct box *b, char *id_out, size_t id_size,
		struct agent_client **ac)
{
	if (b->state != BOX_BUSY || !b->held || !b->ac || b->doomed ||
	    strlen(b->id) >= id_size)
		return -EINVAL;
	memcpy(id_out, b->id, strlen(b->id) + 1);
	*ac = b->ac;
	b->ac = NULL;
	p->nboxes--;
	box_unlink_free(b);
	dispatch(p); /* refill */
	return 0;
}

void pool_count_run(struct pool *p, const struct plugin *pl, int prestarted)
{
	struct lang_state *ls = lang_of(p, pl);

	if (!ls)
		return;
	if (prestarted)
		ls->prestarted++;
	else
		ls->cold++;
}

struct agent_client *box_agent(const struct box *b)
{
	return b->ac;
}

const char *box_id(const struct box *b)
{
	return b->id;
}

struct pool *box_pool(const struct box *b)
{
	return b->pool;
}

void pool_load(const struct pool *p, struct pool_load *out)
{
	const struct box *b;
	const struct pool_wait *w;

	memset(out, 0, sizeof(*out));
	out->boxes = p->nboxes;
	out->max_containers = p->max_containers;
	for (b = p->boxes; b; b = b->next)
		out->held += b->held != 0;
	for (w = p->wq_head; w; w = w->next)
		out->waiting++;
}

void pool_wake(struct pool *p)
{
	size_t i;

	if (p->shutting_down)
		return;
	for (i = 0; i < p->ps->n; i++)
		p->langs[i].start_failures = 0;
	dispatch(p);
}

void pool_stats(const struct pool *p, const struct plugin *pl,
		struct pool_stats *s)
{
	struct pool *mp = (struct pool *)p;
	struct lang_state *ls = lang_of(mp, pl);
	const struct box *b;
	struct tally t;

	memset(s, 0, sizeof(*s));
	tally(p, pl, &t);
	s->idle = t.idle;
	s->busy = t.busy;
	s->starting = t.starting;
	s->resetting = t.resetting;
	for (b = p->boxes; b; b = b->next)
		if (b->pl == pl && b->state == BOX_REMOVING)
			s->removing++;
	s->waiting = waiting(mp, pl);
	if (ls) {
		s->started = ls->started;
		s->discarded = ls->discarded;
		s->reused = ls->reused;
		s->prestarted = ls->prestarted;
		s->cold = ls->cold;
		s->grown = ls->grown;
		s->shrunk = ls->shrunk;
		s->in_use = ls->in_use;
		s->image_missing = ls->image_missing;
		s->mem_each = lang_mem(ls);
	}
}

static void shutdown_pool(struct pool *p, int quick, void (*done)(void *arg),
			  void *arg)
{
	struct box *b, *next;

	p->shutting_down = 1;
	p->quick = quick;
	p->done = done;
	p->done_arg = arg;
	if (!uv_is_closing((uv_handle_t *)&p->housekeeping))
		uv_close((uv_handle_t *)&p->housekeeping, NULL);
	fail_waiters(p, NULL, ERR_SHUTTING_DOWN, "the server is shutting down");
	for (b = p->boxes; b; b = next) {
		next = b->next; /* box_remove may free b */
		box_remove(b);
	}
	check_shutdown_done(p);
}

void pool_shutdown(struct pool *p, void (*done)(void *arg), void *arg)
{
	shutdown_pool(p, 0, done, arg);
}

void pool_shutdown_quick(struct pool *p, void (*done)(void *arg), void *arg)
{
	shutdown_pool(p, 1, done, arg);
}

struct docker *pool_docker(const struct pool *p)
{
	return p->d;
}

void pool_shutdown_counts(const struct pool *p, unsigned *removed,
			  unsigned *pending)
{
	*removed = p->removed_at_shutdown;
	*pending = (unsigned)p->pending_removals;
}

void pool_free(struct pool *p)
{
	struct box *b, *next;
	size_t i;

	if (!p)
		return;
	for (b = p->boxes; b; b = next) {
		next = b->next;
		free(b);
	}
	for (i = 0; i < p->nlabels; i++)
		free(p->labels[i]);
	free(p->pkg_volume);
	free(p->pkg_mount);
	free(p->pkg_label[0]);
	free(p->langs);
	free(p);
}
