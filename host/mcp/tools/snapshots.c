/*
 * snapshots.c - sandbox_session's snapshot, restore, fork, snapshots,
 * delete_snapshot and create {from_notebook} (snapshots.h).
 *
 * A snapshot is the session's /work as a tar (core/session/session_tar.c,
 * GNU tar in the container), its package sets by key and its history as
 * a notebook (notebook.h), kept by core/records/snapshot_store.h. A
 * restore makes a new session of the same language, gives it the sets
 * the cache still has, unpacks the tar into its /work (checking the
 * tar's hash as it goes: a snapshot that does not match leaves no
 * session) and, where the language keeps variables, runs the history's
 * cells again in order, reporting the cells whose stdout or success
 * differ from what they were (restoredBy "replay"; "files" without
 * one). Docker 20.10 cannot checkpoint a container's memory; see
 * docs/sessions.md.
 */
#include "snapshots.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/packages/pkg_cache.h"
#include "core/records/artifact_store.h"
#include "core/records/snapshot_store.h"
#include "core/session/session_history.h"
#include "docker/container.h"
#include "mcp/json_util.h"
#include "notebook.h"
#include "resources.h"
#include "util/log.h"

#define LOG_MODULE "sessions"

#define NOTEBOOK_MAX_BYTES (16u << 20)
#define NOTEBOOK_MAX_CELLS 500
/* Cells whose replay differed that an answer names (the rest counted). */
#define DIFFERS_MAX 20
/* What a difference shows of each side. */
#define DIFF_TEXT_MAX 300
/* Unpacking: bytes written ahead of what the engine has taken. */
#define TAR_AHEAD ((size_t)4 << 20)

static const char *owner_of(const struct mcp_call *mc)
{
	const struct tenant *t = mcp_call_tenant(mc);

	return t ? t->name : NULL;
}

/* ---- cells run into a session, in order ------------------------------ */

struct cells_run;
typedef void (*cells_done_fn)(struct cells_run *r, struct session *s,
			      const struct error *err);

struct cells_run {
	const struct tool_env *env;
	struct mcp_call *mc;
	char qname[SESSION_QNAME_MAX + 1];
	struct notebook_cell *cells;
	size_t n, i;
	/* 0: stop at the first cell that fails (from_notebook); 1: run
	 * them all and compare each with what it came to (a replay). */
	int replay;
	struct session_call *running;
	cJSON *failed;
	cJSON *differs;
	size_t ndiffer;
	cells_done_fn done;
	void *arg;
};

static void run_free(struct cells_run *r)
{
	notebook_cells_free(r->cells, r->n);
	cJSON_Delete(r->failed);
	cJSON_Delete(r->differs);
	free(r);
}

static void run_next(struct cells_run *r, struct session *s);

static char *clip(const char *p, size_t n)
{
	return utf8_sanitize(p ? p : "", n > DIFF_TEXT_MAX ? DIFF_TEXT_MAX : n);
}

/* A replayed cell against what it came to the first time. */
static void compare(struct cells_run *r, const struct notebook_cell *c,
		    const struct error *err, const struct exec_outcome *o)
{
	int failed = err || !o->exited || o->exit_code != 0;
	char *got = NULL, *a, *b;
	const char *why = NULL;
	cJSON *d;

	if (failed != c->failed) {
		why = failed ? "it failed this time" : "it failed then";
	} else if (c->has_out && !err) {
		got = utf8_sanitize(o->out ? o->out : "", o->out_len);
		if (got && strcmp(got, c->out ? c->out : "") != 0)
			why = "stdout";
	}
	if (why) {
		r->ndiffer++;
		if (r->ndiffer <= DIFFERS_MAX) {
			d = cJSON_CreateObject();
			cJSON_AddNumberToObject(d, "cell", (double)r->i + 1);
			cJSON_AddStringToObject(d, "what", why);
			a = clip(c->out, c->out ? strlen(c->out) : 0);
			b = err ? strdup(err->msg)
				: clip(o->out, o->out ? o->out_len : 0);
			cJSON_AddStringToObject(d, "then", a ? a : "");
			cJSON_AddStringToObject(d, "now", b ? b : "");
			free(a);
			free(b);
			cJSON_AddItemToArray(r->differs, d);
		}
	}
	free(got);
}

static void cell_cb(const struct error *err, const struct exec_outcome *o,
		    void *arg)
{
	struct cells_run *r = arg;
	struct session *s = session_find(r->env->sessions, r->qname);
	struct error gone;
	size_t tail;
	char *text;

	r->running = NULL;
	if (!s) { /* destroyed, lost, or the server stopping */
		if (!err)
			error_set(&gone, ERR_SESSION_DESTROYED,
				  "the session went while its cells ran");
		r->done(r, NULL, err ? err : &gone);
		return;
	}
	if (err && err->code == ERR_CANCELLED) {
		r->done(r, s, err);
		return;
	}
	if (r->replay) {
		compare(r, &r->cells[r->i], err, o);
		r->i++;
		run_next(r, s);
		return;
	}
	if (err || !o->exited || o->exit_code != 0) {
		r->failed = cJSON_CreateObject();
		cJSON_AddNumberToObject(r->failed, "cell", (double)r->i + 1);
		if (err) {
			cJSON_AddStringToObject(r->failed, "error", err->msg);
		} else {
			if (o->exited)
				cJSON_AddNumberToObject(r->failed, "exitCode",
							o->exit_code);
			else
				cJSON_AddNumberToObject(r->failed, "signal",
							o->signal);
			/* How it ended: the end of its stderr. */
			tail = o->err_len > 2000 ? 2000 : o->err_len;
			text = utf8_sanitize(
				o->err ? o->err + o->err_len - tail : "", tail);
			cJSON_AddStringToObject(r->failed, "stderr",
						text ? text : "");
			free(text);
		}
		r->done(r, s, NULL);
		return;
	}
	r->i++;
	run_next(r, s);
}

