/*
 * procs.c - signals, reaping and the /proc-scanning kill loop.
 *
 * Why /proc and not kill(-1) from a uid-1000 helper: the scan also tells us
 * what is left, and as root with CAP_KILL we may signal anything in the
 * container without forking. Processes that double-fork, call setsid() or
 * change their process group are still plain entries in /proc, and a
 * process killed while forking cannot finish the fork (the kernel checks
 * for a fatal signal under the tasklist lock), so repeated scans converge.
 */
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "log.h"

/* Give up on processes that will not die (stuck in D state, say) after
 * this long; they are reported as survivors. */
#define KILL_LOOP_MS 1000
/* Longest nap between scans when SIGCHLD does not wake us first. */
#define KILL_NAP_MS 5

static struct {
	int sigfd;
	int term;
	procs_exit_cb cb;
	void *arg;
	pid_t spare[PROCS_MAX_SPARE];
	pid_t spare_sid[PROCS_MAX_SPARE_SESSIONS];
} procs = {.sigfd = -1};

/* Add or remove v in a set of n pids (0: a free slot). */
static void set_pid(pid_t *set, int n, pid_t v, int on)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == v)
			set[i] = 0;
	for (i = 0; on && v > 0 && i < n; i++)
		if (!set[i]) {
			set[i] = v;
			break;
		}
}

static int has_pid(const pid_t *set, int n, pid_t v)
{
	int i;

	for (i = 0; v > 0 && i < n; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

void procs_spare(pid_t pid, int on)
{
	set_pid(procs.spare, PROCS_MAX_SPARE, pid, on);
}

void procs_spare_session(pid_t sid, int on)
{
	set_pid(procs.spare_sid, PROCS_MAX_SPARE_SESSIONS, sid, on);
}

/* A spared process itself, or (the pid of) a spared session's leader:
 * a background process is spared from its fork on, before its setsid(). */
static int procs_spared(pid_t pid)
{
	return has_pid(procs.spare, PROCS_MAX_SPARE, pid) ||
	       has_pid(procs.spare_sid, PROCS_MAX_SPARE_SESSIONS, pid);
}

int procs_init(procs_exit_cb cb, void *arg)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	procs.sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (procs.sigfd < 0)
		return -errno;
	procs.cb = cb;
	procs.arg = arg;
	return 0;
}

int procs_fd(void)
{
	return procs.sigfd;
}

static void drain_sigfd(void)
{
	struct signalfd_siginfo si[16];
	ssize_t n;
	size_t i;

	while ((n = read(procs.sigfd, si, sizeof(si))) > 0)
		for (i = 0; i < (size_t)n / sizeof(si[0]); i++)
			if (si[i].ssi_signo != SIGCHLD)
				procs.term = 1;
}

void procs_reap(void)
{
	pid_t pid;
	int status;

	/* __WALL: orphans created with clone() and an odd exit signal are
	 * ours to reap too. */
	while ((pid = waitpid(-1, &status, WNOHANG | __WALL)) > 0)
		if (procs.cb)
			procs.cb(pid, status, procs.arg);
}

void procs_handle_signals(void)
{
	drain_sigfd();
	procs_reap();
}

int procs_terminating(void)
{
	return procs.term;
}

/* Field "Name:\tvalue" of a /proc status buffer, or -1. */
static long status_field(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	if (!p)
		return -1;
	return strtol(p + strlen(name), NULL, 10);
}

/* 1 if pid (as a /proc entry name) is a process to kill. */
static int is_target(int procfd, const char *name, pid_t self)
{
	char path[64], buf[1024];
	long ruid, ppid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/status", name);
	fd = openat(procfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* gone already */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* Task names are escaped in status, so a program cannot forge
	 * these lines through its name. */
	ruid = status_field(buf, "\nUid:\t");
	ppid = status_field(buf, "\nPPid:\t");
	/* A background process's session (NSsid: the first figure is the
	 * container's own view). */
	if (has_pid(procs.spare_sid, PROCS_MAX_SPARE_SESSIONS,
		    (pid_t)status_field(buf, "\nNSsid:\t")))
		return 0;
	/* A zombie whose parent is spared (a child the session interpreter
	 * has not waited for yet) is dead already; only that parent can reap
	 * it, and it does before its next call. */
	if (strstr(buf, "\nState:\tZ") && procs_spared((pid_t)ppid))
		return 0;
	/* A process the engine started beside us (`docker exec`: its parent
	 * is outside the container, so it shows PPid 0) is the host's: the
	 * tar of a session's snapshot or restore, or an operator's. User
	 * code cannot make one: what it starts, and what it leaves, has a
	 * parent in here (us, once orphaned). */
	if (ppid == 0)
		return 0;
	/* Our own children may still be root while they set up; every other
	 * root process is left alone. */
	return ruid != 0 || ppid == self;
}

/* One pass over /proc: count targets, SIGKILL them if kill_them. */
static unsigned scan(int kill_them)
{
	pid_t self = getpid();
	struct dirent *de;
	unsigned n = 0;
	DIR *d;
	long pid;
	char *end;

	d = opendir("/proc");
	if (!d) {
		agent_log("opendir /proc: %s", strerror(errno));
		return 0;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid == self || procs_spared((pid_t)pid))
			continue;
		if (!is_target(dirfd(d), de->d_name, self))
			continue;
		n++;
		if (kill_them)
			kill((pid_t)pid, SIGKILL);
	}
	closedir(d);
	return n;
}

unsigned procs_kill_all(void)
{
	uint64_t deadline = agent_now_ms() + KILL_LOOP_MS;
	struct pollfd pfd = {.fd = procs.sigfd, .events = POLLIN};
	uint64_t now;
	unsigned n;

	for (;;) {
		procs_reap();
		n = scan(1);
		if (n == 0)
			return 0;
		now = agent_now_ms();
		if (now >= deadline)
			break;
		/* Dying children and reparented orphans raise SIGCHLD; the
		 * nap covers grandchildren whose parent reaps them. */
		poll(&pfd, 1,
		     (int)(deadline - now < KILL_NAP_MS ? deadline - now
							: KILL_NAP_MS));
		drain_sigfd();
	}
	procs_reap();
	n = scan(0);
	if (n)
		agent_log("%u processes survived SIGKILL", n);
	return n;
}

/* "KEY N" in one of a cgroup's files: the container's own cgroup is the
 * root of what it sees. */
static int counter_in(const char *path, const char *key, uint64_t *n)
{
	size_t klen = strlen(key);
	char line[128];
	FILE *f = fopen(path, "re");
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ' ' &&
		    sscanf(line + klen, " %" SCNu64, n) == 1) {
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

int procs_oom_kills(uint64_t *n)
{
	if (counter_in("/sys/fs/cgroup/memory.events", "oom_kill", n) == 0)
		return 0;
	return counter_in("/sys/fs/cgroup/memory/memory.oom_control",
			  "oom_kill", n);
}

int procs_pids_max(uint64_t *n)
{
	if (counter_in("/sys/fs/cgroup/pids.events", "max", n) == 0)
		return 0;
	return counter_in("/sys/fs/cgroup/pids/pids.events", "max", n);
}
