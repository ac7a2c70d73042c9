/*
 * agent_client.c - agent protocol client over a Docker attach stream.
 */
#include "agent_client.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "error.h"
#include "util/log.h"

#define LOG_MODULE "agent"
/* The agent binary in every image (their ENTRYPOINT). */
#define AGENT_PATH "/opt/sbx/agent"

/* How long past a file operation's own timeout the host waits for the
 * agent's answer. */
#define FILE_DEADLINE_GRACE_MS 5000

enum pending_kind {
	PENDING_NONE,
	PENDING_HELLO,
	PENDING_EXEC,
	PENDING_RESET,
	PENDING_FILE,
	PENDING_PRESTART,
};

struct agent_client {
	struct docker_stream *stream;
	struct ap_reader reader;
	struct ap_buf out;
	char id[16]; /* short container id, for logs */
	agent_open_cb open_cb;
	agent_lost_cb lost_cb;
	agent_attached_cb attached_cb; /* agent_client_open_created() */
	void *arg;
	enum pending_kind pending;
	uint32_t pending_id;
	uint32_t next_id;
	agent_exec_cb exec_cb;
	agent_reset_cb reset_cb;
	agent_file_cb file_cb;
	agent_output_cb output_cb; /* of the pending exec, or NULL */
	void *req_arg;		   /* arg of the pending exec/reset */
	char errline[512];	   /* partial agent stderr line */
	size_t errline_len;
	/* A file operation that outlives its own timeout by this margin
	 * means the agent is wedged: the connection goes. */
	uv_timer_t deadline; /* embedded: the struct is freed in its close */
	int closing;
	int opened;
	uint32_t version; /* the agent's protocol, from AP_HELLO_OK */
	int broken;	  /* protocol violation: stream closing */
	/* A file operation beside the pending exec (agent_client_file_beside),
	 * timed by `deadline` (an exec's own watchdog is its caller's). */
	int beside;
	uint32_t beside_id;
	agent_file_cb beside_cb;
	void *beside_arg;
	/* AP_SPAWN, AP_PROC and AP_EXCHANGE requests, answered in any
	 * order beside everything else (agent/bg.h, agent/loopback.h);
	 * forgotten ones (no callback) have their answer dropped. */
	struct proc_req *procs;
};

struct proc_req {
	uint32_t id;
	int exchange;	       /* AP_EXCHANGE, not AP_SPAWN or AP_PROC */
	agent_proc_cb cb;      /* AP_SPAWN, AP_PROC */
	agent_exchange_cb xcb; /* AP_EXCHANGE */
	void *arg;
	struct proc_req *next;
};

/* r (unlinked) ends with e, no reply, and is freed. */
static void proc_failed(struct agent_client *ac, struct proc_req *r,
			const struct error *e)
{
	if (r->cb)
		r->cb(ac, e, NULL, r->arg);
	if (r->xcb)
		r->xcb(ac, e, NULL, r->arg);
	free(r);
}

/* Every process request fails with err (the connection's). */
static void fail_procs(struct agent_client *ac, int err, const char *msg)
{
	struct proc_req *r;
	struct error e;

	error_set_msg(&e, err, msg);
	while ((r = ac->procs)) {
		ac->procs = r->next;
		proc_failed(ac, r, &e);
	}
}

/* The file operation beside an exec fails with err (the connection's). */
static void fail_beside(struct agent_client *ac, int err, const char *msg)
{
	struct error e;

	if (!ac->beside)
		return;
	ac->beside = 0;
	uv_timer_stop(&ac->deadline);
	error_set_msg(&e, err, msg);
	ac->beside_cb(ac, &e, NULL, ac->beside_arg);
}

static void fail_pending(struct agent_client *ac, int err, const char *msg)
{
	enum pending_kind k = ac->pending;
	struct error e;

	ac->pending = PENDING_NONE;
	uv_timer_stop(&ac->deadline);
	error_set_msg(&e, err, msg);
	switch (k) {
	case PENDING_HELLO:
		ac->open_cb(ac, &e, ac->arg);
		break;
	case PENDING_EXEC:
		ac->exec_cb(ac, &e, NULL, ac->req_arg);
		break;
	case PENDING_RESET:
	case PENDING_PRESTART:
		ac->reset_cb(ac, &e, ac->req_arg);
		break;
	case PENDING_FILE:
		ac->file_cb(ac, &e, NULL, ac->req_arg);
		break;
	case PENDING_NONE:
		break;
	}
}

