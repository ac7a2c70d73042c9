/*
 * tool_inspect.c - sandbox_inspect: the server's state as it is now, read
 * from where it lives (no figure is kept here):
 *
 *   pool      per language: containers warm, in use, starting, resetting,
 *             the floor and ceiling, counters since start. A tenant sees
 *             the configuration only, and its own usage and quotas
 *             ("tenant"): the live figures are every tenant's together
 *             and would tell one what the others do (docs/http.md)
 *   sessions  every session (as sandbox_session list) with its memory as
 *             last measured (session_memory.c)
 *   engine    the container engine (core/engines/engine_info.h)
 *   plugins   each language plugin: version, ABI, file, image, features;
 *             rejectedPlugins: each file not loaded, and why
 *   limits    each language's effective limits and policy, after the
 *             plugin, sandbox.ini and SANDBOX_* variables
 *   all       every section (the default)
 */
#include <stdlib.h>
#include <string.h>

#include "core/engines/engine_info.h"
#include "core/engines/engines.h"
#include "core/plugins/plugins.h"
#include "core/engines/pool.h"
#include "tools.h"
#include "core/tenants/tenants.h"
#include "mcp/tasks.h"

static const char *const whats[] = {"all",     "pool",	 "sessions", "engine",
				    "plugins", "limits", "tasks",    NULL};

