/*
 * doctor.c - the checks of `mcp-sandbox doctor` (doctor.h).
 */
#include "doctor.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "docker/docker.h"
#include "core/records/audit.h"
#include "core/engines/engine_info.h"
#include "core/packages/install.h"
#include "core/packages/packages.h"
#include "core/packages/registry_check.h"
#include "util/state_dir.h"

/* Disk under the engine's data root below which images and installs
 * start failing. */
#define DISK_WARN_MB 4096
#define DISK_FAIL_MB 1024

/* Container escapes fixed in runc, and where (upstream versions by
 * release branch; Debian's packages by their revision). Policy as data:
 * a new advisory is a line here. */
static const struct runc_fix {
	const char *cve;
	const char *upstream[4]; /* the first fixed version of each branch */
	const char *debian;	 /* a Debian revision that carries it */
} runc_fixes[] = {
	{"CVE-2024-21626", {"1.1.12", NULL}, "1.1.5+ds1-1+deb12u1"},
	{"CVE-2025-31133", {"1.2.8", "1.3.3", "1.4.0", NULL}, NULL},
	{"CVE-2025-52565", {"1.2.8", "1.3.3", "1.4.0", NULL}, NULL},
	{"CVE-2025-52881", {"1.2.8", "1.3.3", "1.4.0", NULL}, NULL},
};

static void version_triplet(const char *s, unsigned v[3])
{
	v[0] = v[1] = v[2] = 0;
	(void)sscanf(s, "%u.%u.%u", &v[0], &v[1], &v[2]);
}

/* Whether upstream version v (a.b.c...) has a fix first released as the
 * listed versions: same branch (a.b) and at least that patch, or a later
 * branch than every listed one. */
static int upstream_fixed(const char *v, const char *const *fixed)
{
	unsigned have[3], want[3], newest[3] = {0, 0, 0};

	version_triplet(v, have);
	for (size_t i = 0; fixed[i]; i++) {
		version_triplet(fixed[i], want);
		if (have[0] == want[0] && have[1] == want[1])
			return have[2] >= want[2];
		if (want[0] > newest[0] ||
		    (want[0] == newest[0] && want[1] > newest[1]))
			memcpy(newest, want, sizeof(newest));
	}
	return have[0] > newest[0] ||
	       (have[0] == newest[0] && have[1] > newest[1]);
}

/* Whether Debian version v is fixed's stable update or a later one of
 * the same package version: "1.1.5+ds1-1+deb12u<n>", n at least fixed's. */
static int debian_at_least(const char *v, const char *fixed)
{
	size_t base = strlen(fixed);

	while (base > 0 && fixed[base - 1] >= '0' && fixed[base - 1] <= '9')
		base--;
	return strncmp(v, fixed, base) == 0 &&
	       strtoul(v + base, NULL, 10) >= strtoul(fixed + base, NULL, 10);
}

void doctor_runc_missing(const char *version, char *buf, size_t size)
{
	size_t len = 0;
	/* Debian: "<upstream>+ds<n>-<rev>"; its fixes are its revisions. */
	int debian = strstr(version, "+ds") != NULL;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(runc_fixes) / sizeof(runc_fixes[0]);
	     i++) {
		const struct runc_fix *f = &runc_fixes[i];
		int has = upstream_fixed(version, f->upstream) ||
			  (debian && f->debian &&
			   debian_at_least(version, f->debian));

		if (!has && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s",
						len ? " " : "", f->cve);
	}
}

struct doctor {
	struct doctor_env env;
	doctor_cb cb;
	void *arg;
	cJSON *report;
	int ok;
	int nomem; /* a check could not be added: the report is incomplete */
	int pending;
};