static int send_frame(struct agent_client *ac)
{
	int rc;

	if (!ac->stream)
		return -EPIPE;
	rc = docker_stream_write(ac->stream, ac->out.data, ac->out.len);
	ac->out.len = 0;
	ac->out.frame_start = 0;
	return rc;
}

/* A reply that does not decode is logged with the decoder's reason. */
static void log_bad_frame(struct agent_client *ac, const struct ap_frame *f,
			  const char *reason)
{
	log_error("%s: malformed frame type 0x%02x id %u: %s", ac->id, f->type,
		  f->id, reason);
}

static void on_exec_done(struct agent_client *ac, const struct ap_frame *f)
{
	struct agent_exec_result r;
	struct ap_exec_done m;
	struct error why;

	if (ap_exec_done_decode(f, &m, &why)) {
		log_bad_frame(ac, f, why.msg);
		fail_pending(ac, -EPROTO, "malformed reply from the agent");
		return;
	}
	ac->pending = PENDING_NONE;
	r = (struct agent_exec_result){
		.exited = m.has_exit_code,
		.exit_code = (int)m.exit_code,
		.signal = (int)m.signal,
		.timed_out = m.timed_out,
		.cancelled = m.cancelled,
		.duration_ms = m.duration_ms,
		.out = m.out ? (const char *)m.out : "",
		.out_len = m.out_len,
		.err = m.err ? (const char *)m.err : "",
		.err_len = m.err_len,
		.out_truncated = m.out_truncated,
		.err_truncated = m.err_truncated,
		.phase = "run",
		.survivors = m.survivors,
		.oom_killed = m.oom_killed,
		.limits = m.limits,
		.state_kept = m.state_kept,
		.fresh = m.fresh,
		.artifacts = m.entries,
		.artifacts_len = m.entries_len,
		.artifacts_more = m.more,
		.prestarted = m.prestarted,
	};
	/* A phase that does not fit is not one this host knows. */
	if (m.phase && m.phase_len < sizeof(r.phase)) {
		memcpy(r.phase, m.phase, m.phase_len);
		r.phase[m.phase_len] = '\0';
	}
	ac->exec_cb(ac, NULL, &r, ac->req_arg);
}

static void copy_message(const char *s, size_t len, char *buf, size_t size)
{
	size_t n = len < size - 1 ? len : size - 1;

	if (n)
		memcpy(buf, s, n);
	buf[n] = '\0';
}

/* The only frames the agent may send: the reply to what is pending. */
static int reply_expected(const struct agent_client *ac, uint8_t type)
{
	switch (ac->pending) {
	case PENDING_HELLO:
		return type == AP_HELLO_OK || type == AP_ERROR;
	case PENDING_EXEC:
		return type == AP_EXEC_DONE || type == AP_ERROR ||
		       (type == AP_OUTPUT && ac->output_cb);
	case PENDING_RESET:
		return type == AP_RESET_DONE || type == AP_ERROR;
	case PENDING_PRESTART:
		return type == AP_PRESTART_DONE || type == AP_ERROR;
	case PENDING_FILE:
		return type == AP_FILE_DONE || type == AP_ERROR;
	case PENDING_NONE:
		return 0;
	}
	return 0;
}

/* The agent runs in a container that user code shares: anything off
 * protocol ends the connection, and the owner discards the container. */
static void protocol_violation(struct agent_client *ac, const char *what)
{
	log_error("%s: %s: closing the connection", ac->id, what);
	ac->broken = 1;
	fail_pending(ac, -EPROTO, "the sandbox agent broke the protocol");
	if (ac->stream)
		docker_stream_close(ac->stream);
}

