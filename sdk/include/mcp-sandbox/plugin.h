/*
 * mcp-sandbox/plugin.h - the mcp-sandbox language plugin SDK.
 *
 * This is the only header a plugin includes. A plugin is a shared object
 * that exports one function, SBX_PLUGIN_ENTRY_SYMBOL, returning a constant
 * descriptor. Plugins never link against the host: everything the host
 * offers arrives through the struct sbx_host_api table passed to the entry
 * function. Build plugins with -Wl,-z,defs to keep that true.
 *
 * Versioning (docs/plugin-abi.md): the descriptor starts with its own size
 * and the ABI version it was built against; SBX_PLUGIN_DEFINE fills them.
 * The host refuses a plugin whose major differs from its own; within one
 * major, fields are only ever appended, and the host reads only the fields
 * that the plugin's struct_size covers (a 1.0 plugin has no options or
 * ml_variant; the host treats them as NULL). A plugin of a newer minor
 * loads into an older host, which ignores the fields it does not know.
 *
 * Memory: a buffer a hook hands the host comes from host->alloc; the host
 * gives it back to its own allocator (and refuses one that did not come
 * from there). The plugin never frees what the host passes it.
 *
 * Policy is data: every limit, command and list declared here can be
 * overridden per language in sandbox.ini. Commands are argv arrays; the host
 * substitutes whole-argument placeholders only ("{file}", "{packages}") and
 * never builds a shell string from user input.
 *
 * See docs/plugin-sdk.md for the guide and sdk/example/ for a plugin.
 */
#ifndef SBX_PLUGIN_H
#define SBX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SBX_PLUGIN_ABI_MAJOR 1
#define SBX_PLUGIN_ABI_MINOR 10
#define SBX_PLUGIN_ENTRY_SYMBOL "sbx_plugin_entry"

/* Visibility of the entry point (build plugins with -fvisibility=hidden). */
#define SBX_PLUGIN_EXPORT __attribute__((visibility("default")))

enum sbx_log_level {
	SBX_LOG_DEBUG = 0,
	SBX_LOG_INFO = 1,
	SBX_LOG_WARNING = 3,
	SBX_LOG_ERROR = 4,
};

