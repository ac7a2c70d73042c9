/*
 * tasks.c - calls that outlive their request (tasks.h, docs/tasks.md).
 *
 *   task_create -> written (tasks/<id>.json) -> CreateTaskResult sent,
 *   the call starts -> working -> completed | failed | cancelled
 *                                   (written) -> removed at its ttl
 *
 * The call of a task is an ordinary mcp_call in the store's own list: what
 * it would send (its result, a JSON-RPC error, progress) comes to
 * call_send below instead of to a connection, and its end to call_ended.
 */
#include "tasks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/plugins/config.h"
#include "core/tenants/tenants.h"
#include "adoption_wait.h"
#include "json_util.h"
#include "jsonrpc.h"
#include "mcp_version.h"
#include "util/log.h"
#include "util/state_dir.h"

#define LOG_MODULE "tasks"
#define ID_LEN 32 /* hex digits: 128 random bits */
#define FILE_MAX (8u << 20)
#define SWEEP_MS 10000

enum task_status {
	TASK_WORKING,
	TASK_COMPLETED,
	TASK_FAILED,
	TASK_CANCELLED,
};

static const char *const status_names[] = {"working", "completed", "failed",
					   "cancelled"};

struct waiter { /* 2025-11-25's tasks/result, until the task ends */
	struct waiter *next;
	struct task *t;
	struct mcp_call *c;
};

struct task {
	struct task *next;
	struct task_store *ts;
	char id[ID_LEN + 1];
	char tenant[TENANT_NAME_MAX + 1]; /* "" without tenants */
	char tool[32];
	int legacy; /* created in 2025-11-25 (its shapes and rules) */
	enum task_status status;
	char *message;			/* statusMessage, or NULL */
	uint64_t created, updated, ttl; /* ms (wall clock) */
	cJSON *result;			/* completed (or failed by isError) */
	cJSON *error;			/* failed: a JSON-RPC error object */
	struct mcp_call *call;		/* while it runs */
	struct mcp_call *request;	/* tools/call, until it is answered */
	const struct tool *work_tool;	/* what runs once written */
	cJSON *work_args;
	/* 2026-07-28: the call runs before the task is answered; one that
	 * ends within [tasks] sync_ms is answered as a plain result and the
	 * task never shows (tasks_policy_wants). */
	uv_timer_t window;
	int windowed; /* the timer runs: not answered, not written */
	struct waiter *waiters;
	void *origin; /* the connection that created it (task_store_listen) */
	int saving;   /* a write of its file is in flight */
	int again;    /* 1: write it again after that one; 2: remove it */
	int refs;     /* the store's, and each write in flight */
	int gone;     /* removed from the store */
};

struct listener {
	struct listener *next;
	void *origin;
	void (*notify)(void *origin, cJSON *params);
};

struct task_store {
	uv_loop_t *loop;
	struct listener *listeners;
	const struct config *cfg;
	const struct tool_env *env;
	char dir[4096];
	struct task *head;
	struct mcp_call_list calls;
	struct adoption_wait waiting;
	uv_timer_t sweep;
	unsigned saves; /* writes in flight */
	int closed;	/* task_store_close: freed once nothing is */
	int timer_closed;
};

/* ---- time, ids ---- */

static uint64_t wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static cJSON *iso_time(uint64_t ms)
{
	char buf[64];
	time_t s = (time_t)(ms / 1000u);
	struct tm tm;

	gmtime_r(&s, &tm);
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03uZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (unsigned)(ms % 1000u));
	return cJSON_CreateString(buf);
}

static int new_id(char *out)
{
	unsigned char r[ID_LEN / 2];
	size_t i;

	if (uv_random(NULL, NULL, r, sizeof(r), 0, NULL))
		return -EIO;
	for (i = 0; i < sizeof(r); i++)
		sprintf(out + 2 * i, "%02x", r[i]);
	out[ID_LEN] = '\0';
	return 0;
}

static int valid_id(const char *s)
{
	size_t i;

	for (i = 0; i < ID_LEN; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[ID_LEN] == '\0';
}

static const char *tenant_of(const struct tenant *t)
{
	return t ? t->name : "";
}

/* ---- the file of a task ---- */

static cJSON *record(const struct task *t)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "version", 1);
	cJSON_AddStringToObject(o, "id", t->id);
	cJSON_AddStringToObject(o, "tenant", t->tenant);
	cJSON_AddStringToObject(o, "tool", t->tool);
	cJSON_AddBoolToObject(o, "legacy", t->legacy);
	cJSON_AddStringToObject(o, "status", status_names[t->status]);
	if (t->message)
		cJSON_AddStringToObject(o, "statusMessage", t->message);
	cJSON_AddNumberToObject(o, "created", (double)t->created);
	cJSON_AddNumberToObject(o, "updated", (double)t->updated);
	cJSON_AddNumberToObject(o, "ttl", (double)t->ttl);
	/* The server that runs it: another live one's tasks are not ours. */
	cJSON_AddNumberToObject(o, "pid", (double)getpid());
	if (t->result)
		cJSON_AddItemToObject(o, "result",
				      cJSON_Duplicate(t->result, 1));
	if (t->error)
		cJSON_AddItemToObject(o, "error", cJSON_Duplicate(t->error, 1));
	return o;
}

