/*
 * agent.c - PID 1 of a sandbox container: the protocol loop.
 *
 * Requests arrive as frames on stdin (common/agent_proto.h), replies leave
 * on stdout, stderr carries log lines. One poll() loop watches stdin, the
 * signalfd (SIGCHLD and termination), the pipes of the running execution
 * or reset worker, and their deadlines. Bad input is answered with
 * AP_ERROR; the agent only exits when stdin closes or it is told to stop,
 * and it kills every user process first.
 */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "bg.h"
#include "exec.h"
#include "artifacts.h"
#include "files.h"
#include "log.h"
#include "loopback.h"
#include "prestart.h"
#include "procs.h"
#include "relay.h"
#include "reset.h"
#include "repl.h"
#include "zygote.h"

/* Output still queued at exit gets this long to reach the host. */
#define FLUSH_AT_EXIT_MS 1000
/* A container no host has spoken to this long after it started ends: its
 * host died between starting it and attaching (the dead man's switch
 * below cannot fire without a first host). */
#define FIRST_HOST_MS 15000
/* Stop reading requests while more than this much reply data waits for
 * the host: every request can add a reply, so a host that does not read
 * could otherwise make the queue grow without bound. */
#define OUT_HIGH_WATER (1u << 20)
/* One turn's pollfds: the signalfd, stdout, the relay socket, stdin, and
 * what each worker asks for. */
#define AGENT_POLL_FDS                                                         \
	(4 + EXEC_POLL_FDS + RESET_POLL_FDS + FILES_POLL_FDS +                 \
	 PRESTART_POLL_FDS + BG_POLL_FDS + LB_POLL_FDS)

struct agent {
	int in_fd; /* the protocol streams: stdin and stdout moved off fds 0
		    * and 1, or a relay connection (relay.h); -1 between
		    * relay connections */
	int out_fd;
	int on_socket; /* in_fd/out_fd are a relay connection (one fd) */
	int listen_fd; /* relay_listen(), or -1 */
	/* The dead man's switch: a pool container ends when its host's
	 * stdin ends (the engine then removes it: AutoRemove); AP_KEEP (a
	 * session) makes it wait for a relay connection instead. */
	int keep;
	int had_host;	   /* a frame came from some host */
	uint64_t start_ms; /* for FIRST_HOST_MS */
	int in_eof;
	int out_broken;
	struct ap_reader reader;
	struct ap_buf out;
	size_t out_off; /* bytes of out already written */
	struct exec exec;
	struct reset reset;
	struct files files;
	/* A request that came while the previous connection's execution was
	 * still being stopped: run when it is (payload owned). */
	struct ap_frame deferred;
	unsigned char *deferred_data;
	/* AP_PRESTART answered once its interpreter waits (or will not). */
	int prestart_pending;
	uint32_t prestart_id;
};

static unsigned char inbuf[256 * 1024];

uint64_t agent_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Structural guard: the protocol fds live above 2 with O_CLOEXEC, fd 1
 * becomes stderr so a stray printf cannot corrupt the stream, and fd 0 is
 * /dev/null, which spawn hands to programs that get no stdin. */
static int setup_fds(struct agent *a)
{
	int null;

	a->in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	a->out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
	if (a->in_fd < 0 || a->out_fd < 0)
		return -errno;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0)
		return -errno;
	if (dup2(null, 0) < 0 || dup2(2, 1) < 0)
		return -errno;
	close(null);
	fcntl(a->in_fd, F_SETFL, O_NONBLOCK);
	fcntl(a->out_fd, F_SETFL, O_NONBLOCK);
	return 0;
}

