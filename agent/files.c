/*
 * files.c - AP_FILE: the worker that does one file operation as the user,
 * and the agent's side that waits for its reply (see files.h).
 */
#include "files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "log.h"
#include "procs.h"
#include "spawn.h"

/* ---- the worker ------------------------------------------------------- */

struct job {
	struct ap_file req;
	uint32_t id;
	int root; /* the work directory, O_PATH */
	char path[AP_PATH_MAX + 1];
	char path2[AP_PATH_MAX + 1];
	char cursor[AP_PATH_MAX + 1];
	struct ap_file_done done;
	char msg[256];
};

/* Resolution rules of every path: beneath the work directory (an
 * absolute symlink or one that climbs out fails with EXDEV), no magic
 * links (ELOOP), no other mounts (EXDEV). */
static int open_beneath(int dfd, const char *path, int flags, mode_t mode)
{
	struct open_how how;
	long fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(flags | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
	do
		fd = syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EINTR);
	return fd < 0 ? -1 : (int)fd;
}

static uint32_t status_of(int err)
{
	switch (err) {
	case ENOENT:
		return AP_FS_NOT_FOUND;
	case EEXIST:
		return AP_FS_EXISTS;
	case EXDEV:
	case ELOOP:
	case ENAMETOOLONG:
	case EINVAL:
		return AP_FS_INVALID_PATH;
	case EISDIR:
	case ENXIO: /* a FIFO without a reader */
		return AP_FS_NOT_A_FILE;
	case ENOTDIR:
		return AP_FS_NOT_A_DIR;
	case ENOTEMPTY:
		return AP_FS_NOT_EMPTY;
	case EACCES:
	case EPERM:
	case EROFS:
		return AP_FS_DENIED;
	case ENOSPC:
	case EDQUOT:
		return AP_FS_NO_SPACE;
	case EFBIG:
		return AP_FS_TOO_LARGE;
	default:
		return AP_FS_IO;
	}
}

__attribute__((format(printf, 3, 4))) static int
fail(struct job *j, uint32_t status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(j->msg, sizeof(j->msg), fmt, ap);
	va_end(ap);
	j->done.status = status;
	j->done.message = j->msg;
	j->done.message_len = strlen(j->msg);
	return -1;
}

/* A failed system call on what: the status of its errno. A full work
 * directory and the file size limit say their size, which the host
 * completes with the setting that raises it. */
