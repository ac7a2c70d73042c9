/*
 * log.h - leveled logging to stderr (never stdout: stdout is the MCP stream).
 *
 * A sink can be installed so that records at or above the client's chosen
 * level are also forwarded as MCP notifications/message.
 */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum log_level {
	LOG_LEVEL_DEBUG = 0,
	LOG_LEVEL_INFO,
	LOG_LEVEL_NOTICE,
	LOG_LEVEL_WARNING,
	LOG_LEVEL_ERROR,
	LOG_LEVEL_CRITICAL,
	LOG_LEVEL_ALERT,
	LOG_LEVEL_EMERGENCY,
};

typedef void (*log_sink_cb)(enum log_level level, const char *logger,
			    const char *msg, void *arg);

void log_set_level(enum log_level level); /* stderr threshold */
enum log_level log_get_level(void);
void log_set_sink(log_sink_cb cb, void *arg);
/* "debug", "info", ... (MCP/syslog names); returns -1 if unknown. */
int log_level_parse(const char *name);
const char *log_level_name(enum log_level level);

/* Unix milliseconds as "2026-11-22T06:30:00.123Z" (UTC). */
void iso_time_ms(int64_t ms, char *buf, size_t size);

void log_write(enum log_level level, const char *logger, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_vwrite(enum log_level level, const char *logger, const char *fmt,
		va_list ap);

#define log_debug(...) log_write(LOG_LEVEL_DEBUG, LOG_MODULE, __VA_ARGS__)
#define log_info(...) log_write(LOG_LEVEL_INFO, LOG_MODULE, __VA_ARGS__)
#define log_notice(...) log_write(LOG_LEVEL_NOTICE, LOG_MODULE, __VA_ARGS__)
#define log_warn(...) log_write(LOG_LEVEL_WARNING, LOG_MODULE, __VA_ARGS__)
#define log_error(...) log_write(LOG_LEVEL_ERROR, LOG_MODULE, __VA_ARGS__)

#endif
