/*
 * docker_proto.c - the Engine API's formats as pure functions: what the
 * client parses from DOCKER_HOST and from the daemon's answers, and the exec
 * body it sends. No I/O; see docker_proto.h.
 */
#include "docker_proto.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker.h"

/* ------------------------------------------------------------------ */
/* DOCKER_HOST                                                         */

/* "host:2375" and "[::1]:2375" name a port; "host" and "[::1]" do not. */
static int has_port(const char *hp, size_t n)
{
	const char *from = memchr(hp, ']', n);

	if (!from)
		from = hp;
	return memchr(from, ':', n - (size_t)(from - hp)) != NULL;
}

/* What may appear in host[:port]: printable ASCII, no userinfo, query or
 * fragment. */
static int valid_host_port(const char *hp, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)hp[i];

		if (c <= 0x20 || c >= 0x7f || c == '@' || c == '?' || c == '#')
			return 0;
	}
	return 1;
}

int docker_host_parse(const char *host, int tls, struct docker_host *out,
		      struct error *err)
{
	const char *hp;
	size_t n;

	if (strncmp(host, "unix://", 7) == 0) {
		const char *path = host + 7;

		if (path[0] != '/')
			return error_set_msg(
				err, -EINVAL,
				"Docker host unix:// needs an absolute path "
				"(unix:///var/run/docker.sock)");
		if (strlen(path) >= sizeof(out->unix_path))
			return error_set_msg(err, -ENAMETOOLONG,
					     "Docker socket path is too long");
		snprintf(out->unix_path, sizeof(out->unix_path), "%s", path);
		snprintf(out->endpoint, sizeof(out->endpoint), "unix://%s",
			 path);
		snprintf(out->base_url, sizeof(out->base_url),
			 "http://localhost");
		snprintf(out->host_hdr, sizeof(out->host_hdr), "localhost");
		out->tls = 0;
		return 0;
	}
	if (strncmp(host, "tcp://", 6) == 0)
		hp = host + 6;
	else if (strncmp(host, "http://", 7) == 0)
		hp = host + 7;
	else
		return error_set_msg(
			err, -EPROTONOSUPPORT,
			"unsupported Docker host (want unix:///path or "
			"tcp://host:port)");
	n = strcspn(hp, "/");
	if (hp[n] && strcmp(hp + n, "/") != 0)
		return error_set_msg(err, -EINVAL,
				     "Docker host tcp:// takes no path");
	if (n == 0 || n > 255 || !valid_host_port(hp, n))
		return error_set_msg(err, -EINVAL,
				     "malformed Docker host address");
	if (tls && strncmp(host, "http://", 7) == 0)
		return error_set_msg(
			err, -EINVAL,
			"Docker host http:// cannot speak TLS (write "
			"tcp://host:port)");
	out->unix_path[0] = '\0';
	out->tls = tls;
	snprintf(out->host_hdr, sizeof(out->host_hdr), "%.*s%s", (int)n, hp,
		 has_port(hp, n) ? ""
		 : tls		 ? ":" DOCKER_DEFAULT_TLS_PORT
				 : ":" DOCKER_DEFAULT_TCP_PORT);
	snprintf(out->endpoint, sizeof(out->endpoint), "tcp://%s",
		 out->host_hdr);
	snprintf(out->base_url, sizeof(out->base_url), "%s://%s",
		 tls ? "https" : "http", out->host_hdr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* API versions                                                        */

/* Up to max decimal digits at *p into *val; returns how many (0: none). */
static int digits(const char *p, int max, long *val)
{
	int i;

	*val = 0;
	for (i = 0; p[i] >= '0' && p[i] <= '9'; i++) {
		if (i == max)
			return 0;
		*val = *val * 10 + (p[i] - '0');
	}
	return i;
}

long docker_api_version_num(const char *v)
{
	long major, minor;
	int n;

	n = digits(v, 2, &major);
	if (n == 0 || v[n] != '.')
		return -1;
	v += n + 1;
	n = digits(v, 3, &minor);
	if (n == 0 || v[n] != '\0')
		return -1;
	return major * 1000 + minor;
}

int docker_api_version_pick(const char *body, size_t len, char *out,
			    size_t outsz, char *theirs, size_t theirs_sz)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "ApiVersion");
	long ours = docker_api_version_num(DOCKER_API_VERSION_MAX);
	long num = -1;

