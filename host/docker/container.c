/*
 * container.c - hardened container create/start/remove over the Engine API,
 * and the lifecycle calls sessions need (pause, rename, inspect, memory).
 */
#include "container.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "docker_demux.h"
#include "docker_proto.h"
#include "error.h"
#include "util/log.h"

#define LOG_MODULE "container"

/* The agent is the only root process in the container. It needs exactly
 * these to drop to uid 1000, clear the bounding set of user code and kill
 * what user code leaves behind; user code itself holds no capability. */
static const char *const agent_caps[] = {"SETUID", "SETGID", "SETPCAP", "KILL",
					 NULL};
/* ... and on Podman, CAP_CHOWN, which the agent drops once /work is the
 * sandbox user's. */
static const char *const agent_caps_podman[] = {"SETUID", "SETGID", "SETPCAP",
						"KILL",	  "CHOWN",  NULL};

/* name: [strings...] unless list is NULL. */
static void add_strings(cJSON *obj, const char *name, const char *const *list)
{
	cJSON *arr;
	size_t i;

	if (!list)
		return;
	arr = cJSON_AddArrayToObject(obj, name);
	for (i = 0; arr && list[i]; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(list[i]));
}

void container_labels_json(cJSON *obj, const char *const *list)
{
	char key[256];
	size_t i;

	for (i = 0; obj && list && list[i]; i++) {
		const char *eq = strchr(list[i], '=');
		size_t kl = eq ? (size_t)(eq - list[i]) : 0;

		if (!eq || kl >= sizeof(key))
			continue;
		memcpy(key, list[i], kl);
		key[kl] = '\0';
		cJSON_AddStringToObject(obj, key, eq + 1);
	}
}

static void add_ulimit(cJSON *arr, const char *name, long long v)
{
	cJSON *u = cJSON_CreateObject();

	cJSON_AddStringToObject(u, "Name", name);
	cJSON_AddNumberToObject(u, "Soft", (double)v);
	cJSON_AddNumberToObject(u, "Hard", (double)v);
	cJSON_AddItemToArray(arr, u);
}

/* What a container may not read: the engine's defaults (which a list in
 * HostConfig replaces) and what tells about the host (its kernel command
 * line and modules, its boot id, the machine's DMI identity;
 * docs/security.md). A file is covered with /dev/null, a directory with
 * an empty read-only tmpfs. */
static const char *const masked_paths[] = {
	"/proc/asound",
	"/proc/acpi",
	"/proc/kcore",
	"/proc/keys",
	"/proc/latency_stats",
	"/proc/timer_list",
	"/proc/timer_stats",
	"/proc/sched_debug",
	"/proc/scsi",
	"/sys/firmware",
	"/sys/devices/virtual/powercap",
	"/proc/cmdline",
	"/proc/modules",
	"/proc/kallsyms",
	"/proc/config.gz",
	"/proc/sys/kernel/random/boot_id",
	"/sys/devices/virtual/dmi",
	NULL,
};

/* Read-only whatever the process's privileges: the engine's defaults. */
static const char *const readonly_paths[] = {
	"/proc/bus",	       "/proc/fs", "/proc/irq", "/proc/sys",
	"/proc/sysrq-trigger", NULL,
};

