/*
 * engine_info.c - the container engine described (engine_info.h).
 */
#include "engine_info.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/docker.h"

struct ask {
	struct docker *d;
	engine_info_cb cb;
	void *arg;
	char *version; /* the /version body */
};

static void copy_str(cJSON *to, const char *as, const cJSON *from,
		     const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);

	if (cJSON_IsString(v))
		cJSON_AddStringToObject(to, as, v->valuestring);
	else
		cJSON_AddNullToObject(to, as);
}

static void copy_bool(cJSON *to, const char *as, const cJSON *from,
		      const char *key)
{
	cJSON_AddBoolToObject(
		to, as,
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(from, key)));
}

static void copy_num(cJSON *to, const char *as, const cJSON *from,
		     const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(from, key);

	if (cJSON_IsNumber(v))
		cJSON_AddNumberToObject(to, as, v->valuedouble);
	else
		cJSON_AddNullToObject(to, as);
}

/* A component's version in /version's Components ("runc", "containerd"). */
static void component(cJSON *to, const char *as, const cJSON *version,
		      const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(
		c, cJSON_GetObjectItemCaseSensitive(version, "Components"))
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "Name");
		const cJSON *details =
			cJSON_GetObjectItemCaseSensitive(c, "Details");
		const cJSON *commit =
			cJSON_GetObjectItemCaseSensitive(details, "GitCommit");
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "Version");

		if (!cJSON_IsString(n) || strcmp(n->valuestring, name) != 0)
			continue;
		/* Debian's packages name their patch level in the commit:
		 * 1.1.5+ds1-1+deb12u1 says more than 1.1.5+ds1. */
		if (cJSON_IsString(commit) && commit->valuestring[0] &&
		    strchr(commit->valuestring, '.'))
			cJSON_AddStringToObject(to, as, commit->valuestring);
		else if (cJSON_IsString(v))
			cJSON_AddStringToObject(to, as, v->valuestring);
		else
			break;
		return;
	}
	cJSON_AddNullToObject(to, as);
}

cJSON *engine_info_from(const char *version_json, const char *info_json,
			const char *endpoint, const char *api_used)
{
	cJSON *info = cJSON_Parse(info_json);
	cJSON *version = version_json ? cJSON_Parse(version_json) : NULL;
	cJSON *o, *en, *sec, *rt;
	const cJSON *opt, *cg;
	int seccomp = 0, userns = 0, rootless = 0, apparmor = 0, selinux = 0;

	if (!cJSON_IsObject(info) ||
	    !cJSON_GetObjectItemCaseSensitive(info, "ServerVersion")) {
		cJSON_Delete(info);
		cJSON_Delete(version);
		return NULL;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "endpoint", endpoint);
	copy_str(o, "version", info, "ServerVersion");
	copy_str(o, "apiVersion", version, "ApiVersion");
	if (api_used)
		cJSON_AddStringToObject(o, "apiVersionUsed", api_used);
	else
		cJSON_AddNullToObject(o, "apiVersionUsed");
	copy_str(o, "os", info, "OperatingSystem");
	copy_str(o, "kernel", info, "KernelVersion");
	copy_str(o, "arch", info, "Architecture");
	/* Engines before API 1.40 do not say: they ran cgroup v1. */
	cg = cJSON_GetObjectItemCaseSensitive(info, "CgroupVersion");
	cJSON_AddStringToObject(o, "cgroupVersion",
				cJSON_IsString(cg) ? cg->valuestring : "1");
	copy_str(o, "cgroupDriver", info, "CgroupDriver");
	en = cJSON_AddObjectToObject(o, "enforces");
	copy_bool(en, "memory", info, "MemoryLimit");
	copy_bool(en, "swap", info, "SwapLimit");
	copy_bool(en, "pids", info, "PidsLimit");
	copy_bool(en, "cpu", info, "CpuCfsQuota");
	cJSON_ArrayForEach(
		opt, cJSON_GetObjectItemCaseSensitive(info, "SecurityOptions"))
	{
		const char *s = cJSON_IsString(opt) ? opt->valuestring : "";

		seccomp |= strncmp(s, "name=seccomp", 12) == 0;
		userns |= strcmp(s, "name=userns") == 0;
		rootless |= strcmp(s, "name=rootless") == 0;
		apparmor |= strcmp(s, "name=apparmor") == 0;
		selinux |= strcmp(s, "name=selinux") == 0;
	}
	sec = cJSON_AddObjectToObject(o, "security");
	cJSON_AddBoolToObject(sec, "seccomp", seccomp);
	cJSON_AddBoolToObject(sec, "userns", userns);
	cJSON_AddBoolToObject(sec, "rootless", rootless);
	cJSON_AddBoolToObject(sec, "apparmor", apparmor);
	cJSON_AddBoolToObject(sec, "selinux", selinux);
	rt = cJSON_AddObjectToObject(o, "runtime");
	copy_str(rt, "name", info, "DefaultRuntime");
	component(rt, "runc", version, "runc");
	component(rt, "containerd", version, "containerd");
	copy_str(o, "dataRoot", info, "DockerRootDir");
	copy_num(o, "cpus", info, "NCPU");
	copy_num(o, "memoryBytes", info, "MemTotal");
	copy_num(o, "containersRunning", info, "ContainersRunning");
	copy_num(o, "images", info, "Images");
	cJSON_Delete(info);
	cJSON_Delete(version);
	return o;
}

static void info_cb(const struct docker_response *res, void *arg)
{
	struct ask *a = arg;
	cJSON *o = NULL;

	if (!res->err && res->status == 200)
		o = engine_info_from(a->version, res->body,
				     docker_endpoint(a->d),
				     docker_api_version(a->d));
	a->cb(o,
	      o		 ? NULL
	      : res->err ? (res->errmsg ? res->errmsg
					: "the engine did not answer")
			 : "the engine's /info answer was not understood",
	      a->arg);
	free(a->version);
	free(a);
}

static void version_cb(const struct docker_response *res, void *arg)
{
	struct ask *a = arg;

	if (!res->err && res->status == 200 && res->body)
		a->version = strdup(res->body);
	if (docker_request(a->d, "GET", "/info", NULL, 10000, info_cb, a)) {
		a->cb(NULL, "cannot ask the engine", a->arg);
		free(a->version);
		free(a);
	}
}

int engine_info_get(struct docker *d, engine_info_cb cb, void *arg)
{
	struct ask *a = calloc(1, sizeof(*a));
	int rc;

	if (!a)
		return -ENOMEM;
	a->d = d;
	a->cb = cb;
	a->arg = arg;
	rc = docker_request(d, "GET", "/version", NULL, 10000, version_cb, a);
	if (rc)
		free(a);
	return rc;
}
