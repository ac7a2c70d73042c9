/*
 * executor.h - one execution from start to finish: policy checks, a box from
 * the pool, the agent's EXEC, the host-side watchdog, and the box's return
 * (reset or discard). Used by the sandbox_execute tool and the `run` CLI.
 */
#ifndef SBX_EXECUTOR_H
#define SBX_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "blocklist.h"
#include "core/engines/engines.h"
#include "core/plugins/plugins.h"
#include "core/engines/pool.h"
#include "error.h"

struct exec_job;

#define EXEC_MAX_OPTIONS 16

/* New output of a streaming execution, borrowed for the call. */
typedef void (*exec_output_cb)(const char *out, size_t out_len, const char *err,
			       size_t err_len, void *arg);

/* A file written into /work before the code runs (sandbox_execute's
 * files): missing directories are created, an existing file is replaced.
 * path follows the rules of agent/files.h. Its bytes are data, or (from
 * set) the file or directory `from` under the request's files_root,
 * copied in pieces (stage.h). */
struct exec_file {
	const char *path;
	const unsigned char *data;
	size_t len;
	const char *from; /* relative to files_root, or NULL */
};

/* Artifacts listed in one result at most; the rest are counted. */
#define EXEC_MAX_ARTIFACTS 50

/* What is read back from /work after the run, before the box goes back
 * (reset) or the session's next call starts: images to show the model,
 * and from a one-off box the files the caller keeps. Sizes come from the
 * agent's list and are checked before a byte is read; a file that grew
 * past its cap meanwhile is dropped. All zero: nothing is read. */
struct exec_collect {
	uint32_t images;	  /* image files (by name) read at most */
	uint32_t image_max_bytes; /* ... each at most this big */
	uint32_t other_max_bytes; /* any other file (0: none is read) */
	uint64_t max_total;	  /* everything read, all together */
	uint32_t chunk;		  /* bytes per agent read */
};

/* Why an artifact's bytes were not read back. */
enum exec_art_skip {
	EXEC_ART_READ = 0,   /* data holds its bytes */
	EXEC_ART_NOT_WANTED, /* not an image and other_max_bytes 0 */
	EXEC_ART_TOO_MANY,   /* an image beyond `images` */
	EXEC_ART_TOO_LARGE,  /* over its cap (image or other) */
	EXEC_ART_OVER_TOTAL, /* over max_total with those before it */
	EXEC_ART_UNREADABLE, /* gone, not a regular file, or the read failed */
	EXEC_ART_BAD_NAME,   /* a control character in its name (media.h) */
};

/* One file the run created or changed in /work. */
struct exec_artifact {
	const char *path; /* relative to /work, NUL-terminated; bytes as
			     the agent sent them (not checked for UTF-8) */
	uint64_t size;	  /* as listed */
	const unsigned char *data; /* read back, or NULL (skip says why) */
	size_t len;
	enum exec_art_skip skip;
	int image; /* named like an image (util/media.h) */
};

/* The environment every program in a sandbox starts from (PATH, HOME=/work,
 * USER, LANG, TMPDIR); the plugin's env and the call's come after it. */
extern const char *const exec_base_env[];

/* A program's environment as a run step of pl gets it: exec_base_env,
 * the plugin's env, the options' (nopts of opts), then extra_env (NULL
 * or NULL-terminated): at most max - 1 entries into env, which is
 * NULL-terminated; returns how many. Borrowed from the arguments. */
struct sbx_option;
size_t exec_env_fill(const struct plugin *pl,
		     const struct sbx_option *const *opts, size_t nopts,
		     const char *const *extra_env, const char **env,
		     size_t max);

/* The most extra_env entries a request may add. */
#define EXEC_MAX_EXTRA_ENV 8

