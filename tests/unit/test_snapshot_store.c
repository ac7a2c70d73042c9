/* core/records/snapshot_store.c on a real directory: a snapshot written
 * in pieces and read back with its hash checked, its history and its
 * listing (a tar made by the host's tar); two of the same files sharing
 * one tar, counted once; owners kept apart; the caps (one snapshot, all
 * of them); a damaged tar, a tar cut short and a damaged record refused;
 * the records read again by the next store; expiry. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "core/records/snapshot_store.h"
#include "testlib.h"

static uv_loop_t *loop;
static char state[64];
static char *tar_bytes;
static size_t tar_len;

struct got {
	int done;
	int code;
	char id[SNAPSHOT_ID_LEN + 1];
	char text[256];
	size_t len, read;
	int eof;
	cJSON *files;
	size_t total;
};

static void wait_for(struct got *g)
{
	while (!g->done)
		uv_run(loop, UV_RUN_ONCE);
}

static void close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

static void close_store(struct snapshot_store *st)
{
	uv_walk(loop, close_cb, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	snapshot_store_free(st);
}

static void done_cb(const struct error *err, const struct snapshot *sn,
		    void *arg)
{
	struct got *g = arg;

	g->done = 1;
	g->code = err ? err->code : 0;
	if (sn)
		memcpy(g->id, sn->id, sizeof(g->id));
}

static const char PKG[PKG_KEY_LEN + 1] =
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/* A snapshot of tar_bytes (in pieces of 1000) by owner: its id, or the
 * error's code as g->code. */
static int take(struct snapshot_store *st, const char *owner,
		const char *history, struct got *g)
{
	struct snapshot_writer *w;
	struct snapshot_commit c = {0};
	const char(*pk)[PKG_KEY_LEN + 1] = &PKG;
	struct error err;
	size_t off;
	int rc;

	memset(g, 0, sizeof(*g));
	rc = snapshot_writer_new(st, &w, &err);
	if (rc)
		return err.code;
	for (off = 0; off < tar_len; off += 1000) {
		rc = snapshot_writer_write(
			w, tar_bytes + off,
			tar_len - off < 1000 ? tar_len - off : 1000, &err);
		if (rc) {
			snapshot_writer_abort(w);
			return err.code;
		}
	}
	c.owner = owner;
	c.meta = cJSON_CreateObject();
	cJSON_AddStringToObject(c.meta, "language", "bash");
	c.history = history;
	c.history_len = history ? strlen(history) : 0;
	c.pkgs = pk;
	c.npkg = 1;
	CHECK(snapshot_writer_commit(w, &c, done_cb, g) == 0);
	wait_for(g);
	return g->code;
}

static void read_cb(const struct error *err, const unsigned char *p, size_t n,
		    int eof, void *arg)
{
	struct got *g = arg;

	(void)p;
	g->done = 1;
	g->code = err ? err->code : 0;
	g->read += n;
	g->eof = eof;
}

/* The whole tar of sn read back: 0 or the error's code. */
static int read_back(struct snapshot_store *st, const struct snapshot *sn,
		     size_t *bytes)
{
	struct snapshot_reader *r;
	struct got g = {0};

	CHECK(snapshot_reader_new(st, sn, &r) == 0);
	while (!g.eof && !g.code) {
		g.done = 0;
		CHECK(snapshot_reader_next(r, read_cb, &g) == 0);
		wait_for(&g);
	}
	snapshot_reader_free(r);
	*bytes = g.read;
	return g.code;
}

static void text_cb(const struct error *err, const char *text, size_t len,
		    void *arg)
{
	struct got *g = arg;

	g->done = 1;
	g->code = err ? err->code : 0;
	if (!err && len < sizeof(g->text)) {
		memcpy(g->text, text, len);
		g->len = len;
	}
}

static void files_cb(const struct error *err, cJSON *files, size_t total,
		     void *arg)
{
	struct got *g = arg;

	g->done = 1;
	g->code = err ? err->code : 0;
	g->files = files;
	g->total = total;
}

static size_t count_files(const char *dir)
{
	char cmd[256], line[64];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	f = popen(cmd, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		if (f)
			pclose(f);
		return 0;
	}
	pclose(f);
	return (size_t)atoi(line);
}

static void make_tar(void)
{
	char cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "set -e; d=%s/src; mkdir -p $d/sub; echo alpha > $d/sub/a.txt;"
		 " head -c 5000 /dev/zero > $d/z; ln -s sub/a.txt $d/l;"
		 " tar -c --sort=name -f %s/t.tar -C $d .",
		 state, state);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s/t.tar", state);
	f = fopen(cmd, "rb");
	CHECK(f != NULL);
	if (!f)
		exit(1);
	fseek(f, 0, SEEK_END);
	tar_len = (size_t)ftell(f);
	rewind(f);
	tar_bytes = malloc(tar_len);
	CHECK(tar_bytes && fread(tar_bytes, 1, tar_len, f) == tar_len);
	fclose(f);
}

