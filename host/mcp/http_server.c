/*
 * http_server.c - MCP over Streamable HTTP (http_server.h, docs/http.md).
 *
 * One struct exchange per POST: it lives until h2o has freed the request
 * (its pool's dispose hook) and the call it started has ended, whichever
 * is later, so an answer that arrives after the client left finds it and
 * is dropped. A response is JSON, or an event stream for a tools/call or
 * resources/read whose client accepts one: the stream opens at once, so
 * progress and a heartbeat keep flowing (HTTP/1 notices a client that
 * left only when it writes).
 */
#include "http_server.h"

#include <errno.h>
#include <h2o.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/records/artifact_store.h"
#include "core/session/session.h"
#include "core/tenants/links.h"
#include "core/tenants/tenants.h"
#include "util/beneath.h"
#include "util/media.h"
#include "util/defer.h"
#include "util/http_message.h"
#include "util/log.h"
#include "jsonrpc.h"
#include "mcp/tools/resources.h"
#include "mcp_server.h"
#include "mcp_version.h"
#include "tool_table.h"

#define LOG_MODULE "http"

#define MCP_PATH "/mcp"
#define ARTIFACTS_PATH "/artifacts"
#define PREVIEW_PATH "/preview"
/* A previewed response's bytes at most (docs/http.md, "Preview
 * links"). */
#define PREVIEW_MAX_BYTES (16u << 20)
/* The most one artifact response carries (a kept file is smaller:
 * [artifacts] keep_max_bytes). */
#define ARTIFACT_MAX_BYTES (64u << 20)
/* An event stream with nothing to say says ": ping" every [http]
 * heartbeat_ms: it keeps proxies from closing it and finds a client that
 * left. The tick that sends it runs at most this often. */
#define TICK_MS 1000
/* A client that has not taken what was written for this long is cut off
 * (h2o has no write timeout of its own). */
#define WRITE_STALL_MS 60000
#define DRAIN_POLL_MS 20

struct http_server;

/* A 2025-era MCP session over HTTP (Mcp-Session-Id). */
struct hsession {
	struct http_server *h;
	char id[33];	       /* 128 random bits, hex */
	struct tenant *tenant; /* whose it is, or NULL (no tenants) */
	struct mcp_server *peer;
	uint64_t last_ms; /* its last request */
	uint64_t seq;	  /* the order sessions were opened in */
	int used;	  /* a request came after initialize */
	int ended;	  /* deleted or expired: freed once its calls end */
	struct hsession *next;
};

/* One POST being answered. */
struct exchange {
	struct http_server *h;
	h2o_generator_t gen; /* the event stream's */
	h2o_req_t *req;	     /* NULL once answered for good, or gone */
	struct mcp_server *peer;
	struct hsession *sess; /* NULL: a stateless request, own peer */
	struct tenant *tenant; /* who asked, or NULL (no tenants) */
	int announce;	       /* the answer names the session (initialize) */
	int modern;	       /* a stateless request: -32601 is a 404 */
	int accepts_sse;
	int sse;	/* the response is an event stream */
	int answered;	/* its final message went out or was dropped */
	int call_open;	/* a call it started has not ended */
	int disposed;	/* h2o freed the request */
	int stateless;	/* counted in http_server.stateless */
	int freeing;	/* exchange_free is on its way through the loop */
	int want_final; /* end the stream after what is pending */
	int writing;	/* an h2o_send awaits proceed */
	char *pending, *inflight;
	size_t plen, pcap;
	/* A preview's request to the session's port while it runs (on
	 * the preview listener; no peer). */
	struct session_proc *preview;
	uint64_t last_write_ms, write_since_ms;
	struct exchange *prev, *next;
};

/* An accepted connection: h2o takes the handle's data pointer. */
struct conn {
	uv_tcp_t tcp;
	struct http_server *h;
};

/* In the request's pool: its dispose hook finds the exchange. */
struct ex_ref {
	struct exchange *ex;
};

/* The handler of /mcp. */
struct mcp_handler {
	h2o_handler_t super;
	struct http_server *h;
};

struct http_server {
	const struct tool_env *env;
	uv_loop_t *loop;
	h2o_globalconf_t conf;
	h2o_context_t ctx;
	h2o_accept_ctx_t accept;
	SSL_CTX *ssl;
	uv_tcp_t *listener; /* closed with free() */
	/* Preview links ([http] preview_listen): their own listener, so
	 * their own origin, whose connections see only /preview (hosts of
	 * a configuration of their own) in the same context. */
	h2o_globalconf_t preview_conf;
	h2o_accept_ctx_t preview_accept;
	uv_tcp_t *preview_listener;
	int preview_conf_init;
	unsigned preview_port;
	uv_timer_t tick;
	int conf_init, ctx_init, listening, ticking;
	struct tool_table *tools; /* every connection's */
	struct hsession *sessions;
	unsigned nsessions; /* live (not ended) */
	unsigned anon_open; /* ... of no tenant (no tokens_file) */
	uint64_t next_seq;
	unsigned stateless; /* stateless requests being answered */
	struct exchange *exchanges;
	unsigned connections;
	char **origins, **hosts; /* allowed; NULL-terminated */
	int any_origin, any_host;
	char url[160];
	struct tenants *tenants; /* [http] tokens_file, or NULL */
	uv_work_t reload;	 /* SIGHUP: the file read off the loop */
	struct tenant *fresh;
	struct error reload_err;
	int reloading, reload_rc;
	int stopping;
	int drained; /* every connection closed: h2o's context may go */
	uint64_t drain_since;
	void (*closed)(void *);
	void *closed_arg;
};

/* ------------------------------------------------------------------ */
/* helpers                                                              */

static int iov_is(h2o_iovec_t v, const char *s)
{
	return h2o_memis(v.base, v.len, s, strlen(s));
}

/* The first value of header name (lower case), or an empty iovec. */
static h2o_iovec_t header(h2o_req_t *req, const char *name)
{
	ssize_t i =
		h2o_find_header_by_str(&req->headers, name, strlen(name), -1);

	return i < 0 ? h2o_iovec_init(NULL, 0) : req->headers.entries[i].value;
}

static int has_token(h2o_iovec_t v, const char *tok)
{
	size_t n = strlen(tok), i;

	for (i = 0; i + n <= v.len; i++)
		if (strncasecmp(v.base + i, tok, n) == 0)
			return 1;
	return 0;
}

/* A comma-separated list as a NULL-terminated array of trimmed strings
 * (allocated, one block). */
static char **split_list(const char *s)
{
	size_t n = 1, len = s ? strlen(s) : 0, i, k = 0;
	char **v, *copy, *p, *tok, *save = NULL;

	for (i = 0; i < len; i++)
		n += s[i] == ',';
	v = malloc((n + 1) * sizeof(*v) + len + 1);
	if (!v)
		return NULL;
	copy = (char *)(v + n + 1);
	memcpy(copy, s ? s : "", len + 1);
	for (p = copy; (tok = strtok_r(p, ",", &save)); p = NULL) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		for (i = strlen(tok);
		     i && (tok[i - 1] == ' ' || tok[i - 1] == '\t');)
			tok[--i] = '\0';
		if (*tok)
			v[k++] = tok;
	}
	v[k] = NULL;
	return v;
}

