/*
 * plugin_check.c - the plugin SDK's conformance kit: `mcp-sandbox
 * check-plugin PATH.so [--run]` (docs/plugin-sdk.md, "Checking a plugin").
 *
 * Without an engine: the file is loaded exactly as the server loads one
 * (the file checks, the descriptor's, init), its policy resolved against
 * the built-in defaults, and each hook it has is run on a table of hostile
 * inputs, each in a child process with a deadline, so that a crash or a
 * hang is a failed check, not a dead kit. With --run, its sample programs
 * (ABI 1.7 `samples`) run through the real engine, one-off calls to a
 * server of this binary that serves only the plugin's directory.
 */
#include "plugin_check.h"
#include "core/plugins/plugins.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/doctor.h"
#include "util/log.h"

struct kit {
	int passed, failed, skipped;
	const struct kit_paths *where;
	int no_image; /* the engine has no image for the plugin */
};

static void say(struct kit *k, const char *verdict, const char *check,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void say(struct kit *k, const char *verdict, const char *check,
		const char *fmt, ...)
{
	va_list ap;

	if (strcmp(verdict, "pass") == 0)
		k->passed++;
	else if (strcmp(verdict, "skip") == 0)
		k->skipped++;
	else
		k->failed++;
	printf("%-5s %-22s ", verdict, check);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* The inputs every hook meets. */
struct input {
	const char *name;
	char *code;
	size_t len;
};

static void inputs_make(struct input *in, size_t *n)
{
	static const char nul[] = "a\0b\0\0c";
	static const char bad_utf8[] =
		"\xff\xfe\xc0\x80 x = '\xe2\x82' \xed\xa0\x80";
	static const char *const hostile[] = {
		"'; rm -rf / #\n$(reboot) `id` ${IFS}\n../../etc/passwd\r\n",
		"\"\"\" ''' /* // # -- <!-- \\\n\\",
		"}}}}]]]])))) {{{{ [[[[ ((((",
	};
	size_t big = 4u << 20, i = 0;

	in[i++] = (struct input){"empty", strdup(""), 0};
	in[i++] = (struct input){"NUL bytes", NULL, sizeof(nul) - 1};
	in[i - 1].code = malloc(sizeof(nul));
	if (in[i - 1].code)
		memcpy(in[i - 1].code, nul, sizeof(nul));
	in[i++] = (struct input){"invalid UTF-8", strdup(bad_utf8),
				 sizeof(bad_utf8) - 1};
	for (size_t h = 0; h < sizeof(hostile) / sizeof(hostile[0]); h++)
		in[i++] = (struct input){"hostile text", strdup(hostile[h]),
					 strlen(hostile[h])};
	/* 4 MiB of short lines, then 1 MiB on one line. */
	in[i] = (struct input){"4 MiB of lines", malloc(big + 1), big};
	if (in[i].code) {
		for (size_t b = 0; b < big; b++)
			in[i].code[b] =
				b % 64 == 63 ? '\n' : "x = 1 + 'a'"[b % 11];
		in[i].code[big] = '\0';
	}
	i++;
	in[i] = (struct input){"a 1 MiB line", malloc((1u << 20) + 1),
			       1u << 20};
	if (in[i].code) {
		memset(in[i].code, '"', 1u << 20);
		in[i].code[1u << 20] = '\0';
	}
	i++;
	*n = i;
}

enum hook { H_PREPARE, H_SESSION, H_LEX, H_BLOCKLIST };

/* In the child: run one hook on one input and check what it gives back.
 * Returns 0 when all is well, else -EINVAL (-ENOMEM) with err saying what
 * is wrong. */
static int hook_once(const struct plugin *pl, enum hook h,
		     const struct input *in, struct error *err)
{
	const struct sbx_plugin *d = pl->desc;
	const struct sbx_host_api *api = plugins_host_api();
	char *out = NULL, *mine;
	size_t len = 0;
	int rc;

	switch (h) {
	case H_PREPARE:
	case H_SESSION:
		rc = h == H_PREPARE
			     ? d->prepare_code(api, in->code, in->len, &out,
					       &len)
			     : d->session_request(api, 1, in->code, in->len,
						  "in", 2, &out, &len);
		if (rc > 0)
			return error_set(err, -EINVAL,
					 "returned %d (0 or negative)", rc);
		if (out) {
			mine = plugin_buffer_take(pl, out, rc < 0 ? 0 : len,
						  rc < 0 ? NULL : &len);
			if (!mine)
				return error_set(
					err, -EINVAL,
					"handed back memory not from "
					"host->alloc, or a length past it");
			free(mine);
		} else if (h == H_SESSION && rc == 0) {
			return error_set(err, -EINVAL,
					 "returned 0 without a request");
		}
		return 0;
	case H_LEX: {
		char *masked = malloc(in->len + 1);

		if (!masked)
			return error_set(err, -ENOMEM, "out of memory");
		d->lex_mask(in->code, in->len, masked);
		for (size_t i = 0; i < in->len; i++) {
			if ((in->code[i] == '\n') != (masked[i] == '\n') ||
			    (masked[i] != in->code[i] && masked[i] != ' ')) {
				free(masked);
				return error_set(
					err, -EINVAL,
					"byte %zu is neither the code's nor a "
					"space, or a newline moved",
					i);
			}
		}
		free(masked);
		return 0;
	}
	case H_BLOCKLIST: {
		struct blocklist_hit hits[BLOCKLIST_MAX_HITS];

		if (blocklist_scan(&pl->policy.blocklist, in->code, in->len,
				   hits, BLOCKLIST_MAX_HITS) < 0)
			return error_set(err, -ENOMEM,
					 "the scan failed (out of memory)");
		return 0;
	}
	}
	return 0;
}

/* Runs hook h on every input, each in a child with a 10 s deadline. */
static void hook_check(struct kit *k, const struct plugin *pl, enum hook h,
		       const char *check, const struct input *in, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char got[256] = "";
		struct error err;
		int fds[2], status;
		ssize_t r;
		pid_t pid;

		if (pipe(fds) != 0) {
			say(k, "FAIL", check, "pipe: %s", strerror(errno));
			return;
		}
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int bad;

			close(fds[0]);
			alarm(10);
			bad = hook_once(pl, h, &in[i], &err);
			if (bad && write(fds[1], err.msg, strlen(err.msg)) < 0)
				_exit(2);
			_exit(bad ? 1 : 0);
		}
		close(fds[1]);
		r = pid > 0 ? read(fds[0], got, sizeof(got) - 1) : -1;
		got[r > 0 ? r : 0] = '\0';
		close(fds[0]);
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			say(k, "FAIL", check, "fork: %s", strerror(errno));
			return;
		}
		if (WIFSIGNALED(status)) {
			say(k, "FAIL", check, "%s on %s input",
			    WTERMSIG(status) == SIGALRM
				    ? "took over 10 s"
				    : strsignal(WTERMSIG(status)),
			    in[i].name);
			return;
		}
		if (WEXITSTATUS(status) != 0) {
			say(k, "FAIL", check, "%s input: %s", in[i].name,
			    got[0] ? got : "failed");
			return;
		}
	}
	say(k, "pass", check,
	    "%zu inputs (empty, NUL bytes, invalid UTF-8, "
	    "hostile text, 4 MiB, a 1 MiB line)",
	    n);
}

