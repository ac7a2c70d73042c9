/*
 * test_agent_client.c - the host's agent client against a hostile agent.
 *
 * The agent shares its container with user code, so whatever it sends may be
 * forged. The shared fake Docker daemon and fake agent (tests/fakes) answer
 * the attach handshake, read the agent frames the host writes and answer
 * each as the scenario's mode says: honestly (the fake agent's script), or,
 * through the script's on_frame hook, with a reply of the wrong type or
 * id, with a frame header over AP_MAX_FRAME, or after the host has closed.
 *
 * Regression test for replies that must match the pending request: a
 * RESET_DONE answering an EXEC used to call a NULL function pointer, an
 * EXEC_DONE answering a RESET corrupted the heap.
 *
 * Run with a scenario name as argument to run only that one.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <uv.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "docker/agent_client.h"
#include "docker/docker.h"
#include "fake_agent.h"
#include "fake_docker.h"
#include "testlib.h"

#define WATCHDOG_MS 5000
#define CODE "print('hi')"

/* How the fake agent answers the host's requests. HELLO always gets
 * HELLO_OK; the hostile answers come from hostile(), the script's hook. */
enum agent_mode {
	AGENT_HONEST,
	AGENT_RESET_DONE_FOR_EXEC,
	AGENT_EXEC_DONE_FOR_RESET,
	AGENT_HELLO_OK_FOR_EXEC,
	AGENT_WRONG_ID,
	AGENT_OVERSIZED_FRAME,
	AGENT_ANSWER_ACROSS_CLOSE, /* the owner closes while the reply flies */
	AGENT_ERROR_FOR_EXEC,
};

static struct fake {
	struct fake_docker *daemon;
	char container[32]; /* the id the attach must name */
	enum agent_mode mode;
	/* The honest answers: EXEC_DONE exit 3 "hi" "err", RESET_DONE ok. */
	struct fake_agent_script script;
	struct fake_agent *agent;      /* of this scenario's attach */
	struct fake_docker_conn *conn; /* NULL once the host hung up */
} fk;

/* The owner of the client under test: what its callbacks saw. */
static struct owner {
	struct agent_client *ac; /* NULL once closed or lost */
	int in_close;		 /* inside agent_client_close() */
	int closed;		 /* agent_client_close() has returned */
	int late;		 /* callbacks after close returned */
	int open_n, open_err;
	int exec_n, exec_err, exec_had_res, exec_in_close;
	char exec_msg[256];
	struct agent_exec_result res; /* out/err point to the copies below */
	char out[16], err[16];
	int reset_n, reset_err, reset_ok;
	int lost_n;
} o;

static uv_loop_t loop;
static uv_timer_t watchdog;
static struct docker *d;
static const char *scenario;
static int stuck;

/* ------------------------------------------------------------------ */
/* The fake daemon and its agent                                       */

static void owner_close(void);

static int hostile_exec(struct fake_agent *a, const struct ap_frame *f)
{
	/* A header announcing AP_MAX_FRAME + 1 bytes (type EXEC_DONE, id 0);
	 * the client must reject it on the header alone. */
	static const unsigned char oversized[AP_HEADER_LEN] = {
		(AP_MAX_FRAME + 1) >> 24, ((AP_MAX_FRAME + 1) >> 16) & 0xff,
		((AP_MAX_FRAME + 1) >> 8) & 0xff, (AP_MAX_FRAME + 1) & 0xff,
		AP_EXEC_DONE};
	const struct fake_exec_reply *honest = &fk.script.exec;

	switch (fk.mode) {
	case AGENT_HONEST:
	case AGENT_EXEC_DONE_FOR_RESET:
		return 0; /* the script's answer */
	case AGENT_RESET_DONE_FOR_EXEC:
		fake_agent_reply_reset_done(a, f->id, 1, NULL);
		fake_agent_reply_exec_done(a, f->id, honest); /* too late */
		break;
	case AGENT_HELLO_OK_FOR_EXEC:
		fake_agent_reply_hello_ok(a, f->id);
		break;
	case AGENT_WRONG_ID:
		fake_agent_reply_exec_done(a, f->id + 1, honest);
		break;
	case AGENT_OVERSIZED_FRAME:
		fake_agent_reply_raw(a, oversized, sizeof(oversized));
		break;
	case AGENT_ANSWER_ACROSS_CLOSE:
		/* The reply is in the host's socket buffer when the owner
		 * closes, and another follows. */
		fake_agent_reply_exec_done(a, f->id, honest);
		fake_agent_flush(a);
		owner_close();
		fake_agent_reply_exec_done(a, f->id, honest);
		break;
	case AGENT_ERROR_FOR_EXEC:
		fake_agent_reply_error(a, f->id, "unknown language: cobol");
		break;
	}
	return 1;
}

