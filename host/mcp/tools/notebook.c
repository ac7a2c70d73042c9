/*
 * notebook.c - a session's history as nbformat 4.5 JSON (notebook.h).
 */
#include "notebook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/json_util.h"
#include "tools.h"
#include "util/log.h"

/* The kernel a notebook of language names, as Jupyter's own kernels for
 * it call themselves: ipykernel, IJavascript, tslab, bash_kernel,
 * gophernotes, evcxr. */
static void kernel(cJSON *meta, const char *language)
{
	static const char *const k[][4] = {
		/* plugin, kernel name, display name, language */
		{"python", "python3", "Python 3", "python"},
		{"python-ml", "python3", "Python 3", "python"},
		{"javascript", "javascript", "JavaScript (Node.js)",
		 "javascript"},
		{"typescript", "tslab", "TypeScript", "typescript"},
		{"bash", "bash", "Bash", "bash"},
		{"go", "gophernotes", "Go", "go"},
		{"rust", "rust", "Rust", "rust"},
	};
	const char *const *row = NULL;
	cJSON *ks, *li;

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(k[i][0], language) == 0)
			row = k[i];
	ks = cJSON_AddObjectToObject(meta, "kernelspec");
	cJSON_AddStringToObject(ks, "name", row ? row[1] : language);
	cJSON_AddStringToObject(ks, "display_name", row ? row[2] : language);
	cJSON_AddStringToObject(ks, "language", row ? row[3] : language);
	li = cJSON_AddObjectToObject(meta, "language_info");
	cJSON_AddStringToObject(li, "name", row ? row[3] : language);
}

/* A kept stream as text: UTF-8, what was left out marked. */
static char *stream_text(const struct history_stream *s)
{
	char *a = utf8_sanitize((const char *)s->p, s->head);
	char *b = utf8_sanitize((const char *)s->p + s->head, s->len - s->head);
	char marker[96] = "", *out = NULL;
	size_t n;

	if (s->skipped)
		snprintf(marker, sizeof(marker),
			 "\n... [%llu bytes not kept in the history] ...\n",
			 (unsigned long long)s->skipped);
	if (a && b) {
		n = strlen(a) + strlen(marker) + strlen(b) + 1;
		out = malloc(n);
		if (out)
			snprintf(out, n, "%s%s%s", a, marker, b);
	}
	free(a);
	free(b);
	return out;
}

static void stream(cJSON *outs, const char *name,
		   const struct history_stream *s)
{
	char *text;
	cJSON *o;

	if (!s->len)
		return;
	text = stream_text(s);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "output_type", "stream");
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "text", text ? text : "");
	cJSON_AddItemToArray(outs, o);
	free(text);
}

static void images(cJSON *outs, const struct history_cell *c)
{
	for (size_t i = 0; i < c->nimg; i++) {
		cJSON *o = cJSON_CreateObject(), *data;
		int is_text;

		cJSON_AddStringToObject(o, "output_type", "display_data");
		data = cJSON_AddObjectToObject(o, "data");
		cJSON_AddItemToObject(data, c->img[i].mime,
				      tool_bytes_string(c->img[i].data,
							c->img[i].len, 0,
							&is_text));
		cJSON_AddObjectToObject(o, "metadata");
		cJSON_AddItemToArray(outs, o);
	}
}

static void error_output(cJSON *outs, const struct history_cell *c)
{
	char ename[32], evalue[96];
	cJSON *o, *tb;

	if (c->timed_out) {
		snprintf(ename, sizeof(ename), "Timeout");
		snprintf(evalue, sizeof(evalue),
			 "stopped at its timeout after %u ms", c->duration_ms);
	} else if (!c->exited) {
		snprintf(ename, sizeof(ename), "Signal");
		snprintf(evalue, sizeof(evalue), "killed by signal %d",
			 c->signal);
	} else if (c->exit_code != 0) {
		snprintf(ename, sizeof(ename), "ExitStatus");
		snprintf(evalue, sizeof(evalue), "exited with status %d",
			 c->exit_code);
	} else {
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "output_type", "error");
	cJSON_AddStringToObject(o, "ename", ename);
	cJSON_AddStringToObject(o, "evalue", evalue);
	tb = cJSON_AddArrayToObject(o, "traceback");
	cJSON_AddItemToArray(tb, cJSON_CreateString(evalue));
	cJSON_AddItemToArray(outs, o);
}

