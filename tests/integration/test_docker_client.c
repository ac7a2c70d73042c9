/*
 * test_docker_client.c - the Docker Engine API client, twice:
 *
 * 1. Against a scripted fake daemon on a unix socket (always runs): version
 *    negotiation, the version prefix, -E2BIG, timeouts, daemon error
 *    messages, connection errors, an attach stream whose frames arrive split
 *    at every possible place and many to a read, stdin ordering around the
 *    handshake, and cancellation by docker_free().
 * 2. Against the real daemon ($DOCKER_HOST or the default socket): create a
 *    container from $SBX_TEST_IMAGE, attach, echo through stdin/stdout,
 *    stderr demultiplexing, 200 timed round trips (median printed, not
 *    asserted), 1 MiB echoed intact, a 404 with the daemon's message, and
 *    removal. Exits 77 (skip) if no daemon answers or the image is missing,
 *    unless CI=true.
 *
 * Each phase ends with uv_loop_close() == 0: a leaked handle fails the test.
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

#include "../../host/util/log.h"
#include "../../host/engine/docker.h"

#define SKIP 77

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

static void buf_consume(struct buf *b, size_t n)
{
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
	b->p[b->len] = '\0';
}

static void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int ci(void)
{
	const char *v = getenv("CI");

	return v && strcmp(v, "true") == 0;
}

/* ================================================================== */
/* Phase 1: fake daemon                                               */

static char fake_path[108];

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
	unlink(fake_path);
	exit(1);
}

#define FCHECK(cond, ...)                                                      \
	do {                                                                   \
		if (!(cond))                                                   \
			fake_die(__LINE__, __VA_ARGS__);                       \
	} while (0)

struct fake_conn {
	uv_pipe_t pipe;
	struct buf in;
	int upgraded;
};

struct fake {
	uv_loop_t *loop;
	uv_pipe_t server;
	uv_timer_t tick;
	struct fake_conn *attach_conn;
	struct buf script; /* 101 answer + frames, written in pieces */
	size_t script_off;
	unsigned piece;
	int script_done;
	struct buf stdin_got;
	size_t early_bytes; /* stdin bytes that came with the request */
	struct buf want_out, want_err;
	char last_path[256];
	int accepts;
};

static struct fake fk;

static void fake_write_cb(uv_write_t *w, int status)
{
	(void)status; /* the client may hang up first (E2BIG) */
	free(w->data);
	free(w);
}

static void fake_send(struct fake_conn *c, const void *data, size_t len)
{
	uv_write_t *w = malloc(sizeof(*w));
	uv_buf_t b;

	FCHECK(w, "oom");
	w->data = malloc(len ? len : 1);
	FCHECK(w->data, "oom");
	memcpy(w->data, data, len);
	b = uv_buf_init(w->data, (unsigned)len);
	FCHECK(uv_write(w, (uv_stream_t *)&c->pipe, &b, 1, fake_write_cb) == 0,
	       "uv_write");
}

static void fake_respond(struct fake_conn *c, int status, const char *body,
			 size_t body_len)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n",
			 status, body_len);
	struct buf b = {0};

	buf_add(&b, head, (size_t)n);
	buf_add(&b, body, body_len);
	fake_send(c, b.p, b.len);
	buf_free(&b);
}

static void fake_conn_close_cb(uv_handle_t *h)
{
	struct fake_conn *c = h->data;

	buf_free(&c->in);
	free(c);
}

static void fake_conn_close(struct fake_conn *c)
{
	if (fk.attach_conn == c)
		fk.attach_conn = NULL;
	if (!uv_is_closing((uv_handle_t *)&c->pipe))
		uv_close((uv_handle_t *)&c->pipe, fake_conn_close_cb);
}

static void frame(int fd, const char *data, size_t len)
{
	unsigned char h[8] = {(unsigned char)fd,
			      0,
			      0,
			      0,
			      (unsigned char)(len >> 24),
			      (unsigned char)(len >> 16),
			      (unsigned char)(len >> 8),
			      (unsigned char)len};

	buf_add(&fk.script, h, 8);
	buf_add(&fk.script, data, len);
	buf_add(fd == 1 ? &fk.want_out : &fk.want_err, data, len);
}

