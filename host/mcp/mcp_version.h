/*
 * mcp_version.h - the MCP revisions this server speaks (docs/architecture.md,
 * "Two protocol eras"), how they compare, and what a result carries in the
 * stateless one.
 */
#ifndef SBX_MCP_VERSION_H
#define SBX_MCP_VERSION_H

#include <cjson/cJSON.h>

/* The stateless revision, chosen request by request by its _meta. */
#define MCP_MODERN_VERSION "2026-07-28"
/* The keys of a stateless request's _meta, and of a result's. */
#define MCP_META_VERSION "io.modelcontextprotocol/protocolVersion"
#define MCP_META_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MCP_META_CLIENT "io.modelcontextprotocol/clientInfo"
#define MCP_META_SERVER "io.modelcontextprotocol/serverInfo"

/* The revisions served, newest first, NULL-terminated: the stateless one,
 * then those an initialize handshake may negotiate. */
extern const char *const mcp_version_all[];

/* 1 if revision a is b or later. */
int mcp_version_at_least(const char *a, const char *b);

/* The server's name, title and version (an Implementation object). */
cJSON *mcp_version_server_info(void);

/* result (taken) as the revision version wants it: in the stateless one
 * with resultType, the server's identity in _meta and, when cacheable,
 * the cache hints (a session's state: not kept). */
cJSON *mcp_version_shape(cJSON *result, const char *version, int cacheable);

#endif
