/*
 * docker_proto.h - the Engine API's formats as pure functions (no I/O, no
 * loop, no curl): DOCKER_HOST addresses, API versions, error answers, the
 * hijack handshake's answer, exec bodies, and what the daemon says of
 * containers and volumes, as the typed values container.h and network.h
 * hand their callers. Private to host/docker;
 * tests/unit/test_docker_proto.c feeds it hostile input.
 */
#ifndef SBX_DOCKER_PROTO_H
#define SBX_DOCKER_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/un.h>

#include "container.h"
#include "network.h"
#include "error.h"

#define DOCKER_DEFAULT_HOST "unix:///var/run/docker.sock"
#define DOCKER_DEFAULT_TCP_PORT "2375"
#define DOCKER_DEFAULT_TLS_PORT "2376"

/* Where the daemon listens, in every form the client needs. */
struct docker_host {
	char endpoint[300]; /* unix:///path or tcp://host:port, for messages */
	char base_url[300]; /* http://localhost or http://host:port, for curl */
	char host_hdr[280]; /* Host: of the hand-written hijack request */
	char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* or "" */
	int tls; /* https: tcp:// with tls set */
};

/*
 * host: "unix:///absolute/path", "tcp://host[:port]" or "http://host[:port]"
 * (an IPv6 literal in brackets). tls: speak TLS to a tcp:// host (https,
 * port 2376 when none, else 2375); ignored for unix://, as the docker CLI
 * does. Whether plain TCP is allowed is the caller's policy. Returns 0, or
 * a negative code with err saying why.
 */
int docker_host_parse(const char *host, int tls, struct docker_host *out,
		      struct error *err);

/* "1.41" -> 1041: digits only, major 0-99, minor 0-999; else -1. */
long docker_api_version_num(const char *v);

/*
 * A GET /version answer's body: the version to speak, min(the daemon's
 * ApiVersion, DOCKER_API_VERSION_MAX), goes to out; the daemon's own goes to
 * theirs (for the log). body need not be NUL-terminated. Returns 0, or
 * -EPROTO when the body has no usable ApiVersion (out untouched).
 */
int docker_api_version_pick(const char *body, size_t len, char *out,
			    size_t outsz, char *theirs, size_t theirs_sz);

/* 1 when a GET /version answer is Podman's Docker-compatible service (a
 * component named "Podman Engine"), else 0. */
int docker_version_is_podman(const char *body, size_t len);

/* The daemon's {"message": "..."} of an error answer, else the body's text
 * (trailing blanks cut), else "HTTP status N". body need not be
 * NUL-terminated; out is always terminated. */
void docker_error_message(const char *body, size_t len, long status, char *out,
			  size_t outsz);

/* An error status as a negative errno: 400 -EINVAL, 401/403 -EACCES,
 * 404 -ENOENT, 409 -EBUSY, 500 -EIO, anything else -EPROTO. */
int docker_status_to_err(long status);

/* A container or exec id or name: [A-Za-z0-9_.-], 1 to 128 characters. */
int docker_valid_id(const char *id);
/* An upper-case HTTP method of 1 to 16 letters. */
int docker_valid_method(const char *method);
/* A request path: starts with '/', no spaces, controls or non-ASCII. */
int docker_valid_path(const char *path);

/* POST /containers/{id}/exec's body: argv (NULL-terminated) with stdin,
 * stdout and stderr attached, no TTY, as user (or the image's when NULL).
 * Returns malloc'd JSON the caller frees, or NULL when out of memory. */
char *docker_exec_create_body(const char *const *argv, const char *user);

/* The exec's "Id" from that request's 201 answer into out. Returns 0, or
 * -EPROTO when there is none that docker_valid_id() accepts and out holds. */
int docker_exec_id_parse(const char *body, size_t len, char *out, size_t outsz);

/* ------------------------------------------------------------------ */
/* What the daemon says of its objects (container.h, network.h)        */

/* A parsed answer: v[0..n) and the labels they point at borrow their
 * strings from doc. docker_parsed_free() frees it all. */
struct docker_containers {
	struct container_summary *v;
	size_t n;
	struct docker_label *labels; /* every entry's, in one block */
	struct cJSON *doc;
};