static void fake_build_script(void)
{
	static const char head[] =
		"HTTP/1.1 101 UPGRADED\r\n"
		"Content-Type: application/vnd.docker.raw-stream\r\n"
		"Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n";
	char line[64];
	char *big;
	size_t i;

	buf_add(&fk.script, head, sizeof(head) - 1);
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
	if (!fk.attach_conn || !fk.script_done ||
	    fk.stdin_got.len < strlen("early\nlate\n"))
		return;
	FCHECK(strcmp(fk.stdin_got.p, "early\nlate\n") == 0,
	       "stdin arrived as '%s'", fk.stdin_got.p);
	fake_conn_close(fk.attach_conn);
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
	if (!fk.attach_conn) {
		uv_timer_stop(&fk.tick);
		return;
	}
	if (fk.piece == 0)
		n = strstr(fk.script.p, "\r\n\r\n") + 4 - fk.script.p + 3;
	else if (fk.script_off < 400)
		n = sizes[(fk.piece - 1) % (sizeof(sizes) / sizeof(sizes[0]))];
	else
		n = fk.script.len - fk.script_off;
	fk.piece++;
	fake_send(fk.attach_conn, fk.script.p + fk.script_off, n);
	fk.script_off += n;
	if (fk.script_off == fk.script.len) {
		fk.script_done = 1;
		uv_timer_stop(&fk.tick);
		fake_maybe_finish_attach();
	}
}

static void fake_request(struct fake_conn *c, const char *req, size_t extra)
{
	char method[16], path[256];

	FCHECK(sscanf(req, "%15s %255s HTTP/1.1", method, path) == 2,
	       "bad request line");
	snprintf(fk.last_path, sizeof(fk.last_path), "%s", path);
	if (strcmp(path, "/version") == 0) {
		static const char v[] =
			"{\"ApiVersion\":\"1.45\",\"Version\":\"x\"}";

		fake_respond(c, 200, v, sizeof(v) - 1);
	} else if (strstr(path, "/echo-path")) {
		fake_respond(c, 200, path, strlen(path));
	} else if (strstr(path, "/big")) {
		size_t n = DOCKER_BODY_MAX + (size_t)1024 * 1024;
		char *b = malloc(n);

		FCHECK(b, "oom");
		memset(b, 'x', n);
		fake_respond(c, 200, b, n);
		free(b);
	} else if (strstr(path, "/containers/nope/json")) {
		static const char m[] =
			"{\"message\":\"No such container: nope\"}\n";

		fake_respond(c, 404, m, sizeof(m) - 1);
	} else if (strstr(path, "/containers/missing/attach")) {
		static const char m[] =
			"{\"message\":\"No such container: missing\"}\n";

		fake_respond(c, 404, m, sizeof(m) - 1);
	} else if (strstr(path, "/containers/demo/attach")) {
		FCHECK(strcmp(method, "POST") == 0, "attach method %s", method);
		FCHECK(strcmp(path, "/v1.44/containers/demo/attach?stream=1&"
				    "stdin=1&stdout=1&stderr=1") == 0,
		       "attach path %s", path);
		FCHECK(strstr(req, "\r\nUpgrade: tcp\r\n") &&
			       strstr(req, "\r\nConnection: Upgrade\r\n"),
		       "attach without upgrade headers");
		c->upgraded = 1;
		fk.attach_conn = c;
		fk.early_bytes = extra;
		uv_timer_start(&fk.tick, fake_tick_cb, 1, 1);
	}
	/* "/hang" and "/containers/hang/attach": never answered. */
}

static void fake_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	(void)h;
	(void)hint;
	b->base = malloc(65536);
	b->len = b->base ? 65536 : 0;
}

