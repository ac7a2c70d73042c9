/*
 * executor.c - one execution: policy, pool, agent, watchdog, release.
 */
#include "executor.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/docker.h"
#include "util/log.h"
#include "collect.h"
#include "stage.h"

#define LOG_MODULE "exec"

/* How long past the execution's own timeout the host waits for the agent
 * before it gives the container up as broken. */
#define WATCHDOG_GRACE_MS 5000
#define MAX_ARGV 64

const char *const exec_base_env[] = {
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=/work",
	"USER=sandbox",
	"LOGNAME=sandbox",
	"LANG=C.UTF-8",
	"LC_ALL=C.UTF-8",
	"TMPDIR=/tmp",
	NULL,
};

/* The blocklist's scan of a call's code, in the thread pool, with a copy
 * of the request that starts once it is done. */
struct exec_scan {
	uv_work_t work;
	struct exec_job *job;	    /* only the loop touches it */
	const struct blocklist *bl; /* read by the thread */
	struct exec_request req;    /* its pointers point into mem and files */
	char *mem;
	struct exec_file *files;
	struct blocklist_hit hits[BLOCKLIST_MAX_HITS];
	int nhits; /* or -ENOMEM */
};

struct exec_job {
	uv_timer_t watchdog; /* embedded: the job is freed in close_cb */
	struct engines *es;
	const struct plugin *pl;
	struct box *box;
	struct agent_client *session_ac; /* borrowed, instead of box */
	uint32_t session_seq, grace_ms, stream_ms;
	int interpreter;
	exec_output_cb output_cb;
	char *code; /* owned copy (possibly rewritten) */
	size_t code_len;
	char *stdin_data; /* owned copy, or NULL */
	size_t stdin_len;
	struct exec_file *files; /* owned copy (exec_files_copy), or NULL */
	size_t nfiles, nstaged;
	const char *files_root;
	uint64_t file_cap;
	struct stage *stage; /* a file from the files root on its way */
	const struct sbx_option *opts[EXEC_MAX_OPTIONS];
	size_t nopts;
	char *extra_env[EXEC_MAX_EXTRA_ENV + 1]; /* owned copies */
	uint32_t timeout_ms;
	exec_done_cb cb;
	void *arg;
	struct engines_wait *wait; /* in a pool's queue: its handle */
	int watchdog_fired;
	int cancelled;
	int in_start; /* exec_start has not returned yet */
	int lost;     /* a session's connection cannot be trusted any more */
	struct error err;
	int done;
	/* Reading the run's files back (exec_collect): the outcome waits in
	 * `kept`, its output copied into kept_buf. */
	struct exec_collect collect;
	struct collect *coll;
	struct exec_outcome kept;
	char *kept_buf;
	char kept_phase[8];
	int anomaly;
	struct exec_scan *scan;			       /* in the thread pool */
	struct blocklist_hit hits[BLOCKLIST_MAX_HITS]; /* blocklist = warn */
	size_t nhits;
};

static void job_closed_cb(uv_handle_t *h)
{
	struct exec_job *j = h->data;

	for (size_t k = 0; j->extra_env[k]; k++)
		free(j->extra_env[k]);
	free(j->code);
	free(j->stdin_data);
	free(j->files);
	collect_free(j->coll);
	free(j->kept_buf);
	free(j);
}

static void job_finish(struct exec_job *j, const struct error *err,
		       const struct exec_outcome *o)
{
	struct exec_outcome with = *o;

	if (j->done)
		return;
	j->done = 1;
	uv_timer_stop(&j->watchdog);
	if (j->stage) { /* it never touches the job again */
		stage_abort(j->stage);
		j->stage = NULL;
	}
	with.blocklist = j->hits;
	with.nblocklist = j->nhits;
	if (j->box && !with.engine && engines_count(j->es) > 1) {
		const struct engine *e =
			engines_of_pool(j->es, box_pool(j->box));

		with.engine = e ? engine_name(e) : NULL;
	}
	j->cb(err, &with, j->arg);
	uv_close((uv_handle_t *)&j->watchdog, job_closed_cb);
}

static void finish_failed(struct exec_job *j)
{
	struct exec_outcome o;

	memset(&o, 0, sizeof(o));
	o.language = j->pl->desc->name;
	o.lost = j->lost;
	job_finish(j, &j->err, &o);
}

static void deferred_fail_cb(uv_timer_t *t)
{
	finish_failed(t->data);
}

/* End the job with an error (fmt NULL: the code's default message). Inside
 * exec_start the callback is deferred to the loop, so that it never runs
 * before exec_start has returned. */