static void run_cancel_cb(void *arg)
{
	struct cells_run *r = arg;

	if (r->running)
		session_call_cancel(r->running);
}

static void run_next(struct cells_run *r, struct session *s)
{
	struct exec_request req = {0};
	struct error err;

	if (r->i == r->n) {
		r->done(r, s, NULL);
		return;
	}
	req.pl = session_plugin(s);
	req.code = r->cells[r->i].code;
	req.code_len = strlen(r->cells[r->i].code);
	if (session_exec(s, &req, cell_cb, r, &r->running, &err)) {
		if (r->replay) {
			r->done(r, s, &err);
			return;
		}
		r->failed = cJSON_CreateObject();
		cJSON_AddNumberToObject(r->failed, "cell", (double)r->i + 1);
		cJSON_AddStringToObject(r->failed, "error", err.msg);
		r->done(r, s, NULL);
	}
}

/* A replay the session stopped taking (err: why, not a cancel): the cell
 * it stopped at is said among the differences; what ran stays. */
static void run_stopped(struct cells_run *r, const struct error *err)
{
	cJSON *d;

	if (!err || err->code == ERR_CANCELLED || !r->differs)
		return;
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "cell", (double)r->i + 1);
	cJSON_AddStringToObject(d, "what", err->msg);
	cJSON_AddItemToArray(r->differs, d);
	r->ndiffer++;
}

/* Run r's cells into s; r->done ends it. */
static void run_start(struct cells_run *r, struct session *s)
{
	struct session_info in;

	session_info(s, &in);
	snprintf(r->qname, sizeof(r->qname), "%s", in.name);
	if (r->replay && !r->differs)
		r->differs = cJSON_CreateArray();
	mcp_call_on_cancel(r->mc, run_cancel_cb, r);
	run_next(r, s);
}

/* ---- create {from_notebook} ------------------------------------------ */

struct from_nb {
	struct cells_run run;
	const struct plugin *pl;
	char qname[SESSION_QNAME_MAX + 1]; /* "": a generated one */
	uint32_t ttl_s;
};

static void nb_done(struct cells_run *r, struct session *s,
		    const struct error *err)
{
	struct from_nb *x = (struct from_nb *)r;
	cJSON *result, *f;

	mcp_call_on_cancel(r->mc, NULL, NULL);
	if (!s) {
		mcp_call_finish_error(r->mc, err);
		run_free(r);
		return;
	}
	if (err && !x->run.failed) { /* cancelled: said as the cell's */
		x->run.failed = cJSON_CreateObject();
		cJSON_AddNumberToObject(x->run.failed, "cell",
					(double)r->i + 1);
		cJSON_AddStringToObject(x->run.failed, "error", err->msg);
	}
	result = cJSON_CreateObject();
	cJSON_AddItemToObject(result, "session", tool_session_json(r->mc, s));
	f = cJSON_AddObjectToObject(result, "fromNotebook");
	cJSON_AddNumberToObject(f, "cells", (double)r->n);
	cJSON_AddNumberToObject(f, "ran", (double)r->i);
	if (r->failed) {
		cJSON_AddItemToObject(f, "failed", r->failed);
		r->failed = NULL;
	}
	mcp_call_finish(r->mc, tool_ok(r->mc, result));
	run_free(r);
}

static void nb_created_cb(struct session *s, const struct error *err, void *arg)
{
	struct cells_run *r = arg;

	if (err) {
		mcp_call_finish_error(r->mc, err);
		run_free(r);
		return;
	}
	run_start(r, s);
}

/* The notebook's text is in: its cells, then the session. */
static void nb_start(struct from_nb *x, const char *json, size_t len)
{
	struct error err;

	if (notebook_code_cells(json, len, NOTEBOOK_MAX_CELLS, &x->run.cells,
				&x->run.n, &err) ||
	    session_create(x->run.env->sessions, x->pl,
			   x->qname[0] ? x->qname : NULL, x->ttl_s, NULL,
			   nb_created_cb, &x->run, &err)) {
		mcp_call_finish_error(x->run.mc, &err);
		run_free(&x->run);
	}
}

static void nb_read_cb(const struct error *err, const unsigned char *data,
		       size_t len, uint64_t size, int eof, void *arg)
{
	struct from_nb *x = arg;

	(void)size;
	if (err || !eof) {
		mcp_call_finish_errorf(
			x->run.mc, err ? err->code : ERR_TOO_LARGE,
			"from_notebook: %s",
			err ? err->msg : "the notebook is over 16 MiB");
		run_free(&x->run);
		return;
	}
	nb_start(x, (const char *)data, len);
}

void snapshots_from_notebook(const struct tool_env *env, struct mcp_call *mc,
			     const struct plugin *pl, const char *qname,
			     uint32_t ttl_s, const char *nb)
{
	struct from_nb *x = calloc(1, sizeof(*x));
	char id[ARTIFACT_ID_LEN + 1], key[ARTIFACT_KEY_MAX + 1];
	char *path = NULL;
	int kind;

	if (!x) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	x->run.env = env;
	x->run.mc = mc;
	x->run.done = nb_done;
	x->pl = pl;
	x->ttl_s = ttl_s;
	if (qname)
		snprintf(x->qname, sizeof(x->qname), "%s", qname);
	kind = resources_artifact(nb, id, &path);
	if (kind == 0) {
		nb_start(x, nb, strlen(nb));
		return;
	}
	if (kind < 0 || !env->artifacts) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "from_notebook: not an artifact's uri, "
				       "or no artifacts are kept here");
		free(path);
		run_free(&x->run);
		return;
	}
	/* A tenant's set is "<tenant>.<id>" in the store (tenants.h). */
	tool_qualify(mcp_call_tenant(mc), id, key, sizeof(key));
	if (artifact_store_read(env->artifacts, key, path, 0,
				NOTEBOOK_MAX_BYTES, nb_read_cb, x)) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		run_free(&x->run);
	}
	free(path);
}

/* ---- describing a snapshot ------------------------------------------- */

