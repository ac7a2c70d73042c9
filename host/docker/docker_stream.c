/*
 * docker_stream.c - hijacked attach and exec streams: the connection, the
 * handshake, raw socket I/O on the loop and the stdin write queue.
 *
 * An attach stream is a CONNECT_ONLY easy handle: curl opens the connection
 * (unix or TCP, with its errors and connect timeout), reports CURLMSG_DONE,
 * and from then on we write the HTTP request ourselves with send(), read the
 * "101 UPGRADED" answer (docker_proto.c) and demultiplex the raw stream
 * (docker_demux.c) with recv(), driven by our own uv_poll_t on
 * CURLINFO_ACTIVESOCKET. Each stream gets a multi of its own: in libcurl
 * 7.88 a CONNECT_ONLY connection sits idle in its multi's connection cache
 * until the first send/recv, and any other transfer starting on that multi
 * prunes idle connections that look dead (readable) or old, which would cut
 * the stream.
 *
 * Over TLS the connection cannot be taken from curl: the easy handle and
 * its multi stay, and the bytes go through curl_easy_send() and
 * curl_easy_recv() (which speak TLS) on the same poll. The poll still
 * tells the truth: OpenSSL reads one record at a time and we ask for more
 * than a record holds, so nothing decrypted waits inside OpenSSL while the
 * socket is quiet.
 *
 * An exec stream is the same machinery behind one plain request: the stream
 * starts in STREAM_CREATING while POST /containers/{id}/exec runs on the
 * client's multi (docker_http.c), then hijacks POST /exec/{Id}/start exactly
 * as attach does.
 */
#define LOG_MODULE "docker"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/log.h"
#include "docker_demux.h"
#include "docker_internal.h"

#define STREAM_READ_SIZE ((size_t)64 * 1024)
/* Reads per poll wakeup: level-triggered polling brings us back for the rest,
 * and a chatty container cannot starve the other handles on the loop. */
#define STREAM_READS_PER_WAKEUP 16
/* Room asked for in the kernel for what is sent (roomy()). */
#define STREAM_SNDBUF (4 << 20)

struct wchunk {
	struct wchunk *next;
	size_t len, off;
	char data[];
};

enum stream_state {
	STREAM_CREATING,   /* exec: POST /containers/{id}/exec in flight */
	STREAM_CONNECTING, /* curl is connecting */
	STREAM_HANDSHAKE,  /* request out, waiting for the 101 */
	STREAM_OPEN,
	STREAM_CLOSING,
};

struct docker_stream {
	struct docker *d;
	struct docker_multi
		m; /* only while connecting; closed once connected */
	int multi_closing;
	CURL *easy;
	int fd;		/* the connection, ours once curl has connected it */
	int tls;	/* fd stays curl's: I/O through curl_easy_send/recv */
	uv_poll_t poll; /* on that socket once connected */
	int poll_init;
	int poll_events;
	enum stream_state state;
	struct docker_stream_cbs cbs;
	void *arg;
	const char *what;	       /* "attach" or "exec", for messages */
	struct docker_req *create_req; /* exec: the create request in flight */
	char exec_id[72];	       /* exec: "" until created */
	int opened;
	int silent; /* failed inside docker_attach: no callbacks */
	int close_err;
	int pending;	 /* libuv handles still closing, create request */
	int warned;	 /* logged the daemon's in-band error once */
	int read_paused; /* docker_stream_pause() */
	int shut_wanted; /* docker_stream_close_write(): once all is sent */
	void (*sent_fn)(struct docker_stream *s, void *arg);

	char *req; /* the hijack request, sent before any stdin byte */
	size_t req_len, req_off;
	struct wchunk *wq_head, *wq_tail;
	size_t wq_bytes;

	struct docker_answer answer; /* freed once open */
	struct docker_demux demux;

	char errbuf[CURL_ERROR_SIZE];
	char msg[512];
	struct docker_stream *prev, *next;
};

static void stream_update_poll(struct docker_stream *s);

