/*
 * transfer.c - export and import between a session and the host directory
 * the user allowed (transfer.h). Host file work runs on the thread pool;
 * the session's side goes through session_file().
 *
 * A file moves in pieces of req.chunk bytes through two buffers, one
 * piece ahead: an export asks the session for piece N+1 while the thread
 * pool writes piece N to the host file, and an import reads piece N+1
 * from the host file while the session writes piece N. So the disk and
 * the agent channel work at the same time, and the server holds two
 * pieces at most. After a failure nothing new starts: what is in flight
 * ends first (settle()), then the temporary file goes and the transfer
 * ends with the first error.
 */
#include "transfer.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/beneath.h"
#include "util/media.h"

enum step {
	W_EXPORT_OPEN,
	W_WRITE,
	W_COMMIT,
	W_ABORT,
	W_IMPORT_OPEN,
	W_IMPORT_READ,
	W_DIR_OPEN,
	W_MKDIR,
};

/* A directory export copies at most this many entries. */
#define EXPORT_MAX_ENTRIES 10000

/* One piece of a file on its way. */
struct piece {
	unsigned char *buf; /* req.chunk bytes */
	size_t len;
	uint64_t offset; /* in the file */
	int full;	 /* holds bytes not yet written */
	int eof;	 /* the file's last piece */
};

