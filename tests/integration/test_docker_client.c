/*
 * test_docker_client.c - the Docker Engine API client (host/docker/docker*.c,
 * container.c) against the real daemon ($DOCKER_HOST or the default socket).
 * The Docker-free half lives in tests/unit: test_docker_fake_daemon.c (the
 * client against the fake daemon) and test_docker_proto.c (the parsers:
 * listings, inspections, the `docker stats` arithmetic).
 *
 * 1. Create a container from $SBX_TEST_IMAGE, attach, echo through
 *    stdin/stdout, stderr demultiplexing, 200 timed round trips (median
 *    printed, not asserted), 1 MiB echoed intact, a 404 with the daemon's
 *    message, and removal. Exits 77 (skip) if no daemon answers or the image
 *    is missing, unless CI=true.
 * 2. The engine layer in a plain `sleep` container: docker_exec_attach (echo
 *    as uid 1000, 256 KiB, stderr, exit while stdin is open -> on_close(0)
 *    and the exit code; no such container; a missing program; exec while
 *    paused; closed before and after on_open), then container_pause/unpause
 *    (twice each), container_inspect, container_rename, container_memory
 *    against the container's limit, container_list_named by a name's
 *    prefix, container_list by label, and container_remove.
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

#include "util/log.h"
#include "docker/container.h"
#include "docker/docker.h"

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
/* Phase 1: the real daemon                                           */

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
	struct error err;
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

	r = docker_new(&t.loop, NULL, &t.d, &err);
	if (r < 0)
		p2_unavailable(&t, err.msg);
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

/* ================================================================== */
/* Phase 2: exec streams and container lifecycle on the real daemon    */

#define ENGINE_MEMORY ((uint64_t)256 * 1024 * 1024)
#define EXEC_BIG ((size_t)256 * 1024)

struct ph3;
typedef void (*step3_fn)(struct ph3 *t);

struct ph3 {
	uv_loop_t loop;
	uv_timer_t watchdog;
	struct docker *d;
	struct docker_stream *s;
	const char *image;
	char name[64], renamed[64], label[64];
	char id[80];
	char exec_id[80];
	int failed, skip, finished, removing;
	const char *step;

	/* the current exec stream */
	struct buf out[3];
	int opened, open_err, close_err, closed;
	char open_msg[512];
	int want_fd;
	const char *want;
	size_t want_len;
	step3_fn next;	      /* when want is satisfied */
	step3_fn after_close; /* when the stream has closed */
	char *big;
};

static void p3_finish(struct ph3 *t);

