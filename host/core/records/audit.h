/*
 * audit.h - the hash-chained audit log (docs/security.md, "The audit
 * log").
 *
 * One JSON object a line: what happened (a tool call and its outcome, an
 * install, a session's end, a limit hit, a refused destination...), when,
 * by which server instance for which client, with a SHA-256 of the code
 * (the code itself only with [audit] store_code), and "prev": the SHA-256
 * of the line before it. Editing, removing or reordering a line breaks the
 * chain at the next one, which `mcp-sandbox audit verify` names. A file
 * past [audit] max_kb is renamed <file>.1 (older ones shift up to
 * [audit] keep) and the chain goes on in a new file. Both ends are
 * anchored: the first line kept is seq 1 or follows the lines rotated
 * away (<file>.head records them), the last is the .head's, and a head
 * kept outside the state directory (audit_anchor) checks the rest.
 *
 * Lines are hashed and queued on the loop (the chain's order is the order
 * of events); they reach the file from the thread pool.
 */
#ifndef SBX_CORE_AUDIT_H
#define SBX_CORE_AUDIT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "core/plugins/config.h"
#include "error.h"

#define AUDIT_HASH_HEX 64

struct audit;

/*
 * Open the log the configuration names ([audit] file, default
 * <state_dir>/audit.log) and take the chain up where the file leaves it.
 * *out is NULL when auditing is off ("none"). Returns 0, or a negative
 * errno with err (the server then runs without an audit log, and says
 * so).
 */
int audit_open(uv_loop_t *loop, const struct config *cfg, const char *instance,
	       struct audit **out, struct error *err);

/* The file the configuration names (without opening it): 0, or -ENOENT
 * when auditing is off. */
int audit_config_path(const struct config *cfg, char *buf, size_t size);

/* The file of this log ("" when a is NULL). */
const char *audit_path(const struct audit *a);

/* Append ev (taken; NULL a: dropped): "time", "instance", "seq" and
 * "prev" are added. Never blocks. */
void audit_event(struct audit *a, cJSON *ev);

/* Set "client" on every later event (the client's name and version). */
void audit_set_client(struct audit *a, const char *client);

/* Whether code itself goes into events ([audit] store_code). */
int audit_stores_code(const struct audit *a);

/* cb(arg) runs from the loop once every event so far is in the file (at
 * once when it is). */
void audit_flush(struct audit *a, void (*cb)(void *arg), void *arg);

/* Rotated files kept ([audit] keep). */
unsigned audit_keep(const struct audit *a);

/* Write what is queued, then free a (NULL ok). done(arg) runs from the
 * loop once it is written (at once for NULL). */
void audit_close(struct audit *a, void (*done)(void *arg), void *arg);

/* ---- reading (blocking: the CLI, or the thread pool) ---- */

/* The files of the log whose current file is path, oldest first
 * (path.<keep> ... path.1, path), those that exist. Returns the count;
 * free with audit_files_free. */
size_t audit_files(const char *path, unsigned keep, char ***out);
void audit_files_free(char **files, size_t n);

/* A line of the chain as an operator keeps it outside the state directory
 * (`mcp-sandbox audit head`, the server's log at start and stop): its seq
 * and the SHA-256 of the line, written "seq:hash". */
struct audit_anchor {
	uint64_t seq;
	char hash[AUDIT_HASH_HEX + 1];
};

/* "seq:hash" (64 hex digits) into a; 0, or -EINVAL. */
int audit_anchor_parse(const char *s, struct audit_anchor *a);

/* How the first line of the files checked is tied down. */
enum audit_start {
	AUDIT_START_OPEN = 0, /* not checked: it follows a line not given */
	AUDIT_START_FIRST,    /* seq 1 with an all-zero prev */
	AUDIT_START_ROTATED,  /* follows the last line rotated away, as the
				 .head records it */
};

struct audit_verify_opts {
	/* The log's current file when files are the whole log
	 * (audit_files): then its .head must be there and match the last
	 * line, the first line must be seq 1 or follow the lines rotated
	 * away, and no file of the rotation may be missing. NULL for files
	 * given by hand: the ends are checked as far as the files allow
	 * (audit_verdict.start, .end). */
	const char *log;
	const struct audit_anchor *anchor; /* the chain must hold it, or NULL */
};

struct audit_verdict {
	int ok;
	size_t lines;	  /* lines checked */
	char file[512];	  /* where the chain first breaks */
	size_t line;	  /* 1-based, in file (0: at its end, or no line) */
	char reason[512]; /* why */
	uint64_t first_seq, last_seq;
	char head[AUDIT_HASH_HEX + 1]; /* the hash of the last line */
	enum audit_start start;
	int end_checked; /* the last line matched a .head */
	int anchored;	 /* the anchor's line is there with its hash */
};

/* Check the chain across files (in order), as o says (NULL: files given
 * by hand, no anchor). 0 with v filled (v->ok says whether it holds), or
 * a negative errno when a file cannot be read. */
int audit_verify(char *const *files, size_t n,
		 const struct audit_verify_opts *o, struct audit_verdict *v);

/* The last line of files (the newest non-empty file): 0 with *a filled,
 * -ENOENT when every file is empty, or a negative errno. */
int audit_last(char *const *files, size_t n, struct audit_anchor *a);

/* Where the chain of a stands (its last line, "0:000..." before any):
 * for the server's log at start and stop. */
void audit_head(const struct audit *a, struct audit_anchor *out);

/* The events of files (in order) with time >= since (ISO 8601, "" for
 * all) that pass filter ("violations": only those; NULL: all) and are
 * tenant's (audit_of_tenant; NULL: every event): at most limit, the
 * newest. Returns a JSON array (caller frees), NULL on error. */
cJSON *audit_read(char *const *files, size_t n, const char *since,
		  const char *filter, const char *tenant, size_t limit);

/* 1 if ev concerns tenant: its "tenant" is tenant, or its "session" is
 * one of tenant's ("<tenant>.<name>", tenants.h). */
int audit_of_tenant(const cJSON *ev, const char *tenant);

/* 1 if ev is a violation: code refused by policy, a destination the
 * egress proxy refused, a memory or time limit hit, a process killed by
 * the seccomp filter. */
int audit_is_violation(const cJSON *ev);

/* SHA-256 of len bytes as 64 lowercase hex digits and a NUL. */
void audit_sha256_hex(const void *data, size_t len,
		      char out[AUDIT_HASH_HEX + 1]);

#endif
