/*
 * json_util.c - UTF-8 checks and a small JSON Schema validator.
 */
#include "json_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the well-formed sequence at p (1..4), or 0 if ill-formed. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		if (avail >= 2 && (p[1] & 0xc0) == 0x80)
			return 2;
		return 0;
	}
	if (c >= 0xe0 && c <= 0xef) {
		if (avail < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if (c == 0xe0 && p[1] < 0xa0)
			return 0; /* overlong */
		if (c == 0xed && p[1] > 0x9f)
			return 0; /* surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (avail < 4 || (p[1] & 0xc0) != 0x80 ||
		    (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
			return 0;
		if (c == 0xf0 && p[1] < 0x90)
			return 0;
		if (c == 0xf4 && p[1] > 0x8f)
			return 0;
		return 4;
	}
	return 0;
}

/* Bytes from p that are ASCII (and, unless nul_ok, not NUL), counted 8 at
 * a time (a file read or a write's content is mostly ASCII: megabytes are
 * checked per request). */
static size_t ascii_run(const unsigned char *p, size_t len, int nul_ok)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	size_t i = 0;
	uint64_t w;

	while (i + 8 <= len) {
		memcpy(&w, p + i, 8);
		if ((w & highs) || (!nul_ok && ((w - ones) & ~w & highs)))
			break;
		i += 8;
	}
	return i;
}

static int utf8_check(const char *buf, size_t len, int nul_ok)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, n;

	while (i < len) {
		i += ascii_run(p + i, len - i, nul_ok);
		if (i == len)
			break;
		if (!nul_ok && p[i] == 0)
			return 0;
		n = utf8_seq(p + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

int utf8_valid(const char *buf, size_t len)
{
	return utf8_check(buf, len, 1);
}

int utf8_text(const char *buf, size_t len)
{
	return utf8_check(buf, len, 0);
}

size_t utf8_cut_tail(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	unsigned char c, lo = 0x80, hi = 0xbf;
	size_t k, j, need;

	for (k = 1; k <= 3 && k <= len; k++) {
		c = p[len - k];
		if ((c & 0xc0) == 0x80)
			continue; /* a continuation byte: look further back */
		if (c >= 0xc2 && c <= 0xdf)
			need = 2;
		else if (c >= 0xe0 && c <= 0xef)
			need = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 4;
		else
			return 0;
		if (k >= need)
			return 0; /* a whole sequence (or too long): no cut */
		/* The second byte's range, as utf8_seq() wants it. */
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
		else if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
		for (j = 1; j < k; j++)
			if (p[len - k + j] < (j == 1 ? lo : 0x80) ||
			    p[len - k + j] > (j == 1 ? hi : 0xbf))
				return 0;
		return k;
	}
	return 0;
}

char *utf8_sanitize(const char *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, o = 0, n;
	char *out;

	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	out = malloc(len * 3 + 1); /* each bad byte grows to 3 bytes */
	if (!out)
		return NULL;
	while (i < len) {
		n = utf8_seq(p + i, len - i);
		if (n == 0 || p[i] == 0) {
			out[o++] = (char)0xef;
			out[o++] = (char)0xbf;
			out[o++] = (char)0xbd;
			i++;
			continue;
		}
		memcpy(out + o, p + i, n);
		o += n;
		i += n;
	}
	out[o] = '\0';
	return out;
}

static const char *type_of(const cJSON *v)
{
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsArray(v))
		return "array";
	return "object";
}

static int type_matches(const char *t, const cJSON *v)
{
	if (strcmp(t, "integer") == 0)
		return cJSON_IsNumber(v) && json_safe_integer(v->valuedouble);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(v);
	return strcmp(t, type_of(v)) == 0;
}

static int check_type(const cJSON *type, const cJSON *v)
{
	const cJSON *t;

	if (cJSON_IsString(type))
		return type_matches(type->valuestring, v);
	if (cJSON_IsArray(type)) {
		cJSON_ArrayForEach(
			t, type) if (cJSON_IsString(t) &&
				     type_matches(t->valuestring, v)) return 1;
		return 0;
	}
	return 1;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static int fail(char *err, size_t errlen, const char *path, const char *fmt,
		...) __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, const char *path, const char *fmt,
		...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s%s%s", path, *path ? ": " : "", msg);
	return -1;
}

static int validate(const cJSON *s, const cJSON *v, const char *path, char *err,
		    size_t errlen)
{
	const cJSON *k, *p, *req, *props, *addl, *en;
	char sub[256], tbuf[128];

	k = cJSON_GetObjectItemCaseSensitive(s, "type");
	if (k && !check_type(k, v)) {
		if (cJSON_IsString(k))
			snprintf(tbuf, sizeof(tbuf), "expected %s, got %s",
				 k->valuestring, type_of(v));
		else
			snprintf(tbuf, sizeof(tbuf), "wrong type (%s)",
				 type_of(v));
		return fail(err, errlen, path, "%s", tbuf);
	}
	en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	if (cJSON_IsArray(en)) {
		int found = 0;

		cJSON_ArrayForEach(p, en) if (cJSON_Compare(p, v, 1)) found = 1;
		if (!found)
			return fail(err, errlen, path, "%s",
				    "value is not one of the allowed values");
	}
	if (cJSON_IsNumber(v)) {
		k = cJSON_GetObjectItemCaseSensitive(s, "minimum");
		if (cJSON_IsNumber(k) && v->valuedouble < k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "must be >= %g",
				 k->valuedouble);
			return fail(err, errlen, path, "%s", tbuf);
		}
		k = cJSON_GetObjectItemCaseSensitive(s, "maximum");
		if (cJSON_IsNumber(k) && v->valuedouble > k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "must be <= %g",
				 k->valuedouble);
			return fail(err, errlen, path, "%s", tbuf);
		}
	}
	if (cJSON_IsString(v)) {
		size_t n = utf8_chars(v->valuestring);

		k = cJSON_GetObjectItemCaseSensitive(s, "minLength");
		if (cJSON_IsNumber(k) && (double)n < k->valuedouble)
			return fail(err, errlen, path, "%s",
				    "string is too short");
		k = cJSON_GetObjectItemCaseSensitive(s, "maxLength");
		if (cJSON_IsNumber(k) && (double)n > k->valuedouble)
			return fail(err, errlen, path, "%s",
				    "string is too long");
	}
	if (cJSON_IsArray(v)) {
		int i = 0;

		k = cJSON_GetObjectItemCaseSensitive(s, "maxItems");
		if (cJSON_IsNumber(k) &&
		    (double)cJSON_GetArraySize(v) > k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "at most %g items",
				 k->valuedouble);
			return fail(err, errlen, path, "%s", tbuf);
		}
		k = cJSON_GetObjectItemCaseSensitive(s, "items");
		if (!cJSON_IsObject(k))
			return 0;
		cJSON_ArrayForEach(p, v)
		{
			snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
			if (validate(k, p, sub, err, errlen))
				return -1;
		}
		return 0;
	}
	if (!cJSON_IsObject(v))
		return 0;
	props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	req = cJSON_GetObjectItemCaseSensitive(s, "required");
	cJSON_ArrayForEach(p, req)
	{
		if (cJSON_IsString(p) &&
		    !cJSON_GetObjectItemCaseSensitive(v, p->valuestring))
			return fail(err, errlen, path,
				    "missing required property '%s'",
				    p->valuestring);
	}
	addl = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
	cJSON_ArrayForEach(p, v)
	{
		const cJSON *ps =
			cJSON_GetObjectItemCaseSensitive(props, p->string);

		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			 p->string);
		if (!ps) {
			if (cJSON_IsFalse(addl))
				return fail(err, errlen, path,
					    "unknown property '%s'", p->string);
			continue;
		}
		if (validate(ps, p, sub, err, errlen))
			return -1;
	}
	return 0;
}

int schema_validate(const cJSON *schema, const cJSON *value, char *err,
		    size_t errlen)
{
	err[0] = '\0';
	return validate(schema, value, "", err, errlen);
}

int json_safe_integer(double v)
{
	/* The range check first: the cast of a larger value is undefined
	 * (and NaN fails both comparisons). */
	return v >= -9007199254740991.0 && v <= 9007199254740991.0 &&
	       (double)(long long)v == v;
}
