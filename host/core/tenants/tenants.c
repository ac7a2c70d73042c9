/*
 * tenants.c - the tokens file, bearer tokens, quotas (tenants.h).
 */
#include "tenants.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_LEN 1024

struct tenants {
	char *path;
	struct tenant_quota defaults;
	struct tenant *list; /* every tenant ever read, revoked ones too */
};

const struct tenant *tenants_find(const struct tenants *ts, const char *name)
{
	const struct tenant *t;

	for (t = ts ? ts->list : NULL; t; t = t->next)
		if (!t->revoked && strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

int tenant_valid_prefix(const char *s, size_t n)
{
	size_t i;

	if (n < 1 || n > TENANT_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			return 0;
	return 1;
}

int tenant_valid_name(const char *s)
{
	return tenant_valid_prefix(s, strlen(s));
}

static int unhex(const char *s, unsigned char *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1 ||
		    !strchr("0123456789abcdef", s[2 * i]) ||
		    !strchr("0123456789abcdef", s[2 * i + 1]))
			return -1;
		out[i] = (unsigned char)v;
	}
	return 0;
}

static int quota_set(struct tenant_quota *q, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char *end;
	unsigned long long v;

	if (!eq || !eq[1])
		return -1;
	errno = 0;
	v = strtoull(eq + 1, &end, 10);
	if (errno || *end || eq[1] == '-')
		return -1;
	if (strncmp(kv, "concurrent=", 11) == 0 && v <= 100000)
		q->concurrent = (uint32_t)v;
	else if (strncmp(kv, "sessions=", 9) == 0 && v <= 100000)
		q->sessions = (uint32_t)v;
	else if (strncmp(kv, "per_minute=", 11) == 0 && v <= 1000000)
		q->per_minute = (uint32_t)v;
	else if (strncmp(kv, "artifact_mb=", 12) == 0 && v <= (1ull << 30))
		q->artifact_bytes = v << 20;
	else if (strncmp(kv, "http_sessions=", 14) == 0 && v <= 100000)
		q->http_sessions = (uint32_t)v;
	else
		return -1;
	return 0;
}

/* One line into t (name, hash, quotas): 0, 1 for a blank or comment
 * line, -EINVAL with err. */
static int parse_line(char *line, const struct tenant_quota *defaults,
		      struct tenant *t, struct error *err)
{
	char *save = NULL, *tok;
	int k = 0;

	line[strcspn(line, "\r\n")] = '\0';
	tok = strtok_r(line, " \t", &save);
	if (!tok || tok[0] == '#')
		return 1;
	memset(t, 0, sizeof(*t));
	t->quota = *defaults;
	for (; tok; tok = strtok_r(NULL, " \t", &save), k++) {
		if (k == 0) {
			if (!tenant_valid_name(tok))
				return error_set(err, -EINVAL,
						 "'%.40s' is not a tenant name "
						 "([a-z0-9_-], 1 to 32)",
						 tok);
			snprintf(t->name, sizeof(t->name), "%s", tok);
		} else if (k == 1) {
			if (strncmp(tok, "sha256:", 7) != 0 ||
			    unhex(tok + 7, t->hash, sizeof(t->hash)))
				return error_set(err, -EINVAL,
						 "the token is 'sha256:' and "
						 "64 lower-case hex digits "
						 "(mcp-sandbox token %s "
						 "writes the line)",
						 t->name);
		} else if (quota_set(&t->quota, tok)) {
			return error_set(err, -EINVAL,
					 "'%.40s' is not a quota "
					 "(concurrent=N, sessions=N, "
					 "per_minute=N, artifact_mb=N, "
					 "http_sessions=N)",
					 tok);
		}
	}
	if (k < 2)
		return error_set(err, -EINVAL,
				 "a line is NAME sha256:HEX [QUOTA=N...]");
	return 0;
}

/* The file's tenants as a new list (reversed order does not matter). */
static int read_file(const char *path, const struct tenant_quota *defaults,
		     struct tenant **out, struct error *err)
{
	FILE *f = fopen(path, "re");
	struct tenant *list = NULL, *t, *o;
	char line[LINE_MAX_LEN];
	struct error lerr;
	struct stat st;
	int lineno = 0, rc = 0;

	*out = NULL;
	if (!f) {
		rc = -errno;
		return error_set(err, rc, "%s: %s", path, strerror(-rc));
	}
	if (fstat(fileno(f), &st) == 0 &&
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) ||
	     (st.st_uid != 0 && st.st_uid != geteuid()))) {
		fclose(f);
		return error_set(err, -EPERM,
				 "%s may be written by others than this "
				 "server's user and root: they could add a "
				 "tenant (chown it, chmod go-w it)",
				 path);
	}
	while (fgets(line, sizeof(line), f)) {
		struct tenant tmp;
		int r;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			rc = error_set(err, -EINVAL, "%s:%d: line too long",
				       path, lineno);
			break;
		}
		r = parse_line(line, defaults, &tmp, &lerr);
		if (r == 1)
			continue;
		if (r < 0) {
			rc = error_set(err, r, "%s:%d: %s", path, lineno,
				       lerr.msg);
			break;
		}
		for (o = list; o; o = o->next)
			if (strcmp(o->name, tmp.name) == 0 ||
			    CRYPTO_memcmp(o->hash, tmp.hash, sizeof(o->hash)) ==
				    0)
				break;
		if (o) {
			rc = error_set(err, -EINVAL,
				       "%s:%d: tenant %s: %s twice", path,
				       lineno, tmp.name,
				       strcmp(o->name, tmp.name) == 0
					       ? "its name is there"
					       : "a token is there");
			break;
		}
		t = malloc(sizeof(*t));
		if (!t) {
			rc = error_set(err, -ENOMEM, "out of memory");
			break;
		}
		*t = tmp;
		t->next = list;
		list = t;
	}
	fclose(f);
	if (rc) {
		while (list) {
			t = list->next;
			free(list);
			list = t;
		}
		return rc;
	}
	*out = list;
	return 0;
}

