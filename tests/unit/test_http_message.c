/* util/http_message.c: a request's exact bytes, the connection's own
 * headers dropped, and every part the builder refuses; a response's
 * bytes parsed as a server in a sandbox may send them: with a length,
 * chunked, until the close, to a HEAD, cut short anywhere, garbled, with
 * too many headers, two at once. Each input is parsed from a buffer of
 * exactly its size (ASan sees an overread). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/http_message.h"
#include "testlib.h"

/* ---- requests ---- */

#define H(n, v)                                                                \
	{                                                                      \
		.name = (n), .name_len = strlen(n), .value = (v),              \
		.value_len = strlen(v)                                         \
	}

/* The bytes built for q equal want (NUL-terminated; the body has none). */
static int built(const struct http_request_spec *q, const char *want)
{
	struct error err = {0};
	size_t len = 0;
	unsigned char *b = http_request_build(q, &len, &err);
	int ok = b && len == strlen(want) && memcmp(b, want, len) == 0;

	if (!ok)
		fprintf(stderr, "built: got '%.*s' (%zu), want '%s'\n",
			b ? (int)len : 0, b ? (const char *)b : "", len, want);
	free(b);
	return ok;
}

/* q is refused with ERR_INVALID_ARGUMENTS and a message holding what. */
static int refused(const struct http_request_spec *q, const char *what)
{
	struct error err = {0};
	size_t len = 12345;
	unsigned char *b = http_request_build(q, &len, &err);
	int ok = !b && err.code == ERR_INVALID_ARGUMENTS &&
		 strstr(err.msg, what) != NULL;

	if (!ok)
		fprintf(stderr, "refused: code %d, '%s', want '%s'\n", err.code,
			err.msg, what);
	free(b);
	return ok;
}

static void check_build(void)
{
	struct http_request_spec q = {
		.method = "GET", .target = "/", .port = 8000};

	CHECK(built(&q, "GET / HTTP/1.1\r\n"
			"Host: 127.0.0.1:8000\r\n"
			"Connection: close\r\n"
			"\r\n"));
	q.target = "/a/b?x=1&y=%20";
	q.port = 65535;
	CHECK(built(&q, "GET /a/b?x=1&y=%20 HTTP/1.1\r\n"
			"Host: 127.0.0.1:65535\r\n"
			"Connection: close\r\n"
			"\r\n"));

	/* A body: its length, then its bytes (a NUL among them too). */
	{
		static const unsigned char body[] = "{\"a\":1}\0z";
		struct http_header hs[] = {
			H("Content-Type", "application/json")};
		struct http_request_spec p = {.method = "POST",
					      .target = "/api",
					      .headers = hs,
					      .nheaders = 1,
					      .body = body,
					      .body_len = sizeof(body) - 1,
					      .port = 3000};
		static const char want[] = "POST /api HTTP/1.1\r\n"
					   "Content-Type: application/json\r\n"
					   "Host: 127.0.0.1:3000\r\n"
					   "Content-Length: 9\r\n"
					   "Connection: close\r\n"
					   "\r\n"
					   "{\"a\":1}\0z";
		struct error err = {0};
		size_t len = 0;
		unsigned char *b = http_request_build(&p, &len, &err);

		CHECK(b && len == sizeof(want) - 1 &&
		      memcmp(b, want, len) == 0);
		free(b);
		/* An empty body that is there: Content-Length: 0. */
		p.nheaders = 0;
		p.body_len = 0;
		CHECK(built(&p, "POST /api HTTP/1.1\r\n"
				"Host: 127.0.0.1:3000\r\n"
				"Content-Length: 0\r\n"
				"Connection: close\r\n"
				"\r\n"));
	}

	/* No body is none, whatever body_len says: no Content-Length, no
	 * bytes after the blank line (nothing read from NULL). */
	q = (struct http_request_spec){
		.method = "DELETE", .target = "/r", .body_len = 5, .port = 9};
	CHECK(built(&q, "DELETE /r HTTP/1.1\r\n"
			"Host: 127.0.0.1:9\r\n"
			"Connection: close\r\n"
			"\r\n"));

	/* The caller's Host wins, in any case, and there is no second. */
	{
		struct http_header hs[] = {H("hOsT", "example.test"),
					   H("Accept", "*/*")};

		q = (struct http_request_spec){.method = "GET",
					       .target = "/",
					       .headers = hs,
					       .nheaders = 2,
					       .port = 80};
		CHECK(built(&q, "GET / HTTP/1.1\r\n"
				"hOsT: example.test\r\n"
				"Accept: */*\r\n"
				"Connection: close\r\n"
				"\r\n"));
	}

	/* The connection's headers are the host's: dropped, any case. Names
	 * that only start like them stay. */
	{
		struct http_header hs[] = {
			H("Connection", "keep-alive"),
			H("KEEP-ALIVE", "timeout=5"),
			H("content-length", "999"),
			H("Transfer-Encoding", "chunked"),
			H("te", "trailers"),
			H("Upgrade", "websocket"),
			H("Proxy-Connection", "keep-alive"),
			H("X-A", "1"),
			H("Tes", "kept"),
			H("Connections", "kept"),
			H("X-Empty", ""),
		};
		static const unsigned char body[] = "ab";

		q = (struct http_request_spec){.method = "PUT",
					       .target = "/x",
					       .headers = hs,
					       .nheaders = sizeof(hs) /
							   sizeof(hs[0]),
					       .body = body,
					       .body_len = 2,
					       .port = 1};
		CHECK(built(&q, "PUT /x HTTP/1.1\r\n"
				"X-A: 1\r\n"
				"Tes: kept\r\n"
				"Connections: kept\r\n"
				"X-Empty: \r\n"
				"Host: 127.0.0.1:1\r\n"
				"Content-Length: 2\r\n"
				"Connection: close\r\n"
				"\r\n"
				"ab"));
	}

	/* Any token is a method; a long one at the limit passes. */
	q = (struct http_request_spec){.method = "M-SEARCH", .target = "/"};
	CHECK(built(&q, "M-SEARCH / HTTP/1.1\r\n"
			"Host: 127.0.0.1:0\r\n"
			"Connection: close\r\n"
			"\r\n"));
	q.method = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"; /* 32 */
	{
		struct error err = {0};
		size_t len;
		unsigned char *b = http_request_build(&q, &len, &err);

		CHECK(b != NULL);
		free(b);
	}
}