char *container_spec_json(const struct container_spec *s)
{
	cJSON *root = cJSON_CreateObject(), *hc, *labels, *arr, *tmpfs, *log;
	char buf[256];
	size_t i;
	char *out;

	cJSON_AddStringToObject(root, "Image", s->image);
	if (!s->service || s->user)
		cJSON_AddStringToObject(root, "User",
					s->service ? s->user : "0");
	if (!s->service) {
		cJSON_AddStringToObject(root, "WorkingDir", "/work");
		cJSON_AddBoolToObject(root, "AttachStdin", 1);
		cJSON_AddBoolToObject(root, "AttachStdout", 1);
		cJSON_AddBoolToObject(root, "AttachStderr", 1);
		cJSON_AddBoolToObject(root, "OpenStdin", 1);
	}
	/* The agent's stdin ends when the host's attach connection does,
	 * however the host ended: a pool container then ends, and the
	 * engine removes it (AutoRemove below; agent/agent.c). */
	cJSON_AddBoolToObject(root, "StdinOnce", !s->service);
	cJSON_AddBoolToObject(root, "Tty", 0);
	add_strings(root, "Env", s->env);
	add_strings(root, "Entrypoint", s->entrypoint);
	cJSON_AddBoolToObject(root, "NetworkDisabled",
			      strcmp(s->network, "none") == 0);
	labels = cJSON_AddObjectToObject(root, "Labels");
	container_labels_json(labels, s->labels);

	hc = cJSON_AddObjectToObject(root, "HostConfig");
	cJSON_AddStringToObject(hc, "NetworkMode", s->network);
	cJSON_AddBoolToObject(hc, "ReadonlyRootfs", 1);
	cJSON_AddBoolToObject(hc, "Privileged", 0);
	cJSON_AddBoolToObject(hc, "AutoRemove", !s->service);
	cJSON_AddBoolToObject(hc, "Init", 0);
	cJSON_AddStringToObject(hc, "IpcMode", "private");
	/* The container's own cgroup tree: /proc/self/cgroup names no host
	 * path and no container id. */
	cJSON_AddStringToObject(hc, "CgroupnsMode", "private");
	add_strings(hc, "MaskedPaths", masked_paths);
	add_strings(hc, "ReadonlyPaths", readonly_paths);
	arr = cJSON_AddArrayToObject(hc, "CapDrop");
	cJSON_AddItemToArray(arr, cJSON_CreateString("ALL"));
	add_strings(hc, "CapAdd",
		    s->service	? s->caps
		    : s->podman ? agent_caps_podman
				: agent_caps);
	arr = cJSON_AddArrayToObject(hc, "SecurityOpt");
	cJSON_AddItemToArray(arr, cJSON_CreateString("no-new-privileges"));
	if (s->seccomp) {
		size_t n = strlen(s->seccomp) + sizeof("seccomp=");
		char *opt = malloc(n);

		if (!opt) {
			cJSON_Delete(root);
			return NULL;
		}
		snprintf(opt, n, "seccomp=%s", s->seccomp);
		cJSON_AddItemToArray(arr, cJSON_CreateString(opt));
		free(opt);
	}
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
	if (s->nproc)
		add_ulimit(arr, "nproc", s->nproc);
	tmpfs = cJSON_AddObjectToObject(hc, "Tmpfs");
	if (!s->service) {
		snprintf(buf, sizeof(buf),
			 "rw,exec,nosuid,nodev,size=%um,%smode=0700",
			 s->work_mb, s->podman ? "" : "uid=1000,gid=1000,");
		cJSON_AddStringToObject(tmpfs, "/work", buf);
	}
	snprintf(buf, sizeof(buf), "rw,noexec,nosuid,nodev,size=%um,mode=1777",
		 s->tmp_mb);
	cJSON_AddStringToObject(tmpfs, "/tmp", buf);
	arr = cJSON_AddArrayToObject(hc, "Mounts");
	for (i = 0; s->mounts && s->mounts[i].volume; i++) {
		cJSON *m = cJSON_CreateObject();

		cJSON_AddStringToObject(m, "Type", "volume");
		cJSON_AddStringToObject(m, "Source", s->mounts[i].volume);
		cJSON_AddStringToObject(m, "Target", s->mounts[i].target);
		cJSON_AddBoolToObject(m, "ReadOnly", s->mounts[i].read_only);
		if (s->mounts[i].labels) {
			cJSON *vo = cJSON_AddObjectToObject(m, "VolumeOptions");

			container_labels_json(
				cJSON_AddObjectToObject(vo, "Labels"),
				s->mounts[i].labels);
		}
		cJSON_AddItemToArray(arr, m);
	}
	/* The agent speaks over attach; nothing needs a sandbox's log. A
	 * service's stdout is read back with container_logs(). */
	log = cJSON_AddObjectToObject(hc, "LogConfig");
	cJSON_AddStringToObject(log, "Type", s->service ? "json-file" : "none");
	if (s->service)
		cJSON_AddItemToObject(log, "Config",
				      cJSON_Parse("{\"max-size\":\"4m\"}"));

	out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
}

