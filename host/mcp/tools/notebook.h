/*
 * notebook.h - a session's history (core/session/session_history.h) as a
 * Jupyter notebook, nbformat 4.5 (docs/sessions.md, "History and
 * notebooks"): sandbox_session's export.
 */
#ifndef SBX_NOTEBOOK_H
#define SBX_NOTEBOOK_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "core/session/session_history.h"
#include "error.h"

/* The notebook of h for a session (its name as the caller knows it) of
 * language (the plugin's name): kernelspec and language_info of the
 * language (the kernel Jupyter's own for it calls itself), one code cell
 * a call in order with its execution count and id, its outputs as
 * `stream` (stdout, stderr; UTF-8, what the history left out marked),
 * `display_data` (its images) and `error` (an exit status other than 0,
 * a signal, a timeout), and metadata.mcp_sandbox {session, language,
 * exported, droppedCells}. NULL when out of memory. */
cJSON *notebook_json(const struct history *h, const char *language,
		     const char *session, int64_t now_ms);

/* A code cell, and what its outputs say it came to (a replay compares
 * with them). */
struct notebook_cell {
	char *code;  /* NUL-terminated */
	char *out;   /* its stdout's text; NULL: none */
	int has_out; /* 0: the history did not keep its stdout whole */
	int failed;  /* it has an `error` output */
};

/* The code cells of a notebook's JSON text (nbformat 4; a source or a
 * stream's text as a string or a list of strings), in order; markdown and
 * raw cells are skipped. 0 with *cells (free with notebook_cells_free)
 * and *n, or ERR_INVALID_ARGUMENTS with err saying what is wrong (not
 * JSON, not a notebook, more than max cells). */
int notebook_code_cells(const char *json, size_t len, size_t max,
			struct notebook_cell **cells, size_t *n,
			struct error *err);
/* The cells of h as notebook_code_cells() would read them back from
 * notebook_json() (what a fork replays), without the notebook between.
 * 0 or -ENOMEM. */
int notebook_history_cells(const struct history *h,
			   struct notebook_cell **cells, size_t *n);
void notebook_cells_free(struct notebook_cell *cells, size_t n);

#endif
