/*
 * test_docker_fake_daemon.c - the Docker Engine API client (docker.h)
 * against the scripted fake daemon of tests/fakes: version negotiation, the
 * version prefix, keep-alive, -E2BIG, timeouts, daemon error messages,
 * connection errors, DOCKER_HOST parsing, an attach stream whose frames
 * arrive split at every possible place and many to a read, stdin ordering
 * around the handshake, exec create + start (its requests checked),
 * cancellation by docker_stream_close() and docker_free(), and a container
 * removal that the engine had already started (AutoRemove), which is waited
 * for before its callback.
 *
 * The real daemon's half is tests/integration/test_docker_client.c. The run
 * ends with uv_loop_close() == 0: a leaked handle fails the test.
 */
#include <cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "docker/container.h"
#include "docker/docker.h"
#include "fake_docker.h"
#include "util/log.h"

#define HOST(h) (&(struct docker_options){.host = (h)})

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + len + 1)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			fprintf(stderr, "out of memory\n");
			exit(1);
		}
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ================================================================== */
/* The daemon's side                                                  */

static struct fake_docker *fk;

static void fake_die(int line, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void fake_die(int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL (fake daemon, line %d): ", line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fake_docker_unlink(fk);
	exit(1);
}

#define FCHECK(cond, ...)                                                      \
	do {                                                                   \
		if (!(cond))                                                   \
			fake_die(__LINE__, __VA_ARGS__);                       \
	} while (0)

/* What the scripted daemon did and saw. */
static struct {
	uv_timer_t tick;
	struct fake_docker_conn *attach_conn;
	struct buf script; /* frames, written in pieces after the 101 */
	size_t script_off;
	unsigned piece;
	int script_done;
	struct buf stdin_got;
	size_t early_bytes; /* stdin bytes that came with the request */
	struct buf want_out, want_err;
	char last_path[256];
	int exec_created, exec_started;
	/* The cancellation step: requests that must be in flight at the
	 * daemon before docker_free() cancels them. */
	int cancel_armed;
	int hang_get, hang_attach, hang_exec;
} srv;

/* Marks an upgraded exec connection: it echoes stdin until "bye\n". */
static int exec_marker;

static void p1_free_client(void);

static void frame(int fd, const char *data, size_t len)
{
	unsigned char h[8];

	fake_docker_frame_header(h, fd, (uint32_t)len);
	buf_add(&srv.script, h, 8);
	buf_add(&srv.script, data, len);
	buf_add(fd == 1 ? &srv.want_out : &srv.want_err, data, len);
}

static void fake_build_script(void)
{
	static const char head[] = FAKE_DOCKER_UPGRADE_ANSWER;
	char line[64];
	char *big;
	size_t i;

	buf_add(&srv.script, head, sizeof(head) - 1);
	frame(1, "hello ", 6);
	frame(2, "warn\n", 5);
	frame(1, "", 0);
	frame(1, "world\n", 6);
	for (i = 0; i < 50; i++) {
		int n = snprintf(line, sizeof(line), "line %zu\n", i);

		frame(1, line, (size_t)n);
		n = snprintf(line, sizeof(line), "e %zu\n", i);
		frame(2, line, (size_t)n);
	}
	big = malloc(100000);
	FCHECK(big, "oom");
	for (i = 0; i < 100000; i++)
		big[i] = (char)('a' + i % 26);
	frame(2, big, 100000);
	free(big);
	frame(1, "end\n", 4);
}

static void fake_maybe_finish_attach(void)
{
	if (!srv.attach_conn || !srv.script_done ||
	    srv.stdin_got.len < strlen("early\nlate\n"))
		return;
	FCHECK(strcmp(srv.stdin_got.p, "early\nlate\n") == 0,
	       "stdin arrived as '%s'", srv.stdin_got.p);
	fake_docker_close_conn(srv.attach_conn);
}

/* Splits the script so that the 101 header shares a write with the first
 * frame bytes, then dribbles single bytes and odd sizes (one per loop
 * iteration, so the client sees them as separate reads), then sends the
 * rest, dozens of frames, in one write. */
static void fake_tick_cb(uv_timer_t *t)
{
	static const size_t sizes[] = {1, 1, 1, 1, 1, 1, 1, 1, 2, 3, 5, 7, 11};
	size_t n;

	(void)t;
	if (!srv.attach_conn) {
		uv_timer_stop(&srv.tick);
		return;
	}
	if (srv.piece == 0)
		n = (size_t)(strstr(srv.script.p, "\r\n\r\n") + 4 -
			     srv.script.p) +
		    3;
	else if (srv.script_off < 400)
		n = sizes[(srv.piece - 1) % (sizeof(sizes) / sizeof(sizes[0]))];
	else
		n = srv.script.len - srv.script_off;
	srv.piece++;
	fake_docker_write(srv.attach_conn, srv.script.p + srv.script_off, n);
	srv.script_off += n;
	if (srv.script_off == srv.script.len) {
		srv.script_done = 1;
		uv_timer_stop(&srv.tick);
		fake_maybe_finish_attach();
	}
}

/* An exec's stdin: echoed back as stdout frames; "bye\n" ends it. */
static void fake_exec_input(struct fake_docker_conn *c, const char *data,
			    size_t len)
{
	fake_docker_write_frame(c, 1, data, len);
	if (len >= 4 && memcmp(data + len - 4, "bye\n", 4) == 0)
		fake_docker_close_conn(c);
}

static void fake_exec_request(struct fake_docker_conn *c,
			      const struct fake_docker_request *req)
{
	const char *method = req->method, *path = req->path;

	if (strcmp(path, "/v1.44/containers/demo/exec") == 0) {
		static const char id[] = "{\"Id\":\"feedc0de\"}";
		cJSON *j = cJSON_Parse(req->body);
		cJSON *cmd = cJSON_GetObjectItemCaseSensitive(j, "Cmd");
		const cJSON *user = cJSON_GetObjectItemCaseSensitive(j, "User");
		const char *body = req->body;

		FCHECK(strcmp(method, "POST") == 0, "exec create method %s",
		       method);
		FCHECK(strstr(req->head,
			      "\r\nContent-Type: application/json\r\n"),
		       "exec create without a JSON content type");
		FCHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStdin")),
		       "exec create body %s", body);
		FCHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStdout")),
		       "exec create body %s", body);
		FCHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStderr")),
		       "exec create body %s", body);
		FCHECK(cJSON_IsFalse(cJSON_GetObjectItem(j, "Tty")),
		       "exec create body %s", body);
		FCHECK(cJSON_IsString(user) &&
			       strcmp(user->valuestring, "1000:1000") == 0,
		       "exec create user in %s", body);
		FCHECK(cJSON_GetArraySize(cmd) == 3 &&
			       strcmp(cJSON_GetArrayItem(cmd, 2)->valuestring,
				      "a \"quoted\" arg\n") == 0,
		       "exec create argv in %s", body);
		cJSON_Delete(j);
		srv.exec_created++;
		fake_docker_respond(c, 201, id, sizeof(id) - 1);
	} else if (strcmp(path, "/v1.44/containers/missing/exec") == 0) {
		static const char m[] =
			"{\"message\":\"No such container: missing\"}\n";

		fake_docker_respond(c, 404, m, sizeof(m) - 1);
	} else if (strcmp(path, "/v1.44/exec/feedc0de/start") == 0) {
		static const char head[] =
			FAKE_DOCKER_UPGRADE_ANSWER "\2\0\0\0\0\0\0\4err\n";

		FCHECK(strcmp(method, "POST") == 0, "exec start method %s",
		       method);
		FCHECK(strstr(req->head, "\r\nUpgrade: tcp\r\n") &&
			       strstr(req->head, "\r\nConnection: Upgrade\r\n"),
		       "exec start without upgrade headers");
		FCHECK(strcmp(req->body, "{\"Detach\":false,\"Tty\":false}") ==
			       0,
		       "exec start body '%s'", req->body);
		FCHECK(req->extra == 0,
		       "stdin rode with the exec start request");
		srv.exec_started++;
		fake_docker_conn_set_data(c, &exec_marker);
		fake_docker_hijack(c);
		fake_docker_write(c, head, sizeof(head) - 1);
	} else if (strcmp(path, "/v1.44/containers/hang/exec") == 0) {
		srv.hang_exec = 1; /* never answered */
	}
}

