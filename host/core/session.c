/*
 * session.c - named sessions (see session.h and docs/sessions.md).
 */
#include "session.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_store.h"
#include "../engine/container.h"
#include "../util/log.h"

#define LOG_MODULE "sessions"
#define EXPIRY_CHECK_MS 1000
/* Generated names: 22 characters of 62, about 131 bits. */
#define GENERATED_NAME_LEN 22

struct session_call {
	struct session *s;
	struct exec_request req; /* code and stdin point at the copies */
	char *code;
	char *stdin_data;
	exec_done_cb cb; /* NULL: the interpreter's start-up */
	void *arg;
	struct exec_job *job; /* while running */
	struct session_call *next;
};

struct session {
	struct session_mgr *m;
	uint64_t serial; /* never reused: async replies find us by it */
	char name[SESSION_NAME_MAX + 1];
	const struct plugin *pl;
	char id[80];		 /* container id */
	struct agent_client *ac; /* NULL while connecting or paused-adopted */
	int connecting;
	int paused;
	int docker_op; /* pause/resume in flight */
	int destroying;
	int64_t created_ms, last_used_ms, deadline_ms;
	uint32_t ttl_s;
	uint64_t executions;
	uint32_t seq;
	struct session_call *running;
	struct session_call *q_head, *q_tail;
	unsigned nq;
	struct session *prev, *next;
};

struct session_mgr {
	uv_loop_t *loop;
	struct docker *d;
	struct pool *pool;
	const struct plugin_set *ps;
	const struct config *cfg;
	struct session_store *store; /* NULL: sessions do not survive us */
	uv_timer_t expiry;	     /* embedded; closed at shutdown */
	struct session *list;
	unsigned n, creating;
	uint64_t next_serial;
	int shutting_down;
	unsigned removals;	 /* DELETEs and renames in flight */
	void (*done)(void *arg); /* shutdown: when removals reach 0 */
	void *done_arg;
};

static void start_next(struct session *s);
static void save_state(struct session_mgr *m);

static int64_t now_ms(void)
{
	uv_timeval64_t tv;

	if (uv_gettimeofday(&tv))
		return 0;
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

int session_valid_name(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= SESSION_NAME_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_-") == n;
}

static int generate_name(char *out)
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

int session_mgr_new(uv_loop_t *loop, struct docker *d, struct pool *pool,
		    const struct plugin_set *ps, const struct config *cfg,
		    struct session_mgr **out)
{
	struct session_mgr *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->loop = loop;
	m->d = d;
	m->pool = pool;
	m->ps = ps;
	m->cfg = cfg;
	m->next_serial = 1;
	uv_timer_init(loop, &m->expiry);
	m->expiry.data = m;
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
	struct session *s = prev ? prev->next : m->list;

	while (s && s->destroying)
		s = s->next;
	return s;
}

static struct session *find_serial(struct session_mgr *m, uint64_t serial)
{
	struct session *s;

	for (s = m->list; s; s = s->next)
		if (s->serial == serial && !s->destroying)
			return s;
	return NULL;
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
	else if (s->connecting || (s->running && !s->running->cb))
		o->state = "starting";
	else if (s->running)
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
}

static struct session *session_alloc(struct session_mgr *m,
				     const struct plugin *pl, const char *name)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->m = m;
	s->serial = m->next_serial++;
	s->pl = pl;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->next = m->list;
	if (m->list)
		m->list->prev = s;
	m->list = s;
	m->n++;
	return s;
}

static void session_unlink_free(struct session *s)
{
	struct session_mgr *m = s->m;

	if (s->prev)
		s->prev->next = s->next;
	else
		m->list = s->next;
	if (s->next)
		s->next->prev = s->prev;
	m->n--;
	free(s);
}

/* ---- persistence ---- */

static void save_state(struct session_mgr *m)
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
		cJSON_AddNumberToObject(e, "created", (double)s->created_ms);
		cJSON_AddNumberToObject(e, "lastUsed", (double)s->last_used_ms);
		cJSON_AddNumberToObject(e, "ttl", s->ttl_s);
		cJSON_AddNumberToObject(e, "executions", (double)s->executions);
		cJSON_AddNumberToObject(e, "seq", s->seq);
		cJSON_AddItemToArray(arr, e);
	}
	session_store_save(m->store, arr);
}

/* ---- calls ---- */

static void call_free(struct session_call *c)
{
	free(c->code);
	free(c->stdin_data);
	free(c);
}

