/*
 * session_history.c - a session's cells (session_history.h).
 */
#include "session_history.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/media.h"

struct history {
	struct history_cell *head, *tail;
	size_t n, bytes;
	uint32_t count;
	uint64_t dropped;
};

struct history *history_new(void)
{
	return calloc(1, sizeof(struct history));
}

static void cell_free(struct history_cell *c)
{
	free(c->code);
	free(c->out.p);
	free(c->err.p);
	for (size_t i = 0; i < c->nimg; i++)
		free(c->img[i].data);
	free(c);
}

void history_free(struct history *h)
{
	struct history_cell *c, *next;

	if (!h)
		return;
	for (c = h->head; c; c = next) {
		next = c->next;
		cell_free(c);
	}
	free(h);
}

/* Keep p[0..n): whole, or its first and last HISTORY_STREAM_MAX / 2. */
static int keep(struct history_stream *s, const char *p, size_t n)
{
	size_t half = HISTORY_STREAM_MAX / 2;

	if (!p)
		n = 0;
	s->len = n <= HISTORY_STREAM_MAX ? n : HISTORY_STREAM_MAX;
	s->head = n <= HISTORY_STREAM_MAX ? n : half;
	s->skipped = n - s->len;
	s->p = malloc(s->len ? s->len : 1);
	if (!s->p)
		return -ENOMEM;
	if (s->head)
		memcpy(s->p, p, s->head);
	if (s->len > s->head)
		memcpy(s->p + s->head, p + n - (s->len - s->head),
		       s->len - s->head);
	return 0;
}

/* Drop the oldest cells until there is room for one of bytes. */
static void make_room(struct history *h, size_t bytes)
{
	struct history_cell *c;

	while (h->head && (h->n >= HISTORY_MAX_CELLS ||
			   h->bytes + bytes > HISTORY_MAX_BYTES)) {
		c = h->head;
		h->head = c->next;
		if (!h->head)
			h->tail = NULL;
		h->n--;
		h->bytes -= c->bytes;
		h->dropped++;
		cell_free(c);
	}
}

/* The images the call made and the server read back, as many as fit. */
static void keep_images(struct history_cell *c, const struct exec_outcome *o)
{
	const char *mime;
	uint32_t w, ht;

	for (size_t i = 0; i < o->nartifacts && c->nimg < HISTORY_IMAGES_MAX;
	     i++) {
		const struct exec_artifact *a = &o->artifacts[i];

		if (!a->data || !a->image ||
		    media_image_info(a->data, a->len, &mime, &w, &ht) != 0 ||
		    c->bytes + a->len > HISTORY_MAX_BYTES / 4)
			continue;
		c->img[c->nimg].data = malloc(a->len ? a->len : 1);
		if (!c->img[c->nimg].data)
			return;
		memcpy(c->img[c->nimg].data, a->data, a->len);
		c->img[c->nimg].len = a->len;
		c->img[c->nimg].mime = mime;
		c->bytes += a->len;
		c->nimg++;
	}
}

int history_add(struct history *h, const char *code, size_t code_len,
		const struct exec_outcome *o, int64_t at_ms)
{
	struct history_cell *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->code = malloc(code_len + 1);
	if (!c->code || keep(&c->out, o->out, o->out_len) ||
	    keep(&c->err, o->err, o->err_len)) {
		cell_free(c);
		return -ENOMEM;
	}
	if (code_len)
		memcpy(c->code, code, code_len);
	c->code[code_len] = '\0';
	c->code_len = code_len;
	c->count = ++h->count;
	c->exited = o->exited;
	c->exit_code = o->exit_code;
	c->signal = o->signal;
	c->timed_out = o->timed_out;
	c->duration_ms = o->duration_ms;
	c->at_ms = at_ms;
	c->bytes = sizeof(*c) + code_len + c->out.len + c->err.len;
	keep_images(c, o);
	make_room(h, c->bytes);
	if (h->tail)
		h->tail->next = c;
	else
		h->head = c;
	h->tail = c;
	h->n++;
	h->bytes += c->bytes;
	return 0;
}

const struct history_cell *history_next(const struct history *h,
					const struct history_cell *prev)
{
	if (!h)
		return NULL;
	return prev ? prev->next : h->head;
}

size_t history_cells(const struct history *h)
{
	return h ? h->n : 0;
}

uint64_t history_dropped(const struct history *h)
{
	return h ? h->dropped : 0;
}
