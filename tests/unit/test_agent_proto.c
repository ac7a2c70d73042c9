/*
 * test_agent_proto.c - the agent protocol's frames and typed messages
 * (common/agent_proto.h, common/agent_ops.h).
 *
 *   - wire bytes: every encoder's output equals a frame assembled here by
 *     hand from docs/agent-protocol.md, field order included, so images
 *     with an older agent and hosts of an older build keep understanding
 *     the new code;
 *   - round trips: encode -> reader -> decode gives back every field,
 *     empty and largest values and repeated fields included; one byte
 *     over AP_MAX_FRAME fails and leaves the buffer as it was;
 *   - hostile input: every prefix of every valid frame, oversized and
 *     wrong field lengths, duplicates, unknown tags (ignored), NUL bytes in
 *     strings and a few thousand pseudo-random frames reach every decoder
 *     in allocations of exactly their size, so under ASan a read past the
 *     frame fails the test.
 *
 * The hand assembly below is this test's own model of the wire format,
 * deliberately independent of the codec's own field primitives.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "agent_ops.h"
#include "agent_proto.h"
#include "testlib.h"

/* ------------------------------------------------------------------ */
/* Frames by hand                                                      */

struct raw {
	unsigned char *p;
	size_t len, cap, start;
};

static void raw_bytes(struct raw *r, const void *p, size_t n)
{
	if (r->len + n > r->cap) {
		r->cap = (r->len + n) * 2;
		r->p = realloc(r->p, r->cap);
		if (!r->p) {
			fprintf(stderr, "out of memory\n");
			exit(1);
		}
	}
	if (n)
		memcpy(r->p + r->len, p, n);
	r->len += n;
}

static void raw_be32(struct raw *r, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)(v >> 24),
			      (unsigned char)(v >> 16), (unsigned char)(v >> 8),
			      (unsigned char)v};

	raw_bytes(r, b, 4);
}

static void raw_begin(struct raw *r, uint8_t type, uint32_t id)
{
	r->start = r->len;
	raw_be32(r, 0);
	raw_bytes(r, &type, 1);
	raw_be32(r, id);
}

/* A field header announcing len, then n bytes (n != len: a lie). */
static void raw_field_lying(struct raw *r, uint8_t tag, uint32_t len,
			    const void *p, size_t n)
{
	raw_bytes(r, &tag, 1);
	raw_be32(r, len);
	raw_bytes(r, p, n);
}

static void raw_field(struct raw *r, uint8_t tag, const void *p, size_t n)
{
	raw_field_lying(r, tag, (uint32_t)n, p, n);
}

static void raw_str(struct raw *r, uint8_t tag, const char *s)
{
	raw_field(r, tag, s, strlen(s));
}

static void raw_u32(struct raw *r, uint8_t tag, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)(v >> 24),
			      (unsigned char)(v >> 16), (unsigned char)(v >> 8),
			      (unsigned char)v};

	raw_field(r, tag, b, 4);
}

static void raw_u8(struct raw *r, uint8_t tag, uint8_t v)
{
	raw_field(r, tag, &v, 1);
}

static void raw_end(struct raw *r)
{
	uint32_t n = (uint32_t)(r->len - r->start - 4);

	r->p[r->start] = (unsigned char)(n >> 24);
	r->p[r->start + 1] = (unsigned char)(n >> 16);
	r->p[r->start + 2] = (unsigned char)(n >> 8);
	r->p[r->start + 3] = (unsigned char)n;
}

static void raw_free(struct raw *r)
{
	free(r->p);
	memset(r, 0, sizeof(*r));
}

/* The encoder's frame (alone in b) is byte for byte the hand-made one. */
static int same_wire(const struct ap_buf *b, const struct raw *r)
{
	return b->len == r->len && memcmp(b->data, r->p, r->len) == 0;
}

/* ------------------------------------------------------------------ */
/* Decoding a payload held in an allocation of exactly its size        */

static int inside(const struct ap_frame *f, const void *p, size_t n)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)f->payload;

	if (!p)
		return n == 0;
	return a >= lo && a <= lo + f->len && n <= lo + f->len - a;
}

static int vec_ok(const char *const *v)
{
	if (!v)
		return 0;
	for (; *v; v++)
		(void)strlen(*v); /* NUL-terminated, in bounds under ASan */
	return 1;
}

/* The decoder of f->type on f; checks what a success promises. */
static int decode(const struct ap_frame *f, struct error *err)
{
	struct ap_exec x;
	struct ap_hello_ok h;
	struct ap_exec_done d;
	struct ap_output o;
	struct ap_reset_done rd;
	struct ap_error e;
	struct ap_file fi;
	struct ap_file_done fd;
	struct ap_file_entry en;
	struct ap_spawn sp;
	struct ap_proc pr;
	struct ap_proc_done pd;
	struct ap_proc_entry pe;
	struct ap_exchange xq;
	struct ap_exchange_done xd;
	size_t off = 0;
	uint32_t count = 0;
	int rc;

	err->code = 0;
	err->msg[0] = '\0';
	switch (f->type) {
	case AP_SPAWN:
		rc = ap_spawn_decode(f, &sp, err);
		if (rc)
			break;
		CHECK(vec_ok(sp.x.run_argv) && vec_ok(sp.x.env) &&
		      sp.x.run_argv[0] && !sp.x.build_argv[0] &&
		      inside(f, sp.label, sp.label_len) &&
		      sp.label_len <= AP_LABEL_MAX);
		ap_exec_free(&sp.x);
		break;
	case AP_EXCHANGE:
		rc = ap_exchange_decode(f, &xq, err);
		if (!rc)
			CHECK(xq.port >= 1 && xq.port <= 65535 && xq.data &&
			      inside(f, xq.data, xq.data_len));
		break;
	case AP_EXCHANGE_DONE:
		rc = ap_exchange_done_decode(f, &xd, err);
		if (!rc)
			CHECK(inside(f, xd.message, xd.message_len) &&
			      inside(f, xd.data, xd.data_len));
		break;
	case AP_PROC:
		rc = ap_proc_decode(f, &pr, err);
		if (!rc)
			CHECK(pr.op >= AP_POP_LIST && pr.op <= AP_POP_WAIT &&
			      (pr.op == AP_POP_LIST || pr.pid));
		break;
	case AP_PROC_DONE:
		rc = ap_proc_done_decode(f, &pd, err);
		if (rc)
			break;
		CHECK(inside(f, pd.message, pd.message_len) &&
		      inside(f, pd.data, pd.data_len) &&
		      inside(f, pd.entries, pd.entries_len));
		while (ap_proc_entry_next(&pd, &off, &pe)) {
			CHECK(inside(f, pe.label, pe.label_len));
			count++;
		}
		CHECK(count == pd.nentries && off == pd.entries_len);
		break;
	case AP_FILE:
		rc = ap_file_decode(f, &fi, err);
		if (!rc)
			CHECK(inside(f, fi.path, fi.path_len) &&
			      fi.path_len > 0 && fi.path_len <= AP_PATH_MAX &&
			      inside(f, fi.path2, fi.path2_len) &&
			      inside(f, fi.data, fi.data_len) &&
			      inside(f, fi.cursor, fi.cursor_len) &&
			      fi.op >= AP_FOP_WRITE && fi.op <= AP_FOP_MOVE);
		break;
	case AP_FILE_DONE:
		rc = ap_file_done_decode(f, &fd, err);
		if (rc)
			break;
		CHECK(inside(f, fd.message, fd.message_len) &&
		      inside(f, fd.data, fd.data_len) &&
		      inside(f, fd.entries, fd.entries_len) &&
		      inside(f, fd.cursor, fd.cursor_len));
		while (ap_file_entry_next(&fd, &off, &en)) {
			CHECK(inside(f, en.name, en.name_len));
			count++;
		}
		CHECK(count == fd.nentries && off == fd.entries_len);
		break;
	case AP_EXEC:
		rc = ap_exec_decode(f, &x, err);
		if (rc)
			break;
		CHECK(x.mem != NULL);
		CHECK(vec_ok(x.build_argv) && vec_ok(x.run_argv) &&
		      vec_ok(x.env) && vec_ok(x.seccomp_deny) &&
		      vec_ok(x.repl_argv));
		CHECK(x.run_argv[0] || x.repl_argv[0]);
		if (x.file_name)
			CHECK(strlen(x.file_name) <= 255);
		CHECK(!x.file_data || x.file_len < f->len);
		CHECK(!x.stdin_data || x.stdin_len < f->len);
		ap_exec_free(&x);
		CHECK(x.mem == NULL);
		break;
	case AP_PRESTART:
		rc = ap_prestart_decode(f, &x, err);
		if (rc)
			break;
		CHECK(vec_ok(x.run_argv) && vec_ok(x.env) &&
		      vec_ok(x.seccomp_deny) && vec_ok(x.wait_argv) &&
		      vec_ok(x.wait_env));
		CHECK(x.run_argv[0] && !x.build_argv[0] && !x.repl_argv[0] &&
		      !x.file_data && !x.stdin_data);
		ap_exec_free(&x);
		break;
	case AP_PRESTART_DONE:
		rc = ap_prestart_done_decode(f, &rd, err);
		if (!rc)
			CHECK(inside(f, rd.message, rd.message_len));
		break;
	case AP_HELLO_OK:
		rc = ap_hello_ok_decode(f, &h, err);
		if (!rc)
			CHECK(inside(f, h.workdir, h.workdir_len));
		break;
	case AP_EXEC_DONE:
		rc = ap_exec_done_decode(f, &d, err);
		if (rc)
			break;
		CHECK(inside(f, d.out, d.out_len) &&
		      inside(f, d.err, d.err_len) &&
		      inside(f, d.phase, d.phase_len) &&
		      inside(f, d.entries, d.entries_len));
		while (ap_entries_next(d.entries, d.entries_len, &off, &en)) {
			CHECK(inside(f, en.name, en.name_len));
			count++;
		}
		CHECK(count == d.nentries && off == d.entries_len);
		break;
	case AP_OUTPUT:
		rc = ap_output_decode(f, &o, err);
		if (!rc)
			CHECK(inside(f, o.out, o.out_len) &&
			      inside(f, o.err, o.err_len));
		break;
	case AP_RESET_DONE:
		rc = ap_reset_done_decode(f, &rd, err);
		if (!rc)
			CHECK(inside(f, rd.message, rd.message_len));
		break;
	case AP_ERROR:
		rc = ap_error_decode(f, &e, err);
		if (!rc)
			CHECK(inside(f, e.message, e.message_len));
		break;
	default:
		return 0; /* no fields, no decoder */
	}
	if (rc) {
		CHECK(rc == -EINVAL || rc == -EPROTO || rc == -ENOMEM);
		CHECK(err->code == rc && err->msg[0]);
	}
	return rc;
}

