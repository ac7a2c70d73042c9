/* The agent's head+tail output capture: exact below the cap, head and tail
 * kept with a marker above it, never longer than the cap, independent of
 * how the bytes were chunked. */
#include <stdlib.h>

#include "capture.h"
#include "testlib.h"

static size_t render(struct capture *c, unsigned char **out)
{
	*out = malloc(c->cap);
	return capture_render(c, *out);
}

static void below_cap(void)
{
	struct capture c;
	unsigned char *out;
	size_t n;

	CHECK(capture_init(&c, 64) == 0);
	capture_add(&c, "hello ", 6);
	capture_add(&c, "world", 5);
	n = render(&c, &out);
	CHECK(n == 11 && memcmp(out, "hello world", 11) == 0);
	CHECK(!capture_truncated(&c));
	free(out);
	capture_close(&c);
}

static void above_cap(size_t chunk)
{
	struct capture c;
	unsigned char *out;
	char line[32];
	char *all = malloc(1 << 20);
	size_t len = 0, n, i;

	/* "1\n2\n...100000\n", like seq */
	for (i = 1; i <= 100000; i++)
		len += (size_t)snprintf(all + len, 32, "%zu\n", i);
	CHECK(capture_init(&c, 4096) == 0);
	for (i = 0; i < len; i += chunk)
		capture_add(&c, all + i, i + chunk > len ? len - i : chunk);
	n = render(&c, &out);
	CHECK(capture_truncated(&c));
	CHECK(n <= 4096);
	CHECK(memcmp(out, "1\n2\n3\n", 6) == 0);	/* beginning */
	CHECK(memcmp(out + n - 7, "100000\n", 7) == 0); /* end */
	snprintf(line, sizeof(line), "bytes truncated]");
	out[n - 1] = '\0';
	CHECK_STR_CONTAINS((char *)out, line);
	CHECK(c.total == len);
	free(out);
	free(all);
	capture_close(&c);
}

int main(void)
{
	below_cap();
	above_cap(1);
	above_cap(7);
	above_cap(65536);
	return t_summary("capture");
}
