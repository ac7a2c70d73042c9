/* core/packages/pkg_volume.c: a set's record, the listing script run by
 * the host's bash on a directory laid out as a package volume (sets of
 * this server and of older ones, unreadable records, what is no set), and
 * the listing's parser fed cut, forged and hostile listings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/packages/packages.h"
#include "core/packages/pkg_volume.h"
#include "testlib.h"

#define KEY_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KEY_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define KEY_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define KEY_D "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
#define KEY_E "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

#define OLD_MANIFEST                                                           \
	"{\"installer\":\"pip 24.0\",\"packages\":[{\"name\":\"pa\","          \
	"\"version\":\"1.0\",\"requested\":true,\"bytes\":1500}]}"

static const struct pkg_entry *find(const struct pkg_listing *l,
				    const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i].key, key) == 0)
			return &l->v[i];
	return NULL;
}

static const char *spec0(const struct pkg_entry *e)
{
	const cJSON *s = cJSON_GetArrayItem(e->specs, 0);

	return cJSON_IsString(s) ? s->valuestring : "";
}

static int parse(const char *text, struct pkg_listing *l, struct error *err)
{
	return pkg_listing_parse(text, strlen(text), l, err);
}

/* The record of a set stored now reads back whole. */
static void check_record(void)
{
	cJSON *man = cJSON_Parse(OLD_MANIFEST);
	cJSON *specs = cJSON_Parse("[\"pa==1.0\"]");
	cJSON *rec = pkg_record_new(man, "python", specs, 1700000000, 2.5);
	char *text = cJSON_PrintUnformatted(rec), *listing = NULL;
	struct pkg_listing l;
	struct error err;
	const struct pkg_entry *e;

	CHECK(text != NULL);
	CHECK(asprintf(&listing, "sbx-pkgs 1\nset %s 1600000000 %s\nend 1\n",
		       KEY_A, text) > 0);
	CHECK(parse(listing, &l, &err) == 0 && l.n == 1);
	e = find(&l, KEY_A);
	CHECK(e && strcmp(e->lang, "python") == 0);
	CHECK(e && cJSON_GetArraySize(e->specs) == 1 &&
	      strcmp(spec0(e), "pa==1.0") == 0);
	CHECK(e && e->bytes == 1500 && e->created == 1700000000);
	CHECK(e && e->seconds == 2.5 && e->last_used == 0);
	CHECK(e && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
			   e->manifest, "packages")) == 1);
	/* What an older server reads of it: the manifest, as before. */
	{
		struct error merr;
		cJSON *m = pkg_manifest_parse(text, strlen(text), &merr);

		CHECK(m && pkg_manifest_bytes(m) == 1500);
		cJSON_Delete(m);
	}
	pkg_listing_free(&l);
	free(listing);
	cJSON_free(text);
	cJSON_Delete(rec);
	cJSON_Delete(specs);
	cJSON_Delete(man);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void sub(const char *dir, const char *name, char *out, size_t size)
{
	snprintf(out, size, "%s/%s", dir, name);
	mkdir(out, 0755);
}

/* `bash -c pkg_listing_script list dir`'s stdout, into a buffer of up to
 * size bytes; its length, or -1. */
