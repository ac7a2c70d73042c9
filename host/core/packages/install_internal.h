/*
 * install_internal.h - what the parts of the installer share:
 * install.c (the installer, its requests: look-up, waiting, answering,
 * cancellation), install_job.c (an install that is not in the cache: its
 * containers and the steps run in the install box), install_env.c (what
 * an installer runs with: argv, environment, the proxy's allow-list),
 * install_prune.c (cache prune) and install_list.c (cache list). Not for
 * other modules.
 */
#ifndef SBX_INSTALL_INTERNAL_H
#define SBX_INSTALL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "docker/agent_client.h"
#include "docker/network.h"
#include "install.h"

#define MAX_ENV 64
#define MAX_WAITERS 64
#define MAX_ALLOW 8
#define TAIL_MAX 700
/* The hand-over volume (a tmpfs of the disk budget, per install): the
 * install container installs into SCRATCH_MOUNT/pkg ("{dir}"), the store
 * step reads it from there. */
#define SCRATCH_MOUNT "/opt/sbx/scratch"
#define WORK_DIR SCRATCH_MOUNT "/pkg"
#define CA_FILE "ca.pem"
#define MAX_EVICT ((size_t)32)

struct lookup;

/* A request (installer_install's handle), from the call until its
 * callback: in its lookup first, then among its job's waiters. */
struct install_req {
	install_cb cb;
	install_progress_cb progress;
	void *arg;
	struct lookup *l; /* while it is looked up, else NULL */
	struct job *j;	  /* once it waits for its job */
};

struct job {
	struct installer *in;
	struct job *next;
	const struct plugin *pl;
	struct install_specs specs;
	char key[PKG_KEY_LEN + 1];
	char image_id[160];
	uint64_t t0;
	struct install_req *w[MAX_WAITERS];
	size_t nw;

	char box_id[80];
	char scratch[96]; /* the hand-over volume's name, or "" */
	int scratch_gone;
	char sock[96]; /* the proxy's socket volume, or "" */
	int sock_gone;
	struct agent_client *ac;
	char proxy_name[64];
	char proxy_id[80];
	char fwd_id[80]; /* the forwarder (install_proxy.h) */
	/* Two things awaited together (the two volumes; then the forwarder
	 * and the agent's first answer once the box runs): how many are
	 * still out, and the first failure. */
	int box_pending;
	int box_failed;
	struct error box_err;
	char allow[MAX_ALLOW][300];
	/* How the registry check asks for allow[i]: "" (https: a CONNECT to
	 * it) or the http URL the installer named (a HEAD of it). */
	char check[MAX_ALLOW][520];
	size_t nallow;
	unsigned checked; /* allow[i] was checked: bit i */
	int proxy_ready;  /* the current proxy answered the check script */
	/* The proxied step waiting for the registry check (job_exec_proxied) */
	struct {
		const char *what;
		const char *const *cmd;
		uint32_t timeout_ms;
		int stream;
		void (*next)(struct job *j, const struct agent_exec_result *r);
	} after_check;
	/* Only check the registries, install nothing (`doctor`):
	 * registries collects [{registry, ok, problem?}]. */
	int check_only;
	cJSON *registries;
	int unreachable; /* err is the check's: remembered (registry_retry_ms)
			  */

	cJSON *manifest;
	cJSON *connections;
	char evicted[MAX_EVICT][PKG_KEY_LEN + 1];
	size_t nevicted;
	struct error err; /* set once the job fails */
	int failed;
	int egress_refused;	 /* err names what the proxy refused */
	char tail[TAIL_MAX + 1]; /* the installer's output, for failures */
	int removing;		 /* containers left to remove */
	int cached;		 /* the key turned out to be there */
	/* The install container and the proxy start together when the
	 * registries are known: starting counts the two chains still
	 * running; each ends in parallel_done() or job_fail(). */
	int parallel;
	int starting;
	/* The allow-list came from the index (found before for this image
	 * and mirror): no registry_cmd, no registry_follow_cmd. */
	int known;
	int followed;  /* registry_follow_cmd ran */
	int cancelled; /* every request withdrew: no further step */
};

