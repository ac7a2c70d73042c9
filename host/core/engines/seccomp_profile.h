/*
 * seccomp_profile.h - the Docker seccomp profile of every container
 * (docs/security.md): an allow-list of every syscall this host's
 * libseccomp knows for its architecture, less the floor
 * (common/seccomp_floor.h) and the language's own additions. Syscalls
 * newer than that list are refused too, as by Docker's default profile;
 * 32-bit entry points are not in it (the process is killed).
 */
#ifndef SBX_CORE_SECCOMP_PROFILE_H
#define SBX_CORE_SECCOMP_PROFILE_H

#include <stddef.h>

#include "error.h"

/* The profile as JSON text for HostConfig.SecurityOpt "seccomp=<json>",
 * denying the floor and extra (syscall names, NULL-terminated, or NULL).
 * Allocated (free()); NULL with err: -ENOMEM, or -ENOTSUP on an
 * architecture libseccomp does not name here. */
char *seccomp_profile_json(const char *const *extra, struct error *err);

/*
 * The profile json as a file in dir (made 0700 if missing), named by its
 * SHA-256 so that equal profiles share a file and a file never changes:
 * for engines that take a path (Podman). Written before the loop runs
 * (the write is synchronous). *path gets it (free()). Returns 0, or a
 * negative errno with err.
 */
int seccomp_profile_file(const char *json, const char *dir, char **path,
			 struct error *err);

#endif
