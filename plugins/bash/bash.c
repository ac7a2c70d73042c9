/*
 * bash.c - the GNU Bash plugin.
 *
 * The script is a file, not -c, so 1 MiB scripts work and $0 is meaningful.
 *
 * Sessions (docs/session-interpreters.md, "Bash"): the interpreter is an
 * interactive bash started with images/bash/repl.bashrc, and
 * session_request turns each call into shell text that it reads on fd 0:
 *
 *   { __sbx_req=1; } 2>/dev/null
 *   { __sbx_code=$(</dev/stdin); } <<'__SBX_<nonce>' 2>/dev/null
 *   <code>
 *   __SBX_<nonce>
 *   { \builtin trap - INT; if <interrupted>; then __sbx_rc=130;
 *     elif <no __sbx_code: the here-document failed>; then __sbx_rc=1; else
 *       \builtin eval -- "<unset the temporaries>;${__sbx_code-}"$'\n' 2>&9
 * 9>&- 3>&- </dev/null;
 *       __sbx_rc=$?; fi; <trap, prompts, history off>; } 9>&2 2>/dev/null
 *   (an empty line)
 *   { <clean up, trap>; \builtin printf 'done <seq> <status>\n' >&3; }
 * 2>/dev/null
 *
 * (the eval line is one line). Why each piece:
 * - the code travels in a quoted here-document, so nothing in it is
 *   expanded, whatever it holds ('\'', '\\', CRLF, lines that look like
 *   terminators); the terminator has a random nonce that does not occur in
 *   the code or the stdin. $(</dev/stdin) reads it without a fork and in
 *   blocks (`read -d ''` reads a pipe byte by byte: 25 ms for 60 KB) and
 *   drops the trailing newlines, which do not matter to code;
 * - eval runs at the top level, so assignments, functions, aliases, export
 *   and cd stay; fd 3 (replies) is closed for it, and fd 0 is /dev/null or
 *   the call's stdin: exact bytes from a here-document when they end with
 *   a newline (a here-document always does), else
 *   `< <(printf %s "$__sbx_in")`, __sbx_in holding the here-document less
 *   the newline it added;
 * - SIGINT: outside the eval a trap (TRAP_INT, also set by repl.bashrc)
 *   notes an interrupt in __sbx_int when it concerns a request (one is
 *   being read, __sbx_req, or waits on fd 0), else ignores it; an
 *   interrupt that cut the request in two would make bash run the rest of
 *   the code as top-level commands. A noted interrupt skips the eval and
 *   the reply says 130. The eval line lifts the trap, so an interrupt
 *   during the eval stops the code as ^C does in a terminal, and bash goes
 *   on with the next line, the reply, which is a separate line for that
 *   reason (__sbx_rc was not set: 130). One gap is left: bash drops a
 *   trap still pending when `trap - INT` runs, so an interrupt arriving
 *   in the microseconds before it is lost and the code runs (the agent's
 *   interrupt grace then ends it);
 * - our own commands run in { ...; } 2>/dev/null, so `set -x` in user code
 *   traces the user's commands only, and every command is \builtin, so
 *   user aliases or functions named eval, printf, trap... don't interfere;
 *   none of them fails, so `set -e` in user code does not end the shell;
 * - the empty line: after an eval whose code ends inside a quote, bash
 *   5.2 does not recognise a reserved word ("{") at the start of the next
 *   line; an empty line resets that;
 * - prompts are emptied again after each call (a sourced venv activate
 *   sets PS1, which an interactive bash would print before every line);
 *   PS0 is ours, see below.
 */
#include <mcp-sandbox/plugin.h>

#include <mcp-sandbox/lex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static const char *const aliases[] = {"sh", "shell", NULL};
static const char *const run_cmd[] = {"bash", "{file}", NULL};
/* The session interpreter. The outer bash only puts /dev/null on stderr
 * while the interactive one starts (it prints job-control warnings when it
 * has no terminal); repl.bashrc takes the real stderr back from fd 4. */
static const char *const session_cmd[] = {
	"bash",
	"-c",
	"exec bash --noprofile --noediting --rcfile /opt/sbx/repl.bashrc -i "
	"4>&2 2>/dev/null",
	NULL,
};

