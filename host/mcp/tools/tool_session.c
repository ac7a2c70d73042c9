/*
 * tool_session.c - sandbox_session: create, list, get, pause, resume,
 * extend and destroy named sessions (core/session/session.h, docs/sessions.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/packages/pkg_cache.h"
#include "core/records/artifact_store.h"
#include "core/tenants/links.h"
#include "notebook.h"
#include "snapshots.h"
#include "resources.h"
#include "util/log.h"
#include "mcp/json_util.h"
#include "tools.h"
#include "core/tenants/tenants.h"

static const char *const actions[] = {
	"create",	   "list",    "get",	 "pause",
	"resume",	   "extend",  "destroy", "export",
	"snapshot",	   "restore", "fork",	 "snapshots",
	"delete_snapshot", NULL,
};

static cJSON *schema_common(const struct tool_env *env, int with_enum)
{
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;
	char desc[512];

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");

	tool_enum_prop(
		props, "action", actions,
		"create: a new session (language required); list: all "
		"sessions; "
		"get, pause (freeze its container), resume, extend (push its "
		"expiry), "
		"destroy (remove it and everything in it): the named one; "
		"export: what its calls ran, as a Jupyter notebook; "
		"snapshot: keep its files, package sets and history (label "
		"optional); restore: a new session from a snapshot (snapshot "
		"required, name optional), its history run again; fork: a "
		"copy of the named session as a new one (as required); "
		"snapshots: the snapshots kept; delete_snapshot: remove one.");

	p = cJSON_AddObjectToObject(props, "name");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(
		p, "description",
		"Session name, [A-Za-z0-9_-]{1,64}. Optional for create "
		"(an unguessable one is generated); required for get, pause, "
		"resume, extend and destroy.");

	p = cJSON_AddObjectToObject(props, "language");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(p, "description",
				"create: the session's language.");
	if (with_enum)
		tool_language_enum(env, p);

	p = cJSON_AddObjectToObject(props, "ml");
	cJSON_AddStringToObject(p, "type", "boolean");
	cJSON_AddStringToObject(
		p, "description",
		"create: use the language's machine-learning runtime (python: "
		"numpy, pandas, scikit-learn, torch preloaded).");

	p = cJSON_AddObjectToObject(props, "ttl");
	cJSON_AddStringToObject(p, "type", "integer");
	cJSON_AddNumberToObject(p, "minimum", 1);
	snprintf(desc, sizeof(desc),
		 "create, extend: idle time in seconds after which the session "
		 "is removed "
		 "(default %u, at most %u); every call restarts it. A session "
		 "also ends "
		 "%u s after its creation whatever happens.",
		 env->cfg->session_ttl_s, env->cfg->session_max_ttl_s,
		 env->cfg->session_max_lifetime_s);
	cJSON_AddStringToObject(p, "description", desc);

	tool_enum_prop(props, "format", (const char *const[]){"ipynb", NULL},
		       "export: the notebook's format (nbformat 4.5).");
	tool_prop(props, "from_notebook", "string",
		  "create: run a Jupyter notebook's code cells into the new "
		  "session, in order, stopping at the first that fails: the "
		  "notebook's JSON text, or the sandbox://artifact/ uri of "
		  "one (an export's).");
	tool_prop(props, "label", "string",
		  "snapshot: a note kept with it (200 bytes at most).");
	tool_prop(props, "snapshot", "string",
		  "restore, delete_snapshot: the snapshot's id.");
	tool_prop(props, "as", "string", "fork: the new session's name.");
	tool_prop(props, "replay", "boolean",
		  "restore: run the history's cells again so that variables "
		  "come back (default true; false: files and packages "
		  "only).");
	tool_prop(props, "force", "boolean",
		  "restore: take a snapshot made with another version of the "
		  "language's plugin or image all the same.");
	tool_packages_schema(props,
			     "create: packages installed first (or taken from "
			     "the cache) that the session's calls import; "
			     "sandbox_install adds more later. ");
	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("action"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

static cJSON *input_schema(const struct tool_env *env)
{
	return schema_common(env, 1);
}

static cJSON *validate_schema(const struct tool_env *env)
{
	return schema_common(env, 0);
}

static cJSON *session_schema(void)
{
	static const char *const fields[][3] = {
		{"name", "string", "The session's name."},
		{"language", "string", "Its language."},
		{"engine", "string",
		 "The container engine it runs on, for its whole life."},
		{"state", "string",
		 "active, busy (running a call), starting (its interpreter is "
		 "starting), or paused."},
		{"created", "string", "Creation time (ISO 8601, UTC)."},
		{"lastUsed", "string", "Last use (ISO 8601, UTC)."},
		{"expires", "string",
		 "When it will be removed unless used or extended."},
		{"deadline", "string", "When it will be removed in any case."},
		{"ttlSeconds", "integer", "Idle time allowed."},
		{"executions", "integer", "Calls run so far."},
		{"queued", "integer", "Calls waiting behind the running one."},
		{"keepsMemory", "boolean",
		 "Variables survive between calls (an interpreter), not just "
		 "files."},
		/* One type, not ["integer", "null"], absent instead: some
		 * clients' function declarations cannot take a list of
		 * types. */
		{"memoryBytes", "integer",
		 "Memory the container used when last measured (measured in "
		 "the background, every few seconds; absent until the first "
		 "measurement, about a second after create)."},
		{"memoryAgeMs", "integer",
		 "How long ago memoryBytes was measured, in milliseconds "
		 "(present with it; grows while the engine cannot be asked)."},
		{NULL, NULL, NULL},
	};
	cJSON *s = cJSON_CreateObject(), *props, *p;

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_add_props(props, fields);
	p = cJSON_AddObjectToObject(props, "packages");
	cJSON_AddStringToObject(p, "type", "array");
	cJSON_AddStringToObject(p, "description",
				"Keys of the installed package sets its calls "
				"import from (sandbox_install).");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "items"), "type",
				"string");
	return s;
}

