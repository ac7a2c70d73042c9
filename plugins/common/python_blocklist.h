/*
 * python_blocklist.h - the blocklist rules of the python and python-ml
 * plugins (docs/security.md, "The code blocklist"). Each names a
 * construct ordinary programs do not use; the sandbox stops every one of
 * them anyway (no capabilities, the seccomp floor, the pids limit).
 */
#ifndef SBX_PYTHON_BLOCKLIST_H
#define SBX_PYTHON_BLOCKLIST_H

#include <mcp-sandbox/plugin.h>

static const struct sbx_block_rule python_blocklist[] = {
	{"\\bos\\.(setuid|setgid|seteuid|setegid|setreuid|setregid|"
	 "setresuid|setresgid|setgroups|initgroups|chroot)\\s*\\(",
	 "changes user or group ids or the root directory (the sandbox user "
	 "has no capabilities)"},
	{"\\.(syscall|ptrace|unshare|setns|pivot_root|umount2|init_module|"
	 "finit_module|kexec_load|process_vm_readv|process_vm_writev|"
	 "io_uring_setup|userfaultfd|perf_event_open)\\s*\\(",
	 "a raw or privileged system call (the seccomp floor denies these)"},
	{"\\bwhile\\s+(True|1)\\s*:\\s*(os\\.)?fork\\s*\\(",
	 "a fork bomb (the pids limit stops it)"},
	{"\\bos\\.kill\\s*\\(\\s*-1\\s*,",
	 "signals every process of the sandbox user"},
	{"\\bAF_(VSOCK|PACKET|NETLINK|BLUETOOTH|CAN|ALG)\\b",
	 "a socket family the seccomp floor denies (only UNIX, IPv4 and IPv6 "
	 "sockets are allowed)"},
	{NULL, NULL},
};

#endif
