/*
 * audit.c - the hash-chained audit log (audit.h).
 *
 * The loop builds each line, hashes it into the chain and appends it to a
 * pending buffer; one job at a time on the thread pool writes the pending
 * lines, rotating the file when it passes its size, and records the
 * chain's head (last seq and hash) in <file>.head, so that a change to the
 * last line is caught too.
 */
#include "audit.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/state_dir.h"
#include "util/log.h"

#define LOG_MODULE "audit"
#define TAIL_READ 65536

struct audit {
	uv_loop_t *loop;
	char path[PATH_MAX + 80];
	char instance[64];
	char client[160];
	unsigned keep;
	uint64_t max_bytes;
	int store_code;
	/* the chain, on the loop */
	char last[AUDIT_HASH_HEX + 1];
	uint64_t seq;
	/* lines not yet handed to the writer */
	char *pend;
	size_t pend_len, pend_cap;
	/* the writer (thread pool): only it touches fd and size */
	uv_work_t work;
	int writing;
	char *batch;
	size_t batch_len;
	char batch_head[AUDIT_HASH_HEX + 32];
	/* the last line rotated away (its seq and hash), or none: the
	 * second line of the .head, so that verify knows where the kept
	 * chain must start */
	char from[AUDIT_HASH_HEX + 32];
	int fd;
	uint64_t size;
	int write_err;
	int reported;
	int closing;
	void (*done)(void *);
	void *done_arg;
	/* audit_flush: waiting for the writer to be idle */
	struct {
		void (*cb)(void *);
		void *arg;
	} flush[16];
	size_t nflush;
};

void audit_sha256_hex(const void *data, size_t len,
		      char out[AUDIT_HASH_HEX + 1])
{
	static const char hex[] = "0123456789abcdef";
	unsigned char md[32];
	unsigned int n = 0;
	size_t i;

	EVP_Digest(data, len, md, &n, EVP_sha256(), NULL);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[AUDIT_HASH_HEX] = '\0';
}

/* ---- opening: where the chain stands ---- */

static const char zeros[AUDIT_HASH_HEX + 1] =
	"0000000000000000000000000000000000000000000000000000000000000000";

/* The last line of the file at fd (without its newline), into buf; *whole
 * says whether the file ends with a newline. 0, or -ENOENT when empty. */
static int last_line(int fd, char *buf, size_t size, int *whole)
{
	struct stat st;
	off_t from;
	ssize_t n;
	char *end, *start;

	if (fstat(fd, &st) || st.st_size == 0)
		return -ENOENT;
	from = st.st_size > (off_t)(size - 1) ? st.st_size - (off_t)(size - 1)
					      : 0;
	n = pread(fd, buf, size - 1, from);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	*whole = buf[n - 1] == '\n';
	end = buf + n - (*whole ? 1 : 0);
	*end = '\0';
	start = strrchr(buf, '\n');
	start = start ? start + 1 : buf;
	memmove(buf, start, (size_t)(end - start) + 1);
	return 0;
}

/* The seq and hash of the last line of the file at path: 0, -ENOENT
 * when it is missing or empty. buf: TAIL_READ bytes. */
static int last_of(const char *path, char *buf, struct audit_anchor *out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), whole = 1, rc;

	if (fd < 0)
		return -errno;
	rc = last_line(fd, buf, TAIL_READ, &whole);
	close(fd);
	if (rc)
		return rc;
	{
		cJSON *j = cJSON_Parse(buf);
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(j, "seq");

		out->seq = cJSON_IsNumber(seq) ? (uint64_t)seq->valuedouble : 0;
		cJSON_Delete(j);
	}
	audit_sha256_hex(buf, strlen(buf), out->hash);
	return 0;
}

/* The .head's record of the lines rotated away ("from SEQ HASH"; "from
 * 0 <zeros>" before any was), into from ("" when it has none). Returns 0
 * without a .head, 1 with one of an older server (no "from" line), 2
 * with a "from" line. */
