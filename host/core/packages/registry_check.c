/*
 * registry_check.c - the check of an install's registries through its
 * egress proxy, and what it found, in words (registry_check.h).
 */
#include "registry_check.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install_proxy.h"

/* $1: the deadline in ms, the rest: the targets. First the wait for the
 * proxy (a request for sbx-ready.invalid, refused at once and not
 * logged: an answer means the whole path works); then every target at
 * once, each reading what it can before the one deadline. */
const char registry_check_script[] =
	"t=$1; shift; up=\n"
	"for i in $(seq 400); do (exec "
	"3<>/dev/tcp/127.0.0.1/" INSTALL_PROXY_PORT
	" && printf 'HEAD http://sbx-ready.invalid/ HTTP/1.0\\r\\n\\r\\n' >&3 "
	"&& IFS= read -r -t 5 l <&3 && case $l in HTTP/*) exit 0;; esac; "
	"exit 1) 2>/dev/null && { up=1; break; }; sleep 0.025; done\n"
	"[ -n \"$up\" ] || { echo 'the egress proxy did not answer' >&2; "
	"exit 1; }\n"
	"now() { local e=${EPOCHREALTIME/[.,]/}; echo $((e / 1000)); }\n"
	"left() { local r=$((end - $(now))); [ $r -lt 1 ] && r=1; "
	"printf '%d.%03d' $((r / 1000)) $((r % 1000)); }\n"
	"check() {\n"
	"  local x=$1 hp l h c rc code reason err=-\n"
	"  case $x in http://*) hp=${x#http://}; hp=${hp%%/*};; *) hp=$x;; "
	"esac\n"
	"  exec 3<>/dev/tcp/127.0.0.1/" INSTALL_PROXY_PORT
	" 2>/dev/null || { echo \"sbx-registry $hp closed\"; return; }\n"
	"  case $x in\n"
	"  http://*) printf 'HEAD %s HTTP/1.1\\r\\nHost: %s\\r\\n"
	"Connection: close\\r\\n\\r\\n' \"$x\" \"$hp\" >&3;;\n"
	"  *) printf 'CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' \"$hp\" "
	"\"$hp\" >&3;;\n"
	"  esac\n"
	"  IFS= read -r -t \"$(left)\" l <&3; rc=$?\n"
	"  [ $rc -gt 128 ] && { echo \"sbx-registry $hp silent\"; return; }\n"
	"  l=${l%$'\\r'}; [ -n \"$l\" ] || { echo \"sbx-registry $hp "
	"closed\"; return; }\n"
	"  code=${l#* }; reason=${code#* }; code=${code%% *}\n"
	"  [ \"$reason\" = \"$code\" ] && reason=-\n"
	"  case $code in ''|*[!0-9]*) code=0;; esac\n"
	"  while IFS= read -r -t \"$(left)\" h <&3; do h=${h%$'\\r'}; "
	"[ -z \"$h\" ] && break; case ${h,,} in x-squid-error:*) "
	"err=${h#*:}; err=${err# }; err=${err// /:};; esac; done\n"
	"  case $x in\n"
	"  http://*) if [ \"$err\" = - ] && [ $code -gt 0 ] && "
	"[ $code -lt 500 ]; then echo \"sbx-registry $hp ok $code\"; "
	"else echo \"sbx-registry $hp status $code $err $reason\"; fi;;\n"
	"  *) [ $code = 200 ] || { echo \"sbx-registry $hp status $code "
	"$err $reason\"; return; }\n"
	"     printf 'HEAD / HTTP/1.0\\r\\n\\r\\n' >&3\n"
	"     IFS= read -r -t \"$(left)\" -n 1 c <&3; rc=$?\n"
	"     if [ $rc -gt 128 ]; then echo \"sbx-registry $hp mute\"; "
	"else echo \"sbx-registry $hp ok 200\"; fi;;\n"
	"  esac\n"
	"}\n"
	"end=$(( $(now) + t ))\n"
	"for x; do check \"$x\" & done; wait\n";

static size_t word(const char **p, const char *end, char *out, size_t size)
{
	const char *s = *p;
	size_t n;

	while (s < end && *s == ' ')
		s++;
	n = 0;
	while (s + n < end && s[n] != ' ')
		n++;
	if (out && size) {
		size_t k = n < size - 1 ? n : size - 1;

		memcpy(out, s, k);
		out[k] = '\0';
	}
	*p = s + n;
	return n;
}

size_t registry_check_parse(const char *out, size_t len,
			    struct registry_result *v, size_t max)
{
	const char *p = out, *end = out + len;
	size_t n = 0;

	while (p < end && n < max) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *q = p;
		struct registry_result *r = &v[n];
		char kind[16], num[16];

		memset(r, 0, sizeof(*r));
		if ((size_t)(le - p) > 13 &&
		    memcmp(p, "sbx-registry ", 13) == 0) {
			q = p + 13;
			word(&q, le, r->hostport, sizeof(r->hostport));
			word(&q, le, kind, sizeof(kind));
			if (strcmp(kind, "ok") == 0 ||
			    strcmp(kind, "status") == 0) {
				word(&q, le, num, sizeof(num));
				r->status = atoi(num);
				r->state = kind[0] == 'o' ? REGISTRY_OK
							  : REGISTRY_STATUS;
			} else if (strcmp(kind, "silent") == 0) {
				r->state = REGISTRY_SILENT;
			} else if (strcmp(kind, "mute") == 0) {
				r->state = REGISTRY_MUTE;
			} else {
				r->state = REGISTRY_CLOSED;
			}
			if (r->state == REGISTRY_STATUS) {
				word(&q, le, r->squid, sizeof(r->squid));
				if (strcmp(r->squid, "-") == 0)
					r->squid[0] = '\0';
				while (q < le && *q == ' ')
					q++;
				snprintf(r->reason, sizeof(r->reason), "%.*s",
					 (int)(le - q), q);
				if (strcmp(r->reason, "-") == 0)
					r->reason[0] = '\0';
			}
			if (r->hostport[0])
				n++;
		}
		p = le + 1;
	}
	return n;
}