static int in_list(char *const *v, const char *s, size_t n)
{
	for (; v && *v; v++)
		if (strlen(*v) == n && strncasecmp(*v, s, n) == 0)
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* exchanges: the response side                                         */

static void exchange_free_cb(void *arg);

static void exchange_maybe_free(struct exchange *ex)
{
	if (ex->freeing || !ex->disposed || ex->call_open)
		return;
	ex->freeing = 1;
	if (ex->stateless) { /* its room is free from now on */
		ex->h->stateless--;
		ex->stateless = 0;
	}
	/* Never inside the server's or h2o's code that called us. */
	if (defer_call(ex->h->loop, exchange_free_cb, ex) != 0)
		log_error("out of memory: an exchange is not freed");
}

static void exchange_free_cb(void *arg)
{
	struct exchange *ex = arg;
	struct http_server *h = ex->h;

	if (ex->prev)
		ex->prev->next = ex->next;
	else
		h->exchanges = ex->next;
	if (ex->next)
		ex->next->prev = ex->prev;
	if (!ex->sess)
		mcp_server_free(ex->peer);
	free(ex->pending);
	free(ex->inflight);
	free(ex);
}

/* The request is gone (h2o's pool dispose hook): after its answer, or
 * with the client. */
static void req_disposed(void *p)
{
	struct exchange *ex = ((struct ex_ref *)p)->ex;

	ex->req = NULL;
	ex->disposed = 1;
	if (!ex->answered) {
		ex->answered = 1;
		if (ex->call_open && ex->peer)
			mcp_server_drop_exchange(ex->peer, ex);
	}
	exchange_maybe_free(ex);
}

static void add_header(h2o_req_t *req, const char *lname, const char *name,
		       const char *value)
{
	h2o_iovec_t v = h2o_strdup(&req->pool, value, SIZE_MAX);

	h2o_add_header_by_str(&req->pool, &req->res.headers, lname,
			      strlen(lname), 0, name, v.base, v.len);
}

static void common_headers(struct exchange *ex)
{
	/* Only an initialize that succeeded opens a session. */
	if (ex->sess && ex->announce &&
	    mcp_server_session_version(ex->sess->peer))
		add_header(ex->req, "mcp-session-id", "Mcp-Session-Id",
			   ex->sess->id);
	add_header(ex->req, "cache-control", "Cache-Control", "no-store");
}

/* A whole response: status, type, body (copied). ex->req is done. */
static void respond(struct exchange *ex, int status, const char *type,
		    const char *body, size_t len)
{
	h2o_req_t *req = ex->req;

	if (!req)
		return;
	req->res.status = status;
	req->res.reason = status == 200	  ? "OK"
			  : status == 202 ? "Accepted"
			  : status == 400 ? "Bad Request"
			  : status == 401 ? "Unauthorized"
			  : status == 403 ? "Forbidden"
			  : status == 404 ? "Not Found"
			  : status == 405 ? "Method Not Allowed"
			  : status == 406 ? "Not Acceptable"
			  : status == 415 ? "Unsupported Media Type"
			  : status == 429 ? "Too Many Requests"
			  : status == 503 ? "Service Unavailable"
					  : "Error";
	if (len)
		h2o_add_header(&req->pool, &req->res.headers,
			       H2O_TOKEN_CONTENT_TYPE, NULL, type,
			       strlen(type));
	common_headers(ex);
	req->res.content_length = len;
	ex->req = NULL;
	h2o_send_inline(req, body, len);
}

/* A refusal before the server saw the message: a JSON-RPC error in the
 * status code's response, with the request's id (NULL: none known) and
 * data (taken, or NULL). */
static void refuse_full(struct exchange *ex, int status, const cJSON *id,
			int code, const char *message, cJSON *data)
{
	cJSON *msg = jsonrpc_error(id, code, message, data);
	char *text;

	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	ex->answered = 1;
	respond(ex, status, "application/json", text ? text : "",
		text ? strlen(text) : 0);
	free(text);
}

/* error.data of a refusal for load: the tool errors' name for it. */
static cJSON *busy_data(void)
{
	cJSON *d = cJSON_CreateObject();

	cJSON_AddStringToObject(d, "code", "server_busy");
	return d;
}

static void refuse(struct exchange *ex, int status, int code,
		   const char *message)
{
	refuse_full(ex, status, NULL, code, message, NULL);
}

static void sse_flush(struct exchange *ex);

static void sse_proceed(h2o_generator_t *gen, h2o_req_t *req)
{
	struct exchange *ex = H2O_STRUCT_FROM_MEMBER(struct exchange, gen, gen);

	(void)req;
	ex->writing = 0;
	free(ex->inflight);
	ex->inflight = NULL;
	if (ex->plen || ex->want_final)
		sse_flush(ex);
}

static void sse_stop(h2o_generator_t *gen, h2o_req_t *req)
{
	struct exchange *ex = H2O_STRUCT_FROM_MEMBER(struct exchange, gen, gen);

	(void)req;
	/* The dispose hook follows at once and does the rest. */
	ex->req = NULL;
	ex->writing = 0;
}

static void sse_flush(struct exchange *ex)
{
	h2o_iovec_t buf;
	int final;

	if (!ex->req || ex->writing)
		return;
	final = ex->want_final;
	if (!ex->plen && !final)
		return;
	free(ex->inflight);
	ex->inflight = ex->pending;
	buf = h2o_iovec_init(ex->pending, ex->plen);
	ex->pending = NULL;
	ex->plen = ex->pcap = 0;
	ex->writing = 1;
	ex->last_write_ms = ex->write_since_ms = uv_now(ex->h->loop);
	if (final) {
		h2o_req_t *req = ex->req;

		/* The buffer stays ours (inflight) until the exchange is
		 * freed, after the request. */
		ex->req = NULL;
		h2o_send(req, &buf, buf.len ? 1 : 0, H2O_SEND_STATE_FINAL);
		return;
	}
	h2o_send(ex->req, &buf, 1, H2O_SEND_STATE_IN_PROGRESS);
}

static int sse_append(struct exchange *ex, const char *a, size_t alen,
		      const char *b, size_t blen, const char *c, size_t clen)
{
	size_t need = ex->plen + alen + blen + clen;

	if (need > ex->pcap) {
		size_t cap = ex->pcap ? ex->pcap : 4096;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(ex->pending, cap);
		if (!p)
			return -ENOMEM;
		ex->pending = p;
		ex->pcap = cap;
	}
	memcpy(ex->pending + ex->plen, a, alen);
	memcpy(ex->pending + ex->plen + alen, b, blen);
	memcpy(ex->pending + ex->plen + alen + blen, c, clen);
	ex->plen = need;
	return 0;
}

static void sse_start(struct exchange *ex)
{
	h2o_req_t *req = ex->req;

	ex->sse = 1;
	req->res.status = 200;
	req->res.reason = "OK";
	h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE,
		       NULL, H2O_STRLIT("text/event-stream"));
	common_headers(ex);
	ex->gen.proceed = sse_proceed;
	ex->gen.stop = sse_stop;
	h2o_start_response(req, &ex->gen);
	/* HTTP/1.1 sends the headers with the first bytes. */
	sse_append(ex, H2O_STRLIT(": mcp-sandbox\n\n"), "", 0, "", 0);
	sse_flush(ex);
}

static void sse_message(struct exchange *ex, const char *json, size_t len)
{
	if (sse_append(ex, H2O_STRLIT("event: message\ndata: "), json, len,
		       H2O_STRLIT("\n\n")) != 0)
		log_error("out of memory: a message for an event stream is "
			  "lost");
	sse_flush(ex);
}

/* ------------------------------------------------------------------ */
/* what the MCP server sends (struct mcp_out)                           */

/* The status of a response that is not a stream: an error without an
 * id means the message itself was refused (409 when its id is one still
 * in flight in the session, as the Python SDK answers); in the stateless
 * revision a method the server does not have is a 404. */
static int answer_status(const struct exchange *ex, enum jsonrpc_kind kind)
{
	switch (kind) {
	case JSONRPC_REFUSED:
		return 400;
	case JSONRPC_DUPLICATE_ID:
		return 409;
	case JSONRPC_NO_METHOD:
		return ex->modern ? 404 : 200;
	default:
		return 200;
	}
}

static void out_send(void *arg, void *exv, enum jsonrpc_kind kind,
		     const char *json, size_t len)
{
	struct exchange *ex = exv;

	(void)arg;
	if (!ex || ex->answered || !ex->req)
		return; /* the client left, or a log line (stdio only) */
	if (kind == JSONRPC_NOTIFICATION) {
		/* A notification about the request: only a stream can
		 * carry it before the answer. */
		if (!ex->sse && ex->accepts_sse)
			sse_start(ex);
		if (ex->sse)
			sse_message(ex, json, len);
		return;
	}
	ex->answered = 1;
	if (ex->sse) {
		ex->want_final = 1;
		sse_message(ex, json, len);
		return;
	}
	respond(ex, answer_status(ex, kind), "application/json", json, len);
}

static void out_ended(void *arg, void *exv)
{
	struct exchange *ex = exv;

	(void)arg;
	if (!ex)
		return;
	ex->call_open = 0;
	if (!ex->answered && ex->req) {
		/* Cancelled without an answer while the client still
		 * waits (DELETE of its session): end the response. */
		ex->answered = 1;
		if (ex->sse) {
			ex->want_final = 1;
			sse_flush(ex);
		} else {
			respond(ex, ex->h->stopping ? 503 : 404, "", "", 0);
		}
	}
	exchange_maybe_free(ex);
}

static const struct mcp_out mcp_out_template = {
	.send = out_send,
	.ended = out_ended,
};

/* ------------------------------------------------------------------ */
/* sessions (2025 era)                                                  */

/* A live session of tenant's: another tenant's is not found. */
static struct hsession *session_get(struct http_server *h, h2o_iovec_t id,
				    const struct tenant *tenant)
{
	struct hsession *s;

	for (s = h->sessions; s; s = s->next)
		if (!s->ended && s->tenant == tenant && iov_is(id, s->id))
			return s;
	return NULL;
}

