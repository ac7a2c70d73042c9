/*
 * docker.c - asynchronous Docker Engine API client.
 *
 * Every curl multi handle here is driven by a struct multi: a uv_poll_t for
 * each socket curl asks us to watch and one uv_timer_t for curl's timeout,
 * fed back through curl_multi_socket_action(). Plain requests share the
 * client's multi, so curl keeps their connections alive between requests.
 *
 * An attach stream is a CONNECT_ONLY easy handle: curl opens the connection
 * (unix or TCP, with its errors and connect timeout), reports CURLMSG_DONE,
 * and from then on we write the HTTP request ourselves with curl_easy_send(),
 * parse the "101 UPGRADED" answer, and demultiplex the raw stream with
 * curl_easy_recv(), driven by our own uv_poll_t on CURLINFO_ACTIVESOCKET.
 * Each stream gets a multi of its own: in libcurl 7.88 a CONNECT_ONLY
 * connection sits idle in its multi's connection cache until the first
 * send/recv, and any other transfer starting on that multi prunes idle
 * connections that look dead (readable) or old, which would cut the stream.
 *
 * An exec stream is the same machinery behind one plain request: the stream
 * starts in STREAM_CREATING while POST /containers/{id}/exec runs on the
 * shared multi, then hijacks POST /exec/{Id}/start exactly as attach does.
 */
#define LOG_MODULE "docker"

#include "docker.h"

#include <cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../util/log.h"

#define DEFAULT_HOST "unix:///var/run/docker.sock"
#define DEFAULT_TCP_PORT "2375"
#define CONNECT_TIMEOUT_MS 10000L
#define NEGOTIATE_TIMEOUT_MS 10000L
/* Idle keep-alive connections kept to the daemon; each costs it a goroutine. */
#define MAX_IDLE_CONNS 8L

#define ATTACH_HDR_MAX ((size_t)16 * 1024) /* the 101 answer's header block */
#define ATTACH_ERRBODY_MAX ((size_t)64 * 1024)
#define ATTACH_READ_SIZE ((size_t)64 * 1024)
/* Reads per poll wakeup: level-triggered polling brings us back for the rest,
 * and a chatty container cannot starve the other handles on the loop. */
#define ATTACH_READS_PER_WAKEUP 16

#define container_of(ptr, type, member)                                        \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* ------------------------------------------------------------------ */
/* curl multi <-> libuv                                                */

struct multi;
typedef void (*multi_done_cb)(struct multi *m, CURL *easy, CURLcode rc);
typedef void (*multi_closed_cb)(struct multi *m);

/* One socket curl wants watched. Freed in its close callback; it never
 * touches its multi after uv_close(), so the multi may go first. */
struct msock {
	uv_poll_t poll;
	struct multi *m;
	curl_socket_t fd;
	struct msock *prev, *next;
};

struct multi {
	uv_loop_t *loop;
	CURLM *curlm;
	uv_timer_t timer;
	struct msock *socks;
	multi_done_cb done_cb;
	multi_closed_cb closed_cb;
	int closing;
};

static void msock_close_cb(uv_handle_t *h)
{
	free(h->data);
}

static void msock_close(struct msock *ms)
{
	struct multi *m = ms->m;

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
static void multi_check_done(struct multi *m)
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
	struct msock *ms = h->data;
	struct multi *m = ms->m;
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
	struct multi *m = userp;
	struct msock *ms = socketp;
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
	struct multi *m = t->data;
	int running;

	curl_multi_socket_action(m->curlm, CURL_SOCKET_TIMEOUT, 0, &running);
	multi_check_done(m);
}

static int multi_timer_cb(CURLM *curlm, long timeout_ms, void *userp)
{
	struct multi *m = userp;

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

/* Fails only before any libuv handle exists, so the owner may free itself
 * synchronously on failure. */
static int multi_init(struct multi *m, uv_loop_t *loop, multi_done_cb done_cb)
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
	struct multi *m = h->data;

	/* Sockets still open get CURL_POLL_REMOVE from here. */
	curl_multi_cleanup(m->curlm);
	m->curlm = NULL;
	while (m->socks)
		msock_close(m->socks);
	m->closed_cb(m);
}

/* The owner must have removed its easy handles. closed_cb runs once every
 * libuv handle that refers to m is closed. */
static void multi_close(struct multi *m, multi_closed_cb closed_cb)
{
	m->closing = 1;
	m->closed_cb = closed_cb;
	uv_timer_stop(&m->timer);
	uv_close((uv_handle_t *)&m->timer, multi_timer_close_cb);
}

/* ------------------------------------------------------------------ */
/* Shared helpers                                                      */