/* Decode payload p[0..n) as type from a private allocation of n bytes. */
static int decode_exact(uint8_t type, const unsigned char *p, size_t n,
			struct error *err)
{
	/* malloc(0) too: under ASan no byte of it may be read. */
	unsigned char *copy = malloc(n);
	struct ap_frame f = {.type = type, .id = 1, .payload = copy, .len = n};
	int rc;

	if (!copy && n)
		return -ENOMEM;
	if (n)
		memcpy(copy, p, n);
	rc = decode(&f, err);
	free(copy);
	return rc;
}

/* The whole frame r (header included) through decode_exact. */
static int decode_raw(const struct raw *r, struct error *err)
{
	return decode_exact(r->p[r->start + 4], r->p + r->start + AP_HEADER_LEN,
			    r->len - r->start - AP_HEADER_LEN, err);
}

/* One frame through a reader fed in pieces of at most step bytes; every
 * piece but the last leaves the frame incomplete. Returns the frame's
 * copy (payload owned by *rd until the next reader call). */
static int read_back(struct ap_reader *rd, const struct ap_buf *b, size_t step,
		     struct ap_frame *f)
{
	size_t i, n;
	int rc = 0;

	for (i = 0; i < b->len; i += n) {
		n = b->len - i < step ? b->len - i : step;
		CHECK(rc == 0);
		if (ap_reader_feed(rd, b->data + i, n))
			return -ENOMEM;
		rc = ap_reader_next(rd, f);
	}
	return rc;
}

