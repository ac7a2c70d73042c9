/*
 * session_adopt.c - sessions that outlive their server: at start, the
 * server takes its predecessor's state slot, finds the session containers
 * named for it ("sbx-s.<slot>.<deadline>.<language>.<name>") and
 * reconnects to each through `sbx-agent relay` (docs/sessions.md); the
 * same reconnection serves a session resumed after an adoption while
 * paused.
 */
#include "session_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker/container.h"
#include "util/log.h"

#define LOG_MODULE "sessions"

/* The connection to the agent went (the engine restarted, or the
 * container died): reconnect through the relay, for a while. */
void session_lost_cb(struct agent_client *ac, void *arg)
{
	struct session *s = arg;

	(void)ac;
	s->ac = NULL;
	session_queue_abort_unsent(s); /* it must never use ac */
	if (s->destroying)
		return;
	log_warn("[%s] session %s: the connection to its container was lost; "
		 "reconnecting",
		 s->pl->desc->name, s->name);
	session_audit(s->m, s, "session_disconnected", NULL);
	s->reconnecting = 1;
	s->reconnect_until_ms =
		session_now_ms() +
		(int64_t)s->m->cfg->session_reconnect_grace_s * 1000;
	session_reconnect(s);
}

void session_gone(struct session *s, const char *reason)
{
	struct session_mgr *m = s->m;
	unsigned i, k = 0;

	if (s->destroying)
		return;
	/* The oldest tombstone makes room. */
	if (m->ntomb < sizeof(m->tomb) / sizeof(m->tomb[0]))
		k = m->ntomb++;
	else
		for (i = 1; i < m->ntomb; i++)
			if (m->tomb[i].at_ms < m->tomb[k].at_ms)
				k = i;
	snprintf(m->tomb[k].name, sizeof(m->tomb[k].name), "%s", s->name);
	snprintf(m->tomb[k].reason, sizeof(m->tomb[k].reason), "%s", reason);
	m->tomb[k].at_ms = session_now_ms();
	log_error("[%s] session %s lost: %s", s->pl->desc->name, s->name,
		  reason);
	session_audit(m, s, "session_lost", reason);
	session_destroy(s);
}

int session_missing(struct session_mgr *m, const char *name, struct error *err)
{
	int64_t now = session_now_ms();
	unsigned i;

	const cJSON *u = m ? session_unavailable_find(m, name) : NULL;

	if (u)
		return error_set(
			err, ERR_SESSION_UNAVAILABLE,
			"session '%s' is a %s session, and this server has no "
			"%s plugin loaded (or the language is turned off): "
			"the session is kept as it was, and a server started "
			"with the plugin adopts it",
			name,
			cJSON_GetObjectItemCaseSensitive(u, "language")
				->valuestring,
			cJSON_GetObjectItemCaseSensitive(u, "language")
				->valuestring);
	for (i = 0; m && i < m->ntomb; i++)
		if (strcmp(m->tomb[i].name, name) == 0 &&
		    now - m->tomb[i].at_ms < SESSION_TOMBSTONE_MS)
			return error_set(err, ERR_SESSION_LOST,
					 "session '%s' was lost: %s", name,
					 m->tomb[i].reason);
	return error_set(err, ERR_SESSION_NOT_FOUND,
			 "no session named '%s' (create one with "
			 "sandbox_session)",
			 name);
}

struct check {
	struct session_mgr *m;
	uint64_t serial;
};

void session_fail_engine_away(struct session *s)
{
	struct error e;

	error_set(&e, ERR_DOCKER_UNAVAILABLE,
		  "the Docker engine does not answer; session '%s' "
		  "reconnects when it is back",
		  s->name);
	session_queue_fail(s, &e);
}

/* Is the container still there? Decides between trying again, giving
 * up, and telling callers that the engine is away. */
static void checked_cb(const struct error *err,
		       const struct container_summary *c, void *arg)
{
	struct check *ck = arg;
	struct session *s = session_by_serial(ck->m, ck->serial);

	free(ck);
	if (!s || s->destroying)
		return;
	s->checking = 0;
	if (err && err->code == -ENODEV) {
		/* The engine is away: calls fail at once until it is back. */
		if (!s->engine_down)
			log_warn("[%s] session %s: the Docker engine does not "
				 "answer; waiting for it until the session's "
				 "grace ends",
				 s->pl->desc->name, s->name);
		s->engine_down = 1;
		session_fail_engine_away(s);
		return;
	}
	s->engine_down = 0;
	if (err) {
		if (err->code == -ENOENT)
			session_gone(s, "its container no longer exists");
		return; /* something else: the next tick tries again */
	}
	if (!c->running)
		session_gone(s, "its container stopped");
}

