/* Session names and the state directory slot: locking, saving, loading. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "core/session/session.h"
#include "core/session/session_store.h"
#include "testlib.h"

static void names(void)
{
	char long_name[80];

	CHECK(session_valid_name("a"));
	CHECK(session_valid_name("My_session-2"));
	CHECK(!session_valid_name(""));
	CHECK(!session_valid_name("has space"));
	/* A tenant's session, "<tenant>.<name>" (core/tenants/tenants.h). */
	CHECK(session_valid_name("dot.ted"));
	CHECK(!session_valid_name("Dot.ted"));
	CHECK(!session_valid_name("a.b.c"));
	CHECK(!session_valid_name(".x"));
	CHECK(!session_valid_name("x."));
	CHECK(!session_valid_name("slash/"));
	CHECK(!session_valid_name("ünïcode"));
	memset(long_name, 'x', 64);
	long_name[64] = '\0';
	CHECK(session_valid_name(long_name));
	long_name[64] = 'x';
	long_name[65] = '\0';
	CHECK(!session_valid_name(long_name));
}

static void slots(const char *dir)
{
	struct session_store *a = NULL, *b = NULL, *c = NULL;
	uv_loop_t loop;
	char slot_a[SESSION_SLOT_MAX];
	struct error err;
	cJSON *doc, *e;

	uv_loop_init(&loop);
	CHECK(session_store_open(&loop, dir, &a, &err) == 0);
	CHECK(session_store_open(&loop, dir, &b, &err) == 0);
	/* Held at once: different slots, same key. */
	CHECK(strcmp(session_store_slot(a), session_store_slot(b)) != 0);
	CHECK(strncmp(session_store_slot(a), session_store_slot(b), 9) == 0);
	CHECK(strcmp(session_store_slot(a) + 9, "0") == 0);
	snprintf(slot_a, sizeof(slot_a), "%s", session_store_slot(a));

	/* Nothing saved yet: an empty array. */
	doc = session_store_load(a);
	CHECK(cJSON_IsArray(doc) && cJSON_GetArraySize(doc) == 0);
	cJSON_Delete(doc);

	doc = cJSON_CreateArray();
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "name", "s1");
	cJSON_AddNumberToObject(e, "executions", 7);
	cJSON_AddItemToArray(doc, e);
	session_store_close(a, doc); /* saved in the background */
	uv_run(&loop, UV_RUN_DEFAULT);

	/* a's slot is free again: the next open takes it and finds s1. */
	CHECK(session_store_open(&loop, dir, &c, &err) == 0);
	CHECK(strcmp(session_store_slot(c), slot_a) == 0);
	doc = session_store_load(c);
	CHECK(cJSON_GetArraySize(doc) == 1);
	e = cJSON_GetArrayItem(doc, 0);
	CHECK(cJSON_IsString(cJSON_GetObjectItem(e, "name")) &&
	      strcmp(cJSON_GetObjectItem(e, "name")->valuestring, "s1") == 0);
	CHECK(cJSON_GetObjectItem(e, "executions")->valuedouble == 7);
	cJSON_Delete(doc);

	/* A corrupt file loads as empty, not as a failure. */
	{
		char path[600];
		FILE *f;

		snprintf(path, sizeof(path), "%s", session_store_path(c));
		f = fopen(path, "w");
		fputs("{not json", f);
		fclose(f);
		doc = session_store_load(c);
		CHECK(cJSON_IsArray(doc) && cJSON_GetArraySize(doc) == 0);
		cJSON_Delete(doc);
	}
	session_store_close(b, NULL);
	session_store_close(c, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	CHECK(uv_loop_close(&loop) == 0);
}

static void cleanup(const char *dir)
{
	char path[600];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(void)
{
	char dir[] = "/tmp/sbx-test-sessions-XXXXXX";
	char sub[64];

	names();
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	/* A directory that does not exist yet is created. */
	snprintf(sub, sizeof(sub), "%s/state", dir);
	slots(sub);
	cleanup(sub);
	cleanup(dir);
	return t_summary("test_sessions");
}