static int same_bytes(const void *a, size_t an, const void *b, size_t bn)
{
	if (!a || !b)
		return !a && !b;
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* A NULL vector encodes like an empty one. */
static int same_vec(const char *const *sent, const char *const *got)
{
	size_t i;

	for (i = 0; sent && sent[i]; i++)
		if (!got[i] || strcmp(sent[i], got[i]) != 0)
			return 0;
	return got[i] == NULL;
}

static int same_str(const char *sent, const char *got, size_t got_len)
{
	if (!sent || !got)
		return !sent && !got;
	return same_bytes(sent, strlen(sent), got, got_len);
}

/* ------------------------------------------------------------------ */
/* Wire bytes                                                          */

static const char *const build_v[] = {"gcc", "-O2", "main.c", NULL};
static const char *const run_v[] = {"./a.out", "", "x y", NULL};
static const char *const env_v[] = {"PATH=/bin", "A=", "B=1=2", NULL};
static const char *const deny_v[] = {"ptrace", "mount", NULL};
static const char *const repl_v[] = {"python3", "-i", NULL};

/* What agent_client_exec() has always written, in its order. */
static void t_wire_exec(void)
{
	const struct ap_exec m = {
		.file_name = "main.c",
		.file_data = (const unsigned char *)"int main;",
		.file_len = 9,
		.build_argv = build_v,
		.run_argv = run_v,
		.env = env_v,
		.seccomp_deny = deny_v,
		.stdin_data = (const unsigned char *)"in\0put",
		.stdin_len = 6,
		.repl_seq = 77, /* not sent: no repl_argv */
		.timeout_ms = 5000,
		.stdout_cap = 1024,
		.stderr_cap = 0,
		.grace_ms = 250,
		.stream_ms = 100,
	};
	const struct ap_exec q = {
		.file_data = (const unsigned char *)"",
		.repl_argv = repl_v,
		.repl_seq = 0,
		.env = env_v,
	};
	struct ap_buf b;
	struct raw r = {0};
	size_t i;

	raw_begin(&r, AP_EXEC, 0x01020304);
	raw_str(&r, AP_T_FILE_NAME, "main.c");
	raw_str(&r, AP_T_FILE_DATA, "int main;");
	for (i = 0; build_v[i]; i++)
		raw_str(&r, AP_T_BUILD_ARG, build_v[i]);
	for (i = 0; run_v[i]; i++)
		raw_str(&r, AP_T_RUN_ARG, run_v[i]);
	raw_u32(&r, AP_T_GRACE_MS, 250);
	raw_u32(&r, AP_T_STREAM_MS, 100);
	for (i = 0; env_v[i]; i++)
		raw_str(&r, AP_T_ENV, env_v[i]);
	for (i = 0; deny_v[i]; i++)
		raw_str(&r, AP_T_SECCOMP_DENY, deny_v[i]);
	raw_u32(&r, AP_T_TIMEOUT_MS, 5000);
	raw_u32(&r, AP_T_STDOUT_CAP, 1024);
	raw_u32(&r, AP_T_STDERR_CAP, 0);
	raw_field(&r, AP_T_STDIN, "in\0put", 6);
	raw_end(&r);
	ap_buf_init(&b);
	CHECK(ap_exec_encode(&b, 0x01020304, &m) == 0);
	CHECK(same_wire(&b, &r));
	raw_free(&r);
	ap_buf_close(&b);

	/* Interpreter mode: FILE_DATA (empty), REPL_ARG, REPL_SEQ even when
	 * 0, no GRACE/STREAM when 0, the limits always. */
	raw_begin(&r, AP_EXEC, 9);
	raw_field(&r, AP_T_FILE_DATA, "", 0);
	raw_str(&r, AP_T_REPL_ARG, "python3");
	raw_str(&r, AP_T_REPL_ARG, "-i");
	raw_u32(&r, AP_T_REPL_SEQ, 0);
	for (i = 0; env_v[i]; i++)
		raw_str(&r, AP_T_ENV, env_v[i]);
	raw_u32(&r, AP_T_TIMEOUT_MS, 0);
	raw_u32(&r, AP_T_STDOUT_CAP, 0);
	raw_u32(&r, AP_T_STDERR_CAP, 0);
	raw_end(&r);
	ap_buf_init(&b);
	CHECK(ap_exec_encode(&b, 9, &q) == 0);
	CHECK(same_wire(&b, &r));
	raw_free(&r);
	ap_buf_close(&b);
}

/* What the agent has always written. */
static void t_wire_replies(void)
{
	const struct ap_exec_done killed = {
		.has_signal = 1,
		.signal = 9,
		.timed_out = 1,
		.duration_ms = 30001,
		.out = (const unsigned char *)"",
		.err = (const unsigned char *)"e\n",
		.err_len = 2,
		.out_truncated = 0,
		.err_truncated = 1,
		.phase = "build",
		.phase_len = 5,
		.survivors = 0,
	};
	const struct ap_exec_done repl = {
		.has_exit_code = 1,
		.exit_code = 3,
		.cancelled = 1,
		.duration_ms = 7,
		.out = (const unsigned char *)"hi",
		.out_len = 2,
		.err = (const unsigned char *)"",
		.phase = "run",
		.phase_len = 3,
		.survivors = 2,
		.repl = 1,
		.state_kept = 1,
		.fresh = 0,
	};
	const struct ap_hello_ok hello = {
		.version = AP_VERSION, .workdir = "/work", .workdir_len = 5};
	const struct ap_output out = {.err = (const unsigned char *)"x",
				      .err_len = 1};
	const struct ap_reset_done ok = {.ok = 1};
	const struct ap_reset_done bad = {
		.ok = 0, .message = "/tmp: 1 entries left", .message_len = 20};
	const struct ap_error error = {.message = "busy", .message_len = 4};
	struct ap_buf b;
	struct raw r = {0};

	/* All of them back to back in one buffer, as the agent queues. */
	ap_buf_init(&b);
	raw_begin(&r, AP_EXEC_DONE, 1);
	raw_u32(&r, AP_T_SIGNAL, 9);
	raw_u8(&r, AP_T_TIMED_OUT, 1);
	raw_u8(&r, AP_T_CANCELLED, 0);
	raw_u32(&r, AP_T_DURATION_MS, 30001);
	raw_field(&r, AP_T_STDOUT, "", 0);
	raw_str(&r, AP_T_STDERR, "e\n");
	raw_u8(&r, AP_T_STDOUT_TRUNC, 0);
	raw_u8(&r, AP_T_STDERR_TRUNC, 1);
	raw_str(&r, AP_T_PHASE, "build");
	raw_u32(&r, AP_T_SURVIVORS, 0);
	raw_end(&r);
	CHECK(ap_exec_done_encode(&b, 1, &killed) == 0);

	raw_begin(&r, AP_EXEC_DONE, 2);
	raw_u32(&r, AP_T_EXIT_CODE, 3);
	raw_u8(&r, AP_T_TIMED_OUT, 0);
	raw_u8(&r, AP_T_CANCELLED, 1);
	raw_u32(&r, AP_T_DURATION_MS, 7);
	raw_str(&r, AP_T_STDOUT, "hi");
	raw_field(&r, AP_T_STDERR, "", 0);
	raw_u8(&r, AP_T_STDOUT_TRUNC, 0);
	raw_u8(&r, AP_T_STDERR_TRUNC, 0);
	raw_str(&r, AP_T_PHASE, "run");
	raw_u32(&r, AP_T_SURVIVORS, 2);
	raw_u8(&r, AP_T_STATE_KEPT, 1);
	raw_u8(&r, AP_T_FRESH, 0);
	raw_end(&r);
	CHECK(ap_exec_done_encode(&b, 2, &repl) == 0);

	raw_begin(&r, AP_HELLO_OK, 3);
	raw_u32(&r, AP_T_VERSION, AP_VERSION);
	raw_str(&r, AP_T_WORKDIR, "/work");
	raw_end(&r);
	CHECK(ap_hello_ok_encode(&b, 3, &hello) == 0);

	raw_begin(&r, AP_OUTPUT, 4);
	raw_str(&r, AP_T_STDERR, "x");
	raw_end(&r);
	CHECK(ap_output_encode(&b, 4, &out) == 0);

	raw_begin(&r, AP_RESET_DONE, 5);
	raw_u8(&r, AP_T_OK, 1);
	raw_end(&r);
	CHECK(ap_reset_done_encode(&b, 5, &ok) == 0);

	raw_begin(&r, AP_RESET_DONE, 6);
	raw_u8(&r, AP_T_OK, 0);
	raw_str(&r, AP_T_MESSAGE, "/tmp: 1 entries left");
	raw_end(&r);
	CHECK(ap_reset_done_encode(&b, 6, &bad) == 0);

	raw_begin(&r, AP_ERROR, 0);
	raw_str(&r, AP_T_MESSAGE, "busy");
	raw_end(&r);
	CHECK(ap_error_encode(&b, 0, &error) == 0);

	/* The requests without fields: a bare header. */
	raw_begin(&r, AP_HELLO, 7);
	raw_end(&r);
	CHECK(ap_hello_encode(&b, 7) == 0);
	raw_begin(&r, AP_RESET, 8);
	raw_end(&r);
	CHECK(ap_reset_encode(&b, 8) == 0);
	raw_begin(&r, AP_CANCEL, 0xffffffffu);
	raw_end(&r);
	CHECK(ap_cancel_encode(&b, 0xffffffffu) == 0);

	CHECK(same_wire(&b, &r));
	raw_free(&r);
	ap_buf_close(&b);
}

/* ------------------------------------------------------------------ */
/* Round trips                                                         */

static void check_exec_round_trip(const struct ap_exec *m, size_t step)
{
	struct ap_reader rd;
	struct ap_frame f;
	struct ap_buf b;
	struct ap_exec got;
	struct error err = {0};
	int has_repl = m->repl_argv && m->repl_argv[0];

	ap_buf_init(&b);
	ap_reader_init(&rd);
	CHECK(ap_exec_encode(&b, 42, m) == 0);
	CHECK(read_back(&rd, &b, step, &f) == 1);
	CHECK(f.type == AP_EXEC && f.id == 42);
	CHECK(ap_exec_decode(&f, &got, &err) == 0);
	/* The decoder copied: the frame's bytes may go. */
	memset((void *)f.payload, 0xa5, f.len);
	ap_reader_close(&rd);
	ap_buf_close(&b);
	if (err.code) {
		fprintf(stderr, "decode: %s\n", err.msg);
		return;
	}
	CHECK(same_str(m->file_name, got.file_name,
		       got.file_name ? strlen(got.file_name) : 0));
	CHECK(same_bytes(m->file_data, m->file_len, got.file_data,
			 got.file_len));
	CHECK(same_bytes(m->stdin_data, m->stdin_len, got.stdin_data,
			 got.stdin_len));
	CHECK(same_vec(m->build_argv, got.build_argv));
	CHECK(same_vec(m->run_argv, got.run_argv));
	CHECK(same_vec(m->env, got.env));
	CHECK(same_vec(m->seccomp_deny, got.seccomp_deny));
	CHECK(same_vec(m->repl_argv, got.repl_argv));
	CHECK(got.repl_seq == (has_repl ? m->repl_seq : 0));
	CHECK(got.timeout_ms == m->timeout_ms);
	CHECK(got.stdout_cap == m->stdout_cap);
	CHECK(got.stderr_cap == m->stderr_cap);
	CHECK(got.grace_ms == m->grace_ms);
	CHECK(got.stream_ms == m->stream_ms);
	CHECK(got.artifacts == m->artifacts);
	ap_exec_free(&got);
}

static void t_round_trip_exec(void)
{
	const struct ap_exec full = {
		.file_name = "main.c",
		.file_data = (const unsigned char *)"a\0b",
		.file_len = 3,
		.build_argv = build_v,
		.run_argv = run_v,
		.env = env_v,
		.seccomp_deny = deny_v,
		.stdin_data = (const unsigned char *)"",
		.stdin_len = 0,
		.timeout_ms = UINT32_MAX,
		.stdout_cap = 1,
		.stderr_cap = 8u << 20,
		.grace_ms = 1,
		.stream_ms = UINT32_MAX,
		.artifacts = 50,
	};
	const struct ap_exec repl = {
		.file_data = (const unsigned char *)"print(1)\n",
		.file_len = 9,
		.repl_argv = repl_v,
		.repl_seq = UINT32_MAX,
		.env = env_v,
	};
	static const char *const one[] = {"true", NULL};
	const struct ap_exec minimal = {.run_argv = one};
	char name[256];
	const char **many = calloc(5001, sizeof(*many));
	struct ap_exec big = {.run_argv = one};
	size_t i;

	check_exec_round_trip(&full, 1); /* one byte at a time */
	check_exec_round_trip(&full, 7);
	check_exec_round_trip(&repl, 1 << 20);
	check_exec_round_trip(&minimal, 3);

	/* The longest file name, thousands of repeated fields. */
	memset(name, 'n', 255);
	name[255] = '\0';
	for (i = 0; i < 5000; i++)
		many[i] = i % 2 ? "K=V" : "LONGER_KEY=a longer value";
	big.file_name = name;
	big.env = many;
	big.seccomp_deny = many;
	check_exec_round_trip(&big, 4096);
	free(many);
}

static void t_round_trip_replies(void)
{
	const struct ap_exec_done done = {
		.has_exit_code = 1,
		.exit_code = UINT32_MAX,
		.has_signal = 1,
		.signal = 0,
		.timed_out = 255,
		.cancelled = 1,
		.duration_ms = UINT32_MAX,
		.out = (const unsigned char *)"\0\1\2",
		.out_len = 3,
		.err = (const unsigned char *)"",
		.err_len = 0,
		.out_truncated = 1,
		.err_truncated = 0,
		.phase = "build",
		.phase_len = 5,
		.survivors = 12,
		.repl = 1,
		.state_kept = 0,
		.fresh = 1,
		/* one artifact, "ab", 4 bytes */
		.entries = (const unsigned char *)"\1\0\0\1\244\0\0\0\0\0\0\0\4"
						  "\0\0\0\0\0\0\0\5\0\2ab",
		.entries_len = 25,
		.more = UINT32_MAX,
	};
	const struct ap_exec_done bare = {0};
	const struct ap_exec_done *cases[] = {&done, &bare};
	const struct ap_hello_ok hello = {
		.version = 7, .workdir = "/w", .workdir_len = 2};
	const struct ap_output out = {.out = (const unsigned char *)"o",
				      .out_len = 1,
				      .err = (const unsigned char *)"",
				      .err_len = 0};
	const struct ap_reset_done reset = {
		.ok = 0, .message = "a; b", .message_len = 4};
	const struct ap_error error = {.message = "", .message_len = 0};
	struct ap_exec_done d;
	struct ap_hello_ok h;
	struct ap_output o;
	struct ap_reset_done rd;
	struct ap_error e;
	struct ap_reader rdr;
	struct ap_frame f;
	struct ap_buf b;
	struct error err;
	size_t i;

	for (i = 0; i < 2; i++) {
		const struct ap_exec_done *m = cases[i];

		ap_buf_init(&b);
		ap_reader_init(&rdr);
		CHECK(ap_exec_done_encode(&b, 5, m) == 0);
		CHECK(read_back(&rdr, &b, 1, &f) == 1);
		CHECK(f.type == AP_EXEC_DONE && f.id == 5);
		CHECK(ap_exec_done_decode(&f, &d, &err) == 0);
		CHECK(d.has_exit_code == m->has_exit_code &&
		      d.exit_code == m->exit_code);
		CHECK(d.has_signal == m->has_signal && d.signal == m->signal);
		CHECK(d.timed_out == m->timed_out &&
		      d.cancelled == m->cancelled);
		CHECK(d.duration_ms == m->duration_ms);
		CHECK(same_bytes(m->out, m->out_len, d.out, d.out_len));
		CHECK(same_bytes(m->err, m->err_len, d.err, d.err_len));
		CHECK(d.out_truncated == m->out_truncated &&
		      d.err_truncated == m->err_truncated);
		CHECK(same_bytes(m->phase, m->phase_len, d.phase, d.phase_len));
		CHECK(d.survivors == m->survivors);
		CHECK(d.repl == m->repl && d.state_kept == m->state_kept &&
		      d.fresh == m->fresh);
		CHECK(same_bytes(m->entries, m->entries_len, d.entries,
				 d.entries_len));
		CHECK(d.more == m->more &&
		      d.nentries == (m->entries_len ? 1u : 0u));
		ap_reader_close(&rdr);
		ap_buf_close(&b);
	}

	ap_buf_init(&b);
	ap_reader_init(&rdr);
	CHECK(ap_hello_ok_encode(&b, 1, &hello) == 0);
	CHECK(ap_output_encode(&b, 2, &out) == 0);
	CHECK(ap_reset_done_encode(&b, 3, &reset) == 0);
	CHECK(ap_error_encode(&b, 4, &error) == 0);
	CHECK(ap_hello_encode(&b, 5) == 0);
	CHECK(ap_reset_encode(&b, 6) == 0);
	CHECK(ap_cancel_encode(&b, 7) == 0);
	CHECK(ap_reader_feed(&rdr, b.data, b.len) == 0);

	CHECK(ap_reader_next(&rdr, &f) == 1 && f.id == 1);
	CHECK(ap_hello_ok_decode(&f, &h, &err) == 0);
	CHECK(h.version == 7 && same_bytes("/w", 2, h.workdir, h.workdir_len));
	CHECK(ap_reader_next(&rdr, &f) == 1 && f.id == 2);
	CHECK(ap_output_decode(&f, &o, &err) == 0);
	CHECK(same_bytes(out.out, 1, o.out, o.out_len));
	CHECK(o.err != NULL && o.err_len == 0);
	CHECK(ap_reader_next(&rdr, &f) == 1 && f.id == 3);
	CHECK(ap_reset_done_decode(&f, &rd, &err) == 0);
	CHECK(rd.ok == 0 && same_bytes("a; b", 4, rd.message, rd.message_len));
	CHECK(ap_reader_next(&rdr, &f) == 1 && f.id == 4);
	CHECK(ap_error_decode(&f, &e, &err) == 0);
	CHECK(e.message != NULL && e.message_len == 0);
	CHECK(ap_reader_next(&rdr, &f) == 1);
	CHECK(f.type == AP_HELLO && f.id == 5 && f.len == 0);
	CHECK(ap_reader_next(&rdr, &f) == 1);
	CHECK(f.type == AP_RESET && f.id == 6 && f.len == 0);
	CHECK(ap_reader_next(&rdr, &f) == 1);
	CHECK(f.type == AP_CANCEL && f.id == 7 && f.len == 0);
	CHECK(ap_reader_next(&rdr, &f) == 0);
	ap_reader_close(&rdr);
	ap_buf_close(&b);

	/* Absent fields: numbers 0, pointers NULL. */
	ap_buf_init(&b);
	ap_reader_init(&rdr);
	{
		const struct ap_output none = {0};
		const struct ap_reset_done rnone = {0};

		CHECK(ap_output_encode(&b, 1, &none) == 0);
		CHECK(ap_reset_done_encode(&b, 2, &rnone) == 0);
	}
	CHECK(ap_reader_feed(&rdr, b.data, b.len) == 0);
	CHECK(ap_reader_next(&rdr, &f) == 1);
	CHECK(ap_output_decode(&f, &o, &err) == 0 && !o.out && !o.err);
	CHECK(ap_reader_next(&rdr, &f) == 1);
	CHECK(ap_reset_done_decode(&f, &rd, &err) == 0 && !rd.ok &&
	      !rd.message);
	ap_reader_close(&rdr);
	ap_buf_close(&b);
}

/* The largest frame there is works; one byte more fails and leaves what
 * was queued before untouched. */
static void t_limits(void)
{
	/* Fields of an AP_OUTPUT with only stdout: 5 bytes of header. */
	size_t max = AP_MAX_FRAME - (AP_HEADER_LEN - 4) - 5;
	unsigned char *blob = calloc(1, AP_MAX_FRAME + 1);
	struct ap_output m = {.out = blob, .out_len = max};
	struct ap_exec x = {.file_name = "f", .file_data = blob};
	struct ap_exec_done d = {.out = blob};
	struct ap_error e = {.message = (const char *)blob};
	struct ap_reader rd;
	struct ap_frame f;
	struct ap_buf b;
	struct error err;
	size_t before;

	blob[0] = 'a';
	blob[max - 1] = 'z';
	ap_buf_init(&b);
	ap_reader_init(&rd);
	CHECK(ap_output_encode(&b, 1, &m) == 0);
	CHECK(b.len == AP_MAX_FRAME + 4);
	CHECK(ap_reader_feed(&rd, b.data, b.len) == 0);
	CHECK(ap_reader_next(&rd, &f) == 1);
	CHECK(ap_output_decode(&f, &m, &err) == 0);
	CHECK(m.out_len == max && m.out[0] == 'a' && m.out[max - 1] == 'z');
	ap_reader_close(&rd);

	ap_buf_close(&b);
	ap_buf_init(&b);
	CHECK(ap_hello_encode(&b, 1) == 0);
	before = b.len;
	m.out = blob;
	m.out_len = max + 1;
	CHECK(ap_output_encode(&b, 2, &m) == -E2BIG);
	CHECK(b.len == before);
	x.file_len = AP_MAX_FRAME;
	CHECK(ap_exec_encode(&b, 3, &x) == -E2BIG);
	CHECK(b.len == before);
	d.out_len = AP_MAX_FRAME - 20; /* fits alone, not with the rest */
	CHECK(ap_exec_done_encode(&b, 4, &d) == -E2BIG);
	CHECK(b.len == before);
	e.message_len = AP_MAX_FRAME + 1;
	CHECK(ap_error_encode(&b, 5, &e) == -E2BIG);
	CHECK(b.len == before);
	/* and the buffer still works */
	CHECK(ap_reset_encode(&b, 6) == 0);
	CHECK(b.len == before + AP_HEADER_LEN);
	ap_buf_close(&b);
	free(blob);
}

/* The frame reader on a corrupt stream. */
static void t_reader(void)
{
	static const unsigned char huge[] = {0x7f, 0xff, 0xff, 0xff, 1};
	static const unsigned char over[] = {
		(AP_MAX_FRAME + 1) >> 24, ((AP_MAX_FRAME + 1) >> 16) & 0xff,
		((AP_MAX_FRAME + 1) >> 8) & 0xff, (AP_MAX_FRAME + 1) & 0xff,
		AP_OUTPUT};
	static const unsigned char tiny[] = {0, 0, 0, 4, 1, 0, 0, 0, 0};
	struct ap_reader r;
	struct ap_frame f;

	ap_reader_init(&r);
	CHECK(ap_reader_feed(&r, huge, sizeof(huge)) == 0);
	CHECK(ap_reader_next(&r, &f) == -EPROTO);
	ap_reader_close(&r);

	ap_reader_init(&r);
	CHECK(ap_reader_feed(&r, over, sizeof(over)) == 0);
	CHECK(ap_reader_next(&r, &f) == -EPROTO);
	ap_reader_close(&r);

	ap_reader_init(&r);
	CHECK(ap_reader_feed(&r, tiny, sizeof(tiny)) == 0);
	CHECK(ap_reader_next(&r, &f) == -EPROTO);
	ap_reader_close(&r);
}

/* ------------------------------------------------------------------ */
/* Hostile frames                                                      */

/* One valid frame of every type that has fields, each field present. */
static void valid_frames(struct raw *r, size_t *starts, size_t *n)
{
	*n = 0;
	starts[(*n)++] = r->len;
	raw_begin(r, AP_EXEC, 1);
	raw_str(r, AP_T_FILE_NAME, "m.c");
	raw_str(r, AP_T_FILE_DATA, "x");
	raw_str(r, AP_T_BUILD_ARG, "cc");
	raw_str(r, AP_T_BUILD_ARG, "m.c");
	raw_str(r, AP_T_RUN_ARG, "./a.out");
	raw_str(r, AP_T_ENV, "A=1");
	raw_str(r, AP_T_SECCOMP_DENY, "ptrace");
	raw_u32(r, AP_T_TIMEOUT_MS, 1);
	raw_u32(r, AP_T_STDOUT_CAP, 2);
	raw_u32(r, AP_T_STDERR_CAP, 3);
	raw_str(r, AP_T_STDIN, "in");
	raw_str(r, AP_T_REPL_ARG, "sh");
	raw_u32(r, AP_T_REPL_SEQ, 4);
	raw_u32(r, AP_T_GRACE_MS, 5);
	raw_u32(r, AP_T_STREAM_MS, 6);
	raw_u32(r, AP_T_ARTIFACTS, 7);
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_HELLO_OK, 2);
	raw_u32(r, AP_T_VERSION, 1);
	raw_str(r, AP_T_WORKDIR, "/work");
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_EXEC_DONE, 3);
	raw_u32(r, AP_T_EXIT_CODE, 0);
	raw_u32(r, AP_T_SIGNAL, 9);
	raw_u8(r, AP_T_TIMED_OUT, 0);
	raw_u8(r, AP_T_CANCELLED, 0);
	raw_u32(r, AP_T_DURATION_MS, 1);
	raw_str(r, AP_T_STDOUT, "out");
	raw_str(r, AP_T_STDERR, "err");
	raw_u8(r, AP_T_STDOUT_TRUNC, 0);
	raw_u8(r, AP_T_STDERR_TRUNC, 0);
	raw_str(r, AP_T_PHASE, "run");
	raw_u32(r, AP_T_SURVIVORS, 0);
	raw_u8(r, AP_T_STATE_KEPT, 1);
	raw_u8(r, AP_T_FRESH, 1);
	raw_field(r, AP_T_ENTRIES,
		  "\1\0\0\1\244\0\0\0\0\0\0\0\4\0\0\0\0\0\0\0\5\0\2ab", 25);
	raw_u32(r, AP_T_MORE, 3);
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_OUTPUT, 4);
	raw_str(r, AP_T_STDOUT, "o");
	raw_str(r, AP_T_STDERR, "e");
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_RESET_DONE, 5);
	raw_u8(r, AP_T_OK, 0);
	raw_str(r, AP_T_MESSAGE, "left");
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_ERROR, 6);
	raw_str(r, AP_T_MESSAGE, "no");
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_FILE, 7);
	raw_u32(r, AP_T_FILE_OP, AP_FOP_MOVE);
	raw_str(r, AP_T_PATH, "a/b");
	raw_str(r, AP_T_PATH2, "c");
	raw_str(r, AP_T_DATA, "d");
	raw_u32(r, AP_T_FLAGS, AP_FF_OVERWRITE);
	raw_field(r, AP_T_OFFSET, "\0\0\0\0\0\0\1\0", 8);
	raw_u32(r, AP_T_LENGTH, 10);
	raw_str(r, AP_T_CURSOR, "a");
	raw_u32(r, AP_T_TIMEOUT_MS, 100);
	raw_end(r);
	starts[(*n)++] = r->len;
	raw_begin(r, AP_FILE_DONE, 8);
	raw_u32(r, AP_T_STATUS, 0);
	raw_str(r, AP_T_MESSAGE, "m");
	raw_str(r, AP_T_DATA, "data");
	raw_field(r, AP_T_SIZE, "\0\0\0\0\0\0\0\4", 8);
	raw_u8(r, AP_T_EOF, 1);
	raw_u8(r, AP_T_CREATED, 1);
	/* one entry: type 1, mode 0644, size 4, mtime 5, name "ab" */
	raw_field(r, AP_T_ENTRIES,
		  "\1\0\0\1\244\0\0\0\0\0\0\0\4\0\0\0\0\0\0\0\5\0\2ab", 25);
	raw_str(r, AP_T_CURSOR, "ab");
	raw_end(r);
	starts[*n] = r->len;
}

