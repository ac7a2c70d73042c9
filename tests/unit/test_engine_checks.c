/* core/engines/engine_checks.c: which engines remap the sandbox uid away from
 * the host's accounts, read from GET /info. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/doctor.h"
#include "core/engines/engine_checks.h"
#include "core/engines/engine_info.h"
#include "testlib.h"

/* The engine described from its /version and /info answers (as Docker
 * 20.10 of Debian 12 gives them, shortened). */
static void describe(void)
{
	static const char version[] =
		"{\"Version\":\"20.10.24+dfsg1\",\"ApiVersion\":\"1.41\","
		"\"Components\":[{\"Name\":\"Engine\",\"Version\":\"20.10."
		"24\"},{\"Name\":\"runc\",\"Version\":\"1.1.5+ds1\","
		"\"Details\":{\"GitCommit\":\"1.1.5+ds1-1+deb12u1\"}},{"
		"\"Name\":\"containerd\",\"Version\":\"1.6.20~ds1\","
		"\"Details\":{\"GitCommit\":\"\"}}]}";
	static const char info[] =
		"{\"ServerVersion\":\"20.10.24+dfsg1\",\"CgroupVersion\":\"1\","
		"\"CgroupDriver\":\"cgroupfs\",\"MemoryLimit\":true,"
		"\"SwapLimit\":false,\"PidsLimit\":true,\"CpuCfsQuota\":true,"
		"\"SecurityOptions\":[\"name=seccomp,profile=default\","
		"\"name=userns\"],\"DefaultRuntime\":\"runc\","
		"\"DockerRootDir\":\"/var/lib/docker\",\"NCPU\":2}";
	cJSON *o = engine_info_from(version, info, "unix:///x.sock", "1.41");
	char *s = o ? cJSON_PrintUnformatted(o) : NULL;

	CHECK_STR_CONTAINS(s, "\"version\":\"20.10.24+dfsg1\","
			      "\"apiVersion\":\"1.41\"");
	CHECK_STR_CONTAINS(s, "\"cgroupVersion\":\"1\"");
	CHECK_STR_CONTAINS(s, "\"enforces\":{\"memory\":true,\"swap\":false,"
			      "\"pids\":true,\"cpu\":true}");
	CHECK_STR_CONTAINS(s, "\"seccomp\":true,\"userns\":true,"
			      "\"rootless\":false");
	/* Debian's patch level, from the commit field; else the version */
	CHECK_STR_CONTAINS(s, "\"runtime\":{\"name\":\"runc\","
			      "\"runc\":\"1.1.5+ds1-1+deb12u1\","
			      "\"containerd\":\"1.6.20~ds1\"}");
	CHECK_STR_CONTAINS(s, "\"cpus\":2,\"memoryBytes\":null");
	free(s);
	cJSON_Delete(o);
	/* An engine too old to name its cgroup version ran v1. */
	o = engine_info_from(NULL, "{\"ServerVersion\":\"19.03\"}", "x", NULL);
	s = o ? cJSON_PrintUnformatted(o) : NULL;
	CHECK_STR_CONTAINS(s, "\"cgroupVersion\":\"1\"");
	CHECK_STR_CONTAINS(s, "\"runc\":null");
	free(s);
	cJSON_Delete(o);
	CHECK(engine_info_from(NULL, "{\"message\":\"no\"}", "x", NULL) ==
	      NULL);
	CHECK(engine_info_from(NULL, "not json", "x", NULL) == NULL);
}

/* Which container-escape fixes a runc version lacks. */
static void runc_versions(void)
{
	static const struct {
		const char *version, *missing;
	} cases[] = {
		{"1.1.5+ds1-1+deb12u1",
		 "CVE-2025-31133 CVE-2025-52565 CVE-2025-52881"},
		{"1.1.5+ds1-1+deb12u2",
		 "CVE-2025-31133 CVE-2025-52565 CVE-2025-52881"},
		{"1.1.5+ds1-1", "CVE-2024-21626 CVE-2025-31133 CVE-2025-52565 "
				"CVE-2025-52881"},
		{"1.1.11", "CVE-2024-21626 CVE-2025-31133 CVE-2025-52565 "
			   "CVE-2025-52881"},
		{"1.1.12", "CVE-2025-31133 CVE-2025-52565 CVE-2025-52881"},
		{"1.2.7", "CVE-2025-31133 CVE-2025-52565 CVE-2025-52881"},
		{"1.2.8", ""},
		{"1.3.2", "CVE-2025-31133 CVE-2025-52565 CVE-2025-52881"},
		{"1.3.3", ""},
		{"1.4.0", ""},
		{"1.5.1", ""},
	};
	char buf[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		doctor_runc_missing(cases[i].version, buf, sizeof(buf));
		if (strcmp(buf, cases[i].missing) != 0)
			fprintf(stderr, "runc %s: '%s'\n", cases[i].version,
				buf);
		CHECK(strcmp(buf, cases[i].missing) == 0);
	}
}

/* Which engines the server refuses: those that cannot enforce the limits
 * (engines.c). */