	if (cJSON_IsString(v))
		num = docker_api_version_num(v->valuestring);
	if (num < 0) {
		cJSON_Delete(j);
		return -EPROTO;
	}
	/* Valid means at most "99.999": it fits any buffer the caller has. */
	snprintf(theirs, theirs_sz, "%s", v->valuestring);
	snprintf(out, outsz, "%s",
		 num < ours ? v->valuestring : DOCKER_API_VERSION_MAX);
	cJSON_Delete(j);
	return 0;
}

int docker_version_is_podman(const char *body, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *c;
	int podman = 0;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "Components"))
	{
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "Name");

		if (cJSON_IsString(n) &&
		    strcmp(n->valuestring, "Podman Engine") == 0)
			podman = 1;
	}
	cJSON_Delete(j);
	return podman;
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */

void docker_error_message(const char *body, size_t len, long status, char *out,
			  size_t outsz)
{
	const char *brace = len ? memchr(body, '{', len) : NULL;
	size_t n;

	if (brace) {
		cJSON *j = cJSON_ParseWithLength(brace,
						 len - (size_t)(brace - body));
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(j, "message");

		if (cJSON_IsString(m) && m->valuestring[0]) {
			snprintf(out, outsz, "%s", m->valuestring);
			cJSON_Delete(j);
			return;
		}
		cJSON_Delete(j);
	}
	while (len && (body[len - 1] == '\n' || body[len - 1] == '\r' ||
		       body[len - 1] == ' '))
		len--;
	n = len < outsz - 1 ? len : outsz - 1;
	if (n && !memchr(body, '\0', n)) {
		memcpy(out, body, n);
		out[n] = '\0';
	} else {
		snprintf(out, outsz, "HTTP status %ld", status);
	}
}

int docker_status_to_err(long status)
{
	switch (status) {
	case 400:
		return -EINVAL;
	case 401:
	case 403:
		return -EACCES;
	case 404:
		return -ENOENT;
	case 409:
		return -EBUSY;
	case 500:
		return -EIO;
	default:
		return -EPROTO;
	}
}

/* ------------------------------------------------------------------ */
/* What we send                                                        */

int docker_valid_id(const char *id)
{
	size_t i;

	for (i = 0; id[i]; i++) {
		char c = id[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-') ||
		    i >= 128)
			return 0;
	}
	return i > 0;
}

int docker_valid_method(const char *method)
{
	size_t i;

	for (i = 0; method[i]; i++)
		if (method[i] < 'A' || method[i] > 'Z' || i >= 16)
			return 0;
	return i > 0;
}

int docker_valid_path(const char *path)
{
	const unsigned char *p = (const unsigned char *)path;

	if (*p != '/')
		return 0;
	for (; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f)
			return 0;
	return 1;
}

char *docker_exec_create_body(const char *const *argv, const char *user)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *cmd = NULL;
	char *out = NULL;
	size_t i;

	if (root) {
		cJSON_AddTrueToObject(root, "AttachStdin");
		cJSON_AddTrueToObject(root, "AttachStdout");
		cJSON_AddTrueToObject(root, "AttachStderr");
		cJSON_AddFalseToObject(root, "Tty");
		if (user)
			cJSON_AddStringToObject(root, "User", user);
		cmd = cJSON_AddArrayToObject(root, "Cmd");
	}
	for (i = 0; cmd && argv[i]; i++) {
		cJSON *a = cJSON_CreateString(argv[i]);

		if (!a || !cJSON_AddItemToArray(cmd, a)) {
			cJSON_Delete(a);
			cmd = NULL;
		}
	}
	if (cmd)
		out = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	return out;
}

int docker_exec_id_parse(const char *body, size_t len, char *out, size_t outsz)
{
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "Id");
	int r = -EPROTO;

	if (cJSON_IsString(id) && strlen(id->valuestring) < outsz &&
	    docker_valid_id(id->valuestring)) {
		snprintf(out, outsz, "%s", id->valuestring);
		r = 0;
	}
	cJSON_Delete(j);
	return r;
}

