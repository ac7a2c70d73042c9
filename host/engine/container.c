/*
 * container.c - hardened container create/start/remove over the Engine API.
 */
#include "container.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"

#define LOG_MODULE "container"

/* The agent is the only root process in the container. It needs exactly
 * these to drop to uid 1000, clear the bounding set of user code and kill
 * what user code leaves behind; user code itself holds no capability. */
static const char *const agent_caps[] = { "SETUID", "SETGID", "SETPCAP",
					  "KILL", NULL };

static void add_ulimit(cJSON *arr, const char *name, long long v)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddStringToObject(u, "Name", name);
	cJSON_AddNumberToObject(u, "Soft", (double)v);
	cJSON_AddNumberToObject(u, "Hard", (double)v);
	cJSON_AddItemToArray(arr, u);
}

char *container_spec_json(const struct container_spec *s)
{
	cJSON *root = cJSON_CreateObject(), *hc, *labels, *arr, *tmpfs, *log;
	char buf[256];
	size_t i;
	char *out;

	cJSON_AddStringToObject(root, "Image", s->image);
	cJSON_AddStringToObject(root, "User", "0");
	cJSON_AddStringToObject(root, "WorkingDir", "/work");
	cJSON_AddBoolToObject(root, "AttachStdin", 1);
	cJSON_AddBoolToObject(root, "AttachStdout", 1);
	cJSON_AddBoolToObject(root, "AttachStderr", 1);
	cJSON_AddBoolToObject(root, "OpenStdin", 1);
	cJSON_AddBoolToObject(root, "StdinOnce", 0);
	cJSON_AddBoolToObject(root, "Tty", 0);
	cJSON_AddBoolToObject(root, "NetworkDisabled",
			      strcmp(s->network, "none") == 0);
	labels = cJSON_AddObjectToObject(root, "Labels");
	for (i = 0; s->labels && s->labels[i]; i++) {
		const char *eq = strchr(s->labels[i], '=');
		size_t kl = eq ? (size_t)(eq - s->labels[i]) : 0;

		if (!eq || kl >= sizeof(buf))
			continue;
		memcpy(buf, s->labels[i], kl);
		buf[kl] = '\0';
		cJSON_AddStringToObject(labels, buf, eq + 1);
	}

	hc = cJSON_AddObjectToObject(root, "HostConfig");
	cJSON_AddStringToObject(hc, "NetworkMode", s->network);
	cJSON_AddBoolToObject(hc, "ReadonlyRootfs", 1);
	cJSON_AddBoolToObject(hc, "Privileged", 0);
	cJSON_AddBoolToObject(hc, "Init", 0);
	cJSON_AddStringToObject(hc, "IpcMode", "private");
	arr = cJSON_AddArrayToObject(hc, "CapDrop");
	cJSON_AddItemToArray(arr, cJSON_CreateString("ALL"));
	arr = cJSON_AddArrayToObject(hc, "CapAdd");
	for (i = 0; agent_caps[i]; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(agent_caps[i]));
	arr = cJSON_AddArrayToObject(hc, "SecurityOpt");
	cJSON_AddItemToArray(arr, cJSON_CreateString("no-new-privileges"));
	cJSON_AddNumberToObject(hc, "Memory",
				(double)s->memory_mb * 1024.0 * 1024.0);
	cJSON_AddNumberToObject(hc, "MemorySwap",
				(double)s->memory_mb * 1024.0 * 1024.0);
	cJSON_AddNumberToObject(hc, "NanoCpus", (double)s->cpu_millis * 1e6);
	cJSON_AddNumberToObject(hc, "PidsLimit", (double)s->pids);
	cJSON_AddNumberToObject(hc, "ShmSize",
				(double)s->shm_mb * 1024.0 * 1024.0);
	arr = cJSON_AddArrayToObject(hc, "Ulimits");
	add_ulimit(arr, "nofile", s->nofile);
	add_ulimit(arr, "fsize", (long long)s->fsize_mb * 1024 * 1024);
	add_ulimit(arr, "core", 0);
	tmpfs = cJSON_AddObjectToObject(hc, "Tmpfs");
	snprintf(buf, sizeof(buf),
		 "rw,exec,nosuid,nodev,size=%um,uid=1000,gid=1000,mode=0700",
		 s->work_mb);
	cJSON_AddStringToObject(tmpfs, "/work", buf);
	snprintf(buf, sizeof(buf), "rw,noexec,nosuid,nodev,size=%um,mode=1777",
		 s->tmp_mb);
	cJSON_AddStringToObject(tmpfs, "/tmp", buf);
	/* The agent speaks over attach; nothing needs the container's log. */
	log = cJSON_AddObjectToObject(hc, "LogConfig");
	cJSON_AddStringToObject(log, "Type", "none");

	out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
}

struct run_req {
	struct docker *d;
	container_cb cb;
	void *arg;
	char id[80];
	char *errmsg;
};

static void run_finish(struct run_req *r, int err, const char *msg)
{
	r->cb(err, msg, err ? NULL : r->id, r->arg);
	free(r->errmsg);
	free(r);
}

static void run_removed_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;

	(void)res;
	run_finish(r, -EIO, r->errmsg ? r->errmsg : "container start failed");
}

