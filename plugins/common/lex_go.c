/*
 * lex_go.c - Go's comments and literals (lex.h).
 *
 * '//' and '/' '*' comments; "..." and '...' with escapes, `...` raw and
 * multi-line. Import paths are kept: the strings of an import
 * declaration, "os/exec" in `import "os/exec"` or in an import ( ... )
 * block.
 */
#include "lex.h"

void sbx_lex_go(const char *code, size_t len, char *out)
{
	struct lex lx;
	/* 1: after `import`, to its string; 2: inside import ( ... ) */
	int import = 0;

	lex_init(&lx, code, len, out);
	while (lx.i < lx.n) {
		size_t i = lx.i;
		char c = lx.s[i], d = i + 1 < lx.n ? lx.s[i + 1] : 0;

		if (c == '/' && d == '/') {
			lex_line_comment(&lx);
		} else if (c == '/' && d == '*') {
			lex_block_comment(&lx, 0);
		} else if (c == '"' || c == '`') {
			lex_quoted(&lx, c,
				   (c == '"' ? LEX_ESCAPES : LEX_MULTILINE) |
					   (import ? LEX_KEEP : 0));
			if (import == 1)
				import = 0;
		} else if (c == '\'') {
			lex_quoted(&lx, c, LEX_ESCAPES);
		} else if (lex_word_at(lx.s, lx.n, i, "import")) {
			import = 1;
			lx.i += 6;
		} else if (c == '(' && import == 1) {
			import = 2;
			lx.i++;
		} else if (c == ')' && import == 2) {
			import = 0;
			lx.i++;
		} else if (lex_ident_char((unsigned char)c)) {
			lex_skip_ident(&lx);
		} else {
			lx.i++;
		}
	}
}
