/*
 * rust.c - the Rust plugin (Rust 1.96 from Debian bookworm's rustc-web).
 *
 * One file: rustc (through images/rust/rust-build, which adds the crates
 * of an installed set, docs/packages.md) builds /work/main.rs into
 * /work/main (edition 2021), a debug build by default (the fastest to
 * compile, with overflow checks and debug assertions); the "optimize"
 * option builds with -O. The standard library's debug information is left
 * out of the binary and mold links it (gold draws a deprecation warning
 * from Rust 1.96, the default linker takes about 0.15 s more): a hello
 * world builds in about 0.3 s, and panics still name file, line and
 * column. Compile errors make rustc
 * exit non-zero, so the host reports phase "build" with the diagnostics in
 * stderr; warnings of a build that succeeds come before the program's own
 * stderr.
 *
 * prepare_code turns a snippet into a program without moving a line, so
 * rustc's messages point at the lines the user wrote:
 *
 *   - code that declares fn main at its top level runs as it is;
 *   - otherwise the items before the first statement (use, fn, struct,
 *     enum, union, impl, trait, mod, const, static, type, extern,
 *     macro_rules!, with their attributes and visibility, and inner
 *     attributes such as #![allow(...)]) stay at the top level, "fn main()
 *     {" opens before the first statement and "}" closes after the last
 *     line. Items after the first statement end up inside main, which Rust
 *     allows: they are visible in all of main;
 *   - a snippet of items only gets an empty fn main.
 *
 * "fn main() {" goes on the last blank line before the first statement,
 * else on its last comment line, else right after the last item, else at
 * the very start: only in the last case do the columns of line 1 move.
 * Code the scanner cannot follow (an unterminated string or comment,
 * unbalanced brackets) goes whole into main.
 */
#include <mcp-sandbox/plugin.h>

#include <mcp-sandbox/lex.h>
#include <string.h>

static const char *const aliases[] = {"rs", NULL};
#define RUSTC_ARGS                                                             \
	"/opt/sbx/bin/rust-build", "--edition", "2021", "-C",                  \
		"strip=debuginfo", "-C", "link-arg=-fuse-ld=mold", "-o",       \
		"main"
static const char *const build_cmd[] = {RUSTC_ARGS, "{file}", NULL};
static const char *const build_cmd_opt[] = {RUSTC_ARGS, "-O", "{file}", NULL};
static const char *const run_cmd[] = {"./main", NULL};
/* Packages (docs/packages.md): crates, built once at install by the
 * image's rust-pkg with cargo; a run gets the set's directory as
 * SBX_RUST_PKGS, and rust-build links the requested crates. */
static const char *const install_cmd[] = {
	"/opt/sbx/bin/rust-pkg", "install", "{dir}", "{packages}", NULL,
};
static const char *const manifest_cmd[] = {
	"/opt/sbx/bin/rust-pkg", "manifest", "{dir}", "{packages}", NULL,
};
static const char *const registry_cmd[] = {
	"/opt/sbx/bin/rust-pkg",
	"registries",
	"{packages}",
	NULL,
};
static const char *const registry_follow_cmd[] = {
	"/opt/sbx/bin/rust-pkg",
	"follow",
	"{packages}",
	NULL,
};
static const char *const registry_env[] = {"SBX_REGISTRY={registry}", NULL};
static const char *const install_env[] = {"CARGO_HTTP_CAINFO={ca}", NULL};
static const char *const package_env[] = {"SBX_RUST_PKGS={path}", NULL};

static const struct sbx_option options[] = {
	{
		.name = "optimize",
		.description = "build with optimizations (rustc -O, opt-level "
			       "2): slower to compile, faster to run",
		.build_cmd = build_cmd_opt,
	},
	{.name = NULL},
};

enum tok_kind {
	TK_EOF,
	TK_IDENT, /* identifiers, keywords, lifetimes */
	TK_LIT,
	TK_OPEN,  /* ( [ { */
	TK_CLOSE, /* ) ] } */
	TK_OTHER, /* punctuation, one byte at a time */
	TK_ERROR, /* unterminated literal or comment */
};

