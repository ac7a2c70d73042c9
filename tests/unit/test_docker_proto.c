/*
 * test_docker_proto.c - what the Docker client parses, fed hostile input
 * without a daemon: the stdout/stderr demultiplexer (docker_demux.h), the
 * hijack handshake's answer, DOCKER_HOST, API versions, error answers and
 * exec bodies, container and volume listings, inspections, the `docker
 * stats` arithmetic (docker_proto.h) and the daemon's own description
 * and its images (docker.h: docker_info_parse, docker_libpod_info_parse,
 * docker_image_parse).
 *
 * Input is fed from exact-size heap copies, so under ASan (scripts/test.sh
 * runs the unit label there) a read past any piece fails the test.
 */
#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "docker_demux.h"
#include "docker_proto.h"
#include "docker/container.h"
#include "docker/docker.h"
#include "testlib.h"

/* A copy of p[0..n) in a block of exactly n bytes. */
static char *exact(const char *p, size_t n)
{
	char *c = malloc(n ? n : 1);

	if (!c) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memcpy(c, p, n);
	return c;
}

/* A string literal and its length, NULs included. */
#define LIT(s) s, sizeof(s) - 1

/* Deterministic, so a failure reproduces. */
static uint32_t rnd_state = 0x9e3779b9u;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/* ------------------------------------------------------------------ */
/* The demultiplexer                                                   */

struct sink {
	char out[2][4096]; /* by fd - 1 */
	size_t len[2];
	size_t daemon_error_bytes;
	int err;     /* the first error returned */
	int oob;     /* a piece outside its input */
	int overrun; /* more payload than the sink holds */
};

static void put_frame(char *buf, size_t *len, int stream, const char *data,
		      size_t n)
{
	buf[(*len)++] = (char)stream;
	buf[(*len)++] = 0;
	buf[(*len)++] = 0;
	buf[(*len)++] = 0;
	buf[(*len)++] = (char)(n >> 24);
	buf[(*len)++] = (char)(n >> 16);
	buf[(*len)++] = (char)(n >> 8);
	buf[(*len)++] = (char)n;
	memcpy(buf + *len, data, n);
	*len += n;
}

/* Feeds p[0..n) as one read (from an exact-size copy). */
static void demux_feed(struct docker_demux *dm, struct sink *s, const char *p,
		       size_t n)
{
	char *copy = exact(p, n);
	const char *q = copy;
	size_t left = n;
	struct docker_demux_piece piece;
	int r;

	while ((r = docker_demux_next(dm, &q, &left, &piece)) != 0) {
		if (r < 0) {
			if (!s->err)
				s->err = r;
			break;
		}
		if (piece.len == 0 || piece.data < copy ||
		    piece.data + piece.len > copy + n ||
		    (piece.fd != 1 && piece.fd != 2))
			s->oob = 1;
		else if (s->len[piece.fd - 1] + piece.len > sizeof(s->out[0]))
			s->overrun = 1;
		else {
			memcpy(s->out[piece.fd - 1] + s->len[piece.fd - 1],
			       piece.data, piece.len);
			s->len[piece.fd - 1] += piece.len;
		}
		if (piece.daemon_error)
			s->daemon_error_bytes += piece.len;
	}
	CHECK(q == copy + (n - left) && left <= n);
	free(copy);
}

/* The reference stream: every stream id, an empty frame, a frame longer
 * than a header, frames shorter than one. */
static size_t ref_stream(char *buf)
{
	size_t len = 0;

	put_frame(buf, &len, 1, "hello ", 6);
	put_frame(buf, &len, 2, "warn\n", 5);
	put_frame(buf, &len, 1, "", 0);
	put_frame(buf, &len, 0, "echo", 4); /* stdin echoed: stdout */
	put_frame(buf, &len, 3, "daemon says no\n", 15);
	put_frame(buf, &len, 1, "x", 1);
	put_frame(buf, &len, 2, "a longer line on stderr\n", 24);
	put_frame(buf, &len, 1, "world\n", 6);
	return len;
}

static const char ref_out[] = "hello echoxworld\n";
static const char ref_err[] = "warn\ndaemon says no\na longer line on stderr\n";

static int sink_is_ref(const struct sink *s)
{
	return !s->err && !s->oob && !s->overrun &&
	       s->len[0] == strlen(ref_out) &&
	       memcmp(s->out[0], ref_out, s->len[0]) == 0 &&
	       s->len[1] == strlen(ref_err) &&
	       memcmp(s->out[1], ref_err, s->len[1]) == 0 &&
	       s->daemon_error_bytes == 15;
}

static void t_demux_splits(void)
{
	char buf[512];
	size_t n = ref_stream(buf);
	struct docker_demux dm;
	static struct sink s;
	char boundary[sizeof(buf) + 1] = {0}; /* where a frame starts */
	size_t i, j;
	int bad = 0;

	for (i = 0; i < n; i += 8 + ((size_t)(unsigned char)buf[i + 6] << 8 |
				     (unsigned char)buf[i + 7]))
		boundary[i] = 1;
	boundary[n] = 1;

	/* In one read. */
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	demux_feed(&dm, &s, buf, n);
	CHECK(sink_is_ref(&s));
	CHECK(!docker_demux_partial(&dm));

	/* Byte by byte. */
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	for (i = 0; i < n; i++)
		demux_feed(&dm, &s, buf + i, 1);
	CHECK(sink_is_ref(&s));
	CHECK(!docker_demux_partial(&dm));

	/* Split in three at every pair of places (empty reads included). */
	for (i = 0; i <= n; i++)
		for (j = i; j <= n; j++) {
			memset(&s, 0, sizeof(s));
			docker_demux_init(&dm);
			demux_feed(&dm, &s, buf, i);
			bad |= docker_demux_partial(&dm) != !boundary[i];
			demux_feed(&dm, &s, buf + i, j - i);
			demux_feed(&dm, &s, buf + j, n - j);
			bad |= !sink_is_ref(&s) || docker_demux_partial(&dm);
		}
	CHECK(!bad);
}

