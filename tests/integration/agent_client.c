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
 *     file NAME | data TEXT (appends TEXT and a newline) | datafile PATH
 *     build ARG | run ARG | env K=V | seccomp NAME   (one per line, repeat)
 *     timeout MS | stdout_cap N | stderr_cap N
 *     stdin TEXT (appends TEXT and a newline) | stdinfile PATH
 *   send                send the request, do not wait
 *   call                send the request and wait for its reply
 *   bench N             send the request N times (ids ID, ID+1, ...), each
 *                       after the previous reply, and print timing stats
 *   wait ID             wait until the reply for ID has arrived
 *   reset ID            send AP_RESET and wait for the reply
 *   cancel ID           send AP_CANCEL
 *   frame TYPE ID       send a frame without fields (TYPE: number)
 *   raw HEX             send raw bytes
 *   sleep MS
 *   echo TEXT           print TEXT
 * At the end of the script the client closes COMMAND's stdin, prints the
 * replies still coming until EOF and then "agent.exit=STATUS".
 *
 * Exit status: 0 when the script ran, 2 on usage or script errors, 3 when
 * a reply did not come in time or the stream broke.
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

#include "agent_proto.h"

#define MAX_FIELDS 1024
#define PRINT_MAX 4096

struct bytes {
	unsigned char *p;
	size_t len;
};

struct field {
	uint8_t tag;
	struct bytes v;
};

struct request {
	uint32_t id;
	struct field f[MAX_FIELDS];
	size_t n;
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
};

static const struct {
	uint8_t tag;
	const char *name;
	char kind; /* 'b' bytes, '4' u32, '1' u8 */
} tags[] = {
	{AP_T_VERSION, "version", '4'},
	{AP_T_WORKDIR, "workdir", 'b'},
	{AP_T_EXIT_CODE, "exit_code", '4'},
	{AP_T_SIGNAL, "signal", '4'},
	{AP_T_TIMED_OUT, "timed_out", '1'},
	{AP_T_DURATION_MS, "duration_ms", '4'},
	{AP_T_STDOUT, "stdout", 'b'},
	{AP_T_STDERR, "stderr", 'b'},
	{AP_T_STDOUT_TRUNC, "stdout_trunc", '1'},
	{AP_T_STDERR_TRUNC, "stderr_trunc", '1'},
	{AP_T_PHASE, "phase", 'b'},
	{AP_T_SURVIVORS, "survivors", '4'},
	{AP_T_OK, "ok", '1'},
	{AP_T_MESSAGE, "message", 'b'},
	{AP_T_CANCELLED, "cancelled", '1'},
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
	case AP_ERROR:
		return "ERROR";
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

static void on_frame(struct client *c, const struct ap_frame *f)
{
	struct ap_field fl;
	size_t off = 0, i;
	int rc;

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
	while ((rc = ap_next_field(f, &off, &fl)) == 1) {
		for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
			if (tags[i].tag == fl.tag)
				break;
		if (fl.tag == AP_T_EXIT_CODE)
			c->last_exit = (int)ap_field_u32(&fl);
		if (c->quiet)
			continue;
		if (i == sizeof(tags) / sizeof(tags[0])) {
			printf("%u.tag%u_len=%u\n", f->id, fl.tag, fl.len);
			continue;
		}
		if (tags[i].kind == '4') {
			printf("%u.%s=%u\n", f->id, tags[i].name,
			       ap_field_u32(&fl));
		} else if (tags[i].kind == '1') {
			printf("%u.%s=%u\n", f->id, tags[i].name,
			       ap_field_u8(&fl));
		} else {
			printf("%u.%s=", f->id, tags[i].name);
			print_escaped(fl.data, fl.len);
			printf("\n%u.%s_len=%u\n", f->id, tags[i].name, fl.len);
			save_raw(c, f->id, tags[i].name, fl.data, fl.len);
		}
	}
	if (rc < 0 && !c->quiet)
		printf("%u.malformed=1\n", f->id);
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

static void send_frame(struct client *c, uint8_t type, uint32_t id,
		       const struct request *r)
{
	struct ap_buf b;
	size_t i;
	int rc;

	/* A reused id waits for its new reply, not an old one. */
	if (type != AP_CANCEL)
		forget(c, id);

	ap_buf_init(&b);
	rc = ap_frame_begin(&b, type, id);
	for (i = 0; r && i < r->n && !rc; i++)
		rc = ap_put(&b, r->f[i].tag, r->f[i].v.p, r->f[i].v.len);
	if (r && r->has_data && !rc)
		rc = ap_put(&b, AP_T_FILE_DATA, r->data.p, r->data.len);
	if (r && r->has_in && !rc)
		rc = ap_put(&b, AP_T_STDIN, r->in.p, r->in.len);
	if (!rc)
		rc = ap_frame_end(&b);
	if (rc)
		die(2, "cannot build the frame");
	send_bytes(c, b.data, b.len);
	ap_buf_close(&b);
}

static void request_clear(struct request *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->f[i].v.p);
	free(r->data.p);
	free(r->in.p);
	memset(r, 0, sizeof(*r));
}

static void add_field(struct request *r, uint8_t tag, const void *p, size_t n)
{
	if (r->n == MAX_FIELDS)
		die(2, "too many fields");
	r->f[r->n].tag = tag;
	r->f[r->n].v.p = NULL;
	r->f[r->n].v.len = 0;
	append(&r->f[r->n].v, p, n);
	r->n++;
}

static void add_u32(struct request *r, uint8_t tag, const char *s)
{
	uint32_t v = (uint32_t)strtoul(s, NULL, 0);
	unsigned char p[4] = {(unsigned char)(v >> 24),
			      (unsigned char)(v >> 16), (unsigned char)(v >> 8),
			      (unsigned char)v};

	add_field(r, tag, p, 4);
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
		add_field(r, AP_T_FILE_NAME, arg, strlen(arg));
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
		add_field(r, AP_T_BUILD_ARG, arg, strlen(arg));
	} else if (!strcmp(cmd, "run")) {
		add_field(r, AP_T_RUN_ARG, arg, strlen(arg));
	} else if (!strcmp(cmd, "env")) {
		add_field(r, AP_T_ENV, arg, strlen(arg));
	} else if (!strcmp(cmd, "seccomp")) {
		add_field(r, AP_T_SECCOMP_DENY, arg, strlen(arg));
	} else if (!strcmp(cmd, "timeout")) {
		add_u32(r, AP_T_TIMEOUT_MS, arg);
	} else if (!strcmp(cmd, "stdout_cap")) {
		add_u32(r, AP_T_STDOUT_CAP, arg);
	} else if (!strcmp(cmd, "stderr_cap")) {
		add_u32(r, AP_T_STDERR_CAP, arg);
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