/* ---- --run: the samples through the server ---- */

/* In a child about to exec this binary: serve only the plugins of dir,
 * with no warm pool; fresh: a new container for each call (each sample
 * meets the image as it is, not a container a sample before it used). */
static void serve_only(const char *dir, int fresh)
{
	setenv("SANDBOX_SERVER_PLUGINS_DIR", dir, 1);
	setenv("SANDBOX_SERVER_BUILTIN_PLUGINS", "no", 1);
	setenv("SANDBOX_POOL_SIZE", "0", 1);
	/* The defaults warm python and bash, which this server lacks: its
	 * warnings would say so before the real cause of a failure. */
	setenv("SANDBOX_POOL_WARM_AT_START", "", 1);
	if (fresh)
		setenv("SANDBOX_POOL_MAX_USES", "1", 1);
}

static const char *str_of(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double num_of(const cJSON *j, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* ---- the server itself over a pipe ---- */

struct rpc {
	pid_t pid;
	int in, out, err;
	char state[32]; /* its own sessions' state directory */
	char buf[1 << 16];
	size_t len;
};

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Starts `self` serving MCP with only dir's plugins. */
static int rpc_start(struct rpc *r, const char *self, const char *dir,
		     int fresh)
{
	char errpath[] = "/tmp/sbx-check-XXXXXX";
	int to[2], from[2];

	memset(r, 0, sizeof(*r));
	snprintf(r->state, sizeof(r->state), "/tmp/sbx-check-XXXXXX");
	if (!mkdtemp(r->state)) {
		r->state[0] = '\0';
		return -1;
	}
	r->err = mkstemp(errpath);
	if (r->err < 0)
		return -1;
	unlink(errpath);
	if (pipe(to) != 0 || pipe(from) != 0)
		return -1;
	fflush(stdout);
	r->pid = fork();
	if (r->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		dup2(r->err, 2);
		close(to[1]);
		close(from[0]);
		serve_only(dir, fresh);
		setenv("SANDBOX_SESSIONS_STATE_DIR", r->state, 1);
		execl(self, self, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	r->in = to[1];
	r->out = from[0];
	return r->pid > 0 ? 0 : -1;
}

static int rpc_send(struct rpc *r, const char *json)
{
	size_t n = strlen(json);

	return write(r->in, json, n) == (ssize_t)n && write(r->in, "\n", 1) == 1
		       ? 0
		       : -1;
}

/* The response with this id (notifications skipped), or NULL after
 * timeout_ms or at the end of the stream. */
static cJSON *rpc_wait(struct rpc *r, int id, int timeout_ms)
{
	for (;;) {
		char *nl = memchr(r->buf, '\n', r->len);
		struct pollfd pf = {.fd = r->out, .events = POLLIN};
		ssize_t n;

		if (nl) {
			cJSON *j;
			const cJSON *jid;

			*nl = '\0';
			j = cJSON_Parse(r->buf);
			r->len -= (size_t)(nl + 1 - r->buf);
			memmove(r->buf, nl + 1, r->len);
			jid = cJSON_GetObjectItemCaseSensitive(j, "id");
			if (cJSON_IsNumber(jid) && jid->valueint == id)
				return j;
			cJSON_Delete(j);
			continue;
		}
		if (r->len == sizeof(r->buf) || poll(&pf, 1, timeout_ms) <= 0)
			return NULL;
		n = read(r->out, r->buf + r->len, sizeof(r->buf) - r->len);
		if (n <= 0)
			return NULL;
		r->len += (size_t)n;
	}
}

static void rpc_stop(struct rpc *r)
{
	int status;

	if (r->in > 0)
		close(r->in); /* end of input: the server shuts down */
	if (r->out > 0)
		close(r->out);
	if (r->pid > 0)
		waitpid(r->pid, &status, 0);
	if (r->err > 0)
		close(r->err);
	if (r->state[0])
		nftw(r->state, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* A tools/call's result text parsed (sandbox_execute's JSON), or NULL with
 * err saying what went wrong. */
static cJSON *rpc_tool(struct rpc *r, int id, const char *tool, cJSON *args,
		       struct error *err)
{
	cJSON *req = cJSON_CreateObject(), *params, *res, *body = NULL;
	const cJSON *result, *content, *text;
	char *line;

	cJSON_AddStringToObject(req, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(req, "id", id);
	cJSON_AddStringToObject(req, "method", "tools/call");
	params = cJSON_AddObjectToObject(req, "params");
	cJSON_AddStringToObject(params, "name", tool);
	cJSON_AddItemToObject(params, "arguments", args);
	line = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (!line || rpc_send(r, line) != 0) {
		free(line);
		error_set(err, -EPIPE, "the server's input is closed");
		return NULL;
	}
	free(line);
	res = rpc_wait(r, id, 180000);
	result = cJSON_GetObjectItemCaseSensitive(res, "result");
	content = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(result, "content"), 0);
	text = cJSON_GetObjectItemCaseSensitive(content, "text");
	if (cJSON_IsString(text))
		body = cJSON_Parse(text->valuestring);
	if (!body ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")))
		error_set(err, -EPROTO, "%s: %.200s", tool,
			  cJSON_IsString(text) ? text->valuestring
					       : "no answer from the server");
	if (body &&
	    strcmp(str_of(cJSON_GetObjectItemCaseSensitive(body, "error"),
			  "code"),
		   "image_missing") == 0)
		err->code = ERR_IMAGE_MISSING;
	if (body &&
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError"))) {
		cJSON_Delete(body);
		body = NULL;
	}
	cJSON_Delete(res);
	return body;
}

/* The server started and initialized (MCP 2025-06-18): 0, or a negative
 * code with err. */
static int rpc_open(struct rpc *r, const char *self, const char *dir, int fresh,
		    struct error *err)
{
	cJSON *init;

	if (rpc_start(r, self, dir, fresh) != 0)
		return error_set(err, -EIO, "cannot start the server");
	rpc_send(r, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
		    "\"params\":{\"protocolVersion\":\"2025-06-18\","
		    "\"capabilities\":{},\"clientInfo\":{\"name\":"
		    "\"check-plugin\",\"version\":\"1\"}}}");
	init = rpc_wait(r, 1, 60000);
	if (!init)
		return error_set(err, -ETIMEDOUT, "no answer to initialize");
	cJSON_Delete(init);
	rpc_send(r, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/initialized\"}");
	return 0;
}

/* A plugin that declares a pre-started interpreter (ABI 1.8,
 * docs/prestart.md): its hello and echo samples, one-off through a
 * server, give what they give the ordinary way (the checks above), and
 * the pool says both ran in the interpreter that waited for them. */
static void prestart_check(struct kit *k, const char *self, const char *dir,
			   const struct plugin *pl)
{
	const struct sbx_samples *s = pl->desc->samples;
	static const char *const want[] = {"hello\n", "ping\n"};
	const cJSON *l;
	struct error err = {0};
	struct rpc r;
	cJSON *a, *got;
	double n = -1;
	int ok, i;

	if (!pl->desc->prestart) {
		say(k, "skip", "run: prestart",
		    "none declared: each call starts its interpreter");
		return;
	}
	if (!s->hello || !s->echo) {
		say(k, "skip", "run: prestart",
		    "the plugin has no hello and echo samples");
		return;
	}
	if (k->no_image) {
		say(k, "skip", "run: prestart", "the image is missing (above)");
		return;
	}
	ok = rpc_open(&r, self, dir, 0, &err) == 0;
	for (i = 0; ok && i < 2; i++) {
		a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "language", pl->desc->name);
		cJSON_AddStringToObject(a, "code", i ? s->echo : s->hello);
		if (i)
			cJSON_AddStringToObject(a, "stdin", "ping\n");
		got = rpc_tool(&r, 2 + i, "sandbox_execute", a, &err);
		ok = got && num_of(got, "exitCode") == 0 &&
		     strcmp(str_of(got, "stdout"), want[i]) == 0;
		if (got && !ok)
			error_set(&err, -EINVAL,
				  "%s: exit %g, stdout '%.80s', stderr '%.80s'",
				  i ? "echo" : "hello", num_of(got, "exitCode"),
				  str_of(got, "stdout"), str_of(got, "stderr"));
		cJSON_Delete(got);
	}
	if (ok) {
		a = cJSON_CreateObject();
		cJSON_AddStringToObject(a, "what", "pool");
		got = rpc_tool(&r, 4, "sandbox_inspect", a, &err);
		l = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(got, "pool"),
				"languages"),
			pl->desc->name);
		n = num_of(l, "prestarted");
		ok = got && n == 2;
		if (got && !ok)
			error_set(
				&err, -EINVAL,
				"%g of 2 calls ran in a waiting interpreter "
				"(%g the ordinary way): does the image's code "
				"wait on fd 3 and close fd 5?",
				n, num_of(l, "cold"));
		cJSON_Delete(got);
	}
	if (ok)
		say(k, "pass", "run: prestart",
		    "hello and echo ran in the interpreter that waited for "
		    "them");
	else
		say(k, "FAIL", "run: prestart", "%s", err.msg);
	rpc_stop(&r);
}

/* One call in the kit's session (timeout_ms 0: the language's own), its
 * result or NULL with err. */
static cJSON *session_call(struct rpc *r, int id, const char *code,
			   unsigned timeout_ms, struct error *err)
{
	cJSON *a = cJSON_CreateObject();

	cJSON_AddStringToObject(a, "session", "kit");
	cJSON_AddStringToObject(a, "code", code);
	if (timeout_ms)
		cJSON_AddNumberToObject(a, "timeout", timeout_ms);
	return rpc_tool(r, id, "sandbox_execute", a, err);
}

/* session_get, after whatever came before it: 0 when it printed 42 with
 * the interpreter's state kept, else -EINVAL with err. */
static int session_get_42(struct rpc *r, int id, const struct sbx_samples *s,
			  struct error *err)
{
	cJSON *got = session_call(r, id, s->session_get, 0, err);
	int rc = 0;

	if (!got)
		return -EPROTO;
	if (num_of(got, "exitCode") != 0 ||
	    strcmp(str_of(got, "stdout"), "42\n") != 0 ||
	    !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(got, "stateKept")))
		rc = error_set(err, -EINVAL,
			       "session_get: exit %g, stdout '%.80s', stderr "
			       "'%.80s'%s",
			       num_of(got, "exitCode"), str_of(got, "stdout"),
			       str_of(got, "stderr"),
			       cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				       got, "freshState"))
				       ? " (a new interpreter)"
				       : "");
	cJSON_Delete(got);
	return rc;
}

