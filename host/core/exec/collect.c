/*
 * collect.c - reading a run's files back (collect.h).
 */
#include "collect.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/agent_ops.h"
#include "docker/agent_client.h"
#include "util/media.h"

/* How an artifact is read; arts[i] is what the list shows of items[i]. */
struct item {
	int want;	    /* to be read */
	uint32_t cap;	    /* its own cap */
	unsigned char *buf; /* being read or read (its data) */
	size_t cap_buf;
};

struct collect {
	struct exec_collect pol;
	struct exec_artifact *arts;
	struct item *v;
	size_t n, next;
	uint64_t total; /* bytes kept so far */
	struct agent_client *ac;
	collect_done_cb cb;
	void *arg;
	int stopped;
	uint32_t last_len; /* asked of the read on the way */
	char *paths;	   /* the items' paths */
};

/* The order the run made its files in, as near as the listing tells:
 * by the time each was last written, then by path. */
static int made_before(const void *pa, const void *pb)
{
	const struct ap_file_entry *a = pa, *b = pb;
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c;

	if (a->mtime_ms != b->mtime_ms)
		return a->mtime_ms < b->mtime_ms ? -1 : 1;
	c = memcmp(a->name, b->name, n);
	if (c)
		return c;
	return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

struct collect *collect_new(const struct exec_collect *pol,
			    const unsigned char *entries, size_t len)
{
	struct ap_file_entry e, *ents;
	struct collect *c;
	size_t off = 0, n = 0, bytes = 0, i;
	uint32_t images = 0;
	uint64_t planned = 0;
	char *p;

	while (ap_entries_next(entries, len, &off, &e)) {
		if (memchr(e.name, 0, e.name_len))
			continue; /* no file has such a name: a hostile agent */
		n++;
		bytes += e.name_len + 1;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->pol = *pol;
	if (!c->pol.chunk)
		c->pol.chunk = 4u << 20;
	c->arts = calloc(n ? n : 1, sizeof(*c->arts));
	c->v = calloc(n ? n : 1, sizeof(*c->v));
	c->paths = malloc(bytes ? bytes : 1);
	ents = calloc(n ? n : 1, sizeof(*ents));
	if (!c->arts || !c->v || !c->paths || !ents) {
		free(ents);
		collect_free(c);
		return NULL;
	}
	/* The files in the order they were made (the agent lists them by
	 * path): the first images made are the ones shown, in that order. */
	off = 0;
	i = 0;
	while (i < n && ap_entries_next(entries, len, &off, &e))
		if (!memchr(e.name, 0, e.name_len))
			ents[i++] = e;
	n = i;
	qsort(ents, n, sizeof(*ents), made_before);
	p = c->paths;
	for (i = 0; i < n; i++) {
		struct exec_artifact *a;
		struct item *it;
		int shown;

		e = ents[i];
		a = &c->arts[c->n];
		it = &c->v[c->n++];
		memcpy(p, e.name, e.name_len);
		p[e.name_len] = '\0';
		a->path = p;
		p += e.name_len + 1;
		a->size = e.size;
		a->image = media_is_image_name(a->path);
		/* An image that may be shown is read whatever other files
		 * get; to be kept it may also be as large as other files. */
		shown = a->image && images < pol->images &&
			e.size <= pol->image_max_bytes;
		it->cap = shown && pol->image_max_bytes > pol->other_max_bytes
				  ? pol->image_max_bytes
				  : pol->other_max_bytes;
		if (e.type != AP_FT_FILE)
			a->skip = EXEC_ART_UNREADABLE;
		else if (media_name_flags(e.name, e.name_len) &
			 MEDIA_NAME_CONTROL)
			a->skip = EXEC_ART_BAD_NAME; /* no file op reads it */
		else if (!it->cap && a->image)
			a->skip = e.size > pol->image_max_bytes
					  ? EXEC_ART_TOO_LARGE
					  : EXEC_ART_TOO_MANY;
		else if (!it->cap)
			a->skip = EXEC_ART_NOT_WANTED;
		else if (e.size > it->cap)
			a->skip = EXEC_ART_TOO_LARGE;
		else if (planned + e.size > pol->max_total)
			a->skip = EXEC_ART_OVER_TOTAL;
		else
			it->want = 1;
		if (it->want) {
			planned += e.size;
			images += shown;
		}
	}
	free(ents);
	return c;
}

const struct exec_artifact *collect_list(const struct collect *c, size_t *n)
{
	*n = c->n;
	return c->arts;
}

static void next_read(struct collect *c);
static int send_read(struct collect *c);
static void send_next(struct collect *c);

/* err: NULL, or why the connection cannot be used any more. */
static void finish(struct collect *c, const struct error *err)
{
	collect_done_cb cb = c->cb;
	size_t i;

	/* Files still to read when it stopped are listed as not read. */
	for (i = c->next; i < c->n; i++)
		if (c->v[i].want && !c->arts[i].data) {
			free(c->v[i].buf);
			c->v[i].buf = NULL;
			c->arts[i].len = 0;
			c->arts[i].skip = EXEC_ART_UNREADABLE;
		}

	c->cb = NULL;
	if (cb)
		cb(c, err, c->arg);
}

/* The artifact's bytes are dropped; it is listed with why. */
static void drop(struct collect *c, size_t i, enum exec_art_skip why)
{
	free(c->v[i].buf);
	c->v[i].buf = NULL;
	c->arts[i].len = 0;
	c->arts[i].skip = why;
}

/* The current read is over one way or the other: the next file. */
static void advance(struct collect *c)
{
	c->next++;
	next_read(c);
}

static void read_cb(struct agent_client *ac, const struct error *err,
		    const struct ap_file_done *res, void *arg)
{
	struct collect *c = arg;
	struct exec_artifact *a = &c->arts[c->next];
	struct item *it = &c->v[c->next];
	uint64_t room = c->pol.max_total - c->total;
	size_t got;

	(void)ac;
	if (err) {
		drop(c, c->next, EXEC_ART_UNREADABLE);
		if (error_is_ours(err->code))
			advance(c);
		else
			finish(c, err);
		return;
	}
	got = a->len + res->data_len;
	if (got > it->cap || got > room) {
		drop(c, c->next,
		     got > it->cap ? EXEC_ART_TOO_LARGE : EXEC_ART_OVER_TOTAL);
		advance(c);
		return;
	}
	if (got + 1 > it->cap_buf) {
		unsigned char *nb = realloc(it->buf, got + 1);

		if (!nb) {
			drop(c, c->next, EXEC_ART_UNREADABLE);
			advance(c);
			return;
		}
		it->buf = nb;
		it->cap_buf = got + 1;
	}
	if (res->data_len)
		memcpy(it->buf + a->len, res->data, res->data_len);
	a->len = got;
	if (!res->eof && res->data_len) {
		/* The agent fills every read it can: a short one that is not
		 * the end is not an agent to keep asking. */
		if (res->data_len < c->last_len) {
			struct error e;

			error_set(&e, -EPROTO, "the agent's read came short");
			finish(c, &e);
			return;
		}
		if (c->stopped) {
			finish(c, NULL);
			return;
		}
		send_next(c);
		return;
	}
	a->data = it->buf;
	c->total += got;
	advance(c);
}

static int send_read(struct collect *c)
{
	const struct exec_artifact *a = &c->arts[c->next];
	uint64_t left = (uint64_t)c->v[c->next].cap + 1 - a->len;
	struct ap_file q;

	memset(&q, 0, sizeof(q));
	q.op = AP_FOP_READ;
	q.path = a->path;
	q.path_len = strlen(a->path);
	q.offset = a->len;
	/* One byte past the cap: a file that grew is seen as too large. */
	q.length = left < c->pol.chunk ? (uint32_t)left : c->pol.chunk;
	c->last_len = q.length;
	return agent_client_file(c->ac, &q, read_cb, c);
}

/* Ask for the current file's next chunk; a request that cannot be sent
 * ends the collection (the connection is suspect). */
static void send_next(struct collect *c)
{
	struct error e;
	int rc = send_read(c);

	if (!rc)
		return;
	drop(c, c->next, EXEC_ART_UNREADABLE);
	error_set(&e, rc < 0 ? rc : -EIO, "cannot ask the agent for a file");
	finish(c, &e);
}

static void next_read(struct collect *c)
{
	while (c->next < c->n && !c->v[c->next].want)
		c->next++;
	if (c->next == c->n || c->stopped) {
		finish(c, NULL);
		return;
	}
	send_next(c);
}

int collect_pending(const struct collect *c)
{
	size_t i;

	for (i = c->next; i < c->n; i++)
		if (c->v[i].want)
			return 1;
	return 0;
}

int collect_run(struct collect *c, struct agent_client *ac, collect_done_cb cb,
		void *arg)
{
	int rc;

	while (c->next < c->n && !c->v[c->next].want)
		c->next++;
	if (c->next == c->n)
		return 0;
	c->ac = ac;
	c->cb = cb;
	c->arg = arg;
	rc = send_read(c);
	if (rc) {
		c->cb = NULL;
		finish(c, NULL); /* marks what was wanted as not read */
		return rc < 0 ? rc : -EIO;
	}
	return 1;
}

void collect_stop(struct collect *c)
{
	c->stopped = 1;
}

void collect_free(struct collect *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->v && i < c->n; i++)
		free(c->v[i].buf);
	free(c->v);
	free(c->arts);
	free(c->paths);
	free(c);
}
