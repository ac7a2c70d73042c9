/*
 * container.h - the container operations the core needs, expressed over the
 * Engine API: create+start with the hardening every sandbox gets, remove,
 * list by label, image presence. No knowledge of pools or sessions.
 */
#ifndef SBX_CONTAINER_H
#define SBX_CONTAINER_H

#include <stdint.h>

#include "docker.h"

struct container_spec {
	const char *image;
	const char *const *labels;   /* "key=value", NULL-terminated */
	uint32_t memory_mb;          /* swap is set equal: no swap on top */
	uint32_t cpu_millis;
	uint32_t pids;
	uint32_t nofile;
	uint32_t fsize_mb;
	uint32_t work_mb;            /* exec-capable tmpfs at /work, uid 1000 */
	uint32_t tmp_mb;             /* noexec tmpfs at /tmp */
	uint32_t shm_mb;
	const char *network;         /* "none" */
};

/* id is borrowed for the call. On failure err < 0 and errmsg says why:
 * -ENODEV the engine could not be reached, -ENOENT no such image,
 * -EIO anything else. */
typedef void (*container_cb)(int err, const char *errmsg, const char *id,
			     void *arg);

/* Create and start a container. On a failed start the container is
 * removed again before cb runs. Returns 0 or a negative code (no cb). */
int container_run(struct docker *d, const struct container_spec *spec,
		  container_cb cb, void *arg);

/* DELETE ?force=1&v=1; 404 counts as success. cb may be NULL. */
int container_remove(struct docker *d, const char *id, container_cb cb,
		     void *arg);

/* Freeze/thaw are for sessions later; listing for orphan cleanup:
 * cb gets the daemon's JSON array text (borrowed). */
typedef void (*container_list_cb)(int err, const char *errmsg,
				  const char *json, void *arg);
int container_list(struct docker *d, const char *label, container_list_cb cb,
		   void *arg);

/* err 0 = present, -ENOENT = missing, other = could not tell. */
typedef void (*image_cb)(int err, const char *errmsg, void *arg);
int image_check(struct docker *d, const char *image, image_cb cb, void *arg);

/* The JSON body container_run sends (for tests); caller frees. */
char *container_spec_json(const struct container_spec *spec);

#endif
