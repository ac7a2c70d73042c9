/*
 * pool.c - warm containers per language, reset and verified between uses.
 */
#include "pool.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/container.h"
#include "../util/log.h"

#define LOG_MODULE "pool"
#define MAX_LABELS 16
/* A container that has not answered HELLO, or RESET, by then is given up. */
#define START_TIMEOUT_MS 30000
#define RESET_TIMEOUT_MS 15000
#define HOUSEKEEPING_MS 1000

enum box_state {
	BOX_STARTING, /* container create/start/attach/hello in flight */
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
	int held;	     /* a caller has it (BUSY, or doomed while BUSY) */
	int removed;	     /* the DELETE answered */
	int doomed;	     /* remove as soon as possible */
	int start_timed_out;
	struct box *prev, *next;
};

struct waiter {
	const struct plugin *pl;
	pool_acquire_cb cb;
	void *arg;
	struct waiter *next;
};

struct lang_state {
	const struct plugin *pl;
	int image_missing;  /* suppresses background refill until a start works
			     */
	int start_failures; /* consecutive; refill backs off */
	unsigned long started, discarded, reused;
};

struct pool {
	uv_timer_t housekeeping; /* embedded; closed by pool_shutdown */
	uv_loop_t *loop;
	struct docker *d;
	const struct plugin_set *ps;
	struct lang_state *langs;
	uint32_t max_containers;
	char *labels[MAX_LABELS + 2];
	size_t nlabels;
	struct box *boxes;
	unsigned nboxes; /* all boxes but those already removed */
	struct waiter *wq_head, *wq_tail;
	int dispatching, again;
	int shutting_down;
	int refill; /* keep idle boxes warm (off for one-shot runs) */
	pool_warmup_fn warmup;
	unsigned pending_removals;
	void (*done)(void *);
	void *done_arg;
};

static void dispatch(struct pool *p);
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

int pool_new(uv_loop_t *loop, struct docker *d, const struct plugin_set *ps,
	     uint32_t max_containers, const char *const *labels,
	     struct pool **out)
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
	for (i = 0; i < ps->n; i++)
		p->langs[i].pl = &ps->v[i];
	p->loop = loop;
	p->d = d;
	p->ps = ps;
	p->max_containers = max_containers;
	p->refill = 1;
	uv_timer_init(loop, &p->housekeeping);
	p->housekeeping.data = p;
	uv_timer_start(&p->housekeeping, housekeeping_cb, HOUSEKEEPING_MS,
		       HOUSEKEEPING_MS);
	uv_unref((uv_handle_t *)&p->housekeeping);
	for (i = 0; labels && labels[i] && i < MAX_LABELS; i++)
		p->labels[p->nlabels++] = strdup(labels[i]);
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

	if (p->shutting_down && p->pending_removals == 0 && p->done) {
		done = p->done;
		p->done = NULL;
		done(p->done_arg);
	}
}

