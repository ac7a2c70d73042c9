/*
 * bash.c - the GNU Bash plugin.
 *
 * The script is a file, not -c, so 1 MiB scripts work and $0 is meaningful.
 */
#include <sbx_plugin.h>

#include "../common/seccomp_deny.h"

static const char *const aliases[] = { "sh", "shell", NULL };
static const char *const run_cmd[] = { "bash", "{file}", NULL };
static const char *const seccomp_deny[] = { SBX_BUILTIN_SECCOMP_DENY, NULL };
static const char *const install_cmd[] = {
	"apt-get", "install", "-y", "--no-install-recommends", "{packages}",
	NULL,
};

static const struct sbx_plugin plugin = {
	.struct_size = sizeof(struct sbx_plugin),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.name = "bash",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "GNU Bash 5 with coreutils (Debian bookworm)",
	.image = "mcp-sandbox/bash:latest",
	.file_name = "main.sh",
	.run_cmd = run_cmd,
	.limits = {
		.memory_mb = 256,
		.pids = 128,
	},
	.seccomp_deny = seccomp_deny,
	.install_cmd = install_cmd,
};

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host);

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host)
{
	(void)host;
	return &plugin;
}
