/*
 * adoption_wait.c - calls that wait for the sessions' re-adoption
 * (adoption_wait.h).
 */
#include "adoption_wait.h"

#include <stdlib.h>
#include <string.h>

#include "core/session/session.h"
#include "mcp/tools/resources.h"
#include "util/log.h"

#define LOG_MODULE "mcp"

struct waiting_call {
	struct waiting_call *next;
	struct adoption_wait *w;
	struct mcp_call *c;
	const struct tool *tool; /* NULL: a resources/read of args (a URI) */
	cJSON *args;
};

static void unlink_call(struct waiting_call *wc)
{
	struct adoption_wait *w = wc->w;
	struct waiting_call **pp;

	for (pp = &w->head; *pp; pp = &(*pp)->next)
		if (*pp == wc) {
			*pp = wc->next;
			break;
		}
	w->tail = &w->head;
	while (*w->tail)
		w->tail = &(*w->tail)->next;
}

static void cancel_cb(void *arg)
{
	struct waiting_call *wc = arg;

	unlink_call(wc);
	mcp_call_finish_errorf(wc->c, ERR_CANCELLED, NULL);
	cJSON_Delete(wc->args);
	free(wc);
}

static int hold(struct adoption_wait *w, struct mcp_call *c,
		const struct tool *t, const cJSON *args)
{
	struct waiting_call *wc = calloc(1, sizeof(*wc));

	if (!wc || !(wc->args = cJSON_Duplicate(args, 1))) {
		free(wc);
		return 0;
	}
	wc->w = w;
	wc->c = c;
	wc->tool = t;
	if (!w->tail)
		w->tail = &w->head;
	*w->tail = wc;
	w->tail = &wc->next;
	mcp_call_on_cancel(c, cancel_cb, wc);
	log_debug("%s waits for the re-adoption of the sessions",
		  t ? t->name : "resources/read");
	return 1;
}

/* Does this call depend on which sessions exist? One-off runs and
 * installs do not; everything else might (a session's files, a create). */
static int names_session(const struct tool *t, const cJSON *args)
{
	if (cJSON_GetObjectItemCaseSensitive(args, "session"))
		return 1;
	return strcmp(t->name, "sandbox_execute") != 0 &&
	       strcmp(t->name, "sandbox_install") != 0;
}

int adoption_wait_call(struct adoption_wait *w, const struct tool_env *env,
		       struct mcp_call *c, const struct tool *t,
		       const cJSON *args)
{
	return names_session(t, args) && session_mgr_adopting(env->sessions) &&
	       hold(w, c, t, args);
}

int adoption_wait_read(struct adoption_wait *w, const struct tool_env *env,
		       struct mcp_call *c, const cJSON *uri)
{
	/* A session's file: the session may be one still being adopted. */
	return strncmp(uri->valuestring, "sandbox://session/", 18) == 0 &&
	       session_mgr_adopting(env->sessions) && hold(w, c, NULL, uri);
}

void adoption_wait_run(struct adoption_wait *w, const struct tool_env *env)
{
	struct waiting_call *wc;

	while ((wc = w->head)) {
		w->head = wc->next;
		if (!w->head)
			w->tail = &w->head;
		mcp_call_on_cancel(wc->c, NULL, NULL);
		if (wc->tool)
			wc->tool->call(env, wc->c, wc->args);
		else
			resources_read(env, wc->c, wc->args->valuestring);
		cJSON_Delete(wc->args);
		free(wc);
	}
}
