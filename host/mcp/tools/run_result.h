/*
 * run_result.h - the JSON of one run, built in one place for every front
 * end: sandbox_execute's text result and `mcp-sandbox run --json` print
 * the same object (its fields: README, "What a result holds").
 */
#ifndef SBX_RUN_RESULT_H
#define SBX_RUN_RESULT_H

#include <cjson/cJSON.h>

#include "core/exec/executor.h"
#include "core/plugins/plugins.h"

/* exitCode, signal, stdout, stderr (UTF-8, invalid bytes as U+FFFD),
 * stdoutTruncated, stderrTruncated, timedOut, durationMs, language, phase;
 * with session (not NULL) also session, stateKept and freshState. o must
 * be a run (exec_done_cb's err NULL). Returns a new object the caller owns, or
 * NULL when out of memory. */
cJSON *run_result_json(const struct exec_outcome *o, const char *session);

/* hint: one line when a run that failed says, in the end of its stderr,
 * that a module is missing that its language's machine-learning runtime
 * has (plugins_module_elsewhere): "sklearn is in the python-ml runtime,
 * not in python: ...". Added to r, a run_result_json() of o; set: the
 * loaded plugins. */
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
