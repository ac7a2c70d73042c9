/*
 * reset.h - AP_RESET: return the container to the state of a fresh one.
 *
 * Kill every user process, then a worker running as the user (the files
 * are theirs, and root here has no CAP_DAC_OVERRIDE) empties /work, /tmp,
 * /dev/shm and /dev/mqueue, removes SysV IPC objects and checks that all of
 * it is really gone. Finally the agent checks that no user process is
 * left, starts the box's pre-started interpreter if it has one
 * (prestart.h) and answers AP_RESET_DONE once that waits: a box the host
 * sees idle is ready to serve at once.
 */
#ifndef SBX_RESET_H
#define SBX_RESET_H

#include <poll.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "agent_proto.h"
#include "error.h"

/* The worker is killed and the reset fails after this long. */
#define RESET_TIMEOUT_MS 10000u
#define RESET_POLL_FDS 1 /* and PRESTART_POLL_FDS, polled by agent.c */

struct reset {
	struct ap_buf *out; /* borrowed: the agent's reply queue */
	mode_t work_mode;   /* mode of /work at startup, restored each time */
	int active;
	int stale; /* asked on a connection that is gone: no reply */
	uint32_t id;
	pid_t pid; /* the worker, 0 once reaped */
	int status;
	int fd; /* worker's report pipe, -1 at EOF */
	size_t msg_len;
	uint64_t deadline_ms;
	char msg[1024]; /* what the worker found left */
	/* Checked, the reply waiting for the next pre-started interpreter
	 * to wait (prestart.h): */
	int checked;
	int ok;
	char text[1024 + 256]; /* msg as one line */
};

/* Records the current mode of /work as the one to restore. */
void reset_init(struct reset *r, struct ap_buf *out);
/* Drop a running reset without a reply (agent shutdown). */
void reset_close(struct reset *r);
int reset_busy(const struct reset *r);
/* Returns 0, or a negative errno with err (may be NULL) filled for
 * AP_ERROR. */
int reset_start(struct reset *r, uint32_t id, struct error *err);
int reset_child_exited(struct reset *r, pid_t pid, int status);
int reset_poll_fill(struct reset *r, struct pollfd *pfd);
void reset_poll_done(struct reset *r, const struct pollfd *pfd, int n);
uint64_t reset_deadline(const struct reset *r);
void reset_step(struct reset *r);

#endif
