/*
 * The bash session interpreter: the bash plugin's session_request text and
 * images/bash/repl.bashrc, run by the host's bash the way the agent runs
 * them (docs/session-interpreters.md): the plugin's session_cmd with the
 * rcfile's path put in, its own session, fd 0 requests, 1 and 2 output, 3
 * replies, SIGINT to its process group for an interrupt.
 *
 *   test_bash_session PLUGIN_DIR RCFILE
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <mcp-sandbox/plugin.h>

#include "testlib.h"

static size_t live_allocs;

static void *count_alloc(size_t n)
{
	void *p = malloc(n);

	if (p)
		live_allocs++;
	return p;
}

static void count_free(void *p)
{
	if (p)
		live_allocs--;
	free(p);
}

static void log_cb(const char *plugin, enum sbx_log_level level,
		   const char *fmt, ...)
{
	(void)plugin;
	(void)level;
	(void)fmt;
}

static const struct sbx_host_api host = {
	.struct_size = sizeof(struct sbx_host_api),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.host_version = "test",
	.log = log_cb,
	.alloc = count_alloc,
	.free = count_free,
};

static const struct sbx_plugin *bash;

static const struct sbx_plugin *load(const char *dir, const char *name)
{
	char path[4096];
	void *h;
	sbx_plugin_entry_fn entry;

	snprintf(path, sizeof(path), "%s/%s.so", dir, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return NULL;
	}
	*(void **)&entry = dlsym(h, SBX_PLUGIN_ENTRY_SYMBOL);
	return entry ? entry(&host) : NULL;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

/* The request for one call, as the host gets it; NULL on failure. */
static char *request(uint32_t seq, const char *code, size_t len, const char *in,
		     size_t in_len, size_t *out_len)
{
	char *out = NULL;
	size_t n = 0;

	if (bash->session_request(&host, seq, code, len, in ? in : "", in_len,
				  &out, &n) != 0) {
		count_free(out);
		return NULL;
	}
	*out_len = n;
	return out;
}

/* The terminator of the first here-document: what follows "<<'". */
static int terminator(const char *req, char *t, size_t size)
{
	const char *p = strstr(req, "<<'"), *e;

	if (!p)
		return -1;
	p += 3;
	e = strchr(p, '\'');
	if (!e || (size_t)(e - p) >= size)
		return -1;
	memcpy(t, p, (size_t)(e - p));
	t[e - p] = '\0';
	return 0;
}

/* Lines of req equal to line. */
static int count_lines(const char *req, const char *line)
{
	size_t n = strlen(line);
	const char *p = req;
	int c = 0;

	while ((p = strstr(p, line))) {
		if ((p == req || p[-1] == '\n') && p[n] == '\n')
			c++;
		p += n;
	}
	return c;
}

static void text_cases(void)
{
	char t[64], t2[64], *r, *r2;
	const char *code = "echo '__SBX_' \\\n__SBX_0123456789abcdef\nEOF";
	size_t n;

	CHECK(bash->session_cmd != NULL && bash->session_cmd[0] != NULL);
	CHECK(bash->session_request != NULL);

	/* No stdin: /dev/null; the seq in the reply; a terminator that is
	 * not in the code, around the code; the code ends in a newline. */
	r = request(42, code, strlen(code), NULL, 0, &n);
	CHECK(r != NULL);
	if (r) {
		CHECK(strlen(r) == n);
		CHECK(terminator(r, t, sizeof(t)) == 0);
		CHECK(strncmp(t, "__SBX_", 6) == 0 && strlen(t) == 22);
		CHECK(strstr(code, t) == NULL);
		CHECK(count_lines(r, t) == 1);
		CHECK_STR_CONTAINS(r, "\nEOF\n");
		CHECK_STR_CONTAINS(r, "</dev/null");
		CHECK_STR_CONTAINS(r, "3>&-");
		CHECK_STR_CONTAINS(r, "'done 42 %d\\n'");
		CHECK(n > 0 && r[n - 1] == '\n');
		/* Another call, another nonce. */
		r2 = request(43, code, strlen(code), NULL, 0, &n);
		CHECK(r2 && terminator(r2, t2, sizeof(t2)) == 0 &&
		      strcmp(t, t2) != 0);
		count_free(r2);
	}
	count_free(r);

	/* Stdin that ends with a newline: a here-document on the eval;
	 * without: a variable and a process substitution. */
	r = request(1, "cat", 3, "a\nb\n", 4, &n);
	CHECK(r && strstr(r, "< <(") == NULL && strstr(r, "\na\nb\n__SBX_"));
	CHECK(r && strstr(r, "__sbx_in=") == NULL);
	count_free(r);
	r = request(1, "cat", 3, "a\nb", 3, &n);
	CHECK(r && strstr(r, "< <(") && strstr(r, "\na\nb\n__SBX_"));
	/* The call fails if either here-document could not be made. */
	CHECK(r && strstr(r, "${__sbx_code+1}${__sbx_in+1}\" != 11"));
	count_free(r);
	/* Empty code is a call too. */
	r = request(7, "", 0, NULL, 0, &n);
	CHECK(r && terminator(r, t, sizeof(t)) == 0 && count_lines(r, t) == 1);
	count_free(r);

	/* NUL bytes cannot travel in a here-document: rejected, with a
	 * message from host->alloc. */
	{
		char *out = NULL;
		size_t len = 0;
		int rc = bash->session_request(&host, 1, "a\0b", 3, "", 0, &out,
					       &len);

		CHECK(rc < 0);
		CHECK(out && strstr(out, "NUL"));
		count_free(out);
		out = NULL;
		rc = bash->session_request(&host, 1, "cat", 3, "x\0", 2, &out,
					   &len);
		CHECK(rc < 0 && out);
		count_free(out);
	}
	CHECK(live_allocs == 0);
}

