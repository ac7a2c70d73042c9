/*
 * artifact_store.c - one-off runs' files kept on the host
 * (artifact_store.h).
 */
#include "artifact_store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/tenants/tenants.h"
#include "util/beneath.h"
#include "util/log.h"
#include "util/state_dir.h"

#define LOG_MODULE "artifacts"

/* Files one set may hold, and how deep, when it is walked. */
#define SET_MAX_FILES 10000
#define SET_MAX_DEPTH 32
/* A set half-written by a server that died goes after this long. */
#define STALE_TMP_S 3600
/* How often expired sets are looked for when nothing is written. */
#define SWEEP_EVERY_MS ((uint64_t)10 * 60 * 1000)

struct aset {
	char id[ARTIFACT_KEY_MAX + 1]; /* its key */
	int64_t mtime_ms;
	uint64_t bytes;
	size_t n;
	char **paths;
	uint64_t *sizes;
};

/* The sets, newest first: replaced whole after each sweep, so the loop
 * reads one while the thread pool builds the next. */
struct index {
	struct aset *v;
	size_t n;
};

struct job;

struct artifact_store {
	uv_loop_t *loop;
	char dir[PATH_MAX];
	int dirfd; /* O_PATH */
	uint64_t max_bytes;
	uint32_t keep_s;
	struct index *idx;
	uv_timer_t sweep_timer;
	struct job *busy;		 /* the writer on the thread pool */
	struct job *queue, **queue_tail; /* writers waiting for it */
	int sweep_wanted;
};

enum job_kind { J_SWEEP, J_PUT, J_READ };

struct job {
	uv_work_t work;
	enum job_kind kind;
	struct artifact_store *st;
	struct job *next;
	int werr;
	const char *wwhat;
	/* put */
	char id[ARTIFACT_KEY_MAX + 1]; /* the set's key */
	struct exec_file *files;
	size_t nfiles;
	unsigned char *kept;
	artifact_put_cb put_cb;
	/* sweep and put: the index that replaces st->idx */
	struct index *idx;
	/* read */
	char *rel; /* "<id>/<path>" */
	uint64_t offset, size;
	uint32_t length;
	unsigned char *buf;
	size_t len;
	artifact_read_cb read_cb;
	void *arg;
};

int artifact_id_valid(const char *id, size_t len)
{
	size_t i;

	if (len != ARTIFACT_ID_LEN)
		return 0;
	for (i = 0; i < len; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return 1;
}

int artifact_key_valid(const char *key, size_t len)
{
	const char *dot = memchr(key, '.', len);
	size_t t;

	if (!dot)
		return artifact_id_valid(key, len);
	t = (size_t)(dot - key);
	return tenant_valid_prefix(key, t) &&
	       artifact_id_valid(dot + 1, len - t - 1);
}

static void set_free(struct aset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->sizes);
	memset(s, 0, sizeof(*s));
}

static void index_free(struct index *x)
{
	size_t i;

	if (!x)
		return;
	for (i = 0; i < x->n; i++)
		set_free(&x->v[i]);
	free(x->v);
	free(x);
}

/* ---- the thread pool side ---- */

static int64_t ts_ms(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000 + t->tv_nsec / 1000000;
}

static void remove_tree(int dfd, const char *name, int depth)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (!unlinkat(dfd, name, 0) || errno != EISDIR)
		return; /* a file, or gone */
	if (!unlinkat(dfd, name, AT_REMOVEDIR) || depth > 2 * SET_MAX_DEPTH)
		return; /* an empty directory (or deeper than we write) */
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			remove_tree(dirfd(d), e->d_name, depth + 1);
	closedir(d);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static int set_add(struct aset *s, const char *path, uint64_t size)
{
	char **p;
	uint64_t *z;

	if (s->n >= SET_MAX_FILES)
		return -1;
	p = realloc(s->paths, (s->n + 1) * sizeof(*p));
	if (p)
		s->paths = p;
	z = realloc(s->sizes, (s->n + 1) * sizeof(*z));
	if (z)
		s->sizes = z;
	if (!p || !z || !(s->paths[s->n] = strdup(path)))
		return -1;
	s->sizes[s->n++] = size;
	s->bytes += size;
	return 0;
}