static void fake_on_request(struct fake_docker *f, struct fake_docker_conn *c,
			    const struct fake_docker_request *req, void *arg)
{
	const char *path = req->path;

	(void)f;
	(void)arg;
	snprintf(srv.last_path, sizeof(srv.last_path), "%s", path);
	if (strstr(path, "/exec")) {
		fake_exec_request(c, req);
	} else if (strcmp(path, "/version") == 0) {
		static const char v[] =
			"{\"ApiVersion\":\"1.45\",\"Version\":\"x\"}";

		fake_docker_respond(c, 200, v, sizeof(v) - 1);
	} else if (strstr(path, "/echo-path")) {
		fake_docker_respond(c, 200, path, strlen(path));
	} else if (strstr(path, "/big")) {
		size_t n = DOCKER_BODY_MAX + (size_t)1024 * 1024;
		char *b = malloc(n);

		FCHECK(b, "oom");
		memset(b, 'x', n);
		fake_docker_respond(c, 200, b, n);
		free(b);
	} else if (strstr(path, "/containers/nope/json")) {
		static const char m[] =
			"{\"message\":\"No such container: nope\"}\n";

		fake_docker_respond(c, 404, m, sizeof(m) - 1);
	} else if (strstr(path, "/containers/missing/attach")) {
		static const char m[] =
			"{\"message\":\"No such container: missing\"}\n";

		fake_docker_respond(c, 404, m, sizeof(m) - 1);
	} else if (strstr(path, "/containers/demo/attach")) {
		FCHECK(strcmp(req->method, "POST") == 0, "attach method %s",
		       req->method);
		FCHECK(strcmp(path, "/v1.44/containers/demo/attach?stream=1&"
				    "stdin=1&stdout=1&stderr=1") == 0,
		       "attach path %s", path);
		FCHECK(strstr(req->head, "\r\nUpgrade: tcp\r\n") &&
			       strstr(req->head, "\r\nConnection: Upgrade\r\n"),
		       "attach without upgrade headers");
		/* The 101 goes out with the script, in pieces. */
		fake_docker_hijack(c);
		srv.attach_conn = c;
		srv.early_bytes = req->extra;
		uv_timer_start(&srv.tick, fake_tick_cb, 1, 1);
	} else if (strstr(path, "/containers/hang/attach")) {
		srv.hang_attach = 1; /* never answered */
	} else if (strstr(path, "/hang")) {
		srv.hang_get = 1; /* never answered */
	}
	if (srv.cancel_armed && srv.hang_get && srv.hang_attach &&
	    srv.hang_exec) {
		srv.cancel_armed = 0;
		p1_free_client();
	}
}

