/* http_history.h — GET /history (the in-memory history as JSON or CSV) and GET /ui (the built-in
 * page that plots it), for http.c's router. Served from the sampler's rings, the history store and
 * the detector's view on a thread of its own (a long window takes tens of milliseconds: MHD's
 * thread, which answers the scrapes, never waits on it); the sampler is never blocked. */
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

struct pw_http_history_job;

/* MHD's thread: GET /history on conn. The request is copied, the connection suspended and queued
 * for the history thread (*ret_job set: keep it as the request's state), or answered at once (503
 * when 32 wait already, or while stopping). The history thread makes the answer (200, 400 naming
 * what is wrong, 500) and resumes the connection; MHD then calls the handler again: answer it with
 * pw_http_history_answer(). */
enum MHD_Result pw_http_history_serve(struct pw_http_history *hh, struct MHD_Connection *conn,
                                      struct pw_http_history_job **ret_job);

/* MHD's thread, on the call after the resume: queue job's answer and free job. */
enum MHD_Result pw_http_history_answer(struct MHD_Connection *conn, struct pw_http_history_job *job);

/* A job whose connection closed before its answer was queued (MHD's completion callback). NULL:
 * nothing. */
void pw_http_history_job_free(struct pw_http_history_job *job);

/* Answer what waits with 503 and end the history thread: before MHD stops, which must find no
 * connection suspended. pw_http_history_free() does it too. */
void pw_http_history_stop(struct pw_http_history *hh);

/* The page, compiled in (ui/perfwatch.html); and whether an Accept header prefers HTML, as a browser
 * opening "/" does. */
enum MHD_Result pw_http_ui_serve(struct MHD_Connection *conn);
bool pw_http_ui_wanted(const char *accept);

#endif
