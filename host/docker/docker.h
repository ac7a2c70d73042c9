/*
 * docker.h - asynchronous Docker Engine API client.
 *
 * libcurl's multi interface driven by libuv poll and timer handles: nothing
 * here blocks the loop. This layer knows HTTP and the Engine API's
 * conventions (version prefix, hijacked attach streams); it knows nothing of
 * pools, sessions or languages.
 */
#ifndef SBX_DOCKER_H
#define SBX_DOCKER_H

#include <stddef.h>
#include <uv.h>

#include "error.h"

struct docker;
struct docker_stream;

/* Newest Engine API we speak; negotiation picks min(this, the daemon's). */
#define DOCKER_API_VERSION_MAX "1.44"
/* Response bodies over this fail the request with -E2BIG. */
#define DOCKER_BODY_MAX ((size_t)8 * 1024 * 1024)
/* Bytes docker_stream_write() may hold queued before -ENOBUFS. */
#define DOCKER_STREAM_WRITE_MAX ((size_t)64 * 1024 * 1024)

/* One finished request. Borrowed by the callback; freed after it returns. */
struct docker_response {
	int err;     /* 0, or negative errno-style code (transport failure) */
	long status; /* HTTP status, 0 when err != 0 */
	const char *body; /* NUL-terminated response body (may be "") */
	size_t body_len;
	const char *errmsg; /* human message when err != 0 or status >= 400:
			       the daemon's "message" field or curl's text */
};

typedef void (*docker_response_cb)(const struct docker_response *res,
				   void *arg);

/* A label of a container or volume as the engine reports it (container.h,
 * network.h): borrowed with the answer it came in. */
struct docker_label {
	const char *key;
	const char *value;
};

/* The value of key among the n labels, or NULL when none has it. */
const char *docker_label_find(const struct docker_label *labels, size_t n,
			      const char *key);

/* An image as GET /images/{name}/json describes it: its id (NULL when the
 * answer has none) and its Config.Labels (the agent build it carries).
 * The strings belong to the struct, freed by docker_image_free(). */
struct docker_image {
	const char *id;
	struct docker_label *labels;
	size_t nlabels;
	struct cJSON *doc;
};

/* body need not be NUL-terminated. What the answer lacks (or an answer
 * that is no JSON) is absent. Returns 0 or -ENOMEM (out holds nothing). */
int docker_image_parse(const char *body, size_t len, struct docker_image *out);
void docker_image_free(struct docker_image *img);

/*
 * What the daemon says of itself in its GET /version and GET /info
 * answers, parsed (docker_proto.c, pure): the fields the core describes an
 * engine with (core/engines/engine_info.h). Strings are borrowed from the
 * struct (NULL: the answer has none), numbers are NAN when absent. Filled
 * by docker_info_parse(), freed by docker_info_free().
 */
struct docker_info {
	int is_info; /* the info body is an /info answer (has ServerVersion) */
	const char *server_version, *os, *kernel, *arch;
	const char *api_version;    /* /version's ApiVersion */
	const char *cgroup_version; /* "1" from engines too old to say */
	const char *cgroup_driver, *default_runtime, *data_root;
	/* From /version's Components: Debian's packages name their patch
	 * level in the commit ("1.1.5+ds1-1+deb12u1"), else the version. */
	const char *runc, *containerd;
	/* Limits the engine enforces. */
	int memory_limit, swap_limit, pids_limit, cpu_limit;
	/* SecurityOptions: security_known when it is a list. */
	int security_known, seccomp, userns, rootless, apparmor, selinux;
	double cpus, memory_bytes, containers_running, images;
	struct cJSON *docs[2]; /* what the strings point into */
};

/* version_body may be NULL (not asked or not answered); neither need be
 * NUL-terminated. What an answer lacks (or an answer that is no JSON) is
 * absent in out. */
void docker_info_parse(const char *version_body, size_t version_len,
		       const char *info_body, size_t info_len,
		       struct docker_info *out);
void docker_info_free(struct docker_info *info);

/* Podman's GET /libpod/info, which corrects what its Docker-compatible
 * /info claims: whether it runs rootless, and which cgroup controllers
 * (memory, pids, cpu) are its own to use. */
struct docker_libpod_info {
	int rootless;
	int memory, pids, cpu;
};

/* Returns 0, or -EINVAL when body is no such answer (no host.security
 * object or host.cgroupControllers list). */
int docker_libpod_info_parse(const char *body, size_t len,
			     struct docker_libpod_info *out);

