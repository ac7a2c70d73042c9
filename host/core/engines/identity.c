/*
 * identity.c - instance labels and orphan clean-up.
 */
#include "identity.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <sys/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "docker/container.h"
#include "docker/network.h"
#include "util/log.h"

#define LOG_MODULE "identity"

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return n ? 0 : -EIO;
}

/* Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. */
static int proc_start_time(const char *pid, char *out, size_t size)
{
	char path[64], buf[1024], *p;
	int i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	p = strrchr(buf, ')'); /* the command name may contain spaces */
	if (!p)
		return -EIO;
	for (i = 2; i < 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -EIO;
	snprintf(out, size, "%.*s", (int)strcspn(p + 1, " "), p + 1);
	return 0;
}

int identity_init(struct identity *id)
{
	unsigned char rnd[16];
	ssize_t n;
	size_t i;

	memset(id, 0, sizeof(*id));
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return -EIO;
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(id->instance + 2 * i, 3, "%02x", rnd[i]);
	snprintf(id->pid, sizeof(id->pid), "%ld", (long)getpid());
	if (proc_start_time("self", id->start, sizeof(id->start)))
		snprintf(id->start, sizeof(id->start), "0");
	if (read_line("/proc/sys/kernel/random/boot_id", id->boot_id,
		      sizeof(id->boot_id)))
		snprintf(id->boot_id, sizeof(id->boot_id), "unknown");
	n = readlink("/proc/self/ns/pid", id->pidns, sizeof(id->pidns) - 1);
	id->pidns[n > 0 ? n : 0] = '\0';
	if (read_line("/etc/machine-id", id->machine_id,
		      sizeof(id->machine_id)) &&
	    gethostname(id->machine_id, sizeof(id->machine_id) - 1))
		snprintf(id->machine_id, sizeof(id->machine_id), "unknown");

	snprintf(id->labels[0], sizeof(id->labels[0]), "%s",
		 IDENTITY_MANAGED_LABEL);
	snprintf(id->labels[1], sizeof(id->labels[1]),
		 "org.mcp-sandbox.instance=%s", id->instance);
	snprintf(id->labels[2], sizeof(id->labels[2]),
		 "org.mcp-sandbox.owner-pid=%s", id->pid);
	snprintf(id->labels[3], sizeof(id->labels[3]),
		 "org.mcp-sandbox.owner-start=%s", id->start);
	snprintf(id->labels[4], sizeof(id->labels[4]),
		 "org.mcp-sandbox.boot-id=%s", id->boot_id);
	snprintf(id->labels[5], sizeof(id->labels[5]),
		 "org.mcp-sandbox.machine-id=%s", id->machine_id);
	snprintf(id->labels[6], sizeof(id->labels[6]),
		 "org.mcp-sandbox.pidns=%s", id->pidns);
	for (i = 0; i < 7; i++)
		id->label_ptrs[i] = id->labels[i];
	id->label_ptrs[7] = NULL;
	return 0;
}

/* Our labels on a container or volume, as the engine lists them. */
struct labels {
	const struct docker_label *v;
	size_t n;
};

static const char *label(struct labels l, const char *key)
{
	const char *v = docker_label_find(l.v, l.n, key);

	return v ? v : "";
}

/* 1 when the container's owner is certainly gone. */
static int owner_dead(const struct identity *self, struct labels labels)
{
	const char *pid = label(labels, "org.mcp-sandbox.owner-pid");
	char start[24];

	if (strcmp(label(labels, "org.mcp-sandbox.instance"), self->instance) ==
	    0)
		return 0;
	if (strcmp(label(labels, "org.mcp-sandbox.machine-id"),
		   self->machine_id) != 0)
		return 0; /* another machine's server on a shared engine */
	if (strcmp(label(labels, "org.mcp-sandbox.boot-id"), self->boot_id) !=
	    0)
		return 1; /* this machine rebooted since */
	if (strcmp(label(labels, "org.mcp-sandbox.pidns"), self->pidns) != 0)
		return 0; /* its pid means nothing in our pid namespace */
	if (!*pid || strspn(pid, "0123456789") != strlen(pid) ||
	    strlen(pid) > 9)
		return 0;
	if (kill((pid_t)atol(pid), 0) != 0)
		return errno == ESRCH; /* EPERM: alive, someone else's */
	/* A live process with that pid: the owner only if it started when
	 * the owner did (pids are reused). Unreadable: assume it is. */
	if (proc_start_time(pid, start, sizeof(start)) != 0)
		return 0;
	return strcmp(start, label(labels, "org.mcp-sandbox.owner-start")) != 0;
}

struct reap_ctx {
	struct docker *d;
	struct identity self;
	unsigned removing; /* container removals in flight */
	cJSON *later;	   /* ids removed once the first wave is gone */
};

/* The hand-over and proxy socket volumes of package installs
 * (core/packages/install_job.c) a dead server left: after its containers,
 * which held them, are gone. */
static void volumes_cb(const struct error *err,
		       const struct volume_summary *list, size_t nlist,
		       void *arg)
{
	struct reap_ctx *ctx = arg;
	unsigned n = 0;
	size_t i;

	if (err) {
		log_debug("orphan volume check skipped: %s", err->msg);
		free(ctx);
		return;
	}
	for (i = 0; i < nlist; i++) {
		struct labels labels = {list[i].labels, list[i].nlabels};
		const char *role = label(labels, "org.mcp-sandbox.role");

		if ((strcmp(role, "handover") != 0 &&
		     strcmp(role, "proxysocket") != 0) ||
		    !owner_dead(&ctx->self, labels))
			continue;
		volume_remove(ctx->d, list[i].name, NULL, NULL);
		n++;
	}
	if (n)
		log_info("removing %u orphan volume(s) of dead servers", n);
	free(ctx);
}

static void reap_volumes(struct reap_ctx *ctx)
{
	if (volume_list(ctx->d, IDENTITY_MANAGED_LABEL, volumes_cb, ctx))
		free(ctx);
}

static void orphan_removed_cb(const struct error *err, const char *id,
			      void *arg);

/* After the first wave, the install boxes: Podman refuses to remove a
 * container whose network namespace another one (the install's
 * forwarder) shares, even with force. After them, the volumes. */
static void reap_next(struct reap_ctx *ctx)
{
	cJSON *later = ctx->later, *id;

	ctx->later = NULL;
	cJSON_ArrayForEach(id, later)
	{
		if (container_remove(ctx->d, id->valuestring, orphan_removed_cb,
				     ctx) == 0)
			ctx->removing++;
	}
	cJSON_Delete(later);
	if (ctx->removing == 0)
		reap_volumes(ctx);
}

static void orphan_removed_cb(const struct error *err, const char *id,
			      void *arg)
{
	struct reap_ctx *ctx = arg;

	(void)err;
	(void)id;
	if (--ctx->removing == 0)
		reap_next(ctx);
}

/* A session container (session.h) outlives its server on purpose: the
 * server that takes its state slot re-adopts it. Anyone may remove it only
 * after the deadline in its name, "sbx-s.<slot>.<deadline>.<lang>.<name>". */
static int session_alive(const struct container_summary *c)
{
	const char *p = c->name;
	long long deadline;

	if (strncmp(p, "sbx-s.", 6) != 0 || !(p = strchr(p + 6, '.')))
		return 0;
	deadline = strtoll(p + 1, NULL, 10);
	return deadline > (long long)time(NULL);
}

static void list_cb(const struct error *err,
		    const struct container_summary *list, size_t nlist,
		    void *arg)
{
	struct reap_ctx *ctx = arg;
	unsigned n = 0;
	size_t i;

	if (err) {
		log_debug("orphan check skipped: %s", err->msg);
		free(ctx);
		return;
	}
	for (i = 0; i < nlist; i++) {
		const struct container_summary *c = &list[i];
		struct labels labels = {c->labels, c->nlabels};

		if (!owner_dead(&ctx->self, labels) || session_alive(c))
			continue;
		log_info("removing orphan container %.12s of a dead server "
			 "(pid %s)",
			 c->id, label(labels, "org.mcp-sandbox.owner-pid"));
		n++;
		if (strcmp(label(labels, "org.mcp-sandbox.role"), "install") ==
		    0) {
			if (!ctx->later)
				ctx->later = cJSON_CreateArray();
			cJSON_AddItemToArray(ctx->later,
					     cJSON_CreateString(c->id));
		} else if (container_remove(ctx->d, c->id, orphan_removed_cb,
					    ctx) == 0)
			ctx->removing++;
	}
	if (n)
		log_info("removed %u orphan containers", n);
	if (ctx->removing == 0)
		reap_next(ctx);
}

void identity_reap_orphans(struct docker *d, const struct identity *self)
{
	struct reap_ctx *ctx = malloc(sizeof(*ctx));

	if (!ctx)
		return;
	ctx->d = d;
	ctx->self = *self;
	ctx->removing = 0;
	ctx->later = NULL;
	if (container_list(d, IDENTITY_MANAGED_LABEL, list_cb, ctx))
		free(ctx);
}