/* The pipes of one `ls -l /proc/self/fd` listing at fd 0 or from fd 3
 * on (fds 1 and 2 are the call's output, pipes by design). */
struct fd_pipes {
	int n, listed; /* listed: the listing has fd 1, so ls ran */
	int fd[32];
	unsigned long inode[32];
};

static void fd_pipes_parse(const char *text, struct fd_pipes *p)
{
	const char *line, *next, *nl, *arrow, *num;
	unsigned long inode;
	int fd;

	memset(p, 0, sizeof(*p));
	for (line = text; *line; line = next) {
		nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		/* "lr-x------ 1 sandbox sandbox 64 Nov 28 11:40 0 -> target" */
		arrow = strstr(line, " -> ");
		if (!arrow || (nl && arrow > nl))
			continue;
		for (num = arrow;
		     num > line && num[-1] >= '0' && num[-1] <= '9'; num--)
			;
		if (num == arrow || (num > line && num[-1] != ' ') ||
		    arrow - num > 9)
			continue;
		fd = atoi(num);
		if (fd == 1)
			p->listed = 1;
		if (fd == 1 || fd == 2 ||
		    sscanf(arrow + 4, "pipe:[%lu]", &inode) != 1 ||
		    p->n == (int)(sizeof(p->fd) / sizeof(p->fd[0])))
			continue;
		p->fd[p->n] = fd;
		p->inode[p->n++] = inode;
	}
}

