/*
 * transport.c - newline-delimited JSON over stdin/stdout on the libuv loop.
 */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"

#define LOG_MODULE "transport"
#define FILE_CHUNK 65536
/* Buffers larger than this (a large request line, replies queued for a
 * client that reads slowly) go back to the system once used: the server's
 * resident size returns to what it was. */
#define LINE_KEEP (256u << 10)
#define QUEUE_KEEP (1u << 20)
/* Room asked for in stdin's and stdout's pipes (roomy()). */
#define ROOM (1 << 20)

struct transport {
	uv_loop_t *loop;
	struct transport_cbs cbs;
	void *arg;
	size_t max_line;

	/* input */
	int in_kind; /* UV_NAMED_PIPE, UV_TTY, UV_FILE... */
	union {
		uv_pipe_t pipe;
		uv_tty_t tty;
		uv_tcp_t tcp;
	} in;
	int in_handle;	/* in is an initialized libuv handle */
	uv_fs_t in_req; /* for regular files */
	char *file_buf;
	int64_t file_off;
	int reading;
	int in_closed;
	char *line;
	size_t line_len, line_cap;
	int discarding; /* dropping the rest of an oversize line */
	size_t discarded;
	/* The dropped line's id, scanned for as it passes (fixed size). */
	struct json_id_scan scan;

	/* output */
	int out_fd;
	int out_is_pipe;
	uv_pipe_t out;
	unsigned pending_writes;
	size_t queued, queued_peak; /* heap bytes of pending writes */
	int out_closed;

	int closing;
	void (*done)(void *);
	void *done_arg;
};

static void maybe_finish(struct transport *t);
static void in_closed_cb(uv_handle_t *h);

/* Give a large line buffer back (docs/architecture.md, "Memory"). */
static void release_line(struct transport *t)
{
	if (t->line_cap > LINE_KEEP) {
		free(t->line);
		t->line = NULL;
		t->line_cap = 0;
		malloc_trim(0);
	}
}

/* The line is over the cap (or its buffer cannot grow): what was kept
 * and what comes until its end are only scanned for the id, so that the
 * error can carry it, and the buffer goes back now. */
static void start_discarding(struct transport *t, const char *buf, size_t n)
{
	t->discarding = 1;
	t->discarded = t->line_len + n;
	json_id_scan_init(&t->scan);
	json_id_scan_feed(&t->scan, t->line, t->line_len);
	json_id_scan_feed(&t->scan, buf, n);
	t->line_len = 0;
	release_line(t);
}

static void append(struct transport *t, const char *buf, size_t n)
{
	if (t->discarding) {
		t->discarded += n;
		json_id_scan_feed(&t->scan, buf, n);
		return;
	}
	if (t->line_len + n > t->max_line) {
		start_discarding(t, buf, n);
		return;
	}
	if (t->line_len + n + 1 > t->line_cap) {
		size_t cap = t->line_cap ? t->line_cap : 4096;
		char *p;

		while (cap < t->line_len + n + 1)
			cap *= 2;
		p = realloc(t->line, cap);
		if (!p) {
			start_discarding(t, buf, n);
			return;
		}
		t->line = p;
		t->line_cap = cap;
	}
	memcpy(t->line + t->line_len, buf, n);
	t->line_len += n;
}

static void end_line(struct transport *t)
{
	size_t l = t->line_len;

	t->line_len = 0;
	if (t->discarding) {
		t->discarding = 0;
		t->cbs.on_oversize(t, t->discarded, &t->scan, t->arg);
		return;
	}
	if (l && t->line[l - 1] == '\r')
		l--;
	if (!l)
		return;
	t->line[l] = '\0';
	t->cbs.on_line(t, t->line, l, t->arg);
	/* A large line's buffer goes back: a 10 MiB request must not keep
	 * the server 10 MiB larger. */
	release_line(t);
}

static void feed(struct transport *t, const char *buf, size_t len)
{
	while (len && t->reading) {
		const char *nl = memchr(buf, '\n', len);
		size_t n = nl ? (size_t)(nl - buf) : len;

		append(t, buf, n);
		if (!nl)
			return;
		buf += n + 1;
		len -= n + 1;
		end_line(t);
	}
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)h;
	buf->base = malloc(suggested);
	buf->len = buf->base ? suggested : 0;
}