static void session_unlink_free(struct hsession *s)
{
	struct http_server *h = s->h;
	struct hsession **pp;

	for (pp = &h->sessions; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	mcp_server_free(s->peer);
	free(s);
}

/* The live sessions of tenant (NULL: of no tenant). */
static unsigned *open_of(struct http_server *h, struct tenant *tenant)
{
	return tenant ? &tenant->http_open : &h->anon_open;
}

/* The session ends (no longer found, no longer counted); it is freed by
 * sessions_sweep once nothing of it is in flight. */
static void session_retire(struct hsession *s)
{
	unsigned *n = open_of(s->h, s->tenant);

	if (s->ended)
		return;
	s->ended = 1;
	s->h->nsessions--;
	if (*n)
		(*n)--;
}

/* Ended sessions go once nothing of theirs is in flight or open. */
static void sessions_sweep(struct http_server *h, uint64_t now)
{
	struct hsession *s, *next;
	struct exchange *ex;

	for (s = h->sessions; s; s = next) {
		/* One never used after initialize has the short limit. */
		uint32_t idle = s->used ? h->env->cfg->http_session_idle_s
					: h->env->cfg->http_unused_idle_s;

		next = s->next;
		if (!s->ended && idle &&
		    now - s->last_ms > (uint64_t)idle * 1000 &&
		    !mcp_server_inflight(s->peer)) {
			log_info("HTTP session %.8s... ended after %u s idle%s",
				 s->id, idle, s->used ? "" : " (never used)");
			session_retire(s);
		}
		if (!s->ended || mcp_server_inflight(s->peer))
			continue;
		for (ex = h->exchanges; ex && ex->sess != s; ex = ex->next)
			;
		if (!ex)
			session_unlink_free(s);
	}
}

static struct hsession *session_new(struct http_server *h,
				    struct tenant *tenant)
{
	struct hsession *s;
	unsigned char rnd[16];
	struct mcp_out out = mcp_out_template;
	size_t i;

	if (RAND_bytes(rnd, sizeof(rnd)) != 1)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	out.arg = s;
	if (mcp_server_new(h->env, h->tools, &out, &s->peer) != 0) {
		free(s);
		return NULL;
	}
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(s->id + 2 * i, 3, "%02x", rnd[i]);
	s->h = h;
	s->tenant = tenant;
	mcp_server_set_tenant(s->peer, tenant);
	s->last_ms = uv_now(h->loop);
	s->seq = h->next_seq++;
	s->next = h->sessions;
	h->sessions = s;
	h->nsessions++;
	(*open_of(h, tenant))++;
	return s;
}

/* A session that may be ended to make room: never used after its
 * initialize, nothing in flight; the oldest of tenant's (only_tenant),
 * else of the tenant that holds the most live sessions. NULL if none. */
static struct hsession *session_victim(struct http_server *h,
				       struct tenant *tenant, int only_tenant)
{
	struct hsession *s, *best = NULL;
	unsigned bn = 0, n;

	for (s = h->sessions; s; s = s->next) {
		if (s->ended || s->used || mcp_server_inflight(s->peer) ||
		    (only_tenant && s->tenant != tenant))
			continue;
		n = *open_of(h, s->tenant);
		if (!best || n > bn || (n == bn && s->seq < best->seq)) {
			best = s;
			bn = n;
		}
	}
	return best;
}

/*
 * Room for one more session of tenant's: within its quota (http_sessions)
 * and max_sessions. At either, the oldest never-used session is ended to
 * make room (the tenant's own at its quota; at max_sessions that of the
 * tenant holding the most), so a flood of initializes locks no one out.
 * 0, or ERR_QUOTA_EXCEEDED (the tenant's quota) or ERR_SERVER_BUSY
 * (max_sessions) with err.
 */
static int session_admit(struct http_server *h, struct tenant *tenant,
			 struct error *err)
{
	uint32_t cap = tenant ? tenant->quota.http_sessions : 0;
	struct hsession *v;

	if (cap && tenant->http_open >= cap) {
		v = session_victim(h, tenant, 1);
		if (!v)
			return error_set(err, ERR_QUOTA_EXCEEDED,
					 "tenant %s has %u sessions (its "
					 "quota: http_sessions=%u): end one "
					 "with DELETE or use 2026-07-28 "
					 "requests",
					 tenant->name, tenant->http_open, cap);
		log_info("HTTP session %.8s... (never used) ended: tenant "
			 "%s is at its quota of sessions",
			 v->id, tenant->name);
		session_retire(v);
	}
	if (h->nsessions >= h->env->cfg->http_max_sessions) {
		sessions_sweep(h, uv_now(h->loop));
		v = h->nsessions >= h->env->cfg->http_max_sessions
			    ? session_victim(h, tenant, 0)
			    : NULL;
		if (v) {
			log_info("HTTP session %.8s... (never used) ended: "
				 "max_sessions reached",
				 v->id);
			session_retire(v);
		}
		if (h->nsessions >= h->env->cfg->http_max_sessions)
			return error_set(err, ERR_SERVER_BUSY,
					 "too many sessions ([http] "
					 "max_sessions): end one with DELETE "
					 "or use 2026-07-28 requests");
	}
	return 0;
}

/* DELETE: the session's calls are cancelled; its open responses end. */
static void session_end(struct hsession *s)
{
	struct exchange *ex;

	session_retire(s);
	for (ex = s->h->exchanges; ex; ex = ex->next)
		if (ex->sess == s && ex->call_open && !ex->answered)
			mcp_server_drop_exchange(s->peer, ex);
}

/* ------------------------------------------------------------------ */
/* requests                                                             */

static int host_allowed(struct http_server *h, h2o_req_t *req)
{
	h2o_iovec_t a = req->authority;
	size_t n = a.len;

	/* No name at all is no allowed name, even with "*": an empty
	 * Host, a port alone, or none (h2o then supplies its host entry's
	 * own name, "default:65535"). */
	if (!n || a.base[0] == ':' ||
	    (req->hostconf &&
	     h2o_memis(a.base, n, req->hostconf->authority.hostport.base,
		       req->hostconf->authority.hostport.len)))
		return 0;
	if (h->any_host)
		return 1;
	/* host, host:port, [v6]:port */
	if (n && a.base[0] == '[') {
		const char *e = memchr(a.base, ']', n);

		n = e ? (size_t)(e - a.base) + 1 : n;
	} else {
		const char *c = memchr(a.base, ':', n);

		n = c ? (size_t)(c - a.base) : n;
	}
	return n && in_list(h->hosts, a.base, n);
}

/* What the MCP server answers goes to ex. */
static struct exchange *exchange_new(struct http_server *h, h2o_req_t *req)
{
	struct exchange *ex = calloc(1, sizeof(*ex));
	struct ex_ref *ref;

	if (!ex)
		return NULL;
	ex->h = h;
	ex->req = req;
	ref = h2o_mem_alloc_shared(&req->pool, sizeof(*ref), req_disposed);
	ref->ex = ex;
	ex->next = h->exchanges;
	if (h->exchanges)
		h->exchanges->prev = ex;
	h->exchanges = ex;
	ex->accepts_sse = has_token(header(req, "accept"), "text/event-stream");
	return ex;
}

/* A header's value without the blanks HTTP allows around it. */
static h2o_iovec_t trimmed(h2o_iovec_t v)
{
	while (v.len && (v.base[0] == ' ' || v.base[0] == '\t')) {
		v.base++;
		v.len--;
	}
	while (v.len && (v.base[v.len - 1] == ' ' || v.base[v.len - 1] == '\t'))
		v.len--;
	return v;
}

/* What names the target of a stateless request in Mcp-Name: params.name
 * of tools/call and prompts/get, params.uri of resources/read, the task's
 * id of tasks/get, tasks/update and tasks/cancel (docs/tasks.md). */
static const cJSON *name_of(const cJSON *msg)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const char *k = NULL;

	if (!cJSON_IsString(m))
		return NULL;
	if (strcmp(m->valuestring, "tools/call") == 0 ||
	    strcmp(m->valuestring, "prompts/get") == 0)
		k = "name";
	else if (strcmp(m->valuestring, "resources/read") == 0)
		k = "uri";
	else if (strcmp(m->valuestring, "tasks/get") == 0 ||
		 strcmp(m->valuestring, "tasks/update") == 0 ||
		 strcmp(m->valuestring, "tasks/cancel") == 0)
		k = "taskId";
	return k ? cJSON_GetObjectItemCaseSensitive(p, k) : NULL;
}

/*
 * A stateless (2026-07-28) request over HTTP, checked as its transport
 * wants before it reaches the server: the MCP-Protocol-Version, Mcp-Method
 * and Mcp-Name headers present and saying what the body says (-32020),
 * _meta complete (-32602), the version one we serve (-32022), each 400.
 * 1 when refused (answered), else 0.
 */
static int modern_refused(struct exchange *ex, h2o_req_t *req, const cJSON *msg)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(msg, "params");
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(p, "_meta");
	const cJSON *pv =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_VERSION);
	const cJSON *caps =
		cJSON_GetObjectItemCaseSensitive(meta, MCP_META_CAPS);
	const cJSON *name = name_of(msg);
	h2o_iovec_t hv = trimmed(header(req, "mcp-protocol-version"));
	h2o_iovec_t hm = trimmed(header(req, "mcp-method"));
	h2o_iovec_t hn = trimmed(header(req, "mcp-name"));
	const char *why = NULL;
	int code = JSONRPC_HEADER_MISMATCH;

	if (!cJSON_IsString(m))
		return 0; /* not a request: the server says what it is */
	if (!hv.base)
		why = "the MCP-Protocol-Version header is required";
	else if (!cJSON_IsString(pv) || !cJSON_IsObject(caps)) {
		code = JSONRPC_INVALID_PARAMS;
		why = !cJSON_IsObject(meta) ? "params._meta is required"
		      : !cJSON_IsString(pv) ? "params._meta." MCP_META_VERSION
					      " must be a string"
					    : "params._meta." MCP_META_CAPS
					      " must be an object";
	} else if (!iov_is(hv, pv->valuestring))
		why = "the MCP-Protocol-Version header differs from "
		      "params._meta's protocol version";
	else if (strcmp(pv->valuestring, MCP_MODERN_VERSION) != 0) {
		cJSON *data = cJSON_CreateObject();

		cJSON_AddItemToObject(
			data, "supported",
			cJSON_CreateStringArray(
				(const char *const[]){MCP_MODERN_VERSION}, 1));
		cJSON_AddStringToObject(data, "requested", pv->valuestring);
		refuse_full(ex, 400, id, JSONRPC_UNSUPPORTED_VERSION,
			    "Unsupported protocol version", data);
		return 1;
	} else if (!hm.base)
		why = "the Mcp-Method header is required";
	else if (!iov_is(hm, m->valuestring))
		why = "the Mcp-Method header differs from the body's method";
	else if (name && !hn.base)
		why = "the Mcp-Name header is required (the body names its "
		      "target)";
	else if (hn.base &&
		 !(cJSON_IsString(name) && iov_is(hn, name->valuestring)))
		why = "the Mcp-Name header differs from the body's "
		      "params.name, params.uri or params.taskId";
	if (!why)
		return 0;
	refuse_full(ex, 400, id, code, why, NULL);
	return 1;
}

/* A revision of the 2025 era: one an initialize may have negotiated,
 * or 2025-03-26 (which gets 2024-11-05, but a client may still send its
 * own). */
static int legacy_version(h2o_iovec_t v)
{
	const char *const *p;

	for (p = mcp_version_all; *p; p++)
		if (strcmp(*p, MCP_MODERN_VERSION) != 0 && iov_is(v, *p))
			return 1;
	return iov_is(v, "2025-03-26");
}

/* The body, NUL-terminated (freed by the caller), and what it is: msg is
 * it parsed once to route it (freed by the caller; NULL when it does not
 * parse: the server reads the text itself, its strict checks are on the
 * text). NULL when refused (answered). */
static char *read_body(struct exchange *ex, h2o_req_t *req, size_t *len,
		       cJSON **msg, enum mcp_msg_kind *kind)
{
	h2o_iovec_t ct = header(req, "content-type"), pvh;
	char *body;

	*len = req->entity.base ? req->entity.len : 0;
	if (!ct.base || !has_token(ct, "application/json")) {
		refuse(ex, 415, JSONRPC_INVALID_REQUEST,
		       "Content-Type must be application/json");
		return NULL;
	}
	body = malloc(*len + 1);
	if (!body) {
		refuse(ex, 503, JSONRPC_INVALID_REQUEST, "out of memory");
		return NULL;
	}
	memcpy(body, req->entity.base ? req->entity.base : "", *len);
	body[*len] = '\0';
	*msg = cJSON_ParseWithLength(body, *len);
	jsonrpc_id_as_sent(*msg, body, *len);
	*kind = mcp_message_kind(*msg);
	/* A version header of no 2025-era revision makes the request a
	 * stateless one's, checked as such (even without its _meta). */
	pvh = trimmed(header(req, "mcp-protocol-version"));
	if (pvh.base && !legacy_version(pvh) && *kind != MCP_MSG_INVALID &&
	    *kind != MCP_MSG_NOTIFICATION && *kind != MCP_MSG_RESPONSE)
		*kind = MCP_MSG_MODERN;
	return body;
}

/* A stateless request: checked as its transport wants, and bounded
 * server-wide, as a session's calls are by [server] max_inflight (each
 * has a connection of its own). 0, or -1 when refused (answered). */
static int admit_modern(struct http_server *h, struct exchange *ex,
			h2o_req_t *req, const cJSON *msg)
{
	if (modern_refused(ex, req, msg))
		return -1;
	ex->modern = 1;
	if (h->stateless >= h->env->cfg->http_max_stateless) {
		add_header(req, "retry-after", "Retry-After", "1");
		refuse_full(ex, 503,
			    cJSON_GetObjectItemCaseSensitive(msg, "id"),
			    JSONRPC_SERVER_BUSY,
			    "too many stateless requests in flight ([http] "
			    "max_stateless_inflight): try again shortly",
			    busy_data());
		return -1;
	}
	ex->stateless = 1;
	h->stateless++;
	return 0;
}