static void check_build_refused(void)
{
	static const char *const bad_methods[] = {
		"GE T",
		"",
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456", /* 33 */
		"GET\r\n",
		"GET/",
		"G\"T",
		"(GET)",
		"GET\x7f",
		"G\xc3\xa9T",
	};
	static const char *const bad_targets[] = {
		"",	 "a/b",	  "*",	   "http://x/",	   " /",
		"/a b",	 "/a\tb", "/a\rb", "/a\nb",	   "/\x01",
		"/\x1f", "/\x7f", "/\x80", "/caf\xc3\xa9",
	};
	struct http_request_spec q = {.method = "GET", .target = "/"};

	for (size_t i = 0; i < sizeof(bad_methods) / sizeof(bad_methods[0]);
	     i++) {
		q.method = bad_methods[i];
		CHECK(refused(&q, "method: not an HTTP method"));
	}
	q.method = "GET";
	for (size_t i = 0; i < 4; i++) {
		q.target = bad_targets[i];
		CHECK(refused(&q, "path: must start with '/'"));
	}
	for (size_t i = 4; i < sizeof(bad_targets) / sizeof(bad_targets[0]);
	     i++) {
		q.target = bad_targets[i];
		CHECK(refused(&q, bad_targets[i][0] == '/'
					  ? "must be percent-encoded"
					  : "must start with '/'"));
	}
	q.target = "/";

	/* Header names: tokens only, never empty; the message names it. */
	{
		struct http_header hs[] = {H("X-Ok", "1"), H("Bad Name", "v")};

		q.headers = hs;
		q.nheaders = 2;
		CHECK(refused(&q, "headers: 'Bad Name' is not a header name"));
		hs[1] = (struct http_header)H("", "v");
		CHECK(refused(&q, "headers: '' is not a header name"));
		hs[1] = (struct http_header)H("X:Y", "v");
		CHECK(refused(&q, "is not a header name"));
		hs[1] = (struct http_header)H("X\r\nY", "v");
		CHECK(refused(&q, "is not a header name"));
		/* A NUL inside the name's length. */
		hs[1] = (struct http_header){.name = "X\0Y",
					     .name_len = 3,
					     .value = "v",
					     .value_len = 1};
		CHECK(refused(&q, "is not a header name"));
	}
	/* A long name is cut to 64 in the message. */
	{
		char name[200];
		struct http_header hs[1];
		struct error err = {0};
		size_t len;

		memset(name, 'n', sizeof(name) - 1);
		name[0] = ' ';
		name[sizeof(name) - 1] = '\0';
		hs[0] = (struct http_header)H(name, "v");
		q.headers = hs;
		q.nheaders = 1;
		CHECK(http_request_build(&q, &len, &err) == NULL);
		CHECK(err.code == ERR_INVALID_ARGUMENTS);
		CHECK(strlen(err.msg) < 64 + 40);
	}

	/* Values: no CR, LF or NUL (one counted in value_len); other bytes
	 * are the caller's. */
	{
		struct http_header hs[1];
		struct error err = {0};
		size_t len;
		unsigned char *b;

		q.headers = hs;
		q.nheaders = 1;
		hs[0] = (struct http_header)H("X-V", "a\rb");
		CHECK(refused(&q, "headers: the value of 'X-V' holds CR, LF "
				  "or NUL"));
		hs[0] = (struct http_header)H("X-V", "a\nSet-Cookie: x");
		CHECK(refused(&q, "the value of 'X-V' holds CR, LF or NUL"));
		hs[0] = (struct http_header){.name = "X-V",
					     .name_len = 3,
					     .value = "ab",
					     .value_len = 3};
		CHECK(refused(&q, "the value of 'X-V' holds CR, LF or NUL"));
		/* Without the NUL in its length the same value passes. */
		hs[0].value_len = 2;
		b = http_request_build(&q, &len, &err);
		CHECK(b && len > 12 && memmem(b, len, "X-V: ab\r\n", 9));
		free(b);
		/* A header dropped as the connection's is checked all the
		 * same. */
		hs[0] = (struct http_header)H("Connection", "close\r\nX: y");
		CHECK(refused(&q, "the value of 'Connection'"));
	}
}

