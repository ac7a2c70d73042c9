/*
 * tool_http.c - sandbox_http: one HTTP request to a server listening in a
 * session's container, through the agent (session_exchange(),
 * agent/loopback.h): the container keeps no network and nothing listens
 * on the host. The request is built and the answer parsed here
 * (util/http_message.h); docs/processes.md has the rules. With preview,
 * a signed link for a browser instead (docs/http.md, "Preview links").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/tenants/links.h"
#include "mcp/json_util.h"
#include "tools.h"
#include "util/http_message.h"
#include "util/log.h"
#include "util/media.h"

#define BODY_DEFAULT (32u * 1024u)
#define BODY_MAX (8u << 20)
/* Room for the status line and headers beyond the body's cap. */
#define HEAD_ROOM (64u * 1024u)
#define TIMEOUT_DEFAULT_MS 30000u
#define TIMEOUT_MAX_MS 300000u
#define MAX_REQ_HEADERS 64

static cJSON *input_schema(const struct tool_env *env)
{
	cJSON *s = cJSON_CreateObject(), *props, *p, *req;
	char desc[400];

	(void)env;
	cJSON_AddStringToObject(s, "type", "object");
	props = cJSON_AddObjectToObject(s, "properties");
	tool_prop(props, "session", "string",
		  "The session whose container runs the server (started with "
		  "sandbox_process).");
	p = tool_prop(props, "port", "integer",
		      "The TCP port it listens on, on 127.0.0.1 or 0.0.0.0 "
		      "inside the container.");
	cJSON_AddNumberToObject(p, "minimum", 1);
	cJSON_AddNumberToObject(p, "maximum", 65535);
	tool_prop(props, "method", "string",
		  "GET (default), POST, PUT, DELETE, HEAD, ...");
	tool_prop(props, "path", "string",
		  "The path and query, e.g. \"/api/items?limit=5\" "
		  "(default \"/\"); percent-encode spaces.");
	p = tool_prop(props, "headers", "object",
		      "Request headers, name to value (Host and Connection "
		      "are set by the server).");
	cJSON_AddStringToObject(
		cJSON_AddObjectToObject(p, "additionalProperties"), "type",
		"string");
	tool_prop(props, "body", "string", "The request body.");
	tool_enum_prop(props, "encoding",
		       (const char *const[]){"text", "base64", NULL},
		       "body: as it is (default), or base64 for bytes.");
	snprintf(desc, sizeof(desc),
		 "Bytes of the response body returned at most (default %u, at "
		 "most %u); more is cut, with a note. Text counts against the "
		 "client's token budget.",
		 BODY_DEFAULT, BODY_MAX);
	p = tool_prop(props, "max_bytes", "integer", desc);
	cJSON_AddNumberToObject(p, "minimum", 1);
	cJSON_AddNumberToObject(p, "maximum", BODY_MAX);
	snprintf(desc, sizeof(desc),
		 "Milliseconds to wait for the whole response (default %u, "
		 "at most %u).",
		 TIMEOUT_DEFAULT_MS, TIMEOUT_MAX_MS);
	p = tool_prop(props, "timeout", "integer", desc);
	cJSON_AddNumberToObject(p, "minimum", 1);
	cJSON_AddNumberToObject(p, "maximum", TIMEOUT_MAX_MS);
	tool_prop(props, "preview", "boolean",
		  "Return a signed, expiring link a browser opens to this "
		  "port instead (the HTTP transport, with [http] "
		  "preview_listen set); nothing is sent.");
	req = cJSON_AddArrayToObject(s, "required");
	cJSON_AddItemToArray(req, cJSON_CreateString("session"));
	cJSON_AddItemToArray(req, cJSON_CreateString("port"));
	cJSON_AddBoolToObject(s, "additionalProperties", 0);
	return s;
}

struct http_call {
	struct mcp_call *mc;
	const struct tool_env *env;
	struct session_proc *sp;
	int head;
	uint32_t max_body;
	uint32_t timeout_ms;
};

