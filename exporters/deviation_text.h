/* deviation_text.h — one signal far from its baseline in plain words ("system time 38% of the CPUs,
 * normally 2%"), for the /status diagnosis and the daemon's log. */
#ifndef PW_DEVIATION_TEXT_H
#define PW_DEVIATION_TEXT_H

#include "detector.h"

#include <stddef.h>

/* Write dev's words into buf (always NUL-terminated); returns what snprintf returns. */
int pw_deviation_text(const struct pw_deviation *dev, char *buf, size_t len);

/* The words for the newest sample's deviations, most unusual first, "; "-separated, each with its
 * probed evidence in brackets when there is some. Returns the length written. */
size_t pw_deviations_text(const struct pw_detector_view *view, char *buf, size_t len);

#endif
