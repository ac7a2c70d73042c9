/*
 * packages.c - package specs, cache keys, manifests and proxy logs
 * (packages.h). Nothing here runs anything.
 */
#include "packages.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_alnum(char c)
{
	return isalnum((unsigned char)c) != 0;
}

/* Length of the longest prefix of s made of alphanumerics and chars of
 * extra. */
static size_t span_of(const char *s, const char *extra)
{
	size_t n = 0;

	while (s[n] && (is_alnum(s[n]) || strchr(extra, s[n])))
		n++;
	return n;
}

/* ---- PyPI: PEP 508 names, extras and version specifiers, no markers,
 * no URLs ---- */

/* A PEP 508 name at s: [A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?, its
 * length or 0. */
static size_t pypi_name(const char *s)
{
	size_t n = span_of(s, "._-");

	while (n > 0 && !is_alnum(s[n - 1]))
		n--;
	return is_alnum(s[0]) ? n : 0;
}

/* Append the normal form of the name (lower case, runs of "-_." as one
 * "-") of length n. */
static char *pypi_norm_name(char *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strchr("-_.", s[i])) {
			if (o[-1] != '-')
				*o++ = '-';
		} else {
			*o++ = (char)tolower((unsigned char)s[i]);
		}
	}
	return o;
}

static int pypi_check(const char *s, char *norm, struct error *err)
{
	static const char *const ops[] = {
		"===", "==", "!=", "<=", ">=", "~=", "<", ">", NULL};
	char *o = norm;
	size_t n = pypi_name(s), i;

	if (!n)
		return error_set_msg(
			err, ERR_INVALID_PACKAGE,
			"a PyPI package starts with its name ([A-Za-z0-9])");
	*o++ = ' '; /* a sentinel for pypi_norm_name; removed below */
	o = pypi_norm_name(o, s, n);
	s += n;
	if (*s == '[') {
		*o++ = *s++;
		for (;;) {
			n = pypi_name(s);
			if (!n)
				return error_set_msg(err, ERR_INVALID_PACKAGE,
						     "an extra must be a name: "
						     "pkg[extra1,extra2]");
			o = pypi_norm_name(o, s, n);
			s += n;
			if (*s == ']')
				break;
			if (*s != ',')
				return error_set_msg(err, ERR_INVALID_PACKAGE,
						     "an extra must be a name: "
						     "pkg[extra1,extra2]");
			*o++ = *s++;
		}
		*o++ = *s++;
	}
	while (*s) {
		for (i = 0; ops[i]; i++)
			if (strncmp(s, ops[i], strlen(ops[i])) == 0)
				break;
		if (!ops[i])
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"after the name only extras and version "
				"specifiers (==, !=, <=, >=, ~=, <, >, ===) "
				"are accepted: no URL, path, marker or option");
		memcpy(o, ops[i], strlen(ops[i]));
		o += strlen(ops[i]);
		s += strlen(ops[i]);
		n = span_of(s, ".*+!_-");
		if (!n)
			return error_set_msg(err, ERR_INVALID_PACKAGE,
					     "a version specifier needs a "
					     "version ([A-Za-z0-9.*+!_-])");
		memcpy(o, s, n);
		o += n;
		s += n;
		if (*s == ',' && s[1])
			*o++ = *s++;
		else if (*s)
			return error_set_msg(err, ERR_INVALID_PACKAGE,
					     "version specifiers are separated "
					     "by ',' without spaces");
	}
	*o = '\0';
	memmove(norm, norm + 1, strlen(norm + 1) + 1);
	return 0;
}

/* ---- npm: [@scope/]name[@range], names as the registry takes them,
 * ranges and tags without spaces, no URL, path, alias or git spec ---- */

static size_t npm_name(const char *s)
{
	if (!is_alnum(s[0]))
		return 0;
	return span_of(s, "._~-");
}

