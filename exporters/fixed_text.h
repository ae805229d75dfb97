/* fixed_text.h — /history's figures as text: a value rounded half away from zero to 0-4 decimals,
 * trailing zeros dropped ("0.25", "3", "2400000000"), or "null". Inline: it runs once per figure,
 * half a million times for an hour of a 16-CPU host, and a call per figure showed in its profile.
 *
 * The whole part goes out eight digits at a time, two per table entry; the fraction as four digits,
 * its length with the trailing zeros dropped from a table of 9 999 bytes built once: trimming them
 * one character at a time, a branch the random digits of a share mispredicted, was a third of the
 * time (a table of the whole texts was 0.6 ns a figure faster still, but 80 KiB resident). */
#ifndef PW_FIXED_TEXT_H
#define PW_FIXED_TEXT_H

#include "outbuf.h"
#include "round_half.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define PW_FIXED_MAX 24 /* "-9000000000000000" and a point: the most pw_write_fixed writes */

/* [k]: the length of the text of k / 10000 (".dddd" with its trailing zeros dropped), for k in
 * 1..9999. Filled by pw_fixed_text_init(). */
extern uint8_t pw_fraction_len[10000];

/* Fill the table (once; any thread, any number of times). */
void pw_fixed_text_init(void);

/* u (below 10^8) at dst; returns the end. */
static inline char *pw_fixed_digits8(char *dst, uint32_t u)
{
	int n = u < 10         ? 1
	        : u < 100      ? 2
	        : u < 1000     ? 3
	        : u < 10000    ? 4
	        : u < 100000   ? 5
	        : u < 1000000  ? 6
	        : u < 10000000 ? 7
	                       : 8;
	char *p = dst + n;
	while (u >= 100) { /* two digits at a time, from the right */
		p -= 2;
		memcpy(p, &pw_digit_pairs[(u % 100) * 2], 2);
		u /= 100;
	}
	if (u >= 10)
		memcpy(p - 2, &pw_digit_pairs[u * 2], 2);
	else
		p[-1] = (char)('0' + u);
	return dst + n;
}

/* u (below 10^16) at dst; returns the end. */
static inline char *pw_fixed_whole(char *dst, uint64_t u)
{
	if (u < 100000000)
		return pw_fixed_digits8(dst, (uint32_t)u);
	uint64_t hi = u / 100000000;
	uint32_t lo = (uint32_t)(u - hi * 100000000), a = lo / 10000, b = lo % 10000;
	dst = pw_fixed_digits8(dst, (uint32_t)hi);
	memcpy(dst, &pw_digit_pairs[a / 100 * 2], 2); /* exactly eight digits: zeros kept */
	memcpy(dst + 2, &pw_digit_pairs[a % 100 * 2], 2);
	memcpy(dst + 4, &pw_digit_pairs[b / 100 * 2], 2);
	memcpy(dst + 6, &pw_digit_pairs[b % 100 * 2], 2);
	return dst + 8;
}

/* n / 10^decimals (decimals 0 to 4, |n| below 9 * 10^15), trailing zeros dropped, written at dst;
 * returns the end. A figure the store keeps as an integer (a share in ten-thousandths, a rate in
 * hundredths) is printed from it as it is. pw_fixed_text_init() was called. */
static inline __attribute__((always_inline)) char *pw_write_scaled(char *dst, int64_t n, int decimals)
{
	static const uint32_t pow10[] = {1, 10, 100, 1000, 10000};
	static const uint32_t to_ten_thousandths[] = {0, 1000, 100, 10, 1};
	if (n < 0)
		*dst++ = '-';
	uint64_t u = n < 0 ? -(uint64_t)n : (uint64_t)n, whole;
	switch (decimals) { /* constant divisors: multiplications, not a division */
	case 0:
		return pw_fixed_whole(dst, u);
	case 1:
		whole = u / 10;
		break;
	case 2:
		whole = u / 100;
		break;
	case 3:
		whole = u / 1000;
		break;
	default:
		whole = u / 10000;
		break;
	}
	uint32_t frac = (uint32_t)(u - whole * pow10[decimals]);
	dst = pw_fixed_whole(dst, whole);
	if (frac == 0)
		return dst;
	/* As ten-thousandths: ".dddd" from two pairs, as long as its trailing zeros leave it. */
	uint32_t k = frac * to_ten_thousandths[decimals];
	dst[0] = '.';
	memcpy(dst + 1, &pw_digit_pairs[k / 100 * 2], 2);
	memcpy(dst + 3, &pw_digit_pairs[k % 100 * 2], 2);
	return dst + pw_fraction_len[k];
}

/* v rounded to decimals places (0 to 4), trailing zeros dropped, or "null" (unknown, or too large
 * to round exactly), written at dst; returns the end. dst has room for PW_FIXED_MAX bytes.
 * pw_fixed_text_init() was called. */
static inline char *pw_write_fixed(char *dst, double v, int decimals)
{
	static const double scale[] = {1, 10, 100, 1000, 10000};
	static const double limit[] = {9e15, 9e14, 9e13, 9e12, 9e11};
	if (!(fabs(v) < limit[decimals])) /* NAN and infinities too */
		return memcpy(dst, "null", 4), dst + 4;
	/* Half away from zero, as the store rounds (round_half.h). */
	return pw_write_scaled(dst, pw_round_half_away(v * scale[decimals]), decimals);
}

#endif