static cJSON *snapshot_json(const struct snapshot *sn)
{
	cJSON *o = cJSON_CreateObject(), *arr;
	const cJSON *m = sn->meta;
	char t[40], uri[sizeof(RESOURCES_SNAPSHOT_PREFIX) + SNAPSHOT_ID_LEN];
	size_t i;
	static const char *const fields[] = {
		"label", "session", "language", "image", NULL,
	};

	cJSON_AddStringToObject(o, "id", sn->id);
	if (sn->corrupt) {
		cJSON_AddBoolToObject(o, "corrupt", 1);
		return o;
	}
	for (i = 0; fields[i]; i++) {
		const char *v = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(m, fields[i]));

		if (v)
			cJSON_AddStringToObject(o, fields[i], v);
	}
	iso_time_ms(sn->created_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "created", t);
	iso_time_ms(sn->expires_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "expires", t);
	cJSON_AddNumberToObject(o, "bytes", (double)sn->tar_bytes);
	cJSON_AddNumberToObject(
		o, "cells",
		cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(m, "cells")));
	cJSON_AddBoolToObject(o, "keepsMemory",
			      cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				      m, "keepsMemory")));
	arr = cJSON_AddArrayToObject(o, "packages");
	for (i = 0; arr && i < sn->npkg; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(sn->pkgs[i]));
	snprintf(uri, sizeof(uri), RESOURCES_SNAPSHOT_PREFIX "%s", sn->id);
	cJSON_AddStringToObject(o, "uri", uri);
	return o;
}

void snapshots_list(const struct tool_env *env, struct mcp_call *mc)
{
	const char *owner = owner_of(mc);
	const struct snapshot *sn = NULL;
	cJSON *result = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(result, "snapshots");
	int64_t now = (int64_t)time(NULL) * 1000;

	while (env->snapshots &&
	       (sn = snapshot_store_next(env->snapshots, sn))) {
		if (strcmp(sn->owner, owner ? owner : "") != 0 ||
		    (!sn->corrupt && sn->expires_ms <= now))
			continue;
		cJSON_AddItemToArray(arr, snapshot_json(sn));
	}
	mcp_call_finish(mc, tool_ok(mc, result));
}

static int no_store(const struct tool_env *env, struct mcp_call *mc)
{
	if (env->snapshots)
		return 0;
	mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
			       "no snapshots are kept here (no state "
			       "directory, or [snapshots] total_mb is 0)");
	return 1;
}

void snapshots_delete(const struct tool_env *env, struct mcp_call *mc,
		      const char *id)
{
	struct error err;
	cJSON *result;

	if (no_store(env, mc))
		return;
	if (snapshot_store_delete(env->snapshots, owner_of(mc), id, &err)) {
		mcp_call_finish_error(mc, &err);
		return;
	}
	result = cJSON_CreateObject();
	cJSON_AddStringToObject(result, "deletedSnapshot", id);
	mcp_call_finish(mc, tool_ok(mc, result));
}

/* ---- restore --------------------------------------------------------- */

struct restore {
	const struct tool_env *env;
	struct mcp_call *mc;
	char id[SNAPSHOT_ID_LEN + 1];
	char qname[SESSION_QNAME_MAX + 1]; /* "": generated; then the new */
	uint32_t ttl_s;
	int replay, force;
	const struct plugin *pl;
	struct engine *on;
	char image_id[160]; /* as the snapshot has it */
	char pkgs[SNAPSHOT_MAX_PACKAGES][PKG_KEY_LEN + 1];
	size_t npkg;
	uint64_t bytes;
	struct snapshot_reader *rd;
	struct session_tar *tar;
	int reading, eof, tar_over;
	struct error why; /* the first failure: the tar's hash, a cancel */
	int failed;
	/* tar's own failure, told once the rest of the tar matched its hash
	 * (a damaged tar usually stops tar first: that is snapshot_corrupt) */
	struct error tar_why;
	int tar_failed;
	int cancelled;	    /* the call was cancelled: each step looks */
	char container[80]; /* the session made for it */
	struct cells_run *run;
	cJSON *missing;
};

static void restore_free(struct restore *x)
{
	snapshot_reader_free(x->rd);
	if (x->run)
		run_free(x->run);
	cJSON_Delete(x->missing);
	free(x);
}

static void restore_fail(struct restore *x, const struct error *err)
{
	mcp_call_on_cancel(x->mc, NULL, NULL);
	mcp_call_finish_error(x->mc, err);
	restore_free(x);
}

/* The half-made session goes: nothing of a failed restore stays. */
static void restore_undo(struct restore *x, const struct error *err)
{
	struct session *s =
		x->qname[0] ? session_find(x->env->sessions, x->qname) : NULL;
	struct session_info in;

	if (s) {
		session_info(s, &in);
		/* Not another of the same name made meanwhile. */
		if (in.container_id &&
		    strcmp(in.container_id, x->container) == 0)
			session_destroy(s);
	}
	restore_fail(x, err);
}

/* The call was cancelled while a step was on its way: 1 when the restore
 * ends here. */
static int restore_cancelled(struct restore *x, int undo)
{
	struct error err;

	if (!x->cancelled)
		return 0;
	error_set(&err, ERR_CANCELLED, "the restore was cancelled");
	if (undo)
		restore_undo(x, &err);
	else
		restore_fail(x, &err);
	return 1;
}

/* What a restore or a fork came to: restoredBy, bytes, the replay. */
static void replay_json(cJSON *r, struct cells_run *run, uint64_t bytes)
{
	cJSON_AddStringToObject(r, "restoredBy",
				run && run->n ? "replay" : "files");
	cJSON_AddNumberToObject(r, "bytes", (double)bytes);
	cJSON_AddNumberToObject(r, "cells", run ? (double)run->n : 0);
	cJSON_AddNumberToObject(r, "replayed", run ? (double)run->i : 0);
	if (run && run->differs) {
		cJSON_AddNumberToObject(r, "differing", (double)run->ndiffer);
		cJSON_AddItemToObject(r, "differs", run->differs);
		run->differs = NULL;
	}
}

