/*
 * exec.c - the AP_EXEC state machine.
 *
 *   start -> [build: running -> draining] -> run: running -> draining -> reply
 *
 * In an image with a fork server (zygote.h) the run step is a child of
 * that server rather than of the agent: its end arrives as a message on
 * the server's socket instead of from the reaper.
 *
 * "running" ends when the main process is reaped, the deadline passes or
 * the host cancels. Then every user process is killed (a program never
 * leaves anything behind, daemons included) and the pipes are read to EOF,
 * for at most EXEC_DRAIN_MS. A build that exits 0 moves on to the run
 * phase; anything else is the result.
 */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "log.h"
#include "prestart.h"
#include "procs.h"
#include "repl.h"
#include "spawn.h"
#include "artifacts.h"
#include "zygote.h"

/* Shared by both pipes: the loop is single-threaded. */
static unsigned char iobuf[64 * 1024];
/* Reads per pipe per loop turn, so a flood of output cannot starve stdin
 * (where AP_CANCEL arrives). */
#define READS_PER_TURN 16

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void exec_reset(struct exec *e)
{
	struct ap_buf *out = e->out;

	close_fd(&e->fd_out);
	close_fd(&e->fd_err);
	close_fd(&e->fd_in);
	ap_exec_free(&e->req);
	spawn_seccomp_free(e->seccomp);
	capture_close(&e->cap_out);
	capture_close(&e->cap_err);
	free(e->pend[0]);
	free(e->pend[1]);
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->fd_out = e->fd_err = e->fd_in = -1;
}

void exec_init(struct exec *e, struct ap_buf *out)
{
	memset(e, 0, sizeof(*e));
	e->out = out;
	e->fd_out = e->fd_err = e->fd_in = -1;
}

void exec_close(struct exec *e)
{
	exec_reset(e);
}

int exec_busy(const struct exec *e)
{
	return e->active;
}

int exec_in_interpreter(const struct exec *e)
{
	return e->active && e->repl && !e->stale;
}

/* The run step through the fork server: (re)start it if needed, hand it
 * the request. -EMSGSIZE: run it the ordinary way. */
static int start_zygote(struct exec *e, const struct spawn_opts *o)
{
	int rc;

	rc = zygote_ensure(e->req.env, e->req.seccomp_deny, e->ndeny,
			   e->seccomp, o->fd_in, o->fd_out, o->fd_err);
	if (!rc)
		rc = zygote_submit(o->fd_in, o->fd_out, o->fd_err, o->file_name,
				   o->file_data, o->file_len, o->argv, o->envp);
	if (rc && rc != -EMSGSIZE) {
		/* A server that cannot take a request is of no further use. */
		agent_log("fork server: %s", strerror(-rc));
		zygote_stop();
	}
	if (!rc)
		e->zygote = 1;
	return rc;
}

/* The run step through the interpreter that waits for it. -errno: it
 * has been stopped; start the step the ordinary way. */
static int start_prestarted(struct exec *e)
{
	struct prestart_run r;
	int rc;

	rc = prestart_take(&e->req, !e->req.build_argv[0], &r);
	if (rc) {
		agent_log("exec %u: the pre-started interpreter cannot take "
			  "it (%s): started the ordinary way",
			  e->id, strerror(-rc));
		prestart_stop();
		return rc;
	}
	e->building = 0;
	e->pid = r.pid;
	e->exited = 0;
	e->draining = 0;
	e->zygote = 0;
	e->prestarted = 1;
	e->fd_out = r.fd_out;
	e->fd_err = r.fd_err;
	e->fd_in = r.fd_in;
	e->stdin_off = 0;
	if (e->fd_in >= 0 && e->req.stdin_len == 0)
		close_fd(&e->fd_in);
	return 0;
}

