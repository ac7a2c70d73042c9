/*
 * Plugin loader: the real plugins load; broken fixtures (wrong ABI, no
 * entry symbol, NULL descriptor, invalid descriptor, bad name, duplicate
 * name) are each rejected while the good ones keep working; so are files
 * others may write, symbolic links, directories, and files in a directory
 * others may write, or under a parent others may write, or through a
 * symbolic link others may swap, each with its reason.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"
#include "core/plugins/plugins.h"
#include "testlib.h"

static int hits(const struct policy *p, const char *code)
{
	struct blocklist_hit h[BLOCKLIST_MAX_HITS];

	return blocklist_scan(&p->blocklist, code, strlen(code), h,
			      BLOCKLIST_MAX_HITS);
}

/* python's missing_module and python-ml's modules, generated from its
 * image's recipe (ABI 1.9): the hint's module, or "" when there is none. */
static const char *elsewhere(const struct plugin_set *s, const char *lang,
			     const char *text, size_t len)
{
	static char module[129];
	const struct plugin *pl = plugins_find(s, lang);

	module[0] = '\0';
	if (!pl ||
	    !plugins_module_elsewhere(s, pl, text, len, module, sizeof(module)))
		module[0] = '\0';
	return module;
}

static void ml_hint(struct plugin_set *s, struct config *c)
{
	static const char tb[] = "Traceback (most recent call last):\n"
				 "  File \"/work/main.py\", line 1\n"
				 "ModuleNotFoundError: No module named '%s'\n";
	char text[16384], *big;
	const struct plugin *ml = plugins_find(s, "python-ml");
	size_t i;

	CHECK(ml && ml->desc->modules);
	/* From images/python-ml/packages and its parent's. */
	for (i = 0; ml && ml->desc->modules[i]; i++)
		;
	CHECK(i >= 7);
	for (const char *const *m =
		     (const char *const[]){"sklearn", "seaborn", "torch",
					   "numpy", NULL};
	     *m; m++) {
		snprintf(text, sizeof(text), tb, *m);
		CHECK(strcmp(elsewhere(s, "python", text, strlen(text)), *m) ==
		      0);
	}
	/* Not python-ml's, a missing submodule, python-ml's own runs, a
	 * message that is not the exception's */
	snprintf(text, sizeof(text), tb, "requests");
	CHECK(*elsewhere(s, "python", text, strlen(text)) == '\0');
	snprintf(text, sizeof(text), tb, "sklearn.nothing");
	CHECK(*elsewhere(s, "python", text, strlen(text)) == '\0');
	snprintf(text, sizeof(text), tb, "torch");
	CHECK(*elsewhere(s, "python-ml", text, strlen(text)) == '\0');
	CHECK(*elsewhere(s, "bash", text, strlen(text)) == '\0');
	CHECK(*elsewhere(s, "python", "No module named 'torch'", 23) == '\0');
	/* Only the end counts: NULs and megabytes before it do not matter,
	 * an error long before the end is not the run's last word. */
	big = calloc(1, 1u << 20);
	if (big) {
		int n = snprintf(text, sizeof(text), tb, "seaborn");

		memcpy(big + (1u << 20) - (size_t)n, text, (size_t)n);
		CHECK(strcmp(elsewhere(s, "python", big, 1u << 20),
			     "seaborn") == 0);
		memset(big + (1u << 20) - (size_t)n, 'x', (size_t)n);
		memcpy(big, text, (size_t)n);
		CHECK(*elsewhere(s, "python", big, 1u << 20) == '\0');
		free(big);
	}
	/* No hint toward a runtime sandbox.ini turned off. */
	snprintf(text, sizeof(text), tb, "torch");
	CHECK(config_set(c, "python-ml", "enabled", "false", NULL) == 0);
	CHECK(plugins_apply_config(s, c) == 0);
	CHECK(*elsewhere(s, "python", text, strlen(text)) == '\0');
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
	CHECK(config_set(&c, "python", "memory_mb", "777", NULL) == 0);
	CHECK(config_set(&c, "limits", "timeout_ms", "1234", NULL) == 0);
	CHECK(config_set(&c, "python", "block", "forbidden_word", NULL) == 0);
	CHECK(config_set(&c, "bash", "block", "x(\xc3\xa9)+", NULL) == 0);
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
	ml_hint(&s, &c);
	plugins_close(&s);
	config_close(&c);
}