struct transfer {
	uv_loop_t *loop;
	uv_work_t work;
	enum step step;
	struct transfer_req req; /* strings point at the copies below */
	char *strs;
	transfer_cb cb;
	void *arg;
	/* host side */
	int rootfd, dirfd, fd;
	const char *spath, *hpath; /* the file being copied: req's, or an
				    * entry's (in cur) */
	char *cur;
	const char *last; /* into hpath */
	char tmp[64];
	int werr;	     /* errno of the last work step, 0 */
	unsigned long nlink; /* import: the links of a file refused for them */
	const char *wwhat;   /* what it was doing */
	/* The bytes: two pieces, one being written (to the host file, or
	 * to the session) while the other is read. */
	unsigned char *mem; /* both pieces' buffers */
	struct piece pc[2];
	struct piece *rp, *wp; /* the thread pool's: read into, write from */
	uint64_t offset;       /* bytes written (where the next piece goes) */
	uint64_t rd_off;       /* bytes read (where the next read starts) */
	int rd_eof;	       /* the last piece has been read */
	struct session_call *sc;
	int asked;	  /* a session operation (or store read) in flight */
	int failed;	  /* err is set: nothing new starts (settle()) */
	struct error err; /* the first failure */
	/* An import: the temporary name in the session the file is written
	 * to in pieces (then moved to spath); sc is the hold of the
	 * session's queue while asked is 0. */
	char *stmp;
	enum { IMP_STAT, IMP_WRITE, IMP_MOVE, IMP_CLEAN } phase;
	int working; /* a step is on the thread pool */
	/* A directory's export: its entries below it, sorted (a directory
	 * before what it holds), and where the copy is. */
	int dir;
	char **names;
	uint8_t *types;
	size_t nnames, next;
	char *cursor;
	uint64_t total;
	uint32_t files;
	uint32_t left_out; /* entries whose names would mislead */
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void finish(struct transfer *t, const struct error *err)
{
	struct transfer_done d = {
		.bytes = t->dir ? t->total : t->offset,
		.files = t->files,
		.left_out = t->left_out,
	};

	close_fd(&t->fd);
	close_fd(&t->dirfd);
	close_fd(&t->rootfd);
	t->cb(err, &d, t->arg);
	while (t->nnames)
		free(t->names[--t->nnames]);
	free(t->names);
	free(t->types);
	free(t->cursor);
	free(t->cur);
	free(t->stmp);
	free(t->mem);
	free(t->strs);
	free(t);
	/* Its pieces (megabytes) go back to the system: the server's size
	 * returns to what it was (docs/architecture.md, "Memory"). */
	malloc_trim(0);
}

/* ---- the thread pool side ---- */

static int fail_w(struct transfer *t, int err, const char *what)
{
	t->werr = err;
	t->wwhat = what;
	return -1;
}

static int open_root(struct transfer *t)
{
	if (t->rootfd >= 0)
		return 0;
	t->rootfd = open(t->req.root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return t->rootfd < 0 ? fail_w(t, errno, "open the files root") : 0;
}

static void w_export_open(struct transfer *t)
{
	struct stat st;
	unsigned n;
	int fd;

	if (open_root(t))
		return;
	close_fd(&t->dirfd);
	fd = beneath_parent(t->rootfd, t->hpath, 1, &t->last);
	if (fd < 0) {
		fail_w(t, -fd, "open the directory of");
		return;
	}
	t->dirfd = fd;
	if (!fstatat(t->dirfd, t->last, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISDIR(st.st_mode)) {
			fail_w(t, EISDIR, "replace");
			return;
		}
		if (!t->req.overwrite) {
			fail_w(t, EEXIST, "replace");
			return;
		}
	}
	for (n = 0;; n++) {
		snprintf(t->tmp, sizeof(t->tmp), ".sbx-export-%d-%u",
			 (int)getpid(), n);
		t->fd = openat(t->dirfd, t->tmp,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_CLOEXEC,
			       0644);
		if (t->fd >= 0 || errno != EEXIST || n > 100)
			break;
	}
	if (t->fd < 0) {
		t->tmp[0] = '\0';
		fail_w(t, errno, "create a file beside");
	}
}

static void w_write(struct transfer *t)
{
	const struct piece *p = t->wp;
	size_t done = 0;
	ssize_t w;

	while (done < p->len) {
		w = pwrite(t->fd, p->buf + done, p->len - done,
			   (off_t)(p->offset + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			fail_w(t, errno, "write");
			return;
		}
		done += (size_t)w;
	}
}

static void w_commit(struct transfer *t)
{
	if (close(t->fd)) {
		t->fd = -1;
		fail_w(t, errno, "write");
		return;
	}
	t->fd = -1;
	if (syscall(SYS_renameat2, t->dirfd, t->tmp, t->dirfd, t->last,
		    t->req.overwrite ? 0 : RENAME_NOREPLACE)) {
		fail_w(t, errno, "rename into");
		return;
	}
	t->tmp[0] = '\0';
}

static void w_abort(struct transfer *t)
{
	close_fd(&t->fd);
	if (t->tmp[0] && t->dirfd >= 0)
		unlinkat(t->dirfd, t->tmp, 0);
	t->tmp[0] = '\0';
}

/* The next piece of the host file, at most req.chunk bytes: a short
 * piece (or none) is its end. A file that passes the cap while it is
 * read (it grew) is refused like one that was too large from the start. */
static void w_import_read(struct transfer *t)
{
	struct piece *p = t->rp;
	ssize_t n;

	p->len = 0;
	while (p->len < t->req.chunk) {
		n = pread(t->fd, p->buf + p->len, t->req.chunk - p->len,
			  (off_t)(p->offset + p->len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fail_w(t, errno, "read");
			return;
		}
		if (n == 0)
			break;
		p->len += (size_t)n;
	}
	p->eof = p->len < t->req.chunk;
	if (p->offset + p->len > t->req.max_bytes)
		fail_w(t, EFBIG, "import");
}

static void w_import_open(struct transfer *t)
{
	struct stat st;

	if (open_root(t))
		return;
	t->fd = beneath_open(t->rootfd, t->hpath,
			     O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (t->fd < 0) {
		fail_w(t, -t->fd, "open");
		t->fd = -1;
		return;
	}
	if (fstat(t->fd, &st)) {
		fail_w(t, errno, "stat");
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		fail_w(t, EISDIR, "import");
		return;
	}
	/* A second name of a file may be anywhere on the filesystem: a hard
	 * link planted in the root would import a file from outside it,
	 * which openat2 cannot see (its RESOLVE_ flags are about the path). */
	if (st.st_nlink > 1) {
		t->nlink = (unsigned long)st.st_nlink;
		fail_w(t, EMLINK, "import");
		return;
	}
	if ((uint64_t)st.st_size > t->req.max_bytes) {
		fail_w(t, EFBIG, "import");
		return;
	}
	w_import_read(t);
}

/* mkdir -p of hpath beneath the root; for the directory itself (W_DIR_OPEN)
 * one that exists needs overwrite. */
static void w_mkdir(struct transfer *t, int top)
{
	const char *last;
	struct stat st;
	int fd;

	if (open_root(t))
		return;
	fd = beneath_parent(t->rootfd, t->hpath, 1, &last);
	if (fd < 0) {
		fail_w(t, -fd, "create the directory");
		return;
	}
	if (!fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW)) {
		if (!S_ISDIR(st.st_mode))
			fail_w(t, S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR,
			       "create the directory");
		else if (top && !t->req.overwrite)
			fail_w(t, EEXIST, "create the directory");
	} else if (mkdirat(fd, last, 0755) && errno != EEXIST) {
		fail_w(t, errno, "create the directory");
	}
	close(fd);
}

static void work_cb(uv_work_t *w)
{
	struct transfer *t = w->data;

	t->werr = 0;
	switch (t->step) {
	case W_EXPORT_OPEN:
		w_export_open(t);
		break;
	case W_WRITE:
		w_write(t);
		break;
	case W_COMMIT:
		w_commit(t);
		break;
	case W_ABORT:
		w_abort(t);
		break;
	case W_IMPORT_OPEN:
		w_import_open(t);
		break;
	case W_IMPORT_READ:
		w_import_read(t);
		break;
	case W_DIR_OPEN:
	case W_MKDIR:
		w_mkdir(t, t->step == W_DIR_OPEN);
		break;
	}
}

/* ---- the loop side ---- */

static void after_work(uv_work_t *w, int status);

/* 0, or -1 when the transfer has ended (t is gone). */
static int queue(struct transfer *t, enum step step)
{
	int rc;

	t->step = step;
	t->working = 1;
	rc = uv_queue_work(t->loop, &t->work, work_cb, after_work);
	if (!rc)
		return 0;
	/* Only an invalid argument fails here: not expected. */
	t->working = 0;
	error_set(&t->err, ERR_SANDBOX, "thread pool: %s", uv_strerror(rc));
	finish(t, &t->err);
	return -1;
}

static void import_clean(struct transfer *t);

/* After a failure, once nothing is in flight: an import's temporary file
 * in the session is removed and its hold released; then W_ABORT removes
 * an export's temporary file on the host and the transfer ends. Called
 * again by whatever was in flight when it ends. */
static void settle(struct transfer *t)
{
	if (t->asked)
		return;
	if (t->sc && t->stmp && t->phase != IMP_CLEAN) {
		import_clean(t);
		return;
	}
	if (t->sc) { /* an import's hold (an export's calls end alone) */
		session_call_release(t->sc);
		t->sc = NULL;
	}
	if (!t->working)
		queue(t, W_ABORT);
}

/* The transfer fails with err (the first failure is the one told). */
static void fail(struct transfer *t, const struct error *err)
{
	if (!t->failed) {
		if (err != &t->err)
			t->err = *err;
		t->failed = 1;
	}
	settle(t);
}

static void host_error(struct transfer *t, struct error *e)
{
	if (t->werr == EEXIST)
		error_set(e, ERR_FILE_EXISTS,
			  "%s exists in the files root (overwrite to "
			  "replace it)",
			  t->hpath);
	else if (t->werr == EFBIG)
		error_set(e, ERR_TOO_LARGE,
			  "%s is over %llu bytes, the largest file taken: 0 to "
			  "%llu ([files] max_write_bytes, by default the "
			  "session's /work size, [limits] work_mb)",
			  t->hpath, (unsigned long long)t->req.max_bytes,
			  (unsigned long long)t->req.max_bytes);
	else if (t->werr == EISDIR)
		error_set(e, ERR_NOT_A_FILE, "%s is not a regular file",
			  t->hpath);
	else if (t->werr == EMLINK)
		error_set(e, ERR_INVALID_PATH,
			  "%s has %lu hard links: another name of it may be "
			  "outside the files root, so it is not imported "
			  "(copy it to a file of its own)",
			  t->hpath, t->nlink);
	else if (t->werr == EXDEV || t->werr == ELOOP)
		error_set(e, ERR_INVALID_PATH,
			  "%s: a symlink or '..' on the way, or outside the "
			  "files root",
			  t->hpath);
	else
		error_set(e, error_file_code(t->werr), "%s %s: %s", t->wwhat,
			  t->hpath, strerror(t->werr));
}

static struct session *find(struct transfer *t, struct error *err)
{
	struct session *s = session_find(t->req.sessions, t->req.session);

	if (!s)
		error_set(err, ERR_SESSION_NOT_FOUND, "session '%s' is gone",
			  t->req.session);
	return s;
}

/* A free piece, or NULL. */
static struct piece *free_piece(struct transfer *t)
{
	return !t->pc[0].full ? &t->pc[0] : !t->pc[1].full ? &t->pc[1] : NULL;
}

/* The piece that is written next (it starts at offset), or NULL. */
static struct piece *next_piece(struct transfer *t)
{
	int i;

	for (i = 0; i < 2; i++)
		if (t->pc[i].full && t->pc[i].offset == t->offset)
			return &t->pc[i];
	return NULL;
}

/* ---- export: the session's file in pieces into a temporary file on
 * the host, renamed into place ---- */

static void read_next(struct transfer *t);

/* What comes next: the next piece to the thread pool, the next read to
 * the session (a free buffer and more to read), the rename at the end. */
static void export_pump(struct transfer *t)
{
	if (!t->working) {
		t->wp = next_piece(t);
		if (t->wp && queue(t, W_WRITE))
			return;
		if (!t->wp && t->rd_eof && !t->asked) {
			queue(t, W_COMMIT);
			return;
		}
	}
	if (!t->asked && !t->rd_eof && free_piece(t))
		read_next(t);
}

/* A piece read (the agent's, or the store's): into a free buffer. */
static void export_got(struct transfer *t, const unsigned char *data,
		       size_t len, int eof)
{
	struct piece *p = free_piece(t);

	if (len > t->req.chunk || !p) { /* the agent never sends more */
		error_set(&t->err, ERR_SANDBOX, "the agent sent too much");
		fail(t, &t->err);
		return;
	}
	memcpy(p->buf, data, len);
	p->len = len;
	p->offset = t->rd_off;
	p->full = 1;
	t->rd_off += len;
	t->rd_eof = eof || !len;
	export_pump(t);
}

/* The answer to a read (the session's or the store's): err, or a
 * piece. */
static void export_answer(struct transfer *t, const struct error *err,
			  const unsigned char *data, size_t len, int eof)
{
	t->asked = 0;
	if (t->failed)
		settle(t);
	else if (err)
		fail(t, err);
	else
		export_got(t, data, len, eof);
}

static void read_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct transfer *t = arg;

	t->sc = NULL;
	if (err)
		export_answer(t, err, NULL, 0, 0);
	else
		export_answer(t, NULL, r->data, r->data_len, r->eof);
}

/* q (op and its own fields set) to the session, on the transfer's path;
 * a failure ends the transfer through fail(). */
static void session_op(struct transfer *t, struct ap_file *q,
		       session_file_cb cb)
{
	struct session *s = find(t, &t->err);

	q->path = t->spath;
	q->path_len = strlen(q->path);
	q->timeout_ms = t->req.timeout_ms;
	if (!s || session_file(s, q, cb, t, &t->sc, &t->err)) {
		fail(t, &t->err);
		return;
	}
	t->asked = 1;
}

static void stored_cb(const struct error *err, const unsigned char *data,
		      size_t len, uint64_t size, int eof, void *arg)
{
	struct transfer *t = arg;

	(void)size;
	export_answer(t, err, data, len, eof);
}

static void read_next(struct transfer *t)
{
	struct ap_file q;

	if (t->req.store) {
		if (artifact_store_read(t->req.store, t->req.artifact_id,
					t->spath, t->rd_off, t->req.chunk,
					stored_cb, t)) {
			error_set(&t->err, ERR_SANDBOX, "out of memory");
			fail(t, &t->err);
			return;
		}
		t->asked = 1;
		return;
	}
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_READ;
	q.offset = t->rd_off;
	q.length = t->req.chunk;
	session_op(t, &q, read_cb);
}

/* A file's export starts (its temporary file is open). */
static void export_start(struct transfer *t)
{
	t->offset = t->rd_off = 0;
	t->rd_eof = 0;
	t->pc[0].full = t->pc[1].full = 0;
	export_pump(t);
}

/* ---- import: the host file in pieces into a temporary name in the
 * session, then moved into place, all in one hold of the session's queue
 * (nothing else runs there meanwhile, and nobody sees half a file) ---- */

static void import_hold_cb(const struct error *err,
			   const struct ap_file_done *r, int held, void *arg);

/* q to the held session call (transfer_import() took the hold). */
static void import_op(struct transfer *t, struct ap_file *q)
{
	q->timeout_ms = t->req.timeout_ms;
	if (session_file_next(t->sc, q, &t->err)) {
		t->sc = NULL; /* the hold is over */
		fail(t, &t->err);
		return;
	}
	t->asked = 1;
}

static void set_path(struct ap_file *q, const char *path)
{
	q->path = path;
	q->path_len = strlen(path);
}

/* The temporary name: beside the target, hidden, unlikely to be taken
 * (a write in place at offset 0 would truncate a file of that name). */
static int import_tmp_name(struct transfer *t)
{
	const char *slash = strrchr(t->spath, '/');
	int dir = slash ? (int)(slash - t->spath) : 0;
	unsigned char r[8];
	size_t n = (size_t)dir + 40;

	if (uv_random(NULL, NULL, r, sizeof(r), 0, NULL))
		return -1;
	t->stmp = malloc(n);
	if (!t->stmp)
		return -1;
	snprintf(t->stmp, n,
		 "%.*s%s.sbx-import-%02x%02x%02x%02x%02x%02x%02x%02x", dir,
		 t->spath, slash ? "/" : "", r[0], r[1], r[2], r[3], r[4], r[5],
		 r[6], r[7]);
	return 0;
}

/* The move into place, once every piece is in. */
static void import_move(struct transfer *t)
{
	struct ap_file q;

	memset(&q, 0, sizeof(q));
	t->phase = IMP_MOVE;
	q.op = AP_FOP_MOVE;
	q.flags = t->req.overwrite ? AP_FF_OVERWRITE : 0;
	set_path(&q, t->stmp);
	q.path2 = t->spath;
	q.path2_len = strlen(t->spath);
	import_op(t, &q);
}

/* What comes next: the next piece to the session, the next read of the
 * host file (a free buffer and more to read), the move at the end. */
static void import_pump(struct transfer *t)
{
	struct piece *p;
	struct ap_file q;

	if (!t->asked) {
		p = next_piece(t);
		/* An empty piece is written only to make an empty file. */
		if (p && !p->len && p->offset) {
			p->full = 0;
			p = NULL;
		}
		if (p) {
			memset(&q, 0, sizeof(q));
			t->phase = IMP_WRITE;
			q.op = AP_FOP_WRITE;
			q.flags = AP_FF_AT | AP_FF_PARENTS;
			q.offset = p->offset;
			q.data = p->buf;
			q.data_len = p->len;
			set_path(&q, t->stmp);
			import_op(t, &q);
			if (t->failed)
				return;
		} else if (t->rd_eof && !t->working && !next_piece(t)) {
			import_move(t);
			return;
		}
	}
	p = free_piece(t);
	if (!t->working && !t->rd_eof && p) {
		t->rp = p;
		p->offset = t->rd_off;
		queue(t, W_IMPORT_READ);
	}
}

/* A piece of the host file read (W_IMPORT_OPEN, W_IMPORT_READ). */
static void import_got(struct transfer *t)
{
	struct piece *p = t->rp;

	p->full = 1;
	t->rd_off += p->len;
	t->rd_eof = p->eof;
	if (!t->stmp && import_tmp_name(t)) {
		error_set(&t->err, ERR_SANDBOX, "out of memory");
		fail(t, &t->err);
		return;
	}
	import_pump(t);
}

/* A failure while the session is held: remove the temporary file (the
 * agent's answer goes to settle()). */
static void import_clean(struct transfer *t)
{
	struct ap_file q;

	t->phase = IMP_CLEAN;
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_DELETE;
	set_path(&q, t->stmp);
	import_op(t, &q);
}

/* The target, asked first (it takes the session's queue at once, so the
 * calls sent after the import run after it): one that exists is refused
 * before a byte moves, unless overwrite. The move checks again. */
static void import_checked(struct transfer *t, const struct error *err,
			   const struct ap_file_done *r)
{
	struct ap_file_entry e;
	size_t off = 0;

	if (err && err->code != ERR_NOT_FOUND) {
		fail(t, err);
		return;
	}
	if (!err && ap_file_entry_next(r, &off, &e)) {
		if (e.type == AP_FT_DIR) {
			error_set(&t->err, ERR_NOT_A_FILE, "%s is a directory",
				  t->spath);
			fail(t, &t->err);
			return;
		}
		if (!t->req.overwrite) {
			error_set(&t->err, ERR_FILE_EXISTS,
				  "%s exists (overwrite to replace it)",
				  t->spath);
			fail(t, &t->err);
			return;
		}
	}
	t->rp = &t->pc[0];
	t->rp->offset = 0;
	queue(t, W_IMPORT_OPEN);
}

static void import_hold_cb(const struct error *err,
			   const struct ap_file_done *r, int held, void *arg)
{
	struct transfer *t = arg;
	struct piece *p;
	struct error e;

	t->asked = 0;
	if (!held) { /* the session went: its /work with it */
		t->sc = NULL;
		fail(t, err);
		return;
	}
	if (t->failed) { /* the temporary file is gone, or in flight */
		settle(t);
		return;
	}
	if (t->phase == IMP_STAT) {
		import_checked(t, err, r);
		return;
	}
	if (err) {
		/* The agent's message names the temporary file. */
		error_set(&e, err->code, "importing into %s: %s", t->spath,
			  err->msg);
		fail(t, &e);
		return;
	}
	if (t->phase == IMP_MOVE) {
		session_call_release(t->sc);
		t->sc = NULL;
		t->files = 1;
		finish(t, NULL);
		return;
	}
	p = next_piece(t); /* the piece just written */
	if (p) {
		p->full = 0;
		t->offset += p->len;
	}
	import_pump(t);
}

static void next_entry(struct transfer *t);

static void list_next(struct transfer *t);

/* A page of the directory's entries: files and directories are copied,
 * anything else (a symlink, a FIFO) is left out. */
static void list_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct transfer *t = arg;
	struct ap_file_entry e;
	size_t off = 0;

	t->sc = NULL;
	t->asked = 0;
	if (err) {
		fail(t, err);
		return;
	}
	while (ap_file_entry_next(r, &off, &e)) {
		char **nv;
		uint8_t *tv;

		if (e.type != AP_FT_FILE && e.type != AP_FT_DIR)
			continue;
		/* A name that would mislead on the user's machine (a newline,
		 * U+202E): left out and counted; list shows it escaped. */
		if (media_name_flags(e.name, e.name_len)) {
			t->left_out++;
			continue;
		}
		if (t->nnames >= EXPORT_MAX_ENTRIES) {
			error_set(&t->err, ERR_TOO_LARGE,
				  "%s holds more than %u entries",
				  t->req.session_path, EXPORT_MAX_ENTRIES);
			fail(t, &t->err);
			return;
		}
		nv = realloc(t->names, (t->nnames + 1) * sizeof(*nv));
		if (nv)
			t->names = nv;
		tv = nv ? realloc(t->types, t->nnames + 1) : NULL;
		if (tv)
			t->types = tv;
		if (!tv ||
		    !(t->names[t->nnames] = strndup(e.name, e.name_len))) {
			error_set(&t->err, ERR_SANDBOX, "out of memory");
			fail(t, &t->err);
			return;
		}
		t->types[t->nnames++] = e.type;
	}
	free(t->cursor);
	t->cursor = r->cursor ? strndup(r->cursor, r->cursor_len) : NULL;
	if (r->cursor)
		list_next(t);
	else
		next_entry(t);
}

static void list_next(struct transfer *t)
{
	struct ap_file q;

	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_LIST;
	q.flags = AP_FF_RECURSIVE;
	q.length = 1000;
	if (t->cursor) {
		q.cursor = t->cursor;
		q.cursor_len = strlen(t->cursor);
	}
	session_op(t, &q, list_cb);
}

/* The next entry of a directory export, or the end. */
static void next_entry(struct transfer *t)
{
	const char *name;
	size_t sl, hl, nl;

	if (t->next == t->nnames) {
		finish(t, NULL);
		return;
	}
	name = t->names[t->next];
	sl = strlen(t->req.session_path);
	hl = strlen(t->req.host_path);
	nl = strlen(name);
	free(t->cur);
	t->cur = malloc(sl + hl + 2 * nl + 4);
	if (!t->cur) {
		error_set(&t->err, ERR_SANDBOX, "out of memory");
		fail(t, &t->err);
		return;
	}
	sprintf(t->cur, "%s/%s", t->req.session_path, name);
	t->spath = t->cur;
	t->hpath = t->cur + sl + nl + 2;
	sprintf((char *)t->hpath, "%s/%s", t->req.host_path, name);
	queue(t, t->types[t->next++] == AP_FT_DIR ? W_MKDIR : W_EXPORT_OPEN);
}

/* What the session's path is: a file is copied, a directory walked. */
static void stat_cb(const struct error *err, const struct ap_file_done *r,
		    void *arg)
{
	struct transfer *t = arg;
	struct ap_file_entry e;
	size_t off = 0;

	t->sc = NULL;
	t->asked = 0;
	if (err) {
		fail(t, err);
		return;
	}
	if (!ap_file_entry_next(r, &off, &e) ||
	    (e.type != AP_FT_FILE && e.type != AP_FT_DIR)) {
		error_set(&t->err, ERR_NOT_A_FILE,
			  "%s is neither a regular file nor a directory",
			  t->req.session_path);
		fail(t, &t->err);
		return;
	}
	t->dir = e.type == AP_FT_DIR;
	queue(t, t->dir ? W_DIR_OPEN : W_EXPORT_OPEN);
}

static void after_work(uv_work_t *w, int status)
{
	struct transfer *t = w->data;
	struct error e;

	(void)status;
	t->working = 0;
	if (t->step == W_ABORT) {
		finish(t, &t->err);
		return;
	}
	if (t->werr && !t->failed) {
		host_error(t, &e);
		fail(t, &e);
		return;
	}
	if (t->failed) {
		settle(t);
		return;
	}
	switch (t->step) {
	case W_EXPORT_OPEN:
		export_start(t);
		break;
	case W_WRITE:
		t->wp->full = 0;
		t->offset += t->wp->len;
		export_pump(t);
		break;
	case W_COMMIT:
		t->total += t->offset;
		t->files++;
		if (t->dir)
			next_entry(t);
		else
			finish(t, NULL);
		break;
	case W_DIR_OPEN:
		list_next(t);
		break;
	case W_MKDIR:
		next_entry(t);
		break;
	case W_IMPORT_OPEN:
	case W_IMPORT_READ:
		import_got(t);
		break;
	case W_ABORT:
		break;
	}
}

static struct transfer *transfer_new(uv_loop_t *loop,
				     const struct transfer_req *req,
				     transfer_cb cb, void *arg,
				     struct error *err)
{
	const char *v[5] = {req->session ? req->session : "", req->root,
			    req->session_path, req->host_path,
			    req->artifact_id ? req->artifact_id : ""};
	size_t n = 0, i, chunk;
	struct transfer *t;
	char *p;

	if (beneath_check(req->host_path)) {
		error_set(err, ERR_INVALID_PATH,
			  "'%s': give a relative path inside the files root, "
			  "without '..'",
			  req->host_path);
		return NULL;
	}
	if (media_name_flags(req->host_path, strlen(req->host_path))) {
		char *esc = media_name_escape(req->host_path,
					      strlen(req->host_path));

		error_set(err, ERR_INVALID_PATH,
			  "'%s': a host path with a bidirectional or control "
			  "character would show another name than it has",
			  esc ? esc : "?");
		free(esc);
		return NULL;
	}
	for (i = 0; i < 5; i++)
		n += strlen(v[i]) + 1;
	t = calloc(1, sizeof(*t));
	if (t)
		t->strs = malloc(n);
	if (!t || !t->strs) {
		free(t);
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	chunk = req->chunk ? req->chunk : 1;
	t->mem = malloc(2 * (size_t)chunk);
	if (!t->mem) {
		free(t->strs);
		free(t);
		error_set(err, ERR_SANDBOX, "out of memory");
		return NULL;
	}
	t->pc[0].buf = t->mem;
	t->pc[1].buf = t->mem + chunk;
	t->loop = loop;
	t->work.data = t;
	t->req = *req;
	t->cb = cb;
	t->arg = arg;
	t->rootfd = t->dirfd = t->fd = -1;
	p = t->strs;
	for (i = 0; i < 5; i++) {
		size_t len = strlen(v[i]) + 1;

		memcpy(p, v[i], len);
		v[i] = p;
		p += len;
	}
	t->req.session = v[0];
	t->req.root = v[1];
	t->req.session_path = v[2];
	t->req.host_path = v[3];
	t->req.artifact_id = v[4];
	t->spath = v[2];
	t->hpath = v[3];
	return t;
}

int transfer_export(uv_loop_t *loop, const struct transfer_req *req,
		    transfer_cb cb, void *arg, struct error *err)
{
	struct transfer *t = transfer_new(loop, req, cb, arg, err);
	struct ap_file q;

	if (!t)
		return err->code;
	if (req->store) { /* a kept file: never a directory */
		queue(t, W_EXPORT_OPEN);
		return 0;
	}
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_STAT;
	session_op(t, &q, stat_cb);
	return 0;
}

int transfer_import(uv_loop_t *loop, const struct transfer_req *req,
		    transfer_cb cb, void *arg, struct error *err)
{
	struct transfer *t = transfer_new(loop, req, cb, arg, err);
	struct session *s;
	struct ap_file q;

	if (!t)
		return err->code;
	s = find(t, err);
	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_STAT;
	set_path(&q, t->spath);
	q.timeout_ms = t->req.timeout_ms;
	t->phase = IMP_STAT;
	if (!s || session_file_hold(s, &q, import_hold_cb, t, &t->sc, err)) {
		free(t->mem);
		free(t->strs);
		free(t);
		return err->code;
	}
	t->asked = 1;
	return 0;
}