/* --- a bash driven as the agent drives it ------------------------------ */

struct sh {
	pid_t pid;
	int in, out, err, rep;
	int exit_status; /* wait status once reaped, else -1 */
};

struct res {
	int status; /* the reply's, or -1: none (the shell died) */
	char out[1 << 16], err[1 << 16];
	size_t out_len, err_len;
	double ms;
};

static struct res res;

static int set_nonblock(int fd)
{
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int sh_start(struct sh *s, const char *rcfile, const char *workdir)
{
	const char *const *cmd = bash->session_cmd;
	char *argv[16];
	int p0[2], p1[2], p2[2], p3[2], i;
	const char *opt = "/opt/sbx/repl.bashrc";

	for (i = 0; i < 15 && cmd[i]; i++) {
		const char *at = strstr(cmd[i], opt);
		size_t n = strlen(cmd[i]) - strlen(opt) + strlen(rcfile) + 1;

		argv[i] = malloc(at ? n : strlen(cmd[i]) + 1);
		if (at)
			snprintf(argv[i], n, "%.*s%s%s", (int)(at - cmd[i]),
				 cmd[i], rcfile, at + strlen(opt));
		else
			strcpy(argv[i], cmd[i]);
	}
	argv[i] = NULL;
	if (pipe(p0) || pipe(p1) || pipe(p2) || pipe(p3))
		return -1;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		setsid();
		/* As the agent starts it: no signal ignored (a job started
		 * with & in a shell without job control ignores SIGINT). */
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		/* Above 3, then down, so that no dup2 clobbers another. */
		p0[0] = fcntl(p0[0], F_DUPFD, 10);
		p1[1] = fcntl(p1[1], F_DUPFD, 10);
		p2[1] = fcntl(p2[1], F_DUPFD, 10);
		p3[1] = fcntl(p3[1], F_DUPFD, 10);
		dup2(p0[0], 0);
		dup2(p1[1], 1);
		dup2(p2[1], 2);
		dup2(p3[1], 3);
		for (i = 4; i < 1024; i++)
			close(i);
		setenv("SBX_WORKDIR", workdir, 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	close(p0[0]);
	close(p1[1]);
	close(p2[1]);
	close(p3[1]);
	s->in = p0[1];
	s->out = p1[0];
	s->err = p2[0];
	s->rep = p3[0];
	s->exit_status = -1;
	set_nonblock(s->in);
	set_nonblock(s->out);
	set_nonblock(s->err);
	set_nonblock(s->rep);
	return 0;
}

static void sh_close(struct sh *s)
{
	if (s->in >= 0)
		close(s->in);
	if (s->out >= 0)
		close(s->out);
	if (s->err >= 0)
		close(s->err);
	if (s->rep >= 0)
		close(s->rep);
	s->in = s->out = s->err = s->rep = -1;
}

static void drain(int *fd, char *buf, size_t *len, size_t cap)
{
	char tmp[65536];
	ssize_t n;

	while (*fd >= 0) {
		n = read(*fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return;
		if (n == 0) {
			close(*fd);
			*fd = -1;
			return;
		}
		if (*len + (size_t)n >= cap)
			n = (ssize_t)(cap - 1 - *len);
		memcpy(buf + *len, tmp, (size_t)n);
		*len += (size_t)n;
		buf[*len] = '\0';
	}
}

/* Output a call leaves behind (and a stray reply) belongs to no call. */
static void discard(struct sh *s)
{
	char line[256];
	size_t n = 0;

	res.out_len = res.err_len = 0;
	drain(&s->out, res.out, &res.out_len, sizeof(res.out));
	drain(&s->err, res.err, &res.err_len, sizeof(res.err));
	drain(&s->rep, line, &n, sizeof(line));
}

/* When a call sends SIGINT: never; once part of the request was written;
 * once the code wrote to stdout (it runs); once a `sleep` it started
 * sleeps (earlier, the signal may reach that child while it still has
 * bash's handler, and bash then takes the child's normal exit for an
 * interrupt it handled, and goes on). */
enum { INTR_NONE, INTR_MID_REQUEST, INTR_ON_OUTPUT, INTR_ON_SLEEP };

/* 1 if a process named "sleep" in process group pgrp sleeps, else 0. */
static int sleep_sleeping(pid_t pgrp)
{
	char path[sizeof(((struct dirent *)0)->d_name) + 16], buf[512], *e;
	struct dirent *d;
	int found = 0, fd;
	ssize_t n;
	DIR *dir = opendir("/proc");

	while (dir && !found && (d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* pid (comm) state ppid pgrp ... */
		e = strrchr(buf, ')');
		if (!e || !strstr(buf, " (sleep) "))
			continue;
		found = e[1] == ' ' && e[2] == 'S' &&
			strtol(strchr(e + 4, ' ') + 1, NULL, 10) == pgrp;
	}
	if (dir)
		closedir(dir);
	return found;
}

static int sh_call(struct sh *s, uint32_t seq, const char *code, const char *in,
		   size_t in_len, int intr)
{
	char rep[256], *req;
	size_t rep_len = 0, req_len, off = 0;
	uint64_t t0, deadline;
	struct timespec ts0, ts1;
	int sent_intr = intr == INTR_NONE;

	discard(s);
	res.status = -1;
	res.out_len = res.err_len = 0;
	res.out[0] = res.err[0] = '\0';
	req = request(seq, code, strlen(code), in, in_len, &req_len);
	if (!req)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts0);
	t0 = now_ms();
	deadline = t0 + 10000;
	while (now_ms() < deadline) {
		struct pollfd p[4];
		int np = 0;
		char *nl;

		if (off < req_len) {
			ssize_t w = write(s->in, req + off, req_len - off);

			if (w > 0)
				off += (size_t)w;
			else if (w < 0 && errno != EAGAIN && errno != EINTR)
				off = req_len; /* EPIPE: it died */
			if (!sent_intr && intr == INTR_MID_REQUEST && off > 0 &&
			    off < req_len) {
				kill(-s->pid, SIGINT);
				sent_intr = 1;
			}
		}
		drain(&s->out, res.out, &res.out_len, sizeof(res.out));
		if (!sent_intr &&
		    ((intr == INTR_ON_OUTPUT && res.out_len) ||
		     (intr == INTR_ON_SLEEP && sleep_sleeping(s->pid)))) {
			kill(-s->pid, SIGINT);
			sent_intr = 1;
		}
		drain(&s->err, res.err, &res.err_len, sizeof(res.err));
		drain(&s->rep, rep, &rep_len, sizeof(rep));
		if (rep_len && (nl = memchr(rep, '\n', rep_len))) {
			unsigned got_seq;
			int st;

			*nl = '\0';
			clock_gettime(CLOCK_MONOTONIC, &ts1);
			res.ms = (double)(ts1.tv_sec - ts0.tv_sec) * 1e3 +
				 (double)(ts1.tv_nsec - ts0.tv_nsec) / 1e6;
			if (sscanf(rep, "done %u %d", &got_seq, &st) == 2 &&
			    got_seq == seq)
				res.status = st;
			break;
		}
		if (s->rep < 0)
			break; /* died */
		if (s->out >= 0)
			p[np++] =
				(struct pollfd){.fd = s->out, .events = POLLIN};
		if (s->err >= 0)
			p[np++] =
				(struct pollfd){.fd = s->err, .events = POLLIN};
		p[np++] = (struct pollfd){.fd = s->rep, .events = POLLIN};
		if (off < req_len)
			p[np++] =
				(struct pollfd){.fd = s->in, .events = POLLOUT};
		poll(p, (nfds_t)np, 100);
	}
	count_free(req);
	/* What was written before the reply is in the pipes by now. */
	drain(&s->out, res.out, &res.out_len, sizeof(res.out));
	drain(&s->err, res.err, &res.err_len, sizeof(res.err));
	return res.status;
}

/* 1 once bash has taken a SIGINT that came while it was idle: none is
 * pending and it sleeps in a system call again. Bash runs its traps
 * before it reads again, so sleeping means the trap has run (and the next
 * request cannot be taken for an interrupted one); 0 if not yet, -1 if
 * /proc cannot tell. */
static int sigint_taken(pid_t pid)
{
	static const char *const keys[] = {"\nSigPnd:", "\nShdPnd:"};
	char path[64], buf[4096];
	const char *p;
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		p = strstr(buf, keys[i]);
		if (!p)
			return -1;
		if (strtoull(p + strlen(keys[i]), NULL, 16) &
		    (1ULL << (SIGINT - 1)))
			return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	/* "running", or the number of the system call it sleeps in */
	return buf[0] >= '0' && buf[0] <= '9';
}

/* Polls sigint_taken for up to 10 s: 0 once taken, -1 otherwise. */
static int wait_sigint_taken(pid_t pid)
{
	uint64_t deadline = now_ms() + 10000;
	int t;

	while ((t = sigint_taken(pid)) == 0 && now_ms() < deadline)
		poll(NULL, 0, 1);
	if (t != 1)
		fprintf(stderr, "bash (pid %d) did not take the SIGINT: %s\n",
			(int)pid, t < 0 ? "/proc cannot tell" : "timed out");
	return t == 1 ? 0 : -1;
}

static int expect_call(struct sh *s, uint32_t seq, const char *code,
		       const char *in, size_t in_len, int status,
		       const char *out, const char *err, int line)
{
	int st = sh_call(s, seq, code, in, in_len, INTR_NONE);
	int ok = st == status && (!out || strcmp(res.out, out) == 0) &&
		 (!err || strcmp(res.err, err) == 0);

	if (!ok)
		fprintf(stderr,
			"FAIL line %d: call %u\n--- code ---\n%s\n--- want %d "
			"---\n%s\n--- stderr ---\n%s\n--- got %d ---\n%s\n--- "
			"stderr ---\n%s\n",
			line, seq, code, status, out ? out : "(any)",
			err ? err : "(any)", st, res.out, res.err);
	return ok;
}

#define CALL(s, code, status, out, err)                                        \
	CHECK(expect_call((s), ++seq, (code), NULL, 0, (status), (out), (err), \
			  __LINE__))
#define CALL_IN(s, code, in, in_len, status, out, err)                         \
	CHECK(expect_call((s), ++seq, (code), (in), (in_len), (status), (out), \
			  (err), __LINE__))

static uint32_t seq;

static void behaviour(const char *rcfile)
{
	char workdir[] = "/tmp/test_bash_session.XXXXXX", want[256];
	struct sh s;
	char *big;
	size_t i, n;
	int st;
	double total = 0;
	uint64_t t0;

	if (!mkdtemp(workdir)) {
		CHECK(0);
		return;
	}
	CHECK(sh_start(&s, rcfile, workdir) == 0);

	/* Nothing but the call's output: no job-control warnings. */
	CALL(&s, "x=5", 0, "", "");
	snprintf(want, sizeof(want), "%s\n", workdir);
	CALL(&s, "pwd", 0, want, "");
	CALL(&s, "echo $x", 0, "5\n", "");
	CALL(&s, "f() { echo \"f:$1\"; }; alias ll='echo LL'", 0, "", "");
	CALL(&s, "f a; ll", 0, "f:a\nLL\n", "");
	CALL(&s, "cd /tmp; export E=7; N=8", 0, "", "");
	CALL(&s, "pwd; bash -c 'echo \"$E.$N\"'", 0, "/tmp\n7.\n", "");
	CALL(&s, "cd - >/dev/null; declare -A m=([k]=v); arr=(1 2 3)", 0, "",
	     "");
	snprintf(want, sizeof(want), "%s v 3\n", workdir);
	CALL(&s, "echo \"$PWD ${m[k]} ${#arr[@]}\"", 0, want, "");

	/* Statuses. */
	CALL(&s, "false", 1, "", "");
	CALL(&s, "(exit 7)", 7, "", "");
	CALL(&s, "echo a; false; echo b", 0, "a\nb\n", "");
	CALL(&s, "nosuchcommand_x", 127, "",
	     "bash: nosuchcommand_x: command not found\n");
	CALL(&s, "echo $x; if true; then", 2, "", NULL);
	CALL(&s, "echo \"unterminated", 2, "", NULL);
	CALL(&s, "echo 'unterminated", 2, "", NULL);
	CALL(&s, "echo $((", 2, "", NULL);
	CALL(&s, "echo $x", 0, "5\n", "");

	/* Code that looks like the framing, quotes, backslashes, CRLF, no
	 * trailing newline. */
	CALL(&s,
	     "cat <<'EOF'\n__SBX_0123456789abcdef\n'\\\"$x\r\nEOF\necho "
	     "'it'\\''s' \"\\\\\" \\$x\nprintf '%s' end",
	     0, "__SBX_0123456789abcdef\n'\\\"$x\r\nit's \\ $x\nend", "");
	CALL(&s, "echo one\n__SBX_\nEOF\n", 127, "one\n", NULL);
	CALL(&s, "", 0, "", "");
	CALL(&s, "-x", 127, "", NULL);
	CALL(&s, "#!/bin/bash\necho shebang", 0, "shebang\n", "");
	CALL(&s, "echo a \\\n", 0, "a\n", "");
	CALL(&s, "echo a\n\n\n", 0, "a\n", "");
	CALL(&s, "echo 'a\n\n'", 0, "a\n\n\n", "");

	/* Stdin: exact bytes, /dev/null without; never the requests. */
	CALL_IN(&s, "cat", "a\nb", 3, 0, "a\nb", "");
	CALL_IN(&s, "cat", "a\nb\n", 4, 0, "a\nb\n", "");
	CALL_IN(&s, "cat | od -An -c | tr -s ' '", "a\nb", 3, 0, " a \\n b\n",
		"");
	CALL_IN(&s, "cat", "\n", 1, 0, "\n", "");
	CALL_IN(&s, "cat", "a\n\n\nb", 5, 0, "a\n\n\nb", "");
	CALL_IN(&s, "cat", "a\r", 2, 0, "a\r", "");
	CALL_IN(&s, "cat", "\n\n", 2, 0, "\n\n", "");
	CALL_IN(&s, "cat", "x\r\n'\\__SBX_\n", 12, 0, "x\r\n'\\__SBX_\n", "");
	CALL(&s, "cat; read -r l; echo \"[$l] $?\"", 0, "[] 1\n", "");
	CALL_IN(&s, "read -r a; read -r b; echo \"$b$a\"; echo $x", "1\n2\n", 4,
		0, "21\n5\n", "");

	/* The control channel is closed for user code; our temporaries
	 * are gone while it runs and after. */
	CALL(&s, "echo forged >&3", 1, "", NULL);
	CALL(&s, "bash -c 'echo forged >&3' 2>/dev/null; echo $?", 0, "1\n",
	     "");
	CALL(&s, "compgen -v __sbx", 1, "", "");
	CALL(&s, "echo $x", 0, "5\n", "");

	/* set -x shows the user's commands only; set -e survives our read;
	 * set -u our expansions. */
	CALL(&s, "set -x; echo t", 0, "t\n", "++ echo t\n");
	CALL(&s, "set +x", 0, "", "++ set +x\n");
	CALL(&s, "set -eu; echo e", 0, "e\n", "");
	CALL(&s, "echo $x; set +eu", 0, "5\n", "");

	/* A job killed by a signal: no "tcsetattr" complaint. */
	CALL(&s, "yes | head -n 1; bash -c 'kill -SEGV $$'; echo $?", 0,
	     "y\n139\n", "");
	/* A venv-style prompt does not leak into the output. */
	CALL(&s, "PS1='(venv) '; PS0=zero PS2=two PROMPT_COMMAND='echo pc'", 0,
	     "", "");
	CALL(&s, "echo $x", 0, "5\n", "");

	/* Interrupts: the code stops, the state stays, the reply is 130.
	 * Each interrupt comes once the code runs. (A sleep 30 not
	 * interrupted would end the call by sh_call's 10 s deadline, with no
	 * reply.) */
	st = sh_call(&s, ++seq, "y=1; sleep 30; y=2", NULL, 0, INTR_ON_SLEEP);
	CHECK(st == 130);
	CALL(&s, "echo $x $y", 0, "5 1\n", "");
	st = sh_call(&s, ++seq, "echo r; while :; do :; done", NULL, 0,
		     INTR_ON_OUTPUT);
	CHECK(st == 130);
	st = sh_call(&s, ++seq, "for i in 1 2; do sleep 30; done", NULL, 0,
		     INTR_ON_SLEEP);
	CHECK(st == 130);
	CALL(&s, "echo $x", 0, "5\n", "");
	/* While idle: ignored. */
	kill(-s.pid, SIGINT);
	CHECK(wait_sigint_taken(s.pid) == 0);
	kill(-s.pid, SIGINT);
	CHECK(wait_sigint_taken(s.pid) == 0);
	CALL(&s, "echo $x", 0, "5\n", "");
	/* While bash reads the request: the code does not run. */
	n = 1 << 20;
	big = malloc(n + 64);
	for (i = 0; i + 32 < n; i += 32)
		memcpy(big + i, "# some comment that fills a MiB\n", 32);
	strcpy(big + i, "echo ran; y=3\n");
	st = sh_call(&s, ++seq, big, NULL, 0, INTR_MID_REQUEST);
	CHECK(st == 130);
	CHECK(strstr(res.out, "ran") == NULL);
	CALL(&s, "echo $x $y", 0, "5 1\n", "");
	/* 1 MiB of code and of stdin. */
	CALL(&s, big, 0, "ran\n", "");
	CALL(&s, "echo $y", 0, "3\n", "");
	CALL_IN(&s, "wc -c", big, strlen(big), 0, NULL, "");
	snprintf(want, sizeof(want), "%zu\n", strlen(big));
	CHECK(strcmp(res.out, want) == 0);
	CALL_IN(&s, "wc -c", big, strlen(big) - 1, 0, NULL, "");
	snprintf(want, sizeof(want), "%zu\n", strlen(big) - 1);
	CHECK(strcmp(res.out, want) == 0);
	free(big);

	/* The round trip of a small call. */
	for (i = 0; i < 200; i++) {
		sh_call(&s, ++seq, "echo $x", NULL, 0, INTR_NONE);
		total += res.ms;
	}
	printf("bash session: echo $x round trip %.3f ms (mean of 200)\n",
	       total / 200);

	/* exit ends the interpreter. */
	st = sh_call(&s, ++seq, "echo bye; exit 3", NULL, 0, INTR_NONE);
	CHECK(st == -1);
	CHECK(strcmp(res.out, "bye\n") == 0);
	CHECK(waitpid(s.pid, &st, 0) == s.pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 3);
	sh_close(&s);

	/* End of input ends it too. */
	t0 = now_us();
	if (sh_start(&s, rcfile, workdir) == 0) {
		CALL(&s, "echo up", 0, "up\n", "");
		printf("bash session: start-up and first call %.1f ms\n",
		       (double)(now_us() - t0) / 1000);
		close(s.in);
		s.in = -1;
		CHECK(waitpid(s.pid, &st, 0) == s.pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		sh_close(&s);
	}
	/* As in a terminal, set -e ends the shell at the first failure. */
	if (sh_start(&s, rcfile, workdir) == 0) {
		CALL(&s, "set -e; true", 0, "", "");
		CHECK(sh_call(&s, ++seq, "false; echo not", NULL, 0,
			      INTR_NONE) == -1);
		CHECK(waitpid(s.pid, &st, 0) == s.pid);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
		sh_close(&s);
	}
	rmdir(workdir);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PLUGIN_DIR RCFILE\n", argv[0]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	bash = load(argv[1], "bash");
	CHECK(bash != NULL && bash->struct_size >= sizeof(struct sbx_plugin));
	if (!bash || bash->struct_size < sizeof(struct sbx_plugin))
		return t_summary("test_bash_session");
	text_cases();
	if (bash->session_cmd && bash->session_request)
		behaviour(argv[2]);
	return t_summary("test_bash_session");
}