struct save {
	uv_work_t w;
	struct task *t;
	char path[4200], tmp[4200];
	char *text; /* NULL: remove the file */
	int rc;
};

static void task_unref(struct task *t);
static void maybe_free(struct task_store *ts);

/* In the thread pool: the file replaced whole, on disk before rename. */
static void save_work(uv_work_t *w)
{
	struct save *sv = w->data;
	size_t len, off = 0;
	ssize_t n;
	int fd;

	if (!sv->text) {
		sv->rc = unlink(sv->path) && errno != ENOENT ? -errno : 0;
		return;
	}
	fd = open(sv->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		sv->rc = -errno;
		return;
	}
	len = strlen(sv->text);
	while (off < len) {
		n = write(fd, sv->text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sv->rc = n < 0 ? -errno : -EIO;
			close(fd);
			unlink(sv->tmp);
			return;
		}
		off += (size_t)n;
	}
	if (fsync(fd) || close(fd)) {
		sv->rc = -errno;
		unlink(sv->tmp);
		return;
	}
	sv->rc = rename(sv->tmp, sv->path) ? -errno : 0;
}

static void start_work(struct task *t);
static int save(struct task *t, int remove);

static void save_done(uv_work_t *w, int status)
{
	struct save *sv = w->data;
	struct task *t = sv->t;
	struct task_store *ts = t->ts;

	if (sv->rc || status)
		log_warn("task %s: %s %s: %s", t->id,
			 sv->text ? "writing" : "removing", sv->path,
			 strerror(sv->rc ? -sv->rc : EIO));
	free(sv->text);
	free(sv);
	t->saving = 0;
	if (t->request && !ts->closed)
		start_work(t); /* its first write: answer, then run */
	if (t->again) {
		/* The state changed meanwhile: written (or removed) now, so
		 * the file always ends as the task last was. */
		int remove = t->again == 2;

		t->again = 0;
		save(t, remove);
	}
	task_unref(t);
	ts->saves--;
	maybe_free(ts);
}

/* One write of a task's file at a time, whatever the thread pool's size:
 * a change while one is in flight is written after it. 0 (queued, or
 * to follow the one in flight), or -ENOMEM: not written. */
static int save(struct task *t, int remove)
{
	struct save *sv;
	cJSON *o;

	if (t->gone && !remove)
		return 0; /* its file is gone, or going: not written again */
	if (t->saving) {
		if (t->again != 2)
			t->again = remove ? 2 : 1;
		return 0;
	}
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return -ENOMEM;
	snprintf(sv->path, sizeof(sv->path), "%s/%s.json", t->ts->dir, t->id);
	snprintf(sv->tmp, sizeof(sv->tmp), "%s/.%s.tmp", t->ts->dir, t->id);
	if (!remove) {
		o = record(t);
		sv->text = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (!sv->text) {
			free(sv);
			return -ENOMEM;
		}
	}
	sv->t = t;
	sv->w.data = sv;
	t->refs++;
	t->ts->saves++;
	t->saving = 1;
	if (uv_queue_work(t->ts->loop, &sv->w, save_work, save_done)) {
		t->refs--;
		t->ts->saves--;
		t->saving = 0;
		free(sv->text);
		free(sv);
		return -ENOMEM;
	}
	return 0;
}

/* ---- the store's list of tasks ---- */

static void task_free(struct task *t)
{
	free(t->message);
	cJSON_Delete(t->result);
	cJSON_Delete(t->error);
	cJSON_Delete(t->work_args);
	free(t);
}

static void task_unref(struct task *t)
{
	if (--t->refs == 0)
		task_free(t);
}