static void flush_out(struct agent *a)
{
	ssize_t n;

	if (a->out_fd < 0)
		return;

	while (a->out_off < a->out.len && !a->out_broken) {
		n = write(a->out_fd, a->out.data + a->out_off,
			  a->out.len - a->out_off);
		if (n > 0) {
			a->out_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		agent_log("stdout: %s; replies are dropped from now on",
			  n < 0 ? strerror(errno) : "short write");
		a->out_broken = 1;
	}
	/* Compact only when empty (the usual case) or mostly written, so a
	 * large reply is not memmove'd once per write. */
	if (a->out_off == a->out.len || a->out_broken) {
		a->out.len = a->out.frame_start = 0;
		a->out_off = 0;
	} else if (a->out_off > a->out.len / 2) {
		ap_buf_consume(&a->out, a->out_off);
		a->out_off = 0;
	}
}

static void send_error(struct agent *a, uint32_t id, const char *msg)
{
	const struct ap_error m = {.message = msg, .message_len = strlen(msg)};
	int rc = ap_error_encode(&a->out, id, &m);

	if (rc)
		agent_log("cannot queue AP_ERROR: %s", strerror(-rc));
}

static void send_hello(struct agent *a, uint32_t id)
{
	static const struct ap_hello_ok m = {
		.version = AP_VERSION,
		.workdir = AGENT_WORKDIR,
		.workdir_len = sizeof(AGENT_WORKDIR) - 1,
	};
	int rc = ap_hello_ok_encode(&a->out, id, &m);

	if (rc)
		agent_log("cannot queue AP_HELLO_OK: %s", strerror(-rc));
}

/* 1 if f was kept for later: it is the new host's first request, and the
 * agent is still stopping what the previous connection started (an
 * interrupted interpreter may take its grace period). */
static int defer_frame(struct agent *a, const struct ap_frame *f)
{
	if (!(a->exec.stale || a->reset.stale || a->files.stale) ||
	    a->deferred_data)
		return 0;
	a->deferred_data = malloc(f->len ? f->len : 1);
	if (!a->deferred_data)
		return 0;
	memcpy(a->deferred_data, f->payload, f->len);
	a->deferred = *f;
	a->deferred.payload = a->deferred_data;
	return 1;
}

static void drop_deferred(struct agent *a)
{
	free(a->deferred_data);
	a->deferred_data = NULL;
}

/* An execution, a reset or a file operation runs: one at a time. */
static int busy(const struct agent *a)
{
	return exec_busy(&a->exec) || reset_busy(&a->reset) ||
	       files_busy(&a->files) || a->prestart_pending;
}

/* A file operation may run beside a call of the session interpreter
 * (AP_VERSION 3): the host sends one only while the interpreter starts,
 * so that a session's first file does not wait for its imports. */
static int file_beside(const struct agent *a)
{
	return exec_in_interpreter(&a->exec) && !reset_busy(&a->reset) &&
	       !files_busy(&a->files) && !a->prestart_pending;
}

/* AP_PRESTART: the description now, the interpreter at once when nothing
 * runs (a fresh container), the reply when it waits. */
static void start_prestart(struct agent *a, const struct ap_frame *f)
{
	struct error err;

	if (busy(a)) {
		send_error(a, f->id, "busy");
		return;
	}
	if (a->keep) {
		send_error(a, f->id,
			   "a kept container has no pre-started "
			   "interpreter");
		return;
	}
	if (prestart_configure(f, &err)) {
		send_error(a, f->id, err.msg);
		return;
	}
	prestart_launch();
	a->prestart_pending = 1;
	a->prestart_id = f->id;
}

static void prestart_reply(struct agent *a)
{
	struct ap_reset_done m = {.ok = 1};
	int rc;

	if (!a->prestart_pending || !prestart_settled())
		return;
	a->prestart_pending = 0;
	rc = ap_prestart_done_encode(&a->out, a->prestart_id, &m);
	if (rc)
		agent_log("cannot queue AP_PRESTART_DONE: %s", strerror(-rc));
}

static void handle_frame(struct agent *a, const struct ap_frame *f)
{
	struct error err;
	char msg[64];

	a->had_host = 1;
	if ((f->type == AP_EXEC || f->type == AP_RESET || f->type == AP_FILE ||
	     f->type == AP_PRESTART) &&
	    busy(a) && defer_frame(a, f))
		return;
	switch (f->type) {
	case AP_KEEP:
		if (!a->keep)
			agent_log("kept: this container outlives its host");
		a->keep = 1;
		/* A session's: never another caller's, never reset for one. */
		prestart_forget();
		break;
	case AP_PRESTART:
		start_prestart(a, f);
		break;
	case AP_HELLO:
		send_hello(a, f->id);
		break;
	case AP_EXEC:
		if (busy(a))
			send_error(a, f->id, "busy");
		else if (exec_start(&a->exec, f, &err))
			send_error(a, f->id, err.msg);
		else
			prestart_note_use();
		break;
	case AP_RESET:
		if (busy(a))
			send_error(a, f->id, "busy");
		else if (reset_start(&a->reset, f->id, &err))
			send_error(a, f->id, err.msg);
		break;
	case AP_FILE:
		if (busy(a) && !file_beside(a))
			send_error(a, f->id, "busy");
		else if (files_start(&a->files, f, &err))
			send_error(a, f->id, err.msg);
		else
			prestart_note_use();
		break;
	case AP_CANCEL: /* the running exec, a wait or an exchange */
		exec_cancel(&a->exec, f->id);
		bg_cancel(f->id);
		lb_cancel(f->id);
		break;
	case AP_SPAWN: /* beside anything (bg.h) */
		bg_spawn(f, a->keep);
		break;
	case AP_PROC:
		bg_proc(f);
		break;
	case AP_EXCHANGE: /* beside anything too (loopback.h) */
		lb_start(f, a->keep);
		break;
	default:
		snprintf(msg, sizeof(msg), "unknown frame type 0x%02x",
			 f->type);
		send_error(a, f->id, msg);
		break;
	}
}

static void read_input(struct agent *a)
{
	struct ap_frame f;
	ssize_t n;
	int rc;

	n = read(a->in_fd, inbuf, sizeof(inbuf));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n < 0)
			agent_log("stdin: %s", strerror(errno));
		a->in_eof = 1;
		return;
	}
	if (ap_reader_feed(&a->reader, inbuf, (size_t)n)) {
		/* Cannot buffer a frame we are allowed to receive: drop what
		 * we have, the host will see the error. */
		ap_reader_close(&a->reader);
		ap_reader_init(&a->reader);
		send_error(a, 0, "out of memory reading a frame");
		return;
	}
	while ((rc = ap_reader_next(&a->reader, &f)) == 1)
		handle_frame(a, &f);
	if (rc < 0) {
		/* There is no way to find the next frame boundary; drop the
		 * buffered bytes and hope the next write starts a frame. The
		 * host treats this as a broken container anyway. */
		ap_reader_close(&a->reader);
		ap_reader_init(&a->reader);
		send_error(a, 0, "corrupt frame stream");
	}
}

