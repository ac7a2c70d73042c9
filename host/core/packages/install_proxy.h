/*
 * install_proxy.h - an install's one way out (docs/packages.md, "The
 * network design"). The install container has no network: only its own
 * loopback. Its egress proxy (Squid, the proxy image) runs on Docker's
 * bridge and the install network and serves a unix socket on a volume of
 * the install's own; a forwarder (socat, the same image) started in the
 * install container's network namespace listens on 127.0.0.1 there and
 * takes each connection to that socket. Nothing else reaches out of the
 * install container, whatever the engine or the host's firewall.
 *
 * The calls follow container.h's contract: 0 and the callback exactly
 * once later, or a negative code and no callback.
 */
#ifndef SBX_INSTALL_PROXY_H
#define SBX_INSTALL_PROXY_H

#include "docker/container.h"
#include "docker/docker.h"
#include "docker/network.h"

/* Where the installer finds its proxy: the forwarder, in its loopback. */
#define INSTALL_PROXY_PORT "3128"
#define INSTALL_PROXY_URL "http://127.0.0.1:" INSTALL_PROXY_PORT

struct install_proxy_spec {
	const char *name;
	const char *image; /* [packages] proxy_image */
	/* The install network (a mirror may live there) or NULL; the proxy
	 * also joins Docker's bridge, its way out. */
	const char *network;
	const char *allow;    /* "host:port host:port ...", the allow-list */
	const char *upstream; /* "host:port" to chain to, or "" */
	const char *socket_volume;
	const char *const *labels;
	const char *seccomp, *seccomp_file; /* as container_spec's */
};

/* The egress proxy, serving the socket volume. */
int install_proxy_run(struct docker *d, const struct install_proxy_spec *s,
		      container_cb cb, void *arg);

struct install_forwarder_spec {
	const char *box_id; /* the install container, running */
	const char *image;  /* the proxy image: socat */
	const char *socket_volume;
	const char *const *labels;
	const char *seccomp, *seccomp_file;
};

/* The forwarder: 127.0.0.1:INSTALL_PROXY_PORT in box_id's network
 * namespace to the proxy's socket. It sees the socket volume read-only
 * and nothing of the install container but its loopback. */
int install_forwarder_run(struct docker *d,
			  const struct install_forwarder_spec *s,
			  container_cb cb, void *arg);

/* The volume the socket lives on: a small tmpfs in which any uid may
 * make a socket, since engines (userns-remap, rootless Podman) map the
 * proxy's user differently. Only the proxy and the forwarder mount it. */
int install_socket_volume_create(struct docker *d, const char *name,
				 const char *const *labels, network_cb cb,
				 void *arg);

#endif