static void fake_read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *b)
{
	struct fake_conn *c = st->data;
	char *end;

	if (nread < 0) {
		free(b->base);
		fake_conn_close(c);
		return;
	}
	if (c->upgraded) {
		buf_add(&fk.stdin_got, b->base, (size_t)nread);
		free(b->base);
		fake_maybe_finish_attach();
		return;
	}
	buf_add(&c->in, b->base, (size_t)nread);
	free(b->base);
	while (!c->upgraded && c->in.len &&
	       (end = strstr(c->in.p, "\r\n\r\n"))) {
		size_t n = (size_t)(end + 4 - c->in.p);

		end[2] = '\0';
		fake_request(c, c->in.p, c->in.len - n);
		buf_consume(&c->in, n);
	}
	if (c->upgraded && c->in.len) {
		buf_add(&fk.stdin_got, c->in.p, c->in.len);
		buf_consume(&c->in, c->in.len);
	}
}

static void fake_connection_cb(uv_stream_t *server, int status)
{
	struct fake_conn *c;

	FCHECK(status == 0, "listen: %s", uv_strerror(status));
	fk.accepts++;
	c = calloc(1, sizeof(*c));
	FCHECK(c, "oom");
	uv_pipe_init(fk.loop, &c->pipe, 0);
	c->pipe.data = c;
	FCHECK(uv_accept(server, (uv_stream_t *)&c->pipe) == 0, "accept");
	uv_read_start((uv_stream_t *)&c->pipe, fake_alloc_cb, fake_read_cb);
}

static void fake_start(uv_loop_t *loop)
{
	int r;

	fk.loop = loop;
	snprintf(fake_path, sizeof(fake_path), "/tmp/sbx-fake-docker-%d.sock",
		 (int)getpid());
	unlink(fake_path);
	uv_pipe_init(loop, &fk.server, 0);
	r = uv_pipe_bind(&fk.server, fake_path);
	FCHECK(r == 0, "bind %s: %s", fake_path, uv_strerror(r));
	r = uv_listen((uv_stream_t *)&fk.server, 16, fake_connection_cb);
	FCHECK(r == 0, "listen: %s", uv_strerror(r));
	uv_timer_init(loop, &fk.tick);
	fake_build_script();
}

static void fake_stop(void)
{
	uv_close((uv_handle_t *)&fk.server, NULL);
	uv_close((uv_handle_t *)&fk.tick, NULL);
	unlink(fake_path);
}

/* The client side of phase 1: one step per callback. */
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
};

static struct ph1 p1;

static void p1_cancel(void);

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

	FCHECK(docker_request(p1.d, "GET", "/hang", NULL, 0, p1_hang_req_cb,
			      NULL) == 0,
	       "request /hang");
	FCHECK(docker_attach(p1.d, "hang", &cbs, NULL, &s) == 0, "attach hang");
	/* Both are in flight once the fake has read them; give it a moment. */
}

static void p1_cancel_timer_close_cb(uv_handle_t *h)
{
	free(h);
}

static void p1_cancel_timer_cb(uv_timer_t *t)
{
	docker_free(p1.d);
	FCHECK(p1.cancel_cb_ran, "docker_free returned before cancelling");
	p1.d = NULL;
	uv_close((uv_handle_t *)t, p1_cancel_timer_close_cb);
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
	uv_timer_t *t;

	(void)s;
	(void)arg;
	FCHECK(err == 0, "demo stream closed with %d", err);
	FCHECK(fk.early_bytes == 0,
	       "stdin was sent before the daemon answered the attach");
	FCHECK(p1.out.len == fk.want_out.len &&
		       memcmp(p1.out.p, fk.want_out.p, p1.out.len) == 0,
	       "stdout demuxed wrong (%zu bytes, want %zu)", p1.out.len,
	       fk.want_out.len);
	FCHECK(p1.err.len == fk.want_err.len &&
		       memcmp(p1.err.p, fk.want_err.p, p1.err.len) == 0,
	       "stderr demuxed wrong (%zu bytes, want %zu)", p1.err.len,
	       fk.want_err.len);
	FCHECK(fk.piece > 100, "the script went out in only %u pieces",
	       fk.piece);
	fprintf(stderr, "ok   fake: attach demux over %u split writes\n",
		fk.piece);

	p1_cancel();
	t = malloc(sizeof(*t));
	FCHECK(t, "oom");
	uv_timer_init(p1.loop, t);
	uv_timer_start(t, p1_cancel_timer_cb, 50, 0);
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
	p1_attach_demo();
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
	FCHECK(fk.accepts == 1,
	       "keep-alive: two sequential requests took %d connections",
	       fk.accepts);
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
	FCHECK(strcmp(fk.last_path, "/version") == 0,
	       "negotiation must be unversioned, was %s", fk.last_path);
	FCHECK(docker_request(p1.d, "GET", "/echo-path?a=1", NULL, 5000,
			      p1_path_cb, NULL) == 0,
	       "request");
}