static void fake_on_stdin(struct fake_docker_conn *c, const char *data,
			  size_t len, void *arg)
{
	(void)arg;
	if (fake_docker_conn_data(c) == &exec_marker) {
		fake_exec_input(c, data, len);
		return;
	}
	buf_add(&srv.stdin_got, data, len);
	fake_maybe_finish_attach();
}

static void fake_on_conn_close(struct fake_docker_conn *c, void *arg)
{
	(void)arg;
	if (srv.attach_conn == c)
		srv.attach_conn = NULL;
}

static void fake_start(uv_loop_t *loop)
{
	static const struct fake_docker_cbs cbs = {
		.on_request = fake_on_request,
		.on_stdin = fake_on_stdin,
		.on_conn_close = fake_on_conn_close,
	};
	int r = fake_docker_start(loop, &cbs, NULL, &fk);

	FCHECK(r == 0, "fake daemon: %s", uv_strerror(r));
	uv_timer_init(loop, &srv.tick);
	fake_build_script();
}

static void fake_stop(void)
{
	fake_docker_stop(fk);
	uv_close((uv_handle_t *)&srv.tick, NULL);
}

/* ================================================================== */
/* The client's side: one step per callback                         */

struct ph1 {
	uv_loop_t *loop;
	struct docker *d;
	struct buf out, err;
	int cancel_cb_ran;
	int hang_open_err, hang_closed;
	int missing_open_err;
	char missing_msg[256];
	int early_open_err, early_close_err;
	int done;
	/* exec streams */
	struct buf xout, xerr;
	int xmissing_open_err;
	char xmissing_msg[256];
	int *xearly, *xhang; /* {on_open err, on_close err} */
};

static struct ph1 p1;

static void p1_cancel(void);
static void p1_attach_demo(void);

static const char *const p1_exec_argv[] = {"sh", "-c", "a \"quoted\" arg\n",
					   NULL};

static void p1_xrecord_open(struct docker_stream *s, int err, const char *msg,
			    void *arg)
{
	int *errs = arg;

	(void)s;
	(void)msg;
	errs[0] = err;
}

static void p1_xrecord_close(struct docker_stream *s, int err, void *arg)
{
	int *errs = arg;

	(void)s;
	errs[1] = err;
}

static void p1_hang_open(struct docker_stream *s, int err, const char *msg,
			 void *arg)
{
	(void)s;
	(void)msg;
	(void)arg;
	p1.hang_open_err = err;
}