/* The interpreter hides its control pipes (docs/session-interpreters.md,
 * "How it is started"): a program that user code starts, the way
 * system() does, lists its descriptors twice. The request and reply
 * pipes are the interpreter's for its whole life, so a pipe other than
 * the output at fd 0 or from fd 3 on, the same in both calls, is one of
 * them (a pipe made for one call's stdin is new each time). Only a child
 * can tell: an interpreter may keep fds 0 and 3 itself (bash does, and
 * closes them for each call's eval), and code in its own process can
 * find them in /proc/self/fd whatever it does. */
static void fds_check(struct kit *k, struct rpc *r, int *id,
		      const struct sbx_plugin *d, const struct sbx_samples *s)
{
	static const char check[] = "run: control fds";
	struct fd_pipes seen[2];
	struct error err = {0};
	char leaked[128] = "";
	size_t at = 0;
	cJSON *got;
	int i, j, c;

	if (d->abi_minor < 10) {
		say(k, "skip", check,
		    "built for ABI 1.%u: its samples end before session_fds "
		    "(1.10)",
		    d->abi_minor);
		return;
	}
	if (!s->session_fds) {
		say(k, "skip", check, "the plugin has no session_fds sample");
		return;
	}
	for (c = 0; c < 2; c++) {
		got = session_call(r, (*id)++, s->session_fds, 0, &err);
		if (!got) {
			say(k, "FAIL", check, "%s", err.msg);
			return;
		}
		fd_pipes_parse(str_of(got, "stdout"), &seen[c]);
		if (num_of(got, "exitCode") != 0 || !seen[c].listed) {
			say(k, "FAIL", check,
			    "session_fds: exit %g, no listing of fd 1 in "
			    "stdout '%.120s', stderr '%.80s'",
			    num_of(got, "exitCode"), str_of(got, "stdout"),
			    str_of(got, "stderr"));
			cJSON_Delete(got);
			return;
		}
		cJSON_Delete(got);
	}
	for (i = 0; i < seen[1].n; i++)
		for (j = 0; j < seen[0].n; j++)
			if (seen[1].inode[i] == seen[0].inode[j] &&
			    at < sizeof(leaked) - 40)
				at += (size_t)snprintf(
					leaked + at, sizeof(leaked) - at,
					"%sfd %d on pipe:[%lu]", at ? ", " : "",
					seen[1].fd[i], seen[1].inode[i]);
	if (at)
		say(k, "FAIL", check,
		    "a program the user's code starts inherits the same pipe "
		    "in two calls, the interpreter's request or reply pipe: "
		    "%s; move fds 0 and 3 away close-on-exec, put /dev/null "
		    "on 0 and close 3 (docs/session-interpreters.md)",
		    leaked);
	else
		say(k, "pass", check,
		    "a program started by user code has neither control "
		    "pipe");
}