static void check_container(struct session *s)
{
	struct check *ck = calloc(1, sizeof(*ck));

	if (!ck)
		return;
	ck->m = s->m;
	ck->serial = s->serial;
	s->checking = 1;
	if (container_inspect(engine_docker(s->eng), s->id, checked_cb, ck)) {
		s->checking = 0;
		free(ck);
	}
}

void session_reconnect_tick(struct session_mgr *m, int64_t now)
{
	struct session *s, *next;

	for (s = m->list; s; s = next) {
		next = s->next;
		if (!s->reconnecting || s->ac || s->connecting || s->checking ||
		    s->destroying)
			continue;
		if (now >= s->reconnect_until_ms)
			session_gone(s, "its container could not be reached "
					"again within the reconnect grace");
		else
			session_reconnect(s);
	}
}

static void reopen_cb(struct agent_client *ac, const struct error *err,
		      void *arg)
{
	struct session *s = arg;

	s->connecting = 0;
	s->reopening = NULL;
	if (err) {
		if (s->destroying || err->code == -ECANCELED)
			return;
		if (s->reconnecting) {
			check_container(s);
			return;
		}
		log_error("[%s] session %s: cannot reconnect to container "
			  "%.12s: %s; session removed",
			  s->pl->desc->name, s->name, s->id, err->msg);
		session_gone(s, "it could not be reconnected after the "
				"server's restart");
		return;
	}
	s->ac = ac;
	agent_client_keep(ac);
	if (s->reconnecting) {
		s->reconnecting = s->engine_down = 0;
		log_info("[%s] session %s reconnected (container %.12s)",
			 s->pl->desc->name, s->name, s->id);
		session_audit(s->m, s, "session_reconnected", NULL);
	} else {
		log_info("[%s] session %s re-adopted (container %.12s)",
			 s->pl->desc->name, s->name, s->id);
		session_audit(s->m, s, "session_adopted", NULL);
	}
	session_queue_next(s);
}

int session_reconnect(struct session *s)
{
	struct agent_client *ac;

	if (s->ac || s->connecting)
		return 0;
	s->connecting = 1;
	if (agent_client_reopen(engine_docker(s->eng), s->id, reopen_cb,
				session_lost_cb, s, &ac)) {
		s->connecting = 0;
		if (s->reconnecting)
			return -1; /* the next tick tries again */
		log_error("[%s] session %s: cannot reconnect",
			  s->pl->desc->name, s->name);
		session_gone(s, "it could not be reconnected");
		return -1;
	}
	s->reopening = ac;
	return 0;
}

/* "sbx-s.<slot>.<deadline>.<language>.<name>". */
static int parse_container_name(const char *n, const char *slot,
				int64_t *deadline_s, char *lang,
				size_t langsize, char *name, size_t namesize)
{
	const char *p, *dot;
	char *end;
	size_t len;

	len = strlen(SESSION_CONTAINER_PREFIX);
	if (strncmp(n, SESSION_CONTAINER_PREFIX, len) != 0)
		return -1;
	p = n + len;
	len = strlen(slot);
	if (strncmp(p, slot, len) != 0 || p[len] != '.')
		return -1;
	p += len + 1;
	*deadline_s = strtoll(p, &end, 10);
	if (end == p || *end != '.')
		return -1;
	p = end + 1;
	dot = strchr(p, '.');
	if (!dot || (size_t)(dot - p) >= langsize)
		return -1;
	memcpy(lang, p, (size_t)(dot - p));
	lang[dot - p] = '\0';
	if (strlen(dot + 1) >= namesize || !session_valid_name(dot + 1))
		return -1;
	snprintf(name, namesize, "%s", dot + 1);
	return 0;
}

static const cJSON *saved_entry(const cJSON *saved, const char *name)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, saved)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");

		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return e;
	}
	return NULL;
}

static double num(const cJSON *e, const char *key, double dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);

	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

