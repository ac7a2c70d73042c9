/*
 * pkg_volume.c - a set's record in the package volume and the volume's
 * listing (pkg_volume.h). Nothing here runs anything.
 */
#include "pkg_volume.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTING_HEAD "sbx-pkgs 1"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Arguments, never code: $1 the volume's directory. Names are checked by
 * the pattern and the length before they are used; a symlink is no set
 * (only root helpers write there, but the listing follows nothing). */
const char pkg_listing_script[] =
	"set -u; export LC_ALL=C; cd -- \"$1\" || exit 3; "
	"echo '" LISTING_HEAD "'; n=0; "
	"for d in *; do "
	"case $d in *[!0-9a-f]*) continue ;; esac; "
	"if [ ${#d} -ne 64 ] || [ -L \"$d\" ] || [ ! -d \"$d\" ]; then "
	"continue; fi; "
	"printf 'set %s %s ' \"$d\" \"$(stat -c %Y -- \"$d\")\"; "
	"head -c " STR(
		PKG_RECORD_MAX) " -- \"$d/manifest.json\" 2>/dev/null "
				"| tr '\\n\\r' '  '; echo; n=$((n + 1)); "
				"done; echo \"end $n\"";

cJSON *pkg_record_new(const cJSON *manifest, const char *lang,
		      const cJSON *specs, int64_t created, double seconds)
{
	cJSON *r = cJSON_Duplicate(manifest, 1);

	if (!r)
		return NULL;
	if (!cJSON_AddStringToObject(r, "language", lang) ||
	    !cJSON_AddItemToObject(r, "specs", cJSON_Duplicate(specs, 1)) ||
	    !cJSON_AddNumberToObject(r, "bytes",
				     (double)pkg_manifest_bytes(manifest)) ||
	    !cJSON_AddNumberToObject(r, "created", (double)created) ||
	    !cJSON_AddNumberToObject(r, "seconds",
				     round(seconds * 1000) / 1000)) {
		cJSON_Delete(r);
		return NULL;
	}
	return r;
}

/* ---- parsing ---- */

static int lang_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 32)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_+-") == n;
}

/* The record's specs, when they are what a server would have written:
 * at most PKG_MAX_SPECS strings of printable ASCII; else NULL. */
static cJSON *specs_copy(const cJSON *specs)
{
	const cJSON *s;
	int n = 0;

	if (!cJSON_IsArray(specs))
		return NULL;
	cJSON_ArrayForEach(s, specs)
	{
		const char *c;

		if (!cJSON_IsString(s) || ++n > PKG_MAX_SPECS ||
		    !*s->valuestring || strlen(s->valuestring) > PKG_SPEC_MAX)
			return NULL;
		for (c = s->valuestring; *c; c++)
			if (*c <= ' ' || *c > '~')
				return NULL;
	}
	return cJSON_Duplicate(specs, 1);
}

/* A number the record gives, when it is one and at least 0. */
static int rec_num(const cJSON *rec, const char *name, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, name);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble < 0 || v->valuedouble > 1e18)
		return 0;
	*out = v->valuedouble;
	return 1;
}

/* One set's entry from its record (rlen bytes, possibly none). */
static int entry_fill(struct pkg_entry *e, const char *rec, size_t rlen,
		      int64_t mtime)
{
	cJSON *r = rlen ? cJSON_ParseWithLength(rec, rlen) : NULL;
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(r, "language");
	double v;

	e->manifest =
		cJSON_IsObject(r) ? pkg_manifest_parse(rec, rlen, NULL) : NULL;
	if (!e->manifest) {
		/* Not readable: listed, with nothing known of its packages. */
		e->manifest = cJSON_CreateObject();
		if (!e->manifest ||
		    !cJSON_AddStringToObject(e->manifest, "installer", "") ||
		    !cJSON_AddArrayToObject(e->manifest, "packages")) {
			cJSON_Delete(r);
			return -ENOMEM;
		}
	}
	if (cJSON_IsString(lang) && lang_valid(lang->valuestring))
		snprintf(e->lang, sizeof(e->lang), "%s", lang->valuestring);
	e->specs = specs_copy(cJSON_GetObjectItemCaseSensitive(r, "specs"));
	e->bytes = rec_num(r, "bytes", &v) ? (uint64_t)v
					   : pkg_manifest_bytes(e->manifest);
	e->created = rec_num(r, "created", &v) && v > 0 ? (int64_t)v : mtime;
	e->seconds = rec_num(r, "seconds", &v) ? v : 0;
	cJSON_Delete(r);
	return 0;
}

