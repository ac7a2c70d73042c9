/*
 * cli.c - the subcommands' table, the usage text made from it, and what
 * every subcommand's run shares (see cli.h).
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <curl/curl.h>
#include <uv.h>

#include "app.h"
#include "commands.h"
#include "mcp/transport.h"
#include "util/log.h"

/* In the usage's order. */
static const struct cli_command commands[] = {
	{
		.name = "serve",
		.synopsis = "--http [ADDR:PORT]",
		.help = "serve MCP over HTTP",
		.option = "--http",
		.run = cmd_serve,
		.flags = CLI_GUARD_STDOUT,
	},
	{
		.name = "run",
		.synopsis = "LANG (-c CODE | FILE | -) [--stdin FILE] "
			    "[--timeout MS] [--json] [-v]",
		.run = cmd_run,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "install",
		.synopsis = "LANG SPEC... [--json]",
		.run = cmd_install,
		.flags = CLI_OWN_ARGS,
	},
	{
		.name = "cache",
		.synopsis = "list [--json] | cache prune",
		.run = cmd_cache,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "audit",
		.synopsis = "verify [--anchor SEQ:HASH] [FILE...] | audit head "
			    "[FILE...]",
		.run = cmd_audit,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "token",
		.synopsis = "NAME [--file FILE]",
		.run = cmd_token,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "blocklist",
		.synopsis = "LANG [FILE... | -]",
		.run = cmd_blocklist,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "doctor",
		.synopsis = "[--json] [--no-registries]",
		.run = cmd_doctor,
		.flags = CLI_OWN_ARGS | CLI_QUIET,
	},
	{
		.name = "check-config",
		.synopsis = "[--config FILE]",
		.run = cmd_check_config,
	},
	{
		.name = "check-plugin",
		.synopsis = "PATH.so [--run]",
		.run = cmd_check_plugin,
		.flags = CLI_OWN_ARGS | CLI_NO_CONFIG,
	},
};

const struct cli_command *cli_find(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

void cli_usage(FILE *f)
{
	char line[160];

	fprintf(f,
		"usage: mcp-sandbox [--config FILE] [--files-root DIR]\n"
		"%48sserve MCP on stdio\n",
		"");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct cli_command *c = &commands[i];

		snprintf(line, sizeof(line), "%s %s", c->name, c->synopsis);
		if (c->help)
			fprintf(f, "       mcp-sandbox %-30s%s\n", line,
				c->help);
		else
			fprintf(f, "       mcp-sandbox %s\n", line);
	}
	fprintf(f, "       mcp-sandbox --version\n"
		   "Environment: SANDBOX_CONFIG, SANDBOX_<SECTION>_<KEY>, "
		   "DOCKER_HOST.\n");
}

int cli_run(const struct cli_command *cmd, const struct cli_options *o,
	    int argc, char **argv)
{
	/* Static: zeroed, and off the stack (it holds a few paths). */
	static struct app app;
	struct app *a = &app;
	int rc;

	if (cmd->flags & CLI_NO_CONFIG)
		return cmd->run(NULL, argc, argv);
	if (cmd->flags & CLI_GUARD_STDOUT) {
		/* Before anything can print (plugins' init hooks included). */
		a->proto_fd = transport_guard_stdout();
		if (a->proto_fd < 0) {
			fprintf(stderr,
				"mcp-sandbox: cannot set up stdout: %s\n",
				strerror(-a->proto_fd));
			return 1;
		}
	}
	/* Plain HTTP over a unix socket or TCP: no TLS to initialize, which
	 * also keeps OpenSSL's pages out of the server's resident set. */
	curl_global_init(CURL_GLOBAL_NOTHING);
	a->loop = uv_default_loop();
	/* A one-shot run prints the program's output; keep our own lines to
	 * warnings unless -v was given. */
	if ((cmd->flags & CLI_QUIET) && !app_has_flag(argc, argv, "-v"))
		log_set_level(LOG_LEVEL_WARNING);
	a->loaded = app_load(a, o->config, o->files_root);
	rc = cmd->run(a, argc, argv);
	app_free(a);
	curl_global_cleanup();
	return rc;
}
