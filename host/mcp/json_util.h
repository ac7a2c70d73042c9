/*
 * json_util.h - UTF-8 hygiene and the JSON Schema subset our tools use.
 */
#ifndef SBX_JSON_UTIL_H
#define SBX_JSON_UTIL_H

#include <cjson/cJSON.h>
#include <stddef.h>

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

/* 1 if v is a whole number a double holds exactly (|v| <= 2^53 - 1), as
 * JSON-RPC ids, progress tokens and "integer" arguments must be. No libm:
 * calling floor() would map a library's pages into every server. */
int json_safe_integer(double v);

/*
 * Validate value against schema, supporting: type (string or array of
 * names), properties, required, additionalProperties:false, enum (strings),
 * minimum, maximum, minLength, maxLength. Returns 0, or -1 with a message
 * such as "timeout: expected integer, got string" in err.
 */
int schema_validate(const cJSON *schema, const cJSON *value, char *err,
		    size_t errlen);

#endif
