/*
 * links.c - signed artifact links (links.h).
 */
#include "links.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/state_dir.h"

#define KEY_LEN 32

struct links {
	unsigned char key[KEY_LEN];
	uint32_t ttl_s;
	char *base;
	unsigned preview_port; /* the preview listener's, 0: none */
};

/* The key file's 32 bytes, made (O_EXCL, 0600) when missing. */
static int load_key(const char *path, unsigned char *key, struct error *err)
{
	struct stat st;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (RAND_bytes(key, KEY_LEN) != 1 ||
		    write(fd, key, KEY_LEN) != KEY_LEN)
			rc = -EIO;
		if (close(fd) != 0 && !rc)
			rc = -errno;
		if (rc) {
			unlink(path);
			error_set(err, rc, "%s: cannot write the link key",
				  path);
		}
		return rc;
	}
	if (errno != EEXIST) {
		rc = -errno;
		return error_set(err, rc, "%s: %s", path, strerror(-rc));
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		error_set(err, rc, "%s: %s", path, strerror(-rc));
	} else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		rc = error_set(err, -EPERM,
			       "%s may be read by others: anyone could forge "
			       "links (chmod 600 it)",
			       path);
	} else if (read(fd, key, KEY_LEN) != KEY_LEN) {
		rc = error_set(err, -EINVAL, "%s is not a link key (%d bytes)",
			       path, KEY_LEN);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int links_open(const char *state_dir, uint32_t ttl_s, struct links **out,
	       struct error *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct links *l;
	int rc;

	*out = NULL;
	rc = state_dir_resolve(state_dir, dir, sizeof(dir));
	if (rc)
		return error_set(err, rc, "the state directory: %s",
				 strerror(-rc));
	snprintf(path, sizeof(path), "%s/link.key", dir);
	l = calloc(1, sizeof(*l));
	if (!l)
		return error_set(err, -ENOMEM, "out of memory");
	rc = load_key(path, l->key, err);
	if (rc) {
		links_free(l);
		return rc;
	}
	l->ttl_s = ttl_s;
	*out = l;
	return 0;
}

void links_free(struct links *l)
{
	if (!l)
		return;
	OPENSSL_cleanse(l->key, sizeof(l->key));
	free(l->base);
	free(l);
}

void links_set_base(struct links *l, const char *base)
{
	free(l->base);
	l->base = strdup(base);
}

/* The signature over (tenant, id, path, exp) as 64 hex digits. */
static int sign(const struct links *l, const char *tenant, const char *id,
		const char *path, int64_t exp, char hex[2 * 32 + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	char *msg;
	size_t n = strlen(tenant) + strlen(id) + strlen(path) + 32;
	int len;

	msg = malloc(n);
	if (!msg)
		return -ENOMEM;
	/* NUL bytes part the fields: none of them can hold one. */
	len = snprintf(msg, n, "%s%c%s%c%s%c%" PRId64, tenant, 0, id, 0, path,
		       0, exp);
	if (len < 0 || !HMAC(EVP_sha256(), l->key, KEY_LEN,
			     (unsigned char *)msg, (size_t)len, md, &mdlen)) {
		free(msg);
		return -EIO;
	}
	free(msg);
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * (size_t)i, 3, "%02x", md[i]);
	return 0;
}

static int unreserved(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

char *links_url(const struct links *l, const char *tenant, const char *id,
		const char *path, int64_t now_s)
{
	char sig[2 * 32 + 1], *u, *o;
	const unsigned char *p;
	int64_t exp = now_s + l->ttl_s;
	size_t n;

	if (!l->base || sign(l, tenant ? tenant : "", id, path, exp, sig) != 0)
		return NULL;
	n = strlen(l->base) + strlen(id) + 3 * strlen(path) +
	    (tenant ? strlen(tenant) : 0) + 160;
	u = malloc(n);
	if (!u)
		return NULL;
	o = u + snprintf(u, n, "%s/artifacts/%s/", l->base, id);
	for (p = (const unsigned char *)path; *p; p++)
		if (unreserved(*p) || *p == '/')
			*o++ = (char)*p;
		else
			o += snprintf(o, 4, "%%%02X", *p);
	snprintf(o, n - (size_t)(o - u), "?t=%s&exp=%" PRId64 "&sig=%s",
		 tenant ? tenant : "", exp, sig);
	return u;
}

int links_check(const struct links *l, const char *tenant, const char *id,
		const char *path, int64_t exp, const char *sig, int64_t now_s)
{
	char want[2 * 32 + 1];

	if (exp < now_s || strlen(sig) != 64 ||
	    sign(l, tenant, id, path, exp, want) != 0)
		return -EACCES;
	return CRYPTO_memcmp(want, sig, 64) == 0 ? 0 : -EACCES;
}

void links_set_preview_port(struct links *l, unsigned port)
{
	l->preview_port = port;
}

/* What a preview link signs: the session's server name and the port. */
static void preview_id(char *id, size_t size, const char *qname, unsigned port)
{
	snprintf(id, size, "preview/%s/%u", qname, port);
}

int links_preview_host(const struct links *l, const char *tenant,
		       const char *qname, unsigned port,
		       char out[LINKS_HOST_MAX])
{
	char sig[2 * 32 + 1], id[200];

	preview_id(id, sizeof(id), qname, port);
	if (sign(l, tenant ? tenant : "", id, "origin", 0, sig) != 0)
		return -EIO;
	snprintf(out, LINKS_HOST_MAX, "p%.20s.localhost:%u", sig,
		 l->preview_port);
	return 0;
}

char *links_preview_url(const struct links *l, const char *tenant,
			const char *qname, unsigned port, int64_t now_s,
			uint32_t ttl_s)
{
	char sig[2 * 32 + 1], id[200], host[LINKS_HOST_MAX];
	int64_t exp = now_s + ttl_s;
	size_t n;
	char *u;

	preview_id(id, sizeof(id), qname, port);
	if (!l->preview_port ||
	    sign(l, tenant ? tenant : "", id, "", exp, sig) != 0 ||
	    links_preview_host(l, tenant, qname, port, host) != 0)
		return NULL;
	n = strlen(host) + strlen(qname) + 160;
	u = malloc(n);
	if (u)
		snprintf(u, n, "http://%s/preview/%s/%u/%" PRId64 ".%s/", host,
			 qname, port, exp, sig);
	return u;
}

int links_preview_check(const struct links *l, const char *tenant,
			const char *qname, unsigned port, int64_t exp,
			const char *sig, int64_t now_s)
{
	char id[200];

	preview_id(id, sizeof(id), qname, port);
	return links_check(l, tenant, id, "", exp, sig, now_s);
}
