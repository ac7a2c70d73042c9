/*
 * agent_ops.h - the typed messages of the agent protocol: one struct per
 * frame type and, for each, exactly one encoder and one decoder. The host
 * (host/docker/agent_client.c), the agent (agent/) and the test clients
 * all go through these; docs/agent-protocol.md is the prose version.
 *
 * Encoders append one whole frame to b and return 0, or return -E2BIG
 * (the frame would exceed AP_MAX_FRAME) or -ENOMEM and leave b as it was.
 * They write the fields in a fixed order (the order the host and agent
 * have always used: the bytes are part of the contract with deployed
 * images) and do not validate: a test may encode what a decoder rejects.
 *
 * Decoders take a frame from ap_reader_next() and return 0 with *m
 * filled, or a negative errno with *m zeroed and err (the last parameter,
 * may be NULL; common/error.h) filled with that code and a message saying
 * what is wrong (the agent sends it in AP_ERROR, the host logs it). They
 * never read outside the frame. The rules they share:
 *   - a field running past the end of the frame: -EPROTO;
 *   - a tag the decoder does not know: ignored (a newer peer may send
 *     more fields);
 *   - a known u32 field whose length is not 4 or u8 not 1, a
 *     single-valued field that repeats, a string containing a NUL byte,
 *     or a frame of another type: -EINVAL;
 *   - an absent number decodes as 0, absent strings and bytes as NULL.
 * Decoded strings and bytes of the replies point into the frame: borrowed
 * until the next ap_reader_* call on its reader, not NUL-terminated (the
 * length is beside them). AP_EXEC's decoder copies instead (below).
 *
 * AP_HELLO, AP_RESET and AP_CANCEL have no fields, hence no struct and no
 * decoder: type and id are the whole message, and a receiver ignores any
 * payload they carry. The relay (agent/relay.h) copies bytes and has no
 * frames of its own.
 */
#ifndef SBX_AGENT_OPS_H
#define SBX_AGENT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "agent_proto.h"
#include "error.h"

/* ---- host -> agent ---------------------------------------------------- */

int ap_hello_encode(struct ap_buf *b, uint32_t id);
int ap_reset_encode(struct ap_buf *b, uint32_t id);
/* id: the running AP_EXEC's. */
int ap_cancel_encode(struct ap_buf *b, uint32_t id);
int ap_keep_encode(struct ap_buf *b, uint32_t id);

/* AP_EXEC. Strings are NUL-terminated; a vector is NULL-terminated and
 * each entry is one field of its tag (NULL or empty: none sent). */
struct ap_exec {
	const char *file_name;		/* NULL: not sent */
	const unsigned char *file_data; /* NULL: not sent */
	size_t file_len;
	const char *const *build_argv;
	const char *const *run_argv;
	const char *const *env; /* "KEY=VALUE" */
	const char *const *seccomp_deny;
	const unsigned char *stdin_data; /* NULL: not sent (/dev/null) */
	size_t stdin_len;
	const char *const *repl_argv;
	uint32_t repl_seq; /* sent when repl_argv has an entry */
	/* Sent always; 0 asks for the agent's default. */
	uint32_t timeout_ms;
	uint32_t stdout_cap;
	uint32_t stderr_cap;
	/* Sent when not 0. */
	uint32_t grace_ms;
	uint32_t stream_ms;
	uint32_t artifacts; /* list changed files, at most this many */
	/* AP_PRESTART only (NULL-terminated, NULL: not sent). */
	const char *const *wait_argv;
	const char *const *wait_env;
	/* The decoder's one allocation (strings, bytes, vectors), freed by
	 * ap_exec_free(); NULL in a request built for encoding. */
	void *mem;
};

int ap_exec_encode(struct ap_buf *b, uint32_t id, const struct ap_exec *m);
/* Also checks what the agent requires, in this order, with the messages
 * the host has always seen in AP_ERROR: FILE_NAME, FILE_DATA and STDIN
 * at most once; RUN_ARG or REPL_ARG present; FILE_DATA only with
 * FILE_NAME (unless REPL_ARG); FILE_NAME not empty, ".", over 255 bytes
 * or containing '/' or ".."; every ENV entry KEY=VALUE with a non-empty
 * KEY; argv[0] of the vector in use (REPL_ARG, else RUN_ARG) and of
 * BUILD_ARG not empty. On success everything is copied into m->mem, so
 * the frame may go: every vector is non-NULL (possibly empty), strings
 * are NUL-terminated. Free with ap_exec_free(). */