/* A decimal count or time of at most 18 digits, the whole of [p, end). */
static int dec(const char *p, const char *end, int64_t *out)
{
	int64_t v = 0;

	if (p == end || end - p > 18)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 0;
}

static int has_key(const struct pkg_listing *l, const char *key, size_t n)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (memcmp(l->v[i].key, key, n) == 0)
			return 1;
	return 0;
}

/* "set KEY MTIME RECORD" (the line without its newline). */
static int set_line(struct pkg_listing *l, size_t *cap, const char *p,
		    const char *end, struct error *err)
{
	const char *key = p + 4, *t = key + PKG_KEY_LEN, *sp;
	char k[PKG_KEY_LEN + 1];
	struct pkg_entry *e;
	int64_t mtime;

	if (end - p < 4 + PKG_KEY_LEN + 2 || *t != ' ')
		return error_set(err, ERR_INSTALL_FAILED,
				 "the volume's listing has a bad set line");
	memcpy(k, key, PKG_KEY_LEN);
	k[PKG_KEY_LEN] = '\0';
	sp = memchr(t + 1, ' ', (size_t)(end - t - 1));
	if (!pkg_key_valid(k) || !sp || dec(t + 1, sp, &mtime))
		return error_set(err, ERR_INSTALL_FAILED,
				 "the volume's listing has a bad set line");
	if (has_key(l, k, PKG_KEY_LEN))
		return 0;
	if (l->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;
		struct pkg_entry *v = realloc(l->v, ncap * sizeof(*v));

		if (!v)
			return error_set(err, -ENOMEM, NULL);
		l->v = v;
		*cap = ncap;
	}
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	memcpy(e->key, k, sizeof(e->key));
	l->n++;
	if (entry_fill(e, sp + 1, (size_t)(end - sp - 1), mtime))
		return error_set(err, -ENOMEM, NULL);
	return 0;
}

int pkg_listing_parse(const char *text, size_t len, struct pkg_listing *out,
		      struct error *err)
{
	const char *p = text, *end = text + len, *nl;
	size_t cap = 0, lines = 0;
	int64_t count;
	int rc, head = 0;

	memset(out, 0, sizeof(*out));
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (!head) {
			if ((size_t)(nl - p) != strlen(LISTING_HEAD) ||
			    memcmp(p, LISTING_HEAD, (size_t)(nl - p)) != 0)
				break;
			head = 1;
			continue;
		}
		if (nl - p >= 4 && memcmp(p, "set ", 4) == 0) {
			if (++lines > PKG_LISTING_MAX_SETS) {
				rc = error_set(err, ERR_INSTALL_FAILED,
					       "the volume holds more than %d "
					       "sets",
					       PKG_LISTING_MAX_SETS);
				goto fail;
			}
			rc = set_line(out, &cap, p, nl, err);
			if (rc)
				goto fail;
			continue;
		}
		if (nl - p >= 4 && memcmp(p, "end ", 4) == 0 &&
		    dec(p + 4, nl, &count) == 0 && (size_t)count == lines &&
		    (nl == end || nl + 1 == end))
			return 0;
		break;
	}
	rc = error_set(err, ERR_INSTALL_FAILED,
		       !head	 ? "the helper printed no listing of the volume"
		       : p < end ? "the volume's listing has a bad line"
				 : "the volume's listing was cut short");
fail:
	pkg_listing_free(out);
	return rc;
}

void pkg_listing_free(struct pkg_listing *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		cJSON_Delete(l->v[i].specs);
		cJSON_Delete(l->v[i].manifest);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
