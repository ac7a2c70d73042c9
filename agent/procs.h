/*
 * procs.h - the PID 1 duties: signals, reaping every child (ours and the
 * orphans the kernel reparents to us) and killing all user processes.
 *
 * There is one process table, so this module keeps its state in statics.
 */
#ifndef SBX_PROCS_H
#define SBX_PROCS_H

#include <stdint.h>
#include <sys/types.h>

/* Called for every reaped process with its wait status. */
typedef void (*procs_exit_cb)(pid_t pid, int status, void *arg);

/* Blocks SIGCHLD and the termination signals and opens a signalfd for
 * them. Returns 0 or a negative errno. */
int procs_init(procs_exit_cb cb, void *arg);
/* The signalfd to poll for POLLIN. */
int procs_fd(void);
/* Drain the signalfd and reap. */
void procs_handle_signals(void);
/* 1 once SIGTERM/SIGINT/SIGHUP was received, whoever drained it. */
int procs_terminating(void);
/* Reap all exited children without blocking. */
void procs_reap(void);
/* SIGKILL every user process but the spared ones (any process whose real
 * uid is not 0, and any child of ours still in setup as root), reaping as they
 * die, until none is left or about a second has passed. One /proc scan when
 * nothing runs. Returns how many are still alive. */
unsigned procs_kill_all(void);
/* on 1: leave pid (the fork server, zygote.h, or the session interpreter,
 * repl.h) out of procs_kill_all() and its count from now on; on 0: stop
 * sparing it. At most PROCS_MAX_SPARE at once. */
#define PROCS_MAX_SPARE 6
void procs_spare(pid_t pid, int on);
/* The same for a whole session (a background process, bg.h, and
 * everything it starts that stays in its session): on 1, every process
 * whose session id, or pid, is sid is left alone. At most
 * PROCS_MAX_SPARE_SESSIONS at once. */
#define PROCS_MAX_SPARE_SESSIONS 16
void procs_spare_session(pid_t sid, int on);

/* How many times the memory limit has killed a process in this container
 * (the memory cgroup's oom_kill count, v1 or v2). 0 and *n set, or -1
 * when the kernel does not say. */
int procs_oom_kills(uint64_t *n);
/* How many times a fork failed at the pids limit (the pids cgroup's
 * "max" event count, v1 or v2); like procs_oom_kills(). */
int procs_pids_max(uint64_t *n);

#endif
