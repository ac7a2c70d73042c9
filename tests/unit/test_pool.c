/*
 * test_pool.c - the pool of warm containers (pool.h) against the fake
 * engine (tests/fakes): no Docker. What its callers count on: a warm box
 * costs no Docker call; a box given back is reset through its agent and
 * served again; an anomaly, max_uses and a failed reset cost the container
 * (DELETE) and the next caller gets a new one; callers beyond
 * max_containers are served in FIFO order; start failures reach the
 * waiting caller with the right code; shutdown removes every container;
 * a hold (a session's interpreter starting) stops the refill only.
 *
 * Sizing (how many boxes prewarm or refill start) is the pool's own
 * business: these scenarios bound it with max_containers or refill off,
 * and assert no count of idle boxes beyond "at least one".
 *
 * Run with a scenario name as argument to run only that one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core_env.h"

static struct pool_stats stats(struct env *e, const struct plugin *pl)
{
	struct pool_stats s;

	pool_stats(e->pool, pl, &s);
	return s;
}

/* A warm box is handed out at once, with no Docker call; given back, it
 * is reset through its agent, still without one. */
static void t_warm_box(void)
{
	static const char *const cfg[] = {"fake", "pool_size", "1", NULL};
	const struct fake_container *c;
	struct env e;
	struct acq a;
	unsigned requests;

	env_open(&e, "warm-box", cfg, 0);
	pool_prewarm(e.pool);
	RUN_UNTIL(&e, stats(&e, e.pl).idle >= 1);
	/* From here on the pool starts nothing by itself. */
	pool_set_refill(e.pool, 0);
	requests = fake_engine_requests(e.fe);
	CHECK(env_acquire(&e, e.pl, &a) == 0);
	CHECK(a.n == 0); /* returned, no callback */
	CHECK(a.box != NULL);
	if (!a.box) {
		env_close(&e);
		return;
	}
	CHECK(box_agent(a.box) != NULL);
	c = fake_engine_find(e.fe, box_id(a.box));
	CHECK(c && c->started && !c->removed && c->agent);
	CHECK(c && c->agent && fake_agent_counts(c->agent)->hello == 1);
	pool_release(e.pool, a.box, 0);
	RUN_UNTIL(&e, c && c->agent &&
			      fake_agent_counts(c->agent)->reset == 1 &&
			      stats(&e, e.pl).idle >= 1);
	CHECK(fake_engine_requests(e.fe) == requests);
	CHECK(a.n == 0);
	env_close(&e);
}

/* Given back, a box is reset and served again: one container for two
 * callers. */
static void t_reset_and_reuse(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	struct env e;
	struct acq a1, a2;
	struct box *b;
	char id[80];

	env_open(&e, "reset-and-reuse", cfg, 0);
	b = env_take(&e, e.pl, &a1);
	CHECK(b != NULL);
	if (!b) {
		env_close(&e);
		return;
	}
	snprintf(id, sizeof(id), "%s", box_id(b));
	CHECK(env_resets(&e, 0) == 0);
	pool_release(e.pool, b, 0);
	RUN_UNTIL(&e, env_resets(&e, 0) == 1 && stats(&e, e.pl).idle == 1);
	b = env_take(&e, e.pl, &a2);
	CHECK(a2.rc == 0); /* warm: no waiting */
	CHECK(b && strcmp(box_id(b), id) == 0);
	CHECK(stats(&e, e.pl).reused >= 1);
	CHECK(fake_engine_count(e.fe, FAKE_OP_CREATE) == 1);
	CHECK(fake_engine_count(e.fe, FAKE_OP_DELETE) == 0);
	if (b)
		pool_release(e.pool, b, 0);
	env_close(&e);
}

/* Survivors and an unexplained SIGKILL (the OOM killer, most likely) cost
 * the container: removed without a reset, and the next call gets a new
 * one. A SIGKILL the timeout explains does not. */
