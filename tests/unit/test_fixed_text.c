/* test_fixed_text.c — /history's figures as text (pw_write_fixed) against a reference built from
 * libc: the same value rounded half away from zero to the decimals, printed by snprintf and its
 * trailing zeros dropped. Millions of random values of every kind a series holds (shares, rates,
 * bytes, hertz, negatives, halves, any bit pattern), every fraction of every decimals, and the
 * limits. */
#include "fixed_text.h"
#include "fixture_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference: llround-like rounding (half away from zero, exact from 2^52 on) of v * 10^d,
 * printed as whole and fraction, zeros trimmed; "null" past the limits pw_write_fixed keeps. */
static void reference(double v, int d, char *buf, size_t size)
{
	static const double limit[] = {9e15, 9e14, 9e13, 9e12, 9e11};
	if (!(fabs(v) < limit[d])) {
		snprintf(buf, size, "null");
		return;
	}
	double x = v * pow(10, d);
	int64_t n = fabs(x) >= 0x1p52 ? (int64_t)x : (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
	uint64_t u = n < 0 ? -(uint64_t)n : (uint64_t)n, p = (uint64_t)pow(10, d);
	int len = snprintf(buf, size, "%s%" PRIu64, n < 0 ? "-" : "", u / p);
	if (d && u % p) {
		len += snprintf(buf + len, size - (size_t)len, ".%0*" PRIu64, d, u % p);
		while (buf[len - 1] == '0')
			buf[--len] = '\0';
	}
}

/* Plain checks in the loops: a ck_assert per value costs a write to check's log. */
static void check(double v, int d)
{
	char want[64], got[64];
	memset(got, 'x', sizeof(got));
	reference(v, d, want, sizeof(want));
	char *end = pw_write_fixed(got, v, d);
	size_t n = (size_t)(end - got);
	if (n > PW_FIXED_MAX || n != strlen(want) || memcmp(got, want, n) != 0)
		ck_abort_msg("%.17g at %d decimals: '%.*s', want '%s'", v, d, (int)n, got, want);
}

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static double any_value(void)
{
	uint64_t bits;
	double v;
	switch (next() % 8) {
	case 0:
		return (double)(next() % 10001) / 10000; /* a share */
	case 1:
		return (double)(next() % 100000) / 7; /* a rate */
	case 2:
		bits = next(); /* any bit pattern: NaN, infinities, denormals, huge */
		memcpy(&v, &bits, sizeof(v));
		return v;
	case 3:
		return (double)(int64_t)(next() % 20000000000000000u) - 1e16; /* around the limits */
	case 4:
		return ((double)(next() % 2000001) - 1000000) / 1000 + 0.0005; /* halves of the last place */
	case 5:
		return (double)(next() % 4000) * 1e6; /* hertz */
	case 6:
		return ((double)(next() % 200001) - 100000) / 2; /* halves */
	default:
		return (double)(next() % 1000000000000u) / (double)(next() % 1000 + 1);
	}
}

START_TEST(test_random)
{
	pw_fixed_text_init();
	for (int i = 0; i < 3000000; i++)
		check(any_value(), (int)(next() % 5));
}
END_TEST

START_TEST(test_every_fraction)
{
	pw_fixed_text_init();
	for (int d = 1; d <= 4; d++) {
		int64_t p = (int64_t)pow(10, d);
		for (int64_t k = -3 * p; k <= 3 * p; k++)
			check((double)k / (double)p, d);
	}
}
END_TEST

START_TEST(test_limits)
{
	pw_fixed_text_init();
	double edges[] = {0,         -0.0,      0.5,       -0.5,       0.49999999999999994,
	                  9e15,      -9e15,     8.9999e15, -8.9999e15, 99999999,
	                  100000000, 1e8 - 0.5, 1e15,      9e11,       8.99e11,
	                  NAN,       INFINITY,  -INFINITY, 1e-300,     123.45,
	                  0x1p52};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		for (int d = 0; d <= 4; d++)
			check(edges[i], d);
	char got[PW_FIXED_MAX];
	ck_assert_int_eq(pw_write_fixed(got, 2400000000.0, 0) - got, 10);
	ck_assert(memcmp(got, "2400000000", 10) == 0);
	ck_assert_int_eq(pw_write_fixed(got, 0.25, 4) - got, 4);
	ck_assert(memcmp(got, "0.25", 4) == 0);
}
END_TEST

static Suite *fixed_text_suite(void)
{
	Suite *s = suite_create("fixed_text");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_random);
	tcase_add_test(core, test_every_fraction);
	tcase_add_test(core, test_limits);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(fixed_text_suite());
}
