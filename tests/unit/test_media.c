/* util/media.c: MIME types by name, and raster image headers by content:
 * real headers of each format, and truncated or lying ones that must be
 * refused without reading past the bytes given. */
#include <stdlib.h>
#include <string.h>

#include "util/media.h"
#include "testlib.h"

static int info(const unsigned char *p, size_t n, const char *mime, uint32_t w,
		uint32_t h)
{
	const char *m = NULL;
	uint32_t gw = 0, gh = 0;

	if (media_image_info(p, n, &m, &gw, &gh))
		return 0;
	return strcmp(m, mime) == 0 && gw == w && gh == h;
}

/* Every prefix of p shorter than n is refused, and never read beyond: each
 * is copied into a buffer of exactly its size (ASan sees an overread). */
static int prefixes_refused(const unsigned char *p, size_t n)
{
	const char *m;
	uint32_t w, h;
	size_t k;
	int ok = 1;

	for (k = 0; k < n; k++) {
		unsigned char *c = malloc(k ? k : 1);

		memcpy(c, p, k);
		ok &= media_image_info(c, k, &m, &w, &h) == -1;
		free(c);
	}
	return ok;
}

static void check_names(void)
{
	CHECK(strcmp(media_type("a/b.csv", 0), "text/csv") == 0);
	CHECK(strcmp(media_type("x.png", 0), "image/png") == 0);
	CHECK(strcmp(media_type("noext", 1), "text/plain") == 0);
	CHECK(strcmp(media_type("noext", 0), "application/octet-stream") == 0);
	/* What an analysis hands back (issue 30). */
	CHECK(strcmp(media_type("report.xlsx", 0),
		     "application/vnd.openxmlformats-officedocument."
		     "spreadsheetml.sheet") == 0);
	CHECK(strcmp(media_type("memo.docx", 0),
		     "application/vnd.openxmlformats-officedocument."
		     "wordprocessingml.document") == 0);
	CHECK(strcmp(media_type("t.parquet", 0),
		     "application/vnd.apache.parquet") == 0);
	CHECK(strcmp(media_type("a.jsonl", 0), "application/x-ndjson") == 0);
	CHECK(strcmp(media_type("n.ipynb", 0), "application/x-ipynb+json") ==
	      0);
	CHECK(strcmp(media_type("x.tar.gz", 0), "application/gzip") == 0);
	CHECK(!media_is_image_name("report.xlsx"));
	CHECK(media_is_image_name("fig.png"));
	CHECK(media_is_image_name("a.jpeg") && media_is_image_name("a.jpg"));
	CHECK(media_is_image_name("a.gif") && media_is_image_name("a.webp"));
	CHECK(!media_is_image_name("a.svg")); /* not a raster a model sees */
	CHECK(!media_is_image_name("png") && !media_is_image_name("a.png.txt"));
}

static void check_formats(void)
{
	static const unsigned char png[] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,	   0,
		0,    13,  'I', 'H', 'D',  'R',	 0,    0,    0x1f, 0x40,
		0,    0,   0,	1,   8,	   0,	 0,    0,    0};
	static const unsigned char gif[] = {'G',  'I',	'F',  '8',  '9', 'a',
					    0x80, 0x02, 0xe0, 0x01, 0};
	/* SOI, an APP0 of 16 bytes, fill bytes, then SOF2 (progressive). */
	static const unsigned char jpeg[] = {
		0xff, 0xd8, 0xff, 0xe0, 0,    16,   'J',  'F',	'I', 'F',  0,
		1,    1,    0,	  0,	1,    0,    1,	  0,	0,   0xff, 0xff,
		0xc2, 0,    17,	  8,	0x01, 0x2c, 0x02, 0x58, 3};
	static const unsigned char vp8[] = {
		'R', 'I', 'F', 'F',  0,	   0,	 0,    0, 'W',	'E',
		'B', 'P', 'V', 'P',  '8',  ' ',	 0,    0, 0,	0,
		0,   0,	  0,   0x9d, 0x01, 0x2a, 0x40, 1, 0xf0, 0};
	static const unsigned char vp8l[] = {
		'R', 'I', 'F', 'F', 0, 0, 0, 0,	   'W', 'E', 'B',  'P', 'V',
		'P', '8', 'L', 0,   0, 0, 0, 0x2f, 99,	0,   0x14, 0};
	static const unsigned char vp8x[] = {
		'R', 'I', 'F', 'F', 0,	  0,	0,  0,	  'W', 'E',
		'B', 'P', 'V', 'P', '8',  'X',	10, 0,	  0,   0,
		0,   0,	  0,   0,   0x3f, 0x1f, 0,  0x0f, 0,   0};

	CHECK(info(png, sizeof(png), "image/png", 8000, 1));
	CHECK(info(gif, sizeof(gif), "image/gif", 640, 480));
	CHECK(info(jpeg, sizeof(jpeg), "image/jpeg", 600, 300));
	CHECK(info(vp8, sizeof(vp8), "image/webp", 320, 240));
	/* VP8L: 14 bits of width - 1, then 14 of height - 1. */
	CHECK(info(vp8l, sizeof(vp8l), "image/webp", 100, 81));
	CHECK(info(vp8x, sizeof(vp8x), "image/webp", 8000, 16));

	CHECK(prefixes_refused(png, 24));
	CHECK(prefixes_refused(gif, 10));
	CHECK(prefixes_refused(jpeg, 29));
	CHECK(prefixes_refused(vp8, 30));
}