struct docker_req {
	struct docker *d;
	CURL *easy;
	struct curl_slist *headers;
	docker_response_cb cb;
	void *arg;
	char *body; /* response, NUL-terminated, at most DOCKER_BODY_MAX */
	size_t len, cap;
	int too_big, oom;
	int is_version;
	uint64_t started;
	char what[96]; /* "GET /containers/..." for messages */
	char errbuf[CURL_ERROR_SIZE];
	char msg[512];
	struct docker_req *prev, *next;
};

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
	struct multi m; /* only while connecting; closed once connected */
	int multi_closing;
	CURL *easy;
	int fd;		/* the connection, ours once curl has connected it */
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
	int pending; /* libuv handles still closing, create request */

	char *req; /* the attach request, sent before any stdin byte */
	size_t req_len, req_off;
	struct wchunk *wq_head, *wq_tail;
	size_t wq_bytes;

	/* Handshake: header block then, on an error status, its body. */
	char *head;
	size_t head_len, hdr_end;
	long status;
	long long content_length;
	int chunked;

	/* Demultiplexer: a frame header may arrive split across reads. */
	unsigned char fh[8];
	size_t fh_len;
	uint32_t frame_left;
	int frame_fd;

	char errbuf[CURL_ERROR_SIZE];
	char msg[512];
	struct docker_stream *prev, *next;
};

struct docker {
	uv_loop_t *loop;
	struct multi m;
	char endpoint[300]; /* unix:///path or tcp://host:port */
	char base_url[300]; /* http://localhost or http://host:port */
	char host_hdr[280]; /* Host: of the hand-written attach request */
	char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char version[16]; /* "" until negotiated */
	struct docker_req *reqs;
	struct docker_stream *streams;
	int closing;
	int multi_closed;
	long default_timeout_ms; /* for requests that pass 0 */
};

static int status_to_err(long status)
{
	switch (status) {
	case 400:
		return -EINVAL;
	case 401:
	case 403:
		return -EACCES;
	case 404:
		return -ENOENT;
	case 409:
		return -EBUSY;
	case 500:
		return -EIO;
	default:
		return -EPROTO;
	}
}

static int curl_to_err(CURLcode rc, long oserr)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		return oserr > 0 ? -(int)oserr : -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return -ECONNRESET;
	case CURLE_WEIRD_SERVER_REPLY:
		return -EPROTO;
	case CURLE_URL_MALFORMAT:
		return -EINVAL;
	default:
		return -EIO;
	}
}

/* A transport failure in words. Connect failures name the endpoint, since
 * that is what the user has to fix. */
static void curl_message(const struct docker *d, const char *what, CURLcode rc,
			 long oserr, const char *errbuf, char *out,
			 size_t outsz)
{
	const char *why = errbuf && errbuf[0] ? errbuf : curl_easy_strerror(rc);

	if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
		if (rc == CURLE_COULDNT_CONNECT && oserr > 0)
			why = strerror((int)oserr);
		snprintf(out, outsz, "cannot connect to Docker at %s: %s%s",
			 d->endpoint, why,
			 oserr == EACCES
				 ? " (is this user in the docker group?)"
				 : "");
	} else if (rc == CURLE_OPERATION_TIMEDOUT &&
		   (strncmp(why, "Connection timed out", 20) == 0 ||
		    strncmp(why, "Resolving timed out", 19) == 0)) {
		/* multi.c's wording when the timeout hit before connecting. */
		snprintf(out, outsz, "cannot connect to Docker at %s: %s",
			 d->endpoint, why);
	} else {
		snprintf(out, outsz, "%s: %s", what, why);
	}
}

/* The daemon's {"message": "..."} of an error answer, else the body's text,
 * else the bare status. body need not be NUL-terminated. */
static void daemon_message(const char *body, size_t len, long status, char *out,
			   size_t outsz)
{
	const char *brace = len ? memchr(body, '{', len) : NULL;
	size_t n;

	if (brace) {
		cJSON *j = cJSON_ParseWithLength(brace,
						 len - (size_t)(brace - body));
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

		if (cJSON_IsString(m) && m->valuestring[0]) {
			snprintf(out, outsz, "%s", m->valuestring);
			cJSON_Delete(j);
			return;
		}
		cJSON_Delete(j);
	}
	while (len && (body[len - 1] == '\n' || body[len - 1] == '\r' ||
		       body[len - 1] == ' '))
		len--;
	n = len < outsz - 1 ? len : outsz - 1;
	if (n && !memchr(body, '\0', n)) {
		memcpy(out, body, n);
		out[n] = '\0';
	} else {
		snprintf(out, outsz, "HTTP status %ld", status);
	}
}

/* "1.41" -> 1041; -1 if malformed. */
static long api_version_num(const char *v)
{
	char *end;
	long major, minor;

	major = strtol(v, &end, 10);
	if (end == v || *end != '.' || major < 0 || major > 99)
		return -1;
	v = end + 1;
	minor = strtol(v, &end, 10);
	if (end == v || *end != '\0' || minor < 0 || minor > 999)
		return -1;
	return major * 1000 + minor;
}

