/* core/tenants/tenants.c (the tokens file, bearer tokens, quotas) and
 * core/tenants/links.c (signed artifact links): the parts a caller could try to
 * get round. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tenants/links.h"
#include "core/tenants/tenants.h"
#include "testlib.h"

static char dir[] = "/tmp/sbx-test-tenants-XXXXXX";

static void write_file(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, (mode_t)mode);
}

static void tokens(void)
{
	static const struct tenant_quota dq = {4, 8, 120, 256u << 20, 32};
	char path[256], tok_a[128], tok_b[128], line_a[256], line_b[256];
	char text[1024];
	struct error rerr;
	struct tenants *ts = NULL;
	struct tenant *a, *b;
	struct error err;
	int i;

	snprintf(path, sizeof(path), "%s/tokens", dir);
	CHECK(tenant_new_token("alice", tok_a, sizeof(tok_a), line_a,
			       sizeof(line_a)) == 0);
	CHECK(tenant_new_token("bob", tok_b, sizeof(tok_b), line_b,
			       sizeof(line_b)) == 0);
	CHECK(strncmp(tok_a, "sbx_", 4) == 0 && strlen(tok_a) == 47);
	CHECK(strstr(line_a, tok_a + 4) == NULL); /* a hash, never it */
	snprintf(text, sizeof(text),
		 "# tenants\n\n%.*s concurrent=1 per_minute=2 "
		 "http_sessions=3 sessions=2 artifact_mb=1\n%s",
		 (int)strlen(line_a) - 1, line_a, line_b);
	write_file(path, text, 0600);
	CHECK(tenants_load(path, &dq, &ts, &rerr) == 0);
	CHECK(ts && tenants_count(ts) == 2);
	a = tenants_auth(ts, tok_a, strlen(tok_a));
	b = tenants_auth(ts, tok_b, strlen(tok_b));
	CHECK(a && strcmp(a->name, "alice") == 0 && a->quota.concurrent == 1);
	CHECK(a && a->quota.http_sessions == 3);
	CHECK(b && strcmp(b->name, "bob") == 0 && b->quota.concurrent == 4 &&
	      b->quota.artifact_bytes == (256u << 20) &&
	      b->quota.http_sessions == 32);
	if (!a || !b)
		return;
	/* A prefix, a longer token, another's: nobody. */
	CHECK(tenants_auth(ts, tok_a, strlen(tok_a) - 1) == NULL);
	CHECK(tenants_auth(ts, "", 0) == NULL);
	snprintf(text, sizeof(text), "%sx", tok_a);
	CHECK(tenants_auth(ts, text, strlen(text)) == NULL);

	/* Quotas: one at a time, two a minute. */
	CHECK(tenant_begin(a, 1000, &err) == 0);
	CHECK(tenant_begin(a, 1001, &err) == ERR_QUOTA_EXCEEDED);
	CHECK_STR_CONTAINS(err.msg, "concurrent=1");
	tenant_end(a);
	CHECK(tenant_begin(a, 1002, &err) == 0);
	tenant_end(a);
	CHECK(tenant_begin(a, 1003, &err) == ERR_QUOTA_EXCEEDED);
	CHECK_STR_CONTAINS(err.msg, "per_minute=2");
	CHECK(tenant_begin(a, 1003 + 30000, &err) == 0); /* one back */
	tenant_end(a);
	for (i = 0; i < 4; i++) /* bob: 4 at once */
		CHECK(tenant_begin(b, 5000, &err) == 0);
	CHECK(tenant_begin(b, 5000, &err) == ERR_QUOTA_EXCEEDED);

	/* Sessions and artifact bytes: a hold counts until released, so
	 * checks made before any create or keep is done cannot overshoot. */
	CHECK(tenant_hold_session(a, 0, &err) == 0);
	CHECK(tenant_hold_session(a, 0, &err) == 0);
	CHECK(tenant_hold_session(a, 0, &err) == ERR_QUOTA_EXCEEDED);
	CHECK_STR_CONTAINS(err.msg, "sessions=2");
	tenant_release_session(a);
	CHECK(tenant_hold_session(a, 1, &err) == ERR_QUOTA_EXCEEDED);
	tenant_release_session(a);
	CHECK(tenant_hold_session(a, 1, &err) == 0);
	tenant_release_session(a);
	CHECK(a->sessions_held == 0);
	CHECK(tenant_hold_artifacts(a, 0, 600000, &err) == 0);
	CHECK(tenant_hold_artifacts(a, 0, 600000, &err) == ERR_QUOTA_EXCEEDED);
	CHECK_STR_CONTAINS(err.msg, "artifact_mb=1");
	CHECK(tenant_hold_artifacts(a, 0, 448576, &err) == 0); /* to 1 MiB */
	tenant_release_artifacts(a, 600000);
	tenant_release_artifacts(a, 448576);
	CHECK(a->artifacts_held == 0);
	CHECK(tenant_hold_artifacts(a, 600000, 600000, &err) ==
	      ERR_QUOTA_EXCEEDED);

	/* A reload: bob's line goes, carol's comes; alice keeps her usage. */
	CHECK(tenant_begin(a, 100000, &err) == 0);
	write_file(path, line_a, 0600);
	CHECK(tenants_reload(ts, &rerr) == 0);
	CHECK(tenants_count(ts) == 1);
	CHECK(tenants_auth(ts, tok_b, strlen(tok_b)) == NULL);
	CHECK(tenants_auth(ts, tok_a, strlen(tok_a)) == a && a->running == 1);
	CHECK(a->quota.concurrent == 4); /* its line names none now */
	CHECK(a->quota.http_sessions == 32);

	/* Refused whole, the tenants as they were. */
	{
		static const char *const bad[] = {
			"Alice sha256:00\n",
			"alice sha256:zz\n",
			"alice\n",
			"alice md5:0123\n",
		};
		size_t k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			write_file(path, bad[k], 0600);
			rerr.msg[0] = '\0';
			CHECK(tenants_reload(ts, &rerr) == -EINVAL);
			CHECK_STR_CONTAINS(rerr.msg, ":1:");
			CHECK(tenants_auth(ts, tok_a, strlen(tok_a)) == a);
		}
		snprintf(text, sizeof(text), "%s%s", line_a, line_a);
		write_file(path, text, 0600);
		CHECK(tenants_reload(ts, &rerr) == -EINVAL);
		CHECK_STR_CONTAINS(rerr.msg, "twice");
		snprintf(text, sizeof(text), "%.*s quota=1\n",
			 (int)strlen(line_a) - 1, line_a);
		write_file(path, text, 0600);
		CHECK(tenants_reload(ts, &rerr) == -EINVAL);
		write_file(path, line_a, 0602);
		CHECK(tenants_reload(ts, &rerr) == -EPERM);
		CHECK_STR_CONTAINS(rerr.msg, "written by others");
		write_file(path, line_a, 0620);
		CHECK(tenants_reload(ts, &rerr) == -EPERM);
	}
	CHECK(tenants_find(ts, "alice") == a && !tenants_find(ts, "bob"));
	tenants_free(ts);
	CHECK(tenant_valid_name("a-b_1") && !tenant_valid_name("a.b") &&
	      !tenant_valid_name("") && !tenant_valid_name("A"));
}

