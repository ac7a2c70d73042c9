/*
 * network.c - networks and volumes over the Engine API (network.h).
 */
#include "network.h"
#include "container.h"
#include "docker_proto.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct obj_req {
	struct docker *d;
	union {
		network_cb net;
		volume_cb vol;
	} cb;
	void *arg;
	int internal;
	char name[201];
	char id_label[128];
	char *create_body;
};

static int valid_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < 201 && isalnum((unsigned char)s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") == n;
}

static unsigned long long page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (unsigned long long)n : 4096;
}

static const struct error *
fail(struct error *e, const struct docker_response *res, const char *what)
{
	char buf[160];

	if (res->err) {
		error_set_msg(e, -ENODEV, res->errmsg);
		return e;
	}
	snprintf(buf, sizeof(buf), "%s: %s", what,
		 res->errmsg ? res->errmsg : "unexpected answer");
	error_set_msg(e, res->status == 409 ? -EEXIST : -EIO, buf);
	return e;
}

static void obj_free(struct obj_req *r)
{
	free(r->create_body);
	free(r);
}

static struct obj_req *obj_new(struct docker *d, const char *name,
			       const char *kind, const char *const *labels,
			       void *arg)
{
	struct obj_req *r;
	cJSON *o;

	if (!valid_name(name) || !(r = calloc(1, sizeof(*r))))
		return NULL;
	r->d = d;
	r->arg = arg;
	snprintf(r->name, sizeof(r->name), "%s", name);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "Name", name);
	container_labels_json(cJSON_AddObjectToObject(o, "Labels"), labels);
	if (strcmp(kind, "network") == 0)
		cJSON_AddBoolToObject(o, "CheckDuplicate", 1);
	r->create_body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!r->create_body) {
		free(r);
		return NULL;
	}
	return r;
}

/* ---- networks ---- */

static void net_created_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;

	if (!res->err && res->status == 201)
		r->cb.net(NULL, r->arg);
	else
		r->cb.net(fail(&e, res, "creating the network"), r->arg);
	obj_free(r);
}

static void net_inspected_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;
	cJSON *j, *in;
	char buf[700];
	int have;

	if (!res->err && res->status == 404) {
		cJSON *o = cJSON_Parse(r->create_body);

		cJSON_AddBoolToObject(o, "Internal", r->internal);
		free(r->create_body);
		r->create_body = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		if (r->create_body &&
		    docker_request(r->d, "POST", "/networks/create",
				   r->create_body, 0, net_created_cb, r) == 0)
			return;
		error_set_msg(&e, -ENOMEM, "creating the network failed");
		r->cb.net(&e, r->arg);
		obj_free(r);
		return;
	}
	if (res->err || res->status != 200) {
		r->cb.net(fail(&e, res, "inspecting the network"), r->arg);
		obj_free(r);
		return;
	}
	j = cJSON_ParseWithLength(res->body, res->body_len);
	in = cJSON_GetObjectItemCaseSensitive(j, "Internal");
	have = cJSON_IsTrue(in);
	cJSON_Delete(j);
	if (have != r->internal) {
		snprintf(buf, sizeof(buf),
			 "the network %s exists but is %s: remove it (docker "
			 "network rm %s) or name another in sandbox.ini",
			 r->name, have ? "internal" : "not internal", r->name);
		error_set_msg(&e, -EEXIST, buf);
		r->cb.net(&e, r->arg);
	} else {
		r->cb.net(NULL, r->arg);
	}
	obj_free(r);
}

int network_ensure(struct docker *d, const char *name, int internal,
		   const char *const *labels, network_cb cb, void *arg)
{
	struct obj_req *r = obj_new(d, name, "network", labels, arg);
	char path[256];
	int rc;

	if (!r)
		return valid_name(name) ? -ENOMEM : -EINVAL;
	r->cb.net = cb;
	r->internal = internal != 0;
	snprintf(path, sizeof(path), "/networks/%s", name);
	rc = docker_request(d, "GET", path, NULL, 0, net_inspected_cb, r);
	if (rc)
		obj_free(r);
	return rc;
}

/* ---- volumes ---- */

static void vol_answer(struct obj_req *r, const struct docker_response *res,
		       int created)
{
	cJSON *j = cJSON_ParseWithLength(res->body, res->body_len);
	cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "CreatedAt");
	cJSON *l = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "Labels"), r->id_label);
	struct error e;

	if (cJSON_IsString(l) && *l->valuestring)
		c = l;
	if (cJSON_IsString(c)) {
		r->cb.vol(NULL, c->valuestring, created, r->arg);
	} else {
		error_set_msg(&e, -EPROTO, "the volume has no CreatedAt");
		r->cb.vol(&e, NULL, 0, r->arg);
	}
	cJSON_Delete(j);
	obj_free(r);
}

static void vol_created_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;

	if (!res->err && res->status == 201) {
		vol_answer(r, res, 1);
		return;
	}
	r->cb.vol(fail(&e, res, "creating the volume"), NULL, 0, r->arg);
	obj_free(r);
}

static void vol_inspected_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;

	if (!res->err && res->status == 404) {
		if (docker_request(r->d, "POST", "/volumes/create",
				   r->create_body, 0, vol_created_cb, r) == 0)
			return;
		error_set_msg(&e, -ENOMEM, "creating the volume failed");
		r->cb.vol(&e, NULL, 0, r->arg);
		obj_free(r);
		return;
	}
	if (res->err || res->status != 200) {
		r->cb.vol(fail(&e, res, "inspecting the volume"), NULL, 0,
			  r->arg);
		obj_free(r);
		return;
	}
	vol_answer(r, res, 0);
}