static void p1_hang_data(struct docker_stream *s, int fd, const char *b,
			 size_t n, void *arg)
{
	(void)s;
	(void)fd;
	(void)b;
	(void)n;
	(void)arg;
	fake_die(__LINE__, "data on a stream that never opened");
}

static void p1_hang_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(p1.hang_open_err == -ECANCELED, "cancelled attach: on_open %d",
	       p1.hang_open_err);
	FCHECK(err == -ECANCELED, "cancelled attach: on_close %d", err);
	FCHECK(p1.early_open_err == -ECANCELED &&
		       p1.early_close_err == -ECANCELED,
	       "attach closed while connecting: on_open %d, on_close %d",
	       p1.early_open_err, p1.early_close_err);
	p1.hang_closed = 1;
	p1.done = 1;
	fake_stop();
}

static void p1_hang_req_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	FCHECK(res->err == -ECANCELED, "cancelled request: err %d", res->err);
	p1.cancel_cb_ran = 1;
}

static void p1_early_open(struct docker_stream *s, int err, const char *msg,
			  void *arg)
{
	(void)s;
	(void)msg;
	(void)arg;
	p1.early_open_err = err;
}

static void p1_early_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	p1.early_close_err = err;
}

static void p1_cancel(void)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p1_hang_open,
		.on_data = p1_hang_data,
		.on_close = p1_hang_close,
	};
	static const struct docker_stream_cbs early_cbs = {
		.on_open = p1_early_open,
		.on_data = p1_hang_data,
		.on_close = p1_early_close,
	};
	struct docker_stream *s;

	/* Closed while curl has not even started connecting: both callbacks
	 * still come, later, with -ECANCELED; stdin after close is refused. */
	p1.early_open_err = p1.early_close_err = 1;
	FCHECK(docker_attach(p1.d, "demo", &early_cbs, NULL, &s) == 0,
	       "attach");
	docker_stream_close(s);
	docker_stream_close(s); /* idempotent */
	FCHECK(docker_stream_write(s, "x", 1) == -EPIPE, "write after close");
	FCHECK(p1.early_open_err == 1 && p1.early_close_err == 1,
	       "callbacks ran inside docker_stream_close");

	/* An exec closed while its create is in flight: the create is
	 * dropped, both callbacks come later with -ECANCELED. */
	{
		static const struct docker_stream_cbs xcbs = {
			.on_open = p1_xrecord_open,
			.on_data = p1_hang_data,
			.on_close = p1_xrecord_close,
		};
		static int xearly[2] = {1, 1}, xhang[2] = {1, 1};

		FCHECK(docker_exec_attach(p1.d, "hang", p1_exec_argv, NULL,
					  &xcbs, xearly, &s) == 0,
		       "exec hang");
		docker_stream_close(s);
		FCHECK(docker_stream_write(s, "x", 1) == -EPIPE,
		       "exec write after close");
		FCHECK(xearly[0] == 1 && xearly[1] == 1,
		       "exec callbacks ran inside docker_stream_close");
		/* And one that docker_free() cancels. */
		FCHECK(docker_exec_attach(p1.d, "hang", p1_exec_argv, NULL,
					  &xcbs, xhang, &s) == 0,
		       "exec hang");
		p1.xearly = xearly;
		p1.xhang = xhang;
	}
	FCHECK(docker_request(p1.d, "GET", "/hang", NULL, 0, p1_hang_req_cb,
			      NULL) == 0,
	       "request /hang");
	FCHECK(docker_attach(p1.d, "hang", &cbs, NULL, &s) == 0, "attach hang");
	/* docker_free() comes once the daemon has all three. */
	srv.hang_get = srv.hang_attach = srv.hang_exec = 0;
	srv.cancel_armed = 1;
}

/* The hanging request, attach and exec are all at the daemon. */
static void p1_free_client(void)
{
	docker_free(p1.d);
	FCHECK(p1.cancel_cb_ran, "docker_free returned before cancelling");
	p1.d = NULL;
}

static void p1_demo_open(struct docker_stream *s, int err, const char *msg,
			 void *arg)
{
	(void)arg;
	FCHECK(err == 0, "attach demo: %d %s", err, msg ? msg : "");
	FCHECK(docker_stream_write(s, "late\n", 5) == 0, "write late");
}

static void p1_demo_data(struct docker_stream *s, int fd, const char *b,
			 size_t n, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(fd == 1 || fd == 2, "fd %d", fd);
	buf_add(fd == 1 ? &p1.out : &p1.err, b, n);
}

