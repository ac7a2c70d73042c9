/* core/packages/packages.c, core/packages/pkg_cache.c and
 * core/packages/registry_check.c: the specs each ecosystem accepts and
 * refuses, their normal form, cache keys, registry URLs, the proxy's log,
 * manifests, the index's LRU eviction and volume binding, and the registry
 * check's answer in words.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/packages/packages.h"
#include "core/packages/pkg_cache.h"
#include "core/packages/registry_check.h"
#include "testlib.h"

static int ok(const char *eco, const char *spec, const char *want)
{
	char norm[PKG_SPEC_MAX + 1];
	struct error err;

	if (pkg_spec_check(eco, spec, norm, &err)) {
		fprintf(stderr, "  refused %s '%s': %s\n", eco, spec, err.msg);
		return 0;
	}
	if (strcmp(norm, want) != 0) {
		fprintf(stderr, "  %s '%s' -> '%s', want '%s'\n", eco, spec,
			norm, want);
		return 0;
	}
	return 1;
}

static int refused(const char *eco, const char *spec)
{
	char norm[PKG_SPEC_MAX + 1];
	struct error err = {0};

	if (pkg_spec_check(eco, spec, norm, &err) == 0) {
		fprintf(stderr, "  accepted %s '%s' as '%s'\n", eco, spec,
			norm);
		return 0;
	}
	return err.code == ERR_INVALID_PACKAGE && err.msg[0];
}

static void check_pypi(void)
{
	CHECK(ok("pypi", "requests", "requests"));
	CHECK(ok("pypi", "Requests==2.32.3", "requests==2.32.3"));
	CHECK(ok("pypi", "pandas==2.2.*", "pandas==2.2.*"));
	CHECK(ok("pypi", "Foo.Bar_baz>=1,<2", "foo-bar-baz>=1,<2"));
	CHECK(ok("pypi", "requests[socks,Security]~=2.31",
		 "requests[socks,security]~=2.31"));
	CHECK(ok("pypi", "x===1.0", "x===1.0"));
	CHECK(ok("pypi", "torch!=2.0.0", "torch!=2.0.0"));
	CHECK(refused("pypi", ""));
	CHECK(refused("pypi", "requests; rm -rf /"));
	CHECK(refused("pypi", "requests;python_version<'3'"));
	CHECK(refused("pypi", "--index-url=http://x"));
	CHECK(refused("pypi", "-e"));
	CHECK(refused("pypi", "git+https://x/y"));
	CHECK(refused("pypi", "pkg@https://x/p.whl"));
	CHECK(refused("pypi", "./local"));
	CHECK(refused("pypi", "/abs/path"));
	CHECK(refused("pypi", "a b"));
	CHECK(refused("pypi", "a\tb"));
	CHECK(refused("pypi", "x==1|id"));
	CHECK(refused("pypi", "x==$(id)"));
	CHECK(refused("pypi", "x=="));
	CHECK(refused("pypi", "x==1,"));
	CHECK(refused("pypi", "x[]"));
	CHECK(refused("pypi", "x[a"));
	CHECK(refused("pypi", "-x"));
	CHECK(refused("pypi", "pk\xc3\xa9"));
}

static void check_npm(void)
{
	CHECK(ok("npm", "lodash", "lodash"));
	CHECK(ok("npm", "lodash@^4", "lodash@^4"));
	CHECK(ok("npm", "@scope/pkg@1.2.3", "@scope/pkg@1.2.3"));
	CHECK(ok("npm", "@types/node@>=20", "@types/node@>=20"));
	CHECK(ok("npm", "react@latest", "react@latest"));
	CHECK(ok("npm", "x@1.x||2.x", "x@1.x||2.x"));
	CHECK(refused("npm", "github:x/y"));
	CHECK(refused("npm", "x/y"));
	CHECK(refused("npm", "file:../x"));
	CHECK(refused("npm", "https://x/y.tgz"));
	CHECK(refused("npm", "x@npm:y"));
	CHECK(refused("npm", "x@git+ssh://x"));
	CHECK(refused("npm", "x@$(id)"));
	CHECK(refused("npm", "x@1 || 2"));
	CHECK(refused("npm", ".hidden"));
	CHECK(refused("npm", "_under"));
	CHECK(refused("npm", "@scope"));
	CHECK(refused("npm", "@/x"));
	CHECK(refused("npm", "--registry=http://x"));
	CHECK(refused("npm", "x@"));
}

static void check_go_cargo(void)
{
	CHECK(ok("go", "github.com/google/uuid", "github.com/google/uuid"));
	CHECK(ok("go", "github.com/google/uuid@v1.6.0",
		 "github.com/google/uuid@v1.6.0"));
	CHECK(ok("go", "golang.org/x/text@v0", "golang.org/x/text@v0"));
	CHECK(ok("go", "example.com/m@latest", "example.com/m@latest"));
	CHECK(ok("go", "example.com/m/v2@v2.0.1-rc.1+meta",
		 "example.com/m/v2@v2.0.1-rc.1+meta"));
	CHECK(refused("go", "github.com/x/y@master"));
	CHECK(refused("go", "github.com/x/y@4f3b2a1"));
	CHECK(refused("go", "github.com/x/y@upgrade"));
	CHECK(refused("go", "localpkg"));
	CHECK(refused("go", "GitHub.com/x/y"));
	CHECK(refused("go", "github.com/x/../y"));
	CHECK(refused("go", "github.com/x/"));
	CHECK(refused("go", "https://github.com/x/y"));
	CHECK(refused("go", "./x"));
	CHECK(refused("go", "-x"));
	CHECK(ok("cargo", "serde", "serde"));
	CHECK(ok("cargo", "serde@1", "serde@1"));
	CHECK(ok("cargo", "Serde_JSON@^1.0.100", "serde_json@^1.0.100"));
	CHECK(ok("cargo", "rand@>=0.8,<0.9", "rand@>=0.8,<0.9"));
	CHECK(refused("cargo", "1serde"));
	CHECK(refused("cargo", "serde@git"));
	CHECK(refused("cargo", "serde --git https://x"));
	CHECK(refused("cargo", "../path"));
	CHECK(refused("cargo", "serde@1;id"));
	CHECK(refused("bash", "curl"));
	CHECK(pkg_ecosystem_known("pypi") && pkg_ecosystem_known("cargo"));
	CHECK(!pkg_ecosystem_known("apt") && !pkg_ecosystem_known(NULL));
}

static void check_names_keys(void)
{
	char name[PKG_SPEC_MAX + 1], k1[PKG_KEY_LEN + 1], k2[PKG_KEY_LEN + 1],
		k3[PKG_KEY_LEN + 1];
	char *a[] = {strdup("b==1"), strdup("a"), strdup("b==1")};
	char *b[] = {strdup("a"), strdup("b==1")};
	size_t n;

	pkg_spec_name("pypi", "requests[socks]>=2", name);
	CHECK(strcmp(name, "requests") == 0);
	pkg_spec_name("npm", "@scope/pkg@^1", name);
	CHECK(strcmp(name, "@scope/pkg") == 0);
	pkg_spec_name("go", "github.com/x/y@v1.2.3", name);
	CHECK(strcmp(name, "github.com/x/y") == 0);

	n = pkg_specs_sort(a, 3);
	CHECK(n == 2 && strcmp(a[0], "a") == 0 && strcmp(a[1], "b==1") == 0);
	CHECK(pkg_key("python", "sha256:1", "", a, n, k1) == 0);
	CHECK(pkg_key("python", "sha256:1", "", b, 2, k2) == 0);
	CHECK(strcmp(k1, k2) == 0 && pkg_key_valid(k1));
	/* Every part counts: image, installer, options, specs. */
	CHECK(pkg_key("python", "sha256:2", "", b, 2, k3) == 0 &&
	      strcmp(k1, k3) != 0);
	CHECK(pkg_key("pypi\npip\n", "sha256:1", "", b, 2, k3) == 0 &&
	      strcmp(k1, k3) != 0);
	CHECK(pkg_key("python", "sha256:1", "registry=x", b, 2, k3) == 0 &&
	      strcmp(k1, k3) != 0);
	CHECK(pkg_key("python", "sha256:1", "", b, 1, k3) == 0 &&
	      strcmp(k1, k3) != 0);
	/* No two sets hash the same text: "ab" is not "a" + "b". */
	{
		char *ab[] = {"ab"}, *a_b[] = {"a", "b"};

		CHECK(pkg_key("l", "i", "", ab, 1, k2) == 0 &&
		      pkg_key("l", "i", "", a_b, 2, k3) == 0 &&
		      strcmp(k2, k3) != 0);
	}
	/* The installer, not the language: one ecosystem, command and
	 * environment is one installer (javascript's and typescript's); a
	 * part moved from the command to the environment is another. */
	{
		const char *cmd[] = {"npm-pkg", "install", "{dir}", NULL};
		const char *cmd2[] = {"npm-pkg", "install", NULL};
		const char *env[] = {"CA={ca}", NULL};
		const char *env2[] = {"{dir}", "CA={ca}", NULL};
		char i1[256], i2[256], i3[256], small[8];

		CHECK(pkg_installer_id("npm", cmd, env, i1, sizeof(i1)) == 0);
		CHECK(pkg_installer_id("npm", cmd, env, i2, sizeof(i2)) == 0);
		CHECK(strcmp(i1, i2) == 0);
		CHECK(pkg_installer_id("npm", cmd2, env2, i3, sizeof(i3)) == 0);
		CHECK(strcmp(i1, i3) != 0);
		CHECK(pkg_installer_id("pypi", cmd, env, i3, sizeof(i3)) == 0);
		CHECK(strcmp(i1, i3) != 0);
		CHECK(pkg_installer_id("npm", cmd, NULL, i3, sizeof(i3)) == 0);
		CHECK(strcmp(i1, i3) != 0);
		CHECK(pkg_installer_id("npm", cmd, env, small, sizeof(small)) ==
		      -ENAMETOOLONG);
	}
	CHECK(!pkg_key_valid("abc") && !pkg_key_valid("../x"));
	free(a[0]);
	free(a[1]);
	free(b[0]);
	free(b[1]);
}