/* The regular files below fd into s, paths relative to the set. */
static void walk(struct aset *s, int fd, char *prefix, size_t plen, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d = fdopendir(fd);

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		size_t nl = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    plen + nl + 2 > PATH_MAX ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		memcpy(prefix + plen, e->d_name, nl + 1);
		if (S_ISREG(st.st_mode)) {
			if (set_add(s, prefix, (uint64_t)st.st_size))
				break;
		} else if (S_ISDIR(st.st_mode) && depth < SET_MAX_DEPTH) {
			int sub = openat(dirfd(d), e->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
						 O_CLOEXEC);

			if (sub >= 0) {
				prefix[plen + nl] = '/';
				walk(s, sub, prefix, plen + nl + 1, depth + 1);
			}
		}
	}
	prefix[plen] = '\0';
	closedir(d);
}

static int set_copy(struct aset *to, const struct aset *from)
{
	size_t i;

	memset(to, 0, sizeof(*to));
	memcpy(to->id, from->id, sizeof(to->id));
	to->mtime_ms = from->mtime_ms;
	for (i = 0; i < from->n; i++)
		if (set_add(to, from->paths[i], from->sizes[i]))
			return -1;
	return 0;
}

static const struct aset *index_find(const struct index *x, const char *id)
{
	size_t i;

	for (i = 0; x && i < x->n; i++)
		if (strcmp(x->v[i].id, id) == 0)
			return &x->v[i];
	return NULL;
}

static int newest_first(const void *a, const void *b)
{
	const struct aset *x = a, *y = b;

	return (x->mtime_ms < y->mtime_ms) - (x->mtime_ms > y->mtime_ms);
}

/* What is on disk, with expired sets and (oldest first) those over the
 * size removed; keep is never removed (the set just written). Sets known
 * from old are not walked again: a set never changes once in place. */
static struct index *sweep(struct artifact_store *st, const struct index *old,
			   const char *keep)
{
	struct index *x = calloc(1, sizeof(*x));
	int64_t now, expired;
	uint64_t total = 0;
	struct timespec ts;
	struct dirent *e;
	struct stat sb;
	size_t i, cap = 0;
	char prefix[PATH_MAX];
	DIR *d;
	int fd;

	fd = openat(st->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!x || fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return x;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	now = ts_ms(&ts);
	expired = now - (int64_t)st->keep_s * 1000;
	while ((e = readdir(d))) {
		const struct aset *known;
		struct aset *s;

		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISDIR(sb.st_mode))
			continue;
		if (strncmp(e->d_name, ".tmp-", 5) == 0) {
			if (ts_ms(&sb.st_mtim) <
			    now - (int64_t)STALE_TMP_S * 1000)
				remove_tree(dirfd(d), e->d_name, 0);
			continue;
		}
		if (!artifact_key_valid(e->d_name, strlen(e->d_name)))
			continue;
		if (ts_ms(&sb.st_mtim) < expired &&
		    (!keep || strcmp(keep, e->d_name) != 0)) {
			remove_tree(dirfd(d), e->d_name, 0);
			continue;
		}
		if (x->n == cap) {
			struct aset *v;

			cap = cap ? cap * 2 : 16;
			v = realloc(x->v, cap * sizeof(*v));
			if (!v)
				break;
			x->v = v;
		}
		s = &x->v[x->n++];
		known = index_find(old, e->d_name);
		if (known) {
			if (set_copy(s, known))
				set_free(s);
		} else {
			memset(s, 0, sizeof(*s));
			/* A valid key fits (artifact_key_valid above). */
			memcpy(s->id, e->d_name,
			       strnlen(e->d_name, sizeof(s->id) - 1));
			s->id[strnlen(e->d_name, sizeof(s->id) - 1)] = '\0';
			s->mtime_ms = ts_ms(&sb.st_mtim);
			fd = openat(dirfd(d), e->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
			prefix[0] = '\0';
			if (fd >= 0)
				walk(s, fd, prefix, 0, 0);
		}
		total += s->bytes;
	}
	closedir(d);
	if (x->n)
		qsort(x->v, x->n, sizeof(*x->v), newest_first);
	/* Over the size: the oldest go first. */
	for (i = x->n; i-- > 0 && total > st->max_bytes;) {
		if (keep && strcmp(keep, x->v[i].id) == 0)
			continue;
		remove_tree(st->dirfd, x->v[i].id, 0);
		total -= x->v[i].bytes;
		set_free(&x->v[i]);
		memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) * sizeof(*x->v));
		x->n--;
	}
	return x;
}

