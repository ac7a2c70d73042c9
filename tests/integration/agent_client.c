/*
 * agent_client.c - scripted client for the agent protocol, for tests.
 *
 *   agent_client [-o DIR] [-t SECONDS] SCRIPT -- COMMAND [ARG...]
 *
 * Runs COMMAND (typically `docker run -i ... IMAGE`) with its stdin and
 * stdout on pipes, plays SCRIPT ("-" for stdin) against it and prints every
 * reply as "ID.key=value" lines, which a shell test can grep. Byte fields
 * are printed C-escaped (long ones cut, with ID.key_len giving the real
 * length) and, with -o DIR, also written raw to DIR/ID.key. COMMAND's
 * stderr (the agent's log) passes through.
 *
 * Script, one directive per line ('#' starts a comment line):
 *   hello ID            send AP_HELLO and wait for the reply
 *   exec ID             start a new AP_EXEC request; then any of:
 *     file NAME (the last one counts) | data TEXT (appends TEXT and a
 *     newline) | datafile PATH
 *     build ARG | run ARG | env K=V | seccomp NAME   (one per line, repeat)
 *     timeout MS | stdout_cap N | stderr_cap N | artifacts N (list at
 *     most N changed files: ID.artifacts and ID.artifacts_more)
 *     stdin TEXT (appends TEXT and a newline) | stdinfile PATH
 *   send                send the request, do not wait
 *   call                send the request and wait for its reply
 *   bench N             send the request N times (ids ID, ID+1, ...), each
 *                       after the previous reply, and print timing stats
 *   wait ID             wait until the reply for ID has arrived
 *   reset ID            send AP_RESET and wait for the reply
 *   prestart ID         send the request built so far as AP_PRESTART (its
 *                       file, run, env and seccomp lines, and any of
 *                       waitarg ARG | waitenv K=V) and wait for the reply
 *   spawn ID            send the request built so far (its run, env and
 *                       seccomp lines, and label TEXT) as AP_SPAWN and
 *                       wait for the reply
 *   proc ID OP [N]      send AP_PROC with OP list, logs (N: from this
 *                       offset), signal (N: the signal) or wait (N: its
 *                       timeout in ms) about the last process a spawn
 *                       reply named, and wait for the reply
 *   cancel ID           send AP_CANCEL
 *   frame TYPE ID       send a frame without fields (TYPE: number, any)
 *   raw HEX             send raw bytes
 *   sleep MS
 *   echo TEXT           print TEXT
 * At the end of the script the client closes COMMAND's stdin, prints the
 * replies still coming until EOF and then "agent.exit=STATUS".
 *
 * Exit status: 0 when the script ran, 2 on usage or script errors, 3 when
 * a reply did not come in time or the stream broke.
 *
 * Requests are built and replies read with the protocol's own codec
 * (common/agent_ops.h); a reply that does not decode prints ID.malformed=1
 * and ID.malformed_why. Bytes the codec would not produce go out with
 * "raw".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent_ops.h"
#include "agent_proto.h"

#define PRINT_MAX 4096

struct bytes {
	unsigned char *p;
	size_t len;
};

/* A NULL-terminated vector of owned strings. */
struct vec {
	char **v;
	size_t n;
};

struct request {
	uint32_t id;
	char *file_name;
	char *label; /* AP_SPAWN's */
	struct vec build, run, env, deny, wait_arg, wait_env;
	uint32_t timeout_ms, stdout_cap, stderr_cap, artifacts;
	struct bytes data;
	int has_data;
	struct bytes in;
	int has_in;
};

