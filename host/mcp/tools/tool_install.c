/*
 * tool_install.c - sandbox_install: install packages into the cache
 * (core/packages/install.h, docs/packages.md), and the same step for
 * sandbox_execute's `packages` (tool_packages()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/packages/install.h"
#include "core/session/session.h"
#include "mcp/json_util.h"
#include "tools.h"
#include "core/engines/engines.h"
#include "core/tenants/tenants.h"

struct pkg_call {
	const struct tool_env *env;
	struct install_req *req; /* the engine's installer's, until
				  * pkg_done_cb */
	struct mcp_call *call;
	const struct plugin *pl;
	tool_packages_cb cb;
	void *arg;
	double progress;
};

void tool_packages_schema(cJSON *props, const char *what)
{
	cJSON *p = cJSON_AddObjectToObject(props, "packages"), *it;
	char desc[600];

	cJSON_AddStringToObject(p, "type", "array");
	cJSON_AddNumberToObject(p, "maxItems", PKG_MAX_SPECS);
	snprintf(desc, sizeof(desc),
		 "%sPackage specs in the language's ecosystem: python "
		 "\"requests==2.32.3\", \"pandas==2.2.*\"; javascript and "
		 "typescript \"lodash@^4\", \"@scope/pkg@1.2.3\"; go "
		 "\"github.com/google/uuid@v1.6.0\"; rust \"serde@1\". Names "
		 "and versions only (no URL, path, git reference or option). "
		 "A set installed before comes from the cache at once.",
		 what);
	cJSON_AddStringToObject(p, "description", desc);
	it = cJSON_AddObjectToObject(p, "items");
	cJSON_AddStringToObject(it, "type", "string");
	cJSON_AddNumberToObject(it, "maxLength", PKG_SPEC_MAX);
}

cJSON *tool_packages_json(const struct install_result *r)
{
	const struct pkg_entry *e = r->entry;
	cJSON *o = cJSON_CreateObject(), *arr, *p;
	const cJSON *inst =
		cJSON_GetObjectItemCaseSensitive(e->manifest, "installer");

	cJSON_AddStringToObject(o, "key", e->key);
	cJSON_AddBoolToObject(o, "cached", r->cached);
	cJSON_AddNumberToObject(o, "seconds",
				(double)(long)(r->seconds * 1000) / 1000.0);
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	cJSON_AddStringToObject(o, "installer",
				cJSON_IsString(inst) ? inst->valuestring : "");
	cJSON_AddItemToObject(o, "specs", cJSON_Duplicate(e->specs, 1));
	arr = cJSON_AddArrayToObject(o, "packages");
	cJSON_ArrayForEach(
		p, cJSON_GetObjectItemCaseSensitive(e->manifest, "packages"))
	{
		cJSON *q = cJSON_Duplicate(p, 1);

		/* Per package: a set is installed (and cached) as a whole. */
		cJSON_AddBoolToObject(q, "cached", r->cached);
		cJSON_AddNumberToObject(q, "seconds",
					(double)(long)(r->seconds * 1000) /
						1000.0);
		cJSON_AddItemToArray(arr, q);
	}
	if (r->connections)
		cJSON_AddItemToObject(o, "connections",
				      cJSON_Duplicate(r->connections, 1));
	return o;
}

static void pkg_progress_cb(const char *text, void *arg)
{
	struct pkg_call *pc = arg;

	pc->progress += 1;
	mcp_call_progress(pc->call, pc->progress, text);
}

static void pkg_done_cb(const struct error *err,
			const struct install_result *res, void *arg)
{
	struct pkg_call *pc = arg;

	mcp_call_on_cancel(pc->call, NULL, NULL);
	mcp_call_note_install(pc->call, err, res);
	if (err) {
		mcp_call_finish_error(pc->call, err);
		pc->cb(pc->call, NULL, NULL, pc->arg);
	} else {
		pc->cb(pc->call, res->entry, tool_packages_json(res), pc->arg);
	}
	free(pc);
}

/* The client withdrew the call: so does the install (install.h). */
static void pkg_cancel_cb(void *arg)
{
	struct pkg_call *pc = arg;

	installer_cancel(pc->req);
}

struct engine *tool_install_engine(const struct tool_env *env,
				   const struct plugin *pl)
{
	struct engine *e = engines_choose(env->engines, pl);

	return e ? e : engines_at(env->engines, 0);
}

int tool_packages(const struct tool_env *env, struct mcp_call *mc,
		  const struct plugin *pl, const cJSON *packages,
		  struct engine *on, tool_packages_cb cb, void *arg)
{
	struct installer *in = on ? engine_installer(on) : env->installer;
	struct install_specs specs;
	struct pkg_call *pc;
	struct error err;

	if (!in) {
		mcp_call_finish_errorf(mc, ERR_INSTALLS_DISABLED,
				       "package installs are "
				       "unavailable on this server "
				       "(see its log)");
		return -1;
	}
	if (install_specs_parse(pl, packages, &specs, &err)) {
		mcp_call_finish_error(mc, &err);
		return -1;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		install_specs_free(&specs);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return -1;
	}
	*pc = (struct pkg_call){env, NULL, mc, pl, cb, arg, 0};
	if (installer_install(
		    in, pl,
		    mcp_call_tenant(mc) ? mcp_call_tenant(mc)->name : NULL,
		    &specs, pkg_progress_cb, pkg_done_cb, pc, &pc->req, &err)) {
		install_specs_free(&specs);
		free(pc);
		mcp_call_finish_error(mc, &err);
		return -1;
	}
	mcp_call_on_cancel(mc, pkg_cancel_cb, pc);
	return 0;
}

/* ---- sandbox_install ---- */

