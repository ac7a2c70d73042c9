/*
 * reset.c - AP_RESET: kill, wipe as the user, verify.
 *
 * The wipe runs in a forked worker with the user's uid and no capabilities,
 * so nothing the user planted (symlinks, odd modes, deep trees) can make it
 * remove or change anything the user could not have changed themselves.
 */
#include "reset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "bg.h"
#include "log.h"
#include "prestart.h"
#include "procs.h"
#include "repl.h"
#include "spawn.h"

/* Directories deeper than this are moved up to the top directory instead
 * of being descended into, so a tree of any depth is removed with a
 * bounded number of open fds and stack frames. */
#define WIPE_MAX_DEPTH 64
/* The worker reports this many problems, then only counts them. */
#define MAX_REPORTS 8

struct wipe_dir {
	const char *path;
	int optional; /* absent is fine (mqueue not mounted, ...) */
};

static const struct wipe_dir wipe_dirs[] = {
	{AGENT_WORKDIR, 0},
	{"/tmp", 1},
	{"/dev/shm", 1},
	{"/dev/mqueue", 1},
};

struct worker {
	mode_t work_mode;
	int problems;
	unsigned seq; /* names for hoisted directories */
	size_t removed, left, hoisted;
	int last_err;
};

__attribute__((format(printf, 2, 3))) static void report(struct worker *w,
							 const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	if (w->problems++ >= MAX_REPORTS)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(1, line, (size_t)n) < 0) {
		/* the agent reports the exit status instead */
	}
}

static int is_dot(const char *s)
{
	return s[0] == '.' && (!s[1] || (s[1] == '.' && !s[2]));
}

static void remove_contents(struct worker *w, int dfd, int rootfd, int depth);

static void remove_dir(struct worker *w, int dfd, const char *name, int rootfd,
		       int depth)
{
	char tmp[32];
	int sub;

	if (unlinkat(dfd, name, AT_REMOVEDIR) == 0) {
		w->removed++;
		return;
	}
	/* A directory the user chmod'ed 000 (or 0500) is still theirs to
	 * open up again. */
	fchmodat(dfd, name, 0700, 0);
	if (depth >= WIPE_MAX_DEPTH) {
		snprintf(tmp, sizeof(tmp), ".sbx-reset-%u", w->seq++);
		if (renameat(dfd, name, rootfd, tmp) == 0)
			w->hoisted++; /* a later pass gets it */
		else
			w->left++;
		return;
	}
	sub = openat(dfd, name,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0) {
		w->last_err = errno;
		w->left++;
		return;
	}
	remove_contents(w, sub, rootfd, depth + 1);
	close(sub);
	if (unlinkat(dfd, name, AT_REMOVEDIR) == 0) {
		w->removed++;
	} else {
		w->last_err = errno;
		w->left++;
	}
}

static void remove_contents(struct worker *w, int dfd, int rootfd, int depth)
{
	struct dirent *de;
	DIR *d;
	int fd;

	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		w->last_err = errno;
		w->left++;
		if (fd >= 0)
			close(fd);
		return;
	}
	/* The dup shares its offset with dfd, which an earlier pass left at
	 * the end. */
	rewinddir(d);
	while ((de = readdir(d))) {
		if (is_dot(de->d_name))
			continue;
		if (de->d_type != DT_DIR) {
			if (unlinkat(dfd, de->d_name, 0) == 0) {
				w->removed++;
				continue;
			}
			if (errno != EISDIR) {
				w->last_err = errno;
				w->left++;
				continue;
			}
		}
		remove_dir(w, dfd, de->d_name, rootfd, depth);
	}
	closedir(d);
}

/* Number of entries in the directory, and the first one's name. */
static long count_entries(int dfd, char *first, size_t size)
{
	struct dirent *de;
	size_t len;
	long n = 0;
	DIR *d;
	int fd;

	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (is_dot(de->d_name) || n++)
			continue;
		/* Names are shown cut short; enough to say what it was. */
		len = strnlen(de->d_name, size - 1);
		memcpy(first, de->d_name, len);
		first[len] = '\0';
	}
	closedir(d);
	return n;
}

