/*
 * Plugin loader: the real plugins load; broken fixtures (wrong ABI, no
 * entry symbol, NULL descriptor, invalid descriptor, bad name, duplicate
 * name) are each rejected while the good ones keep working.
 */
#include <stdlib.h>
#include <string.h>

#include "util/log.h"
#include "core/plugins.h"
#include "testlib.h"

static int hits(const struct policy *p, const char *code)
{
	struct blocklist_hit h[BLOCKLIST_MAX_HITS];

	return blocklist_scan(&p->blocklist, code, strlen(code), h,
			      BLOCKLIST_MAX_HITS);
}

static void real_plugins(const char *dir)
{
	struct plugin_set s = {0};
	struct config c;
	const struct plugin *py;

	CHECK(plugins_load_dir(&s, dir) == 0);
	CHECK(s.rejected == 0);
	py = plugins_find(&s, "python");
	CHECK(py != NULL);
	CHECK(plugins_find(&s, "py") == py); /* alias */
	CHECK(plugins_find(&s, "bash") != NULL);
	CHECK(plugins_find(&s, "cobol") == NULL);

	config_init(&c);
	CHECK(config_set(&c, "python", "memory_mb", "777",
			 &(const char *){0}) == 0);
	CHECK(config_set(&c, "limits", "timeout_ms", "1234",
			 &(const char *){0}) == 0);
	CHECK(config_set(&c, "python", "block", "forbidden_word",
			 &(const char *){0}) == 0);
	CHECK(config_set(&c, "bash", "block", "x(\xc3\xa9)+",
			 &(const char *){0}) == 0);
	CHECK(plugins_apply_config(&s, &c) == 0);
	if (py) {
		/* [python] beats the plugin, which beats [limits] */
		CHECK(py->policy.limits.memory_mb == 777);
		CHECK(py->policy.limits.timeout_ms == 1234);
		CHECK(py->policy.limits.pids == 128);
		CHECK(strcmp(py->policy.image, "mcp-sandbox/python:latest") ==
		      0);
		/* sandbox.ini's pattern joins the plugin's rules, and sees
		 * code through the plugin's lexer */
		CHECK(py->policy.blocklist.mode == BLOCKLIST_WARN);
		CHECK(py->policy.blocklist.n > 1);
		CHECK(py->policy.blocklist.lex != NULL);
		CHECK(hits(&py->policy, "x = forbidden_word") == 1);
		CHECK(hits(&py->policy,
			   "x = 'forbidden_word' # forbidden_word") == 0);
		CHECK(hits(&py->policy,
			   "import os, sys, re, subprocess\n"
			   "subprocess.run(['ls'])\nre.compile('x')") == 0);
		CHECK(hits(&py->policy, "import os\nos.setuid(0)") == 1);
	}
	{
		/* A match cut at its cap inside a character stays UTF-8. */
		const struct plugin *sh = plugins_find(&s, "bash");
		struct blocklist_hit h[BLOCKLIST_MAX_HITS];
		char code[128] = "x";

		for (int k = 0; k < 40; k++)
			strcat(code, "\xc3\xa9");
		CHECK(sh &&
		      blocklist_scan(&sh->policy.blocklist, code, strlen(code),
				     h, BLOCKLIST_MAX_HITS) == 1);
		CHECK(strlen(h[0].match) == BLOCKLIST_MATCH_MAX);
		CHECK(h[0].match[BLOCKLIST_MATCH_MAX - 1] == '?');
		CHECK((unsigned char)h[0].match[BLOCKLIST_MATCH_MAX - 2] ==
		      0xa9);
		CHECK(py->policy.seccomp_deny[0] == NULL);
		CHECK(py->policy.seccomp_profile &&
		      strstr(py->policy.seccomp_profile, "\"io_uring_setup\""));
	}
	plugins_close(&s);
	config_close(&c);
}

static void fixtures(const char *dir)
{
	struct plugin_set s = {0};
	const struct plugin *perl;

	CHECK(plugins_load_dir(&s, dir) == 0);
	/* perl (the SDK example), "fixture" and an ABI 1.0 plugin load;
	 * bad_abi, bad_name, dup_perl, no_entry, no_run, null_desc are
	 * rejected. */
	CHECK(s.n == 3);
	CHECK(plugins_find(&s, "old") != NULL);
	if (plugins_find(&s, "old")) {
		/* fields of ABI 1.1 read as empty for a 1.0 plugin */
		CHECK(plugins_find(&s, "old")->desc->options == NULL);
		CHECK(plugins_find(&s, "old")->desc->ml_variant == NULL);
		CHECK(plugins_find(&s, "old")->desc->warmup_code == NULL);
		CHECK(plugin_option(plugins_find(&s, "old"), "optimize") ==
		      NULL);
		CHECK(plugins_find(&s, "old")->desc->lex_mask == NULL);
	}
	CHECK(s.rejected == 6);
	perl = plugins_find(&s, "perl");
	CHECK(perl != NULL);
	CHECK(plugins_find(&s, "fixture") != NULL);
	if (perl) {
		char *out = NULL;
		size_t len = 0;

		CHECK(perl->desc->prepare_code(plugins_host_api(), "print 1;",
					       8, &out, &len) == 0);
		CHECK_STR_CONTAINS(out, "use strict");
		free(out);
	}
	{
		/* The SDK example's limits pass the built-in defaults' checks
		 * (its /work, /tmp and /dev/shm fit its memory): a server with
		 * it installed starts. */
		struct config c;

		config_init(&c);
		CHECK(plugins_apply_config(&s, &c) == 0);
		config_close(&c);
	}
	plugins_close(&s);
}

static void validate(void)
{
	struct sbx_plugin d = {0};
	const char *why;
	static const char *const run[] = {"x", NULL};

	CHECK(plugin_validate(NULL, &why) < 0);
	d.struct_size = sizeof(d);
	d.abi_major = SBX_PLUGIN_ABI_MAJOR;
	d.name = "ok";
	d.image = "img";
	d.file_name = "../evil";
	d.run_cmd = run;
	CHECK(plugin_validate(&d, &why) < 0);
	d.file_name = "main.x";
	CHECK(plugin_validate(&d, &why) == 0);
	d.struct_size = 8;
	CHECK(plugin_validate(&d, &why) < 0);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: test_plugins REAL_DIR FIXTURE_DIR\n");
		return 2;
	}
	log_set_level(LOG_LEVEL_EMERGENCY);
	real_plugins(argv[1]);
	fixtures(argv[2]);
	validate();
	return t_summary("plugins");
}
