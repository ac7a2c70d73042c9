/*
 * pool.h - warm containers per language, sized by demand.
 *
 * A box is one running sandbox container with its agent connection. The pool
 * hands an idle box out without any Docker call, and after each use either
 * resets the box through the agent (kill leftovers, wipe /work, /tmp,
 * /dev/shm, SysV IPC, verify) or discards it: after max_uses, on any
 * anomaly, on a failed reset. Beyond max_containers callers wait in FIFO
 * order.
 *
 * Sizing (docs/config.md, "How the pool sizes itself"), per language:
 *  - floor: pool_size containers (idle, busy or being reset) once the
 *    language is in use: from start-up if warm_at_start, else from its
 *    first acquire; 0 before;
 *  - a caller with no idle box, and no box being reset or started for it,
 *    gets a container started for it (a miss), whatever the ceiling and
 *    the memory budget;
 *  - growth: a caller waiting for a box being reset also gets a new
 *    container started, while the language has fewer than pool_max_size;
 *  - shrink: a box idle for idle_shrink_s goes while the language has more
 *    than its floor;
 *  - warm starts (floor and growth) are held back when the estimated
 *    memory of the pool's containers would exceed memory_budget_mb.
 */
#ifndef SBX_POOL_H
#define SBX_POOL_H

#include <uv.h>

#include "core/plugins/plugins.h"
#include "docker/agent_client.h"
#include "docker/docker.h"
#include "error.h"

struct pool;
struct box;
/* A caller waiting for a box (pool_acquire returned 1): the pool's, valid
 * until its callback runs or pool_cancel_acquire() withdraws it. */
struct pool_wait;

/* err NULL with the box, or box NULL and err (common/error.h) saying why, in
 * words for the user: ERR_IMAGE_MISSING (the language's image is not
 * built), ERR_DOCKER_UNAVAILABLE (the engine cannot be reached),
 * ERR_SHUTTING_DOWN, or another code. Borrowed for the call. */
typedef void (*pool_acquire_cb)(struct box *box, const struct error *err,
				void *arg);

struct pool_options {
	uint32_t max_containers;   /* all languages together */
	uint32_t idle_shrink_s;	   /* 0: boxes above the floor stay */
	uint32_t memory_budget_mb; /* 0: no budget */
	const char *const *labels; /* "key=value" identifying this server,
				    * NULL-terminated (copied) */
	/* The package volume, mounted read-only at mount in every container
	 * of a language with a package installer (copied), or NULL. */
	const char *pkg_volume;
	const char *pkg_mount;
	/* "key=value": the volume's identity label, should the daemon make
	 * it for a mount (install.h, INSTALL_VOLUME_ID_LABEL). */
	const char *pkg_volume_label;
	/* With floor_capped, the most warm containers a language keeps here
	 * (its floor is the smaller of this and its own): an engine's
	 * pool_size. */
	int floor_capped;
	uint32_t floor_cap;
};

/* ps is borrowed for the pool's life; each plugin's policy gives its floor,
 * ceiling and whether it is warm from the start. */
int pool_new(uv_loop_t *loop, struct docker *d, const struct plugin_set *ps,
	     const struct pool_options *opt, struct pool **out);

/* Start filling the languages that are warm at start up to their floor (in
 * the background). */
void pool_prewarm(struct pool *p);
/* While held (delta +1 takes a hold, -1 gives it back), the pool starts
 * no container only to keep a floor; containers for callers, and growth
 * for callers waiting, still start. A session holds it while its
 * interpreter starts, so that the start-up (python-ml: seconds of
 * imports) does not share the CPUs with new containers warming up their
 * own (docs/sessions.md). */
void pool_hold_warm(struct pool *p, int delta);
/* Refill on (default) or off: off keeps no idle container (one-shot CLI). */
void pool_set_refill(struct pool *p, int on);

/* What a caller of pool_acquire() asks besides a box. */
enum pool_acquire_flags {
	/* A container started for this caller skips the plugin's warm-up
	 * (warmup_code, the pre-started interpreter): the caller would not
	 * use it. A session's interpreter imports for itself; a python-ml
	 * fork server started without a call's packages is started again
	 * with them. An idle warm box still goes to such a caller. */
	POOL_BARE = 1,
};

