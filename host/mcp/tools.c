/*
 * tools.c - the tool list and result helpers shared by all tools.
 */
#include "tools.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

extern const struct tool tool_execute;

const struct tool *const tools_all[] = {
	&tool_execute,
	NULL,
};

static cJSON *text_result(char *text, int is_error)
{
	cJSON *res = cJSON_CreateObject(), *content, *item;

	content = cJSON_AddArrayToObject(res, "content");
	item = cJSON_CreateObject();
	cJSON_AddStringToObject(item, "type", "text");
	cJSON_AddStringToObject(item, "text", text ? text : "");
	cJSON_AddItemToArray(content, item);
	cJSON_AddBoolToObject(res, "isError", is_error);
	return res;
}

cJSON *tool_error(const char *code, const char *fmt, ...)
{
	cJSON *body = cJSON_CreateObject(), *err, *res;
	char msg[1024];
	char *text;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err = cJSON_AddObjectToObject(body, "error");
	cJSON_AddStringToObject(err, "code", code);
	cJSON_AddStringToObject(err, "message", msg);
	text = cJSON_PrintUnformatted(body);
	res = text_result(text, 1);
	free(text);
	cJSON_Delete(body);
	return res;
}

cJSON *tool_ok(const struct mcp_call *call, cJSON *structured)
{
	char *text = cJSON_PrintUnformatted(structured);
	cJSON *res = text_result(text, 0);

	free(text);
	if (mcp_call_structured(call))
		cJSON_AddItemToObject(res, "structuredContent", structured);
	else
		cJSON_Delete(structured);
	return res;
}