/* ---- responses ---- */

/* s (n bytes) parsed from a copy of exactly its size. */
static int parse_n(const char *s, size_t n, int ended, int head,
		   struct http_response *r, struct error *err)
{
	unsigned char *c = malloc(n ? n : 1);
	int rc;

	if (n)
		memcpy(c, s, n);
	rc = http_response_parse(c, n, ended, head, r, err);
	free(c);
	return rc;
}

static int parse(const char *s, int ended, int head, struct http_response *r,
		 struct error *err)
{
	return parse_n(s, strlen(s), ended, head, r, err);
}

static int body_is(const struct http_response *r, const char *want)
{
	return r->body_len == strlen(want) &&
	       (r->body_len == 0 || memcmp(r->body, want, r->body_len) == 0);
}

static int header_is(const struct http_response *r, const char *name,
		     const char *want)
{
	size_t len = 0;
	const char *v = http_response_header(r, name, &len);

	return v && len == strlen(want) && memcmp(v, want, len) == 0;
}

static void check_length(void)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
				   "Content-Type: text/plain\r\n"
				   "Content-Length: 5\r\n"
				   "X-Empty:\r\n"
				   "\r\n"
				   "hello";
	struct http_response r;
	struct error err = {0};

	for (int ended = 0; ended < 2; ended++) {
		CHECK(parse(resp, ended, 0, &r, &err) == 0);
		CHECK(r.status == 200);
		CHECK(strcmp(r.reason, "OK") == 0);
		CHECK(r.complete == 1);
		CHECK(body_is(&r, "hello"));
		CHECK(r.nheaders == 3);
		CHECK(r.dropped == 0);
		CHECK(header_is(&r, "content-type", "text/plain"));
		CHECK(header_is(&r, "CONTENT-LENGTH", "5"));
		CHECK(header_is(&r, "x-empty", ""));
		/* The headers in order, as they came. */
		CHECK(r.headers[0].name_len == 12 &&
		      memcmp(r.headers[0].name, "Content-Type", 12) == 0);
		CHECK(r.headers[2].name_len == 7 &&
		      memcmp(r.headers[2].name, "X-Empty", 7) == 0);
		http_response_free(&r);
		CHECK(r.mem == NULL && r.nheaders == 0);
	}

	/* A Content-Length of 0, and a status with no reason. */
	CHECK(parse("HTTP/1.1 204 \r\n\r\n", 0, 0, &r, &err) == 0);
	CHECK(r.status == 204 && r.reason[0] == '\0' && r.complete &&
	      r.body_len == 0);
	http_response_free(&r);
	CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, 0, &r,
		    &err) == 0);
	CHECK(r.complete && r.body_len == 0);
	http_response_free(&r);

	/* A body with every byte value, NUL among them. */
	{
		char raw[64 + 256];
		int n = snprintf(
			raw, sizeof(raw),
			"HTTP/1.1 200 OK\r\nContent-Length: 256\r\n\r\n");
		int ok = 1;

		for (int i = 0; i < 256; i++)
			raw[n + i] = (char)i;
		CHECK(parse_n(raw, (size_t)n + 256, 0, 0, &r, &err) == 0);
		CHECK(r.complete && r.body_len == 256);
		for (int i = 0; i < 256 && r.body_len == 256; i++)
			ok &= r.body[i] == (unsigned char)i;
		CHECK(ok);
		http_response_free(&r);
	}

	/* Cut short: fewer bytes than Content-Length. What came stands. */
	CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel", 1, 0,
		    &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 0 && body_is(&r, "hel"));
	http_response_free(&r);
	CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel", 0, 0,
		    &r, &err) == 0);
	CHECK(r.complete == 0 && body_is(&r, "hel"));
	http_response_free(&r);
	/* Headers in, no body byte yet. */
	CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 1, 0, &r,
		    &err) == 0);
	CHECK(r.complete == 0 && r.body_len == 0 && r.status == 200);
	http_response_free(&r);
}

