/*
 * test_executor.c - one execution from start to finish (executor.h) with
 * the real pool and agent client against the fake engine (tests/fakes): no
 * Docker. What a caller of exec_start() sees: the outcome comes from the
 * agent's reply; policy refusals arrive through the callback, never before
 * exec_start() returned; the timeout is capped at the language's
 * max_timeout_ms; the host caps output whatever the agent sends; a broken
 * agent connection is a sandbox error and costs the container; a waiting
 * call can be cancelled; an agent that never answers is given up by the
 * watchdog (the execution's timeout + 5 s: the one slow scenario here).
 *
 * Run with a scenario name as argument to run only that one.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core_env.h"

/* The outcome's fields are the agent's. */
static void t_outcome(void)
{
	static const char *const cfg[] = {"fake", "pool_size", "1", NULL};
	const struct fake_exec_reply reply = {
		.exit_code = 7,
		.duration_ms = 123,
		.out = "hello",
		.err = "oops",
		.err_truncated = 1,
		.phase = "build",
	};
	const struct fake_exec_reply killed = {
		.signal = 9,
		.timed_out = 1,
		.duration_ms = 100,
	};
	struct env e;
	struct run r;
	const struct fake_exec_seen *seen;

	env_open(&e, "outcome", cfg, 0);
	CHECK(fake_agent_script_push(e.script, &reply) == 0);
	CHECK(fake_agent_script_push(e.script, &killed) == 0);
	env_exec(&e, e.pl, "print(1)", 0, NULL, &r);
	CHECK(r.n == 0);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.early == 0);
	CHECK(r.error == 0);
	CHECK(r.o.exited == 1);
	CHECK(r.o.exit_code == 7);
	CHECK(r.o.signal == 0);
	CHECK(r.o.timed_out == 0 && r.o.cancelled == 0);
	CHECK(r.o.duration_ms == 123);
	CHECK(strcmp(r.out, "hello") == 0 && r.o.out_len == 5);
	CHECK(strcmp(r.err, "oops") == 0 && r.o.err_len == 4);
	CHECK(r.o.out_truncated == 0 && r.o.err_truncated == 1);
	CHECK(strcmp(r.phase, "build") == 0);
	CHECK(r.o.interpreter == 0);
	/* What the agent was asked: the plugin's file and command, the code,
	 * the language's default timeout and caps. */
	CHECK(e.script->nseen == 1);
	seen = &e.script->seen[0];
	CHECK(strcmp(seen->file_name, "main.fk") == 0);
	CHECK(strcmp(seen->code, "print(1)") == 0 && seen->code_len == 8);
	CHECK(seen->nrun == 2 && seen->nbuild == 0);
	CHECK(seen->timeout_ms == e.pl->policy.limits.timeout_ms);
	CHECK(seen->stdout_cap == e.pl->policy.limits.stdout_cap);
	CHECK(!seen->has_stdin);

	/* Killed by the timeout: a signal, no exit code. */
	env_exec(&e, e.pl, "while 1: pass", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(r.o.exited == 0);
	CHECK(r.o.signal == 9);
	CHECK(r.o.timed_out == 1);
	CHECK(strcmp(r.phase, "run") == 0);
	env_close(&e);
}

/* Code too large and blocked code: refused through the callback, from the
 * loop, and nothing reaches an agent. */
