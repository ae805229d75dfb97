/* baseline.c — exponentially weighted mean and variance with a half-life in seconds. */
#include "baseline.h"

#include <math.h>

/* Fold in x with the weight of a baseline that has learned `learned_s`. */
static void update(struct pw_baseline *b, double x, double dt_s, double half_life_s, double learned_s)
{
	if (!isfinite(x) || !(dt_s > 0))
		return;
	if (b->learned_s == 0) {
		b->mean = x;
		b->var = 0;
		b->learned_s = dt_s;
		return;
	}
	/* The weight an observation of dt_s seconds gets when older ones halve every half_life_s; while
	 * less than that has been learned, a plain time-weighted mean, so the first samples do not
	 * dominate for hours (the two agree once learned_s passes about a half-life). */
	double alpha = fmax(1.0 - exp2(-dt_s / half_life_s), dt_s / (learned_s + dt_s));
	double diff = x - b->mean;
	double incr = alpha * diff;

	b->mean += incr;
	b->var = (1.0 - alpha) * (b->var + diff * incr);
	b->learned_s += dt_s;
}

void pw_baseline_update(struct pw_baseline *b, double x, double dt_s, double half_life_s)
{
	update(b, x, dt_s, half_life_s, b->learned_s);
}

double pw_baseline_spread(const struct pw_baseline *b, double floor)
{
	double sd = sqrt(b->var > 0 ? b->var : 0);

	return sd > floor ? sd : floor;
}

double pw_baseline_score(const struct pw_baseline *b, double x, double floor)
{
	if (b->learned_s == 0 || !isfinite(x))
		return 0;
	return (x - b->mean) / pw_baseline_spread(b, floor);
}

void pw_baseline_update_clipped(struct pw_baseline *b, double x, double dt_s, double half_life_s,
                                double floor, double clip, double memory_s)
{
	double learned_s = b->learned_s;

	/* Only a deviation is held back: ordinary values keep their weight, so a rough early baseline
	 * (a short warmup, a start-up transient) still settles at the usual pace. */
	if (isfinite(x) && b->learned_s > 0 && fabs(x - b->mean) > clip * pw_baseline_spread(b, floor)) {
		double reach = clip * pw_baseline_spread(b, floor);
		x = fmin(fmax(x, b->mean - reach), b->mean + reach);
		learned_s = fmax(learned_s, memory_s);
	}
	update(b, x, dt_s, half_life_s, learned_s);
}
