/*
 * install_prune.c - cache prune (installer_prune(), install.h): a helper
 * container removes every set of the package volume but those in use,
 * then the index forgets them.
 */
#include <errno.h>
#include <stdlib.h>

#include "docker/network.h"
#include "install_internal.h"

struct prune {
	struct installer *in;
	install_prune_cb cb;
	void *arg;
	struct error err;
	int failed;
};

static void prune_end(struct prune *pr)
{
	struct pkg_cache *c = pr->in->cache;
	size_t sets = 0, i = 0;
	uint64_t bytes = 0;
	struct pkg_entry *e;

	if (!pr->failed) {
		/* What the container removed: every set but those in use. */
		while ((e = pkg_cache_at(c, i))) {
			if (pr->in->busy &&
			    pr->in->busy(e->key, pr->in->busy_arg)) {
				i++;
				continue;
			}
			sets++;
			bytes += e->bytes;
			pkg_cache_remove(c, e->key);
		}
	}
	pr->cb(pr->failed ? &pr->err : NULL, sets, bytes, pr->arg);
	free(pr);
}

static void prune_done(const struct error *err, const char *out, size_t len,
		       void *arg)
{
	struct prune *pr = arg;

	(void)out;
	(void)len;
	if (err) {
		pr->failed = 1;
		error_set(&pr->err, ERR_INSTALL_FAILED,
			  "removing the cached sets failed: %s", err->msg);
	}
	prune_end(pr);
}

static void prune_volume_cb(const struct error *err, const char *ident,
			    int created, void *arg)
{
	struct prune *pr = arg;
	struct installer *in = pr->in;
	const char *argv[MAX_EVICT * 3 + 16];
	const struct install_helper hs = {
		.role = "prune",
		.image = in->cfg->pkg_proxy_image,
		.user = "0",
		.argv = argv,
	};
	struct pkg_entry *e;
	size_t n = 0, i;

	(void)created;
	if (err) {
		pr->failed = 1;
		error_set_msg(&pr->err,
			      err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
						   : ERR_INSTALL_FAILED,
			      err->msg);
		prune_end(pr);
		return;
	}
	pkg_cache_bind_volume(in->cache, ident);
	/* find, not a shell: every entry of the volume but the sets in use
	 * (and nothing when the volume is empty). */
	argv[n++] = "/usr/bin/find";
	argv[n++] = INSTALL_MOUNT;
	argv[n++] = "-mindepth";
	argv[n++] = "1";
	argv[n++] = "-maxdepth";
	argv[n++] = "1";
	for (i = 0; (e = pkg_cache_at(in->cache, i)) && n + 8 < MAX_EVICT * 3;
	     i++) {
		if (!in->busy || !in->busy(e->key, in->busy_arg))
			continue;
		argv[n++] = "!";
		argv[n++] = "-name";
		argv[n++] = e->key;
	}
	argv[n++] = "-exec";
	argv[n++] = "rm";
	argv[n++] = "-rf";
	argv[n++] = "{}";
	argv[n++] = "+";
	argv[n] = NULL;
	if (install_run_helper(in, &hs, prune_done, pr)) {
		pr->failed = 1;
		error_set(&pr->err, ERR_INSTALL_FAILED,
			  "removing the cached sets failed");
		prune_end(pr);
	}
}

int installer_prune(struct installer *in, install_prune_cb cb, void *arg,
		    struct error *err)
{
	struct prune *pr;

	if (!installer_enabled(in))
		return error_set(err, ERR_INSTALLS_DISABLED, NULL);
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return error_set(err, -ENOMEM, NULL);
	pr->in = in;
	pr->cb = cb;
	pr->arg = arg;
	if (volume_ensure(in->d, in->cfg->pkg_volume, in->volume_labels,
			  INSTALL_VOLUME_ID_LABEL, prune_volume_cb, pr)) {
		free(pr);
		return error_set(err, ERR_INSTALL_FAILED,
				 "the package volume name is not valid");
	}
	return 0;
}
