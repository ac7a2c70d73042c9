/*
 * log.c - the agent's log lines (log.h).
 */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "sbx-agent: "

void agent_log(const char *fmt, ...)
{
	char line[512];
	size_t plen = sizeof(PREFIX) - 1;
	va_list ap;
	int n;

	memcpy(line, PREFIX, plen);
	va_start(ap, fmt);
	n = vsnprintf(line + plen, sizeof(line) - plen - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += (int)plen;
	if ((size_t)n > sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	line[n++] = '\n';
	if (write(2, line, (size_t)n) < 0) {
		/* nowhere else to say it */
	}
}
