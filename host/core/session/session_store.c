/*
 * session_store.c - the state directory slot (see session_store.h).
 */
#include "session_store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util/log.h"
#include "util/state_dir.h"

#define LOG_MODULE "sessions"
/* The state file is small; anything bigger is not ours. */
#define STATE_MAX (4u << 20)

struct session_store {
	uv_loop_t *loop;
	char dir[PATH_MAX];
	char slot[SESSION_SLOT_MAX];
	char path[PATH_MAX + 64]; /* the JSON file */
	char tmp[PATH_MAX + 64];
	int lock_fd;
	/* Background writing: one at a time; next waits its turn. */
	uv_fs_t req;
	int writing;
	int closing;
	char *data; /* being written */
	char *next; /* to write after it */
	uv_file fd;
};

static unsigned fnv(unsigned h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

/* FNV-1a of the working directory (the project the editor opened) and
 * the state directory: two state directories never share a slot name,
 * so their servers never adopt each other's containers. */
static unsigned slot_key(const char *dir)
{
	char cwd[PATH_MAX];

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	return fnv(fnv(fnv(2166136261u, dir), "\n"), cwd);
}

int session_store_open(uv_loop_t *loop, const char *dir,
		       struct session_store **out, struct error *err)
{
	struct session_store *st;
	char lock[PATH_MAX + 64];
	unsigned key, n;
	int fd, rc;

	st = calloc(1, sizeof(*st));
	if (!st)
		return error_set(err, -ENOMEM, "out of memory");
	st->loop = loop;
	st->lock_fd = -1;
	rc = state_dir_resolve(dir, st->dir, sizeof(st->dir));
	key = slot_key(st->dir);
	if (rc) {
		error_set(err, rc, "cannot create %s: %s", st->dir,
			  strerror(-rc));
		free(st);
		return rc;
	}
	for (n = 0; n < 64; n++) {
		snprintf(lock, sizeof(lock), "%s/%08x-%u.lock", st->dir, key,
			 n);
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = -errno;
			error_set(err, rc, "cannot open %s: %s", lock,
				  strerror(-rc));
			free(st);
			return rc;
		}
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		error_set(err, -EBUSY,
			  "all 64 slots in %s are held by running servers",
			  st->dir);
		free(st);
		return -EBUSY;
	}
	st->lock_fd = fd;
	snprintf(st->slot, sizeof(st->slot), "%08x-%u", key, n);
	snprintf(st->path, sizeof(st->path), "%s/%s.json", st->dir, st->slot);
	snprintf(st->tmp, sizeof(st->tmp), "%s/%s.json.tmp", st->dir, st->slot);
	*out = st;
	return 0;
}

const char *session_store_slot(const struct session_store *st)
{
	return st->slot;
}

const char *session_store_path(const struct session_store *st)
{
	return st->path;
}

/* Read once at start-up, before the server serves anyone. */
cJSON *session_store_load(struct session_store *st)
{
	FILE *f = fopen(st->path, "re");
	cJSON *doc = NULL, *arr;
	char *buf;
	size_t n;

	if (f) {
		buf = malloc(STATE_MAX + 1);
		if (buf) {
			n = fread(buf, 1, STATE_MAX, f);
			buf[n] = '\0';
			doc = cJSON_Parse(buf);
			free(buf);
		}
		fclose(f);
		if (!doc)
			log_warn("%s is not valid JSON: sessions keep their "
				 "defaults",
				 st->path);
	}
	arr = cJSON_DetachItemFromObjectCaseSensitive(doc, "sessions");
	cJSON_Delete(doc);
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		arr = cJSON_CreateArray();
	}
	return arr;
}

static void write_next(struct session_store *st);

static void finish_write(struct session_store *st, const char *what, int err)
{
	if (err < 0)
		log_warn("saving sessions to %s: %s: %s", st->path, what,
			 uv_strerror(err));
	free(st->data);
	st->data = NULL;
	st->writing = 0;
	write_next(st);
}

static void renamed_cb(uv_fs_t *req)
{
	struct session_store *st = req->data;
	int err = (int)req->result;

	uv_fs_req_cleanup(req);
	finish_write(st, "rename", err);
}

static void closed_cb(uv_fs_t *req)
{
	struct session_store *st = req->data;
	int err = (int)req->result;

	uv_fs_req_cleanup(req);
	if (err < 0) {
		finish_write(st, "close", err);
		return;
	}
	if (uv_fs_rename(st->loop, req, st->tmp, st->path, renamed_cb))
		finish_write(st, "rename", UV_EIO);
}

static void written_cb(uv_fs_t *req)
{
	struct session_store *st = req->data;
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	if (n < 0 || (size_t)n != strlen(st->data))
		log_warn("saving sessions to %s: short write", st->tmp);
	/* Closed either way; a short file is replaced by the next save. */
	if (uv_fs_close(st->loop, req, st->fd, closed_cb))
		finish_write(st, "close", UV_EIO);
}

static void opened_cb(uv_fs_t *req)
{
	struct session_store *st = req->data;
	uv_buf_t buf;

	st->fd = (uv_file)req->result;
	uv_fs_req_cleanup(req);
	if (st->fd < 0) {
		finish_write(st, "open", st->fd);
		return;
	}
	buf = uv_buf_init(st->data, (unsigned)strlen(st->data));
	if (uv_fs_write(st->loop, req, st->fd, &buf, 1, 0, written_cb))
		finish_write(st, "write", UV_EIO);
}

static void write_next(struct session_store *st)
{
	if (st->writing || !st->next) {
		if (!st->writing && st->closing) {
			if (st->lock_fd >= 0)
				close(st->lock_fd);
			free(st);
		}
		return;
	}
	st->data = st->next;
	st->next = NULL;
	st->writing = 1;
	st->req.data = st;
	if (uv_fs_open(st->loop, &st->req, st->tmp,
		       O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600,
		       opened_cb))
		finish_write(st, "open", UV_EIO);
}

static char *render(cJSON *doc)
{
	cJSON *root = cJSON_CreateObject();
	char *text;

	cJSON_AddNumberToObject(root, "version", 1);
	cJSON_AddItemToObject(root, "sessions", doc);
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

void session_store_save(struct session_store *st, cJSON *doc)
{
	char *text = render(doc);

	if (!text)
		return;
	free(st->next);
	st->next = text;
	write_next(st);
}

void session_store_close(struct session_store *st, cJSON *doc)
{
	if (!st)
		return;
	/* Queued like any save: the loop runs until file requests finish,
	 * and the lock is released only after the last write. */
	if (doc) {
		char *text = render(doc);

		if (text) {
			free(st->next);
			st->next = text;
		}
	}
	st->closing = 1;
	write_next(st); /* frees now, or after the writes in flight */
}