static void task_remove(struct task *t, int remove_file)
{
	struct task **pp;

	for (pp = &t->ts->head; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	t->gone = 1;
	if (remove_file)
		save(t, 1);
	task_unref(t);
}

static struct task *find(struct task_store *ts, const struct tenant *tenant,
			 const char *id)
{
	struct task *t;

	if (!valid_id(id))
		return NULL;
	for (t = ts->head; t; t = t->next)
		if (strcmp(t->id, id) == 0 &&
		    strcmp(t->tenant, tenant_of(tenant)) == 0 &&
		    wall_ms() < t->created + t->ttl)
			return t;
	return NULL;
}

static void set_message(struct task *t, const char *m)
{
	free(t->message);
	t->message = m ? strdup(m) : NULL;
}

/* ---- how a task looks ---- */

/* The Task object of either era (a new object). */
static cJSON *task_json(const struct task *t, int legacy)
{
	cJSON *o = cJSON_CreateObject();
	enum task_status st = t->status;

	/* 2025-11-25: a tool result with isError is a failed task. */
	if (legacy && st == TASK_COMPLETED && t->result &&
	    cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(t->result, "isError")))
		st = TASK_FAILED;
	cJSON_AddStringToObject(o, "taskId", t->id);
	cJSON_AddStringToObject(o, "status", status_names[st]);
	if (t->message)
		cJSON_AddStringToObject(o, "statusMessage", t->message);
	cJSON_AddItemToObject(o, "createdAt", iso_time(t->created));
	cJSON_AddItemToObject(o, "lastUpdatedAt", iso_time(t->updated));
	cJSON_AddNumberToObject(o, legacy ? "ttl" : "ttlMs", (double)t->ttl);
	if (st == TASK_WORKING)
		cJSON_AddNumberToObject(
			o, legacy ? "pollInterval" : "pollIntervalMs",
			t->ts->cfg->task_poll_ms);
	return o;
}

/* ---- the task's call ---- */

static void wake_waiters(struct task *t);

/* 2025-11-25: the connection that created the task hears of its end. */
static void tell(struct task *t)
{
	struct listener *l;

	if (!t->legacy)
		return;
	for (l = t->ts->listeners; l; l = l->next)
		if (l->origin == t->origin)
			l->notify(l->origin, task_json(t, 1));
}

static void answer_now(struct task *t, enum task_status st);

static void ended(struct task *t, enum task_status st)
{
	if (t->status != TASK_WORKING)
		return; /* cancelled before: what came after is dropped */
	if (t->windowed) {
		answer_now(t, st);
		return;
	}
	t->status = st;
	t->updated = wall_ms();
	save(t, 0);
	tell(t);
	wake_waiters(t);
}

/* A result as the tool made it, not as a response carries it (the
 * revision's resultType and serverInfo): inline in tasks/get, or shaped
 * again for the request that gets it. */
static void unshape(cJSON *r)
{
	cJSON *meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");

	cJSON_DeleteItemFromObjectCaseSensitive(r, "resultType");
	cJSON_DeleteItemFromObjectCaseSensitive(meta, MCP_META_SERVER);
	if (cJSON_IsObject(meta) && !meta->child)
		cJSON_DeleteItemFromObjectCaseSensitive(r, "_meta");
}

static void call_send(void *arg, void *ex, cJSON *msg, enum jsonrpc_kind kind)
{
	struct task *t = ex;
	const cJSON *p, *m;

	(void)arg;
	if (kind == JSONRPC_NOTIFICATION) {
		/* Progress: its message is the task's statusMessage. */
		p = cJSON_GetObjectItemCaseSensitive(msg, "params");
		m = cJSON_GetObjectItemCaseSensitive(p, "message");
		if (cJSON_IsString(m) && t->status == TASK_WORKING) {
			set_message(t, m->valuestring);
			t->updated = wall_ms();
		}
	} else if (kind == JSONRPC_RESULT && t->status == TASK_WORKING) {
		cJSON_Delete(t->result);
		t->result =
			cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
		unshape(t->result);
		ended(t, TASK_COMPLETED);
	} else if (t->status == TASK_WORKING) {
		cJSON_Delete(t->error);
		t->error =
			cJSON_DetachItemFromObjectCaseSensitive(msg, "error");
		ended(t, TASK_FAILED);
	}
	cJSON_Delete(msg);
}

static void call_ended(void *arg, void *ex)
{
	struct task_store *ts = arg;
	struct task *t = ex;

	t->call = NULL;
	/* No answer came: the call was cancelled (tasks/cancel, shutdown). */
	ended(t, TASK_CANCELLED);
	task_unref(t);
	maybe_free(ts);
}

