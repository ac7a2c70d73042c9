/*
 * install.h - package installs (docs/packages.md). One request names a
 * language and a set of package specs; the set's cache key decides whether
 * it is installed already (an answer from the index, no container, no
 * network), being installed (the request waits for that install), or must
 * be installed: in a container of its own from the language's image, with
 * every sandbox limit and no network, whose one way out is an egress
 * proxy that lets through the language's registries only
 * (install_proxy.h).
 * The result lands in the package volume under its key, which sandboxes
 * mount read-only at INSTALL_MOUNT.
 */
#ifndef SBX_INSTALL_H
#define SBX_INSTALL_H

#include <stddef.h>
#include <uv.h>

#include <cjson/cJSON.h>

#include "core/plugins/config.h"
#include "pkg_cache.h"
#include "core/plugins/plugins.h"
#include "docker/docker.h"
#include "error.h"

/* Where every sandbox sees the package volume (read-only). */
#define INSTALL_MOUNT "/opt/sbx/pkgs"
/* The package volume's identity: a label with a random value, set by
 * whoever makes the volume (this module, or the daemon for a mount). */
#define INSTALL_VOLUME_ID_LABEL "org.mcp-sandbox.volume-id"

struct installer;
/* One request of installer_install(): the installer's, valid until its
 * callback has run. */
struct install_req;

/* labels: this server's container labels; instance: its random instance
 * id (identity.h), which names its containers and labels a volume it
 * makes (both copied). */
int installer_new(uv_loop_t *loop, struct docker *d, const struct config *cfg,
		  const char *const *labels, const char *instance,
		  struct pkg_cache *cache, struct installer **out);
/* Takes no more requests. Installs under way end through their
 * callbacks as the Docker client is freed; their containers and hand-over
 * volumes, labelled with this server's identity, are removed by the next
 * server's orphan clean-up. */
void installer_free(struct installer *in);

/* Sets busy() says are in use are never evicted. */
void installer_set_busy(struct installer *in, pkg_busy_fn busy, void *arg);

/* 1 when installs are on ([packages] network is not "none"). */
int installer_enabled(const struct installer *in);

/* A validated request: the normal-form specs, sorted, without
 * duplicates. */
struct install_specs {
	char *v[PKG_MAX_SPECS];
	size_t n;
};

/*
 * Check packages (a JSON array of strings) for plugin pl into *out.
 * Returns 0, or a negative code with err filled: ERR_INVALID_PACKAGE
 * (naming the spec and the rule), ERR_INVALID_ARGUMENTS, ERR_NO_INSTALLER.
 */
int install_specs_parse(const struct plugin *pl, const cJSON *packages,
			struct install_specs *out, struct error *err);
void install_specs_free(struct install_specs *s);

struct install_result {
	const struct pkg_entry *entry; /* the set: key, manifest, bytes */
	int cached;		       /* nothing was downloaded */
	double seconds;		       /* this request's wall time */
	const cJSON *connections;      /* the proxy's log, or NULL */
	/* The install failed and the egress proxy had refused what it
	 * asked for (err's message names the destinations). */
	int egress_refused;
	/* installer_check_registries(): [{registry: "host:port", ok,
	 * problem?}], or NULL */
	const cJSON *registries;
};

/* err NULL and res; or err (ERR_INSTALL_FAILED with the installer's output
 * tail and the refused destinations in its message, ...) and res with
 * entry NULL. Borrowed for the call. */
typedef void (*install_cb)(const struct error *err,
			   const struct install_result *res, void *arg);
/* A line of progress (what runs, the installer's output). */
typedef void (*install_progress_cb)(const char *text, void *arg);

/*
 * Install specs (moved into the request: *specs is emptied) for pl, as
 * owner's set (a tenant's name: its own cache entry; NULL: no tenants). cb
 * runs exactly once, from the loop, unless this returns non-zero (then
 * err says why: ERR_INSTALLS_DISABLED, ERR_NO_INSTALLER, -ENOMEM). *req
 * (if req is not NULL) gets the request's handle, for installer_cancel().
 */
int installer_install(struct installer *in, const struct plugin *pl,
		      const char *owner, struct install_specs *specs,
		      install_progress_cb progress, install_cb cb, void *arg,
		      struct install_req **req, struct error *err);

/* "host:port" of the proxy the egress proxies chain to, or "". */
const char *installer_upstream(const struct installer *in);

/* Check pl's registries through an egress proxy as an install would
 * (the same containers, the same check; installs nothing, stores
 * nothing): cb gets err NULL when each answered, else
 * ERR_REGISTRY_UNREACHABLE saying which did not, how, and what to set;
 * res->registries lists each one checked. 0, or as installer_install(). */
int installer_check_registries(struct installer *in, const struct plugin *pl,
			       install_progress_cb progress, install_cb cb,
			       void *arg, struct error *err);

/* Withdraw the request r (before its callback has run): its cb runs with
 * ERR_CANCELLED, now or when its cache lookup ends. An install that no
 * other request waits for stops: the step under way is cancelled, no
 * later step runs, and its containers and hand-over volume are removed;
 * nothing is stored. */
void installer_cancel(struct install_req *r);

/* The directories a run of pl imports installed packages from: for each
 * key, INSTALL_MOUNT/<key>/<package_path>, joined by sep ('\n' for a
 * session interpreter's request, ':' for a search path). Allocated; NULL
 * when n is 0 or without memory. */
char *install_paths(const struct plugin *pl,
		    const char (*keys)[PKG_KEY_LEN + 1], size_t n, char sep);
/* The environment entries of a run that uses the directories path (a
 * ':'-joined install_paths()): the plugin's package_env with "{path}"
 * expanded, into env (NULL-terminated, strings allocated: free with
 * install_env_free). Returns the count, or -ENOMEM / -E2BIG. */
int install_run_env(const struct plugin *pl, const char *path, char **env,
		    size_t max);
void install_env_free(char **env);

/* Remove every cached set but those in use (installer_set_busy), from the
 * volume and the index. cb gets how many sets and bytes went, or err. */
typedef void (*install_prune_cb)(const struct error *err, size_t sets,
				 uint64_t bytes, void *arg);
int installer_prune(struct installer *in, install_prune_cb cb, void *arg,
		    struct error *err);

/*
 * The sets the package volume holds, as the volume itself says
 * (pkg_volume.h, docs/packages.md "Listing"), read by a one-shot helper
 * container: root, no network, no capability, the volume read-only. A
 * set's last use comes from this server's index, when the index describes
 * this volume and knows the set (else last_used is 0), and so do the
 * language and specs that the record of an older server lacks; nothing
 * else does, and a set the index knows but the volume lacks is not
 * listed. cb gets the sets, oldest stored first (borrowed for the call),
 * or err (ERR_DOCKER_UNAVAILABLE: the engine cannot be reached;
 * ERR_INSTALL_FAILED: the helper or its listing failed). Returns 0 (cb
 * runs later) or a negative code with err.
 */
typedef void (*install_list_cb)(const struct error *err,
				const struct pkg_entry *sets, size_t n,
				void *arg);
int installer_list(struct installer *in, install_list_cb cb, void *arg,
		   struct error *err);

#endif
