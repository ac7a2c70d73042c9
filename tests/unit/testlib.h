/*
 * testlib.h - the smallest test harness: CHECK records, summary prints
 * "N passed, N failed" and sets the exit status: 1 when a check failed or
 * when none ran (a test that checked nothing does not pass).
 */
#ifndef SBX_TESTLIB_H
#define SBX_TESTLIB_H

#include <stdio.h>
#include <string.h>

static int t_passed, t_failed;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			t_passed++;                                            \
		} else {                                                       \
			t_failed++;                                            \
			fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__,          \
				__LINE__, #cond);                              \
		}                                                              \
	} while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                        \
	do {                                                                   \
		const char *h_ = (hay);                                        \
		if (h_ && strstr(h_, (needle))) {                              \
			t_passed++;                                            \
		} else {                                                       \
			t_failed++;                                            \
			fprintf(stderr, "FAIL %s:%d: '%s' not in '%s'\n",      \
				__FILE__, __LINE__, (needle),                  \
				h_ ? h_ : "(null)");                           \
		}                                                              \
	} while (0)

static inline int t_summary(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, t_passed, t_failed);
	if (t_passed + t_failed == 0) {
		fprintf(stderr, "FAIL %s: no check ran\n", name);
		return 1;
	}
	return t_failed ? 1 : 0;
}

#endif
