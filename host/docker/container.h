/*
 * container.h - the container operations the core needs, expressed over the
 * Engine API: create+start with the hardening every sandbox gets, remove,
 * pause/unpause, rename, inspect, memory in use, list by label or name
 * prefix, image presence. The daemon's answers come back as typed values
 * (struct container_summary), parsed in docker_proto.c. No knowledge of
 * pools or sessions.
 *
 * Every call with a callback returns 0 and calls it exactly once later, or
 * returns a negative code (-EINVAL for a malformed id or argument) and never
 * calls it. err in a callback is NULL on success, else (common/error.h) its
 * code is, unless stated otherwise, the transport's negative code from
 * docker.h (-ECONNREFUSED, -ETIMEDOUT, -ECANCELED from docker_free(), ...),
 * or -ENOENT for no such container (404), -EBUSY for a state conflict
 * (409), -EINVAL for a request the daemon refused (400), -EIO for anything
 * else, and its message the daemon's "message" (or the transport's text);
 * borrowed for the call. Ids are container ids or names ([A-Za-z0-9_.-], at
 * most 255 characters).
 */
#ifndef SBX_CONTAINER_H
#define SBX_CONTAINER_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "docker.h"
#include "error.h"

/* A named volume mounted into a container. */
struct container_mount {
	const char *volume; /* NULL ends a list */
	const char *target;
	int read_only;
	/* "key=value" labels the volume gets if the daemon creates it for
	 * this mount, or NULL. */
	const char *const *labels;
};

struct container_spec {
	const char *name; /* NULL: the daemon names it */
	const char *image;
	const char *const *labels; /* "key=value", NULL-terminated */
	uint32_t memory_mb;	   /* swap is set equal: no swap on top */
	uint32_t cpu_millis;
	uint32_t pids;
	uint32_t nofile;
	uint32_t fsize_mb;
	uint32_t work_mb; /* exec-capable tmpfs at /work, uid 1000 */
	uint32_t tmp_mb;  /* noexec tmpfs at /tmp */
	uint32_t shm_mb;
	const char *network;	/* "none", "bridge" or a network's name */
	const char *const *env; /* "KEY=VALUE" or NULL */
	const struct container_mount *mounts; /* or NULL */
	/* Networks joined after create, before start (NULL-terminated). */
	const char *const *networks;
	/*
	 * A service container (the egress proxy, a one-shot helper) rather
	 * than a sandbox: the image's user (or user), no attached stdin and
	 * no /work, the capabilities in caps only (NULL: none), entrypoint
	 * replacing the image's when set, and its log kept for
	 * container_logs(). The other limits apply as for a sandbox.
	 */
	int service;
	const char *user;
	const char *const *caps;
	const char *const *entrypoint;
	/* A seccomp profile (JSON, host/core/engines/seccomp_profile.h); NULL:
	 * the engine's default. seccomp_file: the same profile as a file on
	 * this machine, for Podman, which wants a path (its engines are
	 * local: docs/scaling.md). */
	const char *seccomp;
	const char *seccomp_file;
	/* The engine is Podman (container_run sets it): no uid= for the
	 * /work tmpfs, so the agent gets CAP_CHOWN to hand it over
	 * (agent/agent.c, own_workdir). */
	int podman;
	/* RLIMIT_NPROC, 0: the engine's default. On Podman container_run
	 * sets what Podman can grant (container.c, podman_nproc). */
	long long nproc;
};

/* id is borrowed for the call. On failure err says why:
 * -ENODEV the engine could not be reached, -ENOENT no such image,
 * -EIO anything else. */
typedef void (*container_cb)(const struct error *err, const char *id,
			     void *arg);

/* Create and start a container. On a failed start the container is
 * removed again before cb runs. Returns 0 or a negative code (no cb). */
int container_run(struct docker *d, const struct container_spec *spec,
		  container_cb cb, void *arg);

/* Create a container (and join its networks) without starting it: cb
 * gets its id, or the error (nothing is left on a failed network join).
 * The caller attaches to it first, then starts it with container_start()
 * (or removes it): a container whose stdin is attached before it starts
 * sees stdin end whenever its host goes, even before it started
 * (StdinOnce). Docker only; Podman's compat API refuses an attach before
 * the start. Returns 0 or a negative code (no cb). */
int container_create(struct docker *d, const struct container_spec *spec,
		     container_cb cb, void *arg);
/* POST /containers/{id}/start of a container_create()d container. */
int container_start(struct docker *d, const char *id, container_cb cb,
		    void *arg);

/* DELETE ?force=1&v=1; 404 counts as success. A removal already in
 * progress (the engine's AutoRemove) is waited for (wait?condition=removed):
 * when cb runs without an error the container is gone, and with it its
 * hold on volumes. cb may be NULL. */
int container_remove(struct docker *d, const char *id, container_cb cb,
		     void *arg);

/* A container's state, as the engine names it (State.Status in an
 * inspection, State in a listing). */
