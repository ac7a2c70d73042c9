/*
 * collect.h - a run's files read back through the agent before its box is
 * reset or its session's next call starts (executor.h, struct
 * exec_collect): the images a result shows, and a one-off box's files the
 * artifact store keeps.
 *
 * Files are read one after another with AP_FILE read requests of `chunk`
 * bytes, so a large one never needs a frame of its own size; the agent
 * resolves each path beneath /work as the sandbox user, so a symlink the
 * code planted reads as the link's refusal, never as its target. Every
 * request carries the agent's own deadline (agent_client_file()).
 */
#ifndef SBX_COLLECT_H
#define SBX_COLLECT_H

#include <stddef.h>

#include "error.h"
#include "executor.h"

struct agent_client;
struct collect;

/* err NULL: every file wanted was read, or listed as not read, or the
 * collection was stopped. err set (a negative errno): the connection
 * failed, the agent cannot be trusted any more (the files read before it
 * are kept). */
typedef void (*collect_done_cb)(struct collect *c, const struct error *err,
				void *arg);

/* The artifacts of one run from the agent's packed entries (copied), with
 * what pol wants read marked. NULL when out of memory. */
struct collect *collect_new(const struct exec_collect *pol,
			    const unsigned char *entries, size_t len);
/* The list (valid until collect_free()). */
const struct exec_artifact *collect_list(const struct collect *c, size_t *n);
/* 1 when some file is to be read. */
int collect_pending(const struct collect *c);
/* Start reading: 1 and cb runs once, later; 0 when nothing is to be read
 * (cb never runs); or a negative errno when the first request could not be
 * sent (cb never runs, the connection is suspect). */
int collect_run(struct collect *c, struct agent_client *ac, collect_done_cb cb,
		void *arg);
/* Read nothing more: cb runs when the request on the way is answered. */
void collect_stop(struct collect *c);
void collect_free(struct collect *c);

#endif
