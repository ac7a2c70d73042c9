/*
 * plugins.h - loading language plugins (.so) and resolving their policy.
 *
 * Every *.so in the plugin directories is dlopen'ed, its entry symbol
 * called with the host API table, and the descriptor validated. A bad
 * plugin (a file others may write, not a regular file, wrong ABI, missing
 * entry, invalid descriptor, duplicate name or alias) is rejected with a
 * log line naming the file, and the reason is kept for doctor and
 * sandbox_inspect; the others keep working.
 */
#ifndef SBX_PLUGINS_H
#define SBX_PLUGINS_H

#include <stddef.h>

#include "core/exec/blocklist.h"
#include "config.h"
#include "error.h"
#include <mcp-sandbox/plugin.h>

/* The most the agent captures of a stream (docs/agent-protocol.md,
 * STDOUT_CAP): stdout_cap and stderr_cap never pass it. */
#define POLICY_OUTPUT_CAP_MAX (8u << 20)

/* A language's effective policy: plugin defaults, then [limits]/[pool] for
 * what the plugin leaves at 0, with the [language] section on top (and
 * SANDBOX_* variables over the file). Resolved once, at start, by
 * plugins_apply_config(); every limit the core applies is read from here,
 * nowhere else. */
struct policy {
	int enabled;
	char *image;
	uint32_t pool_size;	/* floor once the language is in use */
	uint32_t pool_max_size; /* ceiling under load, >= pool_size */
	int warm_at_start;	/* in use from start-up, not on first call */
	/* Warm boxes keep the next run step started (docs/prestart.md):
	 * the plugin declares it and sandbox.ini does not say no. */
	int prestart;
	uint32_t max_uses;
	struct sbx_limits limits;
	uint32_t max_timeout_ms;     /* a call's timeout is lowered to this */
	uint32_t start_timeout_ms;   /* container start + warm-up, and a
				      * session interpreter's start */
	uint32_t reset_timeout_ms;   /* a used container's reset and check */
	uint32_t interrupt_grace_ms; /* a session call: interrupt, then kill */
	uint32_t max_code_bytes;
	uint32_t shm_mb;
	char *network;
	char *registry; /* the installer's mirror ([lang] registry), or NULL */
	struct blocklist blocklist; /* mode, rules and the plugin's lexer */
	const char **seccomp_deny;  /* NULL-terminated; strings borrowed */
	/* The Docker seccomp profile (seccomp_profile.h): the floor and
	 * seccomp_deny; NULL leaves the engine's default (logged). */
	char *seccomp_profile;
	/* The same as a file, for Podman (plugins_write_seccomp), or NULL. */
	char *seccomp_file;
	/* The plugin's missing_module, compiled, when has_missing_module. */
	regex_t missing_module;
	int has_missing_module;
};

struct plugin {
	/* The plugin's descriptor as this host's ABI sees it: fields beyond
	 * the plugin's struct_size (an older minor) are zero. Its pointers
	 * point into the .so. */
	struct sbx_plugin d;
	const struct sbx_plugin *desc; /* == &d */
	void *dl;
	char *path;
	struct policy policy;
};

/* A file that was not loaded, and why. */
struct plugin_reject {
	char *path;
	char *reason;
};

struct plugin_set {
	struct plugin *v;
	size_t n;
	struct plugin_reject *rejects;
	size_t rejected; /* files that failed to load (rejects' length) */
};

/* The table handed to plugins (static storage). */
const struct sbx_host_api *plugins_host_api(void);

/* Check a descriptor; returns 0 or -EINVAL with err saying what is
 * wrong. */
int plugin_validate(const struct sbx_plugin *d, struct error *err);

/* Copy a validated descriptor into out, zero-filling the fields of newer
 * minors the plugin does not have. */
void plugin_descriptor_copy(const struct sbx_plugin *d, struct sbx_plugin *out);

/* Copy d's samples into out (all NULL when it has none), zero-filling
 * the samples of newer minors than d's: struct sbx_samples carries no
 * size, so a field past the plugin's minor is never read. */
void plugin_samples_copy(const struct sbx_plugin *d, struct sbx_samples *out);

/* Takes a buffer one of pl's hooks returned (from host->alloc): a copy of
 * its len bytes, NUL-terminated, in the host's own memory (*out_len set),
 * and the plugin's buffer freed. With out_len NULL, buf is a message: its
 * text up to the first NUL. NULL when buf is NULL, did not come from
 * host->alloc (logged; left alone), is shorter than len, or on ENOMEM. */
char *plugin_buffer_take(const struct plugin *pl, char *buf, size_t len,
			 size_t *out_len);

/* The option of pl named name, or NULL. */
const struct sbx_option *plugin_option(const struct plugin *pl,
				       const char *name);

/* Load every *.so in dir (sorted by name). Returns 0 even when some
 * plugins are rejected; -errno when the directory cannot be read. A file
 * is only opened when it is a regular file (not a symbolic link) that
 * nobody but its owner may write, owned by root or by us, in a directory
 * of which the same holds, and every directory up to / too (a parent with
 * the sticky bit, such as /tmp, may be world-writable), following
 * symbolic links only when root or we own them (so nobody else can swap
 * it between the check and dlopen; a file that changed anyway is
 * rejected). */
int plugins_load_dir(struct plugin_set *set, const char *dir);

/* Load the one plugin file path, as plugins_load_dir loads each. */
void plugins_load_file(struct plugin_set *set, const char *path);

/* Check path (the file, its directory and every directory on the way to
 * it, symbolic links resolved) as plugins_load_dir does; 0, or -EPERM
 * (-errno when it cannot be read) with the reason in err. On success *fd
 * is the open file and real its path with every link resolved (what to
 * dlopen). */
int plugin_file_check(const char *path, int *fd, char *real, size_t real_size,
		      struct error *err);

/* Resolve each loaded plugin's policy against cfg. Returns 0 or -ENOMEM;
 * a bad configured pattern is reported and skipped. */
int plugins_apply_config(struct plugin_set *set, const struct config *cfg);

/* The enabled plugin that pl's ml_variant names, when pl's
 * missing_module finds in the end of text (a run's stderr, len bytes) the
 * name of a module that the variant's `modules` hold (plugin.h, ABI 1.9):
 * the name is written to module (size bytes). NULL otherwise. */
const struct plugin *plugins_module_elsewhere(const struct plugin_set *set,
					      const struct plugin *pl,
					      const char *text, size_t len,
					      char *module, size_t size);

/* By name or alias; NULL if unknown or disabled. */
const struct plugin *plugins_find(const struct plugin_set *set,
				  const char *name);
void plugins_close(struct plugin_set *set);

/* Each policy's seccomp profile as a file in dir (seccomp_profile_file):
 * engines that want a path get it. 0, or a negative errno with err. */
int plugins_write_seccomp(struct plugin_set *set, const char *dir,
			  struct error *err);

#endif
