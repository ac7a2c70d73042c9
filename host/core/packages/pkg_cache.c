/*
 * pkg_cache.c - the package cache's index (pkg_cache.h).
 */
#include "pkg_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"

#define LOG_MODULE "packages"

struct pkg_cache {
	uv_loop_t *loop;
	char path[PATH_MAX];
	char volume[128];
	struct pkg_entry *v;
	size_t n, cap;
	cJSON *registries; /* {image id: "host:port ..."} */
	/* Saving: one write at a time; a change meanwhile writes again. */
	uv_work_t work;
	char *text; /* what the worker writes */
	int saving, dirty, closing;
};

static void entry_clear(struct pkg_entry *e)
{
	cJSON_Delete(e->specs);
	cJSON_Delete(e->manifest);
	memset(e, 0, sizeof(*e));
}

static int64_t num(const cJSON *o, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static struct pkg_entry *grow(struct pkg_cache *c)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 16;
		struct pkg_entry *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	memset(&c->v[c->n], 0, sizeof(c->v[c->n]));
	return &c->v[c->n++];
}

static void load(struct pkg_cache *c)
{
	FILE *f = fopen(c->path, "r");
	cJSON *j, *vol, *arr, *it;
	char *buf;
	long len;

	if (!f)
		return;
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 ||
	    len > 64L * 1024 * 1024 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)len + 1))) {
		fclose(f);
		log_warn("%s: unreadable, starting with an empty index",
			 c->path);
		return;
	}
	len = (long)fread(buf, 1, (size_t)len, f);
	fclose(f);
	j = cJSON_ParseWithLength(buf, (size_t)len);
	free(buf);
	vol = cJSON_GetObjectItemCaseSensitive(j, "volume");
	arr = cJSON_GetObjectItemCaseSensitive(j, "entries");
	if (!cJSON_IsString(vol) || !cJSON_IsArray(arr)) {
		log_warn("%s: not an index, starting with an empty one",
			 c->path);
		cJSON_Delete(j);
		return;
	}
	snprintf(c->volume, sizeof(c->volume), "%s", vol->valuestring);
	it = cJSON_GetObjectItemCaseSensitive(j, "registries");
	if (cJSON_IsObject(it)) {
		cJSON_Delete(c->registries);
		c->registries = cJSON_Duplicate(it, 1);
	}
	cJSON_ArrayForEach(it, arr)
	{
		cJSON *key = cJSON_GetObjectItemCaseSensitive(it, "key");
		cJSON *lang = cJSON_GetObjectItemCaseSensitive(it, "language");
		cJSON *specs = cJSON_GetObjectItemCaseSensitive(it, "specs");
		cJSON *man = cJSON_GetObjectItemCaseSensitive(it, "manifest");
		struct pkg_entry *e;

		if (!cJSON_IsString(key) || !pkg_key_valid(key->valuestring) ||
		    !cJSON_IsString(lang) || !cJSON_IsArray(specs) ||
		    !cJSON_IsObject(man) || !(e = grow(c)))
			continue;
		snprintf(e->key, sizeof(e->key), "%s", key->valuestring);
		snprintf(e->lang, sizeof(e->lang), "%s", lang->valuestring);
		e->specs = cJSON_Duplicate(specs, 1);
		e->manifest = cJSON_Duplicate(man, 1);
		e->bytes = (uint64_t)num(it, "bytes");
		e->seconds = (double)num(it, "millis") / 1000.0;
		e->created = num(it, "created");
		e->last_used = num(it, "lastUsed");
	}
	cJSON_Delete(j);
}

int pkg_cache_open(uv_loop_t *loop, const char *dir, const char *name,
		   struct pkg_cache **out)
{
	struct pkg_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->loop = loop;
	snprintf(c->path, sizeof(c->path), "%s/%s.json", dir, name);
	c->registries = cJSON_CreateObject();
	load(c);
	*out = c;
	return 0;
}

