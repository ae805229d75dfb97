/* test_outbuf.c — the output buffer: growth, failure latching, and the number formats (integers,
 * exact decimal ratios, shortest round-trip doubles) checked against libc references. */
#include "fixture_util.h"
#include "outbuf.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The buffer's contents as a NUL-terminated string (static, valid until the next call). Loops call
 * this a million times: plain checks, since every ck_assert costs a write to check's log. */
static const char *text(const struct pw_outbuf *buf)
{
	static char copy[4096];

	if (buf->len >= sizeof(copy) || !pw_outbuf_ok(buf))
		ck_abort_msg("buffer failed or too long (%zu bytes)", buf->len);
	memcpy(copy, buf->data, buf->len);
	copy[buf->len] = '\0';
	return copy;
}

static const char *ratio_str(uint64_t value, uint64_t divisor)
{
	static struct pw_outbuf buf;

	pw_outbuf_reset(&buf);
	pw_outbuf_ratio(&buf, value, divisor);
	return text(&buf);
}

static const char *double_str(double value)
{
	static struct pw_outbuf buf;

	pw_outbuf_reset(&buf);
	pw_outbuf_double(&buf, value);
	return text(&buf);
}

static uint64_t xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

START_TEST(test_appends)
{
	struct pw_outbuf buf;

	pw_outbuf_init(&buf);
	pw_outbuf_puts(&buf, "perfwatch");
	pw_outbuf_putc(&buf, '_');
	pw_outbuf_append(&buf, "up 1\n", 5);
	pw_outbuf_append(&buf, NULL, 0);
	pw_outbuf_printf(&buf, "%s=%d", "x", 42);
	ck_assert(pw_outbuf_ok(&buf));
	ck_assert_str_eq(text(&buf), "perfwatch_up 1\nx=42");

	char *data = buf.data;
	size_t cap = buf.cap;
	pw_outbuf_reset(&buf);
	ck_assert_uint_eq(buf.len, 0);
	ck_assert_ptr_eq(buf.data, data); /* memory kept */
	ck_assert_uint_eq(buf.cap, cap);
	pw_outbuf_done(&buf);
	ck_assert_ptr_null(buf.data);
	pw_outbuf_done(&buf); /* twice is harmless */
}
END_TEST

START_TEST(test_growth)
{
	struct pw_outbuf buf;
	size_t reallocs = 0, last_cap = 0;

	pw_outbuf_init(&buf);
	for (int i = 0; i < 100000; i++) {
		pw_outbuf_u64(&buf, (uint64_t)i % 10);
		if (buf.cap != last_cap) {
			reallocs++;
			last_cap = buf.cap;
		}
	}
	ck_assert(pw_outbuf_ok(&buf));
	ck_assert_uint_eq(buf.len, 100000);
	ck_assert_uint_le(reallocs, 12); /* geometric growth */
	for (size_t i = 0; i < buf.len; i++)
		if (buf.data[i] != '0' + (int)(i % 10))
			ck_abort_msg("byte %zu is %c", i, buf.data[i]);

	/* printf longer than the room left. */
	char big[3000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	pw_outbuf_reset(&buf);
	pw_outbuf_done(&buf);
	pw_outbuf_printf(&buf, "<%s>", big);
	ck_assert_uint_eq(buf.len, sizeof(big) + 1);
	ck_assert_int_eq(buf.data[0], '<');
	ck_assert_int_eq(buf.data[buf.len - 1], '>');
	pw_outbuf_done(&buf);
}
END_TEST

START_TEST(test_u64)
{
	static const uint64_t values[] = {
	        0, 1, 9, 10, 99, 100, 101, 999, 1000, 4294967295u, 10000000000000000000u, UINT64_MAX};
	struct pw_outbuf buf;
	char ref[32];
	uint64_t state = 0x9E3779B97F4A7C15u;

	pw_outbuf_init(&buf);
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		pw_outbuf_reset(&buf);
		pw_outbuf_u64(&buf, values[i]);
		snprintf(ref, sizeof(ref), "%" PRIu64, values[i]);
		ck_assert_str_eq(text(&buf), ref);
	}
	for (int i = 0; i < 200000; i++) {
		uint64_t v = xorshift(&state) >> (xorshift(&state) % 64);
		pw_outbuf_reset(&buf);
		pw_outbuf_u64(&buf, v);
		snprintf(ref, sizeof(ref), "%" PRIu64, v);
		if (strcmp(text(&buf), ref) != 0)
			ck_abort_msg("got %s, want %s", text(&buf), ref);
	}
	pw_outbuf_done(&buf);
}
END_TEST

START_TEST(test_ratio_examples)
{
	ck_assert_str_eq(ratio_str(12345, 100), "123.45");
	ck_assert_str_eq(ratio_str(100, 100), "1");
	ck_assert_str_eq(ratio_str(50, 100), "0.5");
	ck_assert_str_eq(ratio_str(0, 100), "0");
	ck_assert_str_eq(ratio_str(1001, 100), "10.01");
	ck_assert_str_eq(ratio_str(1, 1000000000), "0.000000001");
	ck_assert_str_eq(ratio_str(1, 250), "0.004");
	ck_assert_str_eq(ratio_str(7, 1), "7");
	ck_assert_str_eq(ratio_str(1, 512), "0.001953125");
	ck_assert_str_eq(ratio_str(1, 1953125), "0.000000512"); /* 5^9 */
	ck_assert_str_eq(ratio_str(UINT64_MAX, 100), "184467440737095516.15");
	ck_assert_str_eq(ratio_str(UINT64_MAX, 1000000000), "18446744073.709551615");
	ck_assert_str_eq(ratio_str(UINT64_MAX, 1), "18446744073709551615");
	/* Divisors that do not divide a power of ten up to 10^9 fall back to a round-trip double. */
	ck_assert_str_eq(ratio_str(1, 3), "0.3333333333333333");
	ck_assert_str_eq(ratio_str(3, 3), "1");
	ck_assert_str_eq(ratio_str(1, 1024), "0.0009765625");
	ck_assert_str_eq(ratio_str(1, 0), "+Inf");
	ck_assert_str_eq(ratio_str(0, 0), "NaN");
}
END_TEST