static int hp(const char *url, const char *want)
{
	char out[300];

	if (pkg_url_hostport(url, out, sizeof(out)))
		return want == NULL;
	return want && strcmp(out, want) == 0;
}

static void check_urls(void)
{
	CHECK(hp("https://Registry.Example.org/", "registry.example.org:443"));
	CHECK(hp("http://pypi-local:8080/simple/", "pypi-local:8080"));
	CHECK(hp("http://10.0.0.5/x", "10.0.0.5:80"));
	CHECK(hp("https://h", "h:443"));
	CHECK(hp("ftp://h/", NULL));
	CHECK(hp("https://user:pw@h/", NULL));
	CHECK(hp("https://[::1]/", NULL));
	CHECK(hp("https://h:0/", NULL));
	CHECK(hp("https://h:99999/", NULL));
	CHECK(hp("https://h:/", NULL));
	CHECK(hp("https://h_x/", NULL));
	CHECK(hp("https:///x", NULL));
	CHECK(hp("https://.h/", NULL));
}

static void check_proxy_log(void)
{
	static const char log[] =
		"sbx 1795473604.353 CONNECT reg.example:443 200 790 11611 "
		"TCP_TUNNEL 194\n"
		"sbx 1795473604.357 CONNECT evil.example:443 403 36 3410 "
		"TCP_DENIED 2\n"
		"sbx 1795473604.358 - error:transaction-end-before-headers 0 "
		"0 0 NONE_NONE 0\n"
		"2026/11/23 22:40:03| a cache.log line\n"
		"sbx 1795473604.400 GET http://pypi-local:8080/simple/x/ 200 "
		"120 900 TCP_MISS 5\n"
		"sbx 1795866070.245 CONNECT gone.example:443 500 53 0 "
		"NONE_NONE 1 ERR_CANNOT_FORWARD\n"
		"sbx 1795866070.304 CONNECT reg.example:443 200 92 143 "
		"TCP_TUNNEL 51 -";
	unsigned refused = 0;
	cJSON *arr = pkg_proxy_log_json(log, strlen(log), &refused), *c;

	CHECK(cJSON_GetArraySize(arr) == 5 && refused == 1);
	c = cJSON_GetArrayItem(arr, 3);
	CHECK(cJSON_GetObjectItem(c, "status")->valueint == 500);
	CHECK(strcmp(cJSON_GetObjectItem(c, "error")->valuestring,
		     "ERR_CANNOT_FORWARD") == 0);
	CHECK(!cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 4), "error"));
	CHECK(!cJSON_GetObjectItem(cJSON_GetArrayItem(arr, 0), "error"));
	c = cJSON_GetArrayItem(arr, 0);
	CHECK(strcmp(cJSON_GetObjectItem(c, "host")->valuestring,
		     "reg.example") == 0);
	CHECK(cJSON_GetObjectItem(c, "port")->valueint == 443);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(c, "allowed")));
	CHECK(cJSON_GetObjectItem(c, "bytesOut")->valueint == 11611);
	c = cJSON_GetArrayItem(arr, 1);
	CHECK(cJSON_IsFalse(cJSON_GetObjectItem(c, "allowed")));
	c = cJSON_GetArrayItem(arr, 2);
	CHECK(strcmp(cJSON_GetObjectItem(c, "host")->valuestring,
		     "pypi-local") == 0);
	CHECK(cJSON_GetObjectItem(c, "port")->valueint == 8080);
	cJSON_Delete(arr);
}