static cJSON *output_schema(const struct tool_env *env)
{
	static const char *const results[][3] = {
		{"installed", "object",
		 "create with packages: the set installed (as sandbox_install "
		 "reports it)."},
		{"exported", "object",
		 "export: the notebook, kept as an artifact: uri (read it with "
		 "sandbox_file_ops or resources/read), url (a signed link, "
		 "over "
		 "HTTP), cells, droppedCells (the oldest, beyond the history's "
		 "bounds), bytes."},
		{"fromNotebook", "object",
		 "create with from_notebook: cells (code cells in it), ran "
		 "(those that ran, in order), failed ({cell, exitCode, signal, "
		 "stderr}: the first that did not exit 0; the rest did not "
		 "run)."},
		{"destroyed", "string", "The name of the session removed."},
		{"snapshot", "object",
		 "snapshot: the snapshot kept: id, label, session, language, "
		 "created, expires, bytes (its files as a tar), cells (of "
		 "its history), keepsMemory, packages, uri (its files' "
		 "listing as a resource)."},
		{"snapshots", "array",
		 "snapshots: the snapshots kept, newest "
		 "first, as snapshot describes one."},
		{"restored", "object",
		 "restore: snapshot, restoredBy (replay: the history's cells "
		 "ran again, so variables are back; files: files and package "
		 "sets only), bytes, cells, replayed, differing (cells whose "
		 "stdout or success differ from the first time) and differs "
		 "({cell, what, then, now}, the first 20), packagesMissing "
		 "(sets the cache no longer has: install them again)."},
		{"forked", "object",
		 "fork: from (the session copied), and as restored says."},
		{"deletedSnapshot", "string",
		 "The id of the snapshot removed."},
		{NULL, NULL, NULL},
	};

	(void)env;
	return tool_list_schema("session", "sessions", session_schema, results);
}

