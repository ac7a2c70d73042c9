/*
 * snapshot_store.h - sessions' snapshots kept on the host
 * (docs/sessions.md, "Snapshots, restore and fork").
 *
 * A snapshot is a record and two files in <state_dir>/snapshots:
 *
 *   <key>.json          the record: its own SHA-256 on the first line,
 *                       then JSON (owner, times, the files' hashes and
 *                       sizes, the package sets, the caller's fields)
 *   <key>.ipynb         the session's history as a notebook (may be
 *                       absent: no cells)
 *   blobs/<sha256>.tar  /work as a tar, named by its hash: snapshots of
 *                       the same files share one
 *
 * The key is the id (SNAPSHOT_ID_LEN random hex digits), or a tenant's
 * "<tenant>.<id>". Every file is written under a temporary name and
 * renamed into place, so a snapshot is there whole or not at all; its
 * tar's hash is checked as it is read back, and a record or history
 * that does not match its hash is refused (ERR_SNAPSHOT_CORRUPT).
 *
 * The store keeps each snapshot at most max_bytes, all of them (the tars
 * counted once however many records share them, and the histories)
 * under total_bytes, and removes a snapshot keep_s seconds after it was
 * taken. The records are read at open (a few small files, before the
 * server serves); everything after runs on the thread pool. Pure of
 * sessions and Docker: the bytes come from the caller.
 */
#ifndef SBX_SNAPSHOT_STORE_H
#define SBX_SNAPSHOT_STORE_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "core/packages/packages.h"
#include "core/tenants/tenants.h"
#include "error.h"

#define SNAPSHOT_ID_LEN 20 /* lower-case hex digits */
#define SNAPSHOT_KEY_MAX (TENANT_NAME_MAX + 1 + SNAPSHOT_ID_LEN)
/* Package sets one snapshot names (a session's at most). */
#define SNAPSHOT_MAX_PACKAGES 16

struct snapshot_store;

struct snapshot_limits {
	uint64_t max_bytes;   /* one snapshot's tar */
	uint64_t total_bytes; /* every tar and history together */
	uint32_t keep_s;      /* lifetime from its taking */
};

/* A snapshot as the store knows it (borrowed: valid until the store
 * changes, i.e. until the loop turns). */
struct snapshot {
	char key[SNAPSHOT_KEY_MAX + 1];
	const char *id;			 /* into key */
	char owner[TENANT_NAME_MAX + 1]; /* "": none (stdio) */
	int64_t created_ms, expires_ms;
	char tar_sha[65];
	uint64_t tar_bytes;
	char hist_sha[65];
	uint64_t hist_bytes;
	char pkgs[SNAPSHOT_MAX_PACKAGES][PKG_KEY_LEN + 1];
	size_t npkg;
	cJSON *meta; /* the caller's fields, as committed */
	/* The record does not match its hash, or is no record: only its
	 * key is known. Restores refuse it; delete removes it. */
	int corrupt;
	struct snapshot *next;
};

/* state_dir NULL: the default (util/state_dir.h). Creates
 * <state>/snapshots and reads the records in it. 0 or a negative code
 * with err. */
int snapshot_store_open(uv_loop_t *loop, const char *state_dir,
			const struct snapshot_limits *lim,
			struct snapshot_store **out, struct error *err);
/* After the loop has run dry and its handles (the sweep timer is one)
 * are closed: no work is on the way then. */
void snapshot_store_free(struct snapshot_store *st);

/* 1 when id is SNAPSHOT_ID_LEN lower-case hex digits. */
int snapshot_id_valid(const char *id);
/* owner's snapshot id (owner NULL: none), or NULL when there is none, it
 * expired, or it is another owner's (the two are not told apart). */
const struct snapshot *snapshot_store_find(const struct snapshot_store *st,
					   const char *owner, const char *id);
/* Every snapshot, newest first: first with prev NULL. */
const struct snapshot *snapshot_store_next(const struct snapshot_store *st,
					   const struct snapshot *prev);
/* 1 if a snapshot names the package set key (the cache keeps it). */
int snapshot_store_uses_packages(const struct snapshot_store *st,
				 const char *key);
