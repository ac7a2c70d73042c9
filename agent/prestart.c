/*
 * prestart.c - the pre-started interpreter: launch, wait for "ready",
 * hand the program over or stop it.
 *
 *   configure -> launch -> starting -> ready -> taken by a run step
 *                              |         |
 *                              +---------+--> stopped, or died: calls run
 *                                             the ordinary way
 */
#include "prestart.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "log.h"
#include "procs.h"
#include "spawn.h"

/* The control message must fit the empty pipe in one write. */
#define MSG_MAX 60000u

static struct {
	struct ap_exec spec;	  /* decoded AP_PRESTART; spec.mem NULL: none */
	size_t nrun, nenv, ndeny; /* entries of spec's vectors */
	const char **env;	  /* ENV then WAIT_ENV: the interpreter's */
	pid_t pid;		  /* the interpreter, 0: none */
	int ready;		  /* it closed fd 5 */
	int fd_ctl, fd_in, fd_ready, fd_out, fd_err; /* our ends */
	uint64_t deadline_ms;
	unsigned fails; /* launches in a row that never got ready */
	int used;	/* something ran since the last clean reset */
} ps = {.fd_ctl = -1, .fd_in = -1, .fd_ready = -1, .fd_out = -1, .fd_err = -1};

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* Forget the interpreter without touching it (it was handed over, or is
 * dead, or was just killed). */
static void drop(void)
{
	if (ps.pid)
		procs_spare(ps.pid, 0);
	ps.pid = 0;
	ps.ready = 0;
	close_fd(&ps.fd_ctl);
	close_fd(&ps.fd_in);
	close_fd(&ps.fd_ready);
	close_fd(&ps.fd_out);
	close_fd(&ps.fd_err);
}

void prestart_stop(void)
{
	if (ps.pid) {
		/* Its own session and process group (spawn_user), which it
		 * has not left: it ran nobody's code. */
		kill(-ps.pid, SIGKILL);
		kill(ps.pid, SIGKILL);
	}
	drop();
}

void prestart_forget(void)
{
	prestart_stop();
	ap_exec_free(&ps.spec);
	free(ps.env);
	ps.env = NULL;
	ps.nrun = ps.nenv = ps.ndeny = 0;
	ps.fails = 0;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int prestart_configure(const struct ap_frame *f, struct error *err)
{
	struct ap_exec q;
	size_t nenv, nwait;
	const char **env;
	int rc;

	rc = ap_prestart_decode(f, &q, err);
	if (rc)
		return rc;
	nenv = count(q.env);
	nwait = count(q.wait_env);
	env = malloc((nenv + nwait + 1) * sizeof(*env));
	if (!env) {
		ap_exec_free(&q);
		return error_set(err, -ENOMEM, "out of memory");
	}
	memcpy(env, q.env, nenv * sizeof(*env));
	memcpy(env + nenv, q.wait_env, nwait * sizeof(*env));
	env[nenv + nwait] = NULL;
	prestart_forget();
	ps.spec = q;
	ps.env = env;
	ps.nrun = count(q.run_argv);
	ps.nenv = nenv;
	ps.ndeny = count(q.seccomp_deny);
	return 0;
}

static int pipe_nb(int p[2], int nonblock_end)
{
	int rc = spawn_pipe(p);

	if (rc)
		return rc;
	if (nonblock_end >= 0)
		fcntl(p[nonblock_end], F_SETFL, O_NONBLOCK);
	return 0;
}

void prestart_launch(void)
{
	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pc[2] = {-1, -1};
	int pi[2] = {-1, -1}, pr[2] = {-1, -1};
	struct spawn_opts o;
	pid_t pid;
	int rc;

	if (!ps.spec.mem || ps.pid || ps.used || ps.fails >= PRESTART_MAX_FAILS)
		return;
	memset(&o, 0, sizeof(o));
	if ((rc = pipe_nb(po, 0)) || (rc = pipe_nb(pe, 0)) ||
	    (rc = pipe_nb(pc, 1)) || (rc = pipe_nb(pi, 1)) ||
	    (rc = pipe_nb(pr, 0)))
		goto out;
	o.seccomp = spawn_seccomp_new(ps.spec.seccomp_deny, ps.ndeny);
	if (!o.seccomp) {
		rc = -ENOMEM;
		goto out;
	}
	o.argv = ps.spec.wait_argv[0] ? ps.spec.wait_argv : ps.spec.run_argv;
	o.envp = ps.env;
	o.fd_in = 0; /* the agent's fd 0 is /dev/null, as a call's is */
	o.fd_out = po[1];
	o.fd_err = pe[1];
	o.fd_keep[0] = pc[0];
	o.fd_keep[1] = pi[0];
	o.fd_keep[2] = pr[1];
	pid = spawn_user(&o);
	spawn_seccomp_free(o.seccomp);
	if (pid < 0) {
		rc = (int)pid;
		goto out;
	}
	ps.pid = pid;
	ps.ready = 0;
	ps.deadline_ms = agent_now_ms() + PRESTART_READY_MS;
	ps.fd_out = po[0];
	ps.fd_err = pe[0];
	ps.fd_ctl = pc[1];
	ps.fd_in = pi[1];
	ps.fd_ready = pr[0];
	po[0] = pe[0] = pc[1] = pi[1] = pr[0] = -1;
	/* Not a leftover of the call before: the kill at the end of a build
	 * step and the reset's check leave it alone. */
	procs_spare(pid, 1);
out:
	if (rc) {
		agent_log("pre-started interpreter: cannot start: %s",
			  strerror(-rc));
		ps.fails++;
	}
	close_fd(&po[0]);
	close_fd(&po[1]);
	close_fd(&pe[0]);
	close_fd(&pe[1]);
	close_fd(&pc[0]);
	close_fd(&pc[1]);
	close_fd(&pi[0]);
	close_fd(&pi[1]);
	close_fd(&pr[0]);
	close_fd(&pr[1]);
}

void prestart_note_use(void)
{
	ps.used = 1;
}

void prestart_clean(void)
{
	ps.used = 0;
}

int prestart_settled(void)
{
	return !ps.pid || ps.ready;
}

static int same_vec(const char *const *a, const char *const *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!a[i] || !b[i] || strcmp(a[i], b[i]) != 0)
			return 0;
	return 1;
}

