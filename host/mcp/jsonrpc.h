/*
 * jsonrpc.h - JSON-RPC 2.0 messages as this server writes them: results,
 * errors and notifications with the request's id echoed exactly as it
 * came, the error codes, and the kind of each message, which a transport
 * reads instead of the text (HTTP picks its status by it, docs/http.md).
 */
#ifndef SBX_JSONRPC_H
#define SBX_JSONRPC_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* JSON-RPC's codes, then MCP's in the server range. */
enum jsonrpc_code {
	JSONRPC_PARSE_ERROR = -32700,
	JSONRPC_INVALID_REQUEST = -32600,
	JSONRPC_METHOD_NOT_FOUND = -32601,
	JSONRPC_INVALID_PARAMS = -32602,
	JSONRPC_INTERNAL_ERROR = -32603,
	JSONRPC_SERVER_BUSY = -32000,	     /* error.data.code "server_busy" */
	JSONRPC_HEADER_MISMATCH = -32020,    /* the stateless revision's */
	JSONRPC_MISSING_CAPABILITY = -32021, /* the stateless revision's */
	JSONRPC_UNSUPPORTED_VERSION = -32022, /* the stateless revision's */
};

/* What a message sent to the client is. */
enum jsonrpc_kind {
	JSONRPC_NOTIFICATION, /* not an answer: progress, a log record */
	JSONRPC_RESULT,	      /* a request's result */
	JSONRPC_ERROR,	      /* a request's error, with its id */
	JSONRPC_NO_METHOD,    /* the same, for a method the server has not */
	/* An error with id null: the message was refused before an id
	 * could be known (not JSON, no Request object, a refused
	 * notification over HTTP). */
	JSONRPC_REFUSED,
	/* An error with id null: the request reused the id of one still
	 * in flight (docs/architecture.md, contract 6). */
	JSONRPC_DUPLICATE_ID,
};

/* {"jsonrpc":"2.0","id":...,"result":result}; result is taken. */
cJSON *jsonrpc_result(const cJSON *id, cJSON *result);
/* An error for id (NULL: id null); data is taken, or NULL. */
cJSON *jsonrpc_error(const cJSON *id, int code, const char *message,
		     cJSON *data);
/* A notification; params is taken. */
cJSON *jsonrpc_notification(const char *method, cJSON *params);
/* The kind of jsonrpc_error(id, code, ...). */
enum jsonrpc_kind jsonrpc_error_kind(const cJSON *id, int code);

/* A copy of a request id that prints exactly as it came (new object);
 * NULL gives null. */
cJSON *jsonrpc_id_copy(const cJSON *id);
/* msg parsed from text[0..len): its top-level string "id" becomes the
 * member's own text (a raw item), which cJSON's copy is not when the
 * string holds \u0000, so that an answer before the server's own checks
 * echoes it exactly. */
void jsonrpc_id_as_sent(cJSON *msg, const char *text, size_t len);

#endif
