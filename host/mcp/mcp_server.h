/*
 * mcp_server.h - the MCP server: JSON-RPC 2.0 over the stdio transport.
 *
 * This is where a tool call enters: a line from stdin becomes a request,
 * is checked, dispatched to a tool (tools.h) and answered on stdout. Many
 * calls may be in flight at once; nothing here waits on Docker.
 */
#ifndef SBX_MCP_SERVER_H
#define SBX_MCP_SERVER_H

#include "tools.h"

struct mcp_server;

/* Supported protocol revisions, newest first. */
extern const char *const mcp_protocol_versions[];

/*
 * Start serving: requests from stdin, frames to out_fd (see
 * transport_guard_stdout). on_exit runs once, after stdin EOF or
 * mcp_server_shutdown(), when every container is removed and stdout is
 * flushed. env is borrowed for the server's lifetime.
 */
int mcp_server_start(const struct tool_env *env, int out_fd,
		     void (*on_exit)(void *arg), void *arg,
		     struct mcp_server **out);

/* Begin a clean shutdown (SIGTERM, SIGINT). Idempotent. */
void mcp_server_shutdown(struct mcp_server *s);

void mcp_server_free(struct mcp_server *s);

/* Answer one line as the server would, without a transport: for the unit
 * tests of framing and errors. Returns the response text (caller frees) or
 * NULL for notifications. Only synchronous methods are answered. */
char *mcp_server_handle_line_for_test(const struct tool_env *env,
				      const char *line);

#endif
