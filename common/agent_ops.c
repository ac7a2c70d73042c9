/*
 * agent_ops.c - encoders and decoders of the agent protocol's messages
 * (agent_ops.h), on the field primitives of agent_tlv.h.
 */
#include "agent_ops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_tlv.h"

/* ---- encoding --------------------------------------------------------- */

static int put_str(struct ap_buf *b, uint8_t tag, const char *s)
{
	return ap_put(b, tag, s, strlen(s));
}

/* One field per entry; stops at the first failure (which removed the
 * frame). */
static int put_vec(struct ap_buf *b, uint8_t tag, const char *const *v)
{
	int rc = 0;

	for (; v && *v && !rc; v++)
		rc = put_str(b, tag, *v);
	return rc;
}

static int put_empty(struct ap_buf *b, uint8_t type, uint32_t id)
{
	int rc = ap_frame_begin(b, type, id);

	return rc ? rc : ap_frame_end(b);
}

int ap_hello_encode(struct ap_buf *b, uint32_t id)
{
	return put_empty(b, AP_HELLO, id);
}

int ap_reset_encode(struct ap_buf *b, uint32_t id)
{
	return put_empty(b, AP_RESET, id);
}

int ap_cancel_encode(struct ap_buf *b, uint32_t id)
{
	return put_empty(b, AP_CANCEL, id);
}

int ap_keep_encode(struct ap_buf *b, uint32_t id)
{
	return put_empty(b, AP_KEEP, id);
}

static int exec_encode(struct ap_buf *b, uint8_t type, uint32_t id,
		       const struct ap_exec *m)
{
	int rc = ap_frame_begin(b, type, id);

	if (!rc && m->file_name)
		rc = put_str(b, AP_T_FILE_NAME, m->file_name);
	if (!rc && m->file_data)
		rc = ap_put(b, AP_T_FILE_DATA, m->file_data, m->file_len);
	if (!rc)
		rc = put_vec(b, AP_T_BUILD_ARG, m->build_argv);
	if (!rc)
		rc = put_vec(b, AP_T_RUN_ARG, m->run_argv);
	if (!rc)
		rc = put_vec(b, AP_T_REPL_ARG, m->repl_argv);
	if (!rc && m->repl_argv && m->repl_argv[0])
		rc = ap_put_u32(b, AP_T_REPL_SEQ, m->repl_seq);
	if (!rc && m->grace_ms)
		rc = ap_put_u32(b, AP_T_GRACE_MS, m->grace_ms);
	if (!rc && m->stream_ms)
		rc = ap_put_u32(b, AP_T_STREAM_MS, m->stream_ms);
	if (!rc && m->artifacts)
		rc = ap_put_u32(b, AP_T_ARTIFACTS, m->artifacts);
	if (!rc)
		rc = put_vec(b, AP_T_ENV, m->env);
	if (!rc)
		rc = put_vec(b, AP_T_SECCOMP_DENY, m->seccomp_deny);
	if (!rc)
		rc = ap_put_u32(b, AP_T_TIMEOUT_MS, m->timeout_ms);
	if (!rc)
		rc = ap_put_u32(b, AP_T_STDOUT_CAP, m->stdout_cap);
	if (!rc)
		rc = ap_put_u32(b, AP_T_STDERR_CAP, m->stderr_cap);
	if (!rc && m->stdin_data)
		rc = ap_put(b, AP_T_STDIN, m->stdin_data, m->stdin_len);
	if (!rc)
		rc = put_vec(b, AP_T_WAIT_ARG, m->wait_argv);
	if (!rc)
		rc = put_vec(b, AP_T_WAIT_ENV, m->wait_env);
	return rc ? rc : ap_frame_end(b);
}

int ap_exec_encode(struct ap_buf *b, uint32_t id, const struct ap_exec *m)
{
	return exec_encode(b, AP_EXEC, id, m);
}

int ap_prestart_encode(struct ap_buf *b, uint32_t id, const struct ap_exec *m)
{
	return exec_encode(b, AP_PRESTART, id, m);
}

int ap_hello_ok_encode(struct ap_buf *b, uint32_t id,
		       const struct ap_hello_ok *m)
{
	int rc = ap_frame_begin(b, AP_HELLO_OK, id);

	if (!rc)
		rc = ap_put_u32(b, AP_T_VERSION, m->version);
	if (!rc && m->workdir)
		rc = ap_put(b, AP_T_WORKDIR, m->workdir, m->workdir_len);
	return rc ? rc : ap_frame_end(b);
}

int ap_exec_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_exec_done *m)
{
	int rc = ap_frame_begin(b, AP_EXEC_DONE, id);

	if (!rc && m->has_exit_code)
		rc = ap_put_u32(b, AP_T_EXIT_CODE, m->exit_code);
	if (!rc && m->has_signal)
		rc = ap_put_u32(b, AP_T_SIGNAL, m->signal);
	if (!rc)
		rc = ap_put_u8(b, AP_T_TIMED_OUT, m->timed_out);
	if (!rc)
		rc = ap_put_u8(b, AP_T_CANCELLED, m->cancelled);
	if (!rc)
		rc = ap_put_u32(b, AP_T_DURATION_MS, m->duration_ms);
	if (!rc && m->out)
		rc = ap_put(b, AP_T_STDOUT, m->out, m->out_len);
	if (!rc && m->err)
		rc = ap_put(b, AP_T_STDERR, m->err, m->err_len);
	if (!rc)
		rc = ap_put_u8(b, AP_T_STDOUT_TRUNC, m->out_truncated);
	if (!rc)
		rc = ap_put_u8(b, AP_T_STDERR_TRUNC, m->err_truncated);
	if (!rc && m->phase)
		rc = ap_put(b, AP_T_PHASE, m->phase, m->phase_len);
	if (!rc)
		rc = ap_put_u32(b, AP_T_SURVIVORS, m->survivors);
	if (!rc && m->repl)
		rc = ap_put_u8(b, AP_T_STATE_KEPT, m->state_kept);
	if (!rc && m->repl)
		rc = ap_put_u8(b, AP_T_FRESH, m->fresh);
	if (!rc && m->entries)
		rc = ap_put(b, AP_T_ENTRIES, m->entries, m->entries_len);
	if (!rc && m->more)
		rc = ap_put_u32(b, AP_T_MORE, m->more);
	if (!rc && m->oom_killed)
		rc = ap_put_u8(b, AP_T_OOM_KILLED, m->oom_killed);
	if (!rc && m->prestarted)
		rc = ap_put_u8(b, AP_T_PRESTARTED, m->prestarted);
	if (!rc && m->limits)
		rc = ap_put_u32(b, AP_T_LIMITS, m->limits);
	return rc ? rc : ap_frame_end(b);
}