static int read_from(const char *path, char *from, size_t size)
{
	char name[PATH_MAX + 112], line[AUDIT_HASH_HEX + 64];
	int rc = 1;
	FILE *f;

	from[0] = '\0';
	snprintf(name, sizeof(name), "%s.head", path);
	f = fopen(name, "re");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && fgets(line, sizeof(line), f) &&
	    strncmp(line, "from ", 5) == 0) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(from, size, "%.*s", (int)size - 1, line + 5);
		rc = 2;
	}
	fclose(f);
	return rc;
}

/* A .head of an older server has no "from" line: take the kept chain's
 * start as found, once (the oldest file's first line), so that a log
 * rotated past keep before the upgrade still verifies. */
static void from_as_found(struct audit *a, char *buf)
{
	char name[PATH_MAX + 112];
	unsigned i;
	FILE *f = NULL;

	for (i = a->keep; i >= 1 && !f; i--) {
		snprintf(name, sizeof(name), "%s.%u", a->path, i);
		f = fopen(name, "re");
	}
	if (!f)
		f = fopen(a->path, "re");
	if (!f)
		return;
	if (fgets(buf, TAIL_READ, f)) {
		cJSON *j = cJSON_Parse(buf);
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(j, "seq");
		const cJSON *prev = cJSON_GetObjectItemCaseSensitive(j, "prev");

		if (cJSON_IsNumber(seq) && seq->valuedouble > 1 &&
		    cJSON_IsString(prev) &&
		    strlen(prev->valuestring) == AUDIT_HASH_HEX) {
			snprintf(a->from, sizeof(a->from), "%" PRIu64 " %s",
				 (uint64_t)seq->valuedouble - 1,
				 prev->valuestring);
			log_warn("audit log %s: its .head, from an older "
				 "server, does not record the lines rotated "
				 "away; the kept chain is taken to start at "
				 "seq %" PRIu64 " as found",
				 a->path, (uint64_t)seq->valuedouble);
		}
		cJSON_Delete(j);
	}
	fclose(f);
}

static int open_locked(const char *path, int *fd_out)
{
	int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	*fd_out = fd;
	return 0;
}