/* What the host offers a plugin. Valid for the life of the process. */
struct sbx_host_api {
	size_t struct_size;
	uint16_t abi_major;
	uint16_t abi_minor;
	const char *host_version;
	/* Log a line under the plugin's name (stderr, and MCP logging). */
	void (*log)(const char *plugin, enum sbx_log_level level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
	/* The allocator of every buffer a hook hands the host (prepare_code's
	 * and session_request's *out); free gives back one the plugin does
	 * not hand over after all. */
	void *(*alloc)(size_t size);
	void (*free)(void *ptr);
};

/*
 * Resource limits. 0 means "use the host's default" ([limits] in
 * sandbox.ini); sandbox.ini's language section overrides both.
 */
struct sbx_limits {
	uint32_t memory_mb;  /* memory cgroup limit; swap equals it */
	uint32_t cpu_millis; /* 1000 = one CPU */
	uint32_t pids;	     /* pids cgroup limit */
	uint32_t timeout_ms; /* default wall-clock limit of one execution */
	uint32_t stdout_cap; /* bytes of stdout returned at most */
	uint32_t stderr_cap;
	uint32_t nofile;   /* RLIMIT_NOFILE */
	uint32_t fsize_mb; /* RLIMIT_FSIZE */
	uint32_t work_mb;  /* size of the exec-capable /work tmpfs */
	uint32_t tmp_mb;   /* size of /tmp */
};

/*
 * A code blocklist rule: a POSIX extended regular expression (glibc's:
 * \b, \w and \s work; compiled with REG_NEWLINE, so ^ and $ are line
 * anchors) matched against the code as lex_mask shows it, and the reason
 * told to the user when it matches. sandbox.ini's `blocklist = off | warn
 * | block` decides what a match does (warn by default: the call runs and
 * its result lists the match). Rules must be quiet: they name constructs
 * that ordinary programs do not use (docs/security.md, "The code
 * blocklist"). The container is the security boundary, not the rules.
 */
struct sbx_block_rule {
	const char *pattern;
	const char *reason;
};

/*
 * A per-call switch a language offers (ABI 1.1): a boolean argument of
 * sandbox_execute, such as "typecheck" (TypeScript) or "optimize" (Rust).
 * When a call sets it to true, the option's non-NULL commands replace the
 * plugin's and its env entries are added. A call that sets an option its
 * language does not offer gets "invalid_arguments".
 */
struct sbx_option {
	const char *name;	      /* [a-z_]{1,32} */
	const char *description;      /* one line, shown to the model */
	const char *const *build_cmd; /* replaces build_cmd, or NULL */
	const char *const *run_cmd;   /* replaces run_cmd, or NULL */
	const char *const *env;	      /* added "KEY=VALUE" entries, or NULL */
};

/*
 * Programs in the language that the conformance kit (`mcp-sandbox
 * check-plugin PATH --run`) runs through a real engine (ABI 1.7). Each may
 * be NULL: the kit then skips that check. The struct is pointed to once,
 * never an array: a minor may append a sample, which the host reads only
 * from plugins of that minor on.
 */
struct sbx_samples {
	const char *hello;	 /* prints "hello\n", exits 0 */
	const char *echo;	 /* copies its stdin to its stdout, exits 0 */
	const char *fail;	 /* prints "oops\n" on stderr, exits with 3 */
	const char *spin;	 /* runs until the kit's timeout ends it (in a
				  * session too, twice: the interrupts) */
	const char *session_set; /* in a session: sets a variable to 41 */
	const char *session_get; /* then: prints that variable plus 1 */
	/* ABI 1.10: in a session, runs the shell command
	 * "ls -l /proc/self/fd" the way the language's system() does (a
	 * child that inherits the interpreter's fd 0 and every descriptor
	 * not close-on-exec) with no stdin given; python: "import os\n_ =
	 * os.system('ls -l /proc/self/fd')". The kit wants none of the
	 * interpreter's control pipes in the listing (its other lines are
	 * ignored). */
	const char *session_fds;
};

/*
 * A pre-started interpreter (ABI 1.8, docs/prestart.md): every warm box
 * of the language keeps the next one-off call's run step started before
 * the call arrives, its interpreter's start-up done, waiting on fd 3 for
 * the program. The run step's own argv (run_cmd, or an option's) and
 * environment start it, so that the program cannot tell; the language's
 * image holds the code that waits (python: sitecustomize, node: the
 * --import preload, bash: a BASH_ENV file) and speaks the handover below.
 * A call whose run step differs (packages, an option's run command, a
 * session) runs the ordinary way, and so does one whose interpreter died.
 */
#define SBX_PRESTART_FD3 1u /* docs/prestart.md, "The handover" */

struct sbx_prestart {
	uint32_t handover; /* SBX_PRESTART_FD3 */
	/* The waiting process's argv, or NULL: the run step's own (the
	 * program can then not tell from its argv either). "{file}" as in
	 * run_cmd. */
	const char *const *cmd;
	/* "KEY=VALUE" entries the waiting process gets on top of the run
	 * step's environment, or NULL; the waiting code removes them before
	 * the program starts (bash: BASH_ENV naming the file that waits). */
	const char *const *env;
};

/*
 * The descriptor. Every pointer must stay valid while the plugin is loaded
 * (point at static data). Lists are NULL-terminated; a NULL list is empty.
 */
struct sbx_plugin {
	size_t struct_size; /* sizeof(struct sbx_plugin) */
	uint16_t abi_major; /* SBX_PLUGIN_ABI_MAJOR */
	uint16_t abi_minor; /* SBX_PLUGIN_ABI_MINOR */

