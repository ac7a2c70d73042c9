/*
 * json_util.c - UTF-8 checks, strict JSON in and escaped strings out, and
 * a small JSON Schema validator (json_util.h).
 */
#include "json_util.h"

#include <locale.h>
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

/* 16 bytes, compared at once (GCC's and clang's vector extension: SSE2
 * on x86-64, NEON on arm64). Megabytes are checked per request (a file
 * read, a write's content): a byte at a time is what made that slow. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));

static int any16(bytes16 m)
{
	uint64_t w[2];

	memcpy(w, &m, sizeof(w));
	return (w[0] | w[1]) != 0;
}

/* Bytes from p that are ASCII (and, unless nul_ok, not NUL), counted 16
 * at a time (the rest of the run is left for a byte loop). */
static size_t ascii_run(const unsigned char *p, size_t len, int nul_ok)
{
	size_t i = 0;
	bytes16 v;

	while (i + 16 <= len) {
		memcpy(&v, p + i, 16);
		if (any16((bytes16)(v > 0x7f)) ||
		    (!nul_ok && any16((bytes16)(v == 0))))
			break;
		i += 16;
	}
	return i;
}

/* Bytes from p that a JSON string holds as they are (no quote, backslash
 * or control character), counted 16 at a time (the rest of the run is
 * left for a byte loop). */
static size_t plain_run(const unsigned char *p, size_t len)
{
	size_t i = 0;
	bytes16 v;

	while (i + 16 <= len) {
		memcpy(&v, p + i, 16);
		if (any16((bytes16)((v < 0x20) | (v == '"') | (v == '\\'))))
			break;
		i += 16;
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

/* The unit utf8_sanitize() makes of p[0..avail): the bytes it takes
 * (a character, or one byte that becomes U+FFFD) and what it costs once
 * cJSON prints it in a string (a quote, a backslash, \b \f \n \r \t
 * take 2, other controls 6 as \u00XX, U+FFFD 3, the rest its own
 * bytes). */
static size_t json_unit(const unsigned char *p, size_t avail, size_t *cost)
{
	size_t n = utf8_seq(p, avail);

	if (n == 0 || p[0] == 0) {
		*cost = 3;
		return 1;
	}
	if (n > 1) {
		*cost = n;
		return n;
	}
	switch (p[0]) {
	case '"':
	case '\\':
	case '\b':
	case '\f':
	case '\n':
	case '\r':
	case '\t':
		*cost = 2;
		break;
	default:
		*cost = p[0] < 0x20 ? 6 : 1;
	}
	return 1;
}

size_t utf8_json_len(const char *buf, size_t len, size_t limit)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, total = 0, c;

	while (i < len && total <= limit) {
		i += json_unit(p + i, len - i, &c);
		total += c;
	}
	return total;
}

size_t utf8_json_prefix(const char *buf, size_t len, size_t room)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0, total = 0, n, c;

	while (i < len) {
		n = json_unit(p + i, len - i, &c);
		if (total + c > room)
			break;
		total += c;
		i += n;
	}
	return i;
}

/* ---- strings printed once ---- */

/* What cJSON prints for byte c of a string: its two-character escape
 * (the second character), 'u' for \u00XX, or 0 for c itself. */
static char escape_of(unsigned char c)
{
	switch (c) {
	case '"':
		return '"';
	case '\\':
		return '\\';
	case '\b':
		return 'b';
	case '\f':
		return 'f';
	case '\n':
		return 'n';
	case '\r':
		return 'r';
	case '\t':
		return 't';
	default:
		return c < 0x20 ? 'u' : 0;
	}
}

size_t json_escaped_len(const char *s, size_t len, int twice)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n = len;
	char e;

	while (i < len) {
		i += plain_run(p + i, len - i);
		if (i == len)
			break;
		e = escape_of(p[i++]);
		if (!e)
			continue;
		/* \u00XX 5 more, \n 1, \" 1; twice: one more backslash,
		 * and for \" and \\ one more again. */
		n += (e == 'u' ? 5 : 1) +
		     (twice ? 1 + (e == '"' || e == '\\') : 0);
	}
	return n;
}

