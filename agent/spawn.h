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

struct spawn_opts {
	const char *const *argv; /* argv[0] is looked up in envp's PATH */
	const char *const *envp; /* the complete environment */
	int fd_in;		 /* become fds 0, 1, 2 of the child */
	int fd_out;
	int fd_err;
	int fd_keep;	       /* > 2: becomes fd 3 of the child (the
				* fork server's socket); 0: none */
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