static void p3_fail(struct ph3 *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void p3_removed_on_fail_cb(const struct error *e, const char *id,
				  void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	(void)id;
	if (err)
		fprintf(stderr, "FAIL: removing container %s: %s\n", t->id,
			errmsg ? errmsg : "?");
	p3_finish(t);
}

static void p3_fail(struct ph3 *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return;
	t->failed = 1;
	fprintf(stderr, "FAIL (engine, step %s): ", t->step);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	t->want = NULL;
	if (t->s)
		docker_stream_close(t->s);
	if (t->id[0] && !t->removing &&
	    container_remove(t->d, t->id, p3_removed_on_fail_cb, t) == 0)
		t->removing = 1;
	else
		p3_finish(t);
}

static void p3_finish(struct ph3 *t)
{
	if (t->finished)
		return;
	t->finished = 1;
	uv_timer_stop(&t->watchdog);
	uv_close((uv_handle_t *)&t->watchdog, NULL);
	/* Streams still open get on_close(-ECANCELED) from here. */
	docker_free(t->d);
	t->d = NULL;
}

static void p3_watchdog_cb(uv_timer_t *timer)
{
	p3_fail(timer->data, "no progress for 120 s");
}

static void p3_progress(struct ph3 *t, const char *step)
{
	t->step = step;
	uv_timer_again(&t->watchdog);
}

/* ---- an exec stream under test ---- */

static void p3_check(struct ph3 *t)
{
	struct buf *b;
	step3_fn next;

	if (!t->want || t->failed)
		return;
	b = &t->out[t->want_fd];
	if (b->len < t->want_len) {
		if (b->len && memcmp(b->p, t->want, b->len) != 0)
			p3_fail(t, "fd %d: got '%.80s', want '%.80s'",
				t->want_fd, b->p, t->want);
		return;
	}
	if (memcmp(b->p, t->want, t->want_len) != 0) {
		p3_fail(t, "fd %d: got '%.80s', want '%.80s'", t->want_fd, b->p,
			t->want);
		return;
	}
	buf_consume(b, t->want_len);
	next = t->next;
	t->want = NULL;
	uv_timer_again(&t->watchdog);
	next(t);
}

static void p3_expect(struct ph3 *t, int fd, const char *want, size_t len,
		      step3_fn next)
{
	t->want_fd = fd;
	t->want = want;
	t->want_len = len;
	t->next = next;
	p3_check(t);
}

static void p3_write(struct ph3 *t, const char *data, size_t len)
{
	int r = docker_stream_write(t->s, data, len);

	if (r < 0)
		p3_fail(t, "docker_stream_write: %s", uv_strerror(r));
}

static void p3_on_open(struct docker_stream *s, int err, const char *msg,
		       void *arg)
{
	struct ph3 *t = arg;

	(void)s;
	t->opened = 1;
	t->open_err = err;
	snprintf(t->open_msg, sizeof(t->open_msg), "%s", msg ? msg : "");
	if (!err && docker_stream_exec_id(s))
		snprintf(t->exec_id, sizeof(t->exec_id), "%s",
			 docker_stream_exec_id(s));
}

static void p3_on_data(struct docker_stream *s, int fd, const char *b, size_t n,
		       void *arg)
{
	struct ph3 *t = arg;

	(void)s;
	if (fd != 1 && fd != 2) {
		p3_fail(t, "on_data fd %d", fd);
		return;
	}
	buf_add(&t->out[fd], b, n);
	p3_check(t);
}

static void p3_on_close(struct docker_stream *s, int err, void *arg)
{
	struct ph3 *t = arg;
	step3_fn next = t->after_close;

	(void)s;
	t->s = NULL;
	t->closed = 1;
	t->close_err = err;
	if (t->failed || t->finished)
		return;
	if (!t->opened) {
		p3_fail(t, "on_close without on_open");
		return;
	}
	if (!next) {
		p3_fail(t, "stream closed early (%s, %s)",
			err ? uv_strerror(err) : "EOF",
			t->open_msg[0] ? t->open_msg : "no message");
		return;
	}
	t->after_close = NULL;
	uv_timer_again(&t->watchdog);
	next(t);
}

static int p3_exec(struct ph3 *t, const char *container,
		   const char *const *argv, const char *user)
{
	static const struct docker_stream_cbs cbs = {
		.on_open = p3_on_open,
		.on_data = p3_on_data,
		.on_close = p3_on_close,
	};
	int i, r;

	for (i = 0; i < 3; i++)
		buf_free(&t->out[i]);
	t->opened = t->closed = 0;
	t->open_err = t->close_err = 1;
	t->open_msg[0] = t->exec_id[0] = '\0';
	t->after_close = NULL;
	r = docker_exec_attach(t->d, container, argv, user, &cbs, t, &t->s);
	if (r < 0) {
		t->s = NULL;
		p3_fail(t, "docker_exec_attach: %s", uv_strerror(r));
	}
	return r;
}

/* GET /exec/{id}/json: the exit code the daemon recorded. */
struct exec_check {
	struct ph3 *t;
	int want_exit;
	step3_fn next;
};

static void p3_exec_json_cb(const struct docker_response *res, void *arg)
{
	struct exec_check *c = arg;
	struct ph3 *t = c->t;
	step3_fn next = c->next;
	int want = c->want_exit;
	cJSON *j;
	const cJSON *code, *running;

	free(c);
	if (t->failed)
		return;
	if (res->err || res->status != 200) {
		p3_fail(t, "GET /exec/%s/json: %s", t->exec_id,
			res->errmsg ? res->errmsg : "?");
		return;
	}
	j = cJSON_Parse(res->body);
	code = cJSON_GetObjectItemCaseSensitive(j, "ExitCode");
	running = cJSON_GetObjectItemCaseSensitive(j, "Running");
	if (!cJSON_IsNumber(code) || code->valueint != want ||
	    !cJSON_IsFalse(running)) {
		p3_fail(t, "exec after on_close: %.300s (want ExitCode %d)",
			res->body, want);
		cJSON_Delete(j);
		return;
	}
	cJSON_Delete(j);
	next(t);
}

static void p3_check_exit(struct ph3 *t, int want_exit, step3_fn next)
{
	struct exec_check *c = malloc(sizeof(*c));
	char path[128];

	if (!c) {
		p3_fail(t, "oom");
		return;
	}
	c->t = t;
	c->want_exit = want_exit;
	c->next = next;
	snprintf(path, sizeof(path), "/exec/%s/json", t->exec_id);
	if (docker_request(t->d, "GET", path, NULL, 10000, p3_exec_json_cb, c) <
	    0) {
		free(c);
		p3_fail(t, "request /exec/json");
	}
}

/* ---- the steps, in order ---- */

static void p3_list(struct ph3 *t);
static void p3_remove(struct ph3 *t);
static void p3_rename(struct ph3 *t);
static void p3_pause(struct ph3 *t);
static void p3_exec_missing(struct ph3 *t);

/* inspect, then check the status, the name and our label */
struct inspect_check {
	struct ph3 *t;
	enum container_status status;
	const char *name;
	step3_fn next;
};

static void p3_inspect_cb(const struct error *e,
			  const struct container_summary *got, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct inspect_check *c = arg;
	struct ph3 *t = c->t;
	step3_fn next = c->next;

	if (t->failed) {
		free(c);
		return;
	}
	if (err) {
		p3_fail(t, "inspect: %d %s", err, errmsg ? errmsg : "?");
		free(c);
		return;
	}
	/* Running and paused alike: its processes exist. */
	if (got->status != c->status || !got->running ||
	    strcmp(got->name, c->name) != 0 || strcmp(got->id, t->id) != 0 ||
	    !docker_label_find(got->labels, got->nlabels,
			       "org.mcp-sandbox.test")) {
		p3_fail(t,
			"inspect: status %d (running %d), name %s, want %d, "
			"%s",
			got->status, got->running, got->name, c->status,
			c->name);
		free(c);
		return;
	}
	free(c);
	next(t);
}

static void p3_inspect(struct ph3 *t, enum container_status status,
		       const char *name, step3_fn next)
{
	struct inspect_check *c = malloc(sizeof(*c));
	int r;

	if (!c) {
		p3_fail(t, "oom");
		return;
	}
	c->t = t;
	c->status = status;
	c->name = name;
	c->next = next;
	r = container_inspect(t->d, t->id, p3_inspect_cb, c);
	if (r < 0) {
		free(c);
		p3_fail(t, "container_inspect: %s", uv_strerror(r));
	}
}

/* After removal: inspect and memory both say -ENOENT. */
static void p3_gone_memory_cb(const struct error *e, uint64_t bytes, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	(void)bytes;
	if (t->failed)
		return;
	if (err != -ENOENT || !errmsg || !strstr(errmsg, "No such container")) {
		p3_fail(t, "memory of a removed container: %d %s", err,
			errmsg ? errmsg : "(null)");
		return;
	}
	fprintf(stderr, "ok   engine: removed; inspect and memory -> %s\n",
		errmsg);
	p3_finish(t);
}

static void p3_gone_inspect_cb(const struct error *e,
			       const struct container_summary *c, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;
	int r;

	if (t->failed)
		return;
	if (err != -ENOENT || c || !errmsg ||
	    !strstr(errmsg, "No such container")) {
		p3_fail(t, "inspect of a removed container: %d %s", err,
			errmsg ? errmsg : "(null)");
		return;
	}
	r = container_memory(t->d, t->id, p3_gone_memory_cb, t, NULL);
	if (r < 0)
		p3_fail(t, "container_memory: %s", uv_strerror(r));
}

static void p3_removed_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;
	int r;

	(void)id;
	if (t->failed)
		return;
	if (err) {
		t->id[0] = '\0';
		p3_fail(t, "remove: %s", errmsg ? errmsg : "?");
		return;
	}
	p3_progress(t, "inspect after remove");
	r = container_inspect(t->d, t->id, p3_gone_inspect_cb, t);
	if (r < 0)
		p3_fail(t, "container_inspect: %s", uv_strerror(r));
}