static void run_started_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;
	char path[160];

	if (res->err == 0 && (res->status == 204 || res->status == 304)) {
		run_finish(r, 0, NULL);
		return;
	}
	r->errmsg = strdup(res->errmsg ? res->errmsg : "start failed");
	snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", r->id);
	if (docker_request(r->d, "DELETE", path, NULL, 0, run_removed_cb, r))
		run_finish(r, -EIO, r->errmsg);
}

static void run_created_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;
	cJSON *body, *id;
	char path[160];

	if (res->err || res->status != 201) {
		run_finish(r, res->err ? -ENODEV :
			      (res->status == 404 ? -ENOENT : -EIO),
			   res->errmsg ? res->errmsg : "container create failed");
		return;
	}
	body = cJSON_ParseWithLength(res->body, res->body_len);
	id = cJSON_GetObjectItemCaseSensitive(body, "Id");
	if (!cJSON_IsString(id) || strlen(id->valuestring) >= sizeof(r->id)) {
		cJSON_Delete(body);
		run_finish(r, -EPROTO, "container create: no Id in reply");
		return;
	}
	snprintf(r->id, sizeof(r->id), "%s", id->valuestring);
	cJSON_Delete(body);
	snprintf(path, sizeof(path), "/containers/%s/start", r->id);
	if (docker_request(r->d, "POST", path, NULL, 0, run_started_cb, r))
		run_finish(r, -EIO, "container start: request failed");
}

int container_run(struct docker *d, const struct container_spec *spec,
		  container_cb cb, void *arg)
{
	struct run_req *r;
	char *body;
	int rc;

	r = calloc(1, sizeof(*r));
	body = container_spec_json(spec);
	if (!r || !body) {
		free(r);
		free(body);
		return -ENOMEM;
	}
	r->d = d;
	r->cb = cb;
	r->arg = arg;
	rc = docker_request(d, "POST", "/containers/create", body, 0,
			    run_created_cb, r);
	free(body);
	if (rc)
		free(r);
	return rc;
}

struct simple_req {
	container_cb cb;
	void *arg;
	char id[80];
};

static void removed_cb(const struct docker_response *res, void *arg)
{
	struct simple_req *r = arg;
	int err = res->err;

	if (!err && res->status >= 300 && res->status != 404)
		err = -EIO;
	if (err)
		log_warn("removing container %.12s: %s", r->id,
			 res->errmsg ? res->errmsg : "failed");
	if (r->cb)
		r->cb(err, res->errmsg, r->id, r->arg);
	free(r);
}

int container_remove(struct docker *d, const char *id, container_cb cb,
		     void *arg)
{
	struct simple_req *r = calloc(1, sizeof(*r));
	char path[160];
	int rc;

	if (!r)
		return -ENOMEM;
	r->cb = cb;
	r->arg = arg;
	snprintf(r->id, sizeof(r->id), "%s", id);
	snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", id);
	rc = docker_request(d, "DELETE", path, NULL, 0, removed_cb, r);
	if (rc)
		free(r);
	return rc;
}

struct list_req {
	container_list_cb cb;
	void *arg;
};

static void listed_cb(const struct docker_response *res, void *arg)
{
	struct list_req *r = arg;

	if (res->err || res->status != 200)
		r->cb(res->err ? res->err : -EIO, res->errmsg, NULL, r->arg);
	else
		r->cb(0, NULL, res->body, r->arg);
	free(r);
}

int container_list(struct docker *d, const char *label, container_list_cb cb,
		   void *arg)
{
	struct list_req *r = calloc(1, sizeof(*r));
	char filters[512], *esc, path[1024];
	int rc;

	if (!r)
		return -ENOMEM;
	r->cb = cb;
	r->arg = arg;
	snprintf(filters, sizeof(filters), "{\"label\":[\"%s\"]}", label);
	esc = curl_easy_escape(NULL, filters, 0);
	if (!esc) {
		free(r);
		return -ENOMEM;
	}
	snprintf(path, sizeof(path), "/containers/json?all=1&filters=%s", esc);
	curl_free(esc);
	rc = docker_request(d, "GET", path, NULL, 0, listed_cb, r);
	if (rc)
		free(r);
	return rc;
}

struct image_req {
	image_cb cb;
	void *arg;
};

static void image_cb_(const struct docker_response *res, void *arg)
{
	struct image_req *r = arg;

	if (res->err)
		r->cb(res->err, res->errmsg, r->arg);
	else if (res->status == 404)
		r->cb(-ENOENT, res->errmsg, r->arg);
	else if (res->status != 200)
		r->cb(-EIO, res->errmsg, r->arg);
	else
		r->cb(0, NULL, r->arg);
	free(r);
}

int image_check(struct docker *d, const char *image, image_cb cb, void *arg)
{
	struct image_req *r;
	char path[512];
	int rc;

	/* Image references go into the path as is (the daemon's router
	 * expects raw slashes), so only reference characters are allowed. */
	if (!*image || strlen(image) > 255 ||
	    strspn(image, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789._/:@-") != strlen(image))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->cb = cb;
	r->arg = arg;
	snprintf(path, sizeof(path), "/images/%s/json", image);
	rc = docker_request(d, "GET", path, NULL, 0, image_cb_, r);
	if (rc)
		free(r);
	return rc;
}
