/*
 * tasks.h - calls that outlive their request (docs/tasks.md): the MCP tasks
 * of both eras, the 2025-11-25 experimental `tasks` capability and the
 * 2026-07-28 extension io.modelcontextprotocol/tasks.
 *
 * A task is a tools/call whose answer the server keeps instead of sending:
 * the request gets the task's id at once, and the client asks for the
 * state (tasks/get), the result (inline, or 2025's tasks/result), or the
 * end (tasks/cancel). The store is the server's, not a connection's: over
 * HTTP every request may come on its own connection. Each task is a file
 * in <state_dir>/tasks/ from before its id is answered until its ttl ends,
 * so a restarted server still answers for it (a call the restart ended is
 * "failed", with the reason).
 */
#ifndef SBX_MCP_TASKS_H
#define SBX_MCP_TASKS_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "mcp_call.h"
#include "error.h"

#define TASKS_EXTENSION "io.modelcontextprotocol/tasks"
#define TASKS_RELATED_META "io.modelcontextprotocol/related-task"
/* The 2025-11-25 revision, the only one of its era with tasks. */
#define TASKS_LEGACY_VERSION "2025-11-25"

struct config;
struct task_store;
struct tenant;
struct tool;
struct tool_env;

/* The store of this server: state_dir's tasks/ read (tasks a server that
 * is gone left working end "failed"), a timer that removes expired ones.
 * 0, or -errno with err. */
int task_store_open(uv_loop_t *loop, const struct config *cfg,
		    const char *state_dir, struct task_store **out,
		    struct error *err);
/* The tools' environment its calls run in (which holds the store). */
void task_store_set_env(struct task_store *ts, const struct tool_env *env);
/* The sessions' re-adoption is over: task calls that waited for it run. */
void task_store_adopted(struct task_store *ts);
/* The shutdown begins: working tasks end "failed" (the server stopped),
 * written down, and their calls are cancelled. */
void task_store_stop(struct task_store *ts);
/* The end: stopped, and freed once its writes and calls are over. */
void task_store_close(struct task_store *ts);

/* 1 if a call of the tool named tool with args should run as a task when
 * the client allows it (2026-07-28: the server decides): sandbox_execute
 * with a timeout above [tasks] threshold_ms, sandbox_install when an
 * install may take longer than that. */
int tasks_policy_wants(const struct config *cfg, const char *tool,
		       const cJSON *args);
/* 1 if the tool may run as a task at all (2025-11-25's taskSupport
 * "optional"). */
int tasks_tool_supported(const char *tool);

/* A new task for a call of tool with args (borrowed), owned by tenant
 * (NULL: none), in the era of version, kept ttl_ms (0: the default; at
 * most [tasks] max_ttl_ms). request is the tools/call's own call (of the
 * connection's list): once the task is written it finishes with the
 * CreateTaskResult, and the tool runs in a call of the store's. 0, or an
 * error in err (ERR_QUOTA_EXCEEDED: [tasks] max_live; request is then
 * the caller's to finish). */
int task_create(struct task_store *ts, struct tenant *tenant,
		const struct tool *tool, const cJSON *args, const char *version,
		uint64_t ttl_ms, struct mcp_call *request, struct error *err);

/* A connection that hears of its 2025-11-25 tasks' changes
 * (notifications/tasks/status): notify(origin, params) with the Task
 * (taken), for a task that a request of that connection created. origin
 * is the connection (mcp_call_origin of its calls); a connection listens
 * once it creates such a task, and stops at task_store_unlisten, before
 * it is freed. */
void task_store_listen(struct task_store *ts, void *origin,
		       void (*notify)(void *origin, cJSON *params));
void task_store_unlisten(struct task_store *ts, void *origin);

/* tasks/get, tasks/list, tasks/cancel, tasks/update as the era of
 * version has them: reply is filled with the result or the JSON-RPC
 * error the connection sends; tenant is the caller's (NULL: none). 1
 * when method is one of them. (tasks/result: tasks_result_wait.) */
struct tasks_reply {
	cJSON *result; /* a result object (the caller's), or NULL */
	int code;      /* else an error */
	char message[200];
};
int tasks_method(struct task_store *ts, const struct tenant *tenant,
		 const char *method, const cJSON *params, const char *version,
		 struct tasks_reply *reply);
/* 2025-11-25's tasks/result: finishes c now (the task has ended) or when
 * it ends. The caller has checked the method. */
void tasks_result_wait(struct task_store *ts, const struct tenant *tenant,
		       const cJSON *params, struct mcp_call *c);

/* sandbox_inspect: the tenant's tasks, newest first (a new array). */
cJSON *tasks_list_json(struct task_store *ts, const struct tenant *tenant);

#endif
