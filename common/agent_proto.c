/*
 * agent_proto.c - frames and fields: the output buffer, the frame writer
 * and reader, the field iterator. The typed messages on top are in
 * agent_ops.c.
 */
#include "agent_proto.h"
#include "agent_tlv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
	       ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

void ap_buf_init(struct ap_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void ap_buf_close(struct ap_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void ap_buf_consume(struct ap_buf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		b->frame_start = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->frame_start = b->frame_start > n ? b->frame_start - n : 0;
}

/* Make room for n more bytes; the buffer never grows past what one frame
 * plus what is already queued needs. */
int ap_buf_reserve(struct ap_buf *b, size_t n)
{
	size_t want, ncap;
	unsigned char *p;

	if (n > (size_t)AP_MAX_FRAME * 2 || b->len > SIZE_MAX - n)
		return -E2BIG;
	want = b->len + n;
	if (want <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < want)
		ncap *= 2;
	p = realloc(b->data, ncap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = ncap;
	return 0;
}

int ap_buf_append(struct ap_buf *b, const void *data, size_t n)
{
	int rc = ap_buf_reserve(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
}

int ap_frame_begin(struct ap_buf *b, uint8_t type, uint32_t id)
{
	unsigned char h[AP_HEADER_LEN];

	b->frame_start = b->len;
	put_be32(h, 0);
	h[4] = type;
	put_be32(h + 5, id);
	return ap_buf_append(b, h, sizeof(h));
}

void ap_frame_abort(struct ap_buf *b)
{
	b->len = b->frame_start;
}

int ap_put(struct ap_buf *b, uint8_t tag, const void *data, size_t len)
{
	unsigned char h[5];
	int rc;

	if (len > AP_MAX_FRAME ||
	    b->len - b->frame_start + 5 + len > AP_MAX_FRAME + 4) {
		ap_frame_abort(b);
		return -E2BIG;
	}
	h[0] = tag;
	put_be32(h + 1, (uint32_t)len);
	rc = ap_buf_append(b, h, sizeof(h));
	if (!rc)
		rc = ap_buf_append(b, data, len);
	if (rc)
		ap_frame_abort(b);
	return rc;
}

int ap_put_u32(struct ap_buf *b, uint8_t tag, uint32_t v)
{
	unsigned char p[4];

	put_be32(p, v);
	return ap_put(b, tag, p, sizeof(p));
}

int ap_put_u64(struct ap_buf *b, uint8_t tag, uint64_t v)
{
	unsigned char p[8];

	put_be32(p, (uint32_t)(v >> 32));
	put_be32(p + 4, (uint32_t)v);
	return ap_put(b, tag, p, sizeof(p));
}

int ap_put_u8(struct ap_buf *b, uint8_t tag, uint8_t v)
{
	return ap_put(b, tag, &v, 1);
}

int ap_frame_end(struct ap_buf *b)
{
	size_t n = b->len - b->frame_start - 4;

	if (n > AP_MAX_FRAME) {
		ap_frame_abort(b);
		return -E2BIG;
	}
	put_be32(b->data + b->frame_start, (uint32_t)n);
	b->frame_start = b->len;
	return 0;
}

void ap_reader_init(struct ap_reader *r)
{
	ap_buf_init(&r->in);
	r->consumed = 0;
}

void ap_reader_close(struct ap_reader *r)
{
	ap_buf_close(&r->in);
	r->consumed = 0;
}

int ap_reader_feed(struct ap_reader *r, const void *data, size_t len)
{
	/* Frames handed out before are no longer referenced: compact first. */
	if (r->consumed) {
		ap_buf_consume(&r->in, r->consumed);
		r->consumed = 0;
	}
	return ap_buf_append(&r->in, data, len);
}

int ap_reader_next(struct ap_reader *r, struct ap_frame *f)
{
	size_t avail = r->in.len - r->consumed;
	const unsigned char *p;
	uint32_t n;

	/* Nothing fed yet: data is NULL, and NULL + 0 is undefined. */
	if (avail < 4)
		return 0;
	p = r->in.data + r->consumed;
	n = get_be32(p);
	if (n > AP_MAX_FRAME || n < AP_HEADER_LEN - 4)
		return -EPROTO;
	if (avail - 4 < n)
		return 0;
	f->type = p[4];
	f->id = get_be32(p + 5);
	f->payload = p + AP_HEADER_LEN;
	f->len = n - (AP_HEADER_LEN - 4);
	r->consumed += 4 + (size_t)n;
	return 1;
}

int ap_next_field(const struct ap_frame *f, size_t *off, struct ap_field *out)
{
	uint32_t n;

	if (*off >= f->len)
		return 0;
	if (f->len - *off < 5)
		return -EPROTO;
	n = get_be32(f->payload + *off + 1);
	if (n > f->len - *off - 5)
		return -EPROTO;
	out->tag = f->payload[*off];
	out->len = n;
	out->data = f->payload + *off + 5;
	*off += 5 + (size_t)n;
	return 1;
}

uint32_t ap_field_u32(const struct ap_field *fl)
{
	return fl->len == 4 ? get_be32(fl->data) : 0;
}

uint64_t ap_field_u64(const struct ap_field *fl)
{
	if (fl->len != 8)
		return 0;
	return (uint64_t)get_be32(fl->data) << 32 | get_be32(fl->data + 4);
}

uint8_t ap_field_u8(const struct ap_field *fl)
{
	return fl->len == 1 ? fl->data[0] : 0;
}
