/*
 * bg.h - a session's background processes (docs/processes.md).
 *
 * AP_SPAWN starts a program that outlives the call: the agent keeps it
 * in a table with a ring buffer of its output (stdout and stderr merged,
 * as on a terminal) and its end, and answers AP_PROC (list, logs, signal,
 * wait) about it at any time, beside whatever else runs. Only a kept
 * container (a session's, AP_KEEP) has them. Each one starts in its own
 * session (spawn.h); procs_kill_all() spares that session for as long as
 * the table holds the process, so the kill at the end of every call
 * leaves it and whatever it started; the agent's own end, and a reset,
 * kill them all. There is one table, so this module keeps its state in
 * statics, like procs.c.
 */
#ifndef SBX_BG_H
#define SBX_BG_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_proto.h"

/* Table entries, running or ended (an ended one keeps its output until
 * its slot is needed). */
#define BG_MAX 16
/* Running processes at most when AP_SPAWN does not say. */
#define BG_LIVE_DEFAULT 8
/* Output kept per process: default, most. */
#define BG_RING_DEFAULT (64u * 1024u)
#define BG_RING_MAX (1u << 20)
/* Bytes one logs answer carries: default, most. */
#define BG_LOGS_DEFAULT (64u * 1024u)
#define BG_LOGS_MAX (1u << 20)
/* Waits in flight at most. */
#define BG_WAITS_MAX 32
#define BG_POLL_FDS BG_MAX

/* Replies go to out (the agent's queue). */
void bg_init(struct ap_buf *out);
/* AP_SPAWN; kept: the container is a session's. Answers always. */
void bg_spawn(const struct ap_frame *f, int kept);
/* AP_PROC: answers now, or (a wait) once the process ends or the wait's
 * time is up. */
void bg_proc(const struct ap_frame *f);
/* From the reaper, for every process reaped. Returns 1 if pid was a
 * background process. */
int bg_child_exited(pid_t pid, int status);
/* A process that has ended and left nothing that runs or writes is
 * spared no more: once its group is empty its number may be reused, by
 * a call's program that must not be spared. Runs after every reap (the
 * last of a group is reparented to the agent if none of it reaps it)
 * and every output read. */
void bg_settle(void);

int bg_poll_fill(struct pollfd *pfd);
void bg_poll_done(const struct pollfd *pfd, int n);
/* When bg_step() must run next, or UINT64_MAX. */
uint64_t bg_deadline(void);
/* Answer the waits whose time is up. */
void bg_step(void);
/* AP_CANCEL of a wait (its id): forgotten, unanswered (the host has
 * given up on it). */
void bg_cancel(uint32_t id);
/* The connection went: its waits are forgotten, unanswered. */
void bg_drop_waits(void);
/* SIGKILL every process group of the table and forget them all (the
 * agent's end, a reset). */
void bg_kill_all(void);

#endif