/* "__SBX_" and 16 hex digits. */
#define NONCE_LEN 22
#define NONCE_TRIES 64

/* The SIGINT trap between calls (the same as repl.bashrc's): an interrupt
 * counts while a request is being read (__sbx_req) or waits on fd 0 (the
 * agent wrote a request and interrupted it before bash got to its first
 * line); else it is a late one for a call already answered: ignored.
 * No reserved words ("if", "{"): the trap may run while bash is in the
 * middle of parsing a request, and bash 5.2 then fails to recognise them. */
#define TRAP_INT                                                               \
	"\\builtin trap '\\builtin test -n \"${__sbx_req-}\" || \\builtin "    \
	"read -t 0 && __sbx_int=1' INT"

/* PS0 is expanded after bash read a command and before it runs it, and
 * before a trap can run: this one expands to nothing and sets __sbx_req,
 * so that an interrupt arriving once bash has the request in its buffer
 * counts even if the trap runs before the first line does. */
#define PS0 "'${BASH:0:(__sbx_req=1)*0}'"

static const char L_START[] = "{ __sbx_req=1; } 2>/dev/null\n";
/* The here-document first, then 2>/dev/null: when bash cannot make it (a
 * full /tmp) the message reaches the user, the variable stays unset and
 * the call fails with status 1. */
static const char L_CODE[] = "{ __sbx_code=$(</dev/stdin); } <<'";
static const char L_STDIN[] = "{ __sbx_in=$(</dev/stdin); } <<'";
static const char L_HEREDOC_END[] = "' 2>/dev/null\n";
static const char L_EVAL[] =
	"{ \\builtin trap - INT; if \\builtin test -n \"${__sbx_int-}\"; then "
	"__sbx_rc=130; elif \\builtin test ";
static const char L_EVAL_CODE_SET[] = "\"${__sbx_code+1}\" != 1";
static const char L_EVAL_BOTH_SET[] = "\"${__sbx_code+1}${__sbx_in+1}\" != 11";
static const char L_EVAL_RUN[] =
	"; then __sbx_rc=1; else "
	"\\builtin eval -- \"{ \\builtin unset -v __sbx_code __sbx_in "
	"__sbx_int __sbx_req; } 2>/dev/null;${__sbx_code-}\"$'\\n' 2>&9 9>&- "
	"3>&- ";
static const char IN_NULL[] = "</dev/null";
static const char IN_PROCSUB[] = "< <(\\builtin printf %s \"${__sbx_in-}\")";
static const char IN_HEREDOC[] = "<<'";
static const char L_EVAL_END[] =
	"; __sbx_rc=$?; fi; " TRAP_INT "; "
	"PS0=" PS0 " PS1= PS2=; \\builtin unset -v PROMPT_COMMAND; "
	"\\builtin set +H +o history; } 9>&2 2>/dev/null";
/* The reply goes last, once the temporaries are gone and the trap is
 * back: the agent may write the next request (and interrupt it) as soon as
 * it has the reply, and that interrupt must not be undone here. */
static const char L_DONE[] = "{ \\builtin printf -v __sbx_rc 'done ";
static const char L_DONE_END[] = " %d\\n' \"${__sbx_rc-130}\"; \\builtin "
				 "unset -v __sbx_code __sbx_in __sbx_int "
				 "__sbx_req; " TRAP_INT "; \\builtin printf "
				 "%s \"$__sbx_rc\" >&3; \\builtin unset -v "
				 "__sbx_rc; } 2>/dev/null\n";

/* Appends to p when it is not NULL; counts either way, so that one
 * function both measures and writes the request. */
struct out {
	char *p;
	size_t n;
};