static int has_installer(const struct plugin *pl)
{
	return pl && pl->policy.enabled && pl->desc->package_ecosystem &&
	       pl->desc->install_cmd;
}

/* The schema lists only what works: the languages with an installer
 * (bash has none: no_installer), and ml only when a machine-learning
 * runtime has one. */
static void installer_enum(const struct tool_env *env, cJSON *prop)
{
	cJSON *en = cJSON_AddArrayToObject(prop, "enum");
	size_t i;

	for (i = 0; i < env->plugins->n; i++)
		if (has_installer(&env->plugins->v[i]))
			cJSON_AddItemToArray(
				en, cJSON_CreateString(
					    env->plugins->v[i].desc->name));
}

static int any_ml_installer(const struct tool_env *env)
{
	size_t i;

	for (i = 0; i < env->plugins->n; i++)
		if (env->plugins->v[i].policy.enabled &&
		    env->plugins->v[i].desc->ml_variant &&
		    has_installer(plugins_find(
			    env->plugins, env->plugins->v[i].desc->ml_variant)))
			return 1;
	return 0;
}

static cJSON *schema_common(const struct tool_env *env, int with_enum)
{
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;

	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	p = cJSON_AddObjectToObject(props, "language");
	cJSON_AddStringToObject(p, "type", "string");
	cJSON_AddStringToObject(p, "description",
				"The language whose installer to use.");
	if (with_enum)
		installer_enum(env, p);
	if (!with_enum || any_ml_installer(env))
		tool_prop(props, "ml", "boolean",
			  "Install for the language's machine-learning "
			  "runtime (as sandbox_execute's ml).");
	tool_packages_schema(props, "");
	tool_prop(props, "session", "string",
		  "Install into this session: its next call (the running "
		  "interpreter, without a restart) can import the packages. "
		  "language may then be omitted.");
	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("packages"));
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

struct install_call {
	const struct tool_env *env;
	const struct plugin *pl;
	struct engine *on;		     /* whose cache */
	char session[SESSION_QNAME_MAX + 1]; /* "": into the cache only */
};

static void installed_cb(struct mcp_call *mc, const struct pkg_entry *e,
			 cJSON *summary, void *arg)
{
	struct install_call *ic = arg;
	struct session *s;
	struct error err;

	if (!e) {
		free(ic); /* answered */
		return;
	}
	cJSON_AddStringToObject(summary, "language", ic->pl->desc->name);
	if (engines_count(ic->env->engines) > 1)
		cJSON_AddStringToObject(summary, "engine", engine_name(ic->on));
	if (ic->session[0]) {
		/* The session may have gone while the set installed. */
		s = tool_find_session(ic->env, mc, ic->session);
		if (!s) {
			cJSON_Delete(summary);
			mcp_call_finish_errorf(mc, ERR_SESSION_NOT_FOUND,
					       "the set is installed, "
					       "but the session '%s' "
					       "is gone",
					       ic->session);
			free(ic);
			return;
		}
		if (session_add_packages(s, e->key, &err)) {
			cJSON_Delete(summary);
			mcp_call_finish_error(mc, &err);
			free(ic);
			return;
		}
		cJSON_AddStringToObject(summary, "session", ic->session);
	}
	mcp_call_finish(mc, tool_ok_text(summary));
	free(ic);
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const cJSON *lang = cJSON_GetObjectItemCaseSensitive(args, "language");
	const cJSON *ml = cJSON_GetObjectItemCaseSensitive(args, "ml");
	const cJSON *pk = cJSON_GetObjectItemCaseSensitive(args, "packages");
	const cJSON *sess = cJSON_GetObjectItemCaseSensitive(args, "session");
	const struct plugin *pl = NULL;
	struct session *s = NULL;
	struct install_call *ic;
	struct error err;

	if (sess && !(s = tool_find_session(env, mc, sess->valuestring))) {
		tool_no_session(env, mc, sess->valuestring, &err);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (lang && !(pl = tool_language(env, lang->valuestring,
					 cJSON_IsTrue(ml), &err))) {
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (!pl && !s) {
		mcp_call_finish_errorf(mc, ERR_INVALID_ARGUMENTS,
				       "language is required (unless "
				       "session is given)");
		return;
	}
	if (s && pl &&
	    !(pl = tool_session_language(env, s, sess->valuestring, pl,
					 &err))) {
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (s)
		pl = session_plugin(s);
	ic = calloc(1, sizeof(*ic));
	if (!ic) {
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	ic->env = env;
	ic->pl = pl;
	if (s)
		snprintf(ic->session, sizeof(ic->session), "%s",
			 sess->valuestring);
	/* Into a session: its engine's cache; else where a call of the
	 * language would run now (each engine has its own). */
	ic->on = s ? session_engine(s) : tool_install_engine(env, pl);
	if (tool_packages(env, mc, pl, pk, ic->on, installed_cb, ic))
		free(ic);
}

const struct tool tool_install = {
	.name = "sandbox_install",
	.title = "Install packages for later runs",
	.description =
		"Install packages (pip, npm, Go modules, crates) into the "
		"server's package cache, so that sandbox_execute calls with "
		"the same `packages` start at once, without network. The "
		"install runs in its own container whose only way out is a "
		"proxy that reaches the language's registries and nothing "
		"else; the sandboxes that run code never get a network. The "
		"result lists each package's resolved version and size, and "
		"`cached` (true when nothing had to be downloaded). An install "
		"that fails returns install_failed with the installer's "
		"output, or registry_unreachable naming the registry that "
		"did not answer and the setting that points at a mirror.",
	.input_schema = input_schema,
	.validate_schema = validate_schema,
	.read_only = 0,
	.destructive = 0,
	.idempotent = 1,
	.open_world = 1,
	.call = call,
};