	const char *name; /* [a-z0-9_-]{1,32}, the "language" argument */
	const char *const *aliases; /* other accepted names ("py"), or NULL */
	const char *version;	    /* the plugin's own version */
	const char *description;    /* one line, shown to the model */

	const char *image; /* Docker image, e.g. "mcp-sandbox/python:latest" */
	const char *file_name; /* the code is written to /work/<file_name> */
	const char *const *build_cmd; /* optional build argv, or NULL */
	const char *const *run_cmd;   /* run argv (required) */
	const char *const *env;	      /* "KEY=VALUE" for build and run */
	struct sbx_limits limits;

	const struct sbx_block_rule *blocklist; /* terminated by {NULL, NULL} */
	/* Syscalls denied (ENOTSUP) to this language's code on top of the
	 * host's seccomp floor (docs/security.md), which every language gets
	 * and no plugin can lift. NULL: the floor alone. */
	const char *const *seccomp_deny;
	/* Package installer argv (ABI 1.4 gives it meaning: see
	 * package_ecosystem below). "{packages}" expands to the validated
	 * package specs, one argument each; "{dir}" is the empty directory to
	 * install into. */
	const char *const *install_cmd;

	/* Optional hooks (NULL when unused). */

	/* Called once after loading; non-zero rejects the plugin (init_msg,
	 * ABI 1.7, says why). */
	int (*init)(const struct sbx_host_api *host);
	/* Rewrite code before it is sent (wrap bare statements...). On success
	 * return 0 and set *out (allocated with host->alloc, the host frees it)
	 * and *out_len, or leave *out NULL to keep the code as is. A negative
	 * return rejects the code; *out may then hold a message for the user.
	 */
	int (*prepare_code)(const struct sbx_host_api *host, const char *code,
			    size_t len, char **out, size_t *out_len);
	/* Called before unloading. */
	void (*fini)(void);

	/* ABI 1.1 */

	/* Per-call options, terminated by an entry with name NULL, or NULL. */
	const struct sbx_option *options;
	/* The language that a call with this language and "ml": true runs
	 * instead (for example "python-ml" for python), or NULL. */
	const char *ml_variant;

	/* ABI 1.2 */

	/* Code run once in every new container, as an ordinary execution,
	 * before the container serves anyone (then reset as after any use),
	 * or NULL. For runtimes with a slow first start, such as a fork
	 * server that imports heavy modules. A failure discards the
	 * container. */
	const char *warmup_code;

	/* ABI 1.3: sessions (docs/session-interpreters.md) */

	/* The argv of the language's session interpreter, a long-lived
	 * process that keeps variables between the calls of one session, or
	 * NULL: a session of this language runs every call as a program (its
	 * files persist, its memory does not). */
	const char *const *session_cmd;
	/* Build the bytes the agent writes to the interpreter for one call,
	 * or NULL for the standard framed request ("run <seq> <code_len>
	 * <stdin_len>\n" + code + stdin). The interpreter must answer
	 * "done <seq> <status>\n" on its fd 3. On success return 0 with *out
	 * (allocated with host->alloc; the host frees it) and *out_len; a
	 * negative return rejects the call, *out may then hold a message. */
	int (*session_request)(const struct sbx_host_api *host, uint32_t seq,
			       const char *code, size_t len,
			       const char *stdin_data, size_t stdin_len,
			       char **out, size_t *out_len);

	/* ABI 1.4: packages (docs/packages.md) */

