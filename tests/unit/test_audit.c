/* core/records/audit.c: lines written on the loop form a chain that verify
 * accepts; a changed line, a removed line and a changed last line are
 * each caught at the right place; rotation keeps the chain; read filters
 * by time and violation; both ends are anchored (first lines removed,
 * seq renumbered, last line and .head removed against an anchor, a
 * rotated file removed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/records/audit.h"
#include "testlib.h"

static void write_events(uv_loop_t *loop, struct config *cfg, int n,
			 const char *instance)
{
	struct audit *a = NULL;
	struct error err;
	int i;

	CHECK(audit_open(loop, cfg, instance, &a, &err) == 0 && a);
	for (i = 0; i < n; i++) {
		cJSON *ev = cJSON_CreateObject();

		cJSON_AddStringToObject(ev, "event", "tool_call");
		cJSON_AddNumberToObject(ev, "i", i);
		if (i % 3 == 0)
			cJSON_AddBoolToObject(ev, "violation", 1);
		audit_event(a, ev);
	}
	audit_close(a, NULL, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
}

/* The whole log at path, as `mcp-sandbox audit verify` checks it. */
static int verify_anchored(const char *path, unsigned keep,
			   const struct audit_anchor *anchor,
			   struct audit_verdict *v)
{
	char **files = NULL;
	size_t n = audit_files(path, keep, &files);
	int rc = audit_verify(
		files, n,
		&(struct audit_verify_opts){.log = path, .anchor = anchor}, v);

	audit_files_free(files, n);
	return rc;
}

static int verify_path(const char *path, unsigned keep, struct audit_verdict *v)
{
	return verify_anchored(path, keep, NULL, v);
}

/* Replace line no (1-based) of path with text (NULL: remove it). */
static void edit_line(const char *path, size_t no, const char *text)
{
	char buf[1 << 16], out[1 << 16], *line, *save = NULL;
	size_t n, o = 0, k = 0;
	FILE *f = fopen(path, "r");

	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *l = ++k == no ? text : line;

		if (l)
			o += (size_t)snprintf(out + o, sizeof(out) - o, "%s\n",
					      l);
	}
	f = fopen(path, "w");
	fwrite(out, 1, o, f);
	fclose(f);
}

/* Renumber the lines of path from 1 and chain them again (each prev the
 * hash of the line before; the first's kept, or zeros), with a .head to
 * match: what someone who removed lines and wants them unnoticed does. */
static void rechain(const char *path, int zero_first)
{
	char line[4096], out[1 << 16], prev[AUDIT_HASH_HEX + 1] = "";
	size_t o = 0, start;
	FILE *f = fopen(path, "r");
	int k = 0;

	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "\"seq\":") + 6;
		char *q = strstr(line, "\"prev\":\"") + 8;

		line[strcspn(line, "\n")] = '\0';
		if (prev[0] || zero_first)
			memcpy(q,
			       prev[0] ? prev
				       : "0000000000000000000000000000"
					 "000000000000000000000000000"
					 "000000000",
			       AUDIT_HASH_HEX);
		start = o;
		o += (size_t)snprintf(out + o, sizeof(out) - o, "%.*s%d%s",
				      (int)(p - line), line, ++k,
				      strchr(p, ','));
		audit_sha256_hex(out + start, o - start, prev);
		o += (size_t)snprintf(out + o, sizeof(out) - o, "\n");
	}
	fclose(f);
	f = fopen(path, "w");
	fwrite(out, 1, o, f);
	fclose(f);
	snprintf(line, sizeof(line), "%s.head", path);
	f = fopen(line, "w");
	fprintf(f, "%d %s\nfrom 0 %064d\n", k, prev, 0);
	fclose(f);
}

/* The anchor of line no of path. */
static void line_anchor(const char *path, size_t no, struct audit_anchor *a)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	memset(a, 0, sizeof(*a));
	while (no-- && fgets(line, sizeof(line), f))
		;
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	a->seq = (uint64_t)strtoull(strstr(line, "\"seq\":") + 6, NULL, 10);
	audit_sha256_hex(line, strlen(line), a->hash);
}

static void run(const char *cmd)
{
	CHECK(system(cmd) == 0);
}

/* Both ends: removing the first lines, renumbering, removing the last
 * line and the .head; the anchor an operator keeps elsewhere. */
