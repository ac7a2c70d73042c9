/*
 * pkg_volume.h - what the package volume says of itself, without any
 * server's index (docs/packages.md, "Listing"): the record each stored set
 * carries in its own <key>/manifest.json, and the listing a helper
 * container prints of the whole volume (pkg_listing_script), parsed back
 * into entries. Pure: install_list.c does the running. The volume's
 * contents are read as untrusted text: a set whose record cannot be read
 * is still listed, with what its directory tells.
 */
#ifndef SBX_PKG_VOLUME_H
#define SBX_PKG_VOLUME_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "pkg_cache.h"

/* At most this many bytes of one set's record are read back, and this many
 * sets listed. */
#define PKG_RECORD_MAX 262144 /* a plain number: it is in a script */
#define PKG_LISTING_MAX_SETS 65536

/*
 * The record of a set as the store step writes it: the installer's
 * manifest (pkg_manifest_parse()'s {installer, packages}) with the
 * language that installed it, its normal-form specs, its bytes, when it
 * was stored (created, unix seconds) and how long the install took. A
 * server of before this record reads the manifest part only. Returns a
 * new object, or NULL without memory; the arguments are copied.
 */
cJSON *pkg_record_new(const cJSON *manifest, const char *lang,
		      const cJSON *specs, int64_t created, double seconds);

/*
 * The listing, run by bash as root in a helper container with the volume
 * read-only: `bash -c pkg_listing_script list DIR` prints a head line, one
 * line per set directory of DIR (a name of PKG_KEY_LEN hex digits: a
 * temporary .tmp-* one is not a set yet), "set KEY MTIME RECORD", the
 * record (at most PKG_RECORD_MAX bytes of <key>/manifest.json, possibly
 * empty) on that one line, and a last line with the count, so that a cut
 * listing is told from a short one.
 */
extern const char pkg_listing_script[];

/* A parsed listing: the sets in the volume, by key. */
struct pkg_listing {
	struct pkg_entry *v;
	size_t n;
};

/*
 * Parse the listing's text (len bytes, NULs included) into out: for each
 * set its key; from its record the language, specs, manifest ({installer,
 * packages}), bytes, created and seconds when it has them (a record of
 * an older server has only the manifest: lang "", specs NULL, bytes
 * summed from the manifest; one that is not readable: an empty
 * manifest, bytes 0); created from the directory's time when the record
 * lacks it; last_used 0 (the volume does not know). Returns 0, or
 * ERR_INSTALL_FAILED with err (not such a listing, cut short) or -ENOMEM;
 * on failure out is empty. Free with pkg_listing_free.
 */
int pkg_listing_parse(const char *text, size_t len, struct pkg_listing *out,
		      struct error *err);
void pkg_listing_free(struct pkg_listing *l);

#endif
