/*
 * fake_docker.h - the one fake Docker daemon of the test suite: a libuv
 * unix-socket server on the test's own loop. The test answers each Engine API
 * request itself (a canned status and body, silence, or a hijack), and on a
 * hijacked connection writes the container's side of the raw stream and gets
 * the host's stdin bytes. Depends on libuv only, never on the code under
 * test.
 */
#ifndef SBX_FAKE_DOCKER_H
#define SBX_FAKE_DOCKER_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

struct fake_docker;
struct fake_docker_conn;

/* The daemon's answer to an attach or exec start that hijacks. */
#define FAKE_DOCKER_UPGRADE_ANSWER                                             \
	"HTTP/1.1 101 UPGRADED\r\n"                                            \
	"Content-Type: application/vnd.docker.raw-stream\r\n"                  \
	"Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n"

/* One request as the client sent it. Borrowed for the callback. */
struct fake_docker_request {
	const char *method; /* "POST" */
	const char *path;   /* as sent, version prefix and query included:
			       "/v1.44/containers/x/attach?stream=1&..." */
	const char *head;   /* request line and headers, NUL-terminated */
	const char *body;   /* Content-Length bytes, NUL-terminated */
	size_t body_len;
	size_t extra; /* bytes the client sent after this request before
			 the answer (pipelined, or stdin sent too early) */
};

struct fake_docker_cbs {
	/* Required. Answer with fake_docker_respond(), fake_docker_upgrade()
	 * or fake_docker_hijack(), or not at all: the request then hangs
	 * until the client gives up. Answering later is fine too. */
	void (*on_request)(struct fake_docker *fk, struct fake_docker_conn *c,
			   const struct fake_docker_request *req, void *arg);
	/* Bytes the host wrote on a hijacked connection: the container's
	 * stdin, starting with any that followed the request. */
	void (*on_stdin)(struct fake_docker_conn *c, const char *data,
			 size_t len, void *arg);
	/* The connection is closing (the host hung up, or
	 * fake_docker_close_conn() or fake_docker_stop() closed it); c is not
	 * to be used after this returns. Optional. */
	void (*on_conn_close)(struct fake_docker_conn *c, void *arg);
};

/*
 * Listens on a fresh socket in a private temporary directory. The listener
 * does not keep the loop alive (connections do): a loop run until idle
 * stops when the client has nothing in flight. Returns 0, or a negative
 * code (a listener already made is closed through the loop).
 */
int fake_docker_start(uv_loop_t *loop, const struct fake_docker_cbs *cbs,
		      void *arg, struct fake_docker **out);
/* Closes the listener and every connection (on_conn_close runs for each)
 * and removes the socket; the struct is freed once the loop has closed the
 * handles. NULL is a no-op. */
void fake_docker_stop(struct fake_docker *fk);
/* Removes the socket and its directory now, touching no handle: for a test
 * about to exit on a failure. */
void fake_docker_unlink(struct fake_docker *fk);

/* "unix:///tmp/sbx-fake-docker-XXXXXX/docker.sock", for docker_new(). */
const char *fake_docker_url(const struct fake_docker *fk);
/* Connections accepted so far (keep-alive checks). */
unsigned fake_docker_accepts(const struct fake_docker *fk);

/* A complete answer: status, JSON content type, Content-Length, body. */
void fake_docker_respond(struct fake_docker_conn *c, int status,
			 const char *body, size_t len);
/* From now on the connection is raw: the host's bytes go to on_stdin.
 * Writes nothing; send FAKE_DOCKER_UPGRADE_ANSWER (or a script of your own)
 * with fake_docker_write(). */
void fake_docker_hijack(struct fake_docker_conn *c);
/* fake_docker_hijack() and FAKE_DOCKER_UPGRADE_ANSWER in one. */
void fake_docker_upgrade(struct fake_docker_conn *c);
/* Raw bytes, in one write (copied). Dropped once the connection is closing
 * or if the host has gone. */
void fake_docker_write(struct fake_docker_conn *c, const void *data,
		       size_t len);
/* One frame of the multiplexed stream: stream 1 stdout, 2 stderr, 3 the
 * daemon's error, or anything else a test wants to send the host. */
void fake_docker_write_frame(struct fake_docker_conn *c, int stream,
			     const void *data, size_t len);
/* The 8-byte frame header, for tests that build scripts of raw bytes. */
void fake_docker_frame_header(unsigned char hdr[8], int stream, uint32_t len);
/* Closes the connection (on_conn_close runs now). Idempotent. */
void fake_docker_close_conn(struct fake_docker_conn *c);

/* A pointer the test keeps with the connection (NULL at first). */
void fake_docker_conn_set_data(struct fake_docker_conn *c, void *data);
void *fake_docker_conn_data(const struct fake_docker_conn *c);

#endif
