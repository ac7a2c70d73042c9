/* core/engine_checks.c: which engines remap the sandbox uid away from the
 * host's accounts, read from GET /info. */
#include <stdlib.h>

#include "core/doctor.h"
#include "core/engine_checks.h"
#include "core/engine_info.h"
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
	runc_versions();
	return t_summary("engine_checks");
}
