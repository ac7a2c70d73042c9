/*
 * fake_agent.c - the fake sandbox agent the unit tests share: agent
 * protocol frames in from the host's stdin bytes, scripted answers out as
 * stdout frames of the attach stream; see fake_agent.h.
 */
#include "fake_agent.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_ops.h"

struct fake_agent {
	struct fake_docker_conn *conn; /* NULL once closing */
	struct fake_agent_script *script;
	char name[80];
	struct ap_reader rd;
	struct ap_buf enc; /* one frame being encoded */
	unsigned char *out;
	size_t out_len, out_cap;
	uint32_t last_id;
	struct fake_agent_counts counts;
	struct fake_exec_seen last;
	int exec_pending; /* an AP_EXEC is unanswered (held or silent) */
	unsigned held;	  /* hold serial, 0: none */
	uint32_t held_id;
	struct fake_exec_reply held_reply;
};

static void fake_oom(void)
{
	fprintf(stderr, "fake_agent: out of memory\n");
	exit(1);
}

void fake_agent_script_init(struct fake_agent_script *s)
{
	memset(s, 0, sizeof(*s));
}

int fake_agent_script_push(struct fake_agent_script *s,
			   const struct fake_exec_reply *r)
{
	if (s->queue_len == FAKE_AGENT_QUEUE_MAX)
		return -ENOBUFS;
	s->queue[(s->queue_head + s->queue_len) % FAKE_AGENT_QUEUE_MAX] = *r;
	s->queue_len++;
	return 0;
}

static struct fake_exec_reply script_next(struct fake_agent_script *s)
{
	struct fake_exec_reply r;

	if (!s->queue_len)
		return s->exec;
	r = s->queue[s->queue_head];
	s->queue_head = (s->queue_head + 1) % FAKE_AGENT_QUEUE_MAX;
	s->queue_len--;
	return r;
}

struct fake_agent *fake_agent_new(struct fake_docker_conn *c,
				  struct fake_agent_script *s, const char *name)
{
	struct fake_agent *a = calloc(1, sizeof(*a));

	if (!a)
		fake_oom();
	a->conn = c;
	a->script = s;
	snprintf(a->name, sizeof(a->name), "%s", name);
	ap_reader_init(&a->rd);
	ap_buf_init(&a->enc);
	fake_docker_conn_set_data(c, a);
	return a;
}

void fake_agent_detach(struct fake_agent *a)
{
	if (a && a->conn) {
		fake_docker_conn_set_data(a->conn, NULL);
		a->conn = NULL;
	}
}

void fake_agent_free(struct fake_agent *a)
{
	if (!a)
		return;
	fake_agent_detach(a);
	ap_reader_close(&a->rd);
	ap_buf_close(&a->enc);
	free(a->out);
	free(a);
}

const char *fake_agent_name(const struct fake_agent *a)
{
	return a->name;
}

struct fake_docker_conn *fake_agent_conn(const struct fake_agent *a)
{
	return a->conn;
}

const struct fake_agent_counts *fake_agent_counts(const struct fake_agent *a)
{
	return &a->counts;
}

const struct fake_exec_seen *fake_agent_last_exec(const struct fake_agent *a)
{
	return &a->last;
}

uint32_t fake_agent_last_id(const struct fake_agent *a)
{
	return a->last_id;
}

unsigned fake_agent_holding(const struct fake_agent *a)
{
	return a->held;
}

void fake_agent_hang_up(struct fake_agent *a)
{
	struct fake_docker_conn *c = a->conn;

	a->out_len = 0;
	fake_agent_detach(a);
	if (c)
		fake_docker_close_conn(c);
}

/* ---- sending ---- */

void fake_agent_reply_raw(struct fake_agent *a, const void *data, size_t len)
{
	if (a->out_len + len > a->out_cap) {
		size_t cap = a->out_cap ? a->out_cap : 4096;

		while (cap < a->out_len + len)
			cap *= 2;
		a->out = realloc(a->out, cap);
		if (!a->out)
			fake_oom();
		a->out_cap = cap;
	}
	memcpy(a->out + a->out_len, data, len);
	a->out_len += len;
}

/* Moves the frame just encoded (rc 0) into what goes out next. */
static void take_encoded(struct fake_agent *a, int rc, const char *what)
{
	if (rc) {
		fprintf(stderr, "fake_agent %s: cannot encode %s: %d\n",
			a->name, what, rc);
		exit(1);
	}
	fake_agent_reply_raw(a, a->enc.data, a->enc.len);
	ap_buf_consume(&a->enc, a->enc.len);
}