static int npm_check(const char *s, char *norm, struct error *err)
{
	const char *start = s;
	size_t n;

	if (*s == '@') {
		n = npm_name(s + 1);
		if (!n || s[1 + n] != '/')
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"a scoped npm package is @scope/name");
		s += 1 + n + 1;
	}
	n = npm_name(s);
	if (!n || (s[n] && s[n] != '@'))
		return error_set_msg(
			err, ERR_INVALID_PACKAGE,
			"an npm package is [@scope/]name[@version-or-range] "
			"(name: [A-Za-z0-9._~-], starting with a letter or "
			"digit): no URL, path, alias or git reference");
	if ((size_t)(s + n - start) > 214)
		return error_set_msg(
			err, ERR_INVALID_PACKAGE,
			"an npm package name is at most 214 characters");
	s += n;
	if (*s == '@') {
		s++;
		n = span_of(s, ".^~<>=*|+_-");
		if (!n || s[n])
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"an npm version, range or tag has only "
				"[A-Za-z0-9.^~<>=*|+_-], without spaces");
	}
	memcpy(norm, start, strlen(start) + 1); /* <= PKG_SPEC_MAX */
	return 0;
}

/* ---- Go: module path[@version], versions semver (or a prefix of one) or
 * "latest": a branch or commit would be a VCS reference ---- */

static int go_version(const char *v)
{
	size_t n, parts = 0;

	if (strcmp(v, "latest") == 0)
		return 1;
	if (*v++ != 'v')
		return 0;
	for (;;) {
		n = strspn(v, "0123456789");
		if (!n)
			return 0;
		v += n;
		parts++;
		if (*v != '.' || parts == 3)
			break;
		v++;
	}
	if (*v == '-' || *v == '+') {
		if (parts != 3)
			return 0;
		v++;
		n = span_of(v, ".+-");
		if (!n)
			return 0;
		v += n;
	}
	return *v == '\0';
}

static int go_check(const char *s, char *norm, struct error *err)
{
	const char *at = strchr(s, '@'), *p = s, *end;
	char ver[PKG_SPEC_MAX + 1];
	int first = 1;

	end = at ? at : s + strlen(s);
	while (p < end) {
		const char *slash = memchr(p, '/', (size_t)(end - p));
		const char *e = slash ? slash : end;
		size_t n = first ? span_of(p, ".-") : span_of(p, "._~+-");
		const char *q;

		if (p + n < e || e == p || *p == '.' || *p == '-' ||
		    (e - p == 2 && p[0] == '.' && p[1] == '.'))
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"a Go module path is domain/elem/...: no URL, "
				"path or option");
		if (first) {
			if (!memchr(p, '.', (size_t)(e - p)))
				return error_set_msg(
					err, ERR_INVALID_PACKAGE,
					"a Go module path starts with a domain "
					"name (github.com/x/y)");
			for (q = p; q < e; q++)
				if (isupper((unsigned char)*q))
					return error_set_msg(
						err, ERR_INVALID_PACKAGE,
						"a Go module path's domain is "
						"lower case");
		}
		first = 0;
		p = slash ? slash + 1 : end;
		if (slash && p == end)
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"a Go module path does not end with '/'");
	}
	if (at) {
		snprintf(ver, sizeof(ver), "%s", at + 1);
		if (!go_version(ver))
			return error_set_msg(err, ERR_INVALID_PACKAGE,
					     "a Go version is vX.Y.Z (or vX, "
					     "vX.Y) or latest: no branch, "
					     "commit or other VCS reference");
	}
	memcpy(norm, s, strlen(s) + 1); /* <= PKG_SPEC_MAX */
	return 0;
}

/* ---- Cargo: crate[@requirement] ---- */

static int cargo_check(const char *s, char *norm, struct error *err)
{
	size_t n = span_of(s, "_-"), i;

	if (!isalpha((unsigned char)s[0]) || n > 64 || (s[n] && s[n] != '@'))
		return error_set_msg(err, ERR_INVALID_PACKAGE,
				     "a crate is name[@version-requirement] "
				     "(name: a letter, then [A-Za-z0-9_-], 64 "
				     "at most): no URL, path or git reference");
	if (s[n] == '@') {
		size_t m = span_of(s + n + 1, ".^~=<>*+,-");

		if (!m || s[n + 1 + m] || !strchr("0123456789^~=<>*", s[n + 1]))
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"a crate's version requirement starts with a "
				"digit or an operator and has only "
				"[A-Za-z0-9.^~=<>*+,-], without spaces");
	}
	for (i = 0; s[i]; i++)
		norm[i] = i < n ? (char)tolower((unsigned char)s[i]) : s[i];
	norm[i] = '\0';
	return 0;
}

