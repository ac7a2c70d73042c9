/* core/audit.c: lines written on the loop form a chain that verify
 * accepts; a changed line, a removed line and a changed last line are
 * each caught at the right place; rotation keeps the chain; read filters
 * by time and violation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/audit.h"
#include "testlib.h"

static void write_events(uv_loop_t *loop, struct config *cfg, int n,
			 const char *instance)
{
	struct audit *a = NULL;
	char why[256];
	int i;

	CHECK(audit_open(loop, cfg, instance, &a, why, sizeof(why)) == 0 && a);
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

static int verify_path(const char *path, unsigned keep, struct audit_verdict *v)
{
	char **files = NULL;
	size_t n = audit_files(path, keep, &files);
	int rc = audit_verify(files, n, v);

	audit_files_free(files, n);
	return rc;
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
	CHECK(audit_verify(files, n, &v) == 0 && v.ok);
	audit_files_free(files, n);

	uv_loop_close(&loop);
	config_close(&cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return t_summary("audit");
}