int ap_output_encode(struct ap_buf *b, uint32_t id, const struct ap_output *m)
{
	int rc = ap_frame_begin(b, AP_OUTPUT, id);

	if (!rc && m->out)
		rc = ap_put(b, AP_T_STDOUT, m->out, m->out_len);
	if (!rc && m->err)
		rc = ap_put(b, AP_T_STDERR, m->err, m->err_len);
	return rc ? rc : ap_frame_end(b);
}

static int status_encode(struct ap_buf *b, uint8_t type, uint32_t id,
			 const struct ap_reset_done *m)
{
	int rc = ap_frame_begin(b, type, id);

	if (!rc)
		rc = ap_put_u8(b, AP_T_OK, m->ok);
	if (!rc && m->message)
		rc = ap_put(b, AP_T_MESSAGE, m->message, m->message_len);
	return rc ? rc : ap_frame_end(b);
}

int ap_reset_done_encode(struct ap_buf *b, uint32_t id,
			 const struct ap_reset_done *m)
{
	return status_encode(b, AP_RESET_DONE, id, m);
}

int ap_prestart_done_encode(struct ap_buf *b, uint32_t id,
			    const struct ap_reset_done *m)
{
	return status_encode(b, AP_PRESTART_DONE, id, m);
}

int ap_error_encode(struct ap_buf *b, uint32_t id, const struct ap_error *m)
{
	int rc = ap_frame_begin(b, AP_ERROR, id);

	if (!rc && m->message)
		rc = ap_put(b, AP_T_MESSAGE, m->message, m->message_len);
	return rc ? rc : ap_frame_end(b);
}

int ap_file_encode(struct ap_buf *b, uint32_t id, const struct ap_file *m)
{
	int rc = ap_frame_begin(b, AP_FILE, id);

	if (!rc)
		rc = ap_put_u32(b, AP_T_FILE_OP, m->op);
	if (!rc && m->path)
		rc = ap_put(b, AP_T_PATH, m->path, m->path_len);
	if (!rc && m->path2)
		rc = ap_put(b, AP_T_PATH2, m->path2, m->path2_len);
	if (!rc && m->data)
		rc = ap_put(b, AP_T_DATA, m->data, m->data_len);
	if (!rc && m->flags)
		rc = ap_put_u32(b, AP_T_FLAGS, m->flags);
	if (!rc && m->offset)
		rc = ap_put_u64(b, AP_T_OFFSET, m->offset);
	if (!rc && m->length)
		rc = ap_put_u32(b, AP_T_LENGTH, m->length);
	if (!rc && m->cursor)
		rc = ap_put(b, AP_T_CURSOR, m->cursor, m->cursor_len);
	if (!rc && m->timeout_ms)
		rc = ap_put_u32(b, AP_T_TIMEOUT_MS, m->timeout_ms);
	return rc ? rc : ap_frame_end(b);
}

int ap_spawn_encode(struct ap_buf *b, uint32_t id, const struct ap_spawn *m)
{
	int rc = ap_frame_begin(b, AP_SPAWN, id);

	if (!rc)
		rc = put_vec(b, AP_T_RUN_ARG, m->x.run_argv);
	if (!rc)
		rc = put_vec(b, AP_T_ENV, m->x.env);
	if (!rc)
		rc = put_vec(b, AP_T_SECCOMP_DENY, m->x.seccomp_deny);
	if (!rc && m->label)
		rc = ap_put(b, AP_T_LABEL, m->label, m->label_len);
	if (!rc && m->max_live)
		rc = ap_put_u32(b, AP_T_PROC_MAX, m->max_live);
	if (!rc && m->ring)
		rc = ap_put_u32(b, AP_T_RING, m->ring);
	return rc ? rc : ap_frame_end(b);
}

int ap_proc_encode(struct ap_buf *b, uint32_t id, const struct ap_proc *m)
{
	int rc = ap_frame_begin(b, AP_PROC, id);

	if (!rc)
		rc = ap_put_u32(b, AP_T_PROC_OP, m->op);
	if (!rc && m->pid)
		rc = ap_put_u32(b, AP_T_PID, m->pid);
	if (!rc && m->has_offset)
		rc = ap_put_u64(b, AP_T_OFFSET, m->offset);
	if (!rc && m->length)
		rc = ap_put_u32(b, AP_T_LENGTH, m->length);
	if (!rc && m->signal)
		rc = ap_put_u32(b, AP_T_SIGNAL, m->signal);
	if (!rc && m->timeout_ms)
		rc = ap_put_u32(b, AP_T_TIMEOUT_MS, m->timeout_ms);
	return rc ? rc : ap_frame_end(b);
}

