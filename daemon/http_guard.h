/* http_guard.h — a deadline for receiving each request. libmicrohttpd's connection timeout is an
 * idle timeout: a client that trickles one header byte a second (slowloris) never trips it and
 * holds its connection, and its per-IP slot, forever. The guard gives every connection
 * `timeout` to deliver a whole request (the TLS handshake included), from its accept or from the
 * end of its previous response, and shuts down the socket of any that does not; libmicrohttpd
 * then sees the hang-up and closes it. Sending a response is left to the idle timeout.
 *
 * The pw_guard_conn_* calls come from libmicrohttpd's thread; the guard's own thread only
 * shutdown()s sockets still registered, under the same lock, so it never touches a reused fd. */
#ifndef PW_HTTP_GUARD_H
#define PW_HTTP_GUARD_H

#include <stdint.h>

struct pw_guard;
struct pw_guard_conn;

/* Start the guard's thread. NULL on failure (errno set). */
struct pw_guard *pw_guard_new(int64_t timeout_ns);

/* Stop the thread and free what is left; call after the HTTP server stopped. Accepts NULL. */
void pw_guard_free(struct pw_guard *g);

/* A connection on fd was accepted: returns its record (NULL when out of memory: not guarded). */
struct pw_guard_conn *pw_guard_conn_started(struct pw_guard *g, int fd);
/* Its request has arrived whole: no deadline while it is answered. Accepts NULL. */
void pw_guard_conn_request_done(struct pw_guard *g, struct pw_guard_conn *c);
/* Its response was sent: the next request has `timeout` from now. Accepts NULL. */
void pw_guard_conn_response_done(struct pw_guard *g, struct pw_guard_conn *c);
/* It is being closed (before its fd is): forget and free the record. Accepts NULL. */
void pw_guard_conn_closed(struct pw_guard *g, struct pw_guard_conn *c);

/* Connections shut down for missing their deadline, since start. */
uint64_t pw_guard_cut(const struct pw_guard *g);

#endif
