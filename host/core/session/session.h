/*
 * session.h - named sessions: one container kept for many calls, with a
 * persistent interpreter where the language has one (docs/sessions.md).
 *
 * A session takes a warm container from the pool for good. Its calls run
 * one at a time, in order, through the executor on the session's agent
 * connection (others wait in a bounded queue); its files and, through the
 * session interpreter (docs/session-interpreters.md), its variables survive
 * between calls. Sessions expire after an idle TTL and a hard lifetime, can
 * be paused (the container frozen) and survive a restart of the server: the
 * container is renamed "sbx-s.<slot>.<deadline>.<language>.<name>", and the
 * server that takes the same state slot (session_store.h) reconnects to it
 * through the agent's relay.
 */
#ifndef SBX_SESSION_H
#define SBX_SESSION_H

#include <stdint.h>
#include <uv.h>

#include "core/plugins/config.h"
#include "core/engines/engines.h"
#include "core/exec/executor.h"
#include "core/packages/packages.h"
#include "core/plugins/plugins.h"
#include "core/engines/pool.h"
#include "core/tenants/tenants.h"
#include "docker/agent_client.h"
#include "docker/docker.h"
#include "error.h"

#define SESSION_NAME_MAX 64
/* A tenant's session is "<tenant>.<name>" inside the server (tenants.h):
 * the longest name the server holds. */
#define SESSION_QNAME_MAX (TENANT_NAME_MAX + 1 + SESSION_NAME_MAX)
/* Prefix of every session container's name. */
#define SESSION_CONTAINER_PREFIX "sbx-s."

struct session_mgr;
struct session;
struct session_call;

struct session_info {
	const char *name;
	const char *language;
	const char *state;  /* "active", "busy", "paused", "starting" */
	int64_t created_ms; /* Unix time in milliseconds */
	int64_t last_used_ms;
	int64_t expires_ms;  /* idle expiry, capped by the deadline */
	int64_t deadline_ms; /* hard end of life */
	uint32_t ttl_s;
	uint64_t executions;
	unsigned queued; /* calls waiting behind the running one */
	int interpreter; /* keeps in-memory state between calls */
	const char *container_id;
	const char *engine; /* the engine it runs on */
	/* Memory the container used when last measured (the engine is
	 * asked in the background every [sessions] memory_refresh_ms, never
	 * while a caller waits), and how long ago that was. memory_known 0:
	 * not measured yet (the first measurement comes about a second
	 * after create or re-adoption). A failed measurement keeps the last
	 * figure, whose age then grows. */
	int memory_known;
	uint64_t memory_bytes;
	int64_t memory_age_ms;
};

/*
 * Every function here that takes a callback either fails at once (returns
 * a negative code, fills *err, never calls the callback) or returns 0 and
 * calls it exactly once, later, from the loop (docs/architecture.md, the
 * callback contract). err in a callback is NULL on success; it and s are
 * borrowed for the call (s is NULL when the session did not survive).
 */
typedef void (*session_cb)(struct session *s, const struct error *err,
			   void *arg);

/* A session takes its box from the engine placement picks and stays
 * there (engines.h). */
int session_mgr_new(uv_loop_t *loop, struct engines *es,
		    const struct plugin_set *ps, const struct config *cfg,
		    struct session_mgr **out);
/* Take the state slot and re-adopt the sessions a dead predecessor left in
 * it (in the background, once the engine answers). Without a slot the
 * server still serves sessions; they just do not survive it. */
void session_mgr_start(struct session_mgr *m);
/* How long a lost session's name answers session_lost (how long it tries
 * to reconnect first is [sessions] reconnect_grace_s). */
#define SESSION_TOMBSTONE_MS 3600000
/* No session named name: err says whether one was lost (ERR_SESSION_LOST,
 * with why), is kept for a server that has its language's plugin
 * (ERR_SESSION_UNAVAILABLE, naming the plugin) or never was
 * (ERR_SESSION_NOT_FOUND). Returns err->code. */
int session_missing(struct session_mgr *m, const char *name, struct error *err);

struct audit;
/* Record the sessions' own events (expired, lost, re-adopted) in a. */
void session_mgr_set_audit(struct session_mgr *m, struct audit *a);

/* How long a call that names a session may wait for the re-adoption. */
#define SESSION_ADOPT_DEADLINE_MS 30000
/* 1 while the predecessor's sessions are being re-adopted: a call that
 * names a session (or creates one: the limit and the names are not known
 * yet) should wait until cb, given to session_mgr_on_adopted, runs. */
int session_mgr_adopting(const struct session_mgr *m);
/* cb(arg) runs each time a re-adoption ends (one slot; NULL clears it). */
void session_mgr_on_adopted(struct session_mgr *m, void (*cb)(void *arg),
			    void *arg);
/* Server shutdown: calls in flight end with ERR_SHUTTING_DOWN (before this
 * returns), memory measurements in flight are withdrawn, connections
 * close, state is saved; containers stay for the
 * next server. done runs once the removals of destroyed sessions have been
 * answered, from the loop. */
