/*
 * tool_process.c - sandbox_process: a session's background processes
 * (core/session/session.h, session_spawn() and session_proc(); the agent
 * keeps them, agent/bg.h). docs/processes.md has the rules.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/json_util.h"
#include "tools.h"
#include "util/log.h"

/* logs without max_bytes returns this much at most, and never more than
 * LOGS_MAX: about what a client shows a model in one result. */
#define LOGS_DEFAULT (16u * 1024u)
#define LOGS_MAX (64u * 1024u)
#define WAIT_DEFAULT_MS 30000u
#define WAIT_MAX_MS 300000u

enum { ACT_START, ACT_LIST, ACT_LOGS, ACT_SIGNAL, ACT_WAIT };
static const char *const actions[] = {
	"start", "list", "logs", "signal", "wait", NULL,
};

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{"TERM", SIGTERM}, {"INT", SIGINT},   {"KILL", SIGKILL},
	{"HUP", SIGHUP},   {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},
	{"USR2", SIGUSR2}, {"STOP", SIGSTOP}, {"CONT", SIGCONT},
};
#define NSIGNALS (sizeof(signals) / sizeof(signals[0]))

static cJSON *input_schema(const struct tool_env *env)
{
	const char *names[NSIGNALS + 1];
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;
	char desc[512];
	size_t i;

	for (i = 0; i < NSIGNALS; i++)
		names[i] = signals[i].name;
	names[i] = NULL;
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_enum_prop(props, "action", actions,
		       "start: run command in the background (returns at "
		       "once with its pid); list: the session's processes; "
		       "logs: a process's output; signal: send it a signal; "
		       "wait: until it ends, or timeout.");
	tool_prop(props, "session", "string",
		  "The session (sandbox_session create) whose container runs "
		  "the process.");
	p = tool_prop(props, "command", "string",
		      "start: a shell command (/bin/sh -c) run in /work with "
		      "the session language's environment and packages, e.g. "
		      "\"python3 -m http.server 8000\" or \"node server.js\".");
	cJSON_AddNumberToObject(p, "maxLength", 1024);
	p = tool_prop(props, "pid", "integer",
		      "logs, signal, wait: the process, as start or list "
		      "gave it.");
	cJSON_AddNumberToObject(p, "minimum", 1);
	p = tool_prop(props, "offset", "integer",
		      "logs: read from this byte of its output (the "
		      "nextOffset of the last logs); absent: its last "
		      "max_bytes.");
	cJSON_AddNumberToObject(p, "minimum", 0);
	snprintf(desc, sizeof(desc),
		 "logs: bytes at most (default %u, at most %u). A process "
		 "keeps its last %u bytes of output.",
		 LOGS_DEFAULT, LOGS_MAX, env->cfg->session_process_log_bytes);
	p = tool_prop(props, "max_bytes", "integer", desc);
	cJSON_AddNumberToObject(p, "minimum", 1);
	cJSON_AddNumberToObject(p, "maximum", LOGS_MAX);
	tool_enum_prop(props, "signal", names,
		       "signal: which (default TERM); it goes to the "
		       "process's group, so what it started gets it too.");
	snprintf(desc, sizeof(desc),
		 "wait: milliseconds to wait for the end (default %u, at most "
		 "%u); 0 answers at once.",
		 WAIT_DEFAULT_MS, WAIT_MAX_MS);
	p = tool_prop(props, "timeout", "integer", desc);
	cJSON_AddNumberToObject(p, "minimum", 0);
	cJSON_AddNumberToObject(p, "maximum", WAIT_MAX_MS);
	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("action"));
	cJSON_AddItemToArray(req, cJSON_CreateString("session"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

static cJSON *process_schema(void)
{
	static const char *const fields[][3] = {
		{"pid", "integer", "Its process id in the container."},
		{"command", "string", "The command it runs."},
		{"state", "string",
		 "running, exited (exitCode) or killed (signal)."},
		{"exitCode", "integer", "Its exit status, once exited."},
		{"signal", "string", "The signal that ended it, once killed."},
		{"started", "string", "Start time (ISO 8601, UTC)."},
		{"ended", "string", "End time, once it ended."},
		{"runtimeMs", "integer", "How long it ran, or runs so far."},
		{"outputBytes", "integer",
		 "Bytes of output it wrote in all (stdout and stderr)."},
		{"outputFrom", "integer",
		 "The oldest byte of output still kept (older ones were "
		 "dropped: only the last process_log_bytes are kept)."},
		{"childrenRunning", "boolean",
		 "It ended, but processes it started still run (they are "
		 "stopped by signal, or with the session)."},
		{NULL, NULL, NULL},
	};
	cJSON *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "type", "object");
	tool_add_props(cJSON_AddObjectToObject(s, "properties"), fields);
	return s;
}

static cJSON *output_schema(const struct tool_env *env)
{
	static const char *const extra[][3] = {
		{"output", "string",
		 "logs: the output read (stdout and stderr as they came; "
		 "bytes that are not UTF-8 show as U+FFFD)."},
		{"offset", "integer", "logs: where output starts."},
		{"nextOffset", "integer",
		 "logs: where the next read goes on from."},
		{"dropped", "integer",
		 "logs: bytes between the offset asked for and offset that "
		 "are no longer kept."},
		{"more", "boolean",
		 "logs: more output follows nextOffset already."},
		{"timedOut", "boolean", "wait: it still runs."},
		{"sent", "string", "signal: the signal sent."},
		{"note", "string", "What else to know."},
		{NULL, NULL, NULL},
	};

	(void)env;
	return tool_list_schema("process", "processes", process_schema, extra);
}

static const char *signal_name(uint32_t sig)
{
	for (size_t i = 0; i < NSIGNALS; i++)
		if ((uint32_t)signals[i].sig == sig)
			return signals[i].name;
	return NULL;
}

static cJSON *describe(const struct ap_proc_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	char *label = utf8_sanitize(e->label, e->label_len);
	const char *sig;
	char t[40], buf[16];
	struct timespec ts;
	uint64_t now, end;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
	cJSON_AddNumberToObject(o, "pid", e->pid);
	cJSON_AddStringToObject(o, "command", label ? label : "");
	free(label);
	cJSON_AddStringToObject(o, "state",
				e->state == AP_PST_RUNNING  ? "running"
				: e->state == AP_PST_KILLED ? "killed"
							    : "exited");
	if (e->state == AP_PST_EXITED)
		cJSON_AddNumberToObject(o, "exitCode", e->code);
	if (e->state == AP_PST_KILLED) {
		sig = signal_name(e->code);
		if (!sig) {
			snprintf(buf, sizeof(buf), "%u", e->code);
			sig = buf;
		}
		cJSON_AddStringToObject(o, "signal", sig);
	}
	iso_time_ms((int64_t)e->started_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "started", t);
	end = e->ended_ms ? e->ended_ms : now;
	if (e->ended_ms) {
		iso_time_ms((int64_t)e->ended_ms, t, sizeof(t));
		cJSON_AddStringToObject(o, "ended", t);
	}
	cJSON_AddNumberToObject(
		o, "runtimeMs",
		(double)(end > e->started_ms ? end - e->started_ms : 0));
	cJSON_AddNumberToObject(o, "outputBytes", (double)e->log_end);
	cJSON_AddNumberToObject(o, "outputFrom", (double)e->log_start);
	if (e->flags & AP_PF_GROUP_ALIVE)
		cJSON_AddBoolToObject(o, "childrenRunning", 1);
	return o;
}

/* One call in flight. */
struct proc_call {
	struct mcp_call *mc;
	struct session_proc *sp;
	int action;
	uint64_t offset_asked; /* logs */
	int has_offset;
	uint32_t signal; /* signal */
};

/* logs: the output as text, and where the next read goes on. */
static void add_logs(cJSON *r, const struct proc_call *pc,
		     const struct ap_proc_done *res,
		     const struct ap_proc_entry *e)
{
	size_t n = res->data_len;
	uint64_t next;
	char *text;

	/* A read that stops inside a character ends before it: the next
	 * one gets it whole. */
	if (res->offset + n < e->log_end)
		n -= utf8_cut_tail((const char *)res->data, n);
	next = res->offset + n;
	text = utf8_sanitize(n ? (const char *)res->data : "", n);
	cJSON_AddStringToObject(r, "output", text ? text : "");
	free(text);
	cJSON_AddNumberToObject(r, "offset", (double)res->offset);
	cJSON_AddNumberToObject(r, "nextOffset", (double)next);
	if (pc->has_offset && pc->offset_asked < res->offset)
		cJSON_AddNumberToObject(
			r, "dropped", (double)(res->offset - pc->offset_asked));
	cJSON_AddBoolToObject(r, "more", next < e->log_end);
}

static void done_cb(const struct error *err, const struct ap_proc_done *res,
		    void *arg)
{
	struct proc_call *pc = arg;
	struct mcp_call *mc = pc->mc;
	struct ap_proc_entry e;
	cJSON *r, *list;
	size_t off = 0;

	mcp_call_on_cancel(mc, NULL, NULL);
	if (err) {
		mcp_call_finish_error(mc, err);
		free(pc);
		return;
	}
	r = cJSON_CreateObject();
	if (pc->action == ACT_LIST) {
		list = cJSON_AddArrayToObject(r, "processes");
		while (ap_proc_entry_next(res, &off, &e))
			cJSON_AddItemToArray(list, describe(&e));
	} else if (ap_proc_entry_next(res, &off, &e)) {
		cJSON_AddItemToObject(r, "process", describe(&e));
		if (pc->action == ACT_LOGS)
			add_logs(r, pc, res, &e);
		if (pc->action == ACT_WAIT)
			cJSON_AddBoolToObject(r, "timedOut", res->timed_out);
		if (pc->action == ACT_SIGNAL)
			cJSON_AddStringToObject(r, "sent",
						signal_name(pc->signal));
		if (res->message_len) {
			char *msg =
				utf8_sanitize(res->message, res->message_len);

			cJSON_AddStringToObject(r, "note", msg ? msg : "");
			free(msg);
		}
	}
	mcp_call_finish(mc, tool_ok(mc, r));
	free(pc);
}

static void cancel_cb(void *arg)
{
	struct proc_call *pc = arg;

	session_proc_cancel(pc->sp);
}

static int action_of(const char *s)
{
	for (int i = 0; actions[i]; i++)
		if (strcmp(actions[i], s) == 0)
			return i;
	return -1;
}

/* The AP_PROC of an action other than start and list: 0, or the code
 * with err. */
static int request(const cJSON *args, int action, struct ap_proc *q,
		   struct proc_call *pc, struct error *err)
{
	const cJSON *pid = cJSON_GetObjectItemCaseSensitive(args, "pid");
	const cJSON *off = cJSON_GetObjectItemCaseSensitive(args, "offset");
	const cJSON *max = cJSON_GetObjectItemCaseSensitive(args, "max_bytes");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(args, "signal");
	const cJSON *to = cJSON_GetObjectItemCaseSensitive(args, "timeout");

	memset(q, 0, sizeof(*q));
	if (!cJSON_IsNumber(pid) || pid->valuedouble < 1 ||
	    pid->valuedouble > 4194304)
		return error_set(err, ERR_INVALID_ARGUMENTS, "%s needs pid",
				 actions[action]);
	q->pid = (uint32_t)pid->valuedouble;
	if (action == ACT_LOGS) {
		q->op = AP_POP_LOGS;
		q->length = max ? (uint32_t)max->valuedouble : LOGS_DEFAULT;
		if (off) {
			q->has_offset = 1;
			q->offset = (uint64_t)off->valuedouble;
			pc->has_offset = 1;
			pc->offset_asked = q->offset;
		}
	} else if (action == ACT_SIGNAL) {
		q->op = AP_POP_SIGNAL;
		q->signal = SIGTERM;
		for (size_t i = 0; sig && i < NSIGNALS; i++)
			if (strcmp(signals[i].name, sig->valuestring) == 0)
				q->signal = (uint32_t)signals[i].sig;
		pc->signal = q->signal;
	} else {
		q->op = AP_POP_WAIT;
		q->timeout_ms =
			to ? (uint32_t)to->valuedouble : WAIT_DEFAULT_MS;
	}
	return 0;
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const char *name =
		cJSON_GetObjectItemCaseSensitive(args, "session")->valuestring;
	const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(args, "command");
	int action = action_of(
		cJSON_GetObjectItemCaseSensitive(args, "action")->valuestring);
	struct proc_call *pc;
	struct ap_proc q = {.op = AP_POP_LIST};
	struct session *s;
	struct error err;
	int rc;

	s = tool_find_session(env, mc, name);
	if (!s) {
		tool_no_session(env, mc, name, &err);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (action == ACT_START && (!cmd || !cmd->valuestring[0])) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "start needs a command");
		return;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	pc->mc = mc;
	pc->action = action;
	if (action == ACT_START)
		rc = session_spawn(s, cmd->valuestring, done_cb, pc, &pc->sp,
				   &err);
	else if (action != ACT_LIST && request(args, action, &q, pc, &err))
		rc = err.code;
	else
		rc = session_proc(s, &q, done_cb, pc, &pc->sp, &err);
	if (rc) {
		free(pc);
		mcp_call_finish_error(mc, &err);
		return;
	}
	mcp_call_on_cancel(mc, cancel_cb, pc);
}

const struct tool tool_process = {
	.name = "sandbox_process",
	.title = "Background processes in a session",
	.description =
		"Run a shell command in a session's container in the "
		"background, so that it outlives the call: a web server "
		"the code just wrote, a watcher, a long job. start answers at "
		"once with its pid; logs reads its output (stdout and stderr "
		"together, from an offset or its last bytes); wait waits for "
		"its end; signal stops it (TERM, INT, KILL...); list shows "
		"the session's processes. The session's own calls go on "
		"meanwhile, and nothing it does stops them; destroying the "
		"session (or its expiry) ends them, pause freezes them. The "
		"container still has no network.",
	.input_schema = input_schema,
	.output_schema = output_schema,
	.read_only = 0,
	.destructive = 1,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
