/*
 * agent_proto.h - the wire protocol between the host and the agent that runs
 * as PID 1 inside every sandbox container.
 *
 * The host writes frames to the agent's stdin and reads frames from the
 * agent's stdout; both travel over one Docker "attach" connection. The agent's
 * stderr carries human-readable log lines only. docs/agent-protocol.md is the
 * prose version of this header.
 *
 * Frame layout (all integers big-endian):
 *
 *   u32 length      bytes that follow this field (type + id + fields)
 *   u8  type        enum ap_type
 *   u32 id          request id chosen by the host, echoed in the reply
 *   fields...       u8 tag, u32 len, len bytes; a tag may repeat (argv, env)
 *
 * This header has the frame layout, the constants and the frame reader.
 * The fields of each frame type are encoded and decoded in exactly one
 * place, common/agent_ops.h; nothing else builds or parses fields
 * (common/agent_tlv.h, the field primitives, is private to common/).
 *
 * This file is compiled into both the host and the static agent, so it uses
 * nothing beyond libc.
 */
#ifndef SBX_AGENT_PROTO_H
#define SBX_AGENT_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* 2: AP_PRESTART (a pre-started interpreter per warm box). 3: an AP_FILE
 * is taken while an AP_EXEC runs through the session interpreter (its
 * start-up: a file operation does not wait for the imports). 4: a kept
 * container's background processes (AP_SPAWN, AP_PROC) and exchanges
 * with its loopback ports (AP_EXCHANGE), answered at any time, beside
 * whatever else runs. */
#define AP_VERSION 4u
/* Largest frame either side accepts: 1 MiB of code plus caps with margin. */
#define AP_MAX_FRAME (24u << 20)
#define AP_HEADER_LEN 9u /* length + type + id */

enum ap_type {
	/* host -> agent */
	AP_HELLO = 0x01,    /* no fields */
	AP_EXEC = 0x02,	    /* run one execution, see AP_T_* below */
	AP_RESET = 0x03,    /* kill user processes, wipe state, verify */
	AP_CANCEL = 0x04,   /* stop the running AP_EXEC, or drop a wait or an
			     * exchange, unanswered (id = the request's) */
	AP_FILE = 0x05,	    /* one file operation in the work directory */
	AP_KEEP = 0x06,	    /* no fields, no reply: this container outlives
			     * its host (a session); see agent.c */
	AP_PRESTART = 0x07, /* keep an interpreter waiting for the next run
			     * step: AP_EXEC's fields of that step, with
			     * AP_T_WAIT_ARG / AP_T_WAIT_ENV */
	AP_SPAWN = 0x08,    /* start a background process in a kept
			     * container: AP_T_RUN_ARG, AP_T_ENV,
			     * AP_T_SECCOMP_DENY, AP_T_LABEL, AP_T_PROC_MAX,
			     * AP_T_RING (agent/bg.h) */
	AP_PROC = 0x09,	    /* list, read the output of, signal or wait for
			     * the background processes: AP_T_PROC_OP ... */
	AP_EXCHANGE = 0x0a, /* in a kept container: AP_T_DATA to AP_T_PORT on
			     * the loopback, the answer read until the peer
			     * closes (agent/loopback.h) */

	/* agent -> host */
	AP_HELLO_OK = 0x81,	 /* AP_T_VERSION, AP_T_WORKDIR */
	AP_EXEC_DONE = 0x82,	 /* result of an AP_EXEC */
	AP_RESET_DONE = 0x83,	 /* AP_T_OK, AP_T_MESSAGE on failure */
	AP_OUTPUT = 0x84,	 /* output so far of the running AP_EXEC (same
				  * id): AP_T_STDOUT / AP_T_STDERR, only when
				  * the request asked with AP_T_STREAM_MS */
	AP_FILE_DONE = 0x85,	 /* result of an AP_FILE */
	AP_PRESTART_DONE = 0x86, /* AP_T_OK, AP_T_MESSAGE: AP_PRESTART taken,
				  * its first interpreter waiting (or not) */
	AP_PROC_DONE = 0x87,	 /* result of an AP_SPAWN or AP_PROC */
	AP_EXCHANGE_DONE = 0x88, /* result of an AP_EXCHANGE */
	AP_ERROR = 0x8f, /* AP_T_MESSAGE; the request was not understood */
};