/* This module's callbacks under the error contract (common/error.h): NULL
 * when err is 0, else e filled with err and msg (the daemon's words when it
 * gave some). */
static const struct error *cb_error(struct error *e, int err, const char *msg)
{
	if (!err)
		return NULL;
	error_set_msg(e, err, msg);
	return e;
}

struct run_req {
	struct docker *d;
	container_cb cb;
	void *arg;
	char id[80];
	char *errmsg;
	int undo_err;	 /* what run_undo reports */
	char **networks; /* still to join before the start */
	size_t nnet, inet;
	int no_start; /* container_create: done once the networks are joined */
};

static void run_finish(struct run_req *r, int err, const char *msg)
{
	struct error e;
	size_t i;

	r->cb(cb_error(&e, err, msg), err ? NULL : r->id, r->arg);
	for (i = 0; i < r->nnet; i++)
		free(r->networks[i]);
	free(r->networks);
	free(r->errmsg);
	free(r);
}

static void run_removed_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;

	(void)res;
	run_finish(r, r->undo_err,
		   r->errmsg ? r->errmsg : "container start failed");
}

/* A failed connect or start: remove what was created, then report (the
 * engine not answering as -ENODEV, like every other call). */
static void run_undo(struct run_req *r, const struct docker_response *res,
		     const char *msg)
{
	char path[160];

	r->undo_err = res->err ? -ENODEV : -EIO;
	r->errmsg = strdup(res->errmsg ? res->errmsg : msg);
	snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", r->id);
	if (docker_request(r->d, "DELETE", path, NULL, 0, run_removed_cb, r))
		run_finish(r, r->undo_err, r->errmsg);
}

static void run_started_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;

	if (res->err == 0 && (res->status == 204 || res->status == 304)) {
		run_finish(r, 0, NULL);
		return;
	}
	run_undo(r, res, "start failed");
}

static void run_next(struct run_req *r);

static void run_connected_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;

	if (res->err || res->status != 200) {
		run_undo(r, res, "connecting to a network failed");
		return;
	}
	run_next(r);
}

/* Join the next network, or start. */
static void run_next(struct run_req *r)
{
	char path[400], *body;
	cJSON *o;
	int rc;

	if (r->inet == r->nnet && r->no_start) {
		run_finish(r, 0, NULL);
		return;
	}
	if (r->inet == r->nnet) {
		snprintf(path, sizeof(path), "/containers/%s/start", r->id);
		if (docker_request(r->d, "POST", path, NULL, 0, run_started_cb,
				   r))
			run_undo(r, &(struct docker_response){0},
				 "container start: request failed");
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "Container", r->id);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	snprintf(path, sizeof(path), "/networks/%s/connect",
		 r->networks[r->inet++]);
	rc = body ? docker_request(r->d, "POST", path, body, 0,
				   run_connected_cb, r)
		  : -ENOMEM;
	cJSON_free(body);
	if (rc)
		run_undo(r, &(struct docker_response){0},
			 "connecting to a network: request failed");
}

