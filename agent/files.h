/*
 * files.h - AP_FILE: one file operation in the work directory.
 *
 * A forked worker does the operation with the user's uid and no
 * capabilities (spawn_worker()), so it can touch exactly what the user's
 * own code could. It resolves every path with openat2() beneath the work
 * directory, refusing symlinks that leave it and magic links
 * (/proc/self/...), opens with O_NONBLOCK (a FIFO cannot block it) and
 * reads only regular files, at most the requested length. It encodes the
 * whole AP_FILE_DONE frame and writes it to a pipe; the agent checks that
 * the bytes are one frame of that type and id and queues them as they
 * are. A worker that dies, writes garbage or outlives its deadline is
 * answered for with AP_FS_IO or AP_FS_TIMEOUT.
 *
 * Like an execution or a reset, one at a time: the agent answers "busy"
 * while any of the three runs (the host's session queue orders them).
 */
#ifndef SBX_FILES_H
#define SBX_FILES_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "error.h"

/* The worker is killed after this long unless the request says. */
#define FILES_TIMEOUT_MS AP_FILE_TIMEOUT_MS
/* A list stops with AP_FS_TOO_LARGE after looking at this many entries. */
#define FILES_LIST_SCAN_MAX 1000000u
/* Entries per list page when the request gives no LENGTH, and at most. */
#define FILES_LIST_PAGE 1000u
/* Depth of a recursive list or delete at most. */
#define FILES_MAX_DEPTH 64
#define FILES_POLL_FDS 1

struct files {
	struct ap_buf *out; /* borrowed: the agent's reply queue */
	int active;
	int stale; /* asked on a connection that is gone: no reply */
	uint32_t id;
	pid_t pid; /* the worker, 0 once reaped */
	int status;
	int fd; /* the worker's reply pipe, -1 at EOF */
	struct ap_buf reply;
	int overflow; /* the worker wrote more than one frame can hold */
	uint64_t deadline_ms;
};

void files_init(struct files *fs, struct ap_buf *out);
/* Drop a running operation without a reply (agent shutdown). */
void files_close(struct files *fs);
int files_busy(const struct files *fs);
/* Decode the request and start the worker. Returns 0, or a negative errno
 * with err (may be NULL) filled for AP_ERROR. */
int files_start(struct files *fs, const struct ap_frame *f, struct error *err);
int files_child_exited(struct files *fs, pid_t pid, int status);
int files_poll_fill(struct files *fs, struct pollfd *pfd);
void files_poll_done(struct files *fs, const struct pollfd *pfd, int n);
uint64_t files_deadline(const struct files *fs);
void files_step(struct files *fs);

#endif
