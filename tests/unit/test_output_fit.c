/* mcp/tools/output_fit.c and run_result.c's budget: a stream's text as
 * cJSON prints it, measured exactly (escapes, bytes that are not UTF-8);
 * cuts that never pass their room nor split a character, whatever the
 * bytes; two streams sharing one budget; a whole result that stays
 * within 2 bytes a token with its fields and message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "mcp/json_util.h"
#include "mcp/tools/output_fit.h"
#include "mcp/tools/run_result.h"
#include "testlib.h"

/* What cJSON prints for s as a string's content (no quotes). */
static size_t printed(const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *p = cJSON_PrintUnformatted(j);
	size_t n = strlen(p) - 2;

	free(p);
	cJSON_Delete(j);
	return n;
}

/* output_fit_cost() against cJSON itself, over utf8_sanitize(). */
static int cost_exact(const char *buf, size_t len)
{
	char *s = utf8_sanitize(buf, len);
	int ok = s && output_fit_cost(buf, len, SIZE_MAX) == printed(s);

	free(s);
	return ok;
}

static void check_cost(void)
{
	static const char mixed[] = "a\"b\\c\td\ne\x01\x1f\x7f é€😀 \xff\xc3 "
				    "\xe2\x82 \xf0\x9f\x98 \xed\xa0\x80 z";

	CHECK(output_fit_cost("", 0, SIZE_MAX) == 0);
	CHECK(output_fit_cost("abc", 3, SIZE_MAX) == 3);
	CHECK(output_fit_cost("\"\\\b\f\n\r\t", 7, SIZE_MAX) == 14);
	CHECK(output_fit_cost("\x01", 1, SIZE_MAX) == 6);
	CHECK(output_fit_cost("\0", 1, SIZE_MAX) == 3); /* U+FFFD */
	CHECK(output_fit_cost("\xff", 1, SIZE_MAX) == 3);
	CHECK(output_fit_cost("é", 2, SIZE_MAX) == 2);
	CHECK(cost_exact(mixed, sizeof(mixed) - 1));
	/* Counting stops past the limit. */
	CHECK(output_fit_cost("aaaaaaaaaa", 10, 3) == 4);
}

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* Bytes of one kind: ASCII text, escapes, multi-byte characters, garbage
 * (continuation bytes, truncated sequences, NULs), or all mixed. */
static void fill(char *b, size_t n, int kind)
{
	static const char *const pieces[] = {"é",    "€",	 "😀",	 "\"",
					     "\\",   "\n",	 "\x01", "\xff",
					     "\x80", "\xe2\x82", "\0",	 "ab"};
	size_t i = 0;

	while (i < n) {
		const char *p;
		size_t k;

		if (kind == 0)
			p = "the quick brown fox ";
		else if (kind == 1)
			p = pieces[3 + rnd() % 4];
		else if (kind == 2)
			p = pieces[rnd() % 3];
		else if (kind == 3)
			p = pieces[7 + rnd() % 4];
		else
			p = pieces[rnd() % 12];
		k = strlen(p) ? strlen(p) : 1; /* the NUL piece */
		if (k > n - i)
			k = n - i;
		memcpy(b + i, p, k);
		i += k;
	}
}

/* A cut of buf into room: its text within room (unless room is smaller
 * than the marker), whole characters only, head and tail the stream's
 * own, the marker's numbers right. */
