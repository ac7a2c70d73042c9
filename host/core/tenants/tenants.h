/*
 * tenants.h - who may use a server over HTTP, and how much of it
 * (docs/http.md, "Tenants").
 *
 * [http] tokens_file names the tenants, one a line:
 *
 *   # name   token's SHA-256              quotas (optional)
 *   alice    sha256:9f86d081884c7d65...  concurrent=4 sessions=8
 *
 * (quotas: concurrent= sessions= per_minute= artifact_mb= http_sessions=).
 *
 * A bearer token is looked up by its SHA-256 (only hashes are at rest),
 * compared in constant time. A tenant's name qualifies what it owns: its
 * sandbox sessions are "<tenant>.<name>" inside the server, its artifact
 * sets "<tenant>.<id>", so no name of another tenant is ever found.
 * Quotas: executions running at once, sessions, kept artifact bytes and
 * executions per minute (a token bucket), 2025-era HTTP sessions
 * (Mcp-Session-Id); 0 is no limit. Each check that a later, asynchronous
 * step would charge holds the room at once (tenant_hold_*), so requests
 * that arrive together cannot overshoot. A reload (SIGHUP)
 * reads the file again: tenants keep their usage by name, a removed one's
 * tokens stop working at once. Tenant structs live until tenants_free, so
 * a pointer taken for a call stays valid across reloads.
 */
#ifndef SBX_CORE_TENANTS_H
#define SBX_CORE_TENANTS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define TENANT_NAME_MAX 32
#define TENANT_TOKEN_PREFIX "sbx_"

struct tenant_quota {
	uint32_t concurrent; /* executions running at once */
	uint32_t sessions;   /* sandbox sessions open at once */
	uint32_t per_minute; /* executions started per minute */
	uint64_t artifact_bytes;
	uint32_t http_sessions; /* 2025-era HTTP sessions at once */
};

struct tenant {
	char name[TENANT_NAME_MAX + 1];
	unsigned char hash[32]; /* the token's SHA-256 */
	struct tenant_quota quota;
	int revoked; /* gone from the file since */
	/* usage */
	uint32_t running;
	double bucket;		 /* executions the bucket still allows */
	uint64_t refill_ms;	 /* when it was last topped up */
	uint32_t sessions_held;	 /* sandbox sessions being created */
	uint64_t artifacts_held; /* bytes of artifacts being kept */
	uint32_t http_open;	 /* live 2025-era HTTP sessions (http_server) */
	struct tenant *next;
};

struct tenants;

/* Read path; defaults fill the quotas a line leaves out. Refused whole
 * (fail closed: a negative errno) with err naming the line: a bad line, a
 * name twice, a hash twice, a file others may write. */
int tenants_load(const char *path, const struct tenant_quota *defaults,
		 struct tenants **out, struct error *err);
/* Read the file again; on failure the tenants stay as they were. The
 * same in two steps, for a reload whose reading runs off the loop:
 * tenants_read only reads (t's path and defaults), tenants_apply takes
 * fresh in. */
int tenants_reload(struct tenants *t, struct error *err);
int tenants_read(const struct tenants *t, struct tenant **fresh,
		 struct error *err);
void tenants_apply(struct tenants *t, struct tenant *fresh);
void tenants_free(struct tenants *t);
/* How many tenants the file names now. */
size_t tenants_count(const struct tenants *t);

/* The tenant whose token this is (len bytes), or NULL. */
struct tenant *tenants_auth(struct tenants *t, const char *token, size_t len);

/* The tenant of that name the file names now (not revoked), or NULL. */
const struct tenant *tenants_find(const struct tenants *t, const char *name);

/* 1 if s is a valid tenant name: [a-z0-9_-]{1,32}; the same for the
 * first n bytes of s (the "<tenant>." of a qualified name). */
int tenant_valid_name(const char *s);
int tenant_valid_prefix(const char *s, size_t n);

/* An execution starts: within concurrent and per_minute, else
 * ERR_QUOTA_EXCEEDED with err. now_ms: the loop's clock. */
int tenant_begin(struct tenant *t, uint64_t now_ms, struct error *err);
/* ... and ends (once per tenant_begin that returned 0). */
void tenant_end(struct tenant *t);

/* A sandbox session is to be made while open of the tenant's are: within
 * sessions (counting those held for creates still under way), else
 * ERR_QUOTA_EXCEEDED with err. 0 holds one until tenant_release_session. */
int tenant_hold_session(struct tenant *t, uint32_t open, struct error *err);
void tenant_release_session(struct tenant *t);
/* bytes of artifacts are to be kept while used are: within artifact_mb
 * (counting bytes held for keeps under way), else ERR_QUOTA_EXCEEDED. 0
 * holds them until tenant_release_artifacts(t, bytes). */
int tenant_hold_artifacts(struct tenant *t, uint64_t used, uint64_t bytes,
			  struct error *err);
void tenant_release_artifacts(struct tenant *t, uint64_t bytes);

/* A new token (TENANT_TOKEN_PREFIX + 43 base64url characters, NUL) into
 * token, and the tokens file line for name into line. 0, or -EIO. */
int tenant_new_token(const char *name, char *token, size_t tokensz, char *line,
		     size_t linesz);

#endif
