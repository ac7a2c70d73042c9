/*
 * repl.c - start, feed, interrupt and stop the session interpreter (see
 * repl.h and docs/session-interpreters.md).
 */
#include "repl.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "procs.h"
#include "spawn.h"

/* A reply line is short; anything longer is not a reply and is dropped. */
#define REPLY_MAX 128
/* Reads per pipe per loop turn, so a flood cannot starve the agent. */
#define READS_PER_TURN 16

static unsigned char iobuf[64 * 1024];

static struct {
	pid_t pid; /* 0: none */
	uint64_t fingerprint;
	int fd_req, fd_rep; /* our ends; -1 when closed */
	int fd_out, fd_err; /* stay open after the interpreter died, to EOF */
	unsigned char *req; /* queued request bytes */
	size_t req_len, req_off;
	uint32_t seq;
	int waiting; /* a reply to seq is expected */
	int done, status;
	char line[REPLY_MAX];
	size_t line_len;
	int line_junk; /* the current line is too long: skip to '\n' */
} repl = {.fd_req = -1, .fd_rep = -1, .fd_out = -1, .fd_err = -1};

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void drop_request(void)
{
	free(repl.req);
	repl.req = NULL;
	repl.req_len = repl.req_off = 0;
}

/* The interpreter is gone (or going): no more requests or replies. The
 * output pipes stay until EOF so that its last words are read. */
static void forget(void)
{
	procs_spare(repl.pid, 0);
	repl.pid = 0;
	close_fd(&repl.fd_req);
	close_fd(&repl.fd_rep);
	drop_request();
	repl.waiting = repl.done = 0;
	repl.line_len = 0;
	repl.line_junk = 0;
}

int repl_running(void)
{
	return repl.pid > 0;
}

int repl_output_open(void)
{
	return repl.fd_out >= 0 || repl.fd_err >= 0;
}

void repl_interrupt(void)
{
	if (repl.pid > 0)
		kill(-repl.pid, SIGINT);
}

void repl_stop(void)
{
	if (repl.pid > 0) {
		kill(-repl.pid, SIGKILL);
		kill(repl.pid, SIGKILL);
	}
	forget();
}

int repl_reaped(pid_t pid)
{
	if (repl.pid <= 0 || pid != repl.pid)
		return 0;
	forget();
	return 1;
}

int repl_ensure(const char *const *argv, const char *const *envp,
		const char *const *deny, size_t ndeny, void *seccomp)
{
	uint64_t fp = spawn_fingerprint(argv, envp, deny, ndeny);
	int req[2] = {-1, -1}, rep[2] = {-1, -1};
	int out[2] = {-1, -1}, err[2] = {-1, -1};
	struct spawn_opts o;
	pid_t pid;
	int rc = 0;

	if (repl.pid > 0 && repl.fingerprint == fp)
		return 0;
	if (repl.pid > 0) {
		agent_log("interpreter command or environment changed: "
			  "restarting it");
		repl_stop();
	}
	/* Output of a predecessor not yet at EOF is not this one's. */
	close_fd(&repl.fd_out);
	close_fd(&repl.fd_err);
	if ((rc = spawn_pipe(req)) || (rc = spawn_pipe(rep)) ||
	    (rc = spawn_pipe(out)) || (rc = spawn_pipe(err)))
		goto out;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = envp;
	o.fd_in = req[0];
	o.fd_out = out[1];
	o.fd_err = err[1];
	o.fd_keep[0] = rep[1];
	o.seccomp = seccomp;
	pid = spawn_user(&o);
	if (pid < 0) {
		rc = pid;
		goto out;
	}
	fcntl(req[1], F_SETFL, O_NONBLOCK);
	fcntl(rep[0], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(err[0], F_SETFL, O_NONBLOCK);
	repl.pid = pid;
	repl.fingerprint = fp;
	repl.fd_req = req[1];
	repl.fd_rep = rep[0];
	repl.fd_out = out[0];
	repl.fd_err = err[0];
	req[1] = rep[0] = out[0] = err[0] = -1;
	procs_spare(pid, 1);
	rc = 1;
out:
	close_fd(&req[0]);
	close_fd(&req[1]);
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&err[0]);
	close_fd(&err[1]);
	return rc;
}