static void child_exited_cb(pid_t pid, int status, void *arg)
{
	struct agent *a = arg;

	if (!bg_child_exited(pid, status) && !prestart_reaped(pid, status) &&
	    !exec_child_exited(&a->exec, pid, status) &&
	    !reset_child_exited(&a->reset, pid, status))
		files_child_exited(&a->files, pid, status);
	/* anything else was an orphan: reaped, nothing to report */
}

static int poll_timeout(struct agent *a)
{
	uint64_t d = exec_deadline(&a->exec), r = reset_deadline(&a->reset);
	uint64_t fl = files_deadline(&a->files), now;
	uint64_t p = prestart_deadline(), b = bg_deadline();
	uint64_t x = lb_deadline();

	if (r < d)
		d = r;
	if (b < d)
		d = b;
	if (x < d)
		d = x;
	if (p < d)
		d = p;
	if (fl < d)
		d = fl;
	if (!a->had_host && a->start_ms + FIRST_HOST_MS < d)
		d = a->start_ms + FIRST_HOST_MS;
	if (d == UINT64_MAX)
		return -1;
	now = agent_now_ms();
	if (d <= now)
		return 0;
	return d - now > 60000 ? 60000 : (int)(d - now);
}

/* A new host (relay.h): everything the previous one asked for or was
 * about to be told is forgotten; a running execution is stopped. */
static void drop_connection(struct agent *a)
{
	if (a->on_socket && a->in_fd >= 0)
		close(a->in_fd);
	a->in_fd = a->out_fd = -1;
	a->in_eof = 0;
	a->out_broken = 0;
	ap_reader_close(&a->reader);
	ap_reader_init(&a->reader);
	a->out.len = a->out.frame_start = 0;
	a->out_off = 0;
	exec_orphan(&a->exec);
	bg_drop_waits(); /* the processes stay: they are the session's */
	lb_drop_all();
	a->prestart_pending = 0; /* the interpreter stays: it is the box's */
	if (reset_busy(&a->reset))
		a->reset.stale = 1;
	if (files_busy(&a->files))
		a->files.stale = 1;
	drop_deferred(a);
}

static void accept_connection(struct agent *a)
{
	int fd = relay_accept(a->listen_fd);

	if (fd < 0)
		return;
	drop_connection(a);
	a->in_fd = a->out_fd = fd;
	a->on_socket = 1;
	agent_log("a host connected through the relay");
}

/*
 * /work must be the sandbox user's. Docker mounts its tmpfs so
 * (uid=1000); Podman has no such tmpfs option, so there the container
 * alone starts with CAP_CHOWN: /work is handed over here, then the
 * capability is given up for good, back to the agent's four.
 */
