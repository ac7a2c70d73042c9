/*
 * fake_agent.h - the one fake sandbox agent of the test suite: it speaks the
 * agent protocol (common/agent_ops.h) on a hijacked attach connection of
 * the fake Docker daemon (fake_docker.h). It reads the host's frames and
 * answers HELLO, EXEC, CANCEL and RESET as a script says: an exit code, a
 * signal, output, a timeout, survivors, a reply held until the test
 * releases it, silence, an AP_ERROR, or a hang-up. A test that needs the
 * agent to misbehave takes frames over with the script's on_frame hook and
 * answers with the fake_agent_reply_*() encoders.
 *
 * Depends on libuv, fake_docker and the protocol codec (common/), never on
 * host code.
 */
#ifndef SBX_FAKE_AGENT_H
#define SBX_FAKE_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "agent_proto.h"
#include "fake_docker.h"

struct fake_agent;

/* How an AP_EXEC is answered. */
enum fake_exec_how {
	FAKE_EXEC_ANSWER,  /* AP_EXEC_DONE at once */
	FAKE_EXEC_HOLD,	   /* AP_EXEC_DONE at fake_agent_release(), or at
			    * AP_CANCEL as the real agent does: killed by
			    * SIGKILL, cancelled set */
	FAKE_EXEC_SILENT,  /* never answered, not even on AP_CANCEL */
	FAKE_EXEC_ERROR,   /* AP_ERROR with .error */
	FAKE_EXEC_HANG_UP, /* the connection closes: the container died */
};

/* The scripted answer to one AP_EXEC; all zero: exited with 0 after 0 ms,
 * printed nothing, phase "run". Strings are borrowed until the answer is
 * sent. */
struct fake_exec_reply {
	enum fake_exec_how how;
	int exit_code;
	int signal; /* not 0: killed by this signal (no exit code) */
	int timed_out;
	int cancelled;
	uint32_t duration_ms;
	const char *out; /* STDOUT, or NULL */
	size_t out_len;	 /* 0 with out set: strlen(out) */
	const char *err;
	size_t err_len;
	int out_truncated;
	int err_truncated;
	const char *phase; /* NULL: "run" */
	uint32_t survivors;
	/* Sent first, as one AP_OUTPUT frame of stdout (a streaming
	 * execution), or NULL. With FAKE_EXEC_HOLD it goes out at once. */
	const char *output;
	const char *error; /* FAKE_EXEC_ERROR's message */
};

/* What the host sent in one AP_EXEC (copied out of the frame). */
struct fake_exec_seen {
	uint32_t id;
	char agent[80]; /* the name of the agent that got it */
	char file_name[64];
	char code[256]; /* the first bytes, NUL-terminated */
	size_t code_len;
	size_t stdin_len;
	int has_stdin;
	unsigned nbuild, nrun, nenv, nrepl;
	uint32_t timeout_ms, stdout_cap, stderr_cap, grace_ms, stream_ms;
};

struct fake_agent_counts {
	unsigned hello, exec, cancel, reset;
	unsigned keep; /* AP_KEEP: the container became a session */
	unsigned bad;  /* frames the host should never send: undecodable,
			* unknown type, a request while one is pending */
};

enum fake_hello_how {
	FAKE_HELLO_OK,
	FAKE_HELLO_SILENT,  /* never answered */
	FAKE_HELLO_HANG_UP, /* the connection closes instead */
};

#define FAKE_AGENT_QUEUE_MAX 32
#define FAKE_AGENT_SEEN_MAX 32

/*
 * What agents answer, shared by every agent made with it (borrowed: it
 * outlives them) and read when each frame arrives, so a change applies to
 * the next frame. Initialise with fake_agent_script_init().
 */
