/*
 * fake_engine.h - a Docker engine for tests of the pool, the executor and
 * sessions: the fake daemon (fake_docker.h) answering the Engine API calls
 * the host makes for containers (create, start, attach, delete, rename,
 * pause, unpause, inspect, list, stats, exec, _ping, version, image
 * inspect), with a fake agent (fake_agent.h) behind every attach. It counts
 * requests per endpoint and injects failures.
 *
 * Containers are records, never processes: "running" means created and
 * started; DELETE hangs up the container's agent connection.
 */
#ifndef SBX_FAKE_ENGINE_H
#define SBX_FAKE_ENGINE_H

#include <uv.h>

#include "fake_agent.h"
#include "fake_docker.h"

struct fake_engine;

enum fake_engine_op {
	FAKE_OP_CREATE,	    /* POST /containers/create */
	FAKE_OP_START,	    /* POST /containers/{id}/start */
	FAKE_OP_ATTACH,	    /* POST /containers/{id}/attach */
	FAKE_OP_DELETE,	    /* DELETE /containers/{id} */
	FAKE_OP_RENAME,	    /* POST /containers/{id}/rename */
	FAKE_OP_PAUSE,	    /* POST /containers/{id}/pause */
	FAKE_OP_UNPAUSE,    /* POST /containers/{id}/unpause */
	FAKE_OP_INSPECT,    /* GET /containers/{id}/json */
	FAKE_OP_LIST,	    /* GET /containers/json */
	FAKE_OP_STATS,	    /* GET /containers/{id}/stats */
	FAKE_OP_EXEC,	    /* POST /containers/{id}/exec */
	FAKE_OP_EXEC_START, /* POST /exec/{id}/start */
	FAKE_OP_PING,	    /* GET /_ping */
	FAKE_OP_VERSION,    /* GET /version */
	FAKE_OP_IMAGE,	    /* GET /images/{name}/json */
	FAKE_OP_OTHER,	    /* anything else: 404 */
	FAKE_OP_N
};

/* Failures to inject; read when each request arrives. */
struct fake_engine_faults {
	int no_image;	 /* create and image inspect answer 404 "No such
			    image" */
	int start_fails; /* start answers 500 */
	int stats_fail;	 /* stats answers 500 */
	int stats_hold;	 /* stats requests get no answer until
			    fake_engine_release_stats() */
};

/* One container as the engine knows it (read-only for tests). */
struct fake_container {
	char id[32];
	char name[256]; /* after a rename, else empty */
	char image[128];
	int started, paused, removed;
	unsigned deletes;	  /* DELETE requests that named it */
	struct fake_agent *agent; /* of the latest attach, or NULL */
};

#define FAKE_ENGINE_MAX_CONTAINERS 64

int fake_engine_start(uv_loop_t *loop, struct fake_engine **out);
/* Stops the daemon (every connection closes) and frees the agents; the
 * records go once the loop has closed the handles. NULL is a no-op. */
void fake_engine_stop(struct fake_engine *e);
/* Removes the socket now (a test about to exit on a failure). */
void fake_engine_unlink(struct fake_engine *e);

const char *fake_engine_url(const struct fake_engine *e);
struct fake_engine_faults *fake_engine_faults(struct fake_engine *e);
/* The script every agent of this engine follows. */
struct fake_agent_script *fake_engine_script(struct fake_engine *e);

unsigned fake_engine_count(const struct fake_engine *e, enum fake_engine_op op);
/* Every request so far. */
unsigned fake_engine_requests(const struct fake_engine *e);

/* Containers created so far, in order (index 0 first), removed ones
 * included. */
unsigned fake_engine_ncontainers(const struct fake_engine *e);
const struct fake_container *fake_engine_container(const struct fake_engine *e,
						   unsigned i);
const struct fake_container *fake_engine_find(const struct fake_engine *e,
					      const char *id);
/* Created and not removed. */
unsigned fake_engine_live(const struct fake_engine *e);

/* The memory usage stats reports for every running container (10 MiB at
 * first, of which 2 MiB inactive page cache). */
void fake_engine_set_memory(struct fake_engine *e, unsigned long long usage);
/* Stats requests held (stats_hold) whose client is still connected. */
unsigned fake_engine_stats_held(const struct fake_engine *e);
/* Answer every held stats request now. */
void fake_engine_release_stats(struct fake_engine *e);

/* Agents holding an AP_EXEC (FAKE_EXEC_HOLD). */
unsigned fake_engine_holding(const struct fake_engine *e);
/* Answer the AP_EXEC held longest. Returns 0, or -ENOENT. */
int fake_engine_release(struct fake_engine *e);

#endif