/* Every prefix of every valid frame: as a payload cut short (an error or
 * a valid decode of the fields that are whole), and through the reader
 * (never a frame before the last byte). */
static void t_prefixes(void)
{
	struct raw r = {0};
	size_t starts[12], n, i, k, len;
	struct ap_reader rd;
	struct ap_frame f;
	struct error err;
	int rc;

	valid_frames(&r, starts, &n);
	for (i = 0; i < n; i++) {
		const unsigned char *fr = r.p + starts[i];
		uint8_t type = fr[4];

		len = starts[i + 1] - starts[i];
		CHECK(decode_exact(type, fr + AP_HEADER_LEN,
				   len - AP_HEADER_LEN, &err) == 0);
		for (k = 0; k < len - AP_HEADER_LEN; k++) {
			rc = decode_exact(type, fr + AP_HEADER_LEN, k, &err);
			CHECK(rc == 0 || rc == -EPROTO || rc == -EINVAL);
		}
		ap_reader_init(&rd);
		for (k = 0; k < len; k++) {
			CHECK(ap_reader_feed(&rd, fr + k, 1) == 0);
			rc = ap_reader_next(&rd, &f);
			CHECK(rc == (k + 1 == len ? 1 : 0));
		}
		ap_reader_close(&rd);
	}
	raw_free(&r);
}