static void restore_answer(struct restore *x, struct session *s)
{
	cJSON *result = cJSON_CreateObject(), *r;

	mcp_call_on_cancel(x->mc, NULL, NULL);
	cJSON_AddItemToObject(result, "session", tool_session_json(x->mc, s));
	r = cJSON_AddObjectToObject(result, "restored");
	cJSON_AddStringToObject(r, "snapshot", x->id);
	replay_json(r, x->run, x->bytes);
	if (x->missing && cJSON_GetArraySize(x->missing)) {
		cJSON_AddItemToObject(r, "packagesMissing", x->missing);
		x->missing = NULL;
	}
	mcp_call_finish(x->mc, tool_ok(x->mc, result));
	restore_free(x);
}

static void replay_done(struct cells_run *r, struct session *s,
			const struct error *err)
{
	struct restore *x = r->arg;

	if (!s) {
		restore_fail(x, err);
		return;
	}
	run_stopped(r, err);
	restore_answer(x, s);
}

static void read_cb(const struct error *err, const unsigned char *p, size_t n,
		    int eof, void *arg);

/* tar is over and no read is in flight: the rest of the tar is read (its
 * hash is the proof), then the history replayed or the answer given. */
static void restore_settle(struct restore *x)
{
	struct session *s;

	if (x->cancelled && !x->failed) {
		x->failed = 1;
		error_set(&x->why, ERR_CANCELLED, "the restore was cancelled");
	}
	if (x->failed) {
		restore_undo(x, &x->why);
		return;
	}
	if (!x->eof) {
		/* tar stopped at the archive's end; the padding after it is
		 * still the snapshot's and hashed. */
		x->reading = 1;
		if (snapshot_reader_next(x->rd, read_cb, x)) {
			x->reading = 0;
			error_set(&x->why, ERR_SANDBOX, "out of memory");
			restore_undo(x, &x->why);
		}
		return;
	}
	if (x->tar_failed) { /* the tar matched: tar's own failure */
		restore_undo(x, &x->tar_why);
		return;
	}
	s = session_find(x->env->sessions, x->qname);
	if (!s) {
		error_set(&x->why, ERR_SESSION_DESTROYED,
			  "the session went while it was restored");
		restore_fail(x, &x->why);
		return;
	}
	if (x->run && x->run->n) {
		run_start(x->run, s);
		return;
	}
	restore_answer(x, s);
}

static void tar_in_done(const struct error *err, void *arg)
{
	struct restore *x = arg;

	x->tar = NULL;
	x->tar_over = 1;
	if (err &&
	    (err->code == ERR_SESSION_DESTROYED ||
	     err->code == ERR_SESSION_LOST || err->code == ERR_SHUTTING_DOWN) &&
	    !x->failed) {
		x->failed = 1; /* nothing more to read for */
		x->why = *err;
	} else if (err && !x->tar_failed) {
		x->tar_failed = 1;
		x->tar_why = *err;
	}
	if (!x->reading)
		restore_settle(x);
}

static void pump(struct restore *x);

static void read_cb(const struct error *err, const unsigned char *p, size_t n,
		    int eof, void *arg)
{
	struct restore *x = arg;
	int rc;

	x->reading = 0;
	if (err && !x->failed) {
		x->failed = 1;
		x->why = *err;
	}
	if (x->tar_over) {
		x->eof = eof;
		restore_settle(x);
		return;
	}
	if (x->failed) {
		/* Nothing half-restored: tar stops, the session goes. */
		session_tar_cancel(x->tar);
		x->tar = NULL;
		restore_undo(x, &x->why);
		return;
	}
	if (n && (rc = session_tar_write(x->tar, p, n)) != 0) {
		x->eof = eof;
		if (rc == -EPIPE)
			return; /* tar stopped: its done says why */
		x->failed = 1;
		error_set(&x->why, ERR_SANDBOX, "cannot give tar the files: %s",
			  strerror(-rc));
		session_tar_cancel(x->tar);
		x->tar = NULL;
		restore_undo(x, &x->why);
		return;
	}
	if (eof) {
		x->eof = 1;
		session_tar_end(x->tar);
		return;
	}
	pump(x);
}

static void pump(struct restore *x)
{
	if (x->reading || x->eof || x->failed || !x->tar ||
	    !session_tar_ready(x->tar) ||
	    session_tar_queued(x->tar) > TAR_AHEAD)
		return;
	x->reading = 1;
	if (snapshot_reader_next(x->rd, read_cb, x)) {
		x->reading = 0;
		x->failed = 1;
		error_set(&x->why, ERR_SANDBOX, "out of memory");
		session_tar_cancel(x->tar);
		x->tar = NULL;
		restore_undo(x, &x->why);
	}
}

static void room_cb(void *arg)
{
	pump(arg);
}

static void restore_cancel_cb(void *arg)
{
	struct restore *x = arg;
	struct error err;

	x->cancelled = 1;
	if (x->run && x->run->running) {
		session_call_cancel(x->run->running);
		return;
	}
	if (x->tar && !x->reading) {
		session_tar_cancel(x->tar);
		x->tar = NULL;
		error_set(&err, ERR_CANCELLED, "the restore was cancelled");
		restore_undo(x, &err);
		return;
	}
	/* A read in flight ends it, or the step on its way (image, history,
	 * create, the rest of the tar) sees x->cancelled. */
	if (x->tar && !x->failed) {
		x->failed = 1;
		error_set(&x->why, ERR_CANCELLED, "the restore was cancelled");
	}
}

