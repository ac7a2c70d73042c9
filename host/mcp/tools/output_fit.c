/*
 * output_fit.c - a stream's beginning and end within a budget of JSON
 * text (output_fit.h).
 */
#include "output_fit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/json_util.h"

/* The marker, written into out (at least MARKER_MAX bytes); its length. */
#define MARKER_MAX 160

static size_t marker(char *out, size_t n, size_t from, const char *where)
{
	int k;

	if (where)
		k = snprintf(out, MARKER_MAX,
			     "\n... [%zu bytes truncated from byte %zu; read "
			     "them at %.40s] ...\n",
			     n, from, where);
	else
		k = snprintf(out, MARKER_MAX,
			     "\n... [%zu bytes truncated] ...\n", n);
	return k < 0 ? 0 : (size_t)k;
}

/* The most the marker can take as JSON text (its two newlines are
 * escaped). */
static size_t marker_cost(const char *where)
{
	char m[MARKER_MAX];
	size_t k = marker(m, SIZE_MAX, SIZE_MAX, where);

	return utf8_json_len(m, k, SIZE_MAX);
}

size_t output_fit_cost(const char *buf, size_t len, size_t limit)
{
	return utf8_json_len(buf, len, limit);
}

void output_fit_share(const size_t cost[2], size_t room, size_t share[2])
{
	if (cost[0] <= room && cost[1] <= room - cost[0]) {
		share[0] = cost[0];
		share[1] = cost[1];
	} else if (cost[0] <= room / 2) {
		share[0] = cost[0];
		share[1] = room - cost[0];
	} else if (cost[1] <= room / 2) {
		share[1] = cost[1];
		share[0] = room - cost[1];
	} else {
		share[0] = room / 2;
		share[1] = room - room / 2;
	}
}

/* t moved forward to where one of utf8_sanitize()'s units starts: a byte
 * that is not a continuation byte always does, and so does the fourth of
 * a run of them (no character has more than three). */
static size_t unit_start(const char *buf, size_t len, size_t t)
{
	size_t k;

	for (k = 0; k < 3 && t < len && ((unsigned char)buf[t] & 0xc0) == 0x80;
	     k++)
		t++;
	return t;
}

void output_fit_cut(const char *buf, size_t len, size_t room, const char *where,
		    struct output_cut *c)
{
	size_t m, avail, troom, t, cost;

	c->head = c->tail = len;
	if (output_fit_cost(buf, len, room) <= room)
		return;
	m = marker_cost(where);
	avail = room > m ? room - m : 0;
	c->head = utf8_json_prefix(buf, len, avail / 2);
	troom = avail - utf8_json_len(buf, c->head, SIZE_MAX);
	t = len - c->head > troom ? len - troom : c->head;
	if (t > c->head)
		t = unit_start(buf, len, t);
	/* Each unit costs at most 6 bytes a byte (a control character as
	 * \u00XX): dropping that many bytes from the front never drops
	 * more than needed, bar the step to the next unit. */
	while ((cost = utf8_json_len(buf + t, len - t, SIZE_MAX)) > troom) {
		t += (cost - troom + 5) / 6;
		if (t >= len) {
			t = len;
			break;
		}
		t = unit_start(buf, len, t);
	}
	c->tail = t;
}

int output_fit_is_cut(const struct output_cut *c)
{
	return c->head < c->tail;
}

char *output_fit_text(const char *buf, size_t len, const struct output_cut *c,
		      const char *where)
{
	char mark[MARKER_MAX], *head, *tail, *out = NULL;
	size_t mlen, hl, tl;

	if (!output_fit_is_cut(c))
		return utf8_sanitize(buf, len);
	mlen = marker(mark, c->tail - c->head, c->head, where);
	head = utf8_sanitize(buf, c->head);
	tail = utf8_sanitize(buf + c->tail, len - c->tail);
	if (head && tail) {
		hl = strlen(head);
		tl = strlen(tail);
		out = malloc(hl + mlen + tl + 1);
	}
	if (out) {
		memcpy(out, head, hl);
		memcpy(out + hl, mark, mlen);
		memcpy(out + hl + mlen, tail, tl + 1);
	}
	free(head);
	free(tail);
	return out;
}