/* Written: the CreateTaskResult goes out, then the call runs. */
static void start_work(struct task *t)
{
	struct mcp_call *req = t->request;
	const struct tool *tool = t->work_tool;
	cJSON *args = t->work_args, *ans;

	t->request = NULL;
	t->work_tool = NULL;
	t->work_args = NULL;
	if (mcp_call_cancelled(req)) {
		/* Its request went (the client cancelled it, or its
		 * connection closed) before the task's id could be told:
		 * nobody can ask for it, so it does not run. */
		struct mcp_call *c = t->call;

		mcp_call_finish(req, cJSON_CreateObject());
		set_message(t, "the request was cancelled before the task's id "
			       "was answered");
		ended(t, TASK_CANCELLED);
		if (c) {
			mcp_call_cancel_ex(&t->ts->calls, t);
			if (tool) /* never started: it ends here */
				mcp_call_finish(c, cJSON_CreateObject());
		}
		cJSON_Delete(args);
		return;
	}
	if (t->legacy) {
		ans = cJSON_CreateObject();
		cJSON_AddItemToObject(ans, "task", task_json(t, 1));
	} else {
		ans = task_json(t, 0);
		cJSON_AddStringToObject(ans, "resultType", "task");
	}
	mcp_call_finish(req, ans);
	if (t->call && tool) /* not started in a window before */
		mcp_call_start(t->ts->env, &t->ts->waiting, t->call, tool,
			       args);
	cJSON_Delete(args);
}

static void window_closed(uv_handle_t *h)
{
	struct task *t = h->data;
	struct task_store *ts = t->ts;

	task_unref(t);
	maybe_free(ts);
}

static void window_end(struct task *t)
{
	t->windowed = 0;
	uv_timer_stop(&t->window);
	uv_close((uv_handle_t *)&t->window, window_closed);
}

/* The call ended within its window: its request gets the result itself,
 * and the task, never answered nor written, goes. */
static void answer_now(struct task *t, enum task_status st)
{
	struct mcp_call *req = t->request;
	const cJSON *code, *msg, *data;

	t->request = NULL;
	t->status = st;
	window_end(t);
	if (st == TASK_COMPLETED && t->result) {
		mcp_call_finish(req, cJSON_Duplicate(t->result, 1));
	} else if (st == TASK_FAILED && t->error) {
		code = cJSON_GetObjectItemCaseSensitive(t->error, "code");
		msg = cJSON_GetObjectItemCaseSensitive(t->error, "message");
		data = cJSON_GetObjectItemCaseSensitive(t->error, "data");
		mcp_call_fail(req,
			      cJSON_IsNumber(code) ? code->valueint
						   : JSONRPC_INTERNAL_ERROR,
			      cJSON_IsString(msg) ? msg->valuestring
						  : "the call failed",
			      data ? cJSON_Duplicate(data, 1) : NULL);
	} else {
		mcp_call_fail(req, JSONRPC_INTERNAL_ERROR,
			      t->message ? t->message
					 : "the call was cancelled",
			      NULL);
	}
	task_remove(t, 0);
}

/* The window is over and the call still runs: now it is a task,
 * written, then answered (start_work). */
static void window_cb(uv_timer_t *h)
{
	struct task *t = h->data;

	window_end(t);
	if (save(t, 0) == 0) {
		log_info("task %s: %s for %s, past %u ms", t->id, t->tool,
			 *t->tenant ? t->tenant : "the client",
			 t->ts->cfg->task_sync_ms);
		return;
	}
	set_message(t, "the task could not be written");
	ended(t, TASK_FAILED); /* not answered: no one can ask */
	mcp_call_finish_errorf(t->request, ERR_SANDBOX,
			       "cannot write the task");
	t->request = NULL;
	if (t->call)
		mcp_call_cancel_ex(&t->ts->calls, t);
	task_remove(t, 0);
}

/* ---- creating one ---- */

int tasks_tool_supported(const char *tool)
{
	return strcmp(tool, "sandbox_execute") == 0 ||
	       strcmp(tool, "sandbox_install") == 0;
}

int tasks_policy_wants(const struct config *cfg, const char *tool,
		       const cJSON *args)
{
	const cJSON *to = cJSON_GetObjectItemCaseSensitive(args, "timeout");
	double timeout;

	if (strcmp(tool, "sandbox_install") == 0)
		return cfg->pkg_timeout_ms > cfg->task_threshold_ms;
	if (strcmp(tool, "sandbox_execute") != 0)
		return 0;
	timeout = cJSON_IsNumber(to) ? to->valuedouble
				     : (double)cfg->limits.timeout_ms;
	return timeout > (double)cfg->task_threshold_ms;
}

static void count(struct task_store *ts, const char *tenant, unsigned *live,
		  unsigned *all, struct task **oldest_done)
{
	struct task *t;

	*live = *all = 0;
	*oldest_done = NULL;
	for (t = ts->head; t; t = t->next) {
		if (strcmp(t->tenant, tenant) != 0)
			continue;
		(*all)++;
		if (t->status == TASK_WORKING)
			(*live)++;
		else if (!*oldest_done || t->created < (*oldest_done)->created)
			*oldest_done = t;
	}
}

