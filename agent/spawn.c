/*
 * spawn.c - child setup: fds, session, privilege drop, seccomp, exec.
 *
 * Everything after fork() runs in the child of a single-threaded parent, so
 * plain libc (snprintf, malloc inside libseccomp) is safe to call.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/fsuid.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "log.h"
#include "seccomp_floor.h"

extern char **environ;

__attribute__((noreturn)) static void child_fail(const char *what,
						 const char *arg, int err)
{
	char buf[512];
	int n;

	n = snprintf(buf, sizeof(buf), "sbx-agent: %s%s%s: %s\n", what,
		     arg ? " " : "", arg ? arg : "", strerror(err));
	if (n > 0 && write(2, buf, (size_t)n) < 0) {
		/* nothing left to tell */
	}
	_exit(127);
}

/* Every agent fd is O_CLOEXEC already; this is the second wall, and the
 * one that also covers fds a future change forgets to flag. */
static void close_from(int lowfd)
{
	struct rlimit rl;
	long max = 1024;
	long fd;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0u) == 0)
		return;
#endif
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		max = rl.rlim_cur < 1048576 ? (long)rl.rlim_cur : 1048576;
	for (fd = lowfd; fd < max; fd++)
		close((int)fd);
}

/* What every child does first, still as root: fresh signal state, its own
 * session (so job control and terminal signals of one execution never
 * reach another), its fds, and a high OOM score so the kernel picks user
 * code over the agent when the container runs out of memory. */
static void child_setup(int fd_in, int fd_out, int fd_err, const int *keep)
{
	struct rlimit core = {0, 0};
	int tmp[SPAWN_MAX_KEEP];
	sigset_t none;
	int fd, n = 0, i;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	setsid();
	fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "1000", 4) < 0) {
			/* best effort: the cgroup limit holds either way */
		}
		close(fd);
	}
	if (dup2(fd_in, 0) < 0 || dup2(fd_out, 1) < 0 || dup2(fd_err, 2) < 0)
		child_fail("dup2", NULL, errno);
	/* Out of the way first, so that no source is overwritten before it
	 * is moved: then into place, where dup2() clears O_CLOEXEC. */
	for (; keep && n < SPAWN_MAX_KEEP && keep[n] > 2; n++) {
		tmp[n] = fcntl(keep[n], F_DUPFD_CLOEXEC, 3 + SPAWN_MAX_KEEP);
		if (tmp[n] < 0)
			child_fail("dup", NULL, errno);
	}
	for (i = 0; i < n; i++)
		if (dup2(tmp[i], 3 + i) < 0)
			child_fail("dup2", NULL, errno);
	close_from(3 + n);
	if (setrlimit(RLIMIT_CORE, &core))
		child_fail("setrlimit", NULL, errno);
}

/* Root in the container holds only SETUID, SETGID, SETPCAP and KILL. Drop
 * to AGENT_UID with nothing: empty bounding, ambient, inheritable,
 * permitted and effective sets, no_new_privs so nothing can be regained
 * through a setuid binary or file capabilities. */
static void drop_privileges(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	uid_t r, e, s;
	int cap;

	if (setgroups(0, NULL))
		child_fail("setgroups", NULL, errno);
	if (setresgid(AGENT_GID, AGENT_GID, AGENT_GID))
		child_fail("setresgid", NULL, errno);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		child_fail("PR_SET_NO_NEW_PRIVS", NULL, errno);
	/* Needs CAP_SETPCAP, so before the uid change. EINVAL marks a
	 * capability this kernel does not have. */
	for (cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			child_fail("PR_CAPBSET_DROP", NULL, errno);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		child_fail("PR_CAP_AMBIENT_CLEAR_ALL", NULL, errno);
	/* With no SECBIT_KEEP_CAPS, leaving uid 0 for good clears the
	 * permitted and effective sets. */
	if (setresuid(AGENT_UID, AGENT_UID, AGENT_UID))
		child_fail("setresuid", NULL, errno);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data))
		child_fail("capset", NULL, errno);
	/* Never run user code with anything left: check, don't trust. */
	if (getresuid(&r, &e, &s) || r != AGENT_UID || e != AGENT_UID ||
	    s != AGENT_UID)
		child_fail("uid check", NULL, EPERM);
	if (syscall(SYS_capget, &hdr, data))
		child_fail("capget", NULL, errno);
	if (data[0].effective || data[0].permitted || data[1].effective ||
	    data[1].permitted)
		child_fail("capability check", NULL, EPERM);
}

/* A program's file, written the one way both a step's first process and
 * the agent (for a pre-started interpreter) write it: as the user, so the
 * file is theirs without CAP_CHOWN and a symlink they planted cannot
 * point the write anywhere they could not write themselves; an existing
 * file is replaced, mode 0644. 0, or a negative errno with *what the
 * stage that failed. */