static void stream_unlink(struct docker_stream *s)
{
	struct docker *d = s->d;

	if (s->prev)
		s->prev->next = s->next;
	else
		d->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->prev = s->next = NULL;
}

static void stream_finish(struct docker_stream *s)
{
	struct docker *d = s->d;

	stream_unlink(s);
	if (s->fd >= 0 && !s->tls)
		close(s->fd);
	if (!s->silent) {
		if (!s->opened && !s->msg[0])
			snprintf(s->msg, sizeof(s->msg), "%s failed", s->what);
		if (!s->opened)
			s->cbs.on_open(s, s->close_err, s->msg, s->arg);
		s->cbs.on_close(s, s->close_err, s->arg);
	}
	docker_answer_close(&s->answer);
	free(s);
	docker_maybe_free(d);
}

static void stream_poll_close_cb(uv_handle_t *h)
{
	struct docker_stream *s = h->data;

	if (--s->pending == 0)
		stream_finish(s);
}

static void stream_multi_closed(struct docker_multi *m)
{
	struct docker_stream *s =
		docker_container_of(m, struct docker_stream, m);

	/* Also reached while the stream is open: the multi only served the
	 * connect. */
	if (--s->pending == 0 && s->state == STREAM_CLOSING)
		stream_finish(s);
}

/* Each multi handle costs ~30 KiB of hash tables for its whole life; a
 * stream needs curl only to connect. */
static void stream_release_multi(struct docker_stream *s)
{
	if (s->multi_closing)
		return;
	s->multi_closing = 1;
	if (s->easy) {
		curl_multi_remove_handle(s->m.curlm, s->easy);
		curl_easy_cleanup(s->easy);
		s->easy = NULL;
	}
	s->pending++;
	docker_multi_close(&s->m, stream_multi_closed);
}

/* Once the connection is ours, curl must not close it when its easy
 * handle goes: stream_finish does. */
static int stream_closesocket_cb(void *clientp, curl_socket_t item)
{
	struct docker_stream *s = clientp;

	if (item == s->fd && !s->tls)
		return 0;
	return close(item);
}

/* Tears the stream down; on_open (if still owed) and on_close run once
 * libuv has closed its handles. The first error recorded wins. */
static void stream_fail(struct docker_stream *s, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void stream_fail(struct docker_stream *s, int err, const char *fmt, ...)
{
	struct wchunk *c;

	if (s->state == STREAM_CLOSING)
		return;
	if (!s->opened && err == 0)
		err = -ECONNRESET;
	s->close_err = err;
	if (fmt && !s->msg[0]) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
		va_end(ap);
	}
	if (err && err != -ECANCELED)
		log_debug("%s stream %p: %s", s->what, (void *)s, s->msg);
	s->state = STREAM_CLOSING;

	/* Our poll must be off the fd before curl closes it. */
	if (s->poll_init) {
		s->pending++;
		uv_close((uv_handle_t *)&s->poll, stream_poll_close_cb);
	}
	while ((c = s->wq_head)) {
		s->wq_head = c->next;
		free(c);
	}
	s->wq_tail = NULL;
	s->wq_bytes = 0;
	free(s->req);
	s->req = NULL;
	/* An exec still being created: drop the request unanswered. While
	 * docker_free() runs, it completes every request itself (the
	 * callback then finds the stream closing), and freeing one here
	 * could pull the next one from under its loop. */
	if (s->create_req && !s->d->closing) {
		docker_req_cancel(s->create_req);
		s->create_req = NULL;
		s->pending--;
	}
	/* While connecting, this closes curl's connection at once; after, the
	 * multi is already gone and stream_finish closes our fd. */
	stream_release_multi(s);
	if (s->pending == 0)
		stream_finish(s);
}

