/*
 * docker.c - the Docker client object: where the daemon is (DOCKER_HOST or
 * the options), how to reach it (unix socket, TCP, mutual TLS), its
 * lifetime (docker_new/docker_free), its defaults. Requests live in
 * docker_http.c, attach/exec streams in docker_stream.c; docker_internal.h
 * maps the rest.
 */
#define LOG_MODULE "docker"

#include <errno.h>
#include <limits.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "docker_internal.h"

/* Idle keep-alive connections kept to the daemon; each costs it a goroutine. */
#define MAX_IDLE_CONNS 8L

/* Copies path into out after checking it can be read now, so that a
 * mistyped path is reported at start-up, not as a handshake failure. */
static int tls_file(const char *what, const char *path, char *out, size_t outsz,
		    struct error *err)
{
	if (!path || !path[0])
		return error_set(err, -EINVAL,
				 "TLS to the Docker daemon needs %s", what);
	if (strlen(path) >= outsz)
		return error_set(err, -ENAMETOOLONG, "TLS %s path is too long",
				 what);
	if (access(path, R_OK) != 0) {
		int e = errno;

		return error_set(err, -e, "TLS %s %s: %s", what, path,
				 strerror(e));
	}
	snprintf(out, outsz, "%s", path);
	return 0;
}

/* $DOCKER_HOST with $DOCKER_TLS_VERIFY and $DOCKER_CERT_PATH, as the docker
 * CLI reads them: TLS files are ca.pem, cert.pem and key.pem in the
 * certificate directory (default ~/.docker). dir holds their paths. */
static void options_from_env(struct docker_options *o, char dir[3][PATH_MAX])
{
	const char *host = getenv("DOCKER_HOST");
	const char *verify = getenv("DOCKER_TLS_VERIFY");
	const char *certs = getenv("DOCKER_CERT_PATH");
	const char *home = getenv("HOME");
	char base[PATH_MAX];

	memset(o, 0, sizeof(*o));
	if (!host || !host[0]) {
		o->host = DOCKER_DEFAULT_HOST;
		return;
	}
	o->host = host;
	if (!verify || !verify[0])
		return;
	if (certs && certs[0])
		snprintf(base, sizeof(base), "%s", certs);
	else
		snprintf(base, sizeof(base), "%s/.docker",
			 home && home[0] ? home : "");
	snprintf(dir[0], PATH_MAX, "%.*s/ca.pem", PATH_MAX - 16, base);
	snprintf(dir[1], PATH_MAX, "%.*s/cert.pem", PATH_MAX - 16, base);
	snprintf(dir[2], PATH_MAX, "%.*s/key.pem", PATH_MAX - 16, base);
	o->tls_ca = dir[0];
	o->tls_cert = dir[1];
	o->tls_key = dir[2];
}

static int client_tls(struct docker *d, const struct docker_options *o,
		      struct error *err)
{
	int r;

	if (!d->host.tls)
		return 0;
	if ((r = tls_file("CA certificate", o->tls_ca, d->tls_ca,
			  sizeof(d->tls_ca), err)) < 0 ||
	    (r = tls_file("client certificate", o->tls_cert, d->tls_cert,
			  sizeof(d->tls_cert), err)) < 0 ||
	    (r = tls_file("client key", o->tls_key, d->tls_key,
			  sizeof(d->tls_key), err)) < 0)
		return r;
	return 0;
}

int docker_new(uv_loop_t *loop, const struct docker_options *opt,
	       struct docker **out, struct error *err)
{
	char envfiles[3][PATH_MAX];
	struct docker_options o;
	struct docker *d;
	int tls, r;