/* The file's list into t->list: tenants known by name keep their usage
 * (and their struct); the others are added; those gone are revoked. */
static void merge(struct tenants *ts, struct tenant *fresh)
{
	struct tenant *t, *f, *next;

	for (t = ts->list; t; t = t->next)
		t->revoked = 1;
	for (f = fresh; f; f = next) {
		next = f->next;
		for (t = ts->list; t && strcmp(t->name, f->name) != 0;
		     t = t->next)
			;
		if (t) {
			memcpy(t->hash, f->hash, sizeof(t->hash));
			t->quota = f->quota;
			t->revoked = 0;
			free(f);
		} else {
			f->bucket = f->quota.per_minute;
			f->next = ts->list;
			ts->list = f;
		}
	}
}

int tenants_load(const char *path, const struct tenant_quota *defaults,
		 struct tenants **out, struct error *err)
{
	struct tenants *ts = calloc(1, sizeof(*ts));
	struct tenant *fresh;
	int rc;

	*out = NULL;
	if (!ts || !(ts->path = strdup(path))) {
		free(ts);
		return error_set(err, -ENOMEM, "out of memory");
	}
	ts->defaults = *defaults;
	rc = read_file(path, defaults, &fresh, err);
	if (rc) {
		tenants_free(ts);
		return rc;
	}
	merge(ts, fresh);
	*out = ts;
	return 0;
}

int tenants_read(const struct tenants *ts, struct tenant **fresh,
		 struct error *err)
{
	return read_file(ts->path, &ts->defaults, fresh, err);
}

void tenants_apply(struct tenants *ts, struct tenant *fresh)
{
	merge(ts, fresh);
}

int tenants_reload(struct tenants *ts, struct error *err)
{
	struct tenant *fresh;
	int rc = tenants_read(ts, &fresh, err);

	if (!rc)
		tenants_apply(ts, fresh);
	return rc;
}

void tenants_free(struct tenants *ts)
{
	struct tenant *t;

	if (!ts)
		return;
	while ((t = ts->list)) {
		ts->list = t->next;
		free(t);
	}
	free(ts->path);
	free(ts);
}

size_t tenants_count(const struct tenants *ts)
{
	const struct tenant *t;
	size_t n = 0;

	for (t = ts->list; t; t = t->next)
		n += !t->revoked;
	return n;
}