/* One send on the connection: bytes taken, -EAGAIN, or -errno. */
static ssize_t stream_io_send(struct docker_stream *s, const char *buf,
			      size_t len)
{
	if (s->tls) {
		size_t n = 0;
		CURLcode rc = curl_easy_send(s->easy, buf, len, &n);

		if (rc == CURLE_AGAIN)
			return -EAGAIN;
		return rc == CURLE_OK ? (ssize_t)n : -EPIPE;
	}
	for (;;) {
		ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);

		if (n >= 0)
			return n;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		if (errno != EINTR)
			return -errno;
	}
}

/* One receive: bytes read (0 at EOF), -EAGAIN, or -errno. */
static ssize_t stream_io_recv(struct docker_stream *s, char *buf, size_t len)
{
	if (s->tls) {
		size_t n = 0;
		CURLcode rc = curl_easy_recv(s->easy, buf, len, &n);

		if (rc == CURLE_AGAIN)
			return -EAGAIN;
		return rc == CURLE_OK ? (ssize_t)n : -ECONNRESET;
	}
	for (;;) {
		ssize_t n = recv(s->fd, buf, len, 0);

		if (n >= 0)
			return n;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		if (errno != EINTR)
			return -errno;
	}
}

/* Writes as much of buf as the connection takes now. Returns 0 when all
 * of it went, -EAGAIN when the connection is full, else a negative error. */
static int stream_send(struct docker_stream *s, const char *buf, size_t len,
		       size_t *sent)
{
	*sent = 0;
	while (*sent < len) {
		ssize_t n = stream_io_send(s, buf + *sent, len - *sent);

		if (n < 0)
			return (int)n;
		*sent += (size_t)n;
	}
	return 0;
}

/* The write queue is empty: the half-close asked for, and the writer
 * told. */
static void stream_sent(struct docker_stream *s)
{
	if (s->shut_wanted && !s->tls && s->fd >= 0) {
		s->shut_wanted = 0;
		shutdown(s->fd, SHUT_WR);
	}
	if (s->sent_fn)
		s->sent_fn(s, s->arg);
}

/* Returns 0 or the negative error the stream failed with. */
static int stream_flush(struct docker_stream *s)
{
	struct wchunk *c;
	size_t n;
	int r;

	if (s->state == STREAM_HANDSHAKE && s->req_off < s->req_len) {
		r = stream_send(s, s->req + s->req_off, s->req_len - s->req_off,
				&n);
		s->req_off += n;
		if (r < 0 && r != -EAGAIN) {
			stream_fail(s, r, "%s: sending the request to %s: %s",
				    s->what, s->d->host.endpoint,
				    uv_strerror(r));
			return r;
		}
		return 0;
	}
	if (s->state != STREAM_OPEN)
		return 0;
	while ((c = s->wq_head)) {
		r = stream_send(s, c->data + c->off, c->len - c->off, &n);
		c->off += n;
		s->wq_bytes -= n;
		if (c->off == c->len) {
			s->wq_head = c->next;
			if (!s->wq_head)
				s->wq_tail = NULL;
			free(c);
		}
		if (r == -EAGAIN)
			break;
		if (r < 0) {
			stream_fail(s, r, "%s: writing stdin: %s", s->what,
				    uv_strerror(r));
			return r;
		}
	}
	if (!s->wq_head)
		stream_sent(s);
	return 0;
}

static void stream_demux(struct docker_stream *s, const char *p, size_t n)
{
	struct docker_demux_piece piece;
	int r;

	while (s->state == STREAM_OPEN &&
	       (r = docker_demux_next(&s->demux, &p, &n, &piece)) != 0) {
		if (r < 0) {
			stream_fail(s, -EPROTO,
				    "%s: bad stream frame header (0x%02x); is "
				    "the container a TTY?",
				    s->what, s->demux.bad_stream);
			return;
		}
		if (piece.daemon_error && !s->warned) {
			log_warn("%s stream: daemon reported an error in-band",
				 s->what);
			s->warned = 1;
		}
		/* Payload goes out straight from the read buffer. */
		s->cbs.on_data(s, piece.fd, piece.data, piece.len, s->arg);
	}
}

