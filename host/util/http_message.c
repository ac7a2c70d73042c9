/*
 * http_message.c - requests built, responses parsed (http_message.h).
 */
#include "http_message.h"

#include <errno.h>
#include <http_parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* RFC 9110 tchar. */
static int tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int token(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!tchar((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is(const struct http_header *h, const char *name)
{
	return h->name_len == strlen(name) &&
	       strncasecmp(h->name, name, h->name_len) == 0;
}

/* Headers that belong to the connection, which is the host's. */
static int hop(const struct http_header *h)
{
	static const char *const names[] = {
		"connection",	     "keep-alive", "content-length",
		"transfer-encoding", "te",	   "upgrade",
		"proxy-connection",  NULL,
	};

	for (int i = 0; names[i]; i++)
		if (is(h, names[i]))
			return 1;
	return 0;
}

unsigned char *http_request_build(const struct http_request_spec *q,
				  size_t *len, struct error *err)
{
	/* No body (NULL) has no length, whatever body_len says. */
	size_t blen = q->body ? q->body_len : 0;
	size_t n = strlen(q->method) + strlen(q->target) + 128 + blen;
	const unsigned char *t = (const unsigned char *)q->target;
	int host = 0;
	char *out, *o;

	if (!token(q->method, strlen(q->method)) || strlen(q->method) > 32) {
		error_set(err, ERR_INVALID_ARGUMENTS,
			  "method: not an HTTP method");
		return NULL;
	}
	if (t[0] != '/') {
		error_set(err, ERR_INVALID_ARGUMENTS,
			  "path: must start with '/'");
		return NULL;
	}
	for (; *t; t++)
		if (*t <= 0x20 || *t >= 0x7f) {
			error_set(err, ERR_INVALID_ARGUMENTS,
				  "path: spaces, control characters and bytes "
				  "over 0x7e must be percent-encoded");
			return NULL;
		}
	for (size_t i = 0; i < q->nheaders; i++) {
		const struct http_header *h = &q->headers[i];

		if (!token(h->name, h->name_len)) {
			error_set(err, ERR_INVALID_ARGUMENTS,
				  "headers: '%.*s' is not a header name",
				  (int)(h->name_len > 64 ? 64 : h->name_len),
				  h->name);
			return NULL;
		}
		for (size_t k = 0; k < h->value_len; k++)
			if (h->value[k] == '\r' || h->value[k] == '\n' ||
			    h->value[k] == '\0') {
				error_set(err, ERR_INVALID_ARGUMENTS,
					  "headers: the value of '%.*s' holds "
					  "CR, LF or NUL",
					  (int)(h->name_len > 64 ? 64
								 : h->name_len),
					  h->name);
				return NULL;
			}
		n += h->name_len + h->value_len + 4;
	}
	out = malloc(n);
	if (!out) {
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	o = out + sprintf(out, "%s %s HTTP/1.1\r\n", q->method, q->target);
	for (size_t i = 0; i < q->nheaders; i++) {
		const struct http_header *h = &q->headers[i];

		if (hop(h))
			continue;
		host |= is(h, "host");
		memcpy(o, h->name, h->name_len);
		o += h->name_len;
		*o++ = ':';
		*o++ = ' ';
		memcpy(o, h->value, h->value_len);
		o += h->value_len;
		*o++ = '\r';
		*o++ = '\n';
	}
	if (!host)
		o += sprintf(o, "Host: 127.0.0.1:%u\r\n", q->port);
	if (q->body)
		o += sprintf(o, "Content-Length: %zu\r\n", blen);
	o += sprintf(o, "Connection: close\r\n\r\n");
	if (blen)
		memcpy(o, q->body, blen);
	*len = (size_t)(o - out) + blen;
	return (unsigned char *)out;
}

/* The parse in progress: what the callbacks fill. */
struct parse {
	struct http_response *r;
	unsigned char *body; /* the body's buffer, in r->mem */
	int in_value;	     /* the last callback was a header's value */
	int head;
	int headers_done;
};

static int on_status(http_parser *p, const char *at, size_t n)
{
	struct parse *ps = p->data;
	char *d = ps->r->reason;
	size_t have = strlen(d);

	for (size_t i = 0; i < n && have + 1 < sizeof(ps->r->reason); i++)
		d[have++] = at[i] >= 0x20 && at[i] < 0x7f ? at[i] : '?';
	d[have] = '\0';
	return 0;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
	struct parse *ps = p->data;
	struct http_response *r = ps->r;
	struct http_header *h;

	if (!ps->in_value && r->nheaders && !r->dropped) {
		/* The same name, in a second piece. */
		h = &r->headers[r->nheaders - 1];
		if (h->name + h->name_len == at) {
			h->name_len += n;
			return 0;
		}
	}
	ps->in_value = 0;
	if (r->nheaders == HTTP_MAX_HEADERS) {
		r->dropped++;
		return 0;
	}
	h = &r->headers[r->nheaders++];
	*h = (struct http_header){.name = at, .name_len = n, .value = ""};
	return 0;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
	struct parse *ps = p->data;
	struct http_response *r = ps->r;
	struct http_header *h;

	if (!r->nheaders || r->dropped)
		return 0;
	h = &r->headers[r->nheaders - 1];
	if (ps->in_value && h->value + h->value_len == at)
		h->value_len += n;
	else if (!ps->in_value) {
		h->value = at;
		h->value_len = n;
	}
	ps->in_value = 1;
	return 0;
}

static int on_headers_complete(http_parser *p)
{
	struct parse *ps = p->data;
	unsigned st = p->status_code;

	ps->headers_done = 1;
	ps->r->status = (int)st;
	/* 1: no body follows. None does to a HEAD, nor with a 1xx, 204 or
	 * 304, whatever Content-Length says (RFC 9112, 6.3); http-parser
	 * would wait for one. */
	return ps->head || (st >= 100 && st < 200) || st == 204 || st == 304;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	struct parse *ps = p->data;

	memcpy(ps->body + ps->r->body_len, at, n);
	ps->r->body_len += n;
	return 0;
}

static int on_complete(http_parser *p)
{
	struct parse *ps = p->data;
	struct http_response *r = ps->r;

	if (r->status >= 100 && r->status < 200 && r->status != 101) {
		/* An interim answer (100 Continue, 103 Early Hints): the
		 * final one follows, in its place. */
		r->status = 0;
		r->reason[0] = '\0';
		r->nheaders = 0;
		r->dropped = 0;
		ps->in_value = 0;
		ps->headers_done = 0;
		return 0;
	}
	/* The first final answer is the answer: http-parser would go on to
	 * a second one and add its headers and body to this one's. */
	r->complete = 1;
	http_parser_pause(p, 1);
	return 0;
}

int http_response_parse(const unsigned char *raw, size_t len, int ended,
			int head, struct http_response *r, struct error *err)
{
	static const http_parser_settings settings = {
		.on_status = on_status,
		.on_header_field = on_field,
		.on_header_value = on_value,
		.on_headers_complete = on_headers_complete,
		.on_body = on_body,
		.on_message_complete = on_complete,
	};
	struct parse ps = {.r = r, .head = head};
	http_parser p;
	enum http_errno e;
	char *copy;
	size_t n;

	memset(r, 0, sizeof(*r));
	/* The bytes, then room for the body (never longer than they are). */
	r->mem = malloc(2 * len + 1);
	if (!r->mem)
		return error_set(err, -ENOMEM, "out of memory");
	copy = r->mem;
	if (len)
		memcpy(copy, raw, len);
	ps.body = (unsigned char *)copy + len;
	r->body = ps.body;
	http_parser_init(&p, HTTP_RESPONSE);
	p.data = &ps;
	n = http_parser_execute(&p, &settings, copy, len);
	e = HTTP_PARSER_ERRNO(&p);
	/* The end of the connection ends a body without a length. An end
	 * within the headers is an error to http-parser; here it is bytes
	 * that stop before the headers do, as without the end. */
	if (e == HPE_OK && n == len && ended && !r->complete && ps.headers_done)
		http_parser_execute(&p, &settings, NULL, 0);
	/* Once the headers are in, what came stands: complete says whether
	 * the body ended as it should (a cap, a timeout, a server that
	 * closed early or garbled a chunk leave it 0). A second response
	 * after the first is not read (on_complete). */
	if (ps.headers_done)
		return 0;
	http_response_free(r);
	if (e == HPE_OK)
		return error_set(err, -EAGAIN,
				 "the answer ended before its headers did "
				 "(%zu bytes)",
				 len);
	return error_set(err, -EBADMSG,
			 "not an HTTP response: %s (at byte %zu of %zu)",
			 http_errno_description(e), n, len);
}

void http_response_free(struct http_response *r)
{
	free(r->mem);
	memset(r, 0, sizeof(*r));
}

const char *http_response_header(const struct http_response *r,
				 const char *name, size_t *len)
{
	for (size_t i = 0; i < r->nheaders; i++)
		if (is(&r->headers[i], name)) {
			*len = r->headers[i].value_len;
			return r->headers[i].value;
		}
	return NULL;
}