static void cancel_task(struct task *t);

/* Tasks past their ttl go: one still working is cancelled first (the
 * client has stopped asking). On the timer, and before every use of the
 * store, so that a ttl is exact. */
static void expire(struct task_store *ts)
{
	uint64_t now = wall_ms();
	struct task **pp, *t;

	/* The store's reference keeps each alive through its cancel. */
	for (t = ts->head; t; t = t->next)
		if (now >= t->created + t->ttl && t->status == TASK_WORKING) {
			set_message(t, "the task's ttl ended while it ran");
			cancel_task(t);
		}
	pp = &ts->head;
	while ((t = *pp)) {
		if (now < t->created + t->ttl) {
			pp = &t->next;
			continue;
		}
		*pp = t->next;
		t->gone = 1;
		save(t, 1);
		task_unref(t);
	}
}

static void sweep_cb(uv_timer_t *h)
{
	expire(h->data);
}

int task_create(struct task_store *ts, struct tenant *tenant,
		const struct tool *tool, const cJSON *args, const char *version,
		uint64_t ttl_ms, struct mcp_call *request, struct error *err)
{
	const struct config *cfg = ts->cfg;
	struct task *t, *old;
	unsigned live, all;

	expire(ts);
	count(ts, tenant_of(tenant), &live, &all, &old);
	if (live >= cfg->task_max_live)
		return error_set(err, ERR_QUOTA_EXCEEDED,
				 "%u tasks are already working (at most %u: "
				 "[tasks] max_live); wait for one to end or "
				 "cancel one (tasks/cancel)",
				 live, cfg->task_max_live);
	if (all >= cfg->task_max_kept && old)
		task_remove(old, 1); /* the oldest that has ended goes */
	t = calloc(1, sizeof(*t));
	if (!t || new_id(t->id) || !(t->work_args = cJSON_Duplicate(args, 1))) {
		free(t);
		return error_set(err, ERR_SANDBOX, "cannot create a task");
	}
	t->ts = ts;
	snprintf(t->tenant, sizeof(t->tenant), "%s", tenant_of(tenant));
	snprintf(t->tool, sizeof(t->tool), "%s", tool->name);
	t->legacy = strcmp(version, MCP_MODERN_VERSION) != 0;
	t->status = TASK_WORKING;
	t->created = t->updated = wall_ms();
	t->ttl = ttl_ms ? ttl_ms : cfg->task_ttl_ms;
	if (t->ttl > cfg->task_max_ttl_ms)
		t->ttl = cfg->task_max_ttl_ms;
	t->call = mcp_call_new(&ts->calls, t, mcp_call_id(request), NULL,
			       version, 0);
	if (!t->call) {
		task_free(t);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	mcp_call_set_tenant(t->call, tenant);
	mcp_call_track_progress(t->call);
	t->refs = 2; /* the store's; the call's, until call_ended */
	t->request = request;
	t->origin = mcp_call_origin(request);
	t->work_tool = tool;
	t->next = ts->head;
	ts->head = t;
	if (!t->legacy && ts->cfg->task_sync_ms) {
		/* Run now; a task only if it outlasts the window. */
		t->windowed = 1;
		t->refs++; /* the timer's, until window_closed */
		uv_timer_init(ts->loop, &t->window);
		t->window.data = t;
		uv_timer_start(&t->window, window_cb, ts->cfg->task_sync_ms, 0);
		t->work_tool = NULL;
		cJSON_Delete(t->work_args);
		t->work_args = NULL;
		mcp_call_start(ts->env, &ts->waiting, t->call, tool, args);
		return 0; /* t may be gone: answered at once */
	}
	if (save(t, 0)) {
		/* Not written, so not answered: it goes, its call unstarted. */
		struct mcp_call *c = t->call;

		t->request = NULL;
		t->status = TASK_CANCELLED;
		mcp_call_cancel_ex(&ts->calls, t);
		mcp_call_finish(c, cJSON_CreateObject());
		task_remove(t, 0);
		return error_set(err, ERR_SANDBOX, "cannot write the task");
	}
	log_info("task %s: %s for %s", t->id, t->tool,
		 *t->tenant ? t->tenant : "the client");
	return 0; /* start_work follows the write */
}

/* ---- the methods ---- */

static void wake_waiters(struct task *t)
{
	struct waiter *w;
	cJSON *r, *meta, *rel;

	while ((w = t->waiters)) {
		t->waiters = w->next;
		mcp_call_on_cancel(w->c, NULL, NULL);
		if (t->status == TASK_FAILED && t->error) {
			const cJSON *code = cJSON_GetObjectItemCaseSensitive(
				t->error, "code");
			const cJSON *msg = cJSON_GetObjectItemCaseSensitive(
				t->error, "message");
			const cJSON *data = cJSON_GetObjectItemCaseSensitive(
				t->error, "data");

			mcp_call_fail(w->c,
				      cJSON_IsNumber(code)
					      ? code->valueint
					      : JSONRPC_INTERNAL_ERROR,
				      cJSON_IsString(msg) ? msg->valuestring
							  : "the task failed",
				      data ? cJSON_Duplicate(data, 1) : NULL);
		} else if (t->status == TASK_CANCELLED || !t->result) {
			mcp_call_fail(w->c, JSONRPC_INVALID_PARAMS,
				      t->status == TASK_CANCELLED
					      ? "the task was cancelled"
					      : "the task ended without a "
						"result",
				      NULL);
		} else {
			r = cJSON_Duplicate(t->result, 1);
			meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");
			if (!cJSON_IsObject(meta))
				meta = cJSON_AddObjectToObject(r, "_meta");
			rel = cJSON_AddObjectToObject(meta, TASKS_RELATED_META);
			cJSON_AddStringToObject(rel, "taskId", t->id);
			mcp_call_finish(w->c, r);
		}
		free(w);
	}
}

static void waiter_cancel_cb(void *arg)
{
	struct waiter *w = arg, **pp;

	for (pp = &w->t->waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	mcp_call_finish_errorf(w->c, ERR_CANCELLED, NULL);
	free(w);
}

static const char *task_id_param(const cJSON *params)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "taskId");

	return cJSON_IsString(id) ? id->valuestring : NULL;
}

