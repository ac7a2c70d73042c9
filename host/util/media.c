/*
 * media.c - MIME types by name, raster image headers by content, names
 * that mislead a reader.
 */
#include "media.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The types a client may render or open, by the name's last extension;
 * the rest is octet-stream. */
static const char *const types[][2] = {
	{".png", "image/png"},
	{".jpg", "image/jpeg"},
	{".jpeg", "image/jpeg"},
	{".gif", "image/gif"},
	{".webp", "image/webp"},
	{".svg", "image/svg+xml"},
	{".csv", "text/csv"},
	{".json", "application/json"},
	{".html", "text/html"},
	{".md", "text/markdown"},
	{".pdf", "application/pdf"},
	{".py", "text/x-python"},
	{".txt", "text/plain"},
	{".log", "text/plain"},
	{".tsv", "text/tab-separated-values"},
	{".xml", "application/xml"},
	{".yaml", "application/yaml"},
	{".yml", "application/yaml"},
	{".js", "text/javascript"},
	{".ts", "text/x-typescript"},
	{".sh", "text/x-shellscript"},
	{".go", "text/x-go"},
	{".rs", "text/x-rust"},
	{".jsonl", "application/x-ndjson"},
	{".ndjson", "application/x-ndjson"},
	{".ipynb", "application/x-ipynb+json"},
	{".htm", "text/html"},
	{".css", "text/css"},
	{".toml", "application/toml"},
	{".sql", "application/sql"},
	/* What an analysis hands back: office documents, columnar data,
	 * archives. */
	{".xlsx", "application/vnd.openxmlformats-officedocument."
		  "spreadsheetml.sheet"},
	{".xls", "application/vnd.ms-excel"},
	{".docx", "application/vnd.openxmlformats-officedocument."
		  "wordprocessingml.document"},
	{".doc", "application/msword"},
	{".pptx", "application/vnd.openxmlformats-officedocument."
		  "presentationml.presentation"},
	{".ods", "application/vnd.oasis.opendocument.spreadsheet"},
	{".odt", "application/vnd.oasis.opendocument.text"},
	{".rtf", "application/rtf"},
	{".parquet", "application/vnd.apache.parquet"},
	{".arrow", "application/vnd.apache.arrow.file"},
	{".feather", "application/vnd.apache.arrow.file"},
	{".h5", "application/x-hdf5"},
	{".hdf5", "application/x-hdf5"},
	{".sqlite", "application/vnd.sqlite3"},
	{".zip", "application/zip"},
	{".gz", "application/gzip"},
	{".tar", "application/x-tar"},
};

const char *media_type(const char *path, int text)
{
	const char *dot = strrchr(path, '.');
	size_t i;

	for (i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i][0]) == 0)
			return types[i][1];
	return text ? "text/plain" : "application/octet-stream";
}

int media_is_image_name(const char *path)
{
	const char *t = media_type(path, 0);

	return strncmp(t, "image/", 6) == 0 && strcmp(t, "image/svg+xml") != 0;
}

static uint32_t be16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[1] << 8 | p[0];
}

static uint32_t le24(const unsigned char *p)
{
	return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The first start-of-frame segment's size: markers are walked by their
 * lengths from the start-of-image. */
static int jpeg_size(const unsigned char *p, size_t n, uint32_t *w, uint32_t *h)
{
	size_t i = 2;

	while (i + 4 <= n) {
		unsigned m;

		if (p[i] != 0xff)
			return -1;
		m = p[i + 1];
		if (m == 0xff) { /* fill byte */
			i++;
			continue;
		}
		if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) { /* no length */
			i += 2;
			continue;
		}
		if (m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 &&
		    m != 0xcc) {
			if (i + 9 > n)
				return -1;
			*h = be16(p + i + 5);
			*w = be16(p + i + 7);
			return 0;
		}
		if (m == 0xd9 || m == 0xda) /* end, or data before a frame */
			return -1;
		i += 2 + be16(p + i + 2);
	}
	return -1;
}

static int webp_size(const unsigned char *p, size_t n, uint32_t *w, uint32_t *h)
{
	if (n >= 30 && memcmp(p + 12, "VP8 ", 4) == 0 && p[23] == 0x9d &&
	    p[24] == 0x01 && p[25] == 0x2a) {
		*w = le16(p + 26) & 0x3fff;
		*h = le16(p + 28) & 0x3fff;
		return 0;
	}
	if (n >= 25 && memcmp(p + 12, "VP8L", 4) == 0 && p[20] == 0x2f) {
		uint32_t b = (uint32_t)p[21] | (uint32_t)p[22] << 8 |
			     (uint32_t)p[23] << 16 | (uint32_t)p[24] << 24;

		*w = (b & 0x3fff) + 1;
		*h = ((b >> 14) & 0x3fff) + 1;
		return 0;
	}
	if (n >= 30 && memcmp(p + 12, "VP8X", 4) == 0) {
		*w = le24(p + 24) + 1;
		*h = le24(p + 27) + 1;
		return 0;
	}
	return -1;
}