struct fake_agent_script {
	enum fake_hello_how hello;
	int reset_fails;	   /* RESET_DONE with ok 0 ... */
	const char *reset_message; /* ... and this message */
	int reset_silent;	   /* RESET never answered */
	/* The answer to an AP_EXEC: the queue's first, else this one. */
	struct fake_exec_reply exec;
	struct fake_exec_reply queue[FAKE_AGENT_QUEUE_MAX];
	unsigned queue_head, queue_len;
	/* Optional: sees every frame first (AP_EXEC already recorded in
	 * seen[]); returns 1 when it has answered (or chosen not to), 0 for
	 * the script's answer. The frame is borrowed for the call. */
	int (*on_frame)(struct fake_agent *a, const struct ap_frame *f,
			void *arg);
	void *arg;

	/* Filled by the agents. */
	struct fake_agent_counts total;
	struct fake_exec_seen seen[FAKE_AGENT_SEEN_MAX]; /* in arrival order */
	unsigned nseen; /* every AP_EXEC, even those past the array */
	unsigned holds; /* serial of the latest FAKE_EXEC_HOLD */
};

void fake_agent_script_init(struct fake_agent_script *s);
/* Queue the answer to a later AP_EXEC (copied; its strings stay
 * borrowed). Returns 0, or -ENOBUFS when the queue is full. */
int fake_agent_script_push(struct fake_agent_script *s,
			   const struct fake_exec_reply *r);

/*
 * An agent on connection c, which the caller has already hijacked
 * (fake_docker_upgrade()). Sets c's data pointer to the agent: the
 * daemon's on_stdin passes the bytes to fake_agent_feed(), its
 * on_conn_close calls fake_agent_detach(). name (copied) is for messages
 * and fake_exec_seen.agent. The agent outlives its connection (its
 * counters stay readable) until fake_agent_free().
 */
struct fake_agent *fake_agent_new(struct fake_docker_conn *c,
				  struct fake_agent_script *s,
				  const char *name);
void fake_agent_feed(struct fake_agent *a, const char *data, size_t len);
/* The connection is closing: nothing is sent from now on. */
void fake_agent_detach(struct fake_agent *a);
/* Frees the agent; its connection, if still open, stays open. NULL is a
 * no-op. */
void fake_agent_free(struct fake_agent *a);

const char *fake_agent_name(const struct fake_agent *a);
/* NULL once the connection closed. */
struct fake_docker_conn *fake_agent_conn(const struct fake_agent *a);
const struct fake_agent_counts *fake_agent_counts(const struct fake_agent *a);
/* The last AP_EXEC this agent got (zeroed before the first). */
const struct fake_exec_seen *fake_agent_last_exec(const struct fake_agent *a);
/* The id of the last frame the host sent. */
uint32_t fake_agent_last_id(const struct fake_agent *a);

/* Serial (script->holds at the time) of the AP_EXEC this agent holds, or
 * 0 when it holds none. */
unsigned fake_agent_holding(const struct fake_agent *a);
/* Answer the held AP_EXEC now, as scripted. Returns 0, or -ENOENT when
 * nothing is held. */
int fake_agent_release(struct fake_agent *a);
/* Close the connection, as a dying container does. */
void fake_agent_hang_up(struct fake_agent *a);

/* Encoders for hooks and hostile scripts: each appends one frame to what
 * the agent sends next; fake_agent_flush() writes it all in one stdout
 * frame of the stream (done after every frame the agent handles). */
void fake_agent_reply_hello_ok(struct fake_agent *a, uint32_t id);
void fake_agent_reply_exec_done(struct fake_agent *a, uint32_t id,
				const struct fake_exec_reply *r);
void fake_agent_reply_output(struct fake_agent *a, uint32_t id,
			     const char *out);
void fake_agent_reply_reset_done(struct fake_agent *a, uint32_t id, int ok,
				 const char *message);
void fake_agent_reply_error(struct fake_agent *a, uint32_t id,
			    const char *message);
/* Raw bytes (a forged header, half a frame...). */
void fake_agent_reply_raw(struct fake_agent *a, const void *data, size_t len);
void fake_agent_flush(struct fake_agent *a);

#endif
