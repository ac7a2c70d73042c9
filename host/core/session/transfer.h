/*
 * transfer.h - files between a session's /work and the user's machine,
 * under the one host directory the user allowed ([files] host_root,
 * SANDBOX_FILES_HOST_ROOT or --files-root): sandbox_file_ops export and
 * import.
 *
 * The bytes travel through the agent channel (session_file(): AP_FILE
 * read and write), never through a bind mount or the engine's archive
 * API, so this works with any engine and the session's tmpfs. On the host
 * every path is opened with util/beneath.h on the thread pool: nothing
 * planted in the root (a symlink, "..") leads out of it, a file is
 * written under a temporary name and renamed into place, and an existing
 * one is replaced only when asked. A host path with a character that
 * misleads (util/media.h, media_name_flags()) is refused, and import
 * refuses a file with more than one hard link.
 *
 * Export copies a file, or a directory with the files and directories
 * below it (at most 10000 entries; symlinks, special files and names
 * that would mislead on the host are left out); a directory that exists on the
 * host is merged into only with overwrite, and a failure leaves what was copied
 * before it.
 *
 * The session is looked up by name at every step: one destroyed meanwhile
 * ends the transfer with ERR_SESSION_NOT_FOUND.
 *
 * An export may also take a file kept in the artifact store (req.store):
 * the same host side, its bytes read from the store instead.
 */
#ifndef SBX_TRANSFER_H
#define SBX_TRANSFER_H

#include <stdint.h>
#include <uv.h>

#include "core/records/artifact_store.h"
#include "session.h"

struct transfer_req {
	struct session_mgr *sessions;
	const char *session; /* its name */
	const char *root;    /* the host directory (absolute) */
	const char *session_path;
	const char *host_path; /* relative to root, beneath_check() */
	int overwrite;
	uint32_t chunk;	    /* bytes per piece: export reads, import writes */
	uint64_t max_bytes; /* import: largest file taken */
	uint32_t timeout_ms;
	/* Export a file kept in the artifact store instead (session unused;
	 * session_path is the path in the set artifact_id). */
	struct artifact_store *store;
	const char *artifact_id;
};

/* What a transfer did, also when it failed (what was copied before). */
struct transfer_done {
	uint64_t bytes;
	uint32_t files;
	/* A directory's export: entries left out because their names would
	 * mislead on the host (media_name_flags(): control or bidirectional
	 * characters, bytes that are not UTF-8), and what was below them. */
	uint32_t left_out;
};

/* err NULL on success; d borrowed for the call. */
typedef void (*transfer_cb)(const struct error *err,
			    const struct transfer_done *d, void *arg);

/* Fails at once (returns a code, fills *err) or calls cb once, later.
 * Strings of req are copied. */
int transfer_export(uv_loop_t *loop, const struct transfer_req *req,
		    transfer_cb cb, void *arg, struct error *err);
int transfer_import(uv_loop_t *loop, const struct transfer_req *req,
		    transfer_cb cb, void *arg, struct error *err);

#endif
