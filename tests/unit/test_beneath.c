/* util/beneath.c: paths under the files root, with things planted in it
 * that try to lead out (symlinks to a directory and a file outside, "..",
 * absolute paths), and mkdir -p that must stop at a link. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/beneath.h"
#include "testlib.h"

static char root[64], outside[64];

static void check_paths(void)
{
	static const char *const good[] = {"a",	 "a/b",	 "a.b/c..d",
					   ".x", "x/.y", NULL};
	static const char *const bad[] = {"",	  "/a",	   "a/",    "a//b",
					  "./a",  "a/./b", "..",    "a/..",
					  "../a", "a\nb",  "a\x7f", NULL};
	size_t i;

	for (i = 0; good[i]; i++)
		CHECK(beneath_check(good[i]) == 0);
	for (i = 0; bad[i]; i++)
		CHECK(beneath_check(bad[i]) == -EINVAL);
}

static void plant(const char *rel, const char *target)
{
	char p[256];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	CHECK(symlink(target, p) == 0);
}

static void check_open(int rootfd)
{
	char p[256];
	const char *last;
	int fd;

	snprintf(p, sizeof(p), "%s/secret", outside);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "s", 1) == 1);
	close(fd);
	plant("linkdir", outside);
	plant("linkfile", p);
	snprintf(p, sizeof(p), "%s/sub", root);
	CHECK(mkdir(p, 0755) == 0);
	plant("sub/up", "../..");
	snprintf(p, sizeof(p), "%s/sub/f", root);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);

	fd = beneath_open(rootfd, "sub/f", O_RDONLY, 0);
	CHECK(fd >= 0);
	close(fd);
	/* Every way out fails, whatever the kernel's exact errno. */
	CHECK(beneath_open(rootfd, "linkfile", O_RDONLY, 0) < 0);
	CHECK(beneath_open(rootfd, "linkdir/secret", O_RDONLY, 0) < 0);
	CHECK(beneath_open(rootfd, "sub/up/etc/passwd", O_RDONLY, 0) < 0);
	CHECK(beneath_open(rootfd, "../x", O_RDONLY, 0) == -EXDEV);
	CHECK(beneath_open(rootfd, "/etc/passwd", O_RDONLY, 0) == -EXDEV);
	CHECK(beneath_open(rootfd, "linkfile", O_WRONLY | O_CREAT | O_TRUNC,
			   0644) < 0);

	/* mkdir -p beneath the root: made, or stopped at a link. */
	fd = beneath_parent(rootfd, "n1/n2/n3/file", 1, &last);
	CHECK(fd >= 0 && strcmp(last, "file") == 0);
	close(fd);
	snprintf(p, sizeof(p), "%s/n1/n2/n3", root);
	CHECK(access(p, F_OK) == 0);
	CHECK(beneath_parent(rootfd, "linkdir/new/file", 1, &last) < 0);
	snprintf(p, sizeof(p), "%s/new", outside);
	CHECK(access(p, F_OK) != 0); /* nothing made outside */
	CHECK(beneath_parent(rootfd, "missing/file", 0, &last) == -ENOENT);
	fd = beneath_parent(rootfd, "top", 1, &last);
	CHECK(fd >= 0 && strcmp(last, "top") == 0);
	close(fd);
}

int main(void)
{
	int rootfd;

	snprintf(root, sizeof(root), "/tmp/sbx-beneath-XXXXXX");
	snprintf(outside, sizeof(outside), "/tmp/sbx-outside-XXXXXX");
	if (!mkdtemp(root) || !mkdtemp(outside))
		return 2;
	check_paths();
	rootfd = open(root, O_PATH | O_DIRECTORY);
	CHECK(rootfd >= 0);
	if (rootfd >= 0)
		check_open(rootfd);
	close(rootfd);
	{
		char cmd[200];

		snprintf(cmd, sizeof(cmd), "rm -rf %s %s", root, outside);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return t_summary("beneath");
}
