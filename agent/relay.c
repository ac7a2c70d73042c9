/*
 * relay.c - the agent's socket for later hosts, and `sbx-agent relay`
 * (see relay.h).
 */
#include "relay.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "log.h"

/* Abstract: nothing on the (read-only) file system, private to the
 * container's network namespace. */
static const char sock_name[] = "\0mcp-sandbox-agent";

static socklen_t sock_addr(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, sock_name, sizeof(sock_name) - 1);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			   sizeof(sock_name) - 1);
}

int relay_listen(void)
{
	struct sockaddr_un sa;
	socklen_t len = sock_addr(&sa);
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 4)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int relay_accept(int listen_fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    cred.uid != 0) {
		agent_log("refused a connection from uid %d",
			  len == sizeof(cred) ? (int)cred.uid : -1);
		close(fd);
		return -1;
	}
	return fd;
}

/* Write all of buf; the relay has nothing else to do meanwhile. */
static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int relay_main(void)
{
	struct sockaddr_un sa;
	socklen_t len = sock_addr(&sa);
	struct pollfd pfd[2];
	char buf[64 * 1024];
	int sock, in_open = 1;
	ssize_t n;

	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, len)) {
		agent_log("relay: cannot reach the agent: %s", strerror(errno));
		return 1;
	}
	for (;;) {
		pfd[0] = (struct pollfd){.fd = in_open ? 0 : -1,
					 .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = sock, .events = POLLIN};
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (pfd[0].revents) {
			n = read(0, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				/* The host is gone: so is this connection. */
				shutdown(sock, SHUT_WR);
				in_open = 0;
			} else if (write_all(sock, buf, (size_t)n)) {
				return 1;
			}
		}
		if (pfd[1].revents) {
			n = read(sock, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return 0;
			if (write_all(1, buf, (size_t)n))
				return 1;
		}
	}
}
