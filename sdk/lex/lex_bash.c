/*
 * lex_bash.c - Bash's comments, quoting and here-documents (lex.h).
 *
 * A '#' starts a comment at the start of a word only (not in $#, ${#a[@]},
 * ${x#pre} or a#b). '...' is blanked; $'...' too, with its escapes; "..."
 * is blanked except its $(...) and `...` substitutions, which are code.
 * A here-document's body (<<WORD, <<-WORD, <<'WORD', <<"WORD") is data
 * and blanked to its delimiter line; a here-string (<<<) is not one.
 * Substitutions nest to SBX_LEX_MAX_DEPTH.
 */
#include <mcp-sandbox/lex.h>

#include <string.h>

#define MAX_PENDING 8
#define MAX_DELIM 64

struct bash {
	struct sbx_lex lx;
	/* here-documents opened on the current line, read at its end */
	struct {
		char word[MAX_DELIM + 1];
		int strip_tabs;
	} doc[MAX_PENDING];
	int ndoc;
};

static int word_break(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' ||
	       c == '&' || c == '(' || c == ')' || c == '<' || c == '>';
}

/* After "<<" or "<<-": read the delimiter word (quotes removed) and queue
 * the body for the end of the line. */
static void heredoc_open(struct bash *b, int strip_tabs)
{
	struct sbx_lex *lx = &b->lx;
	char word[MAX_DELIM + 1];
	size_t w = 0;

	while (lx->i < lx->n && (lx->s[lx->i] == ' ' || lx->s[lx->i] == '\t'))
		lx->i++;
	while (lx->i < lx->n && !word_break(lx->s[lx->i])) {
		char c = lx->s[lx->i++];

		if (c == '\'' || c == '"') {
			while (lx->i < lx->n && lx->s[lx->i] != c &&
			       lx->s[lx->i] != '\n') {
				if (w < MAX_DELIM)
					word[w++] = lx->s[lx->i];
				lx->i++;
			}
			if (lx->i < lx->n && lx->s[lx->i] == c)
				lx->i++;
			continue;
		}
		if (c == '\\' && lx->i < lx->n)
			c = lx->s[lx->i++];
		if (w < MAX_DELIM)
			word[w++] = c;
	}
	word[w] = '\0';
	if (!w || b->ndoc == MAX_PENDING)
		return;
	memcpy(b->doc[b->ndoc].word, word, w + 1);
	b->doc[b->ndoc++].strip_tabs = strip_tabs;
}

/* At the start of the line after the one that opened here-documents:
 * blank each body up to its delimiter line. */
static void heredoc_bodies(struct bash *b)
{
	struct sbx_lex *lx = &b->lx;

	for (int k = 0; k < b->ndoc && lx->i < lx->n; k++) {
		size_t wlen = strlen(b->doc[k].word);

		while (lx->i < lx->n) {
			const char *nl =
				memchr(lx->s + lx->i, '\n', lx->n - lx->i);
			size_t end = nl ? (size_t)(nl - lx->s) : lx->n;
			size_t at = lx->i;

			while (b->doc[k].strip_tabs && at < end &&
			       lx->s[at] == '\t')
				at++;
			if (end - at == wlen &&
			    memcmp(lx->s + at, b->doc[k].word, wlen) == 0) {
				lx->i = nl ? end + 1 : end;
				break;
			}
			sbx_lex_blank(lx, lx->i, end);
			lx->i = nl ? end + 1 : end;
		}
	}
	b->ndoc = 0;
}

static void code(struct bash *b, int depth, char end, int arith);

/* At '"': the text blanked, substitutions lexed as code. */
static void dquote(struct bash *b, int depth)
{
	struct sbx_lex *lx = &b->lx;
	size_t start = ++lx->i;

	while (lx->i < lx->n && lx->s[lx->i] != '"') {
		char c = lx->s[lx->i],
		     d = lx->i + 1 < lx->n ? lx->s[lx->i + 1] : 0;

		if (c == '\\') {
			lx->i += 2;
		} else if (depth < SBX_LEX_MAX_DEPTH &&
			   ((c == '$' && d == '(') || c == '`')) {
			sbx_lex_blank(lx, start, lx->i);
			lx->i += c == '`' ? 1 : 2;
			code(b, depth + 1, c == '`' ? '`' : ')', 0);
			start = lx->i;
		} else {
			lx->i++;
		}
	}
	sbx_lex_close(lx, start);
}

/* Code to the end, or to the `end` byte that closes a substitution
 * (consumed): ')' for $( ... ) and (( ... )), '`' for `...`, '}' for
 * ${ ... }. In arithmetic (arith), << is a shift. */
static void code(struct bash *b, int depth, char end, int arith)
{
	struct sbx_lex *lx = &b->lx;
	int word_start = 1, parens = 0;

	while (lx->i < lx->n) {
		char c = lx->s[lx->i],
		     d = lx->i + 1 < lx->n ? lx->s[lx->i + 1] : 0;

		if (end && c == end && (end != ')' || parens == 0)) {
			lx->i++;
			return;
		}
		if (c == '\n') {
			lx->i++;
			if (b->ndoc)
				heredoc_bodies(b);
			word_start = 1;
			continue;
		}
		if (c == '#' && word_start && end != '}') {
			sbx_lex_line_comment(lx);
			continue;
		}
		if (c == '\\') {
			lx->i += 2;
		} else if (c == '\'') {
			sbx_lex_quoted(lx, c, SBX_LEX_MULTILINE);
		} else if (c == '$' && d == '\'') {
			lx->i++;
			sbx_lex_quoted(lx, '\'',
				       SBX_LEX_MULTILINE | SBX_LEX_ESCAPES);
		} else if (c == '"') {
			dquote(b, depth);
		} else if (depth < SBX_LEX_MAX_DEPTH && c == '$' &&
			   (d == '(' || d == '{')) {
			lx->i += 2;
			code(b, depth + 1, d == '(' ? ')' : '}',
			     d == '(' && lx->i < lx->n && lx->s[lx->i] == '(');
		} else if (depth < SBX_LEX_MAX_DEPTH && c == '(' && d == '(') {
			lx->i++; /* (( ... )): the inner pair closes in code */
			code(b, depth + 1, ')', 1);
		} else if (depth < SBX_LEX_MAX_DEPTH && c == '`') {
			lx->i++;
			code(b, depth + 1, '`', 0);
		} else if (c == '<' && d == '<' && !arith) {
			if (lx->i + 2 < lx->n && lx->s[lx->i + 2] == '<') {
				lx->i += 3; /* a here-string */
			} else {
				int strip = lx->i + 2 < lx->n &&
					    lx->s[lx->i + 2] == '-';

				lx->i += strip ? 3 : 2;
				heredoc_open(b, strip);
			}
		} else {
			if (c == '(')
				parens++;
			else if (c == ')' && parens > 0)
				parens--;
			lx->i++;
			word_start = word_break(c);
			continue;
		}
		word_start = 0;
	}
}

void sbx_lex_bash(const char *src, size_t len, char *out)
{
	struct bash b;

	memset(&b, 0, sizeof(b));
	sbx_lex_init(&b.lx, src, len, out);
	code(&b, 0, 0, 0);
}
