/*
 * docker_proto.c - the Engine API's formats as pure functions: what the
 * client parses from DOCKER_HOST and from the daemon's answers (versions,
 * errors, containers, volumes, memory), and the exec body it sends. No I/O; see
 * docker_proto.h.
 */
#include "docker_proto.h"

#include <cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker.h"

/* ------------------------------------------------------------------ */
/* DOCKER_HOST                                                         */

/* "host:2375" and "[::1]:2375" name a port; "host" and "[::1]" do not. */
static int has_port(const char *hp, size_t n)
{
	const char *from = memchr(hp, ']', n);

	if (!from)
		from = hp;
	return memchr(from, ':', n - (size_t)(from - hp)) != NULL;
}

/* What may appear in host[:port]: printable ASCII, no userinfo, query or
 * fragment. */
static int valid_host_port(const char *hp, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)hp[i];

		if (c <= 0x20 || c >= 0x7f || c == '@' || c == '?' || c == '#')
			return 0;
	}
	return 1;
}

int docker_host_parse(const char *host, int tls, struct docker_host *out,
		      struct error *err)
{
	const char *hp;
	size_t n;

	if (strncmp(host, "unix://", 7) == 0) {
		const char *path = host + 7;

		if (path[0] != '/')
			return error_set_msg(
				err, -EINVAL,
				"Docker host unix:// needs an absolute path "
				"(unix:///var/run/docker.sock)");
		if (strlen(path) >= sizeof(out->unix_path))
			return error_set_msg(err, -ENAMETOOLONG,
					     "Docker socket path is too long");
		snprintf(out->unix_path, sizeof(out->unix_path), "%s", path);
		snprintf(out->endpoint, sizeof(out->endpoint), "unix://%s",
			 path);
		snprintf(out->base_url, sizeof(out->base_url),
			 "http://localhost");
		snprintf(out->host_hdr, sizeof(out->host_hdr), "localhost");
		out->tls = 0;
		return 0;
	}
	if (strncmp(host, "tcp://", 6) == 0)
		hp = host + 6;
	else if (strncmp(host, "http://", 7) == 0)
		hp = host + 7;
	else
		return error_set_msg(
			err, -EPROTONOSUPPORT,
			"unsupported Docker host (want unix:///path or "
			"tcp://host:port)");
	n = strcspn(hp, "/");
	if (hp[n] && strcmp(hp + n, "/") != 0)
		return error_set_msg(err, -EINVAL,
				     "Docker host tcp:// takes no path");
	if (n == 0 || n > 255 || !valid_host_port(hp, n))
		return error_set_msg(err, -EINVAL,
				     "malformed Docker host address");
	if (tls && strncmp(host, "http://", 7) == 0)
		return error_set_msg(
			err, -EINVAL,
			"Docker host http:// cannot speak TLS (write "
			"tcp://host:port)");
	out->unix_path[0] = '\0';
	out->tls = tls;
	snprintf(out->host_hdr, sizeof(out->host_hdr), "%.*s%s", (int)n, hp,
		 has_port(hp, n) ? ""
		 : tls		 ? ":" DOCKER_DEFAULT_TLS_PORT
				 : ":" DOCKER_DEFAULT_TCP_PORT);
	snprintf(out->endpoint, sizeof(out->endpoint), "tcp://%s",
		 out->host_hdr);
	snprintf(out->base_url, sizeof(out->base_url), "%s://%s",
		 tls ? "https" : "http", out->host_hdr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* API versions                                                        */

/* Up to max decimal digits at *p into *val; returns how many (0: none). */
static int digits(const char *p, int max, long *val)
{
	int i;

	*val = 0;
	for (i = 0; p[i] >= '0' && p[i] <= '9'; i++) {
		if (i == max)
			return 0;
		*val = *val * 10 + (p[i] - '0');
	}
	return i;
}

long docker_api_version_num(const char *v)
{
	long major, minor;
	int n;

	n = digits(v, 2, &major);
	if (n == 0 || v[n] != '.')
		return -1;
	v += n + 1;
	n = digits(v, 3, &minor);
	if (n == 0 || v[n] != '\0')
		return -1;
	return major * 1000 + minor;
}

int docker_api_version_pick(const char *body, size_t len, char *out,
			    size_t outsz, char *theirs, size_t theirs_sz)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "ApiVersion");
	long ours = docker_api_version_num(DOCKER_API_VERSION_MAX);
	long num = -1;