static void p3_remove(struct ph3 *t)
{
	int r;

	p3_progress(t, "remove");
	t->removing = 1;
	r = container_remove(t->d, t->id, p3_removed_cb, t);
	if (r < 0)
		p3_fail(t, "container_remove: %s", uv_strerror(r));
}

/* The list holds exactly want (0 or 1) containers named name (any name
 * when NULL), the one it holds is ours, and every name starts with
 * prefix (when not NULL). */
static int p3_list_has(struct ph3 *t, const struct container_summary *list,
		       size_t n, const char *prefix, const char *name, int want)
{
	int found = 0, ours = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		if (prefix && strncmp(list[i].name, prefix, strlen(prefix)))
			return 0;
		if (name && strcmp(list[i].name, name) != 0)
			continue;
		found++;
		ours &= strcmp(list[i].id, t->id) == 0;
	}
	return found == want && ours;
}

static void p3_list_label_cb(const struct error *e,
			     const struct container_summary *list, size_t n,
			     void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	if (t->failed)
		return;
	if (err || !p3_list_has(t, list, n, NULL, NULL, 1)) {
		p3_fail(t, "list by label %s: %d %s, %zu containers", t->label,
			err, errmsg ? errmsg : "", n);
		return;
	}
	fprintf(stderr, "ok   engine: list by name prefix finds the renamed "
			"container, not the old name; list by label too\n");
	p3_remove(t);
}

