/*
 * plugin_check.h - the plugin SDK's conformance kit (`mcp-sandbox
 * check-plugin PATH.so [--run]`).
 */
#ifndef SBX_CLI_PLUGIN_CHECK_H
#define SBX_CLI_PLUGIN_CHECK_H

/* Where the kit finds what it compares a plugin with. */
struct kit_paths {
	const char *self;    /* this binary (the server the samples meet) */
	const char *builtin; /* the built-in plugins' directory, or NULL */
	const char *build_images; /* the image script, or NULL */
};

/* Checks the plugin at path as the server would load it (its name
 * against the built-in plugins' too), runs its hooks on hostile inputs
 * (each in a child process), and with run its samples through `self run`
 * against the real engine. One line per check on stdout ("pass", "FAIL",
 * "skip"); returns 0 when none failed, else 1. Blocking: a command, not
 * for the server's loop. */
int plugin_check(const char *path, int run, const struct kit_paths *where);

#endif