static void p1_noconn_cb(const struct docker_response *res, void *arg)
{
	struct docker *d = arg;
	char url[160];
	const char *errmsg;

	snprintf(url, sizeof(url), "unix://%s", fake_path);
	FCHECK(res->err == -ENOENT && res->status == 0, "no socket: err %d",
	       res->err);
	FCHECK(res->errmsg &&
		       strstr(res->errmsg, "cannot connect to Docker at "
					   "unix:///nonexistent/sbx.sock: "),
	       "no socket: message '%s'", res->errmsg ? res->errmsg : "");
	fprintf(stderr, "ok   fake: %s\n", res->errmsg);
	docker_free(d); /* from inside its own callback */

	FCHECK(docker_new(p1.loop, url, &p1.d, &errmsg) == 0, "docker_new: %s",
	       errmsg);
	FCHECK(docker_api_version(p1.d) == NULL, "version before negotiation");
	FCHECK(docker_negotiate(p1.d, p1_negotiate_cb, NULL) == 0, "negotiate");
}

static void p1_parse_checks(void)
{
	struct docker *d = NULL;
	const char *msg = NULL;

	FCHECK(docker_new(p1.loop, "ssh://host", &d, &msg) ==
			       -EPROTONOSUPPORT &&
		       msg && !d,
	       "ssh:// must be refused");
	FCHECK(docker_new(p1.loop, "unix://relative", &d, &msg) == -EINVAL &&
		       msg,
	       "relative unix path must be refused");
	FCHECK(docker_new(p1.loop, "tcp://127.0.0.1", &d, &msg) == 0, "tcp");
	FCHECK(strcmp(docker_endpoint(d), "tcp://127.0.0.1:2375") == 0,
	       "tcp endpoint %s", docker_endpoint(d));
	FCHECK(docker_request(d, "GET", "/a b", NULL, 0, p1_hang_req_cb,
			      NULL) == -EINVAL,
	       "path with a space");
	FCHECK(docker_request(d, "get", "/x", NULL, 0, p1_hang_req_cb, NULL) ==
		       -EINVAL,
	       "lower-case method");
	docker_free(d);
	FCHECK(docker_new(p1.loop, "unix:///nonexistent/sbx.sock", &d, &msg) ==
		       0,
	       "docker_new: %s", msg);
	FCHECK(strcmp(docker_endpoint(d), "unix:///nonexistent/sbx.sock") == 0,
	       "endpoint");
	FCHECK(docker_request(d, "GET", "/_ping", NULL, 5000, p1_noconn_cb,
			      d) == 0,
	       "request");
}

static void phase_fake(void)
{
	uv_loop_t loop;
	int r;

	uv_loop_init(&loop);
	p1.loop = &loop;
	fake_start(&loop);
	p1_parse_checks();
	uv_run(&loop, UV_RUN_DEFAULT);
	FCHECK(p1.done && p1.hang_closed, "fake phase stopped early");
	r = uv_loop_close(&loop);
	FCHECK(r == 0, "uv_loop_close: %s (a handle leaked)", uv_strerror(r));
	buf_free(&p1.out);
	buf_free(&p1.err);
	buf_free(&fk.script);
	buf_free(&fk.stdin_got);
	buf_free(&fk.want_out);
	buf_free(&fk.want_err);
	fprintf(stderr, "ok   fake: phase done, uv_loop_close() == 0\n");
}

/* ================================================================== */
/* Phase 2: the real daemon                                           */

#define ROUND_TRIPS 200
#define BIG_ECHO ((size_t)1024 * 1024)