void fake_agent_flush(struct fake_agent *a)
{
	if (a->out_len && a->conn)
		fake_docker_write_frame(a->conn, 1, a->out, a->out_len);
	a->out_len = 0;
}

void fake_agent_reply_hello_ok(struct fake_agent *a, uint32_t id)
{
	const struct ap_hello_ok m = {
		.version = AP_VERSION, .workdir = "/work", .workdir_len = 5};

	take_encoded(a, ap_hello_ok_encode(&a->enc, id, &m), "HELLO_OK");
}

static size_t len_or_strlen(const char *s, size_t len)
{
	return s && !len ? strlen(s) : len;
}

void fake_agent_reply_exec_done(struct fake_agent *a, uint32_t id,
				const struct fake_exec_reply *r)
{
	const char *phase = r->phase ? r->phase : "run";
	const struct ap_exec_done m = {
		.has_exit_code = r->signal == 0,
		.exit_code = (uint32_t)r->exit_code,
		.has_signal = r->signal != 0,
		.signal = (uint32_t)r->signal,
		.timed_out = (uint8_t)r->timed_out,
		.cancelled = (uint8_t)r->cancelled,
		.duration_ms = r->duration_ms,
		.out = (const unsigned char *)r->out,
		.out_len = len_or_strlen(r->out, r->out_len),
		.err = (const unsigned char *)r->err,
		.err_len = len_or_strlen(r->err, r->err_len),
		.out_truncated = (uint8_t)r->out_truncated,
		.err_truncated = (uint8_t)r->err_truncated,
		.phase = phase,
		.phase_len = strlen(phase),
		.survivors = r->survivors,
	};

	take_encoded(a, ap_exec_done_encode(&a->enc, id, &m), "EXEC_DONE");
}

void fake_agent_reply_output(struct fake_agent *a, uint32_t id, const char *out)
{
	const struct ap_output m = {.out = (const unsigned char *)out,
				    .out_len = strlen(out)};

	take_encoded(a, ap_output_encode(&a->enc, id, &m), "OUTPUT");
}

void fake_agent_reply_reset_done(struct fake_agent *a, uint32_t id, int ok,
				 const char *message)
{
	const struct ap_reset_done m = {
		.ok = (uint8_t)ok,
		.message = message,
		.message_len = message ? strlen(message) : 0,
	};

	take_encoded(a, ap_reset_done_encode(&a->enc, id, &m), "RESET_DONE");
}

void fake_agent_reply_error(struct fake_agent *a, uint32_t id,
			    const char *message)
{
	const struct ap_error m = {.message = message,
				   .message_len = strlen(message)};

	take_encoded(a, ap_error_encode(&a->enc, id, &m), "ERROR");
}

/* ---- the script ---- */

static void bad_frame(struct fake_agent *a, const struct ap_frame *f,
		      const char *why)
{
	fprintf(stderr,
		"fake_agent %s: the host sent frame type 0x%02x id %u: %s\n",
		a->name, f->type, f->id, why);
	a->counts.bad++;
	a->script->total.bad++;
}