static void run_created_cb(const struct docker_response *res, void *arg)
{
	struct run_req *r = arg;
	cJSON *body, *id;

	if (res->err || res->status != 201) {
		run_finish(r,
			   res->err ? -ENODEV
				    : (res->status == 404 ? -ENOENT : -EIO),
			   res->errmsg ? res->errmsg
				       : "container create failed");
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
	run_next(r);
}

/* A container or network name as the daemon takes it, safe in a path. */
static int valid_name(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 200 && isalnum((unsigned char)s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.-") == n;
}

/*
 * Podman gives a box RLIMIT_NPROC 1048576 when the request names none,
 * and runs its runtime with its own limit lowered to the kernel's pid_max:
 * without CAP_SYS_RESOURCE the box's limit must not be above either. So
 * the smaller of this server's hard limit and pid_max (Podman engines
 * are local). The cgroup's pids limit is what bounds a box; RLIMIT_NPROC
 * counts the uid's processes machine-wide. Read once: /proc does not
 * block.
 */
static long long podman_nproc(void)
{
	static long long v;
	struct rlimit rl;
	long long pid_max = 0;
	FILE *f;

	if (v)
		return v;
	v = 32768; /* the kernel's default pid_max */
	f = fopen("/proc/sys/kernel/pid_max", "re");
	if (f) {
		if (fscanf(f, "%lld", &pid_max) == 1 && pid_max > 0)
			v = pid_max;
		fclose(f);
	}
	if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_max != RLIM_INFINITY &&
	    (long long)rl.rlim_max < v)
		v = (long long)rl.rlim_max;
	return v;
}

static int run_begin(struct docker *d, const struct container_spec *spec,
		     int no_start, container_cb cb, void *arg)
{
	struct container_spec sp = *spec;
	struct run_req *r;
	char path[320], *body;
	size_t n, i;
	int rc = 0;

	/* Podman takes the profile as a path on its host, which is this
	 * one. */
	sp.podman = docker_is_podman(d);
	/* More CPU than the engine has fails every start ("Range of CPUs is
	 * from 0.01 to 2.00"): the core warned when it learnt the count. */
	if (docker_cpus(d) && sp.cpu_millis > docker_cpus(d) * 1000u)
		sp.cpu_millis = docker_cpus(d) * 1000u;
	if (sp.podman && !sp.nproc)
		sp.nproc = podman_nproc();
	if (sp.podman && sp.seccomp) {
		if (!sp.seccomp_file)
			return -ENOTSUP;
		sp.seccomp = sp.seccomp_file;
	}
	r = calloc(1, sizeof(*r));
	body = container_spec_json(&sp);
	if (!r || !body) {
		free(r);
		free(body);
		return -ENOMEM;
	}
	r->d = d;
	r->cb = cb;
	r->arg = arg;
	r->no_start = no_start;
	for (n = 0; spec->networks && spec->networks[n]; n++)
		;
	if (n && !(r->networks = calloc(n, sizeof(*r->networks))))
		rc = -ENOMEM;
	for (i = 0; !rc && i < n; i++) {
		if (!valid_name(spec->networks[i]))
			rc = -EINVAL;
		else if (!(r->networks[r->nnet++] = strdup(spec->networks[i])))
			rc = -ENOMEM;
	}
	if (!rc && spec->name && !valid_name(spec->name))
		rc = -EINVAL;
	if (!rc) {
		snprintf(path, sizeof(path), "/containers/create%s%s",
			 spec->name ? "?name=" : "",
			 spec->name ? spec->name : "");
		rc = docker_request(d, "POST", path, body, 0, run_created_cb,
				    r);
	}
	free(body);
	if (rc) {
		for (i = 0; i < r->nnet; i++)
			free(r->networks[i]);
		free(r->networks);
		free(r);
	}
	return rc;
}

int container_run(struct docker *d, const struct container_spec *spec,
		  container_cb cb, void *arg)
{
	return run_begin(d, spec, 0, cb, arg);
}

int container_create(struct docker *d, const struct container_spec *spec,
		     container_cb cb, void *arg)
{
	return run_begin(d, spec, 1, cb, arg);
}

struct simple_req {
	container_cb cb;
	void *arg;
	struct docker *d;
	char id[80];
};

/* The removal someone else started is over (or the wait failed: the
 * container is going either way). */
static void gone_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct simple_req *r = arg;

	if (r->cb)
		r->cb(cb_error(&e, res->err == -ECANCELED ? res->err : 0, NULL),
		      r->id, r->arg);
	free(r);
}

static void removed_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct simple_req *r = arg;
	int err = res->err;
	char path[160];

	/* Going (409: the engine's AutoRemove, or another server's clean-up,
	 * got there first): gone once the engine says so, so that what the
	 * container held (a volume) is free when cb runs. */
	if (!err && res->status == 409 && res->errmsg &&
	    strstr(res->errmsg, "already in progress")) {
		snprintf(path, sizeof(path),
			 "/containers/%s/wait?condition=removed", r->id);
		if (docker_request(r->d, "POST", path, NULL, 0, gone_cb, r) ==
		    0)
			return;
	} else if (!err && res->status >= 300 && res->status != 404) {
		err = -EIO;
	}
	/* Cancelled: this server is exiting; the container ends with its
	 * agent (or is some later server's orphan to remove). */
	if (err && err != -ECANCELED)
		log_warn("removing container %.12s: %s", r->id,
			 res->errmsg ? res->errmsg : "failed");
	if (r->cb)
		r->cb(cb_error(&e, err, res->errmsg), r->id, r->arg);
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
	r->d = d;
	snprintf(r->id, sizeof(r->id), "%s", id);
	snprintf(path, sizeof(path), "/containers/%s?force=1&v=1", id);
	rc = docker_request(d, "DELETE", path, NULL, 0, removed_cb, r);
	if (rc)
		free(r);
	return rc;
}

