/*
 * seccomp_deny.h - the syscalls the built-in plugins deny to user code on
 * top of the engine's default seccomp profile: debugging and introspection
 * of other processes, kernel keyrings, BPF, perf and userfaultfd (common
 * exploit primitives with no use in a code sandbox). Data only; each
 * plugin still declares its own list and sandbox.ini can replace it.
 */
#ifndef SBX_PLUGINS_SECCOMP_DENY_H
#define SBX_PLUGINS_SECCOMP_DENY_H

#define SBX_BUILTIN_SECCOMP_DENY                                               \
	"ptrace", "process_vm_readv", "process_vm_writev", "personality",      \
		"userfaultfd", "perf_event_open", "bpf", "keyctl", "add_key",  \
		"request_key"

#endif
