/*
 * go.c - the Go plugin (Go 1.19 from Debian bookworm).
 *
 * The build step is /opt/sbx/bin/go-build (images/go/go-build): it runs the
 * compiler and linker on /work/main.go directly against the precompiled
 * standard library, adding missing standard-library imports and blanking
 * unused ones with goimports' help without moving a line, and writes
 * /work/main. Compile errors make it exit non-zero, so the host reports
 * phase "build" with the diagnostics in stderr.
 *
 * prepare_code turns a snippet into a program. Code whose first token is
 * `package` is a file and runs as it is. Otherwise:
 *
 *   - `package main` is added;
 *   - import, type and func declarations (methods included) at the
 *     snippet's top level stay at package level, in their order, imports
 *     first;
 *   - so do const declarations and var declarations without an
 *     initializer (var wg sync.WaitGroup), wherever they are;
 *   - a var declaration with an initializer stays at package level when
 *     it comes before the first statement, and goes into main after it,
 *     so that it may use the variables of the statements before it;
 *   - every other top-level statement goes, in order, into func main;
 *   - a snippet that declares its own func main gets only the package
 *     clause: nothing is moved.
 *
 * "Top level" means outside any (), [] or {}; a top-level element ends
 * where Go's own automatic semicolons say it does. Every moved part is
 * preceded by a //line directive naming its place in the snippet, so the
 * compiler's messages and panics point at the lines and columns the user
 * wrote. Code the scanner cannot follow (an unterminated string or
 * comment, unbalanced brackets) goes whole into main, where the compiler
 * reports the problem.
 */
#include <mcp-sandbox/plugin.h>

#include <mcp-sandbox/lex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const aliases[] = {"golang", NULL};
static const char *const build_cmd[] = {"/opt/sbx/bin/go-build", "{file}",
					NULL};
static const char *const run_cmd[] = {"./main", NULL};
/* Packages (docs/packages.md): Go modules, through the image's
 * /opt/sbx/bin/go-pkg; a run gets the set's directory as SBX_GO_PKGS, and
 * go-build then builds the program as a module against it, offline. */
static const char *const install_cmd[] = {
	"/opt/sbx/bin/go-pkg", "install", "{dir}", "{packages}", NULL,
};
static const char *const manifest_cmd[] = {
	"/opt/sbx/bin/go-pkg", "manifest", "{dir}", "{packages}", NULL,
};
static const char *const registry_cmd[] = {"/opt/sbx/bin/go-pkg", "registries",
					   NULL};
static const char *const registry_env[] = {"SBX_REGISTRY={registry}", NULL};
static const char *const install_env[] = {"GOTMPDIR=/work", NULL};
static const char *const package_env[] = {"SBX_GO_PKGS={path}", NULL};

/* The name the //line directives give; the plugin's file_name. */
#define GO_FILE "main.go"

enum tok_kind {
	TK_EOF,
	TK_IDENT,
	TK_LIT,	   /* number, string, rune */
	TK_OPEN,   /* ( [ { */
	TK_CLOSE,  /* ) ] } */
	TK_INCDEC, /* ++ -- */
	TK_SEMI,
	TK_OTHER, /* any other operator */
	TK_ERROR, /* unterminated literal or comment */
};

struct tok {
	enum tok_kind kind;
	size_t start, end;
	/* A newline (or a comment holding one) lies between the previous
	 * token and this one; nl_end is the offset just past the first. */
	int nl_before;
	size_t nl_end;
};

struct lexer {
	const char *s;
	size_t len, pos;
};

static int is_ident_start(unsigned char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c >= 0x80;
}

