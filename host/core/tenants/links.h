/*
 * links.h - signed links to kept artifacts, for clients of the HTTP
 * transport (docs/http.md, "Artifact links").
 *
 *   BASE/artifacts/<id>/<path>?t=<tenant>&exp=<unix s>&sig=<hex>
 *
 * sig is HMAC-SHA256 (OpenSSL) under the server's link key over the
 * tenant, the set's id, the file's path and the expiry; the key is 32
 * random bytes in <state_dir>/link.key (0600, made at first use), so
 * links outlive a restart and every server of one state directory
 * honours them. A link is a capability: whoever holds it reads that one
 * file until it expires, no token needed.
 */
#ifndef SBX_CORE_LINKS_H
#define SBX_CORE_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct links;

/* The key of state_dir (NULL: the default), made if missing; links live
 * ttl_s. 0, or a negative errno with err. Reads a file: at start-up. */
int links_open(const char *state_dir, uint32_t ttl_s, struct links **out,
	       struct error *err);
void links_free(struct links *l);
/* Where links point: "http://127.0.0.1:8808" (no trailing slash); until
 * set, links_url gives nothing. */
void links_set_base(struct links *l, const char *base);

/* A link to path of set id (as the tenant knows it) of tenant (NULL: no
 * tenants), valid from now_s for the ttl: a new string (free()), or NULL
 * (no base yet, out of memory). */
char *links_url(const struct links *l, const char *tenant, const char *id,
		const char *path, int64_t now_s);

/* Whether sig (hex) is the signature of (tenant, id, path, exp) and exp
 * is not past now_s: 0 if so, -EACCES if not. tenant "" is none. */
int links_check(const struct links *l, const char *tenant, const char *id,
		const char *path, int64_t exp, const char *sig, int64_t now_s);

/*
 * Preview links (docs/http.md, "Preview links"): a browser's way to a
 * port of a session, served on the preview listener (on this machine's
 * loopback):
 *
 *   http://p<20 hex>.localhost:PORT/preview/<session>/<port>/<exp>.<sig>/<path>
 *
 * The host name is an origin of each (tenant, session, port) of its own
 * (an HMAC of them under the link key: stable, unguessable), which
 * browsers resolve to the loopback themselves (RFC 6761), so one
 * session's page can reach no other's storage, cookies or windows.
 * <session> is the server's name of it ("<tenant>.<name>" with tenants),
 * sig the HMAC of (tenant, "preview/<session>/<port>", "", exp).
 * Everything under the prefix is the capability, so the page's relative
 * links work.
 */
#define LINKS_HOST_MAX 48
/* The preview listener's port (0: none: no preview links). */
void links_set_preview_port(struct links *l, unsigned port);
/* "p<20 hex>.localhost:PORT" of (tenant, qname, port) into out: 0, or
 * -EIO. */
int links_preview_host(const struct links *l, const char *tenant,
		       const char *qname, unsigned port,
		       char out[LINKS_HOST_MAX]);
/* A new string (free()), or NULL (no preview listener, out of
 * memory). */
char *links_preview_url(const struct links *l, const char *tenant,
			const char *qname, unsigned port, int64_t now_s,
			uint32_t ttl_s);
/* 0 when sig signs (tenant, qname, port, exp) and exp is not past
 * now_s; -EACCES if not. */
int links_preview_check(const struct links *l, const char *tenant,
			const char *qname, unsigned port, int64_t exp,
			const char *sig, int64_t now_s);

#endif