cJSON *tool_session_json(const struct mcp_call *mc, const struct session *s)
{
	struct session_info in;
	char t[40];
	cJSON *o = cJSON_CreateObject();

	session_info(s, &in);
	cJSON_AddStringToObject(o, "name",
				tool_unqualify(mcp_call_tenant(mc), in.name));
	cJSON_AddStringToObject(o, "language", in.language);
	cJSON_AddStringToObject(o, "engine", in.engine);
	cJSON_AddStringToObject(o, "state", in.state);
	iso_time_ms(in.created_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "created", t);
	iso_time_ms(in.last_used_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "lastUsed", t);
	iso_time_ms(in.expires_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "expires", t);
	iso_time_ms(in.deadline_ms, t, sizeof(t));
	cJSON_AddStringToObject(o, "deadline", t);
	cJSON_AddNumberToObject(o, "ttlSeconds", in.ttl_s);
	cJSON_AddNumberToObject(o, "executions", (double)in.executions);
	cJSON_AddNumberToObject(o, "queued", in.queued);
	cJSON_AddBoolToObject(o, "keepsMemory", in.interpreter);
	{
		size_t n, i;
		const char(*keys)[PKG_KEY_LEN + 1] = session_packages(s, &n);
		cJSON *arr = cJSON_AddArrayToObject(o, "packages");

		for (i = 0; arr && i < n; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateString(keys[i]));
	}
	/* What is known now: nothing here waits for the engine. */
	if (in.memory_known) {
		cJSON_AddNumberToObject(o, "memoryBytes",
					(double)in.memory_bytes);
		cJSON_AddNumberToObject(o, "memoryAgeMs",
					(double)in.memory_age_ms);
	}
	return o;
}

cJSON *tool_sessions_json(const struct tool_env *env, const struct mcp_call *mc)
{
	const struct tenant *t = mcp_call_tenant(mc);
	struct session *s;
	struct session_info in;
	cJSON *arr = cJSON_CreateArray();

	for (s = session_next(env->sessions, NULL); arr && s;
	     s = session_next(env->sessions, s)) {
		session_info(s, &in);
		if (tool_owns(t, in.name)) /* not another tenant's */
			cJSON_AddItemToArray(arr, tool_session_json(mc, s));
	}
	return arr;
}

static void do_list(const struct tool_env *env, struct mcp_call *mc)
{
	cJSON *result = cJSON_CreateObject();

	cJSON_AddItemToObject(result, "sessions", tool_sessions_json(env, mc));
	mcp_call_finish(mc, tool_ok(mc, result));
}

static void reply_one(struct mcp_call *mc, struct session *s)
{
	cJSON *result = cJSON_CreateObject();

	cJSON_AddItemToObject(result, "session", tool_session_json(mc, s));
	mcp_call_finish(mc, tool_ok(mc, result));
}

static void done_cb(struct session *s, const struct error *err, void *arg)
{
	struct mcp_call *mc = arg;

	if (err)
		mcp_call_finish_error(mc, err);
	else
		reply_one(mc, s);
}

/* export: the notebook goes to the artifact store as one file, then its
 * uri (and link) is the answer. */
struct export_call {
	const struct tool_env *env;
	struct mcp_call *mc;
	char id[ARTIFACT_ID_LEN + 1];
	char file[SESSION_NAME_MAX + 8];
	size_t cells, bytes;
	uint64_t dropped;
};

static void exported_cb(const struct error *err, const unsigned char *kept,
			void *arg)
{
	struct export_call *x = arg;
	cJSON *result, *e;
	char *uri;

	if (err || !kept[0]) {
		mcp_call_finish_errorf(x->mc, ERR_SANDBOX,
				       "the notebook could not be kept: %s",
				       err ? err->msg : "the store refused it");
		free(x);
		return;
	}
	uri = resources_uri("artifact", x->id, x->file);
	result = cJSON_CreateObject();
	e = cJSON_AddObjectToObject(result, "exported");
	cJSON_AddStringToObject(e, "format", "ipynb");
	cJSON_AddStringToObject(e, "uri", uri ? uri : "");
	if (x->env->links) {
		const struct tenant *t = mcp_call_tenant(x->mc);
		char *url = links_url(x->env->links, t ? t->name : NULL, x->id,
				      x->file, (int64_t)time(NULL));

		if (url)
			cJSON_AddStringToObject(e, "url", url);
		free(url);
	}
	cJSON_AddNumberToObject(e, "cells", (double)x->cells);
	cJSON_AddNumberToObject(e, "droppedCells", (double)x->dropped);
	cJSON_AddNumberToObject(e, "bytes", (double)x->bytes);
	free(uri);
	mcp_call_finish(x->mc, tool_ok(x->mc, result));
	free(x);
}

static void export_notebook(const struct tool_env *env, struct mcp_call *mc,
			    struct session *s, const char *name)
{
	const struct history *h = session_history(s);
	const struct tenant *t = mcp_call_tenant(mc);
	struct exec_file f = {0};
	struct export_call *x;
	struct error err;
	cJSON *nb;
	char *text;

