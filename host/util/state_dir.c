/*
 * state_dir.c - the state directory, resolved and created (see
 * state_dir.h).
 */
#include "state_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

int state_dir_resolve(const char *dir, char *buf, size_t size)
{
	int n;

	if (dir && *dir) {
		n = snprintf(buf, size, "%s", dir);
	} else {
		const char *xdg = getenv("XDG_STATE_HOME"),
			   *home = getenv("HOME");

		if (xdg && xdg[0] == '/')
			n = snprintf(buf, size, "%s/mcp-sandbox", xdg);
		else
			n = snprintf(buf, size, "%s/.local/state/mcp-sandbox",
				     home && home[0] == '/' ? home : "/tmp");
	}
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return mkdirs(buf);
}

int state_dir_subdir(const char *dir, const char *sub, char *buf, size_t size)
{
	size_t n;
	int rc = state_dir_resolve(dir, buf, size);

	if (rc)
		return rc;
	n = strlen(buf);
	if ((size_t)snprintf(buf + n, size - n, "/%s", sub) >= size - n)
		return -ENAMETOOLONG;
	return mkdirs(buf);
}