static int cut_ok(const char *buf, size_t len, size_t room, const char *where)
{
	struct output_cut c;
	char *text, *head, *tail, *whole, want[200];
	size_t hl;
	int ok;

	output_fit_cut(buf, len, room, where, &c);
	text = output_fit_text(buf, len, &c, where);
	if (!text)
		return 0;
	if (!output_fit_is_cut(&c)) {
		ok = c.head == len && c.tail == len &&
		     output_fit_cost(buf, len, SIZE_MAX) <= room;
		free(text);
		return ok;
	}
	ok = c.head <= c.tail && c.tail <= len &&
	     (printed(text) <= room || room < 100);
	/* Nothing split: the head is the sanitized prefix, the tail ends
	 * the sanitized stream. */
	head = utf8_sanitize(buf, c.head);
	tail = utf8_sanitize(buf + c.tail, len - c.tail);
	hl = strlen(head);
	ok &= strncmp(text, head, hl) == 0;
	snprintf(want, sizeof(want),
		 "\n... [%zu bytes truncated from byte %zu; read them at %s] "
		 "...\n",
		 c.tail - c.head, c.head, where);
	ok &= strncmp(text + hl, want, strlen(want)) == 0;
	ok &= strcmp(text + hl + strlen(want), tail) == 0;
	/* ... and the whole stream's: a cut inside a character would show
	 * U+FFFD where the whole has the character. */
	whole = utf8_sanitize(buf, len);
	ok &= strncmp(whole, head, hl) == 0;
	ok &= strlen(whole) >= strlen(tail) &&
	      strcmp(whole + strlen(whole) - strlen(tail), tail) == 0;
	free(whole);
	/* Most of the room is used (the cut is not timid). */
	ok &= room < 200 || printed(text) + 64 >= room;
	free(head);
	free(tail);
	free(text);
	return ok;
}

static void check_cut(void)
{
	static const size_t rooms[] = {0, 50, 150, 1000, 4096, 20000};
	char *buf = malloc(300000);
	size_t r, n, bad = 0, runs = 0;
	int kind;

	for (kind = 0; kind < 5; kind++)
		for (n = 0; n <= 300000; n = n ? n * 7 + 3 : 1) {
			fill(buf, n, kind);
			for (r = 0; r < sizeof(rooms) / sizeof(rooms[0]); r++) {
				runs++;
				bad += !cut_ok(buf, n, rooms[r], "stdoutUri");
			}
		}
	CHECK(runs > 100 && bad == 0);
	/* A stream that fits is whole. */
	fill(buf, 100, 0);
	CHECK(cut_ok(buf, 100, 100, "stdoutUri"));
	/* Without a place to read from: the agent's own marker. */
	{
		struct output_cut c;
		char *t;

		fill(buf, 5000, 0);
		output_fit_cut(buf, 5000, 1000, NULL, &c);
		t = output_fit_text(buf, 5000, &c, NULL);
		CHECK(t && strstr(t, " bytes truncated] ...\n") &&
		      printed(t) <= 1000);
		free(t);
	}
	free(buf);
}

/* 1 when streams costing a and b get want_a and want_b of room. */
static int shares(size_t a, size_t b, size_t room, size_t want_a, size_t want_b)
{
	size_t cost[2] = {a, b}, share[2];

	output_fit_share(cost, room, share);
	return share[0] == want_a && share[1] == want_b;
}

static void check_share(void)
{
	CHECK(shares(100, 200, 1000, 100, 200));
	/* A quiet stream keeps its own; the chatty one gets the rest. */
	CHECK(shares(100, 5000, 1000, 100, 900));
	CHECK(shares(5000, 10, 1000, 990, 10));
	/* Both chatty: half each. */
	CHECK(shares(5000, 700, 1001, 500, 501));
}

/* A result with these streams, fitted to budget tokens and filled in:
 * its text's length, what it says. */
static char *fitted(const char *out, size_t out_len, const char *err,
		    size_t err_len, uint32_t budget, int keep, int *cut)
{
	struct exec_outcome o = {
		.language = "python-ml",
		.exited = 1,
		.out = out,
		.out_len = out_len,
		.err = err,
		.err_len = err_len,
		.out_total = out_len,
		.err_total = err_len,
		.out_cap = 4u << 20,
		.err_cap = 4u << 20,
	};
	struct run_streams rs;
	cJSON *r = run_result_base(&o, NULL);
	char *text;

	run_streams_init(&rs, &o);
	*cut = run_result_fit(r, &rs, budget, budget);
	if (*cut && keep) {
		rs.s[0].uri = "sandbox://artifact/00112233445566ff/stdout";
		rs.s[1].uri = "sandbox://artifact/00112233445566ff/stderr";
	}
	if (*cut && !keep)
		rs.not_kept = "no artifacts are kept here";
	run_result_streams(r, &rs);
	text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	return text;
}

