/*
 * state_dir.h - the state directory: where the server keeps what outlives
 * it (the sessions' slot, the audit log, kept artifacts, the package
 * cache's index, the links' key, Podman's seccomp profiles).
 */
#ifndef SBX_STATE_DIR_H
#define SBX_STATE_DIR_H

#include <stddef.h>

/* The state directory into buf: dir, or when NULL or empty
 * $XDG_STATE_HOME/mcp-sandbox, else ~/.local/state/mcp-sandbox; created
 * (0700) with its parents. 0 or a negative errno. */
int state_dir_resolve(const char *dir, char *buf, size_t size);
/* Its subdirectory sub ("seccomp"), made like it. */
int state_dir_subdir(const char *dir, const char *sub, char *buf, size_t size);

#endif
