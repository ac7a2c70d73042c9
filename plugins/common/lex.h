/*
 * lex.h - the built-in languages' lexers for the code blocklist (the
 * sbx_plugin lex_mask hook, ABI 1.6), and the pieces they share.
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
 * bound their nesting (LEX_MAX_DEPTH), so no input can exhaust a stack.
 */
#ifndef SBX_PLUGIN_LEX_H
#define SBX_PLUGIN_LEX_H

#include <stddef.h>

#define LEX_MAX_DEPTH 64

struct lex {
	const char *s; /* the code */
	char *out;     /* the masked copy (n bytes) */
	size_t n;
	size_t i; /* where the lexer is */
};

/* lx over code (len bytes) with out, a copy of it to mask. */
void lex_init(struct lex *lx, const char *code, size_t len, char *out);
/* Blank out[from, to), newlines excepted. */
void lex_blank(struct lex *lx, size_t from, size_t to);
/* At a line comment's first byte: blank to the end of the line. */
void lex_line_comment(struct lex *lx);
/* At "/" "*": blank to just past the comment's end (nested: Rust's
 * comments nest). */
void lex_block_comment(struct lex *lx, int nested);

#define LEX_ESCAPES 1u	 /* a backslash escapes the next byte */
#define LEX_MULTILINE 2u /* a newline does not end the literal */
#define LEX_KEEP 4u	 /* keep the contents (a module name) */
/* At an opening quote q: to just past the closing one, blanking what is
 * between. An unterminated literal ends at the end of its line (or of
 * the code with LEX_MULTILINE). */
void lex_quoted(struct lex *lx, char q, unsigned flags);

/* A literal with code inside (a template, a double-quoted bash string)
 * ends at lx->i: blank its text since start and step past the closing
 * delimiter, if the code has one. */
void lex_close(struct lex *lx, size_t start);
/* Past the identifier (or number) at lx->i. */
void lex_skip_ident(struct lex *lx);

/* [A-Za-z0-9_] or a byte of a UTF-8 sequence. */
int lex_ident_char(unsigned char c);
/* Whether s[i..] starts with the identifier word (not a longer one) and
 * s[i-1] is not part of an identifier. */
int lex_word_at(const char *s, size_t n, size_t i, const char *word);

/* The lexers (lex_<language>.c), the plugins' lex_mask. */
void sbx_lex_python(const char *code, size_t len, char *out);
void sbx_lex_javascript(const char *code, size_t len, char *out);
void sbx_lex_go(const char *code, size_t len, char *out);
void sbx_lex_rust(const char *code, size_t len, char *out);
void sbx_lex_bash(const char *code, size_t len, char *out);

#endif
