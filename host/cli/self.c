/*
 * self.c - where this binary is, and what it finds from there (see
 * self.h).
 */
#include "self.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int self_dir(char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (n <= 0)
		return -1;
	path[n] = '\0';
	snprintf(buf, size, "%s", dirname(path));
	return 0;
}

static int file_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int self_in_build_tree(void)
{
#ifdef SBX_BUILD_BIN_DIR
	char dir[PATH_MAX];

	return self_dir(dir, sizeof(dir)) == 0 &&
	       strcmp(dir, SBX_BUILD_BIN_DIR) == 0;
#else
	return 0;
#endif
}

int self_agent_path(char *buf, size_t size)
{
	char dir[PATH_MAX / 2];

	if (self_dir(dir, sizeof(dir)) != 0)
		return -1;
	snprintf(buf, size, "%s/sbx-agent", dir);
	if (file_exists(buf))
		return 0;
	snprintf(buf, size, "%s/../" SBX_AGENT_INSTALL_DIR "/sbx-agent", dir);
	return file_exists(buf) ? 0 : -1;
}

const char *self_find_config(const char *arg, char *buf, size_t size)
{
	char dir[PATH_MAX / 2];
	const char *env = getenv("SANDBOX_CONFIG");

	if (arg)
		return arg;
	if (env && *env)
		return env;
	if (self_dir(dir, sizeof(dir)) == 0) {
		if (self_in_build_tree() &&
		    file_exists(SBX_SOURCE_DIR "/sandbox.ini"))
			return SBX_SOURCE_DIR "/sandbox.ini";
		snprintf(buf, size, "%s/../etc/mcp-sandbox/sandbox.ini", dir);
		if (file_exists(buf))
			return buf;
	}
	if (file_exists("/etc/mcp-sandbox/sandbox.ini"))
		return "/etc/mcp-sandbox/sandbox.ini";
	return NULL;
}

int self_build_images(char *buf)
{
	char dir[PATH_MAX / 2], script[PATH_MAX];

	if (self_in_build_tree()) {
		snprintf(buf, PATH_MAX, "%s",
			 SBX_SOURCE_DIR "/scripts/build-images.sh");
		return 0;
	}
	if (self_dir(dir, sizeof(dir)) != 0)
		return -1;
	snprintf(script, sizeof(script),
		 "%s/../share/mcp-sandbox/scripts/build-images.sh", dir);
	return realpath(script, buf) ? 0 : -1;
}
