/*
 * session_store.h - where a server's sessions are remembered across its
 * restarts: a slot in the state directory.
 *
 * A slot is a pair of files, <key>-<n>.lock and <key>-<n>.json, where key
 * is a hash of the state directory and of the working directory the server
 * was started in (an editor starts it in the project's directory) and n the
 * first slot number whose lock nobody holds. The lock is an flock(2) held for
 * the server's life: the kernel drops it when the server dies, however it dies,
 * so a server that starts again in the same directory takes its predecessor's
 * slot and re-adopts its sessions, while two servers running at once always
 * hold different slots and never touch each other's sessions.
 *
 * The JSON file holds what the containers' names do not: last use, TTL,
 * execution counts. Writes go through libuv's file system requests, so the
 * loop never waits on the disk; a write replaces the file atomically.
 */
#ifndef SBX_SESSION_STORE_H
#define SBX_SESSION_STORE_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "error.h"

#define SESSION_SLOT_MAX 32 /* "<8 hex>-<n>" */

struct session_store;

/* dir NULL: $XDG_STATE_HOME/mcp-sandbox, else ~/.local/state/mcp-sandbox.
 * Creates the directory (0700), takes the first free slot. Returns 0, or a
 * negative errno with err. */
int session_store_open(uv_loop_t *loop, const char *dir,
		       struct session_store **out, struct error *err);

/* "<key>-<n>": part of every session container's name. */
const char *session_store_slot(const struct session_store *st);
const char *session_store_path(const struct session_store *st);

/* What the predecessor saved (an array; empty when there was nothing or
 * the file was unreadable), owned by the caller. */
cJSON *session_store_load(struct session_store *st);

/* Write doc (taken over) in the background; a newer save replaces one that
 * has not started yet. */
void session_store_save(struct session_store *st, cJSON *doc);

/* Save doc (taken over; NULL: nothing more to save), then release the
 * slot and free the store once every write is done. */
void session_store_close(struct session_store *st, cJSON *doc);

#endif
