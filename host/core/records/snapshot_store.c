/*
 * snapshot_store.c - sessions' snapshots kept on the host
 * (snapshot_store.h).
 */
#include "snapshot_store.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/state_dir.h"

#define LOG_MODULE "snapshots"

/* A record is small: the caller's fields, never the history. */
#define RECORD_MAX ((size_t)1 << 20)
/* A history is a session's notebook: its cells are bounded well below. */
#define HISTORY_FILE_MAX ((size_t)64 << 20)
/* The pieces a reader hands out. */
#define READ_PIECE ((size_t)1 << 20)
/* How often expired snapshots are looked for. */
#define SWEEP_EVERY_MS ((uint64_t)60 * 1000)
/* A temporary file or an unnamed tar left by a server that died goes
 * after this long (another server may be writing it now). */
#define STALE_S 3600

struct snapshot_store {
	uv_loop_t *loop;
	char dir[PATH_MAX];
	struct snapshot_limits lim;
	struct snapshot *list; /* newest first */
	uint64_t bytes;
	/* Commits on the thread pool, and the bytes they hold room for: a
	 * tar removed meanwhile may be one a commit found and kept (its
	 * copy dropped), so its removal waits for them (deferred). */
	unsigned committing;
	uint64_t reserved;
	char deferred[16][65];
	unsigned ndeferred;
	uv_timer_t sweep;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

static int sha256_hex(const void *p, size_t n, char out[65])
{
	unsigned char md[32];
	unsigned int len = 0;

	if (!EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) || len != 32)
		return -ENOMEM;
	hex(md, 32, out);
	return 0;
}

int snapshot_id_valid(const char *id)
{
	size_t i;

	for (i = 0; i < SNAPSHOT_ID_LEN; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'f')))
			return 0;
	return id[i] == '\0';
}

static int sha_valid(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

/* "<owner>.<id>" or "<id>" into snap's key, owner and id. -EINVAL when
 * key is neither. */
static int set_key(struct snapshot *snap, const char *key)
{
	const char *dot = strrchr(key, '.');
	size_t olen = dot ? (size_t)(dot - key) : 0;

	if (strlen(key) > SNAPSHOT_KEY_MAX ||
	    !snapshot_id_valid(dot ? dot + 1 : key) ||
	    (dot &&
	     (olen > TENANT_NAME_MAX || !tenant_valid_prefix(key, olen))))
		return -EINVAL;
	memcpy(snap->key, key, strlen(key) + 1);
	snap->id = snap->key + (dot ? olen + 1 : 0);
	memcpy(snap->owner, key, olen);
	snap->owner[olen] = '\0';
	return 0;
}

static void snap_free(struct snapshot *s)
{
	if (!s)
		return;
	cJSON_Delete(s->meta);
	free(s);
}

static const char *json_str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double json_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* A file's part of a record: {"sha256", "bytes"}. */
static int parse_part(const cJSON *o, char sha[65], uint64_t *bytes)
{
	const char *s = json_str(o, "sha256");
	double b = json_num(o, "bytes");

	if (!s || !sha_valid(s) || b < 0 || b > 9e15)
		return -EINVAL;
	memcpy(sha, s, 65);
	*bytes = (uint64_t)b;
	return 0;
}

/* The record text (its hash line, then JSON) as a snapshot; key is the
 * file's name without ".json". NULL when out of memory; corrupt set when
 * it is no good record of key. */
static struct snapshot *parse_record(const char *key, const char *text,
				     size_t len)
{
	struct snapshot *s = calloc(1, sizeof(*s));
	const char *nl = memchr(text, '\n', len);
	const cJSON *pk, *it;
	char sum[65], own[65];
	cJSON *doc = NULL;

	if (!s || set_key(s, key)) {
		free(s);
		return NULL;
	}
	s->corrupt = 1;
	if (!nl || nl - text != 64)
		return s;
	memcpy(own, text, 64);
	own[64] = '\0';
	if (sha256_hex(nl + 1, len - 65, sum) || strcmp(sum, own) != 0)
		return s;
	doc = cJSON_ParseWithLength(nl + 1, len - 65);
	if (!doc || !json_str(doc, "key") ||
	    strcmp(json_str(doc, "key"), key) != 0 ||
	    parse_part(cJSON_GetObjectItemCaseSensitive(doc, "tar"), s->tar_sha,
		       &s->tar_bytes) ||
	    parse_part(cJSON_GetObjectItemCaseSensitive(doc, "history"),
		       s->hist_sha, &s->hist_bytes)) {
		cJSON_Delete(doc);
		return s;
	}
	s->created_ms = (int64_t)json_num(doc, "created");
	s->expires_ms = (int64_t)json_num(doc, "expires");
	pk = cJSON_GetObjectItemCaseSensitive(doc, "packages");
	cJSON_ArrayForEach(it, pk)
	{
		if (!cJSON_IsString(it) ||
		    strlen(it->valuestring) != PKG_KEY_LEN ||
		    s->npkg == SNAPSHOT_MAX_PACKAGES)
			break;
		memcpy(s->pkgs[s->npkg++], it->valuestring, PKG_KEY_LEN + 1);
	}
	s->meta = cJSON_DetachItemFromObjectCaseSensitive(doc, "meta");
	if (!s->meta)
		s->meta = cJSON_CreateObject();
	cJSON_Delete(doc);
	s->corrupt = 0;
	return s;
}

/* The record's text for s (its hash line, then JSON): malloc'd. */
static char *record_text(const struct snapshot *s, size_t *len)
{
	cJSON *doc = cJSON_CreateObject(), *part, *arr;
	char *json, *out = NULL;
	size_t i, n;

	cJSON_AddNumberToObject(doc, "v", 1);
	cJSON_AddStringToObject(doc, "key", s->key);
	cJSON_AddStringToObject(doc, "owner", s->owner);
	cJSON_AddNumberToObject(doc, "created", (double)s->created_ms);
	cJSON_AddNumberToObject(doc, "expires", (double)s->expires_ms);
	part = cJSON_AddObjectToObject(doc, "tar");
	cJSON_AddStringToObject(part, "sha256", s->tar_sha);
	cJSON_AddNumberToObject(part, "bytes", (double)s->tar_bytes);
	part = cJSON_AddObjectToObject(doc, "history");
	cJSON_AddStringToObject(part, "sha256", s->hist_sha);
	cJSON_AddNumberToObject(part, "bytes", (double)s->hist_bytes);
	arr = cJSON_AddArrayToObject(doc, "packages");
	for (i = 0; arr && i < s->npkg; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(s->pkgs[i]));
	cJSON_AddItemReferenceToObject(doc, "meta", s->meta);
	json = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!json)
		return NULL;
	n = strlen(json);
	out = malloc(65 + n + 1);
	if (out && sha256_hex(json, n, out) == 0) {
		out[64] = '\n';
		memcpy(out + 65, json, n + 1);
		*len = 65 + n;
	} else {
		free(out);
		out = NULL;
	}
	free(json);
	return out;
}