static cJSON *input_schema(const struct tool_env *env)
{
	cJSON *s = cJSON_CreateObject(), *props;

	(void)env;
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_enum_prop(props, "what", whats,
		       "pool: warm and busy containers per language; "
		       "sessions: open sessions and their memory; engine: the "
		       "container engine, its runtime and what it enforces; "
		       "plugins: the language plugins; limits: each "
		       "language's effective limits; tasks: the caller's "
		       "tasks (calls kept past their request); all "
		       "(default).");
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

/* A tenant's own figures: what it runs and may still start, and its
 * quotas (tenants.h); nothing of another's. */
static cJSON *tenant_json(const struct tool_env *env, const struct tenant *t)
{
	const struct tenant_quota *q = &t->quota;
	cJSON *o = cJSON_CreateObject(), *quota;
	double left = q->per_minute;
	uint64_t now = uv_now(env->loop);

	/* The bucket as tenant_begin would find it now (not topped up). */
	if (q->per_minute && t->refill_ms) {
		left = t->bucket + (now > t->refill_ms
					    ? (double)(now - t->refill_ms) *
						      q->per_minute / 60000.0
					    : 0);
		if (left > q->per_minute)
			left = q->per_minute;
	}
	cJSON_AddStringToObject(o, "name", t->name);
	cJSON_AddNumberToObject(o, "running", t->running);
	if (q->per_minute)
		cJSON_AddNumberToObject(o, "startsAvailable",
					(double)(int)left);
	cJSON_AddNumberToObject(o, "httpSessions", t->http_open);
	quota = cJSON_AddObjectToObject(o, "quota");
	cJSON_AddNumberToObject(quota, "concurrent", q->concurrent);
	cJSON_AddNumberToObject(quota, "perMinute", q->per_minute);
	cJSON_AddNumberToObject(quota, "sessions", q->sessions);
	cJSON_AddNumberToObject(quota, "artifactMb",
				(double)(q->artifact_bytes >> 20));
	cJSON_AddNumberToObject(quota, "httpSessions", q->http_sessions);
	return o;
}

static cJSON *pool_json(const struct tool_env *env, const struct tenant *t)
{
	const struct config *c = env->cfg;
	cJSON *o = cJSON_CreateObject(), *langs;

	cJSON_AddNumberToObject(o, "maxContainers", c->max_containers);
	cJSON_AddNumberToObject(o, "memoryBudgetMb", c->memory_budget_mb);
	cJSON_AddNumberToObject(o, "idleShrinkSeconds", c->idle_shrink_s);
	langs = cJSON_AddObjectToObject(o, "languages");
	for (size_t i = 0; i < env->plugins->n; i++) {
		const struct plugin *pl = &env->plugins->v[i];
		struct pool_stats st;
		cJSON *l;

		if (!pl->policy.enabled)
			continue;
		l = cJSON_AddObjectToObject(langs, pl->desc->name);
		if (t) {
			cJSON_AddNumberToObject(l, "floor",
						pl->policy.pool_size);
			cJSON_AddNumberToObject(l, "ceiling",
						pl->policy.pool_max_size);
			cJSON_AddBoolToObject(l, "warmAtStart",
					      pl->policy.warm_at_start);
			cJSON_AddBoolToObject(l, "prestart",
					      pl->policy.prestart);
			continue;
		}
		engines_pool_stats(env->engines, pl, &st);
		cJSON_AddNumberToObject(l, "warm", st.idle);
		cJSON_AddNumberToObject(l, "inUse", st.busy);
		cJSON_AddNumberToObject(l, "starting", st.starting);
		cJSON_AddNumberToObject(l, "resetting", st.resetting);
		cJSON_AddNumberToObject(l, "callersWaiting", st.waiting);
		cJSON_AddNumberToObject(l, "floor", pl->policy.pool_size);
		cJSON_AddNumberToObject(l, "ceiling", pl->policy.pool_max_size);
		cJSON_AddBoolToObject(l, "warmAtStart",
				      pl->policy.warm_at_start);
		cJSON_AddBoolToObject(l, "used", st.in_use);
		cJSON_AddNumberToObject(l, "started", (double)st.started);
		cJSON_AddNumberToObject(l, "reused", (double)st.reused);
		cJSON_AddNumberToObject(l, "discarded", (double)st.discarded);
		/* One-off runs: by the interpreter that waited for them
		 * (docs/prestart.md), or started when they came. */
		cJSON_AddBoolToObject(l, "prestart", pl->policy.prestart);
		cJSON_AddNumberToObject(l, "prestarted", (double)st.prestarted);
		cJSON_AddNumberToObject(l, "cold", (double)st.cold);
	}
	if (t)
		cJSON_AddItemToObject(o, "tenant", tenant_json(env, t));
	return o;
}

static cJSON *plugins_json(const struct tool_env *env)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < env->plugins->n; i++) {
		const struct plugin *pl = &env->plugins->v[i];
		const struct sbx_plugin *d = pl->desc;
		cJSON *p = cJSON_CreateObject(), *a;
		char abi[16];

		cJSON_AddStringToObject(p, "name", d->name);
		cJSON_AddStringToObject(p, "version",
					d->version ? d->version : "");
		snprintf(abi, sizeof(abi), "%u.%u", (unsigned)d->abi_major,
			 (unsigned)d->abi_minor);
		cJSON_AddStringToObject(p, "abi", abi);
		cJSON_AddStringToObject(p, "file", pl->path ? pl->path : "");
		cJSON_AddBoolToObject(p, "enabled", pl->policy.enabled);
		cJSON_AddStringToObject(p, "image", pl->policy.image);
		a = cJSON_AddArrayToObject(p, "aliases");
		for (size_t k = 0; d->aliases && d->aliases[k]; k++)
			cJSON_AddItemToArray(a,
					     cJSON_CreateString(d->aliases[k]));
		a = cJSON_AddArrayToObject(p, "options");
		for (size_t k = 0; d->options && d->options[k].name; k++)
			cJSON_AddItemToArray(
				a, cJSON_CreateString(d->options[k].name));
		cJSON_AddBoolToObject(p, "sessionInterpreter",
				      d->session_cmd && d->session_cmd[0]);
		if (d->package_ecosystem)
			cJSON_AddStringToObject(p, "packages",
						d->package_ecosystem);
		else
			cJSON_AddNullToObject(p, "packages");
		cJSON_AddBoolToObject(p, "lexer", d->lex_mask != NULL);
		cJSON_AddBoolToObject(p, "prestart", d->prestart != NULL);
		cJSON_AddItemToArray(arr, p);
	}
	return arr;
}