/* Squid's words for a failed connection, errno after the colon. */
static void tcp_failure(const char *detail, char *out, size_t size)
{
	int e = atoi(detail);

	if (e == 111)
		snprintf(out, size, "refused the connection (TCP)");
	else if (e == 110)
		snprintf(out, size,
			 "did not accept a connection in time (TCP timeout)");
	else if (e == 113 || e == 101)
		snprintf(out, size, "has no route to it (TCP: unreachable)");
	else
		snprintf(out, size, "the connection failed (TCP, errno %d)", e);
}

void registry_describe(const struct registry_result *r, const char *upstream,
		       unsigned timeout_ms, char *out, size_t size)
{
	const char *colon = strchr(r->squid, ':');
	char via[340] = "", what[160];
	size_t n = colon ? (size_t)(colon - r->squid) : strlen(r->squid);

	if (upstream && *upstream)
		snprintf(via, sizeof(via), " (through the upstream proxy %s)",
			 upstream);
	switch (r->state) {
	case REGISTRY_OK:
		snprintf(out, size, "answers (%d)", r->status);
		return;
	case REGISTRY_SILENT:
		snprintf(out, size, "no answer within %.1f s%s",
			 timeout_ms / 1000.0, via);
		return;
	case REGISTRY_MUTE:
		snprintf(out, size,
			 "accepted the connection but sent nothing within "
			 "%.1f s%s",
			 timeout_ms / 1000.0, via);
		return;
	case REGISTRY_CLOSED:
		snprintf(out, size, "the connection closed without an answer%s",
			 via);
		return;
	case REGISTRY_STATUS:
		break;
	}
	if (!n) {
		/* No Squid error page: the upstream proxy's answer, or the
		 * registry's own for an http one. */
		if (upstream && *upstream)
			snprintf(out, size,
				 "the upstream proxy %s answered %d%s%s",
				 upstream, r->status, r->reason[0] ? " " : "",
				 r->reason);
		else
			snprintf(out, size, "answered %d%s%s", r->status,
				 r->reason[0] ? " " : "", r->reason);
		return;
	}
	if (upstream && *upstream) {
		/* Everything goes through the upstream proxy (never_direct):
		 * Squid's own error is about reaching it or its answer. */
		snprintf(out, size,
			 "the egress proxy got no way through the upstream "
			 "proxy %s (%d %.*s)",
			 upstream, r->status, (int)n, r->squid);
		return;
	}
	if (n == 12 && strncmp(r->squid, "ERR_DNS_FAIL", n) == 0)
		snprintf(what, sizeof(what),
			 "its name does not resolve (DNS, asked by the "
			 "egress proxy)");
	else if (n == 16 && strncmp(r->squid, "ERR_CONNECT_FAIL", n) == 0)
		tcp_failure(colon ? colon + 1 : "", what, sizeof(what));
	else if (n == 18 && strncmp(r->squid, "ERR_CANNOT_FORWARD", n) == 0)
		/* Squid 5's answer to a CONNECT whose name has no address. */
		snprintf(what, sizeof(what),
			 "the egress proxy found no way to it: its name does "
			 "not resolve, or none of its addresses answers "
			 "(%d ERR_CANNOT_FORWARD)",
			 r->status);
	else if (n == 23 &&
		 strncmp(r->squid, "ERR_SECURE_CONNECT_FAIL", n) == 0)
		snprintf(what, sizeof(what), "the TLS connection failed");
	else
		snprintf(what, sizeof(what),
			 "the egress proxy answered %d (%.*s)", r->status,
			 (int)n, r->squid);
	snprintf(out, size, "%s", what);
}

void registry_advice(const char *lang, const char *mirror, const char *upstream,
		     char *out, size_t size)
{
	char var[80];
	size_t i, o = 0;

	for (i = 0; i < 60 && lang[i]; i++)
		var[i] = lang[i] == '-' ? '_'
					: (char)toupper((unsigned char)lang[i]);
	var[i] = '\0';
	if (mirror && *mirror)
		o = (size_t)snprintf(out, size,
				     "check the mirror set as [%s] registry = "
				     "%s (SANDBOX_%s_REGISTRY), or change it",
				     lang, mirror, var);
	else
		o = (size_t)snprintf(out, size,
				     "to use a mirror, set [%s] registry = "
				     "URL in sandbox.ini (or "
				     "SANDBOX_%s_REGISTRY=URL)",
				     lang, var);
	if (o >= size)
		return;
	if (upstream && *upstream)
		snprintf(out + o, size - o,
			 "; the upstream proxy is [packages] upstream_proxy = "
			 "%s: check it, or change it",
			 upstream);
	else
		snprintf(out + o, size - o,
			 "; to reach it through a proxy, set [packages] "
			 "upstream_proxy = host:port "
			 "(SANDBOX_PACKAGES_UPSTREAM_PROXY)");
}

int registry_tls_untrusted(const char *output)
{
	static const char *const words[] = {
		"CERTIFICATE_VERIFY_FAILED",
		"certificate verify failed",
		"SELF_SIGNED_CERT_IN_CHAIN",
		"UNABLE_TO_GET_ISSUER_CERT",
		"unable to get local issuer certificate",
		"x509: certificate signed by unknown authority",
		"SSL certificate problem",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++)
		if (strstr(output, words[i]))
			return 1;
	return 0;
}
