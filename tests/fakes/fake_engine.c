/*
 * fake_engine.c - the Engine API calls of container.c and docker_stream.c
 * answered from records, a fake agent behind each attach; see
 * fake_engine.h.
 */
#include "fake_engine.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fake_engine {
	struct fake_docker *daemon;
	struct fake_engine_faults faults;
	struct fake_agent_script script;
	unsigned counts[FAKE_OP_N];
	unsigned requests;
	struct fake_container c[FAKE_ENGINE_MAX_CONTAINERS];
	unsigned nc;
	struct fake_agent **agents; /* every agent made, freed at stop */
	size_t nagents;
	unsigned long long mem_usage; /* what stats reports */
	/* Stats requests held (faults.stats_hold), and for which container. */
	struct {
		struct fake_docker_conn *conn;
		char id[32];
	} held[FAKE_ENGINE_MAX_CONTAINERS];
	unsigned nheld;
};

static void fake_oom(void)
{
	fprintf(stderr, "fake_engine: out of memory\n");
	exit(1);
}

static void respond_json(struct fake_docker_conn *c, int status,
			 const char *body)
{
	fake_docker_respond(c, status, body, strlen(body));
}

static void respond_message(struct fake_docker_conn *c, int status,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void respond_message(struct fake_docker_conn *c, int status,
			    const char *fmt, ...)
{
	char msg[400], body[480];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(body, sizeof(body), "{\"message\":\"%s\"}", msg);
	respond_json(c, status, body);
}

static struct fake_container *find(struct fake_engine *e, const char *id)
{
	unsigned i;

	for (i = 0; i < e->nc; i++)
		if (strcmp(e->c[i].id, id) == 0 ||
		    (e->c[i].name[0] && strcmp(e->c[i].name, id) == 0))
			return &e->c[i];
	return NULL;
}

/* A string field of a JSON body, found by text ("Image":"..."): enough
 * for what container.c sends. */
static void json_string(const char *body, const char *key, char *out,
			size_t size)
{
	char pat[64];
	const char *p, *q;
	size_t n;

	out[0] = '\0';
	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(body, pat);
	if (!p)
		return;
	p += strlen(pat);
	q = strchr(p, '"');
	if (!q)
		return;
	n = (size_t)(q - p) < size - 1 ? (size_t)(q - p) : size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

static void new_agent(struct fake_engine *e, struct fake_docker_conn *conn,
		      struct fake_container *c)
{
	struct fake_agent **v;

	v = realloc(e->agents, (e->nagents + 1) * sizeof(*v));
	if (!v)
		fake_oom();
	e->agents = v;
	fake_docker_upgrade(conn);
	c->agent = fake_agent_new(conn, &e->script, c->id);
	e->agents[e->nagents++] = c->agent;
}

static void on_create(struct fake_engine *e, struct fake_docker_conn *conn,
		      const char *body)
{
	struct fake_container *c;
	char image[128], answer[96];

	json_string(body, "Image", image, sizeof(image));
	if (e->faults.no_image) {
		respond_message(conn, 404, "No such image: %s", image);
		return;
	}
	if (e->nc == FAKE_ENGINE_MAX_CONTAINERS) {
		respond_message(conn, 500, "fake engine: too many containers");
		return;
	}
	c = &e->c[e->nc];
	memset(c, 0, sizeof(*c));
	snprintf(c->id, sizeof(c->id), "fake%04u", e->nc);
	snprintf(c->image, sizeof(c->image), "%s", image);
	e->nc++;
	snprintf(answer, sizeof(answer), "{\"Id\":\"%s\",\"Warnings\":[]}",
		 c->id);
	respond_json(conn, 201, answer);
}

static void on_delete(struct fake_engine *e, struct fake_docker_conn *conn,
		      const char *id)
{
	struct fake_container *c = find(e, id);

	if (!c || c->removed) {
		if (c)
			c->deletes++;
		respond_message(conn, 404, "No such container: %s", id);
		return;
	}
	c->deletes++;
	c->removed = 1;
	c->started = 0;
	respond_json(conn, 204, "");
	/* The container's processes die with it: so does the attach. */
	if (c->agent && fake_agent_conn(c->agent))
		fake_agent_hang_up(c->agent);
}

static void on_inspect(struct fake_docker_conn *conn,
		       const struct fake_container *c)
{
	char body[768];

	snprintf(body, sizeof(body),
		 "{\"Id\":\"%s\",\"Name\":\"/%s\",\"State\":{\"Status\":\"%s\","
		 "\"Running\":%s,\"Paused\":%s},\"Config\":{\"Image\":\"%s\","
		 "\"Labels\":{}}}",
		 c->id, c->name[0] ? c->name : c->id,
		 c->paused    ? "paused"
		 : c->started ? "running"
			      : "created",
		 c->started ? "true" : "false", c->paused ? "true" : "false",
		 c->image);
	respond_json(conn, 200, body);
}

static void on_list(struct fake_engine *e, struct fake_docker_conn *conn)
{
	/* An entry is at most ~100 bytes besides id, name and image. */
	char *body =
		malloc(64 + e->nc * (sizeof(e->c[0].id) + sizeof(e->c[0].name) +
				     sizeof(e->c[0].image) + 128));
	size_t n = 0;
	unsigned i;

	if (!body)
		fake_oom();
	n += (size_t)sprintf(body + n, "[");
	for (i = 0; i < e->nc; i++) {
		const struct fake_container *c = &e->c[i];

		if (c->removed)
			continue;
		n += (size_t)sprintf(
			body + n,
			"%s{\"Id\":\"%s\",\"Names\":[\"/%s\"],\"Image\":\"%s\","
			"\"State\":\"%s\",\"Labels\":{}}",
			n > 1 ? "," : "", c->id, c->name[0] ? c->name : c->id,
			c->image,
			c->paused    ? "paused"
			: c->started ? "running"
				     : "created");
	}
	sprintf(body + n, "]");
	respond_json(conn, 200, body);
	free(body);
}

static const char *query_value(const char *query, const char *key, char *out,
			       size_t size)
{
	char pat[32];
	const char *p;
	size_t n;

	snprintf(pat, sizeof(pat), "%s=", key);
	p = query ? strstr(query, pat) : NULL;
	if (!p)
		return NULL;
	p += strlen(pat);
	n = strcspn(p, "&");
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return out;
}

/* POST|GET /containers/{id}/{action} */
static void on_stats(struct fake_engine *e, struct fake_docker_conn *conn,
		     const char *id)
{
	struct fake_container *c = find(e, id);
	char body[160];

	if (!c || c->removed)
		respond_message(conn, 404, "No such container: %s", id);
	else if (e->faults.stats_fail)
		respond_message(conn, 500, "fake engine: no statistics");
	else if (!c->started)
		respond_json(conn, 200, "{\"memory_stats\":{}}");
	else {
		snprintf(body, sizeof(body),
			 "{\"memory_stats\":{\"usage\":%llu,"
			 "\"stats\":{\"inactive_file\":2097152}}}",
			 e->mem_usage);
		respond_json(conn, 200, body);
	}
}

static enum fake_engine_op container_op(struct fake_engine *e,
					struct fake_docker_conn *conn,
					const char *method, const char *id,
					const char *action, const char *query)
{
	struct fake_container *c = find(e, id);
	char name[256], answer[64];

	if (strcmp(method, "POST") == 0 && strcmp(action, "start") == 0) {
		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else if (e->faults.start_fails)
			respond_message(conn, 500, "fake engine: start failed");
		else if (c->started)
			respond_json(conn, 304, "");
		else {
			c->started = 1;
			respond_json(conn, 204, "");
		}
		return FAKE_OP_START;
	}
	if (strcmp(method, "POST") == 0 && strcmp(action, "attach") == 0) {
		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else
			new_agent(e, conn, c);
		return FAKE_OP_ATTACH;
	}
	if (strcmp(method, "POST") == 0 &&
	    (strcmp(action, "pause") == 0 || strcmp(action, "unpause") == 0)) {
		int pause = strcmp(action, "pause") == 0;

		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else if (!c->started)
			respond_message(conn, 409,
					"Container %s is not running", id);
		else if (c->paused == pause)
			respond_message(conn, 409,
					pause ? "Container %s is already paused"
					      : "Container %s is not paused",
					id);
		else {
			c->paused = pause;
			respond_json(conn, 204, "");
		}
		return pause ? FAKE_OP_PAUSE : FAKE_OP_UNPAUSE;
	}
	if (strcmp(method, "POST") == 0 && strcmp(action, "rename") == 0) {
		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else if (!query_value(query, "name", name, sizeof(name)))
			respond_message(conn, 400, "no name");
		else if (find(e, name))
			respond_message(conn, 409, "name %s is in use", name);
		else {
			snprintf(c->name, sizeof(c->name), "%s", name);
			respond_json(conn, 204, "");
		}
		return FAKE_OP_RENAME;
	}
	if (strcmp(method, "POST") == 0 && strcmp(action, "exec") == 0) {
		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else if (!c->started || c->paused)
			respond_message(conn, 409,
					"Container %s is not running", id);
		else {
			snprintf(answer, sizeof(answer), "{\"Id\":\"x%u\"}",
				 (unsigned)(c - e->c));
			respond_json(conn, 201, answer);
		}
		return FAKE_OP_EXEC;
	}
	if (strcmp(method, "GET") == 0 && strcmp(action, "json") == 0) {
		if (!c || c->removed)
			respond_message(conn, 404, "No such container: %s", id);
		else
			on_inspect(conn, c);
		return FAKE_OP_INSPECT;
	}
	if (strcmp(method, "GET") == 0 && strcmp(action, "stats") == 0) {
		if (e->faults.stats_hold &&
		    e->nheld < FAKE_ENGINE_MAX_CONTAINERS) {
			e->held[e->nheld].conn = conn;
			snprintf(e->held[e->nheld].id,
				 sizeof(e->held[e->nheld].id), "%s", id);
			e->nheld++;
		} else {
			on_stats(e, conn, id);
		}
		return FAKE_OP_STATS;
	}
	respond_message(conn, 404, "page not found: %s", action);
	return FAKE_OP_OTHER;
}

static enum fake_engine_op route(struct fake_engine *e,
				 struct fake_docker_conn *conn,
				 const struct fake_docker_request *req)
{
	char path[1024], *query, *p, *slash;

	snprintf(path, sizeof(path), "%s", req->path);
	query = strchr(path, '?');
	if (query)
		*query++ = '\0';
	p = path;
	/* "/v1.44/..." : the version prefix once negotiated. */
	if (p[0] == '/' && p[1] == 'v' && isdigit((unsigned char)p[2])) {
		slash = strchr(p + 1, '/');
		p = slash ? slash : p + strlen(p);
	}
	if (strcmp(req->method, "GET") == 0 && strcmp(p, "/_ping") == 0) {
		fake_docker_respond(conn, 200, "OK", 2);
		return FAKE_OP_PING;
	}
	if (strcmp(req->method, "GET") == 0 && strcmp(p, "/version") == 0) {
		respond_json(conn, 200,
			     "{\"Version\":\"fake\",\"ApiVersion\":\"1.44\","
			     "\"MinAPIVersion\":\"1.24\"}");
		return FAKE_OP_VERSION;
	}
	if (strcmp(req->method, "POST") == 0 &&
	    strcmp(p, "/containers/create") == 0) {
		on_create(e, conn, req->body);
		return FAKE_OP_CREATE;
	}
	if (strcmp(req->method, "GET") == 0 &&
	    strcmp(p, "/containers/json") == 0) {
		on_list(e, conn);
		return FAKE_OP_LIST;
	}
	if (strncmp(p, "/images/", 8) == 0 && strcmp(req->method, "GET") == 0) {
		if (e->faults.no_image)
			respond_message(conn, 404, "No such image: %s", p + 8);
		else
			respond_json(conn, 200, "{}");
		return FAKE_OP_IMAGE;
	}
	if (strncmp(p, "/exec/", 6) == 0 && strcmp(req->method, "POST") == 0) {
		unsigned i;

		/* "/exec/x<n>/start": the relay in container n */
		if (sscanf(p + 6, "x%u/start", &i) == 1 && i < e->nc &&
		    !e->c[i].removed)
			new_agent(e, conn, &e->c[i]);
		else
			respond_message(conn, 404, "No such exec instance: %s",
					p + 6);
		return FAKE_OP_EXEC_START;
	}
	if (strncmp(p, "/containers/", 12) == 0) {
		char *id = p + 12;

		slash = strchr(id, '/');
		if (!slash && strcmp(req->method, "DELETE") == 0) {
			on_delete(e, conn, id);
			return FAKE_OP_DELETE;
		}
		if (slash) {
			*slash = '\0';
			return container_op(e, conn, req->method, id, slash + 1,
					    query);
		}
	}
	respond_message(conn, 404, "page not found: %s", p);
	return FAKE_OP_OTHER;
}

static void on_request(struct fake_docker *fk, struct fake_docker_conn *conn,
		       const struct fake_docker_request *req, void *arg)
{
	struct fake_engine *e = arg;
	enum fake_engine_op op;

	(void)fk;
	e->requests++;
	op = route(e, conn, req);
	e->counts[op]++;
}

static void on_stdin(struct fake_docker_conn *c, const char *data, size_t len,
		     void *arg)
{
	struct fake_agent *a = fake_docker_conn_data(c);

	(void)arg;
	if (a)
		fake_agent_feed(a, data, len);
}

static void on_conn_close(struct fake_docker_conn *c, void *arg)
{
	struct fake_engine *e = arg;
	unsigned i;

	for (i = 0; i < e->nheld; i++)
		if (e->held[i].conn == c)
			e->held[i--] = e->held[--e->nheld];
	fake_agent_detach(fake_docker_conn_data(c));
}

int fake_engine_start(uv_loop_t *loop, struct fake_engine **out)
{
	static const struct fake_docker_cbs cbs = {
		.on_request = on_request,
		.on_stdin = on_stdin,
		.on_conn_close = on_conn_close,
	};
	struct fake_engine *e = calloc(1, sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	fake_agent_script_init(&e->script);
	e->mem_usage = 10485760;
	rc = fake_docker_start(loop, &cbs, e, &e->daemon);
	if (rc) {
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

void fake_engine_stop(struct fake_engine *e)
{
	size_t i;

	if (!e)
		return;
	/* Closes every connection now (on_conn_close detaches the agents);
	 * nothing calls into e afterwards. */
	fake_docker_stop(e->daemon);
	for (i = 0; i < e->nagents; i++)
		fake_agent_free(e->agents[i]);
	free(e->agents);
	free(e);
}

void fake_engine_unlink(struct fake_engine *e)
{
	if (e)
		fake_docker_unlink(e->daemon);
}

const char *fake_engine_url(const struct fake_engine *e)
{
	return fake_docker_url(e->daemon);
}

struct fake_engine_faults *fake_engine_faults(struct fake_engine *e)
{
	return &e->faults;
}

struct fake_agent_script *fake_engine_script(struct fake_engine *e)
{
	return &e->script;
}

unsigned fake_engine_count(const struct fake_engine *e, enum fake_engine_op op)
{
	return op < FAKE_OP_N ? e->counts[op] : 0;
}

unsigned fake_engine_requests(const struct fake_engine *e)
{
	return e->requests;
}

unsigned fake_engine_ncontainers(const struct fake_engine *e)
{
	return e->nc;
}

const struct fake_container *fake_engine_container(const struct fake_engine *e,
						   unsigned i)
{
	return i < e->nc ? &e->c[i] : NULL;
}

const struct fake_container *fake_engine_find(const struct fake_engine *e,
					      const char *id)
{
	return find((struct fake_engine *)e, id);
}

unsigned fake_engine_live(const struct fake_engine *e)
{
	unsigned i, n = 0;

	for (i = 0; i < e->nc; i++)
		n += !e->c[i].removed;
	return n;
}

unsigned fake_engine_holding(const struct fake_engine *e)
{
	size_t i;
	unsigned n = 0;

	for (i = 0; i < e->nagents; i++)
		n += fake_agent_holding(e->agents[i]) != 0;
	return n;
}

int fake_engine_release(struct fake_engine *e)
{
	struct fake_agent *oldest = NULL;
	size_t i;

	for (i = 0; i < e->nagents; i++) {
		unsigned h = fake_agent_holding(e->agents[i]);

		if (h && (!oldest || h < fake_agent_holding(oldest)))
			oldest = e->agents[i];
	}
	return oldest ? fake_agent_release(oldest) : -ENOENT;
}

void fake_engine_set_memory(struct fake_engine *e, unsigned long long usage)
{
	e->mem_usage = usage;
}

unsigned fake_engine_stats_held(const struct fake_engine *e)
{
	return e->nheld;
}

void fake_engine_release_stats(struct fake_engine *e)
{
	while (e->nheld) {
		e->nheld--;
		on_stats(e, e->held[e->nheld].conn, e->held[e->nheld].id);
	}
}