static int put_file(int dfd, const char *name, const unsigned char *p, size_t n,
		    const char **what)
{
	ssize_t w;
	int fd, rc = 0;

	*what = "unlink";
	if (unlinkat(dfd, name, 0) && errno != ENOENT && errno != EISDIR)
		return -errno;
	*what = "create";
	fd = openat(dfd, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	*what = "write";
	while (n && !rc) {
		w = write(fd, p, n);
		if (w < 0 && errno != EINTR)
			rc = -errno;
		else if (w == 0)
			rc = -EIO;
		else if (w > 0) {
			p += w;
			n -= (size_t)w;
		}
	}
	if (!rc && fchmod(fd, 0644))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static void write_file(const char *name, const unsigned char *p, size_t n)
{
	const char *what;
	int rc = put_file(AT_FDCWD, name, p, n, &what);

	if (rc)
		child_fail(what, name, -rc);
}

pid_t spawn_user(const struct spawn_opts *o)
{
	pid_t pid;
	int rc;

	pid = fork();
	if (pid)
		return pid < 0 ? -errno : pid;

	child_setup(o->fd_in, o->fd_out, o->fd_err, o->fd_keep);
	drop_privileges();
	/* /work is mode 0700 for the user; root without CAP_DAC_OVERRIDE
	 * may not enter it, so this comes after the drop. */
	if (chdir(AGENT_WORKDIR))
		child_fail("chdir", AGENT_WORKDIR, errno);
	umask(022);
	if (o->file_name)
		write_file(o->file_name, o->file_data, o->file_len);
	/* Speculative Store Bypass stays mitigated in user code whatever the
	 * kernel's default (ENXIO, EINVAL: this CPU has no such control). */
	if (prctl(PR_SET_SPECULATION_CTRL, PR_SPEC_STORE_BYPASS,
		  PR_SPEC_FORCE_DISABLE, 0, 0) &&
	    errno != ENXIO && errno != EINVAL && errno != ENODEV)
		child_fail("prctl", "PR_SPEC_STORE_BYPASS", errno);
	if (o->seccomp) {
		/* Flags 0: no SECCOMP_FILTER_FLAG_SPEC_ALLOW. */
		const struct sock_fprog *prog = o->seccomp;

		rc = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0,
				  prog);
		if (rc)
			child_fail("seccomp", NULL, errno);
	}
	/* execvpe searches the PATH of the calling environment: make that
	 * the program's environment. */
	environ = (char **)o->envp;
	/* exec never writes through its vectors (POSIX execve rationale):
	 * the casts only drop a const the prototypes lack. */
	execvpe(o->argv[0], (char *const *)o->argv, (char *const *)o->envp);
	child_fail("exec", o->argv[0], errno);
}

/* Act as the sandbox user on the file system (single-threaded: the
 * whole agent's identity until user_fs_end). 0 or -EPERM. Leaving uid 0
 * as the file system uid drops no capability the agent holds. */
static int user_fs_begin(void)
{
	setfsgid(AGENT_GID);
	setfsuid(AGENT_UID);
	if ((uid_t)setfsuid((uid_t)-1) != AGENT_UID ||
	    (gid_t)setfsgid((gid_t)-1) != AGENT_GID)
		return -EPERM;
	return 0;
}

static void user_fs_end(void)
{
	setfsuid(0);
	setfsgid(0);
}

int spawn_pipe(int p[2])
{
	int rc = user_fs_begin();

	if (!rc && pipe2(p, O_CLOEXEC))
		rc = -errno;
	user_fs_end();
	return rc;
}

int spawn_write_file_as_user(const char *name, const void *data, size_t len)
{
	const char *what;
	int dfd = -1, rc;

	rc = user_fs_begin();
	if (rc)
		goto out;
	/* SIGXFSZ at RLIMIT_FSIZE would end PID 1: EFBIG instead. */
	signal(SIGXFSZ, SIG_IGN);
	dfd = open(AGENT_WORKDIR,
		   O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	rc = dfd < 0 ? -errno : put_file(dfd, name, data, len, &what);
	signal(SIGXFSZ, SIG_DFL);
out:
	if (dfd >= 0)
		close(dfd);
	user_fs_end();
	return rc;
}

pid_t spawn_worker(int (*fn)(void *arg), void *arg, int fd_out)
{
	pid_t pid;

	pid = fork();
	if (pid)
		return pid < 0 ? -errno : pid;
	child_setup(0, fd_out, 2, NULL);
	drop_privileges();
	umask(077);
	_exit(fn(arg) ? 1 : 0);
}

/* Add the floor's rule r to ctx (docs/security.md). */
static int floor_add(scmp_filter_ctx ctx, const struct floor_rule *r)
{
	struct floor_cond c[128];
	int nr = seccomp_syscall_resolve_name(r->name), n, i, rc;

	if (nr == __NR_SCMP_ERROR)
		return 0; /* not a syscall of this architecture */
	if (r->kind == FLOOR_DENY)
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)r->err),
					nr, 0);
	n = floor_conditions(r, c, sizeof(c) / sizeof(c[0]));
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)r->err), nr,
				      1,
				      SCMP_CMP64(r->arg, SCMP_CMP_MASKED_EQ,
						 c[i].mask, c[i].value));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The floor and the names, compiled by libseccomp. */