static void t_demux_truncated(void)
{
	static const char hdr[8] = {1, 0, 0, 0, 0, 0, 0, 10};
	struct docker_demux dm;
	static struct sink s;
	size_t i;

	/* A header cut anywhere: nothing out, but the stream is mid-frame. */
	for (i = 1; i < 8; i++) {
		memset(&s, 0, sizeof(s));
		docker_demux_init(&dm);
		demux_feed(&dm, &s, hdr, i);
		CHECK(s.len[0] == 0 && s.len[1] == 0 && !s.err);
		CHECK(docker_demux_partial(&dm));
	}
	/* A payload cut short: what came is delivered, and it shows. */
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	demux_feed(&dm, &s, hdr, 8);
	CHECK(docker_demux_partial(&dm));
	demux_feed(&dm, &s, "abcd", 4);
	CHECK(s.len[0] == 4 && memcmp(s.out[0], "abcd", 4) == 0);
	CHECK(docker_demux_partial(&dm));
	demux_feed(&dm, &s, "efghij", 6);
	CHECK(s.len[0] == 10 && !docker_demux_partial(&dm));
	/* Nothing in, nothing out. */
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	demux_feed(&dm, &s, "", 0);
	CHECK(s.len[0] == 0 && !s.err && !docker_demux_partial(&dm));
}

static void t_demux_oversized(void)
{
	/* 4 GiB - 1 announced: streamed through as it comes, nothing
	 * allocated from the length. */
	static const char hdr[8] = {2, 0, 0, 0, '\xff', '\xff', '\xff', '\xff'};
	char payload[1000];
	struct docker_demux dm;
	static struct sink s;

	memset(payload, 'z', sizeof(payload));
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	demux_feed(&dm, &s, hdr, 8);
	demux_feed(&dm, &s, payload, sizeof(payload));
	demux_feed(&dm, &s, payload, sizeof(payload));
	CHECK(!s.err && !s.oob && s.len[1] == 2 * sizeof(payload));
	CHECK(dm.left == 0xffffffffu - 2 * sizeof(payload));
	CHECK(docker_demux_partial(&dm));
	/* The next header is still payload to the parser. */
	demux_feed(&dm, &s, "\1\0\0\0\0\0\0\1x", 9);
	CHECK(s.len[0] == 0 && s.len[1] == 2 * sizeof(payload) + 9);

	/* Padding bytes are ignored, as Docker's own client does. */
	memset(&s, 0, sizeof(s));
	docker_demux_init(&dm);
	demux_feed(&dm, &s, "\1\xff\xff\xff\0\0\0\2ok", 10);
	CHECK(!s.err && s.len[0] == 2 && memcmp(s.out[0], "ok", 2) == 0);
}

static void t_demux_unknown_stream(void)
{
	char buf[64];
	size_t n;
	struct docker_demux dm;
	static struct sink s;
	int id, bad = 0;

	for (id = 4; id < 256; id++) {
		n = 0;
		put_frame(buf, &n, 1, "ok", 2);
		put_frame(buf, &n, id, "xx", 2);
		put_frame(buf, &n, 1, "after", 5);
		memset(&s, 0, sizeof(s));
		docker_demux_init(&dm);
		demux_feed(&dm, &s, buf, n);
		/* What came before is delivered; nothing after. */
		bad |= s.err != -EPROTO || dm.bad_stream != id ||
		       s.len[0] != 2 || s.len[1] != 0;
		/* Failed for good, even on a well-formed frame. */
		memset(&s, 0, sizeof(s));
		demux_feed(&dm, &s, "\1\0\0\0\0\0\0\1x", 9);
		bad |= s.err != -EPROTO || s.len[0] != 0;
	}
	CHECK(!bad);
}

/* Random bytes in random reads: pieces stay inside their input, payload
 * never exceeds what came, and an error, once seen, stays. */
static void t_demux_garbage(void)
{
	static char buf[4096];
	struct docker_demux dm;
	static struct sink s;
	int round, bad = 0;

	for (round = 0; round < 2000; round++) {
		size_t n = rnd() % sizeof(buf), off = 0;
		size_t i;

		for (i = 0; i < n; i++) {
			uint32_t r = rnd();

			/* Mostly plausible headers: small ids and lengths. */
			buf[i] = (char)(r % 4 == 0 ? r >> 8 : (r >> 8) % 4);
		}
		memset(&s, 0, sizeof(s));
		docker_demux_init(&dm);
		while (off < n) {
			size_t take = 1 + rnd() % 64;

			if (take > n - off)
				take = n - off;
			demux_feed(&dm, &s, buf + off, take);
			off += take;
		}
		bad |= s.oob || s.len[0] + s.len[1] > n ||
		       (s.err && s.err != -EPROTO) ||
		       (s.err && dm.bad_stream < 4);
	}
	CHECK(!bad);
}

/* ------------------------------------------------------------------ */
/* The handshake's answer                                              */

static const char upgrade[] =
	"HTTP/1.1 101 UPGRADED\r\n"
	"Content-Type: application/vnd.docker.raw-stream\r\n"
	"Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n";

/* Feeds p[0..n) in one read from an exact-size copy; *used as fed. */
static int answer_feed(struct docker_answer *a, const char *p, size_t n,
		       size_t *used)
{
	char *copy = exact(p, n);
	int r = docker_answer_feed(a, copy, n, used);

	free(copy);
	return r;
}