static void job_fail(struct exec_job *j, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void job_fail(struct exec_job *j, int code, const char *fmt, ...)
{
	va_list ap;

	if (j->done)
		return;
	va_start(ap, fmt);
	error_vset(&j->err, code, fmt, ap);
	va_end(ap);
	if (j->in_start)
		uv_timer_start(&j->watchdog, deferred_fail_cb, 0, 0);
	else
		finish_failed(j);
}

/* Expand "{file}" in a plugin argv into out (pointers borrowed). */
static int expand_argv(const char *const *in, const char *file,
		       const char **out)
{
	size_t n = 0;

	for (; in && *in; in++) {
		if (n + 1 >= MAX_ARGV)
			return -E2BIG;
		out[n++] = strcmp(*in, "{file}") == 0 ? file : *in;
	}
	out[n] = NULL;
	return 0;
}

static struct agent_client *job_agent(const struct exec_job *j);

/* Answer first, then reset: the reset is off the caller's path. A
 * session keeps its container; an anomaly there is the session owner's to
 * judge from the outcome. */
static void finish_run(struct exec_job *j, const struct exec_outcome *o)
{
	job_finish(j, NULL, o);
	if (j->box)
		pool_release(box_pool(j->box), j->box, j->anomaly);
}

static void collected_cb(struct collect *c, const struct error *err, void *arg)
{
	struct exec_job *j = arg;

	j->kept.artifacts = collect_list(c, &j->kept.nartifacts);
	if (err) {
		/* The files read before are good; the connection is not. */
		j->anomaly = 1;
		j->kept.lost = j->session_ac != NULL;
	}
	finish_run(j, &j->kept);
}

/* Read back what exec_collect asks for before the box goes: the outcome
 * (borrowed from the agent's frame) is copied to wait. 1 when the job is
 * or will be finished from here, 0 when the copy failed (the caller
 * answers without the files). */
static int start_collect(struct exec_job *j, const struct exec_outcome *o,
			 const char *phase)
{
	int rc;

	j->kept = *o;
	j->kept_buf = malloc(o->out_len + o->err_len + 1);
	if (!j->kept_buf)
		return 0; /* answered without the files' bytes */
	memcpy(j->kept_buf, o->out, o->out_len);
	memcpy(j->kept_buf + o->out_len, o->err, o->err_len);
	j->kept.out = j->kept_buf;
	j->kept.err = j->kept_buf + o->out_len;
	snprintf(j->kept_phase, sizeof(j->kept_phase), "%s", phase);
	j->kept.phase = j->kept_phase;
	/* From here each read has the agent's deadline of its own. */
	uv_timer_stop(&j->watchdog);
	rc = collect_run(j->coll, job_agent(j), collected_cb, j);
	if (rc < 0) {
		struct error err;

		error_set(&err, rc, "cannot ask the agent for a file");
		collected_cb(j->coll, &err, j);
	} else if (rc == 0) {
		collected_cb(j->coll, NULL, j);
	}
	return 1;
}

/* The connection to a box went in the middle of a call: because the
 * engine went away (then the caller hears docker_unavailable, as every
 * other call does now), or the box alone? One GET /_ping tells. */
struct engine_ping {
	struct exec_job *j;
	char msg[ERROR_MSG_MAX];
};

static void ping_cb(const struct docker_response *res, void *arg)
{
	struct engine_ping *p = arg;

	if (res->err == -ECANCELED)
		job_fail(p->j, ERR_SHUTTING_DOWN, NULL);
	else if (res->err || res->status != 200)
		job_fail(p->j, ERR_DOCKER_UNAVAILABLE,
			 "the Docker engine stopped answering during the call "
			 "(%s)",
			 res->errmsg ? res->errmsg : "no answer");
	else
		job_fail(p->j, ERR_SANDBOX, "%s", p->msg);
	free(p);
}

static int engine_check(struct exec_job *j, struct docker *d, const char *msg)
{
	struct engine_ping *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p->j = j;
	snprintf(p->msg, sizeof(p->msg), "%s", msg);
	if (docker_request(d, "GET", "/_ping", NULL, 3000, ping_cb, p)) {
		free(p);
		return -EIO;
	}
	return 0;
}

/* What a program wrote to a stream the agent capped at cap: the agent
 * keeps cap / 2 bytes, then "\n... [N bytes truncated] ...\n", then the
 * end (docs/agent-protocol.md, "Output capture"). UINT64_MAX when the
 * marker is not where it belongs (an agent that broke the format). */
static uint64_t stream_total(const char *buf, size_t len, int truncated,
			     uint32_t cap)
{
	static const char open[] = "\n... [",
			  close[] = " bytes truncated] ...\n";
	size_t at = cap / 2, i;
	uint64_t n = 0;

	if (!truncated)
		return len;
	if (at + sizeof(open) - 1 > len ||
	    memcmp(buf + at, open, sizeof(open) - 1) != 0)
		return UINT64_MAX;
	for (i = at + sizeof(open) - 1;
	     i < len && buf[i] >= '0' && buf[i] <= '9' && n < UINT64_MAX / 10;
	     i++)
		n = n * 10 + (uint64_t)(buf[i] - '0');
	if (i + sizeof(close) - 1 > len ||
	    memcmp(buf + i, close, sizeof(close) - 1) != 0)
		return UINT64_MAX;
	i += sizeof(close) - 1;
	return (uint64_t)(len - (i - at)) + n;
}

static void exec_cb(struct agent_client *ac, const struct error *err,
		    const struct agent_exec_result *r, void *arg)
{
	struct exec_job *j = arg;
	struct exec_outcome o;
	int anomaly;

	(void)ac;
	if (err || !r) {
		struct box *b = j->box;
		struct docker *bd = b ? pool_docker(box_pool(b)) : NULL;

		/* The box is never trusted again; j->box is cleared first
		 * because releasing may call back into here. (A session's
		 * owner learns from the error and does the same.) */
		j->box = NULL;
		if (b)
			pool_release(box_pool(b), b, 1);
		if (j->watchdog_fired)
			job_fail(j, ERR_SANDBOX_TIMEOUT, NULL);
		else if (j->cancelled && err && err->code == -ECANCELED)
			job_fail(j, ERR_CANCELLED, NULL);
		else if (err &&
			 err->code == -ECANCELED) /* the pool's shutdown */
			job_fail(j, ERR_SHUTTING_DOWN, NULL);
		else if (err && err->code == -EPIPE && b &&
			 engine_check(j, bd, err->msg) == 0)
			return; /* ping_cb says which */
		else if (err)
			job_fail(j, ERR_SANDBOX, "%s", err->msg);
		else
			job_fail(j, ERR_SANDBOX, NULL);
		return;
	}
	/* A SIGKILL nobody asked for is most likely the memory cgroup's OOM
	 * killer; leftovers mean the kill did not work. Neither container is
	 * trusted again. */
	anomaly = r->survivors > 0 || (!r->exited && r->signal == 9 &&
				       !r->timed_out && !r->cancelled);
	if (r->survivors)
		log_error("[%s] %u processes survived the kill in %.12s",
			  j->pl->desc->name, r->survivors,
			  j->box ? box_id(j->box) : "a session");
	memset(&o, 0, sizeof(o));
	o.language = j->pl->desc->name;
	o.exited = r->exited;
	o.exit_code = r->exit_code;
	o.signal = r->signal;
	o.timed_out = r->timed_out;
	o.cancelled = r->cancelled;
	o.oom_killed = r->oom_killed;
	o.limits_hit = r->limits;
	o.lang_limits = &j->pl->policy.limits;
	o.memory_mb = j->pl->policy.limits.memory_mb;
	o.duration_ms = r->duration_ms;
	o.out = r->out;
	o.out_len = r->out_len;
	o.err = r->err;
	o.err_len = r->err_len;
	o.out_truncated = r->out_truncated;
	o.err_truncated = r->err_truncated;
	/* The caps are the host's promise to the client, whatever the agent
	 * (inside the user's container) sends. */
	if (o.out_len > j->pl->policy.limits.stdout_cap) {
		o.out_len = j->pl->policy.limits.stdout_cap;
		o.out_truncated = 1;
		anomaly = 1;
	}
	if (o.err_len > j->pl->policy.limits.stderr_cap) {
		o.err_len = j->pl->policy.limits.stderr_cap;
		o.err_truncated = 1;
		anomaly = 1;
	}
	o.out_cap = j->pl->policy.limits.stdout_cap;
	o.err_cap = j->pl->policy.limits.stderr_cap;
	o.out_total =
		stream_total(o.out, o.out_len, o.out_truncated, o.out_cap);
	o.err_total =
		stream_total(o.err, o.err_len, o.err_truncated, o.err_cap);
	o.phase = r->phase;
	o.interpreter = j->interpreter;
	o.state_kept = r->state_kept;
	o.fresh = r->fresh;
	o.artifacts_more = r->artifacts_more;
	/* A run step that ran (a failed build has none). */
	if (j->box && !j->interpreter && strcmp(r->phase, "build") != 0)
		pool_count_run(box_pool(j->box), j->pl, r->prestarted);
	j->coll = collect_new(&j->collect, r->artifacts, r->artifacts_len);
	if (j->coll)
		o.artifacts = collect_list(j->coll, &o.nartifacts);
	else
		o.artifacts_more = UINT32_MAX; /* out of memory: unknown */
	j->anomaly = anomaly;
	if (j->coll && !j->cancelled && collect_pending(j->coll) &&
	    start_collect(j, &o, r->phase))
		return;
	finish_run(j, &o);
}

static void send_failed(struct exec_job *j, int code, const char *msg);

static void watchdog_cb(uv_timer_t *t)
{
	struct exec_job *j = t->data;

	log_error("[%s] the agent in %.12s did not answer in time: container "
		  "discarded",
		  j->pl->desc->name, j->box ? box_id(j->box) : "a session");
	j->watchdog_fired = 1;
	/* A pool box is discarded, which closes the agent connection and
	 * settles the pending exec through exec_cb with this message; a
	 * session's connection is its owner's, told by o.lost. */
	send_failed(j, ERR_SANDBOX_TIMEOUT, NULL);
}

size_t exec_env_fill(const struct plugin *pl,
		     const struct sbx_option *const *opts, size_t nopts,
		     const char *const *extra_env, const char **env, size_t max)
{
	const struct sbx_plugin *d = pl->desc;
	size_t n = 0, i, k;

	for (i = 0; exec_base_env[i] && n + 1 < max; i++)
		env[n++] = exec_base_env[i];
	for (i = 0; d->env && d->env[i] && n + 1 < max; i++)
		env[n++] = d->env[i];
	for (k = 0; k < nopts; k++)
		for (i = 0; opts[k]->env && opts[k]->env[i] && n + 1 < max; i++)
			env[n++] = opts[k]->env[i];
	for (i = 0; extra_env && extra_env[i] && n + 1 < max; i++)
		env[n++] = extra_env[i];
	env[n] = NULL;
	return n;
}

/* The argv and environment arrays an agent request points into. */
struct request_bufs {
	const char *build[MAX_ARGV], *run[MAX_ARGV], *env[MAX_ARGV];
};

/* Fill q (commands, environment, limits) for plugin pl with the options
 * switched on; code, stdin and timeout are the caller's. Returns 0 or
 * -E2BIG when a command does not fit. */
static int fill_request(const struct plugin *pl,
			const struct sbx_option *const *opts, size_t nopts,
			char *const *extra_env, struct request_bufs *b,
			struct agent_exec_req *q)
{
	const struct policy *po = &pl->policy;
	const struct sbx_plugin *d = pl->desc;
	const char *const *build_cmd = d->build_cmd, *const *run_cmd =
							     d->run_cmd;
	size_t k;

	/* Options switched on by the call replace the commands they name. */
	for (k = 0; k < nopts; k++) {
		if (opts[k]->build_cmd)
			build_cmd = opts[k]->build_cmd;
		if (opts[k]->run_cmd)
			run_cmd = opts[k]->run_cmd;
	}
	if (expand_argv(build_cmd, d->file_name, b->build) ||
	    expand_argv(run_cmd, d->file_name, b->run))
		return -E2BIG;
	exec_env_fill(pl, opts, nopts, (const char *const *)extra_env, b->env,
		      MAX_ARGV);
	*q = (struct agent_exec_req){
		.file_name = d->file_name,
		.build_argv = build_cmd ? b->build : NULL,
		.run_argv = b->run,
		.env = b->env,
		.seccomp_deny = po->seccomp_deny,
		.timeout_ms = po->limits.timeout_ms,
		.stdout_cap = po->limits.stdout_cap,
		.stderr_cap = po->limits.stderr_cap,
	};
	return 0;
}

static struct agent_client *job_agent(const struct exec_job *j)
{
	return j->box ? box_agent(j->box) : j->session_ac;
}

static void job_output_cb(const char *out, size_t out_len, const char *err,
			  size_t err_len, void *arg)
{
	struct exec_job *j = arg;

	if (!j->done)
		j->output_cb(out, out_len, err, err_len, j->arg);
}

/* The agent cannot be relied on (a request not sent, no answer in time):
 * a pool box is discarded, a session's container is reported lost (its
 * owner closes the connection and removes it). */
static void send_failed(struct exec_job *j, int code, const char *msg)
{
	if (j->box) {
		pool_release(box_pool(j->box), j->box, 1);
		j->box = NULL;
	}
	j->lost = j->session_ac != NULL;
	if (msg)
		job_fail(j, code, "%s", msg);
	else
		job_fail(j, code, NULL);
}

int exec_files_copy(const struct exec_file *in, size_t n,
		    struct exec_file **out)
{
	size_t i, size = n * sizeof(**out);
	struct exec_file *v;
	char *p;

	*out = NULL;
	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		size += strlen(in[i].path) + 1 + in[i].len +
			(in[i].from ? strlen(in[i].from) + 1 : 0);
	v = malloc(size);
	if (!v)
		return -ENOMEM;
	p = (char *)(v + n);
	for (i = 0; i < n; i++) {
		size_t pl = strlen(in[i].path) + 1;

		memcpy(p, in[i].path, pl);
		v[i].path = p;
		p += pl;
		if (in[i].len)
			memcpy(p, in[i].data, in[i].len);
		v[i].data = (const unsigned char *)p;
		v[i].len = in[i].len;
		p += in[i].len;
		v[i].from = NULL;
		if (in[i].from) {
			pl = strlen(in[i].from) + 1;
			memcpy(p, in[i].from, pl);
			v[i].from = p;
			p += pl;
		}
	}
	*out = v;
	return 0;
}

static void run_on_agent(struct exec_job *j);

/* A staged input is in /work (err NULL): the next, or the code. A
 * broken connection discards the box; a refusal or a cancel ends the
 * call, saying which input (what: "" or "from "). */
static void staged(struct exec_job *j, const struct error *err,
		   const char *what, const char *name)
{
	if (err && !error_is_ours(err->code)) {
		send_failed(j, ERR_SANDBOX, err->msg);
		return;
	}
	if (err || j->cancelled) {
		/* Whatever was staged goes with the reset. */
		if (j->box)
			pool_release(box_pool(j->box), j->box, 0);
		j->box = NULL;
		if (err && err->code != ERR_CANCELLED)
			job_fail(j, err->code, "files[%zu] (%s%s): %s",
				 j->nstaged, what, name, err->msg);
		else
			job_fail(j, ERR_CANCELLED, NULL);
		return;
	}
	j->nstaged++;
	run_on_agent(j);
}

static void staged_cb(struct agent_client *ac, const struct error *err,
		      const struct ap_file_done *res, void *arg)
{
	struct exec_job *j = arg;

	(void)ac;
	(void)res;
	staged(j, err, "", j->files[j->nstaged].path);
}

/* A file (or directory) from the files root is in /work, or not. */
static void stage_done_cb(const struct error *err, const struct stage_done *d,
			  void *arg)
{
	struct exec_job *j = arg;

	(void)d;
	j->stage = NULL;
	staged(j, err, "from ", j->files[j->nstaged].from);
}

static void stage_from(struct exec_job *j, const struct exec_file *f)
{
	struct stage_req r = {
		.root = j->files_root,
		.from = f->from,
		.path = f->path,
		.max_bytes = j->file_cap,
		.chunk = STAGE_CHUNK,
	};
	struct error err;

	if (!j->files_root) { /* the tool checks first */
		job_fail(j, ERR_FILES_ROOT_NOT_SET, NULL);
		return;
	}
	if (stage_start(j->watchdog.loop, job_agent(j), &r, stage_done_cb, j,
			&j->stage, &err))
		job_fail(j, err.code, "%s", err.msg);
}

static void stage_next(struct exec_job *j)
{
	const struct exec_file *f = &j->files[j->nstaged];
	struct ap_file q;

	if (f->from) {
		stage_from(j, f);
		return;
	}
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_WRITE;
	q.path = f->path;
	q.path_len = strlen(f->path);
	q.data = f->data;
	q.data_len = f->len;
	q.flags = AP_FF_OVERWRITE | AP_FF_PARENTS;
	if (agent_client_file(job_agent(j), &q, staged_cb, j))
		send_failed(j, ERR_SANDBOX,
			    "cannot send a staged file to the sandbox");
}

static void run_on_agent(struct exec_job *j)
{
	struct request_bufs bufs;
	struct agent_exec_req q;
	uint64_t limit;
	int rc;

	if (j->nstaged < j->nfiles) {
		stage_next(j);
		return;
	}
	if (fill_request(j->pl, j->opts, j->nopts, j->extra_env, &bufs, &q)) {
		if (j->box)
			pool_release(box_pool(j->box), j->box, 0);
		j->box = NULL;
		job_fail(j, ERR_PLUGIN, "the plugin's command is too long");
		return;
	}
	q.code = j->code;
	q.code_len = j->code_len;
	q.timeout_ms = j->timeout_ms;
	q.artifacts = EXEC_MAX_ARTIFACTS;
	q.stdin_data = j->stdin_data;
	q.stdin_len = j->stdin_len;
	if (j->interpreter) {
		q.repl_argv = j->pl->desc->session_cmd;
		q.repl_seq = j->session_seq;
		q.grace_ms = j->grace_ms;
	}
	if (j->output_cb) {
		q.stream_ms = j->stream_ms;
		q.output_cb = job_output_cb;
	}
	rc = agent_client_exec(job_agent(j), &q, exec_cb, j);
	if (rc) {
		send_failed(j, ERR_SANDBOX,
			    "cannot send the code to the sandbox");
		return;
	}
	/* An interpreter gets its interrupt grace on top (an unset one is the
	 * agent's 1 s default, well inside WATCHDOG_GRACE_MS). */
	limit = (uint64_t)j->timeout_ms + WATCHDOG_GRACE_MS;
	if (j->interpreter)
		limit += j->grace_ms;
	uv_timer_start(&j->watchdog, watchdog_cb, limit, 0);
	if (j->cancelled)
		agent_client_cancel(job_agent(j));
}

struct warmup {
	struct box *box;
	const struct plugin *pl;
	pool_warmup_done_cb done;
	void *arg;
};

static void warmup_exec_cb(struct agent_client *ac, const struct error *err,
			   const struct agent_exec_result *r, void *arg)
{
	struct warmup *w = arg;
	int ok = !err && r && r->exited && r->exit_code == 0 && !r->survivors;
	struct error failed;

	(void)ac;
	if (!ok && !(err && err->code == -ECANCELED)) /* shutting down */
		log_warn("[%s] warm-up of %.12s failed: %s%s%.*s",
			 w->pl->desc->name, box_id(w->box), err ? err->msg : "",
			 r && r->timed_out ? "it ran out of the language's "
					     "start_timeout_ms "
					   : "",
			 r ? (int)(r->err_len > 300 ? 300 : r->err_len) : 0,
			 r ? r->err : "");
	if (!ok && !err) {
		error_set(&failed, ERR_SANDBOX, "the warm-up code failed");
		err = &failed;
	}
	w->done(w->box, err, 1, w->arg);
	free(w);
}

/* The plugin's warmup_code, as an ordinary execution. */
static int warmup_code(struct warmup *w)
{
	const char *code = w->pl->desc->warmup_code;
	struct request_bufs bufs;
	struct agent_exec_req q;

	if (!code || fill_request(w->pl, NULL, 0, NULL, &bufs, &q))
		return -EINVAL;
	q.code = code;
	q.code_len = strlen(code);
	/* Part of the container's start, and bounded as it is: by the
	 * language's start_timeout_ms, not a program's timeout (python-ml's
	 * fork server imports here: seconds, tens of seconds on a machine
	 * that shares its CPUs). The pool closes the connection (and so
	 * settles this request) when the start as a whole runs out of it. */
	q.timeout_ms = w->pl->policy.start_timeout_ms;
	return agent_client_exec(box_agent(w->box), &q, warmup_exec_cb, w);
}

static void prestart_cb(struct agent_client *ac, const struct error *err,
			void *arg)
{
	struct warmup *w = arg;

	/* Shutting down, or the connection went (the box is no use). */
	if (err && (err->code == -ECANCELED || !agent_client_usable(ac))) {
		w->done(w->box, err, 0, w->arg);
		free(w);
		return;
	}
	/* The agent's refusal is not fatal: the box's calls then start
	 * the ordinary way. */
	if (err)
		log_warn("[%s] %.12s has no pre-started interpreter: %s",
			 w->pl->desc->name, box_id(w->box), err->msg);
	if (warmup_code(w) == 0)
		return;
	w->done(w->box, NULL, 0, w->arg);
	free(w);
}

/* AP_PRESTART with the run step every default call of the language has
 * (what fill_request gives without options or packages). */
static int prestart(struct warmup *w)
{
	const struct sbx_prestart *ps = w->pl->desc->prestart;
	const char *wait[MAX_ARGV];
	struct request_bufs bufs;
	struct agent_exec_req q;

	/* policy.prestart: the plugin declares one, sandbox.ini lets it. */
	if (!w->pl->policy.prestart ||
	    fill_request(w->pl, NULL, 0, NULL, &bufs, &q) ||
	    expand_argv(ps->cmd, w->pl->desc->file_name, wait))
		return -EINVAL;
	return agent_client_prestart(box_agent(w->box), &q,
				     ps->cmd ? wait : NULL, ps->env,
				     prestart_cb, w);
}

int exec_warmup(struct box *b, const struct plugin *pl,
		pool_warmup_done_cb done, void *arg)
{
	struct warmup *w;
	int rc;

	if (!box_agent(b) || (!pl->desc->warmup_code && !pl->policy.prestart))
		return -EINVAL;
	w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct warmup){.box = b, .pl = pl, .done = done, .arg = arg};
	rc = prestart(w);
	if (rc)
		rc = warmup_code(w);
	if (rc)
		free(w);
	return rc;
}

