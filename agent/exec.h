/*
 * exec.h - one AP_EXEC at a time: write the source file, run the optional
 * build and then the program, capture output, enforce the timeout, kill
 * everything the execution started, and answer AP_EXEC_DONE.
 *
 * The agent loop drives it: exec_poll_fill()/exec_poll_done() around
 * poll(), exec_child_exited() from the reaper, exec_step() after every
 * loop turn to advance the state machine.
 */
#ifndef SBX_EXEC_H
#define SBX_EXEC_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "capture.h"
#include "error.h"

/* Defaults and limits; see docs/agent-protocol.md. */
#define EXEC_DEFAULT_TIMEOUT_MS 30000u
#define EXEC_DEFAULT_CAP (100u * 1024u)
#define EXEC_MAX_CAP (8u * 1024u * 1024u)
/* After the kill, wait this long for the pipes to reach EOF. */
#define EXEC_DRAIN_MS 500u
/* Interrupt grace of a session interpreter when the host sends none. */
#define EXEC_DEFAULT_GRACE_MS 1000u
/* Output waiting to be streamed is kept up to this much per stream; more
 * is dropped from the stream (the final result still has it). */
#define EXEC_STREAM_MAX ((size_t)64 * 1024)
/* Most fds exec_poll_fill() adds (its own, then the interpreter's). */
#define EXEC_POLL_FDS (5 + 4)

enum exec_kill { EXEC_KILL_NONE, EXEC_KILL_TIMEOUT, EXEC_KILL_CANCEL };

struct exec {
	struct ap_buf *out; /* borrowed: the agent's reply queue */
	int active;
	int stale; /* asked on a connection that is gone: no reply */
	uint32_t id;

	/* The request (decoded, owned). An empty build_argv means no build,
	 * a non-empty repl_argv the session interpreter. */
	struct ap_exec req;
	size_t ndeny; /* entries of req.seccomp_deny */
	void *seccomp;

	/* Progress of the current phase. */
	int building; /* 1 while the build phase runs */
	pid_t pid;    /* main process, 0 once reaped */
	int exited;   /* status is valid */
	int status;
	enum exec_kill kill;
	int draining; /* main process gone, everything killed */
	uint32_t survivors;
	int oom_known;	      /* oom_before was read */
	uint64_t oom_before;  /* procs_oom_kills() when the call started */
	int pids_known;	      /* pids_before was read */
	uint64_t pids_before; /* procs_pids_max() when the call started */
	uint64_t start_ms, end_ms, deadline_ms, drain_until_ms;
	int fd_out, fd_err, fd_in; /* our pipe ends, -1 when closed */
	int zygote;	  /* this run step is a child of the fork server;
			   * pid is then its pid as the server reports it */
	int zygote_eof;	  /* the server's socket has nothing more */
	int prestart_fit; /* the run step may be the pre-started interpreter */
	int prestarted;	  /* it is (prestart.h) */
	size_t stdin_off;
	struct capture cap_out, cap_err;

	/* Session interpreter mode (repl.h). */
	int repl;
	uint32_t grace_ms;
	int fresh;	 /* this call started the interpreter */
	int interrupted; /* SIGINT sent; waiting out the grace */
	uint64_t grace_until_ms;
	int state_lost; /* the interpreter was killed or died */

	/* Streaming (AP_OUTPUT): bytes not yet sent, per stream. */
	uint32_t stream_ms;
	uint64_t next_stream_ms;
	unsigned char *pend[2];
	size_t pend_len[2];
	size_t streamed[2];
};

void exec_init(struct exec *e, struct ap_buf *out);
/* Drop a running execution without a reply (agent shutdown). The caller
 * kills the processes. */
void exec_close(struct exec *e);
int exec_busy(const struct exec *e);
/* 1 while a call runs through the session interpreter (nothing of the
 * user's runs beside it but the interpreter). */
int exec_in_interpreter(const struct exec *e);

/* Start the execution described by f. On failure returns a negative errno
 * and fills err (may be NULL) with it and the message for AP_ERROR;
 * nothing was started. f is only read during the call. */
int exec_start(struct exec *e, const struct ap_frame *f, struct error *err);
/* AP_CANCEL: ignored unless id is the running execution. */
void exec_cancel(struct exec *e, uint32_t id);
/* The connection that asked is gone: stop the execution (interrupt first,
 * as for a cancel) and send nothing about it. */
void exec_orphan(struct exec *e);
/* From the reaper. Returns 1 if pid was this execution's main process. */
int exec_child_exited(struct exec *e, pid_t pid, int status);

int exec_poll_fill(struct exec *e, struct pollfd *pfd);
void exec_poll_done(struct exec *e, const struct pollfd *pfd, int n);
/* Next time exec_step() must run even without events, or UINT64_MAX. */
uint64_t exec_deadline(const struct exec *e);
/* Advance: timeout, kill, drain, next phase, reply. */
void exec_step(struct exec *e);

#endif