static void t_answer_upgrade(void)
{
	char buf[256];
	size_t head = strlen(upgrade), n, i, used;
	struct docker_answer a;
	int bad = 0;

	/* The answer and the first stream bytes in one read. */
	n = (size_t)snprintf(buf, sizeof(buf), "%s%s", upgrade,
			     "\1\0\0\0\0\0\0\2hi");
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, buf, n, &used) == DOCKER_ANSWER_UPGRADED);
	CHECK(used == head);
	CHECK(a.status == 101);
	docker_answer_close(&a);
	docker_answer_close(&a); /* twice is fine */

	/* Split at every byte: MORE until the head is whole, then UPGRADED
	 * with exactly the rest of the head taken. */
	for (i = 0; i < head; i++) {
		int r;

		CHECK(docker_answer_init(&a) == 0);
		r = answer_feed(&a, buf, i, &used);
		bad |= r != DOCKER_ANSWER_MORE || used != i;
		r = answer_feed(&a, buf + i, n - i, &used);
		bad |= r != DOCKER_ANSWER_UPGRADED || used != head - i;
		docker_answer_close(&a);
	}
	CHECK(!bad);

	/* Byte by byte. */
	CHECK(docker_answer_init(&a) == 0);
	for (i = 0; i < head - 1; i++)
		bad |= answer_feed(&a, buf + i, 1, &used) != DOCKER_ANSWER_MORE;
	CHECK(!bad);
	CHECK(answer_feed(&a, buf + i, 1, &used) == DOCKER_ANSWER_UPGRADED &&
	      used == 1);
	docker_answer_close(&a);

	/* Daemons before API 1.2x hijack with a plain 200; a status line
	 * without a reason phrase is still HTTP. */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, LIT("HTTP/1.0 200 OK\r\n\r\nraw"), &used) ==
		      DOCKER_ANSWER_UPGRADED &&
	      used == 19);
	docker_answer_close(&a);
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, LIT("HTTP/1.1 101\r\n\r\n"), &used) ==
	      DOCKER_ANSWER_UPGRADED);
	docker_answer_close(&a);
}

static void t_answer_refused(void)
{
	static const char not_found[] =
		"HTTP/1.1 404 Not Found\r\n"
		"Content-Type: application/json\r\n"
		"Content-Length: 40\r\n\r\n"
		"{\"message\":\"No such container: missing\"}";
	static const char chunked[] =
		"HTTP/1.1 409 Conflict\r\n"
		"Transfer-Encoding:  chunked\r\n\r\n"
		"27\r\n{\"message\":\"container 1234 is paused\"}\n\r\n"
		"0\r\n\r\n";
	char msg[128];
	size_t n = strlen(not_found), i, used;
	struct docker_answer a;
	int bad = 0;

	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, not_found, n, &used) == DOCKER_ANSWER_REFUSED);
	CHECK(used == n);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strcmp(msg, "No such container: missing") == 0);
	CHECK(docker_status_to_err(a.status) == -ENOENT);
	docker_answer_close(&a);

	/* Split anywhere: complete only with the body's last byte. */
	for (i = 1; i < n; i++) {
		CHECK(docker_answer_init(&a) == 0);
		bad |= answer_feed(&a, not_found, i, &used) !=
		       DOCKER_ANSWER_MORE;
		bad |= answer_feed(&a, not_found + i, n - i, &used) !=
		       DOCKER_ANSWER_REFUSED;
		docker_answer_message(&a, msg, sizeof(msg));
		bad |= strcmp(msg, "No such container: missing") != 0;
		docker_answer_close(&a);
	}
	CHECK(!bad);

	/* Chunked: complete at the last chunk. */
	n = strlen(chunked);
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, chunked, n - 1, &used) == DOCKER_ANSWER_MORE);
	CHECK(answer_feed(&a, chunked + n - 1, 1, &used) ==
	      DOCKER_ANSWER_REFUSED);
	CHECK(a.chunked && a.status == 409);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strcmp(msg, "container 1234 is paused") == 0);
	docker_answer_close(&a);

	/* No length: the body ends with the connection; plain text. */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, LIT("HTTP/1.1 500 X\r\n\r\nit broke\r\n"),
			  &used) == DOCKER_ANSWER_MORE);
	CHECK(docker_answer_eof(&a) == DOCKER_ANSWER_REFUSED);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strcmp(msg, "it broke") == 0);
	CHECK(docker_status_to_err(a.status) == -EIO);
	docker_answer_close(&a);

	/* A negative length counts as none; an empty body, the status. */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a,
			  LIT("HTTP/1.1 403 X\r\nContent-Length: -5\r\n\r\n"),
			  &used) == DOCKER_ANSWER_MORE);
	CHECK(docker_answer_eof(&a) == DOCKER_ANSWER_REFUSED);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strcmp(msg, "HTTP status 403") == 0);
	docker_answer_close(&a);

	/* A NUL inside the head hides the headers after it; still safe. */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(
		      &a,
		      LIT("HTTP/1.1 400 X\r\n\0Content-Length: 3\r\n\r\nabc"),
		      &used) == DOCKER_ANSWER_MORE);
	CHECK(docker_answer_eof(&a) == DOCKER_ANSWER_REFUSED);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strcmp(msg, "abc") == 0);
	docker_answer_close(&a);
}