struct tenant *tenants_auth(struct tenants *ts, const char *token, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	struct tenant *t, *found = NULL;

	if (!ts || !len ||
	    !EVP_Digest(token, len, md, &mdlen, EVP_sha256(), NULL))
		return NULL;
	/* Every hash is compared, each in constant time. */
	for (t = ts->list; t; t = t->next)
		if (CRYPTO_memcmp(t->hash, md, sizeof(t->hash)) == 0 &&
		    !t->revoked)
			found = t;
	return found;
}

int tenant_begin(struct tenant *t, uint64_t now_ms, struct error *err)
{
	if (t->quota.concurrent && t->running >= t->quota.concurrent)
		return error_set(err, ERR_QUOTA_EXCEEDED,
				 "tenant %s already runs %u executions (its "
				 "quota: concurrent=%u); try again when one "
				 "ends",
				 t->name, t->running, t->quota.concurrent);
	if (t->quota.per_minute) {
		double cap = t->quota.per_minute;

		if (t->refill_ms && now_ms > t->refill_ms)
			t->bucket +=
				(double)(now_ms - t->refill_ms) * cap / 60000.0;
		if (t->bucket > cap || !t->refill_ms)
			t->bucket = cap;
		t->refill_ms = now_ms;
		if (t->bucket < 1.0)
			return error_set(
				err, ERR_QUOTA_EXCEEDED,
				"tenant %s started %u executions in the last "
				"minute (its quota: per_minute=%u); the next "
				"is allowed in %.0f ms",
				t->name, t->quota.per_minute,
				t->quota.per_minute,
				(1.0 - t->bucket) * 60000.0 / cap + 1);
		t->bucket -= 1.0;
	}
	t->running++;
	return 0;
}

void tenant_end(struct tenant *t)
{
	if (t->running)
		t->running--;
}

int tenant_hold_session(struct tenant *t, uint32_t open, struct error *err)
{
	if (t->quota.sessions &&
	    (uint64_t)open + t->sessions_held >= t->quota.sessions)
		return error_set(err, ERR_QUOTA_EXCEEDED,
				 "tenant %s has %u sessions open and %u being "
				 "created (its quota: sessions=%u): destroy "
				 "one first",
				 t->name, open, t->sessions_held,
				 t->quota.sessions);
	t->sessions_held++;
	return 0;
}

void tenant_release_session(struct tenant *t)
{
	if (t->sessions_held)
		t->sessions_held--;
}

int tenant_hold_artifacts(struct tenant *t, uint64_t used, uint64_t bytes,
			  struct error *err)
{
	if (t->quota.artifact_bytes &&
	    used + t->artifacts_held + bytes > t->quota.artifact_bytes)
		return error_set(
			err, ERR_QUOTA_EXCEEDED,
			"tenant %s keeps %llu bytes of artifacts and "
			"%llu being kept, its quota: artifact_mb=%llu",
			t->name, (unsigned long long)used,
			(unsigned long long)t->artifacts_held,
			(unsigned long long)(t->quota.artifact_bytes >> 20));
	t->artifacts_held += bytes;
	return 0;
}

void tenant_release_artifacts(struct tenant *t, uint64_t bytes)
{
	t->artifacts_held -=
		bytes < t->artifacts_held ? bytes : t->artifacts_held;
}

int tenant_new_token(const char *name, char *token, size_t tokensz, char *line,
		     size_t linesz)
{
	unsigned char rnd[32], md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	char b64[64], hex[2 * 32 + 1];
	int n;

	if (RAND_bytes(rnd, sizeof(rnd)) != 1 ||
	    EVP_EncodeBlock((unsigned char *)b64, rnd, sizeof(rnd)) <= 0)
		return -EIO;
	/* base64url, unpadded */
	for (i = 0; b64[i]; i++)
		b64[i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : b64[i];
	b64[strcspn(b64, "=")] = '\0';
	n = snprintf(token, tokensz, "%s%s", TENANT_TOKEN_PREFIX, b64);
	if (n < 0 || (size_t)n >= tokensz ||
	    !EVP_Digest(token, (size_t)n, md, &mdlen, EVP_sha256(), NULL))
		return -EIO;
	for (i = 0; i < 32; i++)
		snprintf(hex + 2 * (size_t)i, 3, "%02x", md[i]);
	n = snprintf(line, linesz, "%s sha256:%s\n", name, hex);
	return n < 0 || (size_t)n >= linesz ? -EIO : 0;
}