static void fail_call(struct session_call *c, const char *code, const char *msg)
{
	struct exec_outcome o;

	memset(&o, 0, sizeof(o));
	o.error_code = code;
	o.error_message = msg;
	o.language = c->s->pl->desc->name;
	if (c->cb)
		c->cb(&o, c->arg);
	call_free(c);
}

static void fail_queue(struct session *s, const char *code, const char *msg)
{
	struct session_call *c;

	while ((c = s->q_head)) {
		s->q_head = c->next;
		if (!s->q_head)
			s->q_tail = NULL;
		s->nq--;
		fail_call(c, code, msg);
	}
}

static void call_done_cb(const struct exec_outcome *o, void *arg)
{
	struct session_call *c = arg;
	struct session *s = c->s;
	struct exec_outcome mine = *o;
	int lost = o->lost;

	s->running = NULL;
	s->last_used_ms = now_ms();
	if (c->cb)
		s->executions++;
	if (!c->cb && (o->error_code || !o->exited || o->exit_code != 0))
		log_warn("[%s] session %s: the interpreter did not start: "
			 "%s%.*s",
			 s->pl->desc->name, s->name,
			 o->error_message ? o->error_message : "",
			 (int)(o->err_len > 300 ? 300 : o->err_len),
			 o->err ? o->err : "");
	if (s->m->shutting_down) {
		/* the executor's "shutting_down" stands */
	} else if (s->destroying && o->error_code) {
		mine.error_code = "session_destroyed";
		mine.error_message =
			"the session was destroyed while the call ran";
	} else if (lost) {
		mine.error_code = "session_lost";
		mine.error_message = "the session's container stopped "
				     "answering; the session was removed";
	}
	if (c->cb)
		c->cb(&mine, c->arg);
	call_free(c);
	if (lost && !s->destroying) {
		log_error("[%s] session %s lost its container",
			  s->pl->desc->name, s->name);
		session_destroy(s);
		return;
	}
	if (!s->destroying) {
		save_state(s->m);
		start_next(s);
	}
}

static void call_output_cb(const char *out, size_t out_len, const char *err,
			   size_t err_len, void *arg)
{
	struct session_call *c = arg;

	if (c->req.output_cb && c->cb)
		c->req.output_cb(out, out_len, err, err_len, c->arg);
}

static void start_next(struct session *s)
{
	struct session_mgr *m = s->m;
	struct session_call *c;
	struct exec_request req;

	if (s->running || !s->q_head || !s->ac || s->paused || s->destroying ||
	    m->shutting_down)
		return;
	c = s->q_head;
	s->q_head = c->next;
	if (!s->q_head)
		s->q_tail = NULL;
	s->nq--;
	s->running = c;
	req = c->req;
	req.session_ac = s->ac;
	req.session_seq = ++s->seq;
	req.grace_ms = m->cfg->interrupt_grace_ms;
	if (req.output_cb)
		req.output_cb = call_output_cb;
	/* The callback may run before this returns (a policy refusal) and
	 * free c: nothing touches c after the call. */
	if (exec_start(m->loop, m->pool, &req, call_done_cb, c, &c->job)) {
		s->running = NULL;
		fail_call(c, "sandbox_error", "out of memory");
		start_next(s);
	}
}

static struct session_call *call_new(struct session *s,
				     const struct exec_request *req)
{
	struct session_call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	c->req = *req;
	c->code = malloc(req->code_len + 1);
	if (!c->code) {
		free(c);
		return NULL;
	}
	memcpy(c->code, req->code, req->code_len);
	c->code[req->code_len] = '\0';
	c->req.code = c->code;
	if (req->stdin_data) {
		c->stdin_data = malloc(req->stdin_len + 1);
		if (!c->stdin_data) {
			call_free(c);
			return NULL;
		}
		memcpy(c->stdin_data, req->stdin_data, req->stdin_len);
		c->req.stdin_data = c->stdin_data;
	}
	return c;
}

static void enqueue(struct session *s, struct session_call *c)
{
	if (s->q_tail)
		s->q_tail->next = c;
	else
		s->q_head = c;
	s->q_tail = c;
	s->nq++;
	start_next(s);
}

/* The interpreter's start-up is not a call of the user's: it neither
 * counts as busy nor takes a place in the queue. */