static void docker_maybe_free(struct docker *d)
{
	if (d->closing && d->multi_closed && !d->streams) {
		free(d);
		curl_global_cleanup();
	}
}

/* ------------------------------------------------------------------ */
/* Requests                                                            */

static size_t req_write_cb(char *ptr, size_t size, size_t nmemb, void *userp)
{
	struct docker_req *r = userp;
	size_t n = size * nmemb;

	if (n > DOCKER_BODY_MAX - r->len) {
		r->too_big = 1;
		return 0; /* anything short of n aborts the transfer */
	}
	if (r->len + n + 1 > r->cap) {
		size_t cap = r->cap ? r->cap : 4096;
		char *p;

		while (cap < r->len + n + 1)
			cap *= 2;
		if (cap > DOCKER_BODY_MAX + 1)
			cap = DOCKER_BODY_MAX + 1;
		p = realloc(r->body, cap);
		if (!p) {
			r->oom = 1;
			return 0;
		}
		r->body = p;
		r->cap = cap;
	}
	memcpy(r->body + r->len, ptr, n);
	r->len += n;
	r->body[r->len] = '\0';
	return n;
}

static void req_unlink(struct docker_req *r)
{
	struct docker *d = r->d;

	if (r->prev)
		r->prev->next = r->next;
	else
		d->reqs = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->prev = r->next = NULL;
}

static void req_free(struct docker_req *r)
{
	if (r->easy)
		curl_easy_cleanup(r->easy);
	curl_slist_free_all(r->headers);
	free(r->body);
	free(r);
}

/* The /version answer picks the prefix for every later request. Rewrites
 * res into an error if the daemon's answer is unusable. */
static void negotiate_finish(struct docker *d, struct docker_response *res,
			     struct docker_req *r)
{
	cJSON *j;
	const cJSON *v;
	long ours = api_version_num(DOCKER_API_VERSION_MAX);
	long theirs = -1;

	if (res->err || res->status != 200)
		return;
	j = cJSON_ParseWithLength(res->body, res->body_len);
	v = cJSON_GetObjectItemCaseSensitive(j, "ApiVersion");
	if (cJSON_IsString(v))
		theirs = api_version_num(v->valuestring);
	if (theirs < 0) {
		cJSON_Delete(j);
		snprintf(r->msg, sizeof(r->msg),
			 "GET /version: no usable ApiVersion in the answer of "
			 "%s",
			 d->endpoint);
		res->err = -EPROTO;
		res->status = 0;
		res->errmsg = r->msg;
		return;
	}
	if (theirs < ours)
		snprintf(d->version, sizeof(d->version), "%s", v->valuestring);
	else
		snprintf(d->version, sizeof(d->version), "%s",
			 DOCKER_API_VERSION_MAX);
	log_info("%s speaks API %s; using %s", d->endpoint, v->valuestring,
		 d->version);
	cJSON_Delete(j);
}

/* Completes r: the callback runs, then r is freed. err != 0 means r never
 * finished on the wire (cancelled). */
static void req_complete(struct docker_req *r, CURLcode rc, int cancel_err)
{
	struct docker *d = r->d;
	struct docker_response res = {0};
	long status = 0;
	long oserr = 0;

	req_unlink(r);
	curl_multi_remove_handle(d->m.curlm, r->easy);
	if (cancel_err) {
		res.err = cancel_err;
		snprintf(r->msg, sizeof(r->msg), "%s: cancelled", r->what);
		res.errmsg = r->msg;
	} else if (rc != CURLE_OK) {
		curl_easy_getinfo(r->easy, CURLINFO_OS_ERRNO, &oserr);
		if (r->too_big) {
			res.err = -E2BIG;
			snprintf(r->msg, sizeof(r->msg),
				 "%s: response body over %zu bytes", r->what,
				 DOCKER_BODY_MAX);
		} else if (r->oom) {
			res.err = -ENOMEM;
			snprintf(r->msg, sizeof(r->msg), "%s: out of memory",
				 r->what);
		} else {
			res.err = curl_to_err(rc, oserr);
			curl_message(d, r->what, rc, oserr, r->errbuf, r->msg,
				     sizeof(r->msg));
		}
		res.errmsg = r->msg;
	} else {
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
		res.status = status;
		if (status >= 400) {
			daemon_message(r->body ? r->body : "", r->len, status,
				       r->msg, sizeof(r->msg));
			res.errmsg = r->msg;
		}
	}
	res.body = r->body && !res.err ? r->body : "";
	res.body_len = res.err ? 0 : r->len;
	if (r->is_version)
		negotiate_finish(d, &res, r);
	log_debug("%s -> %ld%s%s (%.1f ms)", r->what, res.status,
		  res.errmsg ? ": " : "", res.errmsg ? res.errmsg : "",
		  (double)(uv_hrtime() - r->started) / 1e6);
	r->cb(&res, r->arg);
	req_free(r);
}

