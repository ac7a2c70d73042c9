/*
 * plugin_session - what a language plugin declares for its session
 * interpreter, loaded through dlopen as the host loads it, so that
 * repl_test.sh starts the interpreter with the plugin's own argv,
 * environment, image and limits instead of a copy of them.
 *
 *   plugin_session PLUGIN.so
 *
 * prints one field per line, name and value separated by a tab:
 *
 *   image	mcp-sandbox/python:latest
 *   memory_mb	N        the plugin's limits, 0 where it leaves the
 *   pids	N            host's default
 *   nofile	N
 *   cpu_millis	N
 *   env	KEY=VALUE    one line per entry of the plugin's env
 *   cmd	ARG          one line per argument of session_cmd
 *
 * Exit 1 when the plugin does not load or has no session interpreter.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcp-sandbox/plugin.h>

static void log_cb(const char *plugin, enum sbx_log_level level,
		   const char *fmt, ...)
{
	va_list ap;

	(void)level;
	fprintf(stderr, "%s: ", plugin);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static const struct sbx_host_api host = {
	.struct_size = sizeof(struct sbx_host_api),
	.abi_major = SBX_PLUGIN_ABI_MAJOR,
	.abi_minor = SBX_PLUGIN_ABI_MINOR,
	.host_version = "plugin_session",
	.log = log_cb,
	.alloc = malloc,
	.free = free,
};

/* A field's value must fit on its line. */
static int print_field(const char *name, const char *value)
{
	if (strpbrk(value, "\t\n")) {
		fprintf(stderr, "plugin_session: %s has a tab or newline\n",
			name);
		return -1;
	}
	printf("%s\t%s\n", name, value);
	return 0;
}

int main(int argc, char **argv)
{
	const struct sbx_plugin *p;
	sbx_plugin_entry_fn entry;
	const char *const *s;
	void *h;

	if (argc != 2) {
		fprintf(stderr, "usage: plugin_session PLUGIN.so\n");
		return 2;
	}
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "plugin_session: %s\n", dlerror());
		return 1;
	}
	*(void **)&entry = dlsym(h, SBX_PLUGIN_ENTRY_SYMBOL);
	p = entry ? entry(&host) : NULL;
	/* session_cmd is an ABI 1.3 field: only read when the struct has it. */
	if (!p ||
	    p->struct_size < offsetof(struct sbx_plugin, session_cmd) +
				     sizeof(p->session_cmd) ||
	    !p->session_cmd || !p->session_cmd[0]) {
		fprintf(stderr, "plugin_session: %s has no session_cmd\n",
			argv[1]);
		return 1;
	}
	if (print_field("image", p->image) != 0)
		return 1;
	printf("memory_mb\t%u\npids\t%u\nnofile\t%u\ncpu_millis\t%u\n",
	       p->limits.memory_mb, p->limits.pids, p->limits.nofile,
	       p->limits.cpu_millis);
	for (s = p->env; s && *s; s++)
		if (print_field("env", *s) != 0)
			return 1;
	for (s = p->session_cmd; *s; s++)
		if (print_field("cmd", *s) != 0)
			return 1;
	return fflush(stdout) == 0 ? 0 : 1;
}