/* Echo stdin lines to stdout, "err ..." lines to stderr, and on "cat"
 * hand the rest of stdin to cat (dash's read takes one byte at a time
 * from a pipe, so nothing after "cat\n" is swallowed). */
static const char script[] = "echo ready >&2; "
			     "while IFS= read -r l; do case \"$l\" in "
			     "\"err \"*) printf '%s\\n' \"$l\" >&2;; "
			     "cat) exec cat;; "
			     "*) printf '%s\\n' \"$l\";; "
			     "esac; done";

struct ph2;
typedef void (*step_fn)(struct ph2 *t);

struct ph2 {
	uv_loop_t loop;
	uv_timer_t watchdog;
	struct docker *d;
	struct docker_stream *s;
	const char *image;
	char name[64];
	char id[80];
	int failed, skip;
	int removing, removed, stream_closed, finished;
	const char *step;

	struct buf out[3]; /* by fd */
	int want_fd;
	const char *want;
	size_t want_len;
	step_fn next;

	char *big;
	int rt_done;
	uint64_t rt_start;
	double rt_us[ROUND_TRIPS];
	char rt_line[32];
};

static void p2_finish(struct ph2 *t);
static void p2_remove(struct ph2 *t);

static void p2_fail(struct ph2 *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void p2_fail(struct ph2 *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return;
	t->failed = 1;
	fprintf(stderr, "FAIL (real daemon, step %s): ", t->step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->want = NULL;
	if (t->s)
		docker_stream_close(t->s);
	if (t->id[0])
		p2_remove(t);
	else
		p2_finish(t);
}

/* Docker unreachable, or the test image missing: skip unless CI. */
static void p2_unavailable(struct ph2 *t, const char *why)
{
	if (ci()) {
		p2_fail(t,
			"%s (CI=true: Docker and the test image are required)",
			why);
		return;
	}
	fprintf(stderr, "SKIP real daemon: %s\n", why);
	t->skip = 1;
	p2_finish(t);
}

static void p2_watchdog_cb(uv_timer_t *timer)
{
	struct ph2 *t = timer->data;

	p2_fail(t, "no progress for 120 s");
}

static void p2_finish(struct ph2 *t)
{
	if (t->finished)
		return;
	t->finished = 1;
	uv_timer_stop(&t->watchdog);
	uv_close((uv_handle_t *)&t->watchdog, NULL);
	docker_free(t->d);
	t->d = NULL;
}

static void p2_maybe_finish(struct ph2 *t)
{
	if (t->removed && (t->stream_closed || !t->s))
		p2_finish(t);
}

static void p2_remove_cb(const struct docker_response *res, void *arg)
{
	struct ph2 *t = arg;

	if (res->err || (res->status != 204 && res->status != 404)) {
		fprintf(stderr, "FAIL: removing container %s: %s\n", t->id,
			res->errmsg ? res->errmsg : "?");
		t->failed = 1;
	}
	t->removed = 1;
	if (t->failed && t->s)
		docker_stream_close(t->s);
	p2_maybe_finish(t);
}

static void p2_remove(struct ph2 *t)
{
	char path[128];
	int r;

	if (t->removing)
		return;
	t->removing = 1;
	t->step = "remove";
	snprintf(path, sizeof(path), "/containers/%s?force=1", t->id);
	r = docker_request(t->d, "DELETE", path, NULL, 30000, p2_remove_cb, t);
	if (r < 0) {
		fprintf(stderr, "FAIL: cannot remove container %s: %s\n", t->id,
			uv_strerror(r));
		t->failed = 1;
		t->removed = 1;
		p2_maybe_finish(t);
	}
}

/* Runs whenever output arrives: completes the pending expectation. */
static void p2_check(struct ph2 *t)
{
	struct buf *b;
	step_fn next;

	if (!t->want || t->failed)
		return;
	b = &t->out[t->want_fd];
	if (b->len < t->want_len) {
		if (b->len && memcmp(b->p, t->want, b->len) != 0)
			p2_fail(t, "fd %d: got '%.60s', want '%.60s'",
				t->want_fd, b->p, t->want);
		return;
	}
	if (memcmp(b->p, t->want, t->want_len) != 0) {
		p2_fail(t, "fd %d: got '%.60s', want '%.60s'", t->want_fd, b->p,
			t->want);
		return;
	}
	buf_consume(b, t->want_len);
	if (t->out[3 - t->want_fd].len) {
		p2_fail(t, "unexpected output on fd %d: '%.60s'",
			3 - t->want_fd, t->out[3 - t->want_fd].p);
		return;
	}
	next = t->next;
	t->want = NULL;
	uv_timer_again(&t->watchdog);
	next(t);
}

static void p2_expect(struct ph2 *t, int fd, const char *want, size_t len,
		      step_fn next)
{
	t->want_fd = fd;
	t->want = want;
	t->want_len = len;
	t->next = next;
	p2_check(t);
}

static void p2_write(struct ph2 *t, const char *data, size_t len)
{
	int r = docker_stream_write(t->s, data, len);

	if (r < 0)
		p2_fail(t, "docker_stream_write: %s", uv_strerror(r));
}

static void p2_bogus_cb(const struct docker_response *res, void *arg)
{
	struct ph2 *t = arg;

	if (t->failed)
		return;
	if (res->err || res->status != 404 || !res->errmsg ||
	    !strstr(res->errmsg, "No such container")) {
		p2_fail(t, "bogus id: err %d status %ld message '%s'", res->err,
			res->status, res->errmsg ? res->errmsg : "(null)");
		return;
	}
	fprintf(stderr, "ok   real: 404 -> %s\n", res->errmsg);
	p2_remove(t);
}

static void p2_big_done(struct ph2 *t)
{
	int r;

	fprintf(stderr, "ok   real: 1 MiB echoed intact\n");
	t->step = "404";
	r = docker_request(t->d, "GET",
			   "/containers/sbx-no-such-container-0123456789/json",
			   NULL, 10000, p2_bogus_cb, t);
	if (r < 0)
		p2_fail(t, "request: %s", uv_strerror(r));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void p2_round_trip(struct ph2 *t);

static void p2_round_trip_done(struct ph2 *t)
{
	size_t i;

	t->rt_us[t->rt_done++] = (double)(uv_hrtime() - t->rt_start) / 1000.0;
	if (t->rt_done < ROUND_TRIPS) {
		p2_round_trip(t);
		return;
	}
	qsort(t->rt_us, ROUND_TRIPS, sizeof(double), cmp_double);
	fprintf(stderr,
		"info real: attach round trip over %d cycles: median %.0f us "
		"(min %.0f, p90 %.0f, max %.0f)\n",
		ROUND_TRIPS, t->rt_us[ROUND_TRIPS / 2], t->rt_us[0],
		t->rt_us[ROUND_TRIPS * 9 / 10], t->rt_us[ROUND_TRIPS - 1]);

	t->step = "1 MiB echo";
	t->big = malloc(BIG_ECHO);
	if (!t->big) {
		p2_fail(t, "oom");
		return;
	}
	for (i = 0; i < BIG_ECHO; i++)
		t->big[i] = (char)((i * 7919 + i / 4096) & 0xff);
	p2_expect(t, 1, t->big, BIG_ECHO, p2_big_done);
	p2_write(t, t->big, BIG_ECHO);
}

static void p2_round_trip(struct ph2 *t)
{
	int n = snprintf(t->rt_line, sizeof(t->rt_line), "rt %03d\n",
			 t->rt_done);

	t->rt_start = uv_hrtime();
	p2_expect(t, 1, t->rt_line, (size_t)n, p2_round_trip_done);
	p2_write(t, t->rt_line, (size_t)n);
}

static void p2_stderr_done(struct ph2 *t)
{
	fprintf(stderr, "ok   real: stdout/stderr demultiplexed\n");
	t->step = "round trips";
	p2_write(t, "cat\n", 4); /* the shell becomes cat: pure transport */
	if (!t->failed)
		p2_round_trip(t);
}

static void p2_hello_done(struct ph2 *t)
{
	p2_expect(t, 2, "err oops\n", 9, p2_stderr_done);
	p2_write(t, "err oops\n", 9);
}

static void p2_ready(struct ph2 *t)
{
	t->step = "echo";
	p2_expect(t, 1, "hello\n", 6, p2_hello_done);
	p2_write(t, "hello\n", 6);
}

static void p2_start_cb(const struct docker_response *res, void *arg)
{
	struct ph2 *t = arg;

	if (t->failed)
		return;
	if (res->err || res->status != 204) {
		p2_fail(t, "start: %s", res->errmsg ? res->errmsg : "?");
		return;
	}
	t->step = "ready";
	p2_expect(t, 2, "ready\n", 6, p2_ready);
}

static void p2_on_open(struct docker_stream *s, int err, const char *msg,
		       void *arg)
{
	struct ph2 *t = arg;
	char path[128];
	int r;

	(void)s;
	if (t->failed)
		return;
	if (err) {
		p2_fail(t, "attach: %s", msg);
		return;
	}
	t->step = "start";
	snprintf(path, sizeof(path), "/containers/%s/start", t->id);
	r = docker_request(t->d, "POST", path, NULL, 30000, p2_start_cb, t);
	if (r < 0)
		p2_fail(t, "request: %s", uv_strerror(r));
}

static void p2_on_data(struct docker_stream *s, int fd, const char *b, size_t n,
		       void *arg)
{
	struct ph2 *t = arg;

	(void)s;
	if (fd != 1 && fd != 2) {
		p2_fail(t, "on_data fd %d", fd);
		return;
	}
	buf_add(&t->out[fd], b, n);
	p2_check(t);
}

static void p2_on_close(struct docker_stream *s, int err, void *arg)
{
	struct ph2 *t = arg;

	(void)s;
	t->stream_closed = 1;
	if (!t->failed && !t->removing)
		p2_fail(t, "stream closed early: %s",
			err ? uv_strerror(err) : "EOF");
	else if (!t->failed && err != 0)
		p2_fail(t, "stream ended with %s after removal",
			uv_strerror(err));
	t->s = NULL;
	p2_maybe_finish(t);
}

static void p2_create_cb(const struct docker_response *res, void *arg)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p2_on_open,
		.on_data = p2_on_data,
		.on_close = p2_on_close,
	};
	struct ph2 *t = arg;
	cJSON *j;
	const cJSON *id;
	char why[512];
	int r;

	if (res->err) {
		p2_fail(t, "create: %s", res->errmsg);
		return;
	}
	if (res->status == 404) {
		snprintf(why, sizeof(why),
			 "image %s: %s (build it, or set SBX_TEST_IMAGE)",
			 t->image, res->errmsg);
		p2_unavailable(t, why);
		return;
	}
	if (res->status != 201) {
		p2_fail(t, "create: %ld %s", res->status,
			res->errmsg ? res->errmsg : "");
		return;
	}
	j = cJSON_Parse(res->body);
	id = cJSON_GetObjectItemCaseSensitive(j, "Id");
	if (!cJSON_IsString(id) || strlen(id->valuestring) >= sizeof(t->id)) {
		cJSON_Delete(j);
		p2_fail(t, "create: no Id in %s", res->body);
		return;
	}
	snprintf(t->id, sizeof(t->id), "%s", id->valuestring);
	cJSON_Delete(j);

	/* Attach before start: nothing the container says is lost. */
	t->step = "attach";
	r = docker_attach(t->d, t->id, &cbs, t, &t->s);
	if (r < 0) {
		t->s = NULL;
		p2_fail(t, "docker_attach: %s", uv_strerror(r));
	}
}

static void p2_create(struct ph2 *t)
{
	cJSON *c = cJSON_CreateObject();
	cJSON *ep = cJSON_AddArrayToObject(c, "Entrypoint");
	cJSON *labels, *hc;
	char path[128];
	char *body;
	int r;

	cJSON_AddStringToObject(c, "Image", t->image);
	cJSON_AddItemToArray(ep, cJSON_CreateString("/bin/sh"));
	cJSON_AddItemToArray(ep, cJSON_CreateString("-c"));
	cJSON_AddItemToArray(ep, cJSON_CreateString(script));
	cJSON_AddArrayToObject(c, "Cmd");
	cJSON_AddTrueToObject(c, "OpenStdin");
	cJSON_AddFalseToObject(c, "StdinOnce");
	cJSON_AddTrueToObject(c, "AttachStdin");
	cJSON_AddTrueToObject(c, "AttachStdout");
	cJSON_AddTrueToObject(c, "AttachStderr");
	cJSON_AddFalseToObject(c, "Tty");
	labels = cJSON_AddObjectToObject(c, "Labels");
	cJSON_AddStringToObject(labels, "org.mcp-sandbox.test", "1");
	hc = cJSON_AddObjectToObject(c, "HostConfig");
	cJSON_AddStringToObject(hc, "NetworkMode", "none");
	body = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);

	t->step = "create";
	snprintf(path, sizeof(path), "/containers/create?name=%s", t->name);
	r = docker_request(t->d, "POST", path, body, 30000, p2_create_cb, t);
	free(body);
	if (r < 0)
		p2_fail(t, "request: %s", uv_strerror(r));
}