cJSON *notebook_json(const struct history *h, const char *language,
		     const char *session, int64_t now_ms)
{
	cJSON *nb = cJSON_CreateObject(), *meta, *mine, *cells;
	const struct history_cell *c = NULL;
	char id[24], when[40];

	if (!nb)
		return NULL;
	cJSON_AddNumberToObject(nb, "nbformat", 4);
	cJSON_AddNumberToObject(nb, "nbformat_minor", 5);
	meta = cJSON_AddObjectToObject(nb, "metadata");
	kernel(meta, language);
	mine = cJSON_AddObjectToObject(meta, "mcp_sandbox");
	cJSON_AddStringToObject(mine, "session", session);
	cJSON_AddStringToObject(mine, "language", language);
	iso_time_ms(now_ms, when, sizeof(when));
	cJSON_AddStringToObject(mine, "exported", when);
	cJSON_AddNumberToObject(mine, "droppedCells",
				(double)history_dropped(h));
	cells = cJSON_AddArrayToObject(nb, "cells");
	while ((c = history_next(h, c))) {
		cJSON *cell = cJSON_CreateObject(), *cm, *outs;
		char *src = utf8_sanitize(c->code, c->code_len);

		snprintf(id, sizeof(id), "cell-%u", c->count);
		cJSON_AddStringToObject(cell, "id", id);
		cJSON_AddStringToObject(cell, "cell_type", "code");
		cm = cJSON_AddObjectToObject(cell, "metadata");
		iso_time_ms(c->at_ms, when, sizeof(when));
		cJSON_AddStringToObject(cm, "ended", when);
		cJSON_AddNumberToObject(cm, "durationMs", c->duration_ms);
		cJSON_AddNumberToObject(cell, "execution_count", c->count);
		cJSON_AddStringToObject(cell, "source", src ? src : "");
		free(src);
		outs = cJSON_AddArrayToObject(cell, "outputs");
		stream(outs, "stdout", &c->out);
		stream(outs, "stderr", &c->err);
		images(outs, c);
		error_output(outs, c);
		cJSON_AddItemToArray(cells, cell);
	}
	return nb;
}

int notebook_history_cells(const struct history *h,
			   struct notebook_cell **cells, size_t *n)
{
	size_t total = history_cells(h), k = 0;
	struct notebook_cell *out = calloc(total ? total : 1, sizeof(*out));
	const struct history_cell *c = NULL;

	*cells = NULL;
	*n = 0;
	if (!out)
		return -ENOMEM;
	while ((c = history_next(h, c)) && k < total) {
		struct notebook_cell *nc = &out[k++];

		nc->code = utf8_sanitize(c->code, c->code_len);
		nc->failed = c->timed_out || !c->exited || c->exit_code != 0;
		nc->has_out = !c->out.skipped;
		if (nc->has_out && c->out.len)
			nc->out = stream_text(&c->out);
		if (!nc->code || (nc->has_out && c->out.len && !nc->out)) {
			notebook_cells_free(out, k);
			return -ENOMEM;
		}
	}
	*cells = out;
	*n = k;
	return 0;
}

void notebook_cells_free(struct notebook_cell *cells, size_t n)
{
	for (size_t i = 0; cells && i < n; i++) {
		free(cells[i].code);
		free(cells[i].out);
	}
	free(cells);
}