static void t_policy_refusals(void)
{
	static const char *const cfg[] = {
		"limits", "max_code_bytes", "1024",	      /* */
		"fake",	  "block",	    "forbidden_call", /* */
		"fake",	  "blocklist",	    "block",	      /* */
		NULL};
	char big[2001];
	struct env e;
	struct run r;

	env_open(&e, "policy-refusals", cfg, 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	env_exec(&e, e.pl, big, 0, NULL, &r);
	CHECK(r.n == 0); /* not before exec_start returned */
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.early == 0);
	CHECK(r.error == ERR_CODE_TOO_LARGE);
	CHECK_STR_CONTAINS(r.errmsg, "2000 bytes");
	CHECK_STR_CONTAINS(r.errmsg, "1024");

	env_exec(&e, e.pl, "x = forbidden_call()", 0, NULL, &r);
	CHECK(r.n == 0);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.early == 0);
	CHECK(r.error == ERR_CODE_BLOCKED);
	CHECK_STR_CONTAINS(r.errmsg, "blocklist = block");
	CHECK_STR_CONTAINS(r.errmsg, "line 1, column 5");
	CHECK_STR_CONTAINS(r.errmsg, "`forbidden_call`");

	/* Cancelled while the scan waits for or runs in the thread pool:
	 * cancelled, not blocked, and nothing reached an agent. */
	env_exec(&e, e.pl, "x = forbidden_call()", 0, NULL, &r);
	exec_cancel(r.job);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == ERR_CANCELLED);

	/* Code and stdin count together: each alone fits. */
	{
		struct exec_request q = {.stdin_data = big, .stdin_len = 1020};

		env_exec(&e, e.pl, "print(input())", 0, &q, &r);
		CHECK(r.n == 0);
		RUN_UNTIL(&e, r.n == 1);
		CHECK(r.error == ERR_CODE_TOO_LARGE);
		CHECK_STR_CONTAINS(r.errmsg, "with stdin");
	}
	CHECK(e.script->total.exec == 0);
	CHECK(fake_engine_count(e.fe, FAKE_OP_CREATE) == 0);
	env_close(&e);
}

/* blocklist = warn (the default): the code runs and the outcome names the
 * match; off: no scan at all. */