static void acquired_cb(struct box *b, const struct error *err, void *arg)
{
	struct exec_job *j = arg;

	j->wait = NULL;
	if (err) {
		job_fail(j, err->code, "%s", err->msg);
		return;
	}
	j->box = b;
	if (j->cancelled) {
		pool_release(box_pool(b), b, 0);
		j->box = NULL;
		job_fail(j, ERR_CANCELLED, NULL);
		return;
	}
	run_on_agent(j);
}

/* The bytes the session interpreter reads for one call: the plugin's own
 * (bash) or the standard framing of docs/session-interpreters.md. 0, or
 * ERR_CODE_REJECTED or ERR_SANDBOX (out of memory) with err. */
static int interpreter_request(struct exec_job *j,
			       const struct exec_request *req,
			       struct error *err)
{
	const struct sbx_plugin *d = req->pl->desc;
	char head[128], *out = NULL;
	size_t len = 0, plen;
	int n, rc;

	if (d->session_request) {
		rc = d->session_request(plugins_host_api(), req->session_seq,
					req->code, req->code_len,
					req->stdin_data ? req->stdin_data : "",
					req->stdin_len, &out, &len);
		if (rc < 0) {
			char *m = plugin_buffer_take(req->pl, out, 0, NULL);

			rc = error_set(err, ERR_CODE_REJECTED, "%s",
				       m ? m : "the plugin rejected the code");
			free(m);
			return rc;
		}
		j->code = plugin_buffer_take(req->pl, out, len, &j->code_len);
		if (!j->code)
			return error_set(err, ERR_CODE_REJECTED,
					 "the plugin's request for the "
					 "interpreter was not usable (see the "
					 "server's log)");
		return 0;
	}
	/* The package paths, when there are any, as a fourth part. */
	plen = req->pkg_paths ? strlen(req->pkg_paths) : 0;
	if (plen)
		n = snprintf(head, sizeof(head), "run %u %zu %zu %zu\n",
			     req->session_seq, req->code_len, req->stdin_len,
			     plen);
	else
		n = snprintf(head, sizeof(head), "run %u %zu %zu\n",
			     req->session_seq, req->code_len, req->stdin_len);
	len = (size_t)n + req->code_len + req->stdin_len + plen;
	j->code = malloc(len + 1);
	if (!j->code)
		return error_set(err, ERR_SANDBOX, "out of memory");
	memcpy(j->code, head, (size_t)n);
	memcpy(j->code + n, req->code, req->code_len);
	if (req->stdin_len)
		memcpy(j->code + n + req->code_len, req->stdin_data,
		       req->stdin_len);
	if (plen)
		memcpy(j->code + n + req->code_len + req->stdin_len,
		       req->pkg_paths, plen);
	j->code_len = len;
	return 0;
}