static unsigned user_calls_waiting(const struct session *s)
{
	const struct session_call *c;
	unsigned n = 0;

	for (c = s->q_head; c; c = c->next)
		n += c->cb != NULL;
	return n;
}

const char *session_exec(struct session *s, const struct exec_request *req,
			 exec_done_cb cb, void *arg, struct session_call **out,
			 char *msg, size_t msgsize)
{
	struct session_call *c;

	if (req->pl != s->pl) {
		snprintf(msg, msgsize, "session '%s' runs %s, not %s", s->name,
			 s->pl->desc->name, req->pl->desc->name);
		return "language_mismatch";
	}
	if (s->paused) {
		snprintf(msg, msgsize,
			 "session '%s' is paused; resume it first "
			 "(sandbox_session action \"resume\")",
			 s->name);
		return "session_paused";
	}
	if (((s->running && s->running->cb) || s->nq) &&
	    user_calls_waiting(s) >= s->m->cfg->session_max_queued) {
		snprintf(msg, msgsize,
			 "session '%s' is running a call and %u more are "
			 "waiting (the limit); try again when it is done",
			 s->name, user_calls_waiting(s));
		return "session_busy";
	}
	c = call_new(s, req);
	if (!c) {
		snprintf(msg, msgsize, "out of memory");
		return "sandbox_error";
	}
	c->cb = cb;
	c->arg = arg;
	*out = c;
	enqueue(s, c);
	return NULL;
}

void session_call_cancel(struct session_call *c)
{
	struct session *s = c->s;
	struct session_call **pp, *prev = NULL;

	if (s->running == c) {
		exec_cancel(c->job);
		return;
	}
	for (pp = &s->q_head; *pp; prev = *pp, pp = &(*pp)->next) {
		if (*pp != c)
			continue;
		*pp = c->next;
		if (s->q_tail == c)
			s->q_tail = prev;
		s->nq--;
		fail_call(c, "cancelled",
			  "the call was cancelled before it ran");
		return;
	}
}

/* The interpreter starts in the background right after create, so that the
 * first call does not wait for it (it queues behind it if it comes first). */
static void start_interpreter(struct session *s)
{
	struct exec_request req;
	struct session_call *c;

	if (!s->pl->desc->session_cmd)
		return;
	memset(&req, 0, sizeof(req));
	req.pl = s->pl;
	req.code = "";
	/* Python-ML imports its libraries here: give it a minute. */
	req.timeout_ms = s->pl->policy.max_timeout_ms < 60000
				 ? s->pl->policy.max_timeout_ms
				 : 60000;
	c = call_new(s, &req);
	if (c)
		enqueue(s, c);
}

/* ---- connection ---- */

static void lost_cb(struct agent_client *ac, void *arg)
{
	struct session *s = arg;

	(void)ac;
	s->ac = NULL;
	if (s->destroying)
		return;
	log_error("[%s] session %s: the connection to its container was lost; "
		  "session removed",
		  s->pl->desc->name, s->name);
	session_destroy(s);
}

static void reopen_cb(struct agent_client *ac, int err, const char *errmsg,
		      void *arg)
{
	struct session *s = arg;

	s->connecting = 0;
	if (err) {
		if (s->destroying || err == -ECANCELED)
			return;
		log_error("[%s] session %s: cannot reconnect to container "
			  "%.12s: %s; session removed",
			  s->pl->desc->name, s->name, s->id,
			  errmsg ? errmsg : "no answer");
		session_destroy(s);
		return;
	}
	s->ac = ac;
	log_info("[%s] session %s re-adopted (container %.12s)",
		 s->pl->desc->name, s->name, s->id);
	start_next(s);
}

/* Returns 0, or -1 when it failed and s is destroyed (freed). */
static int reconnect(struct session *s)
{
	struct agent_client *ac;

	if (s->ac || s->connecting)
		return 0;
	s->connecting = 1;
	if (agent_client_reopen(s->m->d, s->id, reopen_cb, lost_cb, s, &ac)) {
		s->connecting = 0;
		log_error("[%s] session %s: cannot reconnect",
			  s->pl->desc->name, s->name);
		session_destroy(s);
		return -1;
	}
	return 0;
}

/* ---- create / destroy ---- */

struct create_op {
	struct session_mgr *m;
	uint64_t serial; /* the session, once it exists */
	const struct plugin *pl;
	char name[SESSION_NAME_MAX + 1];
	uint32_t ttl_s;
	session_cb cb;
	void *arg;
};

static void check_done(struct session_mgr *m);

