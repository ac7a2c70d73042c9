/*
 * js_blocklist.h - the blocklist rules of the javascript and typescript
 * plugins (docs/security.md, "The code blocklist"). Each names a
 * construct ordinary programs do not use; the sandbox stops every one of
 * them anyway (no capabilities, the seccomp floor, the pids limit).
 */
#ifndef SBX_JS_BLOCKLIST_H
#define SBX_JS_BLOCKLIST_H

#include <mcp-sandbox/plugin.h>

static const struct sbx_block_rule js_blocklist[] = {
	{"\\bprocess\\.(binding|_linkedBinding|dlopen)\\s*\\(",
	 "reaches Node's internal bindings or loads native code"},
	{"\\bprocess\\.(setuid|setgid|seteuid|setegid|setgroups|initgroups)"
	 "\\s*\\(",
	 "changes user or group ids (the sandbox user has no capabilities)"},
	{"(\\bwhile\\s*\\(\\s*(true|1)\\s*\\)|\\bfor\\s*\\(\\s*;\\s*;\\s*\\))"
	 "\\s*\\{?\\s*(\\w+\\.)?fork\\s*\\(",
	 "a fork bomb (the pids limit stops it)"},
	{"\\bprocess\\.kill\\s*\\(\\s*-1\\b",
	 "signals every process of the sandbox user"},
	{NULL, NULL},
};

#endif