static void wipe(struct worker *w, const struct wipe_dir *wd)
{
	int is_work = strcmp(wd->path, AGENT_WORKDIR) == 0;
	char first[64];
	long left;
	int fd;

	fd = open(wd->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == EACCES && is_work && chmod(wd->path, 0700) == 0)
		fd = open(wd->path,
			  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (!(wd->optional && errno == ENOENT))
			report(w, "%s: %s", wd->path, strerror(errno));
		return;
	}
	if (is_work)
		fchmod(fd, 0700); /* writable for the removal */
	w->last_err = 0;
	/* Passes repeat because readdir() may skip entries while the
	 * directory changes and hoisted subtrees land in the top. */
	do {
		w->removed = w->left = w->hoisted = 0;
		remove_contents(w, fd, fd, 0);
	} while (w->hoisted || (w->left && w->removed));
	if (is_work && fchmod(fd, w->work_mode))
		report(w, "%s: chmod: %s", wd->path, strerror(errno));

	left = count_entries(fd, first, sizeof(first));
	if (left < 0)
		report(w, "%s: cannot list: %s", wd->path, strerror(errno));
	else if (left > 0)
		report(w, "%s: %ld entries left, e.g. \"%s\" (%s)", wd->path,
		       left, first,
		       w->last_err ? strerror(w->last_err) : "unknown");
	close(fd);
}

/* IPC_RMID (if remove) every object listed in /proc/sysvipc/<kind>; returns
 * how many were listed, -1 if the file cannot be read. */
static int ipc_pass(const char *kind, int remove)
{
	char path[64], line[512];
	int n = 0, key, id;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sysvipc/%s", kind);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) { /* header */
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %d", &key, &id) != 2)
			continue;
		n++;
		if (!remove)
			continue;
		if (kind[1] == 'h')
			shmctl(id, IPC_RMID, NULL);
		else if (kind[0] == 'm')
			msgctl(id, IPC_RMID, NULL);
		else
			semctl(id, 0, IPC_RMID);
	}
	fclose(f);
	return n;
}

static int worker_main(void *arg)
{
	static const char *const kinds[] = {"shm", "msg", "sem"};
	struct worker *w = arg;
	size_t i;
	int n;

	for (i = 0; i < sizeof(wipe_dirs) / sizeof(wipe_dirs[0]); i++)
		wipe(w, &wipe_dirs[i]);
	for (i = 0; i < 3; i++) {
		ipc_pass(kinds[i], 1);
		n = ipc_pass(kinds[i], 0);
		if (n > 0)
			report(w, "sysvipc %s: %d objects left", kinds[i], n);
		else if (n < 0 && errno != ENOENT)
			report(w, "/proc/sysvipc/%s: %s", kinds[i],
			       strerror(errno));
	}
	return w->problems;
}

void reset_init(struct reset *r, struct ap_buf *out)
{
	struct stat st;

	memset(r, 0, sizeof(*r));
	r->out = out;
	r->fd = -1;
	r->work_mode = 0700;
	if (stat(AGENT_WORKDIR, &st) == 0)
		r->work_mode = st.st_mode & 07777;
}

static void reset_clear(struct reset *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->active = 0;
	r->stale = 0;
	r->pid = 0;
	r->msg_len = 0;
	r->checked = 0;
}

void reset_close(struct reset *r)
{
	reset_clear(r);
}

int reset_busy(const struct reset *r)
{
	return r->active;
}

int reset_start(struct reset *r, uint32_t id, struct error *err)
{
	struct worker w;
	int p[2], rc;
	pid_t pid;

	if (r->active)
		return error_set(err, -EBUSY, "busy");
	/* A session interpreter is state too (the fork server, stateless,
	 * stays). Survivors here are counted again at the end. */
	repl_stop();
	prestart_stop();
	bg_kill_all();
	procs_kill_all();
	if (pipe2(p, O_CLOEXEC)) {
		rc = -errno;
		return error_set(err, rc, "pipe: %s", strerror(-rc));
	}
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	memset(&w, 0, sizeof(w));
	w.work_mode = r->work_mode;
	pid = spawn_worker(worker_main, &w, p[1]);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return error_set(err, (int)pid,
				 "cannot start the reset worker: %s",
				 strerror((int)-pid));
	}
	r->active = 1;
	r->id = id;
	r->pid = pid;
	r->status = 0;
	r->fd = p[0];
	r->msg_len = 0;
	r->deadline_ms = agent_now_ms() + RESET_TIMEOUT_MS;
	return 0;
}

