/* alerts_json.h — the detector's active alerts as the /alerts document, and the same list for
 * /status: each alert with its figures and its evidence under named keys, rounded for people.
 *
 * The names, states and keys are a fixed interface (tools outside the project read them);
 * docs/metrics.md describes every field. */
#ifndef PW_ALERTS_JSON_H
#define PW_ALERTS_JSON_H

#include "detector.h"

#include <jansson.h>

/* Render the active (pending or firing) alerts of view (NULL: detector off, no alerts) as the
 * pretty-printed document {"alerts": [...]} with a trailing newline. Returns a malloc'd
 * NUL-terminated string the caller frees, or NULL on allocation failure. Pure; thread-safe. */
char *pw_alerts_render(const struct pw_detector_view *view);

/* The same document appended to out (no intermediate string). Returns 0, or -1 on allocation failure. */
struct pw_outbuf;
int pw_alerts_render_into(const struct pw_detector_view *view, struct pw_outbuf *out);

/* The "alerts" array of that document as a new jansson reference the caller owns (json_decref), for
 * /status to embed. view may be NULL (an empty array). NULL on allocation failure. */
json_t *pw_alerts_json_array(const struct pw_detector_view *view);

/* The active alerts of view, most urgent first: firing before pending, critical before warning,
 * then rule order. Stores pointers into view (valid while view is) into ret, at most cap; returns
 * how many. view may be NULL (0). */
size_t pw_alerts_by_urgency(const struct pw_detector_view *view, const struct pw_alert **ret, size_t cap);

/* One alert transition as a flat object for a stream of them (--replay --json, later the notifier):
 * time, alert, from, to ("resolved" for firing -> inactive), severity, scope, summary, description,
 * evidence. A new reference the caller owns, or NULL on allocation failure. */
json_t *pw_alert_event_json(const struct pw_alert_event *ev);

#endif