/* The check script's lines (as bash printed them against Squid 5 on this
 * kind of machine) and what a person reads of them. */
static void check_registry_check(void)
{
	static const char out[] =
		"sbx-registry reg.example:443 ok 200\n"
		"sbx-registry gone.example:443 status 500 ERR_CANNOT_FORWARD:0 "
		"Internal Server Error\n"
		"noise\n"
		"sbx-registry 127.0.0.1:9 status 503 ERR_CONNECT_FAIL:111 "
		"Service Unavailable\n"
		"sbx-registry up.example:443 status 500 - Internal Server "
		"Error\n"
		"sbx-registry slow.example:8080 silent\n"
		"sbx-registry mute.example:443 mute\n"
		"sbx-registry dns.example:80 status 503 ERR_DNS_FAIL:0 Service "
		"Unavailable\n"
		"sbx-registry shut.example:443 closed";
	struct registry_result r[16];
	size_t n = registry_check_parse(out, strlen(out), r, 16);
	char how[400];

	CHECK(n == 8);
	CHECK(r[0].state == REGISTRY_OK && r[0].status == 200 &&
	      strcmp(r[0].hostport, "reg.example:443") == 0);
	CHECK(r[1].state == REGISTRY_STATUS && r[1].status == 500 &&
	      strcmp(r[1].squid, "ERR_CANNOT_FORWARD:0") == 0 &&
	      strcmp(r[1].reason, "Internal Server Error") == 0);
	registry_describe(&r[1], "", 3000, how, sizeof(how));
	CHECK(strstr(how, "does not resolve") && strstr(how, "500"));
	registry_describe(&r[1], "corp:3128", 3000, how, sizeof(how));
	CHECK(strcmp(how, "the egress proxy got no way through the upstream "
			  "proxy corp:3128 (500 ERR_CANNOT_FORWARD)") == 0);
	registry_describe(&r[2], "", 3000, how, sizeof(how));
	CHECK(strcmp(how, "refused the connection (TCP)") == 0);
	/* No Squid error page: the upstream proxy's own answer. */
	CHECK(r[3].squid[0] == '\0');
	registry_describe(&r[3], "corp:3128", 3000, how, sizeof(how));
	CHECK(strcmp(how, "the upstream proxy corp:3128 answered 500 "
			  "Internal Server Error") == 0);
	registry_describe(&r[3], "", 3000, how, sizeof(how));
	CHECK(strcmp(how, "answered 500 Internal Server Error") == 0);
	registry_describe(&r[4], "", 2500, how, sizeof(how));
	CHECK(strcmp(how, "no answer within 2.5 s") == 0);
	registry_describe(&r[5], "", 3000, how, sizeof(how));
	CHECK(strstr(how, "accepted the connection but sent nothing"));
	registry_describe(&r[6], "", 3000, how, sizeof(how));
	CHECK(strstr(how, "its name does not resolve (DNS"));
	CHECK(r[7].state == REGISTRY_CLOSED);
	CHECK(registry_check_parse(out, strlen(out), r, 2) == 2);

	registry_advice("python-ml", NULL, "", how, sizeof(how));
	CHECK(strstr(how, "[python-ml] registry = URL") &&
	      strstr(how, "SANDBOX_PYTHON_ML_REGISTRY=URL") &&
	      strstr(how, "set [packages] upstream_proxy = host:port"));
	registry_advice("go", "http://m:8080/", "corp:3128", how, sizeof(how));
	CHECK(strstr(how, "check the mirror set as [go] registry = "
			  "http://m:8080/") &&
	      strstr(how, "upstream_proxy = corp:3128: check it"));

	/* Real installers' words for an untrusted certificate. */
	CHECK(registry_tls_untrusted(
		"SSLError(SSLCertVerificationError(1, '[SSL: "
		"CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
		"self-signed certificate in certificate chain"));
	CHECK(registry_tls_untrusted(
		"npm error code SELF_SIGNED_CERT_IN_CHAIN"));
	CHECK(registry_tls_untrusted("tls: failed to verify certificate: "
				     "x509: certificate signed by unknown "
				     "authority"));
	CHECK(registry_tls_untrusted("[60] SSL peer certificate or SSH remote "
				     "key was not OK (SSL certificate problem: "
				     "self-signed certificate)"));
	CHECK(!registry_tls_untrusted("ERROR: No matching distribution found"));
}