static int tar_shared(const struct snapshot_store *st, const char *sha,
		      const struct snapshot *but)
{
	const struct snapshot *s;

	for (s = st->list; s; s = s->next)
		if (s != but && !s->corrupt && strcmp(s->tar_sha, sha) == 0)
			return 1;
	return 0;
}

static void recount(struct snapshot_store *st)
{
	const struct snapshot *s;
	uint64_t n = 0;

	const struct snapshot *t;

	for (s = st->list; s; s = s->next) {
		if (s->corrupt)
			continue;
		n += s->hist_bytes;
		/* A tar is counted at the last snapshot that names it. */
		for (t = s->next; t; t = t->next)
			if (!t->corrupt && strcmp(t->tar_sha, s->tar_sha) == 0)
				break;
		if (!t)
			n += s->tar_bytes;
	}
	st->bytes = n;
}

/* Newest first. */
static void link_snap(struct snapshot_store *st, struct snapshot *s)
{
	struct snapshot **pp = &st->list;

	while (*pp && (*pp)->created_ms > s->created_ms)
		pp = &(*pp)->next;
	s->next = *pp;
	*pp = s;
}

/* ---- the thread pool's side -------------------------------------------- */

/* dir/a b c into buf. 0 or -ENAMETOOLONG. */
static int path_of(const struct snapshot_store *st, char *buf, size_t size,
		   const char *a, const char *b, const char *c)
{
	const char *part[4] = {st->dir, a, b, c};
	size_t n = 0, i, l;

	for (i = 0; i < 4; i++) {
		l = strlen(part[i]);
		if (n + l + 2 > size)
			return -ENAMETOOLONG;
		memcpy(buf + n, part[i], l);
		n += l;
		if (i == 0)
			buf[n++] = '/';
	}
	buf[n] = '\0';
	return 0;
}

static int read_all(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat sb;
	char *p;
	size_t got = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (size_t)sb.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	p = malloc((size_t)sb.st_size + 1);
	while (p && got < (size_t)sb.st_size) {
		ssize_t r = read(fd, p + got, (size_t)sb.st_size - got);

		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	if (!p)
		return -ENOMEM;
	if (got != (size_t)sb.st_size) {
		free(p);
		return -EIO;
	}
	p[got] = '\0';
	*out = p;
	*len = got;
	return 0;
}

/* Write p to dir/name through a temporary name. 0 or -errno. */
static int write_file(const char *dir, const char *name, const char *p,
		      size_t n)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	unsigned char r[8];
	char rh[17];
	size_t off = 0;
	int fd, rc = 0;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -EIO;
	hex(r, sizeof(r), rh);
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.tmp.%s", dir, rh) >=
		    sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
		    sizeof(dst))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	while (off < n && rc == 0) {
		ssize_t w = write(fd, p + off, n - off);

		if (w < 0)
			rc = -errno;
		else
			off += (size_t)w;
	}
	if (close(fd) && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, dst))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* Read the records in st->dir; remove stale temporary files and tars no
 * record names. At open, before the loop serves. */