static void stream_refused(struct docker_stream *s)
{
	char why[400];

	docker_answer_message(&s->answer, why, sizeof(why));
	stream_fail(s, docker_status_to_err(s->answer.status), "%s", why);
}

static void stream_handshake_input(struct docker_stream *s, const char *p,
				   size_t n)
{
	size_t used;

	switch (docker_answer_feed(&s->answer, p, n, &used)) {
	case DOCKER_ANSWER_MORE:
		return;
	case DOCKER_ANSWER_REFUSED:
		stream_refused(s);
		return;
	case -E2BIG:
		stream_fail(s, -EPROTO, "%s: answer header over %zu bytes",
			    s->what, DOCKER_ANSWER_HEAD_MAX);
		return;
	case DOCKER_ANSWER_UPGRADED:
		break;
	default:
		stream_fail(s, -EPROTO, "%s: %s did not answer with HTTP",
			    s->what, s->d->host.endpoint);
		return;
	}
	/* The connection is raw now. */
	s->state = STREAM_OPEN;
	s->opened = 1;
	log_debug("%s stream %p open (%ld)", s->what, (void *)s,
		  s->answer.status);
	docker_answer_close(&s->answer);
	free(s->req);
	s->req = NULL;
	s->cbs.on_open(s, 0, NULL, s->arg);
	if (s->state != STREAM_OPEN)
		return;
	if (stream_flush(s) < 0)
		return;
	stream_demux(s, p + used, n - used);
}

static void stream_input(struct docker_stream *s, const char *p, size_t n)
{
	if (s->state == STREAM_HANDSHAKE)
		stream_handshake_input(s, p, n);
	else if (s->state == STREAM_OPEN)
		stream_demux(s, p, n);
}

static void stream_eof(struct docker_stream *s)
{
	if (s->state == STREAM_HANDSHAKE) {
		if (docker_answer_eof(&s->answer) == DOCKER_ANSWER_REFUSED) {
			stream_refused(s);
			return;
		}
		stream_fail(s, -ECONNRESET,
			    "%s: %s closed the connection before answering",
			    s->what, s->d->host.endpoint);
		return;
	}
	if (docker_demux_partial(&s->demux))
		log_debug("%s stream %p: EOF inside a frame", s->what,
			  (void *)s);
	stream_fail(s, 0, NULL);
}

static void stream_read(struct docker_stream *s)
{
	char buf[STREAM_READ_SIZE];
	int i;

	for (i = 0; i < STREAM_READS_PER_WAKEUP; i++) {
		ssize_t n;

		if (s->state != STREAM_HANDSHAKE && s->state != STREAM_OPEN)
			return;
		if (s->read_paused && s->state == STREAM_OPEN)
			return;
		n = stream_io_recv(s, buf, sizeof(buf));
		if (n == -EAGAIN)
			return;
		if (n < 0) {
			int err = (int)n;

			stream_fail(s, err, "%s: reading from %s: %s", s->what,
				    s->d->host.endpoint, uv_strerror(err));
			return;
		}
		if (n == 0) {
			stream_eof(s);
			return;
		}
		stream_input(s, buf, (size_t)n);
	}
}

static void stream_poll_cb(uv_poll_t *h, int status, int events)
{
	struct docker_stream *s = h->data;

	if (s->state == STREAM_CLOSING)
		return;
	if (status < 0) {
		stream_fail(s, status, "%s: polling the connection: %s",
			    s->what, uv_strerror(status));
		return;
	}
	if ((events & UV_WRITABLE) && stream_flush(s) < 0)
		return;
	if (events & UV_READABLE)
		stream_read(s);
	stream_update_poll(s);
}

