/*
 * test_session_queue.c - sessions (session.h) with the real pool, executor
 * and agent client against the fake engine (tests/fakes): no Docker. What
 * a caller counts on: session_create's refusals come back at once as
 * return codes and its success later through the callback; a session's
 * calls run one at a time in order; a full queue is ERR_SESSION_BUSY at
 * once; a queued call cancelled ends with ERR_CANCELLED; destroy ends the
 * running and queued calls with ERR_SESSION_DESTROYED; a session's memory
 * figure is measured in the background and read without waiting.
 *
 * The fake language has no session interpreter: every call runs as a
 * program in the session's container.
 *
 * Run with a scenario name as argument to run only that one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/session/session.h"
#include "core_env.h"

struct created {
	int n;
	int early; /* before session_create returned */
	struct session *s;
	int err;
	char msg[ERROR_MSG_MAX];
};

static void created_cb(struct session *s, const struct error *err, void *arg)
{
	struct created *c = arg;

	c->n++;
	c->early += env_in_call;
	c->s = s;
	c->err = err ? err->code : 0;
	snprintf(c->msg, sizeof(c->msg), "%s", err ? err->msg : "");
}

static int create(struct session_mgr *m, const struct plugin *pl,
		  const char *name, uint32_t ttl_s, struct created *c,
		  struct error *err)
{
	int rc;

	memset(c, 0, sizeof(*c));
	memset(err, 0, sizeof(*err));
	env_in_call = 1;
	rc = session_create(m, pl, name, ttl_s, NULL, created_cb, c, err);
	env_in_call = 0;
	return rc;
}

/* A session ready for calls, or NULL. */
static struct session *open_session(struct env *e, struct session_mgr *m,
				    const char *name)
{
	struct created c;
	struct error err;

	CHECK(create(m, e->pl, name, 0, &c, &err) == 0);
	CHECK(c.n == 0);
	RUN_UNTIL(e, c.n == 1);
	CHECK(c.early == 0);
	CHECK(c.err == 0 && c.s != NULL);
	return c.s;
}

static void mgr_close(struct env *e, struct session_mgr *m);

/* A scenario's environment, manager and one open session; NULL (with
 * everything closed again) when the session could not be opened. */
static struct session *scenario_open(struct env *e, struct session_mgr **m,
				     const char *scenario,
				     const char *const *cfg, const char *name)
{
	struct session *s;

	env_open(e, scenario, cfg, 0);
	CHECK(session_mgr_new(&e->loop, e->es, &e->ps, &e->cfg, m) == 0);
	s = open_session(e, *m, name);
	if (!s) {
		mgr_close(e, *m);
		env_close(e);
	}
	return s;
}

/* The session's memory figure as a reader gets it now. */
static struct session_info memory_of(const struct session *s)
{
	struct session_info in;

	session_info(s, &in);
	return in;
}

static int call(struct session *s, const struct plugin *pl, const char *code,
		struct run *r, struct session_call **out, struct error *err)
{
	struct exec_request q = {.pl = pl, .code = code};
	int rc;

	memset(r, 0, sizeof(*r));
	memset(err, 0, sizeof(*err));
	q.code_len = strlen(code);
	env_in_call = 1;
	rc = session_exec(s, &q, env_run_cb, r, out, err);
	env_in_call = 0;
	return rc;
}

static void mgr_free(void *m)
{
	session_mgr_free(m);
}

/* The manager's timer closes through the loop: it is freed by
 * env_close(), after the loop has run. */
static void mgr_close(struct env *e, struct session_mgr *m)
{
	int done = 0;

	session_mgr_shutdown(m, env_flag_cb, &done);
	RUN_UNTIL(e, done);
	e->late_free = mgr_free;
	e->late_arg = m;
}

#define SESSION_CFG                                                            \
	"sessions", "max_sessions", "2",       /* */                           \
		"sessions", "max_queued", "2", /* */                           \
		"sessions", "max_ttl", "3600"

/* Refusals at once, without the callback; success later, with it, even
 * when a warm container was there at once. */