int ap_proc_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_proc_done *m)
{
	int rc = ap_buf_reserve(b, AP_HEADER_LEN + 64 + m->message_len +
					   m->data_len + m->entries_len);

	if (!rc)
		rc = ap_frame_begin(b, AP_PROC_DONE, id);
	if (!rc)
		rc = ap_put_u32(b, AP_T_STATUS, m->status);
	if (!rc && m->message)
		rc = ap_put(b, AP_T_MESSAGE, m->message, m->message_len);
	if (!rc && m->entries)
		rc = ap_put(b, AP_T_ENTRIES, m->entries, m->entries_len);
	if (!rc && m->data)
		rc = ap_put(b, AP_T_DATA, m->data, m->data_len);
	if (!rc && m->offset)
		rc = ap_put_u64(b, AP_T_OFFSET, m->offset);
	if (!rc && m->timed_out)
		rc = ap_put_u8(b, AP_T_TIMED_OUT, m->timed_out);
	return rc ? rc : ap_frame_end(b);
}

int ap_file_done_encode(struct ap_buf *b, uint32_t id,
			const struct ap_file_done *m)
{
	/* A read's bytes are the bulk: one allocation, no regrowth. */
	int rc = ap_buf_reserve(b, AP_HEADER_LEN + 8 * 6 + 64 + m->message_len +
					   m->data_len + m->entries_len +
					   m->cursor_len);

	if (!rc)
		rc = ap_frame_begin(b, AP_FILE_DONE, id);
	if (!rc)
		rc = ap_put_u32(b, AP_T_STATUS, m->status);
	if (!rc && m->message)
		rc = ap_put(b, AP_T_MESSAGE, m->message, m->message_len);
	if (!rc && m->data)
		rc = ap_put(b, AP_T_DATA, m->data, m->data_len);
	if (!rc && m->has_size)
		rc = ap_put_u64(b, AP_T_SIZE, m->size);
	if (!rc && m->eof)
		rc = ap_put_u8(b, AP_T_EOF, m->eof);
	if (!rc && m->created)
		rc = ap_put_u8(b, AP_T_CREATED, m->created);
	if (!rc && m->entries)
		rc = ap_put(b, AP_T_ENTRIES, m->entries, m->entries_len);
	if (!rc && m->cursor)
		rc = ap_put(b, AP_T_CURSOR, m->cursor, m->cursor_len);
	return rc ? rc : ap_frame_end(b);
}

static void put_be(unsigned char *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = (unsigned char)v;
		v >>= 8;
	}
}