static void check_chunked(void)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
				   "Transfer-Encoding: chunked\r\n"
				   "\r\n"
				   "5\r\nhello\r\n"
				   "1;ext=1;q=\"x\"\r\n,\r\n"
				   "A\r\n wide worl\r\n"
				   "1\r\nd\r\n"
				   "0\r\n"
				   "X-Trailer: t\r\n"
				   "\r\n";
	static const char want[] = "hello, wide world";
	const size_t n = sizeof(resp) - 1;
	struct http_response r;
	struct error err = {0};
	int prefixes_ok = 1;

	CHECK(parse(resp, 0, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 1);
	CHECK(body_is(&r, want));
	CHECK(header_is(&r, "transfer-encoding", "chunked"));
	http_response_free(&r);

	/* Upper-case hex, and a large chunk. */
	{
		char raw[512];
		int k = snprintf(raw, sizeof(raw),
				 "HTTP/1.1 200 OK\r\n"
				 "Transfer-Encoding: chunked\r\n\r\n"
				 "1F\r\n");

		memset(raw + k, 'z', 31);
		k += 31;
		k += snprintf(raw + k, sizeof(raw) - (size_t)k,
			      "\r\n0\r\n\r\n");
		CHECK(parse_n(raw, (size_t)k, 0, 0, &r, &err) == 0);
		CHECK(r.complete && r.body_len == 31 && r.body[0] == 'z' &&
		      r.body[30] == 'z');
		http_response_free(&r);
	}

	/* Every prefix: the headers not in yet (-EAGAIN), or what came of
	 * the body, never complete before the last byte; once ended, a cut
	 * chunked body is not complete either. */
	for (size_t k = 0; k < n; k++)
		for (int ended = 0; ended < 2; ended++) {
			int rc = parse_n(resp, k, ended, 0, &r, &err);

			if (rc == 0) {
				prefixes_ok &= r.complete == 0;
				prefixes_ok &= r.body_len <= strlen(want);
				prefixes_ok &=
					memcmp(r.body, want, r.body_len) == 0;
				http_response_free(&r);
			} else {
				prefixes_ok &= rc == -EAGAIN;
			}
		}
	CHECK(prefixes_ok);

	/* A chunk size that is not hex, after the headers: what came
	 * stands, not complete. */
	CHECK(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "3\r\nabc\r\nzz\r\n",
		    1, 0, &r, &err) == 0);
	CHECK(r.complete == 0 && body_is(&r, "abc"));
	http_response_free(&r);
}