int prestart_fits(const struct ap_exec *q)
{
	const struct ap_exec *s = &ps.spec;

	if (!s->mem || !ps.pid || q->repl_argv[0])
		return 0;
	/* The run argv, with arguments added at most; exactly the
	 * environment and the deny list. */
	if (count(q->run_argv) < ps.nrun ||
	    !same_vec(q->run_argv, s->run_argv, ps.nrun) ||
	    count(q->env) != ps.nenv || !same_vec(q->env, s->env, ps.nenv) ||
	    count(q->seccomp_deny) != ps.ndeny ||
	    !same_vec(q->seccomp_deny, s->seccomp_deny, ps.ndeny))
		return 0;
	if (!q->build_argv[0] &&
	    (!q->file_name != !s->file_name ||
	     (s->file_name && strcmp(q->file_name, s->file_name) != 0)))
		return 0;
	return 1;
}

/* "sbx1\0", the stdin mode, the added arguments. */
static int control_message(const struct ap_exec *q, char *buf, size_t *len)
{
	const char *mode = q->stdin_data ? "stdin" : "null";
	size_t n = 0, k;
	const char *const *v;

	memcpy(buf, "sbx1", 5);
	n = 5;
	k = strlen(mode) + 1;
	memcpy(buf + n, mode, k);
	n += k;
	for (v = q->run_argv + ps.nrun; *v; v++) {
		k = strlen(*v) + 1;
		if (n + k > MSG_MAX)
			return -EMSGSIZE;
		memcpy(buf + n, *v, k);
		n += k;
	}
	*len = n;
	return 0;
}

int prestart_take(const struct ap_exec *q, int write_file,
		  struct prestart_run *run)
{
	static char msg[MSG_MAX];
	size_t len;
	ssize_t w;
	int rc;

	if (!ps.pid)
		return -ESRCH;
	rc = control_message(q, msg, &len);
	if (rc)
		return rc;
	if (write_file && q->file_name) {
		rc = spawn_write_file_as_user(q->file_name, q->file_data,
					      q->file_data ? q->file_len : 0);
		if (rc)
			return rc;
	}
	/* Our end does not block: a pipe smaller than the message (the
	 * per-user pipe quota shrinks new pipes) is a short write, and the
	 * step starts the ordinary way. */
	do
		w = write(ps.fd_ctl, msg, len);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return -errno; /* EPIPE: it is gone */
	if ((size_t)w != len)
		return -EMSGSIZE;
	close_fd(&ps.fd_ctl); /* end of file: the message is complete */
	if (!q->stdin_data)
		close_fd(&ps.fd_in);
	ps.fails = 0;
	run->pid = ps.pid;
	run->fd_out = ps.fd_out;
	run->fd_err = ps.fd_err;
	run->fd_in = ps.fd_in;
	ps.fd_out = ps.fd_err = ps.fd_in = -1;
	drop(); /* the call's now: no longer spared */
	return 0;
}

int prestart_poll_fill(struct pollfd *pfd)
{
	if (!ps.pid || ps.ready || ps.fd_ready < 0)
		return 0;
	pfd[0] = (struct pollfd){.fd = ps.fd_ready, .events = POLLIN};
	return 1;
}

void prestart_poll_done(const struct pollfd *pfd, int n)
{
	siginfo_t si;
	char buf[64];
	ssize_t r;
	int i;

	for (i = 0; i < n; i++) {
		if (ps.fd_ready < 0 || pfd[i].fd != ps.fd_ready ||
		    !pfd[i].revents)
			continue;
		do
			r = read(ps.fd_ready, buf, sizeof(buf));
		while (r > 0 || (r < 0 && errno == EINTR));
		if (r != 0)
			continue;
		/* End of file: the interpreter closed fd 5, or it is gone
		 * (then the reaper counts the failed launch; a zombie not
		 * reaped yet is not "waiting"). */
		close_fd(&ps.fd_ready);
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)ps.pid, &si,
			   WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == ps.pid)
			continue;
		ps.ready = 1;
	}
}

uint64_t prestart_deadline(void)
{
	return ps.pid && !ps.ready ? ps.deadline_ms : UINT64_MAX;
}

void prestart_step(void)
{
	if (!ps.pid || ps.ready || agent_now_ms() < ps.deadline_ms)
		return;
	agent_log("pre-started interpreter: not waiting after %u ms: stopped",
		  PRESTART_READY_MS);
	ps.fails++;
	prestart_stop();
}

int prestart_reaped(pid_t pid, int status)
{
	if (!ps.pid || pid != ps.pid)
		return 0;
	if (WIFEXITED(status))
		agent_log("pre-started interpreter exited with %d%s",
			  WEXITSTATUS(status),
			  ps.ready ? "" : " during its start-up");
	else
		agent_log("pre-started interpreter killed by signal %d%s",
			  WTERMSIG(status),
			  ps.ready ? "" : " during its start-up");
	if (!ps.ready)
		ps.fails++;
	drop();
	return 1;
}