static void write_request(void);

int repl_submit(uint32_t seq, const void *data, size_t len)
{
	if (repl.pid <= 0)
		return -ESRCH;
	drop_request();
	repl.req = malloc(len ? len : 1);
	if (!repl.req)
		return -ENOMEM;
	memcpy(repl.req, data, len);
	repl.req_len = len;
	repl.seq = seq;
	repl.waiting = 1;
	repl.done = 0;
	write_request(); /* usually all of it, at once */
	return 0;
}

int repl_take_done(int *status)
{
	if (!repl.done)
		return 0;
	repl.done = 0;
	*status = repl.status;
	return 1;
}

int repl_poll_fill(struct pollfd *pfd)
{
	int n = 0;

	if (repl.fd_out >= 0)
		pfd[n++] = (struct pollfd){.fd = repl.fd_out, .events = POLLIN};
	if (repl.fd_err >= 0)
		pfd[n++] = (struct pollfd){.fd = repl.fd_err, .events = POLLIN};
	if (repl.fd_rep >= 0)
		pfd[n++] = (struct pollfd){.fd = repl.fd_rep, .events = POLLIN};
	if (repl.fd_req >= 0 && repl.req_off < repl.req_len)
		pfd[n++] =
			(struct pollfd){.fd = repl.fd_req, .events = POLLOUT};
	return n;
}

static void write_request(void)
{
	ssize_t n;

	while (repl.req_off < repl.req_len) {
		n = write(repl.fd_req, repl.req + repl.req_off,
			  repl.req_len - repl.req_off);
		if (n > 0) {
			repl.req_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		/* EPIPE: it stopped reading, so it is dying; the reaper
		 * reports how. */
		drop_request();
		return;
	}
	drop_request();
}

/* Read one pipe into the sink; close it at EOF. */
static void read_output(int *fd, int which, repl_output_cb sink, void *arg)
{
	ssize_t n;
	int i;

	for (i = 0; i < READS_PER_TURN && *fd >= 0; i++) {
		n = read(*fd, iobuf, sizeof(iobuf));
		if (n > 0) {
			if (sink)
				sink(which, iobuf, (size_t)n, arg);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close_fd(fd);
	}
}

/* "done <seq> <status>" for the request in flight; anything else on fd 3
 * (user code may write there) is ignored. */
static void reply_line(const char *s)
{
	unsigned long seq;
	long status;
	char *end;

	if (strncmp(s, "done ", 5) != 0)
		return;
	seq = strtoul(s + 5, &end, 10);
	if (*end != ' ')
		return;
	status = strtol(end + 1, &end, 10);
	if (*end || !repl.waiting || seq != repl.seq)
		return;
	repl.waiting = 0;
	repl.done = 1;
	repl.status = status < 0 || status > 255 ? 1 : (int)status;
}

static void read_replies(void)
{
	char buf[512];
	ssize_t n, i;

	for (;;) {
		n = read(repl.fd_rep, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_fd(&repl.fd_rep); /* the reaper tells the rest */
			return;
		}
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				repl.line[repl.line_len] = '\0';
				if (!repl.line_junk)
					reply_line(repl.line);
				repl.line_len = 0;
				repl.line_junk = 0;
			} else if (repl.line_len < REPLY_MAX - 1) {
				repl.line[repl.line_len++] = buf[i];
			} else {
				repl.line_junk = 1;
			}
		}
	}
}

void repl_poll_done(const struct pollfd *pfd, int n, repl_output_cb sink,
		    void *arg)
{
	int i;

	for (i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		if (pfd[i].fd == repl.fd_out)
			read_output(&repl.fd_out, 1, sink, arg);
		else if (pfd[i].fd == repl.fd_err)
			read_output(&repl.fd_err, 2, sink, arg);
		else if (pfd[i].fd == repl.fd_req)
			write_request();
		else if (pfd[i].fd == repl.fd_rep)
			read_replies();
	}
}

void repl_drain(repl_output_cb sink, void *arg)
{
	read_output(&repl.fd_out, 1, sink, arg);
	read_output(&repl.fd_err, 2, sink, arg);
}