static int is_ident_char(unsigned char c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

/* Skips a quoted literal opened at lx->pos; newline ends it (an error)
 * unless it is a raw string. Returns 0 or -1. */
static int skip_quoted(struct lexer *lx, char q)
{
	size_t i = lx->pos + 1;

	while (i < lx->len) {
		char c = lx->s[i];

		if (c == q) {
			lx->pos = i + 1;
			return 0;
		}
		if (q != '`' && c == '\n')
			return -1;
		if (q != '`' && c == '\\')
			i++;
		i++;
	}
	return -1;
}

static void next_tok(struct lexer *lx, struct tok *t)
{
	const char *s = lx->s;
	size_t n = lx->len;

	t->nl_before = 0;
	t->nl_end = 0;
	for (;;) {
		while (lx->pos < n &&
		       (s[lx->pos] == ' ' || s[lx->pos] == '\t' ||
			s[lx->pos] == '\r' || s[lx->pos] == '\n')) {
			if (s[lx->pos] == '\n' && !t->nl_before) {
				t->nl_before = 1;
				t->nl_end = lx->pos + 1;
			}
			lx->pos++;
		}
		if (lx->pos + 1 < n && s[lx->pos] == '/' &&
		    s[lx->pos + 1] == '/') {
			while (lx->pos < n && s[lx->pos] != '\n')
				lx->pos++;
			continue;
		}
		if (lx->pos + 1 < n && s[lx->pos] == '/' &&
		    s[lx->pos + 1] == '*') {
			const char *e = NULL;
			size_t i;

			for (i = lx->pos + 2; i + 1 < n; i++) {
				if (s[i] == '*' && s[i + 1] == '/') {
					e = s + i;
					break;
				}
			}
			t->start = lx->pos;
			if (!e) {
				t->kind = TK_ERROR;
				return;
			}
			/* A general comment holding a newline acts like one. */
			if (!t->nl_before &&
			    memchr(s + lx->pos, '\n',
				   (size_t)(e - (s + lx->pos)))) {
				t->nl_before = 1;
				t->nl_end = (size_t)(e - s) + 2;
			}
			lx->pos = (size_t)(e - s) + 2;
			continue;
		}
		break;
	}
	t->start = lx->pos;
	if (lx->pos >= n) {
		t->kind = TK_EOF;
		t->end = n;
		return;
	}
	{
		unsigned char c = (unsigned char)s[lx->pos];

		if (is_ident_start(c)) {
			while (lx->pos < n &&
			       is_ident_char((unsigned char)s[lx->pos]))
				lx->pos++;
			t->kind = TK_IDENT;
		} else if ((c >= '0' && c <= '9') ||
			   (c == '.' && lx->pos + 1 < n &&
			    s[lx->pos + 1] >= '0' && s[lx->pos + 1] <= '9')) {
			/* Exponent signs split the literal; the parts are still
			 * literals, which is all that matters here. */
			while (lx->pos < n &&
			       (is_ident_char((unsigned char)s[lx->pos]) ||
				s[lx->pos] == '.'))
				lx->pos++;
			t->kind = TK_LIT;
		} else if (c == '"' || c == '`' || c == '\'') {
			t->kind = skip_quoted(lx, (char)c) ? TK_ERROR : TK_LIT;
		} else if (c == '(' || c == '[' || c == '{') {
			lx->pos++;
			t->kind = TK_OPEN;
		} else if (c == ')' || c == ']' || c == '}') {
			lx->pos++;
			t->kind = TK_CLOSE;
		} else if (c == ';') {
			lx->pos++;
			t->kind = TK_SEMI;
		} else if ((c == '+' || c == '-') && lx->pos + 1 < n &&
			   s[lx->pos + 1] == (char)c) {
			lx->pos += 2;
			t->kind = TK_INCDEC;
		} else {
			lx->pos++;
			t->kind = TK_OTHER;
		}
	}
	t->end = lx->pos;
}

static int tok_is(const struct lexer *lx, const struct tok *t, const char *word)
{
	size_t wl = strlen(word);

	return t->kind == TK_IDENT && t->end - t->start == wl &&
	       memcmp(lx->s + t->start, word, wl) == 0;
}

static int tok_char(const struct lexer *lx, const struct tok *t, char c)
{
	return t->end - t->start == 1 && lx->s[t->start] == c;
}

/* Whether a line ending after this token gets an automatic semicolon. */
static int inserts_semi(const struct lexer *lx, const struct tok *t)
{
	static const char *const kw[] = {
		"break",  "chan",    "const",	    "continue", "default",
		"defer",  "else",    "fallthrough", "for",	"func",
		"go",	  "goto",    "if",	    "import",	"interface",
		"map",	  "package", "range",	    "return",	"select",
		"struct", "switch",  "type",	    "var",	NULL,
	};
	size_t i;

	switch (t->kind) {
	case TK_LIT:
	case TK_INCDEC:
	case TK_CLOSE:
		return 1;
	case TK_IDENT:
		for (i = 0; kw[i]; i++)
			if (tok_is(lx, t, kw[i]))
				return tok_is(lx, t, "break") ||
				       tok_is(lx, t, "continue") ||
				       tok_is(lx, t, "fallthrough") ||
				       tok_is(lx, t, "return");
		return 1;
	default:
		return 0;
	}
}

enum item_class { IC_STMT, IC_IMPORT, IC_DECL, IC_VAR_INIT, IC_FILE, IC_MAIN };

/* What the top-level element from token *first to offset end is. */
static enum item_class classify(const struct lexer *src,
				const struct tok *first, size_t end)
{
	struct lexer lx = *src;
	struct tok t2, t3;
	int depth;

	lx.pos = first->end;
	if (tok_is(&lx, first, "package"))
		return IC_FILE;
	if (tok_is(&lx, first, "import"))
		return IC_IMPORT;
	if (tok_is(&lx, first, "type") || tok_is(&lx, first, "const"))
		return IC_DECL;
	if (tok_is(&lx, first, "var")) {
		/* Types hold no '='; an initializer has one. */
		for (next_tok(&lx, &t2); t2.kind != TK_EOF && t2.start < end;
		     next_tok(&lx, &t2))
			if (tok_char(&lx, &t2, '='))
				return IC_VAR_INIT;
		return IC_DECL;
	}
	if (!tok_is(&lx, first, "func"))
		return IC_STMT;
	next_tok(&lx, &t2);
	if (t2.kind == TK_IDENT) {
		next_tok(&lx, &t3);
		if (tok_is(&lx, &t2, "main") && tok_char(&lx, &t3, '('))
			return IC_MAIN;
		return IC_DECL;
	}
	if (!tok_char(&lx, &t2, '('))
		return IC_STMT;
	/* func (recv) Name( is a method; func(params) ... a literal. */
	for (depth = 1; depth > 0;) {
		next_tok(&lx, &t3);
		if (t3.kind == TK_EOF || t3.kind == TK_ERROR)
			return IC_STMT;
		if (t3.kind == TK_OPEN)
			depth++;
		else if (t3.kind == TK_CLOSE)
			depth--;
	}
	next_tok(&lx, &t2);
	next_tok(&lx, &t3);
	if (t2.kind == TK_IDENT &&
	    (tok_char(&lx, &t3, '(') || tok_char(&lx, &t3, '[')))
		return IC_DECL;
	return IC_STMT;
}

/* Where a top-level element goes, in the order of the output. */
enum dest { TO_IMPORTS, TO_PACKAGE, TO_MAIN, N_DEST };

/* A run of consecutive top-level elements going to the same place. */
struct chunk {
	size_t start, end;
	enum dest dest;
};

struct chunks {
	struct chunk *v;
	size_t n, cap;
};

static int chunk_add(struct chunks *c, size_t start, size_t end, enum dest dest)
{
	if (c->n && c->v[c->n - 1].dest == dest &&
	    c->v[c->n - 1].end == start) {
		c->v[c->n - 1].end = end;
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct chunk *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return -1;
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n].start = start;
	c->v[c->n].end = end;
	c->v[c->n].dest = dest;
	c->n++;
	return 0;
}

/* Files the element that ends at end_at, classified by its first token. */
static int end_item(const struct lexer *lx, const struct tok *first,
		    struct chunks *c, size_t span, size_t end_at,
		    int *seen_stmt, int *has_main)
{
	enum item_class ic = classify(lx, first, end_at);

	if (ic == IC_MAIN)
		*has_main = 1;
	if (ic == IC_STMT)
		*seen_stmt = 1;
	if (ic == IC_IMPORT)
		return chunk_add(c, span, end_at, TO_IMPORTS);
	if (ic == IC_STMT || (ic == IC_VAR_INIT && *seen_stmt))
		return chunk_add(c, span, end_at, TO_MAIN);
	return chunk_add(c, span, end_at, TO_PACKAGE);
}

/*
 * Splits code into top-level elements and sorts them into chunks. Returns
 * 1 when the code is a file (starts with package), 2 when it declares func
 * main, 0 when *c holds the chunks, -1 when the scanner cannot follow the
 * code, -2 when out of memory.
 */
static int split(const char *code, size_t len, struct chunks *c)
{
	struct lexer lx = {code, len, 0};
	struct tok t, last, first;
	size_t span = 0;
	int depth = 0, in_item = 0, seen_stmt = 0, has_main = 0;

	memset(&last, 0, sizeof(last));
	memset(&first, 0, sizeof(first));
	next_tok(&lx, &t);
	if (tok_is(&lx, &t, "package"))
		return 1;
	lx.pos = 0;
	for (;;) {
		next_tok(&lx, &t);
		if (t.kind == TK_ERROR)
			return -1;
		if (in_item && depth == 0 &&
		    (t.kind == TK_EOF ||
		     (t.nl_before && inserts_semi(&lx, &last)))) {
			size_t end_at = t.kind == TK_EOF ? len : t.nl_end;

			if (end_item(&lx, &first, c, span, end_at, &seen_stmt,
				     &has_main))
				return -2;
			span = end_at;
			in_item = 0;
		}
		if (t.kind == TK_EOF)
			break;
		if (!in_item) {
			in_item = 1;
			first = t;
		}
		last = t;
		if (t.kind == TK_OPEN) {
			depth++;
		} else if (t.kind == TK_CLOSE) {
			if (--depth < 0)
				return -1;
		} else if (t.kind == TK_SEMI && depth == 0) {
			if (end_item(&lx, &first, c, span, t.end, &seen_stmt,
				     &has_main))
				return -2;
			span = t.end;
			in_item = 0;
		}
	}
	if (depth != 0)
		return -1;
	/* Trailing comments and blank lines ride with the last chunk. */
	if (span < len && c->n)
		c->v[c->n - 1].end = len;
	return has_main ? 2 : 0;
}

/* The rewritten code: a buffer sized in advance (see prepare_code). */
struct out {
	char *p;
	size_t n, cap;
	int overflow;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->n + n > o->cap) {
		o->overflow = 1;
		return;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

/* Where an offset of the code is, as the compiler counts: walked forward
 * only, so placing every chunk costs one pass over the code. */
struct cursor {
	size_t off, line, bol;
};

static void cursor_to(struct cursor *cur, const char *code, size_t off)
{
	for (; cur->off < off; cur->off++) {
		if (code[cur->off] == '\n') {
			cur->line++;
			cur->bol = cur->off + 1;
		}
	}
}

/* "//line main.go:L:C" naming where code[off] is, then code[off, end),
 * ending in a newline. */
#define DIRECTIVE_MAX (sizeof("//line " GO_FILE "::\n") + (size_t)2 * 20)

static void put_part(struct out *o, struct cursor *cur, const char *code,
		     size_t off, size_t end)
{
	char dir[DIRECTIVE_MAX + 1];
	int n;

	cursor_to(cur, code, off);
	n = snprintf(dir, sizeof(dir), "//line " GO_FILE ":%zu:%zu\n",
		     cur->line, off - cur->bol + 1);
	put(o, dir, (size_t)n);
	put(o, code + off, end - off);
	if (end == off || code[end - 1] != '\n')
		put(o, "\n", 1);
}

static int prepare_code(const struct sbx_host_api *host, const char *code,
			size_t len, char **out, size_t *out_len)
{
	static const char head[] = "package main\n";
	static const char main_open[] = "func main() {\n";
	static const char main_close[] = "}\n";
	struct chunks c = {NULL, 0, 0};
	struct cursor cur = {0, 1, 0};
	struct out o = {NULL, 0, 0, 0};
	size_t i;
	int rc, pass;

	/* A byte order mark may only start a file; the package clause now
	 * does. */
	if (len >= 3 && memcmp(code, "\xEF\xBB\xBF", 3) == 0) {
		code += 3;
		len -= 3;
	}
	rc = split(code, len, &c);
	if (rc == 1 || rc == -2) {
		free(c.v);
		return rc == 1 ? 0 : -1;
	}
	if (rc < 0)
		c.n = 0; /* all of it into main, as one part */
	/* Each part adds a directive and maybe a newline. */
	o.cap = len + sizeof(head) + sizeof(main_open) + sizeof(main_close) +
		(c.n + 1) * (DIRECTIVE_MAX + 1);
	o.p = host->alloc(o.cap + 1);
	if (!o.p) {
		free(c.v);
		return -1;
	}
	put(&o, head, sizeof(head) - 1);
	if (rc == 2) {
		put_part(&o, &cur, code, 0, len);
	} else if (rc < 0) {
		put(&o, main_open, sizeof(main_open) - 1);
		put_part(&o, &cur, code, 0, len);
		put(&o, main_close, sizeof(main_close) - 1);
	} else {
		/* Imports, the rest of the package level, then main's
		 * parts, each in order. */
		for (pass = 0; pass < N_DEST; pass++) {
			if (pass == TO_MAIN)
				put(&o, main_open, sizeof(main_open) - 1);
			cur = (struct cursor){0, 1, 0};
			for (i = 0; i < c.n; i++)
				if (c.v[i].dest == (enum dest)pass)
					put_part(&o, &cur, code, c.v[i].start,
						 c.v[i].end);
		}
		put(&o, main_close, sizeof(main_close) - 1);
	}
	free(c.v);
	if (o.overflow) {
		host->free(o.p);
		return -1;
	}
	o.p[o.n] = '\0';
	*out = o.p;
	*out_len = o.n;
	return 0;
}

/* The blocklist's rules (docs/security.md, "The code blocklist"): each
 * names a construct ordinary programs do not use; the sandbox stops every
 * one of them anyway. */
static const struct sbx_block_rule blocklist[] = {
	{"\\b(syscall|unix)\\.(Syscall|Syscall6|RawSyscall|RawSyscall6|"
	 "RawSyscallNoError)\\s*\\(",
	 "a raw system call"},
	{"\\b(syscall|unix)\\.(Setuid|Setgid|Setreuid|Setregid|Setresuid|"
	 "Setresgid|Setgroups|Chroot|Mount|Unmount|Unshare|Setns|PivotRoot|"
	 "PtraceAttach|PtraceSeize|Reboot|InitModule|FinitModule|"
	 "IoUringSetup)\\s*\\(",
	 "changes ids, namespaces or mounts, or traces a process (the sandbox "
	 "has no capabilities; the seccomp floor denies these)"},
	{"\\b(syscall|unix)\\.Kill\\s*\\(\\s*-1\\s*,",
	 "signals every process of the sandbox user"},
	{"\\b(syscall|unix)\\.AF_(VSOCK|PACKET|NETLINK|BLUETOOTH|CAN|ALG)\\b",
	 "a socket family the seccomp floor denies (only UNIX, IPv4 and IPv6 "
	 "sockets are allowed)"},
	{NULL, NULL},
};

/* What check-plugin --run runs (ABI 1.7). */
static const struct sbx_samples samples = {
	.hello = "package main\n\nimport \"fmt\"\n\nfunc main() { "
		 "fmt.Println(\"hello\") }\n",
	.echo = "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\n"
		"func main() { io.Copy(os.Stdout, os.Stdin) }\n",
	.fail = "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\n"
		"func main() {\n\tfmt.Fprintln(os.Stderr, "
		"\"oops\")\n\tos.Exit(3)\n}\n",
	.spin = "package main\n\nfunc main() {\n\tfor {\n\t}\n}\n",
};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "go",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "Go 1.19, standard library (Debian bookworm); bare "
		       "statements run inside func main, imports are added",
	.image = "mcp-sandbox/go:latest",
	.file_name = GO_FILE,
	.build_cmd = build_cmd,
	.run_cmd = run_cmd,
	.limits =
		{
			.memory_mb = 1024,
			.pids = 256,
		},
	.install_cmd = install_cmd,
	.package_ecosystem = "go",
	.manifest_cmd = manifest_cmd,
	.registry_cmd = registry_cmd,
	.registry_env = registry_env,
	.install_env = install_env,
	.package_path = "",
	.package_env = package_env,
	.prepare_code = prepare_code,
	.blocklist = blocklist,
	.lex_mask = sbx_lex_go,
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
