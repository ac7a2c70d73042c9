/*
 * lex_python.c - Python's comments and string literals (lex.h).
 *
 * '#' comments; '...' and "..." (ending at the line's end) and
 * triple-quoted strings, with any prefix (r, b, f, u and their pairs). A
 * backslash keeps the next byte in every kind, raw strings included: in
 * Python r"\"" is one string. An f-string is blanked whole, its
 * expressions too.
 */
#include <mcp-sandbox/lex.h>

static void triple(struct sbx_lex *lx, char q)
{
	size_t i = lx->i + 3;

	while (i < lx->n) {
		if (lx->s[i] == '\\') {
			i += 2;
			continue;
		}
		if (lx->s[i] == q && i + 2 < lx->n && lx->s[i + 1] == q &&
		    lx->s[i + 2] == q)
			break;
		i++;
	}
	if (i > lx->n)
		i = lx->n;
	sbx_lex_blank(lx, lx->i + 3, i);
	lx->i = i + 3 < lx->n ? i + 3 : lx->n;
}

void sbx_lex_python(const char *code, size_t len, char *out)
{
	struct sbx_lex lx;

	sbx_lex_init(&lx, code, len, out);
	while (lx.i < lx.n) {
		char c = lx.s[lx.i];

		if (c == '#') {
			sbx_lex_line_comment(&lx);
		} else if (c == '\'' || c == '"') {
			if (lx.i + 2 < lx.n && lx.s[lx.i + 1] == c &&
			    lx.s[lx.i + 2] == c)
				triple(&lx, c);
			else
				sbx_lex_quoted(&lx, c, SBX_LEX_ESCAPES);
		} else if (c == '\\') {
			lx.i += 2; /* a line continuation, or a stray byte */
		} else {
			lx.i++;
		}
	}
}