/*
 * Take a box for plugin pl (flags: enum pool_acquire_flags). Returns 0
 * with *out set when a warm box was ready (cb is not called), 1 when the
 * request waits (cb is called exactly once later, from the loop; *wait, if
 * wait is not NULL, gets its handle), or a negative code (cb not called):
 * ERR_SHUTTING_DOWN, -ENOMEM.
 */
int pool_acquire(struct pool *p, const struct plugin *pl, unsigned flags,
		 pool_acquire_cb cb, void *arg, struct box **out,
		 struct pool_wait **wait);

/* Warm-up of new containers: fn prepares the fresh box (runs the plugin's
 * warmup_code, starts its pre-started interpreter) and calls done(box,
 * err, used, arg) exactly once, unless it returns non-zero (nothing to
 * do): err NULL when the box is ready, else why it is discarded; used
 * when code ran (the box is then reset). The box serves nobody before. */
typedef void (*pool_warmup_done_cb)(struct box *b, const struct error *err,
				    int used, void *arg);
typedef int (*pool_warmup_fn)(struct box *b, const struct plugin *pl,
			      pool_warmup_done_cb done, void *arg);
void pool_set_warmup(struct pool *p, pool_warmup_fn fn);

/* Withdraw a waiting acquire (its handle, before its callback has run):
 * its callback will not run. */
void pool_cancel_acquire(struct pool_wait *wait);

/* Give a box back. discard=1 removes it instead of resetting it. */
void pool_release(struct pool *p, struct box *b, int discard);

/* Take a box out of the pool for good (a session keeps it): the caller
 * now owns the container (id copied into id_out) and its agent connection
 * (*ac, whose lost callback it must set with agent_client_set_owner before
 * returning to the loop), and removes the container itself. The box is
 * freed and the pool refills. Returns 0, or -EINVAL if b is not a box the
 * caller holds with a live connection. */
int pool_detach(struct pool *p, struct box *b, char *id_out, size_t id_size,
		struct agent_client **ac);

struct agent_client *box_agent(const struct box *b);
const char *box_id(const struct box *b);
/* The pool the box belongs to, for pool_release() (a caller that took
 * it through engines.h does not know which engine it came from). */
struct pool *box_pool(const struct box *b);

/* One-off runs of pl on this pool's boxes: in the pre-started interpreter
 * or not (docs/prestart.md), for pool_stats. */
void pool_count_run(struct pool *p, const struct plugin *pl, int prestarted);

/* Counters for inspection and tests. */
struct pool_stats {
	unsigned idle, busy, starting, resetting, removing, waiting;
	unsigned long started, discarded, reused, grown, shrunk;
	unsigned long prestarted, cold; /* one-off runs, by how they began */
	int in_use;			/* the floor applies */
	int image_missing;		/* the last start found no image */
	uint64_t mem_each; /* estimated bytes per container of the language */
};
void pool_stats(const struct pool *p, const struct plugin *pl,
		struct pool_stats *out);

/* The whole pool's load, for placement (engines.h): boxes that count
 * against max_containers, those a caller holds, callers waiting. */
struct pool_load {
	unsigned boxes, held, waiting, max_containers;
};
void pool_load(const struct pool *p, struct pool_load *out);

/* The engine answers again: forget the failed starts that held warm
 * starts back, and refill. */
void pool_wake(struct pool *p);

/* Remove every container this pool created; done runs when the daemon has
 * answered every removal (or failed). Acquire fails from now on. */
void pool_shutdown(struct pool *p, void (*done)(void *arg), void *arg);
/* The same, for a server that must be gone at once (a signal): every
 * removal is sent and every agent connection closed, but done waits only
 * for the removals of containers that would not end by themselves (being
 * created, created and not started, or whose start is unanswered); the
 * others end with their agents, whose stdin ends with the connection
 * (AutoRemove; docs/agent-protocol.md, "When the host goes"). */
void pool_shutdown_quick(struct pool *p, void (*done)(void *arg), void *arg);
/* The engine the pool's containers run on. */
struct docker *pool_docker(const struct pool *p);
/* Since pool_shutdown: containers the engine confirmed removed (or gone
 * already), and removals still waiting for its answer. */
void pool_shutdown_counts(const struct pool *p, unsigned *removed,
			  unsigned *pending);
/* After pool_shutdown's done, once the loop has run until its handles are
 * closed (uv_run to the end, as main.c does): the pool's timers are
 * embedded and freed with it. NULL is a no-op. */
void pool_free(struct pool *p);

#endif