static void start_job(struct exec_job *j, const struct exec_request *req);

/* The request's borrowed parts copied into one allocation (and files into
 * their own), for a start after the scan. */
static int request_copy(struct exec_scan *sc, const struct exec_request *req)
{
	size_t plen = req->pkg_paths ? strlen(req->pkg_paths) + 1 : 0;
	size_t env = 0, elen = 0, k;
	char *p;

	for (;
	     req->extra_env && req->extra_env[env] && env < EXEC_MAX_EXTRA_ENV;
	     env++)
		elen += strlen(req->extra_env[env]) + 1;
	sc->req = *req;
	sc->mem = malloc((env + 1) * sizeof(char *) + elen + req->code_len + 1 +
			 req->stdin_len + 1 + plen);
	if (!sc->mem ||
	    exec_files_copy(req->files, req->nfiles, &sc->files) != 0)
		return -ENOMEM;
	sc->req.files = sc->files;
	p = sc->mem + (env + 1) * sizeof(char *);
	for (k = 0; k < env; k++) {
		size_t n = strlen(req->extra_env[k]) + 1;

		((char **)(void *)sc->mem)[k] = memcpy(p, req->extra_env[k], n);
		p += n;
	}
	((char **)(void *)sc->mem)[env] = NULL;
	sc->req.extra_env =
		req->extra_env ? (const char *const *)(void *)sc->mem : NULL;
	sc->req.code = memcpy(p, req->code, req->code_len);
	p[req->code_len] = '\0';
	p += req->code_len + 1;
	if (req->stdin_data) {
		sc->req.stdin_data = memcpy(p, req->stdin_data, req->stdin_len);
		p[req->stdin_len] = '\0';
	}
	p += req->stdin_len + 1;
	if (plen)
		sc->req.pkg_paths = memcpy(p, req->pkg_paths, plen);
	return 0;
}