struct client {
	int to_fd, from_fd;
	pid_t pid;
	struct ap_reader rd;
	const char *out_dir;
	int timeout_ms;
	int quiet;
	int eof;
	uint32_t *seen;
	size_t nseen, seen_cap;
	/* last reply, for bench */
	uint8_t last_type;
	int last_exit;
	uint32_t last_pid; /* of the last AP_PROC_DONE with a process */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

__attribute__((noreturn)) static void die(int code, const char *msg)
{
	fprintf(stderr, "agent_client: %s\n", msg);
	exit(code);
}

static void append(struct bytes *b, const void *p, size_t n)
{
	unsigned char *q = realloc(b->p, b->len + n + 1);

	if (!q)
		die(2, "out of memory");
	memcpy(q + b->len, p, n);
	b->p = q;
	b->len += n;
}

static void append_file(struct bytes *b, const char *path)
{
	unsigned char buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(2, "cannot open a data file");
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		append(b, buf, (size_t)n);
	close(fd);
}

static const char *type_name(uint8_t t)
{
	switch (t) {
	case AP_HELLO_OK:
		return "HELLO_OK";
	case AP_EXEC_DONE:
		return "EXEC_DONE";
	case AP_RESET_DONE:
		return "RESET_DONE";
	case AP_PRESTART_DONE:
		return "PRESTART_DONE";
	case AP_OUTPUT:
		return "OUTPUT";
	case AP_ERROR:
		return "ERROR";
	case AP_PROC_DONE:
		return "PROC_DONE";
	default:
		return "UNKNOWN";
	}
}

static void print_escaped(const unsigned char *p, size_t n)
{
	size_t i, m = n > PRINT_MAX ? PRINT_MAX : n;

	for (i = 0; i < m; i++) {
		if (p[i] == '\n')
			fputs("\\n", stdout);
		else if (p[i] == '\t')
			fputs("\\t", stdout);
		else if (p[i] == '\\')
			fputs("\\\\", stdout);
		else if (p[i] < 0x20 || p[i] >= 0x7f)
			printf("\\x%02x", p[i]);
		else
			putchar(p[i]);
	}
	if (m < n)
		fputs("...", stdout);
}

static void save_raw(struct client *c, uint32_t id, const char *name,
		     const unsigned char *p, size_t n)
{
	char path[4096];
	FILE *f;

	if (!c->out_dir)
		return;
	snprintf(path, sizeof(path), "%s/%u.%s", c->out_dir, id, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f))
		die(2, "cannot write to the output directory");
}

static void print_num(uint32_t id, const char *name, uint32_t v)
{
	printf("%u.%s=%u\n", id, name, v);
}

/* NULL (absent): nothing printed. */
static void print_bytes(struct client *c, uint32_t id, const char *name,
			const void *p, size_t n)
{
	if (!p)
		return;
	printf("%u.%s=", id, name);
	print_escaped(p, n);
	printf("\n%u.%s_len=%zu\n", id, name, n);
	save_raw(c, id, name, p, n);
}

static int print_exec_done(struct client *c, const struct ap_frame *f,
			   struct error *why)
{
	struct ap_exec_done m;
	int rc = ap_exec_done_decode(f, &m, why);

	if (rc)
		return rc;
	if (m.has_exit_code)
		c->last_exit = (int)m.exit_code;
	if (c->quiet)
		return 0;
	if (m.has_exit_code)
		print_num(f->id, "exit_code", m.exit_code);
	if (m.has_signal)
		print_num(f->id, "signal", m.signal);
	print_num(f->id, "timed_out", m.timed_out);
	print_num(f->id, "cancelled", m.cancelled);
	print_num(f->id, "duration_ms", m.duration_ms);
	print_bytes(c, f->id, "stdout", m.out, m.out_len);
	print_bytes(c, f->id, "stderr", m.err, m.err_len);
	print_num(f->id, "stdout_trunc", m.out_truncated);
	print_num(f->id, "stderr_trunc", m.err_truncated);
	print_bytes(c, f->id, "phase", m.phase, m.phase_len);
	print_num(f->id, "survivors", m.survivors);
	if (m.repl) {
		print_num(f->id, "state_kept", m.state_kept);
		print_num(f->id, "fresh", m.fresh);
	}
	print_num(f->id, "prestarted", m.prestarted);
	if (m.nentries || m.more) {
		print_num(f->id, "artifacts", m.nentries);
		print_num(f->id, "artifacts_more", m.more);
	}
	return 0;
}

/* AP_PROC_DONE: its fields, and each process as ID.N.key lines. */
static int print_proc_done(struct client *c, const struct ap_frame *f,
			   struct error *why)
{
	struct ap_proc_done m;
	struct ap_proc_entry e;
	size_t off = 0;
	unsigned i = 0;
	int rc = ap_proc_done_decode(f, &m, why);

