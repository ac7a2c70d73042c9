/*
 * cmd_run.c - `mcp-sandbox run`: one program run once in a pool
 * container, its output printed and its status the exit status (or its
 * tool result with --json); and `mcp-sandbox blocklist`: what the
 * language's blocklist finds in a program, without an engine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "app.h"
#include "commands.h"
#include "core/engines/engines.h"
#include "core/exec/blocklist.h"
#include "core/exec/executor.h"
#include "mcp/tools/run_result.h"
#include "mcp/tools/tools.h"

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void run_done_cb(const struct error *err, const struct exec_outcome *o,
			void *arg)
{
	struct app *a = arg;

	if (a->stopping)
		return; /* a signal ended it: exit with 128 + signal */
	if (err) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n",
			tool_error_code(err->code), err->msg);
		a->exit_code = 125;
	} else if (a->json) {
		/* One JSON object: the MCP tool's result, built by the same
		 * function. */
		cJSON *r = run_result_json(o, NULL);
		char *text;

		run_result_add_hint(r, &a->plugins, o);
		text = r ? cJSON_PrintUnformatted(r) : NULL;

		if (text)
			puts(text);
		free(text);
		cJSON_Delete(r);
		a->exit_code = o->exited ? o->exit_code : 128 + o->signal;
	} else {
		fflush(stdout);
		write_all(1, o->out, o->out_len);
		write_all(2, o->err, o->err_len);
		for (size_t k = 0; k < o->nblocklist; k++)
			fprintf(stderr,
				"mcp-sandbox: blocklist: line %u, column %u: "
				"%s (`%s`)\n",
				o->blocklist[k].line, o->blocklist[k].column,
				o->blocklist[k].rule->reason,
				o->blocklist[k].match);
		if (o->timed_out)
			fprintf(stderr, "mcp-sandbox: timed out after %u ms\n",
				o->duration_ms);
		a->exit_code = o->exited ? o->exit_code : 128 + o->signal;
	}
	fflush(stdout);
	if (!a->stopping) {
		a->stopping = 1;
		engines_shutdown(a->engines, app_pool_done_cb, a);
	}
}

/* The whole of path ("-": stdin) into *out (NUL-terminated), 64 MiB at
 * most. */
static int read_source(const char *path, char **out, size_t *out_len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	size_t cap = 65536, n, len = 0;
	char *buf;

	if (!f) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(cap + 1);
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *p = cap > (64u << 20) ? NULL
						    : realloc(buf, cap * 2 + 1);

			if (!p) {
				fprintf(stderr,
					"mcp-sandbox: %s is too large\n", path);
				free(buf);
				if (f != stdin)
					fclose(f);
				return -1;
			}
			buf = p;
			cap *= 2;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!buf)
		return -1;
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}

static int run_once(struct app *a, int argc, char **argv)
{
	const char *lang = NULL, *src = NULL, *inline_code = NULL,
		   *stdin_file = NULL;
	struct exec_request req;
	const struct plugin *pl;
	unsigned long timeout = 0;
	int i;

	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			inline_code = argv[++i];
		else if (strcmp(argv[i], "--stdin") == 0 && i + 1 < argc)
			stdin_file = argv[++i];
		else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
			timeout = strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--json") == 0)
			a->json = 1;
		else if (strcmp(argv[i], "-v") == 0)
			continue;
		else if (!lang)
			lang = argv[i];
		else if (!src)
			src = argv[i];
		else {
			cli_usage(stderr);
			return 2;
		}
	}
	if (!lang || (!inline_code && !src)) {
		cli_usage(stderr);
		return 2;
	}
	pl = plugins_find(&a->plugins, lang);
	if (!pl || !pl->policy.enabled) {
		fprintf(stderr, "mcp-sandbox: unknown language '%s'\n", lang);
		return 2;
	}
	if (inline_code) {
		a->code = strdup(inline_code);
		a->code_len = strlen(inline_code);
	} else if (read_source(src, &a->code, &a->code_len)) {
		return 2;
	}
	if (stdin_file &&
	    read_source(stdin_file, &a->stdin_data, &a->stdin_len))
		return 2;
	engines_set_refill(a->engines, 0);
	app_watch_signals(a, app_signal_cb);
	req = (struct exec_request){
		.pl = pl,
		.code = a->code,
		.code_len = a->code_len,
		.stdin_data = a->stdin_data,
		.stdin_len = a->stdin_len,
		.timeout_ms = (uint32_t)timeout,
	};
	a->exit_code = 125;
	if (exec_start(a->loop, a->engines, &req, run_done_cb, a, &a->job))
		return 125;
	uv_run(a->loop, UV_RUN_DEFAULT);
	return a->exit_code;
}

int cmd_run(struct app *a, int argc, char **argv)
{
	int rc;

	if (a->loaded || app_start_engines(a))
		return 1;
	engines_start(a->engines);
	rc = run_once(a, argc, argv);
	app_stop_engines(a);
	return rc;
}

/* mcp-sandbox blocklist LANG [FILE...]: what the language's blocklist
 * (plugin rules and sandbox.ini's, through the plugin's lexer) finds in
 * each file (stdin without one), one line a match, as a compiler prints
 * them. Exit 0 when nothing matches, 1 when something does, 2 on error.
 * Needs no engine: for trying rules and patterns on code. */
int cmd_blocklist(struct app *a, int argc, char **argv)
{
	char *stdin_only[] = {"-", NULL};
	const struct plugin *pl;
	int found = 0;

	if (a->loaded)
		return 2;
	if (argc < 1) {
		cli_usage(stderr);
		return 2;
	}
	pl = plugins_find(&a->plugins, argv[0]);
	if (!pl) {
		fprintf(stderr, "blocklist: no language '%s'\n", argv[0]);
		return 2;
	}
	printf("%s: blocklist = %s, %zu rule(s)\n", pl->desc->name,
	       blocklist_mode_name(pl->policy.blocklist.mode),
	       pl->policy.blocklist.n);
	for (char **f = argc > 1 ? argv + 1 : stdin_only; *f; f++) {
		struct blocklist_hit h[BLOCKLIST_MAX_HITS];
		int n;

		free(a->code);
		a->code = NULL;
		a->code_len = 0;
		if (read_source(*f, &a->code, &a->code_len))
			return 2;
		n = blocklist_scan(&pl->policy.blocklist, a->code, a->code_len,
				   h, BLOCKLIST_MAX_HITS);
		if (n < 0) {
			fprintf(stderr, "blocklist: out of memory\n");
			return 2;
		}
		for (int k = 0; k < n; k++)
			printf("%s:%u:%u: %s (`%s`)\n", *f, h[k].line,
			       h[k].column, h[k].rule->reason, h[k].match);
		found |= n > 0;
	}
	return found;
}
