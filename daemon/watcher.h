/* watcher.h — the detector's thread: wakes on each new sample, feeds every sample in order to the
 * detector, logs alert transitions, and publishes the detector's view for the HTTP readers. A reader
 * of the sampler's ring like any other: it never slows the sampler. */
#ifndef PW_WATCHER_H
#define PW_WATCHER_H

#include "detector.h"
#include "sampler.h"

struct pw_watcher;

/* Create the detector for the sampler's samples and hook it to the sampler's notifications. Call
 * before pw_sampler_start. With a state_dir (NULL or "": none), the baselines saved there are
 * loaded now (a missing, unreadable, corrupt or foreign file is logged and ignored: the detector
 * relearns), saved every save_every_ns of sample time from the detector's thread, and at stop.
 * Returns NULL with a reason in err. */
struct pw_watcher *pw_watcher_new(struct pw_sampler *sampler, const struct pw_detector_config *config,
                                  const char *state_dir, int64_t save_every_ns, char *err, size_t err_size);

/* Hand alert transitions to notifier too (NULL: none). Call before pw_watcher_start. */
struct pw_notifier;
void pw_watcher_set_notifier(struct pw_watcher *watcher, struct pw_notifier *notifier);

int pw_watcher_start(struct pw_watcher *watcher);

/* Stop and join; idempotent. With a state dir, the thread judges what is left in the ring and
 * saves the baselines before it ends: stop the sampler first. */
void pw_watcher_stop(struct pw_watcher *watcher);
void pw_watcher_free(struct pw_watcher *watcher);

/* Any thread: the newest published view into ret. False before the first sample was judged. */
bool pw_watcher_view(const struct pw_watcher *watcher, struct pw_detector_view *ret);

#endif
