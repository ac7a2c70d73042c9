/*
 * session.c - named sessions, their lifecycle: the manager, create, pause,
 * resume, extend, expiry, destroy, shutdown (session.h, docs/sessions.md).
 * A session's calls are in session_queue.c, re-adoption after a restart in
 * session_adopt.c, its memory figure in session_memory.c.
 */
#include "session_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/records/audit.h"
#include "core/tenants/tenants.h"
#include "docker/container.h"
#include "util/defer.h"
#include "util/log.h"

#define LOG_MODULE "sessions"
#define EXPIRY_CHECK_MS 1000
/* Generated names: 22 characters of 62, about 131 bits. */
#define GENERATED_NAME_LEN 22

int64_t session_now_ms(void)
{
	uv_timeval64_t tv;

	if (uv_gettimeofday(&tv))
		return 0;
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int session_valid_name(const char *s)
{
	const char *dot = strchr(s, '.');
	size_t n;

	if (dot) {
		if (!tenant_valid_prefix(s, (size_t)(dot - s)))
			return 0;
		s = dot + 1;
	}
	n = strlen(s);
	return n >= 1 && n <= SESSION_NAME_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_-") == n;
}

int session_new_name(char *out)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
				       "nopqrstuvwxyz0123456789";
	unsigned char rnd[GENERATED_NAME_LEN * 2];
	size_t i, k = 0;

	/* Rejection sampling keeps every character equally likely. */
	for (i = 0; i < GENERATED_NAME_LEN;) {
		if (k == 0 && uv_random(NULL, NULL, rnd, sizeof(rnd), 0, NULL))
			return -EIO;
		if (rnd[k] < 248)
			out[i++] = alphabet[rnd[k] % 62];
		k = (k + 1) % sizeof(rnd);
	}
	out[i] = '\0';
	return 0;
}

/* ---- the manager ---- */

static void expiry_cb(uv_timer_t *t);

int session_mgr_new(uv_loop_t *loop, struct engines *es,
		    const struct plugin_set *ps, const struct config *cfg,
		    struct session_mgr **out)
{
	struct session_mgr *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->loop = loop;
	m->es = es;
	m->ps = ps;
	m->cfg = cfg;
	m->next_serial = 1;
	uv_timer_init(loop, &m->expiry);
	m->expiry.data = m;
	session_memory_init(m);
	*out = m;
	return 0;
}

struct session *session_find(struct session_mgr *m, const char *name)
{
	struct session *s;

