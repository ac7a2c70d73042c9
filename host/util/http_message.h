/*
 * http_message.h - HTTP/1.1 messages for the servers a session runs
 * (sandbox_http, the preview links; docs/processes.md): a request's bytes
 * built from checked parts, and a response's bytes parsed with Node's
 * http-parser (Debian's libhttp-parser). Pure: no I/O, no loop.
 *
 * The agent moves the bytes (agent/loopback.h) and never looks into
 * them; what a server in the sandbox sends is read here, by the host,
 * as untrusted input (tests/fuzz/fuzz_http_message.c).
 */
#ifndef SBX_HTTP_MESSAGE_H
#define SBX_HTTP_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct http_header {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

struct http_request_spec {
	const char *method; /* a token: "GET", "POST", ... */
	const char *target; /* "/path?query", as it goes on the wire */
	const struct http_header *headers;
	size_t nheaders;
	const unsigned char *body; /* NULL: none */
	size_t body_len;
	unsigned port; /* for Host */
};

/* The request's bytes (malloc()ed, *len long): the request line, Host
 * 127.0.0.1:port (a Host among the headers wins), the caller's headers
 * but for the ones that belong to the connection (Connection,
 * Keep-Alive, Content-Length, Transfer-Encoding, TE, Upgrade,
 * Proxy-Connection), Content-Length when there is a body, and
 * Connection: close (the answer ends when the server closes). NULL with
 * err ERR_INVALID_ARGUMENTS naming the part that is wrong: a method that
 * is not a token, a target that does not start with '/' or holds a
 * space, a control byte or a byte over 0x7e, a header name that is not a
 * token or a value with CR, LF or NUL; ERR_SANDBOX when out of memory. */
unsigned char *http_request_build(const struct http_request_spec *q,
				  size_t *len, struct error *err);

#define HTTP_MAX_HEADERS 100

struct http_response {
	int status;
	char reason[64]; /* cut, control bytes as '?' */
	/* The headers as they came (at most HTTP_MAX_HEADERS; more are
	 * counted in dropped), pointing into mem. */
	struct http_header headers[HTTP_MAX_HEADERS];
	size_t nheaders;
	unsigned dropped;
	/* The body, de-chunked (not decompressed: a Content-Encoding stays
	 * the server's), in mem. */
	const unsigned char *body;
	size_t body_len;
	int complete; /* the message ended; 0: cut short (a cap, a timeout) */
	void *mem;
};

/* Parse raw[0..len), the bytes a server sent; ended: it closed the
 * connection after them (so a body without a length ends there); head:
 * the request was HEAD (no body follows; nor does one with a 1xx, 204 or
 * 304). An interim answer (100 Continue, 103 Early Hints) is skipped for
 * the final one that follows; the first final answer is the answer, what
 * comes after it is not read. 0 with *r filled (free it with
 * http_response_free), or -EBADMSG with err when the bytes are not an
 * HTTP/1.x response (err's message says where it went wrong), or
 * -EAGAIN when they end before the headers do. */
int http_response_parse(const unsigned char *raw, size_t len, int ended,
			int head, struct http_response *r, struct error *err);
void http_response_free(struct http_response *r);
/* The value of header name (case-insensitive) in r, or NULL (*len set
 * when found). */
const char *http_response_header(const struct http_response *r,
				 const char *name, size_t *len);

#endif
