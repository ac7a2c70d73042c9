/*
 * lex_go.c - Go's comments and literals (lex.h).
 *
 * '//' and '/' '*' comments; "..." and '...' with escapes, `...` raw and
 * multi-line. Import paths are kept: the strings of an import
 * declaration, "os/exec" in `import "os/exec"` or in an import ( ... )
 * block.
 */
#include <mcp-sandbox/lex.h>

void sbx_lex_go(const char *code, size_t len, char *out)
{
	struct sbx_lex lx;
	/* 1: after `import`, to its string; 2: inside import ( ... ) */
	int import = 0;

	sbx_lex_init(&lx, code, len, out);
	while (lx.i < lx.n) {
		size_t i = lx.i;
		char c = lx.s[i], d = i + 1 < lx.n ? lx.s[i + 1] : 0;

		if (c == '/' && d == '/') {
			sbx_lex_line_comment(&lx);
		} else if (c == '/' && d == '*') {
			sbx_lex_block_comment(&lx, 0);
		} else if (c == '"' || c == '`') {
			sbx_lex_quoted(&lx, c,
				       (c == '"' ? SBX_LEX_ESCAPES
						 : SBX_LEX_MULTILINE) |
					       (import ? SBX_LEX_KEEP : 0));
			if (import == 1)
				import = 0;
		} else if (c == '\'') {
			sbx_lex_quoted(&lx, c, SBX_LEX_ESCAPES);
		} else if (sbx_lex_word_at(lx.s, lx.n, i, "import")) {
			import = 1;
			lx.i += 6;
		} else if (c == '(' && import == 1) {
			import = 2;
			lx.i++;
		} else if (c == ')' && import == 2) {
			import = 0;
			lx.i++;
		} else if (sbx_lex_ident_char((unsigned char)c)) {
			sbx_lex_skip_ident(&lx);
		} else {
			lx.i++;
		}
	}
}
