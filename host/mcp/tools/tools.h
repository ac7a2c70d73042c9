/*
 * tools.h - the MCP tools: one `struct tool` per file (tool_*.c), listed in
 * tools.c. A handler validates nothing itself (the server checks arguments
 * against the input schema first), talks to the core only, and ends every
 * call exactly once: mcp_call_finish() with a result, or
 * mcp_call_finish_error() with the error, which the audit log records as
 * it is (never read back from the result's text).
 */
#ifndef SBX_TOOLS_H
#define SBX_TOOLS_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "core/plugins/config.h"
#include "core/plugins/plugins.h"
#include "core/engines/pool.h"
#include "core/session/session.h"
#include "error.h"

struct mcp_call;
struct artifact_store;
struct links;

/* What tools may use; all borrowed for the server's lifetime. */
struct task_store;
struct snapshot_store;

struct tool_env {
	uv_loop_t *loop;
	const struct config *cfg;
	const struct plugin_set *plugins;
	struct engines *engines;
	struct session_mgr *sessions;
	struct artifact_store *artifacts; /* NULL: one-off files not kept */
	struct installer *installer;	  /* NULL: no package installs */
	struct pkg_cache *pkg_cache;
	struct audit *audit;	  /* NULL: no audit log */
	struct links *links;	  /* signed artifact links (HTTP), or NULL */
	struct task_store *tasks; /* calls kept as tasks (mcp/tasks.h) */
	struct snapshot_store *snapshots; /* NULL: none are kept */
};

struct tool {
	const char *name;
	const char *title;
	const char *description;
	/* Schemas are built once at start-up (they may list languages). The
	 * published input schema may be stricter (enum) than the one used to
	 * validate, which is validate_schema when set. */
	cJSON *(*input_schema)(const struct tool_env *env);
	cJSON *(*validate_schema)(const struct tool_env *env);
	cJSON *(*output_schema)(const struct tool_env *env);
	int read_only;
	int destructive;
	int idempotent;
	int open_world;
	/* Start the call; args is borrowed until the function returns. */
	void (*call)(const struct tool_env *env, struct mcp_call *call,
		     const cJSON *args);
};

extern const struct tool *const tools_all[];

/* --- what a tool does with its call (mcp_call.c) --- */

/* Complete a call with a CallToolResult; takes ownership of result. */
void mcp_call_finish(struct mcp_call *call, cJSON *result);
/* Complete a call with the tool error e (borrowed): the result is
 * tool_error_result(e), and e is what the call came to in its audit
 * event. */
void mcp_call_finish_error(struct mcp_call *call, const struct error *e);
/* The same with code and a printf-style message (NULL: the code's
 * default message). */
void mcp_call_finish_errorf(struct mcp_call *call, int code, const char *fmt,
			    ...) __attribute__((format(printf, 3, 4)));
/* What the tool's work came to, for the call's audit event (the result's
 * text is never parsed back); no-ops without an audit log. The install
 * of the call's packages ended (install.h: err and res as its callback
 * had them): */
struct install_result;
void mcp_call_note_install(struct mcp_call *call, const struct error *err,
			   const struct install_result *res);
/* The call's program ended (o->error NULL). */
struct exec_outcome;
void mcp_call_note_run(struct mcp_call *call, const struct exec_outcome *o);
/* End the request with a JSON-RPC error (data: taken, or NULL) instead
 * of a result: resources/read's answer when there is no such resource. */
void mcp_call_fail(struct mcp_call *call, int code, const char *message,
		   cJSON *data);
/* Register what to do on notifications/cancelled (NULL to clear). */
void mcp_call_on_cancel(struct mcp_call *call, void (*cb)(void *arg),
			void *arg);
/* 1 when the request carried _meta.progressToken. */
int mcp_call_wants_progress(const struct mcp_call *call);
/* notifications/progress for the call (nothing without a token): progress
 * is made to increase; message (UTF-8, borrowed) is included from protocol
 * 2025-03-26 on. */
void mcp_call_progress(struct mcp_call *call, double progress,
		       const char *message);
/* 1 when the negotiated protocol has structuredContent/outputSchema. */
int mcp_call_structured(const struct mcp_call *call);
/* The tenant the call is made for, or NULL (stdio, or HTTP without
 * tokens: everything is the caller's). */
struct tenant;
const struct tenant *mcp_call_tenant(const struct mcp_call *call);
/* Room in the tenant's quotas for what the call will make once an
 * asynchronous step is done (tenants.h, tenant_hold_*): a sandbox session
 * while open of the tenant's are, or bytes of artifacts while used are
 * kept. The room is held until the call ends (by then what it made
 * counts itself), so calls that arrive at once cannot overshoot. 0 (also
 * without a tenant), or ERR_QUOTA_EXCEEDED with err. */
