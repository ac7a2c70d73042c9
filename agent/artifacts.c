/*
 * artifacts.c - inotify on /work: what an execution made (artifacts.h).
 */
#include "artifacts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "agent_ops.h"
#include "log.h"

#define WATCH_MASK                                                             \
	(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR |               \
	 IN_DONT_FOLLOW | IN_EXCL_UNLINK)

struct watch {
	int wd;
	char *path; /* relative to /work, "" for /work itself */
};

static struct {
	int fd;
	struct watch *w;
	size_t nw;
	int noting;
	int overflow;
	/* The distinct paths noted: a file makes several events (created,
	 * then closed after writing, ...) and is counted once. */
	char **noted;
	size_t nnoted, cap, bytes;
	uint32_t *slots; /* open addressing: index into noted + 1, or 0 */
	size_t nslots;	 /* a power of two, at least twice nnoted */
	int lost;	 /* a path not noted (past the caps): count unknown */
} st = {.fd = -1};

/* /work is the user's (mode 0700) and root here has no CAP_DAC_*: the
 * watches are added and the files looked at with the user's filesystem
 * ids, so exactly what the user's own code can see is seen. */
static void as_user(int on)
{
	if (on) {
		setfsgid(AGENT_GID);
		setfsuid(AGENT_UID);
	} else {
		setfsuid(0);
		setfsgid(0);
	}
}

static struct watch *find_wd(int wd)
{
	size_t i;

	for (i = 0; i < st.nw; i++)
		if (st.w[i].wd == wd)
			return &st.w[i];
	return NULL;
}

static char *join(const char *dir, const char *name)
{
	size_t dl = strlen(dir), nl = strlen(name);
	char *s = malloc(dl + nl + 2);

	if (!s)
		return NULL;
	snprintf(s, dl + nl + 2, "%s%s%s", dir, dl ? "/" : "", name);
	return s;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of p: where it is, or the empty one where it would go. */
static uint32_t *slot_of(const char *p, uint32_t h)
{
	size_t mask = st.nslots - 1, i;

	for (i = h & mask;; i = (i + 1) & mask)
		if (!st.slots[i] || !strcmp(st.noted[st.slots[i] - 1], p))
			return &st.slots[i];
}

static int grow_slots(void)
{
	size_t n = st.nslots ? st.nslots * 2 : 256, i;
	uint32_t *old = st.slots;

	st.slots = calloc(n, sizeof(*st.slots));
	if (!st.slots) {
		st.slots = old;
		return -1;
	}
	free(old);
	st.nslots = n;
	for (i = 0; i < st.nnoted; i++)
		*slot_of(st.noted[i], hash(st.noted[i])) = (uint32_t)i + 1;
	return 0;
}

static void note(const char *dir, const char *name)
{
	size_t len;
	char *p;

	if (!st.noting)
		return;
	p = join(dir, name);
	if (!p) {
		st.lost = 1;
		return;
	}
	len = strlen(p) + 1;
	if (st.nslots && *slot_of(p, hash(p))) {
		free(p); /* noted already */
		return;
	}
	if (st.nnoted >= ARTIFACTS_MAX_NOTED ||
	    st.bytes + len > ARTIFACTS_MAX_NOTED_BYTES)
		goto lost;
	if (st.nnoted == st.cap) {
		size_t nc = st.cap ? st.cap * 2 : 64;
		char **nv = realloc(st.noted, nc * sizeof(*nv));

		if (!nv)
			goto lost;
		st.noted = nv;
		st.cap = nc;
	}
	if ((st.nnoted + 1) * 2 > st.nslots && grow_slots())
		goto lost;
	st.noted[st.nnoted++] = p;
	st.bytes += len;
	*slot_of(p, hash(p)) = (uint32_t)st.nnoted;
	return;
lost:
	free(p);
	st.lost = 1;
}

/* Watch rel and the directories below it; files found are noted (they
 * came with a directory that is new or moved in). */
static void add_tree(const char *rel, int depth)
{
	char abs[PATH_MAX];
	struct watch *w;
	struct dirent *d;
	DIR *dir;
	int wd, fd;

	if (depth > ARTIFACTS_MAX_DEPTH || st.nw >= ARTIFACTS_MAX_WATCHES)
		return;
	snprintf(abs, sizeof(abs), "%s%s%s", AGENT_WORKDIR, *rel ? "/" : "",
		 rel);
	wd = inotify_add_watch(st.fd, abs, WATCH_MASK);
	if (wd < 0)
		return; /* gone, not a directory, or not ours to read */
	w = find_wd(wd);
	if (w) {
		/* The same directory under a new name (moved): later events
		 * name the new one. Those below keep their old names; their
		 * files are found again when stat'ed at the end or not. */
		char *p = strdup(rel);

		if (p) {
			free(w->path);
			w->path = p;
		}
	} else {
		struct watch *nv = realloc(st.w, (st.nw + 1) * sizeof(*nv));
		char *p = strdup(rel);

		if (!nv || !p) {
			free(p);
			if (nv)
				st.w = nv;
			inotify_rm_watch(st.fd, wd);
			return;
		}
		st.w = nv;
		st.w[st.nw].wd = wd;
		st.w[st.nw].path = p;
		st.nw++;
	}
	fd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (d->d_type == DT_DIR) {
			char *sub = join(rel, d->d_name);

			if (sub) {
				add_tree(sub, depth + 1);
				free(sub);
			}
		} else if (depth > 0) {
			note(rel, d->d_name);
		}
	}
	closedir(dir);
}