	for (s = m->list; s; s = s->next)
		if (!s->destroying && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

struct session *session_next(struct session_mgr *m, struct session *prev)
{
	struct session *s = prev ? prev->next : m ? m->list : NULL;

	while (s && s->destroying)
		s = s->next;
	return s;
}

struct session *session_by_serial(struct session_mgr *m, uint64_t serial)
{
	struct session *s;

	for (s = m->list; s; s = s->next)
		if (s->serial == serial && !s->destroying)
			return s;
	return NULL;
}

struct engine *session_engine(const struct session *s)
{
	return s->eng;
}

const struct history *session_history(const struct session *s)
{
	return s->history;
}

const struct plugin *session_plugin(const struct session *s)
{
	return s->pl;
}

static int64_t expires_at(const struct session *s)
{
	int64_t e = s->last_used_ms + (int64_t)s->ttl_s * 1000;

	return e < s->deadline_ms ? e : s->deadline_ms;
}

void session_info(const struct session *s, struct session_info *o)
{
	memset(o, 0, sizeof(*o));
	o->name = s->name;
	o->language = s->pl->desc->name;
	if (s->paused)
		o->state = "paused";
	else if (s->connecting ||
		 (s->running && !session_call_is_users(s->running)))
		o->state = "starting";
	else if (s->running || s->beside)
		o->state = "busy";
	else
		o->state = "active";
	o->created_ms = s->created_ms;
	o->last_used_ms = s->last_used_ms;
	o->expires_ms = expires_at(s);
	o->deadline_ms = s->deadline_ms;
	o->ttl_s = s->ttl_s;
	o->executions = s->executions;
	o->queued = s->nq;
	o->interpreter = s->pl->desc->session_cmd != NULL;
	o->container_id = s->id;
	o->engine = engine_name(s->eng);
	o->memory_known = s->mem_known;
	if (s->mem_known) {
		uint64_t now = uv_now(s->m->loop);

		o->memory_bytes = s->mem_bytes;
		o->memory_age_ms =
			now > s->mem_at ? (int64_t)(now - s->mem_at) : 0;
	}
}

struct session *session_alloc(struct session_mgr *m, const struct plugin *pl,
			      const char *name)
{
	struct session *s = calloc(1, sizeof(*s));
	unsigned i;

	if (!s)
		return NULL;
	/* The name lives again: it is no longer a lost session's. */
	for (i = 0; i < m->ntomb; i++)
		if (strcmp(m->tomb[i].name, name) == 0)
			m->tomb[i] = m->tomb[--m->ntomb];
	s->m = m;
	s->serial = m->next_serial++;
	s->pl = pl;
	/* Without it (out of memory) the session runs, and keeps no history. */
	s->history = history_new();
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->next = m->list;
	if (m->list)
		m->list->prev = s;
	m->list = s;
	m->n++;
	session_memory_watch(m);
	return s;
}

void session_unlink_free(struct session *s)
{
	struct session_mgr *m = s->m;

	if (s->prev)
		s->prev->next = s->next;
	else
		m->list = s->next;
	if (s->next)
		s->next->prev = s->prev;
	m->n--;
	session_memory_forget(s);
	session_memory_watch(m);
	if (s->eng)
		engine_count_session(s->eng, -1);
	history_free(s->history);
	free(s);
}

void session_set_engine(struct session *s, struct engine *eng)
{
	if (s->eng)
		engine_count_session(s->eng, -1);
	s->eng = eng;
	if (eng)
		engine_count_session(eng, 1);
}

/* ---- packages ---- */

int session_add_packages(struct session *s, const char *key, struct error *err)
{
	unsigned i;

	for (i = 0; i < s->npkg; i++)
		if (strcmp(s->pkg_keys[i], key) == 0)
			return 0;
	if (s->npkg == SESSION_MAX_PACKAGES || !pkg_key_valid(key))
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "a session takes at most %d package sets: "
				 "install them together",
				 SESSION_MAX_PACKAGES);
	memcpy(s->pkg_keys[s->npkg++], key, PKG_KEY_LEN + 1);
	session_save(s->m);
	return 0;
}

const char (*session_packages(const struct session *s,
			      size_t *n))[PKG_KEY_LEN + 1]
{
	*n = s->npkg;
	return s->pkg_keys;
}

int session_mgr_uses_packages(struct session_mgr *m, const char *key)
{
	struct session *s;
	unsigned i;

	const cJSON *e, *k;

	for (s = m->list; s; s = s->next)
		for (i = 0; i < s->npkg; i++)
			if (strcmp(s->pkg_keys[i], key) == 0)
				return 1;
	cJSON_ArrayForEach(e, m->unavailable) cJSON_ArrayForEach(
		k, cJSON_GetObjectItemCaseSensitive(
			   e, "packages")) if (cJSON_IsString(k) &&
					       strcmp(k->valuestring, key) ==
						       0) return 1;
	return 0;
}

/* ---- persistence ---- */

void session_save(struct session_mgr *m)
{
	struct session *s;
	cJSON *arr, *e;

	if (!m->store || m->shutting_down)
		return;
	arr = cJSON_CreateArray();
	for (s = m->list; s; s = s->next) {
		if (s->destroying)
			continue;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "name", s->name);
		cJSON_AddStringToObject(e, "language", s->pl->desc->name);
		cJSON_AddStringToObject(e, "container", s->id);
		cJSON_AddStringToObject(e, "engine", engine_name(s->eng));
		cJSON_AddNumberToObject(e, "deadline", (double)s->deadline_ms);
		cJSON_AddNumberToObject(e, "created", (double)s->created_ms);
		cJSON_AddNumberToObject(e, "lastUsed", (double)s->last_used_ms);
		cJSON_AddNumberToObject(e, "ttl", s->ttl_s);
		cJSON_AddNumberToObject(e, "executions", (double)s->executions);
		cJSON_AddNumberToObject(e, "seq", s->seq);
		if (s->npkg) {
			cJSON *p = cJSON_AddArrayToObject(e, "packages");
			unsigned i;

			for (i = 0; p && i < s->npkg; i++)
				cJSON_AddItemToArray(
					p, cJSON_CreateString(s->pkg_keys[i]));
		}
		cJSON_AddItemToArray(arr, e);
	}
	/* Kept for a server that has their plugin. */
	cJSON_ArrayForEach(e, m->unavailable)
		cJSON_AddItemToArray(arr, cJSON_Duplicate(e, 1));
	session_store_save(m->store, arr);
}

