/*
 * artifact_store.h - files a one-off run made, kept on the host after its
 * container is reset: <state_dir>/artifacts/<id>/<path>, served as
 * sandbox://artifact/<id>/<path> (resources/read, sandbox_file_ops read
 * and export).
 *
 * Each call's files are one set under a new random id, written under a
 * temporary name and renamed into place whole, so a set is either there
 * or not. Sets live for keep_s seconds; the whole store stays under
 * max_bytes, the oldest sets going first. Every path is opened with
 * util/beneath.h, never following a link; all disk work runs on the
 * thread pool, one writer at a time. Several servers may share the state
 * directory: ids never collide, and each one sweeps by what is on disk.
 */
#ifndef SBX_ARTIFACT_STORE_H
#define SBX_ARTIFACT_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "core/exec/executor.h"
#include "core/tenants/tenants.h"
#include "error.h"

#define ARTIFACT_ID_LEN 16 /* hex digits */
/* A set's key, its directory's name: the id, or a tenant's
 * "<tenant>.<id>" (tenants.h). */
#define ARTIFACT_KEY_MAX (TENANT_NAME_MAX + 1 + ARTIFACT_ID_LEN)

struct artifact_store;

/* state_dir NULL: the default (session_store.h). Creates <state>/artifacts
 * (0700) and sweeps it in the background. 0, or a negative errno with
 * err. */
int artifact_store_open(uv_loop_t *loop, const char *state_dir,
			uint64_t max_bytes, uint32_t keep_s,
			struct artifact_store **out, struct error *err);
/* After the loop has run dry (no work is on the way then). */
void artifact_store_free(struct artifact_store *st);

/* 1 when id is ARTIFACT_ID_LEN lower-case hex digits. */
int artifact_id_valid(const char *id, size_t len);
/* 1 when key is an id, or "<tenant>.<id>". */
int artifact_key_valid(const char *key, size_t len);

/* err NULL: the set is in place; kept[i] says whether files[i] is in it
 * (a path the store refuses is left out). Borrowed for the call. */
typedef void (*artifact_put_cb)(const struct error *err,
				const unsigned char *kept, void *arg);
/* Keep files[0..n) (copied now) as a new set of owner (a tenant's name,
 * or NULL); its id is written to id at once (ARTIFACT_ID_LEN + 1 bytes),
 * its key is "<owner>.<id>" or the id. cb runs once, later. 0 or -ENOMEM
 * (cb not called). */
int artifact_store_put(struct artifact_store *st, const char *owner,
		       const struct exec_file *files, size_t n, char *id,
		       artifact_put_cb cb, void *arg);

/* err NULL: len bytes from offset (borrowed for the call), the file's
 * size, and eof when nothing follows them. */
typedef void (*artifact_read_cb)(const struct error *err,
				 const unsigned char *data, size_t len,
				 uint64_t size, int eof, void *arg);
/* Read at most length bytes of <key>/<path> from offset. cb runs once,
 * later; its error is ERR_NOT_FOUND (no such set or file, or it expired),
 * ERR_INVALID_PATH or ERR_NOT_A_FILE. 0 or -ENOMEM (cb not called). */
int artifact_store_read(struct artifact_store *st, const char *key,
			const char *path, uint64_t offset, uint32_t length,
			artifact_read_cb cb, void *arg);

/* The kept files as last swept, newest set first, at most max of them:
 * fn per file, with its set's key. Returns how many there were in all. */
typedef void (*artifact_each_fn)(const char *key, const char *path,
				 uint64_t size, int64_t mtime_ms, void *arg);
size_t artifact_store_each(const struct artifact_store *st, size_t max,
			   artifact_each_fn fn, void *arg);

#endif
