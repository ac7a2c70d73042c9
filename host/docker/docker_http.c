/*
 * docker_http.c - plain Engine API requests on the client's curl multi:
 * request lifecycle, timeouts, the daemon's error answers, API version
 * negotiation. Requests share the multi, so curl keeps their connections
 * alive between requests.
 */
#define LOG_MODULE "docker"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "docker_internal.h"

#define NEGOTIATE_TIMEOUT_MS 10000L

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

int docker_curl_err(CURLcode rc, long oserr)
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

void docker_curl_message(const struct docker *d, const char *what, CURLcode rc,
			 long oserr, const char *errbuf, char *out,
			 size_t outsz)
{
	const char *cause =
		errbuf && errbuf[0] ? errbuf : curl_easy_strerror(rc);

	if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
		if (rc == CURLE_COULDNT_CONNECT && oserr > 0)
			cause = strerror((int)oserr);
		snprintf(out, outsz, "cannot connect to Docker at %s: %s%s",
			 d->host.endpoint, cause,
			 oserr == EACCES
				 ? " (is this user in the docker group?)"
				 : "");
	} else if (rc == CURLE_OPERATION_TIMEDOUT &&
		   (strncmp(cause, "Connection timed out", 20) == 0 ||
		    strncmp(cause, "Resolving timed out", 19) == 0)) {
		/* multi.c's wording when the timeout hit before connecting. */
		snprintf(out, outsz, "cannot connect to Docker at %s: %s",
			 d->host.endpoint, cause);
	} else if (d->host.tls && !strstr(cause, "certificate") &&
		   (rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
		    rc == CURLE_GOT_NOTHING || rc == CURLE_SSL_CONNECT_ERROR)) {
		/* TLS 1.3: the engine judges our certificate after the
		 * handshake, and its refusal may reach us as a cut
		 * connection. */
		snprintf(out, outsz,
			 "%s: %s (over TLS, how an engine refuses a client "
			 "certificate it does not accept: expired, or not "
			 "signed by its CA)",
			 what, cause);
	} else {
		snprintf(out, outsz, "%s: %s", what, cause);
	}
}

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
	char theirs[16];

	if (res->err || res->status != 200)
		return;
	if (docker_api_version_pick(res->body, res->body_len, d->version,
				    sizeof(d->version), theirs,
				    sizeof(theirs)) < 0) {
		snprintf(r->msg, sizeof(r->msg),
			 "GET /version: no usable ApiVersion in the answer of "
			 "%s",
			 d->host.endpoint);
		res->err = -EPROTO;
		res->status = 0;
		res->errmsg = r->msg;
		return;
	}
	d->podman = docker_version_is_podman(res->body, res->body_len);
	free(d->version_body);
	d->version_body = strndup(res->body, res->body_len);
	log_info("%s speaks API %s; using %s%s", d->host.endpoint, theirs,
		 d->version, d->podman ? " (Podman)" : "");
}

/* Completes r: the callback runs, then r is freed. cancel_err != 0 means r
 * never finished on the wire (cancelled). */
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
			res.err = docker_curl_err(rc, oserr);
			docker_curl_message(d, r->what, rc, oserr, r->errbuf,
					    r->msg, sizeof(r->msg));
		}
		res.errmsg = r->msg;
	} else {
		curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
		res.status = status;
		if (status >= 400) {
			docker_error_message(r->body ? r->body : "", r->len,
					     status, r->msg, sizeof(r->msg));
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

void docker_req_cancel(struct docker_req *r)
{
	req_unlink(r);
	curl_multi_remove_handle(r->d->m.curlm, r->easy);
	req_free(r);
}

void docker_req_cancel_all(struct docker *d, int err)
{
	struct docker_req *r, *next;

	/* A callback can only add requests (refused while closing) or close
	 * streams, so the next request outlives the current one's callback. */
	for (r = d->reqs; r; r = next) {
		next = r->next;
		req_complete(r, CURLE_OK, err);
	}
}

void docker_http_done(struct docker_multi *m, CURL *easy, CURLcode rc)
{
	char *priv = NULL;

	(void)m;
	curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
	if (priv)
		req_complete((struct docker_req *)(void *)priv, rc, 0);
}

int docker_req_start(struct docker *d, const char *method, const char *path,
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

	url_len = strlen(d->host.base_url) + 4 + strlen(d->version) +
		  strlen(path) + 1;
	url = malloc(url_len);
	r->easy = curl_easy_init();
	if (!url || !r->easy)
		goto oom;
	if (d->version[0] && !is_version)
		snprintf(url, url_len, "%s/v%s%s", d->host.base_url, d->version,
			 path);
	else
		snprintf(url, url_len, "%s%s", d->host.base_url, path);

	/* Curl copies every string option, so url is freed below. */
	if (curl_easy_setopt(r->easy, CURLOPT_URL, url) != CURLE_OK)
		goto oom;
	if (docker_easy_connect_opts(d, r->easy) < 0)
		goto oom;
	curl_easy_setopt(r->easy, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, req_write_cb);
	curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->easy, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->easy, CURLOPT_HTTP_VERSION,
			 (long)CURL_HTTP_VERSION_1_1);
	curl_easy_setopt(r->easy, CURLOPT_CONNECTTIMEOUT_MS,
			 DOCKER_CONNECT_TIMEOUT_MS);
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

int docker_request_start(struct docker *d, const char *method, const char *path,
			 const char *body, long timeout_ms,
			 docker_response_cb cb, void *arg,
			 struct docker_req **out)
{
	if (!d || !method || !path || !cb || !docker_valid_method(method) ||
	    !docker_valid_path(path))
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;
	return docker_req_start(d, method, path, body, timeout_ms, 0, cb, arg,
				out);
}

int docker_request(struct docker *d, const char *method, const char *path,
		   const char *body, long timeout_ms, docker_response_cb cb,
		   void *arg)
{
	return docker_request_start(d, method, path, body, timeout_ms, cb, arg,
				    NULL);
}

int docker_negotiate(struct docker *d, docker_response_cb cb, void *arg)
{
	if (!d || !cb)
		return -EINVAL;
	if (d->closing)
		return -ECANCELED;
	return docker_req_start(d, "GET", "/version", NULL,
				NEGOTIATE_TIMEOUT_MS, 1, cb, arg, NULL);
}

const char *docker_api_version(const struct docker *d)
{
	return d->version[0] ? d->version : NULL;
}