/*
 * Where the daemon is and how to reach it. Every field may be NULL/0.
 *
 * host: a DOCKER_HOST-style URL: "unix:///var/run/docker.sock",
 * "tcp://host[:port]" (port 2376 with TLS, 2375 without), or NULL for the
 * environment: $DOCKER_HOST, with $DOCKER_TLS_VERIFY and $DOCKER_CERT_PATH
 * (default ~/.docker: ca.pem, cert.pem, key.pem) as the docker CLI reads
 * them, else the default socket.
 *
 * tls_ca, tls_cert, tls_key: mutual TLS for tcp://, PEM files, all three
 * or none. The daemon's certificate must chain to tls_ca alone (not the
 * system's store) and name the host; tls_cert and tls_key are ours. There
 * is no TLS without verification.
 *
 * allow_plaintext: tcp:// without TLS is refused unless this is set: the
 * Engine API is root on the daemon's machine, for anyone on the path.
 */
struct docker_options {
	const char *host;
	const char *tls_ca;
	const char *tls_cert;
	const char *tls_key;
	int allow_plaintext;
};

/*
 * A client for opt (NULL: all defaults). Nothing connects yet: connection
 * and TLS failures surface in the first request's errmsg ("cannot connect
 * to Docker at unix:///var/run/docker.sock: No such file or directory").
 * The TLS files must be readable now. Returns 0 or a negative code with
 * err saying why.
 */
int docker_new(uv_loop_t *loop, const struct docker_options *opt,
	       struct docker **out, struct error *err);

/* Cancels every in-flight request (their callbacks run with err=-ECANCELED
 * before this returns) and closes every stream; the struct itself is freed
 * once libuv has closed its handles (the loop must keep running). */
void docker_free(struct docker *d);

/* Timeout of requests that pass timeout_ms 0 (0: none, the default).
 * Attach and exec streams are not affected (an exec's create request is). */
void docker_set_timeout(struct docker *d, long timeout_ms);
/* The loop the client runs on. */
uv_loop_t *docker_loop(const struct docker *d);

/* "unix:///var/run/docker.sock" or "tcp://host:2376" form of the
 * endpoint, for messages. */
const char *docker_endpoint(const struct docker *d);
/* 1 when the client speaks TLS to the daemon. */
int docker_tls(const struct docker *d);
/* 1 once negotiation found Podman's Docker-compatible service: it takes
 * a seccomp profile as a file on its own host, not as JSON. */
int docker_is_podman(const struct docker *d);
/* The engine's CPU count (GET /info NCPU), once the core knows it; 0:
 * unknown. container_run gives no container more (the engine refuses
 * NanoCpus above it, and every start would fail). */
void docker_set_cpus(struct docker *d, unsigned cpus);
unsigned docker_cpus(const struct docker *d);

/*
 * GET /version and pick min(daemon ApiVersion, our maximum). Until it
 * completes, requests go out unversioned. cb gets the /version response.
 */
int docker_negotiate(struct docker *d, docker_response_cb cb, void *arg);
/* "1.41" etc., or NULL before negotiation. */
const char *docker_api_version(const struct docker *d);
/* The last negotiation's /version answer (a JSON text), or NULL: who
 * describes the engine need not ask again (Podman's answer costs it
 * about 0.6 CPU seconds: it asks dpkg for its components' versions). */
const char *docker_version_body(const struct docker *d);

/*
 * Any Engine API request. method is upper-case ("GET", "POST", "DELETE").
 * path starts with '/', excludes the version prefix and is already
 * URL-encoded ("/containers/create?name=x"); -EINVAL on spaces or controls.
 * body is JSON (copied) or NULL. timeout_ms 0 means no timeout (connecting
 * is always bounded, 10 s). Returns 0 and calls cb exactly once later,
 * or returns a negative code and never calls cb. cb may start requests or
 * call docker_free().
 */
int docker_request(struct docker *d, const char *method, const char *path,
		   const char *body, long timeout_ms, docker_response_cb cb,
		   void *arg);

/* A request in flight that its caller may withdraw (docker_req_cancel). */
struct docker_req;
/* docker_request() that hands the request back in *out, valid until cb
 * has run. */
int docker_request_start(struct docker *d, const char *method, const char *path,
			 const char *body, long timeout_ms,
			 docker_response_cb cb, void *arg,
			 struct docker_req **out);
/* Withdraw r (valid: its cb has not run): the connection is dropped, cb
 * is never called and r is freed. From any loop callback, a
 * docker_response_cb included, never from inside libcurl's own. */
