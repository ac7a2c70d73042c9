/*
 * agent_client.h - the host side of the agent protocol (common/agent_proto.h)
 * over one container's attach stream. This is where the host meets the
 * container: requests go to the agent's stdin, replies come back on its
 * stdout, the agent's stderr is logged.
 */
#ifndef SBX_AGENT_CLIENT_H
#define SBX_AGENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "../../common/agent_ops.h"
#include "docker.h"
#include "error.h"

struct agent_client;

/* Output of a running execution that asked for streaming: new bytes of
 * stdout and stderr (either may be empty), borrowed for the call. */
typedef void (*agent_output_cb)(const char *out, size_t out_len,
				const char *err, size_t err_len, void *arg);

struct agent_exec_req {
	const char *file_name;
	const char *code; /* borrowed until the call returns */
	size_t code_len;
	const char *const *build_argv; /* NULL-terminated or NULL */
	const char *const *run_argv;
	const char *const *env;
	const char *const *seccomp_deny;
	uint32_t timeout_ms;
	uint32_t stdout_cap;
	uint32_t stderr_cap;
	const char *stdin_data; /* or NULL: the program reads /dev/null */
	size_t stdin_len;
	/* Session interpreter mode (docs/session-interpreters.md): when
	 * repl_argv is set, code holds the bytes for the interpreter and
	 * file_name, build and run commands and stdin are not used. */
	const char *const *repl_argv;
	uint32_t repl_seq;
	uint32_t grace_ms; /* 0: the agent's default */
	/* Streaming: output_cb (with the exec's arg) at most every
	 * stream_ms while it runs; 0/NULL: none. */
	uint32_t stream_ms;
	agent_output_cb output_cb;
	/* Report at most this many files the run step created or changed
	 * in /work (0: none). */
	uint32_t artifacts;
};

struct agent_exec_result {
	int exited; /* 1: exit_code valid; 0: killed by signal */
	int exit_code;
	int signal;
	int timed_out;
	int cancelled;
	uint32_t duration_ms;
	const char *out; /* raw bytes, borrowed during the callback */
	size_t out_len;
	const char *err;
	size_t err_len;
	int out_truncated;
	int err_truncated;
	char phase[8]; /* "build" or "run" */
	uint32_t survivors;
	int oom_killed;	 /* the memory limit killed a process of the call */
	uint32_t limits; /* AP_LIMIT_*: other limits it ran into */
	int state_kept;	 /* interpreter mode: state survived */
	int fresh;	 /* interpreter mode: started by this call */
	/* The artifacts: packed entries (ap_entries_next()), and how many
	 * more there were (UINT32_MAX: unknown, events were lost). */
	const unsigned char *artifacts;
	size_t artifacts_len;
	uint32_t artifacts_more;
	int prestarted; /* the run step was the pre-started interpreter */
};

/* Callbacks follow the error contract (common/error.h): err is NULL on
 * success, else its code is the transport's negative errno (-ECANCELED
 * after agent_client_close(), -EPROTO for a malformed reply) with a
 * message; borrowed for the call. */

/* The connection is up and the agent answered HELLO (err NULL), or not. */
typedef void (*agent_open_cb)(struct agent_client *ac, const struct error *err,
			      void *arg);
/* The stream ended while open (container died, daemon went away). Not
 * called after agent_client_close(). */
typedef void (*agent_lost_cb)(struct agent_client *ac, void *arg);
/* err set: the request failed in transport (res is NULL). */
typedef void (*agent_exec_cb)(struct agent_client *ac, const struct error *err,
			      const struct agent_exec_result *res, void *arg);
/* err NULL: the container is verified clean (AP_PRESTART: the interpreter
 * waits). err ERR_SANDBOX: the agent answered that it is not (or gave up
 * on the interpreter), err->msg in its words (what was left). Another
 * code: the request failed in transport. */
typedef void (*agent_reset_cb)(struct agent_client *ac, const struct error *err,
			       void *arg);

/* An AP_FILE's outcome: err NULL and res the reply on success; otherwise
 * err is the transport's failure or the operation's, as ERR_NOT_FOUND,
 * ERR_FILE_EXISTS, ERR_INVALID_PATH, ERR_TOO_LARGE, ERR_NOT_A_FILE,
 * ERR_NOT_A_DIRECTORY, ERR_DIRECTORY_NOT_EMPTY, ERR_PERMISSION_DENIED,
 * ERR_NO_SPACE or ERR_SANDBOX with the agent's message, and res NULL.
 * res (and what it points to) is borrowed for the call. */
typedef void (*agent_file_cb)(struct agent_client *ac, const struct error *err,
			      const struct ap_file_done *res, void *arg);

/* The attach stream of agent_client_open_created() is open: start the
 * container now (container_start). */
typedef void (*agent_attached_cb)(struct agent_client *ac, void *arg);

/* Attach to a started container and say HELLO. open_cb runs exactly once
 * (unless this returns an error). arg is passed to open_cb and lost_cb. */
int agent_client_open(struct docker *d, const char *container_id,
		      agent_open_cb open_cb, agent_lost_cb lost_cb, void *arg,
		      struct agent_client **out);
/* The same for a created container that is not started yet
 * (container_create): attached_cb runs once the attach stream is open,
 * and the caller starts the container then; HELLO is answered once it
 * runs. Attached before it starts, the agent's stdin ends whenever this
 * host goes, so the container ends (docs/agent-protocol.md, "When the
 * host goes"). attached_cb does not run if the attach fails (open_cb
 * says why). */