enum ap_tag {
	/* AP_EXEC request fields */
	AP_T_FILE_NAME = 1,    /* string: source file name, relative, no '/' */
	AP_T_FILE_DATA = 2,    /* bytes: the code */
	AP_T_BUILD_ARG = 3,    /* string, repeated: build argv (optional) */
	AP_T_RUN_ARG = 4,      /* string, repeated: run argv (required) */
	AP_T_ENV = 5,	       /* string, repeated: "KEY=VALUE" */
	AP_T_TIMEOUT_MS = 6,   /* u32: wall-clock limit for build + run */
	AP_T_STDOUT_CAP = 7,   /* u32: bytes of stdout returned at most */
	AP_T_STDERR_CAP = 8,   /* u32: bytes of stderr returned at most */
	AP_T_SECCOMP_DENY = 9, /* string, repeated: syscall denied with EPERM */
	AP_T_STDIN = 10,     /* bytes: fed to the program's stdin (optional) */
	AP_T_REPL_ARG = 11,  /* string, repeated: run FILE_DATA through the
			      * session interpreter with this argv (started
			      * if none runs); RUN_ARG is then not needed */
	AP_T_REPL_SEQ = 12,  /* u32: the seq of the interpreter's reply */
	AP_T_GRACE_MS = 13,  /* u32: interrupt grace before the kill */
	AP_T_STREAM_MS = 14, /* u32: send AP_OUTPUT at most this often */

	/* AP_FILE request fields (AP_T_TIMEOUT_MS too) */
	AP_T_FILE_OP = 15, /* u32: enum ap_file_op */
	AP_T_PATH = 16,	   /* string: relative to the work directory */
	AP_T_PATH2 = 17,   /* string: move's destination, same rules */
	AP_T_DATA = 18,	   /* bytes: what write writes */
	AP_T_FLAGS = 19,   /* u32: AP_FF_* */
	AP_T_OFFSET = 20,  /* u64: where read starts */
	AP_T_LENGTH = 21,  /* u32: read's bytes, list's entries at most */
	AP_T_CURSOR = 22,  /* string: list resumes after this path */
	/* AP_EXEC again */
	AP_T_ARTIFACTS = 23, /* u32: report at most this many files the run
			      * step created or changed in /work */