static int fail_errno(struct job *j, const char *what, const char *path)
{
	int err = errno;
	struct statfs fs;
	struct rlimit rl;

	if (err == EXDEV || err == ELOOP)
		return fail(j, AP_FS_INVALID_PATH,
			    "%s: leaves the work directory", path);
	if ((err == ENOSPC || err == EDQUOT) && !fstatfs(j->root, &fs))
		return fail(j, AP_FS_NO_SPACE,
			    "%s %s: the work directory is full (%llu MiB)",
			    what, path,
			    (unsigned long long)fs.f_blocks * fs.f_bsize >> 20);
	if (err == EFBIG && !getrlimit(RLIMIT_FSIZE, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY)
		return fail(j, AP_FS_TOO_LARGE,
			    "%s %s: the file would pass the file size limit "
			    "(%llu MiB)",
			    what, path, (unsigned long long)rl.rlim_cur >> 20);
	return fail(j, status_of(err), "%s %s: %s", what, path, strerror(err));
}

/* The request's path as a NUL-terminated string relative to the work
 * directory: "/work/x" is "x", "/work" and "" are "."; other absolute
 * paths, "..", control characters and trailing garbage are refused. */
static int clean_path(struct job *j, const char *p, size_t n, char *out)
{
	const size_t wl = strlen(AGENT_WORKDIR);
	size_t i, start = 0, k = 0;

	if (n && p[0] == '/') {
		if (n < wl || memcmp(p, AGENT_WORKDIR, wl) != 0 ||
		    (n > wl && p[wl] != '/'))
			return fail(j, AP_FS_INVALID_PATH,
				    "%.*s: outside the work directory %s",
				    (int)(n > 200 ? 200 : n), p, AGENT_WORKDIR);
		p += wl;
		n -= wl;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return fail(j, AP_FS_INVALID_PATH,
				    "the path contains a control character");
	/* Copy component by component, dropping empty ones and ".". */
	for (i = 0; i <= n; i++) {
		if (i < n && p[i] != '/')
			continue;
		if (i > start && !(i - start == 1 && p[start] == '.')) {
			if (i - start == 2 && p[start] == '.' &&
			    p[start + 1] == '.')
				return fail(j, AP_FS_INVALID_PATH,
					    "the path contains \"..\"");
			if (k)
				out[k++] = '/';
			memcpy(out + k, p + start, i - start);
			k += i - start;
		}
		start = i + 1;
	}
	if (!k)
		out[k++] = '.';
	out[k] = '\0';
	return 0;
}

/* Split "a/b/c" into the parent "a/b" (or ".") opened as a directory, and
 * the last component. The root itself has no parent: invalid. */
static int open_parent(struct job *j, char *path, const char **last)
{
	char *slash = strrchr(path, '/');
	int fd;

	*last = path;
	if (!strcmp(path, "."))
		return fail(j, AP_FS_INVALID_PATH,
			    "the work directory itself cannot be changed");
	if (!slash) {
		*last = path;
		fd = dup(j->root);
		return fd < 0 ? fail_errno(j, "open", ".") : fd;
	}
	*slash = '\0';
	fd = open_beneath(j->root, path, O_PATH | O_DIRECTORY, 0);
	*slash = '/';
	*last = slash + 1;
	if (fd < 0)
		return fail_errno(j, "open", path);
	return fd;
}

/* mkdir -p of every directory above path's last component. */
static int make_parents(struct job *j, char *path)
{
	char *p;
	int fd, dfd;

	for (p = strchr(path, '/'); p; p = strchr(p + 1, '/')) {
		char *comp;

		*p = '\0';
		comp = strrchr(path, '/');
		comp = comp ? comp + 1 : path;
		fd = open_beneath(j->root, path, O_PATH | O_DIRECTORY, 0);
		if (fd < 0 && errno == ENOENT) {
			if (comp == path) {
				dfd = dup(j->root);
			} else {
				comp[-1] = '\0';
				dfd = open_beneath(j->root, path,
						   O_PATH | O_DIRECTORY, 0);
				comp[-1] = '/';
			}
			if (dfd >= 0 && mkdirat(dfd, comp, 0755) &&
			    errno != EEXIST) {
				close(dfd);
				dfd = -1;
			}
			if (dfd >= 0)
				close(dfd);
			fd = dfd < 0 ? -1
				     : open_beneath(j->root, path,
						    O_PATH | O_DIRECTORY, 0);
		}
		if (fd < 0) {
			fail_errno(j, "mkdir", path);
			*p = '/';
			return -1;
		}
		close(fd);
		*p = '/';
	}
	return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* In place (AP_FF_AT, AP_FF_APPEND): for a client that sends a file in
 * pieces, and the host's chunked import into a temporary name of its
 * own. Never through a symlink (O_NOFOLLOW: ELOOP is INVALID_PATH), only
 * into a regular file, and never past its end: a gap would be a hole the
 * sender did not mean. */
static int op_write_at(struct job *j)
{
	const int append = !!(j->req.flags & AP_FF_APPEND);
	const char *last;
	struct stat st;
	int dfd, fd, rc = 0, existed,
		     flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK;

	if ((j->req.flags & AP_FF_PARENTS) && make_parents(j, j->path))
		return -1;
	dfd = open_parent(j, j->path, &last);
	if (dfd < 0)
		return -1;
	if (append || j->req.offset == 0)
		flags |= O_CREAT;
	if (append)
		flags |= O_APPEND;
	existed = !fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW);
	fd = openat(dfd, last, flags, 0644);
	if (fd < 0 && errno == ELOOP) {
		close(dfd);
		return fail(j, AP_FS_INVALID_PATH,
			    "%s is a symlink: a write in place never goes "
			    "through one",
			    j->path);
	}
	if (fd < 0) {
		rc = errno == ENOENT
			     ? fail(j, AP_FS_NOT_FOUND,
				    "%s does not exist (a write at "
				    "offset %llu needs the file)",
				    j->path, (unsigned long long)j->req.offset)
			     : fail_errno(j, "open", j->path);
		close(dfd);
		return rc;
	}
	close(dfd);
	if (fstat(fd, &st))
		rc = fail_errno(j, "stat", j->path);
	else if (!S_ISREG(st.st_mode))
		rc = fail(j, AP_FS_NOT_A_FILE, "%s is not a regular file",
			  j->path);
	else if (!append && j->req.offset > (uint64_t)st.st_size)
		rc = fail(j, AP_FS_RANGE,
			  "offset %llu is past the end of %s (%llu bytes): "
			  "0 to %llu",
			  (unsigned long long)j->req.offset, j->path,
			  (unsigned long long)st.st_size,
			  (unsigned long long)st.st_size);
	else if (!append && lseek(fd, (off_t)j->req.offset, SEEK_SET) < 0)
		rc = fail_errno(j, "seek in", j->path);
	else if (write_all(fd, j->req.data, j->req.data_len))
		rc = fail_errno(j, "write", j->path);
	if (!rc && fstat(fd, &st))
		rc = fail_errno(j, "stat", j->path);
	if (close(fd) && !rc)
		rc = fail_errno(j, "write", j->path);
	if (!rc) {
		j->done.has_size = 1;
		j->done.size = (uint64_t)st.st_size;
		j->done.created = (uint8_t)!existed;
	}
	return rc;
}

/* Into a temporary name beside the target, then renamed over it (or, when
 * overwriting is not allowed, renamed only if the name is still free):
 * nobody ever sees half a file, and a symlink at the target is replaced,
 * never written through. */
static int op_write(struct job *j)
{
	char tmp[64];
	const char *last;
	struct stat st;
	int dfd, fd, rc = 0, existed;
	unsigned n;

	if (j->req.flags & (AP_FF_AT | AP_FF_APPEND))
		return op_write_at(j);
	if ((j->req.flags & AP_FF_PARENTS) && make_parents(j, j->path))
		return -1;
	dfd = open_parent(j, j->path, &last);
	if (dfd < 0)
		return -1;
	existed = !fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW);
	if (existed) {
		if (S_ISDIR(st.st_mode)) {
			close(dfd);
			return fail(j, AP_FS_NOT_A_FILE, "%s is a directory",
				    j->path);
		}
		if (!(j->req.flags & AP_FF_OVERWRITE)) {
			close(dfd);
			return fail(j, AP_FS_EXISTS,
				    "%s exists (overwrite to replace it)",
				    j->path);
		}
	}
	for (n = 0;; n++) {
		snprintf(tmp, sizeof(tmp), ".sbx-write-%d-%u", (int)getpid(),
			 n);
		fd = openat(dfd, tmp,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    0644);
		if (fd >= 0 || errno != EEXIST || n > 100)
			break;
	}
	if (fd < 0) {
		rc = fail_errno(j, "create in the directory of", j->path);
		close(dfd);
		return rc;
	}
	if (write_all(fd, j->req.data, j->req.data_len) || fchmod(fd, 0644))
		rc = fail_errno(j, "write", j->path);
	if (close(fd) && !rc)
		rc = fail_errno(j, "write", j->path);
	if (!rc &&
	    syscall(SYS_renameat2, dfd, tmp, dfd, last,
		    (j->req.flags & AP_FF_OVERWRITE) ? 0 : RENAME_NOREPLACE))
		rc = fail_errno(j, "write", j->path);
	if (rc)
		unlinkat(dfd, tmp, 0);
	j->done.created = (uint8_t)(!rc && !existed);
	close(dfd);
	if (!rc) {
		j->done.has_size = 1;
		j->done.size = j->req.data_len;
	}
	return rc;
}

static int op_read(struct job *j)
{
	unsigned char *buf;
	struct stat st;
	size_t want = j->req.length, got = 0;
	ssize_t n;
	int fd;

	fd = open_beneath(j->root, j->path, O_RDONLY | O_NONBLOCK | O_NOCTTY,
			  0);
	if (fd < 0)
		return fail_errno(j, "open", j->path);
	if (fstat(fd, &st)) {
		close(fd);
		return fail_errno(j, "stat", j->path);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fail(j, AP_FS_NOT_A_FILE, "%s is not a regular file",
			    j->path);
	}
	buf = malloc(want ? want : 1);
	if (!buf) {
		close(fd);
		return fail(j, AP_FS_TOO_LARGE, "no memory for %zu bytes",
			    want);
	}
	/* At most LENGTH bytes even if the file grows meanwhile. */
	while (got < want) {
		n = pread(fd, buf + got, want - got,
			  (off_t)(j->req.offset + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			return fail_errno(j, "read", j->path);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	j->done.data = buf;
	j->done.data_len = got;
	j->done.has_size = 1;
	j->done.size = (uint64_t)st.st_size;
	j->done.eof = got < want || j->req.offset + got >= (uint64_t)st.st_size;
	return 0;
}

static uint8_t type_of(mode_t m)
{
	if (S_ISREG(m))
		return AP_FT_FILE;
	if (S_ISDIR(m))
		return AP_FT_DIR;
	if (S_ISLNK(m))
		return AP_FT_SYMLINK;
	return AP_FT_OTHER;
}

static void entry_of(const struct stat *st, const char *name,
		     struct ap_file_entry *e)
{
	e->type = type_of(st->st_mode);
	e->mode = st->st_mode & 07777;
	e->size = (uint64_t)st->st_size;
	e->mtime_ms = (uint64_t)st->st_mtim.tv_sec * 1000 +
		      (uint64_t)st->st_mtim.tv_nsec / 1000000;
	e->name = name;
	e->name_len = strlen(name);
}

static int op_stat(struct job *j)
{
	static struct ap_buf packed;
	struct ap_file_entry e;
	struct stat st;
	int fd;

	fd = open_beneath(j->root, j->path, O_PATH | O_NOFOLLOW, 0);
	if (fd < 0)
		return fail_errno(j, "stat", j->path);
	if (fstat(fd, &st)) {
		close(fd);
		return fail_errno(j, "stat", j->path);
	}
	close(fd);
	entry_of(&st, j->path, &e);
	if (ap_file_entry_pack(&packed, &e))
		return fail(j, AP_FS_IO, "out of memory");
	j->done.entries = packed.data;
	j->done.entries_len = packed.len;
	j->done.has_size = 1;
	j->done.size = e.size;
	return 0;
}

/* ---- list ---- */

struct name_list {
	char **v;
	size_t n, cap;
	size_t scanned;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_name(struct name_list *l, const char *prefix, const char *name)
{
	char *s;

	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 1024;
		char **nv = realloc(l->v, nc * sizeof(*nv));

		if (!nv)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	if (*prefix) {
		s = malloc(strlen(prefix) + strlen(name) + 2);
		if (s)
			sprintf(s, "%s/%s", prefix, name);
	} else {
		s = strdup(name);
	}
	if (!s)
		return -1;
	l->v[l->n++] = s;
	return 0;
}

/* Names below dir (relative to the listed directory, "" for it), every
 * level when recursive. Symlinks to directories are not descended. */
static int collect(struct job *j, struct name_list *l, int dfd,
		   const char *prefix, int depth)
{
	struct dirent *d;
	DIR *dir;
	int rc = 0;

	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return fail_errno(j, "list", j->path);
	}
	while (!rc && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (++l->scanned > FILES_LIST_SCAN_MAX) {
			rc = fail(j, AP_FS_TOO_LARGE,
				  "%s holds more than %u entries", j->path,
				  FILES_LIST_SCAN_MAX);
			break;
		}
		if (add_name(l, prefix, d->d_name)) {
			rc = fail(j, AP_FS_TOO_LARGE, "out of memory");
			break;
		}
		if ((j->req.flags & AP_FF_RECURSIVE) && d->d_type == DT_DIR &&
		    depth < FILES_MAX_DEPTH) {
			char *sub = l->v[l->n - 1];
			int sfd = openat(dirfd(dir), d->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						 O_CLOEXEC);

			if (sfd >= 0)
				rc = collect(j, l, sfd, sub, depth + 1);
		}
	}
	closedir(dir);
	return rc;
}

static void free_names(struct name_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/* The page of l after the cursor, stat'ed and packed into the reply. The
 * names stay until the worker exits: the reply's cursor is one. */
static int list_page(struct job *j, struct name_list *l, size_t page)
{
	static struct ap_buf packed;
	struct ap_file_entry e;
	struct stat st;
	size_t i, first = 0;
	int fd;

	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_names);
	if (j->req.cursor) {
		while (first < l->n && strcmp(l->v[first], j->cursor) <= 0)
			first++;
	}
	fd = open_beneath(j->root, j->path, O_PATH | O_DIRECTORY, 0);
	if (fd < 0)
		return fail_errno(j, "list", j->path);
	for (i = first; i < l->n && i - first < page; i++) {
		if (fstatat(fd, l->v[i], &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		entry_of(&st, l->v[i], &e);
		if (ap_file_entry_pack(&packed, &e)) {
			close(fd);
			return fail(j, AP_FS_TOO_LARGE,
				    "the page does not fit one reply");
		}
	}
	close(fd);
	j->done.entries = packed.data ? packed.data : (const unsigned char *)"";
	j->done.entries_len = packed.len;
	if (i < l->n) {
		j->done.cursor = l->v[i - 1];
		j->done.cursor_len = strlen(l->v[i - 1]);
	}
	return 0;
}

static int op_list(struct job *j)
{
	/* The worker's one list; its names stay until the worker exits. */
	static struct name_list l;
	size_t page = j->req.length;
	int fd, rc;

	if (!page || page > FILES_LIST_PAGE)
		page = FILES_LIST_PAGE;
	fd = open_beneath(j->root, j->path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return fail_errno(j, "list", j->path);
	rc = collect(j, &l, fd, "", 0);
	if (!rc)
		rc = list_page(j, &l, page);
	if (rc)
		free_names(&l);
	return rc;
}

static int op_mkdir(struct job *j)
{
	const char *last;
	struct stat st;
	int dfd;

	if ((j->req.flags & AP_FF_PARENTS) && make_parents(j, j->path))
		return -1;
	dfd = open_parent(j, j->path, &last);
	if (dfd < 0)
		return -1;
	if (mkdirat(dfd, last, 0755) == 0) {
		j->done.created = 1;
	} else if (errno == EEXIST && (j->req.flags & AP_FF_PARENTS) &&
		   !fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) &&
		   S_ISDIR(st.st_mode)) {
		j->done.created = 0; /* mkdir -p of one that exists */
	} else {
		fail_errno(j, "mkdir", j->path);
		close(dfd);
		return -1;
	}
	close(dfd);
	return 0;
}

/* rm -r of what dfd/name holds, as the user; depth-bounded. */
static int remove_tree(int dfd, const char *name, int depth)
{
	struct dirent *d;
	DIR *dir;
	int sub, rc = 0;

	if (!unlinkat(dfd, name, 0) || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if (depth >= FILES_MAX_DEPTH) {
		errno = ENAMETOOLONG;
		return -1;
	}
	sub = openat(dfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0)
		return -1;
	dir = fdopendir(sub);
	if (!dir) {
		close(sub);
		return -1;
	}
	while (!rc && (d = readdir(dir)))
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			rc = remove_tree(dirfd(dir), d->d_name, depth + 1);
	closedir(dir);
	if (!rc && unlinkat(dfd, name, AT_REMOVEDIR))
		rc = -1;
	return rc;
}

static int delete_dir(struct job *j, int dfd, const char *last)
{
	if (!(j->req.flags & AP_FF_RECURSIVE)) {
		if (!unlinkat(dfd, last, AT_REMOVEDIR))
			return 0;
		if (errno == ENOTEMPTY)
			return fail(j, AP_FS_NOT_EMPTY,
				    "%s is not empty (recursive to delete it "
				    "with its contents)",
				    j->path);
		return fail_errno(j, "delete", j->path);
	}
	return remove_tree(dfd, last, 0) ? fail_errno(j, "delete", j->path) : 0;
}

static int op_delete(struct job *j)
{
	const char *last;
	struct stat st;
	int dfd, rc = 0;

	dfd = open_parent(j, j->path, &last);
	if (dfd < 0)
		return -1;
	/* A file or a link goes with unlinkat(); a directory, never
	 * followed through a link, with delete_dir(). */
	if (!fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISDIR(st.st_mode))
		rc = delete_dir(j, dfd, last);
	else if (unlinkat(dfd, last, 0))
		rc = fail_errno(j, "delete", j->path);
	close(dfd);
	return rc;
}

static int op_move(struct job *j)
{
	const char *last, *last2;
	int dfd, dfd2, rc = 0;

	if ((j->req.flags & AP_FF_PARENTS) && make_parents(j, j->path2))
		return -1;
	dfd = open_parent(j, j->path, &last);
	if (dfd < 0)
		return -1;
	dfd2 = open_parent(j, j->path2, &last2);
	if (dfd2 < 0) {
		close(dfd);
		return -1;
	}
	if (syscall(SYS_renameat2, dfd, last, dfd2, last2,
		    (j->req.flags & AP_FF_OVERWRITE) ? 0 : RENAME_NOREPLACE))
		rc = errno == EEXIST ? fail(j, AP_FS_EXISTS,
					    "%s exists (overwrite to replace "
					    "it)",
					    j->path2)
				     : fail_errno(j, "move", j->path);
	close(dfd);
	close(dfd2);
	return rc;
}

/* The decoder admits only these ops. */
static int (*const ops[])(struct job *j) = {
	[AP_FOP_WRITE] = op_write, [AP_FOP_READ] = op_read,
	[AP_FOP_LIST] = op_list,   [AP_FOP_STAT] = op_stat,
	[AP_FOP_MKDIR] = op_mkdir, [AP_FOP_DELETE] = op_delete,
	[AP_FOP_MOVE] = op_move,
};

static int worker_main(void *arg)
{
	static struct ap_buf out;
	struct job *j = arg;
	int rc;

	umask(022);
	j->root = open(AGENT_WORKDIR, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (j->root < 0)
		rc = fail_errno(j, "open", AGENT_WORKDIR);
	else if (clean_path(j, j->req.path, j->req.path_len, j->path) ||
		 (j->req.path2 &&
		  clean_path(j, j->req.path2, j->req.path2_len, j->path2)))
		rc = -1;
	else
		rc = ops[j->req.op](j);
	(void)rc;
	if (ap_file_done_encode(&out, j->id, &j->done))
		return 1;
	return write_all(1, out.data, out.len) ? 1 : 0;
}

/* ---- the agent's side ------------------------------------------------- */

void files_init(struct files *fs, struct ap_buf *out)
{
	memset(fs, 0, sizeof(*fs));
	fs->out = out;
	fs->fd = -1;
	ap_buf_init(&fs->reply);
}

static void files_clear(struct files *fs)
{
	if (fs->pid) {
		procs_spare(fs->pid, 0);
		kill(fs->pid, SIGKILL); /* the reaper collects it */
	}
	if (fs->fd >= 0)
		close(fs->fd);
	fs->fd = -1;
	fs->pid = 0;
	fs->active = 0;
	fs->stale = 0;
	fs->overflow = 0;
	ap_buf_close(&fs->reply);
	ap_buf_init(&fs->reply);
}

void files_close(struct files *fs)
{
	files_clear(fs);
}

int files_busy(const struct files *fs)
{
	return fs->active;
}

int files_start(struct files *fs, const struct ap_frame *f, struct error *err)
{
	struct job *j;
	uint32_t timeout_ms;
	int p[2], rc;
	pid_t pid;

	if (fs->active)
		return error_set(err, -EBUSY, "busy");
	j = calloc(1, sizeof(*j));
	if (!j)
		return error_set(err, -ENOMEM, "out of memory");
	rc = ap_file_decode(f, &j->req, err);
	if (rc) {
		free(j);
		return rc;
	}
	j->id = f->id;
	j->root = -1;
	timeout_ms = j->req.timeout_ms ? j->req.timeout_ms : FILES_TIMEOUT_MS;
	if (j->req.cursor) {
		memcpy(j->cursor, j->req.cursor, j->req.cursor_len);
		j->cursor[j->req.cursor_len] = '\0';
	}
	if (pipe2(p, O_CLOEXEC)) {
		rc = -errno;
		free(j);
		return error_set(err, rc, "pipe: %s", strerror(-rc));
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	/* The worker has its own copy of the request (and of the frame its
	 * pointers borrow from). */
	pid = spawn_worker(worker_main, j, p[1]);
	close(p[1]);
	free(j);
	if (pid < 0) {
		close(p[0]);
		return error_set(err, (int)pid,
				 "cannot start the file worker: %s",
				 strerror((int)-pid));
	}
	fs->active = 1;
	fs->id = f->id;
	fs->pid = pid;
	/* It may run beside a call of the session interpreter, whose end
	 * kills the user's other processes. */
	procs_spare(pid, 1);
	fs->status = 0;
	fs->fd = p[0];
	fs->deadline_ms = agent_now_ms() + timeout_ms;
	return 0;
}

int files_child_exited(struct files *fs, pid_t pid, int status)
{
	if (!fs->active || pid != fs->pid)
		return 0;
	procs_spare(pid, 0);
	fs->pid = 0;
	fs->status = status;
	return 1;
}

int files_poll_fill(struct files *fs, struct pollfd *pfd)
{
	if (!fs->active || fs->fd < 0)
		return 0;
	pfd[0] = (struct pollfd){.fd = fs->fd, .events = POLLIN};
	return 1;
}

static void read_reply(struct files *fs)
{
	unsigned char chunk[65536];
	ssize_t n;

	for (;;) {
		/* The frame's length is in its first bytes: make room for
		 * all of it at once. */
		if (fs->reply.len >= 4 && fs->reply.cap < AP_MAX_FRAME + 4) {
			const unsigned char *p = fs->reply.data;
			size_t want = ((size_t)p[0] << 24 | (size_t)p[1] << 16 |
				       (size_t)p[2] << 8 | p[3]) +
				      4;

			if (want <= AP_MAX_FRAME + 4 && want > fs->reply.len &&
			    ap_buf_reserve(&fs->reply, want - fs->reply.len))
				fs->overflow = 1;
		}
		n = read(fs->fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (fs->reply.len + (size_t)n > AP_MAX_FRAME + 4 ||
			    ap_buf_append(&fs->reply, chunk, (size_t)n))
				fs->overflow = 1;
			if (fs->overflow)
				break;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		break;
	}
	close(fs->fd);
	fs->fd = -1;
}

void files_poll_done(struct files *fs, const struct pollfd *pfd, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (fs->active && fs->fd >= 0 && pfd[i].fd == fs->fd &&
		    pfd[i].revents)
			read_reply(fs);
}

uint64_t files_deadline(const struct files *fs)
{
	if (!fs->active)
		return UINT64_MAX;
	if (!fs->pid && fs->fd < 0)
		return 0;
	return fs->deadline_ms;
}

/* The worker's bytes are queued as they are when they are exactly one
 * AP_FILE_DONE frame of this request that decodes (checked in place). */
static int reply_ok(struct files *fs)
{
	const unsigned char *p = fs->reply.data;
	struct ap_file_done m;
	struct ap_frame f;

	if (fs->overflow || !WIFEXITED(fs->status) || WEXITSTATUS(fs->status) ||
	    fs->reply.len < AP_HEADER_LEN)
		return 0;
	f.type = p[4];
	f.id = (uint32_t)p[5] << 24 | (uint32_t)p[6] << 16 |
	       (uint32_t)p[7] << 8 | p[8];
	f.payload = p + AP_HEADER_LEN;
	f.len = fs->reply.len - AP_HEADER_LEN;
	return ((size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 |
		p[3]) == fs->reply.len - 4 &&
	       f.type == AP_FILE_DONE && f.id == fs->id &&
	       !ap_file_done_decode(&f, &m, NULL);
}

void files_step(struct files *fs)
{
	struct ap_file_done m;
	char text[128];
	int timed_out = 0, ok, rc;

	if (!fs->active)
		return;
	if (fs->pid || fs->fd >= 0) {
		if (agent_now_ms() < fs->deadline_ms)
			return;
		timed_out = 1;
	}
	if (!fs->stale) {
		ok = !timed_out && reply_ok(fs);
		if (ok && !fs->out->len) {
			/* Nothing else waits to go out: hand the buffer over
			 * instead of copying it. */
			struct ap_buf tmp = *fs->out;

			*fs->out = fs->reply;
			fs->reply = tmp;
			rc = 0;
		} else if (ok) {
			rc = ap_buf_append(fs->out, fs->reply.data,
					   fs->reply.len);
		} else {
			memset(&m, 0, sizeof(m));
			m.status = timed_out ? AP_FS_TIMEOUT : AP_FS_IO;
			if (timed_out)
				snprintf(text, sizeof(text),
					 "the file operation did not finish "
					 "in time");
			else
				snprintf(text, sizeof(text),
					 "the file worker failed (status "
					 "%d)",
					 fs->status);
			m.message = text;
			m.message_len = strlen(text);
			rc = ap_file_done_encode(fs->out, fs->id, &m);
		}
		if (rc)
			agent_log("file %u: cannot queue the reply: %s", fs->id,
				  strerror(-rc));
	}
	files_clear(fs);
}