/* Ids and names as container.h allows them. */
#define ID_MAX 255

static int valid_id(const char *id)
{
	size_t n;

	if (!id)
		return 0;
	n = strlen(id);
	return n > 0 && n <= ID_MAX &&
	       strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "0123456789_.-") == n;
}

struct list_req {
	container_list_cb cb;
	void *arg;
};

static void listed_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct list_req *r = arg;
	struct docker_containers list;

	if (res->err || res->status != 200)
		r->cb(cb_error(&e, res->err ? res->err : -EIO, res->errmsg),
		      NULL, 0, r->arg);
	else if (docker_containers_parse(res->body, res->body_len, &list))
		r->cb(cb_error(&e, -ENOMEM, NULL), NULL, 0, r->arg);
	else {
		r->cb(NULL, list.v, list.n, r->arg);
		docker_containers_free(&list);
	}
	free(r);
}

/* GET /containers/json?all=1&filters=<filters, URL-encoded>: the Engine
 * API's filters object ({"label": [...]}, {"name": [...]}). Takes filters. */
static int list_filtered(struct docker *d, cJSON *filters, container_list_cb cb,
			 void *arg)
{
	static const char base[] = "/containers/json?all=1&filters=";
	struct list_req *r = NULL;
	char *json = cJSON_PrintUnformatted(filters), *esc, *path = NULL;
	size_t n;
	int rc;

	cJSON_Delete(filters);
	esc = json ? curl_easy_escape(NULL, json, 0) : NULL;
	cJSON_free(json);
	if (esc) {
		n = sizeof(base) + strlen(esc);
		path = malloc(n);
		r = calloc(1, sizeof(*r));
	}
	if (!path || !r) {
		curl_free(esc);
		free(path);
		free(r);
		return -ENOMEM;
	}
	snprintf(path, n, "%s%s", base, esc);
	curl_free(esc);
	r->cb = cb;
	r->arg = arg;
	rc = docker_request(d, "GET", path, NULL, 0, listed_cb, r);
	free(path);
	if (rc)
		free(r);
	return rc;
}

/* {"<key>": ["<value>"]}, or NULL when out of memory. */
static cJSON *filter(const char *key, const char *value)
{
	cJSON *f = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(f, key);
	cJSON *v = cJSON_CreateString(value);

	if (arr && v && cJSON_AddItemToArray(arr, v))
		return f;
	cJSON_Delete(v);
	cJSON_Delete(f);
	return NULL;
}

int container_list(struct docker *d, const char *label, container_list_cb cb,
		   void *arg)
{
	cJSON *f;

	if (!cb || !label)
		return -EINVAL;
	f = filter("label", label);
	return f ? list_filtered(d, f, cb, arg) : -ENOMEM;
}

int container_list_named(struct docker *d, const char *prefix,
			 container_list_cb cb, void *arg)
{
	/* The filter is a regular expression over "/name": anchored, and
	 * the only special character a name may hold, '.', escaped. */
	char re[2 + 2 * ID_MAX + 1];
	size_t i, n = 0;
	cJSON *f;

	if (!cb || !valid_id(prefix))
		return -EINVAL;
	re[n++] = '^';
	re[n++] = '/';
	for (i = 0; prefix[i]; i++) {
		if (prefix[i] == '.')
			re[n++] = '\\';
		re[n++] = prefix[i];
	}
	re[n] = '\0';
	f = filter("name", re);
	return f ? list_filtered(d, f, cb, arg) : -ENOMEM;
}

/* ------------------------------------------------------------------ */
/* Pause, unpause, rename, inspect, memory                             */

/* The err of a finished request that did not answer ok_status; conflict is
 * what a 409 means for this operation. */
