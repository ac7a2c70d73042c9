/* core/records/artifact_store.c on a real directory: sets written whole, paths
 * that try to leave a set refused, reads by offset, eviction of the oldest
 * over the size, expiry by age, and a symlink planted in the store never
 * followed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "core/records/artifact_store.h"
#include "testlib.h"

static uv_loop_t *loop;
static char state[64];

struct got {
	int done;
	int code; /* 0, or the error's code */
	size_t n; /* files put */
	unsigned char kept[8];
	unsigned char data[4096];
	size_t len;
	uint64_t size;
	int eof;
};

static void put_cb(const struct error *err, const unsigned char *kept,
		   void *arg)
{
	struct got *g = arg;

	g->done = 1;
	g->code = err ? err->code : 0;
	if (!err)
		memcpy(g->kept, kept, g->n);
}

static void read_cb(const struct error *err, const unsigned char *data,
		    size_t len, uint64_t size, int eof, void *arg)
{
	struct got *g = arg;

	g->done = 1;
	g->code = err ? err->code : 0;
	if (!err && len <= sizeof(g->data)) {
		memcpy(g->data, data, len);
		g->len = len;
		g->size = size;
		g->eof = eof;
	}
}

static void wait_for(struct got *g)
{
	while (!g->done)
		uv_run(loop, UV_RUN_ONCE);
}

static void put_as(struct artifact_store *st, const char *owner,
		   const struct exec_file *f, size_t n, char *id, struct got *g)
{
	memset(g, 0, sizeof(*g));
	g->n = n;
	CHECK(artifact_store_put(st, owner, f, n, id, put_cb, g) == 0);
	CHECK(artifact_id_valid(id, strlen(id)));
	wait_for(g);
}

static void put(struct artifact_store *st, const struct exec_file *f, size_t n,
		char *id, struct got *g)
{
	put_as(st, NULL, f, n, id, g);
}

static int read_code(struct artifact_store *st, const char *id,
		     const char *path, uint64_t off, uint32_t len,
		     struct got *g)
{
	memset(g, 0, sizeof(*g));
	CHECK(artifact_store_read(st, id, path, off, len, read_cb, g) == 0);
	CHECK(!g->done); /* never before the call returns */
	wait_for(g);
	return g->code;
}