static void stream_update_poll(struct docker_stream *s)
{
	int events =
		s->read_paused && s->state == STREAM_OPEN ? 0 : UV_READABLE;
	int r;

	if (s->state == STREAM_CLOSING || !s->poll_init)
		return;
	if ((s->state == STREAM_HANDSHAKE && s->req_off < s->req_len) ||
	    (s->state == STREAM_OPEN && s->wq_head))
		events |= UV_WRITABLE;
	if (events == s->poll_events)
		return;
	if (!events) {
		uv_poll_stop(&s->poll);
		s->poll_events = 0;
		return;
	}
	r = uv_poll_start(&s->poll, events, stream_poll_cb);
	if (r < 0) {
		stream_fail(s, r, "%s: cannot poll the connection: %s", s->what,
			    uv_strerror(r));
		return;
	}
	s->poll_events = events;
}

/* On the engine's unix socket, room for a whole agent frame (a file's
 * piece, a write's content) in the kernel, bounded by wmem_max: it goes
 * in one send() rather than a copy queued here and sent in parts. A TCP
 * connection keeps the kernel's own sizing. Best effort. */
static void roomy(curl_socket_t fd)
{
	struct sockaddr_storage a = {0};
	socklen_t n = sizeof(a);
	int size = STREAM_SNDBUF;

	if (getsockname(fd, (struct sockaddr *)&a, &n) == 0 &&
	    a.ss_family == AF_UNIX)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static void stream_multi_done(struct docker_multi *m, CURL *easy, CURLcode rc)
{
	struct docker_stream *s =
		docker_container_of(m, struct docker_stream, m);
	curl_socket_t fd = CURL_SOCKET_BAD;
	long oserr = 0;
	int r;

	if (s->state != STREAM_CONNECTING || easy != s->easy)
		return;
	if (rc != CURLE_OK) {
		curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &oserr);
		docker_curl_message(s->d, s->what, rc, oserr, s->errbuf, s->msg,
				    sizeof(s->msg));
		stream_fail(s, docker_curl_err(rc, oserr), NULL);
		return;
	}
	if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK ||
	    fd == CURL_SOCKET_BAD) {
		stream_fail(s, -EIO, "%s: libcurl kept no connection", s->what);
		return;
	}
	/* Curl normally sends CURL_POLL_REMOVE when the transfer ends; if a
	 * watcher were left, libuv would refuse a second one on the fd. */
	docker_multi_unwatch(m, fd);
	/* Take the connection over and let curl go: from here on the stream
	 * is plain non-blocking send()/recv() on the socket. TLS lives in
	 * curl's connection, so over TLS curl keeps it. */
	s->fd = fd;
	roomy(fd);
	s->tls = docker_tls(s->d);
	if (!s->tls)
		stream_release_multi(s);
	r = uv_poll_init_socket(s->d->loop, &s->poll, fd);
	if (r < 0) {
		stream_fail(s, r, "%s: cannot poll the connection: %s", s->what,
			    uv_strerror(r));
		return;
	}
	s->poll.data = s;
	s->poll_init = 1;
	s->state = STREAM_HANDSHAKE;
	if (stream_flush(s) == 0)
		stream_update_poll(s);
}

/* A stream in its first state, linked into d->streams. Fails only before
 * any libuv handle exists (NULL: nothing to undo). */
static struct docker_stream *stream_new(struct docker *d, const char *what,
					enum stream_state state,
					const struct docker_stream_cbs *cbs,
					void *arg)
{
	struct docker_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->d = d;
	s->fd = -1;
	s->cbs = *cbs;
	s->arg = arg;
	s->what = what;
	s->state = state;
	docker_demux_init(&s->demux);
	if (docker_answer_init(&s->answer) < 0 ||
	    docker_multi_init(&s->m, d->loop, stream_multi_done) < 0) {
		docker_answer_close(&s->answer);
		free(s);
		return NULL;
	}
	s->next = d->streams;
	if (d->streams)
		d->streams->prev = s;
	d->streams = s;
	return s;
}

#define HIJACK_REQUEST                                                         \
	"POST %s%s%s HTTP/1.1\r\n"                                             \
	"Host: %s\r\n"                                                         \
	"User-Agent: mcp-sandbox\r\n"                                          \
	"Content-Type: %s\r\n"                                                 \
	"Content-Length: %zu\r\n"                                              \
	"Connection: Upgrade\r\n"                                              \
	"Upgrade: tcp\r\n"                                                     \
	"\r\n"                                                                 \
	"%s"