static void t_answer_hostile(void)
{
	static const struct {
		const char *p;
		size_t n;
	} not_http[] = {
		{LIT("SSH-2.0-OpenSSH_9.6\r\n\r\n")},
		{LIT("HTTP/1.1 1x1 X\r\n\r\n")},
		{LIT("HTTP/1.1 099 X\r\n\r\n")},
		{LIT("HTTP/1.1 600 X\r\n\r\n")},
		{LIT("HTTP/1.1  101 X\r\n\r\n")},
		{LIT("HTTP/1.1 +10 X\r\n\r\n")},
		{LIT("HTTP/1.1 1011 X\r\n\r\n")},
		{LIT("HTTP/2 101 X\r\n\r\n")},
		{LIT("HTTP/1. 101 X\r\n\r\n")},
		{LIT("HTTP/1.1\r\n\r\n")},
		{LIT("HTTP/1.\r\n\r\n")},
		{LIT("\r\n\r\n")},
		{LIT("HTTP/1.1 10\0 X\r\n\r\n")},
		{LIT("HTTP/1.1 101X\r\n\r\n")},
	};
	static char big[DOCKER_ANSWER_HEAD_MAX + DOCKER_ANSWER_BODY_MAX * 2];
	struct docker_answer a;
	char msg[64];
	size_t i, used, off;

	for (i = 0; i < sizeof(not_http) / sizeof(not_http[0]); i++) {
		CHECK(docker_answer_init(&a) == 0);
		CHECK(answer_feed(&a, not_http[i].p, not_http[i].n, &used) ==
		      -EPROTO);
		docker_answer_close(&a);
	}

	/* The connection ends before the head does. */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(docker_answer_eof(&a) == -ECONNRESET);
	CHECK(answer_feed(&a, upgrade, 20, &used) == DOCKER_ANSWER_MORE);
	CHECK(docker_answer_eof(&a) == -ECONNRESET);
	docker_answer_close(&a);

	/* A head that never ends: refused at the cap, whatever the reads. */
	memset(big, 'a', sizeof(big));
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, big, sizeof(big), &used) == -E2BIG);
	CHECK(used == DOCKER_ANSWER_HEAD_MAX);
	docker_answer_close(&a);
	CHECK(docker_answer_init(&a) == 0);
	for (off = 0; off + 1000 < DOCKER_ANSWER_HEAD_MAX; off += 1000)
		CHECK(answer_feed(&a, big, 1000, &used) == DOCKER_ANSWER_MORE);
	CHECK(answer_feed(&a, big, 1000, &used) == -E2BIG);
	docker_answer_close(&a);

	/* An error body over the cap: cut there, the rest dropped. */
	i = (size_t)snprintf(big, sizeof(big),
			     "HTTP/1.1 500 X\r\nContent-Length: 999999999\r\n"
			     "\r\n");
	big[i] = 'a'; /* snprintf's NUL */
	CHECK(docker_answer_init(&a) == 0);
	CHECK(answer_feed(&a, big, sizeof(big), &used) ==
	      DOCKER_ANSWER_REFUSED);
	CHECK(used == sizeof(big));
	CHECK(a.len == i + DOCKER_ANSWER_BODY_MAX);
	docker_answer_message(&a, msg, sizeof(msg));
	CHECK(strlen(msg) == sizeof(msg) - 1 && msg[0] == 'a');
	docker_answer_close(&a);
}

/* Random bytes, random reads: only the documented results, used within
 * the input, and the answer's buffer never overrun (ASan). */
static void t_answer_garbage(void)
{
	static char buf[8192];
	static const char *const starts[] = {
		"", "HTTP/1.1 ", "HTTP/1.1 404 X\r\n", "HTTP/1.1 101 X\r\n"};
	struct docker_answer a;
	char msg[256];
	int round, bad = 0;

	for (round = 0; round < 500; round++) {
		const char *st = starts[rnd() % 4];
		size_t n = strlen(st) + rnd() % (sizeof(buf) - 64), off = 0;
		size_t i, used;
		int r = DOCKER_ANSWER_MORE;

		for (i = 0; st[i]; i++) /* the start, without its NUL */
			buf[i] = st[i];
		for (; i < n; i++) {
			uint32_t x = rnd();

			if (x % 3 == 0)
				buf[i] = (char)(x >> 8);
			else if (x % 3 == 1)
				buf[i] = '\r';
			else
				buf[i] = "\n: 0123456789"[x % 13];
		}
		CHECK(docker_answer_init(&a) == 0);
		while (off < n && r == DOCKER_ANSWER_MORE) {
			size_t take = 1 + rnd() % 512;

			if (take > n - off)
				take = n - off;
			r = answer_feed(&a, buf + off, take, &used);
			bad |= used > take;
			off += take;
		}
		if (r == DOCKER_ANSWER_MORE)
			r = docker_answer_eof(&a);
		bad |= r != DOCKER_ANSWER_UPGRADED &&
		       r != DOCKER_ANSWER_REFUSED && r != -EPROTO &&
		       r != -E2BIG && r != -ECONNRESET;
		if (r == DOCKER_ANSWER_REFUSED) {
			docker_answer_message(&a, msg, sizeof(msg));
			bad |= strlen(msg) >= sizeof(msg);
		}
		docker_answer_close(&a);
	}
	CHECK(!bad);
}

/* ------------------------------------------------------------------ */
/* DOCKER_HOST                                                         */

