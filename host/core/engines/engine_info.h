/*
 * engine_info.h - what the container engine is: its version and API, the
 * kernel and cgroup version, which limits it can enforce, its security
 * options and OCI runtime, its data root (GET /version and GET /info).
 * sandbox_inspect shows it; the start-up checks and `doctor` judge it.
 */
#ifndef SBX_CORE_ENGINE_INFO_H
#define SBX_CORE_ENGINE_INFO_H

#include <cjson/cJSON.h>

#include "error.h"

struct docker;

/* err NULL and info, the engine described (taken by the callback); or
 * info NULL and err (ERR_DOCKER_UNAVAILABLE: the engine did not answer,
 * or not understandably). */
typedef void (*engine_info_cb)(const struct error *err, cJSON *info, void *arg);

/*
 * Ask the engine: GET /info (and Podman's /libpod/info), with the
 * negotiation's /version answer when the client has one, else GET
 * /version first. Returns 0 and calls cb exactly once, later, from the
 * loop; or a negative errno without calling it. The description:
 * {endpoint, kind ("docker"), version, apiVersion, apiVersionUsed, os, kernel,
 * arch, cgroupVersion, cgroupDriver, enforces: {memory, swap, pids, cpu},
 *  security: {seccomp, userns, rootless, apparmor, selinux},
 *  runtime: {name, runc, containerd}, dataRoot, cpus, memoryBytes,
 *  containersRunning, images}, kind "podman" for Podman's
 *  service (engine_info_podman).
 */
int engine_info_get(struct docker *d, engine_info_cb cb, void *arg);

/* Whether the engine described (engine_info_from) can enforce the limits
 * every sandbox runs under: memory, pids and CPU from /info, and not
 * rootless on cgroup v1 (where an unprivileged engine cannot set them
 * although the controllers exist). 0 when it can; -ENOTSUP with err
 * saying which it cannot (the server then refuses the engine rather than
 * run without them). */
int engine_info_cannot_limit(const cJSON *desc, struct error *err);

/* Podman's GET /libpod/info (its body) into its description: kind
 * "podman", security.rootless, and enforces.* false for each controller
 * (memory, pids, cpu) the engine may not use. 0, or -EINVAL when the
 * body is not such an answer. */
int engine_info_podman(cJSON *desc, const char *libpod_json);

/* The description from the two answers' bodies (a pure function, for
 * tests): NULL when info_json is not an /info answer. */
cJSON *engine_info_from(const char *version_json, const char *info_json,
			const char *endpoint, const char *api_used);

#endif