	if (cJSON_IsString(v))
		num = docker_api_version_num(v->valuestring);
	if (num < 0) {
		cJSON_Delete(j);
		return -EPROTO;
	}
	/* Valid means at most "99.999": it fits any buffer the caller has. */
	snprintf(theirs, theirs_sz, "%s", v->valuestring);
	snprintf(out, outsz, "%s",
		 num < ours ? v->valuestring : DOCKER_API_VERSION_MAX);
	cJSON_Delete(j);
	return 0;
}

int docker_version_is_podman(const char *body, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *c;
	int podman = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "Components"))
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "Name");

		if (cJSON_IsString(n) &&
		    strcmp(n->valuestring, "Podman Engine") == 0)
			podman = 1;
	}
	cJSON_Delete(j);
	return podman;
}

/* ------------------------------------------------------------------ */
/* What the daemon says of itself                                      */

/* The string member key of obj, or NULL. */
static const char *str_or_null(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num_or_nan(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int is_true(const cJSON *obj, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* A component's version in /version's Components ("runc", "containerd"). */
static const char *component(const cJSON *version, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(
		c, cJSON_GetObjectItemCaseSensitive(version, "Components"))
	{
		const char *n = str_or_null(c, "Name");
		const char *commit = str_or_null(
			cJSON_GetObjectItemCaseSensitive(c, "Details"),
			"GitCommit");

		if (!n || strcmp(n, name) != 0)
			continue;
		/* Debian's packages name their patch level in the commit:
		 * 1.1.5+ds1-1+deb12u1 says more than 1.1.5+ds1. */
		if (commit && commit[0] && strchr(commit, '.'))
			return commit;
		return str_or_null(c, "Version");
	}
	return NULL;
}

void docker_info_parse(const char *version_body, size_t version_len,
		       const char *info_body, size_t info_len,
		       struct docker_info *out)
{
	cJSON *info = cJSON_ParseWithLength(info_body, info_len);
	cJSON *version =
		version_body ? cJSON_ParseWithLength(version_body, version_len)
			     : NULL;
	const cJSON *opts =
		cJSON_GetObjectItemCaseSensitive(info, "SecurityOptions");
	const cJSON *opt;

	*out = (struct docker_info){.docs = {info, version}};
	out->is_info = cJSON_IsObject(info) &&
		       cJSON_GetObjectItemCaseSensitive(info, "ServerVersion");
	out->server_version = str_or_null(info, "ServerVersion");
	out->api_version = str_or_null(version, "ApiVersion");
	out->os = str_or_null(info, "OperatingSystem");
	out->kernel = str_or_null(info, "KernelVersion");
	out->arch = str_or_null(info, "Architecture");
	/* Engines before API 1.40 do not say: they ran cgroup v1. */
	out->cgroup_version = str_or_null(info, "CgroupVersion");
	if (!out->cgroup_version)
		out->cgroup_version = "1";
	out->cgroup_driver = str_or_null(info, "CgroupDriver");
	out->memory_limit = is_true(info, "MemoryLimit");
	out->swap_limit = is_true(info, "SwapLimit");
	out->pids_limit = is_true(info, "PidsLimit");
	out->cpu_limit = is_true(info, "CpuCfsQuota");
	out->security_known = cJSON_IsArray(opts);
	cJSON_ArrayForEach(opt, opts)
	{
		const char *o = cJSON_IsString(opt) ? opt->valuestring : "";

		out->seccomp |= strncmp(o, "name=seccomp", 12) == 0;
		out->userns |= strcmp(o, "name=userns") == 0;
		out->rootless |= strcmp(o, "name=rootless") == 0;
		out->apparmor |= strcmp(o, "name=apparmor") == 0;
		out->selinux |= strcmp(o, "name=selinux") == 0;
	}
	out->default_runtime = str_or_null(info, "DefaultRuntime");
	out->runc = component(version, "runc");
	out->containerd = component(version, "containerd");
	out->data_root = str_or_null(info, "DockerRootDir");
	out->cpus = num_or_nan(info, "NCPU");
	out->memory_bytes = num_or_nan(info, "MemTotal");
	out->containers_running = num_or_nan(info, "ContainersRunning");
	out->images = num_or_nan(info, "Images");
}

void docker_info_free(struct docker_info *info)
{
	cJSON_Delete(info->docs[0]);
	cJSON_Delete(info->docs[1]);
	*info = (struct docker_info){0};
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

int docker_libpod_info_parse(const char *body, size_t len,
			     struct docker_libpod_info *out)
{
	cJSON *lp = body ? cJSON_ParseWithLength(body, len) : NULL;
	const cJSON *host = cJSON_GetObjectItemCaseSensitive(lp, "host");
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(host, "security");
	const cJSON *ctl =
		cJSON_GetObjectItemCaseSensitive(host, "cgroupControllers");
	int rc = -EINVAL;

	if (cJSON_IsObject(sec) && cJSON_IsArray(ctl)) {
		out->rootless = is_true(sec, "rootless");
		out->memory = has_string(ctl, "memory");
		out->pids = has_string(ctl, "pids");
		out->cpu = has_string(ctl, "cpu");
		rc = 0;
	}
	cJSON_Delete(lp);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

void docker_error_message(const char *body, size_t len, long status, char *out,
			  size_t outsz)
{
	const char *brace = len ? memchr(body, '{', len) : NULL;
	size_t n;

	if (brace) {
		cJSON *j = cJSON_ParseWithLength(brace,
						 len - (size_t)(brace - body));
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

		if (cJSON_IsString(m) && m->valuestring[0]) {
			snprintf(out, outsz, "%s", m->valuestring);
			cJSON_Delete(j);
			return;
		}
		cJSON_Delete(j);
	}
	while (len && (body[len - 1] == '\n' || body[len - 1] == '\r' ||
		       body[len - 1] == ' '))
		len--;
	n = len < outsz - 1 ? len : outsz - 1;
	if (n && !memchr(body, '\0', n)) {
		memcpy(out, body, n);
		out[n] = '\0';
	} else {
		snprintf(out, outsz, "HTTP status %ld", status);
	}
}

int docker_status_to_err(long status)
{
	switch (status) {
	case 400:
		return -EINVAL;
	case 401:
	case 403:
		return -EACCES;
	case 404:
		return -ENOENT;
	case 409:
		return -EBUSY;
	case 500:
		return -EIO;
	default:
		return -EPROTO;
	}
}

/* ------------------------------------------------------------------ */
/* What we send                                                        */

int docker_valid_id(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-') ||
		    i >= 128)
			return 0;
	}
	return i > 0;
}

int docker_valid_method(const char *method)
{
	size_t i;

	for (i = 0; method[i]; i++)
		if (method[i] < 'A' || method[i] > 'Z' || i >= 16)
			return 0;
	return i > 0;
}

int docker_valid_path(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	if (*p != '/')
		return 0;
	for (; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f)
			return 0;
	return 1;
}

char *docker_exec_create_body(const char *const *argv, const char *user)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *cmd = NULL;
	char *out = NULL;
	size_t i;

	if (root) {
		cJSON_AddTrueToObject(root, "AttachStdin");
		cJSON_AddTrueToObject(root, "AttachStdout");
		cJSON_AddTrueToObject(root, "AttachStderr");
		cJSON_AddFalseToObject(root, "Tty");
		if (user)
			cJSON_AddStringToObject(root, "User", user);
		cmd = cJSON_AddArrayToObject(root, "Cmd");
	}
	for (i = 0; cmd && argv[i]; i++) {
		cJSON *a = cJSON_CreateString(argv[i]);

		if (!a || !cJSON_AddItemToArray(cmd, a)) {
			cJSON_Delete(a);
			cmd = NULL;
		}
	}
	if (cmd)
		out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
}

int docker_exec_id_parse(const char *body, size_t len, char *out, size_t outsz)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "Id");
	int r = -EPROTO;

	if (cJSON_IsString(id) && strlen(id->valuestring) < outsz &&
	    docker_valid_id(id->valuestring)) {
		snprintf(out, outsz, "%s", id->valuestring);
		r = 0;
	}
	cJSON_Delete(j);
	return r;
}

