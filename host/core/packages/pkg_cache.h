/*
 * pkg_cache.h - what this server knows of the package cache volume: one
 * entry per installed set (its key, language, specs and the installer's
 * manifest), with sizes and last use for LRU eviction. The volume holds
 * the files and each set's record (pkg_volume.h), which is what `cache
 * list` shows; this index is kept in <state_dir>/packages.json and is
 * dropped whole when the volume it
 * describes is not the one the engine has (a volume removed and made
 * again has a new CreatedAt). docs/packages.md, "The cache".
 */
#ifndef SBX_PKG_CACHE_H
#define SBX_PKG_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include <cjson/cJSON.h>

#include "packages.h"

struct pkg_entry {
	char key[PKG_KEY_LEN + 1];
	char lang[33];
	cJSON *specs;	 /* array of normal-form specs */
	cJSON *manifest; /* {installer, packages: [...]} */
	uint64_t bytes;
	double seconds;	   /* the install's wall time */
	int64_t created;   /* unix seconds */
	int64_t last_used; /* unix seconds */
};

/* 1 when the set key is in use (a session imports from it). */
typedef int (*pkg_busy_fn)(const char *key, void *arg);

struct pkg_cache;

/* Load <dir>/packages.json (a missing or unreadable file is an empty
 * index, logged). Returns 0 or -ENOMEM. */
/* The index <dir>/<name>.json ("packages": the first engine's; each other
 * engine's cache volume has an index of its own). */
int pkg_cache_open(uv_loop_t *loop, const char *dir, const char *name,
		   struct pkg_cache **out);
void pkg_cache_close(struct pkg_cache *c);

/* The volume identity the index describes ("" if none yet). */
const char *pkg_cache_volume(const struct pkg_cache *c);
/* The engine's volume is id: when it is not the one described, every entry
 * is dropped (the files are gone) and id recorded. Returns 1 when it
 * changed. */
int pkg_cache_bind_volume(struct pkg_cache *c, const char *id);

struct pkg_entry *pkg_cache_find(struct pkg_cache *c, const char *key);
/* Add (or replace) an entry; specs and manifest are copied. */
struct pkg_entry *pkg_cache_add(struct pkg_cache *c, const char *key,
				const char *lang, const cJSON *specs,
				const cJSON *manifest, double seconds,
				int64_t now);
/* Entries in order, or NULL past the end. */
struct pkg_entry *pkg_cache_at(struct pkg_cache *c, size_t i);
size_t pkg_cache_count(const struct pkg_cache *c);
uint64_t pkg_cache_bytes(const struct pkg_cache *c);

/*
 * Pick least-recently-used entries, never keep nor one busy() says is in
 * use (busy may be NULL), until the total is at most max_bytes; they leave
 * the index and their keys are written to victims (up to max). Returns
 * how many.
 */
size_t pkg_cache_evict(struct pkg_cache *c, uint64_t max_bytes,
		       const char *keep, pkg_busy_fn busy, void *busy_arg,
		       char (*victims)[PKG_KEY_LEN + 1], size_t max);
/* Drop one entry (its files are gone). */
void pkg_cache_remove(struct pkg_cache *c, const char *key);

/* The registries ("host:port ...") the installer of the image image_id
 * named, as found once (registry_cmd), or NULL; and recording them. */
const char *pkg_cache_registries(const struct pkg_cache *c,
				 const char *image_id);
void pkg_cache_set_registries(struct pkg_cache *c, const char *image_id,
			      const char *allow);

/* Write the index to disk on the thread pool (coalesced). */
void pkg_cache_save(struct pkg_cache *c);

/* The entry as the tools show it: {key, language, specs, packages,
 * bytes, installer, created, lastUsed}; what the entry does not know
 * (lang "", specs NULL, last_used 0) is null. */
cJSON *pkg_entry_json(const struct pkg_entry *e);

#endif
