/*
 * snapshots.h - sandbox_session's actions that carry a session's state
 * elsewhere (snapshots.c; docs/sessions.md, "Snapshots, restore and
 * fork" and "History and notebooks"): snapshot, restore, fork, snapshots,
 * delete_snapshot, and create {from_notebook}. tool_session.c checks the
 * names and the tenant's quota, then hands the call over here; each ends
 * the call, now or later.
 */
#ifndef SBX_SNAPSHOTS_H
#define SBX_SNAPSHOTS_H

#include <stdint.h>

#include "core/session/session.h"
#include "tools.h"

/* A session as sandbox_session describes it (tool_session.c). */
cJSON *tool_session_json(const struct mcp_call *mc, const struct session *s);

/* create {from_notebook}: a new session (qname NULL: a generated name)
 * runs the notebook's code cells (its JSON text, or an artifact's uri),
 * stopping at the first that fails. */
void snapshots_from_notebook(const struct tool_env *env, struct mcp_call *mc,
			     const struct plugin *pl, const char *qname,
			     uint32_t ttl_s, const char *nb);
/* snapshot: the session's files, package sets and history, kept. */
void snapshots_take(const struct tool_env *env, struct mcp_call *mc,
		    struct session *s, const char *label);
/* restore: a new session (qname NULL: generated) from snapshot id, its
 * history replayed unless replay is 0; force takes a snapshot of
 * another plugin version or image all the same. */
void snapshots_restore(const struct tool_env *env, struct mcp_call *mc,
		       const char *id, const char *qname, uint32_t ttl_s,
		       int replay, int force);
/* fork: snapshot s, restore it as qname, drop the snapshot. */
void snapshots_fork(const struct tool_env *env, struct mcp_call *mc,
		    struct session *s, const char *qname, uint32_t ttl_s);
/* snapshots: the caller's, newest first. */
void snapshots_list(const struct tool_env *env, struct mcp_call *mc);
/* delete_snapshot. */
void snapshots_delete(const struct tool_env *env, struct mcp_call *mc,
		      const char *id);

#endif