/* The agent's status of a file operation as a host error code. */
static int file_error_code(uint32_t status)
{
	static const int codes[] = {
		[AP_FS_NOT_FOUND] = ERR_NOT_FOUND,
		[AP_FS_EXISTS] = ERR_FILE_EXISTS,
		[AP_FS_INVALID_PATH] = ERR_INVALID_PATH,
		[AP_FS_TOO_LARGE] = ERR_TOO_LARGE,
		[AP_FS_NOT_A_FILE] = ERR_NOT_A_FILE,
		[AP_FS_NOT_A_DIR] = ERR_NOT_A_DIRECTORY,
		[AP_FS_NOT_EMPTY] = ERR_DIRECTORY_NOT_EMPTY,
		[AP_FS_DENIED] = ERR_PERMISSION_DENIED,
		[AP_FS_NO_SPACE] = ERR_NO_SPACE,
		[AP_FS_IO] = ERR_SANDBOX,
		[AP_FS_TIMEOUT] = ERR_SANDBOX_TIMEOUT,
		[AP_FS_RANGE] = ERR_INVALID_ARGUMENTS,
	};

	if (status == AP_FS_OK || status > AP_FS_LAST)
		return ERR_SANDBOX;
	return codes[status];
}

/* A file operation's answer to cb: the pending one, or the one beside
 * the pending exec (beside). */
static void on_file_done(struct agent_client *ac, const struct ap_frame *f,
			 int beside)
{
	agent_file_cb cb = beside ? ac->beside_cb : ac->file_cb;
	void *arg = beside ? ac->beside_arg : ac->req_arg;
	struct ap_file_done m;
	struct error e;
	char msg[sizeof(e.msg)];

	if (ap_file_done_decode(f, &m, &e)) {
		log_bad_frame(ac, f, e.msg);
		protocol_violation(ac, "malformed reply");
		return;
	}
	if (beside)
		ac->beside = 0;
	else
		ac->pending = PENDING_NONE;
	uv_timer_stop(&ac->deadline);
	if (m.status == AP_FS_OK) {
		cb(ac, NULL, &m, arg);
		return;
	}
	copy_message(m.message, m.message_len, msg, sizeof(msg));
	error_set_msg(&e, file_error_code(m.status), msg[0] ? msg : NULL);
	cb(ac, &e, NULL, arg);
}

/* The answer to the file operation beside the pending exec. */
static void on_beside(struct agent_client *ac, const struct ap_frame *f)
{
	struct ap_error error;
	struct error why;
	char msg[512];

	if (f->type == AP_FILE_DONE) {
		on_file_done(ac, f, 1);
		return;
	}
	if (ap_error_decode(f, &error, &why)) {
		log_bad_frame(ac, f, why.msg);
		protocol_violation(ac, "malformed reply");
		return;
	}
	copy_message(error.message, error.message_len, msg, sizeof(msg));
	ac->beside = 0;
	uv_timer_stop(&ac->deadline);
	error_set_msg(&why, -EPROTO, msg[0] ? msg : "agent error");
	ac->beside_cb(ac, &why, NULL, ac->beside_arg);
}

/* The agent's status of a process request as a host error code. */
static int proc_error_code(uint32_t status)
{
	static const int codes[] = {
		[AP_PS_NOT_FOUND] = ERR_PROCESS_NOT_FOUND,
		[AP_PS_LIMIT] = ERR_MAX_PROCESSES,
		[AP_PS_INVALID] = ERR_INVALID_ARGUMENTS,
		[AP_PS_NOT_KEPT] = ERR_SANDBOX,
		[AP_PS_FAILED] = ERR_SANDBOX,
		[AP_PS_BUSY] = ERR_SERVER_BUSY,
	};

	if (status == AP_PS_OK || status > AP_PS_LAST)
		return ERR_SANDBOX;
	return codes[status];
}

/* An AP_EXCHANGE_DONE for r (unlinked; settled and freed here): ok and
 * timeout carry the bytes; the others are errors. -EPROTO: it does not
 * decode (r is settled with that). */
static int on_exchange(struct agent_client *ac, const struct ap_frame *f,
		       struct proc_req *r)
{
	struct ap_exchange_done m;
	struct error e;
	char msg[512];
	int bytes;

	if (ap_exchange_done_decode(f, &m, &e))
		return -EPROTO;
	copy_message(m.message, m.message_len, msg, sizeof(msg));
	bytes = m.status == AP_XS_OK || m.status == AP_XS_TIMEOUT;
	if (m.status == AP_XS_REFUSED)
		error_set_msg(&e, ERR_PORT_CLOSED, msg[0] ? msg : NULL);
	else if (m.status == AP_XS_BUSY)
		error_set_msg(&e, ERR_SERVER_BUSY, msg[0] ? msg : NULL);
	else if (!bytes)
		error_set_msg(&e, ERR_SANDBOX, msg[0] ? msg : NULL);
	if (!bytes) {
		proc_failed(ac, r, &e);
		return 0;
	}
	if (r->xcb)
		r->xcb(ac, NULL, &m, r->arg);
	free(r);
	return 0;
}

