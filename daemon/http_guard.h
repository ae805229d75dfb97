/* http_guard.h — a deadline for receiving each request. libmicrohttpd's connection timeout is an
 * idle timeout: a client that trickles one header byte a second (slowloris) never trips it and
 * holds its connection, and its per-IP slot, forever. The guard gives every connection
 * `timeout` to deliver a whole request (the TLS handshake included), from its accept or from the
 * end of its previous response, and shuts down the socket of any that does not; libmicrohttpd
 * then sees the hang-up and closes it. Sending a response is left to the idle timeout. When 7/8
 * of the connection limit is in use, a kept-alive connection is closed as soon as its response
 * went out, so a flood of connections cannot keep new clients queued for a whole timeout each.
 *
 * The callbacks run on libmicrohttpd's threads; the guard's own thread only
 * shutdown()s sockets still registered, under the same lock, so it never touches a reused fd. */
#ifndef PW_HTTP_GUARD_H
#define PW_HTTP_GUARD_H

#include <microhttpd.h>
#include <stdint.h>

struct pw_guard;

/* Start the guard's thread for a server of max_connections. NULL on failure (errno set). */
struct pw_guard *pw_guard_new(int64_t timeout_ns, unsigned max_connections);

/* Stop the thread and free what is left; call after the HTTP server stopped. Accepts NULL. */
void pw_guard_free(struct pw_guard *g);

/* MHD_OPTION_NOTIFY_CONNECTION callback, the guard as its closure: a connection accepted gets its
 * deadline; one being closed (before its fd is) is forgotten. */
void pw_guard_on_connection(void *guard, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code);

/* MHD_OPTION_NOTIFY_COMPLETED callback, the guard as its closure: a response went out, so the
 * kept-alive connection's next request has `timeout` from now. */
void pw_guard_on_completed(void *guard, struct MHD_Connection *conn, void **state,
                           enum MHD_RequestTerminationCode code);

/* From the access handler: the connection's request is in whole; no deadline while it is answered. */
void pw_guard_request_received(struct pw_guard *g, struct MHD_Connection *conn);

/* Connections shut down since the start: past their deadline (cut) and idle kept-alive ones near
 * the connection limit (shed). Lock-free; any thread. */
void pw_guard_stats(struct pw_guard *g, uint64_t *ret_cut, uint64_t *ret_shed);

#endif