/* Bodies shown as text: text/ anything, JSON, XML, JavaScript, forms; one with
 * no type when it is UTF-8. */
static int textual(const char *ct, size_t n, const unsigned char *b, size_t len)
{
	static const char *const kinds[] = {
		"text/",
		"application/json",
		"application/xml",
		"application/javascript",
		"application/x-www-form-urlencoded",
		NULL,
	};
	char t[128];
	size_t k;

	if (!ct)
		return utf8_text((const char *)b, len);
	for (k = 0; k < n && k + 1 < sizeof(t) && ct[k] != ';'; k++)
		t[k] = ct[k];
	t[k] = '\0';
	for (int i = 0; kinds[i]; i++)
		if (strncasecmp(t, kinds[i], strlen(kinds[i])) == 0)
			return 1;
	return strstr(t, "+json") || strstr(t, "+xml");
}

static cJSON *headers_json(const struct http_response *r)
{
	cJSON *o = cJSON_CreateObject(), *v;
	char name[128];

	for (size_t i = 0; i < r->nheaders; i++) {
		const struct http_header *h = &r->headers[i];
		char *val = utf8_sanitize(h->value, h->value_len);
		size_t n = h->name_len < sizeof(name) ? h->name_len
						      : sizeof(name) - 1;

		for (size_t k = 0; k < n; k++)
			name[k] = (char)(h->name[k] >= 'A' && h->name[k] <= 'Z'
						 ? h->name[k] + 32
						 : h->name[k]);
		name[n] = '\0';
		v = cJSON_GetObjectItemCaseSensitive(o, name);
		if (v && cJSON_IsString(v) && val) {
			/* Repeated: joined, as RFC 9110 allows (a cookie's
			 * list too, read as one line). */
			size_t m = strlen(v->valuestring) + strlen(val) + 3;
			char *j = malloc(m);

			if (j) {
				snprintf(j, m, "%s, %s", v->valuestring, val);
				cJSON_SetValuestring(v, j);
				free(j);
			}
		} else if (val) {
			cJSON_AddStringToObject(o, name, val);
		}
		free(val);
	}
	return o;
}

/* The result: the JSON, and the body as an image block when it is one. */
static cJSON *result(struct http_call *hc, const struct http_response *r,
		     const struct ap_exchange_done *x)
{
	const struct config *cfg = hc->env->cfg;
	cJSON *j = cJSON_CreateObject(), *res, *img = NULL;
	size_t ctn = 0, n = r->body_len;
	const char *ct = http_response_header(r, "content-type", &ctn);
	const char *mime;
	uint32_t w, h;
	int cut = x->truncated || n > hc->max_body, text;
	char note[200] = "";

	cJSON_AddNumberToObject(j, "status", r->status);
	if (r->reason[0])
		cJSON_AddStringToObject(j, "reason", r->reason);
	cJSON_AddItemToObject(j, "headers", headers_json(r));
	if (r->dropped)
		cJSON_AddNumberToObject(j, "headersDropped", r->dropped);
	if (n > hc->max_body)
		n = hc->max_body;
	if (!cut && r->complete && n &&
	    media_image_check(r->body, n, cfg->art_image_px,
			      cfg->art_image_pixels, &mime, &w,
			      &h) == MEDIA_SHOWN &&
	    n <= cfg->art_image_bytes) {
		/* The model sees the picture; the JSON says what it is. */
		img = tool_image_block(r->body, n, mime);
		cJSON_AddStringToObject(j, "image", mime);
	}
	cJSON_AddNumberToObject(j, "bodyBytes", (double)r->body_len);
	text = textual(ct, ctn, r->body, n);
	if (!img && text) {
		n -= utf8_cut_tail((const char *)r->body, n);
		char *t = utf8_sanitize(n ? (const char *)r->body : "", n);

		cJSON_AddStringToObject(j, "body", t ? t : "");
		free(t);
	} else if (!img && n) {
		int is_text;

		cJSON_AddItemToObject(
			j, "bodyBase64",
			tool_bytes_string(r->body, n, 0, &is_text));
	}
	if (cut) {
		cJSON_AddBoolToObject(j, "truncated", 1);
		snprintf(note, sizeof(note),
			 "the body was cut at %u bytes (max_bytes)",
			 hc->max_body);
	} else if (!r->complete) {
		snprintf(note, sizeof(note),
			 x->status == AP_XS_TIMEOUT
				 ? "the response did not end within %u ms: "
				   "what came before is shown"
				 : "the server closed the connection before "
				   "the body ended",
			 hc->timeout_ms);
	}
	if (x->status == AP_XS_TIMEOUT)
		cJSON_AddBoolToObject(j, "timedOut", 1);
	if (note[0])
		cJSON_AddStringToObject(j, "note", note);
	cJSON_AddNumberToObject(j, "durationMs", x->duration_ms);
	res = tool_ok_text(j);
	if (img)
		cJSON_AddItemToArray(
			cJSON_GetObjectItemCaseSensitive(res, "content"), img);
	return res;
}