/* Drops r without calling its callback (its owner is going away). Not
 * from inside a curl callback. */
static void req_cancel(struct docker_req *r)
{
	req_unlink(r);
	curl_multi_remove_handle(r->d->m.curlm, r->easy);
	req_free(r);
}

static void docker_multi_done(struct multi *m, CURL *easy, CURLcode rc)
{
	char *priv = NULL;

	(void)m;
	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	if (priv)
		req_complete((struct docker_req *)(void *)priv, rc, 0);
}

static int valid_method(const char *method)
{
	size_t i;

	for (i = 0; method[i]; i++)
		if (method[i] < 'A' || method[i] > 'Z' || i >= 16)
			return 0;
	return i > 0;
}

/* What goes on the request line after the prefix: no spaces or controls
 * (the caller URL-encodes). */
static int valid_path(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	if (*p != '/')
		return 0;
	for (; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f)
			return 0;
	return 1;
}

/* *out (if not NULL) gets the request, for req_cancel(). */
static int req_start(struct docker *d, const char *method, const char *path,
		     const char *body, long timeout_ms, int is_version,
		     docker_response_cb cb, void *arg, struct docker_req **out)
{
	struct docker_req *r;
	char *url;
	size_t url_len;
	int is_post = strcmp(method, "POST") == 0;
	CURLcode rc = CURLE_OK;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->d = d;
	r->cb = cb;
	r->arg = arg;
	r->is_version = is_version;
	r->started = uv_hrtime();
	snprintf(r->what, sizeof(r->what), "%s %s", method, path);

	url_len =
		strlen(d->base_url) + 4 + strlen(d->version) + strlen(path) + 1;
	url = malloc(url_len);
	r->easy = curl_easy_init();
	if (!url || !r->easy)
		goto oom;
	if (d->version[0] && !is_version)
		snprintf(url, url_len, "%s/v%s%s", d->base_url, d->version,
			 path);
	else
		snprintf(url, url_len, "%s%s", d->base_url, path);

	/* Curl copies every string option, so url is freed below. */
	if (curl_easy_setopt(r->easy, CURLOPT_URL, url) != CURLE_OK)
		goto oom;
	if (d->unix_path[0] &&
	    curl_easy_setopt(r->easy, CURLOPT_UNIX_SOCKET_PATH, d->unix_path) !=
		    CURLE_OK)
		goto oom;
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, req_write_cb);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_HTTP_VERSION,
			 (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 CONNECT_TIMEOUT_MS);
	if (timeout_ms <= 0)
		timeout_ms = d->default_timeout_ms;
	if (timeout_ms > 0)
		curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(r->easy, CURLOPT_USERAGENT, "mcp-sandbox");

	/* Curl would send "Expect: 100-continue" for larger bodies and stall
	 * for a second if the answer is slow to come. */
	r->headers = curl_slist_append(NULL, "Expect:");
	if (r->headers && body)
		r->headers = curl_slist_append(
			r->headers, "Content-Type: application/json");
	if (!r->headers)
		goto oom;
	curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->headers);

	if (body || is_post) {
		const char *b = body ? body : "";

		curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(b));
		rc = curl_easy_setopt(r->easy, CURLOPT_COPYPOSTFIELDS, b);
		if (rc == CURLE_OK && !is_post)
			rc = curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST,
					      method);
	} else if (strcmp(method, "HEAD") == 0) {
		curl_easy_setopt(r->easy, CURLOPT_NOBODY, 1L);
	} else if (strcmp(method, "GET") != 0) {
		rc = curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST, method);
	}
	if (rc != CURLE_OK)
		goto oom;
	free(url);
	url = NULL;

	if (curl_multi_add_handle(d->m.curlm, r->easy) != CURLM_OK)
		goto oom;
	r->next = d->reqs;
	if (d->reqs)
		d->reqs->prev = r;
	d->reqs = r;
	log_debug("%s started", r->what);
	if (out)
		*out = r;
	return 0;

oom:
	free(url);
	req_free(r);
	return -ENOMEM;
}

int docker_request(struct docker *d, const char *method, const char *path,
		   const char *body, long timeout_ms, docker_response_cb cb,
		   void *arg)
{
	if (!d || !method || !path || !cb || !valid_method(method) ||
	    !valid_path(path))
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;
	return req_start(d, method, path, body, timeout_ms, 0, cb, arg, NULL);
}

int docker_negotiate(struct docker *d, docker_response_cb cb, void *arg)
{
	if (!d || !cb)
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;
	return req_start(d, "GET", "/version", NULL, NEGOTIATE_TIMEOUT_MS, 1,
			 cb, arg, NULL);
}

const char *docker_api_version(const struct docker *d)
{
	return d->version[0] ? d->version : NULL;
}

const char *docker_endpoint(const struct docker *d)
{
	return d->endpoint;
}

