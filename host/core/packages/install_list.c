/*
 * install_list.c - cache list (installer_list(), install.h): a helper
 * container prints what the package volume holds (pkg_volume.h), read
 * only; this server's index adds what only it knows, a set's last use.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/network.h"
#include "install_internal.h"
#include "pkg_volume.h"

struct list {
	struct installer *in;
	install_list_cb cb;
	void *arg;
	char ident[128]; /* the volume's identity */
};

static void list_fail(struct list *l, int code, const char *msg)
{
	struct error err;

	error_set(&err, code, "listing the package volume %s failed: %s",
		  l->in->cfg->pkg_volume, msg);
	l->cb(&err, NULL, 0, l->arg);
	free(l);
}

static int by_created(const void *a, const void *b)
{
	const struct pkg_entry *x = a, *y = b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* What the volume cannot know, from the index, when it describes this
 * volume (another volume's index knows nothing of this one's sets). */
static void merge_index(struct list *l, struct pkg_listing *ls)
{
	struct pkg_cache *c = l->in->cache;
	size_t i;

	if (strcmp(pkg_cache_volume(c), l->ident) != 0)
		return;
	for (i = 0; i < ls->n; i++) {
		struct pkg_entry *e = &ls->v[i];
		const struct pkg_entry *known = pkg_cache_find(c, e->key);

		if (!known)
			continue;
		e->last_used = known->last_used;
		/* Stored by a server of before the record. */
		if (!e->lang[0])
			memcpy(e->lang, known->lang, sizeof(e->lang));
		if (!e->specs)
			e->specs = cJSON_Duplicate(known->specs, 1);
	}
}

static void list_done(const struct error *err, const char *out, size_t len,
		      void *arg)
{
	struct list *l = arg;
	struct pkg_listing ls;
	struct error perr;

	if (err) {
		list_fail(l, err->code, err->msg);
		return;
	}
	if (pkg_listing_parse(out, len, &ls, &perr)) {
		list_fail(l, perr.code, perr.msg);
		return;
	}
	merge_index(l, &ls);
	if (ls.n > 1)
		qsort(ls.v, ls.n, sizeof(*ls.v), by_created);
	l->cb(NULL, ls.v, ls.n, l->arg);
	pkg_listing_free(&ls);
	free(l);
}

static void list_volume_cb(const struct error *err, const char *ident,
			   int created, void *arg)
{
	struct list *l = arg;
	const char *argv[] = {"/bin/bash", "-c",	  pkg_listing_script,
			      "list",	   INSTALL_MOUNT, NULL};
	const struct install_helper hs = {
		.role = "list",
		.image = l->in->cfg->pkg_proxy_image,
		.user = "0",
		.argv = argv,
		.volume_ro = 1,
		.output = 1,
	};
	int rc;

	(void)created;
	if (err) {
		list_fail(l, install_engine_code(err), err->msg);
		return;
	}
	snprintf(l->ident, sizeof(l->ident), "%s", ident);
	rc = install_run_helper(l->in, &hs, list_done, l);
	if (rc)
		list_fail(l, ERR_INSTALL_FAILED,
			  "the helper container could not be started");
}

int installer_list(struct installer *in, install_list_cb cb, void *arg,
		   struct error *err)
{
	struct list *l = calloc(1, sizeof(*l));

	if (!l)
		return error_set(err, -ENOMEM, NULL);
	l->in = in;
	l->cb = cb;
	l->arg = arg;
	if (install_volume(in, list_volume_cb, l, err)) {
		free(l);
		return err->code;
	}
	return 0;
}