static void done_cb(const struct error *err, const struct ap_exchange_done *x,
		    void *arg)
{
	struct http_call *hc = arg;
	struct mcp_call *mc = hc->mc;
	struct http_response r;
	struct error e;
	int rc;

	mcp_call_on_cancel(mc, NULL, NULL);
	if (err) {
		mcp_call_finish_error(mc, err);
		free(hc);
		return;
	}
	rc = http_response_parse(x->data, x->data_len,
				 x->status == AP_XS_OK && !x->truncated,
				 hc->head, &r, &e);
	if (rc == -EAGAIN && x->status == AP_XS_TIMEOUT)
		mcp_call_finish_errorf(mc, ERR_SANDBOX_TIMEOUT,
				       "the server did not answer within %u ms "
				       "(%zu bytes came)",
				       hc->timeout_ms, x->data_len);
	else if (rc)
		mcp_call_finish_errorf(mc, ERR_SANDBOX,
				       "the port's answer is not HTTP: %s",
				       e.msg);
	else
		mcp_call_finish(mc, result(hc, &r, x));
	if (!rc)
		http_response_free(&r);
	free(hc);
}

static void cancel_cb(void *arg)
{
	struct http_call *hc = arg;

	session_proc_cancel(hc->sp);
}

/* preview: the link, nothing sent. */
static void preview(const struct tool_env *env, struct mcp_call *mc,
		    const char *name, unsigned port)
{
	const struct tenant *t = mcp_call_tenant(mc);
	char q[SESSION_QNAME_MAX + 1], when[40];
	uint32_t ttl = env->cfg->http_preview_ttl_s;
	int64_t now = (int64_t)time(NULL);
	char *url = NULL;
	cJSON *j;

	if (env->links && env->cfg->http_preview_listen &&
	    tool_qualify(t, name, q, sizeof(q)) == 0)
		url = links_preview_url(env->links, t ? t->name : NULL, q, port,
					now, ttl);
	if (!url) {
		mcp_call_finish_errorf(
			mc, ERR_INVALID_ARGUMENTS,
			"preview links are off: they are served over the HTTP "
			"transport (serve --http) with [http] preview_listen "
			"set");
		return;
	}
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "url", url);
	iso_time_ms((now + ttl) * 1000, when, sizeof(when));
	cJSON_AddStringToObject(j, "expires", when);
	free(url);
	mcp_call_finish(mc, tool_ok_text(j));
}

/* The request's headers from the arguments: 0, or the code with err. */
static int request_headers(const cJSON *hs, struct http_header *out, size_t *n,
			   struct error *err)
{
	const cJSON *it;

