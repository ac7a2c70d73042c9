/*
 * registry_check.h - can an installer's registries be reached through
 * its egress proxy? (docs/packages.md, "A registry that cannot be
 * reached"). A bash script, run in the install container before the
 * first step that uses the proxy, waits for the proxy and then asks it
 * for each registry at once, within one deadline: a CONNECT for an https
 * registry (and then a line through the tunnel, which any live server
 * answers or closes on), a HEAD of the URL for an http one. The host
 * reads its answer here and says, for a person, which registry failed,
 * how, and what to set. install_job.c runs it for installs and for
 * `mcp-sandbox doctor`'s registry checks.
 */
#ifndef SBX_REGISTRY_CHECK_H
#define SBX_REGISTRY_CHECK_H

#include <stddef.h>

/* argv: bash -c registry_check_script check <timeout ms> <target>...,
 * each target "host:port" (https: CONNECT) or "http://host:port/path"
 * (HEAD). Exits 1 (saying why on stderr) only when the proxy itself never
 * answered; else 0, with one line per target on stdout:
 *   sbx-registry <host:port> ok <status>
 *   sbx-registry <host:port> status <status> <ERR_X:detail or -> <reason>
 *   sbx-registry <host:port> silent   (no answer within the deadline)
 *   sbx-registry <host:port> mute     (a tunnel, then nothing at all)
 *   sbx-registry <host:port> closed   (closed without an answer) */
extern const char registry_check_script[];

enum registry_state {
	REGISTRY_OK,
	REGISTRY_STATUS, /* an error status, from a proxy or the registry */
	REGISTRY_SILENT,
	REGISTRY_MUTE,
	REGISTRY_CLOSED,
};

struct registry_result {
	char hostport[300];
	enum registry_state state;
	int status;
	char squid[64]; /* Squid's X-Squid-Error, "ERR_DNS_FAIL:0", or "" */
	char reason[80];
};

/* The script's lines into v (at most max); returns how many. Lines that
 * are not the script's are skipped. */
size_t registry_check_parse(const char *out, size_t len,
			    struct registry_result *v, size_t max);

/* How r failed, for a person ("its name does not resolve (DNS, asked by
 * the egress proxy)"); upstream: the proxy chained to, or "";
 * timeout_ms: the script's deadline. */
void registry_describe(const struct registry_result *r, const char *upstream,
		       unsigned timeout_ms, char *out, size_t size);

/* What to set for lang: its mirror (`[lang] registry`, set or not) and
 * the upstream proxy (set or not), with their environment variables. */
void registry_advice(const char *lang, const char *mirror, const char *upstream,
		     char *out, size_t size);

/* 1 when an installer's output says it did not trust a certificate
 * (pip, npm, Go, cargo: what a TLS-intercepting network causes, which
 * [packages] ca_bundle mends). */
int registry_tls_untrusted(const char *output);

#endif