int audit_open(uv_loop_t *loop, const struct config *cfg, const char *instance,
	       struct audit **out, struct error *err)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 80];
	static char tail[TAIL_READ];
	struct audit *a;
	struct stat st;
	int rc, whole = 1;
	unsigned i;

	*out = NULL;
	if (cfg->audit_file && strcmp(cfg->audit_file, "none") == 0)
		return 0;
	a = calloc(1, sizeof(*a));
	if (!a)
		return error_set(err, -ENOMEM, "out of memory");
	a->loop = loop;
	a->fd = -1;
	a->keep = cfg->audit_keep;
	a->max_bytes = (uint64_t)cfg->audit_max_kb << 10;
	a->store_code = cfg->audit_store_code != 0;
	snprintf(a->instance, sizeof(a->instance), "%s", instance);
	/* The file, and its directory made if missing. */
	rc = audit_config_path(cfg, a->path, sizeof(a->path));
	if (!rc) {
		snprintf(tmp, sizeof(tmp), "%s", a->path);
		rc = state_dir_resolve(dirname(tmp), dir, sizeof(dir));
	}
	if (rc) {
		error_set(err, rc, "cannot make the directory of %s: %s",
			  a->path, strerror(-rc));
		free(a);
		return rc;
	}
	rc = open_locked(a->path, &a->fd);
	/* Another server of this state directory writes audit.log: one
	 * chain each, in the first file no running server holds. */
	for (i = 2; rc == -EWOULDBLOCK && !cfg->audit_file && i <= 16; i++) {
		snprintf(a->path, sizeof(a->path), "%s/audit-%u.log", dir, i);
		rc = open_locked(a->path, &a->fd);
	}
	if (rc) {
		error_set(err, rc, "cannot open %s: %s", a->path,
			  strerror(-rc));
		free(a);
		return rc;
	}
	memset(a->last, '0', AUDIT_HASH_HEX);
	a->last[AUDIT_HASH_HEX] = '\0';
	if (read_from(a->path, a->from, sizeof(a->from)) == 1)
		from_as_found(a, tail);
	if (!a->from[0])
		snprintf(a->from, sizeof(a->from), "0 %s", zeros);
	if (last_line(a->fd, tail, sizeof(tail), &whole) != 0) {
		/* An empty file after a rotation (a crash between the rename
		 * and the first line): the chain goes on from the rotated
		 * one. */
		struct audit_anchor prev = {0};
		char rotated[PATH_MAX + 112];

		snprintf(rotated, sizeof(rotated), "%s.1", a->path);
		if (last_of(rotated, tail, &prev) == 0) {
			a->seq = prev.seq;
			memcpy(a->last, prev.hash, sizeof(a->last));
		}
	} else {
		cJSON *j = cJSON_Parse(tail);
		const cJSON *seq = cJSON_GetObjectItemCaseSensitive(j, "seq");

		audit_sha256_hex(tail, strlen(tail), a->last);
		if (cJSON_IsNumber(seq))
			a->seq = (uint64_t)seq->valuedouble;
		cJSON_Delete(j);
		/* A line cut short by a crash: the next starts on its own
		 * line, and verify reports the cut one. */
		if (!whole && write(a->fd, "\n", 1) != 1)
			log_warn("cannot end the last line of %s", a->path);
	}
	a->size = fstat(a->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	*out = a;
	return 0;
}

int audit_config_path(const struct config *cfg, char *buf, size_t size)
{
	char dir[PATH_MAX];
	int rc;

	if (cfg->audit_file && strcmp(cfg->audit_file, "none") == 0)
		return -ENOENT;
	if (cfg->audit_file) {
		snprintf(buf, size, "%s", cfg->audit_file);
		return 0;
	}
	rc = state_dir_resolve(cfg->state_dir, dir, sizeof(dir));
	if (rc)
		return rc;
	snprintf(buf, size, "%s/audit.log", dir);
	return 0;
}

const char *audit_path(const struct audit *a)
{
	return a ? a->path : "";
}

void audit_set_client(struct audit *a, const char *client)
{
	if (a)
		snprintf(a->client, sizeof(a->client), "%s", client);
}

int audit_stores_code(const struct audit *a)
{
	return a && a->store_code;
}

/* ---- writing ---- */

/* Rename path.<keep-1> ... path.1 and path one up; open a new path. On the
 * thread pool. */
static int rotate(struct audit *a)
{
	char from[PATH_MAX + 112], to[PATH_MAX + 112];
	struct audit_anchor dropped = {0};
	unsigned i;
	int fd;

	/* path.<keep> is about to be overwritten: its last line is where the
	 * kept chain will start from. */
	snprintf(from, sizeof(from), "%s.%u", a->path, a->keep ? a->keep : 1);
	{
		char *buf = malloc(TAIL_READ);

		if (buf && last_of(from, buf, &dropped) == 0)
			snprintf(a->from, sizeof(a->from), "%" PRIu64 " %s",
				 dropped.seq, dropped.hash);
		free(buf);
	}
	for (i = a->keep; i > 1; i--) {
		snprintf(from, sizeof(from), "%s.%u", a->path, i - 1);
		snprintf(to, sizeof(to), "%s.%u", a->path, i);
		if (rename(from, to) && errno != ENOENT)
			return -errno;
	}
	snprintf(to, sizeof(to), "%s.1", a->path);
	if (rename(a->path, to))
		return -errno;
	fd = open(a->path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		/* nobody else opens a rotated-to name: cannot happen */
	}
	close(a->fd);
	a->fd = fd;
	a->size = 0;
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void work_cb(uv_work_t *w)
{
	struct audit *a = w->data;
	const char *p = a->batch, *end = a->batch + a->batch_len;
	char head[PATH_MAX + 112];
	int rc = 0;
	FILE *f;

	while (p < end && !rc) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)(nl - p) + 1;

		if (a->size && a->size + n > a->max_bytes)
			rc = rotate(a);
		if (!rc)
			rc = write_all(a->fd, p, n);
		a->size += n;
		p += n;
	}
	/* The head: the last seq and hash, so that the last line is
	 * checked too. Written whole, then renamed over the old one. */
	snprintf(head, sizeof(head), "%s.head.tmp", a->path);
	if (!rc && (f = fopen(head, "we"))) {
		fprintf(f, "%s\n", a->batch_head);
		fprintf(f, "from %s\n", a->from);
		if (fclose(f) == 0) {
			char final[PATH_MAX + 112];

			snprintf(final, sizeof(final), "%s.head", a->path);
			if (rename(head, final))
				rc = -errno;
		}
	}
	a->write_err = rc;
}