static void removed_cb(const struct error *err, const char *id, void *arg)
{
	struct box *b = arg;
	struct pool *p = b->pool;

	(void)err;
	(void)id;
	b->removed = 1;
	p->pending_removals--;
	if (!b->held)
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
		b->removed = 1;
		if (!b->held)
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

static void fail_waiters(struct pool *p, const struct plugin *pl, int err,
			 const char *msg)
{
	struct waiter **pw = &p->wq_head, *w, *prev = NULL;

	while ((w = *pw)) {
		if (pl && w->pl != pl) {
			prev = w;
			pw = &w->next;
			continue;
		}
		*pw = w->next;
		if (p->wq_tail == w)
			p->wq_tail = prev;
		w->cb(NULL, err, msg, w->arg);
		free(w);
	}
}

static void start_failed(struct box *b, int err, const char *msg)
{
	struct pool *p = b->pool;
	const struct plugin *pl = b->pl;
	struct lang_state *ls = lang_of(p, pl);
	char buf[512];

	if (err == POOL_E_NOIMAGE) {
		snprintf(buf, sizeof(buf),
			 "image %s is missing: build it with "
			 "scripts/build-images.sh %s",
			 pl->policy.image, pl->desc->name);
		if (!ls->image_missing)
			log_error("%s", buf);
		ls->image_missing = 1;
	} else if (err == POOL_E_NODOCKER) {
		snprintf(buf, sizeof(buf),
			 "cannot reach the Docker engine at %s (%s); start one "
			 "with scripts/docker-up.sh",
			 docker_endpoint(p->d), msg ? msg : "no answer");
	} else {
		snprintf(buf, sizeof(buf), "%s",
			 msg ? msg : "container start failed");
	}
	if (err != POOL_E_NOIMAGE)
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

static void warmup_done(struct box *b, int ok)
{
	if (b->state != BOX_STARTING)
		return; /* removed meanwhile (shutdown, start timeout) */
	log_debug("[%s] container %.12s warmed up%s", b->pl->desc->name, b->id,
		  ok ? "" : ": FAILED, discarded");
	/* From here on like any used box: reset and verified, or removed. */
	b->state = BOX_BUSY;
	b->held = 1;
	pool_release(b->pool, b, !ok);
}

static void box_open_cb(struct agent_client *ac, const struct error *err,
			void *arg)
{
	struct box *b = arg;
	struct lang_state *ls = lang_of(b->pool, b->pl);

	(void)ac;
	if (b->state == BOX_REMOVING)
		return; /* closed by shutdown: already being removed */
	if (err) {
		b->ac = NULL; /* freed by the client after this callback */
		if (b->start_timed_out)
			start_failed(b, -ETIMEDOUT,
				     "the sandbox container did not become "
				     "ready in time");
		else
			start_failed(b, -EIO, err->msg);
		return;
	}
	ls->image_missing = 0;
	ls->start_failures = 0;
	ls->started++;
	/* Still STARTING while it warms up: nobody gets it before. */
	if (b->pool->warmup && b->pl->desc->warmup_code &&
	    b->pool->warmup(b, b->pl, warmup_done) == 0)
		return;
	b->state = BOX_IDLE;
	log_debug("[%s] container %.12s ready", b->pl->desc->name, b->id);
	dispatch(b->pool);
}

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
	rc = agent_client_open(p->d, b->id, box_open_cb, box_lost_cb, b,
			       &b->ac);
	if (rc)
		start_failed(b, rc, "cannot attach to the container");
}

static int box_start(struct pool *p, const struct plugin *pl)
{
	const struct policy *po = &pl->policy;
	char lang_label[64];
	const char *labels[MAX_LABELS + 2];
	struct container_spec spec;
	struct box *b;
	size_t i;
	int rc;

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->pool = p;
	b->pl = pl;
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
	};
	rc = container_run(p->d, &spec, started_cb, b);
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

static unsigned count(struct pool *p, const struct plugin *pl,
		      enum box_state st)
{
	struct box *b;
	unsigned n = 0;

	for (b = p->boxes; b; b = b->next)
		if (b->pl == pl && b->state == st)
			n++;
	return n;
}

static unsigned waiting(struct pool *p, const struct plugin *pl)
{
	struct waiter *w;
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

static void take(struct box *b)
{
	b->state = BOX_BUSY;
	b->held = 1;
	b->uses++;
}

static void dispatch_once(struct pool *p)
{
	struct waiter *w, *prev, *next;
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
		w->cb(b, 0, NULL, w->arg);
		free(w);
		p->again = 1; /* the callback may have changed anything */
		return;
	}
	/* Start containers: first for waiters, then to refill. */
	for (i = 0; i < p->ps->n; i++) {
		struct lang_state *ls = &p->langs[i];
		const struct plugin *pl = ls->pl;
		unsigned want_w = waiting(p, pl);
		unsigned resetting = count(p, pl, BOX_RESETTING);
		/* A box being reset will be idle again within milliseconds: a
		 * waiter is better served by it than by a new container, which
		 * takes hundreds of milliseconds (seconds for a fork server).
		 */
		unsigned starting = count(p, pl, BOX_STARTING) + resetting;
		unsigned idle = count(p, pl, BOX_IDLE) + resetting;
		unsigned want = want_w;
		int rc;

		if (!want_w && p->refill && pl->policy.enabled &&
		    !ls->image_missing && ls->start_failures < 3) {
			want = pl->policy.pool_size > idle
				       ? pl->policy.pool_size - idle
				       : 0;
			starting -= resetting; /* already counted as idle */
		}
		while (starting < want) {
			if (p->nboxes >= p->max_containers &&
			    !(want_w && evict_one(p, pl)))
				break;
			rc = box_start(p, pl);
			if (rc) {
				if (want_w)
					fail_waiters(
						p, pl, rc,
						"cannot start a container");
				break;
			}
			starting++;
		}
	}
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

/* Give up on containers whose agent never said hello (a broken image, a
 * daemon that hangs); waiters for that language are told why. */
static void housekeeping_cb(uv_timer_t *t)
{
	struct pool *p = t->data;
	uint64_t now = uv_now(p->loop);
	struct box *b, *next;

	for (b = p->boxes; b; b = next) {
		next = b->next;
		if (b->state == BOX_STARTING && b->id[0] && b->ac &&
		    now - b->started_at > START_TIMEOUT_MS) {
			/* Closing settles HELLO at once: box_open_cb fails
			 * the start with the timeout message. */
			b->start_timed_out = 1;
			agent_client_close(b->ac);
		} else if (b->state == BOX_RESETTING && b->ac &&
			   now - b->reset_at > RESET_TIMEOUT_MS) {
			/* Closing settles RESET with an error: reset_cb
			 * discards the box and frees its slot. */
			log_error("[%s] container %.12s did not finish its "
				  "reset in %d ms",
				  b->pl->desc->name, b->id, RESET_TIMEOUT_MS);
			agent_client_close(b->ac);
		}
	}
}

void pool_prewarm(struct pool *p)
{
	dispatch(p);
}

void pool_set_refill(struct pool *p, int on)
{
	p->refill = on;
}

void pool_set_warmup(struct pool *p, pool_warmup_fn fn)
{
	p->warmup = fn;
}

int pool_acquire(struct pool *p, const struct plugin *pl, pool_acquire_cb cb,
		 void *arg, struct box **out)
{
	struct waiter *w;
	struct box *b;

	if (p->shutting_down)
		return -ESHUTDOWN;
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
	w->pl = pl;
	w->cb = cb;
	w->arg = arg;
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

int pool_cancel_acquire(struct pool *p, pool_acquire_cb cb, void *arg)
{
	struct waiter **pw = &p->wq_head, *w, *prev = NULL;

	for (; (w = *pw); prev = w, pw = &w->next) {
		if (w->cb != cb || w->arg != arg)
			continue;
		*pw = w->next;
		if (p->wq_tail == w)
			p->wq_tail = prev;
		free(w);
		return 1;
	}
	return 0;
}

static void reset_cb(struct agent_client *ac, const struct error *err, int ok,
		     const char *msg, void *arg)
{
	struct box *b = arg;
	struct pool *p = b->pool; /* box_remove may free b */
	struct lang_state *ls = lang_of(p, b->pl);

	(void)ac;
	if (b->state != BOX_RESETTING)
		return;
	if (err || !ok) {
		log_warn(
			"[%s] container %.12s failed its reset (%s): discarded",
			b->pl->desc->name, b->id, err ? "no answer" : msg);
		ls->discarded++;
		box_remove(b);
		dispatch(p);
		return;
	}
	ls->reused++;
	b->state = BOX_IDLE;
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

struct agent_client *box_agent(const struct box *b)
{
	return b->ac;
}

const char *box_id(const struct box *b)
{
	return b->id;
}

void pool_stats(const struct pool *p, const struct plugin *pl,
		struct pool_stats *s)
{
	struct pool *mp = (struct pool *)p;
	struct lang_state *ls = lang_of(mp, pl);

	memset(s, 0, sizeof(*s));
	s->idle = count(mp, pl, BOX_IDLE);
	s->busy = count(mp, pl, BOX_BUSY);
	s->starting = count(mp, pl, BOX_STARTING);
	s->resetting = count(mp, pl, BOX_RESETTING);
	s->removing = count(mp, pl, BOX_REMOVING);
	s->waiting = waiting(mp, pl);
	if (ls) {
		s->started = ls->started;
		s->discarded = ls->discarded;
		s->reused = ls->reused;
	}
}

void pool_shutdown(struct pool *p, void (*done)(void *arg), void *arg)
{
	struct box *b, *next;

	p->shutting_down = 1;
	p->done = done;
	p->done_arg = arg;
	if (!uv_is_closing((uv_handle_t *)&p->housekeeping))
		uv_close((uv_handle_t *)&p->housekeeping, NULL);
	fail_waiters(p, NULL, -ESHUTDOWN, "the server is shutting down");
	for (b = p->boxes; b; b = next) {
		next = b->next; /* box_remove may free b */
		box_remove(b);
	}
	check_shutdown_done(p);
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
	free(p->langs);
	free(p);
}