/* ---- create / destroy ---- */

struct create_op {
	struct session_mgr *m;
	uint64_t serial; /* the session, once it exists */
	const struct plugin *pl;
	char name[SESSION_QNAME_MAX + 1];
	uint32_t ttl_s;
	struct box *box; /* taken at once from the pool, handed over later */
	session_cb cb;
	void *arg;
};

static void check_done(struct session_mgr *m);

static void create_failed(struct create_op *op, int code, const char *msg)
{
	struct error err;

	error_set_msg(&err, code, msg);
	op->cb(NULL, &err, op->arg);
	free(op);
}

/* The container carries its session's name: only now does the session
 * survive a restart, so only now is create answered. */
static void renamed_cb(const struct error *err, const char *id, void *arg)
{
	struct create_op *op = arg;
	struct session_mgr *m = op->m;
	struct session *s = session_by_serial(m, op->serial);

	(void)id;
	m->removals--;
	if (err && err->code != -ECANCELED)
		log_warn("naming a session container: %s (the session will not "
			 "survive a restart of the server)",
			 err->msg);
	if (s) {
		op->cb(s, NULL, op->arg);
		free(op);
	} else {
		create_failed(op,
			      m->shutting_down ? ERR_SHUTTING_DOWN
					       : ERR_SESSION_LOST,
			      "the session ended while it was being created");
	}
	check_done(m);
}

/* Takes op over; runs from the loop, after session_create returned. */
static void created(struct create_op *op, struct box *b)
{
	struct session_mgr *m = op->m;
	struct agent_client *ac = NULL;
	struct pool *hold = NULL;
	char cname[256];
	struct session *s;
	int64_t now = session_now_ms();

	m->creating--;
	if (session_find(m, op->name)) { /* taken while we waited */
		pool_release(box_pool(b), b, 0);
		create_failed(op, ERR_SESSION_EXISTS,
			      "a session with this name was created meanwhile");
		return;
	}
	s = session_alloc(m, op->pl, op->name);
	if (s)
		session_set_engine(s, engines_of_pool(m->es, box_pool(b)));
	/* While the interpreter starts (python-ml: seconds of imports), no
	 * container starts only to refill the pool, not even the one that
	 * replaces this box: its start-up gets the CPUs (docs/sessions.md). */
	if (s && op->pl->desc->session_cmd) {
		hold = box_pool(b);
		pool_hold_warm(hold, 1);
	}
	if (!s || !s->eng ||
	    pool_detach(box_pool(b), b, s->id, sizeof(s->id), &ac)) {
		if (hold)
			pool_hold_warm(hold, -1);
		if (s)
			session_unlink_free(s);
		pool_release(box_pool(b), b, 1);
		create_failed(op, ERR_SANDBOX,
			      "cannot set up the session's container");
		return;
	}
	s->ac = ac;
	agent_client_set_owner(ac, session_lost_cb, s);
	/* From now on the container outlives this server. */
	agent_client_keep(ac);
	s->created_ms = s->last_used_ms = now;
	s->ttl_s = op->ttl_s;
	s->deadline_ms = now + (int64_t)m->cfg->session_max_lifetime_s * 1000;
	/* The name is how a restarted server (or any server, once the
	 * deadline has passed) recognises the container. */
	snprintf(cname, sizeof(cname),
		 SESSION_CONTAINER_PREFIX "%s.%" PRId64 ".%s.%s",
		 m->store ? session_store_slot(m->store) : "none",
		 s->deadline_ms / 1000, s->pl->desc->name, s->name);
	log_info("[%s] session %s created (container %.12s on engine %s)",
		 s->pl->desc->name, s->name, s->id, engine_name(s->eng));
	session_queue_interpreter(s, hold);
	session_memory_sample(s);
	session_save(m);
	op->serial = s->serial;
	m->removals++; /* shutdown waits for it too */
	if (container_rename(engine_docker(s->eng), s->id, cname, renamed_cb,
			     op)) {
		struct error err;

		error_set(&err, -EIO, "cannot reach the engine");
		renamed_cb(&err, s->id, op);
	}
}