struct exec_request {
	const struct plugin *pl;
	const char *code; /* borrowed until exec_start returns */
	size_t code_len;
	uint32_t timeout_ms;	/* 0: the language's default */
	const char *stdin_data; /* fed to the program, or NULL; borrowed like
				   code */
	size_t stdin_len;
	/* Options the call switched on (borrowed from the plugin). */
	const struct sbx_option *opts[EXEC_MAX_OPTIONS];
	size_t nopts;
	/* A session's container (borrowed; the caller keeps it alive until
	 * the callback) instead of one from the pool. With a session, a
	 * language with a session interpreter runs the code through it. */
	struct agent_client *session_ac;
	/* A one-off call's engine when it must be that one (its package
	 * sets are there), else NULL: placement picks (engines.h). */
	struct engine *engine;
	uint32_t session_seq; /* the interpreter's request number */
	uint32_t grace_ms;    /* interrupt grace; 0: the agent's default */
	/* Streaming: output_cb (with the callback's arg) at most every
	 * stream_ms; 0: none. */
	uint32_t stream_ms;
	exec_output_cb output_cb;
	/* Staged inputs, written in order before the code (borrowed like
	 * code). A file the agent refuses ends the call with its error. */
	const struct exec_file *files;
	size_t nfiles;
	/* For files with `from`: the files root (absolute; borrowed for the
	 * job's life, the configuration's), the largest file taken. */
	const char *files_root;
	uint64_t file_cap;
	/* What to read back after the run (all zero: nothing). */
	struct exec_collect collect;
	/* "KEY=VALUE" entries added after the plugin's and the options'
	 * (installed packages' paths), NULL-terminated, copied; or NULL. */
	const char *const *extra_env;
	/* Installed packages' directories, one a line, that a session
	 * interpreter adds to its import path before this call
	 * (docs/session-interpreters.md), or NULL. Borrowed until exec_start
	 * returns. */
	const char *pkg_paths;
};

/* The files and everything they point at, copied into one allocation:
 * free(*out) frees it all. 0 or -ENOMEM. */
int exec_files_copy(const struct exec_file *in, size_t n,
		    struct exec_file **out);

/* How a program ran (exec_done_cb's err NULL); after a host-side failure
 * only language, engine and lost are set. Everything is borrowed for the
 * duration of the callback. */
struct exec_outcome {
	const char *language;
	const char *engine; /* where a one-off call ran, with several
			       engines; else NULL */
	int exited;
	int exit_code;
	int signal;
	int timed_out;
	int cancelled;
	int oom_killed;	     /* the memory limit killed a process of it */
	uint32_t limits_hit; /* AP_LIMIT_* (common/agent_proto.h) it ran into */
	const struct sbx_limits *lang_limits; /* the language's, or NULL */
	uint32_t memory_mb;		      /* ... which is this */
	uint32_t duration_ms;
	const char *out;
	size_t out_len;
	const char *err;
	size_t err_len;
	int out_truncated; /* over its cap: out holds the beginning and the
			      end with the agent's marker between
			      (docs/agent-protocol.md, "Output capture") */
	int err_truncated;
	uint64_t out_total; /* bytes the program wrote (out_len unless
			       truncated); UINT64_MAX: not known */
	uint64_t err_total;
	uint32_t out_cap; /* the caps the agent was given */
	uint32_t err_cap;
	const char *phase;
	int interpreter; /* ran through a session interpreter */
	int state_kept;	 /* ... which survived with its state */
	int fresh;	 /* ... which this call started */
	int lost;	 /* a session's connection was closed: the
			  * container is not usable any more */
	/* Files the run created or changed in /work (at most
	 * EXEC_MAX_ARTIFACTS), some read back as exec_collect asked, and how
	 * many more there were (UINT32_MAX: unknown). */
	const struct exec_artifact *artifacts;
	size_t nartifacts;
	uint32_t artifacts_more;
	/* What the code blocklist found (blocklist = warn: the code ran). */
	const struct blocklist_hit *blocklist;
	size_t nblocklist;
};

/* err NULL: the program ran, o holds its result; err set: a host-side
 * failure (o says only where). */
typedef void (*exec_done_cb)(const struct error *err,
			     const struct exec_outcome *o, void *arg);

/*
 * Validate and start. Returns 0, and cb runs exactly once, later, from the
 * loop: never before this returns, even for a policy refusal (code too
 * large, blocked or rejected code), so callers have one path. Returns a
 * negative code (cb not called) only when out of memory. When the
 * language's blocklist is on, the code is lexed and matched in the thread
 * pool first (a copy of req waits meanwhile).
 */
int exec_start(uv_loop_t *loop, struct engines *es,
	       const struct exec_request *req, exec_done_cb cb, void *arg,
	       struct exec_job **out);

/* A pool_warmup_fn: starts a new box's pre-started interpreter
 * (docs/prestart.md) when the language has one and sandbox.ini lets it,
 * then runs the plugin's warmup_code (with the language's default
 * commands, environment and limits). */
int exec_warmup(struct box *b, const struct plugin *pl,
		pool_warmup_done_cb done, void *arg);

/* Stop the execution (cancel it in the agent, or drop the pool wait). The
 * callback still runs, with cancelled set or error ERR_CANCELLED. */
void exec_cancel(struct exec_job *job);

/* A session's connection is about to go: a job that has not reached the
 * agent yet (its code still being scanned by the blocklist) ends now with
 * ERR_CANCELLED, its callback run before this returns, so it never uses
 * the connection; a job that has reached it is left to the connection's
 * close, which ends it. */
void exec_abort_unsent(struct exec_job *job);

#endif