	if (rc || c->quiet)
		return rc;
	print_num(f->id, "status", m.status);
	print_bytes(c, f->id, "message", m.message, m.message_len);
	print_bytes(c, f->id, "data", m.data, m.data_len);
	print_num(f->id, "offset", m.offset);
	print_num(f->id, "timed_out", m.timed_out);
	print_num(f->id, "processes", m.nentries);
	while (ap_proc_entry_next(&m, &off, &e)) {
		printf("%u.%u.pid=%u\n%u.%u.state=%u\n%u.%u.code=%u\n"
		       "%u.%u.flags=%u\n%u.%u.log_end=%llu\n",
		       f->id, i, e.pid, f->id, i, e.state, f->id, i, e.code,
		       f->id, i, e.flags, f->id, i,
		       (unsigned long long)e.log_end);
		c->last_pid = e.pid;
		i++;
	}
	return 0;
}

/* Every field the reply has, as ID.key=value lines. */
static int print_reply(struct client *c, const struct ap_frame *f,
		       struct error *why)
{
	struct ap_hello_ok hello;
	struct ap_output output;
	struct ap_reset_done reset;
	struct ap_error error;
	int rc = 0;

	switch (f->type) {
	case AP_EXEC_DONE:
		return print_exec_done(c, f, why);
	case AP_PROC_DONE:
		return print_proc_done(c, f, why);
	case AP_HELLO_OK:
		rc = ap_hello_ok_decode(f, &hello, why);
		if (!rc && !c->quiet) {
			print_num(f->id, "version", hello.version);
			print_bytes(c, f->id, "workdir", hello.workdir,
				    hello.workdir_len);
		}
		break;
	case AP_OUTPUT:
		rc = ap_output_decode(f, &output, why);
		if (!rc && !c->quiet) {
			print_bytes(c, f->id, "stdout", output.out,
				    output.out_len);
			print_bytes(c, f->id, "stderr", output.err,
				    output.err_len);
		}
		break;
	case AP_RESET_DONE:
	case AP_PRESTART_DONE:
		rc = f->type == AP_RESET_DONE
			     ? ap_reset_done_decode(f, &reset, why)
			     : ap_prestart_done_decode(f, &reset, why);
		if (!rc && !c->quiet) {
			print_num(f->id, "ok", reset.ok);
			print_bytes(c, f->id, "message", reset.message,
				    reset.message_len);
		}
		break;
	case AP_ERROR:
		rc = ap_error_decode(f, &error, why);
		if (!rc && !c->quiet)
			print_bytes(c, f->id, "message", error.message,
				    error.message_len);
		break;
	default:
		break;
	}
	return rc;
}

static void on_frame(struct client *c, const struct ap_frame *f)
{
	struct error why;

	c->last_type = f->type;
	c->last_exit = -1;
	if (c->nseen == c->seen_cap) {
		c->seen_cap = c->seen_cap ? c->seen_cap * 2 : 64;
		c->seen = realloc(c->seen, c->seen_cap * sizeof(*c->seen));
		if (!c->seen)
			die(2, "out of memory");
	}
	c->seen[c->nseen++] = f->id;
	if (!c->quiet)
		printf("%u.type=%s\n", f->id, type_name(f->type));
	if (print_reply(c, f, &why) && !c->quiet)
		printf("%u.malformed=1\n%u.malformed_why=%s\n", f->id, f->id,
		       why.msg);
	fflush(stdout);
}

/* Read what is there (waiting up to ms) and handle whole frames. Returns
 * 0, or -1 once the agent's stdout is at EOF. */
static int pump(struct client *c, int ms)
{
	unsigned char buf[65536];
	struct pollfd pfd = {.fd = c->from_fd, .events = POLLIN};
	struct ap_frame f;
	ssize_t n;
	int rc;

	if (c->eof)
		return -1;
	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = read(c->from_fd, buf, sizeof(buf));
	if (n <= 0) {
		c->eof = 1;
		return -1;
	}
	if (ap_reader_feed(&c->rd, buf, (size_t)n))
		die(3, "out of memory");
	while ((rc = ap_reader_next(&c->rd, &f)) == 1)
		on_frame(c, &f);
	if (rc < 0)
		die(3, "corrupt stream from the agent");
	return 0;
}

