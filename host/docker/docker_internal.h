/*
 * docker_internal.h - what the Docker client's files share: the client
 * struct, the curl-multi-on-libuv driver, the request calls the exec stream
 * makes. Included by host/docker/docker*.c only; everyone else uses docker.h.
 *
 *   docker.c        the client: where the daemon is, docker_new/docker_free
 *   docker_multi.c  libcurl's multi interface driven by libuv handles
 *   docker_http.c   plain requests: timeouts, errors, version negotiation
 *   docker_stream.c hijacked attach/exec streams: handshake, raw socket I/O,
 *                   the stdin write queue
 *   docker_demux.c  the stdout/stderr frame parser (pure)
 *   docker_proto.c  the other formats: addresses, versions, answers (pure)
 */
#ifndef SBX_DOCKER_INTERNAL_H
#define SBX_DOCKER_INTERNAL_H

#include <curl/curl.h>
#include <limits.h>
#include <stddef.h>
#include <uv.h>

#include "docker.h"
#include "docker_proto.h"

/* Connecting is always bounded, whatever the request's own timeout. */
#define DOCKER_CONNECT_TIMEOUT_MS 10000L

#define docker_container_of(ptr, type, member)                                 \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/* ------------------------------------------------------------------ */
/* docker_multi.c                                                      */

struct docker_multi;
struct docker_msock;
/* An easy handle finished. Runs outside any curl callback, so it may call
 * back into curl, and may start closing the multi. */
typedef void (*docker_multi_done_cb)(struct docker_multi *m, CURL *easy,
				     CURLcode rc);
typedef void (*docker_multi_closed_cb)(struct docker_multi *m);

/* A curl multi handle driven by a uv_poll_t for each socket curl asks us to
 * watch and one uv_timer_t for curl's timeout. Embedded in its owner. */
struct docker_multi {
	uv_loop_t *loop;
	CURLM *curlm;
	uv_timer_t timer;
	struct docker_msock *socks;
	docker_multi_done_cb done_cb;
	docker_multi_closed_cb closed_cb;
	int closing;
};

/* Fails (-ENOMEM) only before any libuv handle exists, so the owner may free
 * itself synchronously on failure. */
int docker_multi_init(struct docker_multi *m, uv_loop_t *loop,
		      docker_multi_done_cb done_cb);
/* The owner must have removed its easy handles. closed_cb runs once every
 * libuv handle that refers to m is closed; m must live until then. */
void docker_multi_close(struct docker_multi *m,
			docker_multi_closed_cb closed_cb);
/* Stops watching fd (a connection the owner takes over from curl). */
void docker_multi_unwatch(struct docker_multi *m, curl_socket_t fd);

/* ------------------------------------------------------------------ */
/* docker.c: the client                                                */

struct docker_req;
struct docker_stream;

struct docker {
	uv_loop_t *loop;
	struct docker_multi m; /* plain requests; keeps connections alive */
	struct docker_host host;
	char version[16];   /* "" until negotiated */
	int podman;	    /* the daemon is Podman's service (negotiation) */
	char *version_body; /* the last negotiation's /version answer */
	unsigned cpus;	    /* its CPUs (docker_set_cpus), 0: unknown */
	struct docker_req *reqs;
	struct docker_stream *streams;
	int closing;
	int multi_closed;
	long default_timeout_ms; /* for requests that pass 0 */
	/* TLS files when host.tls (docker.h, struct docker_options). */
	char tls_ca[PATH_MAX];
	char tls_cert[PATH_MAX];
	char tls_key[PATH_MAX];
};

/* What every easy handle of d needs to reach the daemon: the unix socket,
 * or TLS with the client's files. Returns 0 or a negative code. */
int docker_easy_connect_opts(const struct docker *d, CURL *easy);

/* Frees d once docker_free() has run and its last handle and stream are
 * gone. */
void docker_maybe_free(struct docker *d);

/* ------------------------------------------------------------------ */
/* docker_http.c: plain requests                                       */

/* The done callback of the client's multi. */
void docker_http_done(struct docker_multi *m, CURL *easy, CURLcode rc);

/*
 * Starts a request (arguments already checked). is_version: the unversioned
 * GET /version whose answer sets d->version. *out (if not NULL) gets the
 * request for docker_req_cancel(). Returns 0 and calls cb once later, or a
 * negative code without calling it.
 */
int docker_req_start(struct docker *d, const char *method, const char *path,
		     const char *body, long timeout_ms, int is_version,
		     docker_response_cb cb, void *arg, struct docker_req **out);
/* Completes every request with err (docker_free). */
void docker_req_cancel_all(struct docker *d, int err);

/* A transfer failure as a negative errno, and in words. Connect failures
 * name the endpoint, since that is what the user has to fix. */
int docker_curl_err(CURLcode rc, long oserr);
void docker_curl_message(const struct docker *d, const char *what, CURLcode rc,
			 long oserr, const char *errbuf, char *out,
			 size_t outsz);

/* ------------------------------------------------------------------ */
/* docker_stream.c: hijacked streams                                   */

/* Fails every stream with -ECANCELED (docker_free). */
void docker_stream_cancel_all(struct docker *d);

#endif