/* The container carries its session's name: only now does the session
 * survive a restart, so only now is create answered. */
static void renamed_cb(int err, const char *errmsg, const char *id, void *arg)
{
	struct create_op *op = arg;
	struct session_mgr *m = op->m;
	struct session *s = find_serial(m, op->serial);

	(void)id;
	m->removals--;
	if (err && err != -ECANCELED)
		log_warn("naming a session container: %s (the session will not "
			 "survive a restart of the server)",
			 errmsg ? errmsg : "failed");
	if (s)
		op->cb(s, NULL, NULL, op->arg);
	else
		op->cb(NULL,
		       op->m->shutting_down ? "shutting_down" : "session_lost",
		       "the session ended while it was being created", op->arg);
	free(op);
	check_done(m);
}

/* Takes op over. */
static void created(struct create_op *op, struct box *b)
{
	struct session_mgr *m = op->m;
	struct agent_client *ac = NULL;
	char cname[256];
	struct session *s;
	int64_t now = now_ms();

	m->creating--;
	if (session_find(m, op->name)) { /* taken while we waited */
		pool_release(m->pool, b, 0);
		op->cb(NULL, "session_exists",
		       "a session with this name was created meanwhile",
		       op->arg);
		free(op);
		return;
	}
	s = session_alloc(m, op->pl, op->name);
	if (!s || pool_detach(m->pool, b, s->id, sizeof(s->id), &ac)) {
		if (s)
			session_unlink_free(s);
		pool_release(m->pool, b, 1);
		op->cb(NULL, "sandbox_error",
		       "cannot set up the session's container", op->arg);
		free(op);
		return;
	}
	s->ac = ac;
	agent_client_set_owner(ac, lost_cb, s);
	s->created_ms = s->last_used_ms = now;
	s->ttl_s = op->ttl_s;
	s->deadline_ms = now + (int64_t)m->cfg->session_max_lifetime_s * 1000;
	/* The name is how a restarted server (or any server, once the
	 * deadline has passed) recognises the container. */
	snprintf(cname, sizeof(cname),
		 SESSION_CONTAINER_PREFIX "%s.%" PRId64 ".%s.%s",
		 m->store ? session_store_slot(m->store) : "none",
		 s->deadline_ms / 1000, s->pl->desc->name, s->name);
	log_info("[%s] session %s created (container %.12s)", s->pl->desc->name,
		 s->name, s->id);
	start_interpreter(s);
	save_state(m);
	op->serial = s->serial;
	m->removals++; /* shutdown waits for it too */
	if (container_rename(m->d, s->id, cname, renamed_cb, op))
		renamed_cb(-EIO, "cannot reach the engine", s->id, op);
}

static void acquired_cb(struct box *b, int err, const char *errmsg, void *arg)
{
	struct create_op *op = arg;

	if (err) {
		op->m->creating--;
		op->cb(NULL,
		       err == POOL_E_NOIMAGE	? "image_missing"
		       : err == POOL_E_NODOCKER ? "docker_unavailable"
		       : err == -ESHUTDOWN	? "shutting_down"
						: "sandbox_error",
		       errmsg ? errmsg : "no container", op->arg);
		free(op);
		return;
	}
	created(op, b);
}

