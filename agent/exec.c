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
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "log.h"
#include "procs.h"
#include "repl.h"
#include "spawn.h"
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
	free(e->blob);
	free(e->build_argv); /* one allocation for all the vectors */
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

static int valid_file_name(const char *s)
{
	return *s && strlen(s) <= 255 && !strchr(s, '/') && !strstr(s, "..") &&
	       strcmp(s, ".") != 0;
}

static int is_string_tag(uint8_t tag)
{
	return tag == AP_T_FILE_NAME || tag == AP_T_BUILD_ARG ||
	       tag == AP_T_RUN_ARG || tag == AP_T_ENV ||
	       tag == AP_T_SECCOMP_DENY || tag == AP_T_REPL_ARG;
}

struct limits {
	uint32_t timeout_ms, out_cap, err_cap;
};

/* The u32 fields of AP_EXEC and where parse() puts them. */
static uint32_t *u32_field(struct exec *e, struct limits *lim, uint8_t tag)
{
	switch (tag) {
	case AP_T_TIMEOUT_MS:
		return &lim->timeout_ms;
	case AP_T_STDOUT_CAP:
		return &lim->out_cap;
	case AP_T_STDERR_CAP:
		return &lim->err_cap;
	case AP_T_REPL_SEQ:
		return &e->repl_seq;
	case AP_T_GRACE_MS:
		return &e->grace_ms;
	case AP_T_STREAM_MS:
		return &e->stream_ms;
	default:
		return NULL;
	}
}

/* Copy the request out of the frame (whose buffer the reader reuses).
 * Everything lands in one blob: strings NUL-terminated, then the vectors
 * point into it. */