	*n = 0;
	cJSON_ArrayForEach(it, hs)
	{
		if (*n == MAX_REQ_HEADERS)
			return error_set(err, ERR_INVALID_ARGUMENTS,
					 "headers: at most %d",
					 MAX_REQ_HEADERS);
		if (!cJSON_IsString(it))
			return error_set(err, ERR_INVALID_ARGUMENTS,
					 "headers: values are strings");
		out[*n] = (struct http_header){
			.name = it->string,
			.name_len = strlen(it->string),
			.value = it->valuestring,
			.value_len = strlen(it->valuestring),
		};
		++*n;
	}
	return 0;
}

static void call(const struct tool_env *env, struct mcp_call *mc,
		 const cJSON *args)
{
#define ARG(k) cJSON_GetObjectItemCaseSensitive(args, k)
	const char *name = ARG("session")->valuestring;
	unsigned port = (unsigned)ARG("port")->valuedouble;
	const cJSON *method = ARG("method"), *path = ARG("path");
	const cJSON *body = ARG("body"), *enc = ARG("encoding");
	const cJSON *max = ARG("max_bytes"), *to = ARG("timeout");
	struct http_header hs[MAX_REQ_HEADERS];
	struct http_request_spec q = {.port = port};
	struct ap_exchange x = {.port = port};
	unsigned char *raw = NULL, *owned = NULL;
	struct http_call *hc = NULL;
	struct session *s;
	struct error err;
	size_t len = 0;
	int rc;
#undef ARG

	s = tool_find_session(env, mc, name);
	if (!s) {
		tool_no_session(env, mc, name, &err);
		mcp_call_finish_error(mc, &err);
		return;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "preview"))) {
		preview(env, mc, name, port);
		return;
	}
	q.method = method ? method->valuestring : "GET";
	q.target = path ? path->valuestring : "/";
	rc = request_headers(cJSON_GetObjectItemCaseSensitive(args, "headers"),
			     hs, &q.nheaders, &err);
	q.headers = hs;
	if (!rc && body)
		rc = tool_content(body->valuestring,
				  enc && !strcmp(enc->valuestring, "base64"),
				  env->cfg->max_message_bytes, "body", &q.body,
				  &q.body_len, &owned, &err);
	if (!rc && !(raw = http_request_build(&q, &len, &err)))
		rc = err.code ? err.code : ERR_SANDBOX;
	if (!rc && !(hc = calloc(1, sizeof(*hc))))
		rc = error_set(&err, ERR_SANDBOX, "out of memory");
	if (!rc && hc) {
		*hc = (struct http_call){
			.mc = mc,
			.env = env,
			.head = !strcmp(q.method, "HEAD"),
			.max_body =
				max ? (uint32_t)max->valuedouble : BODY_DEFAULT,
			.timeout_ms = to ? (uint32_t)to->valuedouble
					 : TIMEOUT_DEFAULT_MS,
		};
		x.data = raw;
		x.data_len = len;
		/* One byte past the cap says there was more. */
		x.length = hc->max_body + HEAD_ROOM;
		x.timeout_ms = hc->timeout_ms;
		rc = session_exchange(s, &x, done_cb, hc, &hc->sp, &err);
	}
	free(raw);
	free(owned);
	if (rc) {
		free(hc);
		mcp_call_finish_error(mc, &err);
		return;
	}
	mcp_call_on_cancel(mc, cancel_cb, hc);
}

const struct tool tool_http = {
	.name = "sandbox_http",
	.title = "HTTP request to a server in a session",
	.description =
		"Send one HTTP request to a server listening inside a "
		"session's container (one started with sandbox_process, e.g. "
		"\"python3 app.py\") and get its status, headers and body: "
		"text as text, images shown as images, other bytes in base64. "
		"The request travels through the sandbox's own channel: the "
		"container still has no network. A port nobody listens on "
		"answers port_closed at once; a server that does not answer "
		"ends at timeout.",
	.input_schema = input_schema,
	.read_only = 0,
	.destructive = 0,
	.idempotent = 0,
	.open_world = 0,
	.call = call,
};
