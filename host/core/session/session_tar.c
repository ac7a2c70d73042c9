/*
 * session_tar.c - a session's /work as a tar, out of its container or into
 * it (session.h, session_tar_out and session_tar_in): the files of a
 * snapshot (docs/sessions.md, "Snapshots, restore and fork").
 *
 * GNU tar runs in the session's container (every image has it: it is
 * Essential in Debian) through the engine's exec, as the sandbox user,
 * with the container's seccomp profile and capabilities; the archive
 * travels on the exec's hijacked stream, never through a bind mount or
 * the engine's archive API (which cannot see the tmpfs /work on Docker
 * 20.10). It takes the session's place in its queue (a hold: a file
 * operation that stats /work first), so it waits for the call before it
 * and holds up the ones after; like any file operation it may go beside
 * the interpreter's start-up (the agent's sweep at the end of a call
 * leaves alone what the engine started: agent/procs.c). Both directions are
 * flow-controlled: the stream's reading stops while the consumer is behind, and
 * the writer gives no more than the engine takes.
 */
#include "session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

#define LOG_MODULE "sessions"

/* The exit status's question to the engine. */
#define INSPECT_TIMEOUT_MS 10000
/* How much of tar's stderr is kept to say why it failed. */
#define TAR_ERR_MAX 1024

struct session_tar {
	struct session_mgr *m;
	uint64_t serial;
	int in;			   /* unpacking into /work */
	struct session_call *hold; /* NULL once released or ended */
	struct docker *d;
	struct docker_stream *st;
	struct docker_req *inspect;
	session_tar_data_fn data;
	void (*room)(void *arg);
	session_tar_done_cb done;
	void *arg;
	char err[TAR_ERR_MAX + 1];
	size_t err_len;
	int ended;     /* session_tar_end(): all the input is given */
	int failed;    /* the first failure is in why */
	int cancelled; /* the caller gave up: done is not called again */
	struct error why;
};

static void tar_release(struct session_tar *t)
{
	if (t->hold) {
		session_call_release(t->hold);
		t->hold = NULL;
	}
}

/* The end: done once (unless the caller gave up), the hold given back. */
static void tar_finish(struct session_tar *t, const struct error *err)
{
	tar_release(t);
	if (!t->cancelled)
		t->done(err, t->arg);
	free(t);
}

/* The first failure is the one told. */
static void tar_fail(struct session_tar *t, int code, const char *msg)
{
	if (t->failed)
		return;
	t->failed = 1;
	error_set(&t->why, code, "%s", msg);
}

/* An ERR_SANDBOX failure with one detail. */
static void tar_failf(struct session_tar *t, const char *what,
		      const char *detail)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "%s%s", what, detail);
	tar_fail(t, ERR_SANDBOX, msg);
}

static void inspect_cb(const struct docker_response *res, void *arg)
{
	struct session_tar *t = arg;
	cJSON *doc = NULL;
	const cJSON *code;
	struct error err;
	int rc = -1;

	t->inspect = NULL;
	if (!res->err && res->status == 200)
		doc = cJSON_ParseWithLength(res->body, res->body_len);
	code = cJSON_GetObjectItemCaseSensitive(doc, "ExitCode");
	if (cJSON_IsNumber(code))
		rc = code->valueint;
	cJSON_Delete(doc);
	if (t->failed) {
		tar_finish(t, &t->why);
		return;
	}
	/* tar -c: 1 is "a file changed as it was read": what it archived
	 * is whole, the file as it was at some moment. */
	if (rc == 0 || (rc == 1 && !t->in)) {
		tar_finish(t, NULL);
		return;
	}
	while (t->err_len && (t->err[t->err_len - 1] == '\n'))
		t->err[--t->err_len] = '\0';
	if (rc < 0)
		error_set(&err, ERR_SANDBOX,
			  "tar in the session's container: its exit status "
			  "is unknown (%s)",
			  res->errmsg ? res->errmsg : "no answer");
	else
		error_set(&err,
			  strstr(t->err, "No space left") ? ERR_NO_SPACE
							  : ERR_SANDBOX,
			  "tar in the session's container failed (status "
			  "%d): %s",
			  rc, t->err_len ? t->err : "no message");
	tar_finish(t, &err);
}

static void on_open(struct docker_stream *st, int err, const char *msg,
		    void *arg)
{
	struct session_tar *t = arg;

	(void)st;
	if (err)
		tar_failf(t, "cannot run tar in the session's container: ",
			  msg ? msg : "the engine refused");
	else if (t->in && t->room)
		t->room(t->arg);
}

static void on_data(struct docker_stream *st, int fd, const char *buf,
		    size_t len, void *arg)
{
	struct session_tar *t = arg;
	size_t n;

	if (fd == 2 || t->in) {
		n = len < TAR_ERR_MAX - t->err_len ? len
						   : TAR_ERR_MAX - t->err_len;
		memcpy(t->err + t->err_len, buf, n);
		t->err_len += n;
		t->err[t->err_len] = '\0';
		return;
	}
	if (t->failed || t->cancelled)
		return;
	if (t->data(buf, len, t->arg)) {
		tar_fail(t, ERR_CANCELLED, "the archive was refused");
		docker_stream_close(st);
	}
}