static int answer_err(const struct docker_response *res, long ok_status,
		      int conflict)
{
	/* The engine did not answer (whatever the transport said: a
	 * missing socket is ENOENT, which must not read as a 404). */
	if (res->err)
		return res->err == -ECANCELED ? -ECANCELED : -ENODEV;
	if (res->status == ok_status)
		return 0;
	switch (res->status) {
	case 400:
		return -EINVAL;
	case 404:
		return -ENOENT;
	case 409:
		return conflict;
	default:
		return -EIO;
	}
}

/* The message for err: the daemon's (or the transport's), else ours. */
static const char *answer_msg(const struct docker_response *res,
			      const char *what, char *buf, size_t size)
{
	if (res->errmsg)
		return res->errmsg;
	snprintf(buf, size, "%s: unexpected HTTP status %ld", what,
		 res->status);
	return buf;
}

struct container_op {
	union {
		container_cb done;
		container_inspect_cb inspect;
		container_memory_cb memory;
	} cb;
	void *arg;
	int conflict;		/* err for a 409 */
	int pause_op;		/* pause/unpause: see state_conflict() */
	const char *what;	/* "pause", for messages */
	struct docker_req *req; /* container_memory: for container_cancel */
	char id[ID_MAX + 1];
};

static struct container_op *op_new(const char *id, const char *what, void *arg)
{
	struct container_op *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->arg = arg;
	r->what = what;
	r->conflict = -EBUSY;
	snprintf(r->id, sizeof(r->id), "%s", id);
	return r;
}

/* Daemons up to 20.10 answer an unpause of a container that is not paused
 * with a plain error (500), not 409; the state is the caller's business,
 * not an engine failure. */
static int state_conflict(const struct docker_response *res)
{
	return res->status == 500 && res->errmsg &&
	       (strstr(res->errmsg, " is not paused") ||
		strstr(res->errmsg, " is already paused") ||
		strstr(res->errmsg, " is not running"));
}

static void op_done_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct container_op *r = arg;
	char buf[128];
	int err = answer_err(res, 204, r->conflict);

	if (err == -EIO && r->pause_op && state_conflict(res))
		err = -EBUSY;
	/* Without a callback nobody else hears of it. */
	if (err && !r->cb.done)
		log_warn("%s %.12s: %s", r->what, r->id,
			 answer_msg(res, r->what, buf, sizeof(buf)));
	if (r->cb.done && err)
		r->cb.done(cb_error(&e, err,
				    answer_msg(res, r->what, buf, sizeof(buf))),
			   r->id, r->arg);
	else if (r->cb.done)
		r->cb.done(NULL, r->id, r->arg);
	free(r);
}

/* POST /containers/{id}/<action><query> answered by 204. */
static int container_post(struct docker *d, const char *id, const char *action,
			  const char *query, int conflict, container_cb cb,
			  void *arg)
{
	struct container_op *r;
	char *path;
	size_t n;
	int rc;

	if (!valid_id(id))
		return -EINVAL;
	n = strlen("/containers//") + strlen(id) + strlen(action) +
	    strlen(query) + 1;
	path = malloc(n);
	r = op_new(id, action, arg);
	if (!path || !r) {
		free(path);
		free(r);
		return -ENOMEM;
	}
	r->cb.done = cb;
	r->conflict = conflict;
	r->pause_op =
		strcmp(action, "pause") == 0 || strcmp(action, "unpause") == 0;
	snprintf(path, n, "/containers/%s/%s%s", id, action, query);
	rc = docker_request(d, "POST", path, NULL, 0, op_done_cb, r);
	free(path);
	if (rc)
		free(r);
	return rc;
}

int container_start(struct docker *d, const char *id, container_cb cb,
		    void *arg)
{
	return container_post(d, id, "start", "", -EIO, cb, arg);
}

int container_pause(struct docker *d, const char *id, container_cb cb,
		    void *arg)
{
	if (!cb)
		return -EINVAL;
	return container_post(d, id, "pause", "", -EBUSY, cb, arg);
}

int container_unpause(struct docker *d, const char *id, container_cb cb,
		      void *arg)
{
	if (!cb)
		return -EINVAL;
	return container_post(d, id, "unpause", "", -EBUSY, cb, arg);
}

