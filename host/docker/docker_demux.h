/*
 * docker_demux.h - Docker's multiplexed attach stream, parsed. A non-TTY
 * attach or exec carries frames: an 8-byte header {stream, 0, 0, 0, length
 * as a big-endian u32}, then length payload bytes. Pure: no I/O and no
 * allocation; payload is handed out in place, so a frame split across reads
 * comes out in several pieces and a length of 4 GiB costs nothing.
 */
#ifndef SBX_DOCKER_DEMUX_H
#define SBX_DOCKER_DEMUX_H

#include <stddef.h>
#include <stdint.h>

#define DOCKER_DEMUX_HEADER_LEN 8

struct docker_demux {
	unsigned char hdr[DOCKER_DEMUX_HEADER_LEN]; /* one split across reads */
	size_t hdr_len;
	uint32_t left;	  /* payload bytes of the current frame to come */
	int fd;		  /* the current frame's: 1 or 2 */
	int daemon_error; /* the current frame is stream 3 */
	int bad_stream;	  /* the stream byte of a bad header, else -1 */
};

/* One piece of a frame's payload. */
struct docker_demux_piece {
	int fd;		  /* 1 stdout (stream 0, stdin echoed, counts as
			     stdout, as in Docker's own client), 2 stderr */
	int daemon_error; /* stream 3: the daemon's own error text, on fd 2 */
	const char *data; /* points into the input; never empty */
	size_t len;
};

void docker_demux_init(struct docker_demux *dm);

/*
 * Takes bytes from *p (*n of them), advancing both. Returns 1 with the next
 * payload piece in *out, 0 once the input is used up (empty frames yield
 * nothing), or -EPROTO on a header naming no stream 0-3; then bad_stream
 * holds its first byte and every later call fails the same way.
 */
int docker_demux_next(struct docker_demux *dm, const char **p, size_t *n,
		      struct docker_demux_piece *out);

/* 1 when the input so far ends inside a frame (its header or its payload):
 * the stream was cut short if it ends there. */
int docker_demux_partial(const struct docker_demux *dm);

#endif