/* An AP_PROC_DONE for r, like on_exchange(). */
static int on_proc_done(struct agent_client *ac, const struct ap_frame *f,
			struct proc_req *r)
{
	struct ap_proc_done m;
	struct error e;
	char msg[512];

	if (ap_proc_done_decode(f, &m, &e))
		return -EPROTO;
	if (m.status != AP_PS_OK) {
		copy_message(m.message, m.message_len, msg, sizeof(msg));
		error_set_msg(&e, proc_error_code(m.status),
			      msg[0] ? msg : NULL);
		proc_failed(ac, r, &e);
		return 0;
	}
	if (r->cb)
		r->cb(ac, NULL, &m, r->arg);
	free(r);
	return 0;
}

/* 1 if f answers a process request or an exchange (settled here), or is
 * the late answer to one given up on (dropped); 0 if it is not one's.
 * The agent answers each with its own type or AP_ERROR; anything else
 * breaks the protocol, and the request still gets its callback. */
static int on_proc(struct agent_client *ac, const struct ap_frame *f)
{
	struct proc_req **pp, *r;
	struct ap_error error;
	struct error e;
	char msg[512];
	int rc;

	for (pp = &ac->procs; *pp && (*pp)->id != f->id; pp = &(*pp)->next)
		;
	if (!(r = *pp))
		return f->type != AP_ERROR && f->id && f->id < ac->next_id;
	*pp = r->next;
	if (f->type == AP_ERROR) {
		rc = ap_error_decode(f, &error, &e);
		if (!rc) {
			copy_message(error.message, error.message_len, msg,
				     sizeof(msg));
			error_set_msg(&e, -EPROTO,
				      msg[0] ? msg : "agent error");
			proc_failed(ac, r, &e);
			return 1;
		}
	} else if (f->type == (r->exchange ? AP_EXCHANGE_DONE : AP_PROC_DONE)) {
		rc = r->exchange ? on_exchange(ac, f, r)
				 : on_proc_done(ac, f, r);
		if (!rc)
			return 1;
	}
	error_set_msg(&e, -EPROTO, "the sandbox agent broke the protocol");
	proc_failed(ac, r, &e);
	log_bad_frame(ac, f, "an answer that does not fit its request");
	protocol_violation(ac, "malformed reply");
	return 1;
}

static void on_frame(struct agent_client *ac, const struct ap_frame *f)
{
	char msg[512];
	struct ap_hello_ok hello;
	struct ap_output output;
	struct ap_reset_done reset;
	struct ap_error error;
	struct error why;

	if (ac->beside && f->id == ac->beside_id &&
	    (f->type == AP_FILE_DONE || f->type == AP_ERROR)) {
		on_beside(ac, f);
		return;
	}
	if ((f->type == AP_PROC_DONE || f->type == AP_EXCHANGE_DONE ||
	     f->type == AP_ERROR) &&
	    on_proc(ac, f))
		return;
	if (f->id != ac->pending_id || !reply_expected(ac, f->type)) {
		snprintf(msg, sizeof(msg), "unexpected frame type 0x%02x id %u",
			 f->type, f->id);
		protocol_violation(ac, msg);
		return;
	}
	switch (f->type) {
	case AP_HELLO_OK:
		if (ap_hello_ok_decode(f, &hello, &why))
			break;
		ac->pending = PENDING_NONE;
		ac->opened = 1;
		ac->version = hello.version;
		ac->open_cb(ac, NULL, ac->arg);
		return;
	case AP_EXEC_DONE:
		on_exec_done(ac, f);
		return;
	case AP_OUTPUT:
		if (ap_output_decode(f, &output, &why))
			break;
		ac->output_cb(output.out ? (const char *)output.out : "",
			      output.out_len,
			      output.err ? (const char *)output.err : "",
			      output.err_len, ac->req_arg);
		return;
	case AP_FILE_DONE:
		on_file_done(ac, f, 0);
		return;
	case AP_RESET_DONE:
	case AP_PRESTART_DONE: /* the same fields, the same callback */
		if ((f->type == AP_RESET_DONE
			     ? ap_reset_done_decode(f, &reset, &why)
			     : ap_prestart_done_decode(f, &reset, &why)) != 0)
			break;
		copy_message(reset.message, reset.message_len, msg,
			     sizeof(msg));
		ac->pending = PENDING_NONE;
		if (reset.ok) {
			ac->reset_cb(ac, NULL, ac->req_arg);
		} else {
			struct error e;

			error_set(&e, ERR_SANDBOX, "%s", msg);
			ac->reset_cb(ac, &e, ac->req_arg);
		}
		return;
	case AP_ERROR:
		if (ap_error_decode(f, &error, &why))
			break;
		copy_message(error.message, error.message_len, msg,
			     sizeof(msg));
		fail_pending(ac, -EPROTO, msg[0] ? msg : "agent error");
		return;
	default:
		return; /* excluded by reply_expected() */
	}
	/* Only a broken or forged agent sends a frame that does not
	 * decode. */
	log_bad_frame(ac, f, why.msg);
	protocol_violation(ac, "malformed reply");
}

