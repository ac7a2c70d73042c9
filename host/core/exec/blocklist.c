/*
 * blocklist.c - the code blocklist (blocklist.h).
 */
#include "blocklist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int blocklist_add(struct blocklist *bl, const char *pattern, const char *reason,
		  int from_config)
{
	struct blocklist_rule *r;
	regex_t re;

	if (regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE) != 0)
		return -EINVAL;
	regfree(&re);
	if (!bl->compiled) {
		bl->compiled = calloc(1, sizeof(*bl->compiled));
		if (!bl->compiled || uv_mutex_init(&bl->compiled->lock) != 0) {
			free(bl->compiled);
			bl->compiled = NULL;
			return -ENOMEM;
		}
	}
	if (bl->n == bl->cap) {
		size_t cap = bl->cap ? bl->cap * 2 : 8;
		struct blocklist_rule *v = realloc(bl->rules, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		bl->rules = v;
		bl->cap = cap;
	}
	r = &bl->rules[bl->n];
	memset(r, 0, sizeof(*r));
	r->pattern = strdup(pattern);
	r->reason = strdup(reason);
	r->from_config = from_config;
	if (!r->pattern || !r->reason) {
		free(r->pattern);
		free(r->reason);
		return -ENOMEM;
	}
	bl->n++;
	return 0;
}

void blocklist_close(struct blocklist *bl)
{
	for (size_t i = 0; i < bl->n; i++) {
		if (bl->compiled->done)
			regfree(&bl->rules[i].re);
		free(bl->rules[i].pattern);
		free(bl->rules[i].reason);
	}
	if (bl->compiled)
		uv_mutex_destroy(&bl->compiled->lock);
	free(bl->compiled);
	free(bl->rules);
	memset(bl, 0, sizeof(*bl));
}

/* Every rule compiled, once, whichever thread scans first: 0 or -ENOMEM
 * (the patterns were checked when they were added). */
static int compile_rules(const struct blocklist *bl)
{
	size_t i;
	int rc = 0;

	uv_mutex_lock(&bl->compiled->lock);
	for (i = 0; !bl->compiled->done && i < bl->n; i++)
		if (regcomp(&bl->rules[i].re, bl->rules[i].pattern,
			    REG_EXTENDED | REG_NEWLINE) != 0)
			break;
	if (!bl->compiled->done && i < bl->n) {
		while (i-- > 0)
			regfree(&bl->rules[i].re);
		rc = -ENOMEM;
	} else {
		bl->compiled->done = 1;
	}
	uv_mutex_unlock(&bl->compiled->lock);
	return rc;
}

int blocklist_active(const struct blocklist *bl)
{
	return bl->mode != BLOCKLIST_OFF && bl->n > 0;
}

/* s as valid UTF-8 in place: a sequence cut by the length cap, or any
 * byte that starts none, becomes '?' (the match goes into JSON). */
static void utf8_tidy(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t len = *p < 0x80		 ? 1
			     : (*p >> 5) == 0x6	 ? 2
			     : (*p >> 4) == 0xe	 ? 3
			     : (*p >> 3) == 0x1e ? 4
						 : 0;
		size_t k = 1;

		while (len > 1 && k < len && (p[k] & 0xc0) == 0x80)
			k++;
		if (len == 0 || k < len) {
			*p++ = '?';
			continue;
		}
		p += len;
	}
}

static void locate(const char *text, size_t at, struct blocklist_hit *h)
{
	const char *nl;
	size_t line_start = 0;

	h->line = 1;
	for (const char *p = text;
	     (nl = memchr(p, '\n', at - (size_t)(p - text))); p = nl + 1) {
		h->line++;
		line_start = (size_t)(nl + 1 - text);
	}
	h->column = (uint32_t)(at - line_start + 1);
}

int blocklist_scan(const struct blocklist *bl, const char *code, size_t len,
		   struct blocklist_hit *hits, size_t max)
{
	char *text;
	size_t nhits = 0;

	if (!bl->n)
		return 0;
	if (compile_rules(bl) != 0 || !(text = malloc(len + 1)))
		return -ENOMEM;
	if (bl->lex)
		bl->lex(code, len, text);
	else
		memcpy(text, code, len);
	/* A NUL byte in the code would end the match early: see it as a
	 * space (it is no token of any language here). */
	for (char *p = text; (p = memchr(p, '\0', len - (size_t)(p - text)));)
		*p = ' ';
	text[len] = '\0';
	for (size_t i = 0; i < bl->n && nhits < max; i++) {
		regmatch_t m;
		struct blocklist_hit *h = &hits[nhits];
		size_t mlen, k;

		if (regexec(&bl->rules[i].re, text, 1, &m, 0) != 0)
			continue;
		h->rule = &bl->rules[i];
		locate(text, (size_t)m.rm_so, h);
		mlen = (size_t)(m.rm_eo - m.rm_so);
		if (mlen > BLOCKLIST_MATCH_MAX)
			mlen = BLOCKLIST_MATCH_MAX;
		for (k = 0; k < mlen; k++) {
			char c = text[m.rm_so + (regoff_t)k];

			h->match[k] =
				c == '\n' || c == '\t' || c == '\r' ? ' ' : c;
		}
		h->match[k] = '\0';
		utf8_tidy(h->match);
		nhits++;
	}
	free(text);
	return (int)nhits;
}

int blocklist_mode_parse(const char *s, enum blocklist_mode *out)
{
	if (strcmp(s, "off") == 0)
		*out = BLOCKLIST_OFF;
	else if (strcmp(s, "warn") == 0)
		*out = BLOCKLIST_WARN;
	else if (strcmp(s, "block") == 0)
		*out = BLOCKLIST_BLOCK;
	else
		return -EINVAL;
	return 0;
}

const char *blocklist_mode_name(enum blocklist_mode mode)
{
	switch (mode) {
	case BLOCKLIST_OFF:
		return "off";
	case BLOCKLIST_WARN:
		return "warn";
	case BLOCKLIST_BLOCK:
		return "block";
	}
	return "?";
}
