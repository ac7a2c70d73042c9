/*
 * plugins.c - dlopen'ed language plugins and their effective policy.
 */
#include "plugins.h"
#include "core/packages/packages.h"
#include "core/engines/seccomp_profile.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_proto.h"
#include "util/log.h"

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

/* The buffers hooks hand over: host->alloc puts this before each, and
 * plugin_buffer_take() frees only what carries it. */
struct buffer_head {
	uint64_t magic;
	size_t size;
};
#define BUFFER_MAGIC 0x21465542584253ULL /* "SBXBUF!" */

static void *api_alloc(size_t size)
{
	struct buffer_head *h;

	if (size > SIZE_MAX - sizeof(*h))
		return NULL;
	h = malloc(sizeof(*h) + size);
	if (!h)
		return NULL;
	h->magic = BUFFER_MAGIC;
	h->size = size;
	return h + 1;
}

static void api_free(void *p)
{
	struct buffer_head *h;

	if (!p)
		return;
	h = (struct buffer_head *)p - 1;
	if (h->magic != BUFFER_MAGIC) {
		log_error("a plugin gave host->free memory that host->alloc "
			  "did not return (not freed)");
		return;
	}
	h->magic = 0;
	free(h);
}

char *plugin_buffer_take(const struct plugin *pl, char *buf, size_t len,
			 size_t *out_len)
{
	struct buffer_head *h;
	char *copy;

	if (!buf)
		return NULL;
	h = (struct buffer_head *)(void *)buf - 1;
	if (h->magic != BUFFER_MAGIC) {
		log_error("[%s] a hook returned memory that host->alloc did "
			  "not return (not used, not freed)",
			  pl->desc->name);
		return NULL;
	}
	if (!out_len) /* a message: NUL-terminated within the buffer */
		len = strnlen(buf, h->size);
	else if (len > h->size) {
		log_error(
			"[%s] a hook returned a length of %zu for a buffer of "
			"%zu bytes (not used)",
			pl->desc->name, len, h->size);
		api_free(buf);
		return NULL;
	}
	copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, buf, len);
		copy[len] = '\0';
		if (out_len)
			*out_len = len;
	}
	api_free(buf);
	return copy;
}

static const struct sbx_host_api host_api = {
	.struct_size = sizeof(struct sbx_host_api),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.host_version = SBX_VERSION,
	.log = api_log,
	.alloc = api_alloc,
	.free = api_free,
};

const struct sbx_host_api *plugins_host_api(void)
{
	return &host_api;
}

static int valid_name(const char *s)
{
	return s && config_valid_lang_name(s);
}

/* s is set and at most max bytes long (read no further). */
static int bounded(const char *s, size_t max)
{
	return s && strnlen(s, max + 1) <= max;
}