static void log_agent_stderr(struct agent_client *ac, const char *buf,
			     size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n' ||
		    ac->errline_len == sizeof(ac->errline) - 1) {
			ac->errline[ac->errline_len] = '\0';
			log_debug("%s: %s", ac->id, ac->errline);
			ac->errline_len = 0;
			if (buf[i] == '\n')
				continue;
		}
		ac->errline[ac->errline_len++] = buf[i];
	}
}

static void stream_data_cb(struct docker_stream *s, int fd, const char *buf,
			   size_t len, void *arg)
{
	struct agent_client *ac = arg;
	struct ap_frame f;
	int rc = 0;

	(void)s;
	if (fd == 2) {
		log_agent_stderr(ac, buf, len);
		return;
	}
	if (ac->broken)
		return;
	if (ap_reader_feed(&ac->reader, buf, len)) {
		protocol_violation(ac, "agent output over the frame limit");
		return;
	}
	while (!ac->closing && !ac->broken &&
	       (rc = ap_reader_next(&ac->reader, &f)) == 1)
		on_frame(ac, &f);
	if (rc < 0)
		protocol_violation(ac, "corrupt agent stream");
}

static void stream_open_cb(struct docker_stream *s, int err, const char *errmsg,
			   void *arg)
{
	struct agent_client *ac = arg;
	int rc;

	(void)s;
	if (err) {
		/* on_close follows and reports through fail_pending. */
		snprintf(ac->errline, sizeof(ac->errline), "attach failed: %s",
			 errmsg ? errmsg : "?");
		return;
	}
	ac->pending = PENDING_HELLO;
	ac->pending_id = ac->next_id++;
	rc = ap_hello_encode(&ac->out, ac->pending_id);
	if (!rc)
		rc = send_frame(ac);
	if (rc) {
		docker_stream_close(ac->stream);
		return;
	}
	/* Last: the caller may start the container, or close us. HELLO
	 * waits in the engine until the agent reads its stdin. */
	if (ac->attached_cb)
		ac->attached_cb(ac, ac->arg);
}

static void client_closed_cb(uv_handle_t *h)
{
	free(h->data);
}

static void stream_close_cb(struct docker_stream *s, int err, void *arg)
{
	struct agent_client *ac = arg;

	(void)s;
	ac->stream = NULL;
	if (ac->pending == PENDING_HELLO)
		fail_pending(ac, err ? err : -EPIPE,
			     ac->errline[0] ? ac->errline
					    : "the agent did not answer");
	else
		fail_pending(ac, ac->closing ? -ECANCELED : -EPIPE,
			     ac->closing
				     ? "cancelled"
				     : "connection to the container was lost");
	fail_procs(ac, ac->closing ? -ECANCELED : -EPIPE,
		   ac->closing ? "cancelled" : "the sandbox connection closed");
	fail_beside(ac, ac->closing ? -ECANCELED : -EPIPE,
		    ac->closing ? "cancelled"
				: "connection to the container was lost");
	/* Decided after fail_pending: its callback may have closed us. */
	if (ac->opened && !ac->closing && ac->lost_cb)
		ac->lost_cb(ac, ac->arg);
	ap_reader_close(&ac->reader);
	ap_buf_close(&ac->out);
	uv_close((uv_handle_t *)&ac->deadline, client_closed_cb);
}

