/*
 * agent.h - constants and helpers shared by the agent's modules.
 *
 * The agent is PID 1 of a sandbox container. agent.c owns the event loop
 * and the protocol streams; exec.c runs one execution at a time, reset.c
 * wipes the container between sessions, procs.c reaps and kills processes,
 * spawn.c turns a forked child into an unprivileged user process,
 * capture.c keeps the head and tail of an output stream and log.c writes
 * the log lines.
 */
#ifndef SBX_AGENT_H
#define SBX_AGENT_H

#include <stdint.h>

/* Identity of user code. The image and the --tmpfs options of the host
 * use the same numbers. */
#define AGENT_UID 1000
#define AGENT_GID 1000
#define AGENT_WORKDIR "/work"

/* Monotonic clock in milliseconds. */
uint64_t agent_now_ms(void);

#endif