static void p2_ping_cb(const struct docker_response *res, void *arg)
{
	struct ph2 *t = arg;

	if (res->err || res->status != 200 || strcmp(res->body, "OK") != 0) {
		p2_fail(t, "_ping: %d %ld '%s'", res->err, res->status,
			res->errmsg ? res->errmsg : res->body);
		return;
	}
	p2_create(t);
}

static void p2_negotiate_cb(const struct docker_response *res, void *arg)
{
	struct ph2 *t = arg;
	int r;

	if (res->err) {
		p2_unavailable(t, res->errmsg);
		return;
	}
	if (res->status != 200 || !docker_api_version(t->d)) {
		p2_fail(t, "GET /version: %ld %s", res->status,
			res->errmsg ? res->errmsg : "");
		return;
	}
	fprintf(stderr, "ok   real: %s, API %s\n", docker_endpoint(t->d),
		docker_api_version(t->d));
	t->step = "ping";
	r = docker_request(t->d, "GET", "/_ping", NULL, 10000, p2_ping_cb, t);
	if (r < 0)
		p2_fail(t, "request: %s", uv_strerror(r));
}

static int phase_real(void)
{
	static struct ph2 t; /* the round-trip samples are not stack-sized */
	const char *errmsg;
	int r, i;

	uv_loop_init(&t.loop);
	uv_timer_init(&t.loop, &t.watchdog);
	t.watchdog.data = &t;
	uv_timer_start(&t.watchdog, p2_watchdog_cb, 120000, 120000);
	t.image = getenv("SBX_TEST_IMAGE");
	if (!t.image || !t.image[0])
		t.image = "mcp-sandbox/bash:latest";
	snprintf(t.name, sizeof(t.name), "sbx-test-docker-client-%d",
		 (int)getpid());
	t.step = "negotiate";

	r = docker_new(&t.loop, NULL, &t.d, &errmsg);
	if (r < 0)
		p2_unavailable(&t, errmsg);
	else if ((r = docker_negotiate(t.d, p2_negotiate_cb, &t)) < 0)
		p2_fail(&t, "docker_negotiate: %s", uv_strerror(r));
	uv_run(&t.loop, UV_RUN_DEFAULT);

	r = uv_loop_close(&t.loop);
	if (r != 0) {
		fprintf(stderr, "FAIL: uv_loop_close: %s (a handle leaked)\n",
			uv_strerror(r));
		t.failed = 1;
	} else if (!t.failed && !t.skip) {
		fprintf(stderr, "ok   real: container removed, "
				"uv_loop_close() == 0\n");
	}
	for (i = 0; i < 3; i++)
		buf_free(&t.out[i]);
	free(t.big);
	if (t.failed)
		return 1;
	return t.skip ? SKIP : 0;
}

int main(void)
{
	/* The fake daemon writes to sockets the client may have closed. */
	signal(SIGPIPE, SIG_IGN);
	if (getenv("SBX_TEST_DEBUG"))
		log_set_level(LOG_LEVEL_DEBUG);
	phase_fake();
	return phase_real();
}
