/*
 * cmd_packages.c - `mcp-sandbox install LANG SPEC...` and `mcp-sandbox
 * cache list | prune`: the package cache from the command line, on the
 * first engine (docs/packages.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "app.h"
#include "commands.h"
#include "core/engines/engines.h"
#include "core/packages/install.h"
#include "core/packages/packages.h"
#include "core/packages/pkg_cache.h"
#include "mcp/tools/tools.h"

static void cli_finish(struct app *a)
{
	if (!a->stopping) {
		a->stopping = 1;
		engines_shutdown(a->engines, app_pool_done_cb, a);
	}
}

/* The command failed: why, on stderr, and exit status 1. */
static void cli_fail(struct app *a, const struct error *err)
{
	fprintf(stderr, "mcp-sandbox: %s: %s\n", tool_error_code(err->code),
		err->msg);
	a->exit_code = 1;
}

static void cli_progress_cb(const char *text, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s%s", text,
		*text && text[strlen(text) - 1] == '\n' ? "" : "\n");
}

static void cli_installed_cb(const struct error *err,
			     const struct install_result *res, void *arg)
{
	struct app *a = arg;
	cJSON *o;
	const cJSON *p;
	char *text;

	if (err) {
		cli_fail(a, err);
		cli_finish(a);
		return;
	}
	o = tool_packages_json(res);
	if (a->json) {
		text = o ? cJSON_PrintUnformatted(o) : NULL;
		if (text)
			puts(text);
		free(text);
	} else {
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(o, "packages"))
			printf("%s %s%s (%.0f bytes)\n",
			       cJSON_GetObjectItem(p, "name")->valuestring,
			       cJSON_GetObjectItem(p, "version")->valuestring,
			       cJSON_IsTrue(cJSON_GetObjectItem(p, "requested"))
				       ? ""
				       : ", a dependency",
			       cJSON_GetObjectItem(p, "bytes")->valuedouble);
		printf("%s set %.12s: %s in %.2f s\n", res->entry->lang,
		       res->entry->key, res->cached ? "cached" : "installed",
		       res->seconds);
	}
	cJSON_Delete(o);
	a->exit_code = 0;
	cli_finish(a);
}

static void cli_pruned_cb(const struct error *err, size_t sets, uint64_t bytes,
			  void *arg)
{
	struct app *a = arg;

	if (err) {
		cli_fail(a, err);
	} else {
		printf("removed %zu package set(s), %llu bytes\n", sets,
		       (unsigned long long)bytes);
		a->exit_code = 0;
	}
	cli_finish(a);
}

/* The volume's own listing (installer_list), with this state
 * directory's last use of each set. */
static void cli_listed_cb(const struct error *err, const struct pkg_entry *sets,
			  size_t n, void *arg)
{
	struct app *a = arg;
	uint64_t bytes = 0, max = (uint64_t)a->cfg.pkg_cache_max_mb << 20;
	cJSON *o, *arr;
	char *text;
	size_t i;

	if (err) {
		cli_fail(a, err);
		cli_finish(a);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "volume", a->cfg.pkg_volume);
	arr = cJSON_AddArrayToObject(o, "sets");
	for (i = 0; i < n; i++) {
		const struct pkg_entry *e = &sets[i];

		bytes += e->bytes;
		cJSON_AddItemToArray(arr, pkg_entry_json(e));
		if (!a->json) {
			char *specs = e->specs
					      ? cJSON_PrintUnformatted(e->specs)
					      : NULL;

			printf("%.12s  %-10s %10llu  %s\n", e->key,
			       e->lang[0] ? e->lang : "-",
			       (unsigned long long)e->bytes,
			       specs ? specs : "-");
			free(specs);
		}
	}
	cJSON_AddNumberToObject(o, "bytes", (double)bytes);
	cJSON_AddNumberToObject(o, "maxBytes", (double)max);
	if (a->json) {
		text = cJSON_PrintUnformatted(o);
		if (text)
			puts(text);
		free(text);
	} else {
		printf("%zu set(s), %llu of %llu bytes, volume %s\n", n,
		       (unsigned long long)bytes, (unsigned long long)max,
		       a->cfg.pkg_volume);
	}
	cJSON_Delete(o);
	a->exit_code = 0;
	cli_finish(a);
}

static int packages_cli(struct app *a, const char *cmd, int argc, char **argv)
{
	struct install_specs specs;
	const struct plugin *pl;
	cJSON *arr;
	struct error err;
	int i, rc;

	a->json = app_has_flag(argc, argv, "--json");
	app_open_packages(a);
	if (!a->installer)
		return 1;
	if (strcmp(cmd, "cache") == 0) {
		if (argc >= 1 && strcmp(argv[0], "list") == 0)
			rc = installer_list(a->installer, cli_listed_cb, a,
					    &err);
		else if (argc == 1 && strcmp(argv[0], "prune") == 0)
			rc = installer_prune(a->installer, cli_pruned_cb, a,
					     &err);
		else {
			cli_usage(stderr);
			return 2;
		}
	} else {
		if (argc < 2) {
			cli_usage(stderr);
			return 2;
		}
		pl = plugins_find(&a->plugins, argv[0]);
		if (!pl || !pl->policy.enabled) {
			fprintf(stderr, "mcp-sandbox: unknown language '%s'\n",
				argv[0]);
			return 2;
		}
		arr = cJSON_CreateArray();
		for (i = 1; i < argc; i++)
			if (strcmp(argv[i], "--json") != 0 &&
			    strcmp(argv[i], "-v") != 0)
				cJSON_AddItemToArray(
					arr, cJSON_CreateString(argv[i]));
		rc = install_specs_parse(pl, arr, &specs, &err);
		cJSON_Delete(arr);
		if (!rc)
			rc = installer_install(a->installer, pl, NULL, &specs,
					       cli_progress_cb,
					       cli_installed_cb, a, NULL, &err);
		install_specs_free(&specs);
	}
	if (rc) {
		fprintf(stderr, "mcp-sandbox: %s: %s\n", tool_error_code(rc),
			err.msg);
		return rc == ERR_INVALID_PACKAGE ? 2 : 1;
	}
	engines_set_refill(a->engines, 0);
	app_watch_signals(a, app_signal_cb);
	a->exit_code = 1;
	uv_run(a->loop, UV_RUN_DEFAULT);
	return a->exit_code;
}

/* install and cache: the engines are made for the installer (the
 * first engine's) and closed after it. */
static int with_engines(struct app *a, const char *cmd, int argc, char **argv)
{
	int rc;

	if (a->loaded || app_start_engines(a))
		return 1;
	engines_start(a->engines);
	rc = packages_cli(a, cmd, argc, argv);
	app_stop_engines(a);
	return rc;
}

int cmd_install(struct app *a, int argc, char **argv)
{
	return with_engines(a, "install", argc, argv);
}

int cmd_cache(struct app *a, int argc, char **argv)
{
	return with_engines(a, "cache", argc, argv);
}
