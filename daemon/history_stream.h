/* history_stream.h — a /history answer handed to libmicrohttpd while the history thread is still
 * making it: the history thread pushes chunks, MHD's thread sends each as it comes (chunked
 * encoding) and waits for the next with the connection suspended. The render and the send overlap:
 * a 16-CPU hour is 4 MB, and sending it after the render took a fifth of the answer's time. */
#ifndef PW_HISTORY_STREAM_H
#define PW_HISTORY_STREAM_H

#include "outbuf.h"

#include <microhttpd.h>
#include <stdbool.h>

struct pw_history_stream;

/* A stream for conn (suspended, its answer not queued yet) and, in *ret_resp, the response that
 * reads it, for the caller to queue. NULL when out of memory. */
struct pw_history_stream *pw_history_stream_new(struct MHD_Connection *conn, struct MHD_Response **ret_resp);

/* Append out's bytes to the answer: its buffer is taken over and out left empty. Returns 0;
 * -EPIPE when the response is gone (the client hung up, or asked with HEAD): stop making it. */
int pw_history_stream_push(struct pw_history_stream *s, struct pw_outbuf *out);

/* The answer is complete, or (failed) cut short: the connection is closed without its last chunk,
 * so the client sees the error. The writer's last call. */
void pw_history_stream_end(struct pw_history_stream *s, bool failed);

#endif