static void kick(struct audit *a);

static void after_cb(uv_work_t *w, int status)
{
	struct audit *a = w->data;

	a->writing = 0;
	free(a->batch);
	a->batch = NULL;
	if ((status || a->write_err) && !a->reported) {
		a->reported = 1;
		log_error("writing the audit log %s: %s", a->path,
			  strerror(status ? ECANCELED : -a->write_err));
	}
	kick(a);
}

static void finish(struct audit *a)
{
	void (*done)(void *) = a->done;
	void *arg = a->done_arg;

	if (a->fd >= 0)
		close(a->fd);
	free(a->pend);
	free(a);
	if (done)
		done(arg);
}

static void kick(struct audit *a)
{
	if (a->writing)
		return;
	if (!a->pend_len) {
		while (a->nflush) {
			a->nflush--;
			a->flush[a->nflush].cb(a->flush[a->nflush].arg);
		}
		if (a->closing)
			finish(a);
		return;
	}
	a->batch = a->pend;
	a->batch_len = a->pend_len;
	snprintf(a->batch_head, sizeof(a->batch_head), "%" PRIu64 " %s", a->seq,
		 a->last);
	a->pend = NULL;
	a->pend_len = a->pend_cap = 0;
	a->work.data = a;
	a->writing = 1;
	if (uv_queue_work(a->loop, &a->work, work_cb, after_cb)) {
		/* No thread pool: write here rather than lose the lines. */
		work_cb(&a->work);
		after_cb(&a->work, 0);
	}
}

void audit_event(struct audit *a, cJSON *ev)
{
	cJSON *line, *c;
	char now[64], *text;
	size_t n;

	if (!a || a->closing || !ev) {
		cJSON_Delete(ev);
		return;
	}
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		iso_time_ms((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
			    now, sizeof(now));
	}
	line = cJSON_CreateObject();
	cJSON_AddNumberToObject(line, "seq", (double)++a->seq);
	cJSON_AddStringToObject(line, "time", now);
	cJSON_AddStringToObject(line, "instance", a->instance);
	if (a->client[0])
		cJSON_AddStringToObject(line, "client", a->client);
	while ((c = ev->child)) {
		cJSON_DetachItemViaPointer(ev, c);
		cJSON_AddItemToObject(line, c->string, c);
	}
	cJSON_Delete(ev);
	cJSON_AddStringToObject(line, "prev", a->last);
	text = cJSON_PrintUnformatted(line);
	cJSON_Delete(line);
	if (!text)
		return;
	n = strlen(text);
	audit_sha256_hex(text, n, a->last);
	if (a->pend_len + n + 1 > a->pend_cap) {
		size_t cap = a->pend_cap ? a->pend_cap * 2 : 4096;
		char *p;

		while (cap < a->pend_len + n + 1)
			cap *= 2;
		p = realloc(a->pend, cap);
		if (!p) {
			cJSON_free(text);
			return;
		}
		a->pend = p;
		a->pend_cap = cap;
	}
	memcpy(a->pend + a->pend_len, text, n);
	a->pend[a->pend_len + n] = '\n';
	a->pend_len += n + 1;
	cJSON_free(text);
	kick(a);
}