/* A session call that runs past its timeout is interrupted (SIGINT);
 * the interpreter must stop the code, keep its state and answer, every
 * time (docs/session-interpreters.md, "Interrupts"): spin twice, then
 * the variable session_set left must still be there. One that survives
 * only the first interrupt is killed by the agent after the grace, or
 * dies: its state is gone. */
static void interrupt_check(struct kit *k, struct rpc *r, int *id,
			    const struct sbx_samples *s, const char *why_not)
{
	static const char check[] = "run: interrupts";
	struct error err = {0};
	cJSON *got;
	int i, ok;

	if (!s->spin) {
		say(k, "skip", check, "the plugin has no spin sample");
		return;
	}
	if (why_not) {
		say(k, "skip", check, "%s", why_not);
		return;
	}
	for (i = 0; i < 2; i++) {
		/* 1 s, as the one-off timeout check. */
		got = session_call(r, (*id)++, s->spin, 1000, &err);
		if (!got) {
			say(k, "FAIL", check, "%s", err.msg);
			return;
		}
		ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			     got, "timedOut")) &&
		     cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			     got, "stateKept"));
		if (!ok)
			say(k, "FAIL", check,
			    "spin, interrupt %d of 2: timed out %s, signal "
			    "%s, state kept %s, stderr '%.80s': on SIGINT the "
			    "interpreter must stop the code, keep its state "
			    "and answer 130, every time",
			    i + 1,
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				    got, "timedOut"))
				    ? "yes"
				    : "no",
			    *str_of(got, "signal") ? str_of(got, "signal")
						   : "none",
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				    got, "stateKept"))
				    ? "yes"
				    : "no",
			    str_of(got, "stderr"));
		cJSON_Delete(got);
		if (!ok)
			return;
	}
	if (session_get_42(r, (*id)++, s, &err) != 0)
		say(k, "FAIL", check, "after two interrupts, %s", err.msg);
	else
		say(k, "pass", check,
		    "two calls interrupted in a row, the variable kept");
}