static void anchored_ends(uv_loop_t *loop, struct config *cfg, const char *path)
{
	char cmd[2048], **files = NULL;
	struct audit_anchor head, early;
	struct audit_verdict v;
	size_t n;

	snprintf(cmd, sizeof(cmd), "rm -f %s*", path);
	run(cmd);
	cfg->audit_max_kb = 10240;
	write_events(loop, cfg, 10, "ends");
	n = audit_files(path, cfg->audit_keep, &files);
	CHECK(audit_last(files, n, &head) == 0 && head.seq == 10);
	audit_files_free(files, n);
	CHECK(verify_anchored(path, cfg->audit_keep, &head, &v) == 0 && v.ok &&
	      v.anchored && v.first_seq == 1 && v.last_seq == 10);
	CHECK(strcmp(v.head, head.hash) == 0);
	/* an anchor whose hash is not the line's */
	early = head;
	early.seq = 4;
	CHECK(verify_anchored(path, cfg->audit_keep, &early, &v) == 0 &&
	      !v.ok && v.line == 4);
	CHECK_STR_CONTAINS(v.reason, "not the anchor's");
	CHECK(audit_anchor_parse("10:", &early) < 0);
	CHECK(audit_anchor_parse("0:"
				 "0000000000000000000000000000000000000000"
				 "000000000000000000000000",
				 &early) < 0);

	/* The first line removed. */
	snprintf(cmd, sizeof(cmd), "cp %s %s.keep && cp %s.head %s.keephead",
		 path, path, path, path);
	run(cmd);
	edit_line(path, 1, NULL);
	CHECK(verify_path(path, cfg->audit_keep, &v) == 0 && !v.ok &&
	      v.line == 1);
	CHECK_STR_CONTAINS(v.reason, "starts at seq 2");
	/* ... and the rest renumbered from 1 and chained again, the .head
	 * rewritten to match: only the first line's prev tells. */
	rechain(path, 0);
	CHECK(verify_path(path, cfg->audit_keep, &v) == 0 && !v.ok &&
	      v.line == 1);
	CHECK_STR_CONTAINS(v.reason, "seq 1 but its prev is not all zeros");
	/* ... with that prev zeros too: a whole new chain, which only an
	 * anchor kept elsewhere tells from the real one. */
	rechain(path, 1);
	CHECK(verify_path(path, cfg->audit_keep, &v) == 0 && v.ok);
	CHECK(verify_anchored(path, cfg->audit_keep, &head, &v) == 0 && !v.ok);
	CHECK_STR_CONTAINS(v.reason, "ends at seq 9, before the anchor's");
	snprintf(cmd, sizeof(cmd), "%s.keep", path);
	line_anchor(cmd, 4, &early);
	CHECK(verify_anchored(path, cfg->audit_keep, &early, &v) == 0 &&
	      !v.ok && v.line == 4);
	CHECK_STR_CONTAINS(v.reason, "not the anchor's");

	/* The last line and the .head removed: no .head; one written to
	 * match the new last line fools the file check, not the anchor. */
	snprintf(cmd, sizeof(cmd), "cp %s.keep %s && rm %s.head", path, path,
		 path);
	run(cmd);
	edit_line(path, 10, NULL);
	CHECK(verify_path(path, cfg->audit_keep, &v) == 0 && !v.ok);
	CHECK_STR_CONTAINS(v.reason, ".head");
	n = audit_files(path, cfg->audit_keep, &files);
	CHECK(audit_last(files, n, &early) == 0 && early.seq == 9);
	audit_files_free(files, n);
	{
		char head_file[300];
		FILE *f;

		snprintf(head_file, sizeof(head_file), "%s.head", path);
		f = fopen(head_file, "w");
		fprintf(f, "9 %s\n", early.hash);
		fclose(f);
	}
	CHECK(verify_path(path, cfg->audit_keep, &v) == 0 && v.ok);
	CHECK(verify_anchored(path, cfg->audit_keep, &head, &v) == 0 && !v.ok &&
	      v.line == 0);
	CHECK_STR_CONTAINS(v.reason, "ends at seq 9, before the anchor's seq "
				     "10");
}

/* Rotation: the kept chain starts where the files rotated away end; a
 * file removed from the middle or the oldest is caught; one rotated file
 * alone says what it cannot check. */