int ap_exec_decode(const struct ap_frame *f, struct ap_exec *m,
		   struct error *err);
/* Frees what ap_exec_decode() allocated and zeroes m. */
void ap_exec_free(struct ap_exec *m);

/* AP_PRESTART: the fields of struct ap_exec that describe a run step
 * (FILE_NAME, RUN_ARG, ENV, SECCOMP_DENY) and the waiting interpreter's
 * WAIT_ARG and WAIT_ENV; the decoder applies AP_EXEC's rules and also
 * refuses BUILD_ARG, REPL_ARG, FILE_DATA and STDIN. Free with
 * ap_exec_free(). */
int ap_prestart_encode(struct ap_buf *b, uint32_t id, const struct ap_exec *m);
int ap_prestart_decode(const struct ap_frame *f, struct ap_exec *m,
		       struct error *err);

/* AP_FILE: one operation on a path of the work directory, carried out by
 * a worker running as the sandbox user (agent/files.h). Paths are
 * relative, at most AP_PATH_MAX bytes; the agent resolves them beneath
 * the work directory and refuses what leaves it. */
enum ap_file_op {
	AP_FOP_WRITE = 1,  /* DATA into PATH; FF_OVERWRITE, FF_PARENTS;
			    * or in place: FF_AT (at OFFSET), FF_APPEND */
	AP_FOP_READ = 2,   /* LENGTH bytes of PATH from OFFSET */
	AP_FOP_LIST = 3,   /* PATH's entries, sorted; FF_RECURSIVE; LENGTH
			    * entries at most, after CURSOR */
	AP_FOP_STAT = 4,   /* PATH itself (a symlink is not followed) */
	AP_FOP_MKDIR = 5,  /* FF_PARENTS */
	AP_FOP_DELETE = 6, /* FF_RECURSIVE for a non-empty directory */
	AP_FOP_MOVE = 7,   /* PATH to PATH2; FF_OVERWRITE, FF_PARENTS */
};
#define AP_FF_OVERWRITE 0x1u
#define AP_FF_RECURSIVE 0x2u
#define AP_FF_PARENTS 0x4u
/* write in place, not through a temporary name: DATA at OFFSET of PATH
 * (created when OFFSET is 0; OFFSET past the end is AP_FS_RANGE), or
 * with FF_APPEND after its end (created when missing). A symlink at PATH
 * is never written through (AP_FS_INVALID_PATH). */
#define AP_FF_AT 0x8u
#define AP_FF_APPEND 0x10u
#define AP_PATH_MAX 4096u
/* The agent's limit for one operation when TIMEOUT_MS is absent. */
#define AP_FILE_TIMEOUT_MS 10000u

struct ap_file {
	uint32_t op;
	const char *path; /* not NUL-terminated: path_len */
	size_t path_len;
	const char *path2; /* NULL: not sent */
	size_t path2_len;
	const unsigned char *data; /* NULL: not sent */
	size_t data_len;
	uint32_t flags;
	uint64_t offset;
	uint32_t length;
	const char *cursor; /* NULL: not sent */
	size_t cursor_len;
	uint32_t timeout_ms; /* 0: the agent's default */
};

int ap_file_encode(struct ap_buf *b, uint32_t id, const struct ap_file *m);
/* Borrowed from the frame like the replies' decoders. Also requires an op
 * the agent knows, a PATH (and for move a PATH2) of 1..AP_PATH_MAX bytes,
 * and DATA for write; err says which is wrong. */
int ap_file_decode(const struct ap_frame *f, struct ap_file *m,
		   struct error *err);

/* AP_SPAWN: start a background process in a kept container
 * (agent/bg.h). The fields of struct ap_exec that describe a run step
 * (RUN_ARG, ENV, SECCOMP_DENY) and its own. */
#define AP_LABEL_MAX 4096u
struct ap_spawn {
	struct ap_exec x;  /* run_argv, env, seccomp_deny */
	const char *label; /* NULL: not sent */
	size_t label_len;
	uint32_t max_live; /* 0: the agent's default */
	uint32_t ring;	   /* 0: the agent's default */
};

