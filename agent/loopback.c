/*
 * loopback.c - AP_EXCHANGE: a request's bytes to a loopback port, the
 * answer back (loopback.h).
 *
 *   connect (non-blocking) -> write the request -> read until EOF, the
 *   cap or the deadline -> AP_EXCHANGE_DONE
 *
 * A refused connect is answered at once (nothing listens: the host says
 * so without waiting out a timeout). The request is never half-closed
 * after it is written: some servers take a client's half-close for its
 * going away; the host asks for `Connection: close` instead.
 */
#include "loopback.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "log.h"

/* Reads per exchange per loop turn, so that one flood starves nothing. */
#define READS_PER_TURN 4

struct lb_conn {
	uint32_t id; /* 0: a free slot */
	int fd;
	int connected;
	unsigned char *req; /* the request (owned) */
	size_t req_len, req_off;
	unsigned char *resp; /* grows up to cap */
	size_t resp_len, resp_size, cap;
	int truncated;
	uint64_t start_ms, deadline_ms;
};

static struct {
	struct ap_buf *out;
	struct lb_conn c[LB_MAX];
} lb;

void lb_init(struct ap_buf *out)
{
	memset(&lb, 0, sizeof(lb));
	lb.out = out;
	for (int i = 0; i < LB_MAX; i++)
		lb.c[i].fd = -1;
}

static void conn_free(struct lb_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->req);
	free(c->resp);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void reply(uint32_t id, uint32_t status, const char *msg,
		  const struct lb_conn *c)
{
	struct ap_exchange_done m = {.status = status};
	int rc;

	if (msg) {
		m.message = msg;
		m.message_len = strlen(msg);
	}
	if (c && (status == AP_XS_OK || status == AP_XS_TIMEOUT)) {
		m.data = c->resp ? c->resp : (const unsigned char *)"";
		m.data_len = c->resp_len;
		m.truncated = (uint8_t)c->truncated;
	}
	if (c)
		m.duration_ms = (uint32_t)(agent_now_ms() - c->start_ms);
	rc = ap_exchange_done_encode(lb.out, id, &m);
	if (rc) {
		/* The host waits for an answer: a short one, then. */
		const struct ap_exchange_done f = {
			.status = AP_XS_FAILED,
			.message = "the answer could not be built",
			.message_len = 29,
		};

		agent_log("cannot queue AP_EXCHANGE_DONE: %s", strerror(-rc));
		ap_exchange_done_encode(lb.out, id, &f);
	}
}

/* End c with status (and its bytes, for ok and timeout). */
static void finish(struct lb_conn *c, uint32_t status, const char *msg)
{
	reply(c->id, status, msg, c);
	conn_free(c);
}

void lb_start(const struct ap_frame *f, int kept)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct ap_exchange m;
	struct error err;
	struct lb_conn *c = NULL;
	char msg[96];
	int i;

	if (ap_exchange_decode(f, &m, &err)) {
		reply(f->id, AP_XS_FAILED, err.msg, NULL);
		return;
	}
	if (!kept) {
		reply(f->id, AP_XS_NOT_KEPT,
		      "ports are reached in a session's container only", NULL);
		return;
	}
	for (i = 0; i < LB_MAX && !c; i++)
		if (!lb.c[i].id)
			c = &lb.c[i];
	if (!c || !f->id) {
		reply(f->id, AP_XS_BUSY, "too many exchanges at once", NULL);
		return;
	}
	c->cap = m.length ? m.length : LB_LENGTH_DEFAULT;
	if (c->cap > LB_LENGTH_MAX)
		c->cap = LB_LENGTH_MAX;
	c->req = malloc(m.data_len ? m.data_len : 1);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (!c->req || c->fd < 0) {
		snprintf(msg, sizeof(msg), "cannot open a socket: %s",
			 c->req ? strerror(errno) : "out of memory");
		conn_free(c);
		reply(f->id, AP_XS_FAILED, msg, NULL);
		return;
	}
	memcpy(c->req, m.data, m.data_len);
	c->req_len = m.data_len;
	c->id = f->id;
	c->start_ms = agent_now_ms();
	c->deadline_ms = c->start_ms +
			 (m.timeout_ms ? m.timeout_ms : LB_TIMEOUT_DEFAULT_MS);
	sa.sin_port = htons((uint16_t)m.port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		c->connected = 1;
	} else if (errno != EINPROGRESS) {
		snprintf(msg, sizeof(msg), "nothing listens on port %u (%s)",
			 m.port, strerror(errno));
		finish(c, errno == ECONNREFUSED ? AP_XS_REFUSED : AP_XS_FAILED,
		       msg);
	}
}