/* ------------------------------------------------------------------ */
/* What the daemon says of its objects                                 */

const char *docker_label_find(const struct docker_label *labels, size_t n,
			      const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(labels[i].key, key) == 0)
			return labels[i].value;
	return NULL;
}

enum container_status docker_container_status(const char *word)
{
	/* In enum container_status's order, from CONTAINER_CREATED. */
	static const char *const words[] = {"created",	  "running",  "paused",
					    "restarting", "removing", "exited",
					    "dead"};
	size_t i;

	for (i = 0; word && i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(word, words[i]) == 0)
			return (enum container_status)(CONTAINER_CREATED + i);
	return CONTAINER_STATUS_UNKNOWN;
}

/* The string member key of obj, or "". */
static const char *str_item(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : "";
}

/* A name without the engine's leading '/'. */
static const char *bare_name(const char *name)
{
	return name + (name[0] == '/');
}

/* Labels (a JSON object of strings; anything else holds none): how many,
 * and (at, when not NULL) each as a docker_label. Returns the count. */
static size_t take_labels(const cJSON *labels, struct docker_label *at)
{
	const cJSON *l;
	size_t n = 0;

	if (!cJSON_IsObject(labels))
		return 0;
	cJSON_ArrayForEach(l, labels)
	{
		if (!cJSON_IsString(l) || !l->string)
			continue;
		if (at)
			at[n] = (struct docker_label){l->string,
						      l->valuestring};
		n++;
	}
	return n;
}