/* ------------------------------------------------------------------ */
/* Attach streams                                                      */

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
	if (s->fd >= 0)
		close(s->fd);
	if (!s->silent) {
		if (!s->opened && !s->msg[0])
			snprintf(s->msg, sizeof(s->msg), "%s failed", s->what);
		if (!s->opened)
			s->cbs.on_open(s, s->close_err, s->msg, s->arg);
		s->cbs.on_close(s, s->close_err, s->arg);
	}
	free(s->head);
	free(s);
	docker_maybe_free(d);
}

static void stream_poll_close_cb(uv_handle_t *h)
{
	struct docker_stream *s = h->data;

	if (--s->pending == 0)
		stream_finish(s);
}

static void stream_multi_closed(struct multi *m)
{
	struct docker_stream *s = container_of(m, struct docker_stream, m);

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
	multi_close(&s->m, stream_multi_closed);
}

/* Once the connection is ours, curl must not close it when its easy
 * handle goes: stream_finish does. */
static int stream_closesocket_cb(void *clientp, curl_socket_t item)
{
	struct docker_stream *s = clientp;

	if (item == s->fd)
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
		req_cancel(s->create_req);
		s->create_req = NULL;
		s->pending--;
	}
	/* While connecting, this closes curl's connection at once; after, the
	 * multi is already gone and stream_finish closes our fd. */
	stream_release_multi(s);
	if (s->pending == 0)
		stream_finish(s);
}

/* Writes as much of buf as the socket takes now. Returns 0 when all of it
 * went, -EAGAIN when the socket is full, else a negative error. */
static int stream_send(struct docker_stream *s, const char *buf, size_t len,
		       size_t *sent)
{
	*sent = 0;
	while (*sent < len) {
		ssize_t n = send(s->fd, buf + *sent, len - *sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return -EAGAIN;
		if (n < 0)
			return -errno;
		*sent += (size_t)n;
	}
	return 0;
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
				    s->what, s->d->endpoint, uv_strerror(r));
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
	return 0;
}

static void stream_demux(struct docker_stream *s, const char *p, size_t n)
{
	while (n > 0 && s->state == STREAM_OPEN) {
		size_t take;

		if (s->frame_left == 0) {
			take = sizeof(s->fh) - s->fh_len;
			if (take > n)
				take = n;
			memcpy(s->fh + s->fh_len, p, take);
			s->fh_len += take;
			p += take;
			n -= take;
			if (s->fh_len < sizeof(s->fh))
				return;
			s->fh_len = 0;
			switch (s->fh[0]) {
			case 0: /* stdin echoed back: docker treats it as stdout
				 */
			case 1:
				s->frame_fd = 1;
				break;
			case 2:
				s->frame_fd = 2;
				break;
			case 3: /* "systemerr": the daemon's own error text */
				log_warn("%s stream: daemon reported an "
					 "error in-band",
					 s->what);
				s->frame_fd = 2;
				break;
			default:
				stream_fail(s, -EPROTO,
					    "%s: bad stream frame header "
					    "(0x%02x); is the container a TTY?",
					    s->what, s->fh[0]);
				return;
			}
			s->frame_left = (uint32_t)s->fh[4] << 24 |
					(uint32_t)s->fh[5] << 16 |
					(uint32_t)s->fh[6] << 8 |
					(uint32_t)s->fh[7];
			continue;
		}
		/* Payload goes out straight from the read buffer: a frame
		 * split across reads yields several on_data calls. */
		take = n < s->frame_left ? n : s->frame_left;
		s->frame_left -= (uint32_t)take;
		s->cbs.on_data(s, s->frame_fd, p, take, s->arg);
		p += take;
		n -= take;
	}
}

static int error_body_complete(const struct docker_stream *s)
{
	const char *body = s->head + s->hdr_end;
	size_t len = s->head_len - s->hdr_end;

	if (s->hdr_end + ATTACH_ERRBODY_MAX <= s->head_len)
		return 1;
	if (s->content_length >= 0)
		return (long long)len >= s->content_length;
	if (s->chunked)
		return (len >= 5 && memcmp(body, "0\r\n\r\n", 5) == 0) ||
		       memmem(body, len, "\r\n0\r\n\r\n", 7) != NULL;
	return 0; /* until EOF */
}

static void stream_error_answer(struct docker_stream *s)
{
	char why[400];

	daemon_message(s->head + s->hdr_end, s->head_len - s->hdr_end,
		       s->status, why, sizeof(why));
	stream_fail(s, status_to_err(s->status), "%s", why);
}