/* An initialize without a session: a new one, if there is room. NULL
 * when refused (answered). */
static struct hsession *open_session(struct http_server *h, struct exchange *ex,
				     h2o_req_t *req, const cJSON *msg)
{
	struct hsession *sess;
	struct error err;

	if (session_admit(h, ex->tenant, &err)) {
		/* A tenant's own quota: it may come back (429); the
		 * server's limit: 503. */
		if (err.code == ERR_QUOTA_EXCEEDED)
			add_header(req, "retry-after", "Retry-After", "1");
		refuse_full(ex, err.code == ERR_QUOTA_EXCEEDED ? 429 : 503,
			    cJSON_GetObjectItemCaseSensitive(msg, "id"),
			    JSONRPC_INVALID_REQUEST, err.msg, NULL);
		return NULL;
	}
	sess = session_new(h, ex->tenant);
	if (!sess) {
		refuse(ex, 503, JSONRPC_INVALID_REQUEST, "out of memory");
		return NULL;
	}
	ex->announce = 1;
	return sess;
}

/* The 2025-era session a message of kind goes to (*sess; NULL for a
 * stateless request): the one its Mcp-Session-Id names, or a new one for
 * an initialize without. 0, or -1 when refused (answered). */
static int route(struct http_server *h, struct exchange *ex, h2o_req_t *req,
		 const cJSON *msg, enum mcp_msg_kind kind,
		 struct hsession **sess)
{
	h2o_iovec_t sid = header(req, "mcp-session-id");

	*sess = NULL;
	if (kind == MCP_MSG_MODERN)
		return admit_modern(h, ex, req, msg);
	if (kind == MCP_MSG_INITIALIZE && !sid.base)
		return (*sess = open_session(h, ex, req, msg)) ? 0 : -1;
	if (kind != MCP_MSG_REQUEST && kind != MCP_MSG_NOTIFICATION &&
	    kind != MCP_MSG_RESPONSE && kind != MCP_MSG_INITIALIZE)
		return 0; /* not JSON-RPC: the server says what is wrong */
	if (sid.base) {
		*sess = session_get(h, sid, ex->tenant);
		if (!*sess) {
			refuse(ex, 404, JSONRPC_INVALID_REQUEST,
			       "no such session (Mcp-Session-Id): it ended or "
			       "never was; initialize again");
			return -1;
		}
	} else if (kind == MCP_MSG_REQUEST) {
		refuse(ex, 400, JSONRPC_INVALID_REQUEST,
		       "an Mcp-Session-Id header is required: send initialize "
		       "first, or a 2026-07-28 request (its protocol version "
		       "in params._meta)");
		return -1;
	}
	return 0;
}

/* The connection that answers ex: its session's, or one of its own. 0,
 * or -1 when refused (answered). */
static int bind_peer(struct http_server *h, struct exchange *ex,
		     struct hsession *sess, enum mcp_msg_kind kind)
{
	struct mcp_out out = mcp_out_template;

	if (sess) {
		sess->last_ms = uv_now(h->loop);
		/* notifications/initialized alone is no use of it. */
		sess->used |= kind == MCP_MSG_REQUEST;
		ex->sess = sess;
		ex->peer = sess->peer;
		return 0;
	}
	if (mcp_server_new(h->env, h->tools, &out, &ex->peer) != 0) {
		refuse(ex, 503, JSONRPC_INVALID_REQUEST, "out of memory");
		return -1;
	}
	mcp_server_set_tenant(ex->peer, ex->tenant);
	return 0;
}

/* A call streams when the client can take a stream. */
static void maybe_stream(struct exchange *ex, const cJSON *msg,
			 enum mcp_msg_kind kind)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(msg, "method");

	if (ex->accepts_sse &&
	    (kind == MCP_MSG_REQUEST || kind == MCP_MSG_MODERN) &&
	    cJSON_IsString(m) &&
	    (strcmp(m->valuestring, "tools/call") == 0 ||
	     strcmp(m->valuestring, "resources/read") == 0))
		sse_start(ex);
}

/* The message goes to its connection; what gets no answer gets a 202. */
static void deliver(struct exchange *ex, struct hsession *sess,
		    enum mcp_msg_kind kind, const char *body, size_t len)
{
	ex->call_open = 1;
	mcp_server_handle(ex->peer, ex, body, len);
	if (!ex->answered &&
	    (kind == MCP_MSG_NOTIFICATION || kind == MCP_MSG_RESPONSE)) {
		ex->answered = 1;
		respond(ex, 202, "", "", 0);
	}
	/* Answered now: no call of ours is open. One that runs on clears it
	 * in out_ended. */
	if (ex->answered)
		ex->call_open = 0;
	if (kind == MCP_MSG_INITIALIZE && sess &&
	    !mcp_server_session_version(sess->peer))
		session_retire(sess); /* initialize was refused */
	exchange_maybe_free(ex);
}

static int on_post(struct http_server *h, h2o_req_t *req, struct tenant *tenant)
{
	struct exchange *ex = exchange_new(h, req);
	struct hsession *sess;
	enum mcp_msg_kind kind;
	cJSON *msg = NULL;
	char *body;
	size_t len;

	if (!ex)
		return -1;
	ex->tenant = tenant;
	body = read_body(ex, req, &len, &msg, &kind);
	if (body && route(h, ex, req, msg, kind, &sess) == 0 &&
	    bind_peer(h, ex, sess, kind) == 0) {
		maybe_stream(ex, msg, kind);
		cJSON_Delete(msg);
		msg = NULL;
		deliver(ex, sess, kind, body, len);
	}
	cJSON_Delete(msg);
	free(body);
	return 0;
}

static int on_delete(struct http_server *h, h2o_req_t *req,
		     struct tenant *tenant)
{
	struct exchange *ex = exchange_new(h, req);
	struct hsession *s =
		session_get(h, header(req, "mcp-session-id"), tenant);

	if (!ex)
		return -1;
	if (!s) {
		refuse(ex, 404, JSONRPC_INVALID_REQUEST, "no such session");
	} else {
		log_info("HTTP session %.8s... ended by its client", s->id);
		session_end(s);
		ex->answered = 1;
		respond(ex, 200, "", "", 0);
	}
	exchange_maybe_free(ex);
	return 0;
}

/* An Origin that is this server as the request names it (Host, already
 * allowed): a page of its own, which it does not serve but may. */
static int same_origin(h2o_req_t *req, h2o_iovec_t origin)
{
	static const char *const schemes[] = {"http://", "https://"};
	size_t i, n;

	for (i = 0; i < 2; i++) {
		n = strlen(schemes[i]);
		if (origin.len == n + req->authority.len &&
		    strncasecmp(origin.base, schemes[i], n) == 0 &&
		    strncasecmp(origin.base + n, req->authority.base,
				req->authority.len) == 0)
			return 1;
	}
	return 0;
}

/* The tenant whose bearer token the request carries, or NULL. */
static struct tenant *authenticate(struct http_server *h, h2o_req_t *req)
{
	h2o_iovec_t a = header(req, "authorization");
	struct tenant *t;

	if (!a.base || a.len < 8 || strncasecmp(a.base, "Bearer ", 7) != 0)
		return NULL;
	t = tenants_auth(h->tenants, a.base + 7, a.len - 7);
	if (!t)
		log_warn("a request with a token that names no tenant was "
			 "refused");
	return t;
}

static int on_mcp(h2o_handler_t *self, h2o_req_t *req)
{
	struct http_server *h = ((struct mcp_handler *)self)->h;
	struct tenant *tenant = NULL;
	struct exchange *ex;
	h2o_iovec_t origin = header(req, "origin");
	const char *refusal = NULL;
	int status = 0;

	if (h->stopping) {
		status = 503;
		refusal = "the server is shutting down";
	} else if (!host_allowed(h, req)) {
		/* A page that had a name of its own resolve to this
		 * machine (DNS rebinding) gets no further. */
		status = 403;
		refusal = "Host not allowed ([http] allowed_hosts)";
	} else if (origin.base && !h->any_origin &&
		   !in_list(h->origins, origin.base, origin.len) &&
		   (h->any_host || !same_origin(req, origin))) {
		status = 403;
		refusal = "Origin not allowed ([http] allowed_origins)";
	} else if (h->tenants && !(tenant = authenticate(h, req))) {
		status = 401;
		add_header(req, "www-authenticate", "WWW-Authenticate",
			   "Bearer realm=\"mcp-sandbox\"");
		refusal = "a bearer token is required (Authorization: Bearer "
			  "...): this server serves its tenants only";
	} else if (iov_is(req->method, "POST")) {
		return on_post(h, req, tenant);
	} else if (iov_is(req->method, "DELETE")) {
		return on_delete(h, req, tenant);
	} else {
		/* No stream of the server's own: it sends no requests, and
		 * the stateless revision has none. */
		status = 405;
		add_header(req, "allow", "Allow", "POST, DELETE");
		refusal = "use POST (or DELETE to end a session)";
	}
	ex = exchange_new(h, req);
	if (!ex)
		return -1;
	refuse(ex, status, JSONRPC_INVALID_REQUEST, refusal);
	exchange_maybe_free(ex);
	return 0;
}

/* ------------------------------------------------------------------ */
/* signed artifact links (core/tenants/links.h) */

struct art_get {
	struct exchange *ex;
	char key[ARTIFACT_KEY_MAX + 1];
	char *path;
	int head;
	int have_range, suffix; /* bytes=a-b, a-, -n */
	uint64_t from, to;	/* to: UINT64_MAX for open */
	int sized;		/* the size is known: this read is the body */
};

/* A query parameter's value (borrowed into out), or NULL. */
static const char *query_param(h2o_req_t *req, const char *name, char *out,
			       size_t outsz)
{
	const char *q, *end, *p;
	size_t n = strlen(name);

	if (req->query_at == SIZE_MAX)
		return NULL;
	q = req->path.base + req->query_at + 1;
	end = req->path.base + req->path.len;
	for (p = q; p < end;) {
		const char *amp = memchr(p, '&', (size_t)(end - p));
		const char *e = amp ? amp : end;

		if ((size_t)(e - p) > n && memcmp(p, name, n) == 0 &&
		    p[n] == '=') {
			size_t vl = (size_t)(e - p) - n - 1;

			if (vl >= outsz)
				return NULL;
			memcpy(out, p + n + 1, vl);
			out[vl] = '\0';
			return out;
		}
		p = amp ? amp + 1 : end;
	}
	return NULL;
}