/* The session contract through one session: a variable kept between
 * calls, the control pipes hidden from what user code starts, and two
 * interrupts survived. */
static void session_check(struct kit *k, const char *self, const char *dir,
			  const struct plugin *pl)
{
	static const char *const checks[] = {"run: session", "run: control fds",
					     "run: interrupts"};
	const char *skip = NULL;
	struct sbx_samples s;
	struct error err = {0};
	struct rpc r;
	cJSON *a, *got;
	int ok, id = 2;
	size_t i;

	plugin_samples_copy(pl->desc, &s);
	if (!pl->desc->session_cmd)
		skip = "no session interpreter: a session runs each call as "
		       "a program";
	else if (k->no_image)
		skip = "the image is missing (above)";
	if (skip) {
		for (i = 0; i < sizeof(checks) / sizeof(*checks); i++)
			say(k, "skip", checks[i], "%s", skip);
		return;
	}
	if (rpc_open(&r, self, dir, 0, &err) != 0) {
		for (i = 0; i < sizeof(checks) / sizeof(*checks); i++)
			say(k, "FAIL", checks[i], "%s", err.msg);
		rpc_stop(&r);
		return;
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "action", "create");
	cJSON_AddStringToObject(a, "language", pl->desc->name);
	cJSON_AddStringToObject(a, "name", "kit");
	got = rpc_tool(&r, id++, "sandbox_session", a, &err);
	ok = got != NULL;
	cJSON_Delete(got);
	if (!ok) {
		for (i = 0; i < sizeof(checks) / sizeof(*checks); i++)
			say(k, "FAIL", checks[i], "%s", err.msg);
		rpc_stop(&r);
		return;
	}
	if (!s.session_set || !s.session_get) {
		say(k, "skip", checks[0], "the plugin has no such samples");
		skip = "the plugin has no session_set and session_get samples";
	} else {
		got = session_call(&r, id++, s.session_set, 0, &err);
		ok = got && num_of(got, "exitCode") == 0;
		if (got && !ok)
			error_set(&err, -EINVAL,
				  "session_set: exit %g, stdout '%.80s', "
				  "stderr '%.80s'",
				  num_of(got, "exitCode"),
				  str_of(got, "stdout"), str_of(got, "stderr"));
		cJSON_Delete(got);
		ok = ok && session_get_42(&r, id++, &s, &err) == 0;
		if (ok) {
			say(k, "pass", checks[0],
			    "a variable kept between two calls");
		} else {
			say(k, "FAIL", checks[0], "%s", err.msg);
			skip = "the session check failed (above)";
		}
	}
	fds_check(k, &r, &id, pl->desc, &s);
	interrupt_check(k, &r, &id, &s, skip);
	/* The session goes with the checks. */
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "action", "destroy");
	cJSON_AddStringToObject(a, "name", "kit");
	cJSON_Delete(rpc_tool(&r, id, "sandbox_session", a, &err));
	rpc_stop(&r);
}

/* The image the server said is missing ("image NAME is missing: ..." in
 * its message, which the environment may have set), else the plugin's. */