static void own_workdir(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct stat st;

	if (stat(AGENT_WORKDIR, &st) == 0 && st.st_uid != AGENT_UID &&
	    (chmod(AGENT_WORKDIR, 0700) ||
	     chown(AGENT_WORKDIR, AGENT_UID, AGENT_GID)))
		agent_log("%s is not the sandbox user's: %s", AGENT_WORKDIR,
			  strerror(errno));
	if (prctl(PR_CAPBSET_DROP, CAP_CHOWN, 0, 0, 0) && errno != EINVAL)
		agent_log("dropping CAP_CHOWN: %s", strerror(errno));
	if (syscall(SYS_capget, &hdr, data) == 0) {
		data[0].effective &= ~(1u << CAP_CHOWN);
		data[0].permitted &= ~(1u << CAP_CHOWN);
		data[0].inheritable &= ~(1u << CAP_CHOWN);
		if (syscall(SYS_capset, &hdr, data))
			agent_log("dropping CAP_CHOWN: %s", strerror(errno));
	}
}

/* Everything before the first turn of the loop. 0, or -1 (logged): the
 * agent cannot run. */
static int agent_start(struct agent *a)
{
	int rc;

	memset(a, 0, sizeof(*a));
	signal(SIGPIPE, SIG_IGN);
	/* Not dumpable: /proc/1 stays root-only and ptrace is refused even
	 * to a process that somehow shared our uid. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* Large replies (a file read, captured output) come from the heap
	 * and go back to it: reused, their pages are not faulted in afresh
	 * for every request, which on a VM costs more than the copy. */
	mallopt(M_MMAP_THRESHOLD, AP_MAX_FRAME * 2);
	mallopt(M_TRIM_THRESHOLD, AP_MAX_FRAME * 4);
	rc = setup_fds(a);
	if (rc) {
		agent_log("fd setup: %s", strerror(-rc));
		return -1;
	}
	own_workdir();
	ap_reader_init(&a->reader);
	ap_buf_init(&a->out);
	exec_init(&a->exec, &a->out);
	reset_init(&a->reset, &a->out);
	files_init(&a->files, &a->out);
	bg_init(&a->out);
	lb_init(&a->out);
	rc = artifacts_init();
	if (rc < 0)
		agent_log("artifacts: %s (executions report none)",
			  strerror(-rc));
	rc = procs_init(child_exited_cb, a);
	if (rc) {
		agent_log("signal setup: %s", strerror(-rc));
		return -1;
	}
	a->listen_fd = relay_listen();
	if (a->listen_fd < 0)
		agent_log("relay socket: %s (a restarted server cannot "
			  "reconnect)",
			  strerror(-a->listen_fd));
	a->start_ms = agent_now_ms();
	return 0;
}

/* 1 when the agent ends: told to stop, its host gone for good, or no
 * host came. The first host's stdin ending means it is gone for good (the
 * container is created with StdinOnce, so that happens when the host's
 * attach connection goes, however the host ended): a pool container
 * ends; a kept one (a session), like one whose relay connection ended,
 * waits for the next host. */
static int agent_done(struct agent *a)
{
	if (procs_terminating())
		return 1;
	if (a->in_eof && !a->on_socket) {
		if (!a->keep) {
			agent_log("the host has gone: ending");
			return 1;
		}
		agent_log("the host has gone: waiting for the next");
		drop_connection(a);
	}
	if (!a->had_host && !a->on_socket &&
	    agent_now_ms() >= a->start_ms + FIRST_HOST_MS) {
		agent_log("no host spoke in %d ms: ending", FIRST_HOST_MS);
		return 1;
	}
	return 0;
}

/* Where each watcher's fds sit in one turn's pollfd array (-1: none). */
struct slots {
	int n;
	int sig, out, listen, in;
	int exec, reset, files, prestart, bg, lb; /* each up to the next */
};

