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

#include "../util/log.h"

#define LOG_MODULE "sessions"

static void call_free(struct session_call *c)
{
	free(c->code);
	free(c->stdin_data);
	free(c);
}

static void fail_call(struct session_call *c, const struct error *err)
{
	struct exec_outcome o;

	memset(&o, 0, sizeof(o));
	o.error = err;
	o.language = c->s->pl->desc->name;
	if (c->cb)
		c->cb(&o, c->arg);
	call_free(c);
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

static void call_done_cb(const struct exec_outcome *o, void *arg)
{
	struct session_call *c = arg;
	struct session *s = c->s;
	struct exec_outcome mine = *o;
	struct error why;
	int lost = o->lost;

	s->running = NULL;
	s->last_used_ms = session_now_ms();
	if (c->cb)
		s->executions++;
	if (!c->cb && (o->error || !o->exited || o->exit_code != 0))
		log_warn("[%s] session %s: the interpreter did not start: "
			 "%s%.*s",
			 s->pl->desc->name, s->name,
			 o->error ? o->error->msg : "",
			 (int)(o->err_len > 300 ? 300 : o->err_len),
			 o->err ? o->err : "");
	if (s->m->shutting_down) {
		/* the executor's ERR_SHUTTING_DOWN stands */
	} else if (s->destroying && o->error) {
		mine.error = &why;
		error_set(&why, ERR_SESSION_DESTROYED,
			  "the session was destroyed while the call ran");
	} else if (lost) {
		mine.error = &why;
		error_set(&why, ERR_SESSION_LOST,
			  "the session's container stopped answering; the "
			  "session was removed");
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
		session_save(s->m);
		session_queue_next(s);
	}
}

static void call_output_cb(const char *out, size_t out_len, const char *err,
			   size_t err_len, void *arg)
{
	struct session_call *c = arg;

	if (c->req.output_cb && c->cb)
		c->req.output_cb(out, out_len, err, err_len, c->arg);
}

void session_queue_next(struct session *s)
{
	struct session_mgr *m = s->m;
	struct session_call *c;
	struct exec_request req;
	struct error err;

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
	req.grace_ms = s->pl->policy.interrupt_grace_ms;
	if (req.output_cb)
		req.output_cb = call_output_cb;
	if (exec_start(m->loop, m->pool, &req, call_done_cb, c, &c->job)) {
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
		n += c->cb != NULL;
	return n;
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
	if (s->paused)
		return error_set(err, ERR_SESSION_PAUSED,
				 "session '%s' is paused; resume it first "
				 "(sandbox_session action \"resume\")",
				 s->name);
	if (((s->running && s->running->cb) || s->nq) &&
	    user_calls_waiting(s) >= s->m->cfg->session_max_queued)
		return error_set(err, ERR_SESSION_BUSY,
				 "session '%s' is running a call and %u more "
				 "are waiting (the limit); try again when it "
				 "is done",
				 s->name, user_calls_waiting(s));
	c = call_new(s, req);
	if (!c)
		return error_set(err, ERR_SANDBOX, "out of memory");
	c->cb = cb;
	c->arg = arg;
	*out = c;
	enqueue(s, c);
	return 0;
}

void session_call_cancel(struct session_call *c)
{
	struct session *s = c->s;
	struct session_call **pp, *prev = NULL;
	struct error err;

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
void session_queue_interpreter(struct session *s)
{
	struct exec_request req;
	struct session_call *c;

	if (!s->pl->desc->session_cmd)
		return;
	memset(&req, 0, sizeof(req));
	req.pl = s->pl;
	req.code = "";
	req.timeout_ms = s->pl->policy.start_timeout_ms;
	c = call_new(s, &req);
	if (c)
		enqueue(s, c);
}