static int hostile(struct fake_agent *a, const struct ap_frame *f, void *arg)
{
	(void)arg;
	if (f->type == AP_EXEC)
		return hostile_exec(a, f);
	if (f->type == AP_RESET && fk.mode == AGENT_EXEC_DONE_FOR_RESET) {
		fake_agent_reply_exec_done(a, f->id, &fk.script.exec);
		return 1;
	}
	return 0;
}

static void fake_request(struct fake_docker *f, struct fake_docker_conn *c,
			 const struct fake_docker_request *req, void *arg)
{
	char want[160];

	(void)f;
	(void)arg;
	snprintf(want, sizeof(want),
		 "/containers/%s/attach?stream=1&stdin=1&stdout=1&stderr=1",
		 fk.container);
	CHECK(strcmp(req->method, "POST") == 0);
	CHECK(strcmp(req->path, want) == 0);
	CHECK(strstr(req->head, "\r\nUpgrade: tcp\r\n") != NULL);
	CHECK(fk.conn == NULL); /* one connection per scenario */
	CHECK(fk.agent == NULL);
	fk.conn = c;
	fake_docker_upgrade(c);
	fake_agent_free(fk.agent);
	fk.agent = fake_agent_new(c, &fk.script, fk.container);
}

static void fake_stdin(struct fake_docker_conn *c, const char *data, size_t len,
		       void *arg)
{
	struct fake_agent *a = fake_docker_conn_data(c);

	(void)arg;
	if (a)
		fake_agent_feed(a, data, len);
}

static void fake_conn_close(struct fake_docker_conn *c, void *arg)
{
	(void)arg;
	fake_agent_detach(fake_docker_conn_data(c));
	if (fk.conn == c)
		fk.conn = NULL;
}

static int fake_start(void)
{
	static const struct fake_docker_cbs cbs = {
		.on_request = fake_request,
		.on_stdin = fake_stdin,
		.on_conn_close = fake_conn_close,
	};

	return fake_docker_start(&loop, &cbs, NULL, &fk.daemon);
}

static void fake_stop(void)
{
	fake_docker_stop(fk.daemon);
}

/* ------------------------------------------------------------------ */
/* The owner                                                           */

static void owner_close(void)
{
	o.in_close = 1;
	agent_client_close(o.ac);
	o.in_close = 0;
	o.closed = 1;
	o.ac = NULL;
}

static void on_open(struct agent_client *ac, const struct error *err, void *arg)
{
	CHECK(arg == &o);
	CHECK(ac == o.ac);
	o.late += o.closed;
	o.open_n++;
	o.open_err = err ? err->code : 0;
	CHECK(!err || err->code < 0);
}

static void on_exec(struct agent_client *ac, const struct error *err,
		    const struct agent_exec_result *res, void *arg)
{
	CHECK(arg == &o.exec_n); /* not the arg of some other request */
	CHECK(ac == o.ac);
	o.late += o.closed;
	o.exec_n++;
	o.exec_err = err ? err->code : 0;
	o.exec_in_close = o.in_close;
	snprintf(o.exec_msg, sizeof(o.exec_msg), "%.200s", err ? err->msg : "");
	o.exec_had_res = res != NULL;
	if (res) {
		o.res = *res;
		snprintf(o.out, sizeof(o.out), "%.*s", (int)res->out_len,
			 res->out);
		snprintf(o.err, sizeof(o.err), "%.*s", (int)res->err_len,
			 res->err);
		o.res.out = o.out; /* res->out is borrowed */
		o.res.err = o.err;
	}
}

static void on_reset(struct agent_client *ac, const struct error *err,
		     void *arg)
{
	CHECK(arg == &o.reset_n);
	CHECK(ac == o.ac);
	o.late += o.closed;
	o.reset_n++;
	o.reset_err = err ? err->code : 0;
	o.reset_ok = !err;
}

static void on_lost(struct agent_client *ac, void *arg)
{
	CHECK(arg == &o);
	CHECK(ac == o.ac);
	o.late += o.closed;
	o.lost_n++;
	o.ac = NULL; /* freed by the client after this returns */
}

static void watchdog_cb(uv_timer_t *t)
{
	(void)t;
	fprintf(stderr, "FAIL %s: no progress in %d ms\n", scenario,
		WATCHDOG_MS);
	t_failed++;
	stuck = 1;
	uv_stop(&loop);
}

static void run_until(const int *flag)
{
	while (!*flag && !stuck && uv_run(&loop, UV_RUN_ONCE))
		;
}

