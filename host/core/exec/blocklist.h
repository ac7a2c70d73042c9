/*
 * blocklist.h - the code blocklist (docs/security.md, "The code
 * blocklist"): a courtesy filter, not a boundary.
 *
 * A language's rules (its plugin's, then sandbox.ini's `block` patterns)
 * are POSIX extended regular expressions (glibc's, so \b \w \s work too),
 * compiled with REG_NEWLINE: ^ and $ are line anchors. They are matched
 * against the code as the plugin's lexer (lex_mask) shows it: comments
 * and string contents blanked, so text never triggers a rule, only code
 * does. Each rule reports its first match, with line and column.
 *
 * `blocklist = off | warn | block` ([limits] for every language, a
 * language's section for one): warn runs the code and lists the matches
 * in the result (and the audit log); block refuses it with code_blocked.
 * The container is what contains code: the adversarial suite passes with
 * the blocklist off.
 */
#ifndef SBX_CORE_BLOCKLIST_H
#define SBX_CORE_BLOCKLIST_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

enum blocklist_mode { BLOCKLIST_OFF = 0, BLOCKLIST_WARN, BLOCKLIST_BLOCK };

struct blocklist_rule {
	regex_t re; /* compiled at the language's first scan */
	char *pattern;
	char *reason;
	int from_config; /* a sandbox.ini pattern, not the plugin's */
};

/* Compiled rules take memory (glibc's automata: 40-240 KiB a language),
 * so a language's are compiled at its first scan, not at start-up. */
struct blocklist_compiled {
	uv_mutex_t lock;
	int done;
};

struct blocklist {
	enum blocklist_mode mode;
	struct blocklist_rule *rules;
	size_t n, cap;
	struct blocklist_compiled *compiled; /* with the first rule */
	/* The language's lexer (sbx_plugin lex_mask), or NULL: rules see the
	 * code as it is. */
	void (*lex)(const char *code, size_t len, char *out);
};

/* The most matches one scan reports (one per rule). */
#define BLOCKLIST_MAX_HITS 8
#define BLOCKLIST_MATCH_MAX 60

struct blocklist_hit {
	const struct blocklist_rule *rule; /* borrowed from the blocklist */
	uint32_t line, column;		   /* 1-based; the column in bytes */
	/* The matched code as the rules saw it (newlines as spaces), cut at
	 * BLOCKLIST_MATCH_MAX bytes. */
	char match[BLOCKLIST_MATCH_MAX + 1];
};

/* Add a rule (pattern and reason copied; the pattern is checked now and
 * compiled at the first scan). 0, -EINVAL if the pattern does not
 * compile, or -ENOMEM. */
int blocklist_add(struct blocklist *bl, const char *pattern, const char *reason,
		  int from_config);
/* Free the rules; bl is empty (mode off) after. */
void blocklist_close(struct blocklist *bl);
/* Whether a call's code must be scanned: rules, and a mode not off. */
int blocklist_active(const struct blocklist *bl);

/*
 * Lex and match code (len bytes): the number of hits written to hits
 * (at most max, in the order of the rules), or -ENOMEM. Blocking and
 * linear in len per rule; safe on any thread (the executor runs it in the
 * thread pool).
 */
int blocklist_scan(const struct blocklist *bl, const char *code, size_t len,
		   struct blocklist_hit *hits, size_t max);

/* "off", "warn", "block" to a mode: 0, or -EINVAL. */
int blocklist_mode_parse(const char *s, enum blocklist_mode *out);
const char *blocklist_mode_name(enum blocklist_mode mode);

#endif
