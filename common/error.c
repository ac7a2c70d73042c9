/*
 * error.c - names and messages of the error codes (error.h).
 */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct entry {
	const char *name, *msg;
};

static const struct entry table[] = {
#define ERROR_ENTRY(sym, name, msg) {name, msg},
	ERROR_CODES(ERROR_ENTRY)
#undef ERROR_ENTRY
};

int error_is_ours(int code)
{
	return code > ERR_BEFORE_FIRST && code < ERR_AFTER_LAST;
}

static const struct entry *lookup(int code)
{
	return error_is_ours(code) ? &table[code - ERR_BEFORE_FIRST - 1] : NULL;
}

const char *error_name(int code)
{
	const struct entry *e = lookup(code);
	const char *n;

	if (e)
		return e->name;
	n = code < 0 ? strerrorname_np(-code) : NULL;
	return n ? n : "EUNKNOWN";
}

const char *error_default_message(int code)
{
	const struct entry *e = lookup(code);

	if (e)
		return e->msg;
	return code < 0 ? strerror(-code) : "no error";
}

int error_vset(struct error *e, int code, const char *fmt, va_list ap)
{
	if (!e)
		return code;
	e->code = code;
	if (fmt)
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	else
		snprintf(e->msg, sizeof(e->msg), "%s",
			 error_default_message(code));
	return code;
}

int error_set(struct error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(e, code, fmt, ap);
	va_end(ap);
	return code;
}

int error_set_msg(struct error *e, int code, const char *msg)
{
	return msg && *msg ? error_set(e, code, "%s", msg)
			   : error_set(e, code, NULL);
}

int error_file_code(int errnum)
{
	switch (errnum) {
	case ENOENT:
		return ERR_NOT_FOUND;
	case EEXIST:
		return ERR_FILE_EXISTS;
	case EXDEV:
	case ELOOP:
	case EINVAL:
	case ENAMETOOLONG:
		return ERR_INVALID_PATH;
	case EISDIR:
		return ERR_NOT_A_FILE;
	case ENOTDIR:
		return ERR_NOT_A_DIRECTORY;
	case ENOTEMPTY:
		return ERR_DIRECTORY_NOT_EMPTY;
	case EACCES:
	case EPERM:
	case EROFS:
		return ERR_PERMISSION_DENIED;
	case ENOSPC:
	case EDQUOT:
		return ERR_NO_SPACE;
	case EFBIG:
		return ERR_TOO_LARGE;
	default:
		return ERR_SANDBOX;
	}
}
