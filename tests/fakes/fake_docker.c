/*
 * fake_docker.c - the fake Docker daemon the unit tests share: HTTP/1.1
 * requests read off a unix socket and handed to the test, raw hijacked
 * streams after that; see fake_docker.h.
 */
#include "fake_docker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A request's head and body may not grow past this (a client bug). */
#define REQUEST_MAX ((size_t)16 * 1024 * 1024)

struct fake_docker_conn {
	uv_pipe_t pipe;
	struct fake_docker *fk;
	char *in; /* request bytes not yet handed out */
	size_t in_len, in_cap;
	int hijacked;
	int closing;
	void *data;
	struct fake_docker_conn *prev, *next;
};

struct fake_docker {
	uv_loop_t *loop;
	uv_pipe_t server;
	struct fake_docker_cbs cbs;
	void *arg;
	char dir[40];
	char path[64];
	char url[80];
	unsigned accepts;
	struct fake_docker_conn *conns;
};

static void fake_oom(void)
{
	fprintf(stderr, "fake_docker: out of memory\n");
	exit(1);
}

static void conn_close_cb(uv_handle_t *h)
{
	struct fake_docker_conn *c = h->data;

	free(c->in);
	free(c);
}

void fake_docker_close_conn(struct fake_docker_conn *c)
{
	struct fake_docker *fk = c->fk;

	if (c->closing)
		return;
	c->closing = 1;
	if (c->prev)
		c->prev->next = c->next;
	else
		fk->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (fk->cbs.on_conn_close)
		fk->cbs.on_conn_close(c, fk->arg);
	uv_close((uv_handle_t *)&c->pipe, conn_close_cb);
}

static void write_cb(uv_write_t *w, int status)
{
	(void)status; /* the host may have hung up first */
	free(w->data);
	free(w);
}

void fake_docker_write(struct fake_docker_conn *c, const void *data, size_t len)
{
	uv_write_t *w;
	uv_buf_t b;

	if (c->closing)
		return;
	w = malloc(sizeof(*w));
	if (!w || !(w->data = malloc(len ? len : 1)))
		fake_oom();
	memcpy(w->data, data, len);
	b = uv_buf_init(w->data, (unsigned)len);
	if (uv_write(w, (uv_stream_t *)&c->pipe, &b, 1, write_cb) != 0) {
		free(w->data);
		free(w);
	}
}

void fake_docker_frame_header(unsigned char hdr[8], int stream, uint32_t len)
{
	hdr[0] = (unsigned char)stream;
	hdr[1] = hdr[2] = hdr[3] = 0;
	hdr[4] = (unsigned char)(len >> 24);
	hdr[5] = (unsigned char)(len >> 16);
	hdr[6] = (unsigned char)(len >> 8);
	hdr[7] = (unsigned char)len;
}

void fake_docker_write_frame(struct fake_docker_conn *c, int stream,
			     const void *data, size_t len)
{
	unsigned char *f = malloc(8 + len);

	if (!f)
		fake_oom();
	fake_docker_frame_header(f, stream, (uint32_t)len);
	memcpy(f + 8, data, len);
	fake_docker_write(c, f, 8 + len);
	free(f);
}

void fake_docker_respond(struct fake_docker_conn *c, int status,
			 const char *body, size_t len)
{
	char head[160];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
			 "Content-Length: %zu\r\n\r\n",
			 status, len);
	char *msg = malloc((size_t)n + len);

	if (!msg)
		fake_oom();
	memcpy(msg, head, (size_t)n);
	memcpy(msg + n, body, len);
	fake_docker_write(c, msg, (size_t)n + len);
	free(msg);
}

void fake_docker_hijack(struct fake_docker_conn *c)
{
	c->hijacked = 1;
}

void fake_docker_upgrade(struct fake_docker_conn *c)
{
	static const char ok[] = FAKE_DOCKER_UPGRADE_ANSWER;

	fake_docker_hijack(c);
	fake_docker_write(c, ok, sizeof(ok) - 1);
}

void fake_docker_conn_set_data(struct fake_docker_conn *c, void *data)
{
	c->data = data;
}

void *fake_docker_conn_data(const struct fake_docker_conn *c)
{
	return c->data;
}

static void in_consume(struct fake_docker_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->in_len - n);
	c->in_len -= n;
}

/* Hands out the first request in c->in if it is complete; returns 1 if it
 * did. */