static void t_create(void)
{
	static const char *const cfg[] = {SESSION_CFG, "fake", "pool_size", "1",
					  NULL};
	struct pool_stats ps;
	struct env e;
	struct session_mgr *m;
	struct created c, bad[5];
	struct error err;
	struct session_info info;
	const struct fake_container *fc;
	struct session *s;
	size_t i;

	env_open(&e, "create", cfg, 0);
	CHECK(session_mgr_new(&e.loop, e.es, &e.ps, &e.cfg, &m) == 0);

	CHECK(create(m, e.pl, "no spaces", 0, &bad[0], &err) ==
	      ERR_INVALID_NAME);
	CHECK(err.code == ERR_INVALID_NAME && err.msg[0]);
	CHECK(create(m, e.pl, "s1", 3601, &bad[1], &err) ==
	      ERR_INVALID_ARGUMENTS);
	CHECK_STR_CONTAINS(err.msg, "3600");

	pool_prewarm(e.pool);
	RUN_UNTIL(&e, (pool_stats(e.pool, e.pl, &ps), ps.idle >= 1));
	CHECK(create(m, e.pl, "s1", 0, &c, &err) == 0);
	CHECK(c.n == 0); /* never before session_create returned */
	RUN_UNTIL(&e, c.n == 1);
	CHECK(c.early == 0);
	CHECK(c.err == 0 && c.s != NULL);
	s = c.s;
	CHECK(s && session_find(m, "s1") == s);
	if (s) {
		session_info(s, &info);
		CHECK(strcmp(info.state, "active") == 0);
		CHECK(strcmp(info.language, "fake") == 0);
		CHECK(info.queued == 0 && info.interpreter == 0);
		/* Named for a restart to find it, before create answered. */
		fc = fake_engine_find(e.fe, info.container_id);
		CHECK(fc && strncmp(fc->name, SESSION_CONTAINER_PREFIX,
				    strlen(SESSION_CONTAINER_PREFIX)) == 0);
		CHECK(fc && strstr(fc->name, ".fake.s1") != NULL);
	}
	CHECK(fake_engine_count(e.fe, FAKE_OP_RENAME) == 1);

	CHECK(create(m, e.pl, "s1", 0, &bad[2], &err) == ERR_SESSION_EXISTS);
	CHECK(create(m, e.pl, NULL, 0, &c, &err) == 0); /* a generated name */
	RUN_UNTIL(&e, c.n == 1);
	CHECK(c.err == 0 && c.s != NULL);
	CHECK(create(m, e.pl, "s3", 0, &bad[3], &err) == ERR_MAX_SESSIONS);

	session_destroy(s);
	CHECK(session_find(m, "s1") == NULL);

	/* The engine's failures come through the callback, later (for a
	 * language without a warm container). */
	e.faults->no_image = 1;
	CHECK(create(m, e.other, "s4", 0, &c, &err) == 0);
	CHECK(c.n == 0);
	RUN_UNTIL(&e, c.n == 1);
	CHECK(c.early == 0);
	CHECK(c.err == ERR_IMAGE_MISSING && c.s == NULL);
	CHECK(session_find(m, "s4") == NULL);
	e.faults->no_image = 0;

	{
		int done = 0;

		session_mgr_shutdown(m, env_flag_cb, &done);
		CHECK(create(m, e.pl, "s5", 0, &bad[4], &err) ==
		      ERR_SHUTTING_DOWN);
		RUN_UNTIL(&e, done);
		e.late_free = mgr_free;
		e.late_arg = m;
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(bad[i].n == 0);
	env_close(&e);
}

/* The session's calls run one at a time, in the order they came, each
 * waiting for the one before to end. */
static void t_order(void)
{
	static const char *const cfg[] = {SESSION_CFG, NULL};
	const struct fake_exec_reply held = {.how = FAKE_EXEC_HOLD};
	static const char *const codes[] = {"one", "two", "three"};
	struct env e;
	struct session_mgr *m;
	struct session *s;
	struct session_call *sc[3];
	struct session_info info;
	struct run r[3];
	struct error err;
	int i;

	s = scenario_open(&e, &m, "order", cfg, "ordered");
	if (!s)
		return;
	e.script->exec = held;
	for (i = 0; i < 3; i++)
		CHECK(call(s, e.pl, codes[i], &r[i], &sc[i], &err) == 0);
	session_info(s, &info);
	CHECK(info.queued == 2);
	CHECK(strcmp(info.state, "busy") == 0);
	for (i = 0; i < 3; i++) {
		/* Call i and no other is at the agent. */
		RUN_UNTIL(&e, fake_engine_holding(e.fe) == 1);
		CHECK(e.script->nseen == (unsigned)i + 1);
		CHECK(strcmp(e.script->seen[i].code, codes[i]) == 0);
		CHECK(r[i].n == 0);
		CHECK(fake_engine_release(e.fe) == 0);
		RUN_UNTIL(&e, r[i].n == 1);
		CHECK(r[i].early == 0);
		CHECK(r[i].error == 0);
	}
	CHECK(r[0].order < r[1].order && r[1].order < r[2].order);
	CHECK(e.script->total.bad == 0); /* never two at once */
	/* All in the session's one container, which the pool let go. */
	for (i = 1; i < 3; i++)
		CHECK(strcmp(e.script->seen[i].agent,
			     e.script->seen[0].agent) == 0);
	session_info(s, &info);
	CHECK(info.executions == 3 && info.queued == 0);
	CHECK(e.script->total.reset == 0);
	mgr_close(&e, m);
	env_close(&e);
}

/* Beyond max_queued waiting calls: ERR_SESSION_BUSY at once, and that
 * call's callback never runs. */
static void t_queue_limit(void)
{
	static const char *const cfg[] = {SESSION_CFG, NULL};
	const struct fake_exec_reply held = {.how = FAKE_EXEC_HOLD};
	struct env e;
	struct session_mgr *m;
	struct session *s;
	struct session_call *sc[4];
	struct run r[4];
	struct error err;
	int i;

	s = scenario_open(&e, &m, "queue-limit", cfg, "busy");
	if (!s)
		return;
	e.script->exec = held;
	for (i = 0; i < 3; i++)
		CHECK(call(s, e.pl, "x", &r[i], &sc[i], &err) == 0);
	CHECK(call(s, e.pl, "too many", &r[3], &sc[3], &err) ==
	      ERR_SESSION_BUSY);
	CHECK(err.code == ERR_SESSION_BUSY);
	CHECK_STR_CONTAINS(err.msg, "2 more");
	for (i = 0; i < 3; i++) {
		RUN_UNTIL(&e, fake_engine_holding(e.fe) == 1);
		CHECK(fake_engine_release(e.fe) == 0);
		RUN_UNTIL(&e, r[i].n == 1);
		CHECK(r[i].error == 0);
	}
	CHECK(r[3].n == 0);
	CHECK(e.script->nseen == 3);
	mgr_close(&e, m);
	env_close(&e);
}

/* A queued call cancelled ends at once with ERR_CANCELLED and never runs;
 * the running one cancelled is stopped by the agent. */
static void t_cancel(void)
{
	static const char *const cfg[] = {SESSION_CFG, NULL};
	const struct fake_exec_reply held = {.how = FAKE_EXEC_HOLD};
	struct env e;
	struct session_mgr *m;
	struct session *s;
	struct session_call *sc[3];
	struct run r[3];
	struct error err;
	int i;

	s = scenario_open(&e, &m, "cancel", cfg, "cancelled");
	if (!s)
		return;
	e.script->exec = held;
	CHECK(call(s, e.pl, "one", &r[0], &sc[0], &err) == 0);
	CHECK(call(s, e.pl, "two", &r[1], &sc[1], &err) == 0);
	CHECK(call(s, e.pl, "three", &r[2], &sc[2], &err) == 0);
	RUN_UNTIL(&e, fake_engine_holding(e.fe) == 1);

	session_call_cancel(sc[1]);
	CHECK(r[1].n == 1); /* before session_call_cancel returned */
	CHECK(r[1].error == ERR_CANCELLED);
	CHECK(r[0].n == 0 && r[2].n == 0);

	CHECK(fake_engine_release(e.fe) == 0);
	RUN_UNTIL(&e, r[0].n == 1 && fake_engine_holding(e.fe) == 1);
	CHECK(r[0].error == 0);
	CHECK(e.script->nseen == 2);
	CHECK(strcmp(e.script->seen[1].code, "three") == 0);

	session_call_cancel(sc[2]);
	RUN_UNTIL(&e, r[2].n == 1);
	CHECK(r[2].early == 0);
	CHECK(r[2].error == 0 && r[2].o.cancelled == 1);
	CHECK(e.script->total.cancel == 1);
	for (i = 0; i < 3; i++)
		CHECK(r[i].n == 1);
	CHECK(session_find(m, "cancelled") == s);
	mgr_close(&e, m);
	env_close(&e);
}

/* Destroy ends the running call and the queued one before it returns,
 * with ERR_SESSION_DESTROYED, and removes the container. */
static void t_destroy(void)
{
	static const char *const cfg[] = {SESSION_CFG, NULL};
	const struct fake_exec_reply held = {.how = FAKE_EXEC_HOLD};
	struct env e;
	struct session_mgr *m;
	struct session *s;
	struct session_call *sc[2];
	struct session_info info;
	struct run r[2];
	struct error err;
	const struct fake_container *fc;

	s = scenario_open(&e, &m, "destroy", cfg, "doomed");
	if (!s)
		return;
	session_info(s, &info);
	fc = fake_engine_find(e.fe, info.container_id);
	CHECK(fc != NULL);
	e.script->exec = held;
	CHECK(call(s, e.pl, "running", &r[0], &sc[0], &err) == 0);
	CHECK(call(s, e.pl, "queued", &r[1], &sc[1], &err) == 0);
	RUN_UNTIL(&e, fake_engine_holding(e.fe) == 1);

	session_destroy(s);
	CHECK(r[0].n == 1 && r[0].error == ERR_SESSION_DESTROYED);
	CHECK(r[1].n == 1 && r[1].error == ERR_SESSION_DESTROYED);
	CHECK(session_find(m, "doomed") == NULL);
	RUN_UNTIL(&e, fc && fc->removed);
	CHECK(e.script->nseen == 1);
	mgr_close(&e, m);
	CHECK(r[0].n == 1 && r[1].n == 1);
	env_close(&e);
}

/* Pause freezes the container (calls refused meanwhile), resume thaws it;
 * memory comes from the engine's statistics. */
static void t_pause_memory(void)
{
	static const char *const cfg[] = {SESSION_CFG, NULL};
	struct env e;
	struct session_mgr *m;
	struct session *s;
	struct session_call *sc;
	struct session_info info;
	struct created c;
	struct run r;
	struct error err;

	s = scenario_open(&e, &m, "pause-memory", cfg, "frozen");
	if (!s)
		return;
	memset(&c, 0, sizeof(c));
	CHECK(session_pause(s, created_cb, &c, &err) == 0);
	CHECK(c.n == 0);
	RUN_UNTIL(&e, c.n == 1);
	CHECK(c.err == 0 && c.s == s);
	CHECK(fake_engine_count(e.fe, FAKE_OP_PAUSE) == 1);
	session_info(s, &info);
	CHECK(strcmp(info.state, "paused") == 0);
	CHECK(fake_engine_find(e.fe, info.container_id)->paused == 1);
	CHECK(call(s, e.pl, "x", &r, &sc, &err) == ERR_SESSION_PAUSED);

	memset(&c, 0, sizeof(c));
	CHECK(session_resume(s, created_cb, &c, &err) == 0);
	RUN_UNTIL(&e, c.n == 1);
	CHECK(c.err == 0 && c.s == s);
	CHECK(fake_engine_find(e.fe, info.container_id)->paused == 0);
	CHECK(call(s, e.pl, "x", &r, &sc, &err) == 0);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);

	/* Measured once at create, in the background. */
	RUN_UNTIL(&e, memory_of(s).memory_known);
	info = memory_of(s);
	CHECK(info.memory_bytes == 10485760 - 2097152); /* usage - inactive */
	CHECK(info.memory_age_ms >= 0 && info.memory_age_ms < 60000);
	CHECK(fake_engine_count(e.fe, FAKE_OP_STATS) == 1);
	mgr_close(&e, m);
	env_close(&e);
}