/* Parses the header block head[0..hdr_end). */
static int stream_parse_head(struct docker_stream *s)
{
	char *h = s->head;
	char *v;

	if (strncmp(h, "HTTP/1.", 7) != 0 || h[8] != ' ')
		return -EPROTO;
	s->status = strtol(h + 9, &v, 10);
	if (v != h + 12 || s->status < 100 || s->status > 599)
		return -EPROTO;
	s->content_length = -1;
	v = strcasestr(h, "\r\nContent-Length:");
	if (v)
		s->content_length = strtoll(v + 17, NULL, 10);
	v = strcasestr(h, "\r\nTransfer-Encoding:");
	if (v && strncasecmp(v + 20 + strspn(v + 20, " \t"), "chunked", 7) == 0)
		s->chunked = 1;
	return 0;
}

static void stream_handshake_input(struct docker_stream *s, const char *p,
				   size_t n)
{
	size_t room, take;

	if (s->hdr_end == 0) {
		size_t from = s->head_len > 3 ? s->head_len - 3 : 0;
		char *end;

		room = ATTACH_HDR_MAX - s->head_len;
		take = n < room ? n : room;
		memcpy(s->head + s->head_len, p, take);
		s->head_len += take;
		end = memmem(s->head + from, s->head_len - from, "\r\n\r\n", 4);
		if (!end) {
			if (s->head_len == ATTACH_HDR_MAX)
				stream_fail(s, -EPROTO,
					    "%s: answer header over %zu bytes",
					    s->what, ATTACH_HDR_MAX);
			return;
		}
		s->hdr_end = (size_t)(end + 4 - s->head);
		/* What followed the header block in this read. */
		take = s->hdr_end - (s->head_len - take);
		p += take;
		n -= take;
		s->head_len = s->hdr_end;
		s->head[s->hdr_end] = '\0';
		if (stream_parse_head(s) < 0) {
			stream_fail(s, -EPROTO,
				    "%s: %s did not answer with HTTP", s->what,
				    s->d->endpoint);
			return;
		}
		if (s->status == 101 || s->status == 200) {
			/* 200: daemons before API 1.2x hijack without
			 * Upgrade. Either way the connection is raw now. */
			s->state = STREAM_OPEN;
			s->opened = 1;
			free(s->head);
			s->head = NULL;
			free(s->req);
			s->req = NULL;
			log_debug("%s stream %p open (%ld)", s->what, (void *)s,
				  s->status);
			s->cbs.on_open(s, 0, NULL, s->arg);
			if (s->state != STREAM_OPEN)
				return;
			if (stream_flush(s) < 0)
				return;
			stream_demux(s, p, n);
			return;
		}
	}
	/* An error status: collect its (short) body for the message. */
	room = s->hdr_end + ATTACH_ERRBODY_MAX - s->head_len;
	take = n < room ? n : room;
	memcpy(s->head + s->head_len, p, take);
	s->head_len += take;
	if (error_body_complete(s))
		stream_error_answer(s);
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
		if (s->hdr_end) {
			stream_error_answer(s);
			return;
		}
		stream_fail(s, -ECONNRESET,
			    "%s: %s closed the connection before answering",
			    s->what, s->d->endpoint);
		return;
	}
	if (s->frame_left || s->fh_len)
		log_debug("%s stream %p: EOF inside a frame", s->what,
			  (void *)s);
	stream_fail(s, 0, NULL);
}