void session_create(struct session_mgr *m, const struct plugin *pl,
		    const char *name, uint32_t ttl_s, session_cb cb, void *arg)
{
	struct create_op *op;
	struct box *b = NULL;
	char msg[160];
	int rc;

	if (m->shutting_down) {
		cb(NULL, "shutting_down", "the server is shutting down", arg);
		return;
	}
	if (name && !session_valid_name(name)) {
		cb(NULL, "invalid_name",
		   "session names are 1 to 64 characters of A-Z, a-z, 0-9, '_' "
		   "and '-'",
		   arg);
		return;
	}
	if (name && session_find(m, name)) {
		snprintf(msg, sizeof(msg),
			 "a session named '%s' already exists", name);
		cb(NULL, "session_exists", msg, arg);
		return;
	}
	if (m->n + m->creating >= m->cfg->max_sessions) {
		snprintf(msg, sizeof(msg),
			 "%u sessions are open, the limit (max_sessions); "
			 "destroy one first",
			 m->n + m->creating);
		cb(NULL, "max_sessions", msg, arg);
		return;
	}
	if (ttl_s > m->cfg->session_max_ttl_s) {
		snprintf(msg, sizeof(msg),
			 "ttl %u s is above this server's limit of %u s", ttl_s,
			 m->cfg->session_max_ttl_s);
		cb(NULL, "invalid_arguments", msg, arg);
		return;
	}
	op = calloc(1, sizeof(*op));
	if (!op) {
		cb(NULL, "sandbox_error", "out of memory", arg);
		return;
	}
	op->m = m;
	op->pl = pl;
	op->ttl_s = ttl_s ? ttl_s : m->cfg->session_ttl_s;
	op->cb = cb;
	op->arg = arg;
	if (name)
		snprintf(op->name, sizeof(op->name), "%s", name);
	else if (generate_name(op->name)) {
		free(op);
		cb(NULL, "sandbox_error", "no randomness for a session name",
		   arg);
		return;
	}
	m->creating++;
	rc = pool_acquire(m->pool, pl, acquired_cb, op, &b);
	if (rc == 1)
		return;
	if (rc < 0) {
		m->creating--;
		free(op);
		cb(NULL, rc == -ESHUTDOWN ? "shutting_down" : "sandbox_error",
		   "cannot get a container", arg);
		return;
	}
	created(op, b);
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

static void removed_cb(int err, const char *errmsg, const char *id, void *arg)
{
	struct session_mgr *m = arg;

	if (err && err != -ENOENT)
		log_warn("removing session container %.12s: %s", id ? id : "?",
			 errmsg ? errmsg : "failed");
	m->removals--;
	check_done(m);
}

/* The server waits for these at shutdown, so none is cut short. */
static void remove_container(struct session_mgr *m, const char *id)
{
	if (container_remove(m->d, id, removed_cb, m) == 0)
		m->removals++;
}

void session_destroy(struct session *s)
{
	struct session_mgr *m = s->m;
	struct agent_client *ac = s->ac;

	if (s->destroying)
		return;
	s->destroying = 1;
	fail_queue(s, "session_destroyed",
		   "the session was destroyed before the call ran");
	s->ac = NULL;
	/* Settles a running call (call_done_cb: "session_destroyed") and a
	 * reconnection in flight before it returns. */
	if (ac)
		agent_client_close(ac);
	if (s->id[0])
		remove_container(m, s->id);
	log_info("[%s] session %s destroyed", s->pl->desc->name, s->name);
	session_unlink_free(s);
	save_state(m);
}

/* ---- pause, resume, extend, memory ---- */

struct docker_op {
	struct session_mgr *m;
	uint64_t serial;
	int pause;
	session_cb cb;
	void *arg;
};

static void paused_cb(int err, const char *errmsg, const char *id, void *arg)
{
	struct docker_op *op = arg;
	struct session *s = find_serial(op->m, op->serial);

	(void)id;
	if (!s) {
		op->cb(NULL, "session_not_found",
		       "the session was destroyed meanwhile", op->arg);
		free(op);
		return;
	}
	s->docker_op = 0;
	if (err) {
		op->cb(s, "sandbox_error",
		       errmsg ? errmsg : "the engine refused", op->arg);
		free(op);
		return;
	}
	s->paused = op->pause;
	if (!op->pause) {
		s->last_used_ms = now_ms();
		/* adopted while paused: connect now */
		if (reconnect(s)) {
			op->cb(NULL, "session_lost",
			       "the session's container cannot be reached; the "
			       "session was removed",
			       op->arg);
			free(op);
			return;
		}
		start_next(s);
	}
	save_state(s->m);
	op->cb(s, NULL, NULL, op->arg);
	free(op);
}

static void pause_or_resume(struct session *s, int pause, session_cb cb,
			    void *arg)
{
	struct docker_op *op;
	int rc;

	if (s->docker_op) {
		cb(s, "session_busy",
		   "a pause or resume of this session is in progress", arg);
		return;
	}
	if (s->paused == pause) {
		cb(s, NULL, NULL, arg); /* already there */
		return;
	}
	if (pause && (s->running || s->nq)) {
		cb(s, "session_busy",
		   "the session is running a call; pause it when the call is "
		   "done (or cancel the call)",
		   arg);
		return;
	}
	op = calloc(1, sizeof(*op));
	if (!op) {
		cb(s, "sandbox_error", "out of memory", arg);
		return;
	}
	*op = (struct docker_op){.m = s->m,
				 .serial = s->serial,
				 .pause = pause,
				 .cb = cb,
				 .arg = arg};
	rc = pause ? container_pause(s->m->d, s->id, paused_cb, op)
		   : container_unpause(s->m->d, s->id, paused_cb, op);
	if (rc) {
		free(op);
		cb(s, "sandbox_error", "cannot reach the engine", arg);
		return;
	}
	s->docker_op = 1;
}

void session_pause(struct session *s, session_cb cb, void *arg)
{
	pause_or_resume(s, 1, cb, arg);
}

void session_resume(struct session *s, session_cb cb, void *arg)
{
	pause_or_resume(s, 0, cb, arg);
}

const char *session_extend(struct session *s, uint32_t ttl_s, char *msg,
			   size_t msgsize)
{
	if (ttl_s > s->m->cfg->session_max_ttl_s) {
		snprintf(msg, msgsize,
			 "ttl %u s is above this server's limit of %u s", ttl_s,
			 s->m->cfg->session_max_ttl_s);
		return "invalid_arguments";
	}
	if (ttl_s)
		s->ttl_s = ttl_s;
	s->last_used_ms = now_ms();
	save_state(s->m);
	return NULL;
}

struct memory_op {
	session_memory_cb cb;
	void *arg;
};

static void memory_cb(int err, const char *errmsg, uint64_t bytes, void *arg)
{
	struct memory_op *op = arg;

	(void)errmsg;
	op->cb(!err, bytes, op->arg);
	free(op);
}

void session_memory(struct session *s, session_memory_cb cb, void *arg)
{
	struct memory_op *op = malloc(sizeof(*op));

	if (!op) {
		cb(0, 0, arg);
		return;
	}
	op->cb = cb;
	op->arg = arg;
	if (container_memory(s->m->d, s->id, memory_cb, op)) {
		free(op);
		cb(0, 0, arg);
	}
}

/* ---- expiry ---- */

static void expiry_cb(uv_timer_t *t)
{
	struct session_mgr *m = t->data;
	struct session *s, *next;
	int64_t now = now_ms();

	for (s = m->list; s; s = next) {
		next = s->next;
		if (s->destroying)
			continue;
		if (now >= s->deadline_ms ||
		    (!s->running && !s->nq && now >= expires_at(s))) {
			log_info("[%s] session %s expired (%s)",
				 s->pl->desc->name, s->name,
				 now >= s->deadline_ms
					 ? "maximum lifetime reached"
					 : "idle longer than its TTL");
			session_destroy(s);
		}
	}
}

/* ---- adoption after a restart ---- */

/* "sbx-s.<slot>.<deadline>.<language>.<name>" (Docker adds a '/'). */
static int parse_container_name(const char *n, const char *slot,
				int64_t *deadline_s, char *lang,
				size_t langsize, char *name, size_t namesize)
{
	const char *p, *dot;
	char *end;
	size_t len;

	if (*n == '/')
		n++;
	len = strlen(SESSION_CONTAINER_PREFIX);
	if (strncmp(n, SESSION_CONTAINER_PREFIX, len) != 0)
		return -1;
	p = n + len;
	len = strlen(slot);
	if (strncmp(p, slot, len) != 0 || p[len] != '.')
		return -1;
	p += len + 1;
	*deadline_s = strtoll(p, &end, 10);
	if (end == p || *end != '.')
		return -1;
	p = end + 1;
	dot = strchr(p, '.');
	if (!dot || (size_t)(dot - p) >= langsize)
		return -1;
	memcpy(lang, p, (size_t)(dot - p));
	lang[dot - p] = '\0';
	if (strlen(dot + 1) >= namesize || !session_valid_name(dot + 1))
		return -1;
	snprintf(name, namesize, "%s", dot + 1);
	return 0;
}

static const cJSON *saved_entry(const cJSON *saved, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, saved)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");

		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return e;
	}
	return NULL;
}

