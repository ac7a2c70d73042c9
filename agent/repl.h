/*
 * repl.h - the session interpreter: one long-lived user process that keeps
 * a session's in-memory state between executions (Python variables, shell
 * functions, JavaScript bindings).
 *
 * docs/session-interpreters.md is the contract with the interpreter: its
 * fds 0 (requests) and 3 (replies "done <seq> <status>\n") are pipes to the
 * agent, fds 1 and 2 are pipes that every call's output travels on. It is
 * started like any user program (spawn_user: uid 1000, no capabilities,
 * seccomp, its own session and process group) and spared by
 * procs_kill_all() while it lives. exec.c drives one call at a time through
 * it; output that arrives while no call runs is dropped.
 *
 * One interpreter per agent, so the state lives in statics.
 */
#ifndef SBX_REPL_H
#define SBX_REPL_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Most fds repl_poll_fill() adds. */
#define REPL_POLL_FDS 4

/* Where a call's output goes: fd is 1 or 2; data is borrowed for the
 * call. */
typedef void (*repl_output_cb)(int fd, const void *data, size_t len, void *arg);

/* Make sure an interpreter started with exactly this argv, environment and
 * deny list runs; start one if not (a different one is killed first).
 * Returns 1 when it started a new one, 0 when the running one is reused,
 * or a negative errno. Pointers are borrowed for the call. */
int repl_ensure(const char *const *argv, const char *const *envp,
		const char *const *deny, size_t ndeny, void *seccomp);

int repl_running(void);

/* Queue request bytes for the interpreter's fd 0 (copied) and wait for the
 * reply to seq. Returns 0, -ESRCH when none runs, -ENOMEM. */
int repl_submit(uint32_t seq, const void *data, size_t len);

int repl_poll_fill(struct pollfd *pfd);
/* Handle poll results: write queued request bytes, hand output to sink
 * (NULL: drop it), read replies. */
void repl_poll_done(const struct pollfd *pfd, int n, repl_output_cb sink,
		    void *arg);
/* 1 and *status when the reply to the submitted request has arrived
 * (consumed by this call). */
int repl_take_done(int *status);
/* Read what the output pipes hold right now (the interpreter flushes
 * before it replies, so after the reply this is the rest of the call's
 * output). */
void repl_drain(repl_output_cb sink, void *arg);
/* 1 while an output pipe is still open (after the interpreter died, until
 * everything holding it has gone and it is read to EOF). */
int repl_output_open(void);

/* SIGINT to the interpreter's process group. */
void repl_interrupt(void);
/* SIGKILL the interpreter's process group and forget the interpreter
 * (the output pipes stay until read to EOF); the reaper collects it. */
void repl_stop(void);
/* From the reaper: 1 if pid was the interpreter (now forgotten). */
int repl_reaped(pid_t pid);

#endif
