/*
 * plugins.c - dlopen'ed language plugins and their effective policy.
 */
#include "plugins.h"
#include "packages.h"
#include "seccomp_profile.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/log.h"

#define LOG_MODULE "plugins"

#ifndef SBX_VERSION
#define SBX_VERSION "0"
#endif

static void api_log(const char *plugin, enum sbx_log_level level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void api_log(const char *plugin, enum sbx_log_level level,
		    const char *fmt, ...)
{
	enum log_level l = LOG_LEVEL_INFO;
	va_list ap;

	switch (level) {
	case SBX_LOG_DEBUG:
		l = LOG_LEVEL_DEBUG;
		break;
	case SBX_LOG_INFO:
		l = LOG_LEVEL_INFO;
		break;
	case SBX_LOG_WARNING:
		l = LOG_LEVEL_WARNING;
		break;
	case SBX_LOG_ERROR:
		l = LOG_LEVEL_ERROR;
		break;
	}
	va_start(ap, fmt);
	log_vwrite(l, plugin ? plugin : "plugin", fmt, ap);
	va_end(ap);
}

static const struct sbx_host_api host_api = {
	.struct_size = sizeof(struct sbx_host_api),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.host_version = SBX_VERSION,
	.log = api_log,
	.alloc = malloc,
	.free = free,
};

const struct sbx_host_api *plugins_host_api(void)
{
	return &host_api;
}

static int valid_name(const char *s)
{
	return s && config_valid_lang_name(s);
}

static int valid_file_name(const char *s)
{
	size_t n;

	if (!s || !*s || strchr(s, '/') || strcmp(s, ".") == 0 ||
	    strcmp(s, "..") == 0)
		return 0;
	n = strlen(s);
	return n <= 128;
}

static int valid_argv(const char *const *v, int required)
{
	size_t n = 0;

	if (!v)
		return !required;
	for (; v[n]; n++)
		if (n > 256)
			return 0;
	return n > 0 || !required;
}

int plugin_validate(const struct sbx_plugin *d, const char **why)
{
	if (!d) {
		*why = "entry function returned NULL";
		return -EINVAL;
	}
	if (d->abi_major != SBX_PLUGIN_ABI_MAJOR) {
		*why = "ABI major version differs from the host's";
		return -EINVAL;
	}
	if (d->struct_size < SBX_PLUGIN_SIZE_1_0) {
		*why = "descriptor struct_size is smaller than ABI 1.0's";
		return -EINVAL;
	}
	if (!valid_name(d->name)) {
		*why = "name must match [a-z0-9_-]{1,32}";
		return -EINVAL;
	}
	if (d->aliases) {
		size_t i;

		for (i = 0; d->aliases[i]; i++)
			if (!valid_name(d->aliases[i]) || i > 32) {
				*why = "alias must match [a-z0-9_-]{1,32}";
				return -EINVAL;
			}
	}
	if (!d->image || !*d->image) {
		*why = "no image";
		return -EINVAL;
	}
	if (!valid_file_name(d->file_name)) {
		*why = "file_name must be a plain file name";
		return -EINVAL;
	}
	if (!valid_argv(d->run_cmd, 1)) {
		*why = "run_cmd must be a non-empty argv";
		return -EINVAL;
	}
	if (!valid_argv(d->build_cmd, 0) || !valid_argv(d->env, 0) ||
	    !valid_argv(d->seccomp_deny, 0) || !valid_argv(d->install_cmd, 0)) {
		*why = "a list is too long";
		return -EINVAL;
	}
	if (d->env) {
		size_t i;

		for (i = 0; d->env[i]; i++)
			if (!strchr(d->env[i], '=') || d->env[i][0] == '=') {
				*why = "env entries must be KEY=VALUE";
				return -EINVAL;
			}
	}
	if (d->struct_size >=
	    offsetof(struct sbx_plugin, ml_variant) + sizeof(d->ml_variant)) {
		size_t i;

		for (i = 0; d->options && d->options[i].name; i++) {
			const struct sbx_option *o = &d->options[i];

			if (i >= 16 || strlen(o->name) > 32 ||
			    strspn(o->name, "abcdefghijklmnopqrstuvwxyz_") !=
				    strlen(o->name) ||
			    !*o->name) {
				*why = "option names must match [a-z_]{1,32} "
				       "(16 at most)";
				return -EINVAL;
			}
			if (!valid_argv(o->build_cmd, 0) ||
			    !valid_argv(o->run_cmd, 0) ||
			    !valid_argv(o->env, 0)) {
				*why = "an option's list is too long";
				return -EINVAL;
			}
		}
		if (d->ml_variant && !valid_name(d->ml_variant)) {
			*why = "ml_variant must match [a-z0-9_-]{1,32}";
			return -EINVAL;
		}
	}
	if (d->struct_size >= offsetof(struct sbx_plugin, package_env) +
				      sizeof(d->package_env) &&
	    d->package_ecosystem) {
		if (!pkg_ecosystem_known(d->package_ecosystem)) {
			*why = "package_ecosystem must be pypi, npm, go or "
			       "cargo";
			return -EINVAL;
		}
		if (!valid_argv(d->install_cmd, 1) ||
		    !valid_argv(d->manifest_cmd, 1) ||
		    !valid_argv(d->registry_cmd, 0) ||
		    !valid_argv(d->registry_env, 0) ||
		    !valid_argv(d->install_env, 0) ||
		    !valid_argv(d->package_env, 0)) {
			*why = "a language with a package_ecosystem needs "
			       "install_cmd and manifest_cmd";
			return -EINVAL;
		}
		if (d->struct_size >=
			    offsetof(struct sbx_plugin, registry_follow_cmd) +
				    sizeof(d->registry_follow_cmd) &&
		    !valid_argv(d->registry_follow_cmd, 0)) {
			*why = "registry_follow_cmd is too long";
			return -EINVAL;
		}
	}
	if (d->blocklist) {
		size_t i;
		regex_t re;

		for (i = 0; d->blocklist[i].pattern; i++) {
			if (regcomp(&re, d->blocklist[i].pattern,
				    REG_EXTENDED | REG_NEWLINE) != 0) {
				*why = "blocklist pattern is not a valid ERE";
				return -EINVAL;
			}
			regfree(&re);
		}
	}
	return 0;
}

void plugin_descriptor_copy(const struct sbx_plugin *d, struct sbx_plugin *out)
{
	size_t n =
		d->struct_size < sizeof(*out) ? d->struct_size : sizeof(*out);

	memset(out, 0, sizeof(*out));
	memcpy(out, d, n);
	out->struct_size = sizeof(*out);
}

const struct sbx_option *plugin_option(const struct plugin *pl,
				       const char *name)
{
	const struct sbx_option *o;

	for (o = pl->desc->options; o && o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

/* Is name (or an alias of d) already taken by a loaded plugin? */
static const char *name_clash(const struct plugin_set *set,
			      const struct sbx_plugin *d)
{
	size_t i;

	if (plugins_find(set, d->name))
		return d->name;
	for (i = 0; d->aliases && d->aliases[i]; i++)
		if (plugins_find(set, d->aliases[i]))
			return d->aliases[i];
	return NULL;
}

/* set->v moves when it grows: point each desc at its own copy. */
static void fix_desc_pointers(struct plugin_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		set->v[i].desc = &set->v[i].d;
}

static void load_one(struct plugin_set *set, const char *path)
{
	sbx_plugin_entry_fn entry;
	const struct sbx_plugin *d;
	const char *why = NULL, *clash;
	struct plugin *v;
	void *dl;

	dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		log_error("rejected plugin %s: %s", path, dlerror());
		set->rejected++;
		return;
	}
	*(void **)(&entry) = dlsym(dl, SBX_PLUGIN_ENTRY_SYMBOL);
	if (!entry) {
		log_error("rejected plugin %s: no %s symbol", path,
			  SBX_PLUGIN_ENTRY_SYMBOL);
		goto reject;
	}
	d = entry(&host_api);
	if (plugin_validate(d, &why)) {
		if (d && d->abi_major != SBX_PLUGIN_ABI_MAJOR)
			log_error("rejected plugin %s: ABI %u.%u, host "
				  "supports %d.x",
				  path, d->abi_major, d->abi_minor,
				  SBX_PLUGIN_ABI_MAJOR);
		else
			log_error("rejected plugin %s: %s", path, why);
		goto reject;
	}
	clash = name_clash(set, d);
	if (clash) {
		log_error("rejected plugin %s: language name '%s' is already "
			  "provided by another plugin",
			  path, clash);
		goto reject;
	}
	if (d->init && d->init(&host_api) != 0) {
		log_error("rejected plugin %s: its init hook failed", path);
		goto reject;
	}
	v = realloc(set->v, (set->n + 1) * sizeof(*v));
	if (!v) {
		log_error("rejected plugin %s: out of memory", path);
		if (d->fini)
			d->fini();
		goto reject;
	}
	set->v = v;
	v = &set->v[set->n++];
	memset(v, 0, sizeof(*v));
	plugin_descriptor_copy(d, &v->d);
	fix_desc_pointers(set);
	v->dl = dl;
	v->path = strdup(path);
	log_info("loaded plugin %s %s (ABI %u.%u) from %s", d->name,
		 d->version ? d->version : "?", d->abi_major, d->abi_minor,
		 path);
	return;
reject:
	set->rejected++;
	dlclose(dl);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int plugins_load_dir(struct plugin_set *set, const char *dir)
{
	struct dirent *de;
	char **names = NULL, **nn, path[4096];
	size_t n = 0, i, len;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (len < 4 || strcmp(de->d_name + len - 3, ".so") != 0)
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (names[i] && (size_t)snprintf(path, sizeof(path), "%s/%s",
						 dir, names[i]) < sizeof(path))
			load_one(set, path);
		free(names[i]);
	}
	free(names);
	return 0;
}

const struct plugin *plugins_find(const struct plugin_set *set,
				  const char *name)
{
	size_t i, j;

	for (i = 0; i < set->n; i++) {
		const struct sbx_plugin *d = &set->v[i].d;

		if (strcmp(d->name, name) == 0)
			return &set->v[i];
		for (j = 0; d->aliases && d->aliases[j]; j++)
			if (strcmp(d->aliases[j], name) == 0)
				return &set->v[i];
	}
	return NULL;
}

static void policy_close(struct policy *p)
{
	blocklist_close(&p->blocklist);
	free(p->seccomp_deny);
	free(p->seccomp_profile);
	free(p->image);
	free(p->network);
	free(p->registry);
	memset(p, 0, sizeof(*p));
}

#define PICK(field)                                                            \
	p->limits.field = lc && lc->limits.field ? lc->limits.field            \
			  : d->limits.field	 ? d->limits.field             \
						 : cfg->limits.field

/* The plugin's rules (unless the section dropped them), then the
 * section's `block` patterns; the mode from the section, else [limits]. */
static int policy_blocklist(struct policy *p, const struct sbx_plugin *d,
			    const struct lang_config *lc,
			    const struct config *cfg)
{
	struct blocklist *bl = &p->blocklist;
	int rc = 0;

	bl->mode = lc && lc->blocklist_mode >= 0
			   ? (enum blocklist_mode)lc->blocklist_mode
			   : (enum blocklist_mode)cfg->blocklist_mode;
	bl->lex = d->lex_mask;
	for (size_t i = 0; !(lc && lc->block_clear) && d->blocklist &&
			   d->blocklist[i].pattern && rc != -ENOMEM;
	     i++) {
		rc = blocklist_add(bl, d->blocklist[i].pattern,
				   d->blocklist[i].reason
					   ? d->blocklist[i].reason
					   : "a rule of the plugin",
				   0);
		if (rc == -EINVAL) /* validated at load: cannot happen */
			log_error("[%s] blocklist rule '%s' does not compile",
				  d->name, d->blocklist[i].pattern);
	}
	for (size_t i = 0; lc && i < lc->nblocklist && rc != -ENOMEM; i++) {
		rc = blocklist_add(bl, lc->blocklist[i],
				   "matches a block pattern of sandbox.ini", 1);
		if (rc == -EINVAL)
			log_error("[%s] block pattern '%s' does not compile "
				  "(skipped)",
				  d->name, lc->blocklist[i]);
	}
	return rc == -ENOMEM ? -ENOMEM : 0;
}

/* Is d named (by name or alias) in [pool] warm_at_start, or is it "*"? */
static int warm_listed(const struct config *cfg, const struct sbx_plugin *d)
{
	size_t i, j;

	for (i = 0; i < cfg->nwarm_at_start; i++) {
		const char *w = cfg->warm_at_start[i];

		if (strcmp(w, "*") == 0 || strcmp(w, d->name) == 0)
			return 1;
		for (j = 0; d->aliases && d->aliases[j]; j++)
			if (strcmp(w, d->aliases[j]) == 0)
				return 1;
	}
	return 0;
}

static int policy_resolve(struct policy *p, const struct config *cfg,
			  const struct sbx_plugin *d)
{
	const struct lang_config *lc = config_lang(cfg, d->name);
	const char *why;
	size_t n = 0, i;

	memset(p, 0, sizeof(*p));
	p->enabled = lc && lc->enabled >= 0 ? lc->enabled : 1;
	p->image = strdup(lc && lc->image ? lc->image : d->image);
	p->pool_size = lc && lc->pool_size >= 0 ? (uint32_t)lc->pool_size
						: cfg->pool_size;
	p->pool_max_size = lc && lc->pool_max_size >= 0
				   ? (uint32_t)lc->pool_max_size
				   : cfg->pool_max_size;
	if (p->pool_max_size < p->pool_size)
		p->pool_max_size = p->pool_size;
	p->warm_at_start = warm_listed(cfg, d);
	p->max_uses = lc && lc->max_uses >= 0 ? (uint32_t)lc->max_uses
					      : cfg->max_uses;
	PICK(memory_mb);
	PICK(cpu_millis);
	PICK(pids);
	PICK(timeout_ms);
	PICK(stdout_cap);
	PICK(stderr_cap);
	PICK(nofile);
	PICK(fsize_mb);
	PICK(work_mb);
	PICK(tmp_mb);
	p->max_timeout_ms = lc && lc->max_timeout_ms ? lc->max_timeout_ms
						     : cfg->max_timeout_ms;
	if (p->limits.timeout_ms > p->max_timeout_ms)
		p->limits.timeout_ms = p->max_timeout_ms;
	p->start_timeout_ms = lc && lc->start_timeout_ms
				      ? lc->start_timeout_ms
				      : cfg->start_timeout_ms;
	p->reset_timeout_ms = lc && lc->reset_timeout_ms
				      ? lc->reset_timeout_ms
				      : cfg->reset_timeout_ms;
	p->interrupt_grace_ms = cfg->interrupt_grace_ms;
	p->max_code_bytes = cfg->max_code_bytes;
	p->shm_mb = cfg->shm_mb;
	/* Files in the tmpfs mounts are memory of the container: tmpfs that
	 * could outgrow the limit would end a program that fills them in a
	 * kill instead of "No space left on device". */
	if ((uint64_t)p->limits.work_mb + p->limits.tmp_mb + p->shm_mb >
	    p->limits.memory_mb) {
		log_error("[%s] work_mb %u + tmp_mb %u + shm_mb %u = %u MiB "
			  "exceed memory_mb %u: files in these tmpfs count "
			  "toward the memory limit; lower them or raise "
			  "memory_mb",
			  d->name, p->limits.work_mb, p->limits.tmp_mb,
			  p->shm_mb,
			  p->limits.work_mb + p->limits.tmp_mb + p->shm_mb,
			  p->limits.memory_mb);
		policy_close(p);
		return -EINVAL;
	}
	p->network = strdup(lc && lc->network ? lc->network : cfg->network);
	if (lc && lc->registry && !(p->registry = strdup(lc->registry)))
		goto nomem;

	if (!p->image || !p->network || policy_blocklist(p, d, lc, cfg))
		goto nomem;

	n = 0;
	if (lc && lc->has_seccomp_deny)
		n = lc->nseccomp_deny;
	else
		for (; d->seccomp_deny && d->seccomp_deny[n]; n++)
			;
	p->seccomp_deny = calloc(n + 1, sizeof(*p->seccomp_deny));
	if (!p->seccomp_deny)
		goto nomem;
	for (i = 0; i < n; i++)
		p->seccomp_deny[i] = lc && lc->has_seccomp_deny
					     ? lc->seccomp_deny[i]
					     : d->seccomp_deny[i];
	p->seccomp_profile = seccomp_profile_json(p->seccomp_deny, &why);
	if (!p->seccomp_profile) {
		if (!why)
			goto nomem;
		log_warn("%s: %s: its containers keep the engine's default "
			 "profile",
			 d->name, why);
	}
	return 0;
nomem:
	policy_close(p);
	return -ENOMEM;
}

int plugins_apply_config(struct plugin_set *set, const struct config *cfg)
{
	size_t i;
	int rc;

	for (i = 0; i < set->n; i++) {
		policy_close(&set->v[i].policy);
		rc = policy_resolve(&set->v[i].policy, cfg, set->v[i].desc);
		if (rc)
			return rc;
	}
	for (i = 0; i < cfg->nlangs; i++)
		if (!plugins_find(set, cfg->langs[i].name))
			log_warn("%s:%d: [%s]: no plugin provides this "
				 "language (section ignored)",
				 cfg->langs[i].file ? cfg->langs[i].file
						    : "config",
				 cfg->langs[i].line, cfg->langs[i].name);
	for (i = 0; i < cfg->nwarm_at_start; i++)
		if (strcmp(cfg->warm_at_start[i], "*") != 0 &&
		    !plugins_find(set, cfg->warm_at_start[i]))
			log_warn("[pool] warm_at_start: no plugin provides "
				 "'%s' (ignored)",
				 cfg->warm_at_start[i]);
	return 0;
}

void plugins_close(struct plugin_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		policy_close(&set->v[i].policy);
		if (set->v[i].desc->fini)
			set->v[i].desc->fini();
		dlclose(set->v[i].dl);
		free(set->v[i].path);
	}
	free(set->v);
	memset(set, 0, sizeof(*set));
}
