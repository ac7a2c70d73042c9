/*
 * mcp-sandbox/lex.h - the SDK's lexers for the code blocklist (the
 * sbx_plugin lex_mask hook, ABI 1.6): the pieces a lexer is made of and
 * the built-in languages' lexers, in the static library mcp-sandbox-lex
 * (CMake: McpSandbox::lex; pkg-config: mcp-sandbox-lex). A plugin links
 * it in; nothing of it is the host's.
 *
 * A lexer copies the code with every comment and the contents of every
 * string literal blanked: each byte but a newline becomes a space, quotes
 * and code stay. The host's blocklist rules then see the code's tokens
 * only, at their original line and column, so `print("rm -rf /")` or a
 * comment about ptrace never matches a rule. Strings that name a module
 * (an import's specifier in JavaScript and Go) are kept: there they are
 * code.
 *
 * The lexers are tolerant: code that does not lex (an unterminated
 * string, say) is masked as far as it goes. They are pure functions of
 * their input, safe on any thread, linear in the code's length, and
 * bound their nesting (SBX_LEX_MAX_DEPTH), so no input can exhaust a stack.
 */
#ifndef SBX_PLUGIN_LEX_H
#define SBX_PLUGIN_LEX_H

#include <stddef.h>

#define SBX_LEX_MAX_DEPTH 64

struct sbx_lex {
	const char *s; /* the code */
	char *out;     /* the masked copy (n bytes) */
	size_t n;
	size_t i; /* where the lexer is */
};

/* lx over code (len bytes) with out, a copy of it to mask. */
void sbx_lex_init(struct sbx_lex *lx, const char *code, size_t len, char *out);
/* Blank out[from, to), newlines excepted. */
void sbx_lex_blank(struct sbx_lex *lx, size_t from, size_t to);
/* At a line comment's first byte: blank to the end of the line. */
void sbx_lex_line_comment(struct sbx_lex *lx);
/* At "/" "*": blank to just past the comment's end (nested: Rust's
 * comments nest). */
void sbx_lex_block_comment(struct sbx_lex *lx, int nested);

#define SBX_LEX_ESCAPES 1u   /* a backslash escapes the next byte */
#define SBX_LEX_MULTILINE 2u /* a newline does not end the literal */
#define SBX_LEX_KEEP 4u	     /* keep the contents (a module name) */
/* At an opening quote q: to just past the closing one, blanking what is
 * between. An unterminated literal ends at the end of its line (or of
 * the code with SBX_LEX_MULTILINE). */
void sbx_lex_quoted(struct sbx_lex *lx, char q, unsigned flags);

/* A literal with code inside (a template, a double-quoted bash string)
 * ends at lx->i: blank its text since start and step past the closing
 * delimiter, if the code has one. */
void sbx_lex_close(struct sbx_lex *lx, size_t start);
/* Past the identifier (or number) at lx->i. */
void sbx_lex_skip_ident(struct sbx_lex *lx);

/* [A-Za-z0-9_] or a byte of a UTF-8 sequence. */
int sbx_lex_ident_char(unsigned char c);
/* Whether s[i..] starts with the identifier word (not a longer one) and
 * s[i-1] is not part of an identifier. */
int sbx_lex_word_at(const char *s, size_t n, size_t i, const char *word);

/* The lexers (lex_<language>.c), the plugins' lex_mask. */
void sbx_lex_python(const char *code, size_t len, char *out);
void sbx_lex_javascript(const char *code, size_t len, char *out);
void sbx_lex_go(const char *code, size_t len, char *out);
void sbx_lex_rust(const char *code, size_t len, char *out);
void sbx_lex_bash(const char *code, size_t len, char *out);

#endif
