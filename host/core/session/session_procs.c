/*
 * session_procs.c - a session's background processes (docs/processes.md)
 * and exchanges with its ports: requests to its agent (agent/bg.h,
 * agent/loopback.h) that go beside the session's queue.
 *
 * A request in flight is linked into its session, so that a destroy or a
 * pause ends it at once; its answer then finds it forgotten at the
 * connection (agent_client_proc_forget) and is dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/packages/install.h"
#include "session_internal.h"
#include "util/log.h"

#define LOG_MODULE "session"

/* The command's argv and the environment's entries at most. */
#define SPAWN_ENV_MAX 64

struct session_proc {
	struct session_mgr *m;
	uint64_t serial; /* the session's */
	struct agent_client *ac;
	uint32_t id;
	session_proc_cb cb;	 /* a process request's */
	session_exchange_cb xcb; /* an exchange's */
	void *arg;
	struct session_proc *next;
};

static void unlink_proc(struct session_proc *p)
{
	struct session *s = session_by_serial(p->m, p->serial);
	struct session_proc **pp;

	for (pp = s ? &s->procs : NULL; pp && *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			return;
		}
}

/* The connection closed under the request: the session's loss (its
 * destroy and pause settle theirs before). */
static const struct error *lost(const struct error *err, struct error *e)
{
	if (!err || (err->code != -EPIPE && err->code != -ECANCELED))
		return err;
	error_set(e, ERR_SESSION_LOST,
		  "the connection to the session's container was lost during "
		  "the call");
	return e;
}

static void proc_cb(struct agent_client *ac, const struct error *err,
		    const struct ap_proc_done *res, void *arg)
{
	struct session_proc *p = arg;
	struct error e;

	(void)ac;
	unlink_proc(p);
	p->cb(lost(err, &e), res, p->arg);
	free(p);
}

static void exchange_cb(struct agent_client *ac, const struct error *err,
			const struct ap_exchange_done *res, void *arg)
{
	struct session_proc *p = arg;
	struct error e;

	(void)ac;
	unlink_proc(p);
	p->xcb(lost(err, &e), res, p->arg);
	free(p);
}

/* Whether s can take a request now: 0, or the code with err. */
static int admit(struct session *s, struct error *err)
{
	if (s->destroying)
		return error_set(err, ERR_SESSION_DESTROYED,
				 "the session is being destroyed");
	if (s->paused || s->docker_op)
		return error_set(err, ERR_SESSION_PAUSED,
				 "session '%s' is paused; resume it first",
				 s->name);
	if (!s->ac || !agent_client_usable(s->ac))
		return error_set(err, ERR_SESSION_LOST,
				 "session '%s' has no connection to its "
				 "container now",
				 s->name);
	return 0;
}

static struct session_proc *proc_new(struct session *s, session_proc_cb cb,
				     void *arg)
{
	struct session_proc *p = calloc(1, sizeof(*p));

	if (p)
		*p = (struct session_proc){.m = s->m,
					   .serial = s->serial,
					   .ac = s->ac,
					   .cb = cb,
					   .arg = arg};
	return p;
}

/* The request went (rc 0) or did not: link p, or free it and say why. */
static int proc_sent(struct session *s, struct session_proc *p, int rc,
		     struct session_proc **out, struct error *err)
{
	if (rc) {
		free(p);
		if (rc == -ENOTSUP)
			return error_set(err, ERR_SANDBOX,
					 "this session's image has an agent "
					 "older than background processes; "
					 "rebuild the images "
					 "(scripts/build-images.sh)");
		return error_set(err, ERR_SESSION_LOST,
				 "cannot reach the session's container: %s",
				 strerror(-rc));
	}
	p->next = s->procs;
	s->procs = p;
	s->last_used_ms = session_now_ms();
	*out = p;
	return 0;
}

int session_spawn(struct session *s, const char *command, session_proc_cb cb,
		  void *arg, struct session_proc **out, struct error *err)
{
	const struct config *cfg = s->m->cfg;
	const char *argv[] = {"/bin/sh", "-c", command, NULL};
	const char *env[SPAWN_ENV_MAX];
	char *pkg_env[EXEC_MAX_EXTRA_ENV + 1] = {0};
	struct ap_spawn req = {0};
	struct session_proc *p;
	size_t n;
	int rc;

	if (admit(s, err))
		return err->code;
	if (!cfg->session_max_processes)
		return error_set(err, ERR_MAX_PROCESSES,
				 "background processes are turned off "
				 "([sessions] max_processes = 0)");
	/* The session's packages, as a program of its language gets them. */
	if (s->npkg && session_pkg_env(s, pkg_env)) {
		install_env_free(pkg_env);
		return error_set(err, ERR_PLUGIN,
				 "the plugin's package environment is too "
				 "long");
	}
	n = exec_env_fill(s->pl, NULL, 0, (const char *const *)pkg_env, env,
			  SPAWN_ENV_MAX - 1);
	/* Its output is read while it runs, not when it ends: Python's
	 * stdout would otherwise wait in a 8 KiB buffer. */
	env[n++] = "PYTHONUNBUFFERED=1";
	env[n] = NULL;
	req.x.run_argv = argv;
	req.x.env = env;
	req.x.seccomp_deny = s->pl->policy.seccomp_deny;
	req.label = command;
	req.label_len = strlen(command);
	req.max_live = cfg->session_max_processes;
	req.ring = cfg->session_process_log_bytes;
	p = proc_new(s, cb, arg);
	rc = p ? agent_client_spawn(s->ac, &req, proc_cb, p, &p->id) : -ENOMEM;
	install_env_free(pkg_env);
	if (rc == -ENOMEM) {
		free(p);
		return error_set(err, ERR_SANDBOX, "out of memory");
	}
	return proc_sent(s, p, rc, out, err);
}

int session_proc(struct session *s, const struct ap_proc *req,
		 session_proc_cb cb, void *arg, struct session_proc **out,
		 struct error *err)
{
	struct session_proc *p;
	int rc;

	if (admit(s, err))
		return err->code;
	p = proc_new(s, cb, arg);
	if (!p)
		return error_set(err, ERR_SANDBOX, "out of memory");
	rc = agent_client_proc(s->ac, req, proc_cb, p, &p->id);
	return proc_sent(s, p, rc, out, err);
}

int session_exchange(struct session *s, const struct ap_exchange *req,
		     session_exchange_cb cb, void *arg,
		     struct session_proc **out, struct error *err)
{
	struct session_proc *p;
	int rc;

	if (admit(s, err))
		return err->code;
	p = proc_new(s, NULL, arg);
	if (!p)
		return error_set(err, ERR_SANDBOX, "out of memory");
	p->xcb = cb;
	rc = agent_client_exchange(s->ac, req, exchange_cb, p, &p->id);
	return proc_sent(s, p, rc, out, err);
}

static void end(struct session_proc *p, int code, const char *msg)
{
	struct error e;

	agent_client_proc_forget(p->ac, p->id);
	error_set(&e, code, "%s", msg);
	if (p->xcb)
		p->xcb(&e, NULL, p->arg);
	else
		p->cb(&e, NULL, p->arg);
	free(p);
}

void session_proc_cancel(struct session_proc *p)
{
	unlink_proc(p);
	end(p, ERR_CANCELLED, "cancelled");
}

void session_procs_fail(struct session *s, int code, const char *msg)
{
	struct session_proc *p;

	while ((p = s->procs)) {
		s->procs = p->next;
		end(p, code, msg);
	}
}
