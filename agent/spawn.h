/*
 * spawn.h - start processes as the unprivileged sandbox user.
 *
 * Every process the agent starts goes through here: user programs (build
 * and run) and the agent's own uid-1000 workers (reset). The child drops
 * to AGENT_UID with an empty capability set before it does anything the
 * user could influence.
 */
#ifndef SBX_SPAWN_H
#define SBX_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWN_MAX_KEEP 3

struct spawn_opts {
	const char *const *argv; /* argv[0] is looked up in envp's PATH */
	const char *const *envp; /* the complete environment */
	int fd_in;		 /* become fds 0, 1, 2 of the child */
	int fd_out;
	int fd_err;
	/* Entries > 2 become fds 3, 4, ... of the child in order, up to
	 * the first 0 (the fork server's socket; the pre-started
	 * interpreter's control, stdin and ready pipes). */
	int fd_keep[SPAWN_MAX_KEEP];
	const char *file_name; /* written into AGENT_WORKDIR first, or NULL */
	const void *file_data;
	size_t file_len;
	void *seccomp; /* from spawn_seccomp_new(), or NULL */
};

/* Fork and exec a user program. All borrowed pointers only need to live
 * until this returns (the child has its own copy). Returns the pid or a
 * negative errno if fork failed. Failures in the child (privilege drop,
 * file write, exec) print "sbx-agent: ..." on the child's stderr and exit
 * 127. */
pid_t spawn_user(const struct spawn_opts *o);

/* pipe2(p, O_CLOEXEC), the pipe owned by the sandbox user: a program can
 * then open its own stdin, stdout and stderr again by name (/dev/stdout,
 * /proc/self/fd/N), as on any system, where a pipe the agent made as root
 * would answer EACCES. 0 or a negative errno. */
int spawn_pipe(int p[2]);

/* Write len bytes of data to AGENT_WORKDIR/name from the agent itself,
 * with the sandbox user's file system identity (setfsuid), exactly as a
 * user program's first step does (an existing file is replaced, a symlink
 * is not followed, mode 0644): the pre-started interpreter's program.
 * Returns 0 or a negative errno; nothing of the agent's state changes. */
int spawn_write_file_as_user(const char *name, const void *data, size_t len);

/* Fork a worker that drops privileges like a user program, then returns
 * fn(arg) as its exit status (0 success) without exec. fd_out becomes its
 * stdout; stderr is the agent's. Returns the pid or a negative errno. */
pid_t spawn_worker(int (*fn)(void *arg), void *arg, int fd_out);

/* Build the seccomp filter of user code: the floor (common/seccomp_floor.h)
 * and the named syscalls on top, each denied with SBX_SECCOMP_ERRNO
 * (unknown names are logged and skipped). NULL on allocation failure.
 * Free with spawn_seccomp_free(NULL ok). */
void *spawn_seccomp_new(const char *const *names, size_t n);
/* FNV-1a over what a long-lived process inherits at start and cannot
 * change later (its argv, or NULL, environment and seccomp deny list): the
 * fork server and the session interpreter restart when it differs. */
uint64_t spawn_fingerprint(const char *const *argv, const char *const *envp,
			   const char *const *deny, size_t ndeny);
void spawn_seccomp_free(void *ctx);

#endif