static void restored_created_cb(struct session *s, const struct error *err,
				void *arg)
{
	struct restore *x = arg;
	struct session_info in;
	struct error e2;
	size_t i;

	if (err) {
		restore_fail(x, err);
		return;
	}
	session_info(s, &in);
	snprintf(x->qname, sizeof(x->qname), "%s", in.name);
	snprintf(x->container, sizeof(x->container), "%s",
		 in.container_id ? in.container_id : "");
	if (restore_cancelled(x, 1))
		return;
	x->missing = cJSON_CreateArray();
	for (i = 0; i < x->npkg; i++) {
		if (x->env->pkg_cache &&
		    pkg_cache_find(x->env->pkg_cache, x->pkgs[i]) &&
		    session_add_packages(s, x->pkgs[i], &e2) == 0)
			continue;
		cJSON_AddItemToArray(x->missing,
				     cJSON_CreateString(x->pkgs[i]));
	}
	if (session_tar_in(s, room_cb, tar_in_done, x, &x->tar, &e2))
		restore_undo(x, &e2);
}

static void restore_create(struct restore *x)
{
	struct error err;

	if (session_create(x->env->sessions, x->pl,
			   x->qname[0] ? x->qname : NULL, x->ttl_s, x->on,
			   restored_created_cb, x, &err))
		restore_fail(x, &err);
}

static void history_cb(const struct error *err, const char *text, size_t len,
		       void *arg)
{
	struct restore *x = arg;
	struct error e2;

	if (err) {
		restore_fail(x, err);
		return;
	}
	if (restore_cancelled(x, 0))
		return;
	if (len) {
		x->run = calloc(1, sizeof(*x->run));
		if (!x->run ||
		    notebook_code_cells(text, len, NOTEBOOK_MAX_CELLS,
					&x->run->cells, &x->run->n, &e2)) {
			if (!x->run)
				error_set(&e2, ERR_SANDBOX, "out of memory");
			else
				error_set(&e2, ERR_SNAPSHOT_CORRUPT,
					  "the snapshot's history is no "
					  "notebook: %s",
					  e2.msg);
			restore_fail(x, &e2);
			return;
		}
		x->run->env = x->env;
		x->run->mc = x->mc;
		x->run->replay = 1;
		x->run->done = replay_done;
		x->run->arg = x;
	}
	restore_create(x);
}

static void restore_image_cb(const struct error *err, const char *id, void *arg)
{
	struct restore *x = arg;
	const struct snapshot *sn =
		snapshot_store_find(x->env->snapshots, owner_of(x->mc), x->id);
	struct error e2;

	if (restore_cancelled(x, 0))
		return;
	if (err) {
		error_set(&e2, ERR_IMAGE_MISSING,
			  "the image %s cannot be used: %s",
			  x->pl->policy.image, err->msg);
		restore_fail(x, &e2);
		return;
	}
	if (!sn) {
		error_set(&e2, ERR_SNAPSHOT_NOT_FOUND,
			  "the snapshot went meanwhile");
		restore_fail(x, &e2);
		return;
	}
	if (x->image_id[0] && strcmp(id, x->image_id) != 0 && !x->force) {
		error_set(&e2, ERR_SNAPSHOT_INCOMPATIBLE,
			  "the image %s is %.19s now, it was %.19s when the "
			  "snapshot was taken: its files and history may not "
			  "fit it (force: true restores it all the same)",
			  x->pl->policy.image, id, x->image_id);
		restore_fail(x, &e2);
		return;
	}
	if (x->replay && sn->hist_bytes) {
		if (snapshot_store_history(x->env->snapshots, sn, history_cb,
					   x)) {
			error_set(&e2, ERR_SANDBOX, "out of memory");
			restore_fail(x, &e2);
		}
		return;
	}
	restore_create(x);
}

static void restore_start(struct restore *x)
{
	const struct snapshot *sn =
		x->env->snapshots ? snapshot_store_find(x->env->snapshots,
							owner_of(x->mc), x->id)
				  : NULL;
	const char *lang, *ver, *img;
	struct error err;

	if (!sn) {
		error_set(&err, ERR_SNAPSHOT_NOT_FOUND, "no snapshot '%s'",
			  x->id);
		restore_fail(x, &err);
		return;
	}
	if (sn->corrupt) {
		error_set(&err, ERR_SNAPSHOT_CORRUPT,
			  "the snapshot's record does not match its hash: "
			  "delete it");
		restore_fail(x, &err);
		return;
	}
	lang = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(sn->meta, "language"));
	ver = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(sn->meta, "pluginVersion"));
	img = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(sn->meta, "imageId"));
	x->pl = lang ? plugins_find(x->env->plugins, lang) : NULL;
	if (!x->pl) {
		error_set(&err, ERR_SNAPSHOT_INCOMPATIBLE,
			  "the snapshot is of %s, a language this server "
			  "does not run",
			  lang ? lang : "an unknown language");
		restore_fail(x, &err);
		return;
	}
	if (ver && x->pl->desc->version &&
	    strcmp(ver, x->pl->desc->version) != 0 && !x->force) {
		error_set(&err, ERR_SNAPSHOT_INCOMPATIBLE,
			  "the %s plugin is version %s, it was %s when the "
			  "snapshot was taken (force: true restores it all "
			  "the same)",
			  lang, x->pl->desc->version, ver);
		restore_fail(x, &err);
		return;
	}
	snprintf(x->image_id, sizeof(x->image_id), "%s", img ? img : "");
	memcpy(x->pkgs, sn->pkgs, sizeof(x->pkgs));
	x->npkg = sn->npkg;
	x->bytes = sn->tar_bytes;
	x->replay = x->replay && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
					 sn->meta, "keepsMemory"));
	if (snapshot_reader_new(x->env->snapshots, sn, &x->rd)) {
		error_set(&err, ERR_SANDBOX, "out of memory");
		restore_fail(x, &err);
		return;
	}
	x->on = tool_install_engine(x->env, x->pl);
	mcp_call_on_cancel(x->mc, restore_cancel_cb, x);
	if (image_check(engine_docker(x->on), x->pl->policy.image,
			restore_image_cb, x)) {
		error_set(&err, ERR_SANDBOX, "out of memory");
		restore_fail(x, &err);
	}
}