static uint64_t get_be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* Append a packed entry, its fixed part h (whose last two bytes hold the
 * name's length) then the name, or nothing: 0, -E2BIG or -ENOMEM. */
static int pack(struct ap_buf *b, unsigned char *h, size_t fixed,
		const char *name, size_t name_len)
{
	size_t before = b->len;
	int rc;

	if (name_len > 0xffff || b->len + fixed + name_len > AP_MAX_FRAME)
		return -E2BIG;
	put_be(h + fixed - 2, name_len, 2);
	rc = ap_buf_append(b, h, fixed);
	if (!rc && name_len)
		rc = ap_buf_append(b, name, name_len);
	if (rc)
		b->len = before;
	return rc;
}

/* The packed entry at *off of p[0..len) whose fixed part is fixed bytes
 * (the name's length in its last two): its first byte, with *name_len,
 * and *off past it; NULL at the end (*bad 0) or when malformed (*bad 1). */
static const unsigned char *unpack(const unsigned char *p, size_t len,
				   size_t *off, size_t fixed, size_t *name_len,
				   int *bad)
{
	size_t n;

	*bad = 0;
	if (*off == len)
		return NULL;
	*bad = 1;
	if (len - *off < fixed)
		return NULL;
	p += *off;
	n = (size_t)get_be(p + fixed - 2, 2);
	if (len - *off - fixed < n)
		return NULL;
	*bad = 0;
	*name_len = n;
	*off += fixed + n;
	return p;
}

int ap_file_entry_pack(struct ap_buf *b, const struct ap_file_entry *e)
{
	unsigned char h[AP_ENTRY_FIXED];

	h[0] = e->type;
	put_be(h + 1, e->mode, 4);
	put_be(h + 5, e->size, 8);
	put_be(h + 13, e->mtime_ms, 8);
	return pack(b, h, sizeof(h), e->name, e->name_len);
}

/* Parses the entry at *off of p[0..len): 1, 0 at the end, -1 malformed. */
static int entry_at(const unsigned char *p, size_t len, size_t *off,
		    struct ap_file_entry *e)
{
	int bad;

	p = unpack(p, len, off, AP_ENTRY_FIXED, &e->name_len, &bad);
	if (!p)
		return bad ? -1 : 0;
	e->type = p[0];
	e->mode = (uint32_t)get_be(p + 1, 4);
	e->size = get_be(p + 5, 8);
	e->mtime_ms = get_be(p + 13, 8);
	e->name = (const char *)p + AP_ENTRY_FIXED;
	return 1;
}

int ap_file_entry_next(const struct ap_file_done *m, size_t *off,
		       struct ap_file_entry *e)
{
	return entry_at(m->entries, m->entries_len, off, e) == 1;
}

int ap_entries_next(const unsigned char *p, size_t len, size_t *off,
		    struct ap_file_entry *e)
{
	return entry_at(p, len, off, e) == 1;
}

int ap_proc_entry_pack(struct ap_buf *b, const struct ap_proc_entry *e)
{
	unsigned char h[AP_PROC_ENTRY_FIXED];

	put_be(h, e->pid, 4);
	h[4] = e->state;
	h[5] = e->flags;
	put_be(h + 6, e->code, 4);
	put_be(h + 10, e->started_ms, 8);
	put_be(h + 18, e->ended_ms, 8);
	put_be(h + 26, e->log_start, 8);
	put_be(h + 34, e->log_end, 8);
	return pack(b, h, sizeof(h), e->label, e->label_len);
}

/* Parses the process at *off of p[0..len): 1, 0 at the end, -1
 * malformed. */
static int proc_entry_at(const unsigned char *p, size_t len, size_t *off,
			 struct ap_proc_entry *e)
{
	int bad;

	p = unpack(p, len, off, AP_PROC_ENTRY_FIXED, &e->label_len, &bad);
	if (!p)
		return bad ? -1 : 0;
	e->pid = (uint32_t)get_be(p, 4);
	e->state = p[4];
	e->flags = p[5];
	e->code = (uint32_t)get_be(p + 6, 4);
	e->started_ms = get_be(p + 10, 8);
	e->ended_ms = get_be(p + 18, 8);
	e->log_start = get_be(p + 26, 8);
	e->log_end = get_be(p + 34, 8);
	e->label = (const char *)p + AP_PROC_ENTRY_FIXED;
	return 1;
}

int ap_proc_entry_next(const struct ap_proc_done *m, size_t *off,
		       struct ap_proc_entry *e)
{
	return proc_entry_at(m->entries, m->entries_len, off, e) == 1;
}

/* ---- decoding the replies --------------------------------------------- */

/* Walks one frame's fields for a reply decoder; remembers which tags came
 * so a repeated one is refused. */
struct dec {
	const struct ap_frame *f;
	size_t off;
	struct ap_field fl;
	uint64_t seen[4];  /* a bit per tag */
	struct error *err; /* the caller's, or NULL */
};

static int dec_start(struct dec *d, const struct ap_frame *f, uint8_t type,
		     struct error *err)
{
	memset(d, 0, sizeof(*d));
	d->f = f;
	d->err = err;
	if (f->type != type)
		return error_set(err, -EINVAL, "unexpected frame type");
	return 0;
}

/* 1 with d->fl set, 0 at the end, -EPROTO. */
static int dec_next(struct dec *d)
{
	int rc = ap_next_field(d->f, &d->off, &d->fl);

	if (rc < 0)
		return error_set(d->err, rc,
				 "a field runs past the end of the frame");
	return rc;
}

/* A known, single-valued field: refused the second time. */
static int dec_once(struct dec *d)
{
	uint64_t bit = (uint64_t)1 << (d->fl.tag & 63);
	uint64_t *w = &d->seen[d->fl.tag >> 6];

	if (*w & bit)
		return error_set(d->err, -EINVAL, "duplicate field");
	*w |= bit;
	return 0;
}

static int dec_u32(struct dec *d, uint32_t *v)
{
	int rc = dec_once(d);

	if (rc)
		return rc;
	if (d->fl.len != 4)
		return error_set(d->err, -EINVAL,
				 "u32 field of the wrong length");
	*v = ap_field_u32(&d->fl);
	return 0;
}

static int dec_u8(struct dec *d, uint8_t *v)
{
	int rc = dec_once(d);

	if (rc)
		return rc;
	if (d->fl.len != 1)
		return error_set(d->err, -EINVAL,
				 "u8 field of the wrong length");
	*v = ap_field_u8(&d->fl);
	return 0;
}

static int dec_u64(struct dec *d, uint64_t *v)
{
	int rc = dec_once(d);

	if (rc)
		return rc;
	if (d->fl.len != 8)
		return error_set(d->err, -EINVAL,
				 "u64 field of the wrong length");
	*v = ap_field_u64(&d->fl);
	return 0;
}

static int dec_bytes(struct dec *d, const unsigned char **p, size_t *len)
{
	int rc = dec_once(d);

	if (rc)
		return rc;
	*p = d->fl.data;
	*len = d->fl.len;
	return 0;
}

static int dec_str(struct dec *d, const char **p, size_t *len)
{
	int rc = dec_once(d);

	if (rc)
		return rc;
	if (memchr(d->fl.data, 0, d->fl.len))
		return error_set(d->err, -EINVAL,
				 "string field contains a NUL byte");
	*p = (const char *)d->fl.data;
	*len = d->fl.len;
	return 0;
}

/* The common tail of every reply decoder: rc is the last step's, whose
 * failure already filled the caller's error. */
static int dec_end(int rc, void *m, size_t size)
{
	if (rc >= 0)
		return 0;
	memset(m, 0, size);
	return rc;
}

int ap_hello_ok_decode(const struct ap_frame *f, struct ap_hello_ok *m,
		       struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_HELLO_OK, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_VERSION:
			rc = dec_u32(&d, &m->version);
			break;
		case AP_T_WORKDIR:
			rc = dec_str(&d, &m->workdir, &m->workdir_len);
			break;
		default:
			rc = 0;
			break;
		}
	}
	return dec_end(rc, m, sizeof(*m));
}

/* 0 with *n the number of entries in p[0..len) when each is whole and
 * its name has no NUL; else -EINVAL. */
static int count_entries(struct dec *d, const unsigned char *p, size_t len,
			 uint32_t *n)
{
	struct ap_file_entry e;
	size_t off = 0;
	int r;

	while ((r = entry_at(p, len, &off, &e))) {
		if (r < 0 || memchr(e.name, 0, e.name_len))
			return error_set(d->err, -EINVAL, "malformed entries");
		++*n;
	}
	return 0;
}