struct tok {
	enum tok_kind kind;
	size_t start, end;
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

/* "..." (escapes, may span lines) from the quote at i; returns the offset
 * past it or 0. */
static size_t skip_string(const struct lexer *lx, size_t i)
{
	for (i++; i < lx->len; i++) {
		if (lx->s[i] == '\\')
			i++;
		else if (lx->s[i] == '"')
			return i + 1;
	}
	return 0;
}

/* r#"..."# from the first '#' or quote at i; returns the offset past it or
 * 0. */
static size_t skip_raw_string(const struct lexer *lx, size_t i)
{
	size_t hashes = 0, k;

	while (i < lx->len && lx->s[i] == '#') {
		hashes++;
		i++;
	}
	if (i >= lx->len || lx->s[i] != '"')
		return 0;
	for (i++; i < lx->len; i++) {
		if (lx->s[i] != '"')
			continue;
		for (k = 0; k < hashes && i + 1 + k < lx->len &&
			    lx->s[i + 1 + k] == '#';
		     k++)
			;
		if (k == hashes)
			return i + 1 + hashes;
	}
	return 0;
}

/* Where the hashes or the quote of a raw string (r"", r#""#, br"") that
 * starts at p begin, or 0. r#ident is a raw identifier, not a string. */
static size_t raw_string_at(const struct lexer *lx, size_t p)
{
	const char *s = lx->s;
	size_t n = lx->len, e;

	if (s[p] == 'r')
		e = p + 1;
	else if (s[p] == 'b' && p + 1 < n && s[p + 1] == 'r')
		e = p + 2;
	else
		return 0;
	if (e < n && s[e] == '"')
		return e;
	if (e + 1 < n && s[e] == '#' && (s[e + 1] == '"' || s[e + 1] == '#'))
		return e;
	return 0;
}

/* A char literal or a lifetime from the quote at i. */
static void lex_quote(struct lexer *lx, struct tok *t, size_t i)
{
	const char *s = lx->s;
	size_t n = lx->len, cp;

	if (i + 1 < n && s[i + 1] == '\\') {
		/* past the escaped byte ('\\', '\''), then to the quote
		 * ('\u{1F600}', '\x41') */
		for (i += 3; i < n && s[i] != '\'' && s[i] != '\n'; i++)
			;
		t->kind = i < n && s[i] == '\'' ? TK_LIT : TK_ERROR;
		lx->pos = i < n ? i + 1 : n;
		return;
	}
	/* One code point, then a quote: a char; else a lifetime or label. */
	cp = 1;
	if (i + 1 < n && ((unsigned char)s[i + 1] & 0x80))
		while (i + 1 + cp < n &&
		       ((unsigned char)s[i + 1 + cp] & 0xC0) == 0x80)
			cp++;
	if (i + 1 + cp < n && s[i + 1 + cp] == '\'') {
		t->kind = TK_LIT;
		lx->pos = i + 2 + cp;
		return;
	}
	for (i++; i < n && is_ident_char((unsigned char)s[i]); i++)
		;
	t->kind = TK_IDENT;
	lx->pos = i;
}

static void next_tok(struct lexer *lx, struct tok *t)
{
	const char *s = lx->s;
	size_t n = lx->len;

	for (;;) {
		while (lx->pos < n &&
		       (s[lx->pos] == ' ' || s[lx->pos] == '\t' ||
			s[lx->pos] == '\r' || s[lx->pos] == '\n'))
			lx->pos++;
		if (lx->pos + 1 < n && s[lx->pos] == '/' &&
		    s[lx->pos + 1] == '/') {
			while (lx->pos < n && s[lx->pos] != '\n')
				lx->pos++;
			continue;
		}
		if (lx->pos + 1 < n && s[lx->pos] == '/' &&
		    s[lx->pos + 1] == '*') {
			/* Block comments nest. */
			size_t depth = 0, i = lx->pos;

			while (i + 1 < n) {
				if (s[i] == '/' && s[i + 1] == '*') {
					depth++;
					i += 2;
				} else if (s[i] == '*' && s[i + 1] == '/') {
					i += 2;
					if (--depth == 0)
						break;
				} else {
					i++;
				}
			}
			if (depth) {
				t->kind = TK_ERROR;
				t->start = t->end = lx->pos;
				return;
			}
			lx->pos = i;
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
		size_t p = lx->pos, e;

		/* String prefixes: r" r#" b" b' br" br#" (and r#ident). */
		if (c == 'b' && p + 1 < n && s[p + 1] == '\'') {
			lex_quote(lx, t, p + 1);
		} else if ((e = raw_string_at(lx, p)) != 0) {
			e = skip_raw_string(lx, e);
			t->kind = e ? TK_LIT : TK_ERROR;
			lx->pos = e ? e : n;
		} else if (c == 'b' && p + 1 < n && s[p + 1] == '"') {
			e = skip_string(lx, p + 1);
			t->kind = e ? TK_LIT : TK_ERROR;
			lx->pos = e ? e : n;
		} else if (c == 'r' && p + 2 < n && s[p + 1] == '#' &&
			   is_ident_start((unsigned char)s[p + 2])) {
			for (lx->pos = p + 2;
			     lx->pos < n &&
			     is_ident_char((unsigned char)s[lx->pos]);
			     lx->pos++)
				;
			t->kind = TK_IDENT;
		} else if (is_ident_start(c)) {
			while (lx->pos < n &&
			       is_ident_char((unsigned char)s[lx->pos]))
				lx->pos++;
			t->kind = TK_IDENT;
		} else if (c >= '0' && c <= '9') {
			while (lx->pos < n &&
			       (is_ident_char((unsigned char)s[lx->pos]) ||
				(s[lx->pos] == '.' && lx->pos + 1 < n &&
				 s[lx->pos + 1] >= '0' &&
				 s[lx->pos + 1] <= '9')))
				lx->pos++;
			t->kind = TK_LIT;
		} else if (c == '"') {
			e = skip_string(lx, p);
			t->kind = e ? TK_LIT : TK_ERROR;
			lx->pos = e ? e : n;
		} else if (c == '\'') {
			lex_quote(lx, t, p);
		} else if (c == '(' || c == '[' || c == '{') {
			lx->pos++;
			t->kind = TK_OPEN;
		} else if (c == ')' || c == ']' || c == '}') {
			lx->pos++;
			t->kind = TK_CLOSE;
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

static void peek_tok(const struct lexer *lx, struct tok *t)
{
	struct lexer copy = *lx;

	next_tok(&copy, t);
}

/* After an opening token: skips to just past its closing one. */
static int skip_group(struct lexer *lx)
{
	struct tok t;
	int depth = 1;

	while (depth > 0) {
		next_tok(lx, &t);
		if (t.kind == TK_EOF || t.kind == TK_ERROR)
			return -1;
		if (t.kind == TK_OPEN)
			depth++;
		else if (t.kind == TK_CLOSE)
			depth--;
	}
	return 0;
}

/* Whether fn main is declared outside any bracket; -1 if the scanner
 * cannot follow the code. */
static int has_main(const char *code, size_t len)
{
	struct lexer lx = {code, len, 0};
	struct tok t, u;
	int depth = 0, found = 0;

	for (;;) {
		next_tok(&lx, &t);
		if (t.kind == TK_ERROR)
			return -1;
		if (t.kind == TK_EOF)
			break;
		if (t.kind == TK_OPEN) {
			depth++;
		} else if (t.kind == TK_CLOSE) {
			if (--depth < 0)
				return -1;
		} else if (depth == 0 && tok_is(&lx, &t, "fn")) {
			peek_tok(&lx, &u);
			if (tok_is(&lx, &u, "main"))
				found = 1;
		}
	}
	return depth ? -1 : found;
}

enum item_end { NOT_ITEM, ENDS_AT_SEMI, ENDS_AT_BLOCK };

/* How the element whose first token (after attributes and visibility) is
 * *t ends, or NOT_ITEM for a statement. Consumes qualifiers. */
static enum item_end item_kind(struct lexer *lx, struct tok *t)
{
	static const char *const block_items[] = {
		"fn", "impl", "trait", "mod", "enum", "struct", NULL,
	};
	static const char *const semi_items[] = {"use", "static", "type", NULL};
	struct tok u;
	size_t i;

	for (;;) {
		peek_tok(lx, &u);
		for (i = 0; block_items[i]; i++)
			if (tok_is(lx, t, block_items[i]))
				return ENDS_AT_BLOCK;
		for (i = 0; semi_items[i]; i++)
			if (tok_is(lx, t, semi_items[i]))
				return ENDS_AT_SEMI;
		if (tok_is(lx, t, "union"))
			return u.kind == TK_IDENT ? ENDS_AT_BLOCK : NOT_ITEM;
		if (tok_is(lx, t, "macro_rules"))
			return tok_char(lx, &u, '!') ? ENDS_AT_BLOCK : NOT_ITEM;
		if (tok_is(lx, t, "const")) {
			/* const NAME: an item; const fn: a qualifier; const {
			 * a block. */
			if (!(tok_is(lx, &u, "fn") ||
			      tok_is(lx, &u, "unsafe") ||
			      tok_is(lx, &u, "async") ||
			      tok_is(lx, &u, "extern")))
				return u.kind == TK_IDENT ? ENDS_AT_SEMI
							  : NOT_ITEM;
		} else if (tok_is(lx, t, "async") || tok_is(lx, t, "unsafe")) {
			/* async fn, unsafe impl...; async move { } and
			 * unsafe { } are expressions. */
			if (!(tok_is(lx, &u, "fn") ||
			      tok_is(lx, &u, "unsafe") ||
			      tok_is(lx, &u, "impl") ||
			      tok_is(lx, &u, "trait") ||
			      tok_is(lx, &u, "extern")))
				return NOT_ITEM;
		} else if (tok_is(lx, t, "extern")) {
			/* extern crate x; extern "C" { } extern "C" fn */
			if (u.kind == TK_LIT) {
				next_tok(lx, &u);
				peek_tok(lx, &u);
			}
			if (tok_is(lx, &u, "crate"))
				return ENDS_AT_SEMI;
			if (u.kind == TK_OPEN)
				return ENDS_AT_BLOCK;
		} else {
			return NOT_ITEM;
		}
		next_tok(lx, t);
	}
}

/*
 * Finds the first statement: *prev_end is the offset just past the last
 * item before it (0 when there is none) and *stmt its first byte
 * (attributes included). Returns 1 when there is no statement at all, 0
 * when both are set, -1 when the scanner cannot follow the code.
 */
static int first_statement(const char *code, size_t len, size_t *prev_end,
			   size_t *stmt)
{
	struct lexer lx = {code, len, 0};
	struct tok t, u;

	*prev_end = 0;
	for (;;) {
		enum item_end kind;
		int depth = 0;

		next_tok(&lx, &t);
		if (t.kind == TK_ERROR)
			return -1;
		if (t.kind == TK_EOF)
			return 1;
		*stmt = t.start;
		/* #![inner] attributes: items of their own. */
		if (tok_char(&lx, &t, '#')) {
			struct lexer save = lx;

			next_tok(&lx, &u);
			if (tok_char(&lx, &u, '!')) {
				next_tok(&lx, &u);
				if (tok_char(&lx, &u, '[')) {
					if (skip_group(&lx))
						return -1;
					*prev_end = lx.pos;
					continue;
				}
			}
			lx = save;
		}
		/* Outer #[attributes] and pub(...) belong to what follows. */
		for (;;) {
			if (tok_char(&lx, &t, '#')) {
				peek_tok(&lx, &u);
				if (!tok_char(&lx, &u, '['))
					break;
				next_tok(&lx, &u);
				if (skip_group(&lx))
					return -1;
				next_tok(&lx, &t);
			} else if (tok_is(&lx, &t, "pub")) {
				peek_tok(&lx, &u);
				if (tok_char(&lx, &u, '(')) {
					next_tok(&lx, &u);
					if (skip_group(&lx))
						return -1;
				}
				next_tok(&lx, &t);
			} else {
				break;
			}
		}
		kind = item_kind(&lx, &t);
		if (kind == NOT_ITEM)
			return 0;
		/* To the ';' outside brackets, or the '}' closing the first
		 * block of a block item. */
		for (;;) {
			if (t.kind == TK_EOF || t.kind == TK_ERROR)
				return -1;
			if (t.kind == TK_OPEN) {
				depth++;
			} else if (t.kind == TK_CLOSE) {
				if (--depth < 0)
					return -1;
				if (depth == 0 && kind == ENDS_AT_BLOCK &&
				    tok_char(&lx, &t, '}'))
					break;
			} else if (depth == 0 && tok_char(&lx, &t, ';')) {
				break;
			}
			next_tok(&lx, &t);
		}
		*prev_end = t.end;
	}
}

/*
 * Where "fn main() {" goes, given the gap [from, to) of blanks and
 * comments before the first statement: the start of the gap's last blank
 * line, else of its last line that starts with a // comment (not an
 * inner //! one), so no code moves; else from itself (just past the last
 * item, or the start of the code).
 */
static size_t main_at(const char *s, size_t from, size_t to)
{
	size_t blank = to, comment = to, i = from, line;
	int depth = 0;

	/* A line counts when it starts outside a block comment and ends
	 * before the statement; the partial line after an item does not. */
	line = from == 0 ? 0 : to;
	while (i < to) {
		if (line < to) {
			size_t k = line;

			while (k < to &&
			       (s[k] == ' ' || s[k] == '\t' || s[k] == '\r'))
				k++;
			if (k < to && s[k] == '\n')
				blank = line;
			else if (k + 2 < to && s[k] == '/' && s[k + 1] == '/' &&
				 s[k + 2] != '!' && memchr(s + k, '\n', to - k))
				comment = line;
			line = to;
		}
		if (depth == 0 && s[i] == '/' && i + 1 < to &&
		    s[i + 1] == '/') {
			while (i < to && s[i] != '\n')
				i++;
		} else if (s[i] == '/' && i + 1 < to && s[i + 1] == '*') {
			depth++;
			i += 2;
		} else if (depth > 0 && s[i] == '*' && i + 1 < to &&
			   s[i + 1] == '/') {
			depth--;
			i += 2;
		} else {
			if (s[i] == '\n' && depth == 0)
				line = i + 1;
			i++;
		}
	}
	if (blank < to)
		return blank;
	if (comment < to)
		return comment;
	return from;
}

static int prepare_code(const struct sbx_host_api *host, const char *code,
			size_t len, char **out, size_t *out_len)
{
	static const char open[] = "fn main() {";
	static const char close[] = "\n}\n";
	static const char empty_main[] = "\nfn main() {}\n";
	size_t at = 0, stmt = 0, n = 0;
	char *p;
	int rc;

	rc = has_main(code, len);
	if (rc == 1)
		return 0; /* a program: as it is */
	if (rc == 0)
		rc = first_statement(code, len, &at, &stmt);
	if (rc == 0)
		at = main_at(code, at, stmt);
	/* rc: 0 main from `at`, 1 items only, -1 all of it into main */
	p = host->alloc(len + sizeof(open) + sizeof(close) +
			sizeof(empty_main));
	if (!p)
		return -1;
	if (rc == 1) {
		memcpy(p, code, len);
		memcpy(p + len, empty_main, sizeof(empty_main));
		n = len + sizeof(empty_main) - 1;
	} else {
		if (rc < 0)
			at = 0;
		memcpy(p, code, at);
		n = at;
		memcpy(p + n, open, sizeof(open) - 1);
		n += sizeof(open) - 1;
		memcpy(p + n, code + at, len - at);
		n += len - at;
		memcpy(p + n, close, sizeof(close));
		n += sizeof(close) - 1;
	}
	*out = p;
	*out_len = n;
	return 0;
}

/* The blocklist's rules (docs/security.md, "The code blocklist"): each
 * names a construct ordinary programs do not use; the sandbox stops every
 * one of them anyway. */
static const struct sbx_block_rule blocklist[] = {
	{"\\b(asm|global_asm|naked_asm)!\\s*[({[]|\\barch::(asm|global_asm)\\b",
	 "inline assembly (raw system calls)"},
	{"\\blibc::(syscall|setuid|setgid|seteuid|setegid|setreuid|setregid|"
	 "setresuid|setresgid|setgroups|chroot|mount|umount|umount2|unshare|"
	 "setns|pivot_root|ptrace|process_vm_readv|process_vm_writev|"
	 "init_module|finit_module|kexec_load|reboot|personality)\\s*\\(",
	 "a raw or privileged system call (the sandbox has no capabilities; "
	 "the seccomp floor denies these)"},
	{"\\bnix::(mount|sched::(unshare|setns)|unistd::(setuid|setgid|chroot|"
	 "pivot_root)|sys::ptrace)\\b",
	 "changes ids, namespaces or mounts, or traces a process (the sandbox "
	 "has no capabilities)"},
	{"\\bloop\\s*\\{\\s*(unsafe\\s*\\{\\s*)?libc::fork\\s*\\(",
	 "a fork bomb (the pids limit stops it)"},
	{"\\blibc::kill\\s*\\(\\s*-1\\s*,",
	 "signals every process of the sandbox user"},
	{"\\blibc::AF_(VSOCK|PACKET|NETLINK|BLUETOOTH|CAN|ALG)\\b",
	 "a socket family the seccomp floor denies (only UNIX, IPv4 and IPv6 "
	 "sockets are allowed)"},
	{NULL, NULL},
};

/* What check-plugin --run runs (ABI 1.7). */
static const struct sbx_samples samples = {
	.hello = "fn main() { println!(\"hello\"); }",
	.echo = "use std::io::Read;\n\nfn main() {\n    let mut s = "
		"String::new();\n"
		"    std::io::stdin().read_to_string(&mut s).unwrap();\n"
		"    print!(\"{}\", s);\n}\n",
	.fail = "fn main() {\n    eprintln!(\"oops\");\n    "
		"std::process::exit(3);\n}\n",
	.spin = "fn main() {\n    loop {}\n}\n",
};

static const struct sbx_plugin plugin = {
	SBX_PLUGIN_HEADER,
	.name = "rust",
	.aliases = aliases,
	.version = "1.0.0",
	.description = "Rust 1.96, edition 2021, standard library (Debian "
		       "bookworm), crates with packages; bare statements run "
		       "inside fn main",
	.image = "mcp-sandbox/rust:latest",
	.file_name = "main.rs",
	.build_cmd = build_cmd,
	.run_cmd = run_cmd,
	.limits =
		{
			.memory_mb = 1024,
			.pids = 256,
		},
	.install_cmd = install_cmd,
	.prepare_code = prepare_code,
	.options = options,
	.package_ecosystem = "cargo",
	.manifest_cmd = manifest_cmd,
	.registry_cmd = registry_cmd,
	.registry_follow_cmd = registry_follow_cmd,
	.registry_env = registry_env,
	.install_env = install_env,
	.package_path = "",
	.package_env = package_env,
	.blocklist = blocklist,
	.lex_mask = sbx_lex_rust,
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