static int client_open(struct docker *d, const char *container_id, int relay,
		       agent_open_cb open_cb, agent_lost_cb lost_cb, void *arg,
		       struct agent_client **out)
{
	static const char *const relay_argv[] = {AGENT_PATH, "relay", NULL};
	static const struct docker_stream_cbs cbs = {
		.on_open = stream_open_cb,
		.on_data = stream_data_cb,
		.on_close = stream_close_cb,
	};
	struct agent_client *ac = calloc(1, sizeof(*ac));
	int rc;

	if (!ac)
		return -ENOMEM;
	ap_reader_init(&ac->reader);
	ap_buf_init(&ac->out);
	snprintf(ac->id, sizeof(ac->id), "%.12s", container_id);
	ac->open_cb = open_cb;
	ac->lost_cb = lost_cb;
	ac->arg = arg;
	ac->next_id = 1;
	/* HELLO is pending from now on so that a failed attach reports
	 * through open_cb. */
	ac->pending = PENDING_HELLO;
	ac->pending_id = 0;
	uv_timer_init(docker_loop(d), &ac->deadline);
	ac->deadline.data = ac;
	if (relay)
		rc = docker_exec_attach(d, container_id, relay_argv, "0", &cbs,
					ac, &ac->stream);
	else
		rc = docker_attach(d, container_id, &cbs, ac, &ac->stream);
	if (rc) {
		uv_close((uv_handle_t *)&ac->deadline, client_closed_cb);
		return rc;
	}
	*out = ac;
	return 0;
}

int agent_client_open(struct docker *d, const char *container_id,
		      agent_open_cb open_cb, agent_lost_cb lost_cb, void *arg,
		      struct agent_client **out)
{
	return client_open(d, container_id, 0, open_cb, lost_cb, arg, out);
}

int agent_client_open_created(struct docker *d, const char *container_id,
			      agent_attached_cb attached_cb,
			      agent_open_cb open_cb, agent_lost_cb lost_cb,
			      void *arg, struct agent_client **out)
{
	int rc = client_open(d, container_id, 0, open_cb, lost_cb, arg, out);

	if (!rc)
		(*out)->attached_cb = attached_cb;
	return rc;
}

int agent_client_reopen(struct docker *d, const char *container_id,
			agent_open_cb open_cb, agent_lost_cb lost_cb, void *arg,
			struct agent_client **out)
{
	return client_open(d, container_id, 1, open_cb, lost_cb, arg, out);
}

void agent_client_set_owner(struct agent_client *ac, agent_lost_cb lost_cb,
			    void *arg)
{
	ac->lost_cb = lost_cb;
	ac->arg = arg;
}

/* One request at a time, on an open stream: its id in *id. */
static int request_open(struct agent_client *ac, uint32_t *id)
{
	if (ac->pending != PENDING_NONE)
		return -EBUSY;
	if (!ac->stream || ac->closing)
		return -EPIPE;
	*id = ac->next_id++;
	return 0;
}

/* Send the frame the encoder (which returned rc) queued; it is pending
 * from now on. */
static int request_send(struct agent_client *ac, int rc, enum pending_kind kind,
			uint32_t id, void *arg)
{
	if (!rc)
		rc = send_frame(ac);
	if (rc)
		return rc;
	ac->pending = kind;
	ac->pending_id = id;
	ac->req_arg = arg;
	return 0;
}

