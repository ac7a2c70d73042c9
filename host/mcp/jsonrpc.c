/*
 * jsonrpc.c - JSON-RPC 2.0 messages (jsonrpc.h).
 */
#include "jsonrpc.h"

#include <stdio.h>

#include "json_util.h"

cJSON *jsonrpc_result(const cJSON *id, cJSON *result)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", jsonrpc_id_copy(id));
	cJSON_AddItemToObject(msg, "result", result);
	return msg;
}

cJSON *jsonrpc_error(const cJSON *id, int code, const char *message,
		     cJSON *data)
{
	cJSON *msg = cJSON_CreateObject(), *err;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", jsonrpc_id_copy(id));
	err = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", message);
	if (data)
		cJSON_AddItemToObject(err, "data", data);
	return msg;
}

cJSON *jsonrpc_notification(const char *method, cJSON *params)
{
	cJSON *msg = cJSON_CreateObject();

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	return msg;
}

enum jsonrpc_kind jsonrpc_error_kind(const cJSON *id, int code)
{
	if (!id)
		return JSONRPC_REFUSED;
	return code == JSONRPC_METHOD_NOT_FOUND ? JSONRPC_NO_METHOD
						: JSONRPC_ERROR;
}

/* Echo an id exactly: cJSON prints large numbers with %g, which would
 * change them, so integers are written out digit for digit. */
cJSON *jsonrpc_id_copy(const cJSON *id)
{
	char buf[32];

	if (!id)
		return cJSON_CreateNull();
	if (cJSON_IsNumber(id)) {
		snprintf(buf, sizeof(buf), "%.0f", id->valuedouble);
		return cJSON_CreateRaw(buf);
	}
	return cJSON_Duplicate(id, 1);
}

void jsonrpc_id_as_sent(cJSON *msg, const char *text, size_t len)
{
	struct json_id_scan scan;
	const char *raw;
	cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id"), *r;

	if (!cJSON_IsString(id))
		return;
	json_id_scan_init(&scan);
	json_id_scan_feed(&scan, text, len);
	if ((raw = json_id_scan_id(&scan)) && (r = cJSON_CreateRaw(raw)))
		cJSON_ReplaceItemInObjectCaseSensitive(msg, "id", r);
}