static int write_file(int setfd, const struct exec_file *f)
{
	const char *last, *p;
	size_t done = 0, depth = 0;
	int dfd, fd, rc = 0;

	/* No deeper than a sweep walks (and removes). */
	for (p = f->path; *p; p++)
		depth += *p == '/';
	if (beneath_check(f->path) || depth >= SET_MAX_DEPTH)
		return -EINVAL;
	dfd = beneath_parent(setfd, f->path, 1, &last);
	if (dfd < 0)
		return dfd;
	fd = openat(dfd, last,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dfd);
	if (fd < 0)
		return -errno;
	while (done < f->len) {
		ssize_t w = write(fd, f->data + done, f->len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			rc = -errno;
			break;
		}
		done += (size_t)w;
	}
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

static void w_put(struct job *j)
{
	char tmp[ARTIFACT_KEY_MAX + 8];
	size_t i;
	int setfd, rc;

	snprintf(tmp, sizeof(tmp), ".tmp-%s", j->id);
	if (mkdirat(j->st->dirfd, tmp, 0700)) {
		j->werr = errno;
		j->wwhat = "create";
		return;
	}
	setfd = openat(j->st->dirfd, tmp,
		       O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (i = 0; setfd >= 0 && i < j->nfiles; i++) {
		rc = write_file(setfd, &j->files[i]);
		j->kept[i] = rc == 0;
		if (rc == -ENOSPC || rc == -EDQUOT || rc == -EIO) {
			j->werr = -rc;
			j->wwhat = "write";
			break;
		}
	}
	if (setfd < 0) {
		j->werr = errno;
		j->wwhat = "open";
	} else {
		close(setfd);
	}
	if (!j->werr && renameat(j->st->dirfd, tmp, j->st->dirfd, j->id)) {
		j->werr = errno;
		j->wwhat = "rename";
	}
	if (j->werr)
		remove_tree(j->st->dirfd, tmp, 0);
}

static void w_read(struct job *j)
{
	struct stat sb;
	ssize_t n;
	int fd;

	if (j->werr) /* refused before it was queued */
		return;
	fd = beneath_open(j->st->dirfd, j->rel,
			  O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0) {
		j->werr = -fd;
		return;
	}
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		j->werr = EISDIR;
		close(fd);
		return;
	}
	j->size = (uint64_t)sb.st_size;
	j->buf = malloc(j->length ? j->length : 1);
	if (!j->buf) {
		j->werr = ENOMEM;
		close(fd);
		return;
	}
	while (j->len < j->length) {
		n = pread(fd, j->buf + j->len, j->length - j->len,
			  (off_t)(j->offset + j->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				j->werr = errno;
			break;
		}
		j->len += (size_t)n;
	}
	close(fd);
}

static void work_cb(uv_work_t *w)
{
	struct job *j = w->data;

	if (j->kind == J_READ) {
		w_read(j);
		return;
	}
	if (j->kind == J_PUT)
		w_put(j);
	j->idx = sweep(j->st, j->st->idx,
		       j->kind == J_PUT && !j->werr ? j->id : NULL);
}

/* ---- the loop side ---- */

static void after_write(uv_work_t *w, int status);
static void after_read(uv_work_t *w, int status);

static void job_free(struct job *j)
{
	free(j->files);
	free(j->kept);
	free(j->rel);
	free(j->buf);
	free(j);
}

/* The next writer (a put, or a sweep asked for) onto the thread pool. */
static void run_next(struct artifact_store *st)
{
	struct job *j;

	if (st->busy)
		return;
	if (st->queue) {
		j = st->queue;
		st->queue = j->next;
		if (!st->queue)
			st->queue_tail = &st->queue;
	} else if (st->sweep_wanted) {
		j = calloc(1, sizeof(*j));
		if (!j)
			return;
		j->kind = J_SWEEP;
		j->st = st;
	} else {
		return;
	}
	st->sweep_wanted = 0;
	st->busy = j;
	j->work.data = j;
	if (uv_queue_work(st->loop, &j->work, work_cb, after_write)) {
		st->busy = NULL;
		j->werr = EAGAIN;
		j->wwhat = "queue";
		after_write(&j->work, 0);
	}
}

static void after_write(uv_work_t *w, int status)
{
	struct job *j = w->data;
	struct artifact_store *st = j->st;
	struct error err;

	(void)status;
	if (st->busy == j)
		st->busy = NULL;
	if (j->idx) {
		index_free(st->idx);
		st->idx = j->idx;
		j->idx = NULL;
	}
	if (j->kind == J_PUT) {
		if (j->werr) {
			error_set(&err, error_file_code(j->werr),
				  "cannot keep the artifacts (%s %s/%s): %s",
				  j->wwhat, st->dir, j->id, strerror(j->werr));
			log_warn("%s", err.msg);
		}
		j->put_cb(j->werr ? &err : NULL, j->kept, j->arg);
	}
	job_free(j);
	run_next(st);
}

static void sweep_timer_cb(uv_timer_t *t)
{
	struct artifact_store *st = t->data;

	st->sweep_wanted = 1;
	run_next(st);
}

int artifact_store_open(uv_loop_t *loop, const char *state_dir,
			uint64_t max_bytes, uint32_t keep_s,
			struct artifact_store **out, struct error *err)
{
	struct artifact_store *st = calloc(1, sizeof(*st));
	int rc;

	if (!st)
		return error_set(err, -ENOMEM, "out of memory");
	rc = state_dir_resolve(state_dir, st->dir, sizeof(st->dir));
	if (!rc) {
		size_t n = strlen(st->dir);

		if ((size_t)snprintf(st->dir + n, sizeof(st->dir) - n,
				     "/artifacts") >= sizeof(st->dir) - n)
			rc = -ENAMETOOLONG;
		else if (mkdir(st->dir, 0700) && errno != EEXIST)
			rc = -errno;
	}
	if (!rc) {
		st->dirfd = open(st->dir,
				 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (st->dirfd < 0)
			rc = -errno;
	}
	if (rc) {
		error_set(err, rc, "cannot use %s: %s", st->dir, strerror(-rc));
		free(st);
		return rc;
	}
	st->loop = loop;
	st->max_bytes = max_bytes;
	st->keep_s = keep_s;
	st->queue_tail = &st->queue;
	uv_timer_init(loop, &st->sweep_timer);
	st->sweep_timer.data = st;
	uv_timer_start(&st->sweep_timer, sweep_timer_cb, SWEEP_EVERY_MS,
		       SWEEP_EVERY_MS);
	uv_unref((uv_handle_t *)&st->sweep_timer);
	st->sweep_wanted = 1;
	run_next(st);
	*out = st;
	return 0;
}

void artifact_store_free(struct artifact_store *st)
{
	struct job *j;

	if (!st)
		return;
	while ((j = st->queue)) {
		st->queue = j->next;
		job_free(j);
	}
	index_free(st->idx);
	if (st->dirfd >= 0)
		close(st->dirfd);
	free(st);
}

int artifact_store_put(struct artifact_store *st, const char *owner,
		       const struct exec_file *files, size_t n, char *id,
		       artifact_put_cb cb, void *arg)
{
	struct job *j = calloc(1, sizeof(*j));
	unsigned char rnd[ARTIFACT_ID_LEN / 2];
	char hex[ARTIFACT_ID_LEN + 1];
	size_t i;

	if (!j || exec_files_copy(files, n, &j->files) ||
	    !(j->kept = calloc(n ? n : 1, 1))) {
		if (j)
			job_free(j);
		return -ENOMEM;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		/* Not expected (the pool is initialised long since). */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)((uint64_t)ts.tv_nsec >>
						 (i * 4)) ^
				 (unsigned char)getpid();
	}
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	memcpy(id, hex, sizeof(hex));
	snprintf(j->id, sizeof(j->id), "%s%s%s", owner ? owner : "",
		 owner ? "." : "", hex);
	j->kind = J_PUT;
	j->st = st;
	j->nfiles = n;
	j->put_cb = cb;
	j->arg = arg;
	*st->queue_tail = j;
	st->queue_tail = &j->next;
	run_next(st);
	return 0;
}

static void after_read(uv_work_t *w, int status)
{
	struct job *j = w->data;
	struct error err;

	(void)status;
	if (j->werr == ENOENT || j->werr == ENOTDIR)
		error_set(&err, ERR_NOT_FOUND,
			  "no artifact %s (it may have expired)", j->rel);
	else if (j->werr == ELOOP || j->werr == EXDEV)
		error_set(&err, ERR_INVALID_PATH, "%s: not a kept file",
			  j->rel);
	else if (j->werr == EISDIR)
		error_set(&err, ERR_NOT_A_FILE, "%s is not a regular file",
			  j->rel);
	else if (j->werr)
		error_set(&err, error_file_code(j->werr), "read %s: %s", j->rel,
			  strerror(j->werr));
	if (j->werr)
		j->read_cb(&err, NULL, 0, 0, 0, j->arg);
	else
		j->read_cb(NULL, j->buf, j->len, j->size,
			   j->offset + j->len >= j->size, j->arg);
	job_free(j);
}

int artifact_store_read(struct artifact_store *st, const char *key,
			const char *path, uint64_t offset, uint32_t length,
			artifact_read_cb cb, void *arg)
{
	struct job *j = calloc(1, sizeof(*j));
	size_t n = strlen(key) + strlen(path) + 2;

	if (!j || !(j->rel = malloc(n))) {
		free(j);
		return -ENOMEM;
	}
	snprintf(j->rel, n, "%s/%s", key, path);
	j->kind = J_READ;
	j->st = st;
	j->offset = offset;
	j->length = length;
	j->read_cb = cb;
	j->arg = arg;
	j->work.data = j;
	/* Refused in the worker too, so that cb never runs before this
	 * returns. */
	if (!artifact_key_valid(key, strlen(key)) || beneath_check(path))
		j->werr = ELOOP;
	if (uv_queue_work(st->loop, &j->work, work_cb, after_read)) {
		job_free(j);
		return -ENOMEM;
	}
	return 0;
}

size_t artifact_store_each(const struct artifact_store *st, size_t max,
			   artifact_each_fn fn, void *arg)
{
	size_t i, k, shown = 0, all = 0;

	for (i = 0; st->idx && i < st->idx->n; i++) {
		const struct aset *s = &st->idx->v[i];

		for (k = 0; k < s->n; k++, all++)
			if (shown < max) {
				fn(s->id, s->paths[k], s->sizes[k], s->mtime_ms,
				   arg);
				shown++;
			}
	}
	return all;
}
