/* transitions.h — a small bounded log of alert transitions for GET /history: the detector thread
 * appends what pw_detector_observe returned, the HTTP thread copies the log out. Both hold its
 * mutex only to copy a few small records; the sampler never touches it. */
#ifndef PW_TRANSITIONS_H
#define PW_TRANSITIONS_H

#include "alert.h"
#include "history_json.h"

#include <stddef.h>

/* Keeps the newest cap transitions (256 is hours of a flapping alert). NULL on allocation failure. */
/* One event as the compact record the log, /history and the store keep. */
void pw_transition_compact(const struct pw_alert_event *event, struct pw_history_transition *ret);

struct pw_transitions *pw_transitions_new(size_t cap);
void pw_transitions_free(struct pw_transitions *log); /* accepts NULL */

/* Detector thread (any one thread): append n events in order, dropping the oldest when full. */
void pw_transitions_record(struct pw_transitions *log, const struct pw_alert_event *events, size_t n);

/* Any thread: copy up to cap of the newest transitions into ret, oldest first; returns how many. */
size_t pw_transitions_copy(const struct pw_transitions *log, struct pw_history_transition *ret, size_t cap);

#endif
