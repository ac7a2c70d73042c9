/*
 * docker_multi.c - libcurl's multi interface driven by libuv: a uv_poll_t
 * for each socket curl asks us to watch and one uv_timer_t for curl's
 * timeout, fed back through curl_multi_socket_action() (curl's
 * docs/examples/multi-uv.c). Nothing here blocks the loop.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "docker_internal.h"

/* One socket curl wants watched. Freed in its close callback; it never
 * touches its multi after uv_close(), so the multi may go first. */
struct docker_msock {
	uv_poll_t poll;
	struct docker_multi *m;
	curl_socket_t fd;
	struct docker_msock *prev, *next;
};

static void msock_close_cb(uv_handle_t *h)
{
	free(h->data);
}

static void msock_close(struct docker_msock *ms)
{
	struct docker_multi *m = ms->m;

	if (ms->prev)
		ms->prev->next = ms->next;
	else
		m->socks = ms->next;
	if (ms->next)
		ms->next->prev = ms->prev;
	uv_close((uv_handle_t *)&ms->poll, msock_close_cb);
}

/* Done messages are read only here, outside any curl callback, so the
 * owner's done_cb (and the user callbacks it runs) may call back into curl.
 * The owner may start closing the multi from done_cb: curl_multi_cleanup()
 * is deferred to the timer's close callback, so curlm stays valid here. */
static void multi_check_done(struct docker_multi *m)
{
	CURLMsg *msg;
	int left;

	while (!m->closing && (msg = curl_multi_info_read(m->curlm, &left))) {
		if (msg->msg == CURLMSG_DONE)
			m->done_cb(m, msg->easy_handle, msg->data.result);
	}
}

static void msock_poll_cb(uv_poll_t *h, int status, int events)
{
	struct docker_msock *ms = h->data;
	struct docker_multi *m = ms->m;
	int flags = 0;
	int running;

	if (status < 0)
		flags = CURL_CSELECT_ERR;
	else {
		if (events & UV_READABLE)
			flags |= CURL_CSELECT_IN;
		if (events & UV_WRITABLE)
			flags |= CURL_CSELECT_OUT;
	}
	/* ms may be closed (not yet freed) by the time this returns. */
	curl_multi_socket_action(m->curlm, ms->fd, flags, &running);
	multi_check_done(m);
}

static int multi_socket_cb(CURL *easy, curl_socket_t fd, int what, void *userp,
			   void *socketp)
{
	struct docker_multi *m = userp;
	struct docker_msock *ms = socketp;
	int events = 0;

	(void)easy;
	if (what == CURL_POLL_REMOVE) {
		if (ms)
			msock_close(ms);
		return 0;
	}
	if (m->closing)
		return 0;
	if (!ms) {
		ms = calloc(1, sizeof(*ms));
		if (!ms)
			return -1;
		if (uv_poll_init_socket(m->loop, &ms->poll, fd) < 0) {
			free(ms);
			return -1;
		}
		ms->poll.data = ms;
		ms->m = m;
		ms->fd = fd;
		ms->next = m->socks;
		if (m->socks)
			m->socks->prev = ms;
		m->socks = ms;
		curl_multi_assign(m->curlm, fd, ms);
	}
	if (what & CURL_POLL_IN)
		events |= UV_READABLE;
	if (what & CURL_POLL_OUT)
		events |= UV_WRITABLE;
	if (uv_poll_start(&ms->poll, events, msock_poll_cb) < 0)
		return -1;
	return 0;
}

static void multi_timeout_cb(uv_timer_t *t)
{
	struct docker_multi *m = t->data;
	int running;

	curl_multi_socket_action(m->curlm, CURL_SOCKET_TIMEOUT, 0, &running);
	multi_check_done(m);
}

static int multi_timer_cb(CURLM *curlm, long timeout_ms, void *userp)
{
	struct docker_multi *m = userp;

	(void)curlm;
	if (m->closing)
		return 0;
	/* timeout 0 means "call me back soon": never from inside this callback,
	 * so a zero timer fires on the next loop iteration. */
	if (timeout_ms < 0)
		uv_timer_stop(&m->timer);
	else
		uv_timer_start(&m->timer, multi_timeout_cb,
			       (uint64_t)timeout_ms, 0);
	return 0;
}

int docker_multi_init(struct docker_multi *m, uv_loop_t *loop,
		      docker_multi_done_cb done_cb)
{
	m->curlm = curl_multi_init();
	if (!m->curlm)
		return -ENOMEM;
	m->loop = loop;
	m->done_cb = done_cb;
	curl_multi_setopt(m->curlm, CURLMOPT_SOCKETFUNCTION, multi_socket_cb);
	curl_multi_setopt(m->curlm, CURLMOPT_SOCKETDATA, m);
	curl_multi_setopt(m->curlm, CURLMOPT_TIMERFUNCTION, multi_timer_cb);
	curl_multi_setopt(m->curlm, CURLMOPT_TIMERDATA, m);
	uv_timer_init(loop, &m->timer);
	m->timer.data = m;
	return 0;
}

static void multi_timer_close_cb(uv_handle_t *h)
{
	struct docker_multi *m = h->data;

	/* Sockets still open get CURL_POLL_REMOVE from here. */
	curl_multi_cleanup(m->curlm);
	m->curlm = NULL;
	while (m->socks)
		msock_close(m->socks);
	m->closed_cb(m);
}

void docker_multi_close(struct docker_multi *m,
			docker_multi_closed_cb closed_cb)
{
	m->closing = 1;
	m->closed_cb = closed_cb;
	uv_timer_stop(&m->timer);
	uv_close((uv_handle_t *)&m->timer, multi_timer_close_cb);
}

void docker_multi_unwatch(struct docker_multi *m, curl_socket_t fd)
{
	struct docker_msock *ms;

	for (ms = m->socks; ms; ms = ms->next)
		if (ms->fd == fd) {
			msock_close(ms);
			return;
		}
}