static void close_cb(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* As the server does: the loop's handles (the sweep timer) closed, then
 * the store freed. */
static void close_store(struct artifact_store *st)
{
	uv_walk(loop, close_cb, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	artifact_store_free(st);
}

static void count_cb(const char *id, const char *path, uint64_t size,
		     int64_t mtime_ms, void *arg)
{
	(void)id, (void)path, (void)size, (void)mtime_ms;
	++*(size_t *)arg;
}

static size_t listed(struct artifact_store *st)
{
	size_t n = 0;

	artifact_store_each(st, 1000, count_cb, &n);
	return n;
}

static void check_sets(struct artifact_store *st)
{
	static const unsigned char csv[] = "a,b\n1,2\n";
	static char deep[128];
	const struct exec_file files[] = {
		{"out/deep/r.csv", csv, sizeof(csv) - 1, NULL},
		{"../escape.txt", csv, 3, NULL},
		{"/etc/abs.txt", csv, 3, NULL},
		{"a/../b.txt", csv, 3, NULL},
		{"plain.txt", csv, 2, NULL},
		{deep, csv, 1, NULL},
	};
	char id[ARTIFACT_ID_LEN + 1], other[ARTIFACT_ID_LEN + 1];
	char path[256];
	struct got g;
	int i;

	/* Deeper than a sweep walks: refused, so nothing escapes the size. */
	for (i = 0; i < 40; i++) {
		deep[2 * (size_t)i] = i < 39 ? 'd' : 'f';
		deep[2 * (size_t)i + 1] = i < 39 ? '/' : '\0';
	}
	put(st, files, 6, id, &g);
	CHECK(g.code == 0);
	CHECK(g.kept[0] && !g.kept[1] && !g.kept[2] && !g.kept[3] &&
	      g.kept[4] && !g.kept[5]);
	snprintf(path, sizeof(path), "%s/escape.txt", state);
	CHECK(access(path, F_OK) != 0);
	CHECK(listed(st) == 2);

	CHECK(read_code(st, id, "out/deep/r.csv", 0, 100, &g) == 0);
	CHECK(g.len == 8 && g.size == 8 && g.eof &&
	      memcmp(g.data, csv, 8) == 0);
	CHECK(read_code(st, id, "out/deep/r.csv", 4, 2, &g) == 0);
	CHECK(g.len == 2 && !g.eof && memcmp(g.data, "1,", 2) == 0);
	CHECK(read_code(st, id, "missing.txt", 0, 10, &g) == ERR_NOT_FOUND);
	CHECK(read_code(st, id, "out", 0, 10, &g) == ERR_NOT_A_FILE);
	CHECK(read_code(st, id, "../x", 0, 10, &g) == ERR_INVALID_PATH);
	CHECK(read_code(st, id, "/etc/passwd", 0, 10, &g) == ERR_INVALID_PATH);
	CHECK(read_code(st, "0123456789abcdeg", "plain.txt", 0, 10, &g) ==
	      ERR_INVALID_PATH);
	CHECK(read_code(st, "..", "etc/passwd", 0, 10, &g) == ERR_INVALID_PATH);

	/* A link planted in a set (by anyone with the directory) is never
	 * followed, to a file or through a directory. */
	snprintf(path, sizeof(path), "%s/artifacts/%s/link.txt", state, id);
	CHECK(symlink("/etc/passwd", path) == 0);
	snprintf(path, sizeof(path), "%s/artifacts/%s/dir", state, id);
	CHECK(symlink("/etc", path) == 0);
	CHECK(read_code(st, id, "link.txt", 0, 10, &g) == ERR_INVALID_PATH);
	CHECK(read_code(st, id, "dir/passwd", 0, 10, &g) == ERR_INVALID_PATH);

	/* Another set: its own id. */
	put(st, files + 4, 1, other, &g);
	CHECK(strcmp(id, other) != 0);
	CHECK(read_code(st, other, "plain.txt", 0, 10, &g) == 0 && g.len == 2);

	/* A tenant's set is found by its key only: "<tenant>.<id>". */
	{
		char key[ARTIFACT_KEY_MAX + 1];

		put_as(st, "alice", files + 4, 1, other, &g);
		CHECK(g.code == 0);
		snprintf(key, sizeof(key), "alice.%s", other);
		CHECK(read_code(st, key, "plain.txt", 0, 10, &g) == 0);
		CHECK(read_code(st, other, "plain.txt", 0, 10, &g) ==
		      ERR_NOT_FOUND);
		snprintf(key, sizeof(key), "bob.%s", other);
		CHECK(read_code(st, key, "plain.txt", 0, 10, &g) ==
		      ERR_NOT_FOUND);
		CHECK(artifact_key_valid(key, strlen(key)));
		CHECK(!artifact_key_valid("Bob.0123456789abcdef", 20));
		CHECK(!artifact_key_valid(".0123456789abcdef", 17));
		CHECK(!artifact_key_valid("a.b.0123456789abcdef", 20));
	}
}

/* Over the size: the oldest sets go, the newest stays. */
static void check_eviction(void)
{
	static unsigned char big[600 * 1024];
	const struct exec_file f = {"big.bin", big, sizeof(big), NULL};
	char ids[3][ARTIFACT_ID_LEN + 1], path[256];
	struct artifact_store *st;
	struct got g;
	struct error err;
	int i;

	snprintf(path, sizeof(path), "%s/evict", state);
	CHECK(artifact_store_open(loop, path, 1 << 20, 3600, &st, &err) == 0);
	for (i = 0; i < 3; i++) {
		put(st, &f, 1, ids[i], &g);
		CHECK(g.code == 0 && g.kept[0]);
	}
	CHECK(read_code(st, ids[0], "big.bin", 0, 10, &g) == ERR_NOT_FOUND);
	CHECK(read_code(st, ids[1], "big.bin", 0, 10, &g) == ERR_NOT_FOUND);
	CHECK(read_code(st, ids[2], "big.bin", 0, 10, &g) == 0);
	CHECK(listed(st) == 1);
	close_store(st);
}

/* Past keep_s (its directory's age): gone at the next sweep. */
static void check_expiry(void)
{
	static const unsigned char x[] = "x";
	const struct exec_file f = {"x.txt", x, 1, NULL};
	char old[ARTIFACT_ID_LEN + 1], fresh[ARTIFACT_ID_LEN + 1];
	struct timespec ts[2] = {{0, 0}, {0, 0}};
	struct artifact_store *st;
	char path[256];
	struct error err;
	struct got g;

	snprintf(path, sizeof(path), "%s/expire", state);
	CHECK(artifact_store_open(loop, path, 1 << 20, 60, &st, &err) == 0);
	put(st, &f, 1, old, &g);
	snprintf(path, sizeof(path), "%s/expire/artifacts/%s", state, old);
	ts[0].tv_sec = ts[1].tv_sec = time(NULL) - 61;
	CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
	put(st, &f, 1, fresh, &g);
	CHECK(read_code(st, old, "x.txt", 0, 10, &g) == ERR_NOT_FOUND);
	CHECK(access(path, F_OK) != 0);
	CHECK(read_code(st, fresh, "x.txt", 0, 10, &g) == 0);
	close_store(st);
}

int main(void)
{
	struct artifact_store *st;
	char cmd[128];
	struct error err;

	loop = uv_default_loop();
	snprintf(state, sizeof(state), "/tmp/sbx-art-XXXXXX");
	if (!mkdtemp(state))
		return 1;
	CHECK(artifact_store_open(loop, state, 1 << 20, 3600, &st, &err) == 0);
	check_sets(st);
	close_store(st);
	check_eviction();
	check_expiry();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", state);
	CHECK(system(cmd) == 0);
	return t_summary("artifact_store");
}
