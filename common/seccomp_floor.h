/*
 * seccomp_floor.h - the syscalls no sandbox may use, whatever its plugin
 * says (docs/security.md). One table, read twice:
 *
 *   - the host turns it into the Docker seccomp profile of every container
 *     (an allow-list of every syscall libseccomp knows, less the floor:
 *     host/core/engines/seccomp_profile.c);
 *   - the agent turns it into the filter it loads before it execs user
 *     code (a deny-list, agent/spawn.c).
 *
 * A plugin or sandbox.ini may deny more syscalls by name, never fewer.
 * Data and plain C only: no libseccomp here.
 */
#ifndef SBX_COMMON_SECCOMP_FLOOR_H
#define SBX_COMMON_SECCOMP_FLOOR_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* What a denied syscall returns: "Operation not supported", which none of
 * the denied calls returns for its own reasons in a sandbox, so a result
 * (or a test) can tell the floor's refusal from the kernel's. clone3 is
 * the exception: it gets ENOSYS, the answer that makes the C library fall
 * back to clone, whose flags the filter can read. A 32-bit syscall from an
 * x86_64 program is not an errno: the process is killed with SIGSYS. */
#define SBX_SECCOMP_ERRNO ENOTSUP

enum floor_kind {
	FLOOR_DENY,	   /* always: returns err */
	FLOOR_ALLOW_EQ,	   /* only when arg (low 32 bits) is one of v[] */
	FLOOR_ALLOW_CLEAR, /* only when arg has none of mask's bits */
};

struct floor_rule {
	const char *name;
	enum floor_kind kind;
	int err;
	unsigned arg;
	uint64_t v[3];
	size_t nv;
	uint64_t mask;
};

/* The floor, ending with a rule whose name is NULL. */
extern const struct floor_rule floor_rules[];

/* One deny condition of a FLOOR_ALLOW_EQ or FLOOR_ALLOW_CLEAR rule: the
 * syscall is denied when (arg & mask) == value. */
struct floor_cond {
	uint64_t mask;
	uint64_t value;
};

/*
 * The deny conditions of rule r (not FLOOR_DENY), into out (max entries):
 * for FLOOR_ALLOW_CLEAR one per bit of the mask; for FLOOR_ALLOW_EQ the
 * values of the low 32 bits that are not in v[], as aligned blocks (each
 * a prefix of the 32 bits; the kernel reads these arguments as 32-bit
 * ints, so the upper half is ignored). Returns the count, or -ENOSPC.
 */
int floor_conditions(const struct floor_rule *r, struct floor_cond *out,
		     size_t max);

/* 1 if name is a syscall the floor mentions (denied in every or in some
 * uses). */
int floor_mentions(const char *name);

#endif
