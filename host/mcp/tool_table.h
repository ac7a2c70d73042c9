/*
 * tool_table.h - the tools as a connection offers them: each tool of
 * tools_all (tools.h) with its schemas, built once at start (they list
 * the languages) and shared by every connection of either transport
 * (stdio's one, HTTP's sessions and stateless requests).
 */
#ifndef SBX_TOOL_TABLE_H
#define SBX_TOOL_TABLE_H

#include <cjson/cJSON.h>

#include "mcp/tools/tools.h"

struct tool_table;

/* One tool with its schemas (owned by the table). */
struct tool_entry {
	const struct tool *tool;
	cJSON *input;	 /* the published input schema */
	cJSON *validate; /* what arguments are checked against */
	cJSON *output;	 /* the output schema, or NULL */
};

/* The table for env (borrowed for its life). 0 or -ENOMEM. */
int tool_table_new(const struct tool_env *env, struct tool_table **out);
/* NULL is a no-op. */
void tool_table_free(struct tool_table *t);

/* The tool named name, or NULL. */
const struct tool_entry *tool_table_find(const struct tool_table *t,
					 const char *name);

/* tools/list's "tools" array as revision version has it (new). */
cJSON *tool_table_list(const struct tool_table *t, const char *version);

#endif