static void p3_list_old_cb(const struct error *e,
			   const struct container_summary *list, size_t n,
			   void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;
	int r;

	if (t->failed)
		return;
	if (err || !p3_list_has(t, list, n, t->name, t->name, 0)) {
		p3_fail(t, "list by the old name: %d %s, %zu containers", err,
			errmsg ? errmsg : "", n);
		return;
	}
	r = container_list(t->d, t->label, p3_list_label_cb, t);
	if (r < 0)
		p3_fail(t, "container_list: %s", uv_strerror(r));
}

static void p3_list_new_cb(const struct error *e,
			   const struct container_summary *list, size_t n,
			   void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;
	int r;

	if (t->failed)
		return;
	if (err || !p3_list_has(t, list, n, t->renamed, t->renamed, 1)) {
		p3_fail(t, "list by the new name: %d %s, %zu containers", err,
			errmsg ? errmsg : "", n);
		return;
	}
	r = container_list_named(t->d, t->name, p3_list_old_cb, t);
	if (r < 0)
		p3_fail(t, "container_list_named: %s", uv_strerror(r));
}

static void p3_list(struct ph3 *t)
{
	int r;

	p3_progress(t, "list");
	if (container_list_named(t->d, "", p3_list_new_cb, t) != -EINVAL ||
	    container_list_named(t->d, "a/b", p3_list_new_cb, t) != -EINVAL ||
	    container_list_named(t->d, "^x", p3_list_new_cb, t) != -EINVAL ||
	    container_list_named(t->d, NULL, p3_list_new_cb, t) != -EINVAL) {
		p3_fail(t, "a name prefix no name can start with was "
			   "accepted");
		return;
	}
	/* The name has a dot, which the filter's regular expression must
	 * take as a dot. */
	r = container_list_named(t->d, t->renamed, p3_list_new_cb, t);
	if (r < 0)
		p3_fail(t, "container_list_named: %s", uv_strerror(r));
}

static void p3_memory_cb(const struct error *e, uint64_t bytes, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	if (t->failed)
		return;
	if (err) {
		p3_fail(t, "memory: %d %s", err, errmsg ? errmsg : "?");
		return;
	}
	if (bytes <= 100 * 1024 || bytes >= ENGINE_MEMORY) {
		p3_fail(t, "memory in use %llu bytes: implausible",
			(unsigned long long)bytes);
		return;
	}
	fprintf(stderr,
		"ok   engine: memory in use %llu KiB (limit %llu KiB)\n",
		(unsigned long long)bytes / 1024,
		(unsigned long long)ENGINE_MEMORY / 1024);
	p3_list(t);
}

static void p3_memory(struct ph3 *t)
{
	int r;

	p3_progress(t, "memory");
	r = container_memory(t->d, t->id, p3_memory_cb, t, NULL);
	if (r < 0)
		p3_fail(t, "container_memory: %s", uv_strerror(r));
}

