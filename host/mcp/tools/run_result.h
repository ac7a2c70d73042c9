/*
 * run_result.h - the JSON of one run, built in one place for every front
 * end: sandbox_execute's text result and `mcp-sandbox run --json` print
 * the same object (its fields: README, "What a result holds"), the tool's
 * with its streams fitted into [limits] result_max_tokens (docs/files.md,
 * "Results that fit Claude Code"), the CLI's with them whole.
 */
#ifndef SBX_RUN_RESULT_H
#define SBX_RUN_RESULT_H

#include <cjson/cJSON.h>

#include "core/exec/executor.h"
#include "core/plugins/plugins.h"
#include "output_fit.h"

/* One of a run's two streams, as the result shows it. */
struct run_stream {
	const char *data; /* the bytes captured: over the cap, the agent's
			     beginning, marker and end */
	size_t len;
	uint64_t total; /* bytes the program wrote; UINT64_MAX: not known */
	uint32_t cap;	/* its capture cap (stdout_cap, stderr_cap) */
	int capped;	/* over the cap: its middle is gone */
	struct output_cut cut; /* what the text shows (run_result_fit) */
	const char *uri;       /* data kept as a resource, or NULL */
};

/* stdout and stderr, and what the result says of them. */
struct run_streams {
	struct run_stream s[2]; /* stdout, stderr */
	const char *language;	/* names the settings that raise a cap */
	uint32_t budget;	/* the result's tokens at most (0: none) */
	uint32_t page;	      /* the length a read of the rest is told to ask */
	const char *not_kept; /* why cut streams were not kept, or NULL */
};

/* rs as o's streams (borrowed from o), whole, nothing kept. */
void run_streams_init(struct run_streams *rs, const struct exec_outcome *o);

/* exitCode, signal, stdout, stderr (UTF-8, invalid bytes as U+FFFD),
 * stdoutTruncated, stderrTruncated (with stdoutBytes, stderrBytes and a
 * message when a stream passed its capture cap), timedOut, durationMs,
 * language, phase; with session (not NULL) also session, stateKept and
 * freshState. The streams are whole, up to their caps: what `mcp-sandbox
 * run --json` prints. o must be a run (exec_done_cb's err NULL). Returns
 * a new object the caller owns, or NULL when out of memory. */
cJSON *run_result_json(const struct exec_outcome *o, const char *session);

/* The same with the streams' fields left as placeholders (in their
 * places) for run_result_streams(), which must fill them once. */
cJSON *run_result_base(const struct exec_outcome *o, const char *session);

/* Where to cut rs's streams so that r (from run_result_base, the rest of
 * it final) takes at most 2 * budget bytes once run_result_streams()
 * fills it: a token is counted as 2 bytes of the JSON text (docs/files.md,
 * "Results that fit"). Both streams share what the rest leaves, a quiet
 * one giving its share to a chatty one; each cut one keeps its beginning
 * and end. budget 0: nothing is cut. page: the length a read of the rest
 * is told to ask. Returns 1 when a stream is cut (its bytes are worth
 * keeping: set its uri), else 0. */
int run_result_fit(const cJSON *r, struct run_streams *rs, uint32_t budget,
		   uint32_t page);

/* Fills r's stream fields from rs: stdout and stderr as cut, with the
 * truncation flags, stdoutBytes/stderrBytes (the program's own count)
 * for a stream not shown whole, stdoutUri/stderrUri for one kept, and a
 * message saying what was cut, why, and how to read the rest or raise the
 * cap; unused placeholders go. 0, or -ENOMEM. */
int run_result_streams(cJSON *r, const struct run_streams *rs);

/* hint: one line when a run that failed says, in the end of its stderr,
 * that a module is missing that its language's machine-learning runtime
 * has (plugins_module_elsewhere): "sklearn is in the python-ml runtime,
 * not in python: ...". Added to r, a run_result_base() or run_result_json() of
 * o; set: the loaded plugins. */
void run_result_add_hint(cJSON *r, const struct plugin_set *set,
			 const struct exec_outcome *o);

/* blocklist = warn's matches as the result lists them ({line, column,
 * match, reason, rule}), or NULL when there is none. New. */
cJSON *run_result_blocklist(const struct exec_outcome *o);

/* The signal that ended the program, "SIGKILL", written into buf; NULL
 * when it exited (or no signal is known). */
const char *run_result_signal(const struct exec_outcome *o, char *buf,
			      size_t size);

#endif