/* A session's memory is measured in the background: a reader never waits
 * for the engine (it gets nothing before the first measurement, then the
 * last figure and its age); every session is asked at once; a figure
 * changes with the container's use; a failed measurement keeps the last
 * figure; a session destroyed while its measurement is in flight, and a
 * shutdown with measurements in flight, withdraw them. */
static void t_memory(void)
{
	static const char *const cfg[] = {
		"sessions", "max_sessions",	 "4", /* */
		"sessions", "memory_refresh_ms", "200", NULL,
	};
	struct env e;
	struct session_mgr *m;
	struct session *s[3];
	struct session_info in;
	uint64_t age;
	unsigned stats;
	size_t i;

	env_open(&e, "memory", cfg, 0);
	CHECK(session_mgr_new(&e.loop, e.es, &e.ps, &e.cfg, &m) == 0);
	fake_engine_faults(e.fe)->stats_hold = 1;
	s[0] = open_session(&e, m, "a");
	/* Created: its first measurement is asked at once and is held by
	 * the engine; the session answers without it. */
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 1);
	in = memory_of(s[0]);
	CHECK(!in.memory_known && in.memory_bytes == 0);
	/* Destroyed while it is in flight: withdrawn (its connection is
	 * dropped), nothing lands in the freed session (ASan). */
	session_destroy(s[0]);
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 0);

	for (i = 0; i < 3; i++) {
		char name[8];

		snprintf(name, sizeof(name), "s%zu", i);
		s[i] = open_session(&e, m, name);
		CHECK(s[i] != NULL);
		if (!s[i])
			goto out;
	}
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 3);
	fake_engine_release_stats(e.fe);
	RUN_UNTIL(&e, memory_of(s[0]).memory_known &&
			      memory_of(s[1]).memory_known &&
			      memory_of(s[2]).memory_known);
	CHECK(memory_of(s[2]).memory_bytes == 10485760 - 2097152);
	/* The next round asks for the three at once, not one by one. */
	stats = fake_engine_count(e.fe, FAKE_OP_STATS);
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 3);
	CHECK(fake_engine_count(e.fe, FAKE_OP_STATS) == stats + 3);
	/* Until they answer, readers get the last figure, ageing. */
	age = (uint64_t)memory_of(s[1]).memory_age_ms;
	RUN_UNTIL(&e, (uint64_t)memory_of(s[1]).memory_age_ms > age + 100);
	CHECK(memory_of(s[1]).memory_bytes == 10485760 - 2097152);
	fake_engine_set_memory(e.fe, 300u << 20);
	fake_engine_release_stats(e.fe);
	RUN_UNTIL(&e, memory_of(s[1]).memory_bytes == (300u << 20) - 2097152);
	CHECK(memory_of(s[1]).memory_age_ms < 100);

	/* The engine fails: the figure stays, and its age grows past a
	 * refresh. */
	fake_engine_faults(e.fe)->stats_hold = 0;
	fake_engine_faults(e.fe)->stats_fail = 1;
	stats = fake_engine_count(e.fe, FAKE_OP_STATS);
	RUN_UNTIL(&e, fake_engine_count(e.fe, FAKE_OP_STATS) >= stats + 6);
	in = memory_of(s[0]);
	CHECK(in.memory_known && in.memory_bytes == (300u << 20) - 2097152);
	CHECK(in.memory_age_ms > 200);

	/* Measurements in flight at shutdown are withdrawn. */
	fake_engine_faults(e.fe)->stats_fail = 0;
	fake_engine_faults(e.fe)->stats_hold = 1;
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 3);
out:
	mgr_close(&e, m);
	RUN_UNTIL(&e, fake_engine_stats_held(e.fe) == 0);
	env_close(&e);
}

static const struct env_scenario scenarios[] = {
	{"create", t_create},		{"order", t_order},
	{"queue-limit", t_queue_limit}, {"cancel", t_cancel},
	{"destroy", t_destroy},		{"pause-memory", t_pause_memory},
	{"memory", t_memory},
};

int main(int argc, char **argv)
{
	return env_run("session_queue", scenarios,
		       sizeof(scenarios) / sizeof(scenarios[0]), argc, argv);
}