static int seen(const struct client *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == id)
			return 1;
	return 0;
}

static void wait_id(struct client *c, uint32_t id)
{
	uint64_t until = now_us() + (uint64_t)c->timeout_ms * 1000u;
	char msg[96];

	while (!seen(c, id)) {
		if (now_us() >= until) {
			snprintf(msg, sizeof(msg),
				 "no reply for id %u within %d ms", id,
				 c->timeout_ms);
			die(3, msg);
		}
		if (pump(c, 100) < 0) {
			snprintf(msg, sizeof(msg),
				 "agent stream ended while waiting for id %u",
				 id);
			die(3, msg);
		}
	}
}

static void send_bytes(struct client *c, const void *p, size_t n)
{
	const unsigned char *q = p;
	ssize_t w;

	while (n) {
		w = write(c->to_fd, q, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			/* The agent may be waiting for us to read a reply
			 * before it reads more: read while we wait. */
			struct pollfd pf[2] = {
				{.fd = c->to_fd, .events = POLLOUT},
				{.fd = c->from_fd, .events = POLLIN},
			};

			if (poll(pf, c->eof ? 1 : 2, 1000) > 0 && pf[1].revents)
				pump(c, 0);
			continue;
		}
		if (w < 0)
			die(3, "write to the agent failed");
		q += w;
		n -= (size_t)w;
	}
}

static void forget(struct client *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->nseen; i++)
		if (c->seen[i] == id)
			c->seen[i--] = c->seen[--c->nseen];
}

/* A frame without fields: the codec's for the types that have none, a
 * bare header for any other type (to see how the agent answers what it
 * does not know). */
static int encode_bare(struct ap_buf *b, uint8_t type, uint32_t id,
		       unsigned char *hdr)
{
	switch (type) {
	case AP_HELLO:
		return ap_hello_encode(b, id);
	case AP_RESET:
		return ap_reset_encode(b, id);
	case AP_CANCEL:
		return ap_cancel_encode(b, id);
	default:
		hdr[0] = hdr[1] = hdr[2] = 0;
		hdr[3] = AP_HEADER_LEN - 4;
		hdr[4] = type;
		hdr[5] = (unsigned char)(id >> 24);
		hdr[6] = (unsigned char)(id >> 16);
		hdr[7] = (unsigned char)(id >> 8);
		hdr[8] = (unsigned char)id;
		return 1;
	}
}

static int encode_exec(struct ap_buf *b, const struct request *r, uint32_t id)
{
	const struct ap_exec m = {
		.file_name = r->file_name,
		.file_data = r->has_data ? r->data.p : NULL,
		.file_len = r->data.len,
		.build_argv = (const char *const *)r->build.v,
		.run_argv = (const char *const *)r->run.v,
		.env = (const char *const *)r->env.v,
		.seccomp_deny = (const char *const *)r->deny.v,
		.stdin_data = r->has_in ? r->in.p : NULL,
		.stdin_len = r->in.len,
		.timeout_ms = r->timeout_ms,
		.stdout_cap = r->stdout_cap,
		.stderr_cap = r->stderr_cap,
		.artifacts = r->artifacts,
	};

	return ap_exec_encode(b, id, &m);
}

static int encode_prestart(struct ap_buf *b, const struct request *r,
			   uint32_t id)
{
	const struct ap_exec m = {
		.file_name = r->file_name,
		.run_argv = (const char *const *)r->run.v,
		.env = (const char *const *)r->env.v,
		.seccomp_deny = (const char *const *)r->deny.v,
		.wait_argv = (const char *const *)r->wait_arg.v,
		.wait_env = (const char *const *)r->wait_env.v,
	};

	return ap_prestart_encode(b, id, &m);
}