static void missing_image(const char *msg, const struct plugin *pl, char *out,
			  size_t size)
{
	const char *p = strstr(msg, "image "), *end;

	end = p ? strstr(p + 6, " is missing") : NULL;
	if (p && end && end > p + 6 && (size_t)(end - p - 6) < size)
		snprintf(out, size, "%.*s", (int)(end - p - 6), p + 6);
	else
		snprintf(out, size, "%s", pl->policy.image);
}

/* One sample through the samples' server (call id), judged by what it
 * must give. */
static void sample_check(struct kit *k, struct rpc *r, int id,
			 const struct plugin *pl, const char *check,
			 const char *code, const char *stdin_text,
			 unsigned timeout_ms, int want_exit,
			 const char *want_stdout, const char *want_stderr,
			 int want_timeout)
{
	struct error err = {0};
	cJSON *a, *got;
	int timed_out;

	if (!code) {
		say(k, "skip", check, "the plugin has no such sample");
		return;
	}
	if (k->no_image) {
		say(k, "skip", check, "the image is missing (above)");
		return;
	}
	a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "language", pl->desc->name);
	cJSON_AddStringToObject(a, "code", code);
	if (stdin_text)
		cJSON_AddStringToObject(a, "stdin", stdin_text);
	cJSON_AddNumberToObject(a, "timeout", timeout_ms);
	got = rpc_tool(r, id, "sandbox_execute", a, &err);
	if (!got && err.code == ERR_IMAGE_MISSING) {
		char fix[PATH_MAX + 300], image[256];

		missing_image(err.msg, pl, image, sizeof(image));
		doctor_image_fix(k->where->build_images, pl->desc->name, image,
				 fix, sizeof(fix));
		k->no_image = 1;
		say(k, "FAIL", check,
		    "image %s is missing (image_missing): build it with %s",
		    image, fix);
		return;
	}
	if (!got) {
		say(k, "FAIL", check, "%.319s", err.msg);
		return;
	}
	timed_out =
		cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(got, "timedOut"));
	if (want_timeout ? !timed_out
			 : (timed_out || num_of(got, "exitCode") != want_exit ||
			    (want_stdout &&
			     strcmp(str_of(got, "stdout"), want_stdout) != 0) ||
			    (want_stderr &&
			     !strstr(str_of(got, "stderr"), want_stderr))))
		say(k, "FAIL", check,
		    "exit %g, timed out: %s, stdout '%.80s', stderr '%.80s'",
		    num_of(got, "exitCode"), timed_out ? "yes" : "no",
		    str_of(got, "stdout"), str_of(got, "stderr"));
	else
		say(k, "pass", check, "%s",
		    want_timeout ? "ended by its timeout"
				 : "the output and exit status expected");
	cJSON_Delete(got);
}

/* The samples, one-off calls one after the other through one server that
 * serves only the plugin's directory, each in a container of its own. */
static void samples_check(struct kit *k, const char *self, const char *dir,
			  const struct plugin *pl)
{
	const struct sbx_samples *s = pl->desc->samples;
	static const char *const checks[] = {"run: hello", "run: stdin",
					     "run: failing program",
					     "run: timeout"};
	struct error err = {0};
	struct rpc r;

	if (rpc_open(&r, self, dir, 1, &err) != 0) {
		for (size_t i = 0; i < sizeof(checks) / sizeof(*checks); i++)
			say(k, "FAIL", checks[i], "%s", err.msg);
		rpc_stop(&r);
		return;
	}
	sample_check(k, &r, 2, pl, checks[0], s->hello, NULL, 60000, 0,
		     "hello\n", NULL, 0);
	sample_check(k, &r, 3, pl, checks[1], s->echo, "ping\n", 60000, 0,
		     "ping\n", NULL, 0);
	sample_check(k, &r, 4, pl, checks[2], s->fail, NULL, 60000, 3, NULL,
		     "oops", 0);
	/* 1 s: the timeout covers the run, not the build, and a spinning
	 * sample burns a core for all of it. */
	sample_check(k, &r, 5, pl, checks[3], s->spin, NULL, 1000, 0, NULL,
		     NULL, 1);
	rpc_stop(&r);
}

/* A built-in plugin (the directory the server loads first) that answers
 * to pl's name or an alias of it, as plugins_find looks: the server would
 * refuse pl. The file being checked, when it is a built-in itself, is not
 * its own rival. */