/* The plugin files that were not loaded, and why (plugins.h). */
static cJSON *rejected_json(const struct tool_env *env)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < env->plugins->rejected; i++) {
		const struct plugin_reject *r = &env->plugins->rejects[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "file", r->path ? r->path : "");
		cJSON_AddStringToObject(o, "reason",
					r->reason ? r->reason : "");
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static cJSON *limits_json(const struct tool_env *env)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < env->plugins->n; i++) {
		const struct plugin *pl = &env->plugins->v[i];
		const struct policy *po = &pl->policy;
		const struct sbx_limits *lim = &po->limits;
		cJSON *l, *a;

		if (!po->enabled)
			continue;
		l = cJSON_AddObjectToObject(o, pl->desc->name);
		cJSON_AddNumberToObject(l, "memoryMb", lim->memory_mb);
		cJSON_AddNumberToObject(l, "cpuMillis", lim->cpu_millis);
		/* More than an engine has: what its containers get there
		 * (core/engines/engines.c warns in the log, doctor with the
		 * fix). */
		for (size_t k = 0; k < engines_count(env->engines); k++) {
			const struct engine *e = engines_at(env->engines, k);
			unsigned cpus = engine_cpus(e);

			if (!cpus || lim->cpu_millis <= cpus * 1000u)
				continue;
			if (!(a = cJSON_GetObjectItemCaseSensitive(
				      l, "cpuMillisClamped")))
				a = cJSON_AddObjectToObject(l,
							    "cpuMillisClamped");
			cJSON_AddNumberToObject(a, engine_name(e),
						cpus * 1000.0);
		}
		cJSON_AddNumberToObject(l, "pids", lim->pids);
		cJSON_AddNumberToObject(l, "timeoutMs", lim->timeout_ms);
		cJSON_AddNumberToObject(l, "maxTimeoutMs", po->max_timeout_ms);
		cJSON_AddNumberToObject(l, "stdoutCap", lim->stdout_cap);
		cJSON_AddNumberToObject(l, "stderrCap", lim->stderr_cap);
		cJSON_AddNumberToObject(l, "resultMaxTokens",
					env->cfg->result_max_tokens);
		cJSON_AddNumberToObject(l, "nofile", lim->nofile);
		cJSON_AddNumberToObject(l, "fsizeMb", lim->fsize_mb);
		cJSON_AddNumberToObject(l, "workMb", lim->work_mb);
		cJSON_AddNumberToObject(l, "tmpMb", lim->tmp_mb);
		cJSON_AddNumberToObject(l, "shmMb", po->shm_mb);
		cJSON_AddNumberToObject(l, "maxCodeBytes", po->max_code_bytes);
		cJSON_AddNumberToObject(l, "startTimeoutMs",
					po->start_timeout_ms);
		cJSON_AddNumberToObject(l, "resetTimeoutMs",
					po->reset_timeout_ms);
		cJSON_AddNumberToObject(l, "interruptGraceMs",
					po->interrupt_grace_ms);
		cJSON_AddNumberToObject(l, "maxUses", po->max_uses);
		cJSON_AddStringToObject(l, "network", po->network);
		cJSON_AddStringToObject(
			l, "blocklist",
			blocklist_mode_name(po->blocklist.mode));
		cJSON_AddNumberToObject(l, "blocklistRules",
					(double)po->blocklist.n);
		a = cJSON_AddArrayToObject(l, "seccompDeny");
		for (size_t k = 0; po->seccomp_deny && po->seccomp_deny[k]; k++)
			cJSON_AddItemToArray(
				a, cJSON_CreateString(po->seccomp_deny[k]));
		if (po->registry)
			cJSON_AddStringToObject(l, "registry", po->registry);
	}
	return o;
}

/* One call: the sections asked for, the engines' and the sessions' as
 * their answers come; the result when none is pending. */
struct inspect {
	struct mcp_call *call;
	cJSON *out;
	cJSON *engines; /* in out: each engine's state, its info added */
	int pending;
	uint32_t max_sessions;
};

/* One engine's description asked for. */
struct engine_ask {
	struct inspect *in;
	int index;
};

static void inspect_done(struct inspect *in)
{
	if (--in->pending > 0)
		return;
	mcp_call_finish(in->call, tool_ok(in->call, in->out));
	free(in);
}

static void add_sessions(const struct tool_env *env, struct inspect *in)
{
	cJSON *arr = tool_sessions_json(env, in->call);
	cJSON *o = cJSON_AddObjectToObject(in->out, "sessions");

	cJSON_AddNumberToObject(o, "open", cJSON_GetArraySize(arr));
	cJSON_AddNumberToObject(o, "max", in->max_sessions);
	cJSON_AddItemToObject(o, "list", arr ? arr : cJSON_CreateArray());
}

/* "engine" is the first engine's description (what one engine's server
 * has always shown); every engine's is in "engines" beside its health,
 * capacity and load. */
static void engine_cb(const struct error *err, cJSON *info, void *arg)
{
	struct engine_ask *ask = arg;
	struct inspect *in = ask->in;
	cJSON *e = cJSON_GetArrayItem(in->engines, ask->index);

	if (err) {
		info = cJSON_CreateObject();
		cJSON_AddStringToObject(info, "error", "docker_unavailable");
		cJSON_AddStringToObject(info, "message", err->msg);
	}
	if (ask->index == 0)
		cJSON_AddItemToObject(in->out, "engine",
				      cJSON_Duplicate(info, 1));
	if (e)
		cJSON_AddItemToObject(e, "info", info);
	else
		cJSON_Delete(info);
	free(ask);
	inspect_done(in);
}