static const cJSON *entry(const cJSON *files, const char *path)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, files)
	{
		const char *p = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(e, "path"));

		if (p && strcmp(p, path) == 0)
			return e;
	}
	return NULL;
}

static void check_round_trip(void)
{
	struct snapshot_limits lim = {1 << 20, 1 << 20, 3600};
	struct snapshot_store *st;
	const struct snapshot *sn, *sn2;
	char blobs[128], id1[SNAPSHOT_ID_LEN + 1], id2[SNAPSHOT_ID_LEN + 1];
	struct error err;
	struct got g;
	size_t n = 0;
	const cJSON *e;

	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	snprintf(blobs, sizeof(blobs), "%s/snapshots/blobs", state);
	CHECK(take(st, NULL, "{\"cells\": []}", &g) == 0);
	memcpy(id1, g.id, sizeof(id1));
	CHECK(snapshot_id_valid(id1));
	sn = snapshot_store_find(st, NULL, id1);
	CHECK(sn && !sn->corrupt && sn->tar_bytes == tar_len);
	CHECK(sn && sn->npkg == 1 && strcmp(sn->pkgs[0], PKG) == 0);
	CHECK(sn &&
	      strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
			     sn->meta, "language")),
		     "bash") == 0);
	CHECK(snapshot_store_uses_packages(st, PKG));
	CHECK(!snapshot_store_uses_packages(st, "x"));
	/* Nobody else's: an owner's lookup, a malformed id. */
	CHECK(snapshot_store_find(st, "alice", id1) == NULL);
	CHECK(snapshot_store_find(st, NULL, "../../etc/passwd") == NULL);
	CHECK(snapshot_store_find(st, NULL, "0123456789ABCDEF0123") == NULL);

	CHECK(read_back(st, sn, &n) == 0 && n == tar_len);
	memset(&g, 0, sizeof(g));
	CHECK(snapshot_store_history(st, sn, text_cb, &g) == 0);
	wait_for(&g);
	CHECK(g.code == 0 && strcmp(g.text, "{\"cells\": []}") == 0);
	memset(&g, 0, sizeof(g));
	CHECK(snapshot_store_files(st, sn, 100, files_cb, &g) == 0);
	wait_for(&g);
	CHECK(g.code == 0 && g.total == 4); /* sub, sub/a.txt, z, l; not . */
	e = entry(g.files, "sub/a.txt");
	CHECK(e && cJSON_GetNumberValue(
			   cJSON_GetObjectItemCaseSensitive(e, "size")) == 6);
	e = entry(g.files, "sub");
	CHECK(e && strcmp(cJSON_GetStringValue(
				  cJSON_GetObjectItemCaseSensitive(e, "type")),
			  "directory") == 0);
	e = entry(g.files, "l");
	CHECK(e && strcmp(cJSON_GetStringValue(
				  cJSON_GetObjectItemCaseSensitive(e, "type")),
			  "symlink") == 0);
	cJSON_Delete(g.files);

	/* The same files again, as alice's: one tar on disk, counted once. */
	CHECK(take(st, "alice", NULL, &g) == 0);
	memcpy(id2, g.id, sizeof(id2));
	CHECK(snapshot_store_find(st, NULL, id2) == NULL);
	sn2 = snapshot_store_find(st, "alice", id2);
	CHECK(sn2 && strcmp(sn2->key + 6, id2) == 0 &&
	      strncmp(sn2->key, "alice.", 6) == 0);
	CHECK(count_files(blobs) == 1);
	CHECK(snapshot_store_bytes(st) == tar_len + strlen("{\"cells\": []}"));
	CHECK(snapshot_store_delete(st, "bob", id2, &err) ==
	      ERR_SNAPSHOT_NOT_FOUND);
	CHECK(snapshot_store_delete(st, NULL, id1, &err) == 0);
	CHECK(snapshot_store_delete(st, NULL, id1, &err) ==
	      ERR_SNAPSHOT_NOT_FOUND);
	uv_run(loop, UV_RUN_DEFAULT);
	CHECK(count_files(blobs) == 1); /* alice's still names it */
	CHECK(snapshot_store_bytes(st) == tar_len);
	close_store(st);

	/* The next store reads alice's record again. */
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	sn2 = snapshot_store_find(st, "alice", id2);
	CHECK(sn2 && !sn2->corrupt && sn2->tar_bytes == tar_len &&
	      sn2->npkg == 1);
	CHECK(sn2 && read_back(st, sn2, &n) == 0 && n == tar_len);
	CHECK(snapshot_store_delete(st, "alice", id2, &err) == 0);
	uv_run(loop, UV_RUN_DEFAULT);
	CHECK(count_files(blobs) == 0);
	CHECK(snapshot_store_bytes(st) == 0);
	close_store(st);
}

