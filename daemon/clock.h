/* clock.h — the daemon's clocks (lib takes time as a parameter). */
#ifndef PW_CLOCK_H
#define PW_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t pw_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t pw_mono_ns(void)
{
	return pw_clock_ns(CLOCK_MONOTONIC);
}

static inline int64_t pw_real_ns(void)
{
	return pw_clock_ns(CLOCK_REALTIME);
}

#endif