static void stream_read(struct docker_stream *s)
{
	char buf[ATTACH_READ_SIZE];
	int i;

	for (i = 0; i < ATTACH_READS_PER_WAKEUP; i++) {
		ssize_t n;

		if (s->state != STREAM_HANDSHAKE && s->state != STREAM_OPEN)
			return;
		n = recv(s->fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0) {
			int err = -errno;

			stream_fail(s, err, "%s: reading from %s: %s", s->what,
				    s->d->endpoint, uv_strerror(err));
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
	int events = UV_READABLE;
	int r;

	if (s->state == STREAM_CLOSING || !s->poll_init)
		return;
	if ((s->state == STREAM_HANDSHAKE && s->req_off < s->req_len) ||
	    (s->state == STREAM_OPEN && s->wq_head))
		events |= UV_WRITABLE;
	if (events == s->poll_events)
		return;
	r = uv_poll_start(&s->poll, events, stream_poll_cb);
	if (r < 0) {
		stream_fail(s, r, "%s: cannot poll the connection: %s", s->what,
			    uv_strerror(r));
		return;
	}
	s->poll_events = events;
}

static void stream_multi_done(struct multi *m, CURL *easy, CURLcode rc)
{
	struct docker_stream *s = container_of(m, struct docker_stream, m);
	curl_socket_t fd = CURL_SOCKET_BAD;
	struct msock *ms;
	long oserr = 0;
	int r;

	if (s->state != STREAM_CONNECTING || easy != s->easy)
		return;
	if (rc != CURLE_OK) {
		curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &oserr);
		curl_message(s->d, s->what, rc, oserr, s->errbuf, s->msg,
			     sizeof(s->msg));
		stream_fail(s, curl_to_err(rc, oserr), NULL);
		return;
	}
	if (curl_easy_getinfo(easy, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK ||
	    fd == CURL_SOCKET_BAD) {
		stream_fail(s, -EIO, "%s: libcurl kept no connection", s->what);
		return;
	}
	/* Curl normally sends CURL_POLL_REMOVE when the transfer ends; if a
	 * watcher were left, libuv would refuse a second one on the fd. */
	for (ms = m->socks; ms; ms = ms->next)
		if (ms->fd == fd) {
			msock_close(ms);
			break;
		}
	/* Take the connection over and let curl go: from here on the stream
	 * is plain non-blocking send()/recv() on the socket (no TLS is
	 * supported, so nothing is lost). */
	s->fd = fd;
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

static int valid_container_id(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-') ||
		    i >= 128)
			return 0;
	}
	return i > 0;
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
	s->head = malloc(ATTACH_HDR_MAX + ATTACH_ERRBODY_MAX + 1);
	if (!s->head || multi_init(&s->m, d->loop, stream_multi_done) < 0) {
		free(s->head);
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
	char url[sizeof(d->base_url) + 1];
	int len;

	if (!body)
		body = "";
	len = snprintf(NULL, 0, HIJACK_REQUEST, vp, d->version, path,
		       d->host_hdr, ctype, blen, body);
	s->req = malloc((size_t)len + 1);
	s->easy = curl_easy_init();
	if (!s->req || !s->easy)
		return -ENOMEM;
	s->req_len = (size_t)snprintf(s->req, (size_t)len + 1, HIJACK_REQUEST,
				      vp, d->version, path, d->host_hdr, ctype,
				      blen, body);

	snprintf(url, sizeof(url), "%s/", d->base_url);
	if (curl_easy_setopt(s->easy, CURLOPT_URL, url) != CURLE_OK)
		return -ENOMEM;
	if (d->unix_path[0] &&
	    curl_easy_setopt(s->easy, CURLOPT_UNIX_SOCKET_PATH, d->unix_path) !=
		    CURLE_OK)
		return -ENOMEM;
	curl_easy_setopt(s->easy, CURLOPT_CONNECT_ONLY, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETFUNCTION,
			 stream_closesocket_cb);
	curl_easy_setopt(s->easy, CURLOPT_CLOSESOCKETDATA, s);
	curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
	curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, s->errbuf);
	curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 CONNECT_TIMEOUT_MS);
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
	    !cbs->on_close || !out || !valid_container_id(container_id))
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
	const cJSON *id;
	cJSON *j;
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
		stream_fail(s, res->err ? res->err : status_to_err(res->status),
			    "%s",
			    res->errmsg ? res->errmsg : "exec create failed");
		return;
	}
	j = cJSON_ParseWithLength(res->body, res->body_len);
	id = cJSON_GetObjectItemCaseSensitive(j, "Id");
	if (!cJSON_IsString(id) ||
	    strlen(id->valuestring) >= sizeof(s->exec_id) ||
	    !valid_container_id(id->valuestring)) {
		cJSON_Delete(j);
		stream_fail(s, -EPROTO,
			    "exec: no usable Id in the answer of %s",
			    s->d->endpoint);
		return;
	}
	snprintf(s->exec_id, sizeof(s->exec_id), "%s", id->valuestring);
	cJSON_Delete(j);
	snprintf(path, sizeof(path), "/exec/%s/start", s->exec_id);
	r = stream_connect(s, path, "{\"Detach\":false,\"Tty\":false}");
	if (r < 0)
		stream_fail(s, r, "exec: out of memory");
}

