/* watcher.h — the detector's thread: wakes on each new sample, feeds every sample in order to the
 * detector, logs alert transitions, and publishes the detector's view for the HTTP readers. A reader
 * of the sampler's ring like any other: it never slows the sampler. */
#ifndef PW_WATCHER_H
#define PW_WATCHER_H

#include "detector.h"
#include "sampler.h"

struct pw_watcher;

/* Create the detector for the sampler's samples and hook it to the sampler's notifications. Call
 * before pw_sampler_start. Returns NULL with a reason in err. */
struct pw_watcher *pw_watcher_new(struct pw_sampler *sampler, const struct pw_detector_config *config,
                                  char *err, size_t err_size);

int pw_watcher_start(struct pw_watcher *watcher);

/* Stop and join (returns promptly); idempotent. */
void pw_watcher_stop(struct pw_watcher *watcher);
void pw_watcher_free(struct pw_watcher *watcher);

/* Any thread: the newest published view into ret. False before the first sample was judged. */
bool pw_watcher_view(const struct pw_watcher *watcher, struct pw_detector_view *ret);

#endif
