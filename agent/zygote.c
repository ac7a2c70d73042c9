/*
 * zygote.c - start, feed and stop the image's fork server (see zygote.h).
 */
#include "zygote.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "procs.h"
#include "spawn.h"

/* Largest request message (argv + environment); the server reads up to
 * 256 KiB, and anything bigger runs without the server. */
#define ZYGOTE_MAX_MSG ((size_t)128 * 1024)

static struct {
	int present; /* -1 not checked yet */
	pid_t pid;   /* 0: none */
	int sock;
	uint64_t fingerprint;
} zyg = {.present = -1, .sock = -1};

int zygote_available(void)
{
	if (zyg.present < 0)
		zyg.present = access(ZYGOTE_PATH, X_OK) == 0;
	return zyg.present;
}

int zygote_fd(void)
{
	return zyg.pid ? zyg.sock : -1;
}

static void forget(void)
{
	if (zyg.sock >= 0)
		close(zyg.sock);
	zyg.sock = -1;
	procs_spare(zyg.pid, 0);
	zyg.pid = 0;
}

void zygote_stop(void)
{
	if (zyg.pid)
		kill(zyg.pid, SIGKILL);
	forget();
}

int zygote_reaped(pid_t pid)
{
	if (!zyg.pid || pid != zyg.pid)
		return 0;
	agent_log("fork server %d exited", (int)pid);
	forget();
	return 1;
}

int zygote_ensure(const char *const *envp, const char *const *deny,
		  size_t ndeny, void *seccomp, int fd_in, int fd_out,
		  int fd_err)
{
	const char *const argv[] = {ZYGOTE_PATH, NULL};
	uint64_t fp = spawn_fingerprint(NULL, envp, deny, ndeny);
	struct spawn_opts o;
	int sv[2];
	pid_t pid;

	if (zyg.pid && zyg.fingerprint == fp)
		return 0;
	if (zyg.pid)
		agent_log("environment or seccomp changed: restarting the fork "
			  "server");
	zygote_stop();
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = envp;
	o.fd_in = fd_in;
	o.fd_out = fd_out;
	o.fd_err = fd_err;
	o.fd_keep[0] = sv[1];
	o.seccomp = seccomp;
	pid = spawn_user(&o);
	close(sv[1]);
	if (pid < 0) {
		close(sv[0]);
		return pid;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	zyg.pid = pid;
	zyg.sock = sv[0];
	zyg.fingerprint = fp;
	procs_spare(pid, 1);
	return 0;
}

/* Append s and a NUL to buf. */
static int put(char *buf, size_t *len, const char *s)
{
	size_t n = strlen(s) + 1;

	if (n > ZYGOTE_MAX_MSG - *len)
		return -EMSGSIZE;
	memcpy(buf + *len, s, n);
	*len += n;
	return 0;
}

static int count(const char *const *v)
{
	int n = 0;

	while (v[n])
		n++;
	return n;
}

/* The source travels as a memfd: any size, no blocking write. */
static int make_memfd(const void *data, size_t len)
{
	const unsigned char *p = data;
	ssize_t w;
	int fd;

	fd = memfd_create("sbx-source", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len) {
		w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			w = w < 0 ? -errno : -EIO;
			close(fd);
			return (int)w;
		}
		p += w;
		len -= (size_t)w;
	}
	return fd;
}

int zygote_submit(int fd_in, int fd_out, int fd_err, const char *file_name,
		  const void *file_data, size_t file_len,
		  const char *const *argv, const char *const *envp)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} u;
	char num[32], *msg;
	struct msghdr mh;
	struct cmsghdr *c;
	struct iovec iov;
	size_t len = 0;
	int fds[4] = {fd_in, fd_out, fd_err, -1}, nfds = 3, rc = 0, i;
	ssize_t n;

	if (!zyg.pid)
		return -ESRCH;
	msg = malloc(ZYGOTE_MAX_MSG);
	if (!msg)
		return -ENOMEM;
	rc = put(msg, &len, "sbx1");
	snprintf(num, sizeof(num), "%d", count(argv));
	if (!rc)
		rc = put(msg, &len, num);
	snprintf(num, sizeof(num), "%d", count(envp));
	if (!rc)
		rc = put(msg, &len, num);
	if (!rc)
		rc = put(msg, &len, file_name ? file_name : "");
	for (i = 0; !rc && argv[i]; i++)
		rc = put(msg, &len, argv[i]);
	for (i = 0; !rc && envp[i]; i++)
		rc = put(msg, &len, envp[i]);
	if (rc)
		goto out;
	if (file_name) {
		fds[3] = make_memfd(file_data, file_len);
		if (fds[3] < 0) {
			rc = fds[3];
			goto out;
		}
		nfds = 4;
	}

	memset(&mh, 0, sizeof(mh));
	memset(&u, 0, sizeof(u));
	iov.iov_base = msg;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
	/* The socket is empty between executions, so a message this size
	 * fits its buffer; EAGAIN would mean the server is not reading. */
	do
		n = sendmsg(zyg.sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		rc = -errno;
	else if ((size_t)n != len)
		rc = -EIO;
out:
	if (fds[3] >= 0)
		close(fds[3]);
	free(msg);
	return rc;
}

enum zygote_msg zygote_read(pid_t *pid, int *status)
{
	char buf[64];
	long a, b;
	ssize_t n;

	if (!zyg.pid)
		return ZYGOTE_GONE;
	n = recv(zyg.sock, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return ZYGOTE_NONE;
	if (n <= 0)
		return ZYGOTE_GONE;
	buf[n] = '\0';
	if (sscanf(buf, "pid %ld", &a) == 1 && a > 0) {
		*pid = (pid_t)a;
		return ZYGOTE_PID;
	}
	if (sscanf(buf, "exit %ld %ld", &a, &b) == 2 && a > 0) {
		*pid = (pid_t)a;
		*status = (int)b;
		return ZYGOTE_EXIT;
	}
	return ZYGOTE_BAD;
}