void audit_flush(struct audit *a, void (*cb)(void *arg), void *arg)
{
	if (!a || (!a->writing && !a->pend_len) ||
	    a->nflush == sizeof(a->flush) / sizeof(a->flush[0])) {
		cb(arg);
		return;
	}
	a->flush[a->nflush].cb = cb;
	a->flush[a->nflush].arg = arg;
	a->nflush++;
}

void audit_head(const struct audit *a, struct audit_anchor *out)
{
	memset(out, 0, sizeof(*out));
	memset(out->hash, '0', AUDIT_HASH_HEX);
	if (a) {
		out->seq = a->seq;
		memcpy(out->hash, a->last, sizeof(out->hash));
	}
}

unsigned audit_keep(const struct audit *a)
{
	return a ? a->keep : 0;
}

void audit_close(struct audit *a, void (*done)(void *arg), void *arg)
{
	if (!a) {
		if (done)
			done(arg);
		return;
	}
	a->closing = 1;
	a->done = done;
	a->done_arg = arg;
	kick(a);
}

/* ---- reading ---- */

size_t audit_files(const char *path, unsigned keep, char ***out)
{
	char **v = calloc((size_t)keep + 2, sizeof(*v));
	char name[PATH_MAX + 112];
	size_t n = 0;
	unsigned i;

	*out = v;
	if (!v)
		return 0;
	for (i = keep; i >= 1; i--) {
		snprintf(name, sizeof(name), "%s.%u", path, i);
		if (access(name, R_OK) == 0)
			v[n++] = strdup(name);
	}
	if (access(path, R_OK) == 0)
		v[n++] = strdup(path);
	return n;
}

void audit_files_free(char **files, size_t n)
{
	size_t i;

	for (i = 0; files && i < n; i++)
		free(files[i]);
	free(files);
}

/* Call fn on every line of the files, in order (without its newline;
 * whole: it had one). Stops when fn returns non-zero. */
typedef int (*line_fn)(const char *file, size_t lineno, char *line, size_t len,
		       int whole, void *arg);

static int each_line(char *const *files, size_t n, line_fn fn, void *arg)
{
	char *line = NULL;
	size_t cap = 0, i;
	ssize_t len;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		FILE *f = fopen(files[i], "re");
		size_t no = 0;

		if (!f) {
			rc = -errno;
			break;
		}
		while (!rc && (len = getline(&line, &cap, f)) > 0) {
			int whole = line[len - 1] == '\n';

			if (whole)
				line[--len] = '\0';
			rc = fn(files[i], ++no, line, (size_t)len, whole, arg);
		}
		fclose(f);
	}
	free(line);
	return rc < 0 ? rc : 0;
}

int audit_anchor_parse(const char *s, struct audit_anchor *a)
{
	char *end;
	size_t i;

	memset(a, 0, sizeof(*a));
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	a->seq = strtoull(s, &end, 10);
	if (errno || *end != ':' || a->seq == 0)
		return -EINVAL;
	end++;
	for (i = 0; i < AUDIT_HASH_HEX; i++) {
		char c = end[i];

		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return -EINVAL;
		a->hash[i] = c;
	}
	return end[AUDIT_HASH_HEX] ? -EINVAL : 0;
}

int audit_last(char *const *files, size_t n, struct audit_anchor *a)
{
	char *buf = malloc(TAIL_READ);
	int rc = -ENOENT;

	if (!buf)
		return -ENOMEM;
	while (n-- > 0 && rc == -ENOENT)
		rc = last_of(files[n], buf, a);
	free(buf);
	return rc;
}