int agent_client_open_created(struct docker *d, const char *container_id,
			      agent_attached_cb attached_cb,
			      agent_open_cb open_cb, agent_lost_cb lost_cb,
			      void *arg, struct agent_client **out);

/* The same, for a container whose first host has gone: the connection
 * goes through `sbx-agent relay` run with docker exec (agent/relay.h)
 * instead of the container's stdin and stdout. */
int agent_client_reopen(struct docker *d, const char *container_id,
			agent_open_cb open_cb, agent_lost_cb lost_cb, void *arg,
			struct agent_client **out);

/* Hand the connection to a new owner: lost_cb and arg from now on. */
void agent_client_set_owner(struct agent_client *ac, agent_lost_cb lost_cb,
			    void *arg);

/* One request at a time: returns -EBUSY while another is pending. cb gets
 * arg and runs exactly once if this returns 0. */
int agent_client_exec(struct agent_client *ac, const struct agent_exec_req *req,
		      agent_exec_cb cb, void *arg);
int agent_client_reset(struct agent_client *ac, agent_reset_cb cb, void *arg);
/* AP_PRESTART (docs/prestart.md): keep the run step described by q (its
 * file name, run argv, environment and deny list) started in this box
 * between calls, as wait_argv (NULL: q's run argv) with wait_env on top of
 * q's environment. cb gets err NULL once the first interpreter waits,
 * ERR_SANDBOX when the agent gave up on it (calls then run the ordinary
 * way), another code when the agent refused or the request failed.
 * -ENOTSUP: this agent has no pre-started interpreters. */
int agent_client_prestart(struct agent_client *ac,
			  const struct agent_exec_req *q,
			  const char *const *wait_argv,
			  const char *const *wait_env, agent_reset_cb cb,
			  void *arg);
/* One file operation (common/agent_ops.h, struct ap_file; borrowed until
 * this returns). */
int agent_client_file(struct agent_client *ac, const struct ap_file *req,
		      agent_file_cb cb, void *arg);
/* 1 when a file operation can go beside the pending execution now: the
 * agent speaks AP_VERSION 3 (it takes one while an execution runs through
 * the session interpreter) and none is beside it yet. */
int agent_client_beside_ok(const struct agent_client *ac);
/* Like agent_client_file(), also while an execution is pending (then
 * only when agent_client_beside_ok(); else -EBUSY). The caller sends one
 * only beside an interpreter's start-up, where nothing else of the user's
 * runs (session_queue.c). */
int agent_client_file_beside(struct agent_client *ac, const struct ap_file *req,
			     agent_file_cb cb, void *arg);
/* The answer to an AP_SPAWN or AP_PROC: err NULL and res the reply
 * (borrowed for the call), or err the transport's failure (-EPIPE,
 * -ECANCELED after agent_client_close) or the agent's refusal as
 * ERR_PROCESS_NOT_FOUND, ERR_MAX_PROCESSES, ERR_INVALID_ARGUMENTS or
 * ERR_SANDBOX with its message. */
typedef void (*agent_proc_cb)(struct agent_client *ac, const struct error *err,
			      const struct ap_proc_done *res, void *arg);
/* A session's background processes (agent/bg.h): these go at any time,
 * beside the pending request, any number at once, and are answered in
 * any order; the request's id in *id. req is borrowed until this
 * returns. -ENOTSUP: the agent is older than AP_VERSION 4; -EPIPE: the
 * stream is not open. */
int agent_client_spawn(struct agent_client *ac, const struct ap_spawn *req,
		       agent_proc_cb cb, void *arg, uint32_t *id);
int agent_client_proc(struct agent_client *ac, const struct ap_proc *req,
		      agent_proc_cb cb, void *arg, uint32_t *id);
/* An AP_EXCHANGE's answer (agent/loopback.h): err NULL and res the
 * reply (STATUS ok, or timeout with what came before it), or err the
 * transport's failure, ERR_PORT_CLOSED (nothing listens),
 * ERR_SERVER_BUSY (too many at once) or ERR_SANDBOX. */
typedef void (*agent_exchange_cb)(struct agent_client *ac,
				  const struct error *err,
				  const struct ap_exchange_done *res,
				  void *arg);
int agent_client_exchange(struct agent_client *ac,
			  const struct ap_exchange *req, agent_exchange_cb cb,
			  void *arg, uint32_t *id);
/* Request id's callback will not run (its caller gave up: a cancelled
 * wait or exchange); the agent is told to drop it (AP_CANCEL), which
 * frees its slot there, and an answer already on its way is dropped. */
void agent_client_proc_forget(struct agent_client *ac, uint32_t id);
/* Ask the agent to stop the running execution (its reply follows as
 * usual, with cancelled set). No-op when nothing runs. */
void agent_client_cancel(struct agent_client *ac);
/* Tell the agent its container outlives this host (a session): when the
 * host's connection goes, it waits for the next instead of ending (its
 * container then goes with it: AutoRemove). No reply. */
void agent_client_keep(struct agent_client *ac);

/* Close the stream. A pending callback (open, exec or reset) runs with
 * -ECANCELED before this returns; none runs afterwards. The struct is freed
 * once the stream is closed. */
/* 1 while requests can be sent: the stream is open and the agent has not
 * broken the protocol (an AP_ERROR reply leaves it usable). */
int agent_client_usable(const struct agent_client *ac);

void agent_client_close(struct agent_client *ac);

#endif
