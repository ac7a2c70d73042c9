/* core/session/session_history.c: a session's cells kept in order, their
 * streams cut to their beginning and end, the oldest dropped and counted
 * at the bounds; and mcp/tools/notebook.c: the notebook made of them. */
#include <stdlib.h>
#include <string.h>

#include "core/session/session_history.h"
#include "mcp/tools/notebook.h"
#include "testlib.h"

static struct exec_outcome outcome(const char *out, size_t out_len,
				   int exit_code)
{
	struct exec_outcome o;

	memset(&o, 0, sizeof(o));
	o.exited = 1;
	o.exit_code = exit_code;
	o.out = out;
	o.out_len = out_len;
	o.duration_ms = 7;
	return o;
}

static void t_order_and_streams(void)
{
	struct history *h = history_new();
	struct exec_outcome o = outcome("hi\n", 3, 0);
	const struct history_cell *c;
	size_t big = 3 * HISTORY_STREAM_MAX;
	char *flood = malloc(big);

	if (!h || !flood) {
		CHECK(0);
		free(flood);
		history_free(h);
		return;
	}
	memset(flood, 'a', big);
	flood[0] = 'B';
	flood[big - 1] = 'E';
	CHECK(history_add(h, "print('hi')", 11, &o, 1000) == 0);
	o = outcome(flood, big, 2);
	CHECK(history_add(h, "flood()", 7, &o, 2000) == 0);
	CHECK(history_cells(h) == 2 && history_dropped(h) == 0);
	c = history_next(h, NULL);
	CHECK(c && c->count == 1 && strcmp(c->code, "print('hi')") == 0);
	CHECK(c && c->out.len == 3 && c->out.skipped == 0 &&
	      memcmp(c->out.p, "hi\n", 3) == 0);
	c = c ? history_next(h, c) : NULL;
	CHECK(c && c->count == 2 && c->exit_code == 2);
	/* Its first and last halves, and what was between counted. */
	CHECK(c && c->out.len == HISTORY_STREAM_MAX &&
	      c->out.skipped == big - HISTORY_STREAM_MAX);
	CHECK(c && c->out.p[0] == 'B' && c->out.p[c->out.len - 1] == 'E');
	CHECK(c && !history_next(h, c));
	free(flood);
	history_free(h);
}

static void t_bounds(void)
{
	struct history *h = history_new();
	struct exec_outcome o = outcome("x\n", 2, 0);
	const struct history_cell *c;
	size_t i;

	for (i = 0; i < HISTORY_MAX_CELLS + 25; i++)
		CHECK(history_add(h, "x", 1, &o, (int64_t)i) == 0);
	CHECK(history_cells(h) == HISTORY_MAX_CELLS);
	CHECK(history_dropped(h) == 25);
	c = history_next(h, NULL);
	CHECK(c && c->count == 26); /* the oldest kept */
	history_free(h);
}

static void t_notebook(void)
{
	struct history *h = history_new();
	struct exec_outcome o = outcome("\xff ok\n", 5, 1);
	cJSON *nb, *cells, *cell, *outs;

	CHECK(history_add(h, "bad()", 5, &o, 1000) == 0);
	nb = notebook_json(h, "python", "s1", 2000);
	CHECK(nb != NULL);
	CHECK(cJSON_GetObjectItem(nb, "nbformat")->valueint == 4);
	CHECK(cJSON_GetObjectItem(nb, "nbformat_minor")->valueint == 5);
	cells = cJSON_GetObjectItem(nb, "cells");
	CHECK(cJSON_GetArraySize(cells) == 1);
	cell = cJSON_GetArrayItem(cells, 0);
	CHECK(strcmp(cJSON_GetObjectItem(cell, "id")->valuestring, "cell-1") ==
	      0);
	outs = cJSON_GetObjectItem(cell, "outputs");
	/* Not UTF-8: U+FFFD; a status other than 0: an error output. */
	CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(outs, 0), "text")
			     ->valuestring,
		     "\xef\xbf\xbd ok\n") == 0);
	CHECK(strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(outs, 1),
					 "output_type")
			     ->valuestring,
		     "error") == 0);
	cJSON_Delete(nb);
	/* No history at all: an empty notebook. */
	nb = notebook_json(NULL, "bash", "s2", 2000);
	CHECK(nb && cJSON_GetArraySize(cJSON_GetObjectItem(nb, "cells")) == 0);
	cJSON_Delete(nb);
	history_free(h);
}

int main(void)
{
	t_order_and_streams();
	t_bounds();
	t_notebook();
	return t_summary("session_history");
}
