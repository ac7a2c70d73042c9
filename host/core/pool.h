/*
 * pool.h - warm containers per language.
 *
 * A box is one running sandbox container with its agent connection. The pool
 * keeps `pool_size` idle boxes per language, hands one out without any
 * Docker call, and after each use either resets the box through the agent
 * (kill leftovers, wipe /work, /tmp, /dev/shm, SysV IPC, verify) or discards
 * it: after max_uses, on any anomaly, on a failed reset. A miss starts a
 * container on demand; beyond max_containers callers wait in FIFO order.
 */
#ifndef SBX_POOL_H
#define SBX_POOL_H

#include <uv.h>

#include "plugins.h"
#include "../engine/agent_client.h"
#include "../engine/docker.h"

struct pool;
struct box;

/* Error codes passed to acquire callbacks, beyond negative errno. */
#define POOL_E_NOIMAGE (-ENOENT)  /* the language's image is not built */
#define POOL_E_NODOCKER (-ENODEV) /* the engine cannot be reached */

/* err < 0 and box NULL on failure, with a message for the user. */
typedef void (*pool_acquire_cb)(struct box *box, int err, const char *errmsg,
				void *arg);

/* labels: "key=value" strings identifying this server (copied). */
int pool_new(uv_loop_t *loop, struct docker *d, const struct plugin_set *ps,
	     uint32_t max_containers, const char *const *labels,
	     struct pool **out);

/* Start filling every language up to its pool size (in the background). */
void pool_prewarm(struct pool *p);
/* Refill on (default) or off: off keeps no idle container (one-shot CLI). */
void pool_set_refill(struct pool *p, int on);

/*
 * Take a box for plugin pl. Returns 0 with *out set when a warm box was
 * ready (cb is not called), 1 when the request waits (cb is called exactly
 * once later), or a negative code (cb not called).
 */
int pool_acquire(struct pool *p, const struct plugin *pl, pool_acquire_cb cb,
		 void *arg, struct box **out);

/* Warm-up of new containers whose plugin has warmup_code: fn runs the
 * code on the fresh box and calls done(box, ok) exactly once (unless it
 * returns non-zero); the box serves nobody before that. */
typedef void (*pool_warmup_done_fn)(struct box *b, int ok);
typedef int (*pool_warmup_fn)(struct box *b, const struct plugin *pl,
			      pool_warmup_done_fn done);
void pool_set_warmup(struct pool *p, pool_warmup_fn fn);

/* Withdraw a waiting acquire (cb and arg as passed). Returns 1 if it was
 * waiting (cb will not be called), 0 if not found. */
int pool_cancel_acquire(struct pool *p, pool_acquire_cb cb, void *arg);

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

/* Counters for inspection and tests. */
struct pool_stats {
	unsigned idle, busy, starting, resetting, removing, waiting;
	unsigned long started, discarded, reused;
};
void pool_stats(const struct pool *p, const struct plugin *pl,
		struct pool_stats *out);

/* Remove every container this pool created; done runs when the daemon has
 * answered every removal (or failed). Acquire fails from now on. */
void pool_shutdown(struct pool *p, void (*done)(void *arg), void *arg);
void pool_free(struct pool *p);

#endif