int ap_exec_done_decode(const struct ap_frame *f, struct ap_exec_done *m,
			struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_EXEC_DONE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_EXIT_CODE:
			m->has_exit_code = 1;
			rc = dec_u32(&d, &m->exit_code);
			break;
		case AP_T_SIGNAL:
			m->has_signal = 1;
			rc = dec_u32(&d, &m->signal);
			break;
		case AP_T_TIMED_OUT:
			rc = dec_u8(&d, &m->timed_out);
			break;
		case AP_T_CANCELLED:
			rc = dec_u8(&d, &m->cancelled);
			break;
		case AP_T_DURATION_MS:
			rc = dec_u32(&d, &m->duration_ms);
			break;
		case AP_T_STDOUT:
			rc = dec_bytes(&d, &m->out, &m->out_len);
			break;
		case AP_T_STDERR:
			rc = dec_bytes(&d, &m->err, &m->err_len);
			break;
		case AP_T_STDOUT_TRUNC:
			rc = dec_u8(&d, &m->out_truncated);
			break;
		case AP_T_STDERR_TRUNC:
			rc = dec_u8(&d, &m->err_truncated);
			break;
		case AP_T_PHASE:
			rc = dec_str(&d, &m->phase, &m->phase_len);
			break;
		case AP_T_SURVIVORS:
			rc = dec_u32(&d, &m->survivors);
			break;
		case AP_T_STATE_KEPT:
			m->repl = 1;
			rc = dec_u8(&d, &m->state_kept);
			break;
		case AP_T_FRESH:
			m->repl = 1;
			rc = dec_u8(&d, &m->fresh);
			break;
		case AP_T_ENTRIES:
			rc = dec_bytes(&d, &m->entries, &m->entries_len);
			break;
		case AP_T_MORE:
			rc = dec_u32(&d, &m->more);
			break;
		case AP_T_OOM_KILLED:
			rc = dec_u8(&d, &m->oom_killed);
			break;
		case AP_T_PRESTARTED:
			rc = dec_u8(&d, &m->prestarted);
			break;
		case AP_T_LIMITS:
			rc = dec_u32(&d, &m->limits);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc >= 0)
		rc = count_entries(&d, m->entries, m->entries_len,
				   &m->nentries);
	return dec_end(rc, m, sizeof(*m));
}

int ap_output_decode(const struct ap_frame *f, struct ap_output *m,
		     struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_OUTPUT, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		if (d.fl.tag == AP_T_STDOUT)
			rc = dec_bytes(&d, &m->out, &m->out_len);
		else if (d.fl.tag == AP_T_STDERR)
			rc = dec_bytes(&d, &m->err, &m->err_len);
		else
			rc = 0;
	}
	return dec_end(rc, m, sizeof(*m));
}

static int status_decode(const struct ap_frame *f, uint8_t type,
			 struct ap_reset_done *m, struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, type, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		if (d.fl.tag == AP_T_OK)
			rc = dec_u8(&d, &m->ok);
		else if (d.fl.tag == AP_T_MESSAGE)
			rc = dec_str(&d, &m->message, &m->message_len);
		else
			rc = 0;
	}
	return dec_end(rc, m, sizeof(*m));
}

int ap_reset_done_decode(const struct ap_frame *f, struct ap_reset_done *m,
			 struct error *err)
{
	return status_decode(f, AP_RESET_DONE, m, err);
}

int ap_prestart_done_decode(const struct ap_frame *f, struct ap_reset_done *m,
			    struct error *err)
{
	return status_decode(f, AP_PRESTART_DONE, m, err);
}

int ap_error_decode(const struct ap_frame *f, struct ap_error *m,
		    struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_ERROR, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		if (d.fl.tag == AP_T_MESSAGE)
			rc = dec_str(&d, &m->message, &m->message_len);
		else
			rc = 0;
	}
	return dec_end(rc, m, sizeof(*m));
}

int ap_file_done_decode(const struct ap_frame *f, struct ap_file_done *m,
			struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_FILE_DONE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_STATUS:
			rc = dec_u32(&d, &m->status);
			break;
		case AP_T_MESSAGE:
			rc = dec_str(&d, &m->message, &m->message_len);
			break;
		case AP_T_DATA:
			rc = dec_bytes(&d, &m->data, &m->data_len);
			break;
		case AP_T_SIZE:
			rc = dec_u64(&d, &m->size);
			m->has_size = 1;
			break;
		case AP_T_EOF:
			rc = dec_u8(&d, &m->eof);
			break;
		case AP_T_CREATED:
			rc = dec_u8(&d, &m->created);
			break;
		case AP_T_ENTRIES:
			rc = dec_bytes(&d, &m->entries, &m->entries_len);
			break;
		case AP_T_CURSOR:
			rc = dec_str(&d, &m->cursor, &m->cursor_len);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc >= 0)
		rc = count_entries(&d, m->entries, m->entries_len,
				   &m->nentries);
	return dec_end(rc, m, sizeof(*m));
}

int ap_file_decode(const struct ap_frame *f, struct ap_file *m,
		   struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_FILE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_FILE_OP:
			rc = dec_u32(&d, &m->op);
			break;
		case AP_T_PATH:
			rc = dec_str(&d, &m->path, &m->path_len);
			break;
		case AP_T_PATH2:
			rc = dec_str(&d, &m->path2, &m->path2_len);
			break;
		case AP_T_DATA:
			rc = dec_bytes(&d, &m->data, &m->data_len);
			break;
		case AP_T_FLAGS:
			rc = dec_u32(&d, &m->flags);
			break;
		case AP_T_OFFSET:
			rc = dec_u64(&d, &m->offset);
			break;
		case AP_T_LENGTH:
			rc = dec_u32(&d, &m->length);
			break;
		case AP_T_CURSOR:
			rc = dec_str(&d, &m->cursor, &m->cursor_len);
			break;
		case AP_T_TIMEOUT_MS:
			rc = dec_u32(&d, &m->timeout_ms);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc >= 0) {
		const char *why = NULL;

		if (m->op < AP_FOP_WRITE || m->op > AP_FOP_MOVE)
			why = "unknown file operation";
		else if (!m->path || !m->path_len || m->path_len > AP_PATH_MAX)
			why = "PATH missing, empty or too long";
		else if (m->op == AP_FOP_MOVE && (!m->path2 || !m->path2_len ||
						  m->path2_len > AP_PATH_MAX))
			why = "PATH2 missing, empty or too long";
		else if (m->op == AP_FOP_WRITE && !m->data)
			why = "DATA missing";
		else if (m->cursor && m->cursor_len > AP_PATH_MAX)
			why = "CURSOR too long";
		if (why)
			rc = error_set_msg(err, -EINVAL, why);
	}
	return dec_end(rc, m, sizeof(*m));
}