/* Fresh owner and fake, open the client and wait for HELLO_OK. */
static void begin(const char *name, enum agent_mode mode)
{
	memset(&o, 0, sizeof(o));
	scenario = name;
	stuck = 0;
	fk.mode = mode;
	fake_agent_script_init(&fk.script);
	fk.script.exec = (struct fake_exec_reply){
		.exit_code = 3,
		.duration_ms = 42,
		.out = "hi",
		.err = "err",
		.err_truncated = 1,
		.phase = "run",
	};
	fk.script.on_frame = hostile;
	snprintf(fk.container, sizeof(fk.container), "%s", name);
	uv_timer_start(&watchdog, watchdog_cb, WATCHDOG_MS, 0);
	CHECK(agent_client_open(d, name, on_open, on_lost, &o, &o.ac) == 0);
	run_until(&o.open_n);
	CHECK(o.open_n == 1);
	CHECK(o.open_err == 0);
}

static void start_exec(void)
{
	static const char *const run[] = {"python3", "main.py", NULL};
	const struct agent_exec_req q = {
		.file_name = "main.py",
		.code = CODE,
		.code_len = strlen(CODE),
		.run_argv = run,
		.timeout_ms = 5000,
		.stdout_cap = 1024,
		.stderr_cap = 1024,
	};

	CHECK(agent_client_exec(o.ac, &q, on_exec, &o.exec_n) == 0);
}

/* Run the loop until idle: the host's side is gone (closed or lost), the
 * fake saw it hang up, and no callback ran after close. */
static void settle(void)
{
	if (o.ac && !o.lost_n) /* a scenario that failed early */
		owner_close();
	uv_run(&loop, UV_RUN_DEFAULT);
	CHECK(fk.conn == NULL);
	CHECK(o.ac == NULL);
	CHECK(o.late == 0);
	/* The host wrote only well-formed requests, one at a time. */
	CHECK(fk.script.total.bad == 0);
	fake_agent_free(fk.agent);
	fk.agent = NULL;
	uv_timer_stop(&watchdog);
}

/* ------------------------------------------------------------------ */
/* Scenarios                                                           */

static void t_happy_path(void)
{
	begin("happy", AGENT_HONEST);
	start_exec();
	CHECK(agent_client_reset(o.ac, on_reset, &o.reset_n) == -EBUSY);
	run_until(&o.exec_n);
	if (fk.agent) {
		const struct fake_exec_seen *e = fake_agent_last_exec(fk.agent);

		CHECK(strcmp(e->file_name, "main.py") == 0);
		CHECK(e->code_len == strlen(CODE) &&
		      strcmp(e->code, CODE) == 0);
		CHECK(e->nrun == 2);
	}
	CHECK(fk.agent != NULL);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err == 0);
	CHECK(o.exec_had_res);
	CHECK(o.res.exited == 1);
	CHECK(o.res.exit_code == 3);
	CHECK(o.res.duration_ms == 42);
	CHECK(o.res.out_len == 2 && strcmp(o.out, "hi") == 0);
	CHECK(o.res.err_len == 3 && strcmp(o.err, "err") == 0);
	CHECK(o.res.out_truncated == 0);
	CHECK(o.res.err_truncated == 1);
	CHECK(strcmp(o.res.phase, "run") == 0);

	CHECK(agent_client_reset(o.ac, on_reset, &o.reset_n) == 0);
	run_until(&o.reset_n);
	CHECK(o.reset_n == 1);
	CHECK(o.reset_err == 0);
	CHECK(o.reset_ok == 1);
	owner_close();
	settle();
	CHECK(o.lost_n == 0);
}

/* Used to call the NULL reset callback of an EXEC. */
static void t_reset_done_for_exec(void)
{
	begin("reset-done-for-exec", AGENT_RESET_DONE_FOR_EXEC);
	start_exec();
	run_until(&o.lost_n);
	CHECK(o.exec_n == 1); /* the honest EXEC_DONE after it is ignored */
	CHECK(o.exec_err == -EPROTO);
	CHECK(!o.exec_had_res);
	CHECK(o.reset_n == 0);
	CHECK(o.lost_n == 1); /* the connection is closed */
	settle();
}

/* Used to run the exec callback with the reset's argument. */
static void t_exec_done_for_reset(void)
{
	begin("exec-done-for-reset", AGENT_EXEC_DONE_FOR_RESET);
	fk.script.exec.phase = "build";
	start_exec();
	run_until(&o.exec_n);
	CHECK(o.exec_err == 0);
	CHECK(strcmp(o.res.phase, "build") == 0);
	CHECK(agent_client_reset(o.ac, on_reset, &o.reset_n) == 0);
	run_until(&o.lost_n);
	CHECK(o.reset_n == 1);
	CHECK(o.reset_err < 0);
	CHECK(o.reset_ok == 0);
	CHECK(o.exec_n == 1);
	CHECK(o.lost_n == 1);
	settle();
}