static struct restore *restore_new(const struct tool_env *env,
				   struct mcp_call *mc, const char *qname,
				   uint32_t ttl_s, int replay, int force)
{
	struct restore *x = calloc(1, sizeof(*x));

	if (!x) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	x->env = env;
	x->mc = mc;
	x->ttl_s = ttl_s;
	x->replay = replay;
	x->force = force;
	if (qname)
		snprintf(x->qname, sizeof(x->qname), "%s", qname);
	return x;
}

void snapshots_restore(const struct tool_env *env, struct mcp_call *mc,
		       const char *id, const char *qname, uint32_t ttl_s,
		       int replay, int force)
{
	struct restore *x;

	if (no_store(env, mc))
		return;
	if (!snapshot_id_valid(id)) {
		mcp_call_finish_errorf(mc, ERR_SNAPSHOT_NOT_FOUND,
				       "no snapshot '%s' (an id is %d "
				       "hex digits)",
				       id, SNAPSHOT_ID_LEN);
		return;
	}
	x = restore_new(env, mc, qname, ttl_s, replay, force);
	if (!x)
		return;
	snprintf(x->id, sizeof(x->id), "%s", id);
	restore_start(x);
}

/* ---- snapshot (and fork) --------------------------------------------- */

struct take {
	const struct tool_env *env;
	struct mcp_call *mc;
	char qname[SESSION_QNAME_MAX + 1];
	char *label;
	char image_id[160];
	struct snapshot_writer *w;
	struct session_tar *tar;
	int paused;
	struct error why; /* a refused write */
	int failed;
	int cancelled; /* before the tar started */
};

static void take_free(struct take *k)
{
	snapshot_writer_abort(k->w);
	free(k->label);
	free(k);
}

static void take_fail(struct take *k, const struct error *err)
{
	mcp_call_on_cancel(k->mc, NULL, NULL);
	mcp_call_finish_error(k->mc, err);
	take_free(k);
}

static void committed_cb(const struct error *err, const struct snapshot *sn,
			 void *arg)
{
	struct take *k = arg;
	cJSON *result;

	k->w = NULL; /* gone either way */
	if (err) {
		take_fail(k, err);
		return;
	}
	result = cJSON_CreateObject();
	cJSON_AddItemToObject(result, "snapshot", snapshot_json(sn));
	mcp_call_finish(k->mc, tool_ok(k->mc, result));
	take_free(k);
}

static void tar_out_done(const struct error *err, void *arg)
{
	struct take *k = arg;
	struct session *s = session_find(k->env->sessions, k->qname);
	const struct history *h = s ? session_history(s) : NULL;
	const struct plugin *pl = s ? session_plugin(s) : NULL;
	struct snapshot_commit c = {0};
	struct session_info in;
	cJSON *meta, *nb = NULL;
	char *text = NULL;
	size_t npkg = 0;
	int rc;

	k->tar = NULL;
	mcp_call_on_cancel(k->mc, NULL, NULL);
	if (k->failed)
		err = &k->why;
	if (!err && !s) {
		error_set(&k->why, ERR_SESSION_DESTROYED,
			  "the session went while its snapshot was taken");
		err = &k->why;
	}
	if (err) {
		take_fail(k, err);
		return;
	}
	session_info(s, &in);
	meta = cJSON_CreateObject();
	cJSON_AddStringToObject(
		meta, "session",
		tool_unqualify(mcp_call_tenant(k->mc), in.name));
	cJSON_AddStringToObject(meta, "language", pl->desc->name);
	if (pl->desc->version)
		cJSON_AddStringToObject(meta, "pluginVersion",
					pl->desc->version);
	cJSON_AddStringToObject(meta, "image", pl->policy.image);
	cJSON_AddStringToObject(meta, "imageId", k->image_id);
	if (k->label)
		cJSON_AddStringToObject(meta, "label", k->label);
	cJSON_AddBoolToObject(meta, "keepsMemory", in.interpreter);
	cJSON_AddNumberToObject(meta, "cells",
				h ? (double)history_cells(h) : 0);
	if (h && history_cells(h)) {
		nb = notebook_json(
			h, pl->desc->name,
			tool_unqualify(mcp_call_tenant(k->mc), in.name),
			(int64_t)time(NULL) * 1000);
		text = nb ? cJSON_Print(nb) : NULL;
		cJSON_Delete(nb);
	}
	c.owner = owner_of(k->mc);
	c.meta = meta;
	c.history = text;
	c.history_len = text ? strlen(text) : 0;
	c.pkgs = session_packages(s, &npkg);
	c.npkg = npkg;
	rc = snapshot_writer_commit(k->w, &c, committed_cb, k);
	free(text);
	if (rc) {
		k->w = NULL;
		error_set(&k->why, ERR_SANDBOX, "out of memory");
		take_fail(k, &k->why);
	}
}

static void writer_room(void *arg)
{
	struct take *k = arg;

	if (k->paused && k->tar &&
	    snapshot_writer_backlog(k->w) < SNAPSHOT_BACKLOG_HIGH / 2) {
		k->paused = 0;
		session_tar_pause(k->tar, 0);
	}
}

static int tar_data(const char *p, size_t n, void *arg)
{
	struct take *k = arg;

	if (snapshot_writer_write(k->w, p, n, &k->why)) {
		k->failed = 1;
		return 1;
	}
	if (!k->paused &&
	    snapshot_writer_backlog(k->w) > SNAPSHOT_BACKLOG_HIGH) {
		k->paused = 1;
		session_tar_pause(k->tar, 1);
	}
	return 0;
}

static void take_cancel_cb(void *arg)
{
	struct take *k = arg;
	struct error err;

	if (!k->tar) { /* the image check on its way, or the commit */
		k->cancelled = 1;
		return;
	}
	session_tar_cancel(k->tar);
	k->tar = NULL;
	error_set(&err, ERR_CANCELLED, "the snapshot was cancelled");
	take_fail(k, &err);
}

