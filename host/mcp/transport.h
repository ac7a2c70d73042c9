/*
 * transport.h - MCP stdio transport: newline-delimited JSON messages.
 *
 * stdin is read on the loop (pipe, tty or regular file) and split into
 * lines with a hard cap; a line over the cap is not kept: its bytes are
 * only scanned, in fixed memory, for the message's top-level "id", and
 * the line is reported with what the scan found. The protocol fd is a private
 * dup of the original stdout, and fd 1 is pointed at stderr so that a stray
 * printf cannot corrupt the stream.
 */
#ifndef SBX_TRANSPORT_H
#define SBX_TRANSPORT_H

#include <stddef.h>
#include <uv.h>

#include "json_util.h"

struct transport;

struct transport_cbs {
	/* One complete line without its newline (NUL-terminated, borrowed). */
	void (*on_line)(struct transport *t, char *line, size_t len, void *arg);
	/* A line of len bytes, longer than the cap, was dropped; scan holds
	 * its id, if one could be found (json_util.h; borrowed for the
	 * call). */
	void (*on_oversize)(struct transport *t, size_t len,
			    struct json_id_scan *scan, void *arg);
	/* stdin reached EOF or failed. */
	void (*on_eof)(struct transport *t, void *arg);
};

/* Call first thing in serve mode: returns a private duplicate of fd 1 for
 * the protocol (close-on-exec) and points fd 1 at stderr, or -errno. */
int transport_guard_stdout(void);

/* Read fd 0, write MCP frames to out_fd (from transport_guard_stdout).
 * Returns 0 or a negative libuv code. */
int transport_open(uv_loop_t *loop, int out_fd, size_t max_line,
		   const struct transport_cbs *cbs, void *arg,
		   struct transport **out);

/* Queue one message: json, len bytes and one more (its NUL, which
 * becomes the newline), allocated with malloc() (cJSON_PrintUnformatted()
 * is), is taken, also on failure. Never blocks the loop when stdout is a
 * pipe. Returns 0 or a negative code. */
int transport_send(struct transport *t, char *json, size_t len);

/* Stop reading stdin (no more callbacks). */
void transport_stop_reading(struct transport *t);

/* Flush queued output, close handles and free; done runs afterwards. */
void transport_close(struct transport *t, void (*done)(void *arg), void *arg);

#endif
