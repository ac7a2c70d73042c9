/*
 * lex_javascript.c - JavaScript's and TypeScript's comments, strings,
 * template literals and regular expressions (lex.h).
 *
 * A template literal's text is blanked and its ${...} expressions are
 * code (nested templates included, to SBX_LEX_MAX_DEPTH). A '/' starts a
 * regular expression where an expression may start (after an operator, a
 * '(' or ',', a keyword such as return, or at the start) and is division
 * after an identifier, a number, ')' or ']'; a regular expression's body
 * is blanked like a string's. A module specifier is kept: the string after
 * `from` or `import`, or in require(...) and import(...).
 */
#include <mcp-sandbox/lex.h>

#include <string.h>

struct js {
	struct sbx_lex lx;
	char last[16];	 /* the last token: an identifier, or one punctuator */
	char before[16]; /* the one before it */
	/* Up to here a '/' is division: a regular expression tried from
	 * an earlier '/' found its line's end first. Each line is scanned
	 * for a closing '/' once, so the lexer stays linear. */
	size_t div_until;
};

static void token(struct js *js, const char *t, size_t len)
{
	if (len >= sizeof(js->last))
		len = sizeof(js->last) - 1;
	memcpy(js->before, js->last, sizeof(js->before));
	memcpy(js->last, t, len);
	js->last[len] = '\0';
}

/* Whether a '/' here starts a regular expression. */
static int regex_allowed(const struct js *js)
{
	static const char *const kw[] = {
		"return", "typeof", "instanceof", "in",	   "of",
		"new",	  "delete", "void",	  "throw", "case",
		"do",	  "else",   "yield",	  "await", NULL,
	};
	unsigned char c = (unsigned char)js->last[0];

	if (!c)
		return 1;
	if (sbx_lex_ident_char(c)) {
		for (size_t k = 0; kw[k]; k++)
			if (strcmp(js->last, kw[k]) == 0)
				return 1;
		return 0; /* an identifier or a number: division */
	}
	return !strchr(")]", c);
}

/* At '/': a regular expression literal to its flags, or 0 when the line
 * ends first (then it was division after all). */
static int regex(struct js *js)
{
	struct sbx_lex *lx = &js->lx;
	size_t i = lx->i + 1;
	int cls = 0;

	while (i < lx->n && lx->s[i] != '\n') {
		if (lx->s[i] == '\\')
			i++;
		else if (lx->s[i] == '[')
			cls = 1;
		else if (lx->s[i] == ']')
			cls = 0;
		else if (lx->s[i] == '/' && !cls)
			break;
		i++;
	}
	if (i >= lx->n || lx->s[i] != '/') {
		js->div_until = i;
		return 0;
	}
	sbx_lex_blank(lx, lx->i + 1, i);
	lx->i = i + 1;
	token(js, ")", 1); /* what follows divides */
	return 1;
}

static int module_name(const struct js *js)
{
	return strcmp(js->last, "from") == 0 ||
	       strcmp(js->last, "import") == 0 ||
	       (strcmp(js->last, "(") == 0 &&
		(strcmp(js->before, "require") == 0 ||
		 strcmp(js->before, "import") == 0));
}

static void code(struct js *js, int depth, int in_template);

/* At '`': the template's text blanked, its expressions lexed as code. */
static void template_literal(struct js *js, int depth)
{
	struct sbx_lex *lx = &js->lx;
	size_t start = ++lx->i;

	while (lx->i < lx->n && lx->s[lx->i] != '`') {
		if (lx->s[lx->i] == '\\') {
			lx->i += 2;
		} else if (lx->s[lx->i] == '$' && lx->i + 1 < lx->n &&
			   lx->s[lx->i + 1] == '{' &&
			   depth < SBX_LEX_MAX_DEPTH) {
			sbx_lex_blank(lx, start, lx->i);
			lx->i += 2;
			token(js, "{", 1);
			code(js, depth + 1, 1);
			start = lx->i;
		} else {
			lx->i++;
		}
	}
	sbx_lex_close(lx, start);
	token(js, ")", 1);
}

/* Code to the end, or (in_template) to the '}' that closes a template's
 * ${ (consumed). */
static void code(struct js *js, int depth, int in_template)
{
	struct sbx_lex *lx = &js->lx;
	int braces = 0;

	while (lx->i < lx->n) {
		size_t i = lx->i;
		unsigned char c = (unsigned char)lx->s[i];
		unsigned char d =
			i + 1 < lx->n ? (unsigned char)lx->s[i + 1] : 0;

		if ((c == '/' && d == '/') ||
		    (c == '#' && d == '!' && i == 0)) {
			sbx_lex_line_comment(lx); /* a comment, or a #! line */
		} else if (c == '/' && d == '*') {
			sbx_lex_block_comment(lx, 0);
		} else if (c == '\'' || c == '"') {
			sbx_lex_quoted(
				lx, (char)c,
				SBX_LEX_ESCAPES |
					(module_name(js) ? SBX_LEX_KEEP : 0));
			token(js, ")", 1);
		} else if (c == '`') {
			template_literal(js, depth);
		} else if (c == '/' && i >= js->div_until &&
			   regex_allowed(js) && regex(js)) {
			continue;
		} else if (sbx_lex_ident_char(c)) {
			while (lx->i < lx->n &&
			       (sbx_lex_ident_char(
					(unsigned char)lx->s[lx->i]) ||
				lx->s[lx->i] == '$'))
				lx->i++;
			token(js, lx->s + i, lx->i - i);
		} else if (c == '$') {
			lx->i++;
			token(js, "a", 1);
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			lx->i++;
		} else {
			lx->i++;
			if (in_template && c == '{')
				braces++;
			if (in_template && c == '}' && braces-- == 0)
				return;
			token(js, lx->s + i, 1);
		}
	}
}

void sbx_lex_javascript(const char *src, size_t len, char *out)
{
	struct js js;

	memset(&js, 0, sizeof(js));
	sbx_lex_init(&js.lx, src, len, out);
	code(&js, 0, 0);
}