static void check_caps(void)
{
	struct snapshot_limits lim = {1000, 1 << 20, 3600};
	struct snapshot_store *st;
	char dir[128];
	struct error err;
	struct got g;

	/* One snapshot over max_bytes: refused, nothing left. */
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	CHECK(take(st, NULL, NULL, &g) == ERR_TOO_LARGE);
	uv_run(loop, UV_RUN_DEFAULT);
	snprintf(dir, sizeof(dir), "%s/snapshots", state);
	CHECK(count_files(dir) == 1); /* blobs/ only */
	close_store(st);

	/* All of them over total_bytes: the one that would go over is
	 * refused at its commit, and a full store at the start. */
	lim = (struct snapshot_limits){1 << 20, tar_len + tar_len / 2, 3600};
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	CHECK(take(st, NULL, NULL, &g) == 0);
	CHECK(take(st, NULL, NULL, &g) == ERR_QUOTA_EXCEEDED);
	lim.total_bytes = tar_len;
	close_store(st);
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	CHECK(take(st, NULL, NULL, &g) == ERR_QUOTA_EXCEEDED);
	close_store(st);
}

static void check_damage(void)
{
	struct snapshot_limits lim = {1 << 20, 1 << 24, 3600};
	struct snapshot_store *st;
	const struct snapshot *sn;
	char path[256], id[SNAPSHOT_ID_LEN + 1], cmd[512];
	struct error err;
	struct got g;
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rm -rf %s/snapshots", state);
	CHECK(system(cmd) == 0);
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	CHECK(take(st, NULL, "hist", &g) == 0);
	memcpy(id, g.id, sizeof(id));
	sn = snapshot_store_find(st, NULL, id);
	CHECK(sn != NULL);
	if (!sn)
		return;
	/* One byte changed in the tar: refused at its end. */
	snprintf(path, sizeof(path), "%s/snapshots/blobs/%s.tar", state,
		 sn->tar_sha);
	f = fopen(path, "r+b");
	CHECK(f != NULL);
	if (f) {
		fseek(f, 700, SEEK_SET);
		fputc('X', f);
		fclose(f);
	}
	CHECK(read_back(st, sn, &n) == ERR_SNAPSHOT_CORRUPT);
	/* Cut short. */
	CHECK(truncate(path, (off_t)tar_len / 2) == 0);
	CHECK(read_back(st, sn, &n) == ERR_SNAPSHOT_CORRUPT);
	/* Gone. */
	CHECK(unlink(path) == 0);
	CHECK(read_back(st, sn, &n) == ERR_SNAPSHOT_CORRUPT);
	/* A history that is not what was hashed. */
	snprintf(path, sizeof(path), "%s/snapshots/%s.ipynb", state, id);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("hust", f);
		fclose(f);
	}
	memset(&g, 0, sizeof(g));
	CHECK(snapshot_store_history(st, sn, text_cb, &g) == 0);
	wait_for(&g);
	CHECK(g.code == ERR_SNAPSHOT_CORRUPT);
	close_store(st);

	/* A record edited by hand: the next store knows it as corrupt, and
	 * deletes it. */
	snprintf(path, sizeof(path), "%s/snapshots/%s.json", state, id);
	snprintf(cmd, sizeof(cmd), "sed -i 's/bash/perl/' %s", path);
	CHECK(system(cmd) == 0);
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	sn = snapshot_store_find(st, NULL, id);
	CHECK(sn && sn->corrupt);
	CHECK(snapshot_store_delete(st, NULL, id, &err) == 0);
	uv_run(loop, UV_RUN_DEFAULT);
	CHECK(access(path, F_OK) != 0);
	close_store(st);
}

static void spun(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, NULL);
}

/* Run the loop for about ms (timers due meanwhile run). */
static void spin(uint64_t ms)
{
	uv_timer_t t;

	uv_timer_init(loop, &t);
	uv_timer_start(&t, spun, ms, 0);
	uv_run(loop, UV_RUN_DEFAULT);
}

static void check_expiry(void)
{
	struct snapshot_limits lim = {1 << 20, 1 << 24, 0};
	struct snapshot_store *st;
	char dir[128];
	struct error err;
	struct got g;

	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	CHECK(take(st, NULL, NULL, &g) == 0);
	/* Kept 0 s: gone for lookups at once, and from disk at the sweep. */
	CHECK(snapshot_store_find(st, NULL, g.id) == NULL);
	close_store(st);
	CHECK(snapshot_store_open(loop, state, &lim, &st, &err) == 0);
	spin(20); /* the first sweep (the store's timer keeps no loop alive) */
	uv_run(loop, UV_RUN_DEFAULT);
	CHECK(snapshot_store_next(st, NULL) == NULL);
	snprintf(dir, sizeof(dir), "%s/snapshots/blobs", state);
	CHECK(count_files(dir) == 0);
	close_store(st);
}

int main(void)
{
	char cmd[128];

	loop = uv_default_loop();
	snprintf(state, sizeof(state), "/tmp/sbx-snap-XXXXXX");
	if (!mkdtemp(state))
		return 1;
	make_tar();
	check_round_trip();
	check_caps();
	check_damage();
	check_expiry();
	free(tar_bytes);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", state);
	CHECK(system(cmd) == 0);
	return t_summary("snapshot_store");
}
