/*
 * capture.h - bounded capture of one output stream: the first half of the
 * cap is kept as it arrives, the last half in a ring, so a runaway program
 * shows both how it started and how it ended.
 */
#ifndef SBX_CAPTURE_H
#define SBX_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

struct capture {
	unsigned char *data; /* head [0, hcap) then tail ring [hcap, cap) */
	size_t cap;	     /* bytes returned at most */
	size_t hcap;	     /* cap / 2 */
	uint64_t total;	     /* bytes seen, kept or not */
};

/* Allocates the whole cap up front so that adding can never fail once
 * the child runs. Returns 0 or -ENOMEM. */
int capture_init(struct capture *c, size_t cap);
void capture_close(struct capture *c);
void capture_add(struct capture *c, const void *p, size_t n);
int capture_truncated(const struct capture *c);
/* Writes the kept bytes to out, which must hold c->cap bytes; when bytes
 * were dropped a marker line "\n... [N bytes truncated] ...\n" sits between
 * head and tail and the result still fits in the cap. Returns the length. */
size_t capture_render(const struct capture *c, unsigned char *out);

#endif
