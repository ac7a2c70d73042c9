/*
 * stage.c - a staged input from the files root, copied into /work in
 * pieces (stage.h). Host file work runs on the thread pool; the pieces go
 * through the call's agent connection, one AP_FILE at a time.
 */
#include "stage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/media.h"

enum step { W_LIST, W_OPEN, W_READ };

struct stage {
	uv_loop_t *loop;
	uv_work_t work;
	enum step step;
	struct agent_client *ac;
	struct stage_req req; /* strings point into strs */
	char *strs;
	stage_cb cb;
	void *arg;
	/* the files: paths below from ("" for from itself), sorted */
	char **names;
	size_t nnames, next;
	/* the file being copied */
	int rootfd, fd;
	uint64_t offset;
	unsigned char *buf;
	size_t len;
	int eof;
	char *tmp;	   /* its temporary name in /work */
	char *target;	   /* its name in /work */
	int werr;	   /* errno of the last thread-pool step */
	const char *bad;   /* the host path it failed on */
	char badbuf[8192]; /* ... (and the file being copied) */
	struct stage_done done;
	struct error err;
	int working, in_op, cancelled, aborted, cleaning, moving;
	int written; /* the temporary file exists */
};

static void stage_free(struct stage *st)
{
	if (st->fd >= 0)
		close(st->fd);
	if (st->rootfd >= 0)
		close(st->rootfd);
	while (st->nnames)
		free(st->names[--st->nnames]);
	free(st->names);
	free(st->buf);
	free(st->tmp);
	free(st->target);
	free(st->strs);
	free(st);
}

/* ---- the thread pool side ---- */

static int fail_w(struct stage *st, int err, const char *path)
{
	st->werr = err;
	if (path != st->badbuf)
		snprintf(st->badbuf, sizeof(st->badbuf), "%s", path);
	st->bad = st->badbuf;
	return -1;
}

static int add_name(struct stage *st, size_t *cap, const char *name)
{
	char **v;

	if (st->nnames >= STAGE_MAX_FILES)
		return fail_w(st, E2BIG, st->req.from);
	if (st->nnames == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		v = realloc(st->names, *cap * sizeof(*v));
		if (!v)
			return fail_w(st, ENOMEM, st->req.from);
		st->names = v;
	}
	st->names[st->nnames] = strdup(name);
	if (!st->names[st->nnames])
		return fail_w(st, ENOMEM, st->req.from);
	st->nnames++;
	return 0;
}

/* The regular files below dfd (rel: its path below from), depth
 * first; symlinks and special files are left out, never followed. */
