/*
 * resources.h - MCP resources: the sessions' files as
 * sandbox://session/{name}/{path}, and the files kept from one-off runs as
 * sandbox://artifact/{id}/{path} (resources.c, docs/files.md).
 */
#ifndef SBX_RESOURCES_H
#define SBX_RESOURCES_H

#include <cjson/cJSON.h>

#include "tools.h"

struct mcp_call;

/* A snapshot's resource: this and its id (its files' listing). */
#define RESOURCES_SNAPSHOT_PREFIX "sandbox://snapshot/"

/* sandbox://<kind>/<owner>/<path>, the path percent-encoded; NULL when
 * out of memory, else the caller frees it. */
char *resources_uri(const char *kind, const char *owner, const char *path);
/* An artifact URI's id (ARTIFACT_ID_LEN + 1 bytes) and decoded path (a
 * new string in *path): 1; 0 when uri is not sandbox://artifact/...; -1
 * when it is but malformed. */
int resources_artifact(const char *uri, char *id, char **path);
/* The same for sandbox://session/<name>/<path> (name: size bytes). */
int resources_session(const char *uri, char *name, size_t size, char **path);

/* s with its %XX escapes decoded (a new string), or NULL when one is
 * malformed or decodes to NUL (or out of memory). */
char *resources_pct_decode(const char *s);

/* The results of resources/list (what tenant, NULL: no tenants, may
 * see) and resources/templates/list. */
struct tenant;
cJSON *resources_list(const struct tool_env *env, const struct tenant *tenant);
cJSON *resources_templates(void);
/* resources/read of uri: ends call with the contents or a JSON-RPC error
 * (-32002 when there is no such session or file). */
void resources_read(const struct tool_env *env, struct mcp_call *call,
		    const char *uri);

#endif