static void poll_fill(struct agent *a, struct pollfd *pfd, struct slots *s)
{
	int n = 0;

	s->in = s->out = s->listen = -1;
	pfd[n] = (struct pollfd){.fd = procs_fd(), .events = POLLIN};
	s->sig = n++;
	if (a->out_off < a->out.len && !a->out_broken) {
		pfd[n] = (struct pollfd){.fd = a->out_fd, .events = POLLOUT};
		s->out = n++;
	}
	if (a->listen_fd >= 0) {
		pfd[n] = (struct pollfd){.fd = a->listen_fd, .events = POLLIN};
		s->listen = n++;
	}
	if (a->in_fd >= 0 &&
	    (a->out.len - a->out_off <= OUT_HIGH_WATER || a->out_broken)) {
		pfd[n] = (struct pollfd){.fd = a->in_fd, .events = POLLIN};
		s->in = n++;
	}
	s->exec = n;
	n += exec_poll_fill(&a->exec, pfd + n);
	s->reset = n;
	n += reset_poll_fill(&a->reset, pfd + n);
	s->files = n;
	n += files_poll_fill(&a->files, pfd + n);
	s->prestart = n;
	n += prestart_poll_fill(pfd + n);
	s->bg = n;
	n += bg_poll_fill(pfd + n);
	s->lb = n;
	n += lb_poll_fill(pfd + n);
	s->n = n;
}

/* A request deferred by defer_frame() runs once nothing else does. */
static void run_deferred(struct agent *a)
{
	struct ap_frame f;

	if (!a->deferred_data || busy(a))
		return;
	f = a->deferred;
	a->deferred_data = NULL;
	handle_frame(a, &f);
	free((void *)f.payload);
}

/* What one poll() found: the signals, the workers' pipes, requests, a
 * new relay connection; then every state machine advances and replies
 * go out. */
static void poll_done(struct agent *a, const struct pollfd *pfd,
		      const struct slots *s)
{
	if (pfd[s->sig].revents)
		procs_handle_signals();
	exec_poll_done(&a->exec, pfd + s->exec, s->reset - s->exec);
	reset_poll_done(&a->reset, pfd + s->reset, s->files - s->reset);
	files_poll_done(&a->files, pfd + s->files, s->prestart - s->files);
	prestart_poll_done(pfd + s->prestart, s->bg - s->prestart);
	bg_poll_done(pfd + s->bg, s->lb - s->bg);
	lb_poll_done(pfd + s->lb, s->n - s->lb);
	if (s->in >= 0 && pfd[s->in].revents)
		read_input(a);
	if (a->on_socket && a->in_fd >= 0 && (a->in_eof || a->out_broken)) {
		agent_log("the relay connection ended");
		drop_connection(a);
	}
	if (s->listen >= 0 && pfd[s->listen].revents)
		accept_connection(a);
	exec_step(&a->exec);
	reset_step(&a->reset);
	files_step(&a->files);
	prestart_step(); /* the start-up deadline, also when idle */
	bg_step();
	lb_step();
	prestart_reply(a);
	run_deferred(a);
	if (s->out >= 0 || a->out_off < a->out.len)
		flush_out(a);
}

/* The protocol loop, until agent_done() or poll() fails. */
static void agent_run(struct agent *a)
{
	struct pollfd pfd[AGENT_POLL_FDS];
	struct slots s;

	while (!agent_done(a)) {
		poll_fill(a, pfd, &s);
		if (poll(pfd, (nfds_t)s.n, poll_timeout(a)) < 0 &&
		    errno != EINTR) {
			agent_log("poll: %s", strerror(errno));
			break;
		}
		poll_done(a, pfd, &s);
	}
}

/* Last words: the host has gone (stdin EOF) or we were told to stop.
 * Every user process is killed, queued replies get FLUSH_AT_EXIT_MS to
 * leave. */
static void agent_stop(struct agent *a)
{
	struct pollfd pfd = {.fd = a->out_fd, .events = POLLOUT};
	uint64_t until;
	unsigned left;

	if (procs_terminating())
		agent_log("terminating on signal");
	exec_close(&a->exec);
	reset_close(&a->reset);
	files_close(&a->files);
	zygote_stop();
	repl_stop(); /* no longer spared */
	prestart_forget();
	bg_kill_all();
	lb_drop_all();
	left = procs_kill_all();
	if (left)
		agent_log("exiting with %u user processes left", left);
	until = agent_now_ms() + FLUSH_AT_EXIT_MS;
	flush_out(a);
	while (a->out_off < a->out.len && !a->out_broken &&
	       agent_now_ms() < until) {
		poll(&pfd, 1, 50);
		flush_out(a);
	}
	drop_deferred(a);
	ap_reader_close(&a->reader);
	ap_buf_close(&a->out);
}

int main(int argc, char **argv)
{
	struct agent a;

	if (argc > 1 && strcmp(argv[1], "relay") == 0)
		return relay_main();
	if (agent_start(&a))
		return 1;
	agent_run(&a);
	agent_stop(&a);
	return 0;
}