static void t_hello_ok_for_exec(void)
{
	begin("hello-ok-for-exec", AGENT_HELLO_OK_FOR_EXEC);
	start_exec();
	run_until(&o.lost_n);
	CHECK(o.open_n == 1);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err == -EPROTO);
	CHECK(!o.exec_had_res);
	CHECK(o.lost_n == 1);
	settle();
}

static void t_wrong_id(void)
{
	begin("wrong-id", AGENT_WRONG_ID);
	start_exec();
	run_until(&o.lost_n);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err == -EPROTO);
	CHECK(!o.exec_had_res);
	CHECK(o.lost_n == 1);
	settle();
}

static void t_unsolicited(void)
{
	begin("unsolicited", AGENT_HONEST);
	/* The id of the HELLO just answered: only the type gives it away. */
	CHECK(fk.conn != NULL);
	if (fk.conn) {
		fake_agent_reply_exec_done(fk.agent,
					   fake_agent_last_id(fk.agent),
					   &fk.script.exec);
		fake_agent_flush(fk.agent);
	}
	run_until(&o.lost_n);
	CHECK(o.lost_n == 1);
	CHECK(o.open_n == 1);
	CHECK(o.exec_n == 0 && o.reset_n == 0);
	settle();
}

static void t_oversized_frame(void)
{
	begin("oversized-frame", AGENT_OVERSIZED_FRAME);
	start_exec();
	run_until(&o.lost_n);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err == -EPROTO);
	CHECK(o.lost_n == 1);
	settle();
}

static void t_close_while_exec(void)
{
	begin("close-while-exec", AGENT_ANSWER_ACROSS_CLOSE);
	start_exec();
	run_until(&o.closed);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err == -ECANCELED);
	CHECK(o.exec_in_close); /* before agent_client_close() returned */
	CHECK(!o.exec_had_res);
	settle(); /* checks that nothing ran afterwards */
	CHECK(o.exec_n == 1);
	CHECK(o.lost_n == 0);
}

static void t_error_for_exec(void)
{
	begin("error-for-exec", AGENT_ERROR_FOR_EXEC);
	start_exec();
	run_until(&o.exec_n);
	CHECK(o.exec_n == 1);
	CHECK(o.exec_err < 0);
	CHECK(!o.exec_had_res);
	CHECK_STR_CONTAINS(o.exec_msg, "unknown language: cobol");
	owner_close();
	settle();
	CHECK(o.exec_n == 1);
	CHECK(o.lost_n == 0);
}

static const struct {
	const char *name;
	void (*fn)(void);
} scenarios[] = {
	{"happy", t_happy_path},
	{"reset-done-for-exec", t_reset_done_for_exec},
	{"exec-done-for-reset", t_exec_done_for_reset},
	{"hello-ok-for-exec", t_hello_ok_for_exec},
	{"wrong-id", t_wrong_id},
	{"unsolicited", t_unsolicited},
	{"oversized-frame", t_oversized_frame},
	{"close-while-exec", t_close_while_exec},
	{"error-for-exec", t_error_for_exec},
};

int main(int argc, char **argv)
{
	char url[80];
	struct error err;
	size_t i;
	int ran = 0;

	/* The fake writes to sockets the host may have closed. */
	signal(SIGPIPE, SIG_IGN);
	CHECK(uv_loop_init(&loop) == 0);
	if (fake_start() != 0) {
		fprintf(stderr, "FAIL: cannot start the fake daemon\n");
		return 1;
	}
	snprintf(url, sizeof(url), "%s", fake_docker_url(fk.daemon));
	if (docker_new(&loop, &(struct docker_options){.host = url}, &d,
		       &err) != 0) {
		fprintf(stderr, "FAIL: docker_new: %s\n", err.msg);
		fake_stop();
		return 1;
	}
	uv_timer_init(&loop, &watchdog);
	uv_unref((uv_handle_t *)&watchdog);

	for (i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		if (argc < 2 || strcmp(argv[1], scenarios[i].name) == 0) {
			scenarios[i].fn();
			ran++;
		}
	CHECK(ran > 0);

	docker_free(d);
	fake_stop();
	uv_close((uv_handle_t *)&watchdog, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	CHECK(uv_loop_close(&loop) == 0);
	return t_summary("agent_client");
}