int mcp_call_hold_session(struct mcp_call *call, uint32_t open,
			  struct error *err);
int mcp_call_hold_artifacts(struct mcp_call *call, uint64_t used,
			    uint64_t bytes, struct error *err);
/* 1 if the request came in the stateless revision (MCP_MODERN_VERSION),
 * which changes a few error codes (resource not found is -32602). */
int mcp_call_modern(const struct mcp_call *call);

/* --- result helpers (tools.c) --- */

/* The one place where a host error becomes what the client sees: an
 * isError result whose text is {"error":{"code":...,"message":...}}, code
 * being tool_error_code(). */
cJSON *tool_error(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
cJSON *tool_error_result(const struct error *e);
/* The client-facing code of a host error: the ERR_* name, "cancelled" and
 * "shutting_down" for -ECANCELED and -ESHUTDOWN, "sandbox_error" for any
 * other errno. */
const char *tool_error_code(int code);
/* Success: structured becomes the text content (JSON) and, when the
 * protocol has it, structuredContent. Takes ownership of structured. */
cJSON *tool_ok(const struct mcp_call *call, cJSON *structured);
/* Success as one text block holding json, and nothing else: for a tool
 * without an output schema whose results are large (the bytes go once,
 * not twice). Takes ownership of json. */
cJSON *tool_ok_text(cJSON *json);
/* tool_ok_text() of json with one more member, last: key (nothing in it
 * to escape) and the bytes p[0..n) as a string, as they are (is_text:
 * UTF-8 without NUL) or in base64. The bytes go straight into the text
 * block, escaped for both levels in one pass: a read's megabyte is not
 * printed by cJSON twice. Takes ownership of json. */
cJSON *tool_ok_text_bytes(cJSON *json, const char *key, const unsigned char *p,
			  size_t n, int is_text);
/* The error for a call that names no live session, into e: session_lost
 * when one of that name was lost, else session_not_found. name: as the
 * caller gave it. Returns the code. */
int tool_no_session(const struct tool_env *env, const struct mcp_call *call,
		    const char *name, struct error *e);

/*
 * A tenant's names (tenants.h): what it calls "x" the server holds as
 * "<tenant>.x" (sessions, artifact sets). tool_qualify writes the name
 * the server holds for what tenant t (NULL: no tenants, the name as it
 * is) calls name: 0, or -1 when name has a '.' (no caller's name does,
 * so none reaches a tenant's). tool_unqualify is the way back; tool_owns
 * says whether t may see the server's qname (always without tenants).
 */
int tool_qualify(const struct tenant *t, const char *name, char *out,
		 size_t outsz);
const char *tool_unqualify(const struct tenant *t, const char *qname);
int tool_owns(const struct tenant *t, const char *qname);
/* The live session the caller calls name, or NULL. */
struct session *tool_find_session(const struct tool_env *env,
				  const struct mcp_call *call,
				  const char *name);

/* Room in the caller's tenant's artifact quota for bytes more, held until
 * the call ends (the store keeps files off the loop: calls that end
 * together must not each see the same free bytes). 0 (also without a
 * tenant or a quota), or ERR_QUOTA_EXCEEDED with err. */
int tool_hold_artifacts(const struct tool_env *env, struct mcp_call *call,
			uint64_t bytes, struct error *err);

/* The caller's sessions as sandbox_session list describes them: an
 * array the caller owns, each with its memory as last measured (nothing
 * is asked of the engine; session.h, struct session_info). */
cJSON *tool_sessions_json(const struct tool_env *env,
			  const struct mcp_call *call);

/* Content blocks: an image (its bytes base64-encoded), and a
 * resource_link to uri for an artifact's {path, size, mime} JSON. NULL
 * when out of memory. */
cJSON *tool_image_block(const unsigned char *data, size_t len,
			const char *mime);
cJSON *tool_link_block(const cJSON *artifact, const char *uri);

/* Schema helpers: a property of this type (desc may be NULL), and a string
 * property limited to the NULL-terminated values. Return the property. */
cJSON *tool_prop(cJSON *props, const char *name, const char *type,
		 const char *desc);
cJSON *tool_enum_prop(cJSON *props, const char *name, const char *const *values,
		      const char *desc);
/* Properties from rows of {name, type, description}, up to a row whose
 * name is NULL, added to props. */
void tool_add_props(cJSON *props, const char *const (*rows)[3]);
/* An output schema whose object has one (item's schema), many (an array
 * of them) and the rows (tool_add_props). */
cJSON *tool_list_schema(const char *one, const char *many, cJSON *(*item)(void),
			const char *const (*rows)[3]);

/* The bytes of a content argument: text as it is, or base64 decoded;
 * at most max of them (checked before decoding). 0 with *bytes (*len
 * long): s itself for text (borrowed from s, *owned NULL), else the
 * decoded bytes in *owned (caller frees); or err set to
 * invalid_arguments, too_large or sandbox_error; what names the argument
 * in the message. */
int tool_content(const char *s, int base64, uint64_t max, const char *what,
		 const unsigned char **bytes, size_t *len,
		 unsigned char **owned, struct error *err);
/* tool_content() always into a copy: NULL with err set, or the bytes
 * (NUL-terminated, *len long; caller frees). */
unsigned char *tool_content_bytes(const char *s, int base64, uint64_t max,
				  const char *what, size_t *len,
				  struct error *err);

/* How to raise a language's limit: "KEY in [limits] or [LANG] of
 * sandbox.ini (SANDBOX_LANG_KEY)", into buf. */
const char *tool_setting(char *buf, size_t size, const char *lang,
			 const char *key);

/* A path on the user's machine under the files root (export's `to`,
 * import's and a staged input's `from`): relative to the root, or
 * absolute inside it. Returns it relative to the root (pointing into
 * path), or NULL with err: files_root_not_set (off, or the caller is an
 * HTTP tenant) or invalid_path, each saying what the root is or how to
 * set one. */
const char *tool_host_path(const struct tool_env *env, struct mcp_call *mc,
			   const char *path, struct error *err);

/* The largest file a write, an import or a staged input makes in a box of
 * pl: [files] max_write_bytes, or when that is 0 (the default) the
 * language's /work size. */
uint64_t tool_file_cap(const struct tool_env *env, const struct plugin *pl);

/* o[key] = name with its misleading characters escaped
 * (media_name_escape(): control and bidirectional characters, bytes that
 * are not UTF-8), only when it has some: the key's presence flags the
 * name (docs/files.md, "Names that mislead"). */
void tool_add_escaped(cJSON *o, const char *key, const char *name, size_t len);
/* A listing entry (common/agent_ops.h) as {name, nameEscaped?, type, size,
 * mtime}. */
cJSON *tool_entry_json(const struct ap_file_entry *e);
/* Bytes as one JSON string: themselves when text_ok and they are text,
 * UTF-8 without NUL (*is_text 1), else base64 (*is_text 0): every byte
 * is in the string either way. A raw item, printed as it is
 * (json_raw_string()); NULL when out of memory. */
cJSON *tool_bytes_string(const unsigned char *p, size_t n, int text_ok,
			 int *is_text);

/* --- language and time helpers (tools.c) --- */

/* The enabled plugin a call names (ml: its machine-learning variant), or
 * NULL with err set to unknown_language, its message listing the
 * languages there are. */
const struct plugin *tool_language(const struct tool_env *env, const char *name,
				   int ml, struct error *err);
/* The plugin that a call naming pl (tool_language's answer) runs with in
 * session s (name: as the caller gave it): the session's own, which fixes
 * the runtime. pl may be the session's language or the language whose
 * ml_variant the session runs (python in a python-ml session: one family).
 * The session's own ml_variant (python-ml, or python with ml: true, in a
 * python session) is language_mismatch saying to create an ml session;
 * any other language too. NULL with err then. */
const struct plugin *tool_session_language(const struct tool_env *env,
					   const struct session *s,
					   const char *name,
					   const struct plugin *pl,
					   struct error *err);
/* 1 when an enabled language has an ml_variant (the tools then take
 * "ml"). */
int tool_any_ml_variant(const struct tool_env *env);
/* An "enum" of the enabled languages' names, added to prop. */
void tool_language_enum(const struct tool_env *env, cJSON *prop);

/* --- packages (tool_install.c) --- */

struct pkg_entry;
struct install_result;

/* The installed set (NULL: the call was answered with the error) and its
 * summary for the result (owned by the callee; NULL with e). */
typedef void (*tool_packages_cb)(struct mcp_call *mc, const struct pkg_entry *e,
				 cJSON *summary, void *arg);
/* Install (or find in the cache) packages, a JSON array of specs, for pl,
 * on engine on (its own installer and cache: the call that uses the set
 * runs there), with progress notifications. Returns 0 and calls cb
 * later, or answers mc with the error and returns -1 (cb not called). */
struct engine;
int tool_packages(const struct tool_env *env, struct mcp_call *mc,
		  const struct plugin *pl, const cJSON *packages,
		  struct engine *on, tool_packages_cb cb, void *arg);
/* The engine a call of pl that needs packages goes to: where placement
 * would put it now, else the first. */
struct engine *tool_install_engine(const struct tool_env *env,
				   const struct plugin *pl);
/* The "packages" property of a tool's input schema. */
void tool_packages_schema(cJSON *props, const char *what);
/* What a result says of an installed set. */
cJSON *tool_packages_json(const struct install_result *r);

#endif
