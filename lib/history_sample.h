/* history_sample.h — a sample rebuilt from a history point, so the detector can judge the store on
 * disk again (perfwatchd --replay STATE_DIR).
 *
 * A point keeps the derived figures the rules read, at the store's precision; what it lacks is
 * rebuilt or left unknown, and the detector treats unknown as it does on a host without it:
 *   - per-CPU interrupt and softirq rates (the point keeps host rates): the host's, shared out by
 *     each CPU's interrupt time, so new traffic still explains new handler time and the same count
 *     at a higher cost still does not;
 *   - per-CPU irq and softirq time: one figure (irq + softirq), carried as irq;
 *   - PSI stall totals: accumulated from each interval's stall share, which the point keeps;
 *   - the reference frequency (cpuinfo_max_freq, or base_frequency under intel_pstate): the
 *     average over the ratio the point keeps, given as cpuinfo_max_freq; no governor or driver;
 *   - interrupt lines: the six busiest, without their device names; MemTotal, MemFree, blocked
 *     tasks, the forks rate and the counters themselves: absent.
 * Pure. */
#ifndef PW_HISTORY_SAMPLE_H
#define PW_HISTORY_SAMPLE_H

#include "history.h"

/* The sample of point p into ret, a block of pw_sample_size(ret->cpu_cap, PW_HISTORY_LINES, false)
 * bytes with its layout set (pw_sample_init) that holds the sample rebuilt from the point before p,
 * or is fresh: its PSI totals go on from there. interval_ns: since that point (0 for the first of
 * a run, which has no derived figures anyway). CPUs at or past ret->cpu_cap are left out. */
void pw_history_point_to_sample(const struct pw_history_point *p, int64_t interval_ns, struct pw_sample *ret);

#endif