struct verify_ctx {
	struct audit_verdict *v;
	const struct audit_anchor *anchor;
	const char *cur; /* the file of the line before */
	char prev[AUDIT_HASH_HEX + 1];
	char first_prev[AUDIT_HASH_HEX + 1];
	int have_prev;
	uint64_t last_seq;
};

static int broken(struct verify_ctx *x, const char *file, size_t no,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int broken(struct verify_ctx *x, const char *file, size_t no,
		  const char *fmt, ...)
{
	va_list ap;

	x->v->ok = 0;
	snprintf(x->v->file, sizeof(x->v->file), "%s", file);
	x->v->line = no;
	va_start(ap, fmt);
	vsnprintf(x->v->reason, sizeof(x->v->reason), fmt, ap);
	va_end(ap);
	return 1;
}

static int verify_line(const char *file, size_t no, char *line, size_t len,
		       int whole, void *arg)
{
	struct verify_ctx *x = arg;
	char hash[AUDIT_HASH_HEX + 1];
	cJSON *j;
	const cJSON *prev, *seq;
	uint64_t s = 0;
	int bad = 0, across = x->cur && strcmp(x->cur, file) != 0;

	x->v->lines++;
	if (!whole)
		return broken(x, file, no, "the line is cut short");
	audit_sha256_hex(line, len, hash);
	j = cJSON_ParseWithLength(line, len);
	prev = cJSON_GetObjectItemCaseSensitive(j, "prev");
	seq = cJSON_GetObjectItemCaseSensitive(j, "seq");
	if (cJSON_IsNumber(seq))
		s = (uint64_t)seq->valuedouble;
	if (!cJSON_IsString(prev) || !cJSON_IsNumber(seq))
		bad = broken(x, file, no,
			     "not an audit record (JSON with seq "
			     "and prev)");
	else if (x->have_prev && strcmp(prev->valuestring, x->prev) != 0)
		bad = across ? broken(x, file, no,
				      "its prev is not the hash of the last "
				      "line of %s: a file of the rotation is "
				      "missing, or the end of %s was changed",
				      x->cur, x->cur)
			     : broken(x, file, no,
				      "its prev is not the hash of the line "
				      "before: that line was changed, or "
				      "lines were removed or reordered");
	else if (x->have_prev && s != x->last_seq + 1)
		bad = broken(x, file, no,
			     "its seq %" PRIu64 " does not follow the line "
			     "before (%" PRIu64 "): lines were renumbered",
			     s, x->last_seq);
	else if (!x->have_prev && s == 1 &&
		 strcmp(prev->valuestring, zeros) != 0)
		bad = broken(x, file, no,
			     "it is seq 1 but its prev is not all zeros: the "
			     "lines were renumbered");
	else if (!x->have_prev && s != 1 &&
		 strcmp(prev->valuestring, zeros) == 0)
		bad = broken(x, file, no,
			     "its prev is all zeros, the start of a chain, "
			     "but its seq is %" PRIu64
			     ", not 1: the lines before it were removed",
			     s);
	else if (x->anchor && s == x->anchor->seq &&
		 strcmp(hash, x->anchor->hash) != 0)
		bad = broken(x, file, no,
			     "its hash is not the anchor's (%" PRIu64
			     ":%.12s...): the line was changed, or the log "
			     "was rewritten from there",
			     x->anchor->seq, x->anchor->hash);
	if (!bad) {
		if (!x->have_prev) {
			x->v->first_seq = s;
			snprintf(x->first_prev, sizeof(x->first_prev), "%s",
				 prev->valuestring);
		}
		if (x->anchor && s == x->anchor->seq)
			x->v->anchored = 1;
		x->last_seq = s;
	}
	cJSON_Delete(j);
	memcpy(x->prev, hash, sizeof(x->prev));
	x->have_prev = 1;
	x->cur = file;
	return bad;
}

/* The number after the log's name in a rotated file's name (path.3: 3),
 * 0 for the log itself, -1 for another name. */
static long rotation_of(const char *log, const char *file)
{
	size_t n = strlen(log);
	char *end;
	long k;

	if (strncmp(file, log, n) != 0)
		return -1;
	if (!file[n])
		return 0;
	if (file[n] != '.' || file[n + 1] < '1' || file[n + 1] > '9')
		return -1;
	k = strtol(file + n + 1, &end, 10);
	return *end ? -1 : k;
}

/* The .head of the file log: its first line into head (""), its "from"
 * line into from (""). 0, or -ENOENT without one. */
static int read_head(const char *log, char *head, size_t hsize, char *from,
		     size_t fsize)
{
	char name[PATH_MAX + 112];
	FILE *f;

	head[0] = from[0] = '\0';
	snprintf(name, sizeof(name), "%s.head", log);
	f = fopen(name, "re");
	if (!f)
		return -ENOENT;
	if (fgets(head, (int)hsize, f))
		head[strcspn(head, "\n")] = '\0';
	fclose(f);
	read_from(log, from, fsize);
	return 0;
}

int audit_verify(char *const *files, size_t n,
		 const struct audit_verify_opts *o, struct audit_verdict *v)
{
	static const struct audit_verify_opts none = {0};
	struct verify_ctx x = {.v = v};
	char head[AUDIT_HASH_HEX + 64], from[AUDIT_HASH_HEX + 32];
	char got[AUDIT_HASH_HEX + 32], name[PATH_MAX + 112];
	const char *log;
	size_t i;
	int rc, have_head, legacy = 0;

	if (!o)
		o = &none;
	x.anchor = o->anchor;
	memset(v, 0, sizeof(*v));
	v->ok = 1;
	/* The whole log: every file of the rotation from the oldest there
	 * down to the current one. */
	for (i = 0; o->log && i < n; i++) {
		long k = rotation_of(o->log, files[i]);
		long want =
			i + 1 < n ? rotation_of(o->log, files[i + 1]) + 1 : 0;

		if (k < 0)
			continue;
		if (i + 1 == n && k != 0) {
			broken(&x, o->log, 0,
			       "missing: the log's current file was removed");
			return 0;
		}
		if (i + 1 < n && k != want) {
			snprintf(name, sizeof(name), "%s.%ld", o->log, k - 1);
			broken(&x, name, 0,
			       "missing: a file of the rotation was removed "
			       "(the files on both sides of it are there)");
			return 0;
		}
	}
	rc = each_line(files, n, verify_line, &x);
	if (rc || !v->ok || !n)
		return rc;
	v->last_seq = x.last_seq;
	memcpy(v->head, x.prev, sizeof(v->head));
	/* The head the writer recorded, beside the log's current file (or
	 * the last file given). */
	log = o->log ? o->log : files[n - 1];
	have_head = read_head(log, head, sizeof(head), from, sizeof(from)) == 0;
	if (have_head && !from[0])
		legacy = 1;
	snprintf(got, sizeof(got), "%" PRIu64 " %s", x.last_seq, x.prev);
	/* Its start: the first line ever, or the line after those rotated
	 * away. */
	if (x.have_prev && v->first_seq == 1)
		v->start = AUDIT_START_FIRST;
	else if (x.have_prev && have_head && from[0]) {
		char want[AUDIT_HASH_HEX + 32];

		snprintf(want, sizeof(want), "%" PRIu64 " %s", v->first_seq - 1,
			 x.first_prev);
		if (strcmp(want, from) == 0)
			v->start = AUDIT_START_ROTATED;
	}
	if (o->log && x.have_prev && v->start == AUDIT_START_OPEN) {
		broken(&x, files[0], 1,
		       "the chain starts at seq %" PRIu64
		       ", not at seq 1 nor after the lines rotated away "
		       "(%s.head%s): its first lines, or its oldest files, "
		       "were removed",
		       v->first_seq, o->log,
		       legacy ? ", of an older server: a server started on "
				"this log records them"
			      : "");
		return 0;
	}
	if (have_head && head[0]) {
		if (strcmp(head, got) != 0) {
			broken(&x, log, 0,
			       "the last line is not the one the server "
			       "wrote last (its .head differs): it was "
			       "changed or removed");
			return 0;
		}
		v->end_checked = 1;
	} else if (o->log && x.have_prev) {
		broken(&x, log, 0,
		       "no %s.head, which the server writes after every "
		       "line: it was removed, and the end of the log cannot "
		       "be checked without an anchor",
		       log);
		return 0;
	}
	if (o->anchor && !v->anchored) {
		if (x.last_seq < o->anchor->seq)
			broken(&x, files[n - 1], 0,
			       "the chain ends at seq %" PRIu64
			       ", before the anchor's seq %" PRIu64
			       ": lines were removed from its end",
			       x.last_seq, o->anchor->seq);
		else
			broken(&x, files[0], 0,
			       "the anchor's seq %" PRIu64
			       " is older than the first line kept (seq "
			       "%" PRIu64 "): it cannot be checked",
			       o->anchor->seq, v->first_seq);
	}
	return 0;
}

int audit_is_violation(const cJSON *ev)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ev, "violation"));
}

