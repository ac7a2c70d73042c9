/*
 * tool_table.c - the tools with their schemas (tool_table.h).
 */
#include "tool_table.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_version.h"
#include "tasks.h"
#include "util/log.h"

#define LOG_MODULE "mcp"

struct tool_table {
	struct tool_entry *v;
	size_t n;
};

/* Staged files travel in base64 inside one message: say so at start when
 * [files] max_staged_bytes of them could not. */
static void check_staged_fits(const struct config *cfg)
{
	uint64_t b64 = ((uint64_t)cfg->files_max_staged + 2) / 3 * 4;

	if (b64 > cfg->max_message_bytes)
		log_warn("[files] max_staged_bytes (%u) of files is %llu bytes "
			 "in base64, over [server] max_message_bytes (%u): "
			 "such a call cannot be sent; raise max_message_bytes "
			 "to at least 4/3 of max_staged_bytes plus the code",
			 cfg->files_max_staged, (unsigned long long)b64,
			 cfg->max_message_bytes);
}

int tool_table_new(const struct tool_env *env, struct tool_table **out)
{
	struct tool_table *t = calloc(1, sizeof(*t));
	size_t n = 0, i;

	if (!t)
		return -ENOMEM;
	while (tools_all[n])
		n++;
	t->v = calloc(n + 1, sizeof(*t->v));
	if (!t->v) {
		free(t);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct tool *tool = tools_all[i];

		t->v[i].tool = tool;
		t->v[i].input = tool->input_schema(env);
		t->v[i].validate = tool->validate_schema
					   ? tool->validate_schema(env)
					   : NULL;
		t->v[i].output =
			tool->output_schema ? tool->output_schema(env) : NULL;
	}
	t->n = n;
	check_staged_fits(env->cfg);
	*out = t;
	return 0;
}

void tool_table_free(struct tool_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++) {
		cJSON_Delete(t->v[i].input);
		cJSON_Delete(t->v[i].validate);
		cJSON_Delete(t->v[i].output);
	}
	free(t->v);
	free(t);
}

const struct tool_entry *tool_table_find(const struct tool_table *t,
					 const char *name)
{
	const struct tool_entry *found = NULL;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (strcmp(t->v[i].tool->name, name) == 0)
			found = &t->v[i];
	return found;
}

static cJSON *tool_json(const char *version, const struct tool_entry *te)
{
	const struct tool *t = te->tool;
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "name", t->name);
	if (mcp_version_at_least(version, "2025-06-18"))
		cJSON_AddStringToObject(o, "title", t->title);
	cJSON_AddStringToObject(o, "description", t->description);
	cJSON_AddItemToObject(o, "inputSchema", cJSON_Duplicate(te->input, 1));
	if (te->output && mcp_version_at_least(version, "2025-06-18"))
		cJSON_AddItemToObject(o, "outputSchema",
				      cJSON_Duplicate(te->output, 1));
	if (mcp_version_at_least(version, "2025-03-26")) {
		a = cJSON_AddObjectToObject(o, "annotations");
		cJSON_AddStringToObject(a, "title", t->title);
		cJSON_AddBoolToObject(a, "readOnlyHint", t->read_only);
		cJSON_AddBoolToObject(a, "destructiveHint", t->destructive);
		cJSON_AddBoolToObject(a, "idempotentHint", t->idempotent);
		cJSON_AddBoolToObject(a, "openWorldHint", t->open_world);
	}
	/* The revision's experimental tasks (docs/tasks.md); 2026-07-28's
	 * extension has no such field: the server decides. */
	if (strcmp(version, TASKS_LEGACY_VERSION) == 0 &&
	    tasks_tool_supported(t->name))
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "execution"),
					"taskSupport", "optional");
	return o;
}

cJSON *tool_table_list(const struct tool_table *t, const char *version)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < t->n; i++)
		cJSON_AddItemToArray(arr, tool_json(version, &t->v[i]));
	return arr;
}