static void ask_engines(const struct tool_env *env, struct inspect *in)
{
	size_t i, n = engines_count(env->engines);

	in->engines = engines_json(env->engines);
	/* An engine's load is every tenant's together (pool_json). */
	if (mcp_call_tenant(in->call)) {
		static const char *const load[] = {"containers", "inUse",
						   "waiting",	 "sessions",
						   "placed",	 NULL};
		cJSON *e;

		cJSON_ArrayForEach(e, in->engines)
		{
			for (size_t k = 0; load[k]; k++)
				cJSON_DeleteItemFromObjectCaseSensitive(
					e, load[k]);
		}
	}
	cJSON_AddItemToObject(in->out, "engines", in->engines);
	in->pending += (int)n;
	for (i = 0; i < n; i++) {
		struct engine_ask *ask = calloc(1, sizeof(*ask));

		if (!ask) {
			in->pending--;
			continue;
		}
		ask->in = in;
		ask->index = (int)i;
		if (engine_info_get(engine_docker(engines_at(env->engines, i)),
				    engine_cb, ask) != 0) {
			struct error err;

			error_set(&err, ERR_DOCKER_UNAVAILABLE,
				  "cannot ask the engine");
			engine_cb(&err, NULL, ask);
		}
	}
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(args, "what");
	const char *what = cJSON_IsString(w) ? w->valuestring : "all";
	int all = strcmp(what, "all") == 0, ask_engine;
	struct inspect *in = calloc(1, sizeof(*in));

	if (!in || !(in->out = cJSON_CreateObject())) {
		free(in);
		mcp_call_finish_errorf(mc, ERR_SANDBOX, "out of memory");
		return;
	}
	in->call = mc;
	/* A tenant's own limit: its quota (tenants.h). */
	in->max_sessions =
		mcp_call_tenant(mc) && mcp_call_tenant(mc)->quota.sessions
			? mcp_call_tenant(mc)->quota.sessions
			: env->cfg->max_sessions;
	if (all || strcmp(what, "pool") == 0)
		cJSON_AddItemToObject(in->out, "pool",
				      pool_json(env, mcp_call_tenant(mc)));
	if (all || strcmp(what, "plugins") == 0) {
		cJSON_AddItemToObject(in->out, "plugins", plugins_json(env));
		cJSON_AddItemToObject(in->out, "rejectedPlugins",
				      rejected_json(env));
	}
	if (all || strcmp(what, "limits") == 0)
		cJSON_AddItemToObject(in->out, "limits", limits_json(env));
	if ((all || strcmp(what, "tasks") == 0) && env->tasks)
		cJSON_AddItemToObject(
			in->out, "tasks",
			tasks_list_json(env->tasks, mcp_call_tenant(mc)));
	/* The sessions' memory is as last measured: only the engines are
	 * asked. */
	if (all || strcmp(what, "sessions") == 0)
		add_sessions(env, in);
	ask_engine = all || strcmp(what, "engine") == 0;
	/* Every answer counted before the first is asked for (one may come
	 * at once): the last of them, or this function, finishes the call. */
	in->pending = 1;
	if (ask_engine)
		ask_engines(env, in);
	/* NOLINTBEGIN(clang-analyzer-unix.Malloc): pending keeps in alive */
	inspect_done(in);
	/* NOLINTEND(clang-analyzer-unix.Malloc) */
}

const struct tool tool_inspect = {
	.name = "sandbox_inspect",
	.title = "State of the sandbox server",
	.description =
		"The server's state now: what: pool (warm and busy containers "
		"per language; over HTTP with tenants, the caller's own usage "
		"and quotas instead), sessions (open sessions and their "
		"memory), "
		"engine (each container engine: its health, capacity and "
		"load, its runtime, what it enforces), plugins (the "
		"languages), limits (each language's "
		"effective limits after sandbox.ini), tasks (the caller's "
		"calls kept as tasks: status, tool, times), or all.",
	.input_schema = input_schema,
	.read_only = 1,
	.destructive = 0,
	.idempotent = 1,
	.open_world = 0,
	.call = call,
};
