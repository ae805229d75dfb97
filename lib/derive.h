/* derive.h — the figures of one interval: mode shares, per-second rates, average frequency.
 *
 * Counters that go backwards (a CPU hotplugged, a driver reloaded, stats reset) are resets: the
 * figure is left out for that interval and counted, never turned into a huge rate. */
#ifndef PW_DERIVE_H
#define PW_DERIVE_H

#include "sample.h"

/* Fill cur's derived fields from the interval prev -> cur (prev may be NULL for the first sample,
 * which then carries no derived figures). Both samples must share one layout (capacities). Rates
 * that cannot be computed are NAN (a new interrupt line, a source down in either sample). Adds the
 * resets it finds to cur->counter_resets (which the caller carries over from prev). Pure. */
void pw_derive(const struct pw_sample *prev, struct pw_sample *cur);

/* pw_derive() for counters read from the kernel whose CLOCK_MONOTONIC stamped the samples (the
 * host's own procfs): the interval's length then bounds the time a CPU's /proc/stat columns may add
 * up to, and tick-sampled time beyond it (a CPU woken often from idle) is taken off. pw_derive()
 * takes the columns as they are: a fixture tree's counters do not keep the sampler's clock. */
void pw_derive_kernel(const struct pw_sample *prev, struct pw_sample *cur);

/* a - b for a counter: false when it went backwards (a reset). */
static inline bool pw_counter_delta(uint64_t a, uint64_t b, uint64_t *ret)
{
	if (a < b)
		return false;
	*ret = a - b;
	return true;
}

#endif