static void free_all(struct pkg_cache *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		entry_clear(&c->v[i]);
	free(c->v);
	free(c->text);
	cJSON_Delete(c->registries);
	free(c);
}

void pkg_cache_close(struct pkg_cache *c)
{
	if (!c)
		return;
	if (c->saving) {
		c->closing = 1; /* freed when the write is done */
		return;
	}
	free_all(c);
}

const char *pkg_cache_volume(const struct pkg_cache *c)
{
	return c->volume;
}

int pkg_cache_bind_volume(struct pkg_cache *c, const char *id)
{
	size_t i;

	if (strcmp(c->volume, id) == 0)
		return 0;
	if (c->n)
		log_info("the package volume is new (%s): forgetting %zu "
			 "cached sets",
			 id, c->n);
	for (i = 0; i < c->n; i++)
		entry_clear(&c->v[i]);
	c->n = 0;
	snprintf(c->volume, sizeof(c->volume), "%s", id);
	pkg_cache_save(c);
	return 1;
}

struct pkg_entry *pkg_cache_find(struct pkg_cache *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].key, key) == 0)
			return &c->v[i];
	return NULL;
}

struct pkg_entry *pkg_cache_add(struct pkg_cache *c, const char *key,
				const char *lang, const cJSON *specs,
				const cJSON *manifest, double seconds,
				int64_t now)
{
	struct pkg_entry *e = pkg_cache_find(c, key);

	if (e)
		entry_clear(e);
	else if (!(e = grow(c)))
		return NULL;
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->lang, sizeof(e->lang), "%s", lang);
	e->specs = cJSON_Duplicate(specs, 1);
	e->manifest = cJSON_Duplicate(manifest, 1);
	e->seconds = seconds;
	e->created = now;
	e->last_used = now;
	e->bytes = pkg_manifest_bytes(manifest);
	pkg_cache_save(c);
	return e;
}

struct pkg_entry *pkg_cache_at(struct pkg_cache *c, size_t i)
{
	return i < c->n ? &c->v[i] : NULL;
}

size_t pkg_cache_count(const struct pkg_cache *c)
{
	return c->n;
}

uint64_t pkg_cache_bytes(const struct pkg_cache *c)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		sum += c->v[i].bytes;
	return sum;
}

void pkg_cache_remove(struct pkg_cache *c, const char *key)
{
	struct pkg_entry *e = pkg_cache_find(c, key);

	if (!e)
		return;
	entry_clear(e);
	*e = c->v[--c->n];
	pkg_cache_save(c);
}

size_t pkg_cache_evict(struct pkg_cache *c, uint64_t max_bytes,
		       const char *keep, pkg_busy_fn busy, void *busy_arg,
		       char (*victims)[PKG_KEY_LEN + 1], size_t max)
{
	uint64_t total = pkg_cache_bytes(c);
	size_t n = 0;

	while (total > max_bytes && n < max) {
		struct pkg_entry *old = NULL;
		size_t i;

		for (i = 0; i < c->n; i++) {
			struct pkg_entry *e = &c->v[i];

			if ((keep && strcmp(e->key, keep) == 0) ||
			    (busy && busy(e->key, busy_arg)))
				continue;
			if (!old || e->last_used < old->last_used)
				old = e;
		}
		if (!old)
			break;
		total -= old->bytes;
		memcpy(victims[n++], old->key, PKG_KEY_LEN + 1);
		pkg_cache_remove(c, old->key);
	}
	return n;
}

