/*
 * session_internal.h - what the five parts of the session module share:
 * session.c (lifecycle: create, pause, resume, extend, expiry, destroy,
 * shutdown), session_queue.c (a session's calls, one at a time, in order),
 * session_adopt.c (re-adoption of a dead predecessor's sessions and
 * reconnection through the agent's relay), session_memory.c (the
 * memory figures, measured in the background) and session_procs.c (the
 * background processes). Not for other modules.
 */
#ifndef SBX_SESSION_INTERNAL_H
#define SBX_SESSION_INTERNAL_H

#include "core/packages/packages.h"
#include "session.h"
#include "session_history.h"
#include "session_store.h"

struct session_call {
	struct session *s;
	struct exec_request req; /* code and stdin point at the copies */
	char *code;
	char *stdin_data;
	struct exec_file *files; /* staged inputs (exec_files_copy) */
	exec_done_cb cb; /* NULL: the interpreter's start-up (or a file op) */
	void *arg;
	struct exec_job *job; /* while running */
	/* A file operation instead of an execution (session_file()): fcb is
	 * set, and freq's strings and bytes point into fmem. */
	session_file_cb fcb;
	struct ap_file freq;
	char *fmem;
	/* session_file_hold(): hcb gets every answer instead of fcb; idle
	 * while it holds the session with no operation at the agent. */
	session_hold_cb hcb;
	int idle;
	int beside; /* it runs (ran) beside the interpreter's start-up */
	/* The interpreter's start-up holds its engine's pool from refilling
	 * (pool_hold_warm) until the call is freed; else NULL. */
	struct pool *warm_hold;
	struct session_call *next;
};

/* A call somebody waits for (not the interpreter's start-up). */
static inline int session_call_is_users(const struct session_call *c)
{
	return c->cb || c->fcb || c->hcb;
}

/* A file operation (or a hold), not an execution. */
static inline int session_call_is_file(const struct session_call *c)
{
	return c->fcb || c->hcb;
}

struct session {
	struct session_mgr *m;
	uint64_t serial; /* never reused: async replies find us by it */
	char name[SESSION_QNAME_MAX + 1];
	const struct plugin *pl;
	struct engine *eng;	 /* where its container runs, for life */
	char id[80];		 /* container id */
	struct agent_client *ac; /* NULL while connecting or paused-adopted */
	int connecting;
	struct agent_client *reopening; /* the connection being made */
	/* The connection was lost (the engine restarted, say): the session
	 * reconnects through the relay until reconnect_until_ms; while the
	 * engine does not answer (engine_down) its calls fail at once. */
	int reconnecting;
	int engine_down;
	int checking; /* a container_inspect in flight */
	int64_t reconnect_until_ms;
	int paused;
	int docker_op; /* pause/resume in flight */
	int destroying;
	int64_t created_ms, last_used_ms, deadline_ms;
	uint32_t ttl_s;
	uint64_t executions;
	uint32_t seq;
	struct session_call *running;
	/* A file operation (or a hold) running beside the interpreter's
	 * start-up, which has nothing of the user's to disturb: a session's
	 * first files do not wait for its imports. */
	struct session_call *beside;
	struct session_call *q_head, *q_tail;
	/* Requests about its background processes in flight
	 * (session_procs.c): they go beside the queue. */
	struct session_proc *procs;
	/* What its calls ran (session_history.h); NULL: none is kept. */
	struct history *history;
	unsigned nq;
	/* Installed package sets, by key, that calls import from. */
	char pkg_keys[SESSION_MAX_PACKAGES][PKG_KEY_LEN + 1];
	unsigned npkg;
	/* The memory figure, measured in the background (session_memory.c):
	 * mem_at is the loop's time (uv_now) of the answer, mem_op the
	 * measurement in flight (withdrawn when the session goes). */
	int mem_known;
	uint64_t mem_bytes;
	uint64_t mem_at;
	struct container_op *mem_op;
	struct session *prev, *next;
};

struct session_mgr {
	uv_loop_t *loop;
	struct engines *es;
	const struct plugin_set *ps;
	const struct config *cfg;
	struct session_store *store; /* NULL: sessions do not survive us */
	uv_timer_t expiry;	     /* embedded; closed at shutdown */
	/* Measures the sessions' memory; runs only while sessions exist
	 * (session_memory.c). Embedded, unreferenced, closed at shutdown. */
	uv_timer_t memory;
	struct session *list;
	unsigned n, creating;
	uint64_t next_serial;
	int shutting_down;
	unsigned removals; /* DELETEs and renames in flight */
	/* Re-adoption of a predecessor's sessions (session_adopt.c): until
	 * it ends, calls that name a session wait (session_mgr_adopting). */
	int adopting;
	unsigned adopt_lists; /* engines whose list is awaited */
	int64_t adopt_until_ms;
	struct audit *audit; /* session_mgr_set_audit, or NULL */
	/* Sessions that ended without a destroy (their container died, the
	 * engine did not come back): their names answer session_lost, not
	 * session_not_found, for SESSION_TOMBSTONE_MS. */
	struct {
		char name[SESSION_QNAME_MAX + 1];
		char reason[120];
		int64_t at_ms;
	} tomb[32];
	unsigned ntomb;
	/* Sessions of languages this server has no plugin for (or has
	 * turned off): their containers are left alone and their saved
	 * entries kept, so that a server with the plugin adopts them
	 * (docs/sessions.md, "A language this server cannot run"). An
	 * array of entries in session_save's form, owned. */
	cJSON *unavailable;
	void (*adopted_cb)(void *arg);
	void *adopted_arg;
	void (*done)(void *arg); /* shutdown: when removals reach 0 */
	void *done_arg;
};