static void check_close_delimited(void)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
				   "Content-Type: text/html\r\n"
				   "\r\n"
				   "<p>until the close</p>";
	struct http_response r;
	struct error err = {0};

	CHECK(parse(resp, 0, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 0);
	CHECK(body_is(&r, "<p>until the close</p>"));
	http_response_free(&r);
	CHECK(parse(resp, 1, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 1);
	CHECK(body_is(&r, "<p>until the close</p>"));
	http_response_free(&r);
	/* An empty one, ended. */
	CHECK(parse("HTTP/1.1 200 OK\r\n\r\n", 1, 0, &r, &err) == 0);
	CHECK(r.complete == 1 && r.body_len == 0);
	http_response_free(&r);
}

static void check_head(void)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
				   "Content-Length: 22\r\n"
				   "\r\n";
	struct http_response r;
	struct error err = {0};

	for (int ended = 0; ended < 2; ended++) {
		CHECK(parse(resp, ended, 1, &r, &err) == 0);
		CHECK(r.status == 200 && r.complete == 1 && r.body_len == 0);
		CHECK(header_is(&r, "Content-Length", "22"));
		http_response_free(&r);
	}
	/* Not HEAD: the same bytes wait for 22 more. */
	CHECK(parse(resp, 1, 0, &r, &err) == 0);
	CHECK(r.complete == 0 && r.body_len == 0);
	http_response_free(&r);
	/* Chunked to a HEAD: no body follows either. */
	CHECK(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0,
		    1, &r, &err) == 0);
	CHECK(r.complete == 1 && r.body_len == 0);
	http_response_free(&r);
	/* 204 and 304 have no body, HEAD or not, whatever Content-Length or
	 * Transfer-Encoding say (RFC 9112, 6.3: a 304 may carry the length
	 * a GET would have had); what follows the blank line is not theirs.
	 * http-parser alone waits for the 9 bytes. */
	for (int ended = 0; ended < 2; ended++) {
		CHECK(parse("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n"
			    "\r\n",
			    ended, 0, &r, &err) == 0);
		CHECK(r.status == 304 && r.complete == 1 && r.body_len == 0);
		CHECK(strcmp(r.reason, "Not Modified") == 0);
		http_response_free(&r);
		CHECK(parse("HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n"
			    "\r\nabc",
			    ended, 0, &r, &err) == 0);
		CHECK(r.status == 204 && r.complete == 1 && r.body_len == 0);
		http_response_free(&r);
		CHECK(parse("HTTP/1.1 204 No Content\r\n"
			    "Transfer-Encoding: chunked\r\n\r\n",
			    ended, 0, &r, &err) == 0);
		CHECK(r.status == 204 && r.complete == 1 && r.body_len == 0);
		http_response_free(&r);
	}
}

static void check_not_http(void)
{
	static const char *const garbage[] = {
		"SSH-2.0-x\r\n",
		"HTTP/1.1 abc OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/x.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: x\n\n",
		"GET / HTTP/1.1\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n"
		"\r\nab",
		"HTTP/1.1 200 OK\r\nX: a\r\nX-\x01: b\r\n\r\n",
	};
	struct http_response r;
	struct error err = {0};

	for (size_t i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++)
		for (int ended = 0; ended < 2; ended++) {
			memset(&err, 0, sizeof(err));
			memset(&r, 0x5a, sizeof(r));
			CHECK(parse(garbage[i], ended, 0, &r, &err) ==
			      -EBADMSG);
			CHECK(err.code == -EBADMSG);
			CHECK(strncmp(err.msg, "not an HTTP response",
				      strlen("not an HTTP response")) == 0);
			CHECK(r.mem == NULL); /* nothing to free */
		}
	CHECK(parse("SSH-2.0-x\r\n", 0, 0, &r, &err) == -EBADMSG);
	CHECK_STR_CONTAINS(err.msg, "of 11)");
	/* A NUL where the version goes. */
	CHECK(parse_n("HTTP/1\0001 200 OK\r\n\r\n", 20, 0, 0, &r, &err) ==
	      -EBADMSG);
}