/* One engine's list of the slot's containers. */
struct adopt_ctx {
	struct session_mgr *m;
	struct engine *eng;
	cJSON *saved; /* each engine's ctx has its own copy */
};

/* The session in saved entry e, as it was: its fields, its package sets. */
static void adopt_fields(struct session *s, const cJSON *e, int64_t now)
{
	const cJSON *k;

	s->created_ms = (int64_t)num(e, "created", (double)now);
	s->last_used_ms = (int64_t)num(e, "lastUsed", (double)now);
	s->ttl_s = (uint32_t)num(e, "ttl", s->m->cfg->session_ttl_s);
	s->executions = (uint64_t)num(e, "executions", 0);
	s->seq = (uint32_t)num(e, "seq", 0);
	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(e, "packages"))
	{
		if (cJSON_IsString(k) && pkg_key_valid(k->valuestring) &&
		    s->npkg < SESSION_MAX_PACKAGES)
			memcpy(s->pkg_keys[s->npkg++], k->valuestring,
			       PKG_KEY_LEN + 1);
	}
}

/* ---- sessions of a language this server cannot run ---- */

const cJSON *session_unavailable_find(const struct session_mgr *m,
				      const char *name)
{
	const cJSON *e =
		m->unavailable ? saved_entry(m->unavailable, name) : NULL;

	return e;
}

/*
 * A session of a language whose plugin this server has not loaded (a
 * contributor's plugin left out, a plugin that failed to load) or has
 * turned off: it is not this server's to run, nor to remove. Its
 * container is left as it is (the agent waits for a relay connection
 * however long it takes) and its entry is kept in the state file, so
 * that the next server with the plugin adopts it with its state. Its
 * clocks run on: it expires like any session (session_unavailable_expire).
 */
static void keep_unavailable(struct session_mgr *m, struct engine *eng,
			     const cJSON *saved, const char *name,
			     const char *lang, const char *id,
			     int64_t deadline_ms, int64_t now, int missing)
{
	cJSON *e;

	if (!m->unavailable && !(m->unavailable = cJSON_CreateArray()))
		return;
	if (session_unavailable_find(m, name))
		return;
	e = saved ? cJSON_Duplicate(saved, 1) : cJSON_CreateObject();
	if (!e)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(e, "name");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "language");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "container");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "engine");
	cJSON_DeleteItemFromObjectCaseSensitive(e, "deadline");
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "language", lang);
	cJSON_AddStringToObject(e, "container", id);
	cJSON_AddStringToObject(e, "engine", engine_name(eng));
	cJSON_AddNumberToObject(e, "deadline", (double)deadline_ms);
	/* What adopt_fields would take when the state file had nothing. */
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "lastUsed"))) {
		cJSON_DeleteItemFromObjectCaseSensitive(e, "lastUsed");
		cJSON_AddNumberToObject(e, "lastUsed", (double)now);
	}
	if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(e, "ttl"))) {
		cJSON_DeleteItemFromObjectCaseSensitive(e, "ttl");
		cJSON_AddNumberToObject(e, "ttl", m->cfg->session_ttl_s);
	}
	cJSON_AddItemToArray(m->unavailable, e);
	log_warn("session %s (container %.12s) is a %s session and the %s "
		 "plugin is %s: the session is kept as it is, unusable "
		 "here, for a server started with the plugin to adopt",
		 name, id, lang, lang,
		 missing ? "not loaded" : "turned off in the configuration");
}

static void drop_unavailable(struct session_mgr *m, const char *name,
			     const char *reason)
{
	cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, m->unavailable)
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *id =
			cJSON_GetObjectItemCaseSensitive(e, "container");
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "engine");
		struct engine *eng;

		if (!cJSON_IsString(n) || strcmp(n->valuestring, name) != 0) {
			i++;
			continue;
		}
		eng = cJSON_IsString(en) ? engines_find(m->es, en->valuestring)
					 : NULL;
		if (!eng && engines_count(m->es) == 1)
			eng = engines_at(m->es, 0);
		log_info("session %s (%s, not loaded here) removed: %s", name,
			 cJSON_GetObjectItemCaseSensitive(e, "language")
				 ->valuestring,
			 reason);
		if (eng && cJSON_IsString(id))
			session_remove_container(m, eng, id->valuestring);
		cJSON_DeleteItemFromArray(m->unavailable, i);
		session_save(m);
		return;
	}
}