static void check_result(void)
{
	char *out = malloc(300000), *err = malloc(50000), *t;
	cJSON *j;
	int cut;

	fill(out, 300000, 4);
	fill(err, 50000, 1);
	t = fitted(out, 300000, err, 50000, 10000, 1, &cut);
	CHECK(cut && strlen(t) <= 20000 && strlen(t) > 19000);
	j = cJSON_Parse(t);
	CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j, "stdoutTruncated")));
	CHECK(cJSON_GetObjectItem(j, "stdoutBytes")->valuedouble == 300000);
	CHECK(cJSON_GetObjectItem(j, "stderrUri") != NULL);
	CHECK_STR_CONTAINS(cJSON_GetObjectItem(j, "message")->valuestring,
			   "Only the beginning and end of stdout and stderr "
			   "are shown here, to keep this result under 10000 "
			   "tokens");
	CHECK_STR_CONTAINS(cJSON_GetObjectItem(j, "message")->valuestring,
			   "length: 10000}");
	cJSON_Delete(j);
	free(t);
	/* Not kept: no uri, the message says why, and it still fits. */
	t = fitted(out, 300000, err, 50000, 10000, 0, &cut);
	CHECK(cut && strlen(t) <= 20000);
	CHECK_STR_CONTAINS(t, "The rest is not kept: no artifacts are kept");
	CHECK(!strstr(t, "stdoutUri\":"));
	free(t);
	/* A quiet stdout stays whole, stderr takes the rest. */
	t = fitted("done\n", 5, err, 50000, 2000, 1, &cut);
	CHECK(cut && strlen(t) <= 4000 && strlen(t) > 3500);
	CHECK_STR_CONTAINS(t, "\"stdout\":\"done\\n\"");
	CHECK(!strstr(t, "stdoutUri") && !strstr(t, "stdoutBytes"));
	CHECK_STR_CONTAINS(t, "of stderr is shown");
	free(t);
	/* Small: unchanged, no placeholder left. */
	t = fitted("hi\n", 3, "", 0, 10000, 1, &cut);
	CHECK(!cut &&
	      strcmp(t, "{\"exitCode\":0,\"signal\":null,\"stdout\":"
			"\"hi\\n\",\"stderr\":\"\",\"stdoutTruncated\":"
			"false,\"stderrTruncated\":false,\"timedOut\":"
			"false,\"oomKilled\":false,\"durationMs\":0,"
			"\"language\":\"python-ml\",\"phase\":\"run\"}") == 0);
	free(t);
	/* No budget: whole. */
	t = fitted(out, 300000, err, 50000, 0, 1, &cut);
	CHECK(!cut && strlen(t) > 300000);
	free(t);
	free(out);
	free(err);
}

/* Over the capture cap: the size, and the settings that raise it. */
static void check_capped(void)
{
	struct exec_outcome o = {
		.language = "python-ml",
		.exited = 1,
		.out = "12\n... [9 bytes truncated] ...\n89",
		.out_len = 34,
		.out_truncated = 1,
		.out_total = 13,
		.out_cap = 34,
		.err = "",
	};
	cJSON *r = run_result_json(&o, NULL);
	char *t = cJSON_PrintUnformatted(r);

	CHECK_STR_CONTAINS(t, "\"stdoutBytes\":13");
	CHECK_STR_CONTAINS(t, "stdout was 13 bytes, over its capture cap of "
			      "34: its beginning and end were kept, its "
			      "middle was not (raise stdout_cap in "
			      "sandbox.ini's [limits] or [python-ml] section, "
			      "or SANDBOX_PYTHON_ML_STDOUT_CAP; at most "
			      "8388608).");
	CHECK(!strstr(t, "stderrBytes"));
	free(t);
	cJSON_Delete(r);
	/* At the most the agent captures: no setting helps, a file does. */
	o.out_cap = 8u << 20;
	r = run_result_json(&o, NULL);
	t = cJSON_PrintUnformatted(r);
	CHECK_STR_CONTAINS(t, "(8388608 is the most captured: write output "
			      "that large to a file in /work instead).");
	free(t);
	cJSON_Delete(r);
}

int main(void)
{
	check_cost();
	check_cut();
	check_share();
	check_result();
	check_capped();
	return t_summary("output_fit");
}
