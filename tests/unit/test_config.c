/* sandbox.ini parsing: defaults, values, bad lines, env overrides. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/plugins/config.h"
#include "util/log.h"
#include "testlib.h"

static char *write_tmp(const char *text)
{
	static char path[] = "/tmp/sbx-test-config-XXXXXX";
	int fd;

	snprintf(path, sizeof(path), "/tmp/sbx-test-config-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return NULL;
	close(fd);
	return path;
}

static void defaults(void)
{
	struct config c;

	config_init(&c);
	CHECK(c.limits.timeout_ms == 30000);
	CHECK(c.limits.stdout_cap == 4u << 20);
	CHECK(strcmp(c.network, "none") == 0);
	CHECK(c.pool_size == 2);
	CHECK(c.pool_max_size == 8);
	CHECK(c.idle_shrink_s == 60);
	CHECK(c.memory_budget_mb == 1024);
	CHECK(c.nwarm_at_start == 2);
	if (c.nwarm_at_start == 2) {
		CHECK(strcmp(c.warm_at_start[0], "python") == 0);
		CHECK(strcmp(c.warm_at_start[1], "bash") == 0);
	}
	config_close(&c);
}

/* The [pool] sizing keys: list, ranges, per-language ceiling. */
static void pool_keys(void)
{
	struct config c;
	const struct lang_config *js;
	struct error err;
	char *p = write_tmp("[pool]\nwarm_at_start = javascript,  go\n"
			    "max_size = 6\nidle_shrink_s = 5\n"
			    "memory_budget_mb = 256\n"
			    "warm_at_start = Not A Name\nmax_size = 65\n"
			    "[javascript]\npool_max_size = 3\n");

	CHECK(p != NULL);
	config_init(&c);
	CHECK(config_load(&c, p) == 0);
	CHECK(c.problems == 2); /* the bad list and the out-of-range size */
	CHECK(c.nwarm_at_start == 2);
	if (c.nwarm_at_start == 2) {
		CHECK(strcmp(c.warm_at_start[0], "javascript") == 0);
		CHECK(strcmp(c.warm_at_start[1], "go") == 0);
	}
	CHECK(c.pool_max_size == 6);
	CHECK(c.idle_shrink_s == 5);
	CHECK(c.memory_budget_mb == 256);
	js = config_lang(&c, "javascript");
	CHECK(js && js->pool_max_size == 3 && js->pool_size == -1);
	/* An empty list warms nothing at start; "*" warms everything. */
	CHECK(config_set(&c, "pool", "warm_at_start", "", &err) == 0);
	CHECK(c.nwarm_at_start == 0);
	CHECK(config_set(&c, "pool", "warm_at_start", "*", &err) == 0);
	CHECK(c.nwarm_at_start == 1);
	CHECK(config_set(&c, "pool", "idle_shrink_s", "0", &err) == 0);
	CHECK(config_set(&c, "pool", "memory_budget_mb", "0", &err) == 0);
	CHECK(config_set(&c, "python", "pool_max_size", "x", &err) == -EINVAL);
	/* Out of range says the range; the largest file may be any u32, 0
	 * being the /work size. */
	CHECK(config_set(&c, "files", "max_read_bytes", "1", &err) == -EINVAL);
	CHECK_STR_CONTAINS(err.msg, "out of range: 1024 to 16777216");
	CHECK(config_set(&c, "files", "max_write_bytes", "104857600", &err) ==
	      0);
	CHECK(c.files_max_write == 104857600);
	CHECK(config_set(&c, "files", "max_write_bytes", "4294967296", &err) ==
	      -EINVAL);
	CHECK_STR_CONTAINS(err.msg, "0 to 4294967295");
	config_close(&c);
	unlink(p);
}

static void good_and_bad(void)
{
	struct config c;
	const struct lang_config *py;
	char *p = write_tmp(
		"[server]\nlog_level = debug\n"
		"[limits]\ntimeout_ms = 5000\nmemory_mb = abc\nbogus = 1\n"
		"[pool]\nsize = 3\n"
		"[python]\nmemory_mb = 1024\npool_size = 0\nblock = ^import "
		"socket\n"
		"block = [unclosed\nseccomp_deny = ptrace, bpf\nenabled = "
		"maybe\n"
		"[Bad Section]\nx = 1\n");

	CHECK(p != NULL);
	config_init(&c);
	CHECK(config_load(&c, p) == 0);
	CHECK(c.log_level == LOG_LEVEL_DEBUG);
	CHECK(c.limits.timeout_ms == 5000);
	CHECK(c.limits.memory_mb == 512); /* bad value: default kept */
	CHECK(c.pool_size == 3);
	/* memory_mb=abc, bogus, [unclosed, enabled=maybe, [Bad Section] x */
	CHECK(c.problems == 5);
	py = config_lang(&c, "python");
	CHECK(py != NULL);
	if (py) {
		CHECK(py->limits.memory_mb == 1024);
		CHECK(py->pool_size == 0);
		CHECK(py->nblocklist == 1);
		CHECK(py->nseccomp_deny == 2);
		CHECK(py->enabled == -1);
		CHECK(py->line == 10);
	}
	config_close(&c);
	unlink(p);
}

static void env_override(void)
{
	struct config c;
	const char *langs[] = {"python", "python-ml"};
	char *envp[] = {
		"SANDBOX_LIMITS_TIMEOUT_MS=7000",
		"SANDBOX_POOL_SIZE=5",
		"SANDBOX_PYTHON_ML_POOL_SIZE=1",
		"SANDBOX_PYTHON_ML_POOL_MAX_SIZE=3",
		"SANDBOX_POOL_WARM_AT_START=python-ml",
		"SANDBOX_POOL_MEMORY_BUDGET_MB=2048",
		"SANDBOX_PYTHON_MEMORY_MB=2048",
		"SANDBOX_NOPE_X=1",
		"SANDBOX_LIMITS_PIDS=lots",
		"PATH=/bin",
		NULL,
	};

	config_init(&c);
	config_apply_env(&c, envp, langs, 2);
	CHECK(c.limits.timeout_ms == 7000);
	CHECK(c.pool_size == 5);
	CHECK(config_lang(&c, "python-ml") &&
	      config_lang(&c, "python-ml")->pool_size == 1);
	CHECK(config_lang(&c, "python-ml") &&
	      config_lang(&c, "python-ml")->pool_max_size == 3);
	CHECK(c.nwarm_at_start == 1 &&
	      strcmp(c.warm_at_start[0], "python-ml") == 0);
	CHECK(c.memory_budget_mb == 2048);
	CHECK(config_lang(&c, "python") &&
	      config_lang(&c, "python")->limits.memory_mb == 2048);
	CHECK(c.limits.pids == 128);
	CHECK(c.problems == 2);
	config_close(&c);
}

static void missing_file(void)
{
	struct config c;

	config_init(&c);
	CHECK(config_load(&c, "/nonexistent/sandbox.ini") < 0);
	config_close(&c);
}

int main(void)
{
	log_set_level(LOG_LEVEL_EMERGENCY); /* expected complaints stay quiet */
	defaults();
	good_and_bad();
	pool_keys();
	env_override();
	missing_file();
	return t_summary("config");
}
