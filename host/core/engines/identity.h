/*
 * identity.h - who this server is, as written on every container it makes.
 *
 * Labels: org.mcp-sandbox.managed=1, .instance (random per process),
 * .owner-pid, .owner-start (process start time, so a reused pid is not
 * mistaken for the owner), .pidns, .boot-id and .machine-id. A server
 * removes at start-up only managed containers whose owner is provably
 * dead: same machine, and either another boot or (same pid namespace) no
 * live process with that pid and start time. Containers of live servers, of
 * other machines sharing the engine, and of anyone else are never touched.
 */
#ifndef SBX_IDENTITY_H
#define SBX_IDENTITY_H

#include "docker/docker.h"

#define IDENTITY_MANAGED_LABEL "org.mcp-sandbox.managed=1"

struct identity {
	char instance[33];
	char pid[16];
	char start[24];
	char boot_id[40];
	char machine_id[40];
	char pidns[40]; /* "pid:[4026531836]" */
	char labels[7][96];
	const char *label_ptrs[8]; /* NULL-terminated view of labels */
};

int identity_init(struct identity *id);

/* List managed containers and remove the orphans of dead servers. Runs in
 * the background; logs what it removes. */
void identity_reap_orphans(struct docker *d, const struct identity *self);

#endif
