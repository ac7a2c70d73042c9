/*
 * engine_checks.c - start-up checks of the engine (engine_checks.h).
 *
 * Without userns-remap (or a rootless engine) uid 1000 inside a sandbox
 * is uid 1000 on the host: if that is someone's account, a process that
 * escaped the container would act as them. The account is looked up on
 * the thread pool (NSS may read files or ask a directory service).
 */
#include "engine_checks.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/docker.h"
#include "util/log.h"

#define LOG_MODULE "checks"

struct lookup {
	uv_work_t work;
	uv_loop_t *loop;
	char endpoint[256];
	char name[64]; /* the account with SANDBOX_UID, or "" */
};

int engine_info_remaps_users(const char *info_json)
{
	struct docker_info di;
	int remaps;

	docker_info_parse(NULL, 0, info_json, strlen(info_json), &di);
	remaps = di.security_known ? di.userns || di.rootless : -1;
	docker_info_free(&di);
	return remaps;
}

static void lookup_work(uv_work_t *w)
{
	struct lookup *l = w->data;
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (getpwuid_r(SANDBOX_UID, &pw, buf, sizeof(buf), &res) == 0 && res)
		snprintf(l->name, sizeof(l->name), "%s", res->pw_name);
}

static void lookup_done(uv_work_t *w, int status)
{
	struct lookup *l = w->data;

	if (status == 0 && l->name[0])
		log_warn("the sandbox user (uid %d) is the host account '%s' "
			 "and the engine at %s does not remap user "
			 "namespaces: a process that escaped a sandbox would "
			 "act as '%s'. Enable userns-remap in dockerd or use "
			 "a rootless engine (docs/security.md)",
			 SANDBOX_UID, l->name, l->endpoint, l->name);
	else if (status == 0)
		log_info("the sandbox user (uid %d) is no account of this "
			 "host",
			 SANDBOX_UID);
	free(l);
}

static void info_cb(const struct docker_response *res, void *arg)
{
	struct lookup *l = arg;
	int remaps = res->err || res->status != 200
			     ? -1
			     : engine_info_remaps_users(res->body);

	if (remaps == 1)
		log_info("the engine remaps user namespaces: the sandbox user "
			 "(uid %d) is no host account",
			 SANDBOX_UID);
	if (remaps != 0 ||
	    uv_queue_work(l->loop, &l->work, lookup_work, lookup_done))
		free(l);
}

int engine_checks_start(uv_loop_t *loop, struct docker *d)
{
	struct lookup *l;
	int rc;

	/* Only an engine on this host shares its accounts. */
	if (strncmp(docker_endpoint(d), "unix://", 7) != 0)
		return 0;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->loop = loop;
	l->work.data = l;
	snprintf(l->endpoint, sizeof(l->endpoint), "%s", docker_endpoint(d));
	rc = docker_request(d, "GET", "/info", NULL, 10000, info_cb, l);
	if (rc)
		free(l);
	return rc;
}
