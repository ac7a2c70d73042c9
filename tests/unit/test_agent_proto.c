/* Frame codec: round trips, split reads, corrupt lengths, caps. */
#include <errno.h>
#include <stdlib.h>

#include "agent_proto.h"
#include "testlib.h"

static void round_trip_split(void)
{
	struct ap_buf b;
	struct ap_reader r;
	struct ap_frame f;
	struct ap_field fl;
	size_t off = 0, i;
	int got = 0, rc;

	ap_buf_init(&b);
	CHECK(ap_frame_begin(&b, AP_EXEC, 7) == 0);
	CHECK(ap_put_str(&b, AP_T_FILE_NAME, "main.py") == 0);
	CHECK(ap_put_u32(&b, AP_T_TIMEOUT_MS, 30000) == 0);
	CHECK(ap_put(&b, AP_T_FILE_DATA, "", 0) == 0);
	CHECK(ap_frame_end(&b) == 0);
	CHECK(ap_frame_begin(&b, AP_HELLO, 8) == 0);
	CHECK(ap_frame_end(&b) == 0);

	/* Feed one byte at a time: frames must come out whole. */
	ap_reader_init(&r);
	for (i = 0; i < b.len; i++) {
		CHECK(ap_reader_feed(&r, b.data + i, 1) == 0);
		while ((rc = ap_reader_next(&r, &f)) == 1) {
			got++;
			if (f.type == AP_EXEC) {
				CHECK(f.id == 7);
				CHECK(ap_next_field(&f, &off, &fl) == 1);
				CHECK(fl.tag == AP_T_FILE_NAME && fl.len == 7 &&
				      memcmp(fl.data, "main.py", 7) == 0);
				CHECK(ap_next_field(&f, &off, &fl) == 1);
				CHECK(ap_field_u32(&fl) == 30000);
				CHECK(ap_next_field(&f, &off, &fl) == 1);
				CHECK(fl.tag == AP_T_FILE_DATA && fl.len == 0);
				CHECK(ap_next_field(&f, &off, &fl) == 0);
			} else {
				CHECK(f.type == AP_HELLO && f.id == 8 &&
				      f.len == 0);
			}
		}
		CHECK(rc == 0);
	}
	CHECK(got == 2);
	ap_reader_close(&r);
	ap_buf_close(&b);
}

static void corrupt(void)
{
	struct ap_reader r;
	struct ap_frame f;
	static const unsigned char huge[] = {0x7f, 0xff, 0xff, 0xff, 1};
	static const unsigned char tiny[] = {0, 0, 0, 2, 1, 0};
	/* a field whose length runs past the frame */
	static const unsigned char bad_field[] = {
		0, 0, 0, 10, AP_EXEC, 0, 0, 0, 1, AP_T_FILE_NAME, 0, 0, 0, 9};
	struct ap_field fl;
	size_t off = 0;

	ap_reader_init(&r);
	ap_reader_feed(&r, huge, sizeof(huge));
	CHECK(ap_reader_next(&r, &f) == -EPROTO);
	ap_reader_close(&r);

	ap_reader_init(&r);
	ap_reader_feed(&r, tiny, sizeof(tiny));
	CHECK(ap_reader_next(&r, &f) == -EPROTO);
	ap_reader_close(&r);

	ap_reader_init(&r);
	ap_reader_feed(&r, bad_field, sizeof(bad_field));
	CHECK(ap_reader_next(&r, &f) == 1);
	CHECK(ap_next_field(&f, &off, &fl) == -EPROTO);
	ap_reader_close(&r);
}

static void too_big(void)
{
	struct ap_buf b;
	char *blob = calloc(1, AP_MAX_FRAME);

	ap_buf_init(&b);
	CHECK(ap_frame_begin(&b, AP_EXEC, 1) == 0);
	CHECK(ap_put(&b, AP_T_FILE_DATA, blob, AP_MAX_FRAME) == -E2BIG);
	CHECK(b.len == 0); /* the partial frame was dropped */
	ap_buf_close(&b);
	free(blob);
}

int main(void)
{
	round_trip_split();
	corrupt();
	too_big();
	return t_summary("agent_proto");
}