static int encode_spawn(struct ap_buf *b, const struct request *r, uint32_t id)
{
	const struct ap_spawn m = {
		.x = {.run_argv = (const char *const *)r->run.v,
		      .env = (const char *const *)r->env.v,
		      .seccomp_deny = (const char *const *)r->deny.v},
		.label = r->label,
		.label_len = r->label ? strlen(r->label) : 0,
	};

	return ap_spawn_encode(b, id, &m);
}

/* type AP_EXEC, AP_PRESTART or AP_SPAWN sends r; any other a frame
 * without fields. */
static void send_frame(struct client *c, uint8_t type, uint32_t id,
		       const struct request *r)
{
	unsigned char hdr[AP_HEADER_LEN];
	struct ap_buf b;
	int rc;

	/* A reused id waits for its new reply, not an old one. */
	if (type != AP_CANCEL)
		forget(c, id);

	ap_buf_init(&b);
	if (type == AP_EXEC)
		rc = encode_exec(&b, r, id);
	else if (type == AP_PRESTART)
		rc = encode_prestart(&b, r, id);
	else if (type == AP_SPAWN)
		rc = encode_spawn(&b, r, id);
	else
		rc = encode_bare(&b, type, id, hdr);
	if (rc < 0)
		die(2, "cannot build the frame");
	if (rc)
		send_bytes(c, hdr, sizeof(hdr));
	else
		send_bytes(c, b.data, b.len);
	ap_buf_close(&b);
}

static void vec_clear(struct vec *v)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		free(v->v[i]);
	free(v->v);
	v->v = NULL;
	v->n = 0;
}

static void vec_add(struct vec *v, const char *s)
{
	char **p = realloc(v->v, (v->n + 2) * sizeof(*p));

	if (!p)
		die(2, "out of memory");
	v->v = p;
	v->v[v->n] = strdup(s);
	if (!v->v[v->n])
		die(2, "out of memory");
	v->v[++v->n] = NULL;
}

static void request_clear(struct request *r)
{
	free(r->file_name);
	free(r->label);
	vec_clear(&r->build);
	vec_clear(&r->run);
	vec_clear(&r->env);
	vec_clear(&r->deny);
	vec_clear(&r->wait_arg);
	vec_clear(&r->wait_env);
	free(r->data.p);
	free(r->in.p);
	memset(r, 0, sizeof(*r));
}