/* ---- decoding AP_EXEC ------------------------------------------------- */

/* The agent keeps the request while the execution runs, long after the
 * reader has reused the frame's bytes, so this decoder copies. Its checks
 * and their messages are the agent's from before the codec existed: the
 * host shows them to users. */

static int is_exec_u32(uint8_t tag)
{
	return tag == AP_T_TIMEOUT_MS || tag == AP_T_STDOUT_CAP ||
	       tag == AP_T_STDERR_CAP || tag == AP_T_REPL_SEQ ||
	       tag == AP_T_GRACE_MS || tag == AP_T_STREAM_MS ||
	       tag == AP_T_ARTIFACTS;
}

static int is_exec_vector(uint8_t tag)
{
	return tag == AP_T_BUILD_ARG || tag == AP_T_RUN_ARG ||
	       tag == AP_T_ENV || tag == AP_T_SECCOMP_DENY ||
	       tag == AP_T_REPL_ARG || tag == AP_T_WAIT_ARG ||
	       tag == AP_T_WAIT_ENV;
}

static int is_exec_string(uint8_t tag)
{
	return tag == AP_T_FILE_NAME || is_exec_vector(tag);
}

static int valid_file_name(const char *s)
{
	return *s && strlen(s) <= 255 && !strchr(s, '/') && !strstr(s, "..") &&
	       strcmp(s, ".") != 0;
}

/* What the first pass counts: entries per vector tag, bytes to copy. */
struct exec_count {
	size_t n[AP_T_WAIT_ENV + 1]; /* by tag; vector tags only */
	size_t bytes;
	uint32_t seen; /* bit per tag below 32 */
};

static int exec_count(const struct ap_frame *f, struct exec_count *c,
		      struct error *err)
{
	struct ap_field fl;
	size_t off = 0;
	uint32_t bit;
	int rc;

	memset(c, 0, sizeof(*c));
	while ((rc = ap_next_field(f, &off, &fl)) == 1) {
		bit = fl.tag < 32 ? 1u << fl.tag : 0;
		if (is_exec_vector(fl.tag)) {
			c->n[fl.tag]++;
		} else if (fl.tag == AP_T_FILE_NAME ||
			   fl.tag == AP_T_FILE_DATA || fl.tag == AP_T_STDIN) {
			if (c->seen & bit)
				return error_set(err, -EINVAL,
						 "duplicate field in AP_EXEC");
		} else if (is_exec_u32(fl.tag)) {
			if ((c->seen & bit) || fl.len != 4)
				return error_set(err, -EINVAL,
						 "bad or duplicate u32 field "
						 "in AP_EXEC");
		} else {
			continue; /* unknown: a newer host may add fields */
		}
		c->seen |= bit;
		if (is_exec_string(fl.tag) && memchr(fl.data, 0, fl.len))
			return error_set(err, -EINVAL,
					 "string field contains a NUL byte");
		c->bytes += (size_t)fl.len + 1;
	}
	if (rc < 0)
		return error_set(err, -EPROTO, "malformed AP_EXEC fields");
	if (!c->n[AP_T_RUN_ARG] && !c->n[AP_T_REPL_ARG])
		return error_set(err, -EINVAL,
				 "AP_EXEC without RUN_ARG or REPL_ARG");
	if ((c->seen & (1u << AP_T_FILE_DATA)) &&
	    !(c->seen & (1u << AP_T_FILE_NAME)) && !c->n[AP_T_REPL_ARG])
		return error_set(err, -EINVAL, "FILE_DATA without FILE_NAME");
	return 0;
}

static int exec_check(const struct ap_exec *m, struct error *err)
{
	const char *const *v;

	if (m->file_name && !valid_file_name(m->file_name))
		return error_set(
			err, -EINVAL,
			"bad FILE_NAME (empty, '/', '..' or too long)");
	for (v = m->env; *v; v++)
		if (!strchr(*v, '=') || (*v)[0] == '=')
			return error_set(err, -EINVAL,
					 "ENV entry is not KEY=VALUE");
	if ((m->repl_argv[0] && !m->repl_argv[0][0]) ||
	    (!m->repl_argv[0] && (!m->run_argv[0] || !m->run_argv[0][0])) ||
	    (m->build_argv[0] && !m->build_argv[0][0]))
		return error_set(err, -EINVAL, "empty program name");
	return 0;
}

static int exec_decode(const struct ap_frame *f, uint8_t type,
		       struct ap_exec *m, struct error *err)
{
	struct exec_count c;
	const char **vec[AP_T_WAIT_ENV + 1] = {0};
	size_t nvec, pos = 0;
	struct ap_field fl;
	size_t off = 0;
	char **slots, *s;
	uint32_t *u;
	int rc;

