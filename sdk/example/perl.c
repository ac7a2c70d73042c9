/*
 * perl.c - an example language plugin: Perl 5.
 *
 * Build it against the SDK header only:
 *
 *   cc -shared -fPIC -fvisibility=hidden -Wl,-z,defs \
 *      -I sdk/include -o perl.so sdk/example/perl.c
 *
 * and drop perl.so into the plugins directory. Debian's perl-base is
 * essential, so the bash image already has an interpreter; a real plugin
 * would ship its own images/<lang>/ recipe.
 */
#include <mcp-sandbox/plugin.h>
#include <stdio.h>
#include <string.h>

static const struct sbx_host_api *host;

static const char *const aliases[] = {"pl", NULL};
static const char *const run_cmd[] = {"perl", "{file}", NULL};
static const char *const env[] = {"PERL_UNICODE=SDA", NULL};

/* Policy example: refuse code that tries to load the socket module. The
 * container has no network anyway; this shows how a rule reads. */
static const struct sbx_block_rule blocklist[] = {
	{"use[[:space:]]+IO::Socket", "network modules are not available"},
	{NULL, NULL},
};

/* Once, after loading: a non-zero return refuses the plugin, with the
 * reason written to why (ABI 1.7). */
static int init(const struct sbx_host_api *h, char *why, size_t size)
{
	if (h->struct_size < sizeof(*h)) {
		snprintf(why, size, "this host's API table is too old");
		return -1;
	}
	host = h;
	host->log("perl", SBX_LOG_DEBUG, "example plugin ready (host %s)",
		  h->host_version);
	return 0;
}

/* Turn on strict and warnings unless the program says otherwise. */
static int prepare_code(const struct sbx_host_api *h, const char *code,
			size_t len, char **out, size_t *out_len)
{
	static const char prelude[] = "use strict; use warnings;\n";
	char *p;

	if (strstr(code, "use strict"))
		return 0; /* keep as is */
	p = h->alloc(sizeof(prelude) - 1 + len + 1);
	if (!p)
		return -1;
	memcpy(p, prelude, sizeof(prelude) - 1);
	memcpy(p + sizeof(prelude) - 1, code, len);
	p[sizeof(prelude) - 1 + len] = '\0';
	*out = p;
	*out_len = sizeof(prelude) - 1 + len;
	return 0;
}

/* What `mcp-sandbox check-plugin perl.so --run` runs (ABI 1.7). A
 * language with a session interpreter adds session_set, session_get and
 * session_fds (ABI 1.10: `system("ls -l /proc/self/fd");` here), and its
 * spin must survive two interrupts in a row in a session. */
static const struct sbx_samples samples = {
	.hello = "print \"hello\\n\";",
	.echo = "print while <STDIN>;",
	.fail = "print STDERR \"oops\\n\"; exit 3;",
	.spin = "1 while 1;",
};

/* The descriptor and the exported entry point: SBX_PLUGIN_DEFINE fills in
 * the size and the ABI version. */
SBX_PLUGIN_DEFINE(.name = "perl", .aliases = aliases, .version = "0.1.0",
		  .description = "Perl 5 (example plugin)",
		  .image = "mcp-sandbox/bash:latest", .file_name = "main.pl",
		  .run_cmd = run_cmd, .env = env,
		  /* /work, /tmp and /dev/shm are memory: their sizes must fit
		   * in memory_mb (128 + 64 + 64), or the host refuses the
		   * configuration. */
		  .limits = {.memory_mb = 256, .work_mb = 128},
		  .blocklist = blocklist, .init_msg = init,
		  .prepare_code = prepare_code, .samples = &samples)