static const struct {
	const char *name;
	int (*check)(const char *s, char *norm, struct error *err);
} ecosystems[] = {
	{"pypi", pypi_check},
	{"npm", npm_check},
	{"go", go_check},
	{"cargo", cargo_check},
};

#define NECO (sizeof(ecosystems) / sizeof(ecosystems[0]))

int pkg_ecosystem_known(const char *ecosystem)
{
	size_t i;

	for (i = 0; ecosystem && i < NECO; i++)
		if (strcmp(ecosystems[i].name, ecosystem) == 0)
			return 1;
	return 0;
}

int pkg_spec_check(const char *ecosystem, const char *spec, char *norm,
		   struct error *err)
{
	size_t i, len = strlen(spec);

	norm[0] = '\0';
	if (!len || len > PKG_SPEC_MAX)
		return error_set_msg(err, ERR_INVALID_PACKAGE,
				     len ? "a package spec is at most 256 bytes"
					 : "empty package spec");
	for (i = 0; i < len; i++)
		if ((unsigned char)spec[i] <= ' ' ||
		    (unsigned char)spec[i] >= 0x7f)
			return error_set_msg(
				err, ERR_INVALID_PACKAGE,
				"a package spec has no whitespace, control or "
				"non-ASCII characters");
	for (i = 0; i < NECO; i++)
		if (strcmp(ecosystems[i].name, ecosystem) == 0)
			return ecosystems[i].check(spec, norm, err);
	return error_set_msg(err, ERR_INVALID_PACKAGE,
			     "this language installs no packages");
}