static int parse(struct exec *e, const struct ap_frame *f, struct limits *lim,
		 const char **err)
{
	size_t nbuild = 0, nrun = 0, nenv = 0, ndeny = 0, nrepl = 0,
	       blob_len = 0;
	size_t off = 0, pos = 0, ib = 0, ir = 0, ie = 0, id = 0, ip = 0, i;
	uint32_t seen = 0, bit;
	struct ap_field fl;
	char *s;
	int rc;

	while ((rc = ap_next_field(f, &off, &fl)) == 1) {
		bit = fl.tag < 32 ? 1u << fl.tag : 0;
		switch (fl.tag) {
		case AP_T_BUILD_ARG:
			nbuild++;
			break;
		case AP_T_RUN_ARG:
			nrun++;
			break;
		case AP_T_ENV:
			nenv++;
			break;
		case AP_T_SECCOMP_DENY:
			ndeny++;
			break;
		case AP_T_REPL_ARG:
			nrepl++;
			break;
		case AP_T_FILE_NAME:
		case AP_T_FILE_DATA:
		case AP_T_STDIN:
			if (seen & bit) {
				*err = "duplicate field in AP_EXEC";
				return -EINVAL;
			}
			break;
		default:
			if (!u32_field(e, lim, fl.tag))
				continue; /* unknown tags: newer hosts may add
					     fields */
			if ((seen & bit) || fl.len != 4) {
				*err = "bad or duplicate u32 field in AP_EXEC";
				return -EINVAL;
			}
			break;
		}
		seen |= bit;
		if (is_string_tag(fl.tag) && memchr(fl.data, 0, fl.len)) {
			*err = "string field contains a NUL byte";
			return -EINVAL;
		}
		blob_len += (size_t)fl.len + 1;
	}
	if (rc < 0) {
		*err = "malformed AP_EXEC fields";
		return -EPROTO;
	}
	if (!nrun && !nrepl) {
		*err = "AP_EXEC without RUN_ARG or REPL_ARG";
		return -EINVAL;
	}
	if ((seen & (1u << AP_T_FILE_DATA)) &&
	    !(seen & (1u << AP_T_FILE_NAME)) && !nrepl) {
		*err = "FILE_DATA without FILE_NAME";
		return -EINVAL;
	}

	e->blob = malloc(blob_len ? blob_len : 1);
	e->build_argv = calloc(nbuild + nrun + nenv + ndeny + nrepl + 5,
			       sizeof(char *));
	if (!e->blob || !e->build_argv) {
		*err = "out of memory";
		return -ENOMEM;
	}
	/* build_argv is the allocation's base (freed as such); an empty
	 * build vector means "no build". */
	e->run_argv = e->build_argv + nbuild + 1;
	e->envp = e->run_argv + nrun + 1;
	e->deny = e->envp + nenv + 1;
	e->ndeny = ndeny;
	e->repl_argv = e->deny + ndeny + 1;

	off = 0;
	while (ap_next_field(f, &off, &fl) == 1) {
		s = e->blob + pos;
		switch (fl.tag) {
		case AP_T_FILE_NAME:
			e->file_name = s;
			break;
		case AP_T_FILE_DATA:
			e->file_data = (unsigned char *)s;
			e->file_len = fl.len;
			break;
		case AP_T_STDIN:
			e->stdin_data = (unsigned char *)s;
			e->stdin_len = fl.len;
			break;
		case AP_T_BUILD_ARG:
			e->build_argv[ib++] = s;
			break;
		case AP_T_RUN_ARG:
			e->run_argv[ir++] = s;
			break;
		case AP_T_ENV:
			e->envp[ie++] = s;
			break;
		case AP_T_SECCOMP_DENY:
			e->deny[id++] = s;
			break;
		case AP_T_REPL_ARG:
			e->repl_argv[ip++] = s;
			break;
		default:
			if (u32_field(e, lim, fl.tag))
				*u32_field(e, lim, fl.tag) = ap_field_u32(&fl);
			continue;
		}
		memcpy(s, fl.data, fl.len);
		s[fl.len] = '\0';
		pos += (size_t)fl.len + 1;
	}
	if (e->file_name && !valid_file_name(e->file_name)) {
		*err = "bad FILE_NAME (empty, '/', '..' or too long)";
		return -EINVAL;
	}
	/* The counts of this pass, not the first: what was copied is what
	 * gets checked. */
	for (i = 0; i < ie; i++)
		if (!strchr(e->envp[i], '=') || e->envp[i][0] == '=') {
			*err = "ENV entry is not KEY=VALUE";
			return -EINVAL;
		}
	if ((ip && !e->repl_argv[0][0]) ||
	    (!ip && (!ir || !e->run_argv[0][0])) ||
	    (ib && !e->build_argv[0][0])) {
		*err = "empty program name";
		return -EINVAL;
	}
	return 0;
}

/* The run step through the fork server: (re)start it if needed, hand it
 * the request. -EMSGSIZE: run it the ordinary way. */
static int start_zygote(struct exec *e, const struct spawn_opts *o)
{
	int rc;

	rc = zygote_ensure(e->envp, e->deny, e->ndeny, e->seccomp, o->fd_in,
			   o->fd_out, o->fd_err);
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

/* Start the build (building=1) or run phase. */
static int start_phase(struct exec *e, int building)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
	struct spawn_opts o;
	pid_t pid;
	int rc = 0;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) ||
	    (!building && e->stdin_data && pipe2(pi, O_CLOEXEC))) {
		rc = -errno;
		goto out;
	}
	/* Only our ends are non-blocking; the program gets ordinary pipes. */
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	if (pi[1] >= 0)
		fcntl(pi[1], F_SETFL, O_NONBLOCK);

	memset(&o, 0, sizeof(o));
	o.argv = building ? e->build_argv : e->run_argv;
	o.envp = e->envp;
	o.fd_in = pi[0] >= 0 ? pi[0] : 0; /* the agent's fd 0 is /dev/null */
	o.fd_out = po[1];
	o.fd_err = pe[1];
	if (building || !e->build_argv[0]) {
		o.file_name = e->file_name;
		o.file_data = e->file_data;
		o.file_len = e->file_len;
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
	if (e->fd_in >= 0 && e->stdin_len == 0)
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

	rc = repl_ensure(e->repl_argv, e->envp, e->deny, e->ndeny, e->seccomp);
	if (rc < 0)
		return rc;
	e->repl = 1;
	e->fresh = rc == 1;
	e->pid = 0; /* the interpreter outlives the call: not "the" process */
	if (!e->grace_ms)
		e->grace_ms = EXEC_DEFAULT_GRACE_MS;
	rc = repl_submit(e->repl_seq,
			 e->file_data ? e->file_data
				      : (const unsigned char *)"",
			 e->file_len);
	if (rc)
		repl_stop();
	return rc;
}