static void check_lies(void)
{
	const char *m;
	uint32_t w, h;
	/* The signature without its IHDR, text named .png, and a JPEG whose
	 * segment length points far past the end. */
	static const unsigned char headless[] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0,
		'x',  'x', 'x', 'x', 0,	   0,	 0,    1,    0, 0, 0, 1};
	static const unsigned char text[] = "just text, named fig.png";
	static const unsigned char jpeg[] = {
		0xff, 0xd8, 0xff, 0xe1, 0xff, 0xf0, 0, 0, 0, 0, 0xff, 0xc0};
	static const unsigned char riff[] = {'R', 'I', 'F', 'F', 0,   0,
					     0,	  0,   'W', 'E', 'B', 'P',
					     'V', 'P', '9', ' ', 0,   0};

	CHECK(media_image_info(headless, sizeof(headless), &m, &w, &h) == -1);
	CHECK(media_image_info(text, sizeof(text), &m, &w, &h) == -1);
	CHECK(media_image_info(jpeg, sizeof(jpeg), &m, &w, &h) == -1);
	CHECK(media_image_info(riff, sizeof(riff), &m, &w, &h) == -1);
	CHECK(media_image_info(text, 0, &m, &w, &h) == -1);
}

/* A decoded size cap: the header's pixels, not the file's bytes. */
static void check_decoded(void)
{
	/* 7999 x 7999: under 8000 on a side, 256 MB decoded. */
	static const unsigned char huge[] = {
		0x89, 'P', 'N',	 'G',  '\r', '\n', 0x1a, '\n', 0,    0,
		0,    13,  'I',	 'H',  'D',  'R',  0,	 0,    0x1f, 0x3f,
		0,    0,   0x1f, 0x3f, 8,    6,	   0,	 0,    0};
	static const unsigned char wide[] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0,	   0,
		0,    13,  'I', 'H', 'D',  'R',	 0,    0,    0x23, 0x28,
		0,    0,   0,	2,   8,	   0,	 0,    0,    0};
	static const unsigned char text[] = "not an image";
	const char *m;
	uint32_t w, h;

	CHECK(media_decoded_bytes(7999, 7999) == 255936004ull);
	CHECK(media_decoded_bytes(65535, 65535) == 17179344900ull);
	CHECK(media_image_check(huge, sizeof(huge), 8000, 16u << 20, &m, &w,
				&h) == MEDIA_OVER_PIXELS);
	CHECK(w == 7999 && h == 7999 && strcmp(m, "image/png") == 0);
	CHECK(media_image_check(huge, sizeof(huge), 8000, 64000000, &m, &w,
				&h) == MEDIA_SHOWN);
	CHECK(media_image_check(wide, sizeof(wide), 8000, 16u << 20, &m, &w,
				&h) == MEDIA_OVER_SIDE);
	CHECK(media_image_check(text, sizeof(text), 8000, 16u << 20, &m, &w,
				&h) == MEDIA_NOT_IMAGE);
}

static int escaped(const char *name, size_t len, const char *want)
{
	char *e = media_name_escape(name, len);
	int ok = want ? e && strcmp(e, want) == 0 : !e;

	free(e);
	return ok;
}

/* Names that mislead: flagged, and escaped so the reader sees them. */
static void check_names_shown(void)
{
	CHECK(media_name_flags("report.pdf", 10) == 0);
	CHECK(media_name_flags("caf\xc3\xa9 \xe2\x82\xac.txt", 12) == 0);
	CHECK(media_name_flags("a\nb", 3) == MEDIA_NAME_CONTROL);
	CHECK(media_name_flags("a\x7f", 2) == MEDIA_NAME_CONTROL);
	CHECK(media_name_flags("x\xe2\x80\xae"
			       "fdp.exe",
			       11) == MEDIA_NAME_OTHER);
	CHECK(media_name_flags("\xe2\x81\xa6x", 4) == MEDIA_NAME_OTHER);
	CHECK(media_name_flags("\xc2\x85", 2) == MEDIA_NAME_OTHER); /* C1 */
	CHECK(media_name_flags("caf\xe9", 4) == MEDIA_NAME_OTHER);
	CHECK(media_name_flags("\xed\xa0\x80", 3) == MEDIA_NAME_OTHER);
	CHECK(escaped("plain.txt", 9, NULL));
	CHECK(escaped("a\nb.txt", 7, "a\\u000Ab.txt"));
	CHECK(escaped("x\xe2\x80\xae"
		      "fdp.exe",
		      11, "x\\u202Efdp.exe"));
	CHECK(escaped("caf\xe9.txt", 8, "caf\\xE9.txt"));
	CHECK(escaped("\xc3\xa9\t\xe2", 4, "\xc3\xa9\\u0009\\xE2"));
}

int main(void)
{
	check_names();
	check_formats();
	check_lies();
	check_decoded();
	check_names_shown();
	return t_summary("media");
}
