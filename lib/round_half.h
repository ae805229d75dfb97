/* round_half.h — rounding half away from zero, the one way both the store (q = round(value /
 * quantum)) and /history's text (exporters/fixed_text.h) round, so a figure prints the same from
 * memory and from disk: a rate of 209517.125 a second is 209517.13 in both. */
#ifndef PW_ROUND_HALF_H
#define PW_ROUND_HALF_H

#include <math.h>
#include <stdint.h>

/* x (|x| at most 2^52, not NAN) rounded half away from zero, as llround without its library call;
 * from 2^52 on a double is whole, and adding a half would round it up. */
static inline int64_t pw_round_half_away(double x)
{
	return fabs(x) >= 0x1p52 ? (int64_t)x : (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}

#endif