static void limits(void)
{
	static const struct {
		const char *info; /* the /info fields that matter */
		int refused;
		const char *why;
	} cases[] = {
		/* Debian 12's dockerd, root, cgroup v1: swap is not needed */
		{"\"CgroupVersion\":\"1\",\"MemoryLimit\":true,\"SwapLimit\":"
		 "false,\"PidsLimit\":true,\"CpuCfsQuota\":true",
		 0, ""},
		/* rootless Podman or Docker on cgroup v1: the controllers
		 * exist, but it may not use them */
		{"\"CgroupVersion\":\"1\",\"MemoryLimit\":true,\"PidsLimit\":"
		 "true,\"CpuCfsQuota\":true,\"SecurityOptions\":[\"name="
		 "rootless\"]",
		 1, "rootless on cgroup v1"},
		/* rootless on cgroup v2 with delegation: fine */
		{"\"CgroupVersion\":\"2\",\"MemoryLimit\":true,\"PidsLimit\":"
		 "true,\"CpuCfsQuota\":true,\"SecurityOptions\":[\"name="
		 "rootless\"]",
		 0, ""},
		{"\"CgroupVersion\":\"2\",\"MemoryLimit\":false,"
		 "\"PidsLimit\":true,\"CpuCfsQuota\":true",
		 1, "cannot enforce memory limits"},
		{"\"CgroupVersion\":\"2\",\"MemoryLimit\":true,\"PidsLimit\":"
		 "false,\"CpuCfsQuota\":true",
		 1, "cannot enforce pids limits"},
		/* an engine that does not say cannot be trusted to */
		{"\"CgroupVersion\":\"2\",\"MemoryLimit\":true,\"PidsLimit\":"
		 "true",
		 1, "cannot enforce cpu limits"},
	};
	char info[512];
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *o;

		snprintf(info, sizeof(info), "{\"ServerVersion\":\"x\",%s}",
			 cases[i].info);
		o = engine_info_from(NULL, info, "x", NULL);
		err.msg[0] = '\0';
		CHECK(o && (engine_info_cannot_limit(o, &err) == -ENOTSUP) ==
				   cases[i].refused);
		CHECK_STR_CONTAINS(err.msg, cases[i].why);
		cJSON_Delete(o);
	}
}

/* Podman's own /libpod/info corrects its Docker-compatible /info, which
 * claims every limit (engine_info_podman). */
static void podman(void)
{
	static const char compat[] =
		"{\"ServerVersion\":\"4.3.1\",\"CgroupVersion\":\"1\","
		"\"MemoryLimit\":true,\"PidsLimit\":true,\"CpuCfsQuota\":true,"
		"\"SecurityOptions\":[\"name=seccomp,profile=default\"]}";
	static const struct {
		const char *libpod;
		int refused;
		const char *why;
	} cases[] = {
		/* root on cgroup v1: every controller */
		{"{\"host\":{\"security\":{\"rootless\":false},"
		 "\"cgroupControllers\":[\"cpu\",\"memory\",\"pids\"]}}",
		 0, ""},
		/* rootless on cgroup v1: none of them is its own */
		{"{\"host\":{\"security\":{\"rootless\":true},"
		 "\"cgroupControllers\":[]}}",
		 1, "rootless on cgroup v1"},
		/* a controller missing */
		{"{\"host\":{\"security\":{\"rootless\":false},"
		 "\"cgroupControllers\":[\"cpu\",\"memory\"]}}",
		 1, "cannot enforce pids limits"},
	};
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *o = engine_info_from(NULL, compat, "x", NULL);

		CHECK(o && engine_info_podman(o, cases[i].libpod) == 0);
		CHECK_STR_CONTAINS(
			cJSON_GetStringValue(cJSON_GetObjectItem(o, "kind")),
			"podman");
		err.msg[0] = '\0';
		CHECK((engine_info_cannot_limit(o, &err) == -ENOTSUP) ==
		      cases[i].refused);
		CHECK_STR_CONTAINS(err.msg, cases[i].why);
		cJSON_Delete(o);
	}
	{
		cJSON *o = engine_info_from(NULL, compat, "x", NULL);

		CHECK_STR_CONTAINS(
			cJSON_GetStringValue(cJSON_GetObjectItem(o, "kind")),
			"docker");
		CHECK(engine_info_podman(o, "{\"message\":\"no\"}") == -EINVAL);
		CHECK(engine_info_podman(o, "not json") == -EINVAL);
		cJSON_Delete(o);
	}
}

int main(void)
{
	CHECK(engine_info_remaps_users("{\"SecurityOptions\":[\"name=seccomp,"
				       "profile=default\"]}") == 0);
	CHECK(engine_info_remaps_users(
		      "{\"SecurityOptions\":[\"name=seccomp,profile=default\","
		      "\"name=userns\"]}") == 1);
	CHECK(engine_info_remaps_users("{\"SecurityOptions\":[\"name="
				       "rootless\",\"name=cgroupns\"]"
				       "}") == 1);
	CHECK(engine_info_remaps_users("{\"SecurityOptions\":[]}") == 0);
	CHECK(engine_info_remaps_users("{\"ID\":\"x\"}") == -1);
	CHECK(engine_info_remaps_users("not json") == -1);
	describe();
	limits();
	podman();
	runc_versions();
	return t_summary("engine_checks");
}