/* The blocks for n entries of size sz and nlabels labels. */
static int parsed_alloc(size_t n, size_t sz, size_t nlabels, void **v,
			struct docker_label **labels)
{
	*v = calloc(n ? n : 1, sz);
	*labels = calloc(nlabels ? nlabels : 1, sizeof(**labels));
	if (*v && *labels)
		return 0;
	free(*v);
	free(*labels);
	*v = NULL;
	*labels = NULL;
	return -ENOMEM;
}

/* A listing's elements that have a string member key: how many, and how
 * many labels they carry (under Labels). */
static size_t count_entries(const cJSON *arr, const char *key, size_t *nlabels)
{
	const cJSON *c;
	size_t n = 0;

	*nlabels = 0;
	cJSON_ArrayForEach(c, arr)
	{
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, key)))
			continue;
		n++;
		*nlabels += take_labels(
			cJSON_GetObjectItemCaseSensitive(c, "Labels"), NULL);
	}
	return n;
}

/* One element of a listing into its entry, with its labels. */
typedef void (*entry_fill)(void *entry, const cJSON *c,
			   const struct docker_label *labels, size_t nlabels);

/* The elements of arr (NULL: none) that have a string member key, each
 * filled into an entry of size sz of *v, their labels into *labels. */
static int listing_parse(const cJSON *arr, const char *key, size_t sz,
			 entry_fill fill, void **v, size_t *n,
			 struct docker_label **labels)
{
	size_t nlabels, count = count_entries(arr, key, &nlabels), k;
	struct docker_label *lab;
	const cJSON *c;

	if (parsed_alloc(count, sz, nlabels, v, labels))
		return -ENOMEM;
	lab = *labels;
	*n = 0;
	cJSON_ArrayForEach(c, arr)
	{
		if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(c, key)))
			continue;
		k = take_labels(cJSON_GetObjectItemCaseSensitive(c, "Labels"),
				lab);
		fill((char *)*v + *n * sz, c, lab, k);
		lab += k;
		(*n)++;
	}
	return 0;
}

static void container_fill(void *entry, const cJSON *c,
			   const struct docker_label *labels, size_t nlabels)
{
	struct container_summary *s = entry;
	const cJSON *names = cJSON_GetObjectItemCaseSensitive(c, "Names");
	const cJSON *first = cJSON_GetArrayItem(names, 0);

	s->id = str_item(c, "Id");
	s->name = bare_name(cJSON_IsArray(names) && cJSON_IsString(first)
				    ? first->valuestring
				    : "");
	s->status = docker_container_status(str_item(c, "State"));
	s->running = s->status == CONTAINER_RUNNING ||
		     s->status == CONTAINER_PAUSED ||
		     s->status == CONTAINER_RESTARTING;
	s->labels = labels;
	s->nlabels = nlabels;
}

int docker_containers_parse(const char *body, size_t len,
			    struct docker_containers *out)
{
	cJSON *doc = cJSON_ParseWithLength(body, len);
	void *v;