/* Decodes the frame r, expects rc and, when msg is set, that message;
 * frees r for the next case. */
static void expect_at(struct raw *r, int rc, const char *msg, int line)
{
	struct error e = {0};
	int got = decode_raw(r, &e);

	if (got != rc || (msg && strcmp(e.msg, msg) != 0)) {
		t_failed++;
		fprintf(stderr, "FAIL %s:%d: got %d (%s), want %d (%s)\n",
			__FILE__, line, got, e.msg, rc, msg ? msg : "");
	} else {
		t_passed++;
	}
	raw_free(r);
}

#define EXPECT(r, rc, msg) expect_at(r, rc, msg, __LINE__)

static void exec_head(struct raw *r)
{
	raw_begin(r, AP_EXEC, 1);
	raw_str(r, AP_T_RUN_ARG, "true");
}

/* AP_EXEC's rules and messages, as the agent has always answered. */
static void t_exec_rules(void)
{
	static const uint8_t u32s[] = {AP_T_TIMEOUT_MS, AP_T_STDOUT_CAP,
				       AP_T_STDERR_CAP, AP_T_REPL_SEQ,
				       AP_T_GRACE_MS,	AP_T_STREAM_MS};
	static const uint8_t once[] = {AP_T_FILE_NAME, AP_T_FILE_DATA,
				       AP_T_STDIN};
	static const uint8_t strs[] = {AP_T_FILE_NAME,	  AP_T_BUILD_ARG,
				       AP_T_RUN_ARG,	  AP_T_ENV,
				       AP_T_SECCOMP_DENY, AP_T_REPL_ARG};
	static const char *const bad_names[] = {"", ".", "..", "a/b", "x..y"};
	const char *dup = "duplicate field in AP_EXEC";
	const char *bad32 = "bad or duplicate u32 field in AP_EXEC";
	char longname[257];
	struct raw r = {0};
	size_t i;

	for (i = 0; i < sizeof(u32s); i++) {
		exec_head(&r);
		raw_u32(&r, u32s[i], 1);
		raw_u32(&r, u32s[i], 1);
		raw_end(&r);
		EXPECT(&r, -EINVAL, bad32);
		exec_head(&r);
		raw_field(&r, u32s[i], "abc", 3);
		raw_end(&r);
		EXPECT(&r, -EINVAL, bad32);
		exec_head(&r);
		raw_field(&r, u32s[i], "abcde", 5);
		raw_end(&r);
		EXPECT(&r, -EINVAL, bad32);
	}
	for (i = 0; i < sizeof(once); i++) {
		exec_head(&r);
		raw_str(&r, AP_T_FILE_NAME, "f"); /* for FILE_DATA */
		if (once[i] != AP_T_FILE_NAME)
			raw_str(&r, once[i], "a");
		raw_str(&r, once[i], "b");
		raw_end(&r);
		EXPECT(&r, -EINVAL, dup);
	}
	for (i = 0; i < sizeof(strs); i++) {
		exec_head(&r);
		raw_field(&r, strs[i], "a\0b", 3);
		raw_end(&r);
		EXPECT(&r, -EINVAL, "string field contains a NUL byte");
	}
	/* Bytes may hold NUL. */
	exec_head(&r);
	raw_str(&r, AP_T_FILE_NAME, "f");
	raw_field(&r, AP_T_FILE_DATA, "\0", 1);
	raw_field(&r, AP_T_STDIN, "\0", 1);
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	/* Repeated fields repeat; unknown tags (0, a reply's, 255) are
	 * skipped wherever they are. */
	raw_begin(&r, AP_EXEC, 1);
	raw_field(&r, 0, "", 0);
	raw_str(&r, AP_T_RUN_ARG, "a");
	raw_u8(&r, AP_T_OK, 7);
	raw_str(&r, AP_T_RUN_ARG, "b");
	raw_field(&r, 255, "\0\0\0\0\0\0", 6);
	raw_str(&r, AP_T_ENV, "A=1");
	raw_str(&r, AP_T_ENV, "A=2");
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	raw_begin(&r, AP_EXEC, 1);
	raw_str(&r, AP_T_ENV, "A=1");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "AP_EXEC without RUN_ARG or REPL_ARG");
	raw_begin(&r, AP_EXEC, 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "AP_EXEC without RUN_ARG or REPL_ARG");

	exec_head(&r);
	raw_str(&r, AP_T_FILE_DATA, "x");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "FILE_DATA without FILE_NAME");
	raw_begin(&r, AP_EXEC, 1);
	raw_str(&r, AP_T_REPL_ARG, "sh");
	raw_str(&r, AP_T_FILE_DATA, "x");
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		exec_head(&r);
		raw_str(&r, AP_T_FILE_NAME, bad_names[i]);
		raw_end(&r);
		EXPECT(&r, -EINVAL,
		       "bad FILE_NAME (empty, '/', '..' or too long)");
	}
	memset(longname, 'x', 256);
	longname[256] = '\0';
	exec_head(&r);
	raw_str(&r, AP_T_FILE_NAME, longname);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "bad FILE_NAME (empty, '/', '..' or too long)");
	longname[255] = '\0';
	exec_head(&r);
	raw_str(&r, AP_T_FILE_NAME, longname);
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	exec_head(&r);
	raw_str(&r, AP_T_ENV, "NOEQUALS");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "ENV entry is not KEY=VALUE");
	exec_head(&r);
	raw_str(&r, AP_T_ENV, "=x");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "ENV entry is not KEY=VALUE");

	raw_begin(&r, AP_EXEC, 1);
	raw_str(&r, AP_T_RUN_ARG, "");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "empty program name");
	exec_head(&r);
	raw_str(&r, AP_T_BUILD_ARG, "");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "empty program name");
	exec_head(&r);
	raw_str(&r, AP_T_REPL_ARG, "");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "empty program name");
	/* With an interpreter the run vector is not used. */
	raw_begin(&r, AP_EXEC, 1);
	raw_str(&r, AP_T_RUN_ARG, "");
	raw_str(&r, AP_T_REPL_ARG, "sh");
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	/* Field lengths that run past the frame. */
	exec_head(&r);
	raw_field_lying(&r, AP_T_ENV, 0xffffffffu, "A=1", 3);
	raw_end(&r);
	EXPECT(&r, -EPROTO, "malformed AP_EXEC fields");
	exec_head(&r);
	raw_field_lying(&r, AP_T_ENV, 4, "A=1", 3);
	raw_end(&r);
	EXPECT(&r, -EPROTO, "malformed AP_EXEC fields");
	exec_head(&r);
	raw_bytes(&r, "\x05\x00\x00", 3); /* half a field header */
	raw_end(&r);
	EXPECT(&r, -EPROTO, "malformed AP_EXEC fields");

	/* The first problem in the frame is the one reported. */
	exec_head(&r);
	raw_field(&r, AP_T_ENV, "A\0", 2);
	raw_u32(&r, AP_T_TIMEOUT_MS, 1);
	raw_u32(&r, AP_T_TIMEOUT_MS, 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "string field contains a NUL byte");

	raw_begin(&r, AP_HELLO_OK, 1);
	raw_end(&r);
	{
		struct ap_frame f = {
			.type = AP_HELLO_OK, .payload = r.p, .len = 0};
		struct ap_exec m;
		struct error e;

		CHECK(ap_exec_decode(&f, &m, &e) == -EINVAL);
	}
	raw_free(&r);
}

/* The replies: wrong lengths and duplicates of every known field are
 * refused, unknown tags skipped, NUL refused in strings only. */
