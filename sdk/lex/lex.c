/*
 * lex.c - the pieces the built-in lexers share (lex.h).
 */
#include <mcp-sandbox/lex.h>

#include <string.h>

void sbx_lex_init(struct sbx_lex *lx, const char *code, size_t len, char *out)
{
	lx->s = code;
	lx->out = out;
	lx->n = len;
	lx->i = 0;
	memcpy(out, code, len);
}

void sbx_lex_blank(struct sbx_lex *lx, size_t from, size_t to)
{
	if (to > lx->n)
		to = lx->n;
	for (; from < to; from++)
		if (lx->out[from] != '\n')
			lx->out[from] = ' ';
}

void sbx_lex_line_comment(struct sbx_lex *lx)
{
	const char *nl = memchr(lx->s + lx->i, '\n', lx->n - lx->i);
	size_t end = nl ? (size_t)(nl - lx->s) : lx->n;

	sbx_lex_blank(lx, lx->i, end);
	lx->i = end;
}

void sbx_lex_block_comment(struct sbx_lex *lx, int nested)
{
	size_t i = lx->i + 2, depth = 1;

	while (i < lx->n && depth) {
		if (lx->s[i] == '*' && i + 1 < lx->n && lx->s[i + 1] == '/') {
			depth--;
			i += 2;
		} else if (nested && lx->s[i] == '/' && i + 1 < lx->n &&
			   lx->s[i + 1] == '*') {
			depth++;
			i += 2;
		} else {
			i++;
		}
	}
	sbx_lex_blank(lx, lx->i, i);
	lx->i = i;
}

void sbx_lex_quoted(struct sbx_lex *lx, char q, unsigned flags)
{
	size_t i = lx->i + 1, start = i, end;

	while (i < lx->n && lx->s[i] != q) {
		if (lx->s[i] == '\n' && !(flags & SBX_LEX_MULTILINE))
			break;
		if (lx->s[i] == '\\' && (flags & SBX_LEX_ESCAPES))
			i++;
		i++;
	}
	if (i > lx->n)
		i = lx->n;
	end = i;
	if (i < lx->n && lx->s[i] == q)
		i++;
	if (!(flags & SBX_LEX_KEEP))
		sbx_lex_blank(lx, start, end);
	lx->i = i;
}

void sbx_lex_close(struct sbx_lex *lx, size_t start)
{
	if (lx->i > lx->n)
		lx->i = lx->n;
	sbx_lex_blank(lx, start, lx->i);
	if (lx->i < lx->n)
		lx->i++;
}

void sbx_lex_skip_ident(struct sbx_lex *lx)
{
	while (lx->i < lx->n && sbx_lex_ident_char((unsigned char)lx->s[lx->i]))
		lx->i++;
}

int sbx_lex_ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

int sbx_lex_word_at(const char *s, size_t n, size_t i, const char *word)
{
	size_t len = strlen(word);

	if (i + len > n || memcmp(s + i, word, len) != 0)
		return 0;
	if (i > 0 && sbx_lex_ident_char((unsigned char)s[i - 1]))
		return 0;
	return i + len == n || !sbx_lex_ident_char((unsigned char)s[i + len]);
}