static void p3_renamed_inspected(struct ph3 *t)
{
	fprintf(stderr,
		"ok   engine: renamed to %s; a bad name -> daemon "
		"message\n",
		t->renamed);
	p3_memory(t);
}

static void p3_bad_rename_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	(void)id;
	if (t->failed)
		return;
	if (err != -EINVAL || !errmsg ||
	    !strstr(errmsg, "Invalid container name")) {
		p3_fail(t, "rename to a bad name: %d %s", err,
			errmsg ? errmsg : "(null)");
		return;
	}
	p3_inspect(t, CONTAINER_RUNNING, t->renamed, p3_renamed_inspected);
}

static void p3_renamed_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;
	int r;

	if (t->failed)
		return;
	if (err || !id || strcmp(id, t->id) != 0) {
		p3_fail(t, "rename: %d %s", err, errmsg ? errmsg : "?");
		return;
	}
	/* Spaces are URL-encoded on the way; the daemon refuses the name. */
	r = container_rename(t->d, t->id, "bad name", p3_bad_rename_cb, t);
	if (r < 0)
		p3_fail(t, "container_rename: %s", uv_strerror(r));
}

static void p3_rename(struct ph3 *t)
{
	int r;

	p3_progress(t, "rename");
	r = container_rename(t->d, t->id, t->renamed, p3_renamed_cb, t);
	if (r < 0)
		p3_fail(t, "container_rename: %s", uv_strerror(r));
}

static void p3_unpause_again_cb(const struct error *e, const char *id,
				void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	(void)id;
	if (t->failed)
		return;
	if (err != -EBUSY || !errmsg || !strstr(errmsg, "is not paused")) {
		p3_fail(t, "unpause of a running container: %d %s", err,
			errmsg ? errmsg : "(null)");
		return;
	}
	fprintf(stderr, "ok   engine: pause/unpause; twice -> -EBUSY: %s\n",
		errmsg);
	p3_rename(t);
}

static void p3_running_again(struct ph3 *t)
{
	if (container_unpause(t->d, t->id, p3_unpause_again_cb, t) < 0)
		p3_fail(t, "container_unpause");
}

static void p3_unpaused_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	(void)id;
	if (t->failed)
		return;
	if (err) {
		p3_fail(t, "unpause: %d %s", err, errmsg ? errmsg : "?");
		return;
	}
	p3_inspect(t, CONTAINER_RUNNING, t->name, p3_running_again);
}

static void p3_paused_memory_cb(const struct error *e, uint64_t bytes,
				void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	if (t->failed)
		return;
	if (err || bytes == 0) {
		p3_fail(t, "memory while paused: %d %s", err,
			errmsg ? errmsg : "");
		return;
	}
	p3_progress(t, "unpause");
	if (container_unpause(t->d, t->id, p3_unpaused_cb, t) < 0)
		p3_fail(t, "container_unpause");
}

static void p3_paused_exec_closed(struct ph3 *t)
{
	if (t->open_err != -EBUSY || t->close_err != -EBUSY ||
	    !strstr(t->open_msg, "is paused")) {
		p3_fail(t,
			"exec in a paused container: on_open %d '%s', "
			"on_close %d",
			t->open_err, t->open_msg, t->close_err);
		return;
	}
	fprintf(stderr, "ok   engine: exec while paused -> -EBUSY: %s\n",
		t->open_msg);
	if (container_memory(t->d, t->id, p3_paused_memory_cb, t, NULL) < 0)
		p3_fail(t, "container_memory");
}

static void p3_pause_again_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	static const char *const cat[] = {"cat", NULL};
	struct ph3 *t = arg;

	(void)id;
	if (t->failed)
		return;
	if (err != -EBUSY || !errmsg || !strstr(errmsg, "already paused")) {
		p3_fail(t, "pause of a paused container: %d %s", err,
			errmsg ? errmsg : "(null)");
		return;
	}
	fprintf(stderr, "ok   engine: pause twice -> -EBUSY: %s\n", errmsg);
	if (p3_exec(t, t->id, cat, NULL) == 0)
		t->after_close = p3_paused_exec_closed;
}

