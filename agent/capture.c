/*
 * capture.c - head + ring-buffer tail of one output stream.
 *
 * Stream byte i < hcap lives at data[i]; byte i >= hcap lives at
 * data[hcap + (i - hcap) % tcap]. Until the cap is reached that is plain
 * linear storage, after it the tail wraps.
 */
#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_FMT "\n... [%llu bytes truncated] ...\n"

int capture_init(struct capture *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	/* malloc(0) may return NULL; keep one byte so NULL means failure. */
	c->data = malloc(cap ? cap : 1);
	if (!c->data)
		return -ENOMEM;
	c->cap = cap;
	c->hcap = cap / 2;
	return 0;
}

void capture_close(struct capture *c)
{
	free(c->data);
	memset(c, 0, sizeof(*c));
}

void capture_add(struct capture *c, const void *buf, size_t n)
{
	const unsigned char *p = buf;
	size_t tcap = c->cap - c->hcap;
	size_t off, k;

	while (n) {
		if (c->total < c->hcap) {
			off = (size_t)c->total;
			k = c->hcap - off;
		} else {
			if (tcap == 0) {
				c->total += n;
				return;
			}
			/* Bytes that the rest of this chunk would overwrite
			 * in the ring anyway are only counted. */
			if (n > tcap) {
				c->total += n - tcap;
				p += n - tcap;
				n = tcap;
			}
			off = c->hcap + (size_t)((c->total - c->hcap) % tcap);
			k = c->cap - off;
		}
		if (k > n)
			k = n;
		memcpy(c->data + off, p, k);
		c->total += k;
		p += k;
		n -= k;
	}
}

int capture_truncated(const struct capture *c)
{
	return c->total > c->cap;
}

size_t capture_render(const struct capture *c, unsigned char *out)
{
	size_t tcap = c->cap - c->hcap;
	size_t keep, o, pos, k;
	uint64_t start;
	char mark[64];
	int mlen;

	if (c->total <= c->cap) {
		memcpy(out, c->data, (size_t)c->total);
		return (size_t)c->total;
	}
	/* Size the marker for the largest count it could show, then keep
	 * that much less of the tail: the result never exceeds the cap. */
	mlen = snprintf(mark, sizeof(mark), MARK_FMT,
			(unsigned long long)(c->total - c->hcap));
	if (mlen < 0 || (size_t)mlen >= tcap) {
		keep = tcap; /* cap too small for a marker */
		mlen = 0;
	} else {
		keep = tcap - (size_t)mlen;
		mlen = snprintf(
			mark, sizeof(mark), MARK_FMT,
			(unsigned long long)(c->total - c->hcap - keep));
	}
	memcpy(out, c->data, c->hcap);
	o = c->hcap;
	memcpy(out + o, mark, (size_t)mlen);
	o += (size_t)mlen;
	if (!keep)
		return o;
	start = c->total - keep;
	pos = c->hcap + (size_t)((start - c->hcap) % tcap);
	k = c->cap - pos;
	if (k > keep)
		k = keep;
	memcpy(out + o, c->data + pos, k);
	memcpy(out + o + k, c->data + c->hcap, keep - k);
	return o + keep;
}