int container_rename(struct docker *d, const char *id, const char *new_name,
		     container_cb cb, void *arg)
{
	char *esc, *query;
	size_t n;
	int rc;

	if (!new_name || !new_name[0] || strlen(new_name) > ID_MAX)
		return -EINVAL;
	esc = curl_easy_escape(NULL, new_name, 0);
	if (!esc)
		return -ENOMEM;
	n = strlen("?name=") + strlen(esc) + 1;
	query = malloc(n);
	if (!query) {
		curl_free(esc);
		return -ENOMEM;
	}
	snprintf(query, n, "?name=%s", esc);
	curl_free(esc);
	rc = container_post(d, id, "rename", query, -EEXIST, cb, arg);
	free(query);
	return rc;
}

static void op_json_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct container_op *r = arg;
	struct docker_containers c;
	char buf[128];
	int err = answer_err(res, 200, r->conflict);

	if (err)
		r->cb.inspect(
			cb_error(&e, err,
				 answer_msg(res, r->what, buf, sizeof(buf))),
			NULL, r->arg);
	else if (docker_container_parse(res->body, res->body_len, &c))
		r->cb.inspect(cb_error(&e, -ENOMEM, NULL), NULL, r->arg);
	else {
		r->cb.inspect(NULL, &c.v[0], r->arg);
		docker_containers_free(&c);
	}
	free(r);
}

int container_inspect(struct docker *d, const char *id, container_inspect_cb cb,
		      void *arg)
{
	struct container_op *r;
	char path[ID_MAX + 32];
	int rc;

	if (!cb || !valid_id(id))
		return -EINVAL;
	r = op_new(id, "inspect", arg);
	if (!r)
		return -ENOMEM;
	r->cb.inspect = cb;
	snprintf(path, sizeof(path), "/containers/%s/json", id);
	rc = docker_request(d, "GET", path, NULL, 0, op_json_cb, r);
	if (rc)
		free(r);
	return rc;
}

static void op_memory_cb(const struct docker_response *res, void *arg)
{
	struct error e;
	struct container_op *r = arg;
	char buf[ID_MAX + 96];
	uint64_t bytes = 0;
	int err = answer_err(res, 200, r->conflict);

	if (err) {
		r->cb.memory(
			cb_error(&e, err,
				 answer_msg(res, r->what, buf, sizeof(buf))),
			0, r->arg);
	} else if (docker_stats_memory(res->body, res->body_len, &bytes)) {
		snprintf(buf, sizeof(buf),
			 "container %s reports no memory use (not running?)",
			 r->id);
		r->cb.memory(cb_error(&e, -ENODATA, buf), 0, r->arg);
	} else {
		r->cb.memory(NULL, bytes, r->arg);
	}
	free(r);
}

/* one-shot=true (API 1.41) skips the second sample that stream=false
 * otherwise waits about a second for (it only feeds CPU percentages). */
static int has_one_shot(const struct docker *d)
{
	const char *v = docker_api_version(d);
	char *end;
	long major, minor;

	if (!v) /* unversioned: the daemon's own version; older ones ignore
		   query parameters they do not know */
		return 1;
	major = strtol(v, &end, 10);
	if (*end != '.')
		return 0;
	minor = strtol(end + 1, NULL, 10);
	return major > 1 || (major == 1 && minor >= 41);
}

int container_memory(struct docker *d, const char *id, container_memory_cb cb,
		     void *arg, struct container_op **out)
{
	struct container_op *r;
	char path[ID_MAX + 64];
	int rc;

	if (!d || !cb || !valid_id(id))
		return -EINVAL;
	r = op_new(id, "stats", arg);
	if (!r)
		return -ENOMEM;
	r->cb.memory = cb;
	snprintf(path, sizeof(path), "/containers/%s/stats?stream=false%s", id,
		 has_one_shot(d) ? "&one-shot=true" : "");
	rc = docker_request_start(d, "GET", path, NULL, 0, op_memory_cb, r,
				  &r->req);
	if (rc)
		free(r);
	else if (out)
		*out = r;
	return rc;
}