int ap_spawn_encode(struct ap_buf *b, uint32_t id, const struct ap_spawn *m);
/* AP_EXEC's rules (ap_exec_decode), and refuses BUILD_ARG, REPL_ARG,
 * FILE_NAME, FILE_DATA, STDIN, WAIT_ARG and WAIT_ENV, and a LABEL over
 * AP_LABEL_MAX bytes. m->x is a copy (free it with ap_exec_free(&m->x));
 * the label is borrowed from the frame like the replies' strings. */
int ap_spawn_decode(const struct ap_frame *f, struct ap_spawn *m,
		    struct error *err);

/* AP_PROC: one question about the background processes. */
enum ap_proc_op {
	AP_POP_LIST = 1,   /* every process the table holds */
	AP_POP_LOGS = 2,   /* PID's output: LENGTH bytes at most from
			    * OFFSET, or the last LENGTH without one */
	AP_POP_SIGNAL = 3, /* SIGNAL to PID's process group */
	AP_POP_WAIT = 4,   /* answer once PID has exited, or after
			    * TIMEOUT_MS (0: at once) with TIMED_OUT */
};

struct ap_proc {
	uint32_t op;
	uint32_t pid;
	uint8_t has_offset; /* OFFSET sent (also when 0) */
	uint64_t offset;
	uint32_t length; /* 0: the agent's default */
	uint32_t signal;
	uint32_t timeout_ms;
};

int ap_proc_encode(struct ap_buf *b, uint32_t id, const struct ap_proc *m);
/* Also requires an op the agent knows, and a PID for all but list. */
int ap_proc_decode(const struct ap_frame *f, struct ap_proc *m,
		   struct error *err);

/* ---- agent -> host ---------------------------------------------------- */

/* AP_HELLO_OK. VERSION is sent always, WORKDIR when not NULL. */
struct ap_hello_ok {
	uint32_t version;
	const char *workdir;
	size_t workdir_len;
};

int ap_hello_ok_encode(struct ap_buf *b, uint32_t id,
		       const struct ap_hello_ok *m);
int ap_hello_ok_decode(const struct ap_frame *f, struct ap_hello_ok *m,
		       struct error *err);

/* AP_EXEC_DONE. Numbers are sent always unless a has_ or the repl flag
 * says otherwise; out, err and phase when not NULL. u8 values are kept as
 * they came (a peer should send 0 or 1). */
struct ap_exec_done {
	uint8_t has_exit_code; /* EXIT_CODE present: the process exited */
	uint32_t exit_code;
	uint8_t has_signal; /* SIGNAL present: killed by this signal */
	uint32_t signal;
	uint8_t timed_out;
	uint8_t cancelled;
	uint32_t duration_ms;
	const unsigned char *out; /* STDOUT */
	size_t out_len;
	const unsigned char *err; /* STDERR */
	size_t err_len;
	uint8_t out_truncated;
	uint8_t err_truncated;
	const char *phase; /* "build" or "run" */
	size_t phase_len;
	uint32_t survivors;
	uint8_t oom_killed; /* AP_T_OOM_KILLED */
	uint8_t repl; /* interpreter mode: STATE_KEPT and FRESH present (the
		       * decoder sets it when either is) */
	uint8_t state_kept;
	uint8_t fresh;
	/* The files of /work the run step created or changed, when asked
	 * (packed like AP_FILE_DONE's, see below), and how many more there
	 * were (UINT32_MAX: unknown). */
	const unsigned char *entries;
	size_t entries_len;
	uint32_t nentries; /* counted by the decoder */
	uint32_t more;
	uint8_t prestarted; /* AP_T_PRESTARTED */
	uint32_t limits;    /* AP_T_LIMITS: AP_LIMIT_* (agent_proto.h) */
};

int ap_exec_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_exec_done *m);
int ap_exec_done_decode(const struct ap_frame *f, struct ap_exec_done *m,
			struct error *err);

/* AP_OUTPUT: output of the running AP_EXEC since the previous one. Each
 * stream is sent when not NULL. */
struct ap_output {
	const unsigned char *out;
	size_t out_len;
	const unsigned char *err;
	size_t err_len;
};

int ap_output_encode(struct ap_buf *b, uint32_t id, const struct ap_output *m);
int ap_output_decode(const struct ap_frame *f, struct ap_output *m,
		     struct error *err);

/* AP_RESET_DONE. OK is sent always, MESSAGE when not NULL. */
struct ap_reset_done {
	uint8_t ok;
	const char *message; /* what was left; "a; b" */
	size_t message_len;
};

int ap_reset_done_encode(struct ap_buf *b, uint32_t id,
			 const struct ap_reset_done *m);