static void forget_wd(int wd)
{
	struct watch *w = find_wd(wd);

	if (!w)
		return;
	free(w->path);
	*w = st.w[--st.nw];
}

static int depth_of(const char *rel)
{
	int n = *rel ? 1 : 0;

	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

int artifacts_init(void)
{
	if (st.fd >= 0)
		return st.fd;
	st.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (st.fd < 0)
		return -errno;
	as_user(1);
	add_tree("", 0);
	as_user(0);
	if (!st.nw) {
		agent_log("artifacts: cannot watch %s", AGENT_WORKDIR);
		close(st.fd);
		st.fd = -1;
		return -EACCES;
	}
	return st.fd;
}

int artifacts_fd(void)
{
	return st.noting ? st.fd : -1;
}

static void handle(const struct inotify_event *ev)
{
	struct watch *w;
	char *sub;

	if (ev->mask & IN_Q_OVERFLOW) {
		st.overflow = 1;
		return;
	}
	if (ev->mask & IN_IGNORED) {
		forget_wd(ev->wd);
		return;
	}
	w = find_wd(ev->wd);
	if (!w || !ev->len)
		return;
	if (ev->mask & IN_ISDIR) {
		if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
			sub = join(w->path, ev->name);
			if (sub) {
				as_user(1);
				add_tree(sub, depth_of(sub));
				as_user(0);
				free(sub);
			}
		}
		return;
	}
	if (ev->mask & (IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO))
		note(w->path, ev->name);
}

void artifacts_read(void)
{
	char buf[16384]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	char *p;

	if (st.fd < 0)
		return;
	for (;;) {
		n = read(st.fd, buf, sizeof(buf));
		if (n <= 0)
			return;
		for (p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			handle(ev);
		}
	}
}

static void clear_noted(void)
{
	while (st.nnoted)
		free(st.noted[--st.nnoted]);
	st.bytes = 0;
	/* A table grown by a run of many files is not kept for the next. */
	if (st.nslots > 256) {
		free(st.slots);
		st.slots = NULL;
		st.nslots = 0;
		free(st.noted);
		st.noted = NULL;
		st.cap = 0;
	} else if (st.slots) {
		memset(st.slots, 0, st.nslots * sizeof(*st.slots));
	}
	st.lost = 0;
	st.overflow = 0;
}

void artifacts_begin(void)
{
	if (st.fd < 0)
		return;
	/* What happened before the run step is not the program's. The
	 * watches it added stay. */
	st.noting = 0;
	artifacts_read();
	clear_noted();
	st.noting = 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int artifacts_end(struct ap_buf *packed, uint32_t max, const char *skip,
		  uint32_t *more)
{
	struct ap_file_entry e;
	struct stat sb;
	char abs[PATH_MAX];
	size_t i;
	int rc = 0;

	*more = 0;
	if (st.fd < 0 || !st.noting)
		return 0;
	artifacts_read();
	st.noting = 0;
	if (st.overflow) {
		clear_noted();
		return -EOVERFLOW;
	}
	if (!st.nnoted) {
		*more = st.lost ? ARTIFACTS_UNKNOWN : 0;
		clear_noted();
		return 0; /* the usual case: no file, no system call */
	}
	qsort(st.noted, st.nnoted, sizeof(*st.noted), cmp_str);
	as_user(1);
	for (i = 0; i < st.nnoted && !rc; i++) {
		if (skip && !strcmp(st.noted[i], skip))
			continue;
		snprintf(abs, sizeof(abs), "%s/%s", AGENT_WORKDIR, st.noted[i]);
		if (lstat(abs, &sb) || !S_ISREG(sb.st_mode))
			continue; /* gone again, or not a file */
		if (max == 0) {
			++*more;
			continue;
		}
		max--;
		e.type = AP_FT_FILE;
		e.mode = sb.st_mode & 07777;
		e.size = (uint64_t)sb.st_size;
		e.mtime_ms = (uint64_t)sb.st_mtim.tv_sec * 1000 +
			     (uint64_t)sb.st_mtim.tv_nsec / 1000000;
		e.name = st.noted[i];
		e.name_len = strlen(st.noted[i]);
		rc = ap_file_entry_pack(packed, &e);
	}
	as_user(0);
	if (st.lost)
		*more = ARTIFACTS_UNKNOWN;
	clear_noted();
	return rc;
}