static void scan_free(struct exec_scan *sc)
{
	if (!sc)
		return;
	free(sc->mem);
	free(sc->files);
	free(sc);
}

static void scan_work_cb(uv_work_t *w)
{
	struct exec_scan *sc = w->data;

	sc->nhits = blocklist_scan(sc->bl, sc->req.code, sc->req.code_len,
				   sc->hits, BLOCKLIST_MAX_HITS);
}

/* Refused: the matches in the message (the error's text is all a client
 * shows of it). */
static void fail_blocked(struct exec_job *j, const struct blocklist_hit *h,
			 int n)
{
	char msg[ERROR_MSG_MAX];
	size_t len;

	len = (size_t)snprintf(msg, sizeof(msg),
			       "the code blocklist ([%s] blocklist = block) "
			       "refused the code",
			       j->pl->desc->name);
	for (int k = 0; k < n && len < sizeof(msg); k++)
		len += (size_t)snprintf(msg + len, sizeof(msg) - len,
					"%s line %u, column %u: %s (`%s`)",
					k ? ";" : ":", h[k].line, h[k].column,
					h[k].rule->reason, h[k].match);
	job_fail(j, ERR_CODE_BLOCKED, "%s", msg);
}

static void scan_done_cb(uv_work_t *w, int status)
{
	struct exec_scan *sc = w->data;
	struct exec_job *j = sc->job;

	if (!j) { /* ended meanwhile (exec_abort_unsent) */
		scan_free(sc);
		return;
	}
	j->scan = NULL;
	if (status == UV_ECANCELED || j->cancelled) {
		job_fail(j, ERR_CANCELLED, NULL);
	} else if (sc->nhits < 0) {
		job_fail(j, ERR_SANDBOX, "out of memory");
	} else if (sc->nhits > 0 &&
		   j->pl->policy.blocklist.mode == BLOCKLIST_BLOCK) {
		fail_blocked(j, sc->hits, sc->nhits);
	} else {
		memcpy(j->hits, sc->hits,
		       (size_t)sc->nhits * sizeof(*sc->hits));
		j->nhits = (size_t)sc->nhits;
		start_job(j, &sc->req);
	}
	scan_free(sc);
}