static void check_manifest(void)
{
	static const char good[] =
		"{\"installer\":\"pip 23.0.1\",\"packages\":[{\"name\":\"a\","
		"\"version\":\"1\",\"requested\":true,\"bytes\":10},{\"name\":"
		"\"b\",\"version\":\"2\",\"bytes\":-5}]}";
	struct error err = {0};
	cJSON *m = pkg_manifest_parse(good, strlen(good), &err), *p;

	CHECK(m && !err.code);
	p = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "packages"), 1);
	CHECK(p && cJSON_IsFalse(cJSON_GetObjectItem(p, "requested")));
	CHECK(p && cJSON_GetObjectItem(p, "bytes")->valueint == 0);
	cJSON_Delete(m);
	CHECK(!pkg_manifest_parse("nope", 4, &err) &&
	      err.code == ERR_INSTALL_FAILED && err.msg[0]);
	err.code = 0;
	CHECK(!pkg_manifest_parse("{\"packages\":[{\"name\":\"a\"}]}", 27,
				  &err) &&
	      err.code == ERR_INSTALL_FAILED);
	err.code = 0;
	CHECK(!pkg_manifest_parse("{}", 2, &err) &&
	      err.code == ERR_INSTALL_FAILED);
}

static cJSON *manifest_of(unsigned bytes)
{
	char buf[160];

	snprintf(buf, sizeof(buf),
		 "{\"installer\":\"t\",\"packages\":[{\"name\":\"x\","
		 "\"version\":\"1\",\"bytes\":%u}]}",
		 bytes);
	return cJSON_Parse(buf);
}

