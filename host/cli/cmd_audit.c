/*
 * cmd_audit.c - `mcp-sandbox audit verify | head`: the audit log's hash
 * chain checked from the command line (core/records/audit.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "commands.h"
#include "core/records/audit.h"

/* The verdict of audit verify, what it checked and what it could not. */
static void audit_report(const struct audit_verdict *v, size_t nfiles,
			 const char *log, char *const *files,
			 const struct audit_anchor *anchor)
{
	if (!v->ok) {
		if (v->line)
			printf("audit: the chain breaks at %s:%zu: %s\n",
			       v->file, v->line, v->reason);
		else
			printf("audit: the chain breaks at the end of %s: %s\n",
			       v->file, v->reason);
		return;
	}
	printf("audit: the chain holds: %zu lines in %zu file(s)", v->lines,
	       nfiles);
	if (v->lines)
		printf(", seq %" PRIu64 " to %" PRIu64, v->first_seq,
		       v->last_seq);
	printf("\n");
	if (!v->lines)
		return;
	if (v->start == AUDIT_START_FIRST)
		printf("audit: start: seq 1, the first line of the chain\n");
	else if (v->start == AUDIT_START_ROTATED)
		printf("audit: start: right after the last line rotated away "
		       "(seq %" PRIu64 ", as the .head records it)\n",
		       v->first_seq - 1);
	else
		printf("audit: start: not checked: %s follows seq %" PRIu64
		       " of a file not given (give the files before it, or "
		       "no FILE for the whole log)\n",
		       files[0], v->first_seq - 1);
	if (v->end_checked)
		printf("audit: end: the head the server recorded (%s.head)\n",
		       log ? log : files[nfiles - 1]);
	else
		printf("audit: end: not checked: no .head beside %s (a rotated "
		       "file; the next file checks its end); --anchor checks "
		       "a head kept elsewhere\n",
		       files[nfiles - 1]);
	if (anchor)
		printf("audit: anchor %" PRIu64
		       ": found, with the anchor's hash\n",
		       anchor->seq);
	printf("audit: head %" PRIu64 ":%s\n", v->last_seq, v->head);
}

/* mcp-sandbox audit verify [--anchor SEQ:HASH] [FILE...]: check the audit
 * log's chain (the configured log and its rotated files, oldest first,
 * anchored at both ends; or the files given, in that order, as far as they
 * allow). Exit 0 when it holds, 1 where it breaks.
 * mcp-sandbox audit head [FILE...]: print the last line's seq:hash, for
 * keeping outside the state directory. */
int cmd_audit(struct app *a, int argc, char **argv)
{
	struct audit_verdict v;
	struct audit_anchor anchor, *an = NULL;
	char path[PATH_MAX], **files = NULL;
	const char *log = NULL;
	size_t n;
	int rc, i = 1, head;

	if (a->loaded)
		return 1;
	if (argc < 1 ||
	    (strcmp(argv[0], "verify") != 0 && strcmp(argv[0], "head") != 0)) {
		cli_usage(stderr);
		return 2;
	}
	head = strcmp(argv[0], "head") == 0;
	/* --anchor anywhere among the files (argv is ours to reorder) */
	for (int k = 1; k < argc; k++) {
		if (head || strcmp(argv[k], "--anchor") != 0) {
			argv[i++] = argv[k];
			continue;
		}
		if (k + 1 >= argc || audit_anchor_parse(argv[++k], &anchor)) {
			fprintf(stderr, "audit: --anchor takes SEQ:HASH, as "
					"`mcp-sandbox audit head` prints it "
					"(a seq from 1 and 64 hex digits)\n");
			return 2;
		}
		an = &anchor;
	}
	argc = i;
	i = 1;
	if (argc > i) {
		files = argv + i;
		n = (size_t)(argc - i);
	} else {
		if (audit_config_path(&a->cfg, path, sizeof(path))) {
			fprintf(stderr, "audit: the audit log is off "
					"([audit] file = none)\n");
			return 2;
		}
		n = audit_files(path, a->cfg.audit_keep, &files);
		if (!n) {
			fprintf(stderr, "audit: no log at %s\n", path);
			audit_files_free(files, n);
			return 2;
		}
		log = path;
	}
	if (head) {
		rc = audit_last(files, n, &anchor);
		if (rc)
			fprintf(stderr, "audit: %s\n",
				rc == -ENOENT ? "the log has no line yet"
					      : strerror(-rc));
		else
			printf("%" PRIu64 ":%s\n", anchor.seq, anchor.hash);
		if (log)
			audit_files_free(files, n);
		return rc ? 2 : 0;
	}
	rc = audit_verify(files, n,
			  &(struct audit_verify_opts){.log = log, .anchor = an},
			  &v);
	if (rc)
		fprintf(stderr, "audit: cannot read the log: %s\n",
			strerror(-rc));
	else
		audit_report(&v, n, log, files, an);
	if (log)
		audit_files_free(files, n);
	return rc ? 2 : v.ok ? 0 : 1;
}
