/*
 * agent_tlv.h - the field primitives of the agent protocol, private to
 * common/: agent_ops.c builds and parses every frame's fields with them,
 * and nothing outside common/ includes this header (code elsewhere uses
 * the typed messages of agent_ops.h).
 *
 * A field is u8 tag, u32 len (big-endian), len bytes (agent_proto.h).
 */
#ifndef SBX_AGENT_TLV_H
#define SBX_AGENT_TLV_H

#include <stddef.h>
#include <stdint.h>

#include "agent_proto.h"

/* Building a frame: begin, put fields, end. Each returns 0 or -ENOMEM /
 * -E2BIG (frame over AP_MAX_FRAME). On failure the partial frame is
 * removed; the caller must not call the others for this frame. */
int ap_frame_begin(struct ap_buf *b, uint8_t type, uint32_t id);
int ap_put(struct ap_buf *b, uint8_t tag, const void *data, size_t len);
int ap_put_u32(struct ap_buf *b, uint8_t tag, uint32_t v);
int ap_put_u64(struct ap_buf *b, uint8_t tag, uint64_t v);
int ap_put_u8(struct ap_buf *b, uint8_t tag, uint8_t v);
int ap_frame_end(struct ap_buf *b);
void ap_frame_abort(struct ap_buf *b);

/* One field of a received frame; data points into the frame. */
struct ap_field {
	uint8_t tag;
	const unsigned char *data;
	uint32_t len;
};

/* Iterate fields: *off starts at 0. Returns 1 with *out filled, 0 at the
 * end, -EPROTO on a field that runs past the frame. Never reads outside
 * f->payload[0 .. f->len). */
int ap_next_field(const struct ap_frame *f, size_t *off, struct ap_field *out);
/* The value of a field whose length the caller has checked (4 or 1). */
uint32_t ap_field_u32(const struct ap_field *fl);
uint64_t ap_field_u64(const struct ap_field *fl);
uint8_t ap_field_u8(const struct ap_field *fl);

#endif