static void t_host(void)
{
	static char long_path[200], long_host[300];
	struct docker_host h;
	struct error err = {0};

	CHECK(docker_host_parse("unix:///var/run/docker.sock", 0, &h, &err) ==
	      0);
	CHECK(strcmp(h.endpoint, "unix:///var/run/docker.sock") == 0);
	CHECK(strcmp(h.unix_path, "/var/run/docker.sock") == 0);
	CHECK(strcmp(h.base_url, "http://localhost") == 0);
	CHECK(strcmp(h.host_hdr, "localhost") == 0);
	/* TLS means nothing to a unix socket (as for the docker CLI). */
	CHECK(docker_host_parse("unix:///s", 1, &h, &err) == 0 && !h.tls);

	CHECK(docker_host_parse("tcp://127.0.0.1", 0, &h, &err) == 0);
	CHECK(strcmp(h.endpoint, "tcp://127.0.0.1:2375") == 0);
	CHECK(strcmp(h.base_url, "http://127.0.0.1:2375") == 0);
	CHECK(h.unix_path[0] == '\0');
	CHECK(docker_host_parse("http://docker:1234/", 0, &h, &err) == 0);
	CHECK(strcmp(h.host_hdr, "docker:1234") == 0);
	CHECK(docker_host_parse("tcp://[::1]", 0, &h, &err) == 0);
	CHECK(strcmp(h.host_hdr, "[::1]:2375") == 0);
	CHECK(docker_host_parse("tcp://[::1]:99", 0, &h, &err) == 0);
	CHECK(strcmp(h.host_hdr, "[::1]:99") == 0);

	err.msg[0] = '\0';
	CHECK(docker_host_parse("unix://relative", 0, &h, &err) == -EINVAL &&
	      err.code == -EINVAL && err.msg[0]);
	memset(long_path, 'p', sizeof(long_path) - 1);
	long_path[0] = '/';
	{
		char url[220];

		snprintf(url, sizeof(url), "unix://%s", long_path);
		CHECK(docker_host_parse(url, 0, &h, &err) == -ENAMETOOLONG);
	}
	CHECK(docker_host_parse("ssh://host", 0, &h, &err) == -EPROTONOSUPPORT);
	CHECK(docker_host_parse("", 0, &h, &err) == -EPROTONOSUPPORT);
	CHECK(docker_host_parse("tcp://host:2376", 1, &h, &err) == 0 && h.tls);
	CHECK(strcmp(h.base_url, "https://host:2376") == 0);
	CHECK(docker_host_parse("tcp://host", 1, &h, &err) == 0);
	CHECK(strcmp(h.endpoint, "tcp://host:2376") == 0);
	CHECK(docker_host_parse("http://host", 1, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://host/v1.41", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://a b", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://user@host", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://host?x", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://ho\x01st", 0, &h, &err) == -EINVAL);
	CHECK(docker_host_parse("tcp://h\xc3\xa9", 0, &h, &err) == -EINVAL);
	memcpy(long_host, "tcp://", 6);
	memset(long_host + 6, 'h', 256);
	CHECK(docker_host_parse(long_host, 0, &h, &err) == -EINVAL);
	long_host[6 + 255] = '\0';
	CHECK(docker_host_parse(long_host, 0, &h, &err) == 0);
}

/* ------------------------------------------------------------------ */
/* Versions, errors, ids, exec bodies                                  */

static void t_versions(void)
{
	static const char *const bad[] = {
		"",	 "1",	  "1.",	    ".1",     "100.1", "1.1000",
		" 1.41", "+1.41", "1.+41",  "1.41 ",  "1.41a", "1.-1",
		"1,41",	 "v1.41", "1.41.0", "0x1.41", "1..41",
	};
	char out[16], theirs[16];
	size_t i;

	CHECK(docker_api_version_num("1.41") == 1041);
	CHECK(docker_api_version_num("1.0") == 1000);
	CHECK(docker_api_version_num("0.9") == 9);
	CHECK(docker_api_version_num("99.999") == 99999);
	CHECK(docker_api_version_num(DOCKER_API_VERSION_MAX) > 1000);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(docker_api_version_num(bad[i]) == -1);

	CHECK(docker_api_version_pick(LIT("{\"ApiVersion\":\"1.45\"}"), out,
				      sizeof(out), theirs,
				      sizeof(theirs)) == 0);
	CHECK(strcmp(out, DOCKER_API_VERSION_MAX) == 0);
	CHECK(strcmp(theirs, "1.45") == 0);
	CHECK(docker_api_version_pick(LIT("{\"ApiVersion\":\"1.41\"}"), out,
				      sizeof(out), theirs,
				      sizeof(theirs)) == 0);
	CHECK(strcmp(out, "1.41") == 0);
	strcpy(out, "keep");
	CHECK(docker_api_version_pick(LIT("{\"ApiVersion\":1.41}"), out,
				      sizeof(out), theirs,
				      sizeof(theirs)) == -EPROTO);
	CHECK(docker_api_version_pick(LIT("{\"ApiVersion\":\"1.41 \"}"), out,
				      sizeof(out), theirs,
				      sizeof(theirs)) == -EPROTO);
	CHECK(docker_api_version_pick(LIT("{\"Version\":\"24\"}"), out,
				      sizeof(out), theirs,
				      sizeof(theirs)) == -EPROTO);
	CHECK(docker_api_version_pick(LIT("<html>"), out, sizeof(out), theirs,
				      sizeof(theirs)) == -EPROTO);
	CHECK(strcmp(out, "keep") == 0);
	{
		/* Only len bytes count. */
		static const char cut[] = "{\"ApiVersion\":\"1.41\"}";
		char *c = exact(cut, 10);

		CHECK(docker_api_version_pick(c, 10, out, sizeof(out), theirs,
					      sizeof(theirs)) == -EPROTO);
		free(c);
	}
}

static void error_msg(const char *body, size_t len, long status, char *out,
		      size_t outsz)
{
	char *c = exact(body, len);

	docker_error_message(c, len, status, out, outsz);
	free(c);
}

static void t_errors(void)
{
	char m[64], tiny[8];

	error_msg(LIT("{\"message\":\"No such image: x\"}\n"), 404, m,
		  sizeof(m));
	CHECK(strcmp(m, "No such image: x") == 0);
	error_msg(LIT("junk {\"message\":\"m\"} junk"), 500, m, sizeof(m));
	CHECK(strcmp(m, "m") == 0);
	error_msg(LIT("{\"message\":\"\"}"), 500, m, sizeof(m));
	CHECK(strcmp(m, "{\"message\":\"\"}") == 0);
	error_msg(LIT("{\"message\":42}"), 500, m, sizeof(m));
	CHECK(strcmp(m, "{\"message\":42}") == 0);
	error_msg(LIT("{\"message\":\"cut"), 500, m, sizeof(m));
	CHECK(strcmp(m, "{\"message\":\"cut") == 0);
	error_msg(LIT("page not found\r\n \n"), 404, m, sizeof(m));
	CHECK(strcmp(m, "page not found") == 0);
	error_msg(LIT(""), 502, m, sizeof(m));
	CHECK(strcmp(m, "HTTP status 502") == 0);
	error_msg(LIT("\r\n"), 502, m, sizeof(m));
	CHECK(strcmp(m, "HTTP status 502") == 0);
	error_msg(LIT("a\0b"), 500, m, sizeof(m));
	CHECK(strcmp(m, "HTTP status 500") == 0);
	error_msg(LIT("a long plain text answer"), 500, tiny, sizeof(tiny));
	CHECK(strcmp(tiny, "a long ") == 0);
	error_msg(LIT("{\"message\":\"a long message\"}"), 500, tiny,
		  sizeof(tiny));
	CHECK(strcmp(tiny, "a long ") == 0);

	CHECK(docker_status_to_err(400) == -EINVAL);
	CHECK(docker_status_to_err(401) == -EACCES);
	CHECK(docker_status_to_err(403) == -EACCES);
	CHECK(docker_status_to_err(404) == -ENOENT);
	CHECK(docker_status_to_err(409) == -EBUSY);
	CHECK(docker_status_to_err(500) == -EIO);
	CHECK(docker_status_to_err(418) == -EPROTO);
	CHECK(docker_status_to_err(302) == -EPROTO);
}

static void t_validators(void)
{
	char id[200];

	CHECK(docker_valid_id("sbx-pool_1.a"));
	CHECK(!docker_valid_id(""));
	CHECK(!docker_valid_id("a/b"));
	CHECK(!docker_valid_id("a b"));
	CHECK(!docker_valid_id("a?x=1"));
	CHECK(!docker_valid_id("\xc3\xa9"));
	memset(id, 'a', 128);
	id[128] = '\0';
	CHECK(docker_valid_id(id));
	id[128] = 'a';
	id[129] = '\0';
	CHECK(!docker_valid_id(id));

	CHECK(docker_valid_method("DELETE"));
	CHECK(!docker_valid_method(""));
	CHECK(!docker_valid_method("get"));
	CHECK(!docker_valid_method("GET /x"));
	CHECK(!docker_valid_method("ABCDEFGHIJKLMNOPQ"));

	CHECK(docker_valid_path("/containers/json?all=1&filters=%7B%7D"));
	CHECK(!docker_valid_path(""));
	CHECK(!docker_valid_path("containers"));
	CHECK(!docker_valid_path("/a b"));
	CHECK(!docker_valid_path("/a\r\nHost: evil"));
	CHECK(!docker_valid_path("/\x7f"));
	CHECK(!docker_valid_path("/\xc3\xa9"));
}

static void t_exec(void)
{
	static const char *const argv[] = {"sh", "-c", "a \"quoted\" arg\n",
					   NULL};
	char *body = docker_exec_create_body(argv, "1000:1000");
	cJSON *j = cJSON_Parse(body);
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(j, "Cmd");
	char id[72];

	CHECK(body && j);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStdin")));
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStdout")));
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "AttachStderr")));
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j, "Tty")));
	CHECK(strcmp(cJSON_GetObjectItem(j, "User")->valuestring,
		     "1000:1000") == 0);
	CHECK(cJSON_GetArraySize(cmd) == 3);
	CHECK(strcmp(cJSON_GetArrayItem(cmd, 2)->valuestring,
		     "a \"quoted\" arg\n") == 0);
	cJSON_Delete(j);
	free(body);
	body = docker_exec_create_body(argv, NULL);
	j = cJSON_Parse(body);
	CHECK(j && !cJSON_GetObjectItem(j, "User"));
	cJSON_Delete(j);
	free(body);

	CHECK(docker_exec_id_parse(LIT("{\"Id\":\"feedc0de\"}"), id,
				   sizeof(id)) == 0);
	CHECK(strcmp(id, "feedc0de") == 0);
	CHECK(docker_exec_id_parse(LIT("{\"Id\":\"../x\"}"), id, sizeof(id)) ==
	      -EPROTO);
	CHECK(docker_exec_id_parse(LIT("{\"Id\":\"\"}"), id, sizeof(id)) ==
	      -EPROTO);
	CHECK(docker_exec_id_parse(LIT("{\"Id\":7}"), id, sizeof(id)) ==
	      -EPROTO);
	CHECK(docker_exec_id_parse(LIT("{}"), id, sizeof(id)) == -EPROTO);
	CHECK(docker_exec_id_parse(LIT("nope"), id, sizeof(id)) == -EPROTO);
	/* An id that does not fit is refused, not cut. */
	CHECK(docker_exec_id_parse(LIT("{\"Id\":\"abcdefgh\"}"), id, 8) ==
	      -EPROTO);
}