static void rotation_gaps(uv_loop_t *loop, struct config *cfg, const char *path)
{
	char cmd[1024], name[300], *one[1];
	struct audit_verdict v;
	unsigned keep = cfg->audit_keep;

	snprintf(cmd, sizeof(cmd), "rm -f %s*", path);
	run(cmd);
	cfg->audit_max_kb = 16;
	cfg->audit_keep = 3;
	/* enough for more than keep rotations: the oldest lines dropped */
	write_events(loop, cfg, 600, "gaps");
	snprintf(name, sizeof(name), "%s.3", path);
	CHECK(access(name, F_OK) == 0);
	CHECK(verify_path(path, 3, &v) == 0 && v.ok &&
	      v.start == AUDIT_START_ROTATED && v.first_seq > 1 &&
	      v.end_checked);

	/* A .head of an older server (no "from" line): the start is not
	 * known until a server opens the log and takes it as found. */
	snprintf(cmd, sizeof(cmd), "sed -i '2d' %s.head", path);
	run(cmd);
	CHECK(verify_path(path, 3, &v) == 0 && !v.ok && v.line == 1);
	CHECK_STR_CONTAINS(v.reason, "of an older server");
	write_events(loop, cfg, 1, "upgraded");
	CHECK(verify_path(path, 3, &v) == 0 && v.ok &&
	      v.start == AUDIT_START_ROTATED);

	/* one rotated file alone: its inside holds, its ends unchecked */
	snprintf(name, sizeof(name), "%s.2", path);
	one[0] = name;
	CHECK(audit_verify(one, 1, NULL, &v) == 0 && v.ok &&
	      v.start == AUDIT_START_OPEN && !v.end_checked);

	/* a file of the middle removed */
	snprintf(cmd, sizeof(cmd), "mv %s.2 %s.2.away", path, path);
	run(cmd);
	CHECK(verify_path(path, 3, &v) == 0 && !v.ok);
	CHECK_STR_CONTAINS(v.file, ".log.2");
	CHECK_STR_CONTAINS(v.reason, "missing");
	/* the oldest removed */
	snprintf(cmd, sizeof(cmd), "mv %s.2.away %s.2 && rm %s.3", path, path,
		 path);
	run(cmd);
	CHECK(verify_path(path, 3, &v) == 0 && !v.ok && v.line == 1);
	CHECK_STR_CONTAINS(v.file, ".log.2");
	CHECK_STR_CONTAINS(v.reason, "oldest files");
	/* the current file removed */
	snprintf(cmd, sizeof(cmd), "rm %s", path);
	run(cmd);
	CHECK(verify_path(path, 3, &v) == 0 && !v.ok);
	CHECK_STR_CONTAINS(v.reason, "current file");
	cfg->audit_keep = keep;
}

int main(void)
{
	char dir[] = "/tmp/sbx-audit-XXXXXX", path[256], cmd[300];
	struct audit_verdict v;
	struct config cfg;
	uv_loop_t loop;
	char **files = NULL;
	cJSON *got;
	size_t n;

	CHECK(mkdtemp(dir) != NULL);
	uv_loop_init(&loop);
	config_init(&cfg);
	snprintf(path, sizeof(path), "%s/audit.log", dir);
	cfg.audit_file = strdup(path);

	write_events(&loop, &cfg, 10, "one");
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && v.ok &&
	      v.lines == 10);
	/* A second writer goes on from the last line. */
	write_events(&loop, &cfg, 5, "two");
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && v.ok &&
	      v.lines == 15);

	n = audit_files(path, cfg.audit_keep, &files);
	got = audit_read(files, n, "", "violations", NULL, 100);
	CHECK(cJSON_GetArraySize(got) == 6); /* i = 0, 3, 6, 9 and 0, 3 */
	cJSON_Delete(got);
	got = audit_read(files, n, "", NULL, NULL, 4);
	CHECK(cJSON_GetArraySize(got) == 4 &&
	      cJSON_GetObjectItem(cJSON_GetArrayItem(got, 3), "i")->valueint ==
		      4);
	cJSON_Delete(got);
	got = audit_read(files, n, "2999-01-01", NULL, NULL, 4);
	CHECK(cJSON_GetArraySize(got) == 0);
	cJSON_Delete(got);
	audit_files_free(files, n);

	/* A line removed: the next one does not follow. */
	edit_line(path, 7, NULL);
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && !v.ok &&
	      v.line == 7);
	/* The last line changed: caught against the head. */
	unlink(path);
	write_events(&loop, &cfg, 3, "four");
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && v.ok);
	edit_line(path, 3, "{\"seq\":3,\"prev\":\"x\"}");
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && !v.ok);

	/* Rotation: 16 KiB files, the chain across them. */
	unlink(path);
	cfg.audit_max_kb = 16;
	write_events(&loop, &cfg, 300, "five");
	n = audit_files(path, cfg.audit_keep, &files);
	CHECK(n >= 2);
	CHECK(audit_verify(files, n, NULL, &v) == 0 && v.ok);
	audit_files_free(files, n);
	CHECK(verify_path(path, cfg.audit_keep, &v) == 0 && v.ok &&
	      v.start == AUDIT_START_FIRST && v.end_checked);

	anchored_ends(&loop, &cfg, path);
	rotation_gaps(&loop, &cfg, path);

	uv_loop_close(&loop);
	config_close(&cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return t_summary("audit");
}