static void t_reply_rules(void)
{
	static const struct {
		uint8_t type, tag;
		char kind; /* '4' u32, '1' u8, 's' string, 'b' bytes */
	} fields[] = {
		{AP_HELLO_OK, AP_T_VERSION, '4'},
		{AP_HELLO_OK, AP_T_WORKDIR, 's'},
		{AP_EXEC_DONE, AP_T_EXIT_CODE, '4'},
		{AP_EXEC_DONE, AP_T_SIGNAL, '4'},
		{AP_EXEC_DONE, AP_T_TIMED_OUT, '1'},
		{AP_EXEC_DONE, AP_T_CANCELLED, '1'},
		{AP_EXEC_DONE, AP_T_DURATION_MS, '4'},
		{AP_EXEC_DONE, AP_T_STDOUT, 'b'},
		{AP_EXEC_DONE, AP_T_STDERR, 'b'},
		{AP_EXEC_DONE, AP_T_STDOUT_TRUNC, '1'},
		{AP_EXEC_DONE, AP_T_STDERR_TRUNC, '1'},
		{AP_EXEC_DONE, AP_T_PHASE, 's'},
		{AP_EXEC_DONE, AP_T_SURVIVORS, '4'},
		{AP_EXEC_DONE, AP_T_STATE_KEPT, '1'},
		{AP_EXEC_DONE, AP_T_FRESH, '1'},
		{AP_OUTPUT, AP_T_STDOUT, 'b'},
		{AP_OUTPUT, AP_T_STDERR, 'b'},
		{AP_RESET_DONE, AP_T_OK, '1'},
		{AP_RESET_DONE, AP_T_MESSAGE, 's'},
		{AP_ERROR, AP_T_MESSAGE, 's'},
	};
	static const uint8_t types[] = {AP_HELLO_OK, AP_EXEC_DONE, AP_OUTPUT,
					AP_RESET_DONE, AP_ERROR};
	static const unsigned char four[4] = {1, 2, 3, 4};
	struct raw r = {0};
	size_t i, good;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint8_t ty = fields[i].type, tag = fields[i].tag;
		char kind = fields[i].kind;

		good = kind == '4' ? 4 : kind == '1' ? 1 : 2;
		/* alone, right length: fine */
		raw_begin(&r, ty, 1);
		raw_field(&r, tag, "ab\0\0", good);
		raw_end(&r);
		EXPECT(&r, 0, NULL);
		/* twice */
		raw_begin(&r, ty, 1);
		raw_field(&r, tag, "abcd", good);
		raw_field(&r, tag, "abcd", good);
		raw_end(&r);
		EXPECT(&r, -EINVAL, "duplicate field");
		if (kind == '4' || kind == '1') {
			raw_begin(&r, ty, 1);
			raw_field(&r, tag, four, good - 1);
			raw_end(&r);
			EXPECT(&r, -EINVAL, NULL);
			raw_begin(&r, ty, 1);
			raw_field(&r, tag, "abcde", good + 1);
			raw_end(&r);
			EXPECT(&r, -EINVAL, NULL);
		}
		/* NUL: a string refuses it, bytes carry it */
		raw_begin(&r, ty, 1);
		raw_field(&r, tag, "a\0", 2);
		raw_end(&r);
		if (kind == 's')
			EXPECT(&r, -EINVAL, "string field contains a NUL byte");
		else if (kind == 'b')
			EXPECT(&r, 0, NULL);
		else
			EXPECT(&r, -EINVAL, NULL);
		/* running past the frame */
		raw_begin(&r, ty, 1);
		raw_field_lying(&r, tag, (uint32_t)good + 1, "abcd", good);
		raw_end(&r);
		EXPECT(&r, -EPROTO, NULL);
		raw_begin(&r, ty, 1);
		raw_field_lying(&r, tag, 0x80000000u, "abcd", good);
		raw_end(&r);
		EXPECT(&r, -EPROTO, NULL);
	}
	for (i = 0; i < sizeof(types); i++) {
		/* unknown tags, of any length, anywhere: ignored */
		raw_begin(&r, types[i], 1);
		raw_field(&r, 0, "", 0);
		raw_field(&r, 99, "\0\0\0\0\0\0\0", 7);
		raw_u32(&r, AP_T_RUN_ARG, 1); /* a request's tag */
		raw_field(&r, 255, "x", 1);
		raw_end(&r);
		EXPECT(&r, 0, NULL);
		/* the wrong decoder for the type */
		{
			struct ap_frame f = {
				.type = types[i], .payload = four, .len = 0};
			struct ap_hello_ok h;
			struct ap_error e;
			struct error err;

			if (types[i] != AP_HELLO_OK)
				CHECK(ap_hello_ok_decode(&f, &h, &err) ==
				      -EINVAL);
			if (types[i] != AP_ERROR)
				CHECK(ap_error_decode(&f, &e, &err) == -EINVAL);
		}
	}
}

/* A deterministic PRNG (xorshift64*), so a failure reproduces. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32) % n;
}

/* Garbage of three kinds, through every decoder: random bytes, random
 * plausible fields (known tags, lengths often right, sometimes not), and
 * valid frames with bytes flipped. Only errors and valid decodes. */
static void t_garbage(void)
{
	static const uint8_t types[] = {
		AP_EXEC,	 AP_HELLO_OK, AP_EXEC_DONE, AP_OUTPUT,
		AP_RESET_DONE,	 AP_ERROR,    AP_FILE,	    AP_FILE_DONE,
		AP_SPAWN,	 AP_PROC,     AP_PROC_DONE, AP_EXCHANGE,
		AP_EXCHANGE_DONE};
	static const uint8_t lens[] = {0, 1, 2, 3, 4, 5, 8};
	struct raw v = {0}, r = {0};
	size_t starts[12], nv, i, j, k, n;
	unsigned char tmp[16];
	struct error err;
	int ok = 0, bad = 0, rc;

	valid_frames(&v, starts, &nv);
	for (i = 0; i < 6000; i++) {
		r.len = 0;
		switch (i % 3) {
		case 0:
			n = rnd(64);
			for (j = 0; j < n; j++) {
				tmp[0] = (unsigned char)rnd(256);
				raw_bytes(&r, tmp, 1);
			}
			break;
		case 1:
			n = rnd(8);
			for (j = 0; j < n; j++) {
				uint8_t tag = (uint8_t)(rnd(4) ? 1 + rnd(53)
							       : rnd(256));
				size_t len = rnd(3) ? lens[rnd(sizeof(lens))]
						    : rnd(16);

				for (k = 0; k < len; k++)
					tmp[k] =
						(unsigned char)(rnd(3) ? 'a' + rnd(26)
								       : rnd(256));
				if (rnd(20))
					raw_field(&r, tag, tmp, len);
				else /* a length that lies */
					raw_field_lying(&r, tag, rnd(64), tmp,
							len);
			}
			break;
		default:
			k = rnd((uint32_t)nv);
			raw_bytes(&r, v.p + starts[k] + AP_HEADER_LEN,
				  starts[k + 1] - starts[k] - AP_HEADER_LEN);
			n = 1 + rnd(4);
			for (j = 0; j < n && r.len; j++)
				r.p[rnd((uint32_t)r.len)] ^=
					(unsigned char)(1u << rnd(8));
			break;
		}
		for (j = 0; j < sizeof(types); j++) {
			rc = decode_exact(types[j], r.p, r.len, &err);
			CHECK(rc == 0 || rc == -EINVAL || rc == -EPROTO);
			if (rc)
				bad++;
			else
				ok++;
		}
	}
	/* Both outcomes happened: the generator is not all noise. */
	CHECK(ok > 1000 && bad > 1000);
	raw_free(&v);
	raw_free(&r);
}

/* AP_FILE and AP_FILE_DONE: a round trip with every field, the request
 * rules and malformed entries. */