void tasks_result_wait(struct task_store *ts, const struct tenant *tenant,
		       const cJSON *params, struct mcp_call *c)
{
	const char *id = task_id_param(params);
	struct task *t;
	struct waiter *w;

	expire(ts);
	t = id ? find(ts, tenant, id) : NULL;
	if (!t) {
		mcp_call_fail(c, JSONRPC_INVALID_PARAMS,
			      id ? "no such task (unknown, expired or not "
				   "yours)"
				 : "tasks/result needs params.taskId (string)",
			      NULL);
		return;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		mcp_call_fail(c, JSONRPC_INTERNAL_ERROR, "out of memory", NULL);
		return;
	}
	w->t = t;
	w->c = c;
	w->next = t->waiters;
	t->waiters = w;
	if (t->status != TASK_WORKING) {
		wake_waiters(t);
		return;
	}
	mcp_call_on_cancel(c, waiter_cancel_cb, w);
}

static void reply_error(struct tasks_reply *r, int code, const char *msg)
{
	r->result = NULL;
	r->code = code;
	snprintf(r->message, sizeof(r->message), "%s", msg);
}

static void cancel_task(struct task *t)
{
	if (t->status != TASK_WORKING)
		return;
	set_message(t, "cancelled by the client");
	ended(t, TASK_CANCELLED);
	if (t->call)
		mcp_call_cancel_ex(&t->ts->calls, t);
}

int tasks_method(struct task_store *ts, const struct tenant *tenant,
		 const char *method, const cJSON *params, const char *version,
		 struct tasks_reply *r)
{
	int legacy = strcmp(version, MCP_MODERN_VERSION) != 0;
	const char *id = task_id_param(params);
	struct task *t;
	cJSON *arr;

	memset(r, 0, sizeof(*r));
	expire(ts);
	if (strcmp(method, "tasks/list") == 0) {
		if (!legacy) {
			reply_error(r, JSONRPC_METHOD_NOT_FOUND,
				    "tasks/list is not part of the tasks "
				    "extension of " MCP_MODERN_VERSION);
			return 1;
		}
		r->result = cJSON_CreateObject();
		arr = cJSON_AddArrayToObject(r->result, "tasks");
		for (t = ts->head; t; t = t->next)
			if (strcmp(t->tenant, tenant_of(tenant)) == 0 &&
			    wall_ms() < t->created + t->ttl)
				cJSON_AddItemToArray(arr, task_json(t, 1));
		return 1;
	}
	if (strcmp(method, "tasks/get") != 0 &&
	    strcmp(method, "tasks/cancel") != 0 &&
	    strcmp(method, "tasks/update") != 0)
		return 0;
	if (legacy && strcmp(method, "tasks/update") == 0)
		return 0;
	if (!id) {
		reply_error(r, JSONRPC_INVALID_PARAMS,
			    "params.taskId (string) is required");
		return 1;
	}
	t = find(ts, tenant, id);
	if (!t) {
		reply_error(r, JSONRPC_INVALID_PARAMS,
			    "no such task (unknown, expired or not yours)");
		return 1;
	}
	if (strcmp(method, "tasks/cancel") == 0) {
		if (legacy && t->status != TASK_WORKING) {
			reply_error(r, JSONRPC_INVALID_PARAMS,
				    "the task has already ended: it cannot be "
				    "cancelled");
			return 1;
		}
		cancel_task(t);
		r->result = legacy ? task_json(t, 1) : cJSON_CreateObject();
		return 1;
	}
	if (strcmp(method, "tasks/update") == 0) {
		/* This server never asks for input: nothing to take. */
		r->result = cJSON_CreateObject();
		return 1;
	}
	r->result = task_json(t, legacy);
	if (!legacy && t->status == TASK_COMPLETED && t->result)
		cJSON_AddItemToObject(r->result, "result",
				      cJSON_Duplicate(t->result, 1));
	else if (!legacy && t->status == TASK_FAILED && t->error)
		cJSON_AddItemToObject(r->result, "error",
				      cJSON_Duplicate(t->error, 1));
	return 1;
}

