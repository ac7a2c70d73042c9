/*
 * error.h - the one way a failure travels from the engine to a tool.
 *
 * A failure is a negative int code, as in libuv: either a negative errno
 * (from the system, libcurl's transport, the agent connection) or one of the
 * ERR_* codes below, each with a stable machine-readable name and a default
 * message. Where there is more to say than the code ("timeout 900000 ms is
 * above this server's limit of 300000 ms", the daemon's own words), a
 * struct error carries the code and a message written by the function that
 * detected the failure (crun's habit); callers pass it on, or wrap it in
 * their own with the same code.
 *
 * Three rules, the same in host/, agent/ and common/ (docs/architecture.md,
 * contracts 2 and 3):
 *  - Errors. A function that can fail returns 0 (or a pointer, or a count)
 *    and, on failure, the negative code (or NULL). When it has more to say
 *    than the code it fills `struct error *err`, always its last parameter,
 *    which may be NULL, with error_set() or error_set_msg() (they return
 *    the code: `return error_set(err, ERR_X, "...")`). No char *why buffer
 *    with its size, no const char ** to static text.
 *  - Callbacks. `void x_cb(<the object it is about, if any>, const struct
 *    error *err, <results>, void *arg)`: err is NULL on success and
 *    borrowed for the duration of the call. An int among the results is a
 *    result (engines_up_cb's first, doctor_cb's ok), never a failure.
 *  - Cancellation. An operation that can be cancelled hands its caller a
 *    handle the module owns, valid until the operation's callback has run;
 *    x_cancel(handle) cancels it. Work started for the caller then ends
 *    through its callback, once, with ERR_CANCELLED; a wait withdrawn
 *    before anything was done for it (a box, a raw Docker request) does not
 *    call back. Nothing is looked up by (callback, argument).
 *
 * The mapping from codes to what the MCP client sees lives in exactly one
 * place: tool_error_result() in host/mcp/tools/tools.c. The agent (agent/)
 * follows the same convention; the messages it fills go to the host in
 * AP_ERROR.
 */
#ifndef SBX_ERROR_H
#define SBX_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define ERROR_MSG_MAX 1024

/* X(symbol, name, default message). The names are the `code` of a tool
 * error result and are part of the public interface: never rename one. */