static void load(struct snapshot_store *st)
{
	char path[PATH_MAX], key[SNAPSHOT_KEY_MAX + 1];
	struct dirent *de;
	struct stat sb;
	DIR *d = opendir(st->dir);
	time_t now = time(NULL);

	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct snapshot *s;
		char *text = NULL;
		size_t len = 0;

		if (path_of(st, path, sizeof(path), de->d_name, "", ""))
			continue;
		if (strncmp(de->d_name, ".tmp.", 5) == 0) {
			if (lstat(path, &sb) == 0 &&
			    now - sb.st_mtime > STALE_S)
				unlink(path);
			continue;
		}
		if (n < 6 || n - 5 > SNAPSHOT_KEY_MAX ||
		    strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		memcpy(key, de->d_name, n - 5);
		key[n - 5] = '\0';
		if (read_all(path, RECORD_MAX, &text, &len) == 0)
			s = parse_record(key, text, len);
		else
			s = parse_record(key, "", 0);
		free(text);
		if (s)
			link_snap(st, s);
	}
	if (d)
		closedir(d);
	/* A history whose record was never written (its commit failed
	 * midway, or the server died then). */
	d = opendir(st->dir);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		const struct snapshot *s;

		if (n < 7 || n - 6 > SNAPSHOT_KEY_MAX ||
		    strcmp(de->d_name + n - 6, ".ipynb") != 0)
			continue;
		memcpy(key, de->d_name, n - 6);
		key[n - 6] = '\0';
		for (s = st->list; s && strcmp(s->key, key) != 0; s = s->next)
			;
		if (!s &&
		    path_of(st, path, sizeof(path), de->d_name, "", "") == 0 &&
		    lstat(path, &sb) == 0 && now - sb.st_mtime > STALE_S)
			unlink(path);
	}
	if (d)
		closedir(d);
	if (path_of(st, path, sizeof(path), "blobs", "", ""))
		return;
	d = opendir(path);
	while (d && (de = readdir(d))) {
		char sha[65];
		size_t n = strlen(de->d_name);

		if (n != 68 || strcmp(de->d_name + 64, ".tar") != 0)
			continue;
		memcpy(sha, de->d_name, 64);
		sha[64] = '\0';
		if (tar_shared(st, sha, NULL) ||
		    path_of(st, path, sizeof(path), "blobs/", de->d_name, "") ||
		    lstat(path, &sb) || now - sb.st_mtime <= STALE_S)
			continue;
		unlink(path);
	}
	if (d)
		closedir(d);
	recount(st);
}

/* The files of a removed snapshot: its record, history and (unless
 * shared) tar, unlinked on the thread pool. */
struct unlink_job {
	uv_work_t w;
	char paths[3][PATH_MAX];
	int n;
};

static void unlink_work(uv_work_t *w)
{
	struct unlink_job *j = w->data;
	int i;

	for (i = 0; i < j->n; i++)
		if (unlink(j->paths[i]) && errno != ENOENT)
			log_warn("cannot remove %s: %s", j->paths[i],
				 strerror(errno));
}

static void unlink_after(uv_work_t *w, int status)
{
	(void)status;
	free(w->data);
}

