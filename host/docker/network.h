/*
 * network.h - the engine objects package installs need besides containers
 * (docs/packages.md): a network, made once and found again by name (the
 * internal install network the egress proxy joins), a named volume (the
 * package cache) and tmpfs volumes (an install's hand-over and its
 * proxy's socket).
 * Callbacks follow container.h's contract: exactly once when the call
 * returned 0, err NULL on success.
 */
#ifndef SBX_NETWORK_H
#define SBX_NETWORK_H

#include "docker.h"
#include "error.h"

typedef void (*network_cb)(const struct error *err, void *arg);

/* The network name (created with Internal = internal when missing). One
 * that exists with another Internal setting is -EEXIST: an install
 * network that reaches out would defeat the proxy. */
int network_ensure(struct docker *d, const char *name, int internal,
		   const char *const *labels, network_cb cb, void *arg);

/* ident: the value of the volume's label id_label (made with a random
 * value, it tells a volume removed and made again from the old one), or,
 * for a volume made by someone else without it, its CreatedAt; created:
 * made by this call. */
typedef void (*volume_cb)(const struct error *err, const char *ident,
			  int created, void *arg);

/* The volume name, created with labels when missing. */
int volume_ensure(struct docker *d, const char *name, const char *const *labels,
		  const char *id_label, volume_cb cb, void *arg);

/* A volume on a tmpfs of size_mb owned by uid with the permission bits
 * mode (the local driver's tmpfs type): it lives while a container
 * mounts it, shared by every container that does. On Podman the size
 * is given in pages of this machine (network.c). cb as network_cb. */
int volume_create_tmpfs(struct docker *d, const char *name, unsigned size_mb,
			unsigned uid, unsigned mode, const char *const *labels,
			network_cb cb, void *arg);

/* DELETE /volumes/{name}?force=1; a missing one counts as removed. cb
 * may be NULL. */
int volume_remove(struct docker *d, const char *name, network_cb cb, void *arg);

/* A volume of a listing, borrowed for the callback. */
struct volume_summary {
	const char *name;
	const struct docker_label *labels;
	size_t nlabels;
};

/* GET /volumes with a label filter ("key" or "key=value"): cb gets the n
 * volumes (borrowed), those the answer gives without a name left out; an
 * answer that is no list lists nothing. */
typedef void (*volume_list_cb)(const struct error *err,
			       const struct volume_summary *list, size_t n,
			       void *arg);
int volume_list(struct docker *d, const char *label, volume_list_cb cb,
		void *arg);

#endif
