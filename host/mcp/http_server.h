/*
 * http_server.h - MCP over Streamable HTTP (`mcp-sandbox serve --http`).
 *
 * Where a tool call enters when the client is not our parent process:
 * h2o (Debian's libh2o, on this loop) parses HTTP/1.1 and HTTP/2, with
 * TLS through OpenSSL; this module turns each POST to /mcp into a message
 * for a struct mcp_server (mcp_server.h) and its answers into the HTTP
 * response: JSON, or an event stream (SSE) that carries the call's
 * progress notifications before its result. Both protocol eras are
 * served: a 2025-era client's initialize opens a session named by the
 * Mcp-Session-Id header; a stateless (2026-07-28) request stands alone.
 * docs/http.md is the reference: routes, headers, status codes, limits.
 */
#ifndef SBX_HTTP_SERVER_H
#define SBX_HTTP_SERVER_H

#include <stddef.h>

#include "mcp/tools/tools.h"

struct http_server;

/*
 * Listen on cfg->http_listen ("ADDR:PORT", [IPv6]:PORT). 0, or the code
 * with err: an address that does not parse (-EINVAL) or cannot be bound
 * (libuv's code), TLS files that do not load (-EINVAL), a tokens file
 * that does not (tenants.h), and an address beyond loopback with neither
 * tokens nor allow_unauthenticated (-EPERM). env is borrowed for the
 * server's lifetime.
 */
int http_server_start(const struct tool_env *env, struct http_server **out,
		      struct error *err);

/* The URL clients use, "http://127.0.0.1:8808/mcp" (the port the kernel
 * chose when the configured one was 0). */
const char *http_server_url(const struct http_server *h);

/* SIGHUP: read [http] tokens_file again, off the loop; tenants keep
 * their sessions and usage by name, removed ones are refused from then
 * on; a file that does not read leaves them as they were (logged). */
void http_server_reload(struct http_server *h);
/* The port of the preview listener ([http] preview_listen, docs/http.md
 * "Preview links"), or 0 when there is none. */
unsigned http_server_preview_port(const struct http_server *h);

/* Shutdown, step one: no new connection or request (503); calls in
 * flight are still answered when they end. Idempotent. */
void http_server_stop_accepting(struct http_server *h);

/* Shutdown, last step: answers what is still open (503, or the end of
 * its event stream), closes every connection, then done runs once from
 * the loop. h2o keeps handles on the loop until http_server_free(): the
 * owner stops the loop (uv_stop) once its own handles are closed. */
void http_server_close(struct http_server *h, void (*done)(void *arg),
		       void *arg);

/* After uv_run() has returned (h2o runs the loop itself to close its
 * handles). NULL is a no-op. */
void http_server_free(struct http_server *h);

#endif