char *json_escape(char *o, const char *s, size_t len, int twice)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run;
	char e;

	while (i < len) {
		run = plain_run(p + i, len - i);
		while (i + run < len && !escape_of(p[i + run]))
			run++;
		memcpy(o, p + i, run);
		o += run;
		i += run;
		if (i == len)
			break;
		e = escape_of(p[i]);
		*o++ = '\\';
		if (twice) {
			*o++ = '\\';
			if (e == '"' || e == '\\')
				*o++ = '\\';
		}
		*o++ = e;
		if (e == 'u') {
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[p[i] >> 4];
			*o++ = hex[p[i] & 15];
		}
		i++;
	}
	return o;
}

/* item (a string or raw item cJSON made) with text (cJSON_malloc()ed,
 * taken, also on failure) in place of its own copy; NULL when either is
 * NULL. */
static cJSON *item_taking(cJSON *item, char *text)
{
	if (!item || !text) {
		cJSON_Delete(item);
		cJSON_free(text);
		return NULL;
	}
	cJSON_free(item->valuestring);
	item->valuestring = text;
	return item;
}

cJSON *json_raw_take(char *text)
{
	return item_taking(text ? cJSON_CreateRaw("") : NULL, text);
}

cJSON *json_raw_string(const char *s, size_t len)
{
	size_t n = json_escaped_len(s, len, 0);
	char *text = n < SIZE_MAX - 3 ? cJSON_malloc(n + 3) : NULL, *o;

	if (!text)
		return NULL;
	o = text;
	*o++ = '"';
	o = json_escape(o, s, len, 0);
	*o++ = '"';
	*o = '\0';
	return json_raw_take(text);
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

/* The message names where (path) and what; at most SCHEMA_MSG_MAX - 1
 * bytes. */
#define SCHEMA_MSG_MAX 300

static int fail(struct error *err, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct error *err, const char *path, const char *fmt, ...)
{
	char msg[256], all[SCHEMA_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(all, sizeof(all), "%s%s%s", path, *path ? ": " : "", msg);
	return error_set_msg(err, ERR_INVALID_ARGUMENTS, all);
}

/* An enum's values for a message, "a, b, c" (strings bare, others as
 * JSON), cut with "..." where the rest does not fit. */
static void enum_list(const cJSON *en, char *buf, size_t size)
{
	static const char more[] = ", ...";
	const cJSON *e;
	size_t off = 0, room;
	char *one;
	int n;

	buf[0] = '\0';
	cJSON_ArrayForEach(e, en)
	{
		/* The last value needs only itself; any other, room for the
		 * "..." that may have to follow it. */
		room = size - off - (e->next ? sizeof(more) - 1 : 0);
		one = cJSON_IsString(e) ? NULL : cJSON_PrintUnformatted(e);
		n = snprintf(buf + off, size - off, "%s%s", off ? ", " : "",
			     one ? one : e->valuestring);
		free(one);
		if (n < 0 || (size_t)n >= room) {
			snprintf(buf + off, size - off, "%s",
				 off ? more : more + 2);
			return;
		}
		off += (size_t)n;
	}
}

static int validate(const cJSON *s, const cJSON *v, const char *path,
		    struct error *err)
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
		return fail(err, path, "%s", tbuf);
	}
	en = cJSON_GetObjectItemCaseSensitive(s, "enum");
	if (cJSON_IsArray(en)) {
		int found = 0;

		cJSON_ArrayForEach(p, en) if (cJSON_Compare(p, v, 1)) found = 1;
		if (!found) {
			char list[200];

			enum_list(en, list, sizeof(list));
			return fail(
				err, path,
				"value is not one of the allowed values: %s",
				list);
		}
	}
	if (cJSON_IsNumber(v)) {
		k = cJSON_GetObjectItemCaseSensitive(s, "minimum");
		if (cJSON_IsNumber(k) && v->valuedouble < k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "must be >= %g",
				 k->valuedouble);
			return fail(err, path, "%s", tbuf);
		}
		k = cJSON_GetObjectItemCaseSensitive(s, "maximum");
		if (cJSON_IsNumber(k) && v->valuedouble > k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "must be <= %g",
				 k->valuedouble);
			return fail(err, path, "%s", tbuf);
		}
	}
	if (cJSON_IsString(v)) {
		const cJSON *lo =
			cJSON_GetObjectItemCaseSensitive(s, "minLength");
		const cJSON *hi =
			cJSON_GetObjectItemCaseSensitive(s, "maxLength");
		/* Counted only when bounded: a write's content is megabytes. */
		size_t n = cJSON_IsNumber(lo) || cJSON_IsNumber(hi)
				   ? utf8_chars(v->valuestring)
				   : 0;

		if (cJSON_IsNumber(lo) && (double)n < lo->valuedouble)
			return fail(err, path, "%s", "string is too short");
		if (cJSON_IsNumber(hi) && (double)n > hi->valuedouble)
			return fail(err, path, "%s", "string is too long");
	}
	if (cJSON_IsArray(v)) {
		int i = 0;

		k = cJSON_GetObjectItemCaseSensitive(s, "maxItems");
		if (cJSON_IsNumber(k) &&
		    (double)cJSON_GetArraySize(v) > k->valuedouble) {
			snprintf(tbuf, sizeof(tbuf), "at most %g items",
				 k->valuedouble);
			return fail(err, path, "%s", tbuf);
		}
		k = cJSON_GetObjectItemCaseSensitive(s, "items");
		if (!cJSON_IsObject(k))
			return 0;
		cJSON_ArrayForEach(p, v)
		{
			snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
			if (validate(k, p, sub, err))
				return err->code;
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
			return fail(err, path, "missing required property '%s'",
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
				return fail(err, path, "unknown property '%s'",
					    p->string);
			continue;
		}
		if (validate(ps, p, sub, err))
			return err->code;
	}
	return 0;
}

