/*
 * run_result.h - the JSON of one run, built in one place for every front
 * end: sandbox_execute's structuredContent and `mcp-sandbox run --json`
 * print the same object, described by the same schema.
 */
#ifndef SBX_RUN_RESULT_H
#define SBX_RUN_RESULT_H

#include <cjson/cJSON.h>

#include "../core/executor.h"

/* exitCode, signal, stdout, stderr (UTF-8, invalid bytes as U+FFFD),
 * stdoutTruncated, stderrTruncated, timedOut, durationMs, language, phase;
 * with session (not NULL) also session, stateKept and freshState. o must
 * be a run (o->error NULL). Returns a new object the caller owns, or NULL
 * when out of memory. */
cJSON *run_result_json(const struct exec_outcome *o, const char *session);

/* The JSON Schema of that object (the tool's outputSchema); caller owns. */
cJSON *run_result_schema(void);

#endif
