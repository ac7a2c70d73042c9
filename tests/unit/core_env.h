/*
 * core_env.h - what the pool, executor and session tests share: a loop
 * with a watchdog that fails the test, the fake engine (tests/fakes) with
 * a Docker client on it, a plugin set made by hand with two languages
 * ("fake" and "other"), a pool, and helpers that record what the pool's
 * and the executor's callbacks saw. Header-only, like testlib.h: each test
 * program gets its own copy.
 *
 * Every scenario opens its own env and closes it: a fresh loop, engine
 * and pool, and uv_loop_close() == 0 at the end (a leaked handle fails).
 */
#ifndef SBX_CORE_ENV_H
#define SBX_CORE_ENV_H

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <uv.h>

#include "core/plugins/config.h"
#include "core/engines/engines.h"
#include "core/exec/executor.h"
#include "core/plugins/plugins.h"
#include "core/engines/pool.h"
#include "docker/docker.h"
#include "fake_engine.h"
#include "testlib.h"
#include "util/log.h"

#define ENV_WATCHDOG_MS 3000

struct env {
	uv_loop_t loop;
	uv_timer_t watchdog;
	int stuck; /* the watchdog fired: the scenario failed */
	const char *name;
	struct fake_engine *fe;
	struct fake_agent_script *script; /* every fake agent's */
	struct fake_engine_faults *faults;
	struct engines *es; /* one engine: the fake */
	struct docker *d;   /* its client */
	struct config cfg;
	struct plugin_set ps;
	const struct plugin *pl;    /* "fake" */
	const struct plugin *other; /* "other" */
	struct pool *pool;	    /* its pool */
	int pool_shut;		    /* the scenario shut the pool down itself */
	/* Freed by env_close() once the loop has closed every handle (an
	 * owner of embedded handles, e.g. the session manager). */
	void (*late_free)(void *arg);
	void *late_arg;
};

static const char *const env_run_cmd[] = {"fake-run", "{file}", NULL};

static const struct sbx_plugin env_plugins[] = {
	{
		.struct_size = sizeof(struct sbx_plugin),
		.abi_major = SBX_PLUGIN_ABI_MAJOR,
		.abi_minor = SBX_PLUGIN_ABI_MINOR,
		.name = "fake",
		.version = "1",
		.description = "a language that runs nowhere",
		.image = "mcp-sandbox/fake:latest",
		.file_name = "main.fk",
		.run_cmd = env_run_cmd,
	},
	{
		.struct_size = sizeof(struct sbx_plugin),
		.abi_major = SBX_PLUGIN_ABI_MAJOR,
		.abi_minor = SBX_PLUGIN_ABI_MINOR,
		.name = "other",
		.version = "1",
		.description = "another one",
		.image = "mcp-sandbox/other:latest",
		.file_name = "main.ot",
		.run_cmd = env_run_cmd,
	},
};

/* Set around calls that take a callback: a callback that sees it set ran
 * before the call returned, which the callback contract forbids. */
static int env_in_call;

static inline void env_watchdog_cb(uv_timer_t *t)
{
	struct env *e = t->data;

	fprintf(stderr, "FAIL %s: no progress before the watchdog\n", e->name);
	t_failed++;
	e->stuck = 1;
	uv_stop(&e->loop);
}

/* Runs the loop until cond holds; a scenario that stalls (the watchdog,
 * or nothing left to run) fails here. */