static scmp_filter_ctx filter_build(const char *const *names, size_t n)
{
	const struct floor_rule *r;
	scmp_filter_ctx ctx;
	size_t i;
	int nr, rc;

	/* The default bad-architecture action stays: a 32-bit syscall from
	 * an x86_64 program kills it (SIGSYS). */
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return NULL;
	for (r = floor_rules; r->name; r++) {
		rc = floor_add(ctx, r);
		if (rc < 0) {
			agent_log("seccomp: the floor's rule for %s: %s",
				  r->name, strerror(-rc));
			seccomp_release(ctx);
			return NULL;
		}
	}
	/* The plugin's and sandbox.ini's additions. */
	for (i = 0; i < n; i++) {
		if (floor_mentions(names[i]))
			continue;
		nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR) {
			agent_log("seccomp: unknown syscall \"%s\" ignored",
				  names[i]);
			continue;
		}
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(SBX_SECCOMP_ERRNO),
				      nr, 0);
		if (rc < 0)
			agent_log("seccomp: cannot deny \"%s\": %s", names[i],
				  strerror(-rc));
	}
	return ctx;
}

/* The BPF program of ctx, through a memory file (libseccomp 2.5 exports
 * to a descriptor only). */
static struct sock_filter *filter_export(scmp_filter_ctx ctx, size_t *count)
{
	struct sock_filter *insns = NULL;
	int fd = memfd_create("seccomp", MFD_CLOEXEC);
	off_t len;

	if (fd < 0)
		return NULL;
	if (seccomp_export_bpf(ctx, fd) == 0 &&
	    (len = lseek(fd, 0, SEEK_END)) > 0 &&
	    len % (off_t)sizeof(*insns) == 0 &&
	    len <= (off_t)(0xffff * sizeof(*insns)) &&
	    (insns = malloc((size_t)len)) &&
	    pread(fd, insns, (size_t)len, 0) != len) {
		free(insns);
		insns = NULL;
	}
	if (insns)
		*count = (size_t)len / sizeof(*insns);
	close(fd);
	return insns;
}

/* The last program built, by the fingerprint of its names: the runs of a
 * language all ask for the same one, and building it (about 0.5 ms) would
 * otherwise come with every run. */
static struct {
	uint64_t fp;
	struct sock_filter *insns;
	size_t count;
} last;

void *spawn_seccomp_new(const char *const *names, size_t n)
{
	static const char *const no_env[] = {NULL};
	uint64_t fp = spawn_fingerprint(NULL, no_env, names, n);
	struct sock_fprog *prog;

	if (!last.insns || last.fp != fp) {
		scmp_filter_ctx ctx = filter_build(names, n);
		struct sock_filter *insns;
		size_t count = 0;

		if (!ctx)
			return NULL;
		insns = filter_export(ctx, &count);
		seccomp_release(ctx);
		if (!insns)
			return NULL;
		free(last.insns);
		last.insns = insns;
		last.count = count;
		last.fp = fp;
	}
	prog = malloc(sizeof(*prog) + last.count * sizeof(*last.insns));
	if (!prog)
		return NULL;
	prog->len = (unsigned short)last.count;
	prog->filter = (struct sock_filter *)(prog + 1);
	memcpy(prog->filter, last.insns, last.count * sizeof(*last.insns));
	return prog;
}

void spawn_seccomp_free(void *prog)
{
	free(prog);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	do {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	} while (*s++);
	return h;
}

uint64_t spawn_fingerprint(const char *const *argv, const char *const *envp,
			   const char *const *deny, size_t ndeny)
{
	uint64_t h = 14695981039346656037ull;
	size_t i;

	for (; argv && *argv; argv++)
		h = fnv(h, *argv);
	h = fnv(h, "--env--");
	for (; *envp; envp++)
		h = fnv(h, *envp);
	h = fnv(h, "--deny--");
	for (i = 0; i < ndeny; i++)
		h = fnv(h, deny[i]);
	return h;
}