static void name_check(struct kit *k, const struct plugin *pl, const char *real)
{
	const struct sbx_plugin *d = pl->desc;
	struct plugin_set builtin = {0};
	const struct plugin *by = NULL;
	const char *clash = NULL, *name;
	char other[PATH_MAX];
	enum log_level level;
	size_t i;

	if (!k->where->builtin) {
		say(k, "skip", "name", "the built-in plugins cannot be found");
		return;
	}
	/* Their own problems are not this plugin's. */
	level = log_get_level();
	log_set_level(LOG_LEVEL_ERROR);
	(void)plugins_load_dir(&builtin, k->where->builtin);
	log_set_level(level);
	for (i = 0, name = d->name; name && !clash;
	     name = d->aliases ? d->aliases[i++] : NULL) {
		by = plugins_find(&builtin, name);
		if (by &&
		    !(realpath(by->path, other) && strcmp(other, real) == 0))
			clash = name;
	}
	if (clash)
		say(k, "FAIL", "name",
		    "'%s' is a name of the built-in %s plugin: a server loads "
		    "the built-ins first and refuses this one; choose "
		    "another",
		    clash, by->desc->name);
	else
		say(k, "pass", "name",
		    "'%s'%s: no other of the %zu built-in plugins answers to "
		    "it",
		    d->name,
		    d->aliases && d->aliases[0] ? " and its aliases" : "",
		    builtin.n);
	plugins_close(&builtin);
}

int plugin_check(const char *path, int run, const struct kit_paths *where)
{
	struct kit k = {.where = where};
	const char *self = where->self;
	struct plugin_set set = {0};
	struct input in[16];
	struct config cfg;
	char dir[PATH_MAX], real[PATH_MAX];
	struct error err;
	const struct plugin *pl;
	size_t n = 0;
	int fd, rc, level;

	printf("check-plugin %s\n", path);
	if (plugin_file_check(path, &fd, real, sizeof(real), &err) != 0) {
		say(&k, "FAIL", "file", "%s", err.msg);
		goto out;
	}
	close(fd);
	say(&k, "pass", "file",
	    "a regular file only its owner may write, in directories only "
	    "root or we may change");
	plugins_load_file(&set, path);
	if (set.n != 1) {
		say(&k, "FAIL", "load", "%s",
		    set.rejected && set.rejects[0].reason
			    ? set.rejects[0].reason
			    : "not loaded");
		goto out;
	}
	pl = &set.v[0];
	say(&k, "pass", "load", "%s %s, ABI %u.%u: descriptor valid, init ok",
	    pl->desc->name, pl->desc->version ? pl->desc->version : "?",
	    pl->desc->abi_major, pl->desc->abi_minor);
	name_check(&k, pl, real);
	config_init(&cfg);
	/* The defaults' [pool] warm_at_start names languages this set
	 * lacks: not the plugin's business. */
	level = log_get_level();
	if (level < LOG_LEVEL_ERROR)
		log_set_level(LOG_LEVEL_ERROR);
	rc = plugins_apply_config(&set, &cfg);
	log_set_level(level);
	if (rc != 0) {
		say(&k, "FAIL", "policy",
		    "refused with the built-in defaults (see the log above)");
		config_close(&cfg);
		goto out;
	}
	config_close(&cfg);
	say(&k, "pass", "policy", "%u MiB, %u ms, image %s",
	    pl->policy.limits.memory_mb, pl->policy.limits.timeout_ms,
	    pl->policy.image);

	inputs_make(in, &n);
	if (pl->desc->prepare_code)
		hook_check(&k, pl, H_PREPARE, "prepare_code", in, n);
	if (pl->desc->session_request)
		hook_check(&k, pl, H_SESSION, "session_request", in, n);
	if (pl->desc->lex_mask)
		hook_check(&k, pl, H_LEX, "lex_mask", in, n);
	else
		say(&k, "skip", "lex_mask",
		    "none: the blocklist sees raw code");
	hook_check(&k, pl, H_BLOCKLIST, "blocklist", in, n);
	for (size_t i = 0; i < n; i++)
		free(in[i].code);

	if (run) {
		const struct sbx_samples *s = pl->desc->samples;

		const char *pdir;

		snprintf(dir, sizeof(dir), "%s", path);
		pdir = dirname(dir);
		if (!s) {
			say(&k, "FAIL", "samples",
			    "--run needs the plugin's samples (ABI 1.7)");
			goto out;
		}
		samples_check(&k, self, pdir, pl);
		prestart_check(&k, self, pdir, pl);
		session_check(&k, self, pdir, pl);
	}
out:
	printf("%d passed, %d failed, %d skipped\n", k.passed, k.failed,
	       k.skipped);
	plugins_close(&set);
	return k.failed ? 1 : 0;
}
