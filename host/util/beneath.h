/*
 * beneath.h - files under a directory the user allowed (the export root,
 * sandbox_file_ops export and import), opened so that nothing planted in
 * it can lead elsewhere: every path is resolved with openat2() and
 * RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS (no "..",
 * absolute path or symlink of any kind, checked by the kernel at each
 * component, so no race can swap one in). These calls block: run them on
 * the thread pool.
 */
#ifndef SBX_BENEATH_H
#define SBX_BENEATH_H

#include <sys/types.h>

/* 0 if path is relative, non-empty, without "..", "." or empty
 * components, control characters or a trailing '/'; else -EINVAL. */
int beneath_check(const char *path);
/* openat2(dirfd, path, flags, mode) beneath dirfd; the fd or -errno. */
int beneath_open(int dirfd, const char *path, int flags, mode_t mode);
/* The directory that holds path's last component, opened O_PATH beneath
 * rootfd, creating missing directories (0755) when create is set; *last
 * points into path. The fd or -errno. */
int beneath_parent(int rootfd, const char *path, int create, const char **last);

#endif