	/* The ecosystem whose package specs sandbox_install takes for this
	 * language: "pypi", "npm", "go" or "cargo". The host validates and
	 * normalises the specs by its rules before anything runs. NULL: the
	 * language installs nothing (install_cmd is not used). */
	const char *package_ecosystem;
	/* Print, as JSON on stdout, what install_cmd put in "{dir}" (the
	 * same placeholders as install_cmd):
	 * {"installer": "pip 23.0.1", "packages": [{"name": "requests",
	 * "version": "2.32.3", "requested": true, "bytes": 1234}, ...]}. */
	const char *const *manifest_cmd;
	/* Print the URLs of the registries the installer uses by default, one
	 * a line (taken from the installer's own configuration; the egress
	 * proxy allows their hosts and nothing else). */
	const char *const *registry_cmd;
	/* "KEY=VALUE" entries that point the installer at a mirror set in
	 * sandbox.ini ("{registry}" is its URL), used instead of
	 * registry_cmd's registries. */
	const char *const *registry_env;
	/* "KEY=VALUE" entries of the install step only, added to env;
	 * "{ca}" is the CA bundle's path (an entry using it is dropped when
	 * no bundle is configured). The host adds the proxy variables. */
	const char *const *install_env;
	/* The directory inside "{dir}" that a program's import path gains
	 * ("site" for pip --target, "node_modules" for npm). */
	const char *package_path;
	/* "KEY=VALUE" entries of a run that uses installed packages;
	 * "{path}" is the absolute package_path (read-only). Session
	 * interpreters get the paths in their requests instead
	 * (docs/session-interpreters.md). */
	const char *const *package_env;

	/* ABI 1.5 */

	/* Run through the egress proxy once it allows the registries found
	 * so far (registry_cmd's, or the mirror's: "{packages}" as in
	 * install_cmd, the mirror in registry_env, the CA in install_env);
	 * print the further URLs those registries name for downloads (a
	 * Cargo sparse index's "dl"), one a line. No package code has run:
	 * what it prints is the registries' own word, and the proxy then
	 * allows those hosts too. NULL: downloads come from the registries'
	 * own hosts. */
	const char *const *registry_follow_cmd;

	/* ABI 1.6 */

	/* The lexer the blocklist sees code through: copy len bytes of code
	 * to out (len bytes, the host's) with every byte of a comment and of
	 * a string literal's contents replaced by a space, newlines kept, so
	 * that rules match code only and a match's offset is its line and
	 * column in the code. A string that is code (an import's module
	 * name) may be kept. Called from any thread; must not allocate from
	 * or write outside out, and must take time linear in len. NULL:
	 * rules see the code as it is. */
	void (*lex_mask)(const char *code, size_t len, char *out);

	/* ABI 1.7 */

	/* Called once after loading instead of init when set: non-zero
	 * rejects the plugin, and the NUL-terminated reason it wrote to why
	 * (size bytes at most) goes to the log, doctor and sandbox_inspect:
	 * "perl is not installed in mcp-sandbox/perl:latest". */
	int (*init_msg)(const struct sbx_host_api *host, char *why,
			size_t size);
	/* Sample programs for the conformance kit, or NULL (ABI 1.10
	 * appends session_fds to them; the descriptor does not grow). */
	const struct sbx_samples *samples;

	/* ABI 1.8 */

	/* The pre-started interpreter of the language's warm boxes, or
	 * NULL: every run step is started when its call arrives. */
	const struct sbx_prestart *prestart;

	/* ABI 1.9: the hint of a module that the ml_variant has */

