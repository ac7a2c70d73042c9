/*
 * install_prune.c - cache prune (installer_prune(), install.h): a helper
 * container removes every set of the package volume but those in use,
 * saying the size of each as it goes, then the index forgets them. The
 * count is the volume's, whatever this state directory's index knew.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "docker/network.h"
#include "install_internal.h"

struct prune {
	struct installer *in;
	install_prune_cb cb;
	void *arg;
	struct error err;
	int failed;
	size_t sets;	/* removed from the volume: sets under their key */
	uint64_t bytes; /* ... and everything removed, in bytes */
};

static void prune_end(struct prune *pr)
{
	struct pkg_cache *c = pr->in->cache;
	size_t i = 0;
	struct pkg_entry *e;

	if (!pr->failed) {
		/* The volume has every set but those in use no more. */
		while ((e = pkg_cache_at(c, i))) {
			if (pr->in->busy &&
			    pr->in->busy(e->key, pr->in->busy_arg)) {
				i++;
				continue;
			}
			pkg_cache_remove(c, e->key);
		}
	}
	pr->cb(pr->failed ? &pr->err : NULL, pr->sets, pr->bytes, pr->arg);
	free(pr);
}

/* du's lines, "<bytes>\t<path>", one for each entry removed: a set is a
 * directory named by its key; the rest (a .tmp- copy an install left) is
 * counted in bytes only. */
static void prune_count(struct prune *pr, const char *out, size_t len)
{
	const char *p = out, *end = out + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end,
			   *tab = memchr(p, '\t', (size_t)(le - p));
		const char *name;
		size_t n, k;

		if (tab) {
			pr->bytes += strtoull(p, NULL, 10);
			for (name = le; name > tab && name[-1] != '/'; name--)
				;
			n = (size_t)(le - name);
			for (k = 0;
			     k < n && strchr("0123456789abcdef", name[k]); k++)
				;
			if (n == PKG_KEY_LEN && k == n)
				pr->sets++;
		}
		p = le + 1;
	}
}

static void prune_done(const struct error *err, const char *out, size_t len,
		       void *arg)
{
	struct prune *pr = arg;

	if (!err && out)
		prune_count(pr, out, len);
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
	const char *argv[MAX_EVICT * 3 + 20];
	const struct install_helper hs = {
		.role = "prune",
		.image = in->cfg->pkg_proxy_image,
		.user = "0",
		.argv = argv,
		.output = 1,
	};
	struct pkg_entry *e;
	size_t n = 0, i;

	(void)created;
	if (err) {
		pr->failed = 1;
		error_set_msg(&pr->err, install_engine_code(err), err->msg);
		prune_end(pr);
		return;
	}
	pkg_cache_bind_volume(in->cache, ident);
	/* find, not a shell: every entry of the volume but the sets in use
	 * (and nothing when the volume is empty), its size said, then
	 * removed. */
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
	argv[n++] = "du";
	argv[n++] = "-sb";
	argv[n++] = "{}";
	argv[n++] = ";";
	argv[n++] = "-exec";
	argv[n++] = "rm";
	argv[n++] = "-rf";
	argv[n++] = "{}";
	argv[n++] = ";";
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
	if (install_volume(in, prune_volume_cb, pr, err)) {
		free(pr);
		return err->code;
	}
	return 0;
}