int agent_client_exec(struct agent_client *ac, const struct agent_exec_req *q,
		      agent_exec_cb cb, void *arg)
{
	int repl = q->repl_argv != NULL;
	/* What the host has always sent: FILE_DATA even when empty, the
	 * limits even when 0 (the agent's defaults), and in interpreter mode
	 * neither file name, commands nor stdin. */
	const struct ap_exec m = {
		.file_name = repl ? NULL : q->file_name,
		.file_data = (const unsigned char *)(q->code ? q->code : ""),
		.file_len = q->code_len,
		.build_argv = repl ? NULL : q->build_argv,
		.run_argv = repl ? NULL : q->run_argv,
		.env = q->env,
		.seccomp_deny = q->seccomp_deny,
		.stdin_data =
			repl ? NULL : (const unsigned char *)q->stdin_data,
		.stdin_len = q->stdin_len,
		.repl_argv = q->repl_argv,
		.repl_seq = q->repl_seq,
		.timeout_ms = q->timeout_ms,
		.stdout_cap = q->stdout_cap,
		.stderr_cap = q->stderr_cap,
		.grace_ms = q->grace_ms,
		.stream_ms = q->output_cb ? q->stream_ms : 0,
		.artifacts = q->artifacts,
	};
	uint32_t id;
	int rc = request_open(ac, &id);

	if (rc)
		return rc;
	rc = request_send(ac, ap_exec_encode(&ac->out, id, &m), PENDING_EXEC,
			  id, arg);
	if (rc)
		return rc;
	ac->output_cb = q->stream_ms ? q->output_cb : NULL;
	ac->exec_cb = cb;
	return 0;
}

int agent_client_reset(struct agent_client *ac, agent_reset_cb cb, void *arg)
{
	uint32_t id;
	int rc = request_open(ac, &id);

	if (!rc)
		rc = request_send(ac, ap_reset_encode(&ac->out, id),
				  PENDING_RESET, id, arg);
	if (!rc)
		ac->reset_cb = cb;
	return rc;
}

int agent_client_prestart(struct agent_client *ac,
			  const struct agent_exec_req *q,
			  const char *const *wait_argv,
			  const char *const *wait_env, agent_reset_cb cb,
			  void *arg)
{
	const struct ap_exec m = {
		.file_name = q->file_name,
		.run_argv = q->run_argv,
		.env = q->env,
		.seccomp_deny = q->seccomp_deny,
		.wait_argv = wait_argv,
		.wait_env = wait_env,
	};
	uint32_t id;
	int rc;

	if (ac->version < 2)
		return -ENOTSUP;
	rc = request_open(ac, &id);
	if (!rc)
		rc = request_send(ac, ap_prestart_encode(&ac->out, id, &m),
				  PENDING_PRESTART, id, arg);
	if (!rc)
		ac->reset_cb = cb;
	return rc;
}

static void deadline_cb(uv_timer_t *t)
{
	struct agent_client *ac = t->data;

	if (ac->pending != PENDING_FILE && !ac->beside)
		return;
	log_error("%s: no answer to a file operation in time: closing the "
		  "connection",
		  ac->id);
	ac->broken = 1;
	if (ac->pending == PENDING_FILE)
		fail_pending(ac, -ETIMEDOUT,
			     "the sandbox did not answer in time");
	fail_beside(ac, -ETIMEDOUT, "the sandbox did not answer in time");
	if (ac->stream)
		docker_stream_close(ac->stream);
}

/* The agent's worker is killed at timeout_ms (10 s when 0) and answered
 * for; nothing after that plus a margin means the agent is wedged. */
static void start_file_deadline(struct agent_client *ac,
				const struct ap_file *req)
{
	uv_timer_start(&ac->deadline, deadline_cb,
		       (uint64_t)(req->timeout_ms ? req->timeout_ms
						  : AP_FILE_TIMEOUT_MS) +
			       FILE_DEADLINE_GRACE_MS,
		       0);
}

int agent_client_file(struct agent_client *ac, const struct ap_file *req,
		      agent_file_cb cb, void *arg)
{
	uint32_t id;
	int rc = request_open(ac, &id);

	if (!rc)
		rc = request_send(ac, ap_file_encode(&ac->out, id, req),
				  PENDING_FILE, id, arg);
	if (rc)
		return rc;
	ac->file_cb = cb;
	start_file_deadline(ac, req);
	return 0;
}

int agent_client_beside_ok(const struct agent_client *ac)
{
	return ac->version >= 3 && ac->pending == PENDING_EXEC && !ac->beside &&
	       ac->stream && !ac->closing && !ac->broken;
}

