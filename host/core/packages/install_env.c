/*
 * install_env.c - what an installer runs with (install_internal.h): the
 * plugin's commands with their placeholders expanded, the environment of
 * each step in the install box, the environment of a run that uses
 * installed sets (install.h), and the egress proxy's allow-list from the
 * registries the installer names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/exec/executor.h"
#include "install_internal.h"
#include "install_proxy.h"

/* ---- argv and environment ---- */

int install_expand(const char *const *cmd, const struct install_specs *s,
		   const char **out, size_t max)
{
	size_t n = 0, i, k;

	for (i = 0; cmd && cmd[i]; i++) {
		if (strcmp(cmd[i], "{packages}") == 0) {
			for (k = 0; k < s->n && n + 1 < max; k++)
				out[n++] = s->v[k];
			continue;
		}
		if (n + 1 >= max)
			return -E2BIG;
		out[n++] = strcmp(cmd[i], "{dir}") == 0 ? WORK_DIR : cmd[i];
	}
	out[n] = NULL;
	return n ? 0 : -EINVAL;
}

/* s with every "{name}" replaced by value (allocated). */
static char *subst(const char *s, const char *name, const char *value)
{
	const char *p = strstr(s, name);
	size_t nl = strlen(name), vl = strlen(value), sl = strlen(s), pre;
	char *out;

	if (!p)
		return strdup(s);
	pre = (size_t)(p - s);
	out = malloc(sl - nl + vl + 1);
	if (!out)
		return NULL;
	memcpy(out, s, pre);
	memcpy(out + pre, value, vl);
	memcpy(out + pre + vl, p + nl, sl - pre - nl);
	out[sl - nl + vl] = '\0';
	return out;
}

static void env_add(struct env_buf *e, const char *s)
{
	if (e->n < MAX_ENV)
		e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

/* Add a copy of s (the buffer owns it). */
static void env_add_copy(struct env_buf *e, const char *s)
{
	char *x;

	if (e->n >= MAX_ENV || !(x = strdup(s)))
		return;
	e->own[e->n] = x;
	env_add(e, x);
}

/* Add s with "{name}" expanded (NULL value: the entry is dropped). */
static void env_add_subst(struct env_buf *e, const char *s, const char *name,
			  const char *value)
{
	char *x;

	if (strstr(s, name) && !value)
		return;
	if (e->n >= MAX_ENV || !(x = subst(s, name, value ? value : "")))
		return;
	e->own[e->n] = x;
	env_add(e, x);
}

void install_env_buf_free(struct env_buf *e)
{
	size_t i;

	for (i = 0; i < MAX_ENV; i++)
		free(e->own[i]);
	memset(e, 0, sizeof(*e));
}

void install_job_env(struct job *j, struct env_buf *e, int with_install)
{
	const struct sbx_plugin *d = j->pl->desc;
	const char *reg = j->pl->policy.registry;
	static const char *const vars[] = {"HTTPS_PROXY", "https_proxy",
					   "HTTP_PROXY", "http_proxy"};
	char buf[160];
	size_t i;

	memset(e, 0, sizeof(*e));
	/* Temporary files (downloads, build directories: cargo runs build
	 * scripts from there) in /work, within the budget and executable,
	 * not in the small noexec /tmp. */
	for (i = 0; exec_base_env[i]; i++)
		if (strncmp(exec_base_env[i], "TMPDIR=", 7) != 0)
			env_add(e, exec_base_env[i]);
	env_add(e, "TMPDIR=/work");
	for (i = 0; d->env && d->env[i]; i++)
		env_add(e, d->env[i]);
	if (!with_install)
		return;
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "%s=" INSTALL_PROXY_URL, vars[i]);
		env_add_copy(e, buf);
	}
	env_add(e, "NO_PROXY=");
	env_add(e, "no_proxy=");
	for (i = 0; d->install_env && d->install_env[i]; i++)
		env_add_subst(e, d->install_env[i], "{ca}",
			      j->in->ca ? "/work/" CA_FILE : NULL);
	if (j->in->ca)
		env_add(e, "SSL_CERT_FILE=/work/" CA_FILE);
	for (i = 0; reg && d->registry_env && d->registry_env[i]; i++)
		env_add_subst(e, d->registry_env[i], "{registry}", reg);
}

