/*
 * session_queue.c - a session's calls: one at a time, in order, through
 * the executor on the session's own agent connection (session.h). The
 * interpreter's start-up is queued like a call but is nobody's (cb NULL).
 */
#include "session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engines/pool.h"
#include "core/packages/install.h"
#include "util/log.h"

#define LOG_MODULE "sessions"

static void call_free(struct session_call *c)
{
	if (c->warm_hold)
		pool_hold_warm(c->warm_hold, -1);
	free(c->code);
	free(c->stdin_data);
	free(c->files);
	free(c->fmem);
	free(c);
}

static void fail_call(struct session_call *c, const struct error *err)
{
	struct exec_outcome o;

	if (c->hcb) {
		c->hcb(err, NULL, 0, c->arg);
		call_free(c);
		return;
	}
	if (c->fcb) {
		c->fcb(err, NULL, c->arg);
		call_free(c);
		return;
	}
	memset(&o, 0, sizeof(o));
	o.language = c->s->pl->desc->name;
	if (c->cb)
		c->cb(err, &o, c->arg);
	call_free(c);
}

void session_queue_abort_unsent(struct session *s)
{
	struct session_call *c = s->running;
	struct error err;

	if (c && !session_call_is_file(c))
		exec_abort_unsent(c->job);
	/* A hold between two operations has nothing at the agent to settle
	 * it: it ends here, for the reason the connection goes. */
	if (!(c && c->hcb && c->idle))
		c = s->beside;
	if (c && c->hcb && c->idle) {
		if (c == s->beside)
			s->beside = NULL;
		else
			s->running = NULL;
		if (s->m->shutting_down)
			error_set(&err, ERR_SHUTTING_DOWN, NULL);
		else if (s->destroying)
			error_set(&err, ERR_SESSION_DESTROYED,
				  "the session was destroyed while the call "
				  "ran");
		else
			error_set(&err, ERR_SESSION_LOST,
				  "the connection to the session's container "
				  "was lost during the call");
		fail_call(c, &err);
	}
}

void session_queue_fail(struct session *s, const struct error *err)
{
	struct session_call *c;

	while ((c = s->q_head)) {
		s->q_head = c->next;
		if (!s->q_head)
			s->q_tail = NULL;
		s->nq--;
		fail_call(c, err);
	}
}

static void call_done_cb(const struct error *err, const struct exec_outcome *o,
			 void *arg)
{
	struct session_call *c = arg;
	struct session *s = c->s;
	struct error why;
	int lost = o->lost;

	s->running = NULL;
	s->last_used_ms = session_now_ms();
	if (c->cb)
		s->executions++;
	if (!c->cb && (err || !o->exited || o->exit_code != 0))
		log_warn("[%s] session %s: the interpreter did not start: "
			 "%s%.*s",
			 s->pl->desc->name, s->name, err ? err->msg : "",
			 (int)(o->err_len > 300 ? 300 : o->err_len),
			 o->err ? o->err : "");
	else if (!c->cb)
		log_info("[%s] session %s: interpreter ready in %u ms",
			 s->pl->desc->name, s->name, o->duration_ms);
	if (s->m->shutting_down) {
		/* the executor's ERR_SHUTTING_DOWN stands */
	} else if (s->destroying && (err || lost)) {
		err = &why;
		error_set(&why, ERR_SESSION_DESTROYED,
			  "the session was destroyed while the call ran");
	} else if (lost) {
		err = &why;
		error_set(&why, ERR_SESSION_LOST,
			  "the connection to the session's container was "
			  "lost during the call; the session reconnects, or "
			  "is reported lost if its container is gone");
	}
	/* A call that ran is a cell of the session's history. */
	if (c->cb && !err && s->history &&
	    history_add(s->history, c->req.code, c->req.code_len, o,
			session_now_ms()))
		log_warn("[%s] session %s: out of memory: a call is not in "
			 "its history",
			 s->pl->desc->name, s->name);
	if (c->cb)
		c->cb(err, o, c->arg);
	call_free(c);
	/* A lost connection: the agent_client's lost callback reconnects
	 * (session_adopt.c); the queue goes on once it has. */
	if (!s->destroying) {
		session_save(s->m);
		session_queue_next(s);
	}
}

int session_pkg_env(const struct session *s, char **env)
{
	char *paths = install_paths(s->pl, s->pkg_keys, s->npkg, ':');
	int n = paths ? install_run_env(s->pl, paths, env,
					EXEC_MAX_EXTRA_ENV + 1)
		      : -ENOMEM;

	free(paths);
	return n < 0 ? n : 0;
}

static void call_output_cb(const char *out, size_t out_len, const char *err,
			   size_t err_len, void *arg)
{
	struct session_call *c = arg;

	if (c->req.output_cb && c->cb)
		c->req.output_cb(out, out_len, err, err_len, c->arg);
}

