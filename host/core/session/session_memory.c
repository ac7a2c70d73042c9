/*
 * session_memory.c - each session's memory figure, measured in the
 * background so that sandbox_session get/list and sandbox_inspect answer
 * from what is known (docs/sessions.md, "Memory").
 *
 * The Engine API's stats endpoint is the only way to ask, and it answers
 * only at its collector's next round, about a second later whatever the
 * query (container.h, container_memory). So nobody waits for it: a timer
 * asks for every session at once every [sessions] memory_refresh_ms, the
 * answers land in the sessions as they come, and a reader gets the last
 * figure with its age. The timer runs only while sessions exist and never
 * keeps the loop alive; a measurement in flight is withdrawn by its handle
 * when its session goes.
 */
#include "session_internal.h"

#include <errno.h>

#include "docker/container.h"
#include "util/log.h"

#define LOG_MODULE "sessions"

static void tick_cb(uv_timer_t *t);

void session_memory_init(struct session_mgr *m)
{
	uv_timer_init(m->loop, &m->memory);
	m->memory.data = m;
	uv_unref((uv_handle_t *)&m->memory);
}

void session_memory_watch(struct session_mgr *m)
{
	uint64_t every = m->cfg->session_memory_refresh_ms;
	int active = uv_is_active((uv_handle_t *)&m->memory);

	if (m->shutting_down || uv_is_closing((uv_handle_t *)&m->memory))
		return;
	if (m->n && !active)
		uv_timer_start(&m->memory, tick_cb, every, every);
	else if (!m->n && active)
		uv_timer_stop(&m->memory);
}

static void measured_cb(const struct error *err, uint64_t bytes, void *arg)
{
	struct session *s = arg; /* alive: its going withdraws this */

	s->mem_op = NULL;
	if (err) {
		/* The last figure stays, and its age says how old it is. */
		if (err->code != -ECANCELED)
			log_debug("[%s] session %s: memory not measured: %s",
				  s->pl->desc->name, s->name, err->msg);
		return;
	}
	s->mem_known = 1;
	s->mem_bytes = bytes;
	s->mem_at = uv_now(s->m->loop);
}

void session_memory_sample(struct session *s)
{
	if (s->mem_op || s->destroying || s->m->shutting_down || !s->eng ||
	    !s->id[0])
		return;
	if (container_memory(engine_docker(s->eng), s->id, measured_cb, s,
			     &s->mem_op))
		s->mem_op = NULL;
}

void session_memory_forget(struct session *s)
{
	if (s->mem_op)
		container_cancel(s->mem_op);
	s->mem_op = NULL;
}

/* Every session at once (each request on its own connection): the
 * answers come together about a second later, not one after another. */
static void tick_cb(uv_timer_t *t)
{
	struct session_mgr *m = t->data;
	uint64_t now = uv_now(m->loop);
	uint64_t half = m->cfg->session_memory_refresh_ms / 2;
	struct session *s;

	for (s = m->list; s; s = s->next) {
		/* Measured moments ago (a new session), or unreachable for
		 * now (its figure stays, ageing). */
		if (s->mem_known && now - s->mem_at < half)
			continue;
		if (s->engine_down || s->reconnecting)
			continue;
		/* A frozen container's memory does not change. */
		if (s->paused && s->mem_known)
			continue;
		session_memory_sample(s);
	}
}

void session_memory_close(struct session_mgr *m)
{
	struct session *s;

	for (s = m->list; s; s = s->next)
		session_memory_forget(s);
	if (!uv_is_closing((uv_handle_t *)&m->memory))
		uv_close((uv_handle_t *)&m->memory, NULL);
}
