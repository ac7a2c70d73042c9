/*
 * engines.h - the container engines this server runs sandboxes on
 * (docs/scaling.md): one Docker client and one pool per engine, each
 * engine's health, and which engine a new box comes from.
 *
 * Placement, for a one-off call and for a new session (which then stays on
 * its engine for life):
 *  1. candidates: engines that are up, or not yet probed; when none is,
 *     the call fails at once with docker_unavailable (naming each engine);
 *  2. an engine whose last start of the language found no image is left
 *     out while another candidate remains;
 *  3. prefer an engine with an idle warm box of the language and room
 *     (boxes below its max_containers);
 *  4. among the engines so preferred (else those with room, else all),
 *     the least load per unit of weight: (boxes in callers' hands +
 *     callers waiting + sessions + 1) / weight; ties go to the engine
 *     listed first.
 * A box the chosen engine cannot give (it does not answer, or it lacks the
 * image) moves the request to the next engine in that order, each engine
 * tried once: a call that had not started is never lost to an engine that
 * went away. A call running on an engine that goes away ends with
 * docker_unavailable.
 *
 * An engine is up once it has answered GET /version and its GET /info
 * shows it can enforce memory, pids and CPU limits; one that cannot is
 * refused for good (engine_info_cannot_limit).
 *
 * Health: each engine is probed (GET /_ping) every probe_interval_ms, each
 * probe bounded by probe_timeout_ms; down_after failures in a row mark it
 * down, so an engine that stops answering is down within down_after x
 * (interval + timeout). A failed start that says the engine cannot be
 * reached probes at once. A down engine is probed on and rejoins at its
 * first answer: its pool refills, its API version is negotiated again.
 */
#ifndef SBX_ENGINES_H
#define SBX_ENGINES_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <uv.h>

#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "pool.h"
#include "docker/docker.h"

struct engines;
struct engine;
/* A request for a box that waits (engines_acquire returned 1): the
 * engines', valid until its callback runs or engines_cancel_acquire()
 * withdraws it. */
struct engines_wait;

enum engine_health {
	ENGINE_UNKNOWN, /* not answered yet */
	ENGINE_UP,
	ENGINE_DOWN,
	/* It answers but cannot enforce the sandboxes' limits
	 * (engine_info_cannot_limit): never used, until the server
	 * restarts. */
	ENGINE_REFUSED,
};

/* What every engine's pool shares (its labels, the package volume). */
struct engines_options {
	const char *const *labels;
	const char *pkg_volume;
	const char *pkg_mount;
	const char *pkg_volume_label;
};

/*
 * An engine for each of cfg's engines (config_engines()): its client and
 * its pool. Nothing is contacted until engines_start(). cfg and ps are
 * borrowed for the set's life. Returns 0, or a negative code with err
 * (the first engine that cannot be made, e.g. plain TCP not allowed).
 */
int engines_new(uv_loop_t *loop, const struct config *cfg,
		const struct plugin_set *ps, const struct engines_options *opt,
		struct engines **out, struct error *err);

/* Called once per engine, each time it comes up: first (first is 1 on
 * its first answer since the start), or again after being down. */
typedef void (*engines_up_cb)(struct engine *e, int first, void *arg);
void engines_on_up(struct engines *es, engines_up_cb cb, void *arg);

/* Negotiate with every engine and start probing them. */
void engines_start(struct engines *es);

size_t engines_count(const struct engines *es);
struct engine *engines_at(const struct engines *es, size_t i);
/* The engine named name, or NULL. */
struct engine *engines_find(const struct engines *es, const char *name);
/* The engine that owns the pool p (box_pool()), or NULL. */
struct engine *engines_of_pool(const struct engines *es, const struct pool *p);

const char *engine_name(const struct engine *e);
/* The engine's CPU count once it answered GET /info (0 before): its
 * containers get at most that many thousand cpu_millis. */
unsigned engine_cpus(const struct engine *e);
struct docker *engine_docker(const struct engine *e);
/* The engine's description (engine_info.h) as it gave it when it last
 * came up, or NULL before: the start-up checks read it rather than ask
 * again. Valid until it comes up again or the engines are freed. */
const cJSON *engine_description(const struct engine *e);
struct pool *engine_pool(const struct engine *e);
enum engine_health engine_health(const struct engine *e);
/* The engine's package installer (install.h: its own egress proxy, cache
 * volume and index), or NULL; set by the owner, borrowed. */
struct installer;
void engine_set_installer(struct engine *e, struct installer *in);
struct installer *engine_installer(const struct engine *e);
/* The engine placement would take for pl now (engines.h, the rule above)
 * without taking a box: for work that must go where the call will run
 * (an install first). NULL when none answers. */
struct engine *engines_choose(struct engines *es, const struct plugin *pl);
/* "up", "down", "unknown", "refused". */
const char *engine_health_name(enum engine_health h);

/*
 * A box for pl from the engine placement picks (above), or from only
 * (a session's engine, say) when not NULL, with pool_acquire()'s flags.
 * Same contract as pool_acquire():
 * 0 with *out, 1 when cb follows from the loop (*wait, if wait is not
 * NULL, gets the request's handle), or a negative code
 * (ERR_SHUTTING_DOWN, ERR_DOCKER_UNAVAILABLE when no engine can take it,
 * -ENOMEM) without cb. The box goes back with
 * pool_release(box_pool(b), ...).
 */
int engines_acquire(struct engines *es, const struct plugin *pl,
		    struct engine *only, unsigned flags, pool_acquire_cb cb,
		    void *arg, struct box **out, struct engines_wait **wait);
/* Withdraw a waiting acquire (its handle, before its callback has run):
 * its callback will not run. */
void engines_cancel_acquire(struct engines_wait *wait);

/* Sessions pinned to e, +1 or -1: they count in its load. */
void engine_count_session(struct engine *e, int delta);

/* Every pool: warm-up hook, refill, prewarm. */
void engines_set_warmup(struct engines *es, pool_warmup_fn fn);
void engines_set_refill(struct engines *es, int on);
void engines_prewarm(struct engines *es);

/* A language's pool counters, every engine's added up. */
void engines_pool_stats(const struct engines *es, const struct plugin *pl,
			struct pool_stats *out);

/* Each engine's health, capacity and load, for sandbox_inspect:
 * [{"name", "endpoint", "tls", "health", "weight", "maxContainers",
 *   "containers", "held", "waiting", "lastError", "downSince"...}]. */
cJSON *engines_json(const struct engines *es);

/* Stop probing, shut every pool down (pool_shutdown); done runs once all
 * have finished. */
void engines_shutdown(struct engines *es, void (*done)(void *arg), void *arg);
/* The same with pool_shutdown_quick (a signal: the server must go now). */
void engines_shutdown_quick(struct engines *es, void (*done)(void *arg),
			    void *arg);
/* Containers removed and removals unanswered, all pools together. */
void engines_shutdown_counts(const struct engines *es, unsigned *removed,
			     unsigned *pending);
/* Free the Docker clients (their requests end with -ECANCELED). After
 * engines_shutdown's done, or without a start. */
void engines_close_clients(struct engines *es);
/* After the loop has closed every handle (as pool_free). NULL: no-op. */
void engines_free(struct engines *es);

#endif