static void take_image_cb(const struct error *err, const char *id, void *arg)
{
	struct take *k = arg;
	struct session *s = session_find(k->env->sessions, k->qname);
	struct error e2;

	snprintf(k->image_id, sizeof(k->image_id), "%s", err ? "" : id);
	if (k->cancelled) {
		error_set(&e2, ERR_CANCELLED, "the snapshot was cancelled");
		take_fail(k, &e2);
		return;
	}
	if (!s) {
		error_set(&e2, ERR_SESSION_DESTROYED,
			  "the session went before its snapshot was taken");
		take_fail(k, &e2);
		return;
	}
	if (snapshot_writer_new(k->env->snapshots, &k->w, &e2) ||
	    session_tar_out(s, tar_data, tar_out_done, k, &k->tar, &e2)) {
		take_fail(k, &e2);
		return;
	}
	snapshot_writer_on_room(k->w, writer_room, k);
}

static void take_start(const struct tool_env *env, struct mcp_call *mc,
		       struct session *s, const char *label)
{
	struct take *k = calloc(1, sizeof(*k));
	struct session_info in;

	if (!k || (label && !(k->label = strdup(label)))) {
		free(k);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	k->env = env;
	k->mc = mc;
	session_info(s, &in);
	snprintf(k->qname, sizeof(k->qname), "%s", in.name);
	mcp_call_on_cancel(mc, take_cancel_cb, k);
	if (image_check(engine_docker(session_engine(s)),
			session_plugin(s)->policy.image, take_image_cb, k)) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		take_free(k);
	}
}

void snapshots_take(const struct tool_env *env, struct mcp_call *mc,
		    struct session *s, const char *label)
{
	if (no_store(env, mc))
		return;
	if (label && strlen(label) > 200) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "a label is at most 200 bytes");
		return;
	}
	take_start(env, mc, s, label);
}

/* ---- fork ------------------------------------------------------------- */

/*
 * A fork keeps nothing on disk: the new session is made (on the source's
 * engine, where its package sets are) while the source's tar is taken,
 * the tar goes from one container to the other as it comes (flow-
 * controlled: the source's reading stops while the copy is behind), and
 * the history's cells, as they were when the tar was taken, run again in
 * the copy.
 */
#define FORK_AHEAD ((size_t)8 << 20)

struct fork {
	const struct tool_env *env;
	struct mcp_call *mc;
	char from[SESSION_QNAME_MAX + 1];  /* the source */
	char qname[SESSION_QNAME_MAX + 1]; /* the copy */
	char container[80];		   /* the copy's */
	struct session_tar *out, *in;
	struct buf_ {
		unsigned char *p;
		size_t len, cap;
	} pend; /* the tar's bytes before the copy takes any */
	int out_paused, out_over, in_over, created;
	uint64_t bytes;
	struct cells_run *run;
	struct error why;
	int failed, cancelled;
};

static void fork_free(struct fork *f)
{
	if (f->run)
		run_free(f->run);
	free(f->pend.p);
	free(f);
}

/* Both tars over (or never started), and nothing on its way: the end. */
static void fork_settle(struct fork *f);

static void fork_fail(struct fork *f, int code, const char *msg)
{
	if (f->failed)
		return;
	f->failed = 1;
	error_set(&f->why, code, "%s", msg);
}

/* Both tars end now (one not started never will: the copy made later
 * sees the failure and starts none). */
static void fork_stop(struct fork *f)
{
	if (f->out)
		session_tar_cancel(f->out);
	if (f->in)
		session_tar_cancel(f->in);
	f->out = f->in = NULL;
	f->out_over = f->in_over = 1;
}

/* The copy's room: what waited goes first, then the source reads on. */
static void fork_room(void *arg)
{
	struct fork *f = arg;
	int rc;

	if (!f->in || f->failed || !session_tar_ready(f->in))
		return;
	if (f->pend.len) {
		rc = session_tar_write(f->in, f->pend.p, f->pend.len);
		if (rc && rc != -EPIPE) {
			fork_fail(f, ERR_SANDBOX, "cannot give tar the files");
			fork_stop(f);
			fork_settle(f);
			return;
		}
		f->pend.len = 0;
	}
	if (f->out_paused && f->out &&
	    session_tar_queued(f->in) < FORK_AHEAD / 2) {
		f->out_paused = 0;
		session_tar_pause(f->out, 0);
	}
	if (f->out_over && !f->pend.len)
		session_tar_end(f->in);
}

static int fork_data(const char *p, size_t n, void *arg)
{
	struct fork *f = arg;
	int rc;

	f->bytes += n;
	if (f->in && session_tar_ready(f->in) && !f->pend.len) {
		rc = session_tar_write(f->in, p, n);
		if (rc && rc != -EPIPE) {
			fork_fail(f, ERR_SANDBOX, "cannot give tar the files");
			return 1;
		}
		if (session_tar_queued(f->in) > FORK_AHEAD && !f->out_paused) {
			f->out_paused = 1;
			session_tar_pause(f->out, 1);
		}
		return 0;
	}
	/* The copy is not made yet: kept, up to FORK_AHEAD. */
	if (f->pend.len + n > f->pend.cap) {
		size_t cap = f->pend.cap ? f->pend.cap : (size_t)64 << 10;
		unsigned char *q;

		while (cap < f->pend.len + n)
			cap *= 2;
		q = realloc(f->pend.p, cap);
		if (!q) {
			fork_fail(f, ERR_SANDBOX, "out of memory");
			return 1;
		}
		f->pend.p = q;
		f->pend.cap = cap;
	}
	memcpy(f->pend.p + f->pend.len, p, n);
	f->pend.len += n;
	if (f->pend.len > FORK_AHEAD && !f->out_paused) {
		f->out_paused = 1;
		session_tar_pause(f->out, 1);
	}
	return 0;
}