cJSON *tasks_list_json(struct task_store *ts, const struct tenant *tenant)
{
	cJSON *arr = cJSON_CreateArray(), *o;
	struct task *t;

	expire(ts);
	for (t = ts->head; t; t = t->next) {
		if (strcmp(t->tenant, tenant_of(tenant)) != 0)
			continue;
		o = task_json(t, 0);
		cJSON_AddStringToObject(o, "tool", t->tool);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* ---- opening, expiry, closing ---- */

/* A string member k of o into dst (size n): 0, or -1 when it is not one
 * or does not fit. */
static int str_field(const cJSON *o, const char *k, char *dst, size_t n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= n)
		return -1;
	snprintf(dst, n, "%s", v->valuestring);
	return 0;
}

static int num_field(const cJSON *o, const char *k, uint64_t *dst)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
	    !json_safe_integer(v->valuedouble))
		return -1;
	*dst = (uint64_t)v->valuedouble;
	return 0;
}

/* The file of a task a server that is gone left behind (another live
 * server's are left alone): read back; a call that was working ended
 * with that server. */
static void load_one(struct task_store *ts, const char *name, uint64_t now)
{
	char path[4200];
	const cJSON *v;
	struct task *t;
	cJSON *o = NULL;
	char *text = NULL;
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", ts->dir, name);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fstat(fileno(f), &st) == 0 && st.st_size > 0 &&
	    (size_t)st.st_size < FILE_MAX &&
	    (text = malloc((size_t)st.st_size + 1)) &&
	    fread(text, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
		text[st.st_size] = '\0';
		o = cJSON_Parse(text);
	}
	fclose(f);
	free(text);
	v = cJSON_GetObjectItemCaseSensitive(o, "pid");
	if (cJSON_IsNumber(v) && v->valueint != getpid() &&
	    kill((pid_t)v->valueint, 0) == 0) {
		cJSON_Delete(o); /* a live server's */
		return;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !cJSON_IsObject(o))
		goto bad;
	if (str_field(o, "id", t->id, sizeof(t->id)) ||
	    str_field(o, "tenant", t->tenant, sizeof(t->tenant)) ||
	    str_field(o, "tool", t->tool, sizeof(t->tool)) ||
	    num_field(o, "created", &t->created) ||
	    num_field(o, "updated", &t->updated) ||
	    num_field(o, "ttl", &t->ttl))
		goto bad;
	if (!valid_id(t->id) || strncmp(name, t->id, ID_LEN) != 0)
		goto bad;
	t->ts = ts;
	t->refs = 1;
	t->legacy = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "legacy"));
	v = cJSON_GetObjectItemCaseSensitive(o, "status");
	for (t->status = TASK_WORKING; t->status <= TASK_CANCELLED; t->status++)
		if (cJSON_IsString(v) &&
		    strcmp(v->valuestring, status_names[t->status]) == 0)
			break;
	if (t->status > TASK_CANCELLED)
		goto bad;
	v = cJSON_GetObjectItemCaseSensitive(o, "statusMessage");
	if (cJSON_IsString(v))
		t->message = strdup(v->valuestring);
	t->result = cJSON_DetachItemFromObjectCaseSensitive(o, "result");
	t->error = cJSON_DetachItemFromObjectCaseSensitive(o, "error");
	cJSON_Delete(o);
	if (now >= t->created + t->ttl) {
		unlink(path);
		task_free(t);
		return;
	}
	t->next = ts->head;
	ts->head = t;
	if (t->status == TASK_WORKING) {
		t->status = TASK_FAILED;
		t->updated = now;
		set_message(t, "the server that ran this task stopped before "
			       "it ended (a restart): its call ended with it");
		t->error = cJSON_CreateObject();
		cJSON_AddNumberToObject(t->error, "code",
					JSONRPC_INTERNAL_ERROR);
		cJSON_AddStringToObject(t->error, "message", t->message);
		log_info("task %s: ended by the server's restart", t->id);
	}
	save(t, 0); /* ours now */
	return;