int media_image_info(const unsigned char *p, size_t n, const char **mime,
		     uint32_t *w, uint32_t *h)
{
	static const unsigned char png[8] = {0x89, 'P',	 'N',  'G',
					     '\r', '\n', 0x1a, '\n'};

	if (n >= 24 && memcmp(p, png, 8) == 0 &&
	    memcmp(p + 12, "IHDR", 4) == 0) {
		*mime = "image/png";
		*w = be32(p + 16);
		*h = be32(p + 20);
		return 0;
	}
	if (n >= 10 &&
	    (memcmp(p, "GIF87a", 6) == 0 || memcmp(p, "GIF89a", 6) == 0)) {
		*mime = "image/gif";
		*w = le16(p + 6);
		*h = le16(p + 8);
		return 0;
	}
	if (n >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff) {
		*mime = "image/jpeg";
		return jpeg_size(p, n, w, h);
	}
	if (n >= 16 && memcmp(p, "RIFF", 4) == 0 &&
	    memcmp(p + 8, "WEBP", 4) == 0) {
		*mime = "image/webp";
		return webp_size(p, n, w, h);
	}
	return -1;
}

uint64_t media_decoded_bytes(uint32_t w, uint32_t h)
{
	return (uint64_t)w * h * 4;
}

enum media_verdict media_image_check(const unsigned char *p, size_t n,
				     uint32_t max_side, uint64_t max_pixels,
				     const char **mime, uint32_t *w,
				     uint32_t *h)
{
	*w = *h = 0;
	if (media_image_info(p, n, mime, w, h))
		return MEDIA_NOT_IMAGE;
	if (!*w || !*h || *w > max_side || *h > max_side)
		return MEDIA_OVER_SIDE;
	if ((uint64_t)*w * *h > max_pixels)
		return MEDIA_OVER_PIXELS;
	return MEDIA_SHOWN;
}

/* The code point of the well-formed UTF-8 sequence at p (its length in
 * *n), or -1 with *n = 1 for a byte that does not start one. */
static int32_t utf8_at(const unsigned char *p, size_t avail, size_t *n)
{
	unsigned char c = p[0];
	int32_t cp;
	size_t k, i;

	*n = 1;
	if (c < 0x80)
		return c;
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07;
	else
		return -1;
	if (avail < k)
		return -1;
	for (i = 1; i < k; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((k == 3 && cp < 0x800) ||
	    (k == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return -1; /* overlong, out of range, a surrogate */
	*n = k;
	return cp;
}

static unsigned cp_flags(int32_t cp)
{
	if (cp < 0)
		return MEDIA_NAME_OTHER;
	if (cp < 0x20 || cp == 0x7f)
		return MEDIA_NAME_CONTROL;
	if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e ||
	    cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069))
		return MEDIA_NAME_OTHER;
	return 0;
}

unsigned media_name_flags(const char *name, size_t len)
{
	const unsigned char *p = (const unsigned char *)name;
	unsigned f = 0;
	size_t i = 0, n;

	while (i < len) {
		f |= cp_flags(utf8_at(p + i, len - i, &n));
		i += n;
	}
	return f;
}

char *media_name_escape(const char *name, size_t len)
{
	const unsigned char *p = (const unsigned char *)name;
	size_t i = 0, o = 0, n;
	int32_t cp;
	char *out;

	if (!media_name_flags(name, len) || len > (SIZE_MAX - 1) / 6)
		return NULL;
	out = malloc(len * 6 + 1); /* \uXXXX for a byte at most */
	if (!out)
		return NULL;
	while (i < len) {
		cp = utf8_at(p + i, len - i, &n);
		if (cp < 0)
			o += (size_t)sprintf(out + o, "\\x%02X", p[i]);
		else if (cp_flags(cp))
			o += (size_t)sprintf(out + o, "\\u%04X", (unsigned)cp);
		else {
			memcpy(out + o, p + i, n);
			o += n;
		}
		i += n;
	}
	out[o] = '\0';
	return out;
}