/* The blocklist's scan, then start_job from the copy. */
static void scan_start(struct exec_job *j, const struct exec_request *req)
{
	struct exec_scan *sc = calloc(1, sizeof(*sc));

	if (sc) {
		/* set before it is queued: the thread may start at once */
		sc->work.data = sc;
		sc->job = j;
		sc->bl = &j->pl->policy.blocklist;
	}
	if (!sc || request_copy(sc, req) != 0 ||
	    uv_queue_work(j->watchdog.loop, &sc->work, scan_work_cb,
			  scan_done_cb) != 0) {
		scan_free(sc);
		job_fail(j, ERR_SANDBOX, "out of memory");
		return;
	}
	j->scan = sc;
}

int exec_start(uv_loop_t *loop, struct engines *es,
	       const struct exec_request *req, exec_done_cb cb, void *arg,
	       struct exec_job **out)
{
	struct exec_job *j;

	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	uv_timer_init(loop, &j->watchdog);
	j->watchdog.data = j;
	j->es = es;
	j->pl = req->pl;
	j->cb = cb;
	j->arg = arg;
	*out = j;
	j->in_start = 1;
	if (req->code_len + req->stdin_len > req->pl->policy.max_code_bytes)
		job_fail(j, ERR_CODE_TOO_LARGE,
			 "code%s is %zu bytes; the limit is %u bytes "
			 "(max_code_bytes)",
			 req->stdin_len ? " with stdin" : "",
			 req->code_len + req->stdin_len,
			 req->pl->policy.max_code_bytes);
	else if (blocklist_active(&req->pl->policy.blocklist))
		scan_start(j, req);
	else
		start_job(j, req);
	j->in_start = 0;
	return 0;
}

