/*
 * main.c - mcp-sandbox entry point: the process set up, the global
 * options and the subcommand read from the command line, the subcommand
 * looked up in cli/cli.c's table (`mcp-sandbox --help` lists them) and
 * run. Without a subcommand: serve, MCP on stdio.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cli/cli.h"
#include "mcp-sandbox/plugin.h"
#include "revision.h"

/* What the command line says. */
struct cmdline {
	struct cli_options o;
	const struct cli_command *cmd;
	int option;		/* cmd->option was given (serve's --http) */
	const char *option_arg; /* with this value, or NULL */
	int end;		/* where cmd's own arguments start */
};

/*
 * Debian's libcurl links librtmp, which links GnuTLS, whose load-time
 * constructor initializes the library and its crypto back ends although
 * this program never uses TLS: about 0.8 MiB of resident memory for
 * nothing. GnuTLS skips that when GNUTLS_NO_IMPLICIT_INIT is set at load
 * time, so the process re-executes itself once with it set. If the
 * re-exec fails, it simply carries on. (An ELF pre-initializer cannot set
 * the variable instead: libc's initialization, which runs after it and
 * before GnuTLS's, resets the environment.)
 */
static void skip_gnutls_init(char **argv)
{
	if (getenv("GNUTLS_NO_IMPLICIT_INIT"))
		return;
	if (setenv("GNUTLS_NO_IMPLICIT_INIT", "1", 1) != 0)
		return;
	execv("/proc/self/exe", argv);
}

/*
 * The kernel names a process after the file it executed, and the re-exec
 * above executed "/proc/self/exe": without this the server shows as "exe"
 * in ps and top, and `pgrep -x mcp-sandbox` finds nothing. The name goes
 * back to the one it was started under (argv[0]'s last component, as the
 * kernel cuts it: 15 bytes).
 */
static void keep_name(const char *argv0)
{
	const char *base;

	if (!argv0 || !*argv0)
		return;
	base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	if (*base)
		prctl(PR_SET_NAME, base, 0, 0, 0);
}

/* libuv's thread pool does one job here, writing the sessions' state file
 * (core/session/session_store.c): one thread does it, where the default four
 * would each cost resident memory. A value the user set is kept. */
static void small_threadpool(void)
{
	setenv("UV_THREADPOOL_SIZE", "1", 0);
}

/* The global options and the subcommand's name, up to its own arguments
 * (CLI_OWN_ARGS) or to the end. -1 to go on, else the exit status
 * (--version, --help, a usage error). */
static int parse_global(int argc, char **argv, struct cmdline *cl)
{
	const struct cli_command *c;
	int i, first = 1;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
			cl->o.config = argv[++i];
		} else if (cl->cmd->option &&
			   strcmp(argv[i], cl->cmd->option) == 0) {
			/* [ADDR:PORT]; else [http] listen */
			cl->option = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				cl->option_arg = argv[++i];
		} else if (strcmp(argv[i], "--files-root") == 0 &&
			   i + 1 < argc) {
			cl->o.files_root = argv[++i];
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("mcp-sandbox %s (revision %s, plugin ABI "
			       "%d.%d)\n",
			       SBX_VERSION, SBX_REVISION, SBX_PLUGIN_ABI_MAJOR,
			       SBX_PLUGIN_ABI_MINOR);
			return 0;
		} else if (strcmp(argv[i], "--help") == 0 ||
			   strcmp(argv[i], "-h") == 0) {
			cli_usage(stdout);
			return 0;
		} else if (first && (c = cli_find(argv[i]))) {
			cl->cmd = c;
			first = 0;
			if (c->flags & CLI_OWN_ARGS) {
				i++;
				break;
			}
		} else {
			cli_usage(stderr);
			return 2;
		}
	}
	cl->end = i;
	return -1;
}

/* The subcommand's arguments into sub (room for argc - end + 3): its
 * option and value, then what follows its name, where the global options
 * may also stand (mcp-sandbox run python --config x.ini -c ...), up to a
 * "--". Returns their count. */
static int sub_args(int argc, char **argv, struct cmdline *cl, char **sub)
{
	int nsub = 0;

	if (cl->option) {
		sub[nsub++] = (char *)cl->cmd->option;
		if (cl->option_arg)
			sub[nsub++] = (char *)cl->option_arg;
	}
	for (int k = cl->end, dashes = 0; k < argc; k++) {
		dashes |= strcmp(argv[k], "--") == 0;
		if (!dashes && strcmp(argv[k], "--config") == 0 && k + 1 < argc)
			cl->o.config = argv[++k];
		else if (!dashes && strcmp(argv[k], "--files-root") == 0 &&
			 k + 1 < argc)
			cl->o.files_root = argv[++k];
		else
			sub[nsub++] = argv[k];
	}
	return nsub;
}

int main(int argc, char **argv)
{
	struct cmdline cl = {.cmd = cli_find("serve")};
	char **sub;
	int rc, nsub;

	small_threadpool();
	skip_gnutls_init(argv);
	keep_name(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	rc = parse_global(argc, argv, &cl);
	if (rc >= 0)
		return rc;
	sub = calloc((size_t)(argc - cl.end) + 3, sizeof(*sub));
	if (!sub)
		return 1;
	nsub = sub_args(argc, argv, &cl, sub);
	rc = cli_run(cl.cmd, &cl.o, nsub, sub);
	free(sub);
	return rc;
}