struct docker_volumes {
	struct volume_summary *v;
	size_t n;
	struct docker_label *labels;
	struct cJSON *doc;
};

/* "running" -> CONTAINER_RUNNING, and so on for the engine's state words;
 * anything else (or NULL) CONTAINER_STATUS_UNKNOWN. */
enum container_status docker_container_status(const char *word);

/*
 * GET /containers/json's answer: one entry for each element that has a
 * string Id (Names[0], State and Labels as container.h says); an answer
 * that is no JSON array is an empty list. body need not be NUL-terminated.
 * Returns 0, or -ENOMEM (out then holds nothing).
 */
int docker_containers_parse(const char *body, size_t len,
			    struct docker_containers *out);
/* GET /containers/{id}/json's answer as out->v[0] (n is 1): Id, Name,
 * State.Status, State.Running, Config.Labels; what it lacks is empty.
 * Returns 0 or -ENOMEM. */
int docker_container_parse(const char *body, size_t len,
			   struct docker_containers *out);
/* GET /volumes's answer ({"Volumes": [...]}): one entry for each element
 * that has a string Name. Returns 0 or -ENOMEM. */
int docker_volumes_parse(const char *body, size_t len,
			 struct docker_volumes *out);
void docker_containers_free(struct docker_containers *c);
void docker_volumes_free(struct docker_volumes *v);

/* Memory in use from a GET /containers/{id}/stats answer, as `docker
 * stats` shows it: cgroup v1 usage - stats.total_inactive_file (-
 * stats.cache on daemons that report no inactive_file), cgroup v2 usage -
 * stats.inactive_file, never below 0. Returns 0, or -ENODATA when the
 * answer has no usage. */
int docker_stats_memory(const char *body, size_t len, uint64_t *bytes);

/* ------------------------------------------------------------------ */
/* The hijack handshake's answer, read incrementally                   */

#define DOCKER_ANSWER_HEAD_MAX ((size_t)16 * 1024)
/* Of an error answer's body, for its message. */
#define DOCKER_ANSWER_BODY_MAX ((size_t)64 * 1024)

/* What docker_answer_feed() and docker_answer_eof() found. */
enum docker_answer_result {
	DOCKER_ANSWER_MORE = 0,	    /* incomplete: feed more */
	DOCKER_ANSWER_UPGRADED = 1, /* 101 (or 200, daemons before API 1.2x
				       hijack without Upgrade): the bytes
				       after the answer are the raw stream */
	DOCKER_ANSWER_REFUSED = 2,  /* any other status, with its body (up to
				       DOCKER_ANSWER_BODY_MAX) */
};

struct docker_answer {
	char *buf;	 /* the head, then an error answer's body */
	size_t len;	 /* bytes in buf */
	size_t head_end; /* 0 until the blank line has come */
	long status;
	long long content_length; /* -1 when not given */
	int chunked;
};

/* Allocates the buffer (DOCKER_ANSWER_HEAD_MAX + DOCKER_ANSWER_BODY_MAX + 1
 * bytes). Returns 0 or -ENOMEM. */
int docker_answer_init(struct docker_answer *a);
/* Frees the buffer; safe on a zeroed struct and twice. */
void docker_answer_close(struct docker_answer *a);

/*
 * Feeds n bytes of the answer. Returns DOCKER_ANSWER_MORE (all taken),
 * DOCKER_ANSWER_UPGRADED (*used bytes were the answer, the rest of p is
 * stream data), DOCKER_ANSWER_REFUSED (the status and docker_answer_message()
 * are ready; bytes beyond the body cap are dropped), -EPROTO (not an HTTP
 * answer) or -E2BIG (a head over DOCKER_ANSWER_HEAD_MAX). Only MORE may be
 * fed again.
 */
int docker_answer_feed(struct docker_answer *a, const char *p, size_t n,
		       size_t *used);
/* The connection ended before feed said anything but MORE: REFUSED when the
 * head had come (the body is what came), else -ECONNRESET. */
int docker_answer_eof(const struct docker_answer *a);
/* A refused answer's message (docker_error_message() of its body). */
void docker_answer_message(const struct docker_answer *a, char *out,
			   size_t outsz);

#endif
