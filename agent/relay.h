/*
 * relay.h - reaching the agent again after the host that started the
 * container has gone (a session's server restarted).
 *
 * The first host talks to the agent over the container's stdin and stdout
 * (docker attach). A later host cannot reuse that stream safely: its
 * predecessor may have died half-way through a frame. So the agent also
 * listens on an abstract unix socket, and a new host runs `sbx-agent relay`
 * with docker exec (as root): the relay connects to the socket and copies
 * bytes both ways. Each connection starts with a clean frame reader; the
 * agent serves the newest one. Only root may connect (SO_PEERCRED): user
 * code runs as uid 1000 in the same network namespace.
 */
#ifndef SBX_RELAY_H
#define SBX_RELAY_H

/* The listening socket (non-blocking, close-on-exec), or a negative
 * errno. */
int relay_listen(void);

/* Accept one connection from root; -1 when there is none or it was
 * refused (logged). */
int relay_accept(int listen_fd);

/* `sbx-agent relay`: copy stdin to the agent's socket and the socket to
 * stdout until either side ends. Returns the process exit status. */
int relay_main(void);

#endif