/* Writes the hijacking POST (path URL-encoded, body JSON or NULL) and lets
 * curl connect; the request goes out once it has. On failure the caller
 * fails the stream. */
static int stream_connect(struct docker_stream *s, const char *path,
			  const char *body)
{
	struct docker *d = s->d;
	const char *vp = d->version[0] ? "/v" : "";
	const char *ctype = body ? "application/json" : "text/plain";
	size_t blen = body ? strlen(body) : 0;
	char url[sizeof(d->host.base_url) + 1];
	int len;

	if (!body)
		body = "";
	len = snprintf(NULL, 0, HIJACK_REQUEST, vp, d->version, path,
		       d->host.host_hdr, ctype, blen, body);
	s->req = malloc((size_t)len + 1);
	s->easy = curl_easy_init();
	if (!s->req || !s->easy)
		return -ENOMEM;
	s->req_len = (size_t)snprintf(s->req, (size_t)len + 1, HIJACK_REQUEST,
				      vp, d->version, path, d->host.host_hdr,
				      ctype, blen, body);

	snprintf(url, sizeof(url), "%s/", d->host.base_url);
	if (curl_easy_setopt(s->easy, CURLOPT_URL, url) != CURLE_OK ||
	    docker_easy_connect_opts(d, s->easy) < 0)
		return -ENOMEM;
	curl_easy_setopt(s->easy, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETFUNCTION,
			 stream_closesocket_cb);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
	curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 DOCKER_CONNECT_TIMEOUT_MS);
	/* The data path is request/response: no Nagle (curl's default, but
	 * latency here is the point, so say it). */
	curl_easy_setopt(s->easy, CURLOPT_TCP_NODELAY, 1L);
	s->state = STREAM_CONNECTING;
	if (curl_multi_add_handle(s->m.curlm, s->easy) != CURLM_OK)
		return -ENOMEM;
	return 0;
}

int docker_attach(struct docker *d, const char *container_id,
		  const struct docker_stream_cbs *cbs, void *arg,
		  struct docker_stream **out)
{
	struct docker_stream *s;
	char path[192];
	int r;

	if (!d || !container_id || !cbs || !cbs->on_open || !cbs->on_data ||
	    !cbs->on_close || !out || !docker_valid_id(container_id))
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;

	s = stream_new(d, "attach", STREAM_CONNECTING, cbs, arg);
	if (!s)
		return -ENOMEM;
	snprintf(path, sizeof(path),
		 "/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=1",
		 container_id);
	r = stream_connect(s, path, NULL);
	if (r < 0) {
		/* The timer exists now: tear down through the loop, quietly. */
		s->silent = 1;
		stream_fail(s, r, NULL);
		return r;
	}
	*out = s;
	return 0;
}

/* The exec exists (or not): start it over a hijacked connection. */
static void exec_created_cb(const struct docker_response *res, void *arg)
{
	struct docker_stream *s = arg;
	char path[128];
	int r;

	s->create_req = NULL;
	s->pending--;
	if (s->state == STREAM_CLOSING) {
		/* Closed while docker_free() was completing requests. */
		if (s->pending == 0)
			stream_finish(s);
		return;
	}
	if (res->err || res->status != 201) {
		stream_fail(
			s,
			res->err ? res->err : docker_status_to_err(res->status),
			"%s", res->errmsg ? res->errmsg : "exec create failed");
		return;
	}
	if (docker_exec_id_parse(res->body, res->body_len, s->exec_id,
				 sizeof(s->exec_id)) < 0) {
		stream_fail(s, -EPROTO,
			    "exec: no usable Id in the answer of %s",
			    s->d->host.endpoint);
		return;
	}
	snprintf(path, sizeof(path), "/exec/%s/start", s->exec_id);
	r = stream_connect(s, path, "{\"Detach\":false,\"Tty\":false}");
	if (r < 0)
		stream_fail(s, r, "exec: out of memory");
}