int reset_child_exited(struct reset *r, pid_t pid, int status)
{
	if (!r->active || pid != r->pid)
		return 0;
	r->pid = 0;
	r->status = status;
	return 1;
}

int reset_poll_fill(struct reset *r, struct pollfd *pfd)
{
	if (!r->active || r->fd < 0)
		return 0;
	pfd[0] = (struct pollfd){.fd = r->fd, .events = POLLIN};
	return 1;
}

static void read_report(struct reset *r)
{
	char discard[512];
	ssize_t n;

	for (;;) {
		if (r->msg_len < sizeof(r->msg) - 1)
			n = read(r->fd, r->msg + r->msg_len,
				 sizeof(r->msg) - 1 - r->msg_len);
		else
			n = read(r->fd, discard, sizeof(discard));
		if (n > 0) {
			if (r->msg_len < sizeof(r->msg) - 1)
				r->msg_len += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		close(r->fd);
		r->fd = -1;
		return;
	}
}

void reset_poll_done(struct reset *r, const struct pollfd *pfd, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (r->active && r->fd >= 0 && pfd[i].fd == r->fd &&
		    pfd[i].revents)
			read_report(r);
}

uint64_t reset_deadline(const struct reset *r)
{
	if (!r->active)
		return UINT64_MAX;
	if (r->checked) {
		uint64_t p = prestart_deadline();

		if (prestart_settled())
			return 0;
		return p < r->deadline_ms ? p : r->deadline_ms;
	}
	if (!r->pid && r->fd < 0)
		return 0;
	return r->deadline_ms;
}

static void append(struct reset *r, const char *s)
{
	size_t room = sizeof(r->msg) - 1 - r->msg_len;
	size_t n = strlen(s);

	if (n > room)
		n = room;
	memcpy(r->msg + r->msg_len, s, n);
	r->msg_len += n;
}

/* The worker is done: the final check, and the reply's text. */
static void check(struct reset *r)
{
	unsigned survivors;
	char note[96];
	size_t i, j;

	if (r->fd >= 0)
		read_report(r);
	/* The final check; also kills a worker that hung. */
	survivors = procs_kill_all();
	if (survivors) {
		snprintf(note, sizeof(note), "%u user processes survived\n",
			 survivors);
		append(r, note);
	}
	r->ok = r->msg_len == 0;
	/* The worker wrote one line per problem; the wire gets "a; b". */
	r->msg[r->msg_len] = '\0';
	j = 0;
	for (i = 0; i < r->msg_len && j < sizeof(r->text) - 3; i++) {
		if (r->msg[i] != '\n')
			r->text[j++] = r->msg[i];
		else if (i + 1 < r->msg_len) {
			r->text[j++] = ';';
			r->text[j++] = ' ';
		}
	}
	r->text[j] = '\0';
	if (!r->ok)
		agent_log("reset %u failed: %s", r->id, r->text);
	r->checked = 1;
	/* Only into a box that is clean; a failed one is discarded. */
	if (r->ok) {
		prestart_clean();
		prestart_launch();
	}
}

void reset_step(struct reset *r)
{
	struct ap_reset_done m;
	char note[96];
	int rc;

	if (!r->active)
		return;
	if (!r->checked) {
		if (r->pid || r->fd >= 0) {
			if (agent_now_ms() < r->deadline_ms)
				return;
			append(r, "reset worker timed out\n");
		} else if (!WIFEXITED(r->status) ||
			   (WEXITSTATUS(r->status) && !r->msg_len)) {
			snprintf(note, sizeof(note),
				 "reset worker failed (status %d)\n",
				 r->status);
			append(r, note);
		}
		check(r);
	}
	/* The reply waits for the next interpreter within the reset's own
	 * time (the host's reset timeout is longer): one still starting
	 * after it goes on starting, and a call may take it meanwhile. */
	prestart_step();
	if (!prestart_settled() && agent_now_ms() < r->deadline_ms)
		return;
	if (!r->stale) {
		m.ok = (uint8_t)r->ok;
		m.message = r->ok ? NULL : r->text;
		m.message_len = r->ok ? 0 : strlen(r->text);
		rc = ap_reset_done_encode(r->out, r->id, &m);
		if (rc)
			agent_log("reset %u: cannot queue the reply: %s", r->id,
				  strerror(-rc));
	}
	reset_clear(r);
}
