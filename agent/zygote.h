/*
 * zygote.h - the optional fork server of an image.
 *
 * An image that ships an executable /opt/sbx/zygote (python-ml does) gets
 * its run steps served by that program instead of a fresh exec: the agent
 * starts it once, through spawn_user() like any user program (uid 1000, no
 * capabilities, no_new_privs, the request's seccomp filter), with fd 3 a
 * SOCK_SEQPACKET socket back to the agent. Per execution the agent sends
 * the step's three fds, a memfd with the source file and the argv and
 * environment; the server forks a child that runs it and answers with the
 * child's pid and later its wait status. The child inherits all of the
 * server's sandboxing. images/python-ml/forkserver.py documents the
 * messages from the server's side.
 *
 * The server is spared by procs_kill_all() while it runs; the agent kills
 * it when an execution is timed out or cancelled (a request may still sit
 * in its socket) and restarts it when the environment or seccomp deny list
 * of a request differs from the one it was started with.
 *
 * One server per agent, so the state lives in statics.
 */
#ifndef SBX_ZYGOTE_H
#define SBX_ZYGOTE_H

#include <stddef.h>
#include <sys/types.h>

#define ZYGOTE_PATH "/opt/sbx/zygote"

/* 1 if this image has a fork server (checked once). */
int zygote_available(void);

/* Make sure a server started with exactly this environment and deny list
 * runs; start one if not. fd_in/out/err become the new server's fds 0-2
 * until it has finished loading (so its start-up errors reach the
 * execution that started it). Returns 0 or a negative errno. Pointers are
 * borrowed for the call. */
int zygote_ensure(const char *const *envp, const char *const *deny,
		  size_t ndeny, void *seccomp, int fd_in, int fd_out,
		  int fd_err);

/* Hand one execution to the running server. The fds are duplicated by
 * the kernel (the caller still closes its own). Returns 0, -EMSGSIZE when
 * argv and environment do not fit one message (run it without the
 * server), or another negative errno. */
int zygote_submit(int fd_in, int fd_out, int fd_err, const char *file_name,
		  const void *file_data, size_t file_len,
		  const char *const *argv, const char *const *envp);

/* The socket to poll for POLLIN, or -1. */
int zygote_fd(void);

enum zygote_msg {
	ZYGOTE_NONE = 0,  /* nothing to read now */
	ZYGOTE_PID = 1,	  /* *pid: the child was forked */
	ZYGOTE_EXIT = 2,  /* *pid, *status: the child was reaped */
	ZYGOTE_BAD = 3,	  /* the server refused the request */
	ZYGOTE_GONE = -1, /* EOF or error: the server is going away */
};
/* Read one message without blocking. */
enum zygote_msg zygote_read(pid_t *pid, int *status);

/* SIGKILL the server (if any) and forget it; the reaper collects it. */
void zygote_stop(void);

/* From the reaper: 1 if pid was the server (now forgotten). */
int zygote_reaped(pid_t pid);

#endif
