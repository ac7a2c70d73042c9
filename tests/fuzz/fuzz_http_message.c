/*
 * fuzz_http_message.c - libFuzzer harness for what a server in a session
 * answers sandbox_http and the preview links (util/http_message.h): the
 * bytes to http_response_parse() with the connection ended or not, to a
 * HEAD or not. Every header and the body are read whole (ASan sees one
 * that points outside what the parse owns), the lookup is asked for a
 * header the input names and for one it cannot, and a parse's promises
 * hold: a body no longer than the input, at most HTTP_MAX_HEADERS
 * headers, a reason of printable bytes, -EAGAIN or -EBADMSG with nothing
 * to free. A prefix of the input is also a request's method, target and
 * header to http_request_build(): what it builds is one request line,
 * and what it refuses it refuses with ERR_INVALID_ARGUMENTS.
 * Under ASan and UBSan.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/http_message.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned sum(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static void response(const uint8_t *data, size_t size, int ended, int head)
{
	struct http_response r;
	struct error err;
	volatile unsigned s = 0;
	size_t len;
	char name[65];
	int rc;

	rc = http_response_parse(data, size, ended, head, &r, &err);
	if (rc) {
		if ((rc != -EAGAIN && rc != -EBADMSG) || err.code != rc ||
		    r.mem != NULL)
			abort();
		return;
	}
	if (r.nheaders > HTTP_MAX_HEADERS || r.body_len > size ||
	    (head && r.body_len) || strlen(r.reason) >= sizeof(r.reason))
		abort();
	for (const char *c = r.reason; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			abort();
	for (size_t i = 0; i < r.nheaders; i++) {
		const struct http_header *h = &r.headers[i];

		s += sum(h->name, h->name_len) + sum(h->value, h->value_len);
	}
	s += sum(r.body, r.body_len);
	(void)s;
	/* A name the response has, and its lookup. */
	if (r.nheaders) {
		const struct http_header *h = &r.headers[r.nheaders - 1];
		size_t n = h->name_len < 64 ? h->name_len : 64;

		memcpy(name, h->name, n);
		name[n] = '\0';
		if (!memchr(name, '\0', n) && n == h->name_len &&
		    !http_response_header(&r, name, &len))
			abort();
	}
	(void)http_response_header(&r, "content-type", &len);
	if (http_response_header(&r, "", &len) && len > size)
		abort();
	http_response_free(&r);
	if (r.mem || r.nheaders)
		abort();
}

/* The first bytes cut into a method, a target and one header (name,
 * value) at the NULs they hold: at most 4 pieces of 256 bytes. */
static void request(const uint8_t *data, size_t size)
{
	char buf[4 * 257], *part[4];
	struct http_header h;
	struct http_request_spec q;
	struct error err;
	unsigned char *b;
	size_t len, n = size < 4 * 256 ? size : 4 * 256, k = 0, off = 0;

	for (int i = 0; i < 4; i++) {
		size_t m = 0;

		part[i] = buf + off;
		while (k < n && data[k] && m < 256)
			buf[off + m++] = (char)data[k++];
		buf[off + m] = '\0';
		off += m + 1;
		if (k < n)
			k++; /* the NUL */
	}
	h = (struct http_header){.name = part[2],
				 .name_len = strlen(part[2]),
				 .value = part[3],
				 .value_len = strlen(part[3])};
	q = (struct http_request_spec){
		.method = part[0],
		.target = part[1],
		.headers = &h,
		.nheaders = size & 1,
		.body = size & 2 ? data : NULL,
		.body_len = size, /* without a body, ignored */
		.port = size > 4
				? (unsigned)data[size - 1] << 8 | data[size - 2]
				: 0,
	};
	b = http_request_build(&q, &len, &err);
	if (!b) {
		if (err.code != ERR_INVALID_ARGUMENTS)
			abort();
		return;
	}
	/* One request line, then headers, each line ended by CRLF, up to
	 * the blank line. */
	if (len < strlen(part[0]) + strlen(part[1]) + 12 ||
	    memcmp(b, part[0], strlen(part[0])) != 0 ||
	    !memmem(b, len, "\r\nConnection: close\r\n\r\n", 23))
		abort();
	{
		const unsigned char *end =
			memmem(b, len, "\r\n\r\n", 4); /* the headers' end */
		size_t hl = (size_t)(end - b) + 4;

		if (len != hl + (q.body ? q.body_len : 0))
			abort();
		for (size_t i = 0; i < hl; i++)
			if ((b[i] == '\r') != (i + 1 < hl && b[i + 1] == '\n'))
				abort();
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int ended = 0; ended < 2; ended++)
		for (int head = 0; head < 2; head++)
			response(data, size, ended, head);
	request(data, size);
	return 0;
}