static void file_done_cb(struct agent_client *ac, const struct error *err,
			 const struct ap_file_done *res, void *arg)
{
	struct session_call *c = arg;
	struct session *s = c->s;
	struct error why;
	int lost;

	(void)ac;
	if (s->beside == c)
		s->beside = NULL;
	else
		s->running = NULL;
	s->last_used_ms = session_now_ms();
	/* The operation's own failures are ours (ERR_*); an errno is the
	 * connection's. */
	lost = err && !error_is_ours(err->code) && !s->m->shutting_down &&
	       !s->destroying;
	if (err && s->destroying && !s->m->shutting_down) {
		error_set(&why, ERR_SESSION_DESTROYED,
			  "the session was destroyed while the call ran");
		err = &why;
	} else if (lost) {
		error_set(&why, ERR_SESSION_LOST,
			  "the connection to the session's container was "
			  "lost during the call; the session reconnects, or "
			  "is reported lost if its container is gone");
		err = &why;
	}
	/* A hold's own failure (or success) keeps it: the holder goes on
	 * or releases. */
	if (c->hcb && !lost && !s->destroying && !s->m->shutting_down) {
		if (c->beside)
			s->beside = c;
		else
			s->running = c;
		c->idle = 1;
		c->hcb(err, res, 1, c->arg);
		return;
	}
	if (c->hcb)
		c->hcb(err, res, 0, c->arg);
	else
		c->fcb(err, res, c->arg);
	call_free(c);
	if (lost) {
		log_error("[%s] session %s lost its container",
			  s->pl->desc->name, s->name);
		session_destroy(s);
		return;
	}
	if (!s->destroying)
		session_queue_next(s);
}

static void start_file(struct session *s, struct session_call *c)
{
	struct error err;
	int rc;

	rc = c->beside ? agent_client_file_beside(s->ac, &c->freq, file_done_cb,
						  c)
		       : agent_client_file(s->ac, &c->freq, file_done_cb, c);
	if (rc) {
		if (c->beside)
			s->beside = NULL;
		else
			s->running = NULL;
		error_set(&err, ERR_SANDBOX,
			  "cannot send the file operation: %s", strerror(-rc));
		fail_call(c, &err);
		session_queue_next(s);
	}
}

