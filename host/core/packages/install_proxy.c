/*
 * install_proxy.c - the egress proxy of an install, its socket volume and
 * the forwarder in the install container's loopback (install_proxy.h,
 * docs/packages.md). install_job.c decides when each starts and goes;
 * this file says what each container is.
 */
#include "install_proxy.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Where the proxy and the forwarder see the socket volume. */
#define SOCKET_DIR "/run/sbx-proxy"
#define SOCKET_PATH SOCKET_DIR "/proxy.sock"

int install_proxy_run(struct docker *d, const struct install_proxy_spec *s,
		      container_cb cb, void *arg)
{
	const char *nets[] = {"bridge", NULL};
	const struct container_mount mounts[] = {
		{s->socket_volume, SOCKET_DIR, 0, NULL},
		{NULL, NULL, 0, NULL},
	};
	char allow[4096], upstream[320];
	const char *env[4];
	size_t n = 0;

	if (snprintf(allow, sizeof(allow), "SBX_PROXY_ALLOW=%s", s->allow) >=
	    (int)sizeof(allow))
		return -EINVAL;
	env[n++] = allow;
	env[n++] = "SBX_PROXY_SOCKET=" SOCKET_PATH;
	if (s->upstream && s->upstream[0]) {
		snprintf(upstream, sizeof(upstream), "SBX_PROXY_UPSTREAM=%s",
			 s->upstream);
		env[n++] = upstream;
	}
	env[n] = NULL;
	return container_run(
		d,
		&(struct container_spec){
			.name = s->name,
			.image = s->image,
			.labels = s->labels,
			.memory_mb = 256,
			.cpu_millis = 1000,
			.pids = 64,
			.nofile = 4096,
			.fsize_mb = 16,
			.tmp_mb = 16,
			.shm_mb = 16,
			.network = s->network ? s->network : "bridge",
			.networks = s->network ? nets : NULL,
			.env = env,
			.mounts = mounts,
			.service = 1,
			.seccomp = s->seccomp,
			.seccomp_file = s->seccomp_file,
		},
		cb, arg);
}

int install_forwarder_run(struct docker *d,
			  const struct install_forwarder_spec *s,
			  container_cb cb, void *arg)
{
	const struct container_mount mounts[] = {
		{s->socket_volume, SOCKET_DIR, 1, NULL},
		{NULL, NULL, 0, NULL},
	};
	/* One process a connection: npm opens a few dozen at once. */
	const char *const argv[] = {"socat",
				    "TCP-LISTEN:" INSTALL_PROXY_PORT
				    ",bind=127.0.0.1,fork,reuseaddr",
				    "UNIX-CONNECT:" SOCKET_PATH, NULL};
	char mode[120];

	if ((size_t)snprintf(mode, sizeof(mode), "container:%s", s->box_id) >=
	    sizeof(mode))
		return -EINVAL;
	return container_run(d,
			     &(struct container_spec){
				     .image = s->image,
				     .labels = s->labels,
				     .memory_mb = 128,
				     .cpu_millis = 1000,
				     .pids = 256,
				     .nofile = 4096,
				     .fsize_mb = 1,
				     .tmp_mb = 1,
				     .shm_mb = 1,
				     .network = mode,
				     .mounts = mounts,
				     .service = 1,
				     .entrypoint = argv,
				     .seccomp = s->seccomp,
				     .seccomp_file = s->seccomp_file,
			     },
			     cb, arg);
}

int install_socket_volume_create(struct docker *d, const char *name,
				 const char *const *labels, network_cb cb,
				 void *arg)
{
	return volume_create_tmpfs(d, name, 1, 0, 01777, labels, cb, arg);
}
