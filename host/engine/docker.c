/*
 * docker.c - the Docker client object: where the daemon is (DOCKER_HOST),
 * its lifetime (docker_new/docker_free), its defaults. Requests live in
 * docker_http.c, attach/exec streams in docker_stream.c; docker_internal.h
 * maps the rest.
 */
#define LOG_MODULE "docker"

#include <errno.h>
#include <stdlib.h>

#include "../util/log.h"
#include "docker_internal.h"

/* Idle keep-alive connections kept to the daemon; each costs it a goroutine. */
#define MAX_IDLE_CONNS 8L

int docker_new(uv_loop_t *loop, const char *host, struct docker **out,
	       const char **errmsg)
{
	struct docker *d;
	const char *unused;
	const char *tls;
	int tls_required = 0;
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
		if (host && host[0]) {
			/* TLS settings go with the environment's host. */
			tls = getenv("DOCKER_TLS_VERIFY");
			tls_required = tls && tls[0];
		} else {
			host = DOCKER_DEFAULT_HOST;
		}
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		*errmsg = "out of memory";
		return -ENOMEM;
	}
	d->loop = loop;
	r = docker_host_parse(host, tls_required, &d->host, errmsg);
	if (r < 0) {
		free(d);
		return r;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(d);
		*errmsg = "libcurl failed to initialise";
		return -ENOMEM;
	}
	r = docker_multi_init(&d->m, loop, docker_http_done);
	if (r < 0) {
		curl_global_cleanup();
		free(d);
		*errmsg = "out of memory";
		return r;
	}
	curl_multi_setopt(d->m.curlm, CURLMOPT_MAXCONNECTS, MAX_IDLE_CONNS);
	log_debug("client for %s", d->host.endpoint);
	*out = d;
	return 0;
}

void docker_maybe_free(struct docker *d)
{
	if (d->closing && d->multi_closed && !d->streams) {
		free(d);
		curl_global_cleanup();
	}
}

static void docker_multi_closed(struct docker_multi *m)
{
	struct docker *d = docker_container_of(m, struct docker, m);

	d->multi_closed = 1;
	docker_maybe_free(d);
}

void docker_free(struct docker *d)
{
	if (!d || d->closing)
		return;
	d->closing = 1;
	docker_req_cancel_all(d, -ECANCELED);
	docker_stream_cancel_all(d);
	docker_multi_close(&d->m, docker_multi_closed);
}

uv_loop_t *docker_loop(const struct docker *d)
{
	return d->loop;
}

void docker_set_timeout(struct docker *d, long timeout_ms)
{
	d->default_timeout_ms = timeout_ms > 0 ? timeout_ms : 0;
}

const char *docker_endpoint(const struct docker *d)
{
	return d->host.endpoint;
}