/* "bytes=a-b", "bytes=a-", "bytes=-n"; anything else (several ranges
 * too) is answered whole, as RFC 9110 allows. */
static void parse_range(h2o_iovec_t v, struct art_get *g)
{
	char buf[64], *dash, *end;
	unsigned long long a, b;

	if (!v.base || v.len >= sizeof(buf) || v.len < 7 ||
	    memcmp(v.base, "bytes=", 6) != 0 || memchr(v.base, ',', v.len))
		return;
	memcpy(buf, v.base + 6, v.len - 6);
	buf[v.len - 6] = '\0';
	dash = strchr(buf, '-');
	if (!dash)
		return;
	*dash = '\0';
	errno = 0;
	if (!buf[0]) { /* -n: the last n bytes */
		b = strtoull(dash + 1, &end, 10);
		if (errno || *end || !dash[1] || !b)
			return;
		g->suffix = 1;
		g->from = b;
	} else {
		a = strtoull(buf, &end, 10);
		if (errno || *end)
			return;
		g->from = a;
		g->to = UINT64_MAX;
		if (dash[1]) {
			b = strtoull(dash + 1, &end, 10);
			if (errno || *end || b < a)
				return;
			g->to = b;
		}
	}
	g->have_range = 1;
}

static void art_answer(struct art_get *g, int status, const char *msg)
{
	struct exchange *ex = g->ex;

	if (ex->req && !ex->answered) {
		ex->answered = 1;
		respond(ex, status, "text/plain; charset=utf-8", msg,
			strlen(msg));
	}
}

static void art_done(struct art_get *g)
{
	struct exchange *ex = g->ex;

	ex->call_open = 0;
	free(g->path);
	free(g);
	exchange_maybe_free(ex);
}

static int art_read(struct art_get *g, uint64_t off, uint64_t len);