static void t_files(void)
{
	static const struct ap_file_entry ents[] = {
		{AP_FT_FILE, 0644, 5, 1700000000123ull, "a.txt", 5},
		{AP_FT_DIR, 0755, 0, 1, "dir/sub", 7},
		{AP_FT_SYMLINK, 0777, 11, (uint64_t)1 << 40, "", 0},
	};
	const struct ap_file q = {
		.op = AP_FOP_READ,
		.path = "x/y.bin",
		.path_len = 7,
		.data = (const unsigned char *)"\0\1",
		.data_len = 2,
		.flags = AP_FF_RECURSIVE | AP_FF_PARENTS,
		.offset = (uint64_t)5 << 32 | 7,
		.length = 65536,
		.cursor = "c",
		.cursor_len = 1,
		.timeout_ms = 9,
	};
	struct ap_buf b, packed;
	struct ap_reader rd;
	struct ap_frame f;
	struct ap_file got;
	struct ap_file_done d, back;
	struct ap_file_entry e;
	struct raw r = {0};
	struct error err;
	size_t i, off = 0;

	ap_buf_init(&b);
	ap_reader_init(&rd);
	CHECK(ap_file_encode(&b, 41, &q) == 0);
	CHECK(read_back(&rd, &b, 3, &f) == 1);
	CHECK(f.type == AP_FILE && f.id == 41);
	CHECK(ap_file_decode(&f, &got, &err) == 0);
	CHECK(got.op == q.op && got.flags == q.flags &&
	      got.offset == q.offset && got.length == q.length &&
	      got.timeout_ms == q.timeout_ms && !got.path2);
	CHECK(same_bytes(got.path, got.path_len, q.path, q.path_len));
	CHECK(same_bytes(got.data, got.data_len, q.data, q.data_len));
	CHECK(same_bytes(got.cursor, got.cursor_len, "c", 1));

	ap_buf_init(&packed);
	for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		CHECK(ap_file_entry_pack(&packed, &ents[i]) == 0);
	memset(&d, 0, sizeof(d));
	d.status = AP_FS_OK;
	d.data = (const unsigned char *)"bytes";
	d.data_len = 5;
	d.has_size = 1;
	d.size = (uint64_t)3 << 33;
	d.eof = 1;
	d.created = 1;
	d.entries = packed.data;
	d.entries_len = packed.len;
	d.cursor = "dir/sub";
	d.cursor_len = 7;
	b.len = b.frame_start = 0;
	CHECK(ap_file_done_encode(&b, 42, &d) == 0);
	CHECK(read_back(&rd, &b, 7, &f) == 1);
	CHECK(ap_file_done_decode(&f, &back, &err) == 0);
	CHECK(back.status == 0 && back.has_size && back.size == d.size &&
	      back.eof && back.created && back.nentries == 3 && !back.message);
	CHECK(same_bytes(back.data, back.data_len, "bytes", 5));
	CHECK(same_bytes(back.cursor, back.cursor_len, "dir/sub", 7));
	for (i = 0; ap_file_entry_next(&back, &off, &e); i++) {
		CHECK(e.type == ents[i].type && e.mode == ents[i].mode &&
		      e.size == ents[i].size && e.mtime_ms == ents[i].mtime_ms);
		CHECK(same_bytes(e.name, e.name_len, ents[i].name,
				 ents[i].name_len));
	}
	CHECK(i == 3);
	ap_buf_close(&packed);
	ap_buf_close(&b);
	ap_reader_close(&rd);

	/* The request's rules. */
	raw_begin(&r, AP_FILE, 1);
	raw_str(&r, AP_T_PATH, "a");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "unknown file operation");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_MOVE + 1);
	raw_str(&r, AP_T_PATH, "a");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "unknown file operation");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_READ);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PATH missing, empty or too long");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_READ);
	raw_str(&r, AP_T_PATH, "");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PATH missing, empty or too long");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_MOVE);
	raw_str(&r, AP_T_PATH, "a");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PATH2 missing, empty or too long");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_WRITE);
	raw_str(&r, AP_T_PATH, "a");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "DATA missing");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_WRITE);
	raw_str(&r, AP_T_PATH, "a");
	raw_field(&r, AP_T_DATA, "", 0); /* an empty file */
	raw_end(&r);
	EXPECT(&r, 0, NULL);
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_READ);
	raw_str(&r, AP_T_PATH, "a");
	raw_field(&r, AP_T_OFFSET, "1234", 4);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "u64 field of the wrong length");
	raw_begin(&r, AP_FILE, 1);
	raw_u32(&r, AP_T_FILE_OP, AP_FOP_READ);
	raw_field(&r, AP_T_PATH, "a\0b", 3);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "string field contains a NUL byte");

	/* Entries that do not add up. */
	raw_begin(&r, AP_FILE_DONE, 1);
	raw_field(&r, AP_T_ENTRIES, "\1\0\0\1\244", 5);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "malformed entries");
	raw_begin(&r, AP_FILE_DONE, 1);
	raw_field(&r, AP_T_ENTRIES,
		  "\1\0\0\1\244\0\0\0\0\0\0\0\4\0\0\0\0\0\0\0\5\0\3ab", 25);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "malformed entries");
	raw_begin(&r, AP_FILE_DONE, 1);
	raw_field(&r, AP_T_ENTRIES,
		  "\1\0\0\1\244\0\0\0\0\0\0\0\4\0\0\0\0\0\0\0\5\0\2a\0", 25);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "malformed entries");
	raw_begin(&r, AP_FILE_DONE, 1);
	raw_field(&r, AP_T_ENTRIES, "", 0);
	raw_end(&r);
	EXPECT(&r, 0, NULL);
}

/* AP_PRESTART (docs/agent-protocol.md): AP_EXEC's order, then WAIT_ARG
 * and WAIT_ENV; the round trip; what it refuses. AP_PRESTART_DONE is
 * AP_RESET_DONE's fields under its own type, and AP_EXEC_DONE's
 * PRESTARTED comes last. */
static void t_prestart(void)
{
	static const char *const wait_v[] = {"bash", "main.sh", NULL};
	static const char *const wenv_v[] = {"BASH_ENV=/opt/sbx/w", NULL};
	const struct ap_exec m = {
		.file_name = "main.sh",
		.run_argv = run_v,
		.env = env_v,
		.seccomp_deny = deny_v,
		.wait_argv = wait_v,
		.wait_env = wenv_v,
	};
	const struct ap_reset_done ok = {.ok = 1};
	const struct ap_exec_done done = {.has_exit_code = 1, .prestarted = 1};
	struct ap_exec_done limited = {.has_exit_code = 1};
	struct ap_reset_done rd;
	struct ap_exec_done dd;
	struct ap_exec x;
	struct ap_frame f;
	struct ap_buf b;
	struct raw r = {0};
	struct error err;
	size_t i;

	raw_begin(&r, AP_PRESTART, 12);
	raw_str(&r, AP_T_FILE_NAME, "main.sh");
	for (i = 0; run_v[i]; i++)
		raw_str(&r, AP_T_RUN_ARG, run_v[i]);
	for (i = 0; env_v[i]; i++)
		raw_str(&r, AP_T_ENV, env_v[i]);
	for (i = 0; deny_v[i]; i++)
		raw_str(&r, AP_T_SECCOMP_DENY, deny_v[i]);
	raw_u32(&r, AP_T_TIMEOUT_MS, 0);
	raw_u32(&r, AP_T_STDOUT_CAP, 0);
	raw_u32(&r, AP_T_STDERR_CAP, 0);
	raw_str(&r, AP_T_WAIT_ARG, "bash");
	raw_str(&r, AP_T_WAIT_ARG, "main.sh");
	raw_str(&r, AP_T_WAIT_ENV, "BASH_ENV=/opt/sbx/w");
	raw_end(&r);
	ap_buf_init(&b);
	CHECK(ap_prestart_encode(&b, 12, &m) == 0);
	CHECK(same_wire(&b, &r));
	f = (struct ap_frame){.type = AP_PRESTART,
			      .id = 12,
			      .payload = b.data + AP_HEADER_LEN,
			      .len = b.len - AP_HEADER_LEN};
	CHECK(ap_prestart_decode(&f, &x, &err) == 0);
	CHECK(x.file_name && strcmp(x.file_name, "main.sh") == 0);
	CHECK(x.wait_argv[0] && strcmp(x.wait_argv[1], "main.sh") == 0 &&
	      !x.wait_argv[2]);
	CHECK(x.wait_env[0] && strcmp(x.wait_env[0], wenv_v[0]) == 0 &&
	      !x.wait_env[1]);
	CHECK(x.run_argv[0] && strcmp(x.run_argv[0], run_v[0]) == 0);
	ap_exec_free(&x);
	/* Not an AP_EXEC. */
	CHECK(ap_exec_decode(&f, &x, &err) == -EINVAL);
	raw_free(&r);
	ap_buf_close(&b);

	/* What it refuses. */
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_str(&r, AP_T_BUILD_ARG, "make");
	raw_end(&r);
	EXPECT(&r, -EINVAL,
	       "AP_PRESTART with BUILD_ARG, REPL_ARG, FILE_DATA or STDIN");
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_field(&r, AP_T_STDIN, "x", 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL,
	       "AP_PRESTART with BUILD_ARG, REPL_ARG, FILE_DATA or STDIN");
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_str(&r, AP_T_WAIT_ENV, "NOEQUALS");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "WAIT_ENV entry is not KEY=VALUE");
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_str(&r, AP_T_WAIT_ARG, "");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "empty program name");
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_WAIT_ARG, "bash");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "AP_EXEC without RUN_ARG or REPL_ARG");
	raw_begin(&r, AP_PRESTART, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_field(&r, AP_T_WAIT_ARG, "a\0b", 3);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "string field contains a NUL byte");

	/* The reply, and the flag of the result. */
	raw_begin(&r, AP_PRESTART_DONE, 13);
	raw_u8(&r, AP_T_OK, 1);
	raw_end(&r);
	ap_buf_init(&b);
	CHECK(ap_prestart_done_encode(&b, 13, &ok) == 0);
	CHECK(same_wire(&b, &r));
	f = (struct ap_frame){.type = AP_PRESTART_DONE,
			      .id = 13,
			      .payload = b.data + AP_HEADER_LEN,
			      .len = b.len - AP_HEADER_LEN};
	CHECK(ap_prestart_done_decode(&f, &rd, &err) == 0 && rd.ok == 1);
	CHECK(ap_reset_done_decode(&f, &rd, &err) == -EINVAL);
	raw_free(&r);
	ap_buf_close(&b);
	ap_buf_init(&b);
	CHECK(ap_exec_done_encode(&b, 14, &done) == 0);
	f = (struct ap_frame){.type = AP_EXEC_DONE,
			      .id = 14,
			      .payload = b.data + AP_HEADER_LEN,
			      .len = b.len - AP_HEADER_LEN};
	CHECK(ap_exec_done_decode(&f, &dd, &err) == 0 && dd.prestarted == 1);
	CHECK(b.data[b.len - 6] == AP_T_PRESTARTED);
	ap_buf_close(&b);

	/* The limits a call ran into: a u32 last, absent when none. */
	ap_buf_init(&b);
	limited.limits = AP_LIMIT_PIDS | AP_LIMIT_TMP;
	CHECK(ap_exec_done_encode(&b, 15, &limited) == 0);
	f = (struct ap_frame){.type = AP_EXEC_DONE,
			      .id = 15,
			      .payload = b.data + AP_HEADER_LEN,
			      .len = b.len - AP_HEADER_LEN};
	CHECK(ap_exec_done_decode(&f, &dd, &err) == 0 &&
	      dd.limits == (AP_LIMIT_PIDS | AP_LIMIT_TMP));
	CHECK(b.data[b.len - 9] == AP_T_LIMITS);
	ap_buf_close(&b);
	ap_buf_init(&b);
	CHECK(ap_exec_done_encode(&b, 16, &done) == 0);
	f = (struct ap_frame){.type = AP_EXEC_DONE,
			      .id = 16,
			      .payload = b.data + AP_HEADER_LEN,
			      .len = b.len - AP_HEADER_LEN};
	CHECK(ap_exec_done_decode(&f, &dd, &err) == 0 && dd.limits == 0);
	ap_buf_close(&b);
}