static long run_listing(const char *dir, char *buf, size_t size)
{
	int fd[2], status;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execlp("bash", "bash", "-c", pkg_listing_script, "list", dir,
		       (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	while (len < size && (n = read(fd[0], buf + len, size - len)) > 0)
		len += (size_t)n;
	close(fd[0]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return (long)len;
}

/* The script on a directory laid out as a volume, parsed. */
static void check_script(void)
{
	char dir[] = "/tmp/sbx-pkgvol-XXXXXX", d[512], rec[600];
	static char buf[1 << 20];
	struct pkg_listing l;
	struct error err;
	const struct pkg_entry *e;
	long len;
	char *big;
	size_t i;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	/* A set of this server: its record, over several lines as a
	 * person's editor might leave it. */
	sub(dir, KEY_A, d, sizeof(d));
	snprintf(rec, sizeof(rec),
		 "{\"installer\": \"npm 11.6.2\",\n\"packages\": [],\r\n"
		 "\"language\": \"typescript\", \"specs\": [\"is-odd@3.0.1\"],"
		 "\n\"bytes\": 9120, \"created\": 1700000100, \"seconds\": 3}");
	put(d, "manifest.json", rec);
	/* An older server's: the manifest only. */
	sub(dir, KEY_B, d, sizeof(d));
	put(d, "manifest.json", OLD_MANIFEST);
	/* No record at all, and one that is not JSON. */
	sub(dir, KEY_C, d, sizeof(d));
	sub(dir, KEY_D, d, sizeof(d));
	put(d, "manifest.json", "{\"installer\": \"x\", \"pack");
	/* A record over the cap: read cut, so not readable, still listed. */
	sub(dir, KEY_E, d, sizeof(d));
	big = malloc(PKG_RECORD_MAX + 64);
	if (big) {
		strcpy(big, "{\"installer\":\"");
		for (i = strlen(big); i < PKG_RECORD_MAX + 10; i++)
			big[i] = 'x';
		strcpy(big + i, "\",\"packages\":[]}");
		put(d, "manifest.json", big);
		free(big);
	}
	/* Not sets: a store under way, other names, a file, a link. */
	sub(dir, ".tmp-" KEY_A "-1a2b", d, sizeof(d));
	sub(dir,
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    d, sizeof(d));
	sub(dir, "abc", d, sizeof(d));
	put(dir,
	    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
	    "");
	snprintf(d, sizeof(d), "%s/%s", dir,
		 "0000000000000000000000000000000000000000000000000000000000000"
		 "000");
	CHECK(symlink(KEY_A, d) == 0);

	len = run_listing(dir, buf, sizeof(buf));
	CHECK(len > 0);
	CHECK(len > 0 && pkg_listing_parse(buf, (size_t)len, &l, &err) == 0);
	if (len <= 0 || l.n == 0) {
		fprintf(stderr, "  listing: %.*s\n", (int)(len > 0 ? len : 0),
			buf);
		goto out;
	}
	CHECK(l.n == 5);
	e = find(&l, KEY_A);
	CHECK(e && strcmp(e->lang, "typescript") == 0 &&
	      strcmp(spec0(e), "is-odd@3.0.1") == 0 && e->bytes == 9120 &&
	      e->created == 1700000100 && e->seconds == 3);
	e = find(&l, KEY_B);
	CHECK(e && e->lang[0] == '\0' && e->specs == NULL && e->bytes == 1500);
	/* The directory's time stands for the store time. */
	CHECK(e && e->created > 1600000000);
	e = find(&l, KEY_C);
	CHECK(e && e->bytes == 0 && e->specs == NULL &&
	      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		      e->manifest, "packages")) == 0);
	CHECK(find(&l, KEY_D) != NULL);
	CHECK(find(&l, KEY_E) != NULL);
	pkg_listing_free(&l);
	CHECK(l.n == 0 && l.v == NULL);

	/* An empty volume lists nothing, and says so. */
	{
		char empty[600];

		sub(dir, "empty", empty, sizeof(empty));
		len = run_listing(empty, buf, sizeof(buf));
		CHECK(len > 0 &&
		      pkg_listing_parse(buf, (size_t)len, &l, &err) == 0 &&
		      l.n == 0);
		rmdir(empty);
	}
out:
	snprintf(d, sizeof(d), "rm -rf '%s'", dir);
	CHECK(system(d) == 0);
}

/* What a listing may not be: each is refused, and nothing is kept. */
static void check_hostile(void)
{
	static const char *const bad[] = {
		"",
		"set " KEY_A " 1 {}\nend 1\n", /* no head */
		"sbx-pkgs 2\nend 0\n",	       /* another format */
		"sbx-pkgs 1\n",		       /* cut before the end */
		"sbx-pkgs 1\nset " KEY_A " 1 {}\n",
		"sbx-pkgs 1\nset " KEY_A " 1 {}\nend 2\n", /* a set lost */
		"sbx-pkgs 1\nset " KEY_A " 1 {}\nend 0\n",
		"sbx-pkgs 1\nset " KEY_A " 1 {}\nend 1\nset " KEY_B " 1 {}\n",
		"sbx-pkgs 1\nset ../../etc 1 {}\nend 1\n",
		"sbx-pkgs 1\nset "
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
		"AA"
		" 1 {}\nend 1\n",
		"sbx-pkgs 1\nset " KEY_A "x 1 {}\nend 1\n",
		"sbx-pkgs 1\nset " KEY_A " -1 {}\nend 1\n",
		"sbx-pkgs 1\nset " KEY_A " 1\nend 1\n", /* no record field */
		"sbx-pkgs 1\nset " KEY_A " 99999999999999999999 {}\nend 1\n",
		"sbx-pkgs 1\nwhat\nend 0\n",
		"sbx-pkgs 1\nend -0\n",
	};
	struct pkg_listing l;
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.code = 0;
		if (parse(bad[i], &l, &err) == 0) {
			fprintf(stderr, "  accepted listing %zu\n", i);
			CHECK(0);
			pkg_listing_free(&l);
			continue;
		}
		CHECK(err.code == ERR_INSTALL_FAILED && err.msg[0]);
		CHECK(l.n == 0 && l.v == NULL);
	}

	/* A record that lies is listed with what can be believed of it. */
	CHECK(parse("sbx-pkgs 1\n"
		    "set " KEY_A " 1650000000 {\"installer\":\"x\",\"packages\""
		    ":[],\"language\":\"Py thon;rm\",\"specs\":[\"a\",7],"
		    "\"bytes\":-5,\"created\":\"soon\",\"seconds\":1e400}\n"
		    "set " KEY_A " 1 {}\n" /* the same key again: once */
		    "set " KEY_B " 1 {\"packages\":[],\"specs\":[\"a b\"],"
		    "\"language\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n"
		    "set " KEY_C " 1 [1,2]\n"
		    "end 4",
		    &l, &err) == 0);
	CHECK(l.n == 3);
	CHECK(l.n == 3 && l.v[0].lang[0] == '\0' && l.v[0].specs == NULL &&
	      l.v[0].bytes == 0 && l.v[0].created == 1650000000 &&
	      l.v[0].seconds == 0);
	CHECK(l.n == 3 && l.v[1].lang[0] == '\0' && l.v[1].specs == NULL);
	CHECK(l.n == 3 && l.v[2].manifest != NULL && l.v[2].bytes == 0);
	pkg_listing_free(&l);

	/* NUL bytes and control characters inside a record: not JSON, the
	 * set is still listed. */
	{
		static const char text[] = "sbx-pkgs 1\nset " KEY_A
					   " 1 {\"packages\":[]\0}\nend 1\n";

		CHECK(pkg_listing_parse(text, sizeof(text) - 1, &l, &err) ==
			      0 &&
		      l.n == 1 && l.v[0].bytes == 0);
		pkg_listing_free(&l);
	}
}

int main(void)
{
	check_record();
	check_script();
	check_hostile();
	return t_summary("pkg_volume");
}