static uint32_t parse_u32(const char *s)
{
	return (uint32_t)strtoul(s, NULL, 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void bench(struct client *c, struct request *r, unsigned n)
{
	uint64_t *t = calloc(n ? n : 1, sizeof(*t)), sum = 0, t0;
	unsigned i, failures = 0;

	if (!t)
		die(2, "out of memory");
	c->quiet = 1;
	for (i = 0; i < n; i++) {
		t0 = now_us();
		send_frame(c, AP_EXEC, r->id + i, r);
		wait_id(c, r->id + i);
		t[i] = now_us() - t0;
		sum += t[i];
		if (c->last_type != AP_EXEC_DONE || c->last_exit != 0)
			failures++;
	}
	c->quiet = 0;
	qsort(t, n, sizeof(*t), cmp_u64);
	if (n)
		printf("bench.n=%u\nbench.failures=%u\nbench.min_us=%llu\n"
		       "bench.p50_us=%llu\nbench.p90_us=%llu\n"
		       "bench.max_us=%llu\nbench.avg_us=%llu\n",
		       n, failures, (unsigned long long)t[0],
		       (unsigned long long)t[n / 2],
		       (unsigned long long)t[n * 9 / 10],
		       (unsigned long long)t[n - 1],
		       (unsigned long long)(sum / n));
	fflush(stdout);
	free(t);
}

/* "ID OP [N]" of a proc line. */
static void send_proc(struct client *c, char *arg)
{
	static const char *const ops[] = {"", "list", "logs", "signal", "wait"};
	struct ap_proc q = {.pid = c->last_pid};
	char op[16] = "", *end;
	uint32_t id = (uint32_t)strtoul(arg, &end, 0);
	unsigned long n = 0;
	struct ap_buf b;
	int used = 0;

	if (sscanf(end, " %15s %lu%n", op, &n, &used) < 1)
		die(2, "proc needs ID OP");
	for (q.op = 1; q.op <= AP_POP_WAIT && strcmp(ops[q.op], op); q.op++)
		;
	if (q.op > AP_POP_WAIT)
		die(2, "proc: unknown OP");
	if (q.op == AP_POP_LOGS && used) {
		q.has_offset = 1;
		q.offset = n;
	}
	if (q.op == AP_POP_SIGNAL)
		q.signal = (uint32_t)n;
	if (q.op == AP_POP_WAIT)
		q.timeout_ms = (uint32_t)n;
	forget(c, id);
	ap_buf_init(&b);
	if (ap_proc_encode(&b, id, &q))
		die(2, "cannot build the frame");
	send_bytes(c, b.data, b.len);
	ap_buf_close(&b);
	wait_id(c, id);
}

static void send_raw(struct client *c, const char *hex)
{
	unsigned char buf[4096];
	size_t n = 0;
	unsigned v;

	while (hex[0] && hex[1] && n < sizeof(buf)) {
		if (hex[0] == ' ') {
			hex++;
			continue;
		}
		if (sscanf(hex, "%2x", &v) != 1)
			die(2, "bad hex in raw");
		buf[n++] = (unsigned char)v;
		hex += 2;
	}
	send_bytes(c, buf, n);
}

static void run_line(struct client *c, struct request *r, char *line)
{
	char *cmd = line, *arg;

	while (*cmd == ' ' || *cmd == '\t')
		cmd++;
	if (!*cmd || *cmd == '#')
		return;
	arg = strchr(cmd, ' ');
	if (arg)
		*arg++ = '\0';
	else
		arg = cmd + strlen(cmd);

	if (!strcmp(cmd, "hello")) {
		send_frame(c, AP_HELLO, (uint32_t)strtoul(arg, NULL, 0), NULL);
		wait_id(c, (uint32_t)strtoul(arg, NULL, 0));
	} else if (!strcmp(cmd, "exec")) {
		request_clear(r);
		r->id = (uint32_t)strtoul(arg, NULL, 0);
	} else if (!strcmp(cmd, "file")) {
		free(r->file_name);
		r->file_name = strdup(arg);
		if (!r->file_name)
			die(2, "out of memory");
	} else if (!strcmp(cmd, "data")) {
		append(&r->data, arg, strlen(arg));
		append(&r->data, "\n", 1);
		r->has_data = 1;
	} else if (!strcmp(cmd, "datafile")) {
		append_file(&r->data, arg);
		r->has_data = 1;
	} else if (!strcmp(cmd, "stdin")) {
		append(&r->in, arg, strlen(arg));
		append(&r->in, "\n", 1);
		r->has_in = 1;
	} else if (!strcmp(cmd, "stdinfile")) {
		append_file(&r->in, arg);
		r->has_in = 1;
	} else if (!strcmp(cmd, "build")) {
		vec_add(&r->build, arg);
	} else if (!strcmp(cmd, "run")) {
		vec_add(&r->run, arg);
	} else if (!strcmp(cmd, "env")) {
		vec_add(&r->env, arg);
	} else if (!strcmp(cmd, "seccomp")) {
		vec_add(&r->deny, arg);
	} else if (!strcmp(cmd, "waitarg")) {
		vec_add(&r->wait_arg, arg);
	} else if (!strcmp(cmd, "waitenv")) {
		vec_add(&r->wait_env, arg);
	} else if (!strcmp(cmd, "prestart")) {
		r->id = (uint32_t)strtoul(arg, NULL, 0);
		send_frame(c, AP_PRESTART, r->id, r);
		wait_id(c, r->id);
	} else if (!strcmp(cmd, "timeout")) {
		r->timeout_ms = parse_u32(arg);
	} else if (!strcmp(cmd, "stdout_cap")) {
		r->stdout_cap = parse_u32(arg);
	} else if (!strcmp(cmd, "stderr_cap")) {
		r->stderr_cap = parse_u32(arg);
	} else if (!strcmp(cmd, "artifacts")) {
		r->artifacts = parse_u32(arg);
	} else if (!strcmp(cmd, "send")) {
		send_frame(c, AP_EXEC, r->id, r);
	} else if (!strcmp(cmd, "call")) {
		send_frame(c, AP_EXEC, r->id, r);
		wait_id(c, r->id);
	} else if (!strcmp(cmd, "bench")) {
		bench(c, r, (unsigned)strtoul(arg, NULL, 0));
	} else if (!strcmp(cmd, "wait")) {
		wait_id(c, (uint32_t)strtoul(arg, NULL, 0));
	} else if (!strcmp(cmd, "reset")) {
		send_frame(c, AP_RESET, (uint32_t)strtoul(arg, NULL, 0), NULL);
		wait_id(c, (uint32_t)strtoul(arg, NULL, 0));
	} else if (!strcmp(cmd, "label")) {
		free(r->label);
		r->label = strdup(arg);
	} else if (!strcmp(cmd, "spawn")) {
		r->id = (uint32_t)strtoul(arg, NULL, 0);
		send_frame(c, AP_SPAWN, r->id, r);
		wait_id(c, r->id);
	} else if (!strcmp(cmd, "proc")) {
		send_proc(c, arg);
	} else if (!strcmp(cmd, "cancel")) {
		send_frame(c, AP_CANCEL, (uint32_t)strtoul(arg, NULL, 0), NULL);
	} else if (!strcmp(cmd, "frame")) {
		char *end;
		unsigned long type = strtoul(arg, &end, 0);

		send_frame(c, (uint8_t)type, (uint32_t)strtoul(end, NULL, 0),
			   NULL);
	} else if (!strcmp(cmd, "raw")) {
		send_raw(c, arg);
	} else if (!strcmp(cmd, "sleep")) {
		uint64_t until = now_us() + strtoull(arg, NULL, 0) * 1000u;

		/* keep reading meanwhile so replies are printed in order */
		while (now_us() < until)
			if (pump(c, (int)((until - now_us()) / 1000u) + 1) < 0)
				break;
	} else if (!strcmp(cmd, "echo")) {
		printf("%s\n", arg);
		fflush(stdout);
	} else {
		fprintf(stderr, "agent_client: unknown directive \"%s\"\n",
			cmd);
		exit(2);
	}
}

static void start_command(struct client *c, char **argv)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		die(2, "pipe failed");
	c->pid = fork();
	if (c->pid < 0)
		die(2, "fork failed");
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execvp(argv[0], argv);
		perror("agent_client: exec");
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	c->to_fd = in[1];
	c->from_fd = out[0];
}

int main(int argc, char **argv)
{
	static struct request req;
	struct client c;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t until;
	FILE *script;
	int i, status, opt;

	memset(&c, 0, sizeof(c));
	c.timeout_ms = 60000;
	while ((opt = getopt(argc, argv, "+o:t:")) != -1) {
		if (opt == 'o')
			c.out_dir = optarg;
		else if (opt == 't')
			c.timeout_ms = atoi(optarg) * 1000;
		else
			return 2;
	}
	for (i = optind; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	if (i != optind + 1 || i + 1 >= argc) {
		fprintf(stderr, "usage: agent_client [-o DIR] [-t SECONDS] "
				"SCRIPT -- COMMAND [ARG...]\n");
		return 2;
	}
	script = strcmp(argv[optind], "-") ? fopen(argv[optind], "r") : stdin;
	if (!script)
		die(2, "cannot open the script");
	signal(SIGPIPE, SIG_IGN);
	ap_reader_init(&c.rd);
	start_command(&c, argv + i + 1);

	while ((n = getline(&line, &cap, script)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[n - 1] = '\0';
		run_line(&c, &req, line);
	}
	free(line);
	request_clear(&req);

	close(c.to_fd);
	until = now_us() + (uint64_t)c.timeout_ms * 1000u;
	while (pump(&c, 100) == 0)
		if (now_us() >= until)
			die(3, "the agent did not close its stdout");
	if (waitpid(c.pid, &status, 0) < 0)
		die(3, "waitpid failed");
	printf("agent.exit=%d\n", WIFEXITED(status) ? WEXITSTATUS(status)
						    : 128 + WTERMSIG(status));
	ap_reader_close(&c.rd);
	free(c.seen);
	return 0;
}