static double num(const cJSON *e, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

struct adopt_ctx {
	struct session_mgr *m;
	cJSON *saved;
};

static void adopt_one(struct session_mgr *m, const cJSON *saved, const cJSON *c)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "Id");
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(c, "Names");
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(c, "State");
	const cJSON *e;
	char lang[40], name[SESSION_NAME_MAX + 1];
	const struct plugin *pl;
	struct session *s;
	int64_t deadline_s, now = now_ms();

	if (!cJSON_IsString(id) || !cJSON_IsArray(names) ||
	    !cJSON_IsString(cJSON_GetArrayItem(names, 0)) ||
	    parse_container_name(cJSON_GetArrayItem(names, 0)->valuestring,
				 session_store_slot(m->store), &deadline_s,
				 lang, sizeof(lang), name, sizeof(name)))
		return;
	pl = plugins_find(m->ps, lang);
	if (!pl || !pl->policy.enabled || session_find(m, name) ||
	    deadline_s * 1000 <= now || !cJSON_IsString(state) ||
	    (strcmp(state->valuestring, "running") != 0 &&
	     strcmp(state->valuestring, "paused") != 0) ||
	    m->n >= m->cfg->max_sessions) {
		log_info("removing session container %.12s (%s): expired, "
			 "stopped or not adoptable",
			 id->valuestring, name);
		remove_container(m, id->valuestring);
		return;
	}
	s = session_alloc(m, pl, name);
	if (!s)
		return;
	snprintf(s->id, sizeof(s->id), "%s", id->valuestring);
	e = saved_entry(saved, name);
	s->deadline_ms = deadline_s * 1000;
	s->created_ms = (int64_t)num(e, "created", (double)now);
	s->last_used_ms = (int64_t)num(e, "lastUsed", (double)now);
	s->ttl_s = (uint32_t)num(e, "ttl", m->cfg->session_ttl_s);
	s->executions = (uint64_t)num(e, "executions", 0);
	s->seq = (uint32_t)num(e, "seq", 0);
	s->paused = strcmp(state->valuestring, "paused") == 0;
	if (!s->paused)
		reconnect(s);
	else
		log_info("[%s] session %s re-adopted, paused", pl->desc->name,
			 name);
}