/* Start the build (building=1) or run phase. */
static int start_phase(struct exec *e, int building)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
	struct spawn_opts o;
	pid_t pid;
	int rc = 0;

	if (!building && e->req.build_argv[0] && e->req.artifacts)
		artifacts_begin();
	if (!building && e->prestart_fit && start_prestarted(e) == 0)
		return 0;

	if ((rc = spawn_pipe(po)) || (rc = spawn_pipe(pe)) ||
	    (!building && e->req.stdin_data && (rc = spawn_pipe(pi))))
		goto out;
	/* Only our ends are non-blocking; the program gets ordinary pipes. */
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	if (pi[1] >= 0)
		fcntl(pi[1], F_SETFL, O_NONBLOCK);

	memset(&o, 0, sizeof(o));
	o.argv = building ? e->req.build_argv : e->req.run_argv;
	o.envp = e->req.env;
	o.fd_in = pi[0] >= 0 ? pi[0] : 0; /* the agent's fd 0 is /dev/null */
	o.fd_out = po[1];
	o.fd_err = pe[1];
	if (building || !e->req.build_argv[0]) {
		o.file_name = e->req.file_name;
		o.file_data = e->req.file_data;
		o.file_len = e->req.file_len;
	}
	o.seccomp = e->seccomp;
	e->zygote = 0;
	e->zygote_eof = 0;
	pid = -EAGAIN;
	if (!building && zygote_available()) {
		rc = start_zygote(e, &o);
		if (rc == 0)
			pid = 0; /* reported by the server */
		else if (rc != -EMSGSIZE)
			goto out;
		rc = 0;
	}
	if (pid < 0) {
		pid = spawn_user(&o);
		if (pid < 0) {
			rc = pid;
			goto out;
		}
	}

	e->building = building;
	e->pid = pid;
	e->exited = 0;
	e->draining = 0;
	e->fd_out = po[0];
	e->fd_err = pe[0];
	e->fd_in = pi[1];
	e->stdin_off = 0;
	po[0] = pe[0] = pi[1] = -1;
	if (e->fd_in >= 0 && e->req.stdin_len == 0)
		close_fd(&e->fd_in);
out:
	close_fd(&po[0]);
	close_fd(&po[1]);
	close_fd(&pe[0]);
	close_fd(&pe[1]);
	close_fd(&pi[0]);
	close_fd(&pi[1]);
	return rc;
}

/* Session interpreter mode: make sure the interpreter runs, hand it the
 * request (FILE_DATA, built by the host). Its reply ends the call. */
static int start_repl(struct exec *e)
{
	int rc;

	rc = repl_ensure(e->req.repl_argv, e->req.env, e->req.seccomp_deny,
			 e->ndeny, e->seccomp);
	if (rc < 0)
		return rc;
	e->repl = 1;
	e->fresh = rc == 1;
	e->pid = 0; /* the interpreter outlives the call: not "the" process */
	if (!e->grace_ms)
		e->grace_ms = EXEC_DEFAULT_GRACE_MS;
	rc = repl_submit(e->req.repl_seq,
			 e->req.file_data ? e->req.file_data
					  : (const unsigned char *)"",
			 e->req.file_len);
	if (rc)
		repl_stop();
	return rc;
}