static void p3_paused(struct ph3 *t)
{
	if (container_pause(t->d, t->id, p3_pause_again_cb, t) < 0)
		p3_fail(t, "container_pause");
}

static void p3_paused_cb(const struct error *e, const char *id, void *arg)
{
	int err = e ? e->code : 0;
	const char *errmsg = e ? e->msg : NULL;
	struct ph3 *t = arg;

	if (t->failed)
		return;
	if (err || !id || strcmp(id, t->id) != 0) {
		p3_fail(t, "pause: %d %s", err, errmsg ? errmsg : "?");
		return;
	}
	p3_inspect(t, CONTAINER_PAUSED, t->name, p3_paused);
}

static void p3_pause(struct ph3 *t)
{
	int r;

	p3_progress(t, "pause");
	r = container_pause(t->d, t->id, p3_paused_cb, t);
	if (r < 0)
		p3_fail(t, "container_pause: %s", uv_strerror(r));
}

/* An exec closed by us after it opened: on_close(0). */
static void p3_closed_open_done(struct ph3 *t)
{
	if (t->close_err != 0) {
		p3_fail(t, "closing an open exec: on_close %d", t->close_err);
		return;
	}
	fprintf(stderr, "ok   engine: exec closed before on_open -> "
			"-ECANCELED twice; after -> on_close(0)\n");
	p3_pause(t);
}

static void p3_close_open_echoed(struct ph3 *t)
{
	t->after_close = p3_closed_open_done;
	docker_stream_close(t->s);
}

/* An exec closed before on_open: both callbacks with -ECANCELED. */
static void p3_cancelled_done(struct ph3 *t)
{
	static const char *const cat[] = {"cat", NULL};

	if (t->open_err != -ECANCELED || t->close_err != -ECANCELED) {
		p3_fail(t,
			"exec closed before on_open: on_open %d, on_close "
			"%d",
			t->open_err, t->close_err);
		return;
	}
	p3_progress(t, "exec closed after open");
	if (p3_exec(t, t->id, cat, NULL) < 0)
		return;
	p3_expect(t, 1, "x\n", 2, p3_close_open_echoed);
	p3_write(t, "x\n", 2);
}

static void p3_exec_cancel(struct ph3 *t)
{
	static const char *const cat[] = {"cat", NULL};

	p3_progress(t, "exec cancelled");
	if (p3_exec(t, t->id, cat, NULL) < 0)
		return;
	t->after_close = p3_cancelled_done;
	docker_stream_close(t->s);
	if (t->opened || t->closed)
		p3_fail(t, "callbacks ran inside docker_stream_close");
}

static void p3_bad_program_exit(struct ph3 *t)
{
	fprintf(stderr, "ok   engine: exec of a missing program opens, the "
			"runtime's error arrives on stdout, exit code 126\n");
	p3_exec_cancel(t);
}

static void p3_bad_program_closed(struct ph3 *t)
{
	if (t->open_err || t->close_err ||
	    !strstr(t->out[1].p ? t->out[1].p : "",
		    "no such file or directory")) {
		p3_fail(t,
			"exec of a missing program: open %d close %d, "
			"stdout '%s', stderr '%s'",
			t->open_err, t->close_err,
			t->out[1].p ? t->out[1].p : "",
			t->out[2].p ? t->out[2].p : "");
		return;
	}
	p3_check_exit(t, 126, p3_bad_program_exit);
}

static void p3_bad_program(struct ph3 *t)
{
	static const char *const argv[] = {"/no/such/program", NULL};

	p3_progress(t, "exec of a missing program");
	if (p3_exec(t, t->id, argv, NULL) == 0)
		t->after_close = p3_bad_program_closed;
}

static void p3_missing_closed(struct ph3 *t)
{
	if (t->open_err != -ENOENT || t->close_err != -ENOENT ||
	    !strstr(t->open_msg, "No such container")) {
		p3_fail(t,
			"exec in a missing container: on_open %d '%s', "
			"on_close %d",
			t->open_err, t->open_msg, t->close_err);
		return;
	}
	fprintf(stderr, "ok   engine: exec in a missing container -> %s\n",
		t->open_msg);
	p3_bad_program(t);
}

