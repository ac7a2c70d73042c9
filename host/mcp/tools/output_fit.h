/*
 * output_fit.h - a program's output fitted into a result's text budget:
 * the beginning and end of a stream with a marker between them, taking at
 * most a given number of bytes once made valid UTF-8 (utf8_sanitize) and
 * printed by cJSON inside a JSON string (escapes counted). Pure: the
 * tool decides the budget (run_result.h), this file only cuts.
 */
#ifndef SBX_OUTPUT_FIT_H
#define SBX_OUTPUT_FIT_H

#include <stddef.h>

/* Bytes [0, head) and [tail, len) of a stream are shown; head == tail ==
 * len: the whole of it. Both fall between two characters. */
struct output_cut {
	size_t head;
	size_t tail;
};

/* The bytes the whole of buf[0..len) takes as JSON text; counting stops
 * past limit (the answer is then only "more than limit"). */
size_t output_fit_cost(const char *buf, size_t len, size_t limit);

/* How two streams of cost[0] and cost[1] bytes share room bytes: both
 * whole when they fit together; else a stream that fits in half the
 * room keeps all of it and the other gets what is left; else half each.
 * A quiet stream so gives its share to a chatty one. */
void output_fit_share(const size_t cost[2], size_t room, size_t share[2]);

/* Where to cut buf[0..len) so that output_fit_text() with the same where
 * takes at most room bytes: half the room (less the marker) for the
 * beginning, the rest for the end. A room smaller than the marker leaves
 * the marker alone (the only case over room). */
void output_fit_cut(const char *buf, size_t len, size_t room, const char *where,
		    struct output_cut *c);

/* The text shown: the whole stream, or its head, the marker
 * "\n... [N bytes truncated from byte H; read them at <where>] ...\n"
 * (where NULL: "\n... [N bytes truncated] ...\n", the agent's own) and
 * its tail. Valid UTF-8, NUL-terminated, new; NULL when out of memory. */
char *output_fit_text(const char *buf, size_t len, const struct output_cut *c,
		      const char *where);

/* 1 when c leaves part of the stream out. */
int output_fit_is_cut(const struct output_cut *c);

#endif