static void art_read_cb(const struct error *err, const unsigned char *data,
			size_t len, uint64_t size, int eof, void *arg)
{
	struct art_get *g = arg;
	struct exchange *ex = g->ex;
	h2o_req_t *req = ex->req;
	const char *base;
	char cr[96], cd[600];
	uint64_t from, to;

	(void)eof;
	if (!req || ex->answered) {
		art_done(g);
		return;
	}
	if (err) {
		art_answer(g, err->code == ERR_NOT_FOUND ? 404 : 403,
			   err->code == ERR_NOT_FOUND
				   ? "no such artifact (it may have expired)\n"
				   : "not an artifact\n");
		art_done(g);
		return;
	}
	if (!g->sized) {
		/* The size is known now: the range, then the bytes. */
		from = g->suffix ? (g->from >= size ? 0 : size - g->from)
				 : g->from;
		to = g->suffix || g->to >= size ? size - 1 : g->to;
		if (g->have_range && (from >= size || size == 0)) {
			snprintf(cr, sizeof(cr), "bytes */%llu",
				 (unsigned long long)size);
			add_header(req, "content-range", "Content-Range", cr);
			art_answer(g, 416, "range not satisfiable\n");
			art_done(g);
			return;
		}
		if (!g->have_range) {
			from = 0;
			to = size ? size - 1 : 0;
		}
		g->sized = 1;
		g->from = from;
		g->to = to;
		if (size && art_read(g, from, to - from + 1) == 0)
			return;
		if (size) {
			art_answer(g, 503, "out of memory\n");
			art_done(g);
			return;
		}
		len = 0;
	}
	base = strrchr(g->path, '/');
	base = base ? base + 1 : g->path;
	/* RFC 6266: an ASCII fallback and the UTF-8 name, escaped. */
	{
		char *q = cd +
			  snprintf(cd, sizeof(cd), "attachment; filename=\"");
		const unsigned char *p;

		for (p = (const unsigned char *)base;
		     *p && q < cd + sizeof(cd) / 3; p++)
			*q++ = *p >= 0x20 && *p < 0x7f && *p != '"' &&
					       *p != '\\'
				       ? (char)*p
				       : '_';
		static const char mid[] = "\"; filename*=UTF-8''";

		memcpy(q, mid, sizeof(mid) - 1);
		q += sizeof(mid) - 1;
		for (p = (const unsigned char *)base;
		     *p && q < cd + sizeof(cd) - 4; p++)
			if ((*p >= 'a' && *p <= 'z') ||
			    (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
				*q++ = (char)*p;
			else
				q += snprintf(q, 4, "%%%02X", *p);
		*q = '\0';
	}
	add_header(req, "content-disposition", "Content-Disposition", cd);
	add_header(req, "accept-ranges", "Accept-Ranges", "bytes");
	if (g->have_range) {
		snprintf(cr, sizeof(cr), "bytes %llu-%llu/%llu",
			 (unsigned long long)g->from,
			 (unsigned long long)(g->from + len - 1),
			 (unsigned long long)size);
		add_header(req, "content-range", "Content-Range", cr);
	}
	ex->answered = 1;
	respond(ex, g->have_range ? 206 : 200, media_type(g->path, 0),
		(const char *)data, len);
	art_done(g);
}

static int art_read(struct art_get *g, uint64_t off, uint64_t len)
{
	struct http_server *h = g->ex->h;

	if (len > ARTIFACT_MAX_BYTES)
		len = ARTIFACT_MAX_BYTES;
	return artifact_store_read(h->env->artifacts, g->key, g->path, off,
				   (uint32_t)len, art_read_cb, g);
}

/* GET /artifacts/<id>/<path>?t=&exp=&sig= */
static int on_artifact(h2o_handler_t *self, h2o_req_t *req)
{
	struct http_server *h = ((struct mcp_handler *)self)->h;
	struct exchange *ex;
	struct art_get *g;
	char id[ARTIFACT_ID_LEN + 2], tenant[TENANT_NAME_MAX + 1], exp[32],
		sig[80];
	const char *rest, *slash;
	char *raw = NULL, *end;
	size_t plen = req->query_at == SIZE_MAX ? req->path.len : req->query_at;
	size_t pre = strlen(ARTIFACTS_PATH) + 1;
	long long e;

	ex = exchange_new(h, req);
	if (!ex)
		return -1;
	if (h->stopping || !host_allowed(h, req)) {
		refuse(ex, h->stopping ? 503 : 403, JSONRPC_INVALID_REQUEST,
		       h->stopping ? "the server is shutting down"
				   : "Host not allowed ([http] allowed_hosts)");
		exchange_maybe_free(ex);
		return 0;
	}
	if (!iov_is(req->method, "GET") && !iov_is(req->method, "HEAD")) {
		add_header(req, "allow", "Allow", "GET, HEAD");
		ex->answered = 1;
		respond(ex, 405, "text/plain; charset=utf-8", "use GET\n", 8);
		exchange_maybe_free(ex);
		return 0;
	}
	/* /artifacts/<id>/<path>, the path percent-encoded */
	rest = req->path.base + pre;
	slash = plen > pre ? memchr(rest, '/', plen - pre) : NULL;
	if (slash && (size_t)(slash - rest) < sizeof(id)) {
		memcpy(id, rest, (size_t)(slash - rest));
		id[slash - rest] = '\0';
		raw = strndup(slash + 1,
			      plen - pre - (size_t)(slash - rest) - 1);
	}
	if (!raw || !artifact_id_valid(id, strlen(id)) || !h->env->links ||
	    !h->env->artifacts ||
	    !query_param(req, "t", tenant, sizeof(tenant)) ||
	    !query_param(req, "exp", exp, sizeof(exp)) ||
	    !query_param(req, "sig", sig, sizeof(sig))) {
		free(raw);
		ex->answered = 1;
		respond(ex, 404, "text/plain; charset=utf-8",
			"not an artifact link\n", 21);
		exchange_maybe_free(ex);
		return 0;
	}
	g = calloc(1, sizeof(*g));
	if (g)
		g->path = resources_pct_decode(raw);
	free(raw);
	errno = 0;
	e = strtoll(exp, &end, 10);
	/* A link of a tenant the tokens file no longer names (or of none,
	 * when there are tenants) is dead with it. */
	if (!g || !g->path || errno || *end || !*exp ||
	    (tenant[0] && !tenant_valid_name(tenant)) ||
	    (h->tenants && !tenants_find(h->tenants, tenant)) ||
	    links_check(h->env->links, tenant, id, g->path, e, sig,
			(int64_t)time(NULL)) != 0 ||
	    beneath_check(g->path)) {
		/* Tampered, expired, another tenant's, or a path that
		 * leaves the set: all the same to the asker. */
		if (g)
			free(g->path);
		free(g);
		ex->answered = 1;
		respond(ex, 403, "text/plain; charset=utf-8",
			"the link is not valid (tampered with, or expired)\n",
			50);
		exchange_maybe_free(ex);
		return 0;
	}
	g->ex = ex;
	g->head = iov_is(req->method, "HEAD");
	snprintf(g->key, sizeof(g->key), "%s%s%s", tenant, tenant[0] ? "." : "",
		 id);
	parse_range(header(req, "range"), g);
	ex->call_open = 1;
	/* First the size (a read of nothing), then the bytes asked for. */
	if (art_read(g, 0, 0) != 0) {
		ex->call_open = 0;
		free(g->path);
		free(g);
		refuse(ex, 503, JSONRPC_INVALID_REQUEST, "out of memory");
	}
	exchange_maybe_free(ex);
	return 0;
}

/* ------------------------------------------------------------------ */
/* connections                                                          */

/* ------------------------------------------------------------------ */
/* preview links                                                        */

/* Up to the next '/' of [*p, end): its length, *p past the '/'. -1 when
 * there is none. */
static ssize_t segment(const char **p, const char *end, const char **seg)
{
	const char *s = memchr(*p, '/', (size_t)(end - *p));

	if (!s)
		return -1;
	*seg = *p;
	*p = s + 1;
	return s - *seg;
}

static void preview_answer(struct exchange *ex, int status, const char *msg)
{
	ex->answered = 1;
	respond(ex, status, "text/plain; charset=utf-8", msg, strlen(msg));
}

static int hop_by_hop(const h2o_iovec_t *name)
{
	static const char *const names[] = {
		"connection", "keep-alive",	  "transfer-encoding", "te",
		"upgrade",    "proxy-connection", "content-length",    NULL,
	};

	for (int i = 0; names[i]; i++)
		if (h2o_lcstris(name->base, name->len, names[i],
				strlen(names[i])))
			return 1;
	return 0;
}

/* A header of the session server's answer, passed on: its name
 * lower-cased (h2o's and HTTP/2's form), but not one that is not a
 * token, not the connection's, and not one that widens what a service
 * worker may control. */
static void preview_header(h2o_req_t *req, const struct http_header *hd)
{
	h2o_iovec_t n = h2o_iovec_init(hd->name, hd->name_len);
	char *lc;

	if (!n.len || hop_by_hop(&n) ||
	    h2o_lcstris(n.base, n.len, "service-worker-allowed", 22))
		return;
	lc = h2o_mem_alloc_pool(&req->pool, n.len + 1);
	for (size_t k = 0; k < n.len; k++) {
		unsigned char c = (unsigned char)n.base[k];

		if (c <= 0x20 || c >= 0x7f || strchr("\"(),/:;<=>?@[\\]{}", c))
			return;
		lc[k] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	lc[n.len] = '\0';
	h2o_add_header_by_str(
		&req->pool, &req->res.headers, lc, n.len, 1,
		h2o_strdup(&req->pool, n.base, n.len).base,
		h2o_strdup(&req->pool, hd->value, hd->value_len).base,
		hd->value_len);
}

static void preview_cb(const struct error *err,
		       const struct ap_exchange_done *x, void *arg)
{
	struct exchange *ex = arg;
	h2o_req_t *req = ex->req;
	struct http_response r;
	struct error e;

	ex->preview = NULL;
	ex->call_open = 0;
	if (!req || ex->answered) {
		exchange_maybe_free(ex);
		return;
	}
	if (err) {
		preview_answer(ex, err->code == ERR_PORT_CLOSED ? 502 : 503,
			       err->code == ERR_PORT_CLOSED
				       ? "nothing listens on that port in the "
					 "session\n"
				       : "the session could not be reached\n");
	} else if (x->truncated ||
		   http_response_parse(x->data, x->data_len,
				       x->status == AP_XS_OK,
				       iov_is(req->method, "HEAD"), &r, &e)) {
		preview_answer(ex, 502,
			       x->truncated ? "the response is too large\n"
			       : x->status == AP_XS_TIMEOUT
				       ? "the server did not answer in time\n"
				       : "the server's answer is not HTTP\n");
	} else if (!r.complete || r.status < 200) {
		preview_answer(
			ex, 502,
			r.status == 101 ? "upgrades (WebSocket) are not passed "
					  "on\n"
			: x->status == AP_XS_TIMEOUT
				? "the server did not end its answer in "
				  "time\n"
				: "the server closed the connection before "
				  "its answer ended\n");
		http_response_free(&r);
	} else {
		req->res.status = r.status;
		req->res.reason =
			h2o_strdup(&req->pool, r.reason, SIZE_MAX).base;
		for (size_t i = 0; i < r.nheaders; i++)
			preview_header(req, &r.headers[i]);
		req->res.content_length = r.body_len;
		ex->answered = 1;
		ex->req = NULL;
		h2o_send_inline(req, (const char *)r.body, r.body_len);
		http_response_free(&r);
	}
	exchange_maybe_free(ex);
}

/* The browser's request as the session's server gets it. 0, or 400's
 * message. */
static const char *preview_request(h2o_req_t *req, const char *target,
				   unsigned port, unsigned char **raw,
				   size_t *len)
{
	struct http_header hs[64];
	struct http_request_spec q = {
		.method = h2o_strdup(&req->pool, req->method.base,
				     req->method.len)
				  .base,
		.target = target,
		.headers = hs,
		.port = port,
	};
	struct error err;

	for (size_t i = 0; i < req->headers.size && q.nheaders < 64; i++) {
		const h2o_header_t *hd = &req->headers.entries[i];

		/* The session's server is on 127.0.0.1: its own Host. */
		if (h2o_lcstris(hd->name->base, hd->name->len, "host", 4))
			continue;
		hs[q.nheaders++] = (struct http_header){
			.name = hd->name->base,
			.name_len = hd->name->len,
			.value = hd->value.base,
			.value_len = hd->value.len,
		};
	}
	if (req->entity.base) {
		q.body = (const unsigned char *)req->entity.base;
		q.body_len = req->entity.len;
	}
	*raw = http_request_build(&q, len, &err);
	return *raw ? NULL : "a request the preview cannot pass on\n";
}

/* The link is opened at its own host name (links.h): its origin, and
 * no name a page elsewhere could point at this machine (DNS rebinding). */
static int preview_host_ok(struct http_server *h, h2o_req_t *req,
			   const char *tenant, const char *qname, unsigned port)
{
	char want[LINKS_HOST_MAX];

	return links_preview_host(h->env->links, tenant, qname, port, want) ==
		       0 &&
	       h2o_lcstris(req->authority.base, req->authority.len, want,
			   strlen(want));
}

/* ANY /preview/<session>/<port>/<exp>.<sig>/<path> */
static int on_preview(h2o_handler_t *self, h2o_req_t *req)
{
	struct http_server *h = ((struct mcp_handler *)self)->h;
	const char *p = req->path.base + strlen(PREVIEW_PATH) + 1;
	const char *end = req->path.base + req->path.len, *seg, *dot;
	char qname[SESSION_QNAME_MAX + 1], tenant[TENANT_NAME_MAX + 1] = "";
	char portv[8], sig[65], *target, *e;
	struct ap_exchange x = {.length = PREVIEW_MAX_BYTES};
	struct exchange *ex;
	struct session *s;
	unsigned char *raw = NULL;
	const char *why = NULL;
	long long exp = 0;
	unsigned long port = 0;
	ssize_t n;
	struct error err;

	ex = exchange_new(h, req);
	if (!ex)
		return -1;
	if (h->stopping) {
		preview_answer(ex, 503, "the server is shutting down\n");
		exchange_maybe_free(ex);
		return 0;
	}
	/* A service worker would outlive the link and answer for it. */
	if (header(req, "service-worker").base) {
		preview_answer(ex, 403, "no service workers in previews\n");
		exchange_maybe_free(ex);
		return 0;
	}
	/* The session, the port and the signature, each a segment. */
	if (p > end || (n = segment(&p, end, &seg)) <= 0 ||
	    (size_t)n >= sizeof(qname))
		why = "not a preview link\n";
	else {
		memcpy(qname, seg, (size_t)n);
		qname[n] = '\0';
	}
	if (!why &&
	    ((n = segment(&p, end, &seg)) <= 0 || (size_t)n >= sizeof(portv)))
		why = "not a preview link\n";
	if (!why) {
		memcpy(portv, seg, (size_t)n);
		portv[n] = '\0';
		port = strtoul(portv, &e, 10);
		if (*e || port < 1 || port > 65535)
			why = "not a preview link\n";
	}
	if (!why &&
	    ((n = segment(&p, end, &seg)) <= 0 ||
	     !(dot = memchr(seg, '.', (size_t)n)) || seg + n - dot - 1 != 64))
		why = "not a preview link\n";
	if (!why) {
		exp = strtoll(seg, &e, 10);
		memcpy(sig, dot + 1, 64);
		sig[64] = '\0';
		if (e != dot)
			why = "not a preview link\n";
	}
	if (!why && (dot = strchr(qname, '.')) &&
	    (size_t)(dot - qname) < sizeof(tenant)) {
		memcpy(tenant, qname, (size_t)(dot - qname));
		tenant[dot - qname] = '\0';
	}
	/* Tampered, expired, or a tenant the tokens file no longer names:
	 * all the same to the asker. */
	if (!why &&
	    (!session_valid_name(qname) || !h->env->links ||
	     (h->tenants && !tenants_find(h->tenants, tenant)) ||
	     links_preview_check(h->env->links, tenant, qname, (unsigned)port,
				 exp, sig, (int64_t)time(NULL)) != 0 ||
	     !preview_host_ok(h, req, tenant, qname, (unsigned)port)))
		why = "the preview link is not valid (tampered with, "
		      "expired, or opened at another host name)\n";
	if (why) {
		preview_answer(ex, why[0] == 'n' ? 404 : 403, why);
		exchange_maybe_free(ex);
		return 0;
	}
	s = session_find(h->env->sessions, qname);
	/* The target: what follows the signature, with its query. */
	n = end - p;
	target = h2o_mem_alloc_pool(&req->pool, (size_t)n + 2);
	target[0] = '/';
	memcpy(target + 1, p, (size_t)n);
	target[n + 1] = '\0';
	if (!s)
		why = "no such session (it may have ended)\n";
	else
		why = preview_request(req, target, (unsigned)port, &raw,
				      &x.data_len);
	if (!why) {
		x.port = (unsigned)port;
		x.data = raw;
		x.timeout_ms = h->env->cfg->http_request_timeout_ms;
		ex->call_open = 1;
		if (session_exchange(s, &x, preview_cb, ex, &ex->preview,
				     &err)) {
			ex->call_open = 0;
			why = "the session cannot be reached now\n";
		}
	}
	if (why)
		preview_answer(ex, !s ? 404 : raw ? 503 : 400, why);
	free(raw);
	exchange_maybe_free(ex);
	return 0;
}

static void conn_closed_cb(uv_handle_t *hd)
{
	struct conn *c = (struct conn *)hd;

	c->h->connections--;
	free(c);
}

static void on_accept(uv_stream_t *listener, int status)
{
	struct http_server *h = listener->data;
	struct conn *c;
	h2o_socket_t *sock;

	if (status != 0)
		return;
	c = malloc(sizeof(*c));
	if (!c)
		return;
	c->h = h;
	h->connections++;
	uv_tcp_init(listener->loop, &c->tcp);
	if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0 || h->stopping ||
	    h->connections > h->env->cfg->http_max_connections) {
		uv_close((uv_handle_t *)&c->tcp, conn_closed_cb);
		return;
	}
	sock = h2o_uv_socket_create((uv_stream_t *)&c->tcp, conn_closed_cb);
	h2o_accept(listener == (uv_stream_t *)h->preview_listener
			   ? &h->preview_accept
			   : &h->accept,
		   sock);
}

/* Heartbeats, stalled readers, idle sessions. */
static void tick_cb(uv_timer_t *t)
{
	struct http_server *h = t->data;
	uint64_t now = uv_now(h->loop);
	struct exchange *ex;

	for (ex = h->exchanges; ex; ex = ex->next) {
		if (!ex->sse || !ex->req)
			continue;
		if (ex->writing && now - ex->write_since_ms > WRITE_STALL_MS) {
			h2o_socket_t *sock =
				ex->req->conn->callbacks->get_socket(
					ex->req->conn);

			log_warn("a client took nothing for %d s: its "
				 "connection is closed",
				 WRITE_STALL_MS / 1000);
			if (sock)
				shutdown(h2o_socket_get_fd(sock), SHUT_RDWR);
			continue;
		}
		if (!ex->writing &&
		    now - ex->last_write_ms >= h->env->cfg->http_heartbeat_ms) {
			sse_append(ex, H2O_STRLIT(": ping\n\n"), "", 0, "", 0);
			sse_flush(ex);
		}
	}
	sessions_sweep(h, now);
}

/* ------------------------------------------------------------------ */
/* start and stop                                                       */

/* "ADDR:PORT" or "[V6]:PORT". */
static int parse_listen(const char *s, struct sockaddr_storage *ss,
			int *loopback, char *host, size_t hostsz)
{
	const char *colon;
	char addr[64];
	long port;
	char *end;
	size_t n;

	if (!s)
		return -EINVAL;
	colon = strrchr(s, ':');
	if (!colon || colon == s)
		return -EINVAL;
	n = (size_t)(colon - s);
	if (s[0] == '[') {
		if (n < 3 || s[n - 1] != ']')
			return -EINVAL;
		memcpy(addr, s + 1, n - 2 < sizeof(addr) ? n - 2 : 0);
		addr[n - 2 < sizeof(addr) ? n - 2 : 0] = '\0';
	} else {
		if (n >= sizeof(addr))
			return -EINVAL;
		memcpy(addr, s, n);
		addr[n] = '\0';
	}
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno || *end || port < 0 || port > 65535 || end == colon + 1)
		return -EINVAL;
	if (uv_ip4_addr(addr, (int)port, (struct sockaddr_in *)ss) == 0) {
		*loopback = strncmp(addr, "127.", 4) == 0;
		snprintf(host, hostsz, "%s", addr);
	} else if (uv_ip6_addr(addr, (int)port, (struct sockaddr_in6 *)ss) ==
		   0) {
		*loopback = strcmp(addr, "::1") == 0;
		snprintf(host, hostsz, "[%s]", addr);
	} else {
		return -EINVAL;
	}
	return 0;
}

static int load_tls(struct http_server *h, struct error *err)
{
	const struct config *cfg = h->env->cfg;

	if (!cfg->http_tls_cert && !cfg->http_tls_key)
		return 0;
	if (!cfg->http_tls_cert || !cfg->http_tls_key)
		return error_set(err, -EINVAL,
				 "[http] tls_cert and tls_key go together");
	h->ssl = SSL_CTX_new(TLS_server_method());
	if (!h->ssl || !SSL_CTX_set_min_proto_version(h->ssl, TLS1_2_VERSION) ||
	    SSL_CTX_use_certificate_chain_file(h->ssl, cfg->http_tls_cert) !=
		    1 ||
	    SSL_CTX_use_PrivateKey_file(h->ssl, cfg->http_tls_key,
					SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(h->ssl) != 1)
		return error_set(err, -EINVAL,
				 "[http] tls_cert %s and tls_key %s do not "
				 "load as a certificate chain and its key "
				 "(PEM)",
				 cfg->http_tls_cert, cfg->http_tls_key);
	h2o_ssl_register_alpn_protocols(h->ssl, h2o_alpn_protocols);
	return 0;
}

/* The host names requests may carry (DNS rebinding): the address served,
 * the loopback names, and [http] allowed_hosts ("*": any). */
static int allowed_hosts(struct http_server *h, const char *self)
{
	const char *extra = h->env->cfg->http_allowed_hosts;
	size_t n = strlen(self) + 64 + (extra ? strlen(extra) : 0);
	char *all = malloc(n);

	if (!all)
		return -ENOMEM;
	snprintf(all, n, "%s,localhost,127.0.0.1,[::1]%s%s", self,
		 extra ? "," : "", extra ? extra : "");
	h->hosts = split_list(all);
	free(all);
	h->any_host = extra && in_list(h->hosts, "*", 1);
	h->origins = split_list(h->env->cfg->http_allowed_origins);
	h->any_origin = in_list(h->origins, "*", 1);
	return h->hosts && h->origins ? 0 : -ENOMEM;
}

/* [http] tokens_file: the tenants, with the quotas each gets unless its
 * line says otherwise. */
static int load_tenants(struct http_server *h, struct error *err)
{
	const struct config *cfg = h->env->cfg;
	struct tenant_quota q = {
		.concurrent = cfg->quota_concurrent,
		.sessions = cfg->quota_sessions,
		.per_minute = cfg->quota_per_minute,
		.artifact_bytes = (uint64_t)cfg->quota_artifact_mb << 20,
		.http_sessions = cfg->quota_http_sessions,
	};
	int rc;

	rc = tenants_load(cfg->http_tokens_file, &q, &h->tenants, err);
	if (rc)
		return rc;
	log_info("%zu tenant(s) from %s", tenants_count(h->tenants),
		 cfg->http_tokens_file);
	return 0;
}

/* Where to listen ([http] listen, into ss; self: its address as a URL
 * has it): refused when it does not parse, or when it reaches beyond
 * loopback with neither tokens nor allow_unauthenticated. */
static int listen_address(const struct config *cfg, struct sockaddr_storage *ss,
			  char *self, size_t selfsz, struct error *err)
{
	int loopback = 0;

	memset(ss, 0, sizeof(*ss));
	if (parse_listen(cfg->http_listen, ss, &loopback, self, selfsz) != 0)
		return error_set(err, -EINVAL,
				 "listen address '%s' is not ADDR:PORT (an "
				 "IP address, [v6] in brackets)",
				 cfg->http_listen ? cfg->http_listen : "");
	if (!loopback && !cfg->http_tokens_file && !cfg->http_allow_no_auth)
		return error_set(err, -EPERM,
				 "%s is reachable from other machines and no "
				 "[http] tokens_file is set: anyone who "
				 "reaches it could run code. Set tokens_file, "
				 "or allow_unauthenticated = yes behind a "
				 "proxy that authenticates",
				 cfg->http_listen);
	return 0;
}

/* What the server needs before it listens: the tools, the host names it
 * answers to, the tenants, TLS. */
static int prepare(struct http_server *h, const char *self, struct error *err)
{
	int rc;

	if (tool_table_new(h->env, &h->tools) || allowed_hosts(h, self))
		return error_set(err, -ENOMEM, "out of memory");
	if (h->env->cfg->http_tokens_file && (rc = load_tenants(h, err)))
		return rc;
	return load_tls(h, err);
}

/* The listening socket on ss (the port the kernel chose when it was 0),
 * and the URL clients use. */
static int listen_on(struct http_server *h, struct sockaddr_storage *ss,
		     const char *self, struct error *err)
{
	int rc, namelen = sizeof(*ss);

	h->listener = malloc(sizeof(*h->listener));
	if (!h->listener)
		return error_set(err, -ENOMEM, "out of memory");
	uv_tcp_init(h->loop, h->listener);
	h->listener->data = h;
	rc = uv_tcp_bind(h->listener, (struct sockaddr *)ss, 0);
	if (!rc)
		rc = uv_listen((uv_stream_t *)h->listener, 128, on_accept);
	if (!rc)
		rc = uv_tcp_getsockname(h->listener, (struct sockaddr *)ss,
					&namelen);
	if (rc) {
		uv_close((uv_handle_t *)h->listener, (uv_close_cb)free);
		h->listener = NULL;
		return error_set(err, rc, "cannot listen on %s: %s",
				 h->env->cfg->http_listen, uv_strerror(rc));
	}
	h->listening = 1;
	snprintf(h->url, sizeof(h->url), "%s://%s:%d%s",
		 h->ssl ? "https" : "http", self,
		 ntohs(ss->ss_family == AF_INET
			       ? ((struct sockaddr_in *)ss)->sin_port
			       : ((struct sockaddr_in6 *)ss)->sin6_port),
		 MCP_PATH);
	return 0;
}

/* The preview listener ([http] preview_listen), and the base of its
 * links. */
static int listen_preview(struct http_server *h, struct error *err)
{
	const char *spec = h->env->cfg->http_preview_listen;
	struct sockaddr_storage ss;
	int loopback = 0, rc, namelen = sizeof(ss);
	char self[80];

	memset(&ss, 0, sizeof(ss));
	if (parse_listen(spec, &ss, &loopback, self, sizeof(self)) != 0)
		return error_set(err, -EINVAL,
				 "[http] preview_listen '%s' is not ADDR:PORT",
				 spec);
	/* Each session's previews are an origin of their own, a name under
	 * .localhost, which only a browser on this machine resolves. */
	if (!loopback)
		return error_set(err, -EINVAL,
				 "[http] preview_listen '%s' is not a loopback "
				 "address: previews are opened on this machine "
				 "(127.0.0.1:PORT; a tunnel brings them "
				 "elsewhere)",
				 spec);
	h->preview_listener = malloc(sizeof(*h->preview_listener));
	if (!h->preview_listener)
		return error_set(err, -ENOMEM, "out of memory");
	uv_tcp_init(h->loop, h->preview_listener);
	h->preview_listener->data = h;
	rc = uv_tcp_bind(h->preview_listener, (struct sockaddr *)&ss, 0);
	if (!rc)
		rc = uv_listen((uv_stream_t *)h->preview_listener, 128,
			       on_accept);
	if (!rc)
		rc = uv_tcp_getsockname(h->preview_listener,
					(struct sockaddr *)&ss, &namelen);
	if (rc) {
		uv_close((uv_handle_t *)h->preview_listener, (uv_close_cb)free);
		h->preview_listener = NULL;
		return error_set(err, rc, "cannot listen on %s: %s", spec,
				 uv_strerror(rc));
	}
	h->preview_port =
		ntohs(ss.ss_family == AF_INET
			      ? ((struct sockaddr_in *)&ss)->sin_port
			      : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return 0;
}

unsigned http_server_preview_port(const struct http_server *h)
{
	return h->preview_port;
}

/* h2o on the loop: its limits, /mcp and /artifacts, the context that
 * accepts connections. */
static void configure_h2o(struct http_server *h)
{
	const struct config *cfg = h->env->cfg;
	h2o_hostconf_t *host;
	h2o_pathconf_t *path;
	struct mcp_handler *hd;

	h2o_config_init(&h->conf);
	h->conf_init = 1;
	h->conf.server_name = h2o_iovec_init(H2O_STRLIT("mcp-sandbox"));
	h->conf.max_request_entity_size = cfg->max_message_bytes;
	h->conf.http1.req_timeout = cfg->http_request_timeout_ms;
	h->conf.http2.idle_timeout = cfg->http_request_timeout_ms;
	h->conf.handshake_timeout = cfg->http_request_timeout_ms;
	host = h2o_config_register_host(
		&h->conf, h2o_iovec_init(H2O_STRLIT("default")), 65535);
	path = h2o_config_register_path(host, MCP_PATH, 0);
	hd = (struct mcp_handler *)h2o_create_handler(path, sizeof(*hd));
	hd->super.on_req = on_mcp;
	hd->h = h;
	path = h2o_config_register_path(host, ARTIFACTS_PATH, 0);
	hd = (struct mcp_handler *)h2o_create_handler(path, sizeof(*hd));
	hd->super.on_req = on_artifact;
	hd->h = h;
	if (h->preview_listener) {
		/* The preview listener's connections find /preview alone. */
		h2o_config_init(&h->preview_conf);
		h->preview_conf_init = 1;
		host = h2o_config_register_host(
			&h->preview_conf, h2o_iovec_init(H2O_STRLIT("default")),
			65535);
		path = h2o_config_register_path(host, PREVIEW_PATH, 0);
		hd = (struct mcp_handler *)h2o_create_handler(path,
							      sizeof(*hd));
		hd->super.on_req = on_preview;
		hd->h = h;
	}
	h2o_context_init(&h->ctx, h->loop, &h->conf);
	h->ctx_init = 1;
	h->accept.ctx = &h->ctx;
	h->accept.hosts = h->conf.hosts;
	h->accept.ssl_ctx = h->ssl;
	h->preview_accept = h->accept;
	h->preview_accept.ssl_ctx = NULL; /* the loopback's plain HTTP */
	if (h->preview_conf_init)
		h->preview_accept.hosts = h->preview_conf.hosts;
}

/* The tick: heartbeats on event streams, stalled writers, idle
 * sessions. */
static void start_tick(struct http_server *h)
{
	uint64_t every = h->env->cfg->http_heartbeat_ms < TICK_MS
				 ? h->env->cfg->http_heartbeat_ms / 2
				 : TICK_MS;

	uv_timer_init(h->loop, &h->tick);
	h->tick.data = h;
	h->ticking = 1;
	uv_timer_start(&h->tick, tick_cb, every, every);
}

/* The sessions' re-adoption is over: the calls that waited for it run,
 * connection by connection (a session's, or a stateless request's own). */
static void adopted_cb(void *arg)
{
	struct http_server *h = arg;
	struct exchange *ex, *exnext;
	struct hsession *s, *snext;

	for (s = h->sessions; s; s = snext) {
		snext = s->next;
		mcp_server_adopted(s->peer);
	}
	for (ex = h->exchanges; ex; ex = exnext) {
		exnext = ex->next;
		if (!ex->sess && ex->peer)
			mcp_server_adopted(ex->peer);
	}
}

int http_server_start(const struct tool_env *env, struct http_server **out,
		      struct error *err)
{
	struct sockaddr_storage ss;
	struct http_server *h;
	char self[80];
	int rc;

	*out = NULL;
	rc = listen_address(env->cfg, &ss, self, sizeof(self), err);
	if (rc)
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h)
		return error_set(err, -ENOMEM, "out of memory");
	h->env = env;
	h->loop = env->loop;
	rc = prepare(h, self, err);
	if (!rc)
		rc = listen_on(h, &ss, self, err);
	if (!rc && env->cfg->http_preview_listen)
		rc = listen_preview(h, err);
	if (rc) {
		http_server_free(h);
		return rc;
	}
	configure_h2o(h);
	start_tick(h);
	if (env->sessions)
		session_mgr_on_adopted(env->sessions, adopted_cb, h);
	*out = h;
	return 0;
}

static void reload_work(uv_work_t *w)
{
	struct http_server *h = w->data;

	h->reload_rc = tenants_read(h->tenants, &h->fresh, &h->reload_err);
}

static void reload_done(uv_work_t *w, int status)
{
	struct http_server *h = w->data;

	h->reloading = 0;
	if (status == 0 && h->reload_rc == 0) {
		tenants_apply(h->tenants, h->fresh);
		log_info("tokens reloaded: %zu tenant(s)",
			 tenants_count(h->tenants));
	} else {
		log_error("tokens not reloaded, the tenants stay as they "
			  "were: %s",
			  status ? uv_strerror(status) : h->reload_err.msg);
	}
	h->fresh = NULL;
}

void http_server_reload(struct http_server *h)
{
	if (!h->tenants || h->reloading || h->stopping)
		return;
	h->reload.data = h;
	if (uv_queue_work(h->loop, &h->reload, reload_work, reload_done) == 0)
		h->reloading = 1;
}

const char *http_server_url(const struct http_server *h)
{
	return h->url;
}

void http_server_stop_accepting(struct http_server *h)
{
	if (!h || h->stopping)
		return;
	h->stopping = 1;
	if (h->listening) {
		h->listening = 0;
		uv_close((uv_handle_t *)h->listener, (uv_close_cb)free);
		h->listener = NULL;
	}
	if (h->preview_listener) {
		uv_close((uv_handle_t *)h->preview_listener, (uv_close_cb)free);
		h->preview_listener = NULL;
	}
}

static int quiescent(struct http_server *h)
{
	h2o_context_t *c = &h->ctx;

	/* Every exchange gone too: none has a call that could still end
	 * into it (or an artifact read on the thread pool). */
	return h2o_linklist_is_empty(&c->http1._conns) &&
	       h2o_linklist_is_empty(&c->http2._conns) && !h->connections &&
	       !h->reloading && !h->exchanges;
}

static void drain_cb(uv_timer_t *t)
{
	struct http_server *h = t->data;

	if (!quiescent(h) &&
	    uv_now(h->loop) - h->drain_since < 2 * (uint64_t)TICK_MS)
		return;
	if (quiescent(h)) {
		/* Nothing is open: h2o's own timers may go, and its
		 * context with them (http_server_free). */
		h2o_timeout_unlink(&h->ctx.http2._graceful_shutdown_timeout);
		h->drained = 1;
	} else {
		log_warn("%u HTTP connection(s) still open at exit",
			 h->connections);
	}
	uv_timer_stop(t);
	uv_close((uv_handle_t *)t, NULL);
	h->ticking = 0;
	if (h->closed)
		h->closed(h->closed_arg);
}

void http_server_close(struct http_server *h, void (*done)(void *arg),
		       void *arg)
{
	struct exchange *ex;
	struct hsession *s;

	http_server_stop_accepting(h);
	h->closed = done;
	h->closed_arg = arg;
	if (!h->ctx_init) {
		if (h->ticking) {
			uv_close((uv_handle_t *)&h->tick, NULL);
			h->ticking = 0;
		}
		if (done && defer_call(h->loop, done, arg) != 0)
			done(arg);
		return;
	}
	h2o_context_request_shutdown(&h->ctx);
	for (s = h->sessions; s; s = s->next)
		session_retire(s);
	/* Whatever was not answered by now will not be. */
	for (ex = h->exchanges; ex; ex = ex->next) {
		if (ex->preview) /* answered 503 by its callback, now */
			session_proc_cancel(ex->preview);
		if (ex->answered || !ex->req)
			continue;
		ex->req->http1_is_persistent = 0;
		if (ex->call_open && ex->peer)
			mcp_server_drop_exchange(ex->peer, ex);
		if (ex->answered || !ex->req)
			continue;
		if (ex->sse) {
			ex->answered = 1;
			ex->want_final = 1;
			sse_flush(ex);
		} else {
			refuse(ex, 503, JSONRPC_INVALID_REQUEST,
			       "the server is shutting down");
		}
	}
	/* Idle keep-alive connections, half-read requests and handshakes
	 * close now rather than at their timeouts. */
	h2o_timeout_run(h->loop, &h->ctx.handshake_timeout, UINT64_MAX);
	h2o_timeout_run(h->loop, &h->ctx.http1.req_timeout, UINT64_MAX);
	h2o_timeout_run(h->loop, &h->ctx.http2.idle_timeout, UINT64_MAX);
	h->drain_since = uv_now(h->loop);
	if (!h->ticking) {
		uv_timer_init(h->loop, &h->tick);
		h->tick.data = h;
		h->ticking = 1;
	}
	uv_timer_start(&h->tick, drain_cb, DRAIN_POLL_MS, DRAIN_POLL_MS);
}

void http_server_free(struct http_server *h)
{
	struct exchange *ex, *next;
	struct hsession *s, *snext;

	if (!h)
		return;
	if (h->env->sessions)
		session_mgr_on_adopted(h->env->sessions, NULL, NULL);
	/* Not drained (the shutdown deadline came first): h2o's timers are
	 * still on the loop and calls may still end into an exchange, so
	 * nothing of it is freed; the process is exiting. */
	if (h->ctx_init && !h->drained) {
		log_warn("the HTTP server did not drain: its memory is left to "
			 "the exit");
		return;
	}
	for (s = h->sessions; s; s = snext) {
		snext = s->next;
		mcp_server_free(s->peer);
		free(s);
	}
	h->sessions = NULL;
	for (ex = h->exchanges; ex; ex = next) {
		next = ex->next;
		if (!ex->sess)
			mcp_server_free(ex->peer);
		free(ex->pending);
		free(ex->inflight);
		free(ex);
	}
	/* h2o asserts that nothing is open any more: a server that could
	 * not drain in time leaves it to the process's exit. */
	if (h->ctx_init && h->drained)
		h2o_context_dispose(&h->ctx);
	if (h->conf_init)
		h2o_config_dispose(&h->conf);
	if (h->preview_conf_init)
		h2o_config_dispose(&h->preview_conf);
	if (h->ssl)
		SSL_CTX_free(h->ssl);
	tool_table_free(h->tools);
	tenants_free(h->tenants);
	free(h->hosts);
	free(h->origins);
	free(h);
}