int schema_validate(const cJSON *schema, const cJSON *value, struct error *err)
{
	return validate(schema, value, "", err);
}

int json_safe_integer(double v)
{
	/* The range check first: the cast of a larger value is undefined
	 * (and NaN fails both comparisons). */
	return v >= -9007199254740991.0 && v <= 9007199254740991.0 &&
	       (double)(long long)v == v;
}

/* ---- a message's id, by a streaming scan -------------------------------- */

void json_id_scan_init(struct json_id_scan *s)
{
	memset(s, 0, sizeof(*s));
}

static void id_put(struct json_id_scan *s, char c)
{
	if (s->id_len < JSON_ID_MAX)
		s->id[s->id_len++] = c;
	else
		s->id_long = 1;
}

/* What the key just read is: "id", "method" or another. A key written
 * with escapes ("\u0069d") is decoded first; one longer than
 * JSON_KEY_MAX is neither. */
static char key_kind(struct json_id_scan *s)
{
	cJSON *k;
	char kind = 0;

	if (s->key_len > JSON_KEY_MAX)
		return 0;
	s->key[s->key_len] = '\0';
	if (!memchr(s->key, '\\', s->key_len))
		return strcmp(s->key, "\"id\"") == 0	   ? 1
		       : strcmp(s->key, "\"method\"") == 0 ? 2
							   : 0;
	k = cJSON_ParseWithLength(s->key, s->key_len);
	if (cJSON_IsString(k) && strlen(k->valuestring) + 2 <= s->key_len)
		kind = strcmp(k->valuestring, "id") == 0       ? 1
		       : strcmp(k->valuestring, "method") == 0 ? 2
							       : 0;
	cJSON_Delete(k);
	return kind;
}