static void p3_exec_missing(struct ph3 *t)
{
	static const char *const cat[] = {"cat", NULL};

	p3_progress(t, "exec in a missing container");
	if (p3_exec(t, "sbx-no-such-container-0123456789", cat, NULL) == 0)
		t->after_close = p3_missing_closed;
}

static void p3_exec_exit_checked(struct ph3 *t)
{
	fprintf(stderr, "ok   engine: exec as uid 1000, echo, 256 KiB, "
			"stderr, exit -> on_close(0), exit code 7\n");
	p3_exec_missing(t);
}

static void p3_exec_closed(struct ph3 *t)
{
	if (t->close_err != 0 || t->out[1].len || t->out[2].len) {
		p3_fail(t, "exec ended with %d, left '%.60s' '%.60s'",
			t->close_err, t->out[1].p ? t->out[1].p : "",
			t->out[2].p ? t->out[2].p : "");
		return;
	}
	if (!t->exec_id[0]) {
		p3_fail(t, "no exec id");
		return;
	}
	p3_check_exit(t, 7, p3_exec_exit_checked);
}

static void p3_exec_done_seen(struct ph3 *t)
{
	/* The process has exited: EOF (on_close) follows on its own. */
	if (t->closed)
		p3_exec_closed(t);
	else
		t->after_close = p3_exec_closed;
}

static void p3_exec_big_seen(struct ph3 *t)
{
	p3_expect(t, 2, "done\n", 5, p3_exec_done_seen);
}

static void p3_exec_hello_seen(struct ph3 *t)
{
	size_t i;

	t->big = malloc(EXEC_BIG);
	if (!t->big) {
		p3_fail(t, "oom");
		return;
	}
	for (i = 0; i < EXEC_BIG; i++)
		t->big[i] = (char)((i * 31 + i / 1000) & 0xff);
	p3_expect(t, 1, t->big, EXEC_BIG, p3_exec_big_seen);
	p3_write(t, t->big, EXEC_BIG);
}

static void p3_exec_uid_seen(struct ph3 *t)
{
	p3_expect(t, 1, "hello\n", 6, p3_exec_hello_seen);
	p3_write(t, "hello\n", 6);
}

/* cat that stops after a known number of bytes, so the process exits
 * while our side of the stream is still open. head writes through stdio:
 * "hello" comes back when the first head exits, the rest as its buffer
 * fills and when the second exits. */
static void p3_exec_first(struct ph3 *t)
{
	static char count[32];
	static const char *argv[] = {"sh", "-c",
				     "id -u >&2; head -n 1; head -c \"$0\"; "
				     "echo done >&2; exit 7",
				     count, NULL};

	snprintf(count, sizeof(count), "%zu", EXEC_BIG);
	p3_progress(t, "exec");
	if (p3_exec(t, t->id, argv, "1000") < 0)
		return;
	p3_expect(t, 2, "1000\n", 5, p3_exec_uid_seen);
}

static void p3_started_cb(const struct docker_response *res, void *arg)
{
	struct ph3 *t = arg;

	if (t->failed)
		return;
	if (res->err || res->status != 204) {
		p3_fail(t, "start: %s", res->errmsg ? res->errmsg : "?");
		return;
	}
	p3_exec_first(t);
}

static void p3_created_cb(const struct docker_response *res, void *arg)
{
	struct ph3 *t = arg;
	cJSON *j;
	const cJSON *id;
	char path[160];

	if (res->err || res->status == 404) {
		if (ci()) {
			p3_fail(t, "create: %s (CI=true)", res->errmsg);
			return;
		}
		fprintf(stderr, "SKIP engine: %s\n", res->errmsg);
		t->skip = 1;
		p3_finish(t);
		return;
	}
	if (res->status != 201) {
		p3_fail(t, "create: %ld %s", res->status,
			res->errmsg ? res->errmsg : "");
		return;
	}
	j = cJSON_Parse(res->body);
	id = cJSON_GetObjectItemCaseSensitive(j, "Id");
	if (!cJSON_IsString(id) || strlen(id->valuestring) >= sizeof(t->id)) {
		cJSON_Delete(j);
		p3_fail(t, "create: no Id in %s", res->body);
		return;
	}
	snprintf(t->id, sizeof(t->id), "%s", id->valuestring);
	cJSON_Delete(j);
	p3_progress(t, "start");
	snprintf(path, sizeof(path), "/containers/%s/start", t->id);
	if (docker_request(t->d, "POST", path, NULL, 30000, p3_started_cb, t) <
	    0)
		p3_fail(t, "request start");
}