/* What the store holds, as counted against total_bytes. */
uint64_t snapshot_store_bytes(const struct snapshot_store *st);
const struct snapshot_limits *
snapshot_store_limits(const struct snapshot_store *st);
/* Remove owner's snapshot id (its files go in the background; a tar
 * another snapshot shares stays). 0 or ERR_SNAPSHOT_NOT_FOUND. */
int snapshot_store_delete(struct snapshot_store *st, const char *owner,
			  const char *id, struct error *err);

/* --- taking one ---------------------------------------------------- */

struct snapshot_writer;

/* Start a snapshot: its tar is written as it comes. ERR_QUOTA_EXCEEDED
 * at once when the store is full. */
int snapshot_writer_new(struct snapshot_store *st, struct snapshot_writer **out,
			struct error *err);
/* The next bytes of the tar (copied). ERR_TOO_LARGE past max_bytes (the
 * writer should then be aborted). */
int snapshot_writer_write(struct snapshot_writer *w, const void *p, size_t n,
			  struct error *err);
/* Bytes taken but not yet on disk: a caller above
 * SNAPSHOT_BACKLOG_HIGH should stop reading until fn(arg) runs, which it
 * does each time a piece has been written. */
#define SNAPSHOT_BACKLOG_HIGH ((size_t)8 << 20)
size_t snapshot_writer_backlog(const struct snapshot_writer *w);
void snapshot_writer_on_room(struct snapshot_writer *w, void (*fn)(void *arg),
			     void *arg);

/* What the snapshot is besides its tar. */
struct snapshot_commit {
	const char *owner;   /* NULL: none */
	cJSON *meta;	     /* the caller's fields (taken) */
	const char *history; /* its notebook (copied), or NULL */
	size_t history_len;
	const char (*pkgs)[PKG_KEY_LEN + 1];
	size_t npkg;
};
/* err NULL: snap is in the store (borrowed for the call). */
typedef void (*snapshot_done_cb)(const struct error *err,
				 const struct snapshot *snap, void *arg);
/* The tar is whole: hash it in, write the record. cb runs once, later
 * (ERR_QUOTA_EXCEEDED when it would not fit, ERR_SANDBOX when the disk
 * fails); w is gone either way. 0 or -ENOMEM (cb not called, w gone). */
int snapshot_writer_commit(struct snapshot_writer *w,
			   const struct snapshot_commit *c, snapshot_done_cb cb,
			   void *arg);
/* Give up: what was written goes. */
void snapshot_writer_abort(struct snapshot_writer *w);

/* --- reading one back ---------------------------------------------- */

/* err NULL: the history's notebook text (len 0: none), borrowed for the
 * call. ERR_SNAPSHOT_CORRUPT when it does not match its hash. */
typedef void (*snapshot_text_cb)(const struct error *err, const char *text,
				 size_t len, void *arg);
int snapshot_store_history(struct snapshot_store *st,
			   const struct snapshot *snap, snapshot_text_cb cb,
			   void *arg);

struct snapshot_reader;
/* The tar of snap, piece by piece. 0 or -ENOMEM. */
int snapshot_reader_new(struct snapshot_store *st, const struct snapshot *snap,
			struct snapshot_reader **out);
/* err NULL: the next n bytes (borrowed for the call); eof once the tar is
 * read whole and matched its hash (the last piece, n may be 0).
 * ERR_SNAPSHOT_CORRUPT when the end does not match (or the file is gone
 * or shorter). */
typedef void (*snapshot_read_cb)(const struct error *err,
				 const unsigned char *p, size_t n, int eof,
				 void *arg);
/* Read the next piece; one at a time. 0 or -ENOMEM. */
int snapshot_reader_next(struct snapshot_reader *r, snapshot_read_cb cb,
			 void *arg);
/* Also while a read is in flight (its cb is then not called). */
void snapshot_reader_free(struct snapshot_reader *r);

/* err NULL: files is a JSON array of {path, type ("file", "directory",
 * "symlink", "other"), size} for the first max entries of the tar (taken
 * by the callee), total how many it has. */
typedef void (*snapshot_files_cb)(const struct error *err, cJSON *files,
				  size_t total, void *arg);
int snapshot_store_files(struct snapshot_store *st, const struct snapshot *snap,
			 size_t max, snapshot_files_cb cb, void *arg);

#endif