void session_mgr_shutdown(struct session_mgr *m, void (*done)(void *arg),
			  void *arg);
/* After session_mgr_shutdown's done, once the loop has run until its
 * handles are closed (as main.c does): the expiry and memory timers are
 * embedded and freed with it. NULL is a no-op. */
void session_mgr_free(struct session_mgr *m);

/* 1 if s is a valid session name: [A-Za-z0-9_-]{1,64}, or a tenant's
 * "<tenant>.<name>" ([a-z0-9_-]{1,32} before the dot). */
int session_valid_name(const char *s);
/* A new unguessable name (22 characters of [A-Za-z0-9]) into out (at
 * least 23 bytes). 0 or -EIO. */
int session_new_name(char *out);

/* name NULL: generate an unguessable one. ttl_s 0: the default. on: the
 * engine it must run on, or NULL for placement's choice (engines.h). Fails at
 * once with ERR_SHUTTING_DOWN, ERR_INVALID_NAME, ERR_SESSION_EXISTS,
 * ERR_MAX_SESSIONS or ERR_INVALID_ARGUMENTS (ttl above max_ttl); cb gets
 * the engine's failures (ERR_IMAGE_MISSING, ERR_DOCKER_UNAVAILABLE...). */
int session_create(struct session_mgr *m, const struct plugin *pl,
		   const char *name, uint32_t ttl_s, struct engine *on,
		   session_cb cb, void *arg, struct error *err);

struct session *session_find(struct session_mgr *m, const char *name);
/* Iterate: first with prev NULL. */
struct session *session_next(struct session_mgr *m, struct session *prev);
void session_info(const struct session *s, struct session_info *out);
const struct plugin *session_plugin(const struct session *s);
/* What the session's calls ran, cell by cell (session_history.h), or
 * NULL when none is kept. */
struct history;
const struct history *session_history(const struct session *s);
/* The engine the session runs on, for life. */
struct engine *session_engine(const struct session *s);

/* Freeze / thaw the container (ERR_SESSION_BUSY at once while a call runs
 * or another pause or resume is under way). */
int session_pause(struct session *s, session_cb cb, void *arg,
		  struct error *err);
int session_resume(struct session *s, session_cb cb, void *arg,
		   struct error *err);
/* Push the idle expiry to now + ttl_s (0: the session's TTL), capped by
 * the deadline. Returns 0 or ERR_INVALID_ARGUMENTS. */
int session_extend(struct session *s, uint32_t ttl_s, struct error *err);
/* Installed package sets a session's calls import from (docs/packages.md). */
#define SESSION_MAX_PACKAGES 16
/* Add the set key (PKG_KEY_LEN hex digits): the calls that start from now
 * on see it. Returns 0 (also when it was there), or ERR_INVALID_ARGUMENTS
 * when the session has SESSION_MAX_PACKAGES sets. */
int session_add_packages(struct session *s, const char *key, struct error *err);
/* The session's sets, *n of them. */
const char (*session_packages(const struct session *s,
			      size_t *n))[PKG_KEY_LEN + 1];
/* 1 if any session of m uses the set key (the cache keeps it). */
int session_mgr_uses_packages(struct session_mgr *m, const char *key);

/* Remove the session and its container. A running call and the queued
 * ones end with ERR_SESSION_DESTROYED before this returns. */
void session_destroy(struct session *s);
/* Remove the container of name, a session this server cannot run (its
 * language's plugin is not loaded; session_missing says
 * ERR_SESSION_UNAVAILABLE), and forget it. 0, or ERR_SESSION_NOT_FOUND
 * when name is no such session. */
int session_destroy_unavailable(struct session_mgr *m, const char *name);

/*
 * Run req (pl, code, stdin, timeout, options, streaming; the session
 * fields are filled here) in the session: now, or after the calls before
 * it. Returns 0 with *out set, or fails at once with ERR_SESSION_BUSY,
 * ERR_SESSION_PAUSED or ERR_LANGUAGE_MISMATCH.
 */
int session_exec(struct session *s, const struct exec_request *req,
		 exec_done_cb cb, void *arg, struct session_call **out,
		 struct error *err);
/*
 * One file operation in the session's work directory (agent/files.h), in
 * order with its executions. req's pointers are borrowed until this
 * returns. Fails at once like session_exec(); cb gets the agent's
 * answer (docker/agent_client.h, agent_file_cb), or ERR_SESSION_DESTROYED,
 * ERR_SESSION_LOST or ERR_CANCELLED.
 */
typedef void (*session_file_cb)(const struct error *err,
				const struct ap_file_done *res, void *arg);
int session_file(struct session *s, const struct ap_file *req,
		 session_file_cb cb, void *arg, struct session_call **out,
		 struct error *err);

/*
 * A run of file operations in one place of the session's queue (an
 * import moving a file in pieces): req is queued like session_file();
 * after each answer cb gets held = 1 and c stays the caller's: it sends
 * the next operation with session_file_next() or ends with
 * session_call_release(), then or later, and nothing else runs in the
 * session meanwhile. A failed operation (err, held = 1) keeps the hold.
 * held = 0 ends it (c is gone): the session destroyed, its connection
 * lost, the server shutting down, or the call cancelled while queued.
 */