#define ERROR_CODES(X)                                                         \
	X(UNKNOWN_LANGUAGE, "unknown_language", "unknown language")            \
	X(INVALID_ARGUMENTS, "invalid_arguments", "invalid arguments")         \
	X(CODE_TOO_LARGE, "code_too_large", "the code is too large")           \
	X(CODE_BLOCKED, "code_blocked", "the code was rejected by policy")     \
	X(CODE_REJECTED, "code_rejected", "the plugin rejected the code")      \
	X(PLUGIN, "plugin_error", "the language plugin failed")                \
	X(DOCKER_UNAVAILABLE, "docker_unavailable",                            \
	  "the Docker engine cannot be reached")                               \
	X(IMAGE_MISSING, "image_missing", "the language's image is not built") \
	X(SANDBOX, "sandbox_error", "the sandbox container failed")            \
	X(SANDBOX_TIMEOUT, "sandbox_error",                                    \
	  "the sandbox did not answer within its timeout")                     \
	X(SERVER_BUSY, "server_busy", "the server is busy")                    \
	X(SHUTTING_DOWN, "shutting_down", "the server is shutting down")       \
	X(CANCELLED, "cancelled", "the execution was cancelled")               \
	X(SESSION_NOT_FOUND, "session_not_found", "no such session")           \
	X(SESSION_EXISTS, "session_exists", "a session of that name exists")   \
	X(SESSION_PAUSED, "session_paused", "the session is paused")           \
	X(SESSION_BUSY, "session_busy", "the session is busy")                 \
	X(SESSION_DESTROYED, "session_destroyed", "the session was destroyed") \
	X(SESSION_LOST, "session_lost", "the session's container was lost")    \
	X(SESSION_UNAVAILABLE, "session_unavailable",                          \
	  "the session's language is not loaded by this server")               \
	X(MAX_SESSIONS, "max_sessions", "too many sessions")                   \
	X(INVALID_NAME, "invalid_name", "invalid session name")                \
	X(LANGUAGE_MISMATCH, "language_mismatch",                              \
	  "the session runs another language")                                 \
	X(NOT_FOUND, "not_found", "no such file or directory")                 \
	X(FILE_EXISTS, "file_exists", "the file exists")                       \
	X(INVALID_PATH, "invalid_path", "the path is not allowed")             \
	X(TOO_LARGE, "too_large", "too large")                                 \
	X(NOT_A_FILE, "not_a_file", "not a regular file")                      \
	X(NOT_A_DIRECTORY, "not_a_directory", "not a directory")               \
	X(DIRECTORY_NOT_EMPTY, "directory_not_empty",                          \
	  "the directory is not empty")                                        \
	X(PERMISSION_DENIED, "permission_denied", "permission denied")         \
	X(NO_SPACE, "no_space", "the work directory is full")                  \
	X(FILES_ROOT_NOT_SET, "files_root_not_set",                            \
	  "no host directory is allowed for export and import")                \
	X(INVALID_PACKAGE, "invalid_package", "not a package spec")            \
	X(INSTALL_FAILED, "install_failed", "the install failed")              \
	X(REGISTRY_UNREACHABLE, "registry_unreachable",                        \
	  "a package registry cannot be reached")                              \
	X(INSTALLS_DISABLED, "installs_disabled",                              \
	  "package installs are turned off ([packages] network = none)")       \
	X(NO_INSTALLER, "no_installer", "this language installs no packages")  \
	X(AUDIT_OFF, "audit_off", "the audit log is off")                      \
	X(QUOTA_EXCEEDED, "quota_exceeded",                                    \
	  "a quota of this tenant is used up")                                 \
	X(PROCESS_NOT_FOUND, "process_not_found",                              \
	  "no such background process in the session")                         \
	X(MAX_PROCESSES, "max_processes",                                      \
	  "the session runs as many background processes as it may")           \
	X(PORT_CLOSED, "port_closed",                                          \
	  "nothing in the session listens on that port")                       \
	X(SNAPSHOT_NOT_FOUND, "snapshot_not_found", "no such snapshot")        \
	X(SNAPSHOT_CORRUPT, "snapshot_corrupt",                                \
	  "the snapshot's files do not match their hash")                      \
	X(SNAPSHOT_INCOMPATIBLE, "snapshot_incompatible",                      \
	  "the snapshot was taken with another language or image")

/* Far below any errno, so the two ranges never meet. */
#define ERR_FIRST (-20000)

enum error_code {
	ERR_BEFORE_FIRST = ERR_FIRST + 1,
#define ERROR_ENUM(sym, name, msg) ERR_##sym,
	ERROR_CODES(ERROR_ENUM)
#undef ERROR_ENUM
		ERR_AFTER_LAST
};

struct error {
	int code; /* 0 or negative */
	char msg[ERROR_MSG_MAX];
};

/* The stable name of code: "session_busy" for ERR_SESSION_BUSY, "ENOMEM"
 * style errno names for negative errno ("EUNKNOWN" if unknown). */
const char *error_name(int code);
/* The default message of code (strerror() for errno codes). */
const char *error_default_message(int code);
/* 1 if code is one of ERR_*. */
int error_is_ours(int code);

/* Fill *e (if not NULL) with code and a printf-style message (the code's
 * default message when fmt is NULL). Returns code, so that a failing
 * function can `return error_set(err, ERR_X, "...")`. */
int error_set(struct error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int error_vset(struct error *e, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* The same with msg as it is: the daemon's or a peer's words, which may be
 * NULL or empty (then the code's default message). */
int error_set_msg(struct error *e, int code, const char *msg);
/* The ERR_* of a failed file operation's errno (ENOENT: ERR_NOT_FOUND,
 * EXDEV and ELOOP: ERR_INVALID_PATH, ...); ERR_SANDBOX for the rest. */
int error_file_code(int errnum);

#endif
