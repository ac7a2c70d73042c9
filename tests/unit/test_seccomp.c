/* common/seccomp_floor.c and core/engines/seccomp_profile.c: the floor's deny
 * conditions match exactly the values it refuses, and the Docker profile
 * allows every other syscall, denies the floor and a plugin's additions,
 * and names the native architecture only. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/engines/seccomp_profile.h"
#include "seccomp_floor.h"
#include "testlib.h"

static const struct floor_rule *rule(const char *name)
{
	const struct floor_rule *r;

	for (r = floor_rules; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return r;
	return NULL;
}

/* Is a syscall with argument a refused by rule r's conditions? */
static int refused(const struct floor_rule *r, uint64_t a)
{
	struct floor_cond c[128];
	int n = floor_conditions(r, c, 128), i;

	for (i = 0; i < n; i++)
		if ((a & c[i].mask) == c[i].value)
			return 1;
	return 0;
}

static void check_conditions(void)
{
	const struct floor_rule *sock = rule("socket");
	const struct floor_rule *pers = rule("personality");
	const struct floor_rule *uns = rule("unshare");
	const struct floor_rule *clo = rule("clone");
	struct floor_cond few[2];
	uint64_t a;
	int bad = 0;

	CHECK(sock && pers && uns && clo && rule("io_uring_setup"));
	if (!sock || !pers || !uns || !clo)
		return;
	/* socket: AF_UNIX, AF_INET, AF_INET6, whatever the upper half. */
	for (a = 0; a < 4096; a++)
		bad += refused(sock, a) != !(a == 1 || a == 2 || a == 10);
	CHECK(bad == 0);
	CHECK(refused(sock, 40));		       /* AF_VSOCK */
	CHECK(refused(sock, 17) && refused(sock, 16)); /* packet, netlink */
	CHECK(refused(sock, 0xffffffffULL) && refused(sock, 0x80000002ULL));
	CHECK(!refused(sock, 0x100000002ULL)); /* the kernel reads an int */
	/* personality: the default domain and the query only. */
	CHECK(!refused(pers, 0) && !refused(pers, 0xffffffffULL));
	CHECK(refused(pers, 0x0040000) /* ADDR_NO_RANDOMIZE */ &&
	      refused(pers, 0x0400000) /* READ_IMPLIES_EXEC */ &&
	      refused(pers, 8) && refused(pers, 1) &&
	      refused(pers, 0xfffffffeULL) && refused(pers, 0x80000000ULL) &&
	      refused(pers, 0x7fffffffULL));
	/* unshare and clone: any namespace flag; clone's exit signal and
	 * thread flags pass. */
	CHECK(refused(uns, 0x10000000) && refused(uns, 0x80) &&
	      refused(uns, 0x20000 | 0x400));
	CHECK(!refused(uns, 0x400 /* CLONE_FILES */) && !refused(uns, 0));
	CHECK(!refused(clo, 0x3d0f00 | 17 /* pthread_create */) &&
	      !refused(clo, 0x01200011 /* fork */));
	CHECK(refused(clo, 0x40000000 | 17) && refused(clo, 0x10000000));
	CHECK(floor_conditions(sock, few, 2) == -ENOSPC);
	CHECK(floor_mentions("bpf") && floor_mentions("clone3") &&
	      !floor_mentions("read"));
}

static int has(const cJSON *names, const char *name)
{
	const cJSON *n;

	cJSON_ArrayForEach(n, names) if (cJSON_IsString(n) &&
					 strcmp(n->valuestring, name) ==
						 0) return 1;
	return 0;
}

/* The names of the rule with this action and errno (0: any). */
static const cJSON *names_of(const cJSON *root, const char *action, int err)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "syscalls"))
	{
		const cJSON *a = cJSON_GetObjectItem(c, "action");
		const cJSON *e = cJSON_GetObjectItem(c, "errnoRet");

		if (cJSON_GetObjectItem(c, "args") ||
		    strcmp(cJSON_GetStringValue(a), action) != 0)
			continue;
		if (!err || (e && e->valueint == err))
			return cJSON_GetObjectItem(c, "names");
	}
	return NULL;
}

static void check_profile(void)
{
	const char *extra[] = {"mbind", "flock", NULL};
	struct error err = {0};
	char *text = seccomp_profile_json(extra, &err);
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *allow, *deny, *nosys, *c, *arch;
	int socket_rules = 0;

	CHECK(root != NULL && err.code == 0);
	if (!root) {
		free(text);
		return;
	}
	arch = cJSON_GetObjectItem(root, "architectures");
	CHECK(cJSON_GetArraySize(arch) == 1);
	CHECK(strcmp(cJSON_GetStringValue(
			     cJSON_GetObjectItem(root, "defaultAction")),
		     "SCMP_ACT_ERRNO") == 0);
	allow = names_of(root, "SCMP_ACT_ALLOW", 0);
	deny = names_of(root, "SCMP_ACT_ERRNO", SBX_SECCOMP_ERRNO);
	nosys = names_of(root, "SCMP_ACT_ERRNO", ENOSYS);
	CHECK(allow && cJSON_GetArraySize(allow) > 250);
	CHECK(has(allow, "read") && has(allow, "execve") &&
	      has(allow, "faccessat2") &&
	      has(allow, "landlock_create_ruleset"));
	CHECK(!has(allow, "io_uring_setup") && !has(allow, "ptrace") &&
	      !has(allow, "socket") && !has(allow, "clone") &&
	      !has(allow, "clone3") && !has(allow, "mbind") &&
	      !has(allow, "flock"));
	CHECK(has(deny, "io_uring_setup") && has(deny, "bpf") &&
	      has(deny, "open_by_handle_at") && has(deny, "mbind") &&
	      has(deny, "flock") && !has(deny, "clone3"));
	CHECK(has(nosys, "clone3"));
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "syscalls"))
	{
		const cJSON *a =
			cJSON_GetArrayItem(cJSON_GetObjectItem(c, "args"), 0);

		if (a && has(cJSON_GetObjectItem(c, "names"), "socket")) {
			socket_rules++;
			CHECK(cJSON_GetObjectItem(a, "value")->valuedouble ==
			      4294967295.0);
		}
	}
	CHECK(socket_rules == 3);
	cJSON_Delete(root);
	free(text);
}

int main(void)
{
	check_conditions();
	check_profile();
	return t_summary("seccomp");
}