void docker_req_cancel(struct docker_req *r);

/* Hijacked stream (stdin, stdout, stderr) of a non-TTY container or exec:
 * docker_attach() and docker_exec_attach() give the same kind of stream. */
struct docker_stream_cbs {
	/* The attach (or exec) request answered: err 0 on success (stream
	 * usable), else negative with a message (the daemon's, for an error
	 * status); on failure on_close still follows. */
	void (*on_open)(struct docker_stream *s, int err, const char *errmsg,
			void *arg);
	/* Demultiplexed payload; fd is 1 (stdout) or 2 (stderr). The bytes are
	 * borrowed for the duration of the call. */
	void (*on_data)(struct docker_stream *s, int fd, const char *buf,
			size_t len, void *arg);
	/* Called exactly once when the stream ends for any reason (container
	 * exited, daemon closed, docker_stream_close). err 0 on clean EOF or
	 * docker_stream_close() after open, -ECANCELED from docker_free().
	 * Always from the loop, never from inside a docker_* call.
	 * After it returns the stream is freed. */
	void (*on_close)(struct docker_stream *s, int err, void *arg);
};

/*
 * POST /containers/{id}/attach?stream=1&stdin=1&stdout=1&stderr=1 with an
 * Upgrade: tcp handshake; the connection then carries raw stdin one way and
 * multiplexed stdout/stderr frames the other. Attaching before
 * /containers/{id}/start loses no output. container_id is an id or name
 * ([A-Za-z0-9_.-], else -EINVAL). All three callbacks are required.
 * Returns 0 and calls on_open later, or a negative code without calling
 * anything. The stream stays usable until on_close returns.
 */
int docker_attach(struct docker *d, const char *container_id,
		  const struct docker_stream_cbs *cbs, void *arg,
		  struct docker_stream **out);

/*
 * Runs argv in a running container as user ("uid", "uid:gid", a name, or
 * NULL for the image's user) and hijacks the exec's stdin/stdout/stderr:
 * POST /containers/{id}/exec, then POST /exec/{Id}/start with the Upgrade:
 * tcp handshake. The stream behaves exactly as docker_attach()'s; on_close
 * with err 0 follows when the process has exited and its output is
 * delivered. A failed create (no such container: -ENOENT, not running or
 * paused: -EBUSY, with the daemon's message) arrives as on_open(err), then
 * on_close. *out is valid at once (docker_stream_close() may cancel before
 * on_open). argv is NULL-terminated with at least one element; it and user
 * are copied. A program the daemon cannot start still opens the stream:
 * the runtime's error text comes as stdout data, then EOF (Engine API
 * behaviour). Returns 0 and calls on_open later, or a negative code
 * without calling anything.
 */
int docker_exec_attach(struct docker *d, const char *container_id,
		       const char *const *argv, const char *user,
		       const struct docker_stream_cbs *cbs, void *arg,
		       struct docker_stream **out);

/* The exec's id once created (for GET /exec/{id}/json, which has the exit
 * code after on_close), else NULL; always NULL for docker_attach() streams.
 * Borrowed: valid until on_close returns. */
const char *docker_stream_exec_id(const struct docker_stream *s);

/* Bytes for the container's stdin (copied). Once open, written to the
 * socket at once when nothing is queued (no batching); what the socket does
 * not take, and anything written before on_open, is queued and sent in
 * order. Returns 0, or -EPIPE after close or when the write fails (on_close
 * follows), or -ENOBUFS when DOCKER_STREAM_WRITE_MAX would be exceeded. */
int docker_stream_write(struct docker_stream *s, const void *data, size_t len);

/* Flow control for a stream that moves much (a session's files as a
 * tar): paused 1 stops reading, so the engine holds the program's
 * output back; 0 reads on. */
void docker_stream_pause(struct docker_stream *s, int paused);
/* Bytes written with docker_stream_write() not yet on the socket. */
size_t docker_stream_queued(const struct docker_stream *s);
/* fn(s, arg) runs from the loop each time what was queued is all sent
 * (NULL: none). */
void docker_stream_on_sent(struct docker_stream *s,
			   void (*fn)(struct docker_stream *s, void *arg));
/* No more stdin: once the queue is sent, the connection's write side is
 * shut and the program reads end of file. Over TLS the connection stays
 * whole (curl owns it): the program must know its input's end itself. */
void docker_stream_close_write(struct docker_stream *s);

/* Close the connection; on_close follows (asynchronously). Idempotent. */
void docker_stream_close(struct docker_stream *s);

#endif
