/* baseline.h — what a signal normally looks like: an exponentially weighted mean and variance,
 * O(1) memory, no allocation, time passed as a parameter.
 *
 * Why EWMA rather than a median/MAD sketch: the detector needs one update per signal per second for
 * thousands of signals (per CPU, per IRQ line) in a fixed footprint, and must adapt to a host's
 * daily rhythm while ignoring incidents (the caller stops updating while an alert is pending or
 * firing). The variance is the weighted one of Finch, "Incremental calculation of weighted mean and
 * variance" (2009), eq. 143; the weight of a sample decays with a half-life in seconds, so the
 * baseline does not depend on the sampling interval. */
#ifndef PW_BASELINE_H
#define PW_BASELINE_H

#include <stdbool.h>
#include <stdint.h>

struct pw_baseline {
	double mean;
	double var;
	double learned_s; /* seconds of observations folded in */
};

/* Fold in observation x that covers dt_s seconds; non-finite x or dt_s <= 0 are ignored. */
void pw_baseline_update(struct pw_baseline *b, double x, double dt_s, double half_life_s);

/* The same, for a baseline past its warmup: an x further than clip spreads (never below floor) from
 * the mean is clipped to that reach and weighs no more than if memory_s had been learned, so a
 * deviation that no rule holds back (one below a rule's threshold, or a change a rule explains away)
 * moves the baseline by a few spreads a sample, not all the way: a sustained new level is adopted
 * over minutes as the spread widens, never within seconds, however short the warmup was. */
void pw_baseline_update_clipped(struct pw_baseline *b, double x, double dt_s, double half_life_s,
                                double floor, double clip, double memory_s);

/* Standard deviation, never below floor (signals that never move would otherwise make any change
 * infinitely unusual). */
double pw_baseline_spread(const struct pw_baseline *b, double floor);

/* How many spreads x lies above (positive) or below the mean. 0 for an empty baseline. */
double pw_baseline_score(const struct pw_baseline *b, double x, double floor);

static inline bool pw_baseline_learned(const struct pw_baseline *b, double min_seconds)
{
	return b->learned_s >= min_seconds;
}

#endif
