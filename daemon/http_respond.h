/* http_respond.h — how every answer leaves: the headers all of them carry, then queued. Shared by
 * the routes in http.c and http_history.c. */
#ifndef PW_HTTP_RESPOND_H
#define PW_HTTP_RESPOND_H

#include <microhttpd.h>
#include <stddef.h>

/* The headers every answer carries, whatever its status (an error, a 401 or 429 too): the page may
 * be framed by no one (Content-Security-Policy: frame-ancestors 'none', added to a policy resp
 * already has, such as /ui's) and is never sniffed as another type (X-Content-Type-Options:
 * nosniff). */
void pw_http_safety_headers(struct MHD_Response *resp);

/* Add Content-Type, Content-Encoding (when encoding is not NULL), Cache-Control: no-store (and
 * Allow for a 405) and the safety headers to resp, queue it with status and drop this reference to
 * it. */
enum MHD_Result pw_http_queue(struct MHD_Connection *conn, unsigned status, struct MHD_Response *resp,
                              const char *type, const char *encoding);

/* Answer with a copy of body. */
enum MHD_Result pw_http_respond(struct MHD_Connection *conn, unsigned status, const char *type,
                                const char *body, size_t len, const char *encoding);

#endif