/* The connect's outcome, once the socket is writable. 0 or -1 (ended). */
static int connected(struct lb_conn *c)
{
	int e = 0;
	socklen_t len = sizeof(e);
	char msg[96];

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 && !e) {
		c->connected = 1;
		return 0;
	}
	snprintf(msg, sizeof(msg), "nothing listens on the port (%s)",
		 strerror(e ? e : errno));
	finish(c, e == ECONNREFUSED ? AP_XS_REFUSED : AP_XS_FAILED, msg);
	return -1;
}

static void write_some(struct lb_conn *c)
{
	ssize_t n = send(c->fd, c->req + c->req_off, c->req_len - c->req_off,
			 MSG_NOSIGNAL);

	if (n > 0)
		c->req_off += (size_t)n;
	else if (n < 0 && errno != EAGAIN && errno != EINTR)
		/* The peer may have answered and closed before taking the
		 * whole request (a 413, say): read what it said. */
		c->req_off = c->req_len;
}

static void read_some(struct lb_conn *c)
{
	size_t room;
	ssize_t n;
	void *p;

	for (int i = 0; i < READS_PER_TURN; i++) {
		if (c->resp_len == c->resp_size && c->resp_size < c->cap + 1) {
			size_t want = c->resp_size ? c->resp_size * 2 : 16384;

			if (want > c->cap + 1)
				want = c->cap + 1;
			p = realloc(c->resp, want);
			if (!p) {
				finish(c, AP_XS_FAILED, "out of memory");
				return;
			}
			c->resp = p;
			c->resp_size = want;
		}
		room = c->resp_size - c->resp_len;
		n = recv(c->fd, c->resp + c->resp_len, room, 0);
		if (n > 0) {
			c->resp_len += (size_t)n;
			if (c->resp_len > c->cap) {
				/* One byte past the cap says there is more:
				 * the rest is never read. */
				c->resp_len = c->cap;
				c->truncated = 1;
				finish(c, AP_XS_OK, NULL);
				return;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n < 0 && c->resp_len == 0) {
			finish(c, AP_XS_FAILED,
			       "the connection was reset before an answer");
			return;
		}
		finish(c, AP_XS_OK, NULL); /* EOF (or a reset after data) */
		return;
	}
}

int lb_poll_fill(struct pollfd *pfd)
{
	int n = 0;

	for (int i = 0; i < LB_MAX; i++) {
		struct lb_conn *c = &lb.c[i];

		if (!c->id)
			continue;
		pfd[n++] = (struct pollfd){
			.fd = c->fd,
			.events =
				(short)(!c->connected || c->req_off < c->req_len
						? POLLOUT | POLLIN
						: POLLIN),
		};
	}
	return n;
}

void lb_poll_done(const struct pollfd *pfd, int n)
{
	for (int i = 0; i < n; i++) {
		struct lb_conn *c = NULL;

		if (!pfd[i].revents)
			continue;
		for (int k = 0; k < LB_MAX && !c; k++)
			if (lb.c[k].id && lb.c[k].fd == pfd[i].fd)
				c = &lb.c[k];
		if (!c)
			continue;
		if (!c->connected && connected(c))
			continue;
		if (c->req_off < c->req_len && (pfd[i].revents & POLLOUT))
			write_some(c);
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			read_some(c);
	}
}

uint64_t lb_deadline(void)
{
	uint64_t d = UINT64_MAX;

	for (int i = 0; i < LB_MAX; i++)
		if (lb.c[i].id && lb.c[i].deadline_ms < d)
			d = lb.c[i].deadline_ms;
	return d;
}

void lb_step(void)
{
	uint64_t now = agent_now_ms();

	for (int i = 0; i < LB_MAX; i++)
		if (lb.c[i].id && now >= lb.c[i].deadline_ms)
			finish(&lb.c[i], AP_XS_TIMEOUT,
			       "no end of the answer within the time allowed");
}

void lb_drop_all(void)
{
	for (int i = 0; i < LB_MAX; i++)
		if (lb.c[i].id)
			conn_free(&lb.c[i]);
}

void lb_cancel(uint32_t id)
{
	for (int i = 0; id && i < LB_MAX; i++)
		if (lb.c[i].id == id)
			conn_free(&lb.c[i]);
}
