/*
 * media.h - what kind of file a name or a few bytes are: the MIME type a
 * client is told, and the raster images (PNG, JPEG, GIF, WebP) a result
 * may show the model, with their size in pixels read from the header.
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

#endif
