/* duration.h — durations as perfwatchd's flags and config file spell them. */
#ifndef PW_DURATION_H
#define PW_DURATION_H

#include <stdint.h>

/* Parse "100ms", "1s", "1m", "1h" (and "1m30s") into nanoseconds. Returns 0 or -EINVAL. Pure. */
int pw_parse_duration(const char *text, int64_t *ret_ns);

#endif
