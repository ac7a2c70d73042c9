/*
 * fuzz_agent_codec.c - libFuzzer harness for the agent protocol: bytes in,
 * the frame reader, every decoder on every frame (whatever its type: a
 * hostile peer picks the type too), and the entries of the replies that
 * carry them. Under ASan and UBSan; nothing may crash, leak or read out
 * of bounds. Built by scripts/test.sh (build-fuzz, clang).
 */
#include <stddef.h>
#include <stdint.h>

#include "agent_ops.h"
#include "agent_proto.h"

static void all_decoders(const struct ap_frame *f)
{
	struct ap_exec ex;
	struct ap_file fi;
	struct ap_hello_ok ho;
	struct ap_exec_done ed;
	struct ap_output ou;
	struct ap_reset_done rd;
	struct ap_file_done fd;
	struct ap_error er;
	struct ap_file_entry e;
	struct ap_spawn sp;
	struct ap_proc pr;
	struct ap_proc_done pd;
	struct ap_proc_entry pe;
	struct ap_exchange xq;
	struct ap_exchange_done xd;
	struct error err;
	size_t off;

	if (ap_exec_decode(f, &ex, &err) == 0)
		ap_exec_free(&ex);
	(void)ap_file_decode(f, &fi, &err);
	(void)ap_hello_ok_decode(f, &ho, &err);
	if (ap_exec_done_decode(f, &ed, &err) == 0 && ed.entries)
		for (off = 0;
		     ap_entries_next(ed.entries, ed.entries_len, &off, &e);)
			;
	(void)ap_output_decode(f, &ou, &err);
	(void)ap_reset_done_decode(f, &rd, &err);
	if (ap_file_done_decode(f, &fd, &err) == 0)
		for (off = 0; ap_file_entry_next(&fd, &off, &e);)
			;
	(void)ap_error_decode(f, &er, &err);
	if (ap_spawn_decode(f, &sp, &err) == 0)
		ap_exec_free(&sp.x);
	(void)ap_proc_decode(f, &pr, &err);
	(void)ap_exchange_decode(f, &xq, &err);
	(void)ap_exchange_done_decode(f, &xd, &err);
	if (ap_proc_done_decode(f, &pd, &err) == 0)
		for (off = 0; ap_proc_entry_next(&pd, &off, &pe);)
			;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ap_reader r;
	struct ap_frame f;
	size_t half = size / 2;

	/* Fed in two pieces: frames that straddle reads. */
	ap_reader_init(&r);
	if (ap_reader_feed(&r, data, half) == 0 &&
	    ap_reader_feed(&r, data + half, size - half) == 0)
		while (ap_reader_next(&r, &f) > 0)
			all_decoders(&f);
	ap_reader_close(&r);
	return 0;
}