static void scan_string_byte(struct json_id_scan *s, char c)
{
	if (s->capturing)
		id_put(s, c);
	if (s->in_key && s->key_len <= JSON_KEY_MAX)
		s->key[s->key_len++] = c;
	if (s->escaped) {
		s->escaped = 0;
	} else if (c == '\\') {
		s->escaped = 1;
	} else if (c == '"') {
		s->in_string = 0;
		if (s->in_key) {
			s->in_key = 0;
			s->key_kind = key_kind(s);
		}
	}
}

static void scan_byte(struct json_id_scan *s, char c)
{
	if (s->in_string) {
		scan_string_byte(s, c);
		return;
	}
	if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
		return;
	if (s->done) {
		s->broken = 1; /* something after the message */
		return;
	}
	if (s->depth == 1 && s->top == '{' &&
	    (c == ',' || c == '}' || c == ':')) {
		/* The member's boundaries: its value ends, or starts. */
		if (c == ':') {
			if (s->want_key)
				s->broken = 1;
			s->capturing = s->key_kind == 1;
			s->nids += s->key_kind == 1;
			s->has_method |= s->key_kind == 2;
			s->key_kind = 0;
		} else {
			s->capturing = 0;
			s->want_key = c == ',';
		}
		if (c == '}') {
			s->depth = 0;
			s->done = 1;
		}
		return;
	}
	if (s->capturing)
		id_put(s, c);
	switch (c) {
	case '"':
		s->in_string = 1;
		if (s->depth == 1 && s->top == '{' && s->want_key) {
			s->want_key = 0;
			s->in_key = 1;
			s->key_len = 0;
			s->key[s->key_len++] = c;
		} else if (s->depth == 0) {
			s->top = 'x';
			s->done = 1;
		}
		break;
	case '{':
	case '[':
		if (s->depth++ == 0) {
			s->top = c;
			s->want_key = c == '{';
		}
		break;
	case '}':
	case ']':
		if (s->depth == 0) {
			s->broken = 1;
		} else if (--s->depth == 0) {
			s->done = 1;
		}
		break;
	default:
		if (s->depth == 0) {
			s->top = 'x'; /* a scalar: not a message we answer by id
				       */
			s->done = 1;
		}
		break;
	}
}

void json_id_scan_feed(struct json_id_scan *s, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		scan_byte(s, buf[i]);
}

/* 1 if p[0..len) is one JSON string, strictly: no raw control
 * character, only JSON's escapes, \u with four hex digits, valid UTF-8. */
static int strict_json_string(const char *p, size_t len)
{
	size_t i;

	if (len < 2 || p[0] != '"' || p[len - 1] != '"' || !utf8_valid(p, len))
		return 0;
	for (i = 1; i < len - 1; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c < 0x20 || c == '"')
			return 0;
		if (c != '\\')
			continue;
		if (++i >= len - 1)
			return 0;
		if (p[i] == 'u') {
			if (i + 4 >= len - 1 ||
			    strspn(p + i + 1, "0123456789abcdefABCDEF") < 4)
				return 0;
			i += 4;
		} else if (!p[i] || !strchr("\"\\/bfnrt", p[i])) {
			/* strchr finds a NUL byte: the string's own end */
			return 0;
		}
	}
	return 1;
}

/* 1 if p[0..len) is -?(0|[1-9][0-9]*) and at most 2^53-1 in size. */
static int strict_json_integer(const char *p, size_t len)
{
	size_t i = p[0] == '-';
	char buf[24];

	if (len <= i || len - i > 16 ||
	    strspn(p + i, "0123456789") != len - i ||
	    (p[i] == '0' && len - i > 1))
		return 0;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return json_safe_integer(strtod(buf, NULL));
}

const char *json_id_scan_id(struct json_id_scan *s)
{
	if (!s->done || s->broken || s->top != '{' || s->nids != 1 ||
	    s->id_long || !s->id_len)
		return NULL;
	s->id[s->id_len] = '\0';
	if (s->id[0] == '"' ? strict_json_string(s->id, s->id_len)
			    : strict_json_integer(s->id, s->id_len))
		return s->id;
	return NULL;
}

