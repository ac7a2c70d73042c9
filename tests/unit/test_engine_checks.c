/* core/engine_checks.c: which engines remap the sandbox uid away from the
 * host's accounts, read from GET /info. */
#include "core/engine_checks.h"
#include "testlib.h"

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
	return t_summary("engine_checks");
}
