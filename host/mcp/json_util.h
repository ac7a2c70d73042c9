/*
 * json_util.h - UTF-8 hygiene, the strict reading of JSON (what cJSON
 * takes and JSON does not; a plainly strict message read in one pass),
 * strings escaped for printing once, the JSON Schema subset our tools
 * use, and the streaming scan for a message's id.
 */
#ifndef SBX_JSON_UTIL_H
#define SBX_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "error.h"

/* 1 if buf[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
int utf8_valid(const char *buf, size_t len);

/* 1 if buf[0..len) is text: well-formed UTF-8 without a NUL byte (a NUL
 * would end the string in every C consumer, cJSON included). */
int utf8_text(const char *buf, size_t len);

/* How many bytes at the end of buf[0..len) are the start of a UTF-8
 * sequence cut short (1 to 3), as a read that ends inside a character
 * leaves; 0 when buf does not end that way. */
size_t utf8_cut_tail(const char *buf, size_t len);

/* A NUL-terminated copy where every ill-formed sequence and every NUL byte
 * becomes U+FFFD, so program output can always travel as a JSON string.
 * Returns NULL when out of memory. Caller frees. */
char *utf8_sanitize(const char *buf, size_t len);

/* The bytes utf8_sanitize(buf, len) takes once printed as the content
 * of a JSON string by cJSON (escapes counted, quotes not); counting stops
 * once past limit (SIZE_MAX: the whole), so the answer is then only
 * "more than limit". */
size_t utf8_json_len(const char *buf, size_t len, size_t limit);

/* The longest prefix of buf[0..len) that ends between two of
 * utf8_sanitize()'s units (never inside a character) and takes at most
 * room bytes by utf8_json_len(). */
size_t utf8_json_prefix(const char *buf, size_t len, size_t room);

/*
 * s[0..len) printed as the inside of a JSON string, as cJSON prints it
 * (\" \\ \b \f \n \r \t, other controls \u00XX, the rest as it is);
 * twice: that text printed again as the inside of a string (a string in
 * JSON text that is itself a string: a tool's JSON result in its text
 * block). json_escaped_len() is the length, json_escape() writes it at o
 * (no NUL) and returns its end. Both pass 16 bytes at a time where
 * nothing needs escaping.
 */
size_t json_escaped_len(const char *s, size_t len, int twice);
char *json_escape(char *o, const char *s, size_t len, int twice);

/*
 * s[0..len) as a JSON string, quotes included (json_escape() once), in
 * a raw item (cJSON_Raw): cJSON prints a raw item as it is, so a large
 * string (a tool's result text) is escaped here, 16 bytes at a time, and
 * only copied when its message is printed, instead of cJSON's passes a
 * byte at a time. A raw item is not a string to cJSON_IsString(): use it
 * for what is only printed. NULL when out of memory.
 */
cJSON *json_raw_string(const char *s, size_t len);

/* A raw item of text (JSON text, allocated with cJSON_malloc(); taken,
 * also on failure); NULL when out of memory or text is NULL. */
cJSON *json_raw_take(char *text);

/* 1 if v is a whole number a double holds exactly (|v| <= 2^53 - 1), as
 * JSON-RPC ids, progress tokens and "integer" arguments must be. No libm:
 * calling floor() would map a library's pages into every server. */
int json_safe_integer(double v);

/*
 * What cJSON lets through and JSON does not, so that no parser in front
 * of this server can read a message differently: a raw control character
 * (below 0x20) inside a string or, but for JSON's whitespace, outside one;
 * a \u escape without four hex digits; a number outside the grammar
 * ("01", "1.", "2.e3"); and \u0000 in a string, valid JSON but cut short
 * by cJSON and every C consumer (*nul set: the code that ran would not be
 * the code that was sent). Returns the offset of the first, with *what
 * saying what it is, or -1.
 */
long json_not_strict(const char *text, size_t len, const char **what, int *nul);

/*
 * The message text[0..len) read in one pass, when it is plainly strict
 * JSON: valid UTF-8, no \u0000, no escaped surrogate, nested at most 64
 * deep, no number of 64 characters or more, nothing but JSON's
 * whitespace around it. Then the tree is the one cJSON's parser gives
 * for the same text, and utf8_valid() and json_not_strict() would pass
 * it: those passes (a byte at a time in cJSON) are saved. NULL for
 * anything else, out of memory included: the caller reads it the slow
 * way, which says what is wrong. Caller frees with cJSON_Delete().
 */
cJSON *json_parse_fast(const char *text, size_t len);

/* The first key that an object of v (at any depth) holds twice, or NULL:
 * cJSON takes the first, another parser maybe the last. Borrowed from
 * v. */
const char *json_duplicate_key(const cJSON *v);

/*
 * Validate value against schema, supporting: type (string or array of
 * names), properties, required, additionalProperties:false, enum (strings),
 * minimum, maximum, minLength, maxLength. Returns 0, or
 * ERR_INVALID_ARGUMENTS with a message such as "timeout: expected
 * integer, got string" in err.
 */
int schema_validate(const cJSON *schema, const cJSON *value, struct error *err);

/*
 * The top-level "id" member of a JSON-RPC message, found by a streaming
 * scan in fixed memory: fed the message in pieces of any size, it follows
 * strings, escapes and nesting and keeps only the id's text (at most
 * JSON_ID_MAX bytes). For a line too long to keep (transport.c) and to
 * echo an id exactly (cJSON cuts a string at \u0000).
 */
#define JSON_ID_MAX 256
#define JSON_KEY_MAX 32

struct json_id_scan {
	size_t depth;
	char top;      /* '{' or '[' of the message, 'x' for a scalar */
	char want_key; /* at depth 1 of an object: a key comes next */
	char in_string, escaped, in_key;
	char key_kind;	   /* the last key: 1 "id", 2 "method", 0 other */
	char capturing;	   /* inside the id member's value */
	char done, broken; /* the message closed; not JSON's shape */
	char id_long;	   /* the id's text was longer than JSON_ID_MAX */
	char has_method;   /* a top-level "method" member */
	unsigned nids;	   /* top-level "id" members */
	char key[JSON_KEY_MAX + 1];
	size_t key_len;
	char id[JSON_ID_MAX + 1];
	size_t id_len;
};

void json_id_scan_init(struct json_id_scan *s);
void json_id_scan_feed(struct json_id_scan *s, const char *buf, size_t len);

/* The id's JSON text, NUL-terminated and owned by s, when the message is
 * an object with exactly one "id" member whose value is a string (valid
 * UTF-8, strict JSON escapes) or an integer of at most 2^53-1 written
 * without fraction or exponent; else NULL. The text is strict JSON, so
 * it can be echoed as it came (cJSON_CreateRaw). */
const char *json_id_scan_id(struct json_id_scan *s);

/* 1 when the message is a whole object with a "method" and no "id"
 * member: a notification, which JSON-RPC never answers. */
int json_id_scan_notification(const struct json_id_scan *s);

#endif
