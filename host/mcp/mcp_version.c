/*
 * mcp_version.c - the MCP revisions served (mcp_version.h).
 */
#include "mcp_version.h"

#include <string.h>

#ifndef SBX_VERSION
#define SBX_VERSION "0"
#endif

/* 2025-03-26 is not among them: it requires JSON-RPC batches, which this
 * server does not take. A client that asks for it is offered 2024-11-05
 * (mcp_server.c, on_initialize). */
const char *const mcp_version_all[] = {
	MCP_MODERN_VERSION, "2025-11-25", "2025-06-18", "2024-11-05", NULL,
};

int mcp_version_at_least(const char *a, const char *b)
{
	return strcmp(a, b) >= 0; /* revisions are dates */
}

cJSON *mcp_version_server_info(void)
{
	cJSON *info = cJSON_CreateObject();

	cJSON_AddStringToObject(info, "name", "mcp-sandbox");
	cJSON_AddStringToObject(info, "title", "MCP Sandbox");
	cJSON_AddStringToObject(info, "version", SBX_VERSION);
	return info;
}

cJSON *mcp_version_shape(cJSON *r, const char *version, int cacheable)
{
	cJSON *meta;

	if (!r || strcmp(version, MCP_MODERN_VERSION) != 0)
		return r;
	if (!cJSON_GetObjectItemCaseSensitive(r, "resultType"))
		cJSON_AddStringToObject(r, "resultType", "complete");
	if (cacheable && !cJSON_GetObjectItemCaseSensitive(r, "ttlMs")) {
		/* What a session holds changes with every call. */
		cJSON_AddNumberToObject(r, "ttlMs", 0);
		cJSON_AddStringToObject(r, "cacheScope", "private");
	}
	meta = cJSON_GetObjectItemCaseSensitive(r, "_meta");
	if (!cJSON_IsObject(meta))
		meta = cJSON_AddObjectToObject(r, "_meta");
	cJSON_AddItemToObject(meta, MCP_META_SERVER, mcp_version_server_info());
	return r;
}