int volume_ensure(struct docker *d, const char *name, const char *const *labels,
		  const char *id_label, volume_cb cb, void *arg)
{
	struct obj_req *r = obj_new(d, name, "volume", labels, arg);
	char path[256];
	int rc;

	if (!r)
		return valid_name(name) ? -ENOMEM : -EINVAL;
	r->cb.vol = cb;
	snprintf(r->id_label, sizeof(r->id_label), "%s", id_label);
	snprintf(path, sizeof(path), "/volumes/%s", name);
	rc = docker_request(d, "GET", path, NULL, 0, vol_inspected_cb, r);
	if (rc)
		obj_free(r);
	return rc;
}

/* ---- scratch volumes ---- */

static void scratch_created_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;

	if (!res->err && res->status == 201)
		r->cb.net(NULL, r->arg);
	else
		r->cb.net(fail(&e, res, "creating a scratch volume"), r->arg);
	obj_free(r);
}

int volume_create_tmpfs(struct docker *d, const char *name, unsigned size_mb,
			unsigned uid, unsigned mode, const char *const *labels,
			network_cb cb, void *arg)
{
	struct obj_req *r = obj_new(d, name, "volume", labels, arg);
	cJSON *o, *opts;
	char buf[128];
	int rc;

	if (!r)
		return valid_name(name) ? -ENOMEM : -EINVAL;
	r->cb.net = cb;
	o = cJSON_Parse(r->create_body);
	cJSON_AddStringToObject(o, "Driver", "local");
	opts = cJSON_AddObjectToObject(o, "DriverOpts");
	cJSON_AddStringToObject(opts, "type", "tmpfs");
	cJSON_AddStringToObject(opts, "device", "tmpfs");
	/* Podman's local driver takes size= as an XFS project quota on its
	 * storage, even for a tmpfs, and refuses the volume elsewhere
	 * ("Filesystem does not support Project Quota", Podman 4.3); the
	 * same limit in pages goes to the mount untouched. A Podman engine
	 * runs on this machine (docs/scaling.md): its page size is ours. */
	if (docker_is_podman(d))
		snprintf(buf, sizeof(buf),
			 "nr_blocks=%llu,uid=%u,gid=%u,mode=%04o",
			 (unsigned long long)size_mb * 1048576 / page_size(),
			 uid, uid, mode);
	else
		snprintf(buf, sizeof(buf), "size=%um,uid=%u,gid=%u,mode=%04o",
			 size_mb, uid, uid, mode);
	cJSON_AddStringToObject(opts, "o", buf);
	free(r->create_body);
	r->create_body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!r->create_body) {
		obj_free(r);
		return -ENOMEM;
	}
	rc = docker_request(d, "POST", "/volumes/create", r->create_body, 0,
			    scratch_created_cb, r);
	if (rc)
		obj_free(r);
	return rc;
}

static void vol_removed_cb(const struct docker_response *res, void *arg)
{
	struct obj_req *r = arg;
	struct error e;

	if (!r->cb.net)
		; /* nobody waits: best effort */
	else if (!res->err && (res->status == 204 || res->status == 404))
		r->cb.net(NULL, r->arg);
	else
		r->cb.net(fail(&e, res, "removing a volume"), r->arg);
	obj_free(r);
}

int volume_remove(struct docker *d, const char *name, network_cb cb, void *arg)
{
	struct obj_req *r = obj_new(d, name, "volume", NULL, arg);
	char path[256];
	int rc;

	if (!r)
		return valid_name(name) ? -ENOMEM : -EINVAL;
	r->cb.net = cb;
	snprintf(path, sizeof(path), "/volumes/%s?force=1", name);
	rc = docker_request(d, "DELETE", path, NULL, 0, vol_removed_cb, r);
	if (rc)
		obj_free(r);
	return rc;
}

/* ---- listing volumes ---- */

struct vlist_req {
	volume_list_cb cb;
	void *arg;
};

static void vlisted_cb(const struct docker_response *res, void *arg)
{
	struct vlist_req *r = arg;
	struct error e;

	struct docker_volumes list;

	if (res->err || res->status != 200) {
		r->cb(fail(&e, res, "listing volumes"), NULL, 0, r->arg);
	} else if (docker_volumes_parse(res->body, res->body_len, &list)) {
		error_set_msg(&e, -ENOMEM, NULL);
		r->cb(&e, NULL, 0, r->arg);
	} else {
		r->cb(NULL, list.v, list.n, r->arg);
		docker_volumes_free(&list);
	}
	free(r);
}

int volume_list(struct docker *d, const char *label, volume_list_cb cb,
		void *arg)
{
	struct vlist_req *r;
	char *filters, *esc, *path;
	cJSON *f = cJSON_CreateObject(), *arr;
	size_t n;
	int rc;

	arr = cJSON_AddArrayToObject(f, "label");
	cJSON_AddItemToArray(arr, cJSON_CreateString(label));
	filters = cJSON_PrintUnformatted(f);
	cJSON_Delete(f);
	esc = filters ? curl_easy_escape(NULL, filters, 0) : NULL;
	cJSON_free(filters);
	if (!esc)
		return -ENOMEM;
	n = strlen("/volumes?filters=") + strlen(esc) + 1;
	path = malloc(n);
	r = calloc(1, sizeof(*r));
	if (!path || !r) {
		curl_free(esc);
		free(path);
		free(r);
		return -ENOMEM;
	}
	snprintf(path, n, "/volumes?filters=%s", esc);
	curl_free(esc);
	r->cb = cb;
	r->arg = arg;
	rc = docker_request(d, "GET", path, NULL, 0, vlisted_cb, r);
	free(path);
	if (rc)
		free(r);
	return rc;
}