char *install_paths(const struct plugin *pl,
		    const char (*keys)[PKG_KEY_LEN + 1], size_t n, char sep)
{
	const char *sub = pl->desc->package_path ? pl->desc->package_path : "";
	size_t each = strlen(INSTALL_MOUNT) + PKG_KEY_LEN + strlen(sub) + 3;
	char *out, *o;
	size_t i;

	if (!n || !(out = malloc(n * each + 1)))
		return NULL;
	o = out;
	for (i = 0; i < n; i++)
		o += sprintf(o, "%s" INSTALL_MOUNT "/%s%s%s",
			     i ? (char[]){sep, 0} : "", keys[i],
			     *sub ? "/" : "", sub);
	return out;
}

int install_run_env(const struct plugin *pl, const char *path, char **env,
		    size_t max)
{
	const struct sbx_plugin *d = pl->desc;
	size_t n = 0, i;

	for (i = 0; d->package_env && d->package_env[i]; i++) {
		if (n + 1 >= max) {
			env[n] = NULL;
			install_env_free(env);
			return -E2BIG;
		}
		if (!(env[n] = subst(d->package_env[i], "{path}", path))) {
			install_env_free(env);
			return -ENOMEM;
		}
		n++;
	}
	env[n] = NULL;
	return (int)n;
}

void install_env_free(char **env)
{
	size_t i;

	for (i = 0; env && env[i]; i++) {
		free(env[i]);
		env[i] = NULL;
	}
}

/* ---- the egress proxy's allow-list ---- */

void install_registries_key_of(const char *image_id, const struct plugin *pl,
			       char *out, size_t size)
{
	const char *reg = pl->policy.registry;

	snprintf(out, size, "%s%s%s", image_id, reg ? " " : "", reg ? reg : "");
}

void install_registries_key(const struct job *j, char *out, size_t size)
{
	install_registries_key_of(j->image_id, j->pl, out, size);
}

/* One registry's URL into the allow-list: its host:port, and for an http
 * one the URL the check asks for (the path kept when it is plain). */
static void allow_add(struct job *j, const char *url)
{
	char hp[300];
	const char *path;
	size_t k, i;

	if (pkg_url_hostport(url, hp, sizeof(hp)) != 0)
		return;
	for (k = 0; k < j->nallow; k++)
		if (strcmp(j->allow[k], hp) == 0)
			return;
	if (j->nallow >= MAX_ALLOW)
		return;
	memcpy(j->allow[k], hp, sizeof(hp));
	j->check[k][0] = '\0';
	if (strncmp(url, "http://", 7) == 0) {
		path = url + 7 + strcspn(url + 7, "/?#");
		for (i = 0; path[i] && path[i] > ' ' && path[i] < 0x7f; i++)
			;
		if (*path != '/' || path[i] || strlen(path) > 200)
			path = "/";
		snprintf(j->check[k], sizeof(j->check[k]), "http://%s%s", hp,
			 path);
	}
	j->nallow++;
}

int install_allow_urls(struct job *j, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char url[512];

		if (n && n < sizeof(url)) {
			memcpy(url, p, n);
			url[n] = '\0';
			while (n && (url[n - 1] == '\r' || url[n - 1] == ' '))
				url[--n] = '\0';
			if (n)
				allow_add(j, url);
		}
		p += n + 1;
	}
	return j->nallow ? 0 : -ENOENT;
}

static void allow_join(const struct job *j, int urls, char *out, size_t size)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < j->nallow && o < size; i++)
		o += (size_t)snprintf(out + o, size - o, "%s%s", i ? " " : "",
				      urls && j->check[i][0] ? j->check[i]
							     : j->allow[i]);
}

void install_allow_join(const struct job *j, char *out, size_t size)
{
	allow_join(j, 0, out, size);
}

void install_allow_join_urls(const struct job *j, char *out, size_t size)
{
	allow_join(j, 1, out, size);
}

void install_allow_split(struct job *j, const char *s)
{
	char one[300];

	while (*s && j->nallow < MAX_ALLOW) {
		size_t n = strcspn(s, " ");

		if (n && n < sizeof(one)) {
			snprintf(one, sizeof(one), "%.*s", (int)n, s);
			if (strstr(one, "://")) {
				allow_add(j, one);
			} else {
				memcpy(j->allow[j->nallow], one, sizeof(one));
				j->check[j->nallow++][0] = '\0';
			}
		}
		s += n;
		s += strspn(s, " ");
	}
}