/* AP_SPAWN, AP_PROC and AP_PROC_DONE: round trips with every field, the
 * requests' rules and malformed entries. */
static void t_procs(void)
{
	static const char *const argv[] = {"/bin/sh", "-c", "echo hi", NULL};
	static const char *const env[] = {"A=1", NULL};
	static const char *const deny[] = {"ptrace", NULL};
	static const struct ap_proc_entry ents[] = {
		{7, AP_PST_RUNNING, AP_PF_OUTPUT_OPEN, 0, 1700000000123ull, 0,
		 0, 12, "echo hi", 7},
		{9, AP_PST_KILLED, AP_PF_GROUP_ALIVE, 15, 1, 2,
		 (uint64_t)1 << 40, ((uint64_t)1 << 40) + 5, "", 0},
	};
	const struct ap_spawn sp = {
		.x = {.run_argv = argv, .env = env, .seccomp_deny = deny},
		.label = "echo hi",
		.label_len = 7,
		.max_live = 3,
		.ring = 4096,
	};
	const struct ap_proc q = {
		.op = AP_POP_LOGS,
		.pid = 7,
		.has_offset = 1,
		.offset = 0,
		.length = 100,
		.signal = 15,
		.timeout_ms = 9,
	};
	struct ap_buf b, packed;
	struct ap_reader rd;
	struct ap_frame f;
	struct ap_spawn gs;
	struct ap_proc gq;
	struct ap_proc_done d = {0}, back;
	struct ap_proc_entry e;
	struct raw r = {0};
	struct error err;
	size_t i, off = 0;

	ap_buf_init(&b);
	ap_reader_init(&rd);
	CHECK(ap_spawn_encode(&b, 51, &sp) == 0);
	CHECK(read_back(&rd, &b, 5, &f) == 1);
	CHECK(f.type == AP_SPAWN && f.id == 51);
	CHECK(ap_spawn_decode(&f, &gs, &err) == 0);
	CHECK(same_vec(argv, gs.x.run_argv) && same_vec(env, gs.x.env) &&
	      same_vec(deny, gs.x.seccomp_deny));
	CHECK(same_bytes(gs.label, gs.label_len, "echo hi", 7));
	CHECK(gs.max_live == 3 && gs.ring == 4096);
	ap_exec_free(&gs.x);

	b.len = b.frame_start = 0;
	CHECK(ap_proc_encode(&b, 52, &q) == 0);
	CHECK(read_back(&rd, &b, 3, &f) == 1);
	CHECK(ap_proc_decode(&f, &gq, &err) == 0);
	CHECK(gq.op == q.op && gq.pid == 7 && gq.has_offset && gq.offset == 0 &&
	      gq.length == 100 && gq.signal == 15 && gq.timeout_ms == 9);

	ap_buf_init(&packed);
	for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
		CHECK(ap_proc_entry_pack(&packed, &ents[i]) == 0);
	d.status = AP_PS_OK;
	d.message = "note";
	d.message_len = 4;
	d.entries = packed.data;
	d.entries_len = packed.len;
	d.data = (const unsigned char *)"\0out";
	d.data_len = 4;
	d.offset = (uint64_t)3 << 33;
	d.timed_out = 1;
	b.len = b.frame_start = 0;
	CHECK(ap_proc_done_encode(&b, 53, &d) == 0);
	CHECK(read_back(&rd, &b, 7, &f) == 1);
	CHECK(ap_proc_done_decode(&f, &back, &err) == 0);
	CHECK(back.status == AP_PS_OK && back.nentries == 2 &&
	      back.offset == d.offset && back.timed_out == 1);
	CHECK(same_bytes(back.message, back.message_len, "note", 4));
	CHECK(same_bytes(back.data, back.data_len, "\0out", 4));
	for (i = 0; ap_proc_entry_next(&back, &off, &e); i++) {
		CHECK(e.pid == ents[i].pid && e.state == ents[i].state &&
		      e.flags == ents[i].flags && e.code == ents[i].code &&
		      e.started_ms == ents[i].started_ms &&
		      e.ended_ms == ents[i].ended_ms &&
		      e.log_start == ents[i].log_start &&
		      e.log_end == ents[i].log_end);
		CHECK(same_bytes(e.label, e.label_len, ents[i].label,
				 ents[i].label_len));
	}
	CHECK(i == 2);
	ap_buf_close(&packed);
	ap_buf_close(&b);
	ap_reader_close(&rd);

	/* The requests' rules. */
	raw_begin(&r, AP_SPAWN, 1);
	raw_str(&r, AP_T_LABEL, "x");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "AP_EXEC without RUN_ARG or REPL_ARG");
	raw_begin(&r, AP_SPAWN, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_str(&r, AP_T_FILE_NAME, "main.py");
	raw_end(&r);
	EXPECT(&r, -EINVAL,
	       "AP_SPAWN with BUILD_ARG, REPL_ARG, FILE_NAME, FILE_DATA, "
	       "STDIN, WAIT_ARG or WAIT_ENV");
	raw_begin(&r, AP_SPAWN, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_str(&r, AP_T_LABEL, "a");
	raw_str(&r, AP_T_LABEL, "b");
	raw_end(&r);
	EXPECT(&r, -EINVAL, "duplicate field");
	raw_begin(&r, AP_SPAWN, 1);
	raw_str(&r, AP_T_RUN_ARG, "true");
	raw_u8(&r, AP_T_RING, 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "u32 field of the wrong length");
	raw_begin(&r, AP_PROC, 1);
	raw_u32(&r, AP_T_PROC_OP, 9);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "unknown process operation");
	raw_begin(&r, AP_PROC, 1);
	raw_u32(&r, AP_T_PROC_OP, AP_POP_WAIT);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PID missing");
	raw_begin(&r, AP_PROC, 1);
	raw_u32(&r, AP_T_PROC_OP, AP_POP_LIST);
	raw_end(&r);
	EXPECT(&r, 0, NULL);

	/* An entry cut short, and a label with a NUL. */
	raw_begin(&r, AP_PROC_DONE, 1);
	raw_u32(&r, AP_T_STATUS, 0);
	raw_field(&r, AP_T_ENTRIES, "\0\0\0\7", 4);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "malformed entries");
	ap_buf_init(&packed);
	e = ents[0];
	e.label = "a\0b";
	e.label_len = 3;
	CHECK(ap_proc_entry_pack(&packed, &e) == 0);
	raw_begin(&r, AP_PROC_DONE, 1);
	raw_field(&r, AP_T_ENTRIES, packed.data, packed.len);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "malformed entries");
	ap_buf_close(&packed);
}

/* AP_EXCHANGE and AP_EXCHANGE_DONE: round trips and the request's
 * rules. */
static void t_exchange(void)
{
	const struct ap_exchange q = {
		.port = 8080,
		.data = (const unsigned char *)"GET / HTTP/1.1\r\n\r\n",
		.data_len = 18,
		.length = 1u << 20,
		.timeout_ms = 500,
	};
	const struct ap_exchange_done d = {
		.status = AP_XS_TIMEOUT,
		.message = "slow",
		.message_len = 4,
		.data = (const unsigned char *)"HTTP/1.1 200 OK\r\n",
		.data_len = 17,
		.truncated = 1,
		.duration_ms = 501,
	};
	struct ap_exchange gq;
	struct ap_exchange_done gd;
	struct ap_reader rd;
	struct ap_frame f;
	struct ap_buf b;
	struct raw r = {0};
	struct error err;

	ap_buf_init(&b);
	ap_reader_init(&rd);
	CHECK(ap_exchange_encode(&b, 61, &q) == 0);
	CHECK(read_back(&rd, &b, 4, &f) == 1);
	CHECK(f.type == AP_EXCHANGE && f.id == 61);
	CHECK(ap_exchange_decode(&f, &gq, &err) == 0);
	CHECK(gq.port == 8080 && gq.length == q.length && gq.timeout_ms == 500);
	CHECK(same_bytes(gq.data, gq.data_len, q.data, q.data_len));
	b.len = b.frame_start = 0;
	CHECK(ap_exchange_done_encode(&b, 62, &d) == 0);
	CHECK(read_back(&rd, &b, 5, &f) == 1);
	CHECK(ap_exchange_done_decode(&f, &gd, &err) == 0);
	CHECK(gd.status == AP_XS_TIMEOUT && gd.truncated == 1 &&
	      gd.duration_ms == 501);
	CHECK(same_bytes(gd.message, gd.message_len, "slow", 4));
	CHECK(same_bytes(gd.data, gd.data_len, d.data, d.data_len));
	ap_buf_close(&b);
	ap_reader_close(&rd);

	raw_begin(&r, AP_EXCHANGE, 1);
	raw_field(&r, AP_T_DATA, "x", 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PORT missing or not 1..65535");
	raw_begin(&r, AP_EXCHANGE, 1);
	raw_u32(&r, AP_T_PORT, 65536);
	raw_field(&r, AP_T_DATA, "x", 1);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "PORT missing or not 1..65535");
	raw_begin(&r, AP_EXCHANGE, 1);
	raw_u32(&r, AP_T_PORT, 80);
	raw_end(&r);
	EXPECT(&r, -EINVAL, "DATA missing");
	raw_begin(&r, AP_EXCHANGE, 1);
	raw_u32(&r, AP_T_PORT, 80);
	raw_field(&r, AP_T_DATA, "", 0);
	raw_end(&r);
	EXPECT(&r, 0, NULL);
}

int main(void)
{
	t_wire_exec();
	t_prestart();
	t_wire_replies();
	t_round_trip_exec();
	t_round_trip_replies();
	t_limits();
	t_reader();
	t_prefixes();
	t_exec_rules();
	t_reply_rules();
	t_files();
	t_procs();
	t_exchange();
	t_garbage();
	return t_summary("agent_proto");
}