int ap_reset_done_decode(const struct ap_frame *f, struct ap_reset_done *m,
			 struct error *err);
/* AP_PRESTART_DONE has the same fields. */
int ap_prestart_done_encode(struct ap_buf *b, uint32_t id,
			    const struct ap_reset_done *m);
int ap_prestart_done_decode(const struct ap_frame *f, struct ap_reset_done *m,
			    struct error *err);

/* AP_FILE_DONE. STATUS is sent always, the rest when not NULL / 0 (SIZE
 * when has_size). */
enum ap_file_status {
	AP_FS_OK = 0,
	AP_FS_NOT_FOUND = 1,
	AP_FS_EXISTS = 2,
	AP_FS_INVALID_PATH = 3, /* leaves the work directory, or malformed */
	AP_FS_TOO_LARGE = 4,
	AP_FS_NOT_A_FILE = 5, /* a directory, FIFO, device or socket */
	AP_FS_NOT_A_DIR = 6,
	AP_FS_NOT_EMPTY = 7,
	AP_FS_DENIED = 8,
	AP_FS_NO_SPACE = 9,
	AP_FS_IO = 10, /* anything else; MESSAGE says what */
	AP_FS_TIMEOUT = 11,
	AP_FS_RANGE = 12, /* an OFFSET past the end of the file */
};
#define AP_FS_LAST AP_FS_RANGE

enum ap_file_type {
	AP_FT_FILE = 1,
	AP_FT_DIR = 2,
	AP_FT_SYMLINK = 3,
	AP_FT_OTHER = 4,
};

/* One entry of ENTRIES, packed as u8 type, u32 mode, u64 size, u64 mtime
 * (ms since the epoch), u16 name length, the name (no NUL; for a
 * recursive list, the path below the listed directory). */
struct ap_file_entry {
	uint8_t type;
	uint32_t mode;
	uint64_t size;
	uint64_t mtime_ms;
	const char *name;
	size_t name_len;
};
#define AP_ENTRY_FIXED 23u

struct ap_file_done {
	uint32_t status;
	const char *message;
	size_t message_len;
	const unsigned char *data; /* read */
	size_t data_len;
	uint8_t has_size;
	uint64_t size; /* read, write, stat: the file's size */
	uint8_t eof;   /* read */
	uint8_t created;
	const unsigned char *entries; /* stat: one; list: a page */
	size_t entries_len;
	uint32_t nentries;  /* counted by the decoder */
	const char *cursor; /* list: more entries follow this one */
	size_t cursor_len;
};

int ap_file_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_file_done *m);
/* Also checks that ENTRIES is a whole number of well-formed entries. */
int ap_file_done_decode(const struct ap_frame *f, struct ap_file_done *m,
			struct error *err);
/* Append one packed entry to b->data (a plain growable buffer, not a
 * frame); 0, -E2BIG (name over 65535 bytes or buffer over AP_MAX_FRAME)
 * or -ENOMEM. */
int ap_file_entry_pack(struct ap_buf *b, const struct ap_file_entry *e);
/* The entry at *off of a decoded reply: 1 and *off advanced, 0 at the
 * end. Decoded entries are known to be well-formed. */
int ap_file_entry_next(const struct ap_file_done *m, size_t *off,
		       struct ap_file_entry *e);
/* The same over any decoded ENTRIES (AP_EXEC_DONE's artifacts). */
int ap_entries_next(const unsigned char *p, size_t len, size_t *off,
		    struct ap_file_entry *e);

/* AP_PROC_DONE: the answer to an AP_SPAWN or an AP_PROC. STATUS is sent
 * always, the rest when not NULL / 0. */
enum ap_proc_status {
	AP_PS_OK = 0,
	AP_PS_NOT_FOUND = 1, /* no such process in the table */
	AP_PS_LIMIT = 2,     /* PROC_MAX live already */
	AP_PS_INVALID = 3,   /* a bad signal, say; MESSAGE says */
	AP_PS_NOT_KEPT = 4,  /* the container is not a session's */
	AP_PS_FAILED = 5,    /* fork or pipe failed; MESSAGE says */
	AP_PS_BUSY = 6,	     /* 32 waits in flight already */
};
#define AP_PS_LAST AP_PS_BUSY

enum ap_proc_state {
	AP_PST_RUNNING = 1,
	AP_PST_EXITED = 2, /* CODE is its exit status */
	AP_PST_KILLED = 3, /* CODE is the signal that ended it */
};