/* A cell's source: a string, or a list of strings joined. */
static char *source_of(const cJSON *src)
{
	const cJSON *it;
	size_t n = 1;
	char *out;

	if (cJSON_IsString(src))
		return strdup(src->valuestring);
	if (!cJSON_IsArray(src))
		return NULL;
	cJSON_ArrayForEach(it, src)
	{
		if (!cJSON_IsString(it))
			return NULL;
		n += strlen(it->valuestring);
	}
	out = malloc(n);
	if (!out)
		return NULL;
	n = 0;
	cJSON_ArrayForEach(it, src)
	{
		size_t k = strlen(it->valuestring);

		memcpy(out + n, it->valuestring, k);
		n += k;
	}
	out[n] = '\0';
	return out;
}

/* What a code cell's outputs say it came to: its stdout's text (NULL: it
 * printed nothing, or the history did not keep it whole) and whether it
 * failed (an `error` output). */
static void outcome_of(const cJSON *outputs, struct notebook_cell *c)
{
	const cJSON *o;
	char *text, *joined;
	int whole = 1;

	cJSON_ArrayForEach(o, outputs)
	{
		const char *type = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(o, "output_type"));
		const char *name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(o, "name"));

		if (type && strcmp(type, "error") == 0)
			c->failed = 1;
		if (!type || strcmp(type, "stream") != 0 || !name ||
		    strcmp(name, "stdout") != 0)
			continue;
		text = source_of(cJSON_GetObjectItemCaseSensitive(o, "text"));
		if (!text)
			continue;
		if (strstr(text, " bytes not kept in the history] ..."))
			whole = 0;
		if (c->out) {
			size_t a = strlen(c->out), b = strlen(text);

			joined = malloc(a + b + 1);
			if (joined) {
				memcpy(joined, c->out, a);
				memcpy(joined + a, text, b + 1);
			}
			free(text);
			text = joined;
		}
		free(c->out);
		c->out = text;
	}
	c->has_out = whole;
	if (!whole) {
		free(c->out);
		c->out = NULL;
	}
}

int notebook_code_cells(const char *json, size_t len, size_t max,
			struct notebook_cell **cells, size_t *n,
			struct error *err)
{
	cJSON *nb = cJSON_ParseWithLength(json, len), *it;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(nb, "cells");
	const cJSON *major = cJSON_GetObjectItemCaseSensitive(nb, "nbformat");
	struct notebook_cell *out = NULL;
	size_t k = 0, total;
	int rc = 0;

	*cells = NULL;
	*n = 0;
	if (!nb || !cJSON_IsArray(list) || !cJSON_IsNumber(major) ||
	    major->valueint != 4) {
		cJSON_Delete(nb);
		return error_set(err, ERR_INVALID_ARGUMENTS,
				 "from_notebook: not a Jupyter notebook "
				 "(nbformat 4 JSON with cells)");
	}
	total = (size_t)cJSON_GetArraySize(list);
	out = calloc(total ? total : 1, sizeof(*out));
	if (!out) {
		cJSON_Delete(nb);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	cJSON_ArrayForEach(it, list)
	{
		const cJSON *type =
			cJSON_GetObjectItemCaseSensitive(it, "cell_type");

		if (rc || !cJSON_IsString(type) ||
		    strcmp(type->valuestring, "code") != 0)
			continue;
		if (k == max) {
			rc = error_set(err, ERR_INVALID_ARGUMENTS,
				       "from_notebook: more than %zu code "
				       "cells",
				       max);
			break;
		}
		out[k].code = source_of(
			cJSON_GetObjectItemCaseSensitive(it, "source"));
		outcome_of(cJSON_GetObjectItemCaseSensitive(it, "outputs"),
			   &out[k]);
		if (!out[k].code) {
			free(out[k].out);
			rc = error_set(err, ERR_INVALID_ARGUMENTS,
				       "from_notebook: cell %zu has no source "
				       "text",
				       k + 1);
		} else {
			k++;
		}
	}
	cJSON_Delete(nb);
	if (rc) {
		notebook_cells_free(out, k);
		return rc;
	}
	*cells = out;
	*n = k;
	return 0;
}