/* Take s out of the list (it is freed) and remove its files. */
static void remove_snap(struct snapshot_store *st, struct snapshot *s)
{
	struct unlink_job *j = calloc(1, sizeof(*j));
	struct snapshot **pp;

	for (pp = &st->list; *pp && *pp != s; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = s->next;
	if (j) {
		if (path_of(st, j->paths[j->n], PATH_MAX, s->key, ".json",
			    "") == 0)
			j->n++;
		if (path_of(st, j->paths[j->n], PATH_MAX, s->key, ".ipynb",
			    "") == 0)
			j->n++;
		if (!s->corrupt && !tar_shared(st, s->tar_sha, s) &&
		    st->committing) {
			/* A commit may have found this tar and kept it: it
			 * goes once they are done, if nobody names it. */
			if (st->ndeferred < 16)
				memcpy(st->deferred[st->ndeferred++],
				       s->tar_sha, 65);
		} else if (!s->corrupt && !tar_shared(st, s->tar_sha, s) &&
			   path_of(st, j->paths[j->n], PATH_MAX, "blobs/",
				   s->tar_sha, ".tar") == 0) {
			j->n++;
		}
		j->w.data = j;
		if (uv_queue_work(st->loop, &j->w, unlink_work, unlink_after))
			free(j);
	}
	snap_free(s);
	recount(st);
}

static void sweep_cb(uv_timer_t *t)
{
	struct snapshot_store *st = t->data;
	struct snapshot *s, *next;
	int64_t now = now_ms();

	for (s = st->list; s; s = next) {
		next = s->next;
		if (!s->corrupt && s->expires_ms <= now) {
			log_info("snapshot %s expired", s->key);
			remove_snap(st, s);
		}
	}
}

int snapshot_store_open(uv_loop_t *loop, const char *state_dir,
			const struct snapshot_limits *lim,
			struct snapshot_store **out, struct error *err)
{
	struct snapshot_store *st = calloc(1, sizeof(*st));
	char blobs[PATH_MAX];
	int rc;

	if (!st)
		return error_set(err, -ENOMEM, "out of memory");
	rc = state_dir_subdir(state_dir, "snapshots", st->dir, sizeof(st->dir));
	if (!rc && path_of(st, blobs, sizeof(blobs), "blobs", "", ""))
		rc = -ENAMETOOLONG;
	if (!rc && mkdir(blobs, 0700) && errno != EEXIST)
		rc = -errno;
	if (rc) {
		error_set(err, rc, "cannot use the snapshots' directory: %s",
			  strerror(-rc));
		free(st);
		return rc;
	}
	st->loop = loop;
	st->lim = *lim;
	load(st);
	uv_timer_init(loop, &st->sweep);
	st->sweep.data = st;
	uv_timer_start(&st->sweep, sweep_cb, 0, SWEEP_EVERY_MS);
	uv_unref((uv_handle_t *)&st->sweep);
	*out = st;
	return 0;
}

void snapshot_store_free(struct snapshot_store *st)
{
	struct snapshot *s;

	if (!st)
		return;
	while ((s = st->list)) {
		st->list = s->next;
		snap_free(s);
	}
	free(st);
}

const struct snapshot *snapshot_store_find(const struct snapshot_store *st,
					   const char *owner, const char *id)
{
	const struct snapshot *s;
	int64_t now = now_ms();

	if (!id || !snapshot_id_valid(id))
		return NULL;
	for (s = st->list; s; s = s->next)
		if (strcmp(s->id, id) == 0 &&
		    strcmp(s->owner, owner ? owner : "") == 0 &&
		    (s->corrupt || s->expires_ms > now))
			return s;
	return NULL;
}

const struct snapshot *snapshot_store_next(const struct snapshot_store *st,
					   const struct snapshot *prev)
{
	return prev ? prev->next : st->list;
}

int snapshot_store_uses_packages(const struct snapshot_store *st,
				 const char *key)
{
	const struct snapshot *s;
	size_t i;

	for (s = st->list; s; s = s->next)
		for (i = 0; i < s->npkg; i++)
			if (strcmp(s->pkgs[i], key) == 0)
				return 1;
	return 0;
}

uint64_t snapshot_store_bytes(const struct snapshot_store *st)
{
	return st->bytes;
}

const struct snapshot_limits *
snapshot_store_limits(const struct snapshot_store *st)
{
	return &st->lim;
}

int snapshot_store_delete(struct snapshot_store *st, const char *owner,
			  const char *id, struct error *err)
{
	const struct snapshot *s = snapshot_store_find(st, owner, id);

	if (!s)
		return error_set(err, ERR_SNAPSHOT_NOT_FOUND,
				 "no snapshot '%s'", id ? id : "");
	remove_snap(st, (struct snapshot *)s);
	return 0;
}

/* ---- the writer ------------------------------------------------------ */

/* Remove the tars whose removal waited for the commits (remove_snap),
 * unless a snapshot names them now. */
static void flush_deferred(struct snapshot_store *st)
{
	struct unlink_job *j;
	unsigned i;

	for (i = 0; i < st->ndeferred; i++) {
		if (tar_shared(st, st->deferred[i], NULL))
			continue;
		j = calloc(1, sizeof(*j));
		if (!j)
			break;
		if (path_of(st, j->paths[0], PATH_MAX, "blobs/",
			    st->deferred[i], ".tar") == 0)
			j->n = 1;
		j->w.data = j;
		if (uv_queue_work(st->loop, &j->w, unlink_work, unlink_after))
			free(j);
	}
	st->ndeferred = 0;
}

struct buf {
	unsigned char *p;
	size_t len, cap;
};

/*
 * One job at a time on the thread pool: a piece (inflight, swapped in
 * from pending by the loop), or the commit (the last piece, then the
 * files). What the job is, is decided on the loop when it is queued
 * (job_commit); the worker touches only inflight, the file, the hash and
 * job_err, and the loop reads them once the job is back.
 */
struct snapshot_writer {
	struct snapshot_store *st;
	uv_work_t w;
	int busy;    /* a job is on the thread pool */
	int aborted; /* freed when it comes back */
	int fd;
	int err;     /* the first failure of a job (-errno) */
	int job_err; /* the job's own, the worker's */
	int job_commit;
	char tmp[PATH_MAX];
	EVP_MD_CTX *md;
	struct buf pending, inflight;
	uint64_t taken;
	void (*room_fn)(void *arg);
	void *room_arg;
	/* The commit, asked for by snapshot_writer_commit. */
	int committing;
	uint64_t reserved; /* room held in st->reserved */
	struct snapshot *snap;
	char *history;
	size_t history_len;
	snapshot_done_cb cb;
	void *arg;
};

static void writer_free(struct snapshot_writer *w)
{
	struct snapshot_store *st = w->st;

	if (w->fd >= 0)
		close(w->fd);
	if (w->tmp[0])
		unlink(w->tmp); /* renamed away when committed */
	if (w->reserved) {
		st->reserved -= w->reserved;
		if (--st->committing == 0)
			flush_deferred(st);
	}
	EVP_MD_CTX_free(w->md);
	free(w->pending.p);
	free(w->inflight.p);
	snap_free(w->snap);
	free(w->history);
	free(w);
}

/* The worker: inflight to the file and the hash. */
static int write_piece(struct snapshot_writer *w)
{
	size_t off = 0;

	if (w->fd < 0) {
		w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
		if (w->fd < 0)
			return -errno;
	}
	if (!EVP_DigestUpdate(w->md, w->inflight.p, w->inflight.len))
		return -ENOMEM;
	while (off < w->inflight.len) {
		ssize_t n = write(w->fd, w->inflight.p + off,
				  w->inflight.len - off);

		if (n < 0)
			return -errno;
		off += (size_t)n;
	}
	return 0;
}

/* The worker: the last piece, the tar named by its hash, the history,
 * the record. */
static int commit_work(struct snapshot_writer *w)
{
	struct snapshot *s = w->snap;
	struct snapshot_store *st = w->st;
	char path[PATH_MAX], name[SNAPSHOT_KEY_MAX + 8], *rec;
	unsigned char md[32];
	unsigned int mdlen = 0;
	struct stat sb;
	size_t len = 0;
	int rc = write_piece(w);

	if (rc)
		return rc;
	rc = close(w->fd) ? -errno : 0;
	w->fd = -1;
	if (rc)
		return rc;
	if (!EVP_DigestFinal_ex(w->md, md, &mdlen))
		return -ENOMEM;
	hex(md, 32, s->tar_sha);
	rc = path_of(st, path, sizeof(path), "blobs/", s->tar_sha, ".tar");
	if (rc == 0 && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size == w->taken)
		unlink(w->tmp); /* the same files are kept already */
	else if (rc == 0 && rename(w->tmp, path))
		rc = -errno;
	if (rc)
		return rc;
	w->tmp[0] = '\0';
	if (w->history_len) {
		snprintf(name, sizeof(name), "%s.ipynb", s->key);
		rc = write_file(st->dir, name, w->history, w->history_len);
	}
	if (rc == 0) {
		rec = record_text(s, &len);
		snprintf(name, sizeof(name), "%s.json", s->key);
		rc = rec ? write_file(st->dir, name, rec, len) : -ENOMEM;
		free(rec);
	}
	if (rc && w->history_len) {
		if (path_of(st, path, sizeof(path), s->key, ".ipynb", "") == 0)
			unlink(path);
	}
	return rc;
}

static void writer_work(uv_work_t *req)
{
	struct snapshot_writer *w = req->data;

	w->job_err = w->job_commit ? commit_work(w) : write_piece(w);
}

static void writer_kick(struct snapshot_writer *w);

static void commit_done(struct snapshot_writer *w)
{
	struct snapshot_store *st = w->st;
	struct snapshot *s = w->snap;
	struct error err;
	int rc = w->err ? w->err : w->job_err;

	if (rc) {
		error_set(&err, rc == -ENOSPC ? ERR_NO_SPACE : ERR_SANDBOX,
			  "cannot keep the snapshot: %s", strerror(-rc));
		w->cb(&err, NULL, w->arg);
		writer_free(w);
		return;
	}
	w->snap = NULL;
	link_snap(st, s); /* its id is new: random, and not on disk before */
	recount(st);
	w->cb(NULL, s, w->arg);
	writer_free(w);
}

static void writer_after(uv_work_t *req, int status)
{
	struct snapshot_writer *w = req->data;

	(void)status;
	w->busy = 0;
	w->inflight.len = 0;
	if (w->job_err && !w->err)
		w->err = w->job_err;
	if (w->aborted) {
		writer_free(w);
		return;
	}
	if (w->job_commit) {
		commit_done(w);
		return;
	}
	/* The next piece (or the commit) at once: the reader may be paused,
	 * waiting for room, and write nothing until then. */
	writer_kick(w);
	if (w->room_fn)
		w->room_fn(w->room_arg);
}

static void writer_kick(struct snapshot_writer *w)
{
	struct buf t;

	if (w->busy || w->aborted)
		return;
	if (w->committing && w->err) {
		w->job_commit = 1; /* nothing more goes: commit_done says why */
		commit_done(w);
		return;
	}
	if (!w->pending.len && !w->committing)
		return;
	t = w->inflight;
	w->inflight = w->pending;
	w->pending = t;
	w->pending.len = 0;
	w->job_commit = w->committing;
	w->job_err = 0;
	w->busy = 1;
	w->w.data = w;
	if (uv_queue_work(w->st->loop, &w->w, writer_work, writer_after)) {
		w->busy = 0;
		w->err = -ENOMEM;
		if (w->committing)
			commit_done(w);
	}
}

int snapshot_writer_new(struct snapshot_store *st, struct snapshot_writer **out,
			struct error *err)
{
	struct snapshot_writer *w;
	unsigned char r[8];
	char rh[17];

	if (st->bytes + st->reserved >= st->lim.total_bytes)
		return error_set(
			err, ERR_QUOTA_EXCEEDED,
			"the snapshots hold %llu MiB of the %llu MiB "
			"allowed ([snapshots] total_mb): delete some",
			(unsigned long long)(st->bytes >> 20),
			(unsigned long long)(st->lim.total_bytes >> 20));
	w = calloc(1, sizeof(*w));
	if (!w || getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    !(w->md = EVP_MD_CTX_new()) ||
	    !EVP_DigestInit_ex(w->md, EVP_sha256(), NULL)) {
		if (w)
			EVP_MD_CTX_free(w->md);
		free(w);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	hex(r, sizeof(r), rh);
	w->st = st;
	w->fd = -1;
	if ((size_t)snprintf(w->tmp, sizeof(w->tmp), "%s/.tmp.%s", st->dir,
			     rh) >= sizeof(w->tmp)) {
		EVP_MD_CTX_free(w->md);
		free(w);
		return error_set(err, ERR_SANDBOX,
				 "the state directory's path is too long");
	}
	*out = w;
	return 0;
}

int snapshot_writer_write(struct snapshot_writer *w, const void *p, size_t n,
			  struct error *err)
{
	struct buf *b = &w->pending;

	if (w->err)
		return error_set(
			err, w->err == -ENOSPC ? ERR_NO_SPACE : ERR_SANDBOX,
			"cannot write the snapshot: %s", strerror(-w->err));
	if (n > w->st->lim.max_bytes - w->taken ||
	    w->taken > w->st->lim.max_bytes)
		return error_set(
			err, ERR_TOO_LARGE,
			"the session's files are over %llu MiB, the "
			"most a snapshot keeps ([snapshots] max_mb)",
			(unsigned long long)(w->st->lim.max_bytes >> 20));
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : (size_t)256 << 10;
		unsigned char *q;

		while (cap < b->len + n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			return error_set(err, ERR_SANDBOX, "out of memory");
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	w->taken += n;
	writer_kick(w);
	return 0;
}

size_t snapshot_writer_backlog(const struct snapshot_writer *w)
{
	return w->pending.len + w->inflight.len;
}

void snapshot_writer_on_room(struct snapshot_writer *w, void (*fn)(void *arg),
			     void *arg)
{
	w->room_fn = fn;
	w->room_arg = arg;
}

int snapshot_writer_commit(struct snapshot_writer *w,
			   const struct snapshot_commit *c, snapshot_done_cb cb,
			   void *arg)
{
	struct snapshot_store *st = w->st;
	struct snapshot *s = calloc(1, sizeof(*s));
	unsigned char r[SNAPSHOT_ID_LEN / 2];
	char id[SNAPSHOT_ID_LEN + 1], key[SNAPSHOT_KEY_MAX + 2];
	uint64_t need = w->taken + c->history_len;
	struct error err;
	size_t i;

	if (!s || getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r) ||
	    (c->history_len && !(w->history = malloc(c->history_len)))) {
		free(s);
		cJSON_Delete(c->meta);
		snapshot_writer_abort(w);
		return -ENOMEM;
	}
	hex(r, sizeof(r), id);
	snprintf(key, sizeof(key), "%s%s%s", c->owner ? c->owner : "",
		 c->owner ? "." : "", id);
	set_key(s, key);
	s->created_ms = now_ms();
	s->expires_ms = s->created_ms + (int64_t)st->lim.keep_s * 1000;
	s->tar_bytes = w->taken;
	s->hist_bytes = c->history_len;
	if (c->history_len)
		memcpy(w->history, c->history, c->history_len);
	sha256_hex(c->history_len ? c->history : "", c->history_len,
		   s->hist_sha);
	w->history_len = c->history_len;
	for (i = 0; i < c->npkg && i < SNAPSHOT_MAX_PACKAGES; i++)
		memcpy(s->pkgs[i], c->pkgs[i], PKG_KEY_LEN + 1);
	s->npkg = i;
	s->meta = c->meta ? c->meta : cJSON_CreateObject();
	w->snap = s;
	w->cb = cb;
	w->arg = arg;
	w->room_fn = NULL;
	/* Counted as if its tar were new (its hash is not known yet), with
	 * the room the other commits on their way hold. */
	if (st->bytes + st->reserved + need > st->lim.total_bytes) {
		error_set(&err, ERR_QUOTA_EXCEEDED,
			  "this snapshot (%llu MiB) would take the snapshots "
			  "over the %llu MiB allowed ([snapshots] total_mb): "
			  "delete some",
			  (unsigned long long)(need >> 20),
			  (unsigned long long)(st->lim.total_bytes >> 20));
		cb(&err, NULL, arg);
		snapshot_writer_abort(w);
		return 0;
	}
	w->reserved = need ? need : 1;
	st->reserved += w->reserved;
	st->committing++;
	w->committing = 1;
	writer_kick(w);
	return 0;
}

void snapshot_writer_abort(struct snapshot_writer *w)
{
	if (!w)
		return;
	if (w->busy) {
		w->aborted = 1;
		return;
	}
	writer_free(w);
}

/* ---- reading back ---------------------------------------------------- */

struct text_job {
	uv_work_t w;
	char path[PATH_MAX];
	char sha[65];
	uint64_t bytes;
	char *text;
	size_t len;
	int rc;
	snapshot_text_cb cb;
	void *arg;
};

static void text_work(uv_work_t *req)
{
	struct text_job *j = req->data;
	char sum[65];

	if (j->bytes == 0)
		return;
	j->rc = read_all(j->path, HISTORY_FILE_MAX, &j->text, &j->len);
	/* Gone, too large, or not what was hashed: damaged all the same. */
	if (j->rc == -ENOENT || j->rc == -EFBIG ||
	    (j->rc == 0 &&
	     (j->len != j->bytes || sha256_hex(j->text, j->len, sum) ||
	      strcmp(sum, j->sha) != 0)))
		j->rc = -EBADMSG;
}

static void text_after(uv_work_t *req, int status)
{
	struct text_job *j = req->data;
	struct error err;

	(void)status;
	if (j->rc) {
		error_set(&err,
			  j->rc == -EBADMSG ? ERR_SNAPSHOT_CORRUPT
					    : ERR_SANDBOX,
			  "the snapshot's history %s",
			  j->rc == -EBADMSG ? "does not match its hash"
					    : strerror(-j->rc));
		j->cb(&err, NULL, 0, j->arg);
	} else {
		j->cb(NULL, j->text ? j->text : "", j->len, j->arg);
	}
	free(j->text);
	free(j);
}

int snapshot_store_history(struct snapshot_store *st,
			   const struct snapshot *snap, snapshot_text_cb cb,
			   void *arg)
{
	struct text_job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	path_of(st, j->path, sizeof(j->path), snap->key, ".ipynb", "");
	memcpy(j->sha, snap->hist_sha, sizeof(j->sha));
	j->bytes = snap->hist_bytes;
	j->cb = cb;
	j->arg = arg;
	j->w.data = j;
	if (uv_queue_work(st->loop, &j->w, text_work, text_after)) {
		free(j);
		return -ENOMEM;
	}
	return 0;
}

struct snapshot_reader {
	struct snapshot_store *st;
	uv_work_t w;
	char path[PATH_MAX];
	char sha[65];
	uint64_t bytes, done;
	int fd;
	EVP_MD_CTX *md;
	unsigned char *piece;
	size_t n;
	int rc, eof, busy, freed;
	snapshot_read_cb cb;
	void *arg;
};

static void reader_release(struct snapshot_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	EVP_MD_CTX_free(r->md);
	free(r->piece);
	free(r);
}

static void reader_work(uv_work_t *req)
{
	struct snapshot_reader *r = req->data;
	unsigned char md[32];
	unsigned int mdlen = 0;
	char sum[65];
	ssize_t got;

	r->n = 0;
	if (r->freed)
		return;
	if (r->fd < 0) {
		r->fd = open(r->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (r->fd < 0) {
			r->rc = errno == ENOENT ? -EBADMSG : -errno;
			return;
		}
	}
	got = read(r->fd, r->piece, READ_PIECE);
	if (got < 0) {
		r->rc = -errno;
		return;
	}
	r->n = (size_t)got;
	r->done += (uint64_t)got;
	if (r->done > r->bytes || !EVP_DigestUpdate(r->md, r->piece, r->n)) {
		r->rc = -EBADMSG;
		return;
	}
	if (got > 0 && r->done < r->bytes)
		return;
	/* The end: it must be the tar that was hashed. */
	if (r->done != r->bytes || !EVP_DigestFinal_ex(r->md, md, &mdlen)) {
		r->rc = -EBADMSG;
		return;
	}
	hex(md, 32, sum);
	if (strcmp(sum, r->sha) != 0)
		r->rc = -EBADMSG;
	else
		r->eof = 1;
}

static void reader_after(uv_work_t *req, int status)
{
	struct snapshot_reader *r = req->data;
	struct error err;

	(void)status;
	r->busy = 0;
	if (r->freed) {
		reader_release(r);
		return;
	}
	if (r->rc) {
		error_set(&err,
			  r->rc == -EBADMSG ? ERR_SNAPSHOT_CORRUPT
					    : ERR_SANDBOX,
			  "the snapshot's files %s",
			  r->rc == -EBADMSG ? "do not match their hash (the "
					      "file is damaged or gone)"
					    : strerror(-r->rc));
		r->cb(&err, NULL, 0, 0, r->arg);
		return;
	}
	r->cb(NULL, r->piece, r->n, r->eof, r->arg);
}

int snapshot_reader_new(struct snapshot_store *st, const struct snapshot *snap,
			struct snapshot_reader **out)
{
	struct snapshot_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->piece = malloc(READ_PIECE)) ||
	    !(r->md = EVP_MD_CTX_new()) ||
	    !EVP_DigestInit_ex(r->md, EVP_sha256(), NULL)) {
		if (r) {
			EVP_MD_CTX_free(r->md);
			free(r->piece);
		}
		free(r);
		return -ENOMEM;
	}
	r->st = st;
	r->fd = -1;
	path_of(st, r->path, sizeof(r->path), "blobs/", snap->tar_sha, ".tar");
	memcpy(r->sha, snap->tar_sha, sizeof(r->sha));
	r->bytes = snap->tar_bytes;
	*out = r;
	return 0;
}

int snapshot_reader_next(struct snapshot_reader *r, snapshot_read_cb cb,
			 void *arg)
{
	if (r->busy)
		return -EBUSY;
	r->cb = cb;
	r->arg = arg;
	r->busy = 1;
	r->w.data = r;
	if (uv_queue_work(r->st->loop, &r->w, reader_work, reader_after)) {
		r->busy = 0;
		return -ENOMEM;
	}
	return 0;
}

void snapshot_reader_free(struct snapshot_reader *r)
{
	if (!r)
		return;
	if (r->busy) {
		r->freed = 1;
		return;
	}
	reader_release(r);
}

/* ---- listing a tar (libarchive) ----------------------------------------- */

struct files_job {
	uv_work_t w;
	char path[PATH_MAX];
	size_t max, total;
	cJSON *files;
	int rc;
	char msg[200];
	snapshot_files_cb cb;
	void *arg;
};

static const char *entry_type(mode_t t)
{
	switch (t) {
	case AE_IFREG:
		return "file";
	case AE_IFDIR:
		return "directory";
	case AE_IFLNK:
		return "symlink";
	default:
		return "other";
	}
}

static void files_work(uv_work_t *req)
{
	struct files_job *j = req->data;
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char name[PATH_MAX];
	int r;

	j->files = cJSON_CreateArray();
	if (!a || !j->files) {
		j->rc = -ENOMEM;
		archive_read_free(a);
		return;
	}
	archive_read_support_format_tar(a);
	archive_read_support_format_gnutar(a);
	if (archive_read_open_filename(a, j->path, 64 << 10) != ARCHIVE_OK) {
		j->rc = -EBADMSG;
		snprintf(j->msg, sizeof(j->msg), "%s", archive_error_string(a));
		archive_read_free(a);
		return;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK ||
	       r == ARCHIVE_WARN) {
		const char *p = archive_entry_pathname_utf8(e);
		cJSON *f;

		if (!p)
			p = archive_entry_pathname(e);
		if (p && p[0] == '.' && p[1] == '/')
			p += 2;
		if (!p || !p[0] || strcmp(p, ".") == 0)
			continue;
		/* GNU tar names a directory with a '/' at its end. */
		snprintf(name, sizeof(name), "%s", p);
		if (strlen(name) > 1 && name[strlen(name) - 1] == '/')
			name[strlen(name) - 1] = '\0';
		p = name;
		j->total++;
		if (j->total > j->max)
			continue;
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", p);
		cJSON_AddStringToObject(f, "type",
					entry_type(archive_entry_filetype(e)));
		cJSON_AddNumberToObject(f, "size",
					(double)archive_entry_size(e));
		cJSON_AddItemToArray(j->files, f);
	}
	if (r != ARCHIVE_EOF) {
		j->rc = -EBADMSG;
		snprintf(j->msg, sizeof(j->msg), "%s", archive_error_string(a));
	}
	archive_read_free(a);
}

static void files_after(uv_work_t *req, int status)
{
	struct files_job *j = req->data;
	struct error err;

	(void)status;
	if (j->rc) {
		error_set(&err,
			  j->rc == -EBADMSG ? ERR_SNAPSHOT_CORRUPT
					    : ERR_SANDBOX,
			  "the snapshot's files cannot be read: %s",
			  j->msg[0] ? j->msg : strerror(-j->rc));
		cJSON_Delete(j->files);
		j->cb(&err, NULL, 0, j->arg);
	} else {
		j->cb(NULL, j->files, j->total, j->arg);
	}
	free(j);
}

int snapshot_store_files(struct snapshot_store *st, const struct snapshot *snap,
			 size_t max, snapshot_files_cb cb, void *arg)
{
	struct files_job *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	path_of(st, j->path, sizeof(j->path), "blobs/", snap->tar_sha, ".tar");
	j->max = max;
	j->cb = cb;
	j->arg = arg;
	j->w.data = j;
	if (uv_queue_work(st->loop, &j->w, files_work, files_after)) {
		free(j);
		return -ENOMEM;
	}
	return 0;
}
