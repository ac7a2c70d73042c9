/*
 * engine_info.c - the container engine described (engine_info.h).
 */
#include "engine_info.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/docker.h"

struct ask {
	struct docker *d;
	engine_info_cb cb;
	void *arg;
	char *version; /* the /version body */
	cJSON *desc;   /* Podman's, until /libpod/info completes it */
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
	cJSON_AddStringToObject(o, "kind", "docker");
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

/* 1 if the JSON array of strings arr holds s. */
static int has_string(const cJSON *arr, const char *s)
{
	const cJSON *v;

	cJSON_ArrayForEach(v, arr)
	{
		if (cJSON_IsString(v) && strcmp(v->valuestring, s) == 0)
			return 1;
	}
	return 0;
}

int engine_info_podman(cJSON *desc, const char *libpod_json)
{
	static const char *const limits[][2] = {
		{"memory", "memory"}, {"pids", "pids"}, {"cpu", "cpu"}};
	cJSON *lp = libpod_json ? cJSON_Parse(libpod_json) : NULL;
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(lp, "host");
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(host, "security");
	const cJSON *ctl =
		cJSON_GetObjectItemCaseSensitive(host, "cgroupControllers");
	cJSON *en = cJSON_GetObjectItemCaseSensitive(desc, "enforces");
	size_t i;

	if (!cJSON_IsObject(sec) || !cJSON_IsArray(ctl) ||
	    !cJSON_IsObject(en)) {
		cJSON_Delete(lp);
		return -EINVAL;
	}
	cJSON_ReplaceItemInObjectCaseSensitive(desc, "kind",
					       cJSON_CreateString("podman"));
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(desc, "security"), "rootless",
		cJSON_CreateBool(cJSON_IsTrue(
			cJSON_GetObjectItemCaseSensitive(sec, "rootless"))));
	/* A limit holds where /info says so and the controller is the
	 * engine's to use (rootless: those delegated to its user). */
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (!has_string(ctl, limits[i][1]))
			cJSON_ReplaceItemInObjectCaseSensitive(
				en, limits[i][0], cJSON_CreateFalse());
	cJSON_Delete(lp);
	return 0;
}

int engine_info_cannot_limit(const cJSON *desc, struct error *err)
{
	static const char *const limits[] = {"memory", "pids", "cpu"};
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(desc, "enforces");
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(desc, "security");
	const cJSON *cg =
		cJSON_GetObjectItemCaseSensitive(desc, "cgroupVersion");
	size_t i;

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sec, "rootless")) &&
	    cJSON_IsString(cg) && strcmp(cg->valuestring, "1") == 0)
		return error_set(err, -ENOTSUP,
				 "it runs rootless on cgroup v1, where it "
				 "cannot enforce memory and pids limits "
				 "(rootless needs cgroup v2 with the "
				 "controllers delegated)");
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		if (!cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(en, limits[i])))
			return error_set(err, -ENOTSUP,
					 "it cannot enforce %s limits (its "
					 "/info says so)",
					 limits[i]);
	return 0;
}

/* o, or NULL and msg: the engine's failure to describe itself. */
static void ask_end(struct ask *a, cJSON *o, const char *msg)
{
	struct error err;

	if (!o)
		error_set_msg(&err, ERR_DOCKER_UNAVAILABLE, msg);
	a->cb(o ? NULL : &err, o, a->arg);
	free(a->version);
	free(a);
}

static void libpod_cb(const struct docker_response *res, void *arg)
{
	struct ask *a = arg;
	cJSON *o = a->desc;

	if (res->err || res->status != 200 ||
	    engine_info_podman(o, res->body) != 0) {
		cJSON_Delete(o);
		ask_end(a, NULL,
			res->err && res->errmsg
				? res->errmsg
				: "the engine's /libpod/info answer was not "
				  "understood");
		return;
	}
	ask_end(a, o, NULL);
}

static void info_cb(const struct docker_response *res, void *arg)
{
	struct ask *a = arg;
	cJSON *o = NULL;

	if (!res->err && res->status == 200)
		o = engine_info_from(a->version, res->body,
				     docker_endpoint(a->d),
				     docker_api_version(a->d));
	/* Podman's Docker-compatible /info says every limit is enforced,
	 * rootless or not: its own /libpod/info tells. */
	if (o && docker_is_podman(a->d)) {
		a->desc = o;
		if (docker_request(a->d, "GET", "/libpod/info", NULL, 10000,
				   libpod_cb, a) == 0)
			return;
		cJSON_Delete(o);
		ask_end(a, NULL, "cannot ask the engine");
		return;
	}
	ask_end(a, o,
		res->err ? (res->errmsg ? res->errmsg
					: "the engine did not answer")
			 : "the engine's /info answer was not understood");
}

static void version_cb(const struct docker_response *res, void *arg)
{
	struct ask *a = arg;

	if (!res->err && res->status == 200 && res->body)
		a->version = strdup(res->body);
	if (docker_request(a->d, "GET", "/info", NULL, 10000, info_cb, a))
		ask_end(a, NULL, "cannot ask the engine");
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
