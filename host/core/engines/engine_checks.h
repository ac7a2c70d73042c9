/*
 * engine_checks.h - what the start-up checks say about the engine
 * (docs/security.md): today, whether the sandbox user is a real account
 * on the host. The server logs the findings to stderr; it runs either way.
 */
#ifndef SBX_CORE_ENGINE_CHECKS_H
#define SBX_CORE_ENGINE_CHECKS_H

#include <uv.h>

struct docker;

/* The uid user code runs as inside every sandbox. */
#define SANDBOX_UID 1000

/* GET /info and log what needs the operator's attention. Nothing is
 * called back; the request ends with the loop or docker_free(). */
int engine_checks_start(uv_loop_t *loop, struct docker *d);

/* From /info's body: 1 if the engine remaps user namespaces
 * (userns-remap) or runs rootless, 0 if not, -1 if the body is not an
 * /info answer. */
int engine_info_remaps_users(const char *info_json);

#endif