bad:
	cJSON_Delete(o);
	if (t)
		task_free(t);
	log_warn("%s: not a task file of this server: left alone", path);
}

int task_store_open(uv_loop_t *loop, const struct config *cfg,
		    const char *state_dir, struct task_store **out,
		    struct error *err)
{
	struct task_store *ts = calloc(1, sizeof(*ts));
	uint64_t now = wall_ms();
	struct dirent *de;
	DIR *d;
	int rc;

	if (!ts)
		return error_set(err, -ENOMEM, "out of memory");
	rc = state_dir_subdir(state_dir, "tasks", ts->dir, sizeof(ts->dir));
	if (rc) {
		free(ts);
		return error_set(err, rc, "the tasks directory: %s",
				 strerror(-rc));
	}
	ts->loop = loop;
	ts->cfg = cfg;
	ts->calls.out.send = call_send;
	ts->calls.out.ended = call_ended;
	ts->calls.out.arg = ts;
	d = opendir(ts->dir);
	while (d && (de = readdir(d)))
		if (strlen(de->d_name) == ID_LEN + 5 &&
		    strcmp(de->d_name + ID_LEN, ".json") == 0)
			load_one(ts, de->d_name, now);
	if (d)
		closedir(d);
	uv_timer_init(loop, &ts->sweep);
	ts->sweep.data = ts;
	uv_timer_start(&ts->sweep, sweep_cb, SWEEP_MS, SWEEP_MS);
	uv_unref((uv_handle_t *)&ts->sweep);
	*out = ts;
	return 0;
}

void task_store_set_env(struct task_store *ts, const struct tool_env *env)
{
	ts->env = env;
}

void task_store_listen(struct task_store *ts, void *origin,
		       void (*notify)(void *origin, cJSON *params))
{
	struct listener *l;

	if (!ts || !(l = calloc(1, sizeof(*l))))
		return;
	l->origin = origin;
	l->notify = notify;
	l->next = ts->listeners;
	ts->listeners = l;
}

void task_store_unlisten(struct task_store *ts, void *origin)
{
	struct listener **pp, *l;
	struct task *t;

	if (!ts)
		return;
	/* Its address may be another connection's next: forgotten. */
	for (t = ts->head; t; t = t->next)
		if (t->origin == origin)
			t->origin = NULL;
	pp = &ts->listeners;
	while ((l = *pp)) {
		if (l->origin == origin) {
			*pp = l->next;
			free(l);
		} else {
			pp = &l->next;
		}
	}
}

void task_store_adopted(struct task_store *ts)
{
	if (ts)
		adoption_wait_run(&ts->waiting, ts->env);
}

void task_store_stop(struct task_store *ts)
{
	struct task *t;

	if (!ts)
		return;
	for (t = ts->head; t; t = t->next) {
		if (t->status != TASK_WORKING)
			continue;
		set_message(t, "the server stopped before the task ended");
		cJSON_Delete(t->error);
		t->error = cJSON_CreateObject();
		cJSON_AddNumberToObject(t->error, "code",
					JSONRPC_INTERNAL_ERROR);
		cJSON_AddStringToObject(t->error, "message", t->message);
		ended(t, TASK_FAILED);
		if (t->call)
			mcp_call_cancel_ex(&ts->calls, t);
	}
}

static void maybe_free(struct task_store *ts)
{
	struct task *t;

	/* A call still running at the end (the shutdown's deadline) keeps
	 * it: the process exits anyway. */
	if (!ts->closed || !ts->timer_closed || ts->saves || ts->calls.n)
		return;
	while ((t = ts->head)) {
		ts->head = t->next;
		task_unref(t);
	}
	while (ts->listeners)
		task_store_unlisten(ts, ts->listeners->origin);
	free(ts);
}

static void sweep_closed(uv_handle_t *h)
{
	struct task_store *ts = h->data;

	ts->timer_closed = 1;
	maybe_free(ts);
}

void task_store_close(struct task_store *ts)
{
	if (!ts)
		return;
	task_store_stop(ts);
	ts->closed = 1;
	uv_timer_stop(&ts->sweep);
	uv_close((uv_handle_t *)&ts->sweep, sweep_closed);
}
