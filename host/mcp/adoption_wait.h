/*
 * adoption_wait.h - calls that wait while the previous server's sessions
 * are re-adopted (core/session/session_adopt.c). A tools/call that names
 * a session (or creates one) and a read of a session's file run once that
 * is over, in arrival order: a name is never "not found" only because it
 * was not adopted yet, and a create counts the adopted sessions against
 * the limit. One-off runs and installs do not wait.
 */
#ifndef SBX_ADOPTION_WAIT_H
#define SBX_ADOPTION_WAIT_H

#include <cjson/cJSON.h>

#include "mcp/tools/tools.h"

struct waiting_call;

/* A connection's waiting calls; zeroed is empty. */
struct adoption_wait {
	struct waiting_call *head, **tail;
};

/* A tools/call of t with args (borrowed): 1 when c now waits (it runs
 * from adoption_wait_run, or ends through its cancel hook), 0 when it
 * runs now (nothing to wait for, or no memory to wait). */
int adoption_wait_call(struct adoption_wait *w, const struct tool_env *env,
		       struct mcp_call *c, const struct tool *t,
		       const cJSON *args);

/* A resources/read of uri (a string item, borrowed): the same. */
int adoption_wait_read(struct adoption_wait *w, const struct tool_env *env,
		       struct mcp_call *c, const cJSON *uri);

/* The re-adoption is over: the waiting calls run, in order. */
void adoption_wait_run(struct adoption_wait *w, const struct tool_env *env);

#endif