	/* A POSIX extended regular expression (compiled with REG_NEWLINE)
	 * matched against the end of a run's stderr, whose first
	 * subexpression is the name of a module the program could not
	 * import (python: "ModuleNotFoundError: No module named
	 * '([A-Za-z0-9_]+)'"). When this language has an ml_variant whose
	 * `modules` hold that name, the run's result gains a one-line
	 * `hint` saying to use the machine-learning runtime. NULL: no
	 * hint. */
	const char *missing_module;
	/* The top-level modules this runtime offers, or NULL: what the
	 * hint above looks the name up in when this plugin is another
	 * language's ml_variant. Generate it from the image's recipe rather
	 * than typing it (python-ml: plugins/CMakeLists.txt reads the
	 * python3-<module> packages of images/python-ml). */
	const char *const *modules;
};

/*
 * The first fields of every descriptor: its size and the ABI it was built
 * against. SBX_PLUGIN_DEFINE puts them in; a plugin with an entry function
 * of its own starts its descriptor with them:
 *
 *   static const struct sbx_plugin desc = {SBX_PLUGIN_HEADER, .name = ...};
 */
#define SBX_PLUGIN_HEADER                                                      \
	.struct_size = sizeof(struct sbx_plugin),                              \
	.abi_major = SBX_PLUGIN_ABI_MAJOR, .abi_minor = SBX_PLUGIN_ABI_MINOR

/*
 * A plugin in one statement: the descriptor (the header, then the fields
 * given) and the exported entry point returning it.
 *
 *   SBX_PLUGIN_DEFINE(.name = "perl", .image = "mcp-sandbox/perl:latest",
 *                     .file_name = "main.pl", .run_cmd = run_cmd);
 */
#define SBX_PLUGIN_DEFINE(...)                                                 \
	static const struct sbx_plugin sbx_plugin_descriptor_ = {              \
		SBX_PLUGIN_HEADER, __VA_ARGS__};                               \
	SBX_PLUGIN_EXPORT const struct sbx_plugin *sbx_plugin_entry(           \
		const struct sbx_host_api *sbx_host_);                         \
	SBX_PLUGIN_EXPORT const struct sbx_plugin *sbx_plugin_entry(           \
		const struct sbx_host_api *sbx_host_)                          \
	{                                                                      \
		(void)sbx_host_;                                               \
		return &sbx_plugin_descriptor_;                                \
	}

/*
 * The layout is the ABI: these pin the size of every struct and where each
 * minor's fields begin (LP64: x86-64, arm64), so a change that would move
 * a field fails to compile instead of breaking the plugins built before.
 * docs/plugin-abi.md lists them.
 */
#if defined(__LP64__) && !defined(SBX_PLUGIN_NO_LAYOUT_CHECK)
#ifdef __cplusplus
#define SBX_LAYOUT_ASSERT(c, m) static_assert(c, m)
#else
#define SBX_LAYOUT_ASSERT(c, m) _Static_assert(c, m)
#endif
SBX_LAYOUT_ASSERT(sizeof(struct sbx_host_api) == 48, "sbx_host_api moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_host_api, free) == 40,
		  "sbx_host_api moved");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_limits) == 40, "sbx_limits moved");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_block_rule) == 16, "sbx_block_rule moved");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_option) == 40, "sbx_option moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, struct_size) == 0, "1.0 moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, name) == 16, "1.0 moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, limits) == 88, "1.0 moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, blocklist) == 128, "1.0 moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, init) == 152, "1.0 moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, options) == 176,
		  "1.1 must start where 1.0 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, warmup_code) == 192,
		  "1.2 must start where 1.1 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, session_cmd) == 200,
		  "1.3 must start where 1.2 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, package_ecosystem) == 216,
		  "1.4 must start where 1.3 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, registry_follow_cmd) == 272,
		  "1.5 must start where 1.4 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, lex_mask) == 280,
		  "1.6 must start where 1.5 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, init_msg) == 288,
		  "1.7 must start where 1.6 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_samples, session_fds) == 48,
		  "sbx_samples moved");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_samples) == 56, "1.10's sbx_samples");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, samples) == 296, "1.7 moved");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_prestart) == 24, "sbx_prestart moved");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, prestart) == 304,
		  "1.8 must start where 1.7 ended");
SBX_LAYOUT_ASSERT(offsetof(struct sbx_plugin, missing_module) == 312,
		  "1.9 must start where 1.8 ended");
SBX_LAYOUT_ASSERT(sizeof(struct sbx_plugin) == 328, "1.9's and 1.10's size");
#undef SBX_LAYOUT_ASSERT
#endif

/* The one symbol a plugin exports. Returns NULL to decline loading. */
typedef const struct sbx_plugin *(*sbx_plugin_entry_fn)(
	const struct sbx_host_api *host);

#ifdef __cplusplus
}
#endif

#endif