/* ------------------------------------------------------------------ */
/* docker_stats_memory(): the `docker stats` arithmetic                */

static void t_stats_memory(void)
{
	static const struct {
		const char *json;
		int err;
		uint64_t want;
	} cases[] = {
		/* cgroup v1: the hierarchical total wins over the local one */
		{"{\"memory_stats\":{\"usage\":1409024,\"stats\":{"
		 "\"total_inactive_file\":933888,\"inactive_file\":1,"
		 "\"cache\":974848}}}",
		 0, 475136},
		/* cgroup v2 */
		{"{\"memory_stats\":{\"usage\":5000000,\"stats\":{"
		 "\"inactive_file\":1000000,\"file\":3000000}}}",
		 0, 4000000},
		/* daemons that report only the cache */
		{"{\"memory_stats\":{\"usage\":3000,\"stats\":{"
		 "\"cache\":1000}}}",
		 0, 2000},
		/* never below zero */
		{"{\"memory_stats\":{\"usage\":3000,\"stats\":{"
		 "\"total_inactive_file\":4000}}}",
		 0, 3000},
		/* above 2^32 */
		{"{\"memory_stats\":{\"usage\":8589934592,\"stats\":{}}}", 0,
		 8589934592ULL},
		/* a stopped container: no statistics */
		{"{\"memory_stats\":{}}", -ENODATA, 0},
		{"{\"memory_stats\":{\"usage\":-1}}", -ENODATA, 0},
		{"not json", -ENODATA, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = 0;
		char *json = exact(cases[i].json, strlen(cases[i].json));
		int err =
			docker_stats_memory(json, strlen(cases[i].json), &got);

		free(json);

		if (err != cases[i].err || (!err && got != cases[i].want))
			fprintf(stderr,
				"stats memory case %zu: err %d, %llu bytes "
				"(want %d, %llu)\n",
				i, err, (unsigned long long)got, cases[i].err,
				(unsigned long long)cases[i].want);
		CHECK(err == cases[i].err && (err || got == cases[i].want));
	}
}

/* ------------------------------------------------------------------ */
/* Containers and volumes: what the daemon says of them, typed          */

static struct docker_containers containers(const char *json, int inspect)
{
	struct docker_containers c;
	size_t n = strlen(json);
	char *body = exact(json, n);
	int rc = inspect ? docker_container_parse(body, n, &c)
			 : docker_containers_parse(body, n, &c);

	free(body); /* the parse copies what it keeps */
	CHECK(rc == 0);
	return c;
}

static int has_label(const struct container_summary *c, const char *key,
		     const char *value)
{
	const char *v = docker_label_find(c->labels, c->nlabels, key);

	return value ? v && strcmp(v, value) == 0 : v == NULL;
}

static void t_container_list(void)
{
	struct docker_containers c = containers(
		"[{\"Id\":\"aaa\",\"Names\":[\"/sbx-s.1.2.bash.x\",\"/alias\"],"
		"\"State\":\"running\",\"Labels\":{\"org.mcp-sandbox.managed\":"
		"\"1\",\"org.mcp-sandbox.owner-pid\":\"42\",\"odd\":7}},"
		/* no Id: left out */
		"{\"Names\":[\"/nameless\"],\"State\":\"running\"},"
		"{\"Id\":7,\"Names\":[\"/numeric\"]},"
		/* a paused one; labels null; a name without the slash */
		"{\"Id\":\"bbb\",\"Names\":[\"plain\"],\"State\":\"paused\","
		"\"Labels\":null},"
		/* a state word we do not know; names not a list */
		"{\"Id\":\"ccc\",\"Names\":\"/x\",\"State\":\"exploded\"},"
		"{\"Id\":\"ddd\",\"State\":\"exited\",\"Labels\":{\"k\":\"\"}},"
		"42,null,\"str\"]",
		0);

	CHECK(c.n == 4);
	if (c.n == 4) {
		CHECK(strcmp(c.v[0].id, "aaa") == 0);
		CHECK(strcmp(c.v[0].name, "sbx-s.1.2.bash.x") == 0);
		CHECK(c.v[0].status == CONTAINER_RUNNING && c.v[0].running);
		CHECK(c.v[0].nlabels == 2);
		CHECK(has_label(&c.v[0], "org.mcp-sandbox.owner-pid", "42"));
		CHECK(has_label(&c.v[0], "odd", NULL));
		CHECK(strcmp(c.v[1].id, "bbb") == 0);
		CHECK(strcmp(c.v[1].name, "plain") == 0);
		CHECK(c.v[1].status == CONTAINER_PAUSED && c.v[1].running);
		CHECK(c.v[1].nlabels == 0);
		CHECK(strcmp(c.v[2].name, "") == 0);
		CHECK(c.v[2].status == CONTAINER_STATUS_UNKNOWN &&
		      !c.v[2].running);
		CHECK(c.v[3].status == CONTAINER_EXITED && !c.v[3].running);
		CHECK(has_label(&c.v[3], "k", ""));
		CHECK(has_label(&c.v[3], "org.mcp-sandbox.owner-pid", NULL));
	}
	docker_containers_free(&c);
	docker_containers_free(&c); /* twice is harmless */

	/* What is no list lists nothing. */
	c = containers("[]", 0);
	CHECK(c.n == 0);
	docker_containers_free(&c);
	c = containers("{\"Id\":\"aaa\"}", 0);
	CHECK(c.n == 0);
	docker_containers_free(&c);
	c = containers("[{\"Id\":\"aaa\"", 0);
	CHECK(c.n == 0);
	docker_containers_free(&c);
	c = containers("", 0);
	CHECK(c.n == 0);
	docker_containers_free(&c);
}

static void t_container_inspect(void)
{
	struct docker_containers c = containers(
		"{\"Id\":\"abc\",\"Name\":\"/sbx-s.x\",\"State\":{\"Status\":"
		"\"paused\",\"Running\":true,\"Paused\":true},\"Config\":{"
		"\"Labels\":{\"org.mcp-sandbox.test\":\"engine-1\"}}}",
		1);

	CHECK(c.n == 1);
	CHECK(strcmp(c.v[0].id, "abc") == 0);
	CHECK(strcmp(c.v[0].name, "sbx-s.x") == 0);
	CHECK(c.v[0].status == CONTAINER_PAUSED && c.v[0].running);
	CHECK(has_label(&c.v[0], "org.mcp-sandbox.test", "engine-1"));
	docker_containers_free(&c);

	/* Running is the daemon's word, not the status's. */
	c = containers("{\"Id\":\"abc\",\"State\":{\"Status\":\"running\"}}",
		       1);
	CHECK(c.n == 1 && c.v[0].status == CONTAINER_RUNNING &&
	      !c.v[0].running && strcmp(c.v[0].name, "") == 0 &&
	      c.v[0].nlabels == 0);
	docker_containers_free(&c);
	c = containers("{\"State\":{\"Status\":\"exited\",\"Running\":false},"
		       "\"Config\":{\"Labels\":[\"a=b\"]}}",
		       1);
	CHECK(c.n == 1 && c.v[0].status == CONTAINER_EXITED &&
	      !c.v[0].running && strcmp(c.v[0].id, "") == 0 &&
	      c.v[0].nlabels == 0);
	docker_containers_free(&c);
	/* Not an answer: an empty container, stopped. */
	c = containers("no", 1);
	CHECK(c.n == 1 && !c.v[0].running &&
	      c.v[0].status == CONTAINER_STATUS_UNKNOWN);
	docker_containers_free(&c);

	CHECK(docker_container_status("created") == CONTAINER_CREATED);
	CHECK(docker_container_status("restarting") == CONTAINER_RESTARTING);
	CHECK(docker_container_status("removing") == CONTAINER_REMOVING);
	CHECK(docker_container_status("dead") == CONTAINER_DEAD);
	CHECK(docker_container_status("Running") == CONTAINER_STATUS_UNKNOWN);
	CHECK(docker_container_status("") == CONTAINER_STATUS_UNKNOWN);
	CHECK(docker_container_status(NULL) == CONTAINER_STATUS_UNKNOWN);
}

static void t_volume_list(void)
{
	static const char json[] =
		"{\"Volumes\":[{\"Name\":\"v1\",\"Labels\":{\"org.mcp-sandbox."
		"role\":\"handover\"}},{\"Labels\":{\"a\":\"b\"}},{\"Name\":"
		"\"v2\",\"Labels\":null},{\"Name\":3}],\"Warnings\":null}";
	struct docker_volumes v;
	char *body = exact(json, sizeof(json) - 1);

	CHECK(docker_volumes_parse(body, sizeof(json) - 1, &v) == 0);
	free(body);
	CHECK(v.n == 2);
	if (v.n == 2) {
		CHECK(strcmp(v.v[0].name, "v1") == 0 && v.v[0].nlabels == 1);
		CHECK(strcmp(docker_label_find(v.v[0].labels, v.v[0].nlabels,
					       "org.mcp-sandbox.role"),
			     "handover") == 0);
		CHECK(strcmp(v.v[1].name, "v2") == 0 && v.v[1].nlabels == 0);
	}
	docker_volumes_free(&v);
	CHECK(docker_volumes_parse(LIT("{\"Volumes\":null}"), &v) == 0 &&
	      v.n == 0);
	docker_volumes_free(&v);
	CHECK(docker_volumes_parse(LIT("[{\"Name\":\"v\"}]"), &v) == 0 &&
	      v.n == 0);
	docker_volumes_free(&v);
	CHECK(docker_volumes_parse(LIT("garbage"), &v) == 0 && v.n == 0);
	docker_volumes_free(&v);
}

static void t_image(void)
{
	static const char json[] =
		"{\"Id\":\"sha256:abc\",\"Config\":{\"Labels\":{\"org.mcp-"
		"sandbox.agent-sha256\":\"f00d\",\"n\":1}}}";
	struct docker_image img;
	char *body = exact(json, sizeof(json) - 1);

	CHECK(docker_image_parse(body, sizeof(json) - 1, &img) == 0);
	free(body);
	CHECK(img.id && strcmp(img.id, "sha256:abc") == 0 && img.nlabels == 1);
	CHECK(strcmp(docker_label_find(img.labels, img.nlabels,
				       "org.mcp-sandbox.agent-sha256"),
		     "f00d") == 0);
	docker_image_free(&img);
	docker_image_free(&img);
	/* The fake engine's answer, and no answer at all */
	CHECK(docker_image_parse(LIT("{}"), &img) == 0 && !img.id &&
	      img.nlabels == 0);
	docker_image_free(&img);
	CHECK(docker_image_parse(LIT("{\"Id\":1,\"Config\":{\"Labels\":null}}"),
				 &img) == 0 &&
	      !img.id && img.nlabels == 0);
	docker_image_free(&img);
	CHECK(docker_image_parse(LIT("]"), &img) == 0 && !img.id);
	docker_image_free(&img);
}

/* ------------------------------------------------------------------ */
/* The daemon's own description: /version, /info, /libpod/info         */

static void t_info(void)
{
	static const char version[] =
		"{\"ApiVersion\":\"1.41\",\"Components\":[{\"Name\":\"runc\","
		"\"Version\":\"1.1.5\",\"Details\":{\"GitCommit\":\"1.1.5-1"
		"+deb12u1\"}},{\"Name\":\"containerd\",\"Version\":\"1.6\","
		"\"Details\":{\"GitCommit\":\"abcdef\"}},{\"Name\":"
		"\"containerd\","
		"\"Version\":\"9.9\"}]}";
	static const char info[] =
		"{\"ServerVersion\":\"20.10\",\"SecurityOptions\":[\"name="
		"seccomp,profile=default\",\"name=rootless\",7],\"NCPU\":2,"
		"\"MemoryLimit\":true,\"PidsLimit\":1,\"MemTotal\":0}";
	struct docker_libpod_info lp;
	struct docker_info di;
	char *v = exact(version, sizeof(version) - 1);
	char *i = exact(info, sizeof(info) - 1);

	docker_info_parse(v, sizeof(version) - 1, i, sizeof(info) - 1, &di);
	free(v);
	free(i);
	CHECK(di.is_info && strcmp(di.server_version, "20.10") == 0);
	CHECK(strcmp(di.api_version, "1.41") == 0);
	/* Debian's patch level from the commit; a commit without a dot is
	 * no version; the first component of a name counts */
	CHECK(strcmp(di.runc, "1.1.5-1+deb12u1") == 0);
	CHECK(strcmp(di.containerd, "1.6") == 0);
	CHECK(strcmp(di.cgroup_version, "1") == 0 && !di.cgroup_driver);
	CHECK(di.security_known && di.seccomp && di.rootless && !di.userns);
	CHECK(di.memory_limit && !di.pids_limit && !di.cpu_limit);
	CHECK(di.cpus == 2 && di.memory_bytes == 0 && isnan(di.images));
	docker_info_free(&di);
	docker_info_free(&di);

	docker_info_parse(NULL, 0, LIT("{\"ServerVersion\":5}"), &di);
	CHECK(di.is_info && !di.server_version && !di.api_version && !di.runc &&
	      !di.security_known && isnan(di.cpus));
	docker_info_free(&di);
	docker_info_parse(LIT("nope"), LIT("{\"message\":\"no\"}"), &di);
	CHECK(!di.is_info && !di.api_version);
	docker_info_free(&di);
	docker_info_parse(NULL, 0, LIT("[1]"), &di);
	CHECK(!di.is_info);
	docker_info_free(&di);

	CHECK(docker_libpod_info_parse(
		      LIT("{\"host\":{\"security\":{\"rootless\":true},"
			  "\"cgroupControllers\":[\"pids\",\"cpu\"]}}"),
		      &lp) == 0);
	CHECK(lp.rootless && !lp.memory && lp.pids && lp.cpu);
	CHECK(docker_libpod_info_parse(
		      LIT("{\"host\":{\"security\":{},\"cgroupControllers\":"
			  "{}}}"),
		      &lp) == -EINVAL);
	CHECK(docker_libpod_info_parse(LIT("{\"host\":{}}"), &lp) == -EINVAL);
	CHECK(docker_libpod_info_parse(NULL, 0, &lp) == -EINVAL);
	CHECK(docker_libpod_info_parse(LIT("x"), &lp) == -EINVAL);
}

int main(void)
{
	t_demux_splits();
	t_demux_truncated();
	t_demux_oversized();
	t_demux_unknown_stream();
	t_demux_garbage();
	t_answer_upgrade();
	t_answer_refused();
	t_answer_hostile();
	t_answer_garbage();
	t_host();
	t_versions();
	t_errors();
	t_validators();
	t_exec();
	t_stats_memory();
	t_container_list();
	t_container_inspect();
	t_volume_list();
	t_image();
	t_info();
	return t_summary("docker_proto");
}