static void check_again(void)
{
	static const char *const cut[] = {
		"",
		"H",
		"HTTP/1.1",
		"HTTP/1.1 200 OK",
		"HTTP/1.1 200 OK\r\n",
		"HTTP/1.1 200 OK\r\nContent-Le",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r",
	};
	struct http_response r;
	struct error err = {0};

	/* Whether the server closed after them or not: an answer that
	 * stops before its headers end is not garbage. */
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++)
		for (int ended = 0; ended < 2; ended++) {
			memset(&err, 0, sizeof(err));
			CHECK(parse(cut[i], ended, 0, &r, &err) == -EAGAIN);
			CHECK(err.code == -EAGAIN);
			CHECK_STR_CONTAINS(err.msg, "ended before its headers");
			CHECK(r.mem == NULL);
		}
	/* Nothing at all, even once the connection ended. */
	CHECK(parse("", 1, 0, &r, &err) == -EAGAIN);
	CHECK(http_response_parse(NULL, 0, 0, 0, &r, &err) == -EAGAIN);
	CHECK(http_response_parse(NULL, 0, 1, 1, &r, &err) == -EAGAIN);
}

static void check_many_headers(void)
{
	const size_t extra = 7, total = HTTP_MAX_HEADERS + extra;
	size_t cap = 64 + total * 32, n;
	char *raw = malloc(cap);
	struct http_response r;
	struct error err = {0};
	char name[32];

	n = (size_t)snprintf(raw, cap, "HTTP/1.1 200 OK\r\n");
	for (size_t i = 0; i < total; i++)
		n += (size_t)snprintf(raw + n, cap - n, "X-H%zu: v%zu\r\n", i,
				      i);
	n += (size_t)snprintf(raw + n, cap - n, "Content-Length: 2\r\n\r\nok");
	CHECK(parse_n(raw, n, 0, 0, &r, &err) == 0);
	CHECK(r.nheaders == HTTP_MAX_HEADERS);
	CHECK(r.dropped == extra + 1); /* Content-Length among them */
	CHECK(r.complete && body_is(&r, "ok"));
	CHECK(header_is(&r, "x-h0", "v0"));
	snprintf(name, sizeof(name), "X-H%d", HTTP_MAX_HEADERS - 1);
	CHECK(http_response_header(&r, name, &n) != NULL);
	snprintf(name, sizeof(name), "X-H%d", HTTP_MAX_HEADERS);
	CHECK(http_response_header(&r, name, &n) == NULL);
	CHECK(http_response_header(&r, "content-length", &n) == NULL);
	http_response_free(&r);

	/* Exactly HTTP_MAX_HEADERS: none dropped. */
	n = (size_t)snprintf(raw, cap, "HTTP/1.1 200 OK\r\n");
	for (size_t i = 0; i + 1 < HTTP_MAX_HEADERS; i++)
		n += (size_t)snprintf(raw + n, cap - n, "X-H%zu: v%zu\r\n", i,
				      i);
	n += (size_t)snprintf(raw + n, cap - n, "Content-Length: 2\r\n\r\nok");
	CHECK(parse_n(raw, n, 0, 0, &r, &err) == 0);
	CHECK(r.nheaders == HTTP_MAX_HEADERS && r.dropped == 0);
	CHECK(header_is(&r, "Content-Length", "2"));
	http_response_free(&r);
	free(raw);
}

static void check_reason(void)
{
	static const char ctl[] =
		"HTTP/1.1 200 O\x01K\x7f\xc3\xa9\x1b[0m\r\n\r\n";
	struct http_response r;
	struct error err = {0};
	char raw[256];
	int ok = 1;

	/* Control bytes and bytes over 0x7e become '?'. */
	CHECK(parse_n(ctl, sizeof(ctl) - 1, 1, 0, &r, &err) == 0);
	CHECK(strcmp(r.reason, "O?K????[0m") == 0);
	http_response_free(&r);
	/* A long reason is cut, NUL-terminated. */
	memcpy(raw, "HTTP/1.1 404 ", 13);
	memset(raw + 13, 'r', 200);
	memcpy(raw + 213, "\r\n\r\n", 4);
	CHECK(parse_n(raw, 217, 1, 0, &r, &err) == 0);
	CHECK(r.status == 404);
	CHECK(strlen(r.reason) == sizeof(r.reason) - 1);
	for (size_t i = 0; i < sizeof(r.reason) - 1; i++)
		ok &= r.reason[i] == 'r';
	CHECK(ok);
	http_response_free(&r);
}

