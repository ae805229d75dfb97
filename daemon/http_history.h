/* http_history.h — GET /history (the in-memory history as JSON or CSV) and GET /ui (the built-in
 * page that plots it), for http.c's router. Served from the sampler's rings and the detector's
 * view on MHD's one polling thread: the sampler is never blocked. */
#ifndef PW_HTTP_HISTORY_H
#define PW_HTTP_HISTORY_H

#include "detector_thread.h"
#include "sampler.h"
#include "transitions.h"

#include <microhttpd.h>
#include <stdbool.h>

struct pw_http_history;

/* Serve from sampler and detector_thread (borrowed; must outlive it). NULL on allocation failure. */
struct pw_http_history *pw_http_history_new(const struct pw_sampler *sampler,
                                            const struct pw_detector_thread *detector_thread,
                                            int64_t interval_ns, int64_t history_ns);
void pw_http_history_free(struct pw_http_history *hh); /* accepts NULL */

/* Take alert transitions from log (borrowed; NULL: only the active alerts' are known). */
void pw_http_history_set_transitions(struct pw_http_history *hh, const struct pw_transitions *log);

/* Serve what the ring no longer holds from the history store in dir (copied; NULL: none).
 * Returns 0 or -ENOMEM. */
int pw_http_history_set_store(struct pw_http_history *hh, const char *dir);

/* MHD's thread: answer GET /history on conn (200, 400 naming what is wrong, 500). */
enum MHD_Result pw_http_history_serve(struct pw_http_history *hh, struct MHD_Connection *conn);

/* The page, compiled in (ui/perfwatch.html); and whether an Accept header prefers HTML, as a browser
 * opening "/" does. */
enum MHD_Result pw_http_ui_serve(struct MHD_Connection *conn);
bool pw_http_ui_wanted(const char *accept);

#endif