static void put(struct out *o, const char *s, size_t len)
{
	if (o->p)
		memcpy(o->p + o->n, s, len);
	o->n += len;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void build(struct out *o, uint32_t seq, const char *nonce,
		  const char *code, size_t len, const char *in, size_t in_len)
{
	char done[16];
	int heredoc_in = in_len > 0 && in[in_len - 1] == '\n';

	puts_(o, L_START);
	puts_(o, L_CODE);
	put(o, nonce, NONCE_LEN);
	puts_(o, L_HEREDOC_END);
	put(o, code, len);
	if (len > 0 && code[len - 1] != '\n')
		put(o, "\n", 1);
	put(o, nonce, NONCE_LEN);
	put(o, "\n", 1);
	if (in_len > 0 && !heredoc_in) {
		puts_(o, L_STDIN);
		put(o, nonce, NONCE_LEN);
		puts_(o, L_HEREDOC_END);
		put(o, in, in_len);
		put(o, "\n", 1);
		put(o, nonce, NONCE_LEN);
		put(o, "\n", 1);
	}
	puts_(o, L_EVAL);
	puts_(o, in_len > 0 && !heredoc_in ? L_EVAL_BOTH_SET : L_EVAL_CODE_SET);
	puts_(o, L_EVAL_RUN);
	if (in_len == 0) {
		puts_(o, IN_NULL);
	} else if (!heredoc_in) {
		puts_(o, IN_PROCSUB);
	} else {
		puts_(o, IN_HEREDOC);
		put(o, nonce, NONCE_LEN);
		put(o, "'", 1);
	}
	puts_(o, L_EVAL_END);
	put(o, "\n", 1);
	if (heredoc_in) {
		put(o, in, in_len);
		put(o, nonce, NONCE_LEN);
		put(o, "\n", 1);
	}
	put(o, "\n", 1);
	snprintf(done, sizeof(done), "%u", seq);
	puts_(o, L_DONE);
	puts_(o, done);
	puts_(o, L_DONE_END);
}

/* 8 random bytes; getrandom(2), else a mix of clocks, pid and a counter
 * (the nonce needs to be unique in the code, not secret: the user writes
 * all of the code anyway). */
static void random_bytes(unsigned char b[8])
{
	static uint64_t counter;
	struct timespec ts;
	uint64_t x;
	int i;

	if (getrandom(b, 8, GRND_NONBLOCK) == 8)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
	    ((uint64_t)getpid() << 32) ^ ++counter * 0x9e3779b97f4a7c15ull;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	for (i = 0; i < 8; i++)
		b[i] = (unsigned char)(x >> (8 * i));
}

static int reject(const struct sbx_host_api *host, const char *msg, char **out,
		  size_t *out_len)
{
	size_t n = strlen(msg);

	*out = host->alloc(n + 1);
	if (*out) {
		memcpy(*out, msg, n + 1);
		*out_len = n;
	}
	return -1;
}

static int session_request(const struct sbx_host_api *host, uint32_t seq,
			   const char *code, size_t len, const char *stdin_data,
			   size_t stdin_len, char **out, size_t *out_len)
{
	static const char hex[] = "0123456789abcdef";
	char nonce[NONCE_LEN + 1];
	unsigned char r[8];
	struct out o = {NULL, 0};
	int i, tries;

	*out = NULL;
	*out_len = 0;
	if (len && memchr(code, '\0', len))
		return reject(host, "bash code cannot contain NUL bytes", out,
			      out_len);
	if (stdin_len && memchr(stdin_data, '\0', stdin_len))
		return reject(host,
			      "the stdin of a bash session call cannot "
			      "contain NUL bytes",
			      out, out_len);
	memcpy(nonce, "__SBX_", 6);
	for (tries = 0;; tries++) {
		if (tries == NONCE_TRIES)
			return reject(host,
				      "no here-document terminator found "
				      "that the code does not contain",
				      out, out_len);
		random_bytes(r);
		for (i = 0; i < 8; i++) {
			nonce[6 + 2 * i] = hex[r[i] >> 4];
			nonce[7 + 2 * i] = hex[r[i] & 15];
		}
		nonce[NONCE_LEN] = '\0';
		if ((!len || !memmem(code, len, nonce, NONCE_LEN)) &&
		    (!stdin_len ||
		     !memmem(stdin_data, stdin_len, nonce, NONCE_LEN)))
			break;
	}
	build(&o, seq, nonce, code, len, stdin_data, stdin_len);
	o.p = host->alloc(o.n + 1);
	if (!o.p)
		return reject(host, "out of memory", out, out_len);
	o.n = 0;
	build(&o, seq, nonce, code, len, stdin_data, stdin_len);
	o.p[o.n] = '\0';
	*out = o.p;
	*out_len = o.n;
	return 0;
}

/* The blocklist's rules (docs/security.md, "The code blocklist"): each
 * names a construct ordinary scripts do not use; the sandbox stops every
 * one of them anyway. CMD: where a command starts (a line, after ; & | (
 * { or `, after a keyword or a command-running prefix). */
#define CMD                                                                    \
	"(^|[;&|({`!]|\\b(then|do|else|if|elif|while|until|exec|sudo|"         \
	"command|nohup|time|env|xargs|nice)\\s)\\s*"
static const struct sbx_block_rule blocklist[] = {
	{"(^|[^[:alnum:]_:])(:|[[:alnum:]_]+)\\s*\\(\\)\\s*\\{\\s*\\2\\s*\\|"
	 "\\s*\\2\\s*&",
	 "a fork bomb (the pids limit stops it)"},
	{CMD "(unshare|nsenter|chroot|pivot_root|insmod|rmmod|modprobe|kexec|"
	     "setcap|capsh|debugfs)\\b",
	 "enters namespaces, changes the root or loads kernel code (the "
	 "sandbox has no capabilities; the seccomp floor denies these)"},
	{CMD "u?mount\\s+[-/]",
	 "mounts a file system (the sandbox has no capabilities)"},
	{CMD "kill\\s+(-s\\s+\\w+|-[[:alnum:]]+|--)\\s+-1\\b",
	 "signals every process of the sandbox user"},
	{"/(var/)?run/docker\\.sock|/proc/1/(environ|mem|root|ns|maps)\\b|"
	 "/proc/sysrq-trigger|/dev/(mem|kmem|port)\\b",
	 "probes the container engine's socket, the sandbox's PID 1 or the "
	 "kernel (none is reachable from the sandbox)"},
	/* No unbounded span between two parts: glibc's matcher would take
	 * time quadratic in a long line's length. */
	{"\\b(ba)?sh\\s+-i\\s*[0-9]*[<>&]+\\s*/dev/(tcp|udp)/|"
	 "\\b(nc|ncat|netcat)\\s+(-[a-z]*e|-c)\\s",
	 "a reverse shell (the sandbox has no network)"},
	{NULL, NULL},
};
#undef CMD

/* What check-plugin --run runs (ABI 1.7; session_fds 1.10). */
static const struct sbx_samples samples = {
	.hello = "echo hello",
	.echo = "cat",
	.fail = "echo oops >&2; exit 3",
	.spin = "while :; do :; done",
	.session_set = "x=41",
	.session_get = "echo $((x + 1))",
	.session_fds = "ls -l /proc/self/fd",
};

/* The next one-off call's bash waits in every warm box (docs/prestart.md):
 * started with run_cmd and BASH_ENV naming images/bash/prestart.bash,
 * which bash reads before it opens the script, and which unsets BASH_ENV
 * again. */
static const char *const prestart_env[] = {
	"BASH_ENV=/opt/sbx/prestart.bash",
	NULL,
};
static const struct sbx_prestart prestart = {
	.handover = SBX_PRESTART_FD3,
	.env = prestart_env,
};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "bash",
	.aliases = aliases,
	.version = "1.1.0",
	.description = "GNU Bash 5 with coreutils (Debian bookworm)",
	.image = "mcp-sandbox/bash:latest",
	.file_name = "main.sh",
	.run_cmd = run_cmd,
	.limits =
		{
			/* /work, /tmp and /dev/shm (384 MiB) and room for the
			 * processes: tmpfs files are memory too. */
			.memory_mb = 512,
			.pids = 128,
		},
	.session_cmd = session_cmd,
	.session_request = session_request,
	.blocklist = blocklist,
	.lex_mask = sbx_lex_bash,
	.prestart = &prestart,
	.samples = &samples,
};

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host);

SBX_PLUGIN_EXPORT const struct sbx_plugin *
sbx_plugin_entry(const struct sbx_host_api *host)
{
	(void)host;
	return &plugin;
}