	memset(m, 0, sizeof(*m));
	if (f->type != type)
		return error_set(err, -EINVAL, "unexpected frame type");
	rc = exec_count(f, &c, err);
	if (rc)
		return rc;
	/* One allocation: the vectors, each NULL-terminated, then the
	 * strings and bytes, each NUL-terminated. */
	nvec = c.n[AP_T_BUILD_ARG] + c.n[AP_T_RUN_ARG] + c.n[AP_T_ENV] +
	       c.n[AP_T_SECCOMP_DENY] + c.n[AP_T_REPL_ARG] +
	       c.n[AP_T_WAIT_ARG] + c.n[AP_T_WAIT_ENV] + 7;
	m->mem = malloc(nvec * sizeof(char *) + (c.bytes ? c.bytes : 1));
	if (!m->mem)
		return error_set(err, -ENOMEM, "out of memory");
	slots = m->mem;
	memset(slots, 0, nvec * sizeof(char *));
	s = (char *)(slots + nvec);
	vec[AP_T_BUILD_ARG] = (const char **)slots;
	vec[AP_T_RUN_ARG] = vec[AP_T_BUILD_ARG] + c.n[AP_T_BUILD_ARG] + 1;
	vec[AP_T_REPL_ARG] = vec[AP_T_RUN_ARG] + c.n[AP_T_RUN_ARG] + 1;
	vec[AP_T_ENV] = vec[AP_T_REPL_ARG] + c.n[AP_T_REPL_ARG] + 1;
	vec[AP_T_SECCOMP_DENY] = vec[AP_T_ENV] + c.n[AP_T_ENV] + 1;
	vec[AP_T_WAIT_ARG] =
		vec[AP_T_SECCOMP_DENY] + c.n[AP_T_SECCOMP_DENY] + 1;
	vec[AP_T_WAIT_ENV] = vec[AP_T_WAIT_ARG] + c.n[AP_T_WAIT_ARG] + 1;
	m->build_argv = vec[AP_T_BUILD_ARG];
	m->run_argv = vec[AP_T_RUN_ARG];
	m->repl_argv = vec[AP_T_REPL_ARG];
	m->env = vec[AP_T_ENV];
	m->seccomp_deny = vec[AP_T_SECCOMP_DENY];
	m->wait_argv = vec[AP_T_WAIT_ARG];
	m->wait_env = vec[AP_T_WAIT_ENV];

	/* The first pass checked every field: this one cannot fail. */
	while (ap_next_field(f, &off, &fl) == 1) {
		u = NULL;
		switch (fl.tag) {
		case AP_T_FILE_NAME:
			m->file_name = s + pos;
			break;
		case AP_T_FILE_DATA:
			m->file_data = (const unsigned char *)s + pos;
			m->file_len = fl.len;
			break;
		case AP_T_STDIN:
			m->stdin_data = (const unsigned char *)s + pos;
			m->stdin_len = fl.len;
			break;
		case AP_T_TIMEOUT_MS:
			u = &m->timeout_ms;
			break;
		case AP_T_STDOUT_CAP:
			u = &m->stdout_cap;
			break;
		case AP_T_STDERR_CAP:
			u = &m->stderr_cap;
			break;
		case AP_T_REPL_SEQ:
			u = &m->repl_seq;
			break;
		case AP_T_GRACE_MS:
			u = &m->grace_ms;
			break;
		case AP_T_STREAM_MS:
			u = &m->stream_ms;
			break;
		case AP_T_ARTIFACTS:
			u = &m->artifacts;
			break;
		default:
			if (!is_exec_vector(fl.tag))
				continue;
			*vec[fl.tag]++ = s + pos;
			break;
		}
		if (u) {
			*u = ap_field_u32(&fl);
			continue;
		}
		memcpy(s + pos, fl.data, fl.len);
		s[pos + fl.len] = '\0';
		pos += (size_t)fl.len + 1;
	}
	rc = exec_check(m, err);
	if (rc)
		ap_exec_free(m);
	return rc;
}

int ap_exec_decode(const struct ap_frame *f, struct ap_exec *m,
		   struct error *err)
{
	return exec_decode(f, AP_EXEC, m, err);
}

int ap_prestart_decode(const struct ap_frame *f, struct ap_exec *m,
		       struct error *err)
{
	const char *const *v;
	int rc = exec_decode(f, AP_PRESTART, m, err);

	if (rc)
		return rc;
	if (m->build_argv[0] || m->repl_argv[0] || m->file_data ||
	    m->stdin_data) {
		rc = error_set(err, -EINVAL,
			       "AP_PRESTART with BUILD_ARG, REPL_ARG, "
			       "FILE_DATA or STDIN");
	}
	for (v = m->wait_env; !rc && *v; v++)
		if (!strchr(*v, '=') || (*v)[0] == '=')
			rc = error_set(err, -EINVAL,
				       "WAIT_ENV entry is not KEY=VALUE");
	if (!rc && m->wait_argv[0] && !m->wait_argv[0][0])
		rc = error_set(err, -EINVAL, "empty program name");
	if (rc)
		ap_exec_free(m);
	return rc;
}

void ap_exec_free(struct ap_exec *m)
{
	free(m->mem);
	memset(m, 0, sizeof(*m));
}

int ap_spawn_decode(const struct ap_frame *f, struct ap_spawn *m,
		    struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = exec_decode(f, AP_SPAWN, &m->x, err);
	if (rc)
		return rc;
	if (m->x.build_argv[0] || m->x.repl_argv[0] || m->x.file_name ||
	    m->x.file_data || m->x.stdin_data || m->x.wait_argv[0] ||
	    m->x.wait_env[0])
		rc = error_set(err, -EINVAL,
			       "AP_SPAWN with BUILD_ARG, REPL_ARG, FILE_NAME, "
			       "FILE_DATA, STDIN, WAIT_ARG or WAIT_ENV");
	/* Its own fields, which the first decoder skipped. */
	if (!rc)
		rc = dec_start(&d, f, AP_SPAWN, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_LABEL:
			rc = dec_str(&d, &m->label, &m->label_len);
			if (!rc && m->label_len > AP_LABEL_MAX)
				rc = error_set(err, -EINVAL, "LABEL too long");
			break;
		case AP_T_PROC_MAX:
			rc = dec_u32(&d, &m->max_live);
			break;
		case AP_T_RING:
			rc = dec_u32(&d, &m->ring);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc < 0) {
		ap_exec_free(&m->x);
		memset(m, 0, sizeof(*m));
		return rc;
	}
	return 0;
}

