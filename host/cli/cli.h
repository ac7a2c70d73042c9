/*
 * cli.h - the subcommands: one table, from which both the usage text and
 * the dispatch are made (main.c parses the global options, looks the
 * subcommand up here and runs it).
 */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdio.h>

#ifndef SBX_VERSION
#define SBX_VERSION "0"
#endif

struct app;

/* What a subcommand's row asks of the dispatch. */
enum {
	/* What follows its name is its own: the global loop stops there
	 * (--config and --files-root are still picked out, up to "--"). */
	CLI_OWN_ARGS = 1 << 0,
	/* A one-shot command: the server's own lines are kept to warnings
	 * unless -v is among its arguments. */
	CLI_QUIET = 1 << 1,
	/* No sandbox.ini, no plugins, no loop: the handler gets a NULL app. */
	CLI_NO_CONFIG = 1 << 2,
	/* stdout carries MCP frames: fd 1 is pointed at stderr before
	 * anything can print (plugins' init hooks included). */
	CLI_GUARD_STDOUT = 1 << 3,
};

/* One subcommand. */
struct cli_command {
	const char *name;     /* "run"; "serve" is also the default */
	const char *synopsis; /* its usage line after the name */
	const char *help;     /* one line beside the synopsis, or NULL */
	/* For a command without CLI_OWN_ARGS: its one option, read among
	 * the global ones with a value unless the next argument starts with
	 * '-' (serve's "--http [ADDR:PORT]"); it reaches the handler as
	 * argv {option[, value]}. NULL: none. */
	const char *option;
	/* sandbox.ini and the plugins are loaded (a->loaded says how that
	 * went), nothing else; returns the exit status. */
	int (*run)(struct app *a, int argc, char **argv);
	unsigned flags; /* CLI_* */
};

/* The global options. */
struct cli_options {
	const char *config;	/* --config FILE, or NULL */
	const char *files_root; /* --files-root DIR, or NULL */
};

/* The row of the subcommand name, or NULL. */
const struct cli_command *cli_find(const char *name);

/* The usage text, every row's synopsis. */
void cli_usage(FILE *f);

/* Runs cmd with its arguments (argv borrowed, NULL-terminated): loads
 * sandbox.ini and the plugins unless CLI_NO_CONFIG, calls the handler,
 * frees what it left. Returns the process's exit status. */
int cli_run(const struct cli_command *cmd, const struct cli_options *o,
	    int argc, char **argv);

#endif
