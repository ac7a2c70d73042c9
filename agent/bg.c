/*
 * bg.c - the background processes of a session's container: the table,
 * their output rings, AP_SPAWN and AP_PROC.
 *
 * A process is started like a run step (spawn_user: its own session, the
 * sandbox user, the request's seccomp filter) with stdin on /dev/null and
 * stdout and stderr on one pipe, which the loop reads into the process's
 * ring whatever else runs, so a chatty server never blocks on a full
 * pipe. Offsets count every byte the process wrote, so a reader that
 * comes back later knows how much it missed.
 */
#include "bg.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "log.h"
#include "procs.h"
#include "spawn.h"

/* Reads per process per loop turn, so one flood cannot starve the
 * others or stdin. */
#define READS_PER_TURN 4

struct bg_proc {
	pid_t pid; /* 0: a free slot */
	int fd;	   /* the output's read end, -1 once at EOF */
	int exited;
	int status;		       /* wait status, once exited */
	uint64_t started_ms, ended_ms; /* Unix time */
	uint64_t serial;	       /* start order, for eviction */
	unsigned char *ring;
	size_t cap;
	uint64_t total; /* bytes written in all */
	int spared;	/* its session is spared (procs_spare_session) */
	int gone;	/* ended, and its group was seen empty: its number
			 * may belong to another process now */
	char *label;
	size_t label_len;
};

struct bg_wait {
	uint32_t id; /* 0: a free slot */
	pid_t pid;
	uint64_t deadline_ms; /* agent_now_ms() */
};

static struct {
	struct ap_buf *out;
	struct bg_proc p[BG_MAX];
	struct bg_wait w[BG_WAITS_MAX];
	uint64_t serial;
} bg;

static unsigned char iobuf[64 * 1024];

static uint64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void bg_init(struct ap_buf *out)
{
	memset(&bg, 0, sizeof(bg));
	bg.out = out;
	for (int i = 0; i < BG_MAX; i++)
		bg.p[i].fd = -1;
}

/* 1 while processes of p's group run (p's own, or what it started).
 * Once it was seen empty, never again: the number may be another's. */
static int group_alive(const struct bg_proc *p)
{
	return !p->gone && (kill(-p->pid, 0) == 0 || errno == EPERM);
}

/* Running, or leaving something behind that runs or writes. */
static int live(const struct bg_proc *p)
{
	return p->pid && (!p->exited || p->fd >= 0 || group_alive(p));
}

static void forget(struct bg_proc *p)
{
	if (p->spared)
		procs_spare_session(p->pid, 0);
	if (p->fd >= 0)
		close(p->fd);
	free(p->ring);
	free(p->label);
	memset(p, 0, sizeof(*p));
	p->fd = -1;
}

/* The entry of pid: the running one when an ended one had the same
 * number before. */
static struct bg_proc *find(uint32_t pid)
{
	struct bg_proc *ended = NULL;

	for (int i = 0; pid && i < BG_MAX; i++)
		if (bg.p[i].pid == (pid_t)pid) {
			if (!bg.p[i].exited)
				return &bg.p[i];
			ended = &bg.p[i];
		}
	return ended;
}

static void ring_add(struct bg_proc *p, const unsigned char *d, size_t n)
{
	size_t pos, first;

	p->total += n;
	if (n > p->cap) {
		d += n - p->cap;
		n = p->cap;
	}
	pos = (size_t)((p->total - n) % p->cap);
	first = p->cap - pos < n ? p->cap - pos : n;
	memcpy(p->ring + pos, d, first);
	memcpy(p->ring, d + first, n - first);
}

/* The oldest byte the ring still holds. */
static uint64_t ring_start(const struct bg_proc *p)
{
	return p->total > p->cap ? p->total - p->cap : 0;
}

/* Read what waits in p's pipe: a few reads (a loop turn's share), or
 * (all) what was there, bounded so that a writer that keeps the pipe
 * full from another CPU cannot hold the agent here. */