static void acquired_cb(struct box *b, const struct error *err, void *arg)
{
	struct create_op *op = arg;

	if (err) {
		op->m->creating--;
		create_failed(op, err->code, err->msg);
		return;
	}
	created(op, b);
}

/* A warm box was there at once: hand it over from the loop. */
static void acquired_at_once_cb(void *arg)
{
	struct create_op *op = arg;

	created(op, op->box);
}

int session_create(struct session_mgr *m, const struct plugin *pl,
		   const char *name, uint32_t ttl_s, struct engine *on,
		   session_cb cb, void *arg, struct error *err)
{
	struct create_op *op;
	struct box *b = NULL;
	unsigned nu;
	int rc;

	if (m->shutting_down)
		return error_set(err, ERR_SHUTTING_DOWN, NULL);
	if (name && !session_valid_name(name))
		return error_set(err, ERR_INVALID_NAME,
				 "session names are 1 to 64 characters of "
				 "A-Z, a-z, 0-9, '_' and '-'");
	if (name && session_find(m, name))
		return error_set(err, ERR_SESSION_EXISTS,
				 "a session named '%s' already exists", name);
	if (name && session_unavailable_find(m, name))
		return error_set(err, ERR_SESSION_EXISTS,
				 "a session named '%s' already exists (of a "
				 "language this server has no plugin for)",
				 name);
	/* Sessions kept for another server count: their containers run. */
	nu = (unsigned)cJSON_GetArraySize(m->unavailable);
	if (m->n + m->creating + nu >= m->cfg->max_sessions)
		return error_set(err, ERR_MAX_SESSIONS,
				 "%u sessions are open (%u of them of "
				 "languages this server has no plugin for), "
				 "the limit (max_sessions); destroy one first",
				 m->n + m->creating + nu, nu);
	if (ttl_s > m->cfg->session_max_ttl_s)
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "ttl %u s is above this server's limit of "
				 "%u s",
				 ttl_s, m->cfg->session_max_ttl_s);
	op = calloc(1, sizeof(*op));
	if (!op)
		return error_set(err, ERR_SANDBOX, "out of memory");
	op->m = m;
	op->pl = pl;
	op->ttl_s = ttl_s ? ttl_s : m->cfg->session_ttl_s;
	op->cb = cb;
	op->arg = arg;
	if (name)
		snprintf(op->name, sizeof(op->name), "%s", name);
	else if (session_new_name(op->name)) {
		free(op);
		return error_set(err, ERR_SANDBOX,
				 "no randomness for a session name");
	}
	/* A container started for it is not warmed up: the interpreter
	 * imports for itself (python-ml's fork server would hold its own
	 * copy of the same imports, seconds of CPU and 300 MiB). */
	rc = engines_acquire(m->es, pl, on,
			     pl->desc->session_cmd ? POOL_BARE : 0, acquired_cb,
			     op, &b, NULL);
	if (rc < 0) {
		free(op);
		return error_set(err,
				 rc == ERR_SHUTTING_DOWN ? rc : ERR_SANDBOX,
				 "cannot get a container");
	}
	if (rc == 0) {
		op->box = b;
		if (defer_call(m->loop, acquired_at_once_cb, op)) {
			pool_release(box_pool(b), b, 0);
			free(op);
			return error_set(err, ERR_SANDBOX, "out of memory");
		}
	}
	m->creating++;
	return 0;
}

static void check_done(struct session_mgr *m)
{
	void (*done)(void *);

	if (m->shutting_down && !m->removals && m->done) {
		done = m->done;
		m->done = NULL;
		done(m->done_arg);
	}
}

static void check_done_cb(void *arg)
{
	check_done(arg);
}

static void removed_cb(const struct error *err, const char *id, void *arg)
{
	struct session_mgr *m = arg;

	if (err && err->code != -ENOENT)
		log_warn("removing session container %.12s: %s", id ? id : "?",
			 err->msg);
	m->removals--;
	check_done(m);
}