/* What still runs of a process (struct ap_proc_entry's flags). */
#define AP_PF_OUTPUT_OPEN 0x1u /* something holds its output open */
#define AP_PF_GROUP_ALIVE                                                      \
	0x2u /* processes of its group run (its own                            \
	      * children, after it ended) */

/* One process of ENTRIES, packed as u32 pid, u8 state, u8 flags, u32
 * code, u64 started_ms, u64 ended_ms (Unix ms; 0 while it runs), u64
 * log_start, u64 log_end (the output kept is [log_start, log_end) of the
 * log_end bytes written), u16 label length, the label. */
struct ap_proc_entry {
	uint32_t pid;
	uint8_t state; /* enum ap_proc_state */
	uint8_t flags; /* AP_PF_* */
	uint32_t code;
	uint64_t started_ms;
	uint64_t ended_ms;
	uint64_t log_start;
	uint64_t log_end;
	const char *label;
	size_t label_len;
};
#define AP_PROC_ENTRY_FIXED 44u

struct ap_proc_done {
	uint32_t status;
	const char *message;
	size_t message_len;
	const unsigned char *entries; /* spawn, signal, wait: one; list */
	size_t entries_len;
	uint32_t nentries;	   /* counted by the decoder */
	const unsigned char *data; /* logs */
	size_t data_len;
	uint64_t offset;   /* logs: where data starts in the output */
	uint8_t timed_out; /* wait: it still runs */
};

int ap_proc_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_proc_done *m);
/* Also checks that ENTRIES is a whole number of well-formed entries. */
int ap_proc_done_decode(const struct ap_frame *f, struct ap_proc_done *m,
			struct error *err);
/* Append one packed entry to b->data, like ap_file_entry_pack(). */
int ap_proc_entry_pack(struct ap_buf *b, const struct ap_proc_entry *e);
/* The entry at *off of a decoded reply: 1 and *off advanced, 0 at the
 * end. */
int ap_proc_entry_next(const struct ap_proc_done *m, size_t *off,
		       struct ap_proc_entry *e);

/* AP_EXCHANGE: DATA (the request's bytes, as they are) to PORT on the
 * container's loopback, and the answer read until the peer closes, at most
 * LENGTH bytes, for at most TIMEOUT_MS (agent/loopback.h). */
struct ap_exchange {
	uint32_t port;
	const unsigned char *data; /* NULL: not sent */
	size_t data_len;
	uint32_t length;     /* 0: the agent's default */
	uint32_t timeout_ms; /* 0: the agent's default */
};

int ap_exchange_encode(struct ap_buf *b, uint32_t id,
		       const struct ap_exchange *m);
/* Also requires PORT 1..65535 and DATA. */
int ap_exchange_decode(const struct ap_frame *f, struct ap_exchange *m,
		       struct error *err);

/* AP_EXCHANGE_DONE. STATUS is sent always, the rest when not NULL / 0. */
enum ap_exchange_status {
	AP_XS_OK = 0,	   /* DATA is what the peer sent before it closed */
	AP_XS_REFUSED = 1, /* nothing listens on the port */
	AP_XS_TIMEOUT = 2, /* DATA is what came before TIMEOUT_MS */
	AP_XS_BUSY = 3,	   /* as many exchanges run as the agent takes */
	AP_XS_NOT_KEPT = 4,
	AP_XS_FAILED = 5, /* MESSAGE says why (reset, a bad request) */
};
#define AP_XS_LAST AP_XS_FAILED

struct ap_exchange_done {
	uint32_t status;
	const char *message;
	size_t message_len;
	const unsigned char *data;
	size_t data_len;
	uint8_t truncated; /* more came than LENGTH: the rest was not read */
	uint32_t duration_ms;
};

int ap_exchange_done_encode(struct ap_buf *b, uint32_t id,
			    const struct ap_exchange_done *m);
int ap_exchange_done_decode(const struct ap_frame *f,
			    struct ap_exchange_done *m, struct error *err);

/* AP_ERROR. MESSAGE is sent when not NULL. */
struct ap_error {
	const char *message;
	size_t message_len;
};

int ap_error_encode(struct ap_buf *b, uint32_t id, const struct ap_error *m);
int ap_error_decode(const struct ap_frame *f, struct ap_error *m,
		    struct error *err);

#endif