static void read_output(struct bg_proc *p, int all)
{
	size_t most = all ? p->cap / sizeof(iobuf) + 4 : READS_PER_TURN;
	ssize_t n;
	size_t i;

	for (i = 0; i < most && p->fd >= 0; i++) {
		n = read(p->fd, iobuf, sizeof(iobuf));
		if (n > 0) {
			ring_add(p, iobuf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(p->fd); /* EOF: nothing holds it open any more */
		p->fd = -1;
	}
}

static void entry_of(const struct bg_proc *p, struct ap_proc_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->pid = (uint32_t)p->pid;
	e->state = AP_PST_RUNNING;
	if (p->exited && WIFSIGNALED(p->status)) {
		e->state = AP_PST_KILLED;
		e->code = (uint32_t)WTERMSIG(p->status);
	} else if (p->exited) {
		e->state = AP_PST_EXITED;
		e->code = (uint32_t)WEXITSTATUS(p->status);
	}
	e->flags = (p->fd >= 0 ? AP_PF_OUTPUT_OPEN : 0) |
		   (p->exited && group_alive(p) ? AP_PF_GROUP_ALIVE : 0);
	e->started_ms = p->started_ms;
	e->ended_ms = p->ended_ms;
	e->log_start = ring_start(p);
	e->log_end = p->total;
	e->label = p->label;
	e->label_len = p->label_len;
}

/* One AP_PROC_DONE; m's entries are packed here from ps (n of them). */
static void reply(uint32_t id, struct ap_proc_done *m,
		  const struct bg_proc *const *ps, size_t n)
{
	struct ap_proc_entry e;
	struct ap_buf packed;
	int rc = 0;

	ap_buf_init(&packed);
	for (size_t i = 0; i < n && !rc; i++) {
		entry_of(ps[i], &e);
		rc = ap_proc_entry_pack(&packed, &e);
	}
	if (n && !rc) {
		m->entries = packed.data ? packed.data : (unsigned char *)"";
		m->entries_len = packed.len;
	}
	if (!rc)
		rc = ap_proc_done_encode(bg.out, id, m);
	if (rc) {
		/* The host waits for an answer: a short one, then. */
		struct ap_proc_done f = {.status = AP_PS_FAILED};

		agent_log("cannot queue AP_PROC_DONE: %s", strerror(-rc));
		f.message = "the answer could not be built";
		f.message_len = strlen(f.message);
		ap_proc_done_encode(bg.out, id, &f);
	}
	ap_buf_close(&packed);
}

static void reply_status(uint32_t id, uint32_t status, const char *msg)
{
	struct ap_proc_done m = {.status = status};

	if (msg) {
		m.message = msg;
		m.message_len = strlen(msg);
	}
	reply(id, &m, NULL, 0);
}

static void reply_one(uint32_t id, const struct bg_proc *p, int timed_out,
		      const char *msg)
{
	struct ap_proc_done m = {.status = AP_PS_OK};

	m.timed_out = (uint8_t)timed_out;
	if (msg) {
		m.message = msg;
		m.message_len = strlen(msg);
	}
	reply(id, &m, &p, 1);
}

/* A slot for a new process: a free one, else the oldest that has ended
 * and left nothing running. NULL when every slot is in use. */
static struct bg_proc *slot(void)
{
	struct bg_proc *old = NULL;

	for (int i = 0; i < BG_MAX; i++) {
		struct bg_proc *p = &bg.p[i];

		if (!p->pid)
			return p;
		if (!live(p) && (!old || p->serial < old->serial))
			old = p;
	}
	if (old)
		forget(old);
	return old;
}

static int start(struct bg_proc *p, const struct ap_spawn *m, size_t ndeny,
		 char *msg, size_t msz)
{
	struct spawn_opts o = {0};
	int pfd[2] = {-1, -1};
	pid_t pid;
	int rc;

	p->cap = m->ring ? m->ring : BG_RING_DEFAULT;
	if (p->cap > BG_RING_MAX)
		p->cap = BG_RING_MAX;
	p->ring = malloc(p->cap);
	p->label = malloc(m->label_len + 1);
	o.seccomp = spawn_seccomp_new(m->x.seccomp_deny, ndeny);
	rc = !p->ring || !p->label || !o.seccomp ? -ENOMEM : spawn_pipe(pfd);
	if (!rc) {
		fcntl(pfd[0], F_SETFL, O_NONBLOCK);
		if (m->label_len)
			memcpy(p->label, m->label, m->label_len);
		p->label[m->label_len] = '\0';
		p->label_len = m->label_len;
		o.argv = m->x.run_argv;
		o.envp = m->x.env;
		o.fd_in = 0; /* the agent's fd 0 is /dev/null */
		o.fd_out = o.fd_err = pfd[1];
		pid = spawn_user(&o);
		rc = pid < 0 ? (int)pid : 0;
	}
	spawn_seccomp_free(o.seccomp);
	if (pfd[1] >= 0)
		close(pfd[1]);
	if (rc) {
		if (pfd[0] >= 0)
			close(pfd[0]);
		snprintf(msg, msz, "cannot start the process: %s",
			 strerror(-rc));
		return rc;
	}
	/* An ended entry with the same number is history: forgotten, so
	 * that the number means this process only. */
	for (int i = 0; i < BG_MAX; i++)
		if (&bg.p[i] != p && bg.p[i].pid == pid)
			forget(&bg.p[i]);
	/* Spared before anything else can run a kill loop. */
	procs_spare_session(pid, 1);
	p->spared = 1;
	p->pid = pid;
	p->fd = pfd[0];
	p->started_ms = unix_ms();
	p->serial = ++bg.serial;
	return 0;
}

void bg_spawn(const struct ap_frame *f, int kept)
{
	struct ap_spawn m;
	struct error err;
	struct bg_proc *p;
	uint32_t max, running = 0;
	size_t ndeny = 0;
	char msg[160];

	if (ap_spawn_decode(f, &m, &err)) {
		reply_status(f->id, AP_PS_INVALID, err.msg);
		return;
	}
	max = m.max_live ? m.max_live : BG_LIVE_DEFAULT;
	if (max > BG_MAX)
		max = BG_MAX;
	for (int i = 0; i < BG_MAX; i++)
		running += (uint32_t)live(&bg.p[i]);
	while (m.x.seccomp_deny[ndeny])
		ndeny++;
	if (!kept) {
		reply_status(f->id, AP_PS_NOT_KEPT,
			     "background processes run in a session's "
			     "container only");
	} else if (running >= max || !(p = slot())) {
		snprintf(msg, sizeof(msg),
			 "%u background processes run already (the limit)",
			 running);
		reply_status(f->id, AP_PS_LIMIT, msg);
	} else if (start(p, &m, ndeny, msg, sizeof(msg))) {
		forget(p);
		reply_status(f->id, AP_PS_FAILED, msg);
	} else {
		agent_log("background process %d started", (int)p->pid);
		reply_one(f->id, p, 0, NULL);
	}
	ap_exec_free(&m.x);
}

static void logs(uint32_t id, const struct ap_proc *q, struct bg_proc *p)
{
	struct ap_proc_done m = {.status = AP_PS_OK};
	size_t want = q->length ? q->length : BG_LOGS_DEFAULT, n, pos, first;
	unsigned char *buf;
	uint64_t from, lo;

	if (want > BG_LOGS_MAX)
		want = BG_LOGS_MAX;
	/* What the process wrote so far, also what waits in its pipe; the
	 * oldest byte kept is known only after. */
	read_output(p, 1);
	bg_settle();
	lo = ring_start(p);
	if (want > p->cap)
		want = p->cap;
	if (q->has_offset)
		from = q->offset;
	else
		from = p->total > want ? p->total - want : 0;
	if (from < lo)
		from = lo;
	if (from > p->total)
		from = p->total;
	n = (size_t)(p->total - from) < want ? (size_t)(p->total - from) : want;
	buf = p->cap ? malloc(n ? n : 1) : NULL; /* a started one has a ring */
	if (!buf) {
		reply_status(id, AP_PS_FAILED, "out of memory");
		return;
	}
	pos = (size_t)(from % p->cap);
	first = p->cap - pos < n ? p->cap - pos : n;
	memcpy(buf, p->ring + pos, first);
	memcpy(buf + first, p->ring, n - first);
	m.data = buf;
	m.data_len = n;
	m.offset = from;
	reply(id, &m, (const struct bg_proc *const[]){p}, 1);
	free(buf);
}

static void signal_group(uint32_t id, const struct ap_proc *q,
			 struct bg_proc *p)
{
	if (q->signal < 1 || q->signal > 64) {
		reply_status(id, AP_PS_INVALID, "no such signal");
		return;
	}
	/* The whole group: a shell's command, and what it started; never a
	 * group whose number may be another's by now. */
	if (p->gone || (kill(-p->pid, (int)q->signal) && errno == ESRCH))
		reply_one(id, p, 0, "nothing of it runs any more");
	else
		reply_one(id, p, 0, NULL);
}

static void wait_for(uint32_t id, const struct ap_proc *q, struct bg_proc *p)
{
	int i;

	if (p->exited || !q->timeout_ms) {
		reply_one(id, p, !p->exited, NULL);
		return;
	}
	for (i = 0; i < BG_WAITS_MAX && bg.w[i].id; i++)
		;
	if (i == BG_WAITS_MAX || !id) {
		reply_status(id, AP_PS_BUSY, "too many waits at once");
		return;
	}
	bg.w[i] = (struct bg_wait){
		.id = id,
		.pid = p->pid,
		.deadline_ms = agent_now_ms() + q->timeout_ms,
	};
}

void bg_proc(const struct ap_frame *f)
{
	const struct bg_proc *all[BG_MAX];
	struct ap_proc_done m = {.status = AP_PS_OK};
	struct ap_proc q;
	struct error err;
	struct bg_proc *p;
	size_t n = 0;

	if (ap_proc_decode(f, &q, &err)) {
		reply_status(f->id, AP_PS_INVALID, err.msg);
		return;
	}
	if (q.op == AP_POP_LIST) {
		for (int i = 0; i < BG_MAX; i++)
			if (bg.p[i].pid)
				all[n++] = &bg.p[i];
		reply(f->id, &m, all, n);
		return;
	}
	p = find(q.pid);
	if (!p) {
		reply_status(f->id, AP_PS_NOT_FOUND,
			     "no such background process");
		return;
	}
	if (q.op == AP_POP_LOGS)
		logs(f->id, &q, p);
	else if (q.op == AP_POP_SIGNAL)
		signal_group(f->id, &q, p);
	else
		wait_for(f->id, &q, p);
}

/* Answer the waits on p (ended), or all whose time is up (p NULL). */
static void answer_waits(const struct bg_proc *p, uint64_t now)
{
	for (int i = 0; i < BG_WAITS_MAX; i++) {
		struct bg_wait *w = &bg.w[i];
		const struct bg_proc *wp;

		if (!w->id || (p ? w->pid != p->pid : now < w->deadline_ms))
			continue;
		wp = find((uint32_t)w->pid);
		if (wp)
			reply_one(w->id, wp, !wp->exited, NULL);
		else
			reply_status(w->id, AP_PS_NOT_FOUND,
				     "no such background process");
		w->id = 0;
	}
}

void bg_settle(void)
{
	for (int i = 0; i < BG_MAX; i++) {
		struct bg_proc *p = &bg.p[i];

		if (p->spared && p->exited && !live(p)) {
			procs_spare_session(p->pid, 0);
			p->spared = 0;
			p->gone = 1;
		}
	}
}

int bg_child_exited(pid_t pid, int status)
{
	struct bg_proc *p = find((uint32_t)pid);
	int mine = p && !p->exited;

	if (mine) {
		p->exited = 1;
		p->status = status;
		p->ended_ms = unix_ms();
		/* What it wrote before it ended is in the pipe: read it now,
		 * so a wait's answer is followed by its whole output. */
		read_output(p, 1);
		answer_waits(p, 0);
	}
	bg_settle();
	return mine;
}

int bg_poll_fill(struct pollfd *pfd)
{
	int n = 0;

	for (int i = 0; i < BG_MAX; i++)
		if (bg.p[i].fd >= 0)
			pfd[n++] = (struct pollfd){.fd = bg.p[i].fd,
						   .events = POLLIN};
	return n;
}

void bg_poll_done(const struct pollfd *pfd, int n)
{
	for (int i = 0; i < n; i++) {
		if (!pfd[i].revents)
			continue;
		for (int k = 0; k < BG_MAX; k++)
			if (bg.p[k].fd == pfd[i].fd) {
				read_output(&bg.p[k], 0);
				break;
			}
	}
	bg_settle();
}

uint64_t bg_deadline(void)
{
	uint64_t d = UINT64_MAX;

	for (int i = 0; i < BG_WAITS_MAX; i++)
		if (bg.w[i].id && bg.w[i].deadline_ms < d)
			d = bg.w[i].deadline_ms;
	return d;
}

void bg_step(void)
{
	if (bg_deadline() <= agent_now_ms())
		answer_waits(NULL, agent_now_ms());
}

void bg_drop_waits(void)
{
	memset(bg.w, 0, sizeof(bg.w));
}

void bg_kill_all(void)
{
	for (int i = 0; i < BG_MAX; i++) {
		if (!bg.p[i].pid)
			continue;
		kill(-bg.p[i].pid, SIGKILL);
		forget(&bg.p[i]);
	}
	bg_drop_waits();
}

void bg_cancel(uint32_t id)
{
	for (int i = 0; id && i < BG_WAITS_MAX; i++)
		if (bg.w[i].id == id)
			bg.w[i].id = 0;
}