int session_destroy_unavailable(struct session_mgr *m, const char *name)
{
	if (!m || !session_unavailable_find(m, name))
		return ERR_SESSION_NOT_FOUND;
	drop_unavailable(m, name, "destroyed");
	return 0;
}

void session_unavailable_expire(struct session_mgr *m, int64_t now)
{
	const cJSON *e;
	char name[SESSION_QNAME_MAX + 1];

	for (;;) {
		const char *reason = NULL;

		cJSON_ArrayForEach(e, m->unavailable)
		{
			double last = num(e, "lastUsed", (double)now),
			       ttl = num(e, "ttl", m->cfg->session_ttl_s);

			if (num(e, "deadline", 0) <= (double)now)
				reason = "maximum lifetime reached";
			else if (last + ttl * 1000 <= (double)now)
				reason = "idle longer than its TTL";
			if (reason)
				break;
		}
		if (!reason)
			return;
		snprintf(name, sizeof(name), "%s",
			 cJSON_GetObjectItemCaseSensitive(e, "name")
				 ->valuestring);
		drop_unavailable(m, name, reason);
	}
}

static void adopt_one(struct session_mgr *m, struct engine *eng,
		      const cJSON *saved, const struct container_summary *c)
{
	const cJSON *e;
	char lang[40], name[SESSION_QNAME_MAX + 1];
	const struct plugin *pl;
	struct session *s;
	int64_t deadline_s, now = session_now_ms();
	/* Running or paused: alive, and its agent waits for a relay. */
	int up =
		c->status == CONTAINER_RUNNING || c->status == CONTAINER_PAUSED;

	if (parse_container_name(c->name, session_store_slot(m->store),
				 &deadline_s, lang, sizeof(lang), name,
				 sizeof(name)))
		return;
	pl = plugins_find(m->ps, lang);
	if ((!pl || !pl->policy.enabled) && deadline_s * 1000 > now &&
	    !session_find(m, name) && up) {
		keep_unavailable(m, eng, saved_entry(saved, name), name, lang,
				 c->id, deadline_s * 1000, now, !pl);
		return;
	}
	if (!pl || !pl->policy.enabled || session_find(m, name) ||
	    deadline_s * 1000 <= now || !up || m->n >= m->cfg->max_sessions) {
		log_info("removing session container %.12s (%s): expired, "
			 "stopped or not adoptable",
			 c->id, name);
		session_remove_container(m, eng, c->id);
		return;
	}
	s = session_alloc(m, pl, name);
	if (!s)
		return;
	session_set_engine(s, eng);
	snprintf(s->id, sizeof(s->id), "%s", c->id);
	e = saved_entry(saved, name);
	s->deadline_ms = deadline_s * 1000;
	adopt_fields(s, e, now);
	s->paused = c->status == CONTAINER_PAUSED;
	session_memory_sample(s);
	if (!s->paused)
		session_reconnect(s);
	else
		log_info("[%s] session %s re-adopted, paused", pl->desc->name,
			 name);
}

/* A container id as the engine gives it: 64 hex digits, or 12 and more. */
static int container_id_ok(const char *id)
{
	size_t n = strspn(id, "0123456789abcdef");

	return id[n] == '\0' && n >= 12 && n <= 64;
}

/* The engine that holds the sessions does not answer now: they are
 * taken as they were saved, and reconnect (through the usual grace) once
 * it answers; if it does not in time, their names answer session_lost. */