int agent_client_file_beside(struct agent_client *ac, const struct ap_file *req,
			     agent_file_cb cb, void *arg)
{
	uint32_t id;
	int rc;

	if (ac->pending == PENDING_NONE)
		return agent_client_file(ac, req, cb, arg);
	if (!agent_client_beside_ok(ac))
		return -EBUSY;
	id = ac->next_id++;
	rc = ap_file_encode(&ac->out, id, req);
	if (!rc)
		rc = send_frame(ac);
	if (rc)
		return rc;
	ac->beside = 1;
	ac->beside_id = id;
	ac->beside_cb = cb;
	ac->beside_arg = arg;
	start_file_deadline(ac, req);
	return 0;
}

/* Send the process request the encoder (which returned rc) queued as
 * id; cb (or xcb) answers it. */
static int side_send(struct agent_client *ac, int rc, uint32_t id,
		     agent_proc_cb cb, agent_exchange_cb xcb, void *arg)
{
	struct proc_req *r = NULL;

	if (!rc && !(r = calloc(1, sizeof(*r))))
		rc = -ENOMEM;
	if (!rc)
		rc = send_frame(ac);
	if (rc) {
		free(r);
		ac->out.len = ac->out.frame_start = 0;
		return rc;
	}
	*r = (struct proc_req){.id = id,
			       .exchange = xcb != NULL,
			       .cb = cb,
			       .xcb = xcb,
			       .arg = arg};
	r->next = ac->procs;
	ac->procs = r;
	return 0;
}

/* Whether a process request can go now: 0, or why not. */
static int proc_ok(const struct agent_client *ac)
{
	if (!ac->stream || ac->closing || ac->broken)
		return -EPIPE;
	if (ac->version < 4)
		return -ENOTSUP;
	return 0;
}

int agent_client_spawn(struct agent_client *ac, const struct ap_spawn *req,
		       agent_proc_cb cb, void *arg, uint32_t *id)
{
	int rc = proc_ok(ac);

	if (rc)
		return rc;
	*id = ac->next_id++;
	return side_send(ac, ap_spawn_encode(&ac->out, *id, req), *id, cb, NULL,
			 arg);
}

int agent_client_proc(struct agent_client *ac, const struct ap_proc *req,
		      agent_proc_cb cb, void *arg, uint32_t *id)
{
	int rc = proc_ok(ac);

	if (rc)
		return rc;
	*id = ac->next_id++;
	return side_send(ac, ap_proc_encode(&ac->out, *id, req), *id, cb, NULL,
			 arg);
}

int agent_client_exchange(struct agent_client *ac,
			  const struct ap_exchange *req, agent_exchange_cb cb,
			  void *arg, uint32_t *id)
{
	int rc = proc_ok(ac);

	if (rc)
		return rc;
	*id = ac->next_id++;
	return side_send(ac, ap_exchange_encode(&ac->out, *id, req), *id, NULL,
			 cb, arg);
}

void agent_client_proc_forget(struct agent_client *ac, uint32_t id)
{
	struct proc_req **pp, *r;

	for (pp = &ac->procs; *pp && (*pp)->id != id; pp = &(*pp)->next)
		;
	if (!(r = *pp))
		return;
	*pp = r->next;
	free(r);
	/* The agent drops a wait or an exchange of that id unanswered; an
	 * answer already on its way is dropped here (on_proc). */
	if (ac->stream && !ac->closing && ap_cancel_encode(&ac->out, id) == 0)
		send_frame(ac);
}

int agent_client_usable(const struct agent_client *ac)
{
	return ac->stream && !ac->closing && !ac->broken;
}

void agent_client_cancel(struct agent_client *ac)
{
	if (ac->pending != PENDING_EXEC || !ac->stream)
		return;
	if (ap_cancel_encode(&ac->out, ac->pending_id) == 0)
		send_frame(ac);
}

void agent_client_keep(struct agent_client *ac)
{
	if (ac->stream && ap_keep_encode(&ac->out, 0) == 0)
		send_frame(ac);
}

void agent_client_close(struct agent_client *ac)
{
	if (!ac || ac->closing)
		return;
	ac->closing = 1;
	/* Callers may free what the callback's arg points to right after
	 * this returns: settle the pending request (HELLO included) now. */
	fail_pending(ac, -ECANCELED, "cancelled");
	fail_procs(ac, -ECANCELED, "cancelled");
	if (ac->stream)
		docker_stream_close(ac->stream);
}