void pkg_spec_name(const char *ecosystem, const char *norm, char *name)
{
	size_t n;

	if (strcmp(ecosystem, "pypi") == 0)
		n = pypi_name(norm);
	else if (strcmp(ecosystem, "npm") == 0)
		n = strcspn(norm + (norm[0] == '@'), "@") + (norm[0] == '@');
	else
		n = strcspn(norm, "@");
	if (n > PKG_SPEC_MAX)
		n = PKG_SPEC_MAX;
	memcpy(name, norm, n);
	name[n] = '\0';
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t pkg_specs_sort(char **specs, size_t n)
{
	size_t i, o = 0;

	if (!n)
		return 0;
	qsort(specs, n, sizeof(*specs), cmp_str);
	for (i = 0; i < n; i++) {
		if (o && strcmp(specs[o - 1], specs[i]) == 0) {
			free(specs[i]);
			continue;
		}
		specs[o++] = specs[i];
	}
	return o;
}

int pkg_installer_id(const char *ecosystem, const char *const *cmd,
		     const char *const *env, char *out, size_t size)
{
	const char *const *parts[2] = {cmd, env};
	size_t off, k;
	int n;

	n = snprintf(out, size, "%s\n", ecosystem ? ecosystem : "");
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	off = (size_t)n;
	for (k = 0; k < 2; k++) {
		const char *const *a;

		for (a = parts[k]; a && *a; a++) {
			n = snprintf(out + off, size - off, "%s\n", *a);
			if (n < 0 || (size_t)n >= size - off)
				return -ENAMETOOLONG;
			off += (size_t)n;
		}
		/* An empty line ends the command: "a b" and "a" + env "b"
		 * differ. */
		n = snprintf(out + off, size - off, "\n");
		if (n < 0 || (size_t)n >= size - off)
			return -ENAMETOOLONG;
		off += (size_t)n;
	}
	return 0;
}

int pkg_key(const char *installer, const char *image_id, const char *options,
	    char *const *specs, size_t n, char out[PKG_KEY_LEN + 1])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned char md[32];
	unsigned mdlen = 0;
	size_t i;
	int ok;

	if (!ctx)
		return -ENOMEM;
	/* Every part ends with a NUL, so no two sets hash the same text. */
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) &&
	     EVP_DigestUpdate(ctx, "mcp-sandbox packages 2", 23) &&
	     EVP_DigestUpdate(ctx, installer, strlen(installer) + 1) &&
	     EVP_DigestUpdate(ctx, image_id, strlen(image_id) + 1) &&
	     EVP_DigestUpdate(ctx, options, strlen(options) + 1);
	for (i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(ctx, specs[i], strlen(specs[i]) + 1);
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return -ENOMEM;
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int pkg_key_valid(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == PKG_KEY_LEN && s[n] == '\0';
}

int pkg_url_hostport(const char *url, char *out, size_t size)
{
	const char *h, *e, *port = NULL;
	unsigned long p;
	char host[256];
	size_t n, i;

	if (strncmp(url, "https://", 8) == 0) {
		h = url + 8;
		port = "443";
	} else if (strncmp(url, "http://", 7) == 0) {
		h = url + 7;
		port = "80";
	} else {
		return -EINVAL;
	}
	e = h + strcspn(h, "/?#");
	n = (size_t)(e - h);
	if (memchr(h, '@', n) || memchr(h, '[', n))
		return -EINVAL; /* user info, IPv6 literals */
	for (i = 0; i < n && h[i] != ':'; i++)
		;
	if (i == 0 || i >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, i);
	host[i] = '\0';
	if (i < n) {
		char *end;

		if (i + 1 == n || !isdigit((unsigned char)h[i + 1]))
			return -EINVAL;
		p = strtoul(h + i + 1, &end, 10);
		if (end != e || p < 1 || p > 65535)
			return -EINVAL;
	} else {
		p = strtoul(port, NULL, 10);
	}
	for (i = 0; host[i]; i++) {
		host[i] = (char)tolower((unsigned char)host[i]);
		if (!is_alnum(host[i]) && host[i] != '.' && host[i] != '-')
			return -EINVAL;
	}
	if (host[0] == '.' || host[0] == '-' || strstr(host, ".."))
		return -EINVAL;
	if ((size_t)snprintf(out, size, "%s:%lu", host, p) >= size)
		return -EINVAL;
	return 0;
}

/* "sbx <time> <method> <target> <status> <in> <out> <verdict> <ms>
 * [<error>]" (the error is "-" or Squid's ERR_ name; images before it
 * logged none) */
static int parse_line(const char *line, size_t len, struct pkg_conn *c)
{
	char buf[600], verdict[64];
	double t;
	unsigned long long in, out;
	int status, n;

	if (len >= sizeof(buf) || len < 4 || memcmp(line, "sbx ", 4) != 0)
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	c->error[0] = '\0';
	n = sscanf(buf, "sbx %lf %15s %255s %d %llu %llu %63s %*s %47s", &t,
		   c->method, c->target, &status, &in, &out, verdict, c->error);
	if (n < 7)
		return -EINVAL;
	if (n < 8 || strncmp(c->error, "ERR_", 4) != 0)
		c->error[0] = '\0';
	/* A connection that sent no request (the readiness probe of the
	 * install step) is not a request. */
	if (strcmp(c->method, "-") == 0)
		return -EINVAL;
	c->status = status;
	c->bytes_in = in;
	c->bytes_out = out;
	c->allowed = strstr(verdict, "DENIED") == NULL && status != 403;
	return 0;
}

/* host and port of a logged target: "host:port" or "http://host[:port]/" */
static void split_target(const char *target, char *host, size_t size,
			 long *port)
{
	char hp[300];
	const char *colon;

	if (pkg_url_hostport(target, hp, sizeof(hp)) == 0)
		target = hp;
	colon = strrchr(target, ':');
	*port = colon ? strtol(colon + 1, NULL, 10) : 0;
	snprintf(host, size, "%.*s",
		 (int)(colon ? (size_t)(colon - target) : strlen(target)),
		 target);
}

cJSON *pkg_proxy_log_json(const char *log, size_t len, unsigned *refused)
{
	cJSON *arr = cJSON_CreateArray();
	const char *p = log, *end = log + len;

	*refused = 0;
	while (arr && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct pkg_conn c;
		char host[256];
		long port;
		cJSON *o;

		if (parse_line(p, n, &c) == 0 && (o = cJSON_CreateObject())) {
			split_target(c.target, host, sizeof(host), &port);
			cJSON_AddStringToObject(o, "host", host);
			cJSON_AddNumberToObject(o, "port", (double)port);
			cJSON_AddStringToObject(o, "method", c.method);
			cJSON_AddBoolToObject(o, "allowed", c.allowed);
			cJSON_AddNumberToObject(o, "status", c.status);
			cJSON_AddNumberToObject(o, "bytesIn",
						(double)c.bytes_in);
			cJSON_AddNumberToObject(o, "bytesOut",
						(double)c.bytes_out);
			if (c.error[0])
				cJSON_AddStringToObject(o, "error", c.error);
			cJSON_AddItemToArray(arr, o);
			if (!c.allowed)
				(*refused)++;
		}
		p += n + 1;
	}
	return arr;
}

cJSON *pkg_manifest_parse(const char *text, size_t len, struct error *err)
{
	cJSON *m = cJSON_ParseWithLength(text, len), *pkgs, *p, *out, *arr;
	const char *bad = "the installer's manifest is not JSON";

	if (!cJSON_IsObject(m))
		goto bad;
	pkgs = cJSON_GetObjectItemCaseSensitive(m, "packages");
	bad = "the installer's manifest has no packages array";
	if (!cJSON_IsArray(pkgs))
		goto bad;
	out = cJSON_CreateObject();
	arr = cJSON_AddArrayToObject(out, "packages");
	if (!arr)
		goto nomem;
	{
		cJSON *inst = cJSON_GetObjectItemCaseSensitive(m, "installer");

		cJSON_AddStringToObject(out, "installer",
					cJSON_IsString(inst) ? inst->valuestring
							     : "");
	}
	cJSON_ArrayForEach(p, pkgs)
	{
		cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
		cJSON *ver = cJSON_GetObjectItemCaseSensitive(p, "version");
		cJSON *req = cJSON_GetObjectItemCaseSensitive(p, "requested");
		cJSON *bytes = cJSON_GetObjectItemCaseSensitive(p, "bytes");
		cJSON *o;

		if (!cJSON_IsString(name) || !cJSON_IsString(ver) ||
		    !*name->valuestring || strlen(name->valuestring) > 256 ||
		    strlen(ver->valuestring) > 128) {
			cJSON_Delete(out);
			bad = "a manifest entry has no name or version";
			goto bad;
		}
		o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(arr, o)) {
			cJSON_Delete(o);
			cJSON_Delete(out);
			goto nomem;
		}
		cJSON_AddStringToObject(o, "name", name->valuestring);
		cJSON_AddStringToObject(o, "version", ver->valuestring);
		cJSON_AddBoolToObject(o, "requested", cJSON_IsTrue(req));
		cJSON_AddNumberToObject(o, "bytes",
					cJSON_IsNumber(bytes) &&
							bytes->valuedouble >= 0
						? bytes->valuedouble
						: 0);
	}
	cJSON_Delete(m);
	return out;
nomem:
	cJSON_Delete(m);
	error_set(err, -ENOMEM, "out of memory");
	return NULL;
bad:
	cJSON_Delete(m);
	error_set_msg(err, ERR_INSTALL_FAILED, bad);
	return NULL;
}

uint64_t pkg_manifest_bytes(const cJSON *manifest)
{
	const cJSON *p, *b;
	uint64_t sum = 0;

	cJSON_ArrayForEach(
		p, cJSON_GetObjectItemCaseSensitive(manifest, "packages"))
	{
		b = cJSON_GetObjectItemCaseSensitive(p, "bytes");
		if (cJSON_IsNumber(b) && b->valuedouble > 0)
			sum += (uint64_t)b->valuedouble;
	}
	return sum;
}