/* ------------------------------------------------------------------ */
/* The hijack handshake's answer                                       */

int docker_answer_init(struct docker_answer *a)
{
	*a = (struct docker_answer){.content_length = -1};
	a->buf = malloc(DOCKER_ANSWER_HEAD_MAX + DOCKER_ANSWER_BODY_MAX + 1);
	return a->buf ? 0 : -ENOMEM;
}

void docker_answer_close(struct docker_answer *a)
{
	free(a->buf);
	a->buf = NULL;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The head, buf[0..head_end), NUL-terminated there. Every check stops at
 * the first byte that fails it, so none reads past the terminator. */
static int answer_parse_head(struct docker_answer *a)
{
	const char *h = a->buf;
	const char *v;

	if (strncmp(h, "HTTP/1.", 7) != 0 || !is_digit(h[7]) || h[8] != ' ' ||
	    !is_digit(h[9]) || !is_digit(h[10]) || !is_digit(h[11]) ||
	    (h[12] != ' ' && h[12] != '\r'))
		return -EPROTO;
	a->status = (h[9] - '0') * 100 + (h[10] - '0') * 10 + (h[11] - '0');
	if (a->status < 100 || a->status > 599)
		return -EPROTO;
	v = strcasestr(h, "\r\nContent-Length:");
	if (v)
		a->content_length = strtoll(v + 17, NULL, 10);
	v = strcasestr(h, "\r\nTransfer-Encoding:");
	if (v && strncasecmp(v + 20 + strspn(v + 20, " \t"), "chunked", 7) == 0)
		a->chunked = 1;
	return 0;
}

static int answer_body_complete(const struct docker_answer *a)
{
	const char *body = a->buf + a->head_end;
	size_t len = a->len - a->head_end;

	if (len >= DOCKER_ANSWER_BODY_MAX)
		return 1;
	if (a->content_length >= 0)
		return (long long)len >= a->content_length;
	if (a->chunked)
		return (len >= 5 && memcmp(body, "0\r\n\r\n", 5) == 0) ||
		       memmem(body, len, "\r\n0\r\n\r\n", 7) != NULL;
	return 0; /* until EOF */
}

int docker_answer_feed(struct docker_answer *a, const char *p, size_t n,
		       size_t *used)
{
	size_t room, take;

	*used = 0;
	if (a->head_end == 0) {
		size_t from = a->len > 3 ? a->len - 3 : 0;
		char *end;

		room = DOCKER_ANSWER_HEAD_MAX - a->len;
		take = n < room ? n : room;
		memcpy(a->buf + a->len, p, take);
		a->len += take;
		end = memmem(a->buf + from, a->len - from, "\r\n\r\n", 4);
		if (!end) {
			*used = take;
			return a->len == DOCKER_ANSWER_HEAD_MAX
				       ? -E2BIG
				       : DOCKER_ANSWER_MORE;
		}
		a->head_end = (size_t)(end + 4 - a->buf);
		/* Of this input, only what completes the head is taken. */
		take = a->head_end - (a->len - take);
		p += take;
		n -= take;
		*used = take;
		a->len = a->head_end;
		a->buf[a->head_end] = '\0';
		if (answer_parse_head(a) < 0)
			return -EPROTO;
		if (a->status == 101 || a->status == 200)
			return DOCKER_ANSWER_UPGRADED;
	}
	/* An error status: collect its (short) body for the message. */
	room = a->head_end + DOCKER_ANSWER_BODY_MAX - a->len;
	take = n < room ? n : room;
	memcpy(a->buf + a->len, p, take);
	a->len += take;
	*used += n;
	return answer_body_complete(a) ? DOCKER_ANSWER_REFUSED
				       : DOCKER_ANSWER_MORE;
}

int docker_answer_eof(const struct docker_answer *a)
{
	return a->head_end ? DOCKER_ANSWER_REFUSED : -ECONNRESET;
}

void docker_answer_message(const struct docker_answer *a, char *out,
			   size_t outsz)
{
	docker_error_message(a->buf + a->head_end, a->len - a->head_end,
			     a->status, out, outsz);
}