struct read_ctx {
	const char *since;
	const char *tenant;
	int violations;
	size_t limit;
	cJSON **ring;
	size_t n, next;
};

static int read_line(const char *file, size_t no, char *line, size_t len,
		     int whole, void *arg)
{
	struct read_ctx *x = arg;
	cJSON *j;
	const cJSON *t;

	(void)file;
	(void)no;
	if (!whole || !(j = cJSON_ParseWithLength(line, len)))
		return 0;
	t = cJSON_GetObjectItemCaseSensitive(j, "time");
	if ((x->since[0] &&
	     (!cJSON_IsString(t) || strcmp(t->valuestring, x->since) < 0)) ||
	    (x->violations && !audit_is_violation(j)) ||
	    (x->tenant && !audit_of_tenant(j, x->tenant))) {
		cJSON_Delete(j);
		return 0;
	}
	cJSON_Delete(x->ring[x->next]);
	x->ring[x->next] = j;
	x->next = (x->next + 1) % x->limit;
	if (x->n < x->limit)
		x->n++;
	return 0;
}

int audit_of_tenant(const cJSON *ev, const char *tenant)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "tenant");
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(ev, "session");
	size_t n = strlen(tenant);

	if (cJSON_IsString(t))
		return strcmp(t->valuestring, tenant) == 0;
	return cJSON_IsString(s) && strncmp(s->valuestring, tenant, n) == 0 &&
	       s->valuestring[n] == '.';
}

cJSON *audit_read(char *const *files, size_t n, const char *since,
		  const char *filter, const char *tenant, size_t limit)
{
	struct read_ctx x = {
		.since = since ? since : "",
		.tenant = tenant,
		.violations = filter && strcmp(filter, "violations") == 0,
		.limit = limit ? limit : 1,
	};
	cJSON *arr;
	size_t i;

	x.ring = calloc(x.limit, sizeof(cJSON *));
	if (!x.ring)
		return NULL;
	if (each_line(files, n, read_line, &x)) {
		for (i = 0; i < x.limit; i++)
			cJSON_Delete(x.ring[i]);
		free(x.ring);
		return NULL;
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < x.n; i++) {
		size_t k = (x.next + x.limit - x.n + i) % x.limit;

		cJSON_AddItemToArray(arr, x.ring[k]);
		x.ring[k] = NULL;
	}
	for (i = 0; i < x.limit; i++)
		cJSON_Delete(x.ring[i]);
	free(x.ring);
	return arr;
}