static int walk(struct stage *st, int dfd, const char *rel, size_t *cap,
		int depth)
{
	char sub[4096];
	struct dirent *d;
	struct stat sb;
	DIR *dir;
	int fd, rc = 0;

	if (depth > 64)
		return fail_w(st, ELOOP, rel);
	dir = fdopendir(dfd);
	if (!dir) {
		close(dfd);
		return fail_w(st, errno, rel);
	}
	while (!rc && (d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "",
			     d->d_name) >= (int)sizeof(sub)) {
			rc = fail_w(st, ENAMETOOLONG, rel);
			break;
		}
		if (media_name_flags(d->d_name, strlen(d->d_name))) {
			rc = fail_w(st, EILSEQ, sub);
			break;
		}
		if (fstatat(dirfd(dir), d->d_name, &sb, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		if (S_ISREG(sb.st_mode)) {
			rc = add_name(st, cap, sub);
		} else if (S_ISDIR(sb.st_mode)) {
			fd = openat(dirfd(dir), d->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					    O_CLOEXEC);
			if (fd >= 0)
				rc = walk(st, fd, sub, cap, depth + 1);
		}
	}
	closedir(dir);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void w_list(struct stage *st)
{
	struct stat sb;
	size_t cap = 0;
	int fd;

	st->rootfd = open(st->req.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (st->rootfd < 0) {
		fail_w(st, errno, st->req.from);
		return;
	}
	fd = beneath_open(st->rootfd, st->req.from,
			  O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd < 0) {
		fail_w(st, -fd, st->req.from);
		return;
	}
	if (fstat(fd, &sb)) {
		fail_w(st, errno, st->req.from);
		close(fd);
		return;
	}
	if (S_ISREG(sb.st_mode)) {
		close(fd);
		add_name(st, &cap, "");
		return;
	}
	if (!S_ISDIR(sb.st_mode)) {
		close(fd);
		fail_w(st, EISDIR, st->req.from);
		return;
	}
	if (!walk(st, fd, "", &cap, 0) && st->nnames > 1)
		qsort(st->names, st->nnames, sizeof(*st->names), cmp_names);
}

static void w_read(struct stage *st)
{
	ssize_t n;

	st->len = 0;
	while (st->len < st->req.chunk) {
		n = pread(st->fd, st->buf + st->len, st->req.chunk - st->len,
			  (off_t)(st->offset + st->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0)
				st->werr = errno;
			break;
		}
		st->len += (size_t)n;
	}
	st->eof = st->len < st->req.chunk;
	/* A file that grew past the cap while it is read. */
	if (!st->werr && st->offset + st->len > st->req.max_bytes)
		st->werr = EFBIG;
	st->bad = st->badbuf; /* w_open() put the file's path there */
}

static void w_open(struct stage *st)
{
	const char *name = st->names[st->next];
	char *host = st->badbuf; /* the file's path, kept for its errors */
	struct stat sb;

	if (snprintf(host, sizeof(st->badbuf), "%s%s%s", st->req.from,
		     *name ? "/" : "", name) >= (int)sizeof(st->badbuf)) {
		fail_w(st, ENAMETOOLONG, host);
		return;
	}
	st->fd = beneath_open(st->rootfd, host,
			      O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (st->fd < 0) {
		fail_w(st, -st->fd, host);
		st->fd = -1;
		return;
	}
	if (fstat(st->fd, &sb)) {
		fail_w(st, errno, host);
		return;
	}
	if (!S_ISREG(sb.st_mode)) {
		fail_w(st, EISDIR, host);
		return;
	}
	/* A second name may be outside the root (transfer.c, import). */
	if (sb.st_nlink > 1) {
		fail_w(st, EMLINK, host);
		return;
	}
	if ((uint64_t)sb.st_size > st->req.max_bytes) {
		fail_w(st, EFBIG, host);
		return;
	}
	w_read(st);
}

static void work_cb(uv_work_t *w)
{
	struct stage *st = w->data;

	st->werr = 0;
	if (st->step == W_LIST)
		w_list(st);
	else if (st->step == W_OPEN)
		w_open(st);
	else
		w_read(st);
}

/* ---- the loop side ---- */

static void after_work(uv_work_t *w, int status);
static void send_piece(struct stage *st);
static void end(struct stage *st, const struct error *err);

static void queue(struct stage *st, enum step step)
{
	int rc;

	st->step = step;
	st->working = 1;
	rc = uv_queue_work(st->loop, &st->work, work_cb, after_work);
	if (rc) {
		st->working = 0;
		error_set(&st->err, ERR_SANDBOX, "thread pool: %s",
			  uv_strerror(rc));
		end(st, &st->err);
	}
}

static void host_error(struct stage *st, struct error *e)
{
	const char *p = st->bad ? st->bad : st->req.from;

	switch (st->werr) {
	case EFBIG:
		error_set(e, ERR_TOO_LARGE,
			  "%s is over %llu bytes, the largest file taken: 0 to "
			  "%llu ([files] max_write_bytes, by default the /work "
			  "size, [limits] work_mb)",
			  p, (unsigned long long)st->req.max_bytes,
			  (unsigned long long)st->req.max_bytes);
		break;
	case E2BIG:
		error_set(e, ERR_TOO_LARGE,
			  "%s holds over %u files: stage a directory below it",
			  p, STAGE_MAX_FILES);
		break;
	case EISDIR:
		error_set(e, ERR_NOT_A_FILE,
			  "%s is not a regular file or a directory", p);
		break;
	case EMLINK:
		error_set(e, ERR_INVALID_PATH,
			  "%s has more than one hard link: another name of it "
			  "may be outside the files root, so it is not taken "
			  "(copy it to a file of its own)",
			  p);
		break;
	case EILSEQ:
		error_set(e, ERR_INVALID_PATH,
			  "%s: a name with a control or bidirectional "
			  "character (or bytes that are not UTF-8) would show "
			  "another name than it has",
			  p);
		break;
	case EXDEV:
	case ELOOP:
		error_set(e, ERR_INVALID_PATH,
			  "%s: a symlink or '..' on the way, or outside the "
			  "files root",
			  p);
		break;
	default:
		error_set(e, error_file_code(st->werr), "%s: %s", p,
			  strerror(st->werr));
	}
}

/* Frees an aborted stage once nothing of it is in flight. */
static int reap(struct stage *st)
{
	if (!st->aborted)
		return 0;
	if (!st->working && !st->in_op)
		stage_free(st);
	return 1;
}

static void end(struct stage *st, const struct error *err)
{
	if (reap(st))
		return;
	st->cb(err, &st->done, st->arg);
	stage_free(st);
}

static void op_cb(struct agent_client *ac, const struct error *err,
		  const struct ap_file_done *res, void *arg);

static int send_op(struct stage *st, struct ap_file *q)
{
	q->timeout_ms = st->req.timeout_ms;
	if (agent_client_file(st->ac, q, op_cb, st)) {
		error_set(&st->err, -EPIPE,
			  "cannot send a staged file to the sandbox");
		return -1;
	}
	st->in_op = 1;
	return 0;
}

/* A failure with a temporary file in /work: remove it (the connection
 * still works), then end with err. */
static void fail_staged(struct stage *st, const struct error *err)
{
	struct ap_file q;

	st->err = *err;
	if (!st->written || err->code < 0) {
		end(st, &st->err);
		return;
	}
	st->cleaning = 1;
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_DELETE;
	q.path = st->tmp;
	q.path_len = strlen(st->tmp);
	if (send_op(st, &q))
		end(st, &st->err);
}

static int new_names(struct stage *st)
{
	const char *name = st->names[st->next];
	const char *slash;
	unsigned char r[8];
	size_t n;
	int dir;

	free(st->tmp);
	free(st->target);
	st->tmp = NULL;
	n = strlen(st->req.path) + strlen(name) + 2;
	st->target = malloc(n);
	if (!st->target)
		return -1;
	snprintf(st->target, n, "%s%s%s", st->req.path, *name ? "/" : "", name);
	slash = strrchr(st->target, '/');
	dir = slash ? (int)(slash - st->target) : 0;
	if (uv_random(NULL, NULL, r, sizeof(r), 0, NULL))
		return -1;
	n = (size_t)dir + 40;
	st->tmp = malloc(n);
	if (!st->tmp)
		return -1;
	snprintf(st->tmp, n,
		 "%.*s%s.sbx-stage-%02x%02x%02x%02x%02x%02x%02x%02x", dir,
		 st->target, slash ? "/" : "", r[0], r[1], r[2], r[3], r[4],
		 r[5], r[6], r[7]);
	return 0;
}

static void send_piece(struct stage *st)
{
	struct ap_file q;

	memset(&q, 0, sizeof(q));
	st->moving = !st->len && st->eof && st->written;
	if (!st->moving) {
		q.op = AP_FOP_WRITE;
		q.flags = AP_FF_AT | AP_FF_PARENTS;
		q.offset = st->offset;
		q.data = st->buf;
		q.data_len = st->len;
		q.path = st->tmp;
		q.path_len = strlen(st->tmp);
	} else { /* all of it is there: into place */
		q.op = AP_FOP_MOVE;
		q.flags = AP_FF_OVERWRITE | AP_FF_PARENTS;
		q.path = st->tmp;
		q.path_len = strlen(st->tmp);
		q.path2 = st->target;
		q.path2_len = strlen(st->target);
	}
	if (send_op(st, &q))
		end(st, &st->err);
}

static void next_file(struct stage *st)
{
	if (st->fd >= 0)
		close(st->fd);
	st->fd = -1;
	if (st->next >= st->nnames) {
		end(st, NULL);
		return;
	}
	if (st->cancelled) {
		error_set(&st->err, ERR_CANCELLED, NULL);
		end(st, &st->err);
		return;
	}
	st->offset = 0;
	st->written = 0;
	if (new_names(st)) {
		error_set(&st->err, ERR_SANDBOX, "out of memory");
		end(st, &st->err);
		return;
	}
	queue(st, W_OPEN);
}

static void op_cb(struct agent_client *ac, const struct error *err,
		  const struct ap_file_done *res, void *arg)
{
	struct stage *st = arg;
	struct error e;

	(void)ac;
	(void)res;
	st->in_op = 0;
	if (reap(st))
		return;
	if (st->cleaning) { /* the temporary file is gone (or not) */
		end(st, &st->err);
		return;
	}
	if (err && !error_is_ours(err->code)) { /* the connection */
		end(st, err);
		return;
	}
	if (err) {
		error_set(&e, err->code, "%s: %s", st->target, err->msg);
		fail_staged(st, &e);
		return;
	}
	if (st->moving) { /* into place */
		free(st->tmp);
		st->tmp = NULL;
		st->done.files++;
		st->next++;
		next_file(st);
		return;
	}
	st->written = 1;
	st->offset += st->len;
	st->done.bytes += st->len;
	if (st->cancelled) {
		error_set(&e, ERR_CANCELLED, NULL);
		fail_staged(st, &e);
	} else if (st->eof) {
		st->len = 0;
		send_piece(st); /* the move */
	} else {
		queue(st, W_READ);
	}
}

static void after_work(uv_work_t *w, int status)
{
	struct stage *st = w->data;
	struct error e;

	(void)status;
	st->working = 0;
	if (reap(st))
		return;
	if (st->werr) {
		host_error(st, &e);
		fail_staged(st, &e);
		return;
	}
	if (st->step == W_LIST) {
		next_file(st);
		return;
	}
	if (st->cancelled) {
		error_set(&e, ERR_CANCELLED, NULL);
		fail_staged(st, &e);
		return;
	}
	send_piece(st);
}

int stage_start(uv_loop_t *loop, struct agent_client *ac,
		const struct stage_req *req, stage_cb cb, void *arg,
		struct stage **out, struct error *err)
{
	const char *v[3] = {req->root, req->from, req->path};
	size_t n = 0, i;
	struct stage *st;
	char *p;

	for (i = 0; i < 3; i++)
		n += strlen(v[i]) + 1;
	st = calloc(1, sizeof(*st));
	if (st) {
		st->strs = malloc(n);
		st->buf = malloc(req->chunk ? req->chunk : 1);
	}
	if (!st || !st->strs || !st->buf) {
		if (st) {
			free(st->strs);
			free(st->buf);
		}
		free(st);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	st->loop = loop;
	st->work.data = st;
	st->ac = ac;
	st->req = *req;
	st->cb = cb;
	st->arg = arg;
	st->rootfd = st->fd = -1;
	for (p = st->strs, i = 0; i < 3; i++) {
		size_t len = strlen(v[i]) + 1;

		memcpy(p, v[i], len);
		v[i] = p;
		p += len;
	}
	st->req.root = v[0];
	st->req.from = v[1];
	st->req.path = v[2];
	*out = st;
	queue(st, W_LIST);
	return 0;
}

void stage_cancel(struct stage *st)
{
	st->cancelled = 1;
}

void stage_abort(struct stage *st)
{
	st->aborted = 1;
	reap(st);
}
