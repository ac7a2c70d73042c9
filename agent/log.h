/*
 * log.h - the agent's log: one line per call on stderr, which reaches the
 * host as log output (never as protocol frames, which use stdout).
 */
#ifndef SBX_AGENT_LOG_H
#define SBX_AGENT_LOG_H

/* Writes "sbx-agent: ", the formatted text (cut at 500 bytes) and a
 * newline in one write(2), so a line is never split. Keep it rare on the
 * hot path. */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