static void p1_demo_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(err == 0, "demo stream closed with %d", err);
	FCHECK(srv.early_bytes == 0,
	       "stdin was sent before the daemon answered the attach");
	FCHECK(p1.out.len == srv.want_out.len &&
		       memcmp(p1.out.p, srv.want_out.p, p1.out.len) == 0,
	       "stdout demuxed wrong (%zu bytes, want %zu)", p1.out.len,
	       srv.want_out.len);
	FCHECK(p1.err.len == srv.want_err.len &&
		       memcmp(p1.err.p, srv.want_err.p, p1.err.len) == 0,
	       "stderr demuxed wrong (%zu bytes, want %zu)", p1.err.len,
	       srv.want_err.len);
	FCHECK(srv.piece > 100, "the script went out in only %u pieces",
	       srv.piece);
	fprintf(stderr, "ok   fake: attach demux over %u split writes\n",
		srv.piece);

	p1_cancel();
}

static void p1_attach_demo(void)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p1_demo_open,
		.on_data = p1_demo_data,
		.on_close = p1_demo_close,
	};
	struct docker_stream *s;

	FCHECK(docker_attach(p1.d, "demo", &cbs, NULL, &s) == 0, "attach");
	/* Queued before the handshake: must follow the request, not ride
	 * with it, or the daemon's HTTP reader could swallow it. */
	FCHECK(docker_stream_write(s, "early\n", 6) == 0, "write early");
}

static void p1_xdemo_open(struct docker_stream *s, int err, const char *msg,
			  void *arg)
{
	(void)arg;
	FCHECK(err == 0, "exec demo: %d %s", err, msg ? msg : "");
	FCHECK(docker_stream_exec_id(s) &&
		       strcmp(docker_stream_exec_id(s), "feedc0de") == 0,
	       "exec id %s",
	       docker_stream_exec_id(s) ? docker_stream_exec_id(s) : "NULL");
	FCHECK(srv.exec_started == 1, "exec opened before it was started");
	FCHECK(docker_stream_write(s, "bye\n", 4) == 0, "write bye");
}

static void p1_xdemo_data(struct docker_stream *s, int fd, const char *b,
			  size_t n, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(fd == 1 || fd == 2, "fd %d", fd);
	buf_add(fd == 1 ? &p1.xout : &p1.xerr, b, n);
}

static void p1_xdemo_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(err == 0, "exec demo stream closed with %d", err);
	FCHECK(p1.xout.len && strcmp(p1.xout.p, "early\nbye\n") == 0,
	       "exec stdout '%s'", p1.xout.p ? p1.xout.p : "");
	FCHECK(p1.xerr.len && strcmp(p1.xerr.p, "err\n") == 0,
	       "exec stderr '%s'", p1.xerr.p ? p1.xerr.p : "");
	FCHECK(srv.exec_created == 1 && srv.exec_started == 1,
	       "exec created %d, started %d times", srv.exec_created,
	       srv.exec_started);
	fprintf(stderr, "ok   fake: exec create + start hijack, stdin after "
			"the request body, demux\n");
	p1_attach_demo();
}

static void p1_exec_demo(void)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p1_xdemo_open,
		.on_data = p1_xdemo_data,
		.on_close = p1_xdemo_close,
	};
	struct docker_stream *s;

	FCHECK(docker_exec_attach(p1.d, "demo", p1_exec_argv, "1000:1000", &cbs,
				  NULL, &s) == 0,
	       "exec demo");
	FCHECK(docker_stream_exec_id(s) == NULL, "exec id before create");
	/* Queued across both requests: must follow the start request's
	 * body, never ride with the create. */
	FCHECK(docker_stream_write(s, "early\n", 6) == 0, "write early");
}

static void p1_xmissing_open(struct docker_stream *s, int err, const char *msg,
			     void *arg)
{
	(void)s;
	(void)arg;
	p1.xmissing_open_err = err;
	snprintf(p1.xmissing_msg, sizeof(p1.xmissing_msg), "%s",
		 msg ? msg : "");
}

static void p1_xmissing_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(p1.xmissing_open_err == -ENOENT, "exec missing: on_open %d",
	       p1.xmissing_open_err);
	FCHECK(strcmp(p1.xmissing_msg, "No such container: missing") == 0,
	       "exec missing: message '%s'", p1.xmissing_msg);
	FCHECK(err == -ENOENT, "exec missing: on_close %d", err);
	fprintf(stderr, "ok   fake: exec create 404 -> %s\n", p1.xmissing_msg);
	p1_exec_demo();
}