static char *exec_create_body(const char *const *argv, const char *user)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *cmd = NULL;
	char *out = NULL;
	size_t i;

	if (root) {
		cJSON_AddTrueToObject(root, "AttachStdin");
		cJSON_AddTrueToObject(root, "AttachStdout");
		cJSON_AddTrueToObject(root, "AttachStderr");
		cJSON_AddFalseToObject(root, "Tty");
		if (user)
			cJSON_AddStringToObject(root, "User", user);
		cmd = cJSON_AddArrayToObject(root, "Cmd");
	}
	for (i = 0; cmd && argv[i]; i++) {
		cJSON *a = cJSON_CreateString(argv[i]);

		if (!a || !cJSON_AddItemToArray(cmd, a)) {
			cJSON_Delete(a);
			cmd = NULL;
		}
	}
	if (cmd)
		out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
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
	    !valid_container_id(container_id))
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;

	body = exec_create_body(argv, user);
	if (!body)
		return -ENOMEM;
	s = stream_new(d, "exec", STREAM_CREATING, cbs, arg);
	if (!s) {
		free(body);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/containers/%s/exec", container_id);
	r = req_start(d, "POST", path, body, 0, 0, exec_created_cb, s,
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

void docker_stream_close(struct docker_stream *s)
{
	if (!s || s->state == STREAM_CLOSING)
		return;
	stream_fail(s, s->opened ? 0 : -ECANCELED, "%s cancelled", s->what);
}

/* ------------------------------------------------------------------ */
/* Client                                                              */

/* "host:2375" and "[::1]:2375" name a port; "host" and "[::1]" do not. */
static int has_port(const char *hp, size_t n)
{
	const char *from = memchr(hp, ']', n);

	if (!from)
		from = hp;
	return memchr(from, ':', n - (size_t)(from - hp)) != NULL;
}

static int parse_host(struct docker *d, const char *host, int from_env,
		      const char **errmsg)
{
	const char *hp, *tls;
	size_t n;

	if (strncmp(host, "unix://", 7) == 0) {
		const char *path = host + 7;

		if (path[0] != '/') {
			*errmsg = "Docker host unix:// needs an absolute path "
				  "(unix:///var/run/docker.sock)";
			return -EINVAL;
		}
		if (strlen(path) >= sizeof(d->unix_path)) {
			*errmsg = "Docker socket path is too long";
			return -ENAMETOOLONG;
		}
		snprintf(d->unix_path, sizeof(d->unix_path), "%s", path);
		snprintf(d->endpoint, sizeof(d->endpoint), "unix://%s", path);
		snprintf(d->base_url, sizeof(d->base_url), "http://localhost");
		snprintf(d->host_hdr, sizeof(d->host_hdr), "localhost");
		return 0;
	}
	if (strncmp(host, "tcp://", 6) == 0)
		hp = host + 6;
	else if (strncmp(host, "http://", 7) == 0)
		hp = host + 7;
	else {
		*errmsg = "unsupported Docker host (want unix:///path or "
			  "tcp://host:port)";
		return -EPROTONOSUPPORT;
	}
	tls = getenv("DOCKER_TLS_VERIFY");
	if (from_env && tls && tls[0]) {
		*errmsg = "DOCKER_TLS_VERIFY is set, but TLS to the Docker "
			  "daemon is not supported";
		return -EPROTONOSUPPORT;
	}
	n = strcspn(hp, "/");
	if (hp[n] && strcmp(hp + n, "/") != 0) {
		*errmsg = "Docker host tcp:// takes no path";
		return -EINVAL;
	}
	if (n == 0 || n > 255 || strcspn(hp, " \t\r\n@?#") < n) {
		*errmsg = "malformed Docker host address";
		return -EINVAL;
	}
	snprintf(d->host_hdr, sizeof(d->host_hdr), "%.*s%s", (int)n, hp,
		 has_port(hp, n) ? "" : ":" DEFAULT_TCP_PORT);
	snprintf(d->endpoint, sizeof(d->endpoint), "tcp://%s", d->host_hdr);
	snprintf(d->base_url, sizeof(d->base_url), "http://%s", d->host_hdr);
	return 0;
}

int docker_new(uv_loop_t *loop, const char *host, struct docker **out,
	       const char **errmsg)
{
	struct docker *d;
	const char *unused;
	int from_env = 0;
	int r;

	if (!errmsg)
		errmsg = &unused;
	*errmsg = NULL;
	if (!loop || !out) {
		*errmsg = "invalid arguments";
		return -EINVAL;
	}
	if (!host) {
		host = getenv("DOCKER_HOST");
		from_env = host && host[0];
		if (!from_env)
			host = DEFAULT_HOST;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		*errmsg = "out of memory";
		return -ENOMEM;
	}
	d->loop = loop;
	r = parse_host(d, host, from_env, errmsg);
	if (r < 0) {
		free(d);
		return r;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(d);
		*errmsg = "libcurl failed to initialise";
		return -ENOMEM;
	}
	r = multi_init(&d->m, loop, docker_multi_done);
	if (r < 0) {
		curl_global_cleanup();
		free(d);
		*errmsg = "out of memory";
		return r;
	}
	curl_multi_setopt(d->m.curlm, CURLMOPT_MAXCONNECTS, MAX_IDLE_CONNS);
	log_debug("client for %s", d->endpoint);
	*out = d;
	return 0;
}

static void docker_multi_closed(struct multi *m)
{
	struct docker *d = container_of(m, struct docker, m);

	d->multi_closed = 1;
	docker_maybe_free(d);
}

void docker_free(struct docker *d)
{
	struct docker_stream *s;
	struct docker_req *r, *next;

	if (!d || d->closing)
		return;
	d->closing = 1;
	/* A callback can only add requests (refused now) or close streams, so
	 * the next request outlives the current one's callback. */
	for (r = d->reqs; r; r = next) {
		next = r->next;
		req_complete(r, CURLE_OK, -ECANCELED);
	}
	for (s = d->streams; s; s = s->next)
		stream_fail(s, -ECANCELED, "%s cancelled: client closed",
			    s->what);
	multi_close(&d->m, docker_multi_closed);
}

void docker_set_timeout(struct docker *d, long timeout_ms)
{
	d->default_timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
}
