/*
 * plugin_check.h - the plugin SDK's conformance kit (`mcp-sandbox
 * check-plugin PATH.so [--run]`).
 */
#ifndef SBX_CLI_PLUGIN_CHECK_H
#define SBX_CLI_PLUGIN_CHECK_H

/* Checks the plugin at path as the server would load it, runs its hooks
 * on hostile inputs (each in a child process), and with run its samples
 * through `self run` (self: this binary) against the real engine. One
 * line per check on stdout ("pass", "FAIL", "skip"); returns 0 when none
 * failed, else 1. Blocking: a command, not for the server's loop. */
int plugin_check(const char *path, int run, const char *self);

#endif