enum container_status {
	CONTAINER_STATUS_UNKNOWN = 0, /* absent, or a word we do not know */
	CONTAINER_CREATED,
	CONTAINER_RUNNING,
	CONTAINER_PAUSED,
	CONTAINER_RESTARTING,
	CONTAINER_REMOVING,
	CONTAINER_EXITED,
	CONTAINER_DEAD,
};

/* What the engine says of a container, in a listing or an inspection;
 * borrowed for the callback. What the answer lacks is "", 0 or
 * CONTAINER_STATUS_UNKNOWN. */
struct container_summary {
	const char *id;
	/* Without the engine's leading '/' ("sbx-s.x", not "/sbx-s.x"); a
	 * listing gives the first of its names. */
	const char *name;
	enum container_status status;
	/* Its processes exist: running, paused or restarting (an
	 * inspection's State.Running; a listing's from its status). */
	int running;
	const struct docker_label *labels; /* Config.Labels */
	size_t nlabels;
};

/* Listing for orphan cleanup and adoption, stopped containers included:
 * cb gets the n containers (borrowed), those the answer gives without an
 * id left out; an answer that is no list lists nothing. */
typedef void (*container_list_cb)(const struct error *err,
				  const struct container_summary *list,
				  size_t n, void *arg);
/* Containers carrying label ("key" or "key=value"). */
int container_list(struct docker *d, const char *label, container_list_cb cb,
		   void *arg);
/* Containers whose name starts with prefix ([A-Za-z0-9_.-], at most 255
 * characters, else -EINVAL), by the Engine API's name filter. */
int container_list_named(struct docker *d, const char *prefix,
			 container_list_cb cb, void *arg);

/* POST /containers/{id}/pause (the cgroup freezer: processes stop, memory
 * stays) and /unpause. A container already in the wanted state, or not
 * running, is -EBUSY with the daemon's message ("Container ... is already
 * paused", "... is not paused", "... is not running"; Docker 20.10 sends
 * the second with status 500, which is mapped the same). cb gets id back. */
int container_pause(struct docker *d, const char *id, container_cb cb,
		    void *arg);
int container_unpause(struct docker *d, const char *id, container_cb cb,
		      void *arg);

/* POST /containers/{id}/rename?name=<new_name>. The daemon checks the name
 * ([a-zA-Z0-9][a-zA-Z0-9_.-]+: -EINVAL with its message); a name in use is
 * -EEXIST. cb may be NULL; it gets id (the old reference) back. */
int container_rename(struct docker *d, const char *id, const char *new_name,
		     container_cb cb, void *arg);

/* GET /containers/{id}/json: cb gets the container (borrowed; on
 * success never NULL, and its fields are as the answer gives them). */
typedef void (*container_inspect_cb)(const struct error *err,
				     const struct container_summary *c,
				     void *arg);
int container_inspect(struct docker *d, const char *id, container_inspect_cb cb,
		      void *arg);

/* An operation in flight that its caller may withdraw (container_cancel). */
struct container_op;

/* Memory in use in bytes, as `docker stats` shows it: the cgroup's usage
 * minus inactive page cache, which the kernel reclaims before it would
 * OOM-kill. One GET /containers/{id}/stats?stream=false (&one-shot=true from
 * API 1.41, else the daemon samples twice). Slow whatever the query: the
 * daemon answers at its stats collector's next round, which it runs once a
 * second (about 1 s when no other stats request is open, 2 s without
 * one-shot), so callers ask in the background. A container that is not
 * running has no statistics: -ENODATA. out (may be NULL) gets the
 * operation for container_cancel(), valid until cb has run. */
typedef void (*container_memory_cb)(const struct error *err, uint64_t bytes,
				    void *arg);
int container_memory(struct docker *d, const char *id, container_memory_cb cb,
		     void *arg, struct container_op **out);
/* Withdraw op (valid: its cb has not run): cb is never called and op is
 * freed (docker_req_cancel()). */
void container_cancel(struct container_op *op);

/* POST /containers/{id}/wait: cb gets the exit status. */
typedef void (*container_wait_cb)(const struct error *err, int status,
				  void *arg);
int container_wait(struct docker *d, const char *id, container_wait_cb cb,
		   void *arg);

/* GET /containers/{id}/logs?stdout=1: a service container's stdout so far,
 * demultiplexed (borrowed for the call). */
typedef void (*container_logs_cb)(const struct error *err, const char *text,
				  size_t len, void *arg);
int container_logs(struct docker *d, const char *id, container_logs_cb cb,
		   void *arg);

/* err 0 = present (id: its "sha256:..." id, borrowed), -ENOENT =
 * missing, other = could not tell. */
typedef void (*image_cb)(const struct error *err, const char *id, void *arg);
int image_check(struct docker *d, const char *image, image_cb cb, void *arg);

/* "key=value" strings as the members of obj (the Engine API's Labels). */
void container_labels_json(cJSON *obj, const char *const *list);

/* The JSON body container_run sends (for tests); caller frees. */
char *container_spec_json(const struct container_spec *spec);

#endif