static void links(void)
{
	struct links *l = NULL;
	char path[300], sig[80], *u, *q;
	struct error err;
	long long exp;
	int64_t now = 1800000000;

	CHECK(links_open(dir, 3600, &l, &err) == 0);
	CHECK(links_url(l, "alice", "0123456789abcdef", "a.txt", now) == NULL);
	links_set_base(l, "http://127.0.0.1:8808");
	u = links_url(l, "alice", "0123456789abcdef", "out/r é.csv", now);
	CHECK(u != NULL);
	CHECK_STR_CONTAINS(u,
			   "http://127.0.0.1:8808/artifacts/"
			   "0123456789abcdef/out/r%20%C3%A9.csv?t=alice&exp=");
	q = u ? strstr(u, "&exp=") : NULL;
	CHECK(q && sscanf(q, "&exp=%lld&sig=%79s", &exp, sig) == 2);
	CHECK(exp == now + 3600);
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r é.csv", exp,
			  sig, now) == 0);
	/* Tampered with: the tenant, the set, the path, the expiry, the
	 * signature; or too late. */
	CHECK(links_check(l, "bob", "0123456789abcdef", "out/r é.csv", exp, sig,
			  now) == -EACCES);
	CHECK(links_check(l, "", "0123456789abcdef", "out/r é.csv", exp, sig,
			  now) == -EACCES);
	CHECK(links_check(l, "alice", "0123456789abcdee", "out/r é.csv", exp,
			  sig, now) == -EACCES);
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r.csv", exp, sig,
			  now) == -EACCES);
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r é.csv",
			  exp + 1, sig, now) == -EACCES);
	sig[0] = sig[0] == 'a' ? 'b' : 'a';
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r é.csv", exp,
			  sig, now) == -EACCES);
	sig[0] = sig[0] == 'a' ? 'b' : 'a';
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r é.csv", exp,
			  sig, exp + 1) == -EACCES);
	CHECK(links_check(l, "alice", "0123456789abcdef", "out/r é.csv", exp,
			  "short", now) == -EACCES);
	free(u);
	links_free(l);

	/* The key outlives the server; a key others may read is refused. */
	CHECK(links_open(dir, 60, &l, &err) == 0);
	links_free(l);
	snprintf(path, sizeof(path), "%s/link.key", dir);
	chmod(path, 0644);
	CHECK(links_open(dir, 60, &l, &err) == -EPERM);
	CHECK_STR_CONTAINS(err.msg, "forge");
}

int main(void)
{
	char cmd[128];

	if (!mkdtemp(dir))
		return 1;
	tokens();
	links();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return t_summary("tenants_links");
}