	if (!loop || !out)
		return error_set(err, -EINVAL, "invalid arguments");
	if (opt)
		o = *opt;
	else
		memset(&o, 0, sizeof(o));
	if (!o.host) {
		struct docker_options env;

		options_from_env(&env, envfiles);
		o.host = env.host;
		/* TLS files given with no host go with the environment's. */
		if (!o.tls_ca && !o.tls_cert && !o.tls_key) {
			o.tls_ca = env.tls_ca;
			o.tls_cert = env.tls_cert;
			o.tls_key = env.tls_key;
		}
	}
	tls = (o.tls_ca && o.tls_ca[0]) || (o.tls_cert && o.tls_cert[0]) ||
	      (o.tls_key && o.tls_key[0]);
	d = calloc(1, sizeof(*d));
	if (!d)
		return error_set(err, -ENOMEM, "out of memory");
	d->loop = loop;
	r = docker_host_parse(o.host, tls, &d->host, err);
	if (r < 0) {
		free(d);
		return r;
	}
	if (!d->host.unix_path[0] && !d->host.tls && !o.allow_plaintext) {
		r = error_set(err, -EPERM,
			      "%s is plain TCP: the Engine API would be open "
			      "to anyone on the path; give TLS files (tls_ca, "
			      "tls_cert, tls_key) or allow_plaintext = yes",
			      d->host.endpoint);
		free(d);
		return r;
	}
	r = client_tls(d, &o, err);
	if (r < 0) {
		free(d);
		return r;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		free(d);
		return error_set(err, -ENOMEM, "libcurl failed to initialise");
	}
	r = docker_multi_init(&d->m, loop, docker_http_done);
	if (r < 0) {
		curl_global_cleanup();
		free(d);
		return error_set(err, r, "out of memory");
	}
	curl_multi_setopt(d->m.curlm, CURLMOPT_MAXCONNECTS, MAX_IDLE_CONNS);
	log_debug("client for %s%s", d->host.endpoint,
		  d->host.tls ? " (TLS)" : "");
	*out = d;
	return 0;
}

/* A hijacked stream writes through curl_easy_send(): what OpenSSL could not
 * take is queued and retried from another buffer (docker_stream.c), and a
 * partial write is fine, so OpenSSL must not insist on the same buffer. */
static CURLcode ssl_ctx_cb(CURL *easy, void *ssl_ctx, void *arg)
{
	(void)easy;
	(void)arg;
	SSL_CTX_set_mode((SSL_CTX *)ssl_ctx,
			 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				 SSL_MODE_ENABLE_PARTIAL_WRITE);
	return CURLE_OK;
}

int docker_easy_connect_opts(const struct docker *d, CURL *easy)
{
	CURLcode rc = CURLE_OK;

	if (d->host.unix_path[0])
		rc = curl_easy_setopt(easy, CURLOPT_UNIX_SOCKET_PATH,
				      d->host.unix_path);
	if (rc != CURLE_OK || !d->host.tls)
		return rc == CURLE_OK ? 0 : -ENOMEM;
	/* Only the configured CA: not the system's bundle or directory. */
	if (curl_easy_setopt(easy, CURLOPT_CAINFO, d->tls_ca) != CURLE_OK ||
	    curl_easy_setopt(easy, CURLOPT_CAPATH, NULL) != CURLE_OK ||
	    curl_easy_setopt(easy, CURLOPT_SSLCERT, d->tls_cert) != CURLE_OK ||
	    curl_easy_setopt(easy, CURLOPT_SSLKEY, d->tls_key) != CURLE_OK)
		return -ENOMEM;
	curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(easy, CURLOPT_SSLVERSION,
			 (long)CURL_SSLVERSION_TLSv1_2);
	if (curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, ssl_ctx_cb) !=
	    CURLE_OK)
		return -ENOTSUP; /* libcurl not built on OpenSSL */
	return 0;
}

void docker_maybe_free(struct docker *d)
{
	if (d->closing && d->multi_closed && !d->streams) {
		free(d->version_body);
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

int docker_tls(const struct docker *d)
{
	return d->host.tls;
}

int docker_is_podman(const struct docker *d)
{
	return d->podman;
}

const char *docker_version_body(const struct docker *d)
{
	return d->version_body;
}

void docker_set_cpus(struct docker *d, unsigned cpus)
{
	d->cpus = cpus;
}

unsigned docker_cpus(const struct docker *d)
{
	return d->cpus;
}
