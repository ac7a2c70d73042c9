/*
 * seccomp_floor.c - the table of seccomp_floor.h and its conditions.
 */
#include "seccomp_floor.h"

#include <string.h>

#define DENY(n)                                                                \
	{                                                                      \
		n, FLOOR_DENY, SBX_SECCOMP_ERRNO, 0, {0}, 0, 0                 \
	}

/* The namespace flags of clone and unshare (linux/sched.h). clone's low
 * byte is the exit signal, so CLONE_NEWTIME (0x80) is unshare's only. */
#define NS_CLONE                                                               \
	(0x00020000ULL /* NEWNS */ | 0x02000000ULL /* NEWCGROUP */ |           \
	 0x04000000ULL /* NEWUTS */ | 0x08000000ULL /* NEWIPC */ |             \
	 0x10000000ULL /* NEWUSER */ | 0x20000000ULL /* NEWPID */ |            \
	 0x40000000ULL /* NEWNET */)
#define NS_UNSHARE (NS_CLONE | 0x80ULL /* NEWTIME */)

const struct floor_rule floor_rules[] = {
	/* Kernel attack surface with no use in a code sandbox. */
	DENY("io_uring_setup"),
	DENY("io_uring_enter"),
	DENY("io_uring_register"),
	DENY("bpf"),
	DENY("userfaultfd"),
	DENY("perf_event_open"),
	/* Other processes' memory and state. */
	DENY("ptrace"),
	DENY("process_vm_readv"),
	DENY("process_vm_writev"),
	DENY("kcmp"),
	DENY("pidfd_getfd"),
	/* Kernel keyrings. */
	DENY("keyctl"),
	DENY("add_key"),
	DENY("request_key"),
	/* Mounts, namespaces and file handles: the ways out of a container. */
	DENY("mount"),
	DENY("umount2"),
	DENY("pivot_root"),
	DENY("chroot"),
	DENY("mount_setattr"),
	DENY("fsopen"),
	DENY("fsconfig"),
	DENY("fsmount"),
	DENY("fspick"),
	DENY("move_mount"),
	DENY("open_tree"),
	DENY("setns"),
	DENY("open_by_handle_at"),
	DENY("name_to_handle_at"),
	{"unshare",
	 FLOOR_ALLOW_CLEAR,
	 SBX_SECCOMP_ERRNO,
	 0,
	 {0},
	 0,
	 NS_UNSHARE},
	{"clone", FLOOR_ALLOW_CLEAR, SBX_SECCOMP_ERRNO, 0, {0}, 0, NS_CLONE},
	{"clone3", FLOOR_DENY, ENOSYS, 0, {0}, 0, 0},
	/* The kernel and the machine. */
	DENY("kexec_load"),
	DENY("kexec_file_load"),
	DENY("init_module"),
	DENY("finit_module"),
	DENY("delete_module"),
	DENY("create_module"),
	DENY("query_module"),
	DENY("get_kernel_syms"),
	DENY("syslog"),
	DENY("acct"),
	DENY("quotactl"),
	DENY("quotactl_fd"),
	DENY("lookup_dcookie"),
	DENY("swapon"),
	DENY("swapoff"),
	DENY("reboot"),
	DENY("settimeofday"),
	DENY("clock_settime"),
	DENY("clock_adjtime"),
	DENY("iopl"),
	DENY("ioperm"),
	DENY("fanotify_init"),
	/* Obsolete calls. */
	DENY("nfsservctl"),
	DENY("uselib"),
	DENY("ustat"),
	DENY("sysfs"),
	DENY("_sysctl"),
	DENY("afs_syscall"),
	DENY("tuxcall"),
	DENY("security"),
	DENY("vserver"),
	DENY("getpmsg"),
	DENY("putpmsg"),
	/* Only the default execution domain (and the query, 0xffffffff):
	 * no ADDR_NO_RANDOMIZE, no READ_IMPLIES_EXEC. */
	{"personality",
	 FLOOR_ALLOW_EQ,
	 SBX_SECCOMP_ERRNO,
	 0,
	 {0, 0xffffffffULL},
	 2,
	 0},
	/* AF_UNIX, AF_INET, AF_INET6 only: no AF_VSOCK (which no network
	 * namespace covers: on a VM it reaches the hypervisor), no raw
	 * packet or netlink sockets. */
	{"socket", FLOOR_ALLOW_EQ, SBX_SECCOMP_ERRNO, 0, {1, 2, 10}, 3, 0},
	{"socketpair", FLOOR_ALLOW_EQ, SBX_SECCOMP_ERRNO, 0, {1, 2, 10}, 3, 0},
	{NULL, FLOOR_DENY, 0, 0, {0}, 0, 0},
};

static int allowed_in(const struct floor_rule *r, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < r->nv; i++)
		if ((r->v[i] & 0xffffffffULL) >= lo &&
		    (r->v[i] & 0xffffffffULL) <= hi)
			return 1;
	return 0;
}

/* The block of values whose top len bits are prefix's: denied whole when
 * it holds no allowed value, else split in two. */
static int blocks(const struct floor_rule *r, uint64_t prefix, unsigned len,
		  struct floor_cond *out, size_t max, size_t *n)
{
	uint64_t size = 1ULL << (32 - len);

	if (!allowed_in(r, prefix, prefix + size - 1)) {
		if (*n >= max)
			return -ENOSPC;
		out[*n].mask = (0xffffffffULL << (32 - len)) & 0xffffffffULL;
		out[*n].value = prefix;
		(*n)++;
		return 0;
	}
	if (len == 32)
		return 0;
	if (blocks(r, prefix, len + 1, out, max, n))
		return -ENOSPC;
	return blocks(r, prefix | (1ULL << (31 - len)), len + 1, out, max, n);
}

int floor_conditions(const struct floor_rule *r, struct floor_cond *out,
		     size_t max)
{
	size_t n = 0;
	unsigned b;

	switch (r->kind) {
	case FLOOR_ALLOW_CLEAR:
		for (b = 0; b < 64; b++) {
			if (!(r->mask & (1ULL << b)))
				continue;
			if (n >= max)
				return -ENOSPC;
			out[n].mask = out[n].value = 1ULL << b;
			n++;
		}
		return (int)n;
	case FLOOR_ALLOW_EQ:
		if (blocks(r, 0, 0, out, max, &n))
			return -ENOSPC;
		return (int)n;
	case FLOOR_DENY:
	default:
		return 0;
	}
}

int floor_mentions(const char *name)
{
	const struct floor_rule *r;

	for (r = floor_rules; r->name; r++)
		if (strcmp(r->name, name) == 0)
			return 1;
	return 0;
}