void session_queue_next(struct session *s)
{
	struct session_mgr *m = s->m;
	char *env[EXEC_MAX_EXTRA_ENV + 1] = {NULL}, *paths = NULL;
	struct session_call *c;
	struct exec_request req;
	struct error err;
	int rc;

	if (!s->ac && s->engine_down && s->q_head) {
		session_fail_engine_away(s);
		return;
	}
	if (!s->q_head || !s->ac || s->paused || s->destroying ||
	    m->shutting_down || s->beside)
		return;
	/* A file operation at the head goes beside the interpreter's
	 * start-up (nobody's call) when the agent takes one. */
	if (s->running && (session_call_is_users(s->running) ||
			   !session_call_is_file(s->q_head) ||
			   !agent_client_beside_ok(s->ac)))
		return;
	c = s->q_head;
	s->q_head = c->next;
	if (!s->q_head)
		s->q_tail = NULL;
	s->nq--;
	if (s->running) {
		c->beside = 1;
		s->beside = c;
	} else {
		s->running = c;
	}
	if (session_call_is_file(c)) {
		start_file(s, c);
		return;
	}
	req = c->req;
	req.session_ac = s->ac;
	req.session_seq = ++s->seq;
	req.grace_ms = s->pl->policy.interrupt_grace_ms;
	if (req.output_cb)
		req.output_cb = call_output_cb;
	/* The session's packages as they are now: an interpreter adds the
	 * paths its request carries, a program gets them in its
	 * environment. */
	if (s->npkg) {
		const struct sbx_plugin *d = s->pl->desc;

		if (d->session_cmd && d->session_cmd[0]) {
			paths = install_paths(s->pl, s->pkg_keys, s->npkg,
					      '\n');
			req.pkg_paths = paths;
		} else if (session_pkg_env(s, env) == 0) {
			req.extra_env = (const char *const *)env;
		}
	}
	rc = exec_start(m->loop, m->es, &req, call_done_cb, c, &c->job);
	free(paths);
	install_env_free(env);
	if (rc) {
		s->running = NULL;
		error_set(&err, ERR_SANDBOX, "out of memory");
		fail_call(c, &err);
		session_queue_next(s);
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
	if (exec_files_copy(req->files, req->nfiles, &c->files)) {
		call_free(c);
		return NULL;
	}
	c->req.files = c->files;
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
	session_queue_next(s);
}

/* The interpreter's start-up is not a call of the user's: it neither
 * counts as busy nor takes a place in the queue. */
static unsigned user_calls_waiting(const struct session *s)
{
	const struct session_call *c;
	unsigned n = 0;

	for (c = s->q_head; c; c = c->next)
		n += session_call_is_users(c);
	return n;
}

/* What every call must pass before it is queued. */
static int admit(struct session *s, struct error *err)
{
	if (s->paused)
		return error_set(err, ERR_SESSION_PAUSED,
				 "session '%s' is paused; resume it first "
				 "(sandbox_session action \"resume\")",
				 s->name);
	if (((s->running && session_call_is_users(s->running)) || s->nq) &&
	    user_calls_waiting(s) >= s->m->cfg->session_max_queued)
		return error_set(err, ERR_SESSION_BUSY,
				 "session '%s' is running a call and %u more "
				 "are waiting (the limit); try again when it "
				 "is done",
				 s->name, user_calls_waiting(s));
	return 0;
}

int session_exec(struct session *s, const struct exec_request *req,
		 exec_done_cb cb, void *arg, struct session_call **out,
		 struct error *err)
{
	struct session_call *c;

	if (req->pl != s->pl)
		return error_set(err, ERR_LANGUAGE_MISMATCH,
				 "session '%s' runs %s, not %s", s->name,
				 s->pl->desc->name, req->pl->desc->name);
	if (admit(s, err))
		return err->code;
	c = call_new(s, req);
	if (!c)
		return error_set(err, ERR_SANDBOX, "out of memory");
	c->cb = cb;
	c->arg = arg;
	*out = c;
	enqueue(s, c);
	return 0;
}

/* Copies of req's strings and bytes, one allocation: the call may run
 * long after the caller's buffers are gone. */
static char *copy_file_req(const struct ap_file *req, struct ap_file *out)
{
	size_t n = req->path_len + req->path2_len + req->data_len +
		   req->cursor_len + 4;
	char *mem = malloc(n), *p = mem;

	if (!mem)
		return NULL;
	*out = *req;
#define COPY_FIELD(field, len)                                                 \
	if (req->field) {                                                      \
		memcpy(p, req->field, req->len);                               \
		out->field = (void *)p;                                        \
		p += req->len;                                                 \
		*p++ = '\0';                                                   \
	}
	COPY_FIELD(path, path_len)
	COPY_FIELD(path2, path2_len)
	COPY_FIELD(data, data_len)
	COPY_FIELD(cursor, cursor_len)
#undef COPY_FIELD
	return mem;
}

/* A file call, queued: fcb gets its one answer, or hcb (a hold) each. */
static int file_call(struct session *s, const struct ap_file *req,
		     session_file_cb fcb, session_hold_cb hcb, void *arg,
		     struct session_call **out, struct error *err)
{
	struct session_call *c;

	if (admit(s, err))
		return err->code;
	c = calloc(1, sizeof(*c));
	if (c)
		c->fmem = copy_file_req(req, &c->freq);
	if (!c || !c->fmem) {
		free(c);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	c->s = s;
	c->fcb = fcb;
	c->hcb = hcb;
	c->arg = arg;
	*out = c;
	enqueue(s, c);
	return 0;
}

int session_file(struct session *s, const struct ap_file *req,
		 session_file_cb cb, void *arg, struct session_call **out,
		 struct error *err)
{
	return file_call(s, req, cb, NULL, arg, out, err);
}

int session_file_hold(struct session *s, const struct ap_file *req,
		      session_hold_cb cb, void *arg, struct session_call **out,
		      struct error *err)
{
	return file_call(s, req, NULL, cb, arg, out, err);
}

int session_file_next(struct session_call *c, const struct ap_file *req,
		      struct error *err)
{
	struct session *s = c->s;
	int rc;

	if (!s->ac) {
		session_call_release(c);
		return error_set(err, ERR_SESSION_LOST,
				 "the connection to the session's container "
				 "was lost during the call");
	}
	/* Borrowed, not copied: a piece of a large file is not held twice. */
	free(c->fmem);
	c->fmem = NULL;
	c->freq = *req;
	c->idle = 0;
	rc = c->beside ? agent_client_file_beside(s->ac, &c->freq, file_done_cb,
						  c)
		       : agent_client_file(s->ac, &c->freq, file_done_cb, c);
	if (rc) {
		session_call_release(c);
		return error_set(err, ERR_SANDBOX,
				 "cannot send the file operation: %s",
				 strerror(-rc));
	}
	return 0;
}

void session_call_release(struct session_call *c)
{
	struct session *s = c->s;

	if (s->beside == c)
		s->beside = NULL;
	else
		s->running = NULL;
	s->last_used_ms = session_now_ms();
	call_free(c);
	if (!s->destroying)
		session_queue_next(s);
}

void session_call_cancel(struct session_call *c)
{
	struct session *s = c->s;
	struct session_call **pp, *prev = NULL;
	struct error err;

	if (s->running == c || s->beside == c) {
		if (!session_call_is_file(c))
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
		error_set(&err, ERR_CANCELLED,
			  "the call was cancelled before it ran");
		fail_call(c, &err);
		return;
	}
}

/* The interpreter starts in the background right after create, so that the
 * first call does not wait for it (it queues behind it if it comes first).
 * Its start-up may take long (python-ml imports its libraries): the
 * language's start_timeout_ms bounds it. */
void session_queue_interpreter(struct session *s, struct pool *hold)
{
	struct exec_request req;
	struct session_call *c = NULL;

	if (s->pl->desc->session_cmd) {
		memset(&req, 0, sizeof(req));
		req.pl = s->pl;
		req.code = "";
		req.timeout_ms = s->pl->policy.start_timeout_ms;
		c = call_new(s, &req);
	}
	if (!c) {
		if (hold)
			pool_hold_warm(hold, -1);
		return;
	}
	c->warm_hold = hold;
	enqueue(s, c);
}