/* The server waits for these at shutdown, so none is cut short. */
void session_remove_container(struct session_mgr *m, struct engine *eng,
			      const char *id)
{
	if (container_remove(engine_docker(eng), id, removed_cb, m) == 0)
		m->removals++;
}

void session_destroy(struct session *s)
{
	struct session_mgr *m = s->m;
	struct agent_client *ac = s->ac;
	struct error err;

	if (s->destroying)
		return;
	s->destroying = 1;
	error_set(&err, ERR_SESSION_DESTROYED,
		  "the session was destroyed before the call ran");
	session_queue_fail(s, &err);
	session_queue_abort_unsent(s);
	session_procs_fail(s, ERR_SESSION_DESTROYED,
			   "the session was destroyed");
	s->ac = NULL;
	/* Settles a running call (ERR_SESSION_DESTROYED) and a reconnection
	 * in flight before it returns. */
	if (ac)
		agent_client_close(ac);
	else if (s->reopening)
		agent_client_close(s->reopening); /* reopen_cb: -ECANCELED */
	if (s->id[0])
		session_remove_container(m, s->eng, s->id);
	log_info("[%s] session %s destroyed", s->pl->desc->name, s->name);
	session_unlink_free(s);
	session_save(m);
}

/* ---- pause, resume, extend ---- */

struct docker_op {
	struct session_mgr *m;
	uint64_t serial;
	int pause;
	session_cb cb;
	void *arg;
};

static void docker_op_fail(struct docker_op *op, struct session *s, int code,
			   const char *msg)
{
	struct error err;

	error_set_msg(&err, code, msg);
	op->cb(s, &err, op->arg);
	free(op);
}

static void paused_cb(const struct error *err, const char *id, void *arg)
{
	struct docker_op *op = arg;
	struct session *s = session_by_serial(op->m, op->serial);

	(void)id;
	if (!s) {
		docker_op_fail(op, NULL, ERR_SESSION_NOT_FOUND,
			       "the session was destroyed meanwhile");
		return;
	}
	s->docker_op = 0;
	if (err) {
		docker_op_fail(op, s, ERR_SANDBOX, err->msg);
		return;
	}
	s->paused = op->pause;
	if (!op->pause) {
		s->last_used_ms = session_now_ms();
		/* adopted while paused: connect now */
		if (session_reconnect(s)) {
			docker_op_fail(op, NULL, ERR_SESSION_LOST,
				       "the session's container cannot be "
				       "reached; the session was removed");
			return;
		}
		session_queue_next(s);
	}
	session_save(s->m);
	op->cb(s, NULL, op->arg);
	free(op);
}

/* Already paused (or running) as asked: answered from the loop. */
static void already_cb(void *arg)
{
	struct docker_op *op = arg;

	op->cb(session_by_serial(op->m, op->serial), NULL, op->arg);
	free(op);
}

static int pause_or_resume(struct session *s, int pause, session_cb cb,
			   void *arg, struct error *err)
{
	struct docker_op *op;
	int rc;

	if (s->docker_op)
		return error_set(err, ERR_SESSION_BUSY,
				 "a pause or resume of this session is in "
				 "progress");
	if (pause && s->paused != pause &&
	    (s->connecting ||
	     (s->running && !session_call_is_users(s->running))))
		return error_set(err, ERR_SESSION_BUSY,
				 "the session is starting (its interpreter is "
				 "loading); pause it once its state is active");
	if (pause && s->paused != pause && (s->running || s->beside || s->nq))
		return error_set(err, ERR_SESSION_BUSY,
				 "the session is running a call; pause it "
				 "when the call is done (or cancel the call)");
	op = calloc(1, sizeof(*op));
	if (!op)
		return error_set(err, ERR_SANDBOX, "out of memory");
	*op = (struct docker_op){.m = s->m,
				 .serial = s->serial,
				 .pause = pause,
				 .cb = cb,
				 .arg = arg};
	if (s->paused == pause)
		rc = defer_call(s->m->loop, already_cb, op);
	else if (pause)
		rc = container_pause(engine_docker(s->eng), s->id, paused_cb,
				     op);
	else
		rc = container_unpause(engine_docker(s->eng), s->id, paused_cb,
				       op);
	if (rc) {
		free(op);
		return error_set(err, ERR_SANDBOX, "cannot reach the engine");
	}
	/* A wait would hang in a frozen container. */
	if (pause && s->paused != pause)
		session_procs_fail(s, ERR_SESSION_PAUSED,
				   "the session was paused");
	if (s->paused != pause)
		s->docker_op = 1;
	return 0;
}