static void add(struct doctor *dr, const char *check, const char *status,
		const char *fix, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void add(struct doctor *dr, const char *check, const char *status,
		const char *fix, const char *fmt, ...)
{
	cJSON *o = cJSON_CreateObject();
	char detail[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (!o || !cJSON_AddStringToObject(o, "check", check) ||
	    !cJSON_AddStringToObject(o, "status", status) ||
	    !cJSON_AddStringToObject(o, "detail", detail) ||
	    (fix && strcmp(status, "ok") != 0 &&
	     !cJSON_AddStringToObject(o, "fix", fix)) ||
	    !cJSON_AddItemToArray(dr->report, o)) {
		cJSON_Delete(o);
		dr->nomem = 1;
	}
	if (strcmp(status, "fail") == 0)
		dr->ok = 0;
}

static void done(struct doctor *dr)
{
	struct error err;

	if (--dr->pending > 0)
		return;
	if (dr->nomem) {
		cJSON_Delete(dr->report);
		error_set(&err, -ENOMEM, "out of memory: no report");
		dr->cb(&err, NULL, 0, dr->arg);
	} else {
		dr->cb(NULL, dr->report, dr->ok, dr->arg);
	}
	free(dr);
}

/* The host side: sandbox.ini, the plugins, the state directory. */
static void host_checks(struct doctor *dr)
{
	const struct config *c = dr->env.cfg;
	char dir[4096];
	int rc;

	if (c->problems)
		add(dr, "config", "warn", "mcp-sandbox check-config",
		    "%s: %d problem(s); their lines keep their defaults",
		    c->path ? c->path : "sandbox.ini", c->problems);
	else
		add(dr, "config", "ok", NULL, "%s",
		    c->path ? c->path : "built-in defaults");
	if (dr->env.plugins->rejected) {
		add(dr, "plugins", "warn", "see each rejected file below",
		    "%zu loaded, %zu rejected", dr->env.plugins->n,
		    dr->env.plugins->rejected);
		for (size_t i = 0; i < dr->env.plugins->rejected; i++) {
			const struct plugin_reject *r =
				&dr->env.plugins->rejects[i];
			const char *base =
				r->path ? strrchr(r->path, '/') : NULL;
			char check[96];

			snprintf(check, sizeof(check), "plugin %s",
				 base ? base + 1 : "?");
			add(dr, check, "warn", "fix the file or remove it",
			    "%s: not loaded: %s", r->path ? r->path : "?",
			    r->reason ? r->reason : "?");
		}
	} else if (!dr->env.plugins->n)
		add(dr, "plugins", "fail",
		    dr->env.in_tree ? "cmake --build build (or set [server] "
				      "plugins_dir)"
				    : "reinstall the package (or set [server] "
				      "plugins_dir)",
		    "no language plugin loaded");
	else
		add(dr, "plugins", "ok", NULL, "%zu loaded",
		    dr->env.plugins->n);
	rc = state_dir_resolve(c->state_dir, dir, sizeof(dir));
	if (rc || access(dir, W_OK) != 0)
		add(dr, "state directory", "fail",
		    "set [sessions] state_dir to a directory you can write",
		    "%s: %s",
		    rc ? (c->state_dir ? c->state_dir : "(default)") : dir,
		    strerror(rc ? -rc : errno));
	else
		add(dr, "state directory", "ok", NULL, "%s", dir);
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "?";
}

static int truth(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Each language's cpu_millis against the engine's CPUs: more fails every
 * container start, so the server gives such containers the engine's
 * count (engines.c), and says so here with the fix. */
static void cpu_check(struct doctor *dr, const cJSON *info)
{
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(info, "cpus");
	const struct plugin_set *ps = dr->env.plugins;
	unsigned cpus, warned = 0;
	char fix[200];
	size_t i;

	if (!cJSON_IsNumber(n) || n->valuedouble < 1)
		return;
	cpus = (unsigned)n->valuedouble;
	for (i = 0; ps && i < ps->n; i++) {
		const struct plugin *pl = &ps->v[i];

		if (pl->policy.limits.cpu_millis <= cpus * 1000u)
			continue;
		snprintf(fix, sizeof(fix),
			 "set cpu_millis to at most %u in [%s] of sandbox.ini "
			 "(or [limits])",
			 cpus * 1000u, pl->desc->name);
		add(dr, "cpu", "warn", fix,
		    "%s: cpu_millis %u is more than the engine's %u CPUs: "
		    "its containers get %u",
		    pl->desc->name, pl->policy.limits.cpu_millis, cpus,
		    cpus * 1000u);
		warned++;
	}
	if (!warned)
		add(dr, "cpu", "ok", NULL,
		    "%u CPUs: every language's cpu_millis fits", cpus);
}

static void engine_checks(struct doctor *dr, const cJSON *info)
{
	const cJSON *en = cJSON_GetObjectItemCaseSensitive(info, "enforces");
	const cJSON *sec = cJSON_GetObjectItemCaseSensitive(info, "security");
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(info, "runtime");
	const cJSON *runc = cJSON_GetObjectItemCaseSensitive(rt, "runc");
	const char *root = str(info, "dataRoot");
	char missing[200];
	struct statvfs fs;

	add(dr, "engine", "ok", NULL, "Docker %s at %s, API %s (using %s)",
	    str(info, "version"), str(info, "endpoint"),
	    str(info, "apiVersion"), str(info, "apiVersionUsed"));
	if (truth(en, "memory") && truth(en, "pids") && truth(en, "cpu"))
		add(dr, "cgroups", "ok", NULL,
		    "cgroup v%s (%s): memory, pids and cpu limits enforced",
		    str(info, "cgroupVersion"), str(info, "cgroupDriver"));
	else
		add(dr, "cgroups", "fail",
		    "enable the controllers for the engine (cgroup v1: boot "
		    "with cgroup_enable=memory swapaccount=1; v2: delegate "
		    "memory, pids and cpu), then restart dockerd",
		    "cgroup v%s: memory %s, pids %s, cpu %s: the limits of "
		    "sandbox.ini would not hold",
		    str(info, "cgroupVersion"),
		    truth(en, "memory") ? "yes" : "NO",
		    truth(en, "pids") ? "yes" : "NO",
		    truth(en, "cpu") ? "yes" : "NO");
	if (truth(sec, "seccomp"))
		add(dr, "seccomp", "ok", NULL,
		    "the engine applies seccomp profiles%s",
		    truth(sec, "userns") || truth(sec, "rootless")
			    ? "; user namespaces remapped"
			    : "");
	else
		add(dr, "seccomp", "fail",
		    "use an engine built with seccomp (Debian's docker.io is)",
		    "the engine applies no seccomp profile: the floor of "
		    "docs/security.md would hold only in the agent");
	if (!cJSON_IsString(runc)) {
		add(dr, "runtime", "warn",
		    "keep the OCI runtime current (docs/security.md)",
		    "%s, version unknown", str(rt, "name"));
	} else {
		doctor_runc_missing(runc->valuestring, missing,
				    sizeof(missing));
		if (missing[0])
			add(dr, "runtime", "warn",
			    "install runc 1.2.8, 1.3.3, 1.4.0 or later (or "
			    "your distribution's update carrying these "
			    "fixes) and restart dockerd",
			    "runc %s lacks the container-escape fixes for %s",
			    runc->valuestring, missing);
		else
			add(dr, "runtime", "ok", NULL,
			    "runc %s, with every container-escape fix the "
			    "docs name",
			    runc->valuestring);
	}
	cpu_check(dr, info);
	/* The data root is only ours to measure on an engine of this host. */
	if (strncmp(str(info, "endpoint"), "unix://", 7) == 0 &&
	    statvfs(root, &fs) == 0) {
		unsigned long long mb = (unsigned long long)fs.f_bavail *
					fs.f_frsize / (1024ULL * 1024ULL);

		add(dr, "disk",
		    mb < DISK_FAIL_MB	? "fail"
		    : mb < DISK_WARN_MB ? "warn"
					: "ok",
		    "free space under the engine's data root (docker system "
		    "prune removes unused images and build cache)",
		    "%llu MiB free under %s", mb, root);
	}
}

struct image_ask {
	struct doctor *dr;
	const struct plugin *pl;
};

/* Is path a regular file? */
static int regular_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Does a line of the file at path read exactly word? */
static int lists(const char *path, const char *word)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		found = strcmp(line, word) == 0;
	}
	fclose(f);
	return found;
}

/* Do the recipes in dir (images/) build lang, as build-images.sh reads
 * its arguments? */
static int has_recipe(const char *dir, const char *lang)
{
	char path[2 * PATH_MAX];
	struct dirent *e;
	DIR *d;
	int found;

	snprintf(path, sizeof(path), "%s/%s/Dockerfile", dir, lang);
	if (regular_file(path))
		return 1;
	d = opendir(dir);
	if (!d)
		return 0;
	for (found = 0; !found && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/languages", dir, e->d_name);
		found = lists(path, lang);
	}
	closedir(d);
	return found;
}

void doctor_image_fix(const char *script, const char *lang, const char *image,
		      char *out, size_t size)
{
	char root[PATH_MAX], images[PATH_MAX + 16];

	if (!script || strncmp(image, "mcp-sandbox/", 12) != 0) {
		snprintf(out, size, "build or pull %s", image);
		return;
	}
	/* <root>/scripts/build-images.sh: the recipes are <root>/images. */
	snprintf(root, sizeof(root), "%s", script);
	snprintf(images, sizeof(images), "%s/../images", dirname(root));
	if (has_recipe(images, lang))
		snprintf(out, size, "%s %s", script, lang);
	else
		snprintf(out, size,
			 "%s DIR, DIR being the %s plugin's own image recipe "
			 "(the directory with its Dockerfile: the recipes "
			 "beside the script have none for %s)",
			 script, lang, lang);
}

static void image_cb(const struct docker_response *res, void *arg)
{
	struct image_ask *ia = arg;
	struct doctor *dr = ia->dr;
	const char *lang = ia->pl->desc->name, *image = ia->pl->policy.image;
	char check[64], fix[PATH_MAX + 200];
	struct docker_image img;
	const char *sha;

	snprintf(check, sizeof(check), "image %s", lang);
	/* The script takes a language's name when its recipes have one,
	 * else the plugin's own recipe directory. Looked up (a few files
	 * read) only for an image that needs a fix: in a server the doctor
	 * runs on its loop. */
	if (res->err || res->status != 200) {
		doctor_image_fix(dr->env.build_images, lang, image, fix,
				 sizeof(fix));
		add(dr, check, "fail", fix, "%s: %s", image,
		    res->status == 404 ? "not built"
				       : (res->errmsg ? res->errmsg : "?"));
	} else {
		/* Out of memory: read as an image without the label. */
		(void)docker_image_parse(res->body, res->body_len, &img);
		sha = docker_label_find(img.labels, img.nlabels,
					"org.mcp-sandbox.agent-sha256");
		if (dr->env.agent_sha[0] && sha &&
		    strcmp(sha, dr->env.agent_sha) != 0) {
			doctor_image_fix(dr->env.build_images, lang, image, fix,
					 sizeof(fix));
			add(dr, check, "warn", fix,
			    "%s carries another agent build than this "
			    "server's",
			    image);
		} else {
			add(dr, check, "ok", NULL, "%s%s", image,
			    dr->env.agent_sha[0] && sha
				    ? ", with this server's agent"
				    : "");
		}
		docker_image_free(&img);
	}
	free(ia);
	done(dr);
}

static void images(struct doctor *dr)
{
	for (size_t i = 0; i < dr->env.plugins->n; i++) {
		const struct plugin *pl = &dr->env.plugins->v[i];
		struct image_ask *ia;
		char path[600];

		if (!pl->policy.enabled)
			continue;
		ia = malloc(sizeof(*ia));
		if (!ia)
			continue;
		ia->dr = dr;
		ia->pl = pl;
		snprintf(path, sizeof(path), "/images/%s/json",
			 pl->policy.image);
		dr->pending++;
		if (docker_request(dr->env.docker, "GET", path, NULL, 10000,
				   image_cb, ia) != 0) {
			dr->pending--;
			free(ia);
		}
	}
}

/* ---- the installers' registries (`mcp-sandbox doctor`) ---- */

struct registry_ask {
	struct doctor *dr;
	const struct plugin *pl; /* the first of them */
	char langs[200];	 /* the languages that share the installer */
};

static void registries_cb(const struct error *err,
			  const struct install_result *res, void *arg)
{
	struct registry_ask *ra = arg;
	struct doctor *dr = ra->dr;
	char check[240], list[600] = "", first[700];
	const cJSON *all = res ? res->registries : NULL, *r;
	size_t o = 0;

	snprintf(check, sizeof(check), "registries %s", ra->langs);
	cJSON_ArrayForEach(r, all)
	{
		const cJSON *name =
			cJSON_GetObjectItemCaseSensitive(r, "registry");

		if (cJSON_IsString(name) && o < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o,
					      "%s%s", o ? ", " : "",
					      name->valuestring);
	}
	if (!err) {
		add(dr, check, "ok", NULL,
		    "%s answer%s through the egress proxy", list,
		    strchr(list, ',') ? "" : "s");
	} else if (err->code == ERR_REGISTRY_UNREACHABLE) {
		/* Its first line says which and how (install.h). */
		const char *nl = strchr(err->msg, '\n');
		char fix[600];

		registry_advice(ra->pl->desc->name, ra->pl->policy.registry,
				installer_upstream(dr->env.installer), fix,
				sizeof(fix));
		snprintf(first, sizeof(first), "%.*s",
			 (int)(nl ? (size_t)(nl - err->msg) : strlen(err->msg)),
			 err->msg);
		add(dr, check, "warn", fix, "%s: installs of %s will fail",
		    first, ra->langs);
	} else {
		add(dr, check, "warn", NULL, "not checked: %s: %.400s",
		    error_name(err->code), err->msg);
	}
	free(ra);
	done(dr);
}

/* Each installer once: languages that share it, its image and its mirror
 * share the check (javascript and typescript). */
static void registries(struct doctor *dr)
{
	const struct plugin_set *ps = dr->env.plugins;
	char ids[16][1024], id[1024];
	struct registry_ask *asks[16];
	size_t n = 0, i, k;
	struct error err;

	if (!dr->env.installer || !installer_enabled(dr->env.installer))
		return;
	for (i = 0; i < ps->n; i++) {
		const struct plugin *pl = &ps->v[i];
		const char *reg = pl->policy.registry;

		if (!pl->policy.enabled || !pl->desc->package_ecosystem ||
		    !pl->desc->install_cmd ||
		    pkg_installer_id(pl->desc->package_ecosystem,
				     pl->desc->install_cmd,
				     pl->desc->install_env, id, 800))
			continue;
		snprintf(id + strlen(id), sizeof(id) - strlen(id), " %s %s",
			 pl->policy.image, reg ? reg : "");
		for (k = 0; k < n && strcmp(ids[k], id) != 0; k++)
			;
		if (k < n) {
			size_t used = strlen(asks[k]->langs);

			snprintf(asks[k]->langs + used,
				 sizeof(asks[k]->langs) - used, ", %s",
				 pl->desc->name);
			continue;
		}
		if (n == 16 || !(asks[n] = calloc(1, sizeof(**asks))))
			continue;
		memcpy(ids[n], id, sizeof(id));
		asks[n]->dr = dr;
		asks[n]->pl = pl;
		snprintf(asks[n]->langs, sizeof(asks[n]->langs), "%s",
			 pl->desc->name);
		n++;
	}
	for (k = 0; k < n; k++) {
		dr->pending++;
		if (installer_check_registries(dr->env.installer, asks[k]->pl,
					       NULL, registries_cb, asks[k],
					       &err) != 0) {
			add(dr, "registries", "warn", NULL,
			    "%s: not checked: %s", asks[k]->langs, err.msg);
			free(asks[k]);
			dr->pending--;
		}
	}
}

static void info_cb(const struct error *err, cJSON *info, void *arg)
{
	struct doctor *dr = arg;

	if (err) {
		add(dr, "engine", "fail",
		    "start the engine (sudo systemctl start docker; in a "
		    "checkout: scripts/setup.sh), or set DOCKER_HOST",
		    "%s: %s", docker_endpoint(dr->env.docker), err->msg);
	} else {
		engine_checks(dr, info);
		cJSON_Delete(info);
		images(dr);
		registries(dr);
	}
	done(dr);
}

void doctor_agent_sha(const char *path, char out[65])
{
	FILE *f = path ? fopen(path, "rb") : NULL;
	size_t n, cap = 0, len = 0;
	char *buf = NULL, *p;

	out[0] = '\0';
	if (!f)
		return;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			p = cap <= (64u << 20) ? realloc(buf, cap) : NULL;
			if (!p)
				break;
			buf = p;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	if (feof(f) && !ferror(f))
		audit_sha256_hex(buf, len, out);
	free(buf);
	fclose(f);
}

int doctor_run(const struct doctor_env *env, doctor_cb cb, void *arg)
{
	struct doctor *dr = calloc(1, sizeof(*dr));

	if (!dr || !(dr->report = cJSON_CreateArray())) {
		free(dr);
		return -ENOMEM;
	}
	dr->env = *env;
	dr->cb = cb;
	dr->arg = arg;
	dr->ok = 1;
	dr->pending = 2; /* the engine's answer, and this function */
	host_checks(dr);
	/* NOLINTBEGIN(clang-analyzer-unix.Malloc): pending keeps dr alive */
	if (env->desc) {
		cJSON *info = cJSON_Duplicate(env->desc, 1);
		struct error err;

		error_set(&err, -ENOMEM, "out of memory");
		info_cb(info ? NULL : &err, info, dr);
	} else if (engine_info_get(env->docker, info_cb, dr) != 0) {
		struct error err;

		error_set(&err, ERR_DOCKER_UNAVAILABLE,
			  "cannot ask the engine");
		info_cb(&err, NULL, dr);
	}
	done(dr);
	/* NOLINTEND(clang-analyzer-unix.Malloc) */
	return 0;
}