static void t_blocklist_warn(void)
{
	static const char *const cfg[] = {"fake", "block",
					  "forbidden_[a-z]+", /* */
					  NULL};
	static const char *const off[] = {
		"fake", "block",     "forbidden_[a-z]+", /* */
		"fake", "blocklist", "off",		 /* */
		NULL};
	struct env e;
	struct run r;

	env_open(&e, "blocklist-warn", cfg, 0);
	env_exec(&e, e.pl, "print(1)\n  forbidden_call()", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(strcmp(r.hit, "forbidden_call") == 0);
	CHECK(r.hit_line == 2);
	CHECK(e.script->total.exec == 1);
	env_exec(&e, e.pl, "print(2)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0 && r.hit[0] == '\0');
	/* A session's connection going while the code is scanned: the job
	 * ends at once, before it could use the connection, and the scan's
	 * late end touches nothing. */
	env_exec(&e, e.pl, "forbidden_call()", 0, NULL, &r);
	exec_abort_unsent(r.job);
	CHECK(r.n == 1);
	CHECK(r.error == ERR_CANCELLED);
	CHECK(r.o.lost == 1);
	exec_abort_unsent(r.job); /* done: nothing */
	CHECK(r.n == 1);
	CHECK(e.script->total.exec == 2);
	env_close(&e); /* the loop closes only once the scan has ended */

	env_open(&e, "blocklist-off", off, 0);
	env_exec(&e, e.pl, "forbidden_call()", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0 && r.hit[0] == '\0');
	env_close(&e);
}

/* A call's timeout is lowered to max_timeout_ms; 0 is the default. */
static void t_timeout_cap(void)
{
	static const char *const cfg[] = {
		"fake", "max_timeout_ms", "2000", /* */
		"fake", "pool_size",	  "1",	  /* */
		NULL};
	struct env e;
	struct run r;

	env_open(&e, "timeout-cap", cfg, 0);
	env_exec(&e, e.pl, "a", 600000, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	env_exec(&e, e.pl, "b", 500, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	env_exec(&e, e.pl, "c", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(e.script->nseen == 3);
	CHECK(e.script->seen[0].timeout_ms == 2000);
	CHECK(e.script->seen[1].timeout_ms == 500);
	/* The default (30 s from [limits]) is capped too. */
	CHECK(e.script->seen[2].timeout_ms == 2000);
	env_close(&e);
}

/* The caps are the host's promise, whatever the agent sends: output past
 * them is cut and flagged, and the container, whose agent lied, goes. */
static void t_output_caps(void)
{
	static const char *const cfg[] = {
		"fake", "stdout_cap",	  "1024", /* */
		"fake", "stderr_cap",	  "1024", /* */
		"pool", "max_containers", "1",	  /* */
		NULL};
	static char big[3001];
	struct fake_exec_reply liar = {.out = big, .err = "fine"};
	struct env e;
	struct run r;

	env_open(&e, "output-caps", cfg, 0);
	memset(big, 'o', sizeof(big) - 1);
	CHECK(fake_agent_script_push(e.script, &liar) == 0);
	liar = (struct fake_exec_reply){.out = "fine", .err = big};
	CHECK(fake_agent_script_push(e.script, &liar) == 0);

	env_exec(&e, e.pl, "print('o' * 3000)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(e.script->seen[0].stdout_cap == 1024);
	CHECK(r.o.out_len == 1024 && strlen(r.out) == 1024);
	CHECK(r.o.out_truncated == 1);
	CHECK(strcmp(r.err, "fine") == 0 && r.o.err_truncated == 0);
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(env_resets(&e, 0) == 0);

	env_exec(&e, e.pl, "import sys", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(r.o.err_len == 1024 && r.o.err_truncated == 1);
	CHECK(strcmp(r.out, "fine") == 0 && r.o.out_truncated == 0);
	CHECK(env_execs(&e, 1) == 1); /* a new container */
	RUN_UNTIL(&e, env_removed(&e, 1));
	env_close(&e);
}

/* The agent's connection breaks mid-call: a sandbox error, the container
 * is removed and the next call gets another. */
static void t_transport_failure(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	const struct fake_exec_reply dies = {.how = FAKE_EXEC_HANG_UP};
	struct env e;
	struct run r;

	env_open(&e, "transport-failure", cfg, 0);
	CHECK(fake_agent_script_push(e.script, &dies) == 0);
	env_exec(&e, e.pl, "import os; os.kill(1, 9)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.early == 0);
	CHECK(r.error == ERR_SANDBOX);
	CHECK(r.errmsg[0] != '\0');
	RUN_UNTIL(&e, env_removed(&e, 0));
	CHECK(env_container(&e, 0)->deletes >= 1);

	env_exec(&e, e.pl, "print(2)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(env_execs(&e, 1) == 1);

	/* An AP_ERROR answer is a sandbox error too, with its message. */
	{
		const struct fake_exec_reply refused = {
			.how = FAKE_EXEC_ERROR, .error = "bad request: no run"};

		CHECK(fake_agent_script_push(e.script, &refused) == 0);
		env_exec(&e, e.pl, "print(3)", 0, NULL, &r);
		RUN_UNTIL(&e, r.n == 1);
		CHECK(r.error == ERR_SANDBOX);
		CHECK_STR_CONTAINS(r.errmsg, "bad request: no run");
		/* An agent off its script is not trusted again. */
		RUN_UNTIL(&e, env_removed(&e, 1));
		CHECK(env_resets(&e, 1) == 1); /* after "print(2)" only */
	}
	env_close(&e);
}

/* Cancel a call that waits for a container (the callback says cancelled,
 * its code never runs), then the running one (the agent is asked to stop
 * it; the outcome says cancelled). */
static void t_cancel(void)
{
	static const char *const cfg[] = {"pool", "max_containers", "1", NULL};
	const struct fake_exec_reply held = {.how = FAKE_EXEC_HOLD,
					     .out = "never"};
	struct env e;
	struct run r1, r2;

	env_open(&e, "cancel", cfg, 0);
	e.script->exec = held;
	env_exec(&e, e.pl, "first", 0, NULL, &r1);
	RUN_UNTIL(&e, fake_engine_holding(e.fe) == 1);
	env_exec(&e, e.pl, "second", 0, NULL, &r2);
	/* One container at most, and it is busy: the second call waits. */
	CHECK(r2.n == 0);
	exec_cancel(r2.job);
	RUN_UNTIL(&e, r2.n == 1);
	CHECK(r2.error == ERR_CANCELLED);
	CHECK(r1.n == 0);

	exec_cancel(r1.job);
	RUN_UNTIL(&e, r1.n == 1);
	CHECK(e.script->total.cancel == 1);
	CHECK(r1.error == 0);
	CHECK(r1.o.cancelled == 1);
	CHECK(r1.o.exited == 0 && r1.o.signal == 9);
	/* A cancelled call is no anomaly: the container is reset, kept. */
	RUN_UNTIL(&e, env_resets(&e, 0) == 1);
	CHECK(!env_removed(&e, 0));
	CHECK(e.script->nseen == 1); /* "second" never ran */
	CHECK(strcmp(e.script->seen[0].code, "first") == 0);
	env_close(&e);
}

/* Streaming: the agent's AP_OUTPUT reaches output_cb before the end. */
static void t_streaming(void)
{
	const struct fake_exec_reply reply = {.output = "partial ",
					      .out = "partial done"};
	struct exec_request q = {.stream_ms = 100};
	struct env e;
	struct run r;

	env_open(&e, "streaming", NULL, 0);
	CHECK(fake_agent_script_push(e.script, &reply) == 0);
	env_exec(&e, e.pl, "print('partial'); print('done')", 0, &q, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == 0);
	CHECK(e.script->seen[0].stream_ms == 100);
	CHECK(strcmp(r.streamed, "partial ") == 0);
	CHECK(strcmp(r.out, "partial done") == 0);
	env_close(&e);
}

/* The image is not built: the call says so. */
static void t_image_missing(void)
{
	struct env e;
	struct run r;

	env_open(&e, "image-missing", NULL, 0);
	e.faults->no_image = 1;
	env_exec(&e, e.pl, "print(1)", 0, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.early == 0);
	CHECK(r.error == ERR_IMAGE_MISSING);
	CHECK_STR_CONTAINS(r.errmsg, "mcp-sandbox/fake:latest");
	CHECK(fake_engine_live(e.fe) == 0);
	env_close(&e);
}

/* An agent that never answers: after the call's timeout plus the
 * executor's 5 s grace the call fails and the container is removed. */
static void t_watchdog(void)
{
	const struct fake_exec_reply silent = {.how = FAKE_EXEC_SILENT};
	struct env e;
	struct run r;

	env_open(&e, "watchdog", NULL, 8000);
	CHECK(fake_agent_script_push(e.script, &silent) == 0);
	env_exec(&e, e.pl, "import time; time.sleep(1e9)", 1, NULL, &r);
	RUN_UNTIL(&e, r.n == 1);
	CHECK(r.error == ERR_SANDBOX_TIMEOUT);
	CHECK(e.script->seen[0].timeout_ms == 1);
	RUN_UNTIL(&e, env_removed(&e, 0));
	env_close(&e);
}

static const struct env_scenario scenarios[] = {
	{"outcome", t_outcome},
	{"policy-refusals", t_policy_refusals},
	{"blocklist-warn", t_blocklist_warn},
	{"timeout-cap", t_timeout_cap},
	{"output-caps", t_output_caps},
	{"transport-failure", t_transport_failure},
	{"cancel", t_cancel},
	{"streaming", t_streaming},
	{"image-missing", t_image_missing},
	{"watchdog", t_watchdog},
};

int main(int argc, char **argv)
{
	return env_run("executor", scenarios,
		       sizeof(scenarios) / sizeof(scenarios[0]), argc, argv);
}
