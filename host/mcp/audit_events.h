/*
 * audit_events.h - a tools/call's event in the audit log
 * (core/records/audit.h): the one place that knows what each tool's event
 * carries. What the call asks for is taken from its arguments when it
 * starts; what it came to from typed values its tool hands over as it
 * answers (an install's result, a run's outcome, an error), never from
 * the text of its result.
 */
#ifndef SBX_AUDIT_EVENTS_H
#define SBX_AUDIT_EVENTS_H

#include <cjson/cJSON.h>

#include "mcp/tools/tools.h"

struct audit;
struct tenant;
struct exec_outcome;
struct install_result;

/* What a tools/call of tool asks for, by tenant t (NULL: none): the
 * tool, the language by its plugin's name, the session, action and
 * path, a hash of the code (the code itself with store_code), the
 * packages. A new event. */
cJSON *audit_events_call(const struct tool_env *env, const struct tenant *t,
			 const struct tool *tool, const cJSON *args);

/* The call's packages were installed (res->entry set): the destinations
 * the egress proxy refused, a violation. */
void audit_events_install(cJSON *ev, const struct install_result *res);

/* The call's program ended (o->error NULL): the outcome ("exit N",
 * timed_out, oom_killed, seccomp_kill, a signal), a violation for a limit
 * hit or a blocklist match (blocklist = warn), truncated output. */
void audit_events_run(cJSON *ev, const struct exec_outcome *o);

/* How a call ended. */
enum audit_events_end {
	AUDIT_END_ANSWERED,  /* a result, or the tool's error */
	AUDIT_END_PROTOCOL,  /* a JSON-RPC error instead of a result */
	AUDIT_END_CANCELLED, /* the client withdrew it */
};

/* The call ended as how says; e: the tool's error when it answered with
 * one (else NULL); egress_refused: that error came from an install whose
 * egress proxy refused a destination (install.h), a violation. ev is
 * completed and written to a (taken). */
void audit_events_end(struct audit *a, cJSON *ev, enum audit_events_end how,
		      const struct error *e, int egress_refused);

#endif