static char warnings[8192];

/* Keeps the warnings logged, for checking what the loader said. */
static void warning_sink(enum log_level level, const char *logger,
			 const char *msg, void *arg)
{
	size_t n = strlen(warnings);

	(void)logger;
	(void)arg;
	if (level == LOG_LEVEL_WARNING)
		snprintf(warnings + n, sizeof(warnings) - n, "%s\n", msg);
}

static void fixtures(const char *dir)
{
	struct plugin_set s = {0};
	const struct plugin *perl;

	CHECK(plugins_load_dir(&s, dir) == 0);
	/* perl (the SDK example), "fixture", bad_hooks (whose hooks only
	 * misbehave when called: tests/plugin-kit), greedy (whose limits
	 * the host lowers: below) and an ABI 1.0 plugin load; bad_abi,
	 * bad_name, dup_perl, init_fails, no_entry, no_run, no_session_cmd,
	 * null_desc, short_struct are rejected. */
	CHECK(s.n == 5);
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
	CHECK(s.rejected == 9);
	perl = plugins_find(&s, "perl");
	CHECK(perl != NULL);
	CHECK(plugins_find(&s, "fixture") != NULL);
	if (perl) {
		char *out = NULL;
		size_t len = 0;

		char *mine, stack[32] = "not from host->alloc";
		const struct sbx_host_api *h = plugins_host_api();

		CHECK(perl->desc->prepare_code(h, "print 1;", 8, &out, &len) ==
		      0);
		/* The host takes the buffer: its own copy, the plugin's freed.
		 */
		mine = plugin_buffer_take(perl, out, len, &len);
		CHECK(mine != NULL);
		CHECK_STR_CONTAINS(mine, "use strict");
		CHECK(mine && len == strlen(mine));
		free(mine);
		/* Not from host->alloc, or a length past the buffer: refused.
		 */
		CHECK(plugin_buffer_take(perl, stack + 16, 4, &len) == NULL);
		out = h->alloc(4);
		if (out) {
			memcpy(out, "abc", 4);
			CHECK(plugin_buffer_take(perl, out, 5, &len) == NULL);
		}
		/* A message: the text up to its NUL, within the buffer. */
		out = h->alloc(8);
		if (out) {
			memcpy(out, "no way\0x", 8);
			mine = plugin_buffer_take(perl, out, 0, NULL);
			CHECK(mine && strcmp(mine, "no way") == 0);
			free(mine);
		}
		h->free(NULL);
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
	{
		/* A plugin gets no more than the host's ceilings, whatever it
		 * asks; the administrator's section may grant more. */
		const struct plugin *g = plugins_find(&s, "greedy");
		struct config c;

		config_init(&c);
		warnings[0] = '\0';
		log_set_sink(warning_sink, NULL);
		CHECK(g != NULL && plugins_apply_config(&s, &c) == 0);
		log_set_sink(NULL, NULL);
		/* every limit lowered says so, the timeout too (plugin-abi.md)
		 */
		CHECK_STR_CONTAINS(warnings, "[greedy] the plugin asks for "
					     "memory_mb");
		CHECK_STR_CONTAINS(warnings, "[greedy] the plugin asks for "
					     "timeout_ms 86400000; lowered");
		if (g) {
			CHECK(g->policy.limits.memory_mb == c.max_memory_mb);
			CHECK(g->policy.limits.cpu_millis == c.max_cpu_millis);
			CHECK(g->policy.limits.pids == c.max_pids);
			CHECK(g->policy.limits.stdout_cap == c.max_output_cap);
			CHECK(g->policy.limits.stderr_cap == c.max_output_cap);
			CHECK(g->policy.limits.timeout_ms == c.max_timeout_ms);
		}
		CHECK(config_set(&c, "greedy", "memory_mb", "8192", NULL) == 0);
		/* The administrator's word, but not more than the agent
		 * captures. */
		CHECK(config_set(&c, "greedy", "stdout_cap", "20000000",
				 NULL) == 0);
		warnings[0] = '\0';
		log_set_sink(warning_sink, NULL);
		CHECK(plugins_apply_config(&s, &c) == 0);
		log_set_sink(NULL, NULL);
		CHECK(g && g->policy.limits.memory_mb == 8192);
		CHECK(g && g->policy.limits.stdout_cap == 8u << 20);
		CHECK_STR_CONTAINS(warnings, "[greedy] stdout_cap 20000000 is "
					     "over 8388608, the most the "
					     "agent captures");
		config_close(&c);
	}
	plugins_close(&s);
}

static void validate(void)
{
	struct sbx_plugin d = {0};
	struct error err;
	static const char *const run[] = {"x", NULL};

	CHECK(plugin_validate(NULL, &err) < 0);
	d.struct_size = sizeof(d);
	d.abi_major = SBX_PLUGIN_ABI_MAJOR;
	d.name = "ok";
	d.image = "img";
	d.file_name = "../evil";
	d.run_cmd = run;
	CHECK(plugin_validate(&d, &err) < 0);
	d.file_name = "main.x";
	CHECK(plugin_validate(&d, &err) == 0);
	d.struct_size = 8;
	CHECK(plugin_validate(&d, &err) < 0);

	/* A minor's fields must be there: a 1.7 plugin of 1.6's size. */
	d.abi_minor = 7;
	d.struct_size = offsetof(struct sbx_plugin, init_msg);
	CHECK(plugin_validate(&d, &err) < 0);
	CHECK_STR_CONTAINS(err.msg, "smaller than its ABI minor's");
	d.abi_minor = 6; /* the same size, honestly 1.6 */
	CHECK(plugin_validate(&d, &err) == 0);
	/* A 1.8 plugin ends before missing_module. */
	d.abi_minor = 8;
	d.struct_size = offsetof(struct sbx_plugin, missing_module);
	CHECK(plugin_validate(&d, &err) == 0);
	d.abi_minor = 9;
	CHECK(plugin_validate(&d, &err) < 0);
	/* A newer minor than the host's loads; its unknown fields are not
	 * read. */
	d.abi_minor = SBX_PLUGIN_ABI_MINOR + 1;
	d.struct_size = sizeof(d) + 64;
	CHECK(plugin_validate(&d, &err) == 0);
	d.abi_minor = SBX_PLUGIN_ABI_MINOR;
	d.struct_size = sizeof(d);

	/* struct sbx_samples has no size: a 1.9 plugin's ends before
	 * session_fds (1.10), so whatever follows it is not read (here a
	 * sample over 64 KiB, which 1.10 refuses). */
	{
		static char huge[70000];
		struct sbx_samples mine = {.hello = "1", .session_fds = huge};
		struct sbx_samples got;

		memset(huge, 'a', sizeof(huge) - 1);
		d.samples = &mine;
		d.abi_minor = 9;
		plugin_samples_copy(&d, &got);
		CHECK(got.hello == mine.hello && got.session_fds == NULL);
		CHECK(plugin_validate(&d, &err) == 0);
		d.abi_minor = 10;
		plugin_samples_copy(&d, &got);
		CHECK(got.session_fds == huge);
		CHECK(plugin_validate(&d, &err) < 0);
		CHECK_STR_CONTAINS(err.msg, "sample program is over 64 KiB");
		d.samples = NULL;
		plugin_samples_copy(&d, &got);
		CHECK(got.hello == NULL && got.session_fds == NULL);
		d.abi_minor = SBX_PLUGIN_ABI_MINOR;
	}

#define BAD(field, value, words)                                               \
	do {                                                                   \
		struct sbx_plugin b = d;                                       \
		b.field = value;                                               \
		err.msg[0] = '\0';                                             \
		CHECK(plugin_validate(&b, &err) == -EINVAL);                   \
		CHECK_STR_CONTAINS(err.msg, words);                            \
	} while (0)
	{
		static char longer[400];
		static const char *const bad_env[] = {"1X=y", NULL};
		static const char *const empty_first[] = {"", NULL};
		static const char *const session[] = {"repl", NULL};

		memset(longer, 'a', sizeof(longer) - 1);
		BAD(description, longer, "description");
		BAD(description, "two\nlines", "description");
		BAD(version, longer, "version");
		BAD(image, "img with space", "image");
		BAD(image, longer, "image");
		BAD(env, bad_env, "KEY=VALUE");
		BAD(run_cmd, empty_first, "run_cmd");
		BAD(limits.memory_mb, 1u << 30, "limit");
		BAD(limits.timeout_ms, 100000000, "limit");
		BAD(session_request,
		    (int (*)(const struct sbx_host_api *, uint32_t,
			     const char *, size_t, const char *, size_t,
			     char **, size_t *))validate,
		    "session_request without a session_cmd");
		BAD(package_ecosystem, "maven", "package_ecosystem");
		{
			static const char *const bad_mods[] = {"ok", "a b",
							       NULL};

			BAD(missing_module, "No module named '(", "ERE");
			BAD(missing_module, "No module named", "subexpression");
			BAD(modules, bad_mods, "modules");
		}
		{
			struct sbx_plugin ok = d;

			ok.session_cmd = session;
			CHECK(plugin_validate(&ok, &err) == 0);
		}
	}
#undef BAD
}

/* Copies src to dir/name with mode; 0 on success. */
static int copy_file(const char *src, const char *dir, const char *name,
		     mode_t mode)
{
	char path[4096], buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	in = open(src, O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (in < 0 || out < 0)
		rc = -1;
	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return rc || chmod(path, mode) ? -1 : 0;
}

/* The reason plugins_load_dir kept for dir/name, or "" (not rejected). */
static const char *reason(const struct plugin_set *s, const char *dir,
			  const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (size_t i = 0; i < s->rejected; i++)
		if (s->rejects[i].path && strcmp(s->rejects[i].path, path) == 0)
			return s->rejects[i].reason ? s->rejects[i].reason
						    : "?";
	return "";
}

/* Each broken fixture is rejected with the reason that fits it. */
static void fixture_reasons(const char *dir)
{
	struct plugin_set s = {0};

	CHECK(plugins_load_dir(&s, dir) == 0);
	CHECK_STR_CONTAINS(reason(&s, dir, "bad_abi.so"),
			   "ABI 99.0, the host supports 1.x");
	CHECK_STR_CONTAINS(reason(&s, dir, "bad_name.so"), "name must match");
	CHECK_STR_CONTAINS(reason(&s, dir, "init_fails.so"),
			   "its init hook failed: the runtime is not "
			   "installed");
	CHECK_STR_CONTAINS(reason(&s, dir, "no_entry.so"),
			   "no sbx_plugin_entry symbol");
	CHECK_STR_CONTAINS(reason(&s, dir, "no_run.so"), "run_cmd");
	CHECK_STR_CONTAINS(reason(&s, dir, "no_session_cmd.so"),
			   "session_request without a session_cmd");
	CHECK_STR_CONTAINS(reason(&s, dir, "null_desc.so"),
			   "entry function returned NULL");
	CHECK_STR_CONTAINS(reason(&s, dir, "short_struct.so"),
			   "smaller than its ABI minor's");
	CHECK_STR_CONTAINS(reason(&s, dir, "zz_dup_perl.so"),
			   "language name 'perl' is already provided by");
	plugins_close(&s);
}

/* Files that others could write, or that are not regular files, are not
 * opened; the same plugin, safely installed, loads. */
static void unsafe_files(const char *fixture_dir)
{
	char perl[4096], dir[] = "/tmp/sbx-plugins-XXXXXX", open_dir[4200],
			 path[4300];
	struct plugin_set s = {0};

	snprintf(perl, sizeof(perl), "%s/perl.so", fixture_dir);
	CHECK(mkdtemp(dir) != NULL);
	CHECK(copy_file(perl, dir, "ok.so", 0755) == 0);
	CHECK(copy_file(perl, dir, "everyone.so", 0757) == 0);
	CHECK(copy_file(perl, dir, "group.so", 0775) == 0);
	snprintf(path, sizeof(path), "%s/link.so", dir);
	CHECK(symlink(perl, path) == 0);
	snprintf(path, sizeof(path), "%s/dir.so", dir);
	CHECK(mkdir(path, 0755) == 0);
	if (geteuid() == 0) {
		CHECK(copy_file(perl, dir, "other.so", 0755) == 0);
		snprintf(path, sizeof(path), "%s/other.so", dir);
		CHECK(chown(path, 1000, 1000) == 0);
	}
	CHECK(plugins_load_dir(&s, dir) == 0);
	CHECK(s.n == 1 && plugins_find(&s, "perl") != NULL);
	CHECK(strcmp(reason(&s, dir, "ok.so"), "") == 0);
	CHECK_STR_CONTAINS(reason(&s, dir, "everyone.so"),
			   "every user may write it");
	CHECK_STR_CONTAINS(reason(&s, dir, "group.so"),
			   "its group may write it");
	CHECK_STR_CONTAINS(reason(&s, dir, "link.so"), "a symbolic link");
	CHECK_STR_CONTAINS(reason(&s, dir, "dir.so"), "not a regular file");
	if (geteuid() == 0)
		CHECK_STR_CONTAINS(reason(&s, dir, "other.so"),
				   "belongs to another user");
	CHECK(s.rejected == (geteuid() == 0 ? 5u : 4u));
	plugins_close(&s);

	/* A directory anyone may write: even a safe file in it is not. */
	snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
	CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 01777) == 0);
	CHECK(copy_file(perl, open_dir, "ok.so", 0755) == 0);
	memset(&s, 0, sizeof(s));
	CHECK(plugins_load_dir(&s, open_dir) == 0);
	CHECK(s.n == 0);
	CHECK_STR_CONTAINS(reason(&s, open_dir, "ok.so"), "its directory");
	plugins_close(&s);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

/* Every directory on the way to a plugin, and every symbolic link
 * followed there, is checked: a world-writable parent two levels up, a
 * link in a world-writable directory pointing at a safe one (the swap
 * that loaded system libraries), another user's link under /tmp. A
 * sticky world-writable parent (/tmp's mode) is accepted. */
static void unsafe_parents(const char *fixture_dir)
{
	char perl[4096], top[] = "/tmp/sbx-parents-XXXXXX", b[4200], link[4200],
			 real[4300], path[4400];
	struct plugin_set s = {0};

	snprintf(perl, sizeof(perl), "%s/perl.so", fixture_dir);
	CHECK(mkdtemp(top) != NULL);
	snprintf(b, sizeof(b), "%s/a", top);
	CHECK(mkdir(b, 0755) == 0);
	snprintf(b, sizeof(b), "%s/a/b", top);
	CHECK(mkdir(b, 0755) == 0);
	CHECK(copy_file(perl, b, "ok.so", 0755) == 0);

	/* top anyone may write, without the sticky bit: top/a can be
	 * renamed away and replaced. */
	CHECK(chmod(top, 0777) == 0);
	CHECK(plugins_load_dir(&s, b) == 0);
	CHECK(s.n == 0);
	snprintf(path, sizeof(path),
		 "its parent directory %s is not safe: "
		 "every user may write it",
		 top);
	CHECK_STR_CONTAINS(reason(&s, b, "ok.so"), path);
	plugins_close(&s);

	/* A link there to a safe directory: the link can be swapped. */
	snprintf(link, sizeof(link), "%s/link", top);
	CHECK(symlink(b, link) == 0);
	memset(&s, 0, sizeof(s));
	CHECK(plugins_load_dir(&s, link) == 0);
	CHECK(s.n == 0);
	CHECK_STR_CONTAINS(reason(&s, link, "ok.so"), path);
	plugins_close(&s);

	/* With the sticky bit, as /tmp: only an entry's owner may rename
	 * it, and root or we own each. The link is followed and the file
	 * loaded from where it resolves. */
	CHECK(chmod(top, 01777) == 0);
	memset(&s, 0, sizeof(s));
	CHECK(plugins_load_dir(&s, link) == 0);
	CHECK(s.n == 1 && plugins_find(&s, "perl") != NULL);
	plugins_close(&s);
	{
		int fd = -1;
		struct error err;

		snprintf(path, sizeof(path), "%s/./../../link/ok.so", b);
		CHECK(plugin_file_check(path, &fd, real, sizeof(real), &err) ==
		      0);
		if (fd >= 0)
			close(fd);
		snprintf(path, sizeof(path), "%s/ok.so", b);
		CHECK(strcmp(real, path) == 0);
	}
	/* ... unless another user owns the link. */
	if (geteuid() == 0) {
		CHECK(lchown(link, 1000, 1000) == 0);
		memset(&s, 0, sizeof(s));
		CHECK(plugins_load_dir(&s, link) == 0);
		CHECK(s.n == 0);
		CHECK_STR_CONTAINS(reason(&s, link, "ok.so"),
				   "belongs to another user");
		plugins_close(&s);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", top);
	CHECK(system(path) == 0);
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
	fixture_reasons(argv[2]);
	unsafe_files(argv[2]);
	unsafe_parents(argv[2]);
	validate();
	return t_summary("plugins");
}
