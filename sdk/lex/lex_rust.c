/*
 * lex_rust.c - Rust's comments and literals (lex.h).
 *
 * '//' comments (doc comments too) and nested block comments; "..."
 * (multi-line, with escapes, b"..." and c"..." alike); raw strings r"...",
 * r#"..."# (any number of '#', br and cr prefixes); character literals
 * ('a', '\'', '\u{1F600}', b'x') told from lifetimes ('a, 'static) by the
 * quote that closes them.
 */
#include <mcp-sandbox/lex.h>

/* At 'r' (after an optional b or c): a raw string, or 0 when this is an
 * identifier such as r#type or run. */
static int raw_string(struct sbx_lex *lx)
{
	size_t i = lx->i + 1, hashes = 0, start;

	while (i < lx->n && lx->s[i] == '#') {
		hashes++;
		i++;
	}
	if (i >= lx->n || lx->s[i] != '"')
		return 0;
	start = ++i;
	for (; i < lx->n; i++) {
		size_t k = 0;

		if (lx->s[i] != '"')
			continue;
		while (k < hashes && i + 1 + k < lx->n &&
		       lx->s[i + 1 + k] == '#')
			k++;
		if (k == hashes)
			break;
	}
	sbx_lex_blank(lx, start, i);
	lx->i = i < lx->n ? i + 1 + hashes : lx->n;
	if (lx->i > lx->n)
		lx->i = lx->n;
	return 1;
}

/* The length of the UTF-8 sequence that starts with c (1 for a stray
 * byte). */
static size_t utf8_len(unsigned char c)
{
	if (c >= 0xf0)
		return 4;
	if (c >= 0xe0)
		return 3;
	if (c >= 0xc0)
		return 2;
	return 1;
}

/* At '\'': a character literal blanked, or a lifetime left. */
static void quote(struct sbx_lex *lx)
{
	size_t i = lx->i + 1;

	if (i < lx->n && lx->s[i] == '\\') {
		/* i is the backslash, i + 1 the escaped byte ('\\', '\''):
		 * the closing quote comes from i + 2 on ('\u{1F600}') */
		size_t k = i + 2;

		while (k < lx->n && k < i + 12 && lx->s[k] != '\'')
			k++;
		if (k < lx->n && lx->s[k] == '\'') {
			sbx_lex_blank(lx, i, k);
			lx->i = k + 1;
			return;
		}
	} else if (i < lx->n) {
		size_t k = i + utf8_len((unsigned char)lx->s[i]);

		if (k < lx->n && lx->s[k] == '\'') {
			sbx_lex_blank(lx, i, k);
			lx->i = k + 1;
			return;
		}
	}
	lx->i++; /* a lifetime or a label */
}

void sbx_lex_rust(const char *code, size_t len, char *out)
{
	struct sbx_lex lx;

	sbx_lex_init(&lx, code, len, out);
	while (lx.i < lx.n) {
		size_t i = lx.i;
		char c = lx.s[i], d = i + 1 < lx.n ? lx.s[i + 1] : 0;
		int prefix =
			i > 0 && sbx_lex_ident_char((unsigned char)lx.s[i - 1]);

		if (c == '/' && d == '/') {
			sbx_lex_line_comment(&lx);
		} else if (c == '/' && d == '*') {
			sbx_lex_block_comment(&lx, 1);
		} else if (c == '"') {
			sbx_lex_quoted(&lx, c,
				       SBX_LEX_ESCAPES | SBX_LEX_MULTILINE);
		} else if (c == '\'') {
			quote(&lx);
		} else if (!prefix && (c == 'b' || c == 'c') && d == 'r') {
			lx.i++;
			if (!raw_string(&lx))
				lx.i++;
		} else if (!prefix && c == 'r' && raw_string(&lx)) {
			continue;
		} else if (sbx_lex_ident_char((unsigned char)c)) {
			/* a b or r inside an identifier is no prefix; b'x'
			 * and b"x" reach the quote cases after the b */
			sbx_lex_skip_ident(&lx);
		} else {
			lx.i++;
		}
	}
}
