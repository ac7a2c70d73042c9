/*
 * prestart.h - the pre-started interpreter of a warm box.
 *
 * A container that serves one-off calls keeps, between them, one user
 * process started exactly as the next call's run step would be (spawn_user:
 * uid 1000, no capabilities, the request's seccomp filter and environment,
 * /work, its own session) that has gone through its interpreter's start-up
 * and waits on fd 3 for the program. AP_PRESTART describes the run step it
 * stands in for; a run step that fits (same argv, at most with arguments
 * added, same environment, same deny list) takes it over: the agent writes
 * the program to /work as the user, hands the interpreter its stdin mode
 * and arguments, and from then on it is that call's process like any other.
 * Anything else that runs first stops it, a reset starts the next one, and
 * AP_KEEP (a session's container) ends the arrangement. docs/prestart.md is
 * the contract with the interpreter:
 *
 *   fd 0  /dev/null until the program starts; fd 1, 2  the call's pipes
 *   fd 3  control: "sbx1\0" "stdin\0" | "null\0", then one "arg\0" per
 *         added argument, then end of file
 *   fd 4  the stdin pipe (moved to fd 0 on "stdin", else closed)
 *   fd 5  closed by the interpreter when it waits: that is "ready"
 *
 * One per agent, so the state lives in statics.
 */
#ifndef SBX_PRESTART_H
#define SBX_PRESTART_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "error.h"

/* An interpreter not waiting after this long is stopped. */
#define PRESTART_READY_MS 10000u
/* After this many launches in a row that never got ready, no more. */
#define PRESTART_MAX_FAILS 3u
#define PRESTART_POLL_FDS 1

/* What a run step takes over: our ends of its pipes. */
struct prestart_run {
	pid_t pid;
	int fd_out, fd_err; /* non-blocking */
	int fd_in;	    /* the stdin pipe, or -1 ("null") */
};

/* AP_PRESTART: remember the run step described by f (a waiting
 * interpreter of an earlier description is stopped). 0, or a negative
 * errno with err (may be NULL) filled for AP_ERROR. */
int prestart_configure(const struct ap_frame *f, struct error *err);
/* AP_KEEP, shutdown: stop the interpreter and forget the description. */
void prestart_forget(void);
/* Start an interpreter if one is described, none runs and nothing ran in
 * the container since it was new or last reset clean. */
void prestart_launch(void);
/* Something ran (AP_EXEC, AP_FILE): no launch before the next clean
 * reset, which calls prestart_clean(). */
void prestart_note_use(void);
void prestart_clean(void);
/* 1 unless an interpreter is still on its way to waiting. */
int prestart_settled(void);
/* 1 if the run step of q can be the waiting interpreter. */
int prestart_fits(const struct ap_exec *q);
/* Hand the program over (writing FILE_DATA first when write_file) and
 * give up the interpreter to the caller. 0, or a negative errno: then
 * stop it and start the step the ordinary way. */
int prestart_take(const struct ap_exec *q, int write_file,
		  struct prestart_run *run);
/* SIGKILL the waiting interpreter (if any); the reaper collects it. */
void prestart_stop(void);

int prestart_poll_fill(struct pollfd *pfd);
void prestart_poll_done(const struct pollfd *pfd, int n);
uint64_t prestart_deadline(void);
/* The start-up deadline. */
void prestart_step(void);
/* From the reaper: 1 if pid was the waiting interpreter. */
int prestart_reaped(pid_t pid, int status);

#endif