int session_pause(struct session *s, session_cb cb, void *arg,
		  struct error *err)
{
	return pause_or_resume(s, 1, cb, arg, err);
}

int session_resume(struct session *s, session_cb cb, void *arg,
		   struct error *err)
{
	return pause_or_resume(s, 0, cb, arg, err);
}

int session_extend(struct session *s, uint32_t ttl_s, struct error *err)
{
	if (ttl_s > s->m->cfg->session_max_ttl_s)
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "ttl %u s is above this server's limit of "
				 "%u s",
				 ttl_s, s->m->cfg->session_max_ttl_s);
	if (ttl_s)
		s->ttl_s = ttl_s;
	s->last_used_ms = session_now_ms();
	session_save(s->m);
	return 0;
}

/* ---- expiry ---- */

void session_expiry_start(struct session_mgr *m)
{
	uv_timer_start(&m->expiry, expiry_cb, EXPIRY_CHECK_MS, EXPIRY_CHECK_MS);
	uv_unref((uv_handle_t *)&m->expiry);
}

void session_mgr_set_audit(struct session_mgr *m, struct audit *a)
{
	m->audit = a;
}

void session_audit(struct session_mgr *m, const struct session *s,
		   const char *event, const char *reason)
{
	cJSON *ev;

	if (!m->audit)
		return;
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "event", event);
	cJSON_AddStringToObject(ev, "session", s->name);
	cJSON_AddStringToObject(ev, "language", s->pl->desc->name);
	cJSON_AddStringToObject(ev, "container", s->id);
	if (reason)
		cJSON_AddStringToObject(ev, "reason", reason);
	audit_event(m->audit, ev);
}

static void expiry_cb(uv_timer_t *t)
{
	struct session_mgr *m = t->data;
	struct session *s, *next;
	int64_t now = session_now_ms();

	if (m->adopting && now >= m->adopt_until_ms)
		session_adoption_end(m, "the engine did not answer in time");
	session_reconnect_tick(m, now);
	session_unavailable_expire(m, now);
	for (s = m->list; s; s = next) {
		next = s->next;
		if (s->destroying)
			continue;
		if (now >= s->deadline_ms || (!s->running && !s->beside &&
					      !s->nq && now >= expires_at(s))) {
			const char *reason =
				now >= s->deadline_ms
					? "maximum lifetime reached"
					: "idle longer than its TTL";

			log_info("[%s] session %s expired (%s)",
				 s->pl->desc->name, s->name, reason);
			session_audit(m, s, "session_expired", reason);
			session_destroy(s);
		}
	}
}

void session_mgr_shutdown(struct session_mgr *m, void (*done)(void *arg),
			  void *arg)
{
	struct session *s;
	struct agent_client *ac;
	struct error err;
	cJSON *doc = NULL;

	if (m->shutting_down)
		return;
	m->done = done;
	m->done_arg = arg;
	session_save(m); /* the state as it is, before calls are failed */
	m->shutting_down = 1;
	session_adoption_end(m, NULL); /* waiting calls end: shutting down */
	if (!uv_is_closing((uv_handle_t *)&m->expiry))
		uv_close((uv_handle_t *)&m->expiry, NULL);
	session_memory_close(m);
	error_set(&err, ERR_SHUTTING_DOWN, NULL);
	for (s = m->list; s; s = s->next) {
		session_queue_fail(s, &err);
		session_procs_fail(s, ERR_SHUTTING_DOWN,
				   "the server is shutting down");
		s->destroying = 1; /* nothing starts any more */
		session_queue_abort_unsent(s);
		ac = s->ac;
		s->ac = NULL;
		if (ac)
			agent_client_close(ac);
	}
	session_store_close(m->store, doc);
	m->store = NULL;
	if (defer_call(m->loop, check_done_cb, m))
		check_done(m);
}

void session_mgr_free(struct session_mgr *m)
{
	struct session *s, *next;

	if (!m)
		return;
	for (s = m->list; s; s = next) {
		next = s->next;
		history_free(s->history);
		free(s);
	}
	cJSON_Delete(m->unavailable);
	free(m);
}
