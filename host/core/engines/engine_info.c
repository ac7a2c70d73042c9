/*
 * engine_info.c - the container engine described (engine_info.h).
 */
#include "engine_info.h"

#include <errno.h>
#include <math.h>
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

static void add_str(cJSON *to, const char *as, const char *v)
{
	if (v)
		cJSON_AddStringToObject(to, as, v);
	else
		cJSON_AddNullToObject(to, as);
}

/* NAN: the engine did not say. */
static void add_num(cJSON *to, const char *as, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(to, as);
	else
		cJSON_AddNumberToObject(to, as, v);
}

cJSON *engine_info_from(const char *version_json, const char *info_json,
			const char *endpoint, const char *api_used)
{
	struct docker_info di;
	cJSON *o, *en, *sec, *rt;

	docker_info_parse(version_json, version_json ? strlen(version_json) : 0,
			  info_json, strlen(info_json), &di);
	if (!di.is_info) {
		docker_info_free(&di);
		return NULL;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "endpoint", endpoint);
	cJSON_AddStringToObject(o, "kind", "docker");
	add_str(o, "version", di.server_version);
	add_str(o, "apiVersion", di.api_version);
	add_str(o, "apiVersionUsed", api_used);
	add_str(o, "os", di.os);
	add_str(o, "kernel", di.kernel);
	add_str(o, "arch", di.arch);
	add_str(o, "cgroupVersion", di.cgroup_version);
	add_str(o, "cgroupDriver", di.cgroup_driver);
	en = cJSON_AddObjectToObject(o, "enforces");
	cJSON_AddBoolToObject(en, "memory", di.memory_limit);
	cJSON_AddBoolToObject(en, "swap", di.swap_limit);
	cJSON_AddBoolToObject(en, "pids", di.pids_limit);
	cJSON_AddBoolToObject(en, "cpu", di.cpu_limit);
	sec = cJSON_AddObjectToObject(o, "security");
	cJSON_AddBoolToObject(sec, "seccomp", di.seccomp);
	cJSON_AddBoolToObject(sec, "userns", di.userns);
	cJSON_AddBoolToObject(sec, "rootless", di.rootless);
	cJSON_AddBoolToObject(sec, "apparmor", di.apparmor);
	cJSON_AddBoolToObject(sec, "selinux", di.selinux);
	rt = cJSON_AddObjectToObject(o, "runtime");
	add_str(rt, "name", di.default_runtime);
	add_str(rt, "runc", di.runc);
	add_str(rt, "containerd", di.containerd);
	add_str(o, "dataRoot", di.data_root);
	add_num(o, "cpus", di.cpus);
	add_num(o, "memoryBytes", di.memory_bytes);
	add_num(o, "containersRunning", di.containers_running);
	add_num(o, "images", di.images);
	docker_info_free(&di);
	return o;
}

int engine_info_podman(cJSON *desc, const char *libpod_json)
{
	struct docker_libpod_info lp;
	cJSON *en = cJSON_GetObjectItemCaseSensitive(desc, "enforces");

	if (docker_libpod_info_parse(libpod_json,
				     libpod_json ? strlen(libpod_json) : 0,
				     &lp) != 0 ||
	    !cJSON_IsObject(en))
		return -EINVAL;
	cJSON_ReplaceItemInObjectCaseSensitive(desc, "kind",
					       cJSON_CreateString("podman"));
	cJSON_ReplaceItemInObjectCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(desc, "security"), "rootless",
		cJSON_CreateBool(lp.rootless));
	/* A limit holds where /info says so and the controller is the
	 * engine's to use (rootless: those delegated to its user). */
	if (!lp.memory)
		cJSON_ReplaceItemInObjectCaseSensitive(en, "memory",
						       cJSON_CreateFalse());
	if (!lp.pids)
		cJSON_ReplaceItemInObjectCaseSensitive(en, "pids",
						       cJSON_CreateFalse());
	if (!lp.cpu)
		cJSON_ReplaceItemInObjectCaseSensitive(en, "cpu",
						       cJSON_CreateFalse());
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
	/* The negotiation's /version answer, when there was one: the
	 * version it describes is the one the client speaks to. */
	if (docker_version_body(d)) {
		if (!(a->version = strdup(docker_version_body(d)))) {
			free(a);
			return -ENOMEM;
		}
		rc = docker_request(d, "GET", "/info", NULL, 10000, info_cb, a);
		if (rc) {
			free(a->version);
			free(a);
		}
		return rc;
	}
	rc = docker_request(d, "GET", "/version", NULL, 10000, version_cb, a);
	if (rc)
		free(a);
	return rc;
}