int ap_proc_decode(const struct ap_frame *f, struct ap_proc *m,
		   struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_PROC, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_PROC_OP:
			rc = dec_u32(&d, &m->op);
			break;
		case AP_T_PID:
			rc = dec_u32(&d, &m->pid);
			break;
		case AP_T_OFFSET:
			rc = dec_u64(&d, &m->offset);
			m->has_offset = 1;
			break;
		case AP_T_LENGTH:
			rc = dec_u32(&d, &m->length);
			break;
		case AP_T_SIGNAL:
			rc = dec_u32(&d, &m->signal);
			break;
		case AP_T_TIMEOUT_MS:
			rc = dec_u32(&d, &m->timeout_ms);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc >= 0) {
		if (m->op < AP_POP_LIST || m->op > AP_POP_WAIT)
			rc = error_set(err, -EINVAL,
				       "unknown process operation");
		else if (m->op != AP_POP_LIST && !m->pid)
			rc = error_set(err, -EINVAL, "PID missing");
	}
	return dec_end(rc, m, sizeof(*m));
}

int ap_proc_done_decode(const struct ap_frame *f, struct ap_proc_done *m,
			struct error *err)
{
	struct ap_proc_entry e;
	struct dec d;
	size_t off = 0;
	int rc, r;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_PROC_DONE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_STATUS:
			rc = dec_u32(&d, &m->status);
			break;
		case AP_T_MESSAGE:
			rc = dec_str(&d, &m->message, &m->message_len);
			break;
		case AP_T_ENTRIES:
			rc = dec_bytes(&d, &m->entries, &m->entries_len);
			break;
		case AP_T_DATA:
			rc = dec_bytes(&d, &m->data, &m->data_len);
			break;
		case AP_T_OFFSET:
			rc = dec_u64(&d, &m->offset);
			break;
		case AP_T_TIMED_OUT:
			rc = dec_u8(&d, &m->timed_out);
			break;
		default:
			rc = 0;
			break;
		}
	}
	while (rc >= 0 &&
	       (r = proc_entry_at(m->entries, m->entries_len, &off, &e))) {
		if (r < 0 || memchr(e.label, 0, e.label_len))
			rc = error_set(err, -EINVAL, "malformed entries");
		else
			m->nentries++;
	}
	return dec_end(rc, m, sizeof(*m));
}

int ap_exchange_encode(struct ap_buf *b, uint32_t id,
		       const struct ap_exchange *m)
{
	int rc = ap_frame_begin(b, AP_EXCHANGE, id);

	if (!rc)
		rc = ap_put_u32(b, AP_T_PORT, m->port);
	if (!rc && m->data)
		rc = ap_put(b, AP_T_DATA, m->data, m->data_len);
	if (!rc && m->length)
		rc = ap_put_u32(b, AP_T_LENGTH, m->length);
	if (!rc && m->timeout_ms)
		rc = ap_put_u32(b, AP_T_TIMEOUT_MS, m->timeout_ms);
	return rc ? rc : ap_frame_end(b);
}

int ap_exchange_decode(const struct ap_frame *f, struct ap_exchange *m,
		       struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_EXCHANGE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_PORT:
			rc = dec_u32(&d, &m->port);
			break;
		case AP_T_DATA:
			rc = dec_bytes(&d, &m->data, &m->data_len);
			break;
		case AP_T_LENGTH:
			rc = dec_u32(&d, &m->length);
			break;
		case AP_T_TIMEOUT_MS:
			rc = dec_u32(&d, &m->timeout_ms);
			break;
		default:
			rc = 0;
			break;
		}
	}
	if (rc >= 0 && (m->port < 1 || m->port > 65535))
		rc = error_set(err, -EINVAL, "PORT missing or not 1..65535");
	else if (rc >= 0 && !m->data)
		rc = error_set(err, -EINVAL, "DATA missing");
	return dec_end(rc, m, sizeof(*m));
}

int ap_exchange_done_encode(struct ap_buf *b, uint32_t id,
			    const struct ap_exchange_done *m)
{
	int rc = ap_buf_reserve(b, AP_HEADER_LEN + 64 + m->message_len +
					   m->data_len);

	if (!rc)
		rc = ap_frame_begin(b, AP_EXCHANGE_DONE, id);
	if (!rc)
		rc = ap_put_u32(b, AP_T_STATUS, m->status);
	if (!rc && m->message)
		rc = ap_put(b, AP_T_MESSAGE, m->message, m->message_len);
	if (!rc && m->data)
		rc = ap_put(b, AP_T_DATA, m->data, m->data_len);
	if (!rc && m->truncated)
		rc = ap_put_u8(b, AP_T_TRUNCATED, m->truncated);
	if (!rc && m->duration_ms)
		rc = ap_put_u32(b, AP_T_DURATION_MS, m->duration_ms);
	return rc ? rc : ap_frame_end(b);
}

int ap_exchange_done_decode(const struct ap_frame *f,
			    struct ap_exchange_done *m, struct error *err)
{
	struct dec d;
	int rc;

	memset(m, 0, sizeof(*m));
	rc = dec_start(&d, f, AP_EXCHANGE_DONE, err);
	while (!rc && (rc = dec_next(&d)) == 1) {
		switch (d.fl.tag) {
		case AP_T_STATUS:
			rc = dec_u32(&d, &m->status);
			break;
		case AP_T_MESSAGE:
			rc = dec_str(&d, &m->message, &m->message_len);
			break;
		case AP_T_DATA:
			rc = dec_bytes(&d, &m->data, &m->data_len);
			break;
		case AP_T_TRUNCATED:
			rc = dec_u8(&d, &m->truncated);
			break;
		case AP_T_DURATION_MS:
			rc = dec_u32(&d, &m->duration_ms);
			break;
		default:
			rc = 0;
			break;
		}
	}
	return dec_end(rc, m, sizeof(*m));
}