static void on_sent(struct docker_stream *st, void *arg)
{
	struct session_tar *t = arg;

	(void)st;
	if (t->room && !t->ended && !t->failed && !t->cancelled)
		t->room(t->arg);
}

static void on_close(struct docker_stream *st, int err, void *arg)
{
	struct session_tar *t = arg;
	const char *id = docker_stream_exec_id(st);
	char path[128];

	t->st = NULL;
	if (err && !t->failed)
		tar_failf(t, "the stream of tar broke: ", strerror(-err));
	if (!id || t->failed) {
		if (!t->failed)
			tar_fail(t, ERR_SANDBOX,
				 "tar did not start in the session's "
				 "container");
		tar_finish(t, &t->why);
		return;
	}
	snprintf(path, sizeof(path), "/exec/%s/json", id);
	if (docker_request_start(t->d, "GET", path, NULL, INSPECT_TIMEOUT_MS,
				 inspect_cb, t, &t->inspect)) {
		tar_fail(t, ERR_SANDBOX, "out of memory");
		tar_finish(t, &t->why);
	}
}

static const struct docker_stream_cbs tar_cbs = {
	.on_open = on_open,
	.on_data = on_data,
	.on_close = on_close,
};

/* The session's turn (or its end: held 0). */
static void hold_cb(const struct error *err, const struct ap_file_done *res,
		    int held, void *arg)
{
	static const char *const out_argv[] = {
		"tar", "-c", "--sort=name", "-f", "-", "-C", "/work", ".", NULL,
	};
	static const char *const in_argv[] = {
		"tar", "-x", "-p", "-f", "-", "-C", "/work", NULL,
	};
	struct session_tar *t = arg;
	struct session *s = session_by_serial(t->m, t->serial);
	int rc;

	(void)res;
	if (!held) {
		/* The session went (or the server stops): an exec running
		 * goes with its container. */
		t->hold = NULL;
		tar_fail(t, err ? err->code : ERR_SESSION_DESTROYED,
			 err ? err->msg : "the session went");
		if (t->st)
			docker_stream_close(t->st);
		else if (!t->inspect)
			tar_finish(t, &t->why);
		return;
	}
	if (t->st || t->inspect || !s) /* not expected: one stat only */
		return;
	if (t->cancelled) {
		tar_finish(t, NULL);
		return;
	}
	t->d = engine_docker(s->eng);
	rc = docker_exec_attach(
		t->d, s->id, (const char *const *)(t->in ? in_argv : out_argv),
		"1000:1000", &tar_cbs, t, &t->st);
	if (rc) {
		tar_failf(t, "cannot run tar: ", strerror(-rc));
		tar_finish(t, &t->why);
		return;
	}
	if (t->in)
		docker_stream_on_sent(t->st, on_sent);
}

static int tar_start(struct session *s, int in, session_tar_data_fn data,
		     void (*room)(void *arg), session_tar_done_cb done,
		     void *arg, struct session_tar **out, struct error *err)
{
	struct session_tar *t = calloc(1, sizeof(*t));
	struct ap_file stat = {
		.op = AP_FOP_STAT,
		.path = ".",
		.path_len = 1,
	};

	if (!t)
		return error_set(err, ERR_SANDBOX, "out of memory");
	*t = (struct session_tar){
		.m = s->m,
		.serial = s->serial,
		.in = in,
		.data = data,
		.room = room,
		.done = done,
		.arg = arg,
	};
	if (session_file_hold(s, &stat, hold_cb, t, &t->hold, err)) {
		free(t);
		return err->code;
	}
	*out = t;
	return 0;
}

int session_tar_out(struct session *s, session_tar_data_fn data,
		    session_tar_done_cb done, void *arg,
		    struct session_tar **out, struct error *err)
{
	return tar_start(s, 0, data, NULL, done, arg, out, err);
}

int session_tar_in(struct session *s, void (*room)(void *arg),
		   session_tar_done_cb done, void *arg,
		   struct session_tar **out, struct error *err)
{
	return tar_start(s, 1, NULL, room, done, arg, out, err);
}

void session_tar_pause(struct session_tar *t, int paused)
{
	if (t->st)
		docker_stream_pause(t->st, paused);
}

int session_tar_write(struct session_tar *t, const void *p, size_t n)
{
	if (!t->st || t->failed)
		return -EPIPE;
	return docker_stream_write(t->st, p, n);
}

size_t session_tar_queued(const struct session_tar *t)
{
	return t->st ? docker_stream_queued(t->st) : 0;
}

int session_tar_ready(const struct session_tar *t)
{
	return t->st != NULL;
}

void session_tar_end(struct session_tar *t)
{
	t->ended = 1;
	if (t->st)
		docker_stream_close_write(t->st);
}

void session_tar_cancel(struct session_tar *t)
{
	t->cancelled = 1;
	tar_fail(t, ERR_CANCELLED, "cancelled");
	if (t->st) {
		docker_stream_close(t->st);
		return;
	}
	if (t->inspect) {
		docker_req_cancel(t->inspect);
		t->inspect = NULL;
		tar_finish(t, NULL);
		return;
	}
	if (t->hold && !t->hold->idle) {
		/* Still queued or stating: hold_cb ends it. */
		session_call_cancel(t->hold);
		return;
	}
	tar_finish(t, NULL);
}