/* A one-line text for people: printable, bounded; NULL is fine. */
static int valid_text(const char *s, size_t max)
{
	if (!s)
		return 1;
	if (!bounded(s, max))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static int valid_file_name(const char *s)
{
	return bounded(s, 128) && *s && !strchr(s, '/') &&
	       strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* An image reference: [A-Za-z0-9._/:@-], 255 bytes at most. */
static int valid_image(const char *s)
{
	return bounded(s, 255) && *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789._/:@-") == strlen(s);
}

/* An argv: at most 256 strings of at most 4096 bytes; required ones have
 * a non-empty first. */
static int valid_argv(const char *const *v, int required)
{
	size_t n = 0;

	if (!v)
		return !required;
	for (; v[n]; n++)
		if (n >= 256 || !bounded(v[n], 4096))
			return 0;
	return n > 0 ? v[0][0] != '\0' : !required;
}

/* KEY=VALUE entries with a shell-variable KEY. */
static int valid_env(const char *const *v)
{
	if (!valid_argv(v, 0))
		return 0;
	for (size_t i = 0; v && v[i]; i++) {
		size_t k =
			strspn(v[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
				     "nopqrstuvwxyz0123456789_");

		if (!k || v[i][k] != '=' || (v[i][0] >= '0' && v[i][0] <= '9'))
			return 0;
	}
	return 1;
}

/* A module's name as a hint may print it. */
static int valid_module(const char *s)
{
	return bounded(s, 128) && *s &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_.@/-") == strlen(s);
}

/* Where each minor's fields end: a descriptor of minor m is at least
 * this long. */
static const size_t minor_end[] = {
	offsetof(struct sbx_plugin, options),		  /* 1.0 */
	offsetof(struct sbx_plugin, warmup_code),	  /* 1.1 */
	offsetof(struct sbx_plugin, session_cmd),	  /* 1.2 */
	offsetof(struct sbx_plugin, package_ecosystem),	  /* 1.3 */
	offsetof(struct sbx_plugin, registry_follow_cmd), /* 1.4 */
	offsetof(struct sbx_plugin, lex_mask),		  /* 1.5 */
	offsetof(struct sbx_plugin, init_msg),		  /* 1.6 */
	offsetof(struct sbx_plugin, prestart),		  /* 1.7 */
	offsetof(struct sbx_plugin, missing_module),	  /* 1.8 */
	sizeof(struct sbx_plugin),			  /* 1.9 */
	sizeof(struct sbx_plugin),			  /* 1.10 */
};
_Static_assert(sizeof(minor_end) / sizeof(minor_end[0]) ==
		       SBX_PLUGIN_ABI_MINOR + 1,
	       "a new minor needs its end in minor_end");

/* Limits a plugin may declare (0 is "the host's default"). */
static int valid_limits(const struct sbx_limits *l)
{
	return l->memory_mb <= 1u << 20 && l->cpu_millis <= 1024000 &&
	       l->pids <= 4194304 && l->timeout_ms <= 86400000 &&
	       l->stdout_cap <= 1u << 30 && l->stderr_cap <= 1u << 30 &&
	       l->nofile <= 1u << 20 && l->fsize_mb <= 1u << 20 &&
	       l->work_mb <= 1u << 20 && l->tmp_mb <= 1u << 20;
}

/* The fields of a descriptor the header checks let through, on a copy
 * (what a plugin of an older minor lacks reads as NULL). */
static int validate_fields(const struct sbx_plugin *d, struct error *err)
{
	size_t i;

#define FAIL(msg) return error_set_msg(err, -EINVAL, msg)
	if (!valid_name(d->name))
		FAIL("name must match [a-z0-9_-]{1,32}");
	for (i = 0; d->aliases && d->aliases[i]; i++)
		if (!valid_name(d->aliases[i]) || i >= 32)
			FAIL("alias must match [a-z0-9_-]{1,32} (32 at most)");
	if (!valid_text(d->version, 64))
		FAIL("version must be one printable line of 64 bytes at most");
	if (!valid_text(d->description, 300))
		FAIL("description must be one printable line of 300 bytes at "
		     "most");
	if (!valid_image(d->image))
		FAIL("image must be an image reference ([A-Za-z0-9._/:@-], "
		     "255 bytes at most)");
	if (!valid_file_name(d->file_name))
		FAIL("file_name must be a plain file name");
	if (!valid_argv(d->run_cmd, 1))
		FAIL("run_cmd must be a non-empty argv");
	if (!valid_argv(d->build_cmd, 0) || !valid_argv(d->seccomp_deny, 0) ||
	    !valid_argv(d->install_cmd, 0))
		FAIL("a list is too long, or has a string over 4096 bytes");
	if (!valid_env(d->env))
		FAIL("env entries must be KEY=VALUE");
	if (!valid_limits(&d->limits))
		FAIL("a limit is out of range (docs/plugin-abi.md)");
	for (i = 0; d->blocklist && d->blocklist[i].pattern; i++) {
		regex_t re;

		if (i >= 256 || !bounded(d->blocklist[i].pattern, 4096) ||
		    !valid_text(d->blocklist[i].reason, 300))
			FAIL("blocklist: 256 rules at most, patterns of 4096 "
			     "bytes, reasons of one line");
		if (regcomp(&re, d->blocklist[i].pattern,
			    REG_EXTENDED | REG_NEWLINE) != 0)
			FAIL("blocklist pattern is not a valid ERE");
		regfree(&re);
	}
	/* 1.1 */
	for (i = 0; d->options && d->options[i].name; i++) {
		const struct sbx_option *o = &d->options[i];

		if (i >= 16 || !bounded(o->name, 32) || !*o->name ||
		    strspn(o->name, "abcdefghijklmnopqrstuvwxyz_") !=
			    strlen(o->name))
			FAIL("option names must match [a-z_]{1,32} (16 at "
			     "most)");
		if (!valid_text(o->description, 300))
			FAIL("an option's description must be one line");
		if (!valid_argv(o->build_cmd, 0) ||
		    !valid_argv(o->run_cmd, 0) || !valid_env(o->env))
			FAIL("an option's list is too long or its env is not "
			     "KEY=VALUE");
	}
	if (d->ml_variant && !valid_name(d->ml_variant))
		FAIL("ml_variant must match [a-z0-9_-]{1,32}");
	/* 1.2 */
	if (d->warmup_code && !bounded(d->warmup_code, 1u << 20))
		FAIL("warmup_code is over 1 MiB");
	/* 1.3 */
	if (!valid_argv(d->session_cmd, 0))
		FAIL("session_cmd is too long");
	if (d->session_request && !d->session_cmd)
		FAIL("session_request without a session_cmd");
	/* 1.4, 1.5 */
	if (d->package_ecosystem) {
		if (!pkg_ecosystem_known(d->package_ecosystem))
			FAIL("package_ecosystem must be pypi, npm, go or "
			     "cargo");
		if (!valid_argv(d->install_cmd, 1) ||
		    !valid_argv(d->manifest_cmd, 1))
			FAIL("a language with a package_ecosystem needs "
			     "install_cmd and manifest_cmd");
		if (!valid_argv(d->registry_cmd, 0) ||
		    !valid_env(d->registry_env) || !valid_env(d->install_env) ||
		    !valid_env(d->package_env) ||
		    !valid_argv(d->registry_follow_cmd, 0))
			FAIL("a package list is too long or an env entry is "
			     "not KEY=VALUE");
		if (d->package_path && *d->package_path &&
		    !valid_file_name(d->package_path))
			FAIL("package_path must be empty or a plain directory "
			     "name");
	}
	/* 1.7, 1.10 */
	if (d->samples) {
		struct sbx_samples x;
		const char *v[7];

		plugin_samples_copy(d, &x);
		v[0] = x.hello, v[1] = x.echo, v[2] = x.fail, v[3] = x.spin;
		v[4] = x.session_set, v[5] = x.session_get;
		v[6] = x.session_fds;
		for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			if (v[i] && !bounded(v[i], 65536))
				FAIL("a sample program is over 64 KiB");
	}
	/* 1.8 */
	if (d->prestart) {
		if (d->prestart->handover != SBX_PRESTART_FD3)
			FAIL("prestart.handover must be SBX_PRESTART_FD3");
		if ((d->prestart->cmd && !valid_argv(d->prestart->cmd, 1)) ||
		    !valid_env(d->prestart->env))
			FAIL("prestart.cmd must be NULL or a non-empty argv, "
			     "prestart.env KEY=VALUE entries");
	}
	/* 1.9 */
	if (d->missing_module) {
		regex_t re;
		int one;

		if (!bounded(d->missing_module, 4096) ||
		    regcomp(&re, d->missing_module,
			    REG_EXTENDED | REG_NEWLINE) != 0)
			FAIL("missing_module is not a valid ERE of 4096 bytes "
			     "at most");
		one = re.re_nsub >= 1;
		regfree(&re);
		if (!one)
			FAIL("missing_module has no subexpression for the "
			     "module's name");
	}
	for (i = 0; d->modules && d->modules[i]; i++)
		if (i >= 4096 || !valid_module(d->modules[i]))
			FAIL("modules: 4096 names at most, each 1 to 128 "
			     "bytes of [A-Za-z0-9_.@/-]");
#undef FAIL
	return 0;
}

int plugin_validate(const struct sbx_plugin *d, struct error *err)
{
	struct sbx_plugin c;

	if (!d)
		return error_set_msg(err, -EINVAL,
				     "entry function returned NULL");
	if (d->abi_major != SBX_PLUGIN_ABI_MAJOR)
		return error_set_msg(
			err, -EINVAL,
			"ABI major version differs from the host's");
	if (d->struct_size < minor_end[0])
		return error_set_msg(
			err, -EINVAL,
			"descriptor struct_size is smaller than ABI 1.0's");
	if (d->struct_size < minor_end[d->abi_minor <= SBX_PLUGIN_ABI_MINOR
					       ? d->abi_minor
					       : SBX_PLUGIN_ABI_MINOR])
		return error_set_msg(
			err, -EINVAL,
			"descriptor struct_size is smaller than its ABI "
			"minor's (built against another header?)");
	if (d->struct_size > 1u << 16)
		return error_set_msg(
			err, -EINVAL,
			"descriptor struct_size is implausibly large");
	plugin_descriptor_copy(d, &c);
	return validate_fields(&c, err);
}

void plugin_descriptor_copy(const struct sbx_plugin *d, struct sbx_plugin *out)
{
	size_t n =
		d->struct_size < sizeof(*out) ? d->struct_size : sizeof(*out);

	memset(out, 0, sizeof(*out));
	memcpy(out, d, n);
	out->struct_size = sizeof(*out);
}

void plugin_samples_copy(const struct sbx_plugin *d, struct sbx_samples *out)
{
	/* No size of its own: the plugin's minor says where it ends. */
	size_t n = d->abi_minor >= 10
			   ? sizeof(*out)
			   : offsetof(struct sbx_samples, session_fds);

	memset(out, 0, sizeof(*out));
	if (d->samples)
		memcpy(out, d->samples, n);
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

/* Log the rejection of path and keep the reason for doctor and inspect. */
static void reject(struct plugin_set *set, const char *path, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

static void reject(struct plugin_set *set, const char *path, const char *fmt,
		   ...)
{
	struct plugin_reject *r;
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	log_error("rejected plugin %s: %s", path, reason);
	set->rejected++;
	r = realloc(set->rejects, set->rejected * sizeof(*r));
	if (!r)
		return;
	set->rejects = r;
	r[set->rejected - 1].path = strdup(path);
	r[set->rejected - 1].reason = strdup(reason);
}

/* Who may write st's file, beyond root and us: "" when nobody. */
static const char *others_may_write(const struct stat *st)
{
	if (st->st_mode & S_IWOTH)
		return "every user may write it";
	if (st->st_mode & S_IWGRP)
		return "its group may write it";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "it belongs to another user, who may write it";
	return "";
}

/* May a directory on the way to a plugin stay as it is? "" when only root
 * or we can change what it holds. A parent (not the plugin's own
 * directory) that others may write is still safe with the sticky bit
 * (/tmp): there only an entry's owner may rename or remove it, and every
 * entry on the way must be root's or ours. ssh's StrictModes refuses
 * these too; mkdtemp directories under /tmp are how tests and an SDK's
 * users try a plugin. */
static const char *dir_unsafe(const struct stat *st, int parent)
{
	const char *who = others_may_write(st);

	if (*who && parent && (st->st_mode & S_ISVTX) &&
	    (st->st_uid == 0 || st->st_uid == geteuid()))
		return "";
	return who;
}

/* Resolve dir as the kernel would, checking every directory it passes
 * through (each parent up to /, and those holding a symbolic link on the
 * way) and that every link is root's or ours: whoever could change one of
 * them could point the path anywhere. The resolved directory into real.
 * 0, or a negative errno with err. */
static int dir_walk(const char *dir, char *real, size_t real_size,
		    struct error *err)
{
	char todo[PATH_MAX * 2], cur[PATH_MAX], next[PATH_MAX * 2 + 8];
	char link[PATH_MAX];
	unsigned links = 0;
	struct stat st;
	const char *who;
	size_t len;

	if (dir[0] == '/')
		snprintf(todo, sizeof(todo), "%s", dir);
	else if (getcwd(cur, sizeof(cur)))
		snprintf(todo, sizeof(todo), "%s/%s", cur, dir);
	else
		return error_set(err, -errno, "its directory: %s",
				 strerror(errno));
	snprintf(cur, sizeof(cur), "/");
	if (lstat("/", &st) != 0 || *(who = dir_unsafe(&st, 1)))
		return error_set(err, -EPERM, "the root directory is not safe");
	for (;;) {
		char *p = todo, *c;
		int last;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		c = p;
		len = strcspn(p, "/");
		p += len;
		while (*p == '/')
			p++;
		last = *p == '\0';
		c[len] = '\0';
		/* cur is safe (checked below when it was entered). */
		if (strcmp(c, ".") == 0 || strcmp(c, "..") == 0) {
			if (c[1] == '.' && strcmp(cur, "/") != 0) {
				char *slash = strrchr(cur, '/');

				slash[slash == cur ? 1 : 0] = '\0';
			}
			memmove(todo, p, strlen(p) + 1);
			continue;
		}
		if (strlen(cur) + strlen(c) + 2 > sizeof(cur))
			return error_set(err, -ENAMETOOLONG,
					 "its path is too long");
		snprintf(next, sizeof(next), "%s%s%.*s", cur,
			 strcmp(cur, "/") == 0 ? "" : "/", (int)(PATH_MAX - 2),
			 c);
		if (lstat(next, &st) != 0)
			return error_set(err, -errno, "its directory %s: %s",
					 next, strerror(errno));
		if (S_ISLNK(st.st_mode)) {
			ssize_t n;
			char rest[PATH_MAX * 2];

			if (st.st_uid != 0 && st.st_uid != geteuid())
				return error_set(
					err, -EPERM,
					"its path is not safe: the symbolic "
					"link %s belongs to another user, who "
					"may point it elsewhere",
					next);
			n = readlink(next, link, sizeof(link) - 1);
			if (n < 0 || ++links > 40)
				return error_set(
					err, n < 0 ? -errno : -ELOOP,
					"its directory %s: %s", next,
					strerror(n < 0 ? errno : ELOOP));
			link[n] = '\0';
			snprintf(rest, sizeof(rest), "%s/%s", link, p);
			snprintf(todo, sizeof(todo), "%s", rest);
			if (link[0] == '/')
				snprintf(cur, sizeof(cur), "/");
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			return error_set(err, -ENOTDIR, "its directory %s: %s",
					 next, strerror(ENOTDIR));
		who = dir_unsafe(&st, !last);
		if (*who)
			return error_set(
				err, -EPERM,
				"its %s %s is not safe: %s (chmod go-w, or "
				"chown root)",
				last ? "directory" : "parent directory", next,
				who);
		memcpy(cur, next, strlen(next) + 1); /* fits: checked above */
		memmove(todo, p, strlen(p) + 1);
	}
	/* The directory reached, as the plugin's own (a path ending in ".."
	 * reaches one checked as a parent). */
	if (lstat(cur, &st) != 0 || *(who = dir_unsafe(&st, 0)))
		return error_set(
			err, -EPERM,
			"its directory %s is not safe: %s (chmod go-w, or "
			"chown root)",
			cur, *who ? who : strerror(errno));
	snprintf(real, real_size, "%s", cur);
	return 0;
}

int plugin_file_check(const char *path, int *fd, char *real, size_t real_size,
		      struct error *err)
{
	char dir[PATH_MAX], rdir[PATH_MAX];
	const char *base = strrchr(path, '/');
	struct stat st;
	const char *who;
	int f, rc;

	*fd = -1;
	/* Every directory on the way: whoever may write one may swap the
	 * file, or the directory, or point a link elsewhere. */
	snprintf(dir, sizeof(dir), "%.*s",
		 base ? (int)(base - path) + (base == path) : 1,
		 base ? path : ".");
	base = base ? base + 1 : path;
	rc = dir_walk(dir, rdir, sizeof(rdir), err);
	if (rc)
		return rc;
	if ((size_t)snprintf(real, real_size, "%s%s%s", rdir,
			     strcmp(rdir, "/") == 0 ? "" : "/",
			     base) >= real_size)
		return error_set(err, -ENAMETOOLONG, "its path is too long");
	f = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (f < 0) {
		int e = errno;

		if (e == ELOOP)
			return error_set(err, -e,
					 "a symbolic link (name the file "
					 "itself)");
		return error_set(err, -e, "%s", strerror(e));
	}
	if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(f);
		return error_set(err, -EPERM, "not a regular file");
	}
	who = others_may_write(&st);
	if (*who) {
		close(f);
		return error_set(err, -EPERM,
				 "the file is not safe: %s (chmod go-w, or "
				 "chown root)",
				 who);
	}
	*fd = f;
	return 0;
}

static void load_one(struct plugin_set *set, const char *path)
{
	sbx_plugin_entry_fn entry;
	const struct sbx_plugin *d;
	const char *clash;
	struct stat checked, now;
	struct plugin *v;
	struct error err;
	char real[PATH_MAX];
	void *dl;
	int fd;

	if (plugin_file_check(path, &fd, real, sizeof(real), &err) != 0) {
		reject(set, path, "%s", err.msg);
		return;
	}
	/* Only root or we may change the directories on the way to the file
	 * as resolved, so nobody else can swap it now; that it is still the
	 * one checked is verified after. (dlopen of /proc/self/fd/N would
	 * not do: glibc takes a name it has loaded before for the same
	 * library.) */
	dl = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		close(fd);
		reject(set, path, "%s", dlerror());
		return;
	}
	if (fstat(fd, &checked) != 0 || stat(real, &now) != 0 ||
	    checked.st_dev != now.st_dev || checked.st_ino != now.st_ino) {
		close(fd);
		reject(set, path, "the file changed while it was loaded");
		goto reject;
	}
	close(fd);
	*(void **)(&entry) = dlsym(dl, SBX_PLUGIN_ENTRY_SYMBOL);
	if (!entry) {
		reject(set, path, "no %s symbol", SBX_PLUGIN_ENTRY_SYMBOL);
		goto reject;
	}
	d = entry(&host_api);
	if (plugin_validate(d, &err)) {
		if (d && d->abi_major != SBX_PLUGIN_ABI_MAJOR)
			reject(set, path, "ABI %u.%u, the host supports %d.x",
			       d->abi_major, d->abi_minor,
			       SBX_PLUGIN_ABI_MAJOR);
		else
			reject(set, path, "%s", err.msg);
		goto reject;
	}
	clash = name_clash(set, d);
	if (clash) {
		reject(set, path,
		       "language name '%s' is already provided by %s", clash,
		       plugins_find(set, clash)->path);
		goto reject;
	}
	if (d->abi_minor > SBX_PLUGIN_ABI_MINOR)
		log_info("plugin %s was built for ABI 1.%u: the fields after "
			 "this host's 1.%d are ignored",
			 path, d->abi_minor, SBX_PLUGIN_ABI_MINOR);
	if (d->struct_size >= minor_end[7] && d->init_msg) {
		/* The ABI's own way to say why: a buffer the plugin fills. */
		char buf[512] = "";

		if (d->init_msg(&host_api, buf, sizeof(buf)) != 0) {
			buf[sizeof(buf) - 1] = '\0';
			reject(set, path, "its init hook failed: %s",
			       buf[0] ? buf : "(no reason given)");
			goto reject;
		}
	} else if (d->init && d->init(&host_api) != 0) {
		reject(set, path, "its init hook failed");
		goto reject;
	}
	v = realloc(set->v, (set->n + 1) * sizeof(*v));
	if (!v) {
		reject(set, path, "out of memory");
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
	dlclose(dl);
}

void plugins_load_file(struct plugin_set *set, const char *path)
{
	load_one(set, path);
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

/* The end of a run's stderr that the hint looks at: where an uncaught
 * exception is printed, however much came before. */
#define HINT_TAIL 4096

const struct plugin *plugins_module_elsewhere(const struct plugin_set *set,
					      const struct plugin *pl,
					      const char *text, size_t len,
					      char *module, size_t size)
{
	const struct plugin *v;
	char tail[HINT_TAIL + 1];
	regmatch_t m[2];
	size_t n, i;

	if (!pl->policy.has_missing_module || !pl->desc->ml_variant || !len)
		return NULL;
	v = plugins_find(set, pl->desc->ml_variant);
	if (!v || v == pl || !v->policy.enabled || !v->desc->modules)
		return NULL;
	n = len < HINT_TAIL ? len : HINT_TAIL;
	memcpy(tail, text + len - n, n);
	tail[n] = '\0';
	for (i = 0; i < n; i++)
		if (!tail[i])
			tail[i] = ' ';
	if (regexec(&pl->policy.missing_module, tail, 2, m, 0) != 0 ||
	    m[1].rm_so < 0 || (size_t)(m[1].rm_eo - m[1].rm_so) >= size)
		return NULL;
	n = (size_t)(m[1].rm_eo - m[1].rm_so);
	memcpy(module, tail + m[1].rm_so, n);
	module[n] = '\0';
	for (i = 0; v->desc->modules[i]; i++)
		if (strcmp(v->desc->modules[i], module) == 0)
			return v;
	return NULL;
}

static void policy_close(struct policy *p)
{
	if (p->has_missing_module)
		regfree(&p->missing_module);
	blocklist_close(&p->blocklist);
	free(p->seccomp_deny);
	free(p->seccomp_profile);
	free(p->seccomp_file);
	free(p->image);
	free(p->network);
	free(p->registry);
	memset(p, 0, sizeof(*p));
}

#define PICK(field)                                                            \
	p->limits.field = lc && lc->limits.field ? lc->limits.field            \
			  : d->limits.field	 ? d->limits.field             \
						 : cfg->limits.field

/* A plugin asks; the host's ceiling decides (a [language] section of
 * sandbox.ini is the administrator's word and is not lowered). */
#define CAP(field, ceiling)                                                    \
	do {                                                                   \
		if (!(lc && lc->limits.field) &&                               \
		    d->limits.field > (ceiling)) {                             \
			log_warn("[%s] the plugin asks for " #field " %u; "    \
				 "lowered to the host's ceiling %u ([limits] " \
				 "max_*)",                                     \
				 d->name, d->limits.field, (ceiling));         \
			p->limits.field = (ceiling);                           \
		}                                                              \
	} while (0)

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

/* A larger cap would be a promise the agent does not keep. Both streams
 * then fit one reply (AP_MAX_FRAME) with the rest of it. */
_Static_assert(2 * POLICY_OUTPUT_CAP_MAX + (4u << 20) <= AP_MAX_FRAME,
	       "room for the rest of AP_EXEC_DONE");

static void output_cap_fit(const char *lang, const char *name, uint32_t *cap)
{
	if (*cap <= POLICY_OUTPUT_CAP_MAX)
		return;
	log_warn("[%s] %s %u is over %u, the most the agent captures of a "
		 "stream: lowered to it",
		 lang, name, *cap, POLICY_OUTPUT_CAP_MAX);
	*cap = POLICY_OUTPUT_CAP_MAX;
}

static int policy_resolve(struct policy *p, const struct config *cfg,
			  const struct sbx_plugin *d)
{
	const struct lang_config *lc = config_lang(cfg, d->name);
	struct error err;
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
	p->prestart =
		d->prestart &&
		(lc && lc->prestart >= 0 ? lc->prestart : (int)cfg->prestart);
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
	/* A file as large as /work, not cut short below it by a smaller
	 * RLIMIT_FSIZE (EFBIG with room left) unless someone asked. */
	if (!p->limits.fsize_mb)
		p->limits.fsize_mb = p->limits.work_mb;
	CAP(memory_mb, cfg->max_memory_mb);
	CAP(cpu_millis, cfg->max_cpu_millis);
	CAP(pids, cfg->max_pids);
	CAP(stdout_cap, cfg->max_output_cap);
	CAP(stderr_cap, cfg->max_output_cap);
	output_cap_fit(d->name, "stdout_cap", &p->limits.stdout_cap);
	output_cap_fit(d->name, "stderr_cap", &p->limits.stderr_cap);
	p->max_timeout_ms = lc && lc->max_timeout_ms ? lc->max_timeout_ms
						     : cfg->max_timeout_ms;
	if (p->limits.timeout_ms > p->max_timeout_ms) {
		log_warn("[%s] %s asks for timeout_ms %u; lowered to the "
			 "host's ceiling %u ([limits] max_timeout_ms, or the "
			 "section's)",
			 d->name,
			 lc && lc->limits.timeout_ms
				 ? "its section of sandbox.ini"
			 : d->limits.timeout_ms ? "the plugin"
						: "[limits]",
			 p->limits.timeout_ms, p->max_timeout_ms);
		p->limits.timeout_ms = p->max_timeout_ms;
	}
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
	/* Checked by validate_fields: only memory can fail here. */
	if (d->missing_module) {
		if (regcomp(&p->missing_module, d->missing_module,
			    REG_EXTENDED | REG_NEWLINE) != 0)
			goto nomem;
		p->has_missing_module = 1;
	}

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
	p->seccomp_profile = seccomp_profile_json(p->seccomp_deny, &err);
	if (!p->seccomp_profile) {
		if (err.code == -ENOMEM)
			goto nomem;
		log_warn("%s: %s: its containers keep the engine's default "
			 "profile",
			 d->name, err.msg);
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
	for (i = 0; set->rejects && i < set->rejected; i++) {
		free(set->rejects[i].path);
		free(set->rejects[i].reason);
	}
	free(set->rejects);
	memset(set, 0, sizeof(*set));
}

int plugins_write_seccomp(struct plugin_set *set, const char *dir,
			  struct error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < set->n; i++) {
		struct policy *po = &set->v[i].policy;

		if (!po->seccomp_profile || po->seccomp_file)
			continue;
		rc = seccomp_profile_file(po->seccomp_profile, dir,
					  &po->seccomp_file, err);
		if (rc)
			return rc;
	}
	return 0;
}