/* Policy (the one place that applies the language's resolved limits to a
 * call), then the code to the agent. Failures end the job through
 * job_fail, which defers the callback while exec_start runs. */
static void start_job(struct exec_job *j, const struct exec_request *req)
{
	const struct policy *po = &req->pl->policy;
	const struct sbx_plugin *d = req->pl->desc;
	char msg[ERROR_MSG_MAX];
	struct box *b = NULL;
	int rc, bare;

	j->timeout_ms =
		req->timeout_ms ? req->timeout_ms : po->limits.timeout_ms;
	if (j->timeout_ms > po->max_timeout_ms)
		j->timeout_ms = po->max_timeout_ms;
	j->nopts =
		req->nopts < EXEC_MAX_OPTIONS ? req->nopts : EXEC_MAX_OPTIONS;
	/* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
	memcpy(j->opts, req->opts, j->nopts * sizeof(j->opts[0]));
	for (size_t k = 0;
	     req->extra_env && req->extra_env[k] && k < EXEC_MAX_EXTRA_ENV; k++)
		if (!(j->extra_env[k] = strdup(req->extra_env[k]))) {
			job_fail(j, ERR_SANDBOX, "out of memory");
			return;
		}

	if (exec_files_copy(req->files, req->nfiles, &j->files)) {
		job_fail(j, ERR_SANDBOX, "out of memory");
		return;
	}
	j->nfiles = req->nfiles;
	j->files_root = req->files_root;
	j->file_cap = req->file_cap;
	j->collect = req->collect;
	j->session_ac = req->session_ac;
	j->session_seq = req->session_seq;
	j->grace_ms = req->grace_ms;
	j->stream_ms = req->stream_ms;
	j->output_cb = req->stream_ms ? req->output_cb : NULL;
	j->interpreter = req->session_ac && d->session_cmd && d->session_cmd[0];
	if (j->interpreter) {
		struct error err;

		if (interpreter_request(j, req, &err)) {
			job_fail(j, err.code, "%s", err.msg);
			return;
		}
		run_on_agent(j);
		return;
	}
	if (d->prepare_code) {
		char *rewritten = NULL;
		size_t len = 0;

		rc = d->prepare_code(plugins_host_api(), req->code,
				     req->code_len, &rewritten, &len);
		if (rc < 0) {
			char *m =
				plugin_buffer_take(req->pl, rewritten, 0, NULL);

			snprintf(msg, sizeof(msg), "%s",
				 m ? m : "the plugin rejected the code");
			free(m);
			job_fail(j, ERR_CODE_REJECTED, "%s", msg);
			return;
		}
		if (rewritten) {
			j->code = plugin_buffer_take(req->pl, rewritten, len,
						     &j->code_len);
			if (!j->code) {
				job_fail(j, ERR_SANDBOX,
					 "the plugin's rewritten code was not "
					 "usable (see the server's log)");
				return;
			}
		}
	}
	if (req->stdin_data) {
		j->stdin_data = malloc(req->stdin_len + 1);
		if (!j->stdin_data) {
			job_fail(j, ERR_SANDBOX, "out of memory");
			return;
		}
		memcpy(j->stdin_data, req->stdin_data, req->stdin_len);
		j->stdin_len = req->stdin_len;
	}
	if (!j->code) {
		j->code = malloc(req->code_len + 1);
		if (!j->code) {
			job_fail(j, ERR_SANDBOX, "out of memory");
			return;
		}
		memcpy(j->code, req->code, req->code_len);
		j->code_len = req->code_len;
	}
	if (j->session_ac) {
		run_on_agent(j);
		return;
	}
	/* With packages (their paths in extra_env), a warm-up's fork server
	 * or waiting interpreter, started without them, would be started
	 * again. */
	bare = req->extra_env && req->extra_env[0];
	rc = engines_acquire(j->es, req->pl, req->engine, bare ? POOL_BARE : 0,
			     acquired_cb, j, &b, &j->wait);
	if (rc < 0) {
		job_fail(j, rc == ERR_SHUTTING_DOWN ? rc : ERR_SANDBOX,
			 "cannot get a sandbox container");
		return;
	}
	if (rc == 1)
		return;
	j->box = b;
	run_on_agent(j);
}

void exec_abort_unsent(struct exec_job *j)
{
	if (!j || j->done || (!j->scan && !j->stage))
		return;
	if (j->scan) {
		j->scan->job = NULL; /* scan_done_cb frees it */
		j->scan = NULL;
	}
	if (j->stage) { /* it must never use the connection again */
		stage_abort(j->stage);
		j->stage = NULL;
	}
	j->lost = 1; /* the session's connection goes */
	job_fail(j, ERR_CANCELLED, NULL);
}

void exec_cancel(struct exec_job *j)
{
	if (j->done || j->cancelled)
		return;
	j->cancelled = 1;
	if (j->coll) {
		collect_stop(j->coll); /* the run is over: what is read stays */
	} else if (j->stage) {
		stage_cancel(j->stage); /* after the piece on its way */
	} else if (job_agent(j)) {
		agent_client_cancel(job_agent(j));
	} else if (j->scan) {
		/* Not started yet: scan_done_cb ends the job either way. */
		uv_cancel((uv_req_t *)&j->scan->work);
	} else if (j->wait) {
		engines_cancel_acquire(j->wait);
		j->wait = NULL;
		job_fail(j, ERR_CANCELLED, NULL);
	}
}