static void p1_exec_missing(void)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p1_xmissing_open,
		.on_data = p1_hang_data,
		.on_close = p1_xmissing_close,
	};
	static const char *const empty[] = {NULL};
	struct docker_stream *s;

	FCHECK(docker_exec_attach(p1.d, "missing", empty, NULL, &cbs, NULL,
				  &s) == -EINVAL,
	       "exec with an empty argv");
	FCHECK(docker_exec_attach(p1.d, "a/b", p1_exec_argv, NULL, &cbs, NULL,
				  &s) == -EINVAL,
	       "exec in a bad container id");
	FCHECK(docker_exec_attach(p1.d, "missing", p1_exec_argv, "1000:1000",
				  &cbs, NULL, &s) == 0,
	       "exec missing");
}

static void p1_missing_open(struct docker_stream *s, int err, const char *msg,
			    void *arg)
{
	(void)s;
	(void)arg;
	p1.missing_open_err = err;
	snprintf(p1.missing_msg, sizeof(p1.missing_msg), "%s", msg ? msg : "");
}

static void p1_missing_close(struct docker_stream *s, int err, void *arg)
{
	(void)s;
	(void)arg;
	FCHECK(p1.missing_open_err == -ENOENT, "attach missing: on_open %d",
	       p1.missing_open_err);
	FCHECK(strcmp(p1.missing_msg, "No such container: missing") == 0,
	       "attach missing: message '%s'", p1.missing_msg);
	FCHECK(err == -ENOENT, "attach missing: on_close %d", err);
	fprintf(stderr, "ok   fake: attach 404 -> %s\n", p1.missing_msg);
	p1_exec_missing();
}

static void p1_timeout_cb(const struct docker_response *res, void *arg)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p1_missing_open,
		.on_data = p1_hang_data,
		.on_close = p1_missing_close,
	};
	struct docker_stream *s;

	(void)arg;
	FCHECK(res->err == -ETIMEDOUT && res->status == 0 && res->errmsg,
	       "timeout: err %d", res->err);
	fprintf(stderr, "ok   fake: timeout -> %s\n", res->errmsg);
	FCHECK(docker_attach(p1.d, "missing", &cbs, NULL, &s) == 0, "attach");
}

static void p1_404_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	FCHECK(res->err == 0 && res->status == 404, "404: err %d status %ld",
	       res->err, res->status);
	FCHECK(res->errmsg &&
		       strcmp(res->errmsg, "No such container: nope") == 0,
	       "404 message '%s'", res->errmsg ? res->errmsg : "(null)");
	FCHECK(docker_request(p1.d, "GET", "/hang", NULL, 100, p1_timeout_cb,
			      NULL) == 0,
	       "request");
}

static void p1_big_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	FCHECK(res->err == -E2BIG && res->body_len == 0 && res->errmsg,
	       "big body: err %d", res->err);
	fprintf(stderr, "ok   fake: big body -> %s\n", res->errmsg);
	FCHECK(docker_request(p1.d, "GET", "/containers/nope/json", NULL, 5000,
			      p1_404_cb, NULL) == 0,
	       "request");
}

static void p1_path_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	FCHECK(res->err == 0 && res->status == 200, "echo-path: %d %ld",
	       res->err, res->status);
	FCHECK(strcmp(res->body, "/v1.44/echo-path?a=1") == 0,
	       "version prefix: path was '%s'", res->body);
	FCHECK(fake_docker_accepts(fk) == 1,
	       "keep-alive: two sequential requests took %d connections",
	       fake_docker_accepts(fk));
	FCHECK(docker_request(p1.d, "GET", "/big", NULL, 5000, p1_big_cb,
			      NULL) == 0,
	       "request");
}

static void p1_negotiate_cb(const struct docker_response *res, void *arg)
{
	(void)arg;
	FCHECK(res->err == 0 && res->status == 200, "negotiate: %d %s",
	       res->err, res->errmsg ? res->errmsg : "");
	FCHECK(docker_api_version(p1.d) &&
		       strcmp(docker_api_version(p1.d), "1.44") == 0,
	       "daemon 1.45 should negotiate down to 1.44, got %s",
	       docker_api_version(p1.d) ? docker_api_version(p1.d) : "NULL");
	FCHECK(strcmp(srv.last_path, "/version") == 0,
	       "negotiation must be unversioned, was %s", srv.last_path);
	FCHECK(docker_request(p1.d, "GET", "/echo-path?a=1", NULL, 5000,
			      p1_path_cb, NULL) == 0,
	       "request");
}