static void check_header_lookup(void)
{
	static const char resp[] = "HTTP/1.1 302 Found\r\n"
				   "Location: /next\r\n"
				   "Set-Cookie: a=1\r\n"
				   "set-cookie: b=2\r\n"
				   "X-Spaces:   padded   \r\n"
				   "Content-Length: 0\r\n"
				   "\r\n";
	struct http_response r;
	struct error err = {0};
	size_t len = 777;

	CHECK(parse(resp, 0, 0, &r, &err) == 0);
	CHECK(r.status == 302 && strcmp(r.reason, "Found") == 0);
	CHECK(header_is(&r, "location", "/next"));
	CHECK(header_is(&r, "LOCATION", "/next"));
	CHECK(header_is(&r, "Set-Cookie", "a=1")); /* the first */
	/* Leading spaces go; trailing ones are the server's. */
	CHECK(r.nheaders == 5);
	CHECK(http_response_header(&r, "x-spaces", &len) != NULL && len >= 6 &&
	      memcmp(r.headers[3].value, "padded", 6) == 0);
	len = 777;
	CHECK(http_response_header(&r, "X-Missing", &len) == NULL);
	CHECK(len == 777);
	CHECK(http_response_header(&r, "Locatio", &len) == NULL);
	CHECK(http_response_header(&r, "Location2", &len) == NULL);
	CHECK(http_response_header(&r, "", &len) == NULL);
	http_response_free(&r);
}

static void check_two(void)
{
	static const char two[] = "HTTP/1.1 200 OK\r\n"
				  "Content-Length: 5\r\n"
				  "X-First: 1\r\n"
				  "\r\n"
				  "first"
				  "HTTP/1.1 500 Server Error\r\n"
				  "Content-Length: 6\r\n"
				  "X-Second: 2\r\n"
				  "\r\n"
				  "second";
	static const char two_head[] = "HTTP/1.1 200 OK\r\n"
				       "Content-Length: 22\r\n"
				       "\r\n"
				       "HTTP/1.1 404 Not Found\r\n"
				       "Content-Length: 3\r\n"
				       "\r\n"
				       "abc";
	static const char two_chunked[] = "HTTP/1.1 201 Created\r\n"
					  "Transfer-Encoding: chunked\r\n"
					  "\r\n"
					  "2\r\nab\r\n0\r\n\r\n"
					  "HTTP/1.1 202 Accepted\r\n"
					  "Content-Length: 1\r\n"
					  "\r\n"
					  "z";
	struct http_response r;
	struct error err = {0};

	for (int ended = 0; ended < 2; ended++) {
		CHECK(parse(two, ended, 0, &r, &err) == 0);
		CHECK(r.status == 200);
		CHECK(strcmp(r.reason, "OK") == 0);
		CHECK(r.complete == 1);
		CHECK(body_is(&r, "first"));
		CHECK(r.nheaders == 2);
		CHECK(header_is(&r, "X-First", "1"));
		CHECK(http_response_header(&r, "X-Second", &(size_t){0}) ==
		      NULL);
		http_response_free(&r);

		CHECK(parse(two_head, ended, 1, &r, &err) == 0);
		CHECK(r.status == 200 && strcmp(r.reason, "OK") == 0);
		CHECK(r.complete == 1 && r.body_len == 0 && r.nheaders == 1);
		http_response_free(&r);

		CHECK(parse(two_chunked, ended, 0, &r, &err) == 0);
		CHECK(r.status == 201 && strcmp(r.reason, "Created") == 0);
		CHECK(r.complete == 1 && body_is(&r, "ab") && r.nheaders == 1);
		http_response_free(&r);
	}
	/* Whatever follows the first, even garbage, is not read. */
	CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: "
		    "2\r\n\r\nokSSH-2.0-x\r\n",
		    1, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 1 && body_is(&r, "ok"));
	http_response_free(&r);
}