int docker_exec_attach(struct docker *d, const char *container_id,
		       const char *const *argv, const char *user,
		       const struct docker_stream_cbs *cbs, void *arg,
		       struct docker_stream **out)
{
	struct docker_stream *s;
	char path[192];
	char *body;
	int r;

	if (!d || !container_id || !argv || !argv[0] || !cbs || !cbs->on_open ||
	    !cbs->on_data || !cbs->on_close || !out ||
	    !docker_valid_id(container_id))
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;

	body = docker_exec_create_body(argv, user);
	if (!body)
		return -ENOMEM;
	s = stream_new(d, "exec", STREAM_CREATING, cbs, arg);
	if (!s) {
		free(body);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/containers/%s/exec", container_id);
	r = docker_req_start(d, "POST", path, body, 0, 0, exec_created_cb, s,
			     &s->create_req);
	free(body);
	if (r < 0) {
		s->silent = 1;
		stream_fail(s, r, NULL);
		return r;
	}
	s->pending++;
	*out = s;
	return 0;
}

const char *docker_stream_exec_id(const struct docker_stream *s)
{
	return s && s->exec_id[0] ? s->exec_id : NULL;
}

int docker_stream_write(struct docker_stream *s, const void *data, size_t len)
{
	const char *p = data;
	struct wchunk *c;

	if (s->state == STREAM_CLOSING)
		return -EPIPE;
	if (len == 0)
		return 0;
	if (len > DOCKER_STREAM_WRITE_MAX - s->wq_bytes)
		return -ENOBUFS;
	/* Straight to the socket when nothing is queued: no copy, and no
	 * waiting for a loop iteration on the latency-critical path. */
	if (s->state == STREAM_OPEN && !s->wq_head) {
		size_t sent;
		int r = stream_send(s, p, len, &sent);

		if (r == 0)
			return 0;
		if (r != -EAGAIN) {
			stream_fail(s, r, "%s: writing stdin: %s", s->what,
				    uv_strerror(r));
			return -EPIPE;
		}
		p += sent;
		len -= sent;
	}
	c = malloc(sizeof(*c) + len);
	if (!c)
		return -ENOMEM;
	c->next = NULL;
	c->len = len;
	c->off = 0;
	memcpy(c->data, p, len);
	if (s->wq_tail)
		s->wq_tail->next = c;
	else
		s->wq_head = c;
	s->wq_tail = c;
	s->wq_bytes += len;
	stream_update_poll(s);
	return 0;
}

void docker_stream_pause(struct docker_stream *s, int paused)
{
	if (s->state == STREAM_CLOSING)
		return;
	s->read_paused = paused != 0;
	stream_update_poll(s);
}

size_t docker_stream_queued(const struct docker_stream *s)
{
	return s->wq_bytes;
}

void docker_stream_on_sent(struct docker_stream *s,
			   void (*fn)(struct docker_stream *s, void *arg))
{
	s->sent_fn = fn;
}

void docker_stream_close_write(struct docker_stream *s)
{
	if (s->state == STREAM_CLOSING)
		return;
	s->shut_wanted = 1;
	if (s->state == STREAM_OPEN && !s->wq_head && !s->tls && s->fd >= 0) {
		s->shut_wanted = 0;
		shutdown(s->fd, SHUT_WR);
	}
}

void docker_stream_close(struct docker_stream *s)
{
	if (!s || s->state == STREAM_CLOSING)
		return;
	stream_fail(s, s->opened ? 0 : -ECANCELED, "%s cancelled", s->what);
}

void docker_stream_cancel_all(struct docker *d)
{
	struct docker_stream *s;

	for (s = d->streams; s; s = s->next)
		stream_fail(s, -ECANCELED, "%s cancelled: client closed",
			    s->what);
}