static void p1_noconn_cb(const struct docker_response *res, void *arg)
{
	struct docker *d = arg;
	struct error err;

	FCHECK(res->err == -ENOENT && res->status == 0, "no socket: err %d",
	       res->err);
	FCHECK(res->errmsg &&
		       strstr(res->errmsg, "cannot connect to Docker at "
					   "unix:///nonexistent/sbx.sock: "),
	       "no socket: message '%s'", res->errmsg ? res->errmsg : "");
	fprintf(stderr, "ok   fake: %s\n", res->errmsg);
	docker_free(d); /* from inside its own callback */

	FCHECK(docker_new(p1.loop, HOST(fake_docker_url(fk)), &p1.d, &err) == 0,
	       "docker_new: %s", err.msg);
	FCHECK(docker_api_version(p1.d) == NULL, "version before negotiation");
	FCHECK(docker_negotiate(p1.d, p1_negotiate_cb, NULL) == 0, "negotiate");
}

static void p1_parse_checks(void)
{
	struct docker *d = NULL;
	struct error err = {0};

	FCHECK(docker_new(p1.loop, HOST("ssh://host"), &d, &err) ==
			       -EPROTONOSUPPORT &&
		       err.code == -EPROTONOSUPPORT && err.msg[0] && !d,
	       "ssh:// must be refused");
	FCHECK(docker_new(p1.loop, HOST("unix://relative"), &d, &err) ==
			       -EINVAL &&
		       err.code == -EINVAL && err.msg[0],
	       "relative unix path must be refused");
	/* Plain TCP only when allowed, TLS only with readable files. */
	FCHECK(docker_new(p1.loop, HOST("tcp://127.0.0.1"), &d, &err) ==
			       -EPERM &&
		       strstr(err.msg, "plain TCP") && !d,
	       "plain tcp:// must be refused: %s", err.msg);
	FCHECK(docker_new(p1.loop,
			  &(struct docker_options){
				  .host = "tcp://127.0.0.1",
				  .tls_ca = "/nonexistent/ca.pem",
				  .tls_cert = "/nonexistent/cert.pem",
				  .tls_key = "/nonexistent/key.pem"},
			  &d, &err) == -ENOENT &&
		       strstr(err.msg, "/nonexistent/ca.pem") && !d,
	       "unreadable TLS files must be refused: %s", err.msg);
	FCHECK(docker_new(p1.loop,
			  &(struct docker_options){.host = "tcp://127.0.0.1",
						   .tls_ca = "/dev/null"},
			  &d, &err) == -EINVAL &&
		       strstr(err.msg, "client certificate") && !d,
	       "TLS without a client certificate must be refused: %s", err.msg);
	FCHECK(docker_new(p1.loop,
			  &(struct docker_options){.host = "tcp://127.0.0.1",
						   .allow_plaintext = 1},
			  &d, &err) == 0,
	       "tcp");
	FCHECK(strcmp(docker_endpoint(d), "tcp://127.0.0.1:2375") == 0,
	       "tcp endpoint %s", docker_endpoint(d));
	FCHECK(docker_request(d, "GET", "/a b", NULL, 0, p1_hang_req_cb,
			      NULL) == -EINVAL,
	       "path with a space");
	FCHECK(docker_request(d, "get", "/x", NULL, 0, p1_hang_req_cb, NULL) ==
		       -EINVAL,
	       "lower-case method");
	docker_free(d);
	FCHECK(docker_new(p1.loop, HOST("unix:///nonexistent/sbx.sock"), &d,
			  &err) == 0,
	       "docker_new: %s", err.msg);
	FCHECK(strcmp(docker_endpoint(d), "unix:///nonexistent/sbx.sock") == 0,
	       "endpoint");
	FCHECK(docker_request(d, "GET", "/_ping", NULL, 5000, p1_noconn_cb,
			      d) == 0,
	       "request");
}

/* ================================================================== */
/* Removal: one the engine had started already is waited for          */

static struct {
	struct fake_docker *fk;
	struct docker *d;
	int waited;	/* the wait?condition=removed request came */
	int answered;	/* ... and was answered */
	int plain_done; /* the 204 removal's callback ran */
	int going_done; /* the 409 one's */
} rm;

