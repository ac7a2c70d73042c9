/*
 * stage.h - a staged input taken from the user's machine
 * (sandbox_execute's files: [{path, from}]): the file, or the regular
 * files below the directory, `from` under the files root copied into
 * /work before the code runs, in pieces through the agent connection of
 * the call, so neither the model nor the server ever holds a whole file.
 *
 * Host side as in transfer.h (util/beneath.h on the thread pool: no "..",
 * absolute path or symlink on the way; a file with a second hard link,
 * or a name that would mislead, is refused). Each file goes to a hidden
 * temporary name beside its target, in place, then is moved over it (an
 * existing file is replaced, as a staged input always is). A directory
 * brings its regular files (at most STAGE_MAX_FILES, sorted), each to
 * path/<its path below from>; symlinks, special files and empty
 * directories are left out.
 */
#ifndef SBX_STAGE_H
#define SBX_STAGE_H

#include <stdint.h>
#include <uv.h>

#include "docker/agent_client.h"
#include "error.h"

/* Files one directory brings at most. */
#define STAGE_MAX_FILES 10000
/* Bytes per piece: each is held about three times on its way (the piece,
 * the frame, the socket's queue). */
#define STAGE_CHUNK (2u << 20)

struct stage_req {
	const char *root;   /* the files root, absolute */
	const char *from;   /* relative to root, beneath_check()ed */
	const char *path;   /* in /work (agent/files.h's rules) */
	uint64_t max_bytes; /* the largest file taken */
	uint32_t chunk;	    /* bytes per piece */
	uint32_t timeout_ms;
};

/* What was copied, also on failure (what came before it). */
struct stage_done {
	uint32_t files;
	uint64_t bytes;
};

/* err NULL on success; an errno code (negative, not ERR_*) means the
 * connection failed and cannot be trusted. */
typedef void (*stage_cb)(const struct error *err, const struct stage_done *d,
			 void *arg);

struct stage;

/* Fails at once (a code, *err filled) or calls cb once, later. req's
 * strings are copied. ac must stay open until cb, stage_abort() or the
 * connection's end. */
int stage_start(uv_loop_t *loop, struct agent_client *ac,
		const struct stage_req *req, stage_cb cb, void *arg,
		struct stage **out, struct error *err);
/* Stop after the piece on its way; cb then gets ERR_CANCELLED. */
void stage_cancel(struct stage *st);
/* The caller leaves: cb is never called and ac never used again (the
 * connection is going); the stage frees itself when nothing of it is in
 * flight. */
void stage_abort(struct stage *st);

#endif
