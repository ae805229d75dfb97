/* http_respond.h — how every answer leaves: the headers all of them carry, then queued. Shared by
 * the routes in http.c and http_history.c. */
#ifndef PW_HTTP_RESPOND_H
#define PW_HTTP_RESPOND_H

#include <microhttpd.h>
#include <stddef.h>

/* Add Content-Type, Content-Encoding (when encoding is not NULL), Cache-Control: no-store (and
 * Allow for a 405) to resp, queue it with status and drop this reference to it. */
enum MHD_Result pw_http_queue(struct MHD_Connection *conn, unsigned status, struct MHD_Response *resp,
                              const char *type, const char *encoding);

/* Answer with a copy of body. */
enum MHD_Result pw_http_respond(struct MHD_Connection *conn, unsigned status, const char *type,
                                const char *body, size_t len, const char *encoding);

#endif
