/*
 * seccomp_profile.c - the Docker seccomp profile (seccomp_profile.h).
 *
 * The agent loads the same floor again before it execs user code; where
 * both deny a call, user code sees the agent's errno (the kernel keeps the
 * most recent filter's answer among equal actions).
 */
#include "seccomp_profile.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "seccomp_floor.h"

/* Far above the highest syscall number of any architecture here. */
#define MAX_NR 1024

static const char *arch_name(uint32_t arch)
{
	switch (arch) {
	case SCMP_ARCH_X86_64:
		return "SCMP_ARCH_X86_64";
	case SCMP_ARCH_AARCH64:
		return "SCMP_ARCH_AARCH64";
	default:
		return NULL;
	}
}

static int listed(const char *const *v, const char *name)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		if (strcmp(v[i], name) == 0)
			return 1;
	return 0;
}

/* {"names": [name], "action": ..., "args": [one masked comparison]} */
static void add_masked(cJSON *calls, const char *name, const char *action,
		       unsigned arg, uint64_t mask, uint64_t value)
{
	cJSON *c = cJSON_CreateObject(), *a, *args;

	cJSON_AddItemToArray(calls, c);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(c, "names"),
			     cJSON_CreateString(name));
	cJSON_AddStringToObject(c, "action", action);
	args = cJSON_AddArrayToObject(c, "args");
	a = cJSON_CreateObject();
	cJSON_AddItemToArray(args, a);
	cJSON_AddNumberToObject(a, "index", arg);
	cJSON_AddNumberToObject(a, "value", (double)mask);
	cJSON_AddNumberToObject(a, "valueTwo", (double)value);
	cJSON_AddStringToObject(a, "op", "SCMP_CMP_MASKED_EQ");
}

static cJSON *add_rule(cJSON *calls, const char *action, int err)
{
	cJSON *c = cJSON_CreateObject();

	cJSON_AddItemToArray(calls, c);
	cJSON_AddItemToObject(c, "names", cJSON_CreateArray());
	cJSON_AddStringToObject(c, "action", action);
	if (err)
		cJSON_AddNumberToObject(c, "errnoRet", err);
	return cJSON_GetObjectItemCaseSensitive(c, "names");
}

char *seccomp_profile_json(const char *const *extra, struct error *err)
{
	uint32_t arch = seccomp_arch_native();
	const char *an = arch_name(arch);
	const struct floor_rule *r;
	cJSON *root, *calls, *allow, *deny, *nosys;
	char *out;
	size_t i;
	int nr;

	if (!an) {
		error_set(err, -ENOTSUP,
			  "no seccomp profile for this architecture");
		return NULL;
	}
	root = cJSON_CreateObject();
	if (!root) {
		error_set(err, -ENOMEM, NULL);
		return NULL;
	}
	cJSON_AddStringToObject(root, "defaultAction", "SCMP_ACT_ERRNO");
	/* Honoured by newer engines: the C library falls back on ENOSYS. */
	cJSON_AddNumberToObject(root, "defaultErrnoRet", ENOSYS);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(root, "architectures"),
			     cJSON_CreateString(an));
	calls = cJSON_AddArrayToObject(root, "syscalls");
	allow = add_rule(calls, "SCMP_ACT_ALLOW", 0);
	deny = add_rule(calls, "SCMP_ACT_ERRNO", SBX_SECCOMP_ERRNO);
	nosys = add_rule(calls, "SCMP_ACT_ERRNO", ENOSYS);
	for (nr = 0; nr < MAX_NR; nr++) {
		char *name = seccomp_syscall_resolve_num_arch(arch, nr);

		if (!name)
			continue;
		if (!floor_mentions(name) && !listed(extra, name))
			cJSON_AddItemToArray(allow, cJSON_CreateString(name));
		free(name);
	}
	for (r = floor_rules; r->name; r++) {
		switch (r->kind) {
		case FLOOR_DENY:
			cJSON_AddItemToArray(r->err == ENOSYS ? nosys : deny,
					     cJSON_CreateString(r->name));
			break;
		case FLOOR_ALLOW_EQ:
			for (i = 0; i < r->nv; i++)
				add_masked(calls, r->name, "SCMP_ACT_ALLOW",
					   r->arg, 0xffffffffULL, r->v[i]);
			break;
		case FLOOR_ALLOW_CLEAR:
			add_masked(calls, r->name, "SCMP_ACT_ALLOW", r->arg,
				   r->mask, 0);
			break;
		}
	}
	for (i = 0; extra && extra[i]; i++)
		if (!floor_mentions(extra[i]))
			cJSON_AddItemToArray(deny,
					     cJSON_CreateString(extra[i]));
	out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!out)
		error_set(err, -ENOMEM, NULL);
	return out;
}

int seccomp_profile_file(const char *json, const char *dir, char **path,
			 struct error *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;
	char name[2 * EVP_MAX_MD_SIZE + 1], *p, *tmp;
	size_t len = strlen(json), plen;
	int fd, rc = 0;

	*path = NULL;
	if (!EVP_Digest(json, len, md, &mdlen, EVP_sha256(), NULL))
		return error_set(err, -EIO, "cannot hash the seccomp profile");
	for (i = 0; i < mdlen; i++)
		snprintf(name + 2 * (size_t)i, 3, "%02x", md[i]);
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		rc = -errno;
		return error_set(err, rc, "%s: %s", dir, strerror(-rc));
	}
	plen = strlen(dir) + strlen(name) + sizeof("/.json.tmp");
	p = malloc(plen);
	tmp = malloc(plen);
	if (!p || !tmp) {
		free(p);
		free(tmp);
		return error_set(err, -ENOMEM, "out of memory");
	}
	snprintf(p, plen, "%s/%s.json", dir, name);
	snprintf(tmp, plen, "%s/%s.json.tmp", dir, name);
	if (access(p, R_OK) == 0)
		goto done; /* named by its content: it is this one */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, json, len) != (ssize_t)len || fsync(fd) != 0 ||
	    close(fd) != 0 || rename(tmp, p) != 0) {
		rc = errno ? -errno : -EIO;
		error_set(err, rc, "%s: %s", p, strerror(-rc));
		if (fd >= 0)
			close(fd);
		unlink(tmp);
	}
done:
	free(tmp);
	if (rc) {
		free(p);
		return rc;
	}
	*path = p;
	return 0;
}
