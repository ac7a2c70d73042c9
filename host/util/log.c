/*
 * log.c - leveled logging to stderr, optionally mirrored to an MCP sink.
 */
#include "log.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static enum log_level g_level = LOG_LEVEL_INFO;
static log_sink_cb g_sink;
static void *g_sink_arg;
static int g_in_sink; /* the sink may log; never recurse into it */

static const char *const names[] = {
	"debug", "info",     "notice", "warning",
	"error", "critical", "alert",  "emergency",
};

void log_set_level(enum log_level level)
{
	g_level = level;
}

enum log_level log_get_level(void)
{
	return g_level;
}

void log_set_sink(log_sink_cb cb, void *arg)
{
	g_sink = cb;
	g_sink_arg = arg;
}

int log_level_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	if (strcmp(name, "warn") == 0)
		return LOG_LEVEL_WARNING;
	return -1;
}

const char *log_level_name(enum log_level level)
{
	if ((unsigned)level >= sizeof(names) / sizeof(names[0]))
		return "info";
	return names[level];
}

void log_vwrite(enum log_level level, const char *logger, const char *fmt,
		va_list ap)
{
	char msg[2048];
	struct timespec ts;
	struct tm tm;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (level >= g_level) {
		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		fprintf(stderr, "%02d:%02d:%02d.%03ld %-7s %s: %s\n",
			tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
			log_level_name(level), logger, msg);
	}
	if (g_sink && !g_in_sink) {
		g_in_sink = 1;
		g_sink(level, logger, msg, g_sink_arg);
		g_in_sink = 0;
	}
}

void log_write(enum log_level level, const char *logger, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(level, logger, fmt, ap);
	va_end(ap);
}

void iso_time_ms(int64_t ms, char *buf, size_t size)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}