int exec_start(struct exec *e, const struct ap_frame *f, const char **err)
{
	static char msg[128];
	struct limits lim = {0, 0, 0};
	uint64_t now;
	int rc;

	if (e->active) {
		*err = "busy";
		return -EBUSY;
	}
	rc = parse(e, f, &lim, err);
	if (rc)
		goto fail;
	/* 0 means "default", so a host that always sends the fields does
	 * not have to know the defaults. */
	if (!lim.timeout_ms)
		lim.timeout_ms = EXEC_DEFAULT_TIMEOUT_MS;
	if (!lim.out_cap)
		lim.out_cap = EXEC_DEFAULT_CAP;
	if (!lim.err_cap)
		lim.err_cap = EXEC_DEFAULT_CAP;
	if (lim.out_cap > EXEC_MAX_CAP)
		lim.out_cap = EXEC_MAX_CAP;
	if (lim.err_cap > EXEC_MAX_CAP)
		lim.err_cap = EXEC_MAX_CAP;
	if (capture_init(&e->cap_out, lim.out_cap) ||
	    capture_init(&e->cap_err, lim.err_cap)) {
		*err = "out of memory";
		rc = -ENOMEM;
		goto fail;
	}
	if (e->ndeny) {
		e->seccomp = spawn_seccomp_new(e->deny, e->ndeny);
		if (!e->seccomp) {
			*err = "out of memory building the seccomp filter";
			rc = -ENOMEM;
			goto fail;
		}
	}
	now = agent_now_ms();
	e->start_ms = now;
	e->deadline_ms = now + lim.timeout_ms;
	if (e->stream_ms)
		e->next_stream_ms = now + e->stream_ms;
	if (e->repl_argv[0])
		rc = start_repl(e);
	else
		rc = start_phase(e, e->build_argv[0] != NULL);
	if (rc) {
		snprintf(msg, sizeof(msg), "cannot start the process: %s",
			 strerror(-rc));
		*err = msg;
		goto fail;
	}
	e->id = f->id;
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

/* Every byte of a call's output passes here (a output_fn): into its
 * capture, and into the stream when the host asked for one, never more
 * than the capture's cap in all, so a chatty program cannot flood the
 * host. */
static void output(void *arg, int fd, const void *data, size_t len)
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
	struct ap_buf *b = e->out;
	int rc, k;

	if (e->stale)
		e->pend_len[0] = e->pend_len[1] = 0;
	if (!e->pend_len[0] && !e->pend_len[1])
		return;
	rc = ap_frame_begin(b, AP_OUTPUT, e->id);
	for (k = 0; k < 2 && !rc; k++)
		if (e->pend_len[k])
			rc = ap_put(b, k ? AP_T_STDERR : AP_T_STDOUT,
				    e->pend[k], e->pend_len[k]);
	if (!rc)
		rc = ap_frame_end(b);
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
			output(e, which, iobuf, (size_t)n);
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

	n = write(e->fd_in, e->stdin_data + e->stdin_off,
		  e->stdin_len - e->stdin_off);
	if (n > 0) {
		e->stdin_off += (size_t)n;
		if (e->stdin_off == e->stdin_len)
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
	return n + repl_poll_fill(pfd + n);
}

void exec_poll_done(struct exec *e, const struct pollfd *pfd, int n)
{
	int i;

	/* The interpreter's fds first: its output belongs to the call in
	 * progress only if that call runs through it. */
	repl_poll_done(pfd, n, e->active && e->repl ? output : NULL, e);
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

static int put_output(struct ap_buf *b, uint8_t tag, const struct capture *c,
		      unsigned char *tmp)
{
	return ap_put(b, tag, tmp, capture_render(c, tmp));
}

static void send_done(struct exec *e)
{
	struct ap_buf *b = e->out;
	size_t max = e->cap_out.cap > e->cap_err.cap ? e->cap_out.cap
						     : e->cap_err.cap;
	unsigned char *tmp;
	int rc;

	if (e->stale)
		return;
	tmp = malloc(max ? max : 1);
	rc = tmp ? 0 : -ENOMEM;

	if (!rc)
		rc = ap_frame_begin(b, AP_EXEC_DONE, e->id);
	/* A killed execution reports SIGKILL even if the main process
	 * happened to exit in the same instant: the host asked for it to
	 * stop, and that is what happened. */
	if (!rc && e->kill)
		/* An interpreter that stopped on the interrupt kept its
		 * state: SIGINT is what ended the call. */
		rc = ap_put_u32(b, AP_T_SIGNAL,
				e->repl && !e->state_lost ? SIGINT : SIGKILL);
	else if (!rc && WIFEXITED(e->status))
		rc = ap_put_u32(b, AP_T_EXIT_CODE,
				(uint32_t)WEXITSTATUS(e->status));
	else if (!rc && WIFSIGNALED(e->status))
		rc = ap_put_u32(b, AP_T_SIGNAL, (uint32_t)WTERMSIG(e->status));
	if (!rc)
		rc = ap_put_u8(b, AP_T_TIMED_OUT, e->kill == EXEC_KILL_TIMEOUT);
	if (!rc)
		rc = ap_put_u8(b, AP_T_CANCELLED, e->kill == EXEC_KILL_CANCEL);
	if (!rc)
		rc = ap_put_u32(b, AP_T_DURATION_MS,
				(uint32_t)(e->end_ms - e->start_ms));
	if (!rc)
		rc = put_output(b, AP_T_STDOUT, &e->cap_out, tmp);
	if (!rc)
		rc = put_output(b, AP_T_STDERR, &e->cap_err, tmp);
	if (!rc)
		rc = ap_put_u8(b, AP_T_STDOUT_TRUNC,
			       (uint8_t)capture_truncated(&e->cap_out));
	if (!rc)
		rc = ap_put_u8(b, AP_T_STDERR_TRUNC,
			       (uint8_t)capture_truncated(&e->cap_err));
	if (!rc)
		rc = ap_put_str(b, AP_T_PHASE, e->building ? "build" : "run");
	if (!rc)
		rc = ap_put_u32(b, AP_T_SURVIVORS, e->survivors);
	if (!rc && e->repl)
		rc = ap_put_u8(b, AP_T_STATE_KEPT,
			       repl_running() && !e->state_lost);
	if (!rc && e->repl)
		rc = ap_put_u8(b, AP_T_FRESH, (uint8_t)e->fresh);
	if (!rc)
		rc = ap_frame_end(b);
	free(tmp);
	if (!rc)
		return;
	/* The ap_put_* calls removed the partial frame. Tell the host in the
	 * smallest frame there is. */
	agent_log("exec %u: cannot build the reply: %s", e->id, strerror(-rc));
	if (ap_frame_begin(b, AP_ERROR, e->id) == 0 &&
	    ap_put_str(b, AP_T_MESSAGE, "cannot build AP_EXEC_DONE") == 0)
		ap_frame_end(b);
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
		repl_drain(output, e);
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