int exec_start(struct exec *e, const struct ap_frame *f, struct error *err)
{
	struct ap_exec *q = &e->req;
	uint32_t out_cap, err_cap;
	uint64_t now;
	int rc;

	if (e->active)
		return error_set(err, -EBUSY, "busy");
	rc = ap_exec_decode(f, q, err);
	if (rc)
		goto fail;
	while (q->seccomp_deny[e->ndeny])
		e->ndeny++;
	e->grace_ms = q->grace_ms;
	e->stream_ms = q->stream_ms;
	/* Whatever does not run through the waiting interpreter stops it
	 * before anything else runs. */
	e->prestart_fit = prestart_fits(q);
	if (!e->prestart_fit)
		prestart_stop();
	/* 0 means "default", so a host that always sends the fields does
	 * not have to know the defaults. */
	out_cap = q->stdout_cap ? q->stdout_cap : EXEC_DEFAULT_CAP;
	err_cap = q->stderr_cap ? q->stderr_cap : EXEC_DEFAULT_CAP;
	if (out_cap > EXEC_MAX_CAP)
		out_cap = EXEC_MAX_CAP;
	if (err_cap > EXEC_MAX_CAP)
		err_cap = EXEC_MAX_CAP;
	if (capture_init(&e->cap_out, out_cap) ||
	    capture_init(&e->cap_err, err_cap)) {
		rc = error_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	/* The floor always; the request's names on top. */
	e->seccomp = spawn_seccomp_new(q->seccomp_deny, e->ndeny);
	if (!e->seccomp) {
		rc = error_set(err, -ENOMEM, "cannot build the seccomp filter");
		goto fail;
	}
	e->id = f->id;
	e->oom_known = procs_oom_kills(&e->oom_before) == 0;
	e->pids_known = procs_pids_max(&e->pids_before) == 0;
	now = agent_now_ms();
	e->start_ms = now;
	e->deadline_ms =
		now + (q->timeout_ms ? q->timeout_ms : EXEC_DEFAULT_TIMEOUT_MS);
	if (e->stream_ms)
		e->next_stream_ms = now + e->stream_ms;
	/* A build step begins again at the run step: its output is not
	 * the program's. */
	if (q->artifacts)
		artifacts_begin();
	if (q->repl_argv[0])
		rc = start_repl(e);
	else
		rc = start_phase(e, q->build_argv[0] != NULL);
	if (rc) {
		error_set(err, rc, "cannot start the process: %s",
			  strerror(-rc));
		goto fail;
	}
	e->active = 1;
	return 0;
fail:
	exec_reset(e);
	return rc;
}

void exec_cancel(struct exec *e, uint32_t id)
{
	if (e->active && e->id == id && !e->draining && !e->kill)
		e->kill = EXEC_KILL_CANCEL;
}

void exec_orphan(struct exec *e)
{
	if (!e->active)
		return;
	e->stale = 1;
	exec_cancel(e, e->id);
}

static void note(struct exec *e, const char *msg)
{
	capture_add(&e->cap_err, msg, strlen(msg));
}

/* The run step's end as the fork server reports it (or the server's own
 * end, when it died first). */
static void step_ended(struct exec *e, int status)
{
	e->pid = 0;
	e->exited = 1;
	e->status = status;
	if (!e->kill)
		e->end_ms = agent_now_ms();
}

int exec_child_exited(struct exec *e, pid_t pid, int status)
{
	if (repl_reaped(pid)) {
		if (e->active && e->repl) {
			e->state_lost = 1;
			if (!e->exited) {
				e->exited = 1;
				e->status = status;
				if (!e->kill)
					e->end_ms = agent_now_ms();
			}
		}
		return 1;
	}
	if (zygote_reaped(pid)) {
		if (e->active && e->zygote && !e->exited && !e->draining) {
			note(e, "sbx-agent: the fork server exited before the "
				"program finished\n");
			step_ended(e, status);
		}
		return 1;
	}
	if (!e->active || !e->pid || pid != e->pid)
		return 0;
	e->pid = 0;
	e->exited = 1;
	e->status = status;
	if (!e->kill)
		e->end_ms = agent_now_ms();
	return 1;
}

/* Every byte of a call's output passes here (a repl_output_cb): into its
 * capture, and into the stream when the host asked for one, never more
 * than the capture's cap in all, so a chatty program cannot flood the
 * host. */
static void output_cb(int fd, const void *data, size_t len, void *arg)
{
	struct exec *e = arg;
	int k = fd == 2;
	struct capture *c = k ? &e->cap_err : &e->cap_out;
	size_t sent = e->streamed[k] + e->pend_len[k];
	size_t room = EXEC_STREAM_MAX - e->pend_len[k];

	capture_add(c, data, len);
	if (!e->stream_ms || sent >= c->cap)
		return;
	if (room > c->cap - sent)
		room = c->cap - sent;
	if (len > room)
		len = room;
	if (!len || (!e->pend[k] && !(e->pend[k] = malloc(EXEC_STREAM_MAX))))
		return;
	memcpy(e->pend[k] + e->pend_len[k], data, len);
	e->pend_len[k] += len;
}

/* One AP_OUTPUT with what is pending. */
static void stream_flush(struct exec *e)
{
	struct ap_output m = {0};
	int rc, k;

	if (e->stale)
		e->pend_len[0] = e->pend_len[1] = 0;
	if (!e->pend_len[0] && !e->pend_len[1])
		return;
	if (e->pend_len[0]) {
		m.out = e->pend[0];
		m.out_len = e->pend_len[0];
	}
	if (e->pend_len[1]) {
		m.err = e->pend[1];
		m.err_len = e->pend_len[1];
	}
	rc = ap_output_encode(e->out, e->id, &m);
	if (rc)
		agent_log("exec %u: cannot queue AP_OUTPUT: %s", e->id,
			  strerror(-rc));
	for (k = 0; k < 2; k++) {
		e->streamed[k] += e->pend_len[k];
		e->pend_len[k] = 0;
	}
}

static void read_pipe(struct exec *e, int *fd, int which)
{
	ssize_t n;
	int i;

	for (i = 0; i < READS_PER_TURN && *fd >= 0; i++) {
		n = read(*fd, iobuf, sizeof(iobuf));
		if (n > 0) {
			output_cb(which, iobuf, (size_t)n, e);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close_fd(fd); /* EOF, or an error we cannot do better on */
	}
}

static void feed_stdin(struct exec *e)
{
	ssize_t n;

	n = write(e->fd_in, e->req.stdin_data + e->stdin_off,
		  e->req.stdin_len - e->stdin_off);
	if (n > 0) {
		e->stdin_off += (size_t)n;
		if (e->stdin_off == e->req.stdin_len)
			close_fd(&e->fd_in); /* the program sees EOF */
		return;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close_fd(&e->fd_in); /* EPIPE: the program stopped reading */
}

static void read_zygote(struct exec *e)
{
	pid_t pid;
	int status;

	while (e->zygote && !e->exited) {
		switch (zygote_read(&pid, &status)) {
		case ZYGOTE_NONE:
			return;
		case ZYGOTE_PID:
			e->pid = pid;
			break;
		case ZYGOTE_EXIT:
			if (e->pid && pid == e->pid)
				step_ended(e, status);
			break;
		case ZYGOTE_BAD:
			note(e, "sbx-agent: the fork server refused the "
				"request\n");
			step_ended(e, W_EXITCODE(127, 0));
			zygote_stop();
			return;
		case ZYGOTE_GONE:
			/* Its exit status comes from the reaper. */
			e->zygote_eof = 1;
			return;
		}
	}
}

int exec_poll_fill(struct exec *e, struct pollfd *pfd)
{
	int n = 0;

	if (!e->active)
		return repl_poll_fill(pfd); /* dropping idle output */
	if (e->fd_out >= 0)
		pfd[n++] = (struct pollfd){.fd = e->fd_out, .events = POLLIN};
	if (e->fd_err >= 0)
		pfd[n++] = (struct pollfd){.fd = e->fd_err, .events = POLLIN};
	if (e->fd_in >= 0)
		pfd[n++] = (struct pollfd){.fd = e->fd_in, .events = POLLOUT};
	if (e->zygote && !e->exited && !e->zygote_eof && zygote_fd() >= 0)
		pfd[n++] = (struct pollfd){.fd = zygote_fd(), .events = POLLIN};
	if (e->req.artifacts && artifacts_fd() >= 0)
		pfd[n++] =
			(struct pollfd){.fd = artifacts_fd(), .events = POLLIN};
	return n + repl_poll_fill(pfd + n);
}

void exec_poll_done(struct exec *e, const struct pollfd *pfd, int n)
{
	int i;

	/* The interpreter's fds first: its output belongs to the call in
	 * progress only if that call runs through it. */
	repl_poll_done(pfd, n, e->active && e->repl ? output_cb : NULL, e);
	for (i = 0; i < n && e->active; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == e->fd_out)
			read_pipe(e, &e->fd_out, 1);
		else if (pfd[i].fd == e->fd_err)
			read_pipe(e, &e->fd_err, 2);
		else if (pfd[i].fd == e->fd_in)
			feed_stdin(e);
		else if (e->zygote && pfd[i].fd == zygote_fd())
			read_zygote(e);
		else if (pfd[i].fd == artifacts_fd())
			artifacts_read();
	}
}

uint64_t exec_deadline(const struct exec *e)
{
	uint64_t d;

	if (!e->active)
		return UINT64_MAX;
	if (e->draining)
		d = e->drain_until_ms;
	else if (e->exited || (e->kill && !e->interrupted))
		return 0;
	else if (e->interrupted)
		d = e->grace_until_ms;
	else
		d = e->deadline_ms;
	if ((e->pend_len[0] || e->pend_len[1]) && e->next_stream_ms < d)
		d = e->next_stream_ms;
	return d;
}

/* A tmpfs with less than this free when the call ends counts as full:
 * a write that found no room leaves at most a page or so. */
#define FULL_BELOW ((uint64_t)64 << 10)

static int full(const char *dir)
{
	struct statfs fs;

	return !statfs(dir, &fs) && fs.f_blocks &&
	       (uint64_t)fs.f_bavail * (uint64_t)fs.f_bsize < FULL_BELOW;
}

/* The limits the call ran into that it may not have said itself. */
static uint32_t limits_hit(const struct exec *e)
{
	uint64_t now;
	uint32_t l = 0;

	if (e->pids_known && procs_pids_max(&now) == 0 && now > e->pids_before)
		l |= AP_LIMIT_PIDS;
	if (full(AGENT_WORKDIR))
		l |= AP_LIMIT_WORK;
	if (full("/tmp"))
		l |= AP_LIMIT_TMP;
	return l;
}

static void send_done(struct exec *e)
{
	static const char fail_msg[] = "cannot build AP_EXEC_DONE";
	const char *phase = e->building ? "build" : "run";
	struct ap_exec_done m = {
		.timed_out = e->kill == EXEC_KILL_TIMEOUT,
		.cancelled = e->kill == EXEC_KILL_CANCEL,
		.duration_ms = (uint32_t)(e->end_ms - e->start_ms),
		.out_truncated = (uint8_t)capture_truncated(&e->cap_out),
		.err_truncated = (uint8_t)capture_truncated(&e->cap_err),
		.phase = phase,
		.phase_len = strlen(phase),
		.survivors = e->survivors,
		.repl = (uint8_t)e->repl,
		.state_kept = e->repl && repl_running() && !e->state_lost,
		.fresh = (uint8_t)e->fresh,
		.prestarted = (uint8_t)e->prestarted,
	};
	const struct ap_error fail = {.message = fail_msg,
				      .message_len = sizeof(fail_msg) - 1};
	struct ap_buf made;
	unsigned char *buf;
	uint64_t oom_now;
	int rc = -ENOMEM;

	if (e->stale)
		return;
	/* Killed for memory: the count rose while the call ran. */
	m.oom_killed = e->oom_known && procs_oom_kills(&oom_now) == 0 &&
		       oom_now > e->oom_before;
	m.limits = limits_hit(e);
	ap_buf_init(&made);
	if (e->req.artifacts) {
		/* The program's own source is never something it made: a
		 * build that failed never reached the run step, whose start
		 * would have forgotten the file's writing. */
		const char *src = e->req.file_name;

		if (artifacts_end(&made, e->req.artifacts, src, &m.more) ==
		    -EOVERFLOW)
			m.more = UINT32_MAX;
		m.entries = made.data ? made.data : (const unsigned char *)"";
		m.entries_len = made.len;
	}
	/* A killed execution reports SIGKILL even if the main process
	 * happened to exit in the same instant: the host asked for it to
	 * stop, and that is what happened. An interpreter that stopped on
	 * the interrupt kept its state: SIGINT is what ended the call. */
	if (e->kill) {
		m.has_signal = 1;
		m.signal = e->repl && !e->state_lost ? SIGINT : SIGKILL;
	} else if (WIFEXITED(e->status)) {
		m.has_exit_code = 1;
		m.exit_code = (uint32_t)WEXITSTATUS(e->status);
	} else if (WIFSIGNALED(e->status)) {
		m.has_signal = 1;
		m.signal = (uint32_t)WTERMSIG(e->status);
	}
	/* Both streams rendered at once: the encoder copies them. */
	buf = malloc(e->cap_out.cap + e->cap_err.cap + 1);
	if (buf) {
		m.out = buf;
		m.out_len = capture_render(&e->cap_out, buf);
		m.err = buf + m.out_len;
		m.err_len = capture_render(&e->cap_err, buf + m.out_len);
		rc = ap_exec_done_encode(e->out, e->id, &m);
		free(buf);
	}
	ap_buf_close(&made);
	if (!rc)
		return;
	/* Nothing of the reply was queued. Tell the host in the smallest
	 * frame there is. */
	agent_log("exec %u: cannot build the reply: %s", e->id, strerror(-rc));
	ap_error_encode(e->out, e->id, &fail);
}

/* Main process gone and pipes drained (or given up on). */
static void phase_done(struct exec *e)
{
	char note[160];
	int rc, n;

	close_fd(&e->fd_out);
	close_fd(&e->fd_err);
	close_fd(&e->fd_in);
	if (e->building && !e->kill && e->exited && WIFEXITED(e->status) &&
	    WEXITSTATUS(e->status) == 0) {
		rc = start_phase(e, 0);
		if (!rc)
			return;
		/* Same contract as a failed exec: 127 and a line on
		 * stderr. */
		n = snprintf(note, sizeof(note),
			     "sbx-agent: cannot start the run phase: %s\n",
			     strerror(-rc));
		capture_add(&e->cap_err, note, (size_t)n);
		e->building = 0;
		e->status = W_EXITCODE(127, 0);
		e->end_ms = agent_now_ms();
	}
	send_done(e);
	exec_reset(e);
}

/* The reply ended the call, or the interpreter died: everything else the
 * call started goes; a living interpreter has flushed its output before
 * replying, a dead one's pipes are read to EOF. */
static void repl_finish(struct exec *e, uint64_t now)
{
	if (!e->draining) {
		e->survivors = procs_kill_all();
		e->draining = 1;
		e->drain_until_ms = now + EXEC_DRAIN_MS;
		repl_drain(output_cb, e);
	}
	if (!repl_running() && repl_output_open() && now < e->drain_until_ms)
		return;
	send_done(e);
	exec_reset(e);
}

static void repl_step(struct exec *e, uint64_t now)
{
	int status;

	if (!e->exited && repl_take_done(&status)) {
		e->exited = 1;
		e->status = W_EXITCODE(status, 0);
		if (!e->kill)
			e->end_ms = now;
	}
	if (!e->exited && !e->kill && now >= e->deadline_ms)
		e->kill = EXEC_KILL_TIMEOUT;
	if (!e->exited && e->kill && !e->interrupted) {
		/* First ask: the language stops the code and keeps its
		 * state (KeyboardInterrupt, an interactive shell's ^C). */
		e->end_ms = now;
		e->interrupted = 1;
		e->grace_until_ms = now + e->grace_ms;
		repl_interrupt();
		return;
	}
	if (!e->exited && e->interrupted && now >= e->grace_until_ms) {
		agent_log("exec %u: the interpreter ignored the interrupt for "
			  "%u ms: killed",
			  e->id, e->grace_ms);
		repl_stop();
		e->state_lost = 1;
		e->exited = 1;
		e->status = SIGKILL; /* a wait status: killed by SIGKILL */
	}
	if (e->exited)
		repl_finish(e, now);
}

void exec_step(struct exec *e)
{
	uint64_t now;

	if (!e->active)
		return;
	now = agent_now_ms();
	if (e->stream_ms && now >= e->next_stream_ms) {
		stream_flush(e);
		e->next_stream_ms = now + e->stream_ms;
	}
	if (e->repl) {
		repl_step(e, now);
		return;
	}
	if (!e->draining) {
		if (!e->exited && !e->kill && now >= e->deadline_ms)
			e->kill = EXEC_KILL_TIMEOUT;
		if (!e->exited && !e->kill)
			return;
		if (!e->exited)
			e->end_ms = now;
		close_fd(&e->fd_in);
		/* A timed-out or cancelled run may have been queued in the
		 * server's socket still, or the server may be wedged: it
		 * goes with everything else and restarts on the next run. */
		if (e->zygote && (e->kill || !e->exited))
			zygote_stop();
		/* Also reaps the main process (exec_child_exited) when this
		 * is a timeout or a cancel. */
		e->survivors = procs_kill_all();
		e->draining = 1;
		now = agent_now_ms();
		e->drain_until_ms = now + EXEC_DRAIN_MS;
		/* Usually everything is at EOF by now: finish without
		 * another trip through poll(). */
		if (e->fd_out >= 0)
			read_pipe(e, &e->fd_out, 1);
		if (e->fd_err >= 0)
			read_pipe(e, &e->fd_err, 2);
	}
	if ((e->fd_out >= 0 || e->fd_err >= 0) && now < e->drain_until_ms)
		return;
	phase_done(e);
}