static void fork_answer(struct fork *f, struct session *s)
{
	cJSON *result = cJSON_CreateObject(), *r;

	log_debug("fork %s -> %s: answered", f->from, f->qname);

	mcp_call_on_cancel(f->mc, NULL, NULL);
	cJSON_AddItemToObject(result, "session", tool_session_json(f->mc, s));
	r = cJSON_AddObjectToObject(result, "forked");
	cJSON_AddStringToObject(
		r, "from", tool_unqualify(mcp_call_tenant(f->mc), f->from));
	replay_json(r, f->run, f->bytes);
	mcp_call_finish(f->mc, tool_ok(f->mc, result));
	fork_free(f);
}

static void fork_replayed(struct cells_run *r, struct session *s,
			  const struct error *err)
{
	struct fork *f = r->arg;

	if (!s) {
		mcp_call_on_cancel(f->mc, NULL, NULL);
		mcp_call_finish_error(f->mc, err);
		fork_free(f);
		return;
	}
	run_stopped(r, err);
	fork_answer(f, s);
}

static void fork_settle(struct fork *f)
{
	struct session *s;
	struct session_info in;

	log_debug("fork %s -> %s: out %s, in %s, %s%s", f->from, f->qname,
		  f->out_over ? "over" : "on", f->in_over ? "over" : "on",
		  f->created ? "created" : "creating",
		  f->failed ? ", failed" : "");
	if (!f->out_over || !f->in_over || !f->created)
		return;
	s = f->qname[0] ? session_find(f->env->sessions, f->qname) : NULL;
	if (f->cancelled && !f->failed)
		fork_fail(f, ERR_CANCELLED, "the fork was cancelled");
	if (!f->failed && !s)
		fork_fail(f, ERR_SESSION_DESTROYED,
			  "the copy went while it was made");
	if (f->failed) {
		if (s) {
			session_info(s, &in);
			if (in.container_id &&
			    strcmp(in.container_id, f->container) == 0)
				session_destroy(s);
		}
		mcp_call_on_cancel(f->mc, NULL, NULL);
		mcp_call_finish_error(f->mc, &f->why);
		fork_free(f);
		return;
	}
	if (f->run && f->run->n) {
		f->run->env = f->env;
		f->run->mc = f->mc;
		f->run->replay = 1;
		f->run->done = fork_replayed;
		f->run->arg = f;
		run_start(f->run, s);
		return;
	}
	fork_answer(f, s);
}

static void fork_in_done(const struct error *err, void *arg)
{
	struct fork *f = arg;

	f->in = NULL;
	f->in_over = 1;
	if (err)
		fork_fail(f, err->code, err->msg);
	if (!f->out_over && err)
		fork_stop(f);
	fork_settle(f);
}

/* The source's tar is whole: its history's cells as they were (straight
 * from the history: no notebook made and read back), then the copy's end
 * of input. */
static void fork_out_done(const struct error *err, void *arg)
{
	struct fork *f = arg;
	struct session *src = session_find(f->env->sessions, f->from);
	const struct history *h = src ? session_history(src) : NULL;

	f->out = NULL;
	f->out_over = 1;
	if (err)
		fork_fail(f, err->code, err->msg);
	if (!f->failed && h && history_cells(h)) {
		f->run = calloc(1, sizeof(*f->run));
		if (!f->run ||
		    notebook_history_cells(h, &f->run->cells, &f->run->n))
			fork_fail(f, ERR_SANDBOX,
				  "the source's history could not be read");
	}
	if (f->failed) {
		fork_stop(f);
	} else if (f->in && session_tar_ready(f->in) && !f->pend.len) {
		session_tar_end(f->in);
	}
	fork_settle(f);
}

static void fork_cancel_cb(void *arg)
{
	struct fork *f = arg;

	f->cancelled = 1;
	if (f->run && f->run->running) {
		session_call_cancel(f->run->running);
		return;
	}
	fork_fail(f, ERR_CANCELLED, "the fork was cancelled");
	fork_stop(f);
	fork_settle(f);
}

static void fork_created_cb(struct session *s, const struct error *err,
			    void *arg)
{
	struct fork *f = arg;
	struct session *src = session_find(f->env->sessions, f->from);
	struct session_info in;
	struct error e2;
	size_t n = 0, i;
	const char(*keys)[PKG_KEY_LEN + 1] =
		src ? session_packages(src, &n) : NULL;

	f->created = 1;
	if (err) {
		fork_fail(f, err->code, err->msg);
		fork_stop(f);
		fork_settle(f);
		return;
	}
	session_info(s, &in);
	snprintf(f->qname, sizeof(f->qname), "%s", in.name);
	snprintf(f->container, sizeof(f->container), "%s",
		 in.container_id ? in.container_id : "");
	if (f->failed) { /* the source's tar failed meanwhile */
		fork_settle(f);
		return;
	}
	/* The same engine: the source's package sets are in its cache. */
	for (i = 0; i < n; i++)
		session_add_packages(s, keys[i], &e2);
	if (session_tar_in(s, fork_room, fork_in_done, f, &f->in, &e2)) {
		fork_fail(f, e2.code, e2.msg);
		fork_stop(f);
		f->in_over = 1;
		fork_settle(f);
	}
}

void snapshots_fork(const struct tool_env *env, struct mcp_call *mc,
		    struct session *s, const char *qname, uint32_t ttl_s)
{
	struct fork *f = calloc(1, sizeof(*f));
	struct session_info in;
	struct error err;

	if (!f) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	f->env = env;
	f->mc = mc;
	session_info(s, &in);
	snprintf(f->from, sizeof(f->from), "%s", in.name);
	if (session_tar_out(s, fork_data, fork_out_done, f, &f->out, &err)) {
		mcp_call_finish_error(mc, &err);
		fork_free(f);
		return;
	}
	mcp_call_on_cancel(mc, fork_cancel_cb, f);
	if (session_create(env->sessions, session_plugin(s), qname, ttl_s,
			   session_engine(s), fork_created_cb, f, &err)) {
		fork_fail(f, err.code, err.msg);
		f->created = 1;
		fork_stop(f);
		fork_settle(f);
	}
}