#define RUN_UNTIL(e, cond)                                                     \
	do {                                                                   \
		while (!(cond) && !(e)->stuck &&                               \
		       uv_run(&(e)->loop, UV_RUN_ONCE))                        \
			;                                                      \
		if (cond) {                                                    \
			t_passed++;                                            \
		} else {                                                       \
			t_failed++;                                            \
			fprintf(stderr, "FAIL %s:%d: %s: never: %s\n",         \
				__FILE__, __LINE__, (e)->name, #cond);         \
		}                                                              \
	} while (0)

static inline void env_negotiated_cb(const struct docker_response *res,
				     void *arg)
{
	*(int *)arg = res->err ? res->err : (int)res->status;
}

/*
 * settings: "section", "key", "value" triples, NULL-terminated (config_set
 * on top of the built-in defaults and of "[pool] size = 0": no warm boxes
 * unless a scenario asks). watchdog_ms 0: ENV_WATCHDOG_MS. The client
 * negotiates the API version first, as the server does: requests carry
 * the "/v1.44" prefix.
 */
static inline void env_open(struct env *e, const char *name,
			    const char *const *settings, unsigned watchdog_ms)
{
	static const char *const labels[] = {"org.mcp-sandbox.test=unit", NULL};
	struct error err;
	int negotiated = 0;
	size_t i;

	memset(e, 0, sizeof(*e));
	e->name = name;
	if (uv_loop_init(&e->loop) || fake_engine_start(&e->loop, &e->fe)) {
		fprintf(stderr, "FAIL %s: cannot start the fake engine\n",
			name);
		exit(1);
	}
	config_init(&e->cfg);
	CHECK(config_set(&e->cfg, "docker", "host", fake_engine_url(e->fe),
			 &err) == 0);
	CHECK(config_set(&e->cfg, "pool", "size", "0", &err) == 0);
	/* No budget and no shrinking unless a scenario asks. */
	CHECK(config_set(&e->cfg, "pool", "memory_budget_mb", "0", &err) == 0);
	CHECK(config_set(&e->cfg, "pool", "idle_shrink_s", "0", &err) == 0);
	/* Both fake languages are warm from the start, up to their size. */
	CHECK(config_set(&e->cfg, "pool", "warm_at_start", "*", &err) == 0);
	for (i = 0; settings && settings[i]; i += 3) {
		int rc = config_set(&e->cfg, settings[i], settings[i + 1],
				    settings[i + 2], &err);

		if (rc)
			fprintf(stderr, "FAIL %s: [%s] %s: %s\n", name,
				settings[i], settings[i + 1], err.msg);
		CHECK(rc == 0);
	}
	/* What plugins_load_dir() does for a .so, minus the .so: the
	 * program's own handle stands in for it (plugins_close dlcloses). */
	e->ps.n = sizeof(env_plugins) / sizeof(env_plugins[0]);
	e->ps.v = calloc(e->ps.n, sizeof(*e->ps.v));
	if (!e->ps.v)
		exit(1);
	for (i = 0; i < e->ps.n; i++) {
		CHECK(plugin_validate(&env_plugins[i], &err) == 0);
		plugin_descriptor_copy(&env_plugins[i], &e->ps.v[i].d);
		e->ps.v[i].desc = &e->ps.v[i].d;
		e->ps.v[i].dl = dlopen(NULL, RTLD_NOW);
	}
	CHECK(plugins_apply_config(&e->ps, &e->cfg) == 0);
	e->pl = plugins_find(&e->ps, "fake");
	e->other = plugins_find(&e->ps, "other");
	/* The server's engine set, of one engine: the fake. */
	if (engines_new(&e->loop, &e->cfg, &e->ps,
			&(struct engines_options){.labels = labels}, &e->es,
			&err)) {
		fprintf(stderr, "FAIL %s: engines_new: %s\n", name, err.msg);
		fake_engine_unlink(e->fe);
		exit(1);
	}
	e->d = engine_docker(engines_at(e->es, 0));
	e->pool = engine_pool(engines_at(e->es, 0));
	e->script = fake_engine_script(e->fe);
	e->faults = fake_engine_faults(e->fe);
	uv_timer_init(&e->loop, &e->watchdog);
	e->watchdog.data = e;
	uv_timer_start(&e->watchdog, env_watchdog_cb,
		       watchdog_ms ? watchdog_ms : ENV_WATCHDOG_MS, 0);
	uv_unref((uv_handle_t *)&e->watchdog);
	CHECK(docker_negotiate(e->d, env_negotiated_cb, &negotiated) == 0);
	RUN_UNTIL(e, negotiated != 0);
	CHECK(negotiated == 200);
	CHECK(docker_api_version(e->d) &&
	      strcmp(docker_api_version(e->d), "1.44") == 0);
}

static inline void env_flag_cb(void *arg)
{
	*(int *)arg = 1;
}

/* Shuts the pool down (every container removed), then the client and
 * the engine; the loop must close with no handle left. The pool is freed
 * last, as cli/app.c does: its timer is closed through the loop. */
static inline void env_close(struct env *e)
{
	int done = 0;

	if (!e->pool_shut) {
		pool_shutdown(e->pool, env_flag_cb, &done);
		RUN_UNTIL(e, done);
	}
	engines_close_clients(e->es);
	fake_engine_stop(e->fe);
	uv_close((uv_handle_t *)&e->watchdog, NULL);
	uv_run(&e->loop, UV_RUN_DEFAULT);
	CHECK(uv_loop_close(&e->loop) == 0);
	if (e->late_free)
		e->late_free(e->late_arg);
	engines_free(e->es);
	plugins_close(&e->ps);
	config_close(&e->cfg);
}

/* ---- pool_acquire ---- */

struct acq {
	int n;			/* callbacks */
	int early;		/* ... before pool_acquire returned */
	int order;		/* serial of the callback among all acquires */
	int rc;			/* pool_acquire's return */
	struct box *box;	/* the box, from the return or the callback */
	struct pool_wait *wait; /* while rc is 1 and the callback to come */
	int err;
	char msg[512];
};

static int env_acq_serial;

static inline void env_acq_cb(struct box *b, const struct error *err, void *arg)
{
	struct acq *a = arg;

	a->n++;
	a->early += env_in_call;
	a->order = ++env_acq_serial;
	a->box = b;
	a->err = err ? err->code : 0;
	snprintf(a->msg, sizeof(a->msg), "%.200s", err ? err->msg : "");
}

static inline int env_acquire(struct env *e, const struct plugin *pl,
			      struct acq *a)
{
	memset(a, 0, sizeof(*a));
	env_in_call = 1;
	a->rc = pool_acquire(e->pool, pl, 0, env_acq_cb, a, &a->box, &a->wait);
	env_in_call = 0;
	return a->rc;
}

/* A box of pl, warm or started for us (NULL on failure). */
static inline struct box *env_take(struct env *e, const struct plugin *pl,
				   struct acq *a)
{
	int rc = env_acquire(e, pl, a);

	CHECK(rc == 0 || rc == 1);
	if (rc == 1)
		RUN_UNTIL(e, a->n == 1);
	CHECK(a->early == 0);
	return a->err ? NULL : a->box;
}

/* ---- exec_start ---- */

struct run {
	int n;	   /* callbacks */
	int early; /* ... before exec_start returned */
	int order;
	struct exec_job *job;
	int error; /* 0: the program ran */
	char errmsg[ERROR_MSG_MAX];
	struct exec_outcome o; /* pointers cleared; the copies below */
	char out[4096], err[4096], phase[8];
	char streamed[256];		   /* what output_cb got */
	char hit[BLOCKLIST_MATCH_MAX + 1]; /* the first blocklist match */
	uint32_t hit_line;
};

static int env_run_serial;

static inline void env_run_cb(const struct error *err,
			      const struct exec_outcome *o, void *arg)
{
	struct run *r = arg;

	r->n++;
	r->early += env_in_call;
	r->order = ++env_run_serial;
	r->o = *o;
	r->o.out = r->o.err = r->o.phase = r->o.language = NULL;
	r->error = err ? err->code : 0;
	snprintf(r->errmsg, sizeof(r->errmsg), "%s", err ? err->msg : "");
	snprintf(r->out, sizeof(r->out), "%.*s", (int)o->out_len,
		 o->out ? o->out : "");
	snprintf(r->err, sizeof(r->err), "%.*s", (int)o->err_len,
		 o->err ? o->err : "");
	snprintf(r->phase, sizeof(r->phase), "%s", o->phase ? o->phase : "");
	r->o.blocklist = NULL;
	snprintf(r->hit, sizeof(r->hit), "%s",
		 o->nblocklist ? o->blocklist[0].match : "");
	r->hit_line = o->nblocklist ? o->blocklist[0].line : 0;
}

static inline void env_output_cb(const char *out, size_t out_len,
				 const char *err, size_t err_len, void *arg)
{
	struct run *r = arg;
	size_t have = strlen(r->streamed);

	(void)err;
	(void)err_len;
	snprintf(r->streamed + have, sizeof(r->streamed) - have, "%.*s",
		 (int)out_len, out);
}

/* exec_start of code in language pl; the request is filled from req when
 * given (its pl and code are replaced). */
static inline int env_exec(struct env *e, const struct plugin *pl,
			   const char *code, uint32_t timeout_ms,
			   const struct exec_request *req, struct run *r)
{
	struct exec_request q;
	int rc;

	memset(r, 0, sizeof(*r));
	if (req)
		q = *req;
	else
		memset(&q, 0, sizeof(q));
	q.pl = pl;
	q.code = code;
	q.code_len = strlen(code);
	q.timeout_ms = timeout_ms;
	if (q.stream_ms)
		q.output_cb = env_output_cb;
	env_in_call = 1;
	rc = exec_start(&e->loop, e->es, &q, env_run_cb, r, &r->job);
	env_in_call = 0;
	CHECK(rc == 0);
	return rc;
}

/* ---- the engine's records ---- */

static inline const struct fake_container *env_container(struct env *e,
							 unsigned i)
{
	return fake_engine_container(e->fe, i);
}

/* Container i was created and has been removed. */
static inline int env_removed(struct env *e, unsigned i)
{
	const struct fake_container *c = env_container(e, i);

	return c && c->removed;
}

/* The AP_EXEC frames container i's agent got (0 when it has none). */
static inline unsigned env_execs(struct env *e, unsigned i)
{
	const struct fake_container *c = env_container(e, i);

	return c && c->agent ? fake_agent_counts(c->agent)->exec : 0;
}

static inline unsigned env_resets(struct env *e, unsigned i)
{
	const struct fake_container *c = env_container(e, i);

	return c && c->agent ? fake_agent_counts(c->agent)->reset : 0;
}

static inline void env_init_process(void)
{
	/* The fake writes to sockets the host may have closed. */
	signal(SIGPIPE, SIG_IGN);
	log_set_level(getenv("SBX_TEST_DEBUG") ? LOG_LEVEL_DEBUG
					       : LOG_LEVEL_CRITICAL);
}

struct env_scenario {
	const char *name;
	void (*fn)(void);
};

/* Runs every scenario, or the one named on the command line (for
 * debugging one); fails when none ran. Returns the exit status. */
static inline int env_run(const char *suite, const struct env_scenario *v,
			  size_t n, int argc, char **argv)
{
	size_t i;
	int ran = 0;

	env_init_process();
	for (i = 0; i < n; i++)
		if (argc < 2 || strcmp(argv[1], v[i].name) == 0) {
			v[i].fn();
			ran++;
		}
	CHECK(ran > 0);
	return t_summary(suite);
}

#endif