static void t_anomaly_discards(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	const struct fake_exec_reply survivors = {.survivors = 2};
	const struct fake_exec_reply oom = {.signal = 9};
	const struct fake_exec_reply timeout = {.signal = 9, .timed_out = 1};
	struct env e;
	struct run r;

	env_open(&e, "anomaly-discards", cfg, 0);
	CHECK(fake_agent_script_push(e.script, &survivors) == 0);
	CHECK(fake_agent_script_push(e.script, &oom) == 0);
	CHECK(fake_agent_script_push(e.script, &timeout) == 0);

	env_exec(&e, e.pl, "fork()", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0 && r.o.exit_code == 0);
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(env_resets(&e, 0) == 0);

	env_exec(&e, e.pl, "x = ' ' * 2**40", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0 && r.o.signal == 9 && !r.o.timed_out);
	CHECK(env_execs(&e, 1) == 1);
	RUN_UNTIL(&e, env_removed(&e, 1));
	CHECK(env_resets(&e, 1) == 0);

	env_exec(&e, e.pl, "while 1: pass", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0 && r.o.signal == 9 && r.o.timed_out);
	CHECK(env_execs(&e, 2) == 1);
	RUN_UNTIL(&e, env_resets(&e, 2) == 1 && stats(&e, e.pl).idle == 1);
	CHECK(!env_removed(&e, 2));
	env_exec(&e, e.pl, "print(1)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(env_execs(&e, 2) == 2);
	CHECK(stats(&e, e.pl).discarded >= 2);
	env_close(&e);
}

/* After max_uses executions the container is removed, not reset. */
static void t_max_uses(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", /* */
					  "fake", "max_uses",	    "2", /* */
					  NULL};
	struct env e;
	struct run r;

	env_open(&e, "max-uses", cfg, 0);
	env_exec(&e, e.pl, "1", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	env_exec(&e, e.pl, "2", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(env_execs(&e, 0) == 2);
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(env_resets(&e, 0) == 1); /* after the first use only */
	env_exec(&e, e.pl, "3", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(env_execs(&e, 1) == 1);
	env_close(&e);
}

/* At max_containers callers wait and are served in the order they came;
 * one that withdrew is skipped and never called. */
static void t_fifo_waiters(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	struct env e;
	struct acq a0, a1, a2, a3;
	struct box *b;

	env_open(&e, "fifo-waiters", cfg, 0);
	b = env_take(&e, e.pl, &a0);
	CHECK(b != NULL);
	if (!b) {
		env_close(&e);
		return;
	}
	CHECK(env_acquire(&e, e.pl, &a1) == 1);
	CHECK(env_acquire(&e, e.pl, &a2) == 1);
	CHECK(env_acquire(&e, e.pl, &a3) == 1);
	CHECK(stats(&e, e.pl).waiting == 3);
	CHECK(a2.wait != NULL);
	if (a2.wait)
		pool_cancel_acquire(a2.wait);
	CHECK(stats(&e, e.pl).waiting == 2); /* a2's place is gone */
	CHECK(a1.n == 0 && a2.n == 0 && a3.n == 0);

	pool_release(e.pool, b, 0);
	RUN_UNTIL(&e, a1.n == 1);
	CHECK(a1.early == 0);
	CHECK(a1.err == 0 && a1.box != NULL);
	CHECK(a3.n == 0);
	if (a1.box)
		pool_release(e.pool, a1.box, 0);
	RUN_UNTIL(&e, a3.n == 1);
	CHECK(a3.err == 0 && a3.box != NULL);
	CHECK(a1.order < a3.order);
	CHECK(a2.n == 0);
	if (a3.box)
		pool_release(e.pool, a3.box, 0);
	CHECK(fake_engine_ncontainers(e.fe) == 1);
	env_close(&e);
}

/* A reset the agent cannot verify costs the container. */
static void t_failed_reset(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	struct env e;
	struct acq a;
	struct box *b;
	char id[80];

	env_open(&e, "failed-reset", cfg, 0);
	e.script->reset_fails = 1;
	e.script->reset_message = "1 process survived";
	b = env_take(&e, e.pl, &a);
	CHECK(b != NULL);
	if (!b) {
		env_close(&e);
		return;
	}
	snprintf(id, sizeof(id), "%s", box_id(b));
	pool_release(e.pool, b, 0);
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(env_resets(&e, 0) == 1);
	CHECK(stats(&e, e.pl).discarded >= 1);
	e.script->reset_fails = 0;
	b = env_take(&e, e.pl, &a);
	CHECK(b && strcmp(box_id(b), id) != 0);
	if (b)
		pool_release(e.pool, b, 0);
	env_close(&e);
}

/* Start failures reach the waiting caller: no image is ERR_IMAGE_MISSING
 * with the image's name; a failed start and an agent that dies before
 * HELLO are other errors, and leave no container behind. */
static void t_start_failures(void)
{
	struct env e;
	struct acq a;
	struct box *b;

	env_open(&e, "start-failures", NULL, 0);
	e.faults->no_image = 1;
	CHECK(env_acquire(&e, e.pl, &a) == 1);
	RUN_UNTIL(&e, a.n == 1);
	CHECK(a.early == 0);
	CHECK(a.err == ERR_IMAGE_MISSING);
	CHECK(a.box == NULL);
	CHECK_STR_CONTAINS(a.msg, "mcp-sandbox/fake:latest");
	CHECK(fake_engine_ncontainers(e.fe) == 0);
	e.faults->no_image = 0;

	e.faults->start_fails = 1;
	CHECK(env_acquire(&e, e.pl, &a) == 1);
	RUN_UNTIL(&e, a.n == 1);
	CHECK(a.err < 0 && a.err != ERR_IMAGE_MISSING);
	CHECK(a.box == NULL);
	/* Removed like any failed box (the pool starts what it attached
	 * to): no container is left behind. */
	RUN_UNTIL(&e, env_removed(&e, 0));
	e.faults->start_fails = 0;

	e.script->hello = FAKE_HELLO_HANG_UP;
	CHECK(env_acquire(&e, e.pl, &a) == 1);
	RUN_UNTIL(&e, a.n == 1);
	CHECK(a.err < 0 && a.err != ERR_IMAGE_MISSING);
	CHECK(a.box == NULL);
	RUN_UNTIL(&e, env_removed(&e, 1));
	e.script->hello = FAKE_HELLO_OK;

	/* The engine works again: so does the pool. */
	b = env_take(&e, e.pl, &a);
	CHECK(b != NULL);
	if (b)
		pool_release(e.pool, b, 0);
	env_close(&e);
}

/* Shutdown removes every container: busy, idle, and one whose agent
 * never said hello; a waiting caller is told, later ones are refused. */
static void t_shutdown(void)
{
	struct env e;
	struct acq busy, idle, waiting, late;
	struct box *b, *b2;
	int done = 0;
	unsigned i;

	env_open(&e, "shutdown", NULL, 0);
	pool_set_refill(e.pool, 0);
	b = env_take(&e, e.pl, &busy);
	b2 = env_take(&e, e.pl, &idle);
	CHECK(b && b2);
	if (b2)
		pool_release(e.pool, b2, 0);
	RUN_UNTIL(&e, stats(&e, e.pl).idle == 1);
	e.script->hello = FAKE_HELLO_SILENT;
	CHECK(env_acquire(&e, e.other, &waiting) == 1);
	RUN_UNTIL(&e, e.script->total.hello == 3);
	CHECK(fake_engine_live(e.fe) == 3);

	pool_shutdown(e.pool, env_flag_cb, &done);
	e.pool_shut = 1;
	CHECK(waiting.n == 1 && waiting.err == ERR_SHUTTING_DOWN);
	RUN_UNTIL(&e, done);
	CHECK(fake_engine_live(e.fe) == 0);
	for (i = 0; i < fake_engine_ncontainers(e.fe); i++)
		CHECK(env_container(&e, i)->deletes == 1);
	CHECK(env_acquire(&e, e.pl, &late) == ERR_SHUTTING_DOWN);
	CHECK(late.n == 0);
	/* The caller still holding a box gives it back as usual. */
	if (b)
		pool_release(e.pool, b, 0);
	env_close(&e);
}

/* An agent that never answers HELLO: the start is given up after the
 * language's start_timeout_ms (docs/config.md), the caller is told and the
 * container removed. (Regression: the pool used a fixed 30 s.) */
static void t_start_timeout(void)
{
	static const char *const cfg[] = {"fake", "start_timeout_ms", "1000",
					  NULL};
	struct env e;
	struct acq a;

	env_open(&e, "start-timeout", cfg, 4000);
	e.script->hello = FAKE_HELLO_SILENT;
	CHECK(env_acquire(&e, e.pl, &a) == 1);
	RUN_UNTIL(&e, a.n == 1);
	CHECK(a.err == -ETIMEDOUT && a.box == NULL);
	RUN_UNTIL(&e, env_removed(&e, 0));
	env_close(&e);
}

/* Held (a session's interpreter starting), the pool starts nothing to
 * keep its floor, but a caller still gets a container at once; given
 * back, the hold lets the floor be refilled. */
static void t_hold_warm(void)
{
	static const char *const cfg[] = {"fake", "pool_size", "1", NULL};
	struct env e;
	struct acq a;
	struct box *b;

	env_open(&e, "hold-warm", cfg, 0);
	pool_hold_warm(e.pool, 1);
	pool_hold_warm(e.pool, 1);
	pool_prewarm(e.pool);
	CHECK(stats(&e, e.pl).starting == 0 && stats(&e, e.pl).idle == 0);
	b = env_take(&e, e.pl, &a);
	CHECK(b != NULL);
	CHECK(stats(&e, e.pl).starting == 0); /* the floor counts it */
	if (b)
		pool_release(e.pool, b, 1); /* discarded: the floor wants one */
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(stats(&e, e.pl).starting == 0 && stats(&e, e.pl).idle == 0);
	pool_hold_warm(e.pool, -1);
	CHECK(stats(&e, e.pl).starting == 0); /* one hold is left */
	pool_hold_warm(e.pool, -1);
	CHECK(stats(&e, e.pl).starting == 1);
	RUN_UNTIL(&e, stats(&e, e.pl).idle == 1);
	pool_hold_warm(e.pool, -1); /* one too many: ignored */
	CHECK(stats(&e, e.pl).idle == 1);
	env_close(&e);
}

/* The warm-up hook's calls (it has nothing to do: the box is ready). */
static unsigned warmups;

static int count_warmup(struct box *b, const struct plugin *pl,
			pool_warmup_done_cb done, void *arg)
{
	(void)b, (void)pl, (void)done, (void)arg;
	warmups++;
	return 1;
}

/* A container started for a POOL_BARE caller is not warmed up; one started
 * for any other caller, or to keep the floor, is. */
static void t_bare(void)
{
	static const char *const cfg[] = {"fake", "pool_size", "0", NULL};
	struct env e;
	struct acq a, a2;
	struct box *b;

	env_open(&e, "bare", cfg, 0);
	pool_set_warmup(e.pool, count_warmup);
	warmups = 0;
	memset(&a, 0, sizeof(a));
	CHECK(pool_acquire(e.pool, e.pl, POOL_BARE, env_acq_cb, &a, &a.box,
			   &a.wait) == 1);
	RUN_UNTIL(&e, a.n == 1);
	CHECK(a.err == 0 && a.box != NULL);
	CHECK(warmups == 0);
	/* The bare box is still held: this caller gets a new one. */
	b = env_take(&e, e.pl, &a2);
	CHECK(b != NULL && b != a.box);
	CHECK(warmups == 1);
	if (b)
		pool_release(e.pool, b, 1);
	if (a.box)
		pool_release(e.pool, a.box, 1);
	RUN_UNTIL(&e, env_removed(&e, 0) && env_removed(&e, 1));
	env_close(&e);
}

static const struct env_scenario scenarios[] = {
	{"warm-box", t_warm_box},
	{"reset-and-reuse", t_reset_and_reuse},
	{"anomaly-discards", t_anomaly_discards},
	{"max-uses", t_max_uses},
	{"fifo-waiters", t_fifo_waiters},
	{"failed-reset", t_failed_reset},
	{"start-failures", t_start_failures},
	{"shutdown", t_shutdown},
	{"start-timeout", t_start_timeout},
	{"hold-warm", t_hold_warm},
	{"bare", t_bare},
};

int main(int argc, char **argv)
{
	return env_run("pool", scenarios,
		       sizeof(scenarios) / sizeof(scenarios[0]), argc, argv);
}
