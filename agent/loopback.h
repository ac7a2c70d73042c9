/*
 * loopback.h - exchanges with a port on the container's loopback
 * (AP_EXCHANGE): the bytes of a request (an HTTP request the host built)
 * sent to 127.0.0.1:PORT, and the answer read until the peer closes.
 *
 * What a session's background server answers reaches the host through
 * the agent's own channel: the container keeps `network: none`, nothing
 * listens on the host. The agent only moves bytes: it connects, writes,
 * reads into a buffer capped at the request's LENGTH and never parses
 * what comes back (the host does, host/core/session/http_message.h), so a
 * hostile server can send nothing the agent interprets. Several run at
 * once, beside everything else, in the one poll() loop; only a kept
 * container (a session's) takes them. One table, in statics.
 */
#ifndef SBX_LOOPBACK_H
#define SBX_LOOPBACK_H

#include <poll.h>
#include <stdint.h>

#include "agent_proto.h"

/* Exchanges at once. */
#define LB_MAX 16
/* The answer's bytes at most: default, most. */
#define LB_LENGTH_DEFAULT (1u << 20)
#define LB_LENGTH_MAX (16u << 20)
#define LB_TIMEOUT_DEFAULT_MS 30000u
#define LB_POLL_FDS LB_MAX

void lb_init(struct ap_buf *out);
/* AP_EXCHANGE; kept: the container is a session's. Answered now (a
 * refusal) or once the exchange ends. */
void lb_start(const struct ap_frame *f, int kept);
int lb_poll_fill(struct pollfd *pfd);
void lb_poll_done(const struct pollfd *pfd, int n);
uint64_t lb_deadline(void);
/* The exchanges whose time is up end with what they read. */
void lb_step(void);
/* AP_CANCEL of an exchange (its id): dropped, unanswered (the host has
 * given up on it). */
void lb_cancel(uint32_t id);
/* The connection went: every exchange is dropped, unanswered. */
void lb_drop_all(void);

#endif
