/*
 * session_history.h - what a session ran, cell by cell (docs/sessions.md,
 * "History and notebooks"; mcp/tools/notebook.h makes a Jupyter notebook
 * of it).
 *
 * Every call of a session that ran (sandbox_execute with `session`) is a
 * cell: its code, its output (stdout and stderr, each kept to
 * HISTORY_STREAM_MAX: its beginning and its end), the images it made that
 * were read back, how it ended and how long it took. A session keeps its
 * last HISTORY_MAX_CELLS cells and at most HISTORY_MAX_BYTES of them;
 * older ones are dropped first and counted. Pure: no I/O.
 */
#ifndef SBX_SESSION_HISTORY_H
#define SBX_SESSION_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "core/exec/executor.h"

#define HISTORY_MAX_CELLS 500
#define HISTORY_MAX_BYTES ((size_t)4 << 20)
#define HISTORY_STREAM_MAX ((size_t)64 * 1024)
#define HISTORY_IMAGES_MAX 8

/* A stream as kept: its first and last bytes (len in all), and how many
 * were left out between them (0: it is whole). */
struct history_stream {
	unsigned char *p;
	size_t len;
	size_t head; /* p[0..head) came first, p[head..len) last */
	uint64_t skipped;
};

struct history_cell {
	uint32_t count; /* its execution count: the session's call number */
	char *code;	/* NUL-terminated (as sent; not checked for UTF-8) */
	size_t code_len;
	struct history_stream out, err;
	int exited, exit_code, signal, timed_out;
	uint32_t duration_ms;
	int64_t at_ms; /* Unix ms it ended */
	struct {
		const char *mime; /* static */
		unsigned char *data;
		size_t len;
	} img[HISTORY_IMAGES_MAX];
	size_t nimg;
	size_t bytes; /* what it holds, for HISTORY_MAX_BYTES */
	struct history_cell *next;
};

struct history;

struct history *history_new(void);
void history_free(struct history *h);
/* Record a call: its code (code_len bytes) and what it came to; copied.
 * 0 or -ENOMEM (nothing recorded). */
int history_add(struct history *h, const char *code, size_t code_len,
		const struct exec_outcome *o, int64_t at_ms);
/* The cells in order: first with prev NULL; NULL at the end. */
const struct history_cell *history_next(const struct history *h,
					const struct history_cell *prev);
/* Cells held, and cells dropped for room since the session began. */
size_t history_cells(const struct history *h);
uint64_t history_dropped(const struct history *h);

#endif