typedef void (*session_hold_cb)(const struct error *err,
				const struct ap_file_done *res, int held,
				void *arg);
int session_file_hold(struct session *s, const struct ap_file *req,
		      session_hold_cb cb, void *arg, struct session_call **out,
		      struct error *err);
/* Only while held: 0 (cb later), or the code with err and the hold over
 * (c is gone). req's pointers are borrowed until cb (a piece of a large
 * file is not copied). */
int session_file_next(struct session_call *c, const struct ap_file *req,
		      struct error *err);
/* Ends a hold (only while held; c is gone): the queue goes on. */
void session_call_release(struct session_call *c);

/*
 * Background processes (docs/processes.md). Requests go to the session's
 * agent at once, beside its queue (a wait does not hold up the calls),
 * and are answered in any order. Each fails at once with
 * ERR_SESSION_PAUSED, ERR_SESSION_LOST (no connection now) or
 * ERR_SANDBOX (an image whose agent is older than background
 * processes); cb gets the agent's answer (docker/agent_client.h,
 * agent_proc_cb), or ERR_SESSION_DESTROYED, ERR_SESSION_PAUSED,
 * ERR_SESSION_LOST or ERR_CANCELLED. res is borrowed for the call.
 */
struct session_proc;
typedef void (*session_proc_cb)(const struct error *err,
				const struct ap_proc_done *res, void *arg);
/* Start command with /bin/sh -c in /work, with the environment of the
 * language's programs (and the session's packages) and its seccomp
 * profile, keeping [sessions] process_log_bytes of its output; at most
 * [sessions] max_processes run at once. command is borrowed until this
 * returns. */
int session_spawn(struct session *s, const char *command, session_proc_cb cb,
		  void *arg, struct session_proc **out, struct error *err);
/* list, logs, signal or wait (common/agent_ops.h, struct ap_proc). */
int session_proc(struct session *s, const struct ap_proc *req,
		 session_proc_cb cb, void *arg, struct session_proc **out,
		 struct error *err);
/* The bytes of req (an HTTP request, util/http_message.h) to a port on
 * the container's loopback, and the answer (docker/agent_client.h,
 * agent_exchange_cb; ERR_PORT_CLOSED at once when nothing listens).
 * Like the others: beside the queue, cancelled with
 * session_proc_cancel(). */
typedef void (*session_exchange_cb)(const struct error *err,
				    const struct ap_exchange_done *res,
				    void *arg);
int session_exchange(struct session *s, const struct ap_exchange *req,
		     session_exchange_cb cb, void *arg,
		     struct session_proc **out, struct error *err);
/* The caller gives up: cb runs now with ERR_CANCELLED. */
void session_proc_cancel(struct session_proc *p);

/*
 * The session's /work as a tar (session_tar.c; docs/sessions.md,
 * "Snapshots, restore and fork"): GNU tar in its container, as the
 * sandbox user, in the session's place in its queue (after the calls
 * before it; the ones after wait). Each fails at once like session_file();
 * done runs once, later: err NULL when tar exited well, else
 * ERR_SESSION_DESTROYED, ERR_SESSION_LOST, ERR_NO_SPACE or ERR_SANDBOX
 * (with tar's own words). t stays valid until done has run.
 */
struct session_tar;
typedef void (*session_tar_done_cb)(const struct error *err, void *arg);
/* Out: the archive's bytes (files in name order) go to data as they
 * come (borrowed for the call); data returns non-zero to stop (done then
 * gets ERR_CANCELLED). */
typedef int (*session_tar_data_fn)(const char *p, size_t n, void *arg);
int session_tar_out(struct session *s, session_tar_data_fn data,
		    session_tar_done_cb done, void *arg,
		    struct session_tar **out, struct error *err);
/* Stop taking the archive while the consumer is behind (1), or go on. */
void session_tar_pause(struct session_tar *t, int paused);
/* In: unpack an archive into /work. room(arg) runs when tar has started
 * and each time what was written is all sent: then session_tar_write()
 * the next piece (copied), and session_tar_end() after the last. */
int session_tar_in(struct session *s, void (*room)(void *arg),
		   session_tar_done_cb done, void *arg,
		   struct session_tar **out, struct error *err);
/* 0, or -EPIPE (tar is not running: done follows), -ENOBUFS, -ENOMEM. */
int session_tar_write(struct session_tar *t, const void *p, size_t n);
/* Bytes written and not yet taken by the engine. */
size_t session_tar_queued(const struct session_tar *t);
/* 1 while tar runs and takes input. */
int session_tar_ready(const struct session_tar *t);
void session_tar_end(struct session_tar *t);
/* The caller gives up: done is not called; t is gone. */
void session_tar_cancel(struct session_tar *t);

/* Stop the call: a queued one ends with ERR_CANCELLED before this
 * returns, a running one is interrupted (then killed after the grace) and
 * ends later (a running file operation just finishes). cb runs either way
 * (never before session_exec returned). */
void session_call_cancel(struct session_call *c);

#endif