static void rm_on_request(struct fake_docker *f, struct fake_docker_conn *c,
			  const struct fake_docker_request *req, void *arg)
{
	static const char going[] = "{\"message\":\"removal of container "
				    "going is already in progress\"}";
	static const char ok[] = "{\"StatusCode\":0}";

	(void)f;
	(void)arg;
	if (strcmp(req->method, "DELETE") == 0 &&
	    strstr(req->path, "/containers/plain?")) {
		fake_docker_respond(c, 204, "", 0);
	} else if (strcmp(req->method, "DELETE") == 0 &&
		   strstr(req->path, "/containers/going?")) {
		fake_docker_respond(c, 409, going, sizeof(going) - 1);
	} else if (strcmp(req->method, "POST") == 0 &&
		   strstr(req->path,
			  "/containers/going/wait?condition=removed")) {
		FCHECK(!rm.going_done, "the callback ran before the wait");
		rm.waited = 1;
		rm.answered = 1;
		fake_docker_respond(c, 200, ok, sizeof(ok) - 1);
	} else {
		FCHECK(0, "removal phase: unexpected %s %s", req->method,
		       req->path);
	}
}

static void rm_done(void)
{
	if (!rm.plain_done || !rm.going_done)
		return;
	docker_free(rm.d);
	fake_docker_stop(rm.fk);
}

static void rm_plain_cb(const struct error *err, const char *id, void *arg)
{
	(void)arg;
	FCHECK(!err && strcmp(id, "plain") == 0, "204 removal: %s",
	       err ? err->msg : id);
	rm.plain_done = 1;
	rm_done();
}

static void rm_going_cb(const struct error *err, const char *id, void *arg)
{
	(void)arg;
	FCHECK(!err && strcmp(id, "going") == 0, "409 removal: %s",
	       err ? err->msg : id);
	FCHECK(rm.answered, "a removal in progress reported before it ended");
	rm.going_done = 1;
	rm_done();
}

static void removal_phase(uv_loop_t *loop)
{
	static const struct fake_docker_cbs cbs = {.on_request = rm_on_request};
	struct error err;

	FCHECK(fake_docker_start(loop, &cbs, NULL, &rm.fk) == 0, "fake daemon");
	fk = rm.fk; /* removed on a failure */
	FCHECK(docker_new(loop, HOST(fake_docker_url(rm.fk)), &rm.d, &err) == 0,
	       "docker_new: %s", err.msg);
	FCHECK(container_remove(rm.d, "plain", rm_plain_cb, NULL) == 0,
	       "remove plain");
	FCHECK(container_remove(rm.d, "going", rm_going_cb, NULL) == 0,
	       "remove going");
	uv_run(loop, UV_RUN_DEFAULT);
	FCHECK(rm.plain_done && rm.going_done && rm.waited,
	       "removals: plain %d, going %d, waited %d", rm.plain_done,
	       rm.going_done, rm.waited);
	fprintf(stderr, "ok   fake: a removal in progress (409) is waited for "
			"(wait?condition=removed) before its callback\n");
}

int main(void)
{
	uv_loop_t loop;
	int r;

	/* The fake daemon writes to sockets the client may have closed. */
	signal(SIGPIPE, SIG_IGN);
	if (getenv("SBX_TEST_DEBUG"))
		log_set_level(LOG_LEVEL_DEBUG);
	uv_loop_init(&loop);
	p1.loop = &loop;
	fake_start(&loop);
	p1_parse_checks();
	uv_run(&loop, UV_RUN_DEFAULT);
	FCHECK(p1.done && p1.hang_closed, "fake phase stopped early");
	FCHECK(p1.xearly[0] == -ECANCELED && p1.xearly[1] == -ECANCELED,
	       "exec closed while creating: on_open %d, on_close %d",
	       p1.xearly[0], p1.xearly[1]);
	FCHECK(p1.xhang[0] == -ECANCELED && p1.xhang[1] == -ECANCELED,
	       "exec cancelled by docker_free: on_open %d, on_close %d",
	       p1.xhang[0], p1.xhang[1]);
	fprintf(stderr, "ok   fake: exec cancelled while creating, by close "
			"and by docker_free\n");
	removal_phase(&loop);
	r = uv_loop_close(&loop);
	FCHECK(r == 0, "uv_loop_close: %s (a handle leaked)", uv_strerror(r));
	buf_free(&p1.out);
	buf_free(&p1.err);
	buf_free(&p1.xout);
	buf_free(&p1.xerr);
	buf_free(&srv.script);
	buf_free(&srv.stdin_got);
	buf_free(&srv.want_out);
	buf_free(&srv.want_err);
	fprintf(stderr, "ok   fake: phase done, uv_loop_close() == 0\n");
	return 0;
}