	if (!env->artifacts) {
		mcp_call_finish_errorf(
			mc, ERR_INVALID_ARGUMENTS,
			"no artifacts are kept here ([artifacts] "
			"store_max_mb is 0): nowhere to put the "
			"notebook");
		return;
	}
	nb = notebook_json(h, session_plugin(s)->desc->name, name,
			   (int64_t)time(NULL) * 1000);
	text = nb ? cJSON_Print(nb) : NULL;
	x = text ? calloc(1, sizeof(*x)) : NULL;
	if (!x) {
		cJSON_Delete(nb);
		free(text);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	*x = (struct export_call){
		.env = env,
		.mc = mc,
		.cells = history_cells(h),
		.dropped = history_dropped(h),
		.bytes = strlen(text),
	};
	cJSON_Delete(nb);
	snprintf(x->file, sizeof(x->file), "%s.ipynb", name);
	f.path = x->file;
	f.data = (const unsigned char *)text;
	f.len = x->bytes;
	if (tool_hold_artifacts(env, mc, x->bytes, &err)) {
		free(text);
		free(x);
		mcp_call_finish_error(mc, &err);
		return;
	}
	/* The store copies the bytes before this returns. */
	if (artifact_store_put(env->artifacts, t ? t->name : NULL, &f, 1, x->id,
			       exported_cb, x)) {
		free(x);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
	}
	free(text);
}

/* create with packages: the set is installed first, then the session is
 * made and given it. */
struct create_pkgs {
	const struct tool_env *env;
	struct mcp_call *mc;
	const struct plugin *pl;
	struct engine *on; /* where the set is installed and the session runs */
	char name[SESSION_QNAME_MAX + 1]; /* "" : a generated one */
	uint32_t ttl_s;
	char key[PKG_KEY_LEN + 1];
	cJSON *installed;
};

static void created_pkgs_cb(struct session *s, const struct error *err,
			    void *arg)
{
	struct create_pkgs *cp = arg;
	struct error e2;
	cJSON *result;

	if (!err && session_add_packages(s, cp->key, &e2))
		err = &e2;
	if (err) {
		mcp_call_finish_error(cp->mc, err);
	} else {
		result = cJSON_CreateObject();
		cJSON_AddItemToObject(result, "session",
				      tool_session_json(cp->mc, s));
		cJSON_AddItemToObject(result, "installed", cp->installed);
		cp->installed = NULL;
		mcp_call_finish(cp->mc, tool_ok(cp->mc, result));
	}
	cJSON_Delete(cp->installed);
	free(cp);
}

static void create_installed_cb(struct mcp_call *mc, const struct pkg_entry *e,
				cJSON *summary, void *arg)
{
	struct create_pkgs *cp = arg;
	struct error err;

	if (!e) {
		free(cp);
		return;
	}
	memcpy(cp->key, e->key, sizeof(cp->key));
	cp->installed = summary;
	/* The set is in that engine's cache volume (docs/scaling.md,
	 * "What is per engine"): the session runs there. */
	if (session_create(cp->env->sessions, cp->pl,
			   cp->name[0] ? cp->name : NULL, cp->ttl_s, cp->on,
			   created_pkgs_cb, cp, &err)) {
		mcp_call_finish_error(mc, &err);
		cJSON_Delete(cp->installed);
		free(cp);
	}
}

static void create_with_packages(const struct tool_env *env,
				 struct mcp_call *mc, const struct plugin *pl,
				 const char *name, uint32_t ttl_s,
				 const cJSON *packages)
{
	struct create_pkgs *cp = calloc(1, sizeof(*cp));

	if (!cp) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	/* The name's checks (valid, free) come again at the create. */
	if (name &&
	    (!session_valid_name(name) || session_find(env->sessions, name))) {
		free(cp);
		if (session_valid_name(name))
			mcp_call_finish_errorf(mc, ERR_SESSION_EXISTS,
					       "a session named '%s' already "
					       "exists",
					       name);
		else
			mcp_call_finish_errorf(mc, ERR_INVALID_NAME,
					       "session names are 1 to 64 "
					       "characters of A-Z, a-z, 0-9, "
					       "'_' and '-'");
		return;
	}
	cp->env = env;
	cp->mc = mc;
	cp->pl = pl;
	cp->ttl_s = ttl_s;
	if (name)
		snprintf(cp->name, sizeof(cp->name), "%s", name);
	cp->on = tool_install_engine(env, pl);
	if (tool_packages(env, mc, pl, packages, cp->on, create_installed_cb,
			  cp))
		free(cp);
}

/* A tenant at its quota of sessions gets quota_exceeded (finished): 1.
 * Else the room is held for this call (a create runs on after the loop
 * turns, so two at once must not both see the last free one). */
static int tenant_sessions_full(const struct tool_env *env, struct mcp_call *mc)
{
	const struct tenant *t = mcp_call_tenant(mc);
	struct session_info in;
	struct session *s;
	struct error err;
	uint32_t n = 0;

	if (!t || !t->quota.sessions)
		return 0;
	for (s = session_next(env->sessions, NULL); s;
	     s = session_next(env->sessions, s)) {
		session_info(s, &in);
		n += (uint32_t)tool_owns(t, in.name);
	}
	if (mcp_call_hold_session(mc, n, &err) == 0)
		return 0;
	mcp_call_finish_error(mc, &err);
	return 1;
}

/* The name a new session gets (create, restore, fork): nm qualified
 * into qname (named 1), or for a tenant a generated one (named 1), or
 * none (named 0: session_create makes one). The tenant's room for it is
 * held. 0, or -1 with the call finished. */
static int new_session_name(const struct tool_env *env, struct mcp_call *mc,
			    const char *nm, char *qname, int *named)
{
	char g[32];

	*named = 0;
	if (tenant_sessions_full(env, mc))
		return -1;
	if (nm && (tool_qualify(mcp_call_tenant(mc), nm, qname,
				SESSION_QNAME_MAX + 1) ||
		   !session_valid_name(qname))) {
		mcp_call_finish_errorf(mc, ERR_INVALID_NAME,
				       "session names are 1 to 64 characters "
				       "of A-Z, a-z, 0-9, '_' and '-'");
		return -1;
	}
	if (!nm && mcp_call_tenant(mc)) {
		if (session_new_name(g) ||
		    tool_qualify(mcp_call_tenant(mc), g, qname,
				 SESSION_QNAME_MAX + 1)) {
			mcp_call_finish_errorf(mc, ERR_SANDBOX,
					       "cannot make a name");
			return -1;
		}
		nm = g;
	}
	*named = nm != NULL;
	return 0;
}

/* The actions about snapshots that name no session of the caller's. */
static int snapshot_actions(const struct tool_env *env, struct mcp_call *mc,
			    const char *action, const cJSON *args,
			    uint32_t ttl_s)
{
	const char *nm = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(args, "name"));
	const char *id = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(args, "snapshot"));
	const cJSON *replay = cJSON_GetObjectItemCaseSensitive(args, "replay");
	char qname[SESSION_QNAME_MAX + 1];
	int named;

	if (strcmp(action, "snapshots") == 0) {
		snapshots_list(env, mc);
		return 1;
	}
	if (strcmp(action, "restore") != 0 &&
	    strcmp(action, "delete_snapshot") != 0)
		return 0;
	if (!id) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "%s needs the snapshot's id", action);
		return 1;
	}
	if (strcmp(action, "delete_snapshot") == 0) {
		snapshots_delete(env, mc, id);
		return 1;
	}
	if (new_session_name(env, mc, nm, qname, &named))
		return 1;
	snapshots_restore(
		env, mc, id, named ? qname : NULL, ttl_s,
		!cJSON_IsFalse(replay),
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "force")));
	return 1;
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const char *action =
		cJSON_GetObjectItemCaseSensitive(args, "action")->valuestring;
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(args, "name");
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const cJSON *ml = cJSON_GetObjectItemCaseSensitive(args, "ml");
	const cJSON *ttl = cJSON_GetObjectItemCaseSensitive(args, "ttl");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *nbv =
		cJSON_GetObjectItemCaseSensitive(args, "from_notebook");
	const char *nm = name ? name->valuestring : NULL;
	uint32_t ttl_s =
		ttl ? (uint32_t)(ttl->valuedouble > 4e9 ? 4e9
							: ttl->valuedouble)
		    : 0;
	const struct plugin *pl;
	struct session *s;
	struct error err;
	char qname[SESSION_QNAME_MAX + 1];
	int named = 0;

	if (strcmp(action, "list") == 0) {
		do_list(env, mc);
		return;
	}
	if (snapshot_actions(env, mc, action, args, ttl_s))
		return;
	if (strcmp(action, "create") == 0) {
		if (!lang) {
			mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
					       "create needs a language");
			return;
		}
		pl = tool_language(env, lang->valuestring, cJSON_IsTrue(ml),
				   &err);
		if (!pl) {
			mcp_call_finish_error(mc, &err);
			return;
		}
		if (new_session_name(env, mc, nm, qname, &named))
			return;
		if (nbv && pk) {
			mcp_call_finish_errorf(
				mc, ERR_INVALID_ARGUMENTS,
				"from_notebook and packages together are not "
				"supported: create the session with packages, "
				"then run the notebook's cells with "
				"sandbox_execute");
			return;
		}
		if (nbv) {
			snapshots_from_notebook(env, mc, pl,
						named ? qname : NULL, ttl_s,
						nbv->valuestring);
			return;
		}
		if (pk) {
			create_with_packages(env, mc, pl, named ? qname : NULL,
					     ttl_s, pk);
			return;
		}
		if (session_create(env->sessions, pl, named ? qname : NULL,
				   ttl_s, NULL, done_cb, mc, &err))
			mcp_call_finish_error(mc, &err);
		return;
	}
	if (!nm) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "%s needs the session's name", action);
		return;
	}
	s = tool_find_session(env, mc, nm);
	if (!s && strcmp(action, "destroy") == 0 &&
	    tool_qualify(mcp_call_tenant(mc), nm, qname, sizeof(qname)) == 0 &&
	    session_valid_name(qname) &&
	    session_destroy_unavailable(env->sessions, qname) == 0) {
		/* Of a language not loaded here: its container goes all the
		 * same (it counts against max_sessions). */
		cJSON *result = cJSON_CreateObject();

		cJSON_AddStringToObject(result, "destroyed", nm);
		mcp_call_finish(mc, tool_ok(mc, result));
		return;
	}
	if (!s) {
		tool_no_session(env, mc, nm, &err);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (strcmp(action, "get") == 0) {
		reply_one(mc, s);
	} else if (strcmp(action, "pause") == 0) {
		if (session_pause(s, done_cb, mc, &err))
			mcp_call_finish_error(mc, &err);
	} else if (strcmp(action, "resume") == 0) {
		if (session_resume(s, done_cb, mc, &err))
			mcp_call_finish_error(mc, &err);
	} else if (strcmp(action, "extend") == 0) {
		if (session_extend(s, ttl_s, &err))
			mcp_call_finish_error(mc, &err);
		else
			reply_one(mc, s);
	} else if (strcmp(action, "export") == 0) {
		export_notebook(env, mc, s, nm);
	} else if (strcmp(action, "snapshot") == 0) {
		snapshots_take(
			env, mc, s,
			cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
				args, "label")));
	} else if (strcmp(action, "fork") == 0) {
		const char *as = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(args, "as"));

		if (!as) {
			mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
					       "fork needs the new session's "
					       "name (as)");
			return;
		}
		if (new_session_name(env, mc, as, qname, &named) == 0)
			snapshots_fork(env, mc, s, qname, ttl_s);
	} else if (strcmp(action, "destroy") == 0) {
		cJSON *result = cJSON_CreateObject();

		cJSON_AddStringToObject(result, "destroyed", nm);
		session_destroy(s);
		mcp_call_finish(mc, tool_ok(mc, result));
	} else {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "unknown action '%s'", action);
	}
}

const struct tool tool_session = {
	.name = "sandbox_session",
	.title = "Manage sandbox sessions",
	.description = "Sessions keep one container for many sandbox_execute "
		       "calls (pass its name as "
		       "`session`): files in /work persist, and for python, "
		       "javascript, typescript and "
		       "bash so do variables, functions, imports and the "
		       "current directory (one "
		       "interpreter per session). Calls in a session run one "
		       "at a time, in order. A "
		       "session ends when destroyed, after its idle TTL or at "
		       "its deadline, and "
		       "survives a restart of this server. export gives what "
		       "its calls ran as a Jupyter notebook.",
	.input_schema = input_schema,
	.validate_schema = validate_schema,
	.output_schema = output_schema,
	.read_only = 0,
	.destructive = 1,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