/* Reference: long double division printed with k decimals, trailing zeros dropped. Exact while
 * value / divisor < 2^63 / 10^k, which the generated values respect. */
static void ratio_reference(uint64_t value, uint64_t divisor, int places, char *ref, size_t size)
{
	snprintf(ref, size, "%.*Lf", places, (long double)value / (long double)divisor);
	if (strchr(ref, '.')) {
		size_t n = strlen(ref);
		while (ref[n - 1] == '0')
			ref[--n] = '\0';
		if (ref[n - 1] == '.')
			ref[--n] = '\0';
	}
}

START_TEST(test_ratio_random)
{
	static const struct {
		uint64_t divisor;
		int places;
	} divisors[] = {
	        {1, 0},   {2, 1},   {4, 2},       {5, 1},       {8, 3},          {10, 1},        {16, 4},
	        {20, 2},  {25, 2},  {32, 5},      {50, 2},      {64, 6},         {100, 2},       {125, 3},
	        {128, 7}, {250, 3}, {256, 8},     {512, 9},     {1000, 3},       {3125, 5},      {10000, 4},
	        {40, 3},  {160, 5}, {1000000, 6}, {1953125, 9}, {1000000000, 9}, {500000000, 9},
	};
	const size_t ndiv = sizeof(divisors) / sizeof(divisors[0]);
	uint64_t state = 0x2545F4914F6CDD1Du;
	char ref[64];

	for (int i = 0; i < 1000000; i++) {
		size_t d = xorshift(&state) % ndiv;
		/* Up to 42 bits: keeps the long double reference exact for every divisor above. */
		uint64_t value = xorshift(&state) >> (22 + xorshift(&state) % 42);
		ratio_reference(value, divisors[d].divisor, divisors[d].places, ref, sizeof(ref));
		const char *got = ratio_str(value, divisors[d].divisor);
		if (strcmp(got, ref) != 0)
			ck_abort_msg("%" PRIu64 "/%" PRIu64 ": got %s, want %s", value, divisors[d].divisor,
			             got, ref);
	}
}
END_TEST

START_TEST(test_double)
{
	ck_assert_str_eq(double_str(NAN), "NaN");
	ck_assert_str_eq(double_str(INFINITY), "+Inf");
	ck_assert_str_eq(double_str(-INFINITY), "-Inf");
	ck_assert_str_eq(double_str(0), "0");
	ck_assert_str_eq(double_str(-0.0), "-0");
	ck_assert_str_eq(double_str(1), "1");
	ck_assert_str_eq(double_str(-42), "-42");
	ck_assert_str_eq(double_str(0.1), "0.1");
	ck_assert_str_eq(double_str(4.2e-05), "4.2e-05");
	ck_assert_str_eq(double_str(1.0 / 3), "0.3333333333333333");
	ck_assert_str_eq(double_str(0.1 + 0.2), "0.30000000000000004");
	ck_assert_str_eq(double_str(9007199254740992.0), "9007199254740992");
	ck_assert_str_eq(double_str(1e21), "1e+21");
	ck_assert_str_eq(double_str(DBL_MAX), "1.7976931348623157e+308");
	ck_assert_str_eq(double_str(5e-324), "4.94065645841247e-324");
}
END_TEST

START_TEST(test_double_round_trip)
{
	uint64_t state = 0x853C49E6748FEA9Bu;

	for (int i = 0; i < 200000; i++) {
		uint64_t bits = xorshift(&state);
		double v;
		memcpy(&v, &bits, sizeof(v));
		if (!isfinite(v))
			continue;
		const char *s = double_str(v);
		if (strtod(s, NULL) != v || strlen(s) > 24)
			ck_abort_msg("%s does not read back as %.17g", s, v);
	}
}
END_TEST

START_TEST(test_allocation_failure)
{
	struct pw_outbuf buf;

	pw_outbuf_init(&buf);
	pw_outbuf_puts(&buf, "kept");
	ck_assert_int_eq(pw_outbuf_reserve(&buf, SIZE_MAX - 8), -ENOMEM);
	ck_assert(!pw_outbuf_ok(&buf));
	/* Later appends are dropped, not half-written. */
	pw_outbuf_puts(&buf, " dropped");
	pw_outbuf_u64(&buf, 7);
	pw_outbuf_printf(&buf, "%d", 8);
	ck_assert_uint_eq(buf.len, 4);
	ck_assert_int_eq(pw_outbuf_reserve(&buf, 1), -ENOMEM);
	/* reset starts a new render. */
	pw_outbuf_reset(&buf);
	ck_assert(pw_outbuf_ok(&buf));
	pw_outbuf_puts(&buf, "again");
	ck_assert_str_eq(text(&buf), "again");
	pw_outbuf_done(&buf);
}
END_TEST

static Suite *outbuf_suite(void)
{
	Suite *s = suite_create("outbuf");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_appends);
	tcase_add_test(core, test_growth);
	tcase_add_test(core, test_u64);
	tcase_add_test(core, test_ratio_examples);
	tcase_add_test(core, test_ratio_random);
	tcase_add_test(core, test_double);
	tcase_add_test(core, test_double_round_trip);
	tcase_add_test(malformed, test_allocation_failure);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(outbuf_suite());
}