int json_id_scan_notification(const struct json_id_scan *s)
{
	return s->done && !s->broken && s->top == '{' && !s->nids &&
	       s->has_method;
}

/* ---- strict JSON ---- */

/* The length of the JSON number at p (RFC 8259: -?(0|[1-9][0-9]*)
 * (.[0-9]+)?([eE][+-]?[0-9]+)?), or 0 when what starts there is not one.
 * cJSON reads numbers with strtod, which also takes "01", "1." and "-01". */
static size_t json_number(const char *p, size_t len)
{
	size_t i = 0, d;

	if (i < len && p[i] == '-')
		i++;
	if (i < len && p[i] == '0')
		i++;
	else if (i < len && p[i] >= '1' && p[i] <= '9')
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && p[i] == '.') {
		for (d = ++i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < len && (p[i] == '+' || p[i] == '-'))
			i++;
		for (d = i; i < len && p[i] >= '0' && p[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i;
}

/* A backslash at line[i] inside a string: what is wrong with its escape,
 * or NULL. */
static const char *bad_escape(const char *line, size_t len, size_t i, int *nul)
{
	if (i + 1 >= len || line[i + 1] != 'u')
		return NULL;
	/* \u takes four hex digits: cJSON reads "\uqqqq" as a NUL. */
	if (i + 6 > len || strspn(line + i + 2, "0123456789abcdefABCDEF") < 4)
		return "a \\u escape without four hex digits";
	if (strncmp(line + i + 2, "0000", 4) == 0) {
		*nul = 1;
		return "strings may not contain NUL characters (\\u0000)";
	}
	return NULL;
}

long json_not_strict(const char *line, size_t len, const char **what, int *nul)
{
	int in_string = 0;
	size_t i, n, run;

	*nul = 0;
	for (i = 0; i < len; i++) {
		unsigned char c;

		/* Most of a large message is inside strings: the bytes that
		 * need no look are passed 16 at a time. */
		if (in_string) {
			i += plain_run((const unsigned char *)line + i,
				       len - i);
			if (i == len)
				break;
		}
		c = (unsigned char)line[i];
		if (in_string) {
			if (c == '\\') {
				if ((*what = bad_escape(line, len, i, nul)))
					return (long)i;
				i++; /* the escaped character */
			} else if (c == '"') {
				in_string = 0;
			} else if (c < 0x20) {
				*what = "a raw control character in a string";
				return (long)i;
			}
		} else if (c == '"') {
			in_string = 1;
		} else if (c < 0x20 && c != ' ' && c != '\t' && c != '\n' &&
			   c != '\r') {
			/* JSON's whitespace is space, tab, LF, CR only. */
			*what = "a control character outside a string";
			return (long)i;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			/* The whole token: what strtod would take. */
			for (run = i; run < len && line[run] &&
				      strchr("0123456789+-.eE", line[run]);
			     run++)
				;
			n = json_number(line + i, run - i);
			if (!n || n != run - i) {
				*what = "a number outside JSON's grammar";
				return (long)i;
			}
			i = run - 1;
		}
	}
	return -1;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *json_duplicate_key(const cJSON *v)
{
	const cJSON *c;
	const char **keys, *dup = NULL;
	size_t n = 0, i;

	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return NULL;
	cJSON_ArrayForEach(c, v)
	{
		if ((dup = json_duplicate_key(c)))
			return dup;
		n++;
	}
	if (!cJSON_IsObject(v) || n < 2)
		return NULL;
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return NULL;
	i = 0;
	cJSON_ArrayForEach(c, v) keys[i++] = c->string ? c->string : "";
	/* Sorted: an object with many keys does not cost n^2. */
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n && !dup; i++)
		if (strcmp(keys[i - 1], keys[i]) == 0)
			dup = keys[i];
	free(keys);
	return dup;
}

/* ---- a message read in one pass ---- */

/* Deeper than this, the slow way reads it (cJSON allows 1000). */
#define FAST_DEPTH 64
/* A number token this long or longer is the slow way's: cJSON reads at
 * most 63 of its characters. */
#define FAST_NUMBER 64

struct fast {
	const unsigned char *p, *end;
	unsigned depth;
};

static void fast_ws(struct fast *f)
{
	while (f->p < f->end && (*f->p == ' ' || *f->p == '\t' ||
				 *f->p == '\n' || *f->p == '\r'))
		f->p++;
}

/* Bytes from p that are printable ASCII but a quote or a backslash,
 * counted 16 at a time (the rest of the run is left for a byte loop). */
static size_t fast_plain(const unsigned char *p, size_t len)
{
	size_t i = 0;
	bytes16 v;

	while (i + 16 <= len) {
		memcpy(&v, p + i, 16);
		if (any16((bytes16)((v < 0x20) | (v > 0x7f) | (v == '"') |
				    (v == '\\'))))
			break;
		i += 16;
	}
	return i;
}

static int hex4(const unsigned char *p, unsigned *v)
{
	unsigned i, d;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			d = p[i] - '0';
		else if ((p[i] | 0x20) >= 'a' && (p[i] | 0x20) <= 'f')
			d = (p[i] | 0x20) - 'a' + 10;
		else
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* The string at f->p (its opening quote), checked to its closing quote:
 * 0 with *n its length decoded and *esc whether it has escapes, f->p
 * unmoved; -1 for anything the slow way should judge (a control
 * character, a bad escape, \u0000, a surrogate, bytes that are not
 * UTF-8, no end). */
static int fast_string_scan(struct fast *f, size_t *n, size_t *raw, int *esc)
{
	const unsigned char *p = f->p + 1, *end = f->end;
	unsigned u;
	size_t k;

	*n = 0;
	*esc = 0;
	for (;;) {
		k = fast_plain(p, (size_t)(end - p));
		p += k;
		*n += k;
		if (p == end)
			return -1;
		if (*p == '"')
			break;
		if (*p == '\\') {
			*esc = 1;
			if (end - p < 2)
				return -1;
			if (p[1] != 'u') {
				if (!strchr("\"\\/bfnrt", p[1]) || !p[1])
					return -1;
				p += 2;
				*n += 1;
				continue;
			}
			if (end - p < 6 || hex4(p + 2, &u) || u == 0 ||
			    (u >= 0xd800 && u <= 0xdfff))
				return -1;
			p += 6;
			*n += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
			continue;
		}
		if (*p < 0x20)
			return -1;
		if (*p < 0x80) {
			p++;
			*n += 1;
			continue;
		}
		k = utf8_seq(p, (size_t)(end - p));
		if (!k)
			return -1;
		p += k;
		*n += k;
	}
	*raw = (size_t)(p - f->p) - 1; /* between the quotes */
	return 0;
}

/* The string at f->p, decoded (scanned by fast_string_scan()) into a new
 * buffer (cJSON_malloc()); f->p after it. NULL: the slow way's. */
static char *fast_string(struct fast *f)
{
	const unsigned char *p, *e, *bs;
	size_t n, raw;
	unsigned u;
	char *out, *o;
	int esc;

	if (fast_string_scan(f, &n, &raw, &esc))
		return NULL;
	p = f->p + 1;
	e = p + raw;
	f->p = e + 1;
	out = cJSON_malloc(n + 1);
	if (!out)
		return NULL;
	if (!esc) {
		memcpy(out, p, raw);
		out[raw] = '\0';
		return out;
	}
	o = out;
	while (p < e) {
		bs = memchr(p, '\\', (size_t)(e - p));
		if (!bs)
			bs = e;
		memcpy(o, p, (size_t)(bs - p));
		o += bs - p;
		p = bs;
		if (p == e)
			break;
		switch (p[1]) {
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			hex4(p + 2, &u);
			if (u < 0x80) {
				*o++ = (char)u;
			} else if (u < 0x800) {
				*o++ = (char)(0xc0 | u >> 6);
				*o++ = (char)(0x80 | (u & 0x3f));
			} else {
				*o++ = (char)(0xe0 | u >> 12);
				*o++ = (char)(0x80 | ((u >> 6) & 0x3f));
				*o++ = (char)(0x80 | (u & 0x3f));
			}
			p += 4;
			break;
		default: /* " \ / */
			*o++ = (char)p[1];
			break;
		}
		p += 2;
	}
	*o = '\0';
	return out;
}

/* A number in JSON's grammar, read as cJSON reads it (strtod, valueint
 * clamped): NULL for the slow way. */
static cJSON *fast_number(struct fast *f)
{
	char buf[FAST_NUMBER];
	size_t n = json_number((const char *)f->p, (size_t)(f->end - f->p));

	/* cJSON reads '.' as the locale's decimal point. */
	if (!n || n >= sizeof(buf) ||
	    (memchr(f->p, '.', n) &&
	     strcmp(localeconv()->decimal_point, ".") != 0))
		return NULL;
	memcpy(buf, f->p, n);
	buf[n] = '\0';
	f->p += n;
	return cJSON_CreateNumber(strtod(buf, NULL));
}

static cJSON *fast_value(struct fast *f);

/* An array or object (f->p at its bracket), its members read in turn. */
static cJSON *fast_container(struct fast *f, int object)
{
	cJSON *c = object ? cJSON_CreateObject() : cJSON_CreateArray(), *v;
	char *key = NULL;

	if (!c || ++f->depth > FAST_DEPTH)
		goto fail;
	f->p++;
	fast_ws(f);
	if (f->p < f->end && *f->p == (object ? '}' : ']')) {
		f->p++;
		f->depth--;
		return c;
	}
	for (;;) {
		if (object) {
			if (f->p == f->end || *f->p != '"' ||
			    !(key = fast_string(f)))
				goto fail;
			fast_ws(f);
			if (f->p == f->end || *f->p != ':')
				goto fail;
			f->p++;
			fast_ws(f);
		}
		v = fast_value(f);
		if (!v)
			goto fail;
		/* As cJSON's parser has it: the key is the member's own. */
		v->string = key;
		key = NULL;
		cJSON_AddItemToArray(c, v);
		fast_ws(f);
		if (f->p == f->end)
			goto fail;
		if (*f->p == (object ? '}' : ']')) {
			f->p++;
			f->depth--;
			return c;
		}
		if (*f->p != ',')
			goto fail;
		f->p++;
		fast_ws(f);
	}
fail:
	cJSON_free(key);
	cJSON_Delete(c);
	return NULL;
}

static cJSON *fast_value(struct fast *f)
{
	size_t left = (size_t)(f->end - f->p);
	cJSON *v;
	char *s;

	if (!left)
		return NULL;
	switch (*f->p) {
	case '{':
	case '[':
		return fast_container(f, *f->p == '{');
	case '"':
		s = fast_string(f);
		return item_taking(s ? cJSON_CreateString("") : NULL, s);
	case 't':
		if (left < 4 || memcmp(f->p, "true", 4) != 0)
			return NULL;
		f->p += 4;
		v = cJSON_CreateTrue();
		if (v)
			v->valueint = 1; /* as cJSON's parser sets it */
		return v;
	case 'f':
		if (left < 5 || memcmp(f->p, "false", 5) != 0)
			return NULL;
		f->p += 5;
		return cJSON_CreateFalse();
	case 'n':
		if (left < 4 || memcmp(f->p, "null", 4) != 0)
			return NULL;
		f->p += 4;
		return cJSON_CreateNull();
	default:
		return fast_number(f);
	}
}

cJSON *json_parse_fast(const char *text, size_t len)
{
	struct fast f = {
		.p = (const unsigned char *)text,
		.end = (const unsigned char *)text + len,
	};
	cJSON *v;

	fast_ws(&f);
	v = fast_value(&f);
	if (v) {
		fast_ws(&f);
		if (f.p != f.end) {
			cJSON_Delete(v);
			v = NULL;
		}
	}
	return v;
}