	/* reply fields */
	AP_T_VERSION = 32, /* u32 */
	AP_T_WORKDIR = 33, /* string */
	AP_T_EXIT_CODE =
		34, /* u32 holding an int exit status; absent if signalled */
	AP_T_SIGNAL = 35,      /* u32: terminating signal number */
	AP_T_TIMED_OUT = 36,   /* u8 */
	AP_T_DURATION_MS = 37, /* u32: wall time of build + run */
	AP_T_STDOUT = 38,      /* bytes: captured (possibly truncated) stdout */
	AP_T_STDERR = 39,      /* bytes */
	AP_T_STDOUT_TRUNC = 40, /* u8 */
	AP_T_STDERR_TRUNC = 41, /* u8 */
	AP_T_PHASE = 42, /* string: "build" or "run", the phase that ended it */
	AP_T_SURVIVORS = 43, /* u32: user processes left after the final kill */
	AP_T_OK = 44,	     /* u8 */
	AP_T_MESSAGE = 45,   /* string */
	AP_T_CANCELLED = 46, /* u8 */
	AP_T_STATE_KEPT = 47, /* u8: the interpreter survived with its state */
	AP_T_FRESH = 48,      /* u8: this call started a new interpreter */
	/* AP_FILE_DONE (AP_T_MESSAGE, AP_T_DATA, AP_T_CURSOR too) */
	AP_T_STATUS = 49,  /* u32: enum ap_file_status */
	AP_T_SIZE = 50,	   /* u64: size of the file */
	AP_T_EOF = 51,	   /* u8: the data reaches the end of the file */
	AP_T_ENTRIES = 52, /* bytes: packed entries, see agent_ops.h */
	AP_T_CREATED = 53, /* u8: write or mkdir made something new */
	/* AP_EXEC_DONE (AP_T_ENTRIES too: the artifacts) */
	AP_T_MORE = 54,	      /* u32: artifacts beyond those in ENTRIES;
			       * UINT32_MAX: unknown, the watch lost events */
	AP_T_OOM_KILLED = 55, /* u8: the memory limit killed a process of
			       * the call (the container's oom_kill count
			       * rose while it ran) */
	/* AP_PRESTART */
	AP_T_WAIT_ARG = 56, /* string, repeated: argv of the waiting
			     * interpreter; absent: RUN_ARG */
	AP_T_WAIT_ENV = 57, /* string, repeated: "KEY=VALUE" it gets on top
			     * of ENV */
	/* AP_EXEC_DONE */
	AP_T_PRESTARTED = 58, /* u8: the run step was the pre-started
			       * interpreter */
	AP_T_LIMITS = 59,     /* u32: AP_LIMIT_* the call ran into */
	/* AP_SPAWN, AP_PROC (AP_T_OFFSET, AP_T_LENGTH, AP_T_SIGNAL and
	 * AP_T_TIMEOUT_MS too) and AP_PROC_DONE (AP_T_STATUS, AP_T_MESSAGE,
	 * AP_T_ENTRIES, AP_T_DATA, AP_T_OFFSET, AP_T_TIMED_OUT too) */
	AP_T_PROC_OP = 60,  /* u32: enum ap_proc_op */
	AP_T_PID = 61,	    /* u32: the background process */
	AP_T_LABEL = 62,    /* string: what the host calls the process (its
			     * command), kept and listed with it */
	AP_T_PROC_MAX = 63, /* u32: live background processes at most */
	AP_T_RING = 64,	    /* u32: bytes of output each one keeps */
	/* AP_EXCHANGE (AP_T_DATA, AP_T_LENGTH, AP_T_TIMEOUT_MS too) and
	 * AP_EXCHANGE_DONE (AP_T_STATUS, AP_T_MESSAGE, AP_T_DATA,
	 * AP_T_DURATION_MS too) */
	AP_T_PORT = 65,	     /* u32: a TCP port on 127.0.0.1 */
	AP_T_TRUNCATED = 66, /* u8: the answer went on past LENGTH */
};

/* AP_T_LIMITS: limits a call ran into, which it may not have reported
 * itself (a failed fork, a write that found no room). */
#define AP_LIMIT_PIDS 0x1u /* a fork failed at the pids limit */
#define AP_LIMIT_WORK 0x2u /* /work was full when the call ended */
#define AP_LIMIT_TMP 0x4u  /* /tmp was full when the call ended */

/* A growable output buffer with a hard maximum (AP_MAX_FRAME). */
struct ap_buf {
	unsigned char *data;
	size_t len;
	size_t cap;
	size_t frame_start; /* offset of the frame being built */
};

void ap_buf_init(struct ap_buf *b);
void ap_buf_close(struct ap_buf *b);
/* Room for n more bytes, so that appending them copies nothing else: 0,
 * -E2BIG (n over twice AP_MAX_FRAME) or -ENOMEM. */
int ap_buf_reserve(struct ap_buf *b, size_t n);
/* Append n bytes: 0, -E2BIG (n over twice AP_MAX_FRAME) or -ENOMEM. */
int ap_buf_append(struct ap_buf *b, const void *data, size_t n);
/* Drop the first n bytes (already written out). */
void ap_buf_consume(struct ap_buf *b, size_t n);

/* A parsed frame; payload points into the reader's buffer and is valid until
 * the next ap_reader_* call. */
struct ap_frame {
	uint8_t type;
	uint32_t id;
	const unsigned char *payload;
	size_t len;
};

/* Incremental frame reader for a byte stream. */
struct ap_reader {
	struct ap_buf in;
	size_t consumed; /* bytes of in.data handed out as frames already */
};

void ap_reader_init(struct ap_reader *r);
void ap_reader_close(struct ap_reader *r);
/* Append bytes from the stream. Returns 0, -ENOMEM, or -E2BIG when more
 * than a whole frame is waiting. */
int ap_reader_feed(struct ap_reader *r, const void *data, size_t len);
/* Returns 1 and fills *f when a whole frame is buffered, 0 when more bytes
 * are needed, -EPROTO when the stream is corrupt (length over AP_MAX_FRAME
 * or under the header size). */
int ap_reader_next(struct ap_reader *r, struct ap_frame *f);

#endif