	*out = (struct docker_containers){0};
	if (listing_parse(cJSON_IsArray(doc) ? doc : NULL, "Id",
			  sizeof(*out->v), container_fill, &v, &out->n,
			  &out->labels)) {
		cJSON_Delete(doc);
		return -ENOMEM;
	}
	out->v = v;
	out->doc = doc;
	return 0;
}

int docker_container_parse(const char *body, size_t len,
			   struct docker_containers *out)
{
	cJSON *doc = cJSON_ParseWithLength(body, len);
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(doc, "State");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(doc, "Config"), "Labels");
	struct container_summary *s;
	void *v;

	*out = (struct docker_containers){0};
	if (parsed_alloc(1, sizeof(*s), take_labels(labels, NULL), &v,
			 &out->labels)) {
		cJSON_Delete(doc);
		return -ENOMEM;
	}
	out->v = s = v;
	out->n = 1;
	out->doc = doc;
	s->id = str_item(doc, "Id");
	s->name = bare_name(str_item(doc, "Name"));
	s->status = docker_container_status(str_item(state, "Status"));
	s->running = cJSON_IsTrue(
		cJSON_GetObjectItemCaseSensitive(state, "Running"));
	s->labels = out->labels;
	s->nlabels = take_labels(labels, out->labels);
	return 0;
}

static void volume_fill(void *entry, const cJSON *c,
			const struct docker_label *labels, size_t nlabels)
{
	struct volume_summary *s = entry;

	s->name = str_item(c, "Name");
	s->labels = labels;
	s->nlabels = nlabels;
}

int docker_volumes_parse(const char *body, size_t len,
			 struct docker_volumes *out)
{
	cJSON *doc = cJSON_ParseWithLength(body, len);
	const cJSON *arr = cJSON_GetObjectItemCaseSensitive(doc, "Volumes");
	void *v;

	*out = (struct docker_volumes){0};
	if (listing_parse(cJSON_IsArray(arr) ? arr : NULL, "Name",
			  sizeof(*out->v), volume_fill, &v, &out->n,
			  &out->labels)) {
		cJSON_Delete(doc);
		return -ENOMEM;
	}
	out->v = v;
	out->doc = doc;
	return 0;
}

int docker_image_parse(const char *body, size_t len, struct docker_image *out)
{
	cJSON *doc = cJSON_ParseWithLength(body, len);
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(doc, "Config"), "Labels");
	size_t n = take_labels(labels, NULL);

	*out = (struct docker_image){0};
	out->labels = calloc(n ? n : 1, sizeof(*out->labels));
	if (!out->labels) {
		cJSON_Delete(doc);
		return -ENOMEM;
	}
	out->doc = doc;
	out->id = str_or_null(doc, "Id");
	out->nlabels = take_labels(labels, out->labels);
	return 0;
}

void docker_image_free(struct docker_image *img)
{
	free(img->labels);
	cJSON_Delete(img->doc);
	*img = (struct docker_image){0};
}

void docker_containers_free(struct docker_containers *c)
{
	free(c->v);
	free(c->labels);
	cJSON_Delete(c->doc);
	*c = (struct docker_containers){0};
}

void docker_volumes_free(struct docker_volumes *v)
{
	free(v->v);
	free(v->labels);
	cJSON_Delete(v->doc);
	*v = (struct docker_volumes){0};
}

/* A non-negative integral JSON number that fits in a uint64_t. */
static int json_u64(const cJSON *obj, const char *name, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

	if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
	    v->valuedouble >= 18446744073709551616.0)
		return 0;
	*out = (uint64_t)v->valuedouble;
	return 1;
}

int docker_stats_memory(const char *body, size_t len, uint64_t *bytes)
{
	/* The page cache the kernel reclaims first, by cgroup version: v1
	 * (hierarchical total), v2, then daemons too old to report either. */
	static const char *const reclaimable[] = {"total_inactive_file",
						  "inactive_file", "cache"};
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *mem = cJSON_GetObjectItemCaseSensitive(j, "memory_stats");
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(mem, "stats");
	uint64_t usage, v;
	size_t i;

	if (!json_u64(mem, "usage", &usage)) {
		cJSON_Delete(j);
		return -ENODATA;
	}
	for (i = 0; i < sizeof(reclaimable) / sizeof(reclaimable[0]); i++) {
		if (json_u64(st, reclaimable[i], &v)) {
			if (v < usage)
				usage -= v;
			break;
		}
	}
	cJSON_Delete(j);
	*bytes = usage;
	return 0;
}