static void adopt_list_cb(int err, const char *errmsg, const char *json,
			  void *arg)
{
	struct adopt_ctx *ctx = arg;
	struct session_mgr *m = ctx->m;
	cJSON *arr, *c;

	if (err) {
		log_warn("cannot list session containers to re-adopt: %s",
			 errmsg ? errmsg : "no answer");
	} else if (!m->shutting_down) {
		arr = cJSON_Parse(json);
		cJSON_ArrayForEach(c, arr) adopt_one(m, ctx->saved, c);
		cJSON_Delete(arr);
		save_state(m);
	}
	cJSON_Delete(ctx->saved);
	free(ctx);
}

void session_mgr_start(struct session_mgr *m)
{
	struct adopt_ctx *ctx;
	char why[512], filters[160];
	int rc;

	uv_timer_start(&m->expiry, expiry_cb, EXPIRY_CHECK_MS, EXPIRY_CHECK_MS);
	uv_unref((uv_handle_t *)&m->expiry);
	rc = session_store_open(m->loop, m->cfg->state_dir, &m->store, why,
				sizeof(why));
	if (rc) {
		log_warn("sessions will not survive a restart: %s", why);
		return;
	}
	log_debug("session state slot %s (%s)", session_store_slot(m->store),
		  session_store_path(m->store));
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return;
	ctx->m = m;
	ctx->saved = session_store_load(m->store);
	snprintf(filters, sizeof(filters),
		 "{\"name\":[\"^/sbx-s\\\\.%s\\\\.\"]}",
		 session_store_slot(m->store));
	if (container_list_filters(m->d, filters, adopt_list_cb, ctx)) {
		cJSON_Delete(ctx->saved);
		free(ctx);
	}
}

void session_mgr_shutdown(struct session_mgr *m, void (*done)(void *arg),
			  void *arg)
{
	struct session *s;
	struct agent_client *ac;
	cJSON *doc = NULL;

	if (m->shutting_down)
		return;
	m->done = done;
	m->done_arg = arg;
	save_state(m); /* the state as it is, before calls are failed */
	m->shutting_down = 1;
	if (!uv_is_closing((uv_handle_t *)&m->expiry))
		uv_close((uv_handle_t *)&m->expiry, NULL);
	for (s = m->list; s; s = s->next) {
		fail_queue(s, "shutting_down", "the server is shutting down");
		ac = s->ac;
		s->ac = NULL;
		s->destroying = 1; /* nothing starts any more */
		if (ac)
			agent_client_close(ac);
	}
	session_store_close(m->store, doc);
	m->store = NULL;
	check_done(m);
}

void session_mgr_free(struct session_mgr *m)
{
	struct session *s, *next;

	if (!m)
		return;
	for (s = m->list; s; s = next) {
		next = s->next;
		free(s);
	}
	free(m);
}