cJSON *pkg_entry_json(const struct pkg_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *inst =
		cJSON_GetObjectItemCaseSensitive(e->manifest, "installer");

	cJSON_AddStringToObject(o, "key", e->key);
	if (e->lang[0])
		cJSON_AddStringToObject(o, "language", e->lang);
	else
		cJSON_AddNullToObject(o, "language");
	if (e->specs)
		cJSON_AddItemToObject(o, "specs", cJSON_Duplicate(e->specs, 1));
	else
		cJSON_AddNullToObject(o, "specs");
	cJSON_AddItemToObject(o, "packages",
			      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(
						      e->manifest, "packages"),
					      1));
	cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
	cJSON_AddStringToObject(o, "installer",
				cJSON_IsString(inst) ? inst->valuestring : "");
	cJSON_AddNumberToObject(o, "created", (double)e->created);
	if (e->last_used)
		cJSON_AddNumberToObject(o, "lastUsed", (double)e->last_used);
	else
		cJSON_AddNullToObject(o, "lastUsed");
	return o;
}

const char *pkg_cache_registries(const struct pkg_cache *c,
				 const char *image_id)
{
	const cJSON *r =
		cJSON_GetObjectItemCaseSensitive(c->registries, image_id);

	return cJSON_IsString(r) && *r->valuestring ? r->valuestring : NULL;
}

void pkg_cache_set_registries(struct pkg_cache *c, const char *image_id,
			      const char *allow)
{
	cJSON *v = cJSON_CreateString(allow);

	if (!c->registries || !v) {
		cJSON_Delete(v);
		return;
	}
	if (cJSON_HasObjectItem(c->registries, image_id))
		cJSON_ReplaceItemInObjectCaseSensitive(c->registries, image_id,
						       v);
	else
		cJSON_AddItemToObject(c->registries, image_id, v);
	pkg_cache_save(c);
}

/* ---- saving ---- */

static char *serialize(const struct pkg_cache *c)
{
	cJSON *root = cJSON_CreateObject(), *arr;
	char *s;
	size_t i;

	cJSON_AddStringToObject(root, "volume", c->volume);
	cJSON_AddItemToObject(root, "registries",
			      cJSON_Duplicate(c->registries, 1));
	arr = cJSON_AddArrayToObject(root, "entries");
	for (i = 0; arr && i < c->n; i++) {
		const struct pkg_entry *e = &c->v[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "key", e->key);
		cJSON_AddStringToObject(o, "language", e->lang);
		cJSON_AddItemToObject(o, "specs", cJSON_Duplicate(e->specs, 1));
		cJSON_AddItemToObject(o, "manifest",
				      cJSON_Duplicate(e->manifest, 1));
		cJSON_AddNumberToObject(o, "bytes", (double)e->bytes);
		cJSON_AddNumberToObject(o, "millis",
					(double)(int64_t)(e->seconds * 1000));
		cJSON_AddNumberToObject(o, "created", (double)e->created);
		cJSON_AddNumberToObject(o, "lastUsed", (double)e->last_used);
		cJSON_AddItemToArray(arr, o);
	}
	s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return s;
}

static void save_work(uv_work_t *w)
{
	struct pkg_cache *c = w->data;
	char tmp[PATH_MAX + 16];
	size_t len = strlen(c->text);
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.tmp", c->path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, c->text, len) != (ssize_t)len || fsync(fd) != 0) {
		close(fd);
		unlink(tmp);
		return;
	}
	close(fd);
	if (rename(tmp, c->path) != 0)
		unlink(tmp);
}

static void start_save(struct pkg_cache *c);

static void save_done(uv_work_t *w, int status)
{
	struct pkg_cache *c = w->data;

	(void)status;
	c->saving = 0;
	free(c->text);
	c->text = NULL;
	if (c->closing) {
		free_all(c);
		return;
	}
	if (c->dirty)
		start_save(c);
}

static void start_save(struct pkg_cache *c)
{
	c->dirty = 0;
	c->text = serialize(c);
	if (!c->text)
		return;
	c->work.data = c;
	if (uv_queue_work(c->loop, &c->work, save_work, save_done) == 0)
		c->saving = 1;
	else {
		free(c->text);
		c->text = NULL;
	}
}

void pkg_cache_save(struct pkg_cache *c)
{
	if (c->saving)
		c->dirty = 1;
	else
		start_save(c);
}