/* Unix time in milliseconds. */
int64_t session_now_ms(void);
/* The live session with this serial, or NULL (async replies find theirs
 * by serial: the session may be gone by then). */
struct session *session_by_serial(struct session_mgr *m, uint64_t serial);
/* A new session linked into m's list, or NULL. */
struct session *session_alloc(struct session_mgr *m, const struct plugin *pl,
			      const char *name);
void session_unlink_free(struct session *s);
/* Pin s to eng (counted there for placement). */
void session_set_engine(struct session *s, struct engine *eng);
/* Write every session's state to the slot (nothing without one). */
void session_save(struct session_mgr *m);
/* DELETE the container on eng; the server's shutdown waits for the
 * answer. */
void session_remove_container(struct session_mgr *m, struct engine *eng,
			      const char *id);
/* The session's agent connection closed under it: the session goes. */
void session_lost_cb(struct agent_client *ac, void *arg);

/* s ended without a destroy: remember why under its name, then destroy
 * it (its container, if any, is removed). */
void session_gone(struct session *s, const char *reason);
/* Fail the queued calls of s: the engine is away (docker_unavailable). */
void session_fail_engine_away(struct session *s);
/* Retry the reconnections of sessions that lost theirs (the expiry tick). */
void session_reconnect_tick(struct session_mgr *m, int64_t now);

/* An audit event about s (core/records/audit.h): event, and its reason
 * (or NULL). */
void session_audit(struct session_mgr *m, const struct session *s,
		   const char *event, const char *reason);

/* Re-adoption is over (done, failed or past its deadline): the calls that
 * waited for it go on. */
void session_adoption_end(struct session_mgr *m, const char *reason);

/* Start the 1 s timer that expires idle and over-age sessions. */
void session_expiry_start(struct session_mgr *m);

/* session_memory.c */
/* Set up m's memory timer (session_mgr_new). */
void session_memory_init(struct session_mgr *m);
/* m's count of sessions changed: the timer runs while there is one. */
void session_memory_watch(struct session_mgr *m);
/* Measure s now, in the background, unless a measurement is in flight
 * (a new or re-adopted session: its first figure comes about a second
 * later). */
void session_memory_sample(struct session *s);
/* Withdraw s's measurement in flight, if any (s is about to be freed). */
void session_memory_forget(struct session *s);
/* Shutdown: withdraw every measurement and close the timer. */
void session_memory_close(struct session_mgr *m);

/* session_procs.c */
/* End the background-process requests in flight with code (their
 * answers, when they come, are dropped): the session is destroyed or
 * paused. */
void session_procs_fail(struct session *s, int code, const char *msg);

/* session_queue.c */
/* The environment entries of the session's packages as a program of its
 * language gets them (install_run_env), into env (EXEC_MAX_EXTRA_ENV + 1
 * slots; free with install_env_free): 0, or -ENOMEM / -E2BIG. */
int session_pkg_env(const struct session *s, char **env);
/* Start the next queued call if the session can run one. */
void session_queue_next(struct session *s);
/* End every queued call (not the running one) with err. */
void session_queue_fail(struct session *s, const struct error *err);
/* The connection s->ac is about to go: a running call whose code has not
 * reached the agent yet (being scanned) ends now, without it. */
void session_queue_abort_unsent(struct session *s);
/* Queue the interpreter's start-up (languages that have one). hold: a
 * pool_hold_warm() taken for it, which the start-up gives back when it
 * ends (now, when there is nothing to start), or NULL. */
void session_queue_interpreter(struct session *s, struct pool *hold);

/* session_adopt.c */
/* The saved entry of the unavailable session name, or NULL (borrowed
 * from m->unavailable until it changes). */
const cJSON *session_unavailable_find(const struct session_mgr *m,
				      const char *name);
/* Remove the containers of unavailable sessions past their deadline or
 * idle longer than their TTL (the expiry tick). */
void session_unavailable_expire(struct session_mgr *m, int64_t now);
/* Connect to an adopted or resumed session's container through the
 * agent's relay. Returns 0, or -1 when it failed and s is destroyed. */
int session_reconnect(struct session *s);

#endif