static int conn_dispatch(struct fake_docker_conn *c)
{
	struct fake_docker *fk = c->fk;
	struct fake_docker_request req = {0};
	char method[16], path[1024];
	char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
	char *head, *body, *cl;
	size_t head_len, blen = 0;

	if (!end)
		return 0;
	head_len = (size_t)(end + 4 - c->in);
	head = malloc(head_len + 1);
	if (!head)
		fake_oom();
	memcpy(head, c->in, head_len - 2); /* keeps the last "\r\n" */
	head[head_len - 2] = '\0';
	cl = strcasestr(head, "\r\nContent-Length:");
	if (cl)
		blen = strtoul(cl + 17, NULL, 10);
	if (blen > REQUEST_MAX || c->in_len - head_len < blen) {
		free(head);
		return 0; /* the body is still coming */
	}
	body = malloc(blen + 1);
	if (!body)
		fake_oom();
	memcpy(body, c->in + head_len, blen);
	body[blen] = '\0';
	if (sscanf(head, "%15s %1023s HTTP/1.1", method, path) != 2) {
		fprintf(stderr, "fake_docker: bad request line: %.80s\n", head);
		method[0] = path[0] = '\0';
	}
	req = (struct fake_docker_request){
		.method = method,
		.path = path,
		.head = head,
		.body = body,
		.body_len = blen,
		.extra = c->in_len - head_len - blen,
	};
	in_consume(c, head_len + blen);
	fk->cbs.on_request(fk, c, &req, fk->arg);
	free(head);
	free(body);
	return 1;
}

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
	(void)h;
	(void)hint;
	b->base = malloc(65536);
	if (!b->base)
		fake_oom();
	b->len = 65536;
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *b)
{
	struct fake_docker_conn *c = st->data;
	struct fake_docker *fk = c->fk;

	if (nread < 0) {
		free(b->base);
		fake_docker_close_conn(c);
		return;
	}
	if (c->hijacked) {
		if (nread > 0 && fk->cbs.on_stdin)
			fk->cbs.on_stdin(c, b->base, (size_t)nread, fk->arg);
		free(b->base);
		return;
	}
	if (c->in_len + (size_t)nread > c->in_cap) {
		size_t cap = c->in_cap ? c->in_cap : 65536;

		while (cap < c->in_len + (size_t)nread)
			cap *= 2;
		if (cap > 2 * REQUEST_MAX) {
			fprintf(stderr, "fake_docker: request over %zu bytes\n",
				REQUEST_MAX);
			exit(1);
		}
		c->in = realloc(c->in, cap);
		if (!c->in)
			fake_oom();
		c->in_cap = cap;
	}
	memcpy(c->in + c->in_len, b->base, (size_t)nread);
	c->in_len += (size_t)nread;
	free(b->base);
	while (!c->hijacked && !c->closing && conn_dispatch(c))
		;
	/* What followed a hijacking request is already stream data. */
	if (c->hijacked && !c->closing && c->in_len) {
		size_t n = c->in_len;

		c->in_len = 0;
		if (fk->cbs.on_stdin)
			fk->cbs.on_stdin(c, c->in, n, fk->arg);
	}
}

static void connection_cb(uv_stream_t *server, int status)
{
	struct fake_docker *fk = server->data;
	struct fake_docker_conn *c;

	if (status < 0) {
		fprintf(stderr, "fake_docker: listen: %s\n",
			uv_strerror(status));
		exit(1);
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		fake_oom();
	c->fk = fk;
	uv_pipe_init(fk->loop, &c->pipe, 0);
	c->pipe.data = c;
	if (uv_accept(server, (uv_stream_t *)&c->pipe) != 0 ||
	    uv_read_start((uv_stream_t *)&c->pipe, alloc_cb, read_cb) != 0) {
		fprintf(stderr, "fake_docker: cannot accept\n");
		exit(1);
	}
	fk->accepts++;
	c->next = fk->conns;
	if (fk->conns)
		fk->conns->prev = c;
	fk->conns = c;
}

int fake_docker_start(uv_loop_t *loop, const struct fake_docker_cbs *cbs,
		      void *arg, struct fake_docker **out)
{
	struct fake_docker *fk;
	int r;

	if (!cbs->on_request)
		return -EINVAL;
	fk = calloc(1, sizeof(*fk));
	if (!fk)
		return -ENOMEM;
	fk->loop = loop;
	fk->cbs = *cbs;
	fk->arg = arg;
	snprintf(fk->dir, sizeof(fk->dir), "/tmp/sbx-fake-docker-XXXXXX");
	if (!mkdtemp(fk->dir)) {
		r = -errno;
		free(fk);
		return r;
	}
	snprintf(fk->path, sizeof(fk->path), "%s/docker.sock", fk->dir);
	snprintf(fk->url, sizeof(fk->url), "unix://%s", fk->path);
	uv_pipe_init(loop, &fk->server, 0);
	fk->server.data = fk;
	r = uv_pipe_bind(&fk->server, fk->path);
	if (r == 0)
		r = uv_listen((uv_stream_t *)&fk->server, 16, connection_cb);
	if (r < 0) {
		/* The handle exists: it goes through the loop like any. */
		fake_docker_stop(fk);
		return r;
	}
	uv_unref((uv_handle_t *)&fk->server);
	*out = fk;
	return 0;
}

static void server_close_cb(uv_handle_t *h)
{
	free(h->data);
}

void fake_docker_unlink(struct fake_docker *fk)
{
	if (!fk)
		return;
	unlink(fk->path);
	rmdir(fk->dir);
}

void fake_docker_stop(struct fake_docker *fk)
{
	if (!fk)
		return;
	while (fk->conns)
		fake_docker_close_conn(fk->conns);
	fake_docker_unlink(fk);
	uv_close((uv_handle_t *)&fk->server, server_close_cb);
}

const char *fake_docker_url(const struct fake_docker *fk)
{
	return fk->url;
}

unsigned fake_docker_accepts(const struct fake_docker *fk)
{
	return fk->accepts;
}