struct installer {
	uv_loop_t *loop;
	struct docker *d;
	const struct config *cfg;
	struct pkg_cache *cache;
	char **labels;
	size_t nlabels;
	struct job *jobs;
	struct lookup *lookups; /* requests before their job */
	char volume_label[128]; /* INSTALL_VOLUME_ID_LABEL=<random> */
	char upstream[300];	/* host:port the proxy chains to, or "" */
	char nonce[40];		/* the instance id: in container names */
	const char *volume_labels[3];
	char *ca;      /* the CA bundle's bytes, or NULL */
	char *seccomp; /* the floor's profile (seccomp_profile.h), or NULL */
	char *seccomp_file; /* ... as a file, for Podman, or NULL */
	size_t ca_len;
	int closing;
	unsigned long seq;
	pkg_busy_fn busy;
	void *busy_arg;
	/* Registries found unreachable lately, by install_registries_key():
	 * a request that needs them fails at once ([packages]
	 * registry_retry_ms). */
	struct unreachable {
		char key[200];
		uint64_t at, until; /* uv_now() */
		char msg[ERROR_MSG_MAX];
	} unreachable[8];
};

/* ---- install.c ---- */

/* Every container is gone: answer and free. */
void install_job_end(struct job *j);
/* The specs as a JSON array of strings (new), or NULL without memory. */
cJSON *install_specs_json(const struct install_specs *s);

/* An engine's failure (err->code) as the installer's callers hear it: no
 * engine (ERR_DOCKER_UNAVAILABLE), or the install failed. */
static inline int install_engine_code(const struct error *err)
{
	return err->code == -ENODEV ? ERR_DOCKER_UNAVAILABLE
				    : ERR_INSTALL_FAILED;
}

/* The package volume made sure of (created with its labels if missing),
 * then cb. 0, or ERR_INSTALL_FAILED with err (the name is not valid). */
int install_volume(struct installer *in, volume_cb cb, void *arg,
		   struct error *err);

/* ---- install_job.c ---- */

/* Start job j (just linked into its installer, with its first waiter):
 * the install network first; it ends in install_job_end(). */
void install_job_run(struct job *j);

/* A one-shot helper container (install_run_helper): argv run as user in
 * image, with the package volume at INSTALL_MOUNT, no network, small
 * limits. */
struct install_helper {
	const char *role; /* its org.mcp-sandbox.role label */
	const char *image;
	const char *user;
	const char *const *caps; /* the only capabilities, or NULL: none */
	const char *const *argv;
	/* The hand-over volume, read-only at SCRATCH_MOUNT, or NULL. */
	const char *scratch;
	int volume_ro; /* the package volume read-only (else read-write) */
	int output;    /* its stdout is read back for done */
};

/* Run to its end and removed: done gets err NULL when argv exited 0,
 * else why; out (len bytes, NUL-terminated, borrowed for the call) its
 * stdout when the helper asked for it and it exited 0, else NULL. */
typedef void (*helper_done_fn)(const struct error *err, const char *out,
			       size_t len, void *arg);

/* Returns 0 (done is called later) or a negative code. */
int install_run_helper(struct installer *in, const struct install_helper *h,
		       helper_done_fn done, void *arg);

/* ---- install_env.c ---- */

struct env_buf {
	char *own[MAX_ENV];
	const char *v[MAX_ENV + 1];
	size_t n;
};

/* Replace whole-argument placeholders: "{packages}" by every spec,
 * "{dir}" by WORK_DIR. */
int install_expand(const char *const *cmd, const struct install_specs *s,
		   const char **out, size_t max);
/* What every step of the install box runs with; with_install: also the
 * install step's own entries (proxy, CA, mirror). */
void install_job_env(struct job *j, struct env_buf *e, int with_install);
void install_env_buf_free(struct env_buf *e);

/* Where the allow-list found for an image (and mirror) is kept in the
 * index, and the key of install.c's memory of unreachable registries. */
void install_registries_key(const struct job *j, char *out, size_t size);
void install_registries_key_of(const char *image_id, const struct plugin *pl,
			       char *out, size_t size);
/* Take the registries' URLs (one a line) as the proxy's allow-list. */
int install_allow_urls(struct job *j, const char *text, size_t len);
/* The allow-list as one string, "host:port host:port" (the proxy's). */
void install_allow_join(const struct job *j, char *out, size_t size);
/* ... with an http registry's URL in place of its host:port (the index's
 * form, which keeps how to check it). */
void install_allow_join_urls(const struct job *j, char *out, size_t size);
/* The allow-list from either form. */
void install_allow_split(struct job *j, const char *s);

#endif