/* A plain container that idles: sleep as PID 1, a memory limit to compare
 * the reported use with, labels as the sandboxes carry them. */
static void p3_negotiated_cb(const struct docker_response *res, void *arg)
{
	struct ph3 *t = arg;
	cJSON *c, *ep, *labels, *hc;
	const char *eq = strchr(t->label, '=');
	char key[64], path[128];
	char *body;
	int r;

	if (res->err || res->status != 200) {
		if (ci()) {
			p3_fail(t, "GET /version: %s (CI=true)", res->errmsg);
			return;
		}
		fprintf(stderr, "SKIP engine: %s\n", res->errmsg);
		t->skip = 1;
		p3_finish(t);
		return;
	}
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "Image", t->image);
	ep = cJSON_AddArrayToObject(c, "Entrypoint");
	cJSON_AddItemToArray(ep, cJSON_CreateString("sleep"));
	cJSON_AddItemToArray(ep, cJSON_CreateString("600"));
	cJSON_AddArrayToObject(c, "Cmd");
	labels = cJSON_AddObjectToObject(c, "Labels");
	snprintf(key, sizeof(key), "%.*s", (int)(eq - t->label), t->label);
	cJSON_AddStringToObject(labels, key, eq + 1);
	hc = cJSON_AddObjectToObject(c, "HostConfig");
	cJSON_AddStringToObject(hc, "NetworkMode", "none");
	cJSON_AddNumberToObject(hc, "Memory", (double)ENGINE_MEMORY);
	cJSON_AddNumberToObject(hc, "MemorySwap", (double)ENGINE_MEMORY);
	body = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	p3_progress(t, "create");
	snprintf(path, sizeof(path), "/containers/create?name=%s", t->name);
	r = docker_request(t->d, "POST", path, body, 30000, p3_created_cb, t);
	free(body);
	if (r < 0)
		p3_fail(t, "request create: %s", uv_strerror(r));
}

static int phase_engine(void)
{
	static struct ph3 t;
	struct error err;
	int r, i;

	uv_loop_init(&t.loop);
	uv_timer_init(&t.loop, &t.watchdog);
	t.watchdog.data = &t;
	uv_timer_start(&t.watchdog, p3_watchdog_cb, 120000, 120000);
	t.image = getenv("SBX_TEST_IMAGE");
	if (!t.image || !t.image[0])
		t.image = "mcp-sandbox/bash:latest";
	snprintf(t.name, sizeof(t.name), "sbx-test-engine-%d", (int)getpid());
	snprintf(t.renamed, sizeof(t.renamed), "sbx-test-renamed.%d",
		 (int)getpid());
	/* "test" is the key the inspect check looks for. */
	snprintf(t.label, sizeof(t.label), "org.mcp-sandbox.test=engine-%d",
		 (int)getpid());
	t.step = "negotiate";

	r = docker_new(&t.loop, NULL, &t.d, &err);
	if (r < 0) {
		fprintf(stderr, "SKIP engine: %s\n", err.msg);
		t.skip = 1;
		p3_finish(&t);
	} else if ((r = docker_negotiate(t.d, p3_negotiated_cb, &t)) < 0) {
		p3_fail(&t, "docker_negotiate: %s", uv_strerror(r));
	}
	uv_run(&t.loop, UV_RUN_DEFAULT);

	r = uv_loop_close(&t.loop);
	if (r != 0) {
		fprintf(stderr, "FAIL: uv_loop_close: %s (a handle leaked)\n",
			uv_strerror(r));
		t.failed = 1;
	} else if (!t.failed && !t.skip) {
		fprintf(stderr,
			"ok   engine: phase done, uv_loop_close() == 0\n");
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
	int real, engine;

	/* As main.c does: a peer's hang-up is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (getenv("SBX_TEST_DEBUG"))
		log_set_level(LOG_LEVEL_DEBUG);
	real = phase_real();
	if (real == 1)
		return 1;
	engine = phase_engine();
	if (engine == 1)
		return 1;
	return real == SKIP || engine == SKIP ? SKIP : 0;
}