static unsigned count_vec(const char *const *v)
{
	unsigned n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Decodes and records an AP_EXEC; returns 0, or -1 (answered with
 * AP_ERROR as the real agent does) when it does not decode. */
static int record_exec(struct fake_agent *a, const struct ap_frame *f)
{
	struct fake_agent_script *s = a->script;
	struct fake_exec_seen *e = &a->last;
	struct ap_exec m;
	struct error why;
	size_t n;

	if (ap_exec_decode(f, &m, &why)) {
		bad_frame(a, f, why.msg);
		fake_agent_reply_error(a, f->id, why.msg);
		return -1;
	}
	memset(e, 0, sizeof(*e));
	e->id = f->id;
	snprintf(e->agent, sizeof(e->agent), "%s", a->name);
	if (m.file_name)
		snprintf(e->file_name, sizeof(e->file_name), "%s", m.file_name);
	e->code_len = m.file_data ? m.file_len : 0;
	n = e->code_len < sizeof(e->code) - 1 ? e->code_len
					      : sizeof(e->code) - 1;
	if (n)
		memcpy(e->code, m.file_data, n);
	e->has_stdin = m.stdin_data != NULL;
	e->stdin_len = m.stdin_data ? m.stdin_len : 0;
	e->nbuild = count_vec(m.build_argv);
	e->nrun = count_vec(m.run_argv);
	e->nenv = count_vec(m.env);
	e->nrepl = count_vec(m.repl_argv);
	e->timeout_ms = m.timeout_ms;
	e->stdout_cap = m.stdout_cap;
	e->stderr_cap = m.stderr_cap;
	e->grace_ms = m.grace_ms;
	e->stream_ms = m.stream_ms;
	ap_exec_free(&m);
	if (s->nseen < FAKE_AGENT_SEEN_MAX)
		s->seen[s->nseen] = *e;
	s->nseen++;
	return 0;
}

static void answer_exec(struct fake_agent *a, uint32_t id,
			const struct fake_exec_reply *r)
{
	if (r->output)
		fake_agent_reply_output(a, id, r->output);
	fake_agent_reply_exec_done(a, id, r);
}

static void script_exec(struct fake_agent *a, const struct ap_frame *f)
{
	struct fake_exec_reply r = script_next(a->script);

	switch (r.how) {
	case FAKE_EXEC_ANSWER:
		answer_exec(a, f->id, &r);
		break;
	case FAKE_EXEC_HOLD:
		if (r.output)
			fake_agent_reply_output(a, f->id, r.output);
		r.output = NULL;
		a->exec_pending = 1;
		a->held = ++a->script->holds;
		a->held_id = f->id;
		a->held_reply = r;
		break;
	case FAKE_EXEC_SILENT:
		a->exec_pending = 1;
		break;
	case FAKE_EXEC_ERROR:
		fake_agent_reply_error(a, f->id,
				       r.error ? r.error : "scripted error");
		break;
	case FAKE_EXEC_HANG_UP:
		fake_agent_hang_up(a);
		break;
	}
}

int fake_agent_release(struct fake_agent *a)
{
	if (!a->held)
		return -ENOENT;
	a->held = 0;
	a->exec_pending = 0;
	answer_exec(a, a->held_id, &a->held_reply);
	fake_agent_flush(a);
	return 0;
}

static void script_cancel(struct fake_agent *a, const struct ap_frame *f)
{
	struct fake_exec_reply r;

	if (!a->held || f->id != a->held_id)
		return; /* nothing to stop, or a silent agent */
	r = a->held_reply;
	r.signal = SIGKILL;
	r.cancelled = 1;
	a->held = 0;
	a->exec_pending = 0;
	answer_exec(a, f->id, &r);
}

static void on_frame(struct fake_agent *a, const struct ap_frame *f)
{
	struct fake_agent_script *s = a->script;
	int decoded = 1;

	a->last_id = f->id;
	switch (f->type) {
	case AP_HELLO:
		a->counts.hello++;
		s->total.hello++;
		break;
	case AP_EXEC:
		a->counts.exec++;
		s->total.exec++;
		if (a->exec_pending)
			bad_frame(a, f, "AP_EXEC while one is running");
		decoded = record_exec(a, f) == 0;
		break;
	case AP_CANCEL:
		a->counts.cancel++;
		s->total.cancel++;
		break;
	case AP_RESET:
		a->counts.reset++;
		s->total.reset++;
		if (a->exec_pending)
			bad_frame(a, f, "AP_RESET while an AP_EXEC runs");
		break;
	case AP_KEEP:
		/* No reply; nothing for the fake to keep (its connection is
		 * the test's). */
		a->counts.keep++;
		s->total.keep++;
		return;
	default:
		bad_frame(a, f, "not a request");
		return;
	}
	if (!decoded || (s->on_frame && s->on_frame(a, f, s->arg)))
		return;
	switch (f->type) {
	case AP_HELLO:
		if (s->hello == FAKE_HELLO_OK)
			fake_agent_reply_hello_ok(a, f->id);
		else if (s->hello == FAKE_HELLO_HANG_UP)
			fake_agent_hang_up(a);
		break;
	case AP_EXEC:
		script_exec(a, f);
		break;
	case AP_CANCEL:
		script_cancel(a, f);
		break;
	case AP_RESET:
		if (!s->reset_silent)
			fake_agent_reply_reset_done(
				a, f->id, !s->reset_fails,
				s->reset_fails ? s->reset_message : NULL);
		break;
	}
}

void fake_agent_feed(struct fake_agent *a, const char *data, size_t len)
{
	struct ap_frame f;
	int rc;

	if (!a->conn)
		return;
	if (ap_reader_feed(&a->rd, data, len)) {
		fprintf(stderr, "fake_agent %s: the host sent over a frame\n",
			a->name);
		a->counts.bad++;
		a->script->total.bad++;
		fake_agent_hang_up(a);
		return;
	}
	while (a->conn && (rc = ap_reader_next(&a->rd, &f)) != 0) {
		if (rc < 0) {
			fprintf(stderr, "fake_agent %s: corrupt stream\n",
				a->name);
			a->counts.bad++;
			a->script->total.bad++;
			fake_agent_hang_up(a);
			return;
		}
		on_frame(a, &f);
		fake_agent_flush(a);
	}
}
