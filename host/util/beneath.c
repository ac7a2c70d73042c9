/*
 * beneath.c - see beneath.h.
 */
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int beneath_check(const char *path)
{
	const char *p = path, *c;
	size_t n;

	if (!*path || *path == '/' || strlen(path) >= PATH_MAX)
		return -EINVAL;
	for (c = path; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return -EINVAL;
	while (*p) {
		c = strchr(p, '/');
		n = c ? (size_t)(c - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (!c)
			break;
		p = c + 1;
		if (!*p)
			return -EINVAL; /* trailing '/' */
	}
	return 0;
}

int beneath_open(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve =
		RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	do
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -errno : (int)fd;
}

int beneath_parent(int rootfd, const char *path, int create, const char **last)
{
	char buf[PATH_MAX];
	const char *slash = strrchr(path, '/');
	size_t i, n;
	int fd, dfd;

	*last = slash ? slash + 1 : path;
	if (!slash)
		return beneath_open(rootfd, ".", O_PATH | O_DIRECTORY, 0);
	n = (size_t)(slash - path);
	memcpy(buf, path, n);
	buf[n] = '\0';
	fd = beneath_open(rootfd, buf, O_PATH | O_DIRECTORY, 0);
	if (fd != -ENOENT || !create)
		return fd;
	/* mkdir -p, one component at a time, each beneath the root. */
	for (i = 0; i <= n; i++) {
		if (i < n && buf[i] != '/')
			continue;
		buf[i] = '\0';
		dfd = beneath_open(rootfd, buf, O_PATH | O_DIRECTORY, 0);
		if (dfd == -ENOENT) {
			const char *comp = strrchr(buf, '/');
			int pfd;

			if (comp) {
				*(char *)comp = '\0';
				pfd = beneath_open(rootfd, buf,
						   O_PATH | O_DIRECTORY, 0);
				*(char *)comp = '/';
				comp++;
			} else {
				comp = buf;
				pfd = beneath_open(rootfd, ".",
						   O_PATH | O_DIRECTORY, 0);
			}
			if (pfd < 0)
				return pfd;
			if (mkdirat(pfd, comp, 0755) && errno != EEXIST) {
				dfd = -errno;
				close(pfd);
				return dfd;
			}
			close(pfd);
			dfd = beneath_open(rootfd, buf, O_PATH | O_DIRECTORY,
					   0);
		}
		if (dfd < 0)
			return dfd;
		if (i < n) {
			close(dfd);
			buf[i] = '/';
		} else {
			fd = dfd;
		}
	}
	return fd;
}
