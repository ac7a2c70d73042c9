/*
 * docker_demux.c - Docker's multiplexed stdout/stderr framing, parsed
 * without I/O; see docker_demux.h.
 */
#include "docker_demux.h"

#include <errno.h>
#include <string.h>

void docker_demux_init(struct docker_demux *dm)
{
	*dm = (struct docker_demux){.fd = 1, .bad_stream = -1};
}

/* A complete header in dm->hdr: start its frame. */
static int demux_header(struct docker_demux *dm)
{
	switch (dm->hdr[0]) {
	case 0:
	case 1:
		dm->fd = 1;
		dm->daemon_error = 0;
		break;
	case 2:
		dm->fd = 2;
		dm->daemon_error = 0;
		break;
	case 3:
		dm->fd = 2;
		dm->daemon_error = 1;
		break;
	default:
		dm->bad_stream = dm->hdr[0];
		return -EPROTO;
	}
	/* Bytes 1-3 are padding: ignored, as Docker's own client does. */
	dm->left = (uint32_t)dm->hdr[4] << 24 | (uint32_t)dm->hdr[5] << 16 |
		   (uint32_t)dm->hdr[6] << 8 | (uint32_t)dm->hdr[7];
	dm->hdr_len = 0;
	return 0;
}

int docker_demux_next(struct docker_demux *dm, const char **p, size_t *n,
		      struct docker_demux_piece *out)
{
	size_t take;

	if (dm->bad_stream >= 0)
		return -EPROTO;
	while (dm->left == 0) {
		if (*n == 0)
			return 0;
		take = sizeof(dm->hdr) - dm->hdr_len;
		if (take > *n)
			take = *n;
		memcpy(dm->hdr + dm->hdr_len, *p, take);
		dm->hdr_len += take;
		*p += take;
		*n -= take;
		if (dm->hdr_len < sizeof(dm->hdr))
			return 0;
		if (demux_header(dm) < 0)
			return -EPROTO;
	}
	if (*n == 0)
		return 0;
	take = *n < dm->left ? *n : dm->left;
	*out = (struct docker_demux_piece){
		.fd = dm->fd,
		.daemon_error = dm->daemon_error,
		.data = *p,
		.len = take,
	};
	dm->left -= (uint32_t)take;
	*p += take;
	*n -= take;
	return 1;
}

int docker_demux_partial(const struct docker_demux *dm)
{
	return dm->left > 0 || dm->hdr_len > 0;
}