static int busy_a(const char *key, void *arg)
{
	return strcmp(key, arg) == 0;
}

static void check_cache(void)
{
	char dir[] = "/tmp/sbx-test-pkgcache-XXXXXX", keys[4][PKG_KEY_LEN + 1],
	     victims[4][PKG_KEY_LEN + 1], path[256];
	struct pkg_cache *c = NULL;
	uv_loop_t loop;
	cJSON *specs = cJSON_CreateArray();
	size_t i, n;

	CHECK(mkdtemp(dir) != NULL);
	uv_loop_init(&loop);
	CHECK(pkg_cache_open(&loop, dir, "packages", &c) == 0);
	CHECK(pkg_cache_count(c) == 0 && !*pkg_cache_volume(c));
	CHECK(pkg_cache_bind_volume(c, "vol-a") == 1);
	for (i = 0; i < 4; i++) {
		cJSON *m = manifest_of(100);

		memset(keys[i], 'a' + (int)i, PKG_KEY_LEN);
		keys[i][PKG_KEY_LEN] = '\0';
		CHECK(pkg_cache_add(c, keys[i], "python", specs, m, 1.0,
				    (int64_t)(1000 + i)) != NULL);
		cJSON_Delete(m);
	}
	CHECK(pkg_cache_bytes(c) == 400);
	/* Used most recently: the oldest but one; in use: the oldest. */
	pkg_cache_find(c, keys[1])->last_used = 5000;
	n = pkg_cache_evict(c, 250, keys[3], busy_a, keys[0], victims, 4);
	CHECK(n == 2);
	CHECK(strcmp(victims[0], keys[2]) == 0);
	CHECK(strcmp(victims[1], keys[1]) == 0);
	CHECK(pkg_cache_find(c, keys[0]) && pkg_cache_find(c, keys[3]));
	CHECK(pkg_cache_bytes(c) == 200);
	/* Nothing left to evict but the pinned and the kept one. */
	CHECK(pkg_cache_evict(c, 0, keys[3], busy_a, keys[0], victims, 4) == 0);

	/* Saved to disk and read back. */
	uv_run(&loop, UV_RUN_DEFAULT);
	pkg_cache_close(c);
	CHECK(pkg_cache_open(&loop, dir, "packages", &c) == 0);
	CHECK(pkg_cache_count(c) == 2 &&
	      strcmp(pkg_cache_volume(c), "vol-a") == 0);
	CHECK(pkg_cache_find(c, keys[3]) &&
	      pkg_cache_find(c, keys[3])->bytes == 100);
	/* Another volume: everything known of the old one goes. */
	CHECK(pkg_cache_bind_volume(c, "vol-a") == 0);
	CHECK(pkg_cache_bind_volume(c, "vol-b") == 1 &&
	      pkg_cache_count(c) == 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	pkg_cache_close(c);
	uv_loop_close(&loop);
	cJSON_Delete(specs);
	snprintf(path, sizeof(path), "%s/packages.json", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	check_pypi();
	check_npm();
	check_go_cargo();
	check_names_keys();
	check_urls();
	check_proxy_log();
	check_registry_check();
	check_manifest();
	check_cache();
	return t_summary("packages");
}