static void eof(struct transport *t)
{
	if (!t->reading)
		return;
	transport_stop_reading(t);
	t->cbs.on_eof(t, t->arg);
}

static void read_cb(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct transport *t = s->data;

	if (nread > 0)
		feed(t, buf->base, (size_t)nread);
	free(buf->base);
	if (nread < 0)
		eof(t);
}

static void file_read_cb(uv_fs_t *req)
{
	struct transport *t = req->data;
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	if (n <= 0 || !t->reading) {
		free(t->file_buf);
		t->file_buf = NULL;
		if (t->reading) {
			/* eof() may lead to transport_close(), which can
			 * free t: touch nothing afterwards. */
			eof(t);
			return;
		}
		maybe_finish(t);
		return;
	}
	t->file_off += n;
	feed(t, t->file_buf, (size_t)n);
	if (t->reading) {
		uv_buf_t b = uv_buf_init(t->file_buf, FILE_CHUNK);

		uv_fs_read(t->loop, &t->in_req, 0, &b, 1, t->file_off,
			   file_read_cb);
	} else {
		free(t->file_buf);
		t->file_buf = NULL;
		maybe_finish(t);
	}
}

int transport_guard_stdout(void)
{
	int fd = fcntl(1, F_DUPFD_CLOEXEC, 3);

	if (fd < 0)
		return -errno;
	if (dup2(2, 1) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* A message of a megabyte (a file's write or read) passes in one write
 * rather than in pieces of 64 KiB or 200 KiB, each waiting for the other
 * side to read: room in stdout's pipe or socket, and in stdin's pipe (a
 * socket's room is its sender's). The kernel bounds it (pipe-max-size,
 * wmem_max). Best effort. */
static void roomy(int fd, int out)
{
	int size = ROOM;

	if (fcntl(fd, F_SETPIPE_SZ, size) < 0 && out)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

int transport_open(uv_loop_t *loop, int out_fd, size_t max_line,
		   const struct transport_cbs *cbs, void *arg,
		   struct transport **out)
{
	struct transport *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return UV_ENOMEM;
	t->loop = loop;
	t->cbs = *cbs;
	t->arg = arg;
	t->max_line = max_line;

	t->out_fd = out_fd;
	t->out_is_pipe = uv_guess_handle(t->out_fd) == UV_NAMED_PIPE;
	if (t->out_is_pipe) {
		roomy(t->out_fd, 1);
		uv_pipe_init(loop, &t->out, 0);
		t->out.data = t;
		if (uv_pipe_open(&t->out, t->out_fd) != 0)
			t->out_is_pipe = 0;
	}

	t->in_kind = uv_guess_handle(0);
	t->reading = 1;
	switch (t->in_kind) {
	case UV_NAMED_PIPE:
		roomy(0, 0);
		uv_pipe_init(loop, &t->in.pipe, 0);
		t->in.pipe.data = t;
		t->in_handle = 1;
		rc = uv_pipe_open(&t->in.pipe, 0);
		if (!rc)
			rc = uv_read_start((uv_stream_t *)&t->in.pipe, alloc_cb,
					   read_cb);
		break;
	case UV_TCP:
		uv_tcp_init(loop, &t->in.tcp);
		t->in.tcp.data = t;
		t->in_handle = 1;
		rc = uv_tcp_open(&t->in.tcp, 0);
		if (!rc)
			rc = uv_read_start((uv_stream_t *)&t->in.tcp, alloc_cb,
					   read_cb);
		break;
	case UV_TTY:
		rc = uv_tty_init(loop, &t->in.tty, 0, 1);
		t->in.tty.data = t;
		t->in_handle = rc == 0;
		if (!rc)
			rc = uv_read_start((uv_stream_t *)&t->in.tty, alloc_cb,
					   read_cb);
		break;
	default: {
		uv_buf_t b;

		t->in_kind = UV_FILE;
		t->file_buf = malloc(FILE_CHUNK);
		if (!t->file_buf) {
			rc = UV_ENOMEM;
			break;
		}
		t->in_req.data = t;
		b = uv_buf_init(t->file_buf, FILE_CHUNK);
		rc = uv_fs_read(loop, &t->in_req, 0, &b, 1, 0, file_read_cb);
		break;
	}
	}
	if (rc) {
		log_error("cannot read stdin: %s", uv_strerror(rc));
		t->reading = 0;
		free(t->file_buf);
		t->file_buf = NULL;
		if (t->in_handle)
			uv_close((uv_handle_t *)&t->in, in_closed_cb);
		else
			t->in_closed = 1;
	}
	*out = t;
	return 0;
}

struct write_req {
	uv_write_t req;
	struct transport *t;
	size_t len;
	char *data; /* the message and its newline; owned */
};

static void write_cb(uv_write_t *req, int status)
{
	struct write_req *w = (struct write_req *)req;
	struct transport *t = w->t;

	if (status < 0 && status != UV_ECANCELED)
		log_error("writing to stdout: %s", uv_strerror(status));
	t->pending_writes--;
	t->queued -= sizeof(*w) + w->len;
	free(w->data);
	free(w);
	if (!t->queued && t->queued_peak > QUEUE_KEEP) {
		t->queued_peak = 0;
		malloc_trim(0);
	}
	maybe_finish(t);
}

int transport_send(struct transport *t, char *json, size_t len)
{
	struct write_req *w;
	uv_buf_t b;
	size_t off = 0;
	int rc;

	if (t->out_closed) {
		free(json);
		return -EPIPE;
	}
	/* The message's terminating NUL becomes its newline: sent as it
	 * is, never copied (a read's result is megabytes). */
	json[len] = '\n';
	if (!t->out_is_pipe) {
		/* A file or terminal: a plain write cannot stall on a reader.
		 */
		while (off < len + 1) {
			ssize_t n = write(t->out_fd, json + off, len + 1 - off);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		free(json);
		return off == len + 1 ? 0 : -EIO;
	}
	w = malloc(sizeof(*w));
	if (!w) {
		free(json);
		return -ENOMEM;
	}
	w->t = t;
	w->len = len + 1;
	w->data = json;
	b = uv_buf_init(json, (unsigned)(len + 1));
	rc = uv_write(&w->req, (uv_stream_t *)&t->out, &b, 1, write_cb);
	if (rc) {
		free(json);
		free(w);
		return rc;
	}
	t->pending_writes++;
	t->queued += sizeof(*w) + w->len; /* what the heap holds for it */
	if (t->queued > t->queued_peak)
		t->queued_peak = t->queued;
	return 0;
}

static void in_closed_cb(uv_handle_t *h)
{
	struct transport *t = h->data;

	t->in_closed = 1;
	maybe_finish(t);
}

void transport_stop_reading(struct transport *t)
{
	if (!t->reading)
		return;
	t->reading = 0;
	if (t->in_handle)
		uv_close((uv_handle_t *)&t->in, in_closed_cb);
	else
		t->in_closed = 1; /* the pending fs read notices !reading */
}

static void out_closed_cb(uv_handle_t *h)
{
	struct transport *t = h->data;

	t->out_closed = 2;
	maybe_finish(t);
}

static void maybe_finish(struct transport *t)
{
	void (*done)(void *);
	void *arg;

	if (!t->closing || t->pending_writes || !t->in_closed || t->file_buf)
		return;
	if (t->out_is_pipe && t->out_closed != 2) {
		if (!t->out_closed) {
			t->out_closed = 1;
			uv_close((uv_handle_t *)&t->out, out_closed_cb);
		}
		return;
	}
	if (!t->out_is_pipe && t->out_fd >= 0) {
		close(t->out_fd);
		t->out_fd = -1;
	}
	done = t->done;
	arg = t->done_arg;
	free(t->line);
	free(t);
	if (done)
		done(arg);
}

void transport_close(struct transport *t, void (*done)(void *arg), void *arg)
{
	t->closing = 1;
	t->done = done;
	t->done_arg = arg;
	transport_stop_reading(t);
	maybe_finish(t);
}