/* ------------------------------------------------------------------ */
/* The hijack handshake's answer                                       */

int docker_answer_init(struct docker_answer *a)
{
	*a = (struct docker_answer){.content_length = -1};
	a->buf = malloc(DOCKER_ANSWER_HEAD_MAX + DOCKER_ANSWER_BODY_MAX + 1);
	return a->buf ? 0 : -ENOMEM;
}

void docker_answer_close(struct docker_answer *a)
{
	free(a->buf);
	a->buf = NULL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The head, buf[0..head_end), NUL-terminated there. Every check stops at
 * the first byte that fails it, so none reads past the terminator. */
static int answer_parse_head(struct docker_answer *a)
{
	const char *h = a->buf;
	const char *v;

	if (strncmp(h, "HTTP/1.", 7) != 0 || !is_digit(h[7]) || h[8] != ' ' ||
	    !is_digit(h[9]) || !is_digit(h[10]) || !is_digit(h[11]) ||
	    (h[12] != ' ' && h[12] != '\r'))
		return -EPROTO;
	a->status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
	if (a->status < 100 || a->status > 599)
		return -EPROTO;
	v = strcasestr(h, "\r\nContent-Length:");
	if (v)
		a->content_length = strtoll(v + 17, NULL, 10);
	v = strcasestr(h, "\r\nTransfer-Encoding:");
	if (v && strncasecmp(v + 20 + strspn(v + 20, " \t"), "chunked", 7) == 0)
		a->chunked = 1;
	return 0;
}

static int answer_body_complete(const struct docker_answer *a)
{
	const char *body = a->buf + a->head_end;
	size_t len = a->len - a->head_end;

	if (len >= DOCKER_ANSWER_BODY_MAX)
		return 1;
	if (a->content_length >= 0)
		return (long long)len >= a->content_length;
	if (a->chunked)
		return (len >= 5 && memcmp(body, "0\r\n\r\n", 5) == 0) ||
		       memmem(body, len, "\r\n0\r\n\r\n", 7) != NULL;
	return 0; /* until EOF */
}

int docker_answer_feed(struct docker_answer *a, const char *p, size_t n,
		       size_t *used)
{
	size_t room, take;

	*used = 0;
	if (a->head_end == 0) {
		size_t from = a->len > 3 ? a->len - 3 : 0;
		char *end;

		room = DOCKER_ANSWER_HEAD_MAX - a->len;
		take = n < room ? n : room;
		memcpy(a->buf + a->len, p, take);
		a->len += take;
		end = memmem(a->buf + from, a->len - from, "\r\n\r\n", 4);
		if (!end) {
			*used = take;
			return a->len == DOCKER_ANSWER_HEAD_MAX
				       ? -E2BIG
				       : DOCKER_ANSWER_MORE;
		}
		a->head_end = (size_t)(end + 4 - a->buf);
		/* Of this input, only what completes the head is taken. */
		take = a->head_end - (a->len - take);
		p += take;
		n -= take;
		*used = take;
		a->len = a->head_end;
		a->buf[a->head_end] = '\0';
		if (answer_parse_head(a) < 0)
			return -EPROTO;
		if (a->status == 101 || a->status == 200)
			return DOCKER_ANSWER_UPGRADED;
	}
	/* An error status: collect its (short) body for the message. */
	room = a->head_end + DOCKER_ANSWER_BODY_MAX - a->len;
	take = n < room ? n : room;
	memcpy(a->buf + a->len, p, take);
	a->len += take;
	*used += n;
	return answer_body_complete(a) ? DOCKER_ANSWER_REFUSED
				       : DOCKER_ANSWER_MORE;
}

int docker_answer_eof(const struct docker_answer *a)
{
	return a->head_end ? DOCKER_ANSWER_REFUSED : -ECONNRESET;
}

void docker_answer_message(const struct docker_answer *a, char *out,
			   size_t outsz)
{
	docker_error_message(a->buf + a->head_end, a->len - a->head_end,
			     a->status, out, outsz);
}
