/*
 * resources.h - MCP resources: the sessions' files as
 * sandbox://session/{name}/{path} (resources.c, docs/files.md).
 */
#ifndef SBX_RESOURCES_H
#define SBX_RESOURCES_H

#include <cjson/cJSON.h>

#include "tools.h"

struct mcp_call;

/* The results of resources/list and resources/templates/list. */
cJSON *resources_list(const struct tool_env *env);
cJSON *resources_templates(void);
/* resources/read of uri: ends call with the contents or a JSON-RPC error
 * (-32002 when there is no such session or file). */
void resources_read(const struct tool_env *env, struct mcp_call *call,
		    const char *uri);

#endif
