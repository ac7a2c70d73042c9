/*
 * packages.h - what a package request is, before anything runs: the specs
 * each ecosystem accepts, their normal form, the cache key of a set, and
 * the two texts an install produces (the installer's manifest and the
 * egress proxy's log). Pure functions; install.c does the running.
 * docs/packages.md is the prose version.
 */
#ifndef SBX_PACKAGES_H
#define SBX_PACKAGES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "error.h"

/* At most this many specs in one request, each at most PKG_SPEC_MAX
 * bytes. */
#define PKG_MAX_SPECS 64
#define PKG_SPEC_MAX 256
/* A cache key: SHA-256 in lower-case hex. */
#define PKG_KEY_LEN 64

/* 1 if ecosystem is one the host validates specs for: "pypi", "npm",
 * "go", "cargo". */
int pkg_ecosystem_known(const char *ecosystem);

/*
 * Check one spec by its ecosystem's rules and write its normal form to
 * norm (at least PKG_SPEC_MAX + 1 bytes). Accepted: a name with a version
 * or range ("pandas==2.2.*", "requests[socks]>=2,<3", "@scope/pkg@^1",
 * "github.com/x/y@v1.2.3", "serde@1"). Refused: URLs, paths, VCS
 * references, options, whitespace, shell metacharacters, anything else.
 * Returns 0, or ERR_INVALID_PACKAGE with err saying what is wrong.
 */
int pkg_spec_check(const char *ecosystem, const char *spec, char *norm,
		   struct error *err);

/* The name part of a normal-form spec ("pandas" of "pandas==2.2.*",
 * "@scope/pkg" of "@scope/pkg@^1"), into name (PKG_SPEC_MAX + 1). */
void pkg_spec_name(const char *ecosystem, const char *norm, char *name);

/*
 * A set of normal-form specs: sorted, duplicates dropped, in place.
 * Returns the new count.
 */
size_t pkg_specs_sort(char **specs, size_t n);

/*
 * The cache key of a set (docs/packages.md, "The cache key"): SHA-256 of
 * the installer (what pkg_installer_id says of the plugin: not the
 * language, so javascript and typescript, one installer in one image,
 * share their sets), the image id (which pins the installer and its
 * version), the installer options and the sorted normal-form specs. out
 * gets PKG_KEY_LEN hex digits and a NUL. Returns 0 or -ENOMEM.
 */
int pkg_key(const char *installer, const char *image_id, const char *options,
	    char *const *specs, size_t n, char out[PKG_KEY_LEN + 1]);

/* The installer of a plugin as one string for pkg_key: its ecosystem,
 * command and environment, each part on a line of its own. 0, or
 * -ENAMETOOLONG when it does not fit size. */
int pkg_installer_id(const char *ecosystem, const char *const *cmd,
		     const char *const *env, char *out, size_t size);

/* 1 if s is PKG_KEY_LEN lower-case hex digits. */
int pkg_key_valid(const char *s);

/*
 * "host:port" of an http(s) URL (the port defaulting to 80 or 443), host
 * lower-cased, into out. Returns 0, or -EINVAL for anything else
 * (another scheme, user info, a bad host or port).
 */
int pkg_url_hostport(const char *url, char *out, size_t size);

/* One request the egress proxy logged (images/proxy/proxy-start). */
struct pkg_conn {
	char method[16];
	char target[256]; /* "host:port" for CONNECT, else the URL */
	int status;	  /* HTTP status the proxy answered */
	uint64_t bytes_in, bytes_out;
	int allowed;
	char error[48]; /* Squid's error ("ERR_CANNOT_FORWARD"), or "" */
};

/*
 * The proxy's log (the container's stdout) as a JSON array of
 * {host, port, method, status, allowed, bytesIn, bytesOut, error?}
 * (error: the proxy's own, "ERR_CONNECT_FAIL", when it had one); lines that
 * are not request lines are skipped. *refused counts the refused
 * requests. Returns the array, or NULL without memory.
 */
cJSON *pkg_proxy_log_json(const char *log, size_t len, unsigned *refused);

/*
 * Check an installer's manifest (mcp-sandbox/plugin.h, manifest_cmd) and return
 * it as a JSON object {installer, packages: [{name, version, requested,
 * bytes}]}, or NULL with err (ERR_INSTALL_FAILED: not such a manifest;
 * -ENOMEM).
 */
cJSON *pkg_manifest_parse(const char *text, size_t len, struct error *err);

/* The sum of a manifest's package sizes (its "bytes" fields). */
uint64_t pkg_manifest_bytes(const cJSON *manifest);

#endif