/* 1xx answers before the final one (a server answers Expect:
 * 100-continue, or sends 103 Early Hints): the final one is the answer,
 * with none of their headers or reason. */
static void check_interim(void)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n"
				   "HTTP/1.1 200 OK\r\n"
				   "Content-Length: 2\r\n"
				   "\r\n"
				   "ok";
	static const char hints[] = "HTTP/1.1 103 Early Hints\r\n"
				    "Link: </style.css>; rel=preload\r\n"
				    "\r\n"
				    "HTTP/1.1 100 Continue\r\n"
				    "X-Interim: 1\r\n"
				    "\r\n"
				    "HTTP/1.1 404 Not Found\r\n"
				    "Content-Type: text/plain\r\n"
				    "\r\n"
				    "gone";
	static const char upgrade[] = "HTTP/1.1 101 Switching Protocols\r\n"
				      "Upgrade: websocket\r\n"
				      "Connection: Upgrade\r\n"
				      "\r\n"
				      "\x81\x05hello";
	struct http_response r;
	struct error err = {0};
	size_t len;

	for (int ended = 0; ended < 2; ended++) {
		CHECK(parse(cont, ended, 0, &r, &err) == 0);
		CHECK(r.status == 200 && strcmp(r.reason, "OK") == 0);
		CHECK(r.complete == 1 && body_is(&r, "ok") && r.nheaders == 1);
		http_response_free(&r);

		CHECK(parse(hints, ended, 0, &r, &err) == 0);
		CHECK(r.status == 404 && strcmp(r.reason, "Not Found") == 0);
		CHECK(r.nheaders == 1 &&
		      header_is(&r, "content-type", "text/plain"));
		CHECK(http_response_header(&r, "link", &len) == NULL);
		CHECK(http_response_header(&r, "x-interim", &len) == NULL);
		CHECK(r.complete == ended && body_is(&r, "gone"));
		http_response_free(&r);

		/* Only the interim answer so far: no headers yet. */
		CHECK(parse("HTTP/1.1 100 Continue\r\n\r\n", ended, 0, &r,
			    &err) == -EAGAIN);
		CHECK(parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2", ended, 0,
			    &r, &err) == -EAGAIN);
		/* The same to a HEAD. */
		CHECK(parse(cont, ended, 1, &r, &err) == 0);
		CHECK(r.status == 200 && r.complete == 1 && r.body_len == 0);
		http_response_free(&r);

		/* 101 is the answer: the bytes after it are another
		 * protocol's. */
		CHECK(parse(upgrade, ended, 0, &r, &err) == 0);
		CHECK(r.status == 101 && r.complete == 1 && r.body_len == 0);
		CHECK(header_is(&r, "upgrade", "websocket"));
		http_response_free(&r);
	}
}

static void check_http10(void)
{
	struct http_response r;
	struct error err = {0};

	/* Python's http.server: HTTP/1.0, the body until the close. */
	CHECK(parse("HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\n\r\n<html>",
		    0, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 0 && body_is(&r, "<html>"));
	http_response_free(&r);
	CHECK(parse("HTTP/1.0 200 OK\r\nServer: SimpleHTTP/0.6\r\n\r\n<html>",
		    1, 0, &r, &err) == 0);
	CHECK(r.status == 200 && r.complete == 1 && body_is(&r, "<html>"));
	CHECK(header_is(&r, "server", "SimpleHTTP/0.6"));
	http_response_free(&r);
	/* With a length. */
	CHECK(parse("HTTP/1.0 404 File not found\r\nContent-Length: 3\r\n\r\n"
		    "nop",
		    0, 0, &r, &err) == 0);
	CHECK(r.status == 404 && r.complete == 1 && body_is(&r, "nop"));
	CHECK(strcmp(r.reason, "File not found") == 0);
	http_response_free(&r);
}

int main(void)
{
	check_build();
	check_build_refused();
	check_length();
	check_chunked();
	check_close_delimited();
	check_head();
	check_not_http();
	check_again();
	check_many_headers();
	check_reason();
	check_header_lookup();
	check_two();
	check_interim();
	check_http10();
	return t_summary("http_message");
}