static void adopt_unreachable(struct adopt_ctx *ctx)
{
	struct session_mgr *m = ctx->m;
	int64_t now = session_now_ms();
	const cJSON *e;

	cJSON_ArrayForEach(e, ctx->saved)
	{
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		const cJSON *lang =
			cJSON_GetObjectItemCaseSensitive(e, "language");
		const cJSON *id =
			cJSON_GetObjectItemCaseSensitive(e, "container");
		const cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "engine");
		const struct plugin *pl;
		struct session *s;

		/* Saved before engines had names: the only engine's. */
		if (cJSON_IsString(en) ? strcmp(en->valuestring,
						engine_name(ctx->eng)) != 0
				       : engines_count(m->es) != 1)
			continue;
		if (!cJSON_IsString(name) || !cJSON_IsString(lang) ||
		    !cJSON_IsString(id) ||
		    !session_valid_name(name->valuestring) ||
		    !container_id_ok(id->valuestring) ||
		    num(e, "deadline", 0) <= (double)now ||
		    session_find(m, name->valuestring) ||
		    m->n >= m->cfg->max_sessions)
			continue;
		pl = plugins_find(m->ps, lang->valuestring);
		if (!pl || !pl->policy.enabled) {
			keep_unavailable(m, ctx->eng, e, name->valuestring,
					 lang->valuestring, id->valuestring,
					 (int64_t)num(e, "deadline", 0), now,
					 !pl);
			continue;
		}
		s = session_alloc(m, pl, name->valuestring);
		if (!s)
			return;
		session_set_engine(s, ctx->eng);
		snprintf(s->id, sizeof(s->id), "%s", id->valuestring);
		s->deadline_ms = (int64_t)num(e, "deadline", 0);
		adopt_fields(s, e, now);
		s->reconnecting = 1;
		s->engine_down = 1;
		s->reconnect_until_ms =
			now + (int64_t)m->cfg->session_reconnect_grace_s * 1000;
		log_warn("[%s] session %s: its engine %s does not answer; "
			 "waiting for it until the session's grace ends",
			 pl->desc->name, s->name, engine_name(ctx->eng));
	}
}

static void adopt_list_cb(const struct error *err,
			  const struct container_summary *list, size_t n,
			  void *arg)
{
	struct adopt_ctx *ctx = arg;
	struct session_mgr *m = ctx->m;
	size_t i;

	if (m->shutting_down) {
		/* nothing to take */
	} else if (err) {
		log_warn("engine %s: cannot list session containers to "
			 "re-adopt: %s",
			 engine_name(ctx->eng), err->msg);
		adopt_unreachable(ctx);
		session_save(m);
	} else {
		for (i = 0; i < n; i++)
			adopt_one(m, ctx->eng, ctx->saved, &list[i]);
		session_save(m);
	}
	cJSON_Delete(ctx->saved);
	free(ctx);
	if (--m->adopt_lists == 0)
		session_adoption_end(m, NULL);
}

int session_mgr_adopting(const struct session_mgr *m)
{
	return m && m->adopting;
}

void session_mgr_on_adopted(struct session_mgr *m, void (*cb)(void *arg),
			    void *arg)
{
	m->adopted_cb = cb;
	m->adopted_arg = arg;
}

void session_adoption_end(struct session_mgr *m, const char *reason)
{
	if (!m->adopting)
		return;
	m->adopting = 0;
	if (reason)
		log_warn("re-adoption of the previous server's sessions ended: "
			 "%s",
			 reason);
	if (m->adopted_cb)
		m->adopted_cb(m->adopted_arg);
}

void session_mgr_start(struct session_mgr *m)
{
	struct adopt_ctx *ctx;
	char prefix[80];
	struct error err;
	cJSON *saved;
	size_t i;
	int rc;

	session_expiry_start(m);
	rc = session_store_open(m->loop, m->cfg->state_dir, &m->store, &err);
	if (rc) {
		log_warn("sessions will not survive a restart: %s", err.msg);
		return;
	}
	log_debug("session state slot %s (%s)", session_store_slot(m->store),
		  session_store_path(m->store));
	saved = session_store_load(m->store);
	snprintf(prefix, sizeof(prefix), SESSION_CONTAINER_PREFIX "%s.",
		 session_store_slot(m->store));
	for (i = 0; i < engines_count(m->es); i++) {
		ctx = calloc(1, sizeof(*ctx));
		if (!ctx)
			break;
		ctx->m = m;
		ctx->eng = engines_at(m->es, i);
		ctx->saved = cJSON_Duplicate(saved, 1);
		if (container_list_named(engine_docker(ctx->eng), prefix,
					 adopt_list_cb, ctx)) {
			cJSON_Delete(ctx->saved);
			free(ctx);
			continue;
		}
		m->adopt_lists++;
	}
	cJSON_Delete(saved);
	if (!m->adopt_lists)
		return;
	/* Until every list is answered, a name may be a session of the
	 * predecessor's. */
	m->adopting = 1;
	m->adopt_until_ms = session_now_ms() + SESSION_ADOPT_DEADLINE_MS;
}