void container_cancel(struct container_op *op)
{
	docker_req_cancel(op->req);
	free(op);
}

struct image_req {
	image_cb cb;
	void *arg;
};

static void image_cb_(const struct docker_response *res, void *arg)
{
	struct error e;
	struct image_req *r = arg;
	struct docker_image img;

	if (res->err) {
		r->cb(cb_error(&e, res->err, res->errmsg), NULL, r->arg);
	} else if (res->status == 404) {
		r->cb(cb_error(&e, -ENOENT, res->errmsg), NULL, r->arg);
	} else if (res->status != 200) {
		r->cb(cb_error(&e, -EIO, res->errmsg), NULL, r->arg);
	} else if (docker_image_parse(res->body, res->body_len, &img)) {
		r->cb(cb_error(&e, -ENOMEM, NULL), NULL, r->arg);
	} else {
		if (img.id)
			r->cb(NULL, img.id, r->arg);
		else
			r->cb(cb_error(&e, -EPROTO, "the image has no Id"),
			      NULL, r->arg);
		docker_image_free(&img);
	}
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

/* ------------------------------------------------------------------ */
/* Wait, logs (service containers)                                     */

struct wait_req {
	union {
		container_wait_cb wait;
		container_logs_cb logs;
	} cb;
	void *arg;
};

static struct wait_req *wait_new(void *arg)
{
	struct wait_req *r = calloc(1, sizeof(*r));

	if (r)
		r->arg = arg;
	return r;
}

static void waited_cb(const struct docker_response *res, void *arg)
{
	struct wait_req *r = arg;
	struct error e;
	char buf[128];
	int err = answer_err(res, 200, -EBUSY), status = -1;

	if (!err) {
		cJSON *j = cJSON_ParseWithLength(res->body, res->body_len);
		cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "StatusCode");

		if (cJSON_IsNumber(c))
			status = c->valueint;
		else
			err = -EPROTO;
		cJSON_Delete(j);
	}
	r->cb.wait(err ? cb_error(&e, err,
				  answer_msg(res, "wait", buf, sizeof(buf)))
		       : NULL,
		   status, r->arg);
	free(r);
}

int container_wait(struct docker *d, const char *id, container_wait_cb cb,
		   void *arg)
{
	struct wait_req *r;
	char path[ID_MAX + 32];
	int rc;

	if (!cb || !valid_id(id))
		return -EINVAL;
	if (!(r = wait_new(arg)))
		return -ENOMEM;
	r->cb.wait = cb;
	snprintf(path, sizeof(path), "/containers/%s/wait", id);
	rc = docker_request(d, "POST", path, NULL, 0, waited_cb, r);
	if (rc)
		free(r);
	return rc;
}

static void logged_cb(const struct docker_response *res, void *arg)
{
	struct wait_req *r = arg;
	struct docker_demux dm;
	struct docker_demux_piece pc;
	const char *p = res->body;
	size_t n = res->body_len, len = 0;
	struct error e;
	char buf[128], *text = NULL;
	int err = answer_err(res, 200, -EBUSY);

	if (!err && !(text = malloc(n + 1)))
		err = -ENOMEM;
	if (!err) {
		docker_demux_init(&dm);
		while (docker_demux_next(&dm, &p, &n, &pc) == 1)
			if (pc.fd == 1 && !pc.daemon_error) {
				memcpy(text + len, pc.data, pc.len);
				len += pc.len;
			}
		text[len] = '\0';
	}
	r->cb.logs(err ? cb_error(&e, err,
				  answer_msg(res, "logs", buf, sizeof(buf)))
		       : NULL,
		   text, len, r->arg);
	free(text);
	free(r);
}

int container_logs(struct docker *d, const char *id, container_logs_cb cb,
		   void *arg)
{
	struct wait_req *r;
	char path[ID_MAX + 48];
	int rc;

	if (!cb || !valid_id(id))
		return -EINVAL;
	if (!(r = wait_new(arg)))
		return -ENOMEM;
	r->cb.logs = cb;
	snprintf(path, sizeof(path), "/containers/%s/logs?stdout=1", id);
	rc = docker_request(d, "GET", path, NULL, 0, logged_cb, r);
	if (rc)
		free(r);
	return rc;
}
