/*
 * media.h - what kind of file a name or a few bytes are: the MIME type a
 * client is told, and the raster images (PNG, JPEG, GIF, WebP) a result
 * may show the model, with their size in pixels read from the header;
 * and the file names whose characters would mislead whoever reads them.
 */
#ifndef SBX_MEDIA_H
#define SBX_MEDIA_H

#include <stddef.h>
#include <stdint.h>

/* The MIME type of a file by its extension (images, csv, json, ...);
 * otherwise text/plain when text is set, else application/octet-stream. */
const char *media_type(const char *path, int text);

/* 1 when the name ends like a raster image a model can be shown. */
int media_is_image_name(const char *path);

/* The raster image in p (its first bytes are enough): its MIME type and
 * width and height in pixels. 0, or -1 when p is not a PNG, JPEG, GIF or
 * WebP with a readable header (whatever its name says). */
int media_image_info(const unsigned char *p, size_t n, const char **mime,
		     uint32_t *w, uint32_t *h);

/* Bytes a client holds for w x h pixels once decoded, at 4 a pixel (RGBA):
 * what a shown image costs, however small its file (a 249 KB PNG of
 * 7999 x 7999 decodes to 256 MB). */
uint64_t media_decoded_bytes(uint32_t w, uint32_t h);

enum media_verdict {
	MEDIA_SHOWN = 0,   /* a real image within the caps */
	MEDIA_NOT_IMAGE,   /* no PNG, JPEG, GIF or WebP header */
	MEDIA_OVER_SIDE,   /* a side is 0 or over max_side */
	MEDIA_OVER_PIXELS, /* w x h over max_pixels */
};

/* Whether the image in p may be shown: media_image_info() (*mime, *w, *h
 * set when it is an image), then at most max_side on a side and at most
 * max_pixels in all. */
enum media_verdict media_image_check(const unsigned char *p, size_t n,
				     uint32_t max_side, uint64_t max_pixels,
				     const char **mime, uint32_t *w,
				     uint32_t *h);

/* What a file name may hold that misleads whoever reads it: control
 * characters (C0, DEL, C1: a newline splits a listing's line), Unicode's
 * bidirectional controls (U+202E shows "exe.pdf" for "fdp.exe") and bytes
 * that are not UTF-8 (shown as U+FFFD, so not the name). */
#define MEDIA_NAME_CONTROL 1u /* C0 or DEL: file operations refuse it */
#define MEDIA_NAME_OTHER 2u   /* C1, a bidirectional control, not UTF-8 */
unsigned media_name_flags(const char *name, size_t len);

/* A copy of name with each character media_name_flags() objects to as
 * \uXXXX and each byte that is not UTF-8 as \xHH (uppercase hex), the
 * rest as is: NULL when there is nothing to escape (or out of memory).
 * Caller frees. */
char *media_name_escape(const char *name, size_t len);

#endif
