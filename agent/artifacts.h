/*
 * artifacts.h - the files an execution created or changed in /work.
 *
 * The agent watches /work and every directory below it with inotify (at
 * most ARTIFACTS_MAX_WATCHES, ARTIFACTS_MAX_DEPTH deep; a directory the
 * agent may not read, mode 0700, is not watched). While an execution's
 * run step runs it notes each file created, written and closed, or moved
 * in; at the end it reports those that still exist as regular files. The
 * cost follows what the program did, not the size of /work: a call that
 * made no files costs one read of an empty queue. Events that arrive
 * between executions (staged inputs, file operations, a build step) are
 * dropped when the run step starts. If the kernel's queue overflows, the
 * execution's report says so (ARTIFACTS_OVERFLOW) instead of guessing.
 *
 * One watcher per agent, so the state lives in statics.
 */
#ifndef SBX_ARTIFACTS_H
#define SBX_ARTIFACTS_H

#include <stdint.h>

#include "agent_proto.h"

#define ARTIFACTS_MAX_WATCHES 1000
#define ARTIFACTS_MAX_DEPTH 16
/* Distinct paths noted per execution at most, and their bytes: each file
 * is noted once however many events it makes, so *more is exact up to
 * these; past them it is ARTIFACTS_UNKNOWN rather than a guess. */
#define ARTIFACTS_MAX_NOTED 100000
#define ARTIFACTS_MAX_NOTED_BYTES (8u << 20)
#define ARTIFACTS_UNKNOWN UINT32_MAX

/* Start watching /work (once). The inotify fd, or a negative errno
 * (then no execution reports artifacts). */
int artifacts_init(void);
/* The fd to poll for POLLIN while an execution runs, or -1. */
int artifacts_fd(void);
/* Forget what happened so far and start noting (the run step starts). */
void artifacts_begin(void);
/* Read what the kernel has queued (POLLIN on artifacts_fd()). */
void artifacts_read(void);
/* Stop noting; pack (common/agent_ops.h entries, paths relative to /work,
 * sorted) at most max regular files that exist now, leaving out skip (the
 * source file, or NULL); *more counts the others exactly, or is
 * ARTIFACTS_UNKNOWN past ARTIFACTS_MAX_NOTED. Returns 0, -ENOMEM, or
 * -EOVERFLOW when events were lost (nothing packed). */
int artifacts_end(struct ap_buf *packed, uint32_t max, const char *skip,
		  uint32_t *more);

#endif
