/* outbuf.c — the growable output buffer and the number formatting every exporter shares.
 *
 * Numbers are formatted by hand (no snprintf) on the paths a scrape repeats hundreds of times:
 * integers, and exact decimal fractions value / divisor where the divisor divides 10^k (ticks per
 * USER_HZ, microseconds, hundredths). Doubles use the shortest %g that reads back to the same value. */
#include "outbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char pw_digit_pairs[201] = "00010203040506070809"
                                 "10111213141516171819"
                                 "20212223242526272829"
                                 "30313233343536373839"
                                 "40414243444546474849"
                                 "50515253545556575859"
                                 "60616263646566676869"
                                 "70717273747576777879"
                                 "80818283848586878889"
                                 "90919293949596979899";

static const uint64_t pow10_u64[10] = {
        1ull,      10ull,      100ull,      1000ull,      10000ull,
        100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
};

void pw_outbuf_init(struct pw_outbuf *buf)
{
	buf->data = NULL;
	buf->len = 0;
	buf->cap = 0;
	buf->failed = false;
}

void pw_outbuf_done(struct pw_outbuf *buf)
{
	free(buf->data);
	pw_outbuf_init(buf);
}

void pw_outbuf_reset(struct pw_outbuf *buf)
{
	buf->len = 0;
	buf->failed = false;
}

int pw_outbuf_reserve(struct pw_outbuf *buf, size_t n)
{
	if (buf->failed)
		return -ENOMEM;
	if (buf->cap - buf->len >= n)
		return 0;
	if (n > SIZE_MAX / 2 - buf->len) {
		buf->failed = true;
		return -ENOMEM;
	}
	size_t cap = buf->cap ? buf->cap : 256;
	while (cap - buf->len < n)
		cap *= 2;
	char *data = realloc(buf->data, cap);
	if (!data) {
		buf->failed = true;
		return -ENOMEM;
	}
	buf->data = data;
	buf->cap = cap;
	return 0;
}

void pw_outbuf_append(struct pw_outbuf *buf, const char *bytes, size_t n)
{
	if (buf->cap - buf->len < n && pw_outbuf_reserve(buf, n) < 0)
		return;
	if (buf->failed || n == 0)
		return;
	memcpy(buf->data + buf->len, bytes, n);
	buf->len += n;
}

void pw_outbuf_puts(struct pw_outbuf *buf, const char *str)
{
	pw_outbuf_append(buf, str, strlen(str));
}

void pw_outbuf_putc(struct pw_outbuf *buf, char c)
{
	if (buf->cap == buf->len && pw_outbuf_reserve(buf, 1) < 0)
		return;
	if (buf->failed)
		return;
	buf->data[buf->len++] = c;
}

/* Write value's decimal digits ending just before end; returns the first digit. */
static char *format_u64(char *end, uint64_t value)
{
	char *p = end;

	while (value >= 100) {
		unsigned pair = (unsigned)(value % 100) * 2;
		value /= 100;
		p -= 2;
		p[0] = pw_digit_pairs[pair];
		p[1] = pw_digit_pairs[pair + 1];
	}
	if (value >= 10) {
		p -= 2;
		p[0] = pw_digit_pairs[value * 2];
		p[1] = pw_digit_pairs[value * 2 + 1];
	} else {
		*--p = (char)('0' + value);
	}
	return p;
}

void pw_outbuf_u64(struct pw_outbuf *buf, uint64_t value)
{
	char tmp[20];
	char *start = format_u64(tmp + sizeof(tmp), value);

	pw_outbuf_append(buf, start, (size_t)(tmp + sizeof(tmp) - start));
}

/* Smallest k <= 9 with divisor | 10^k, or -1: divisor must be 2^a * 5^b with a, b <= k. */
static int decimal_places(uint64_t divisor)
{
	int twos = __builtin_ctzll(divisor), fives = 0;
	uint64_t rest = divisor >> twos;

	while (rest % 5 == 0 && fives <= 9) {
		rest /= 5;
		fives++;
	}
	int places = twos > fives ? twos : fives;
	return rest == 1 && places <= 9 ? places : -1;
}

/* value / divisor with places decimals, trailing zeros (and a bare point) dropped. The fraction
 * rem * (10^places / divisor) cannot overflow: rem < divisor <= 10^9 and the factor <= 10^9. */
static void put_exact_ratio(struct pw_outbuf *buf, uint64_t value, uint64_t divisor, int places)
{
	char tmp[32];
	char *end = tmp + sizeof(tmp);
	uint64_t rem = value % divisor;
	char *p = end;

	if (rem != 0) {
		uint64_t frac = rem * (pow10_u64[places] / divisor);
		int digits = places;
		while (frac % 10 == 0) {
			frac /= 10;
			digits--;
		}
		for (int i = 0; i < digits; i++) {
			*--p = (char)('0' + frac % 10);
			frac /= 10;
		}
		*--p = '.';
	}
	p = format_u64(p, value / divisor);
	pw_outbuf_append(buf, p, (size_t)(end - p));
}

void pw_outbuf_ratio(struct pw_outbuf *buf, uint64_t value, uint64_t divisor)
{
	if (divisor == 0) {
		pw_outbuf_double(buf, value ? INFINITY : NAN);
		return;
	}
	int places = decimal_places(divisor);
	if (places < 0) {
		/* Divided in long double so values above 2^53 keep their precision until the last rounding.
		 */
		pw_outbuf_double(buf, (double)((long double)value / (long double)divisor));
		return;
	}
	put_exact_ratio(buf, value, divisor, places);
}

void pw_outbuf_double(struct pw_outbuf *buf, double value)
{
	if (isnan(value)) {
		pw_outbuf_append(buf, "NaN", 3);
		return;
	}
	if (isinf(value)) {
		pw_outbuf_append(buf, value > 0 ? "+Inf" : "-Inf", 4);
		return;
	}
	/* Integers below 2^53 are exact and common (counts, byte sizes): no snprintf. */
	if (fabs(value) < 9007199254740992.0 && value == trunc(value) && !(value == 0 && signbit(value))) {
		if (value < 0)
			pw_outbuf_putc(buf, '-');
		pw_outbuf_u64(buf, (uint64_t)fabs(value));
		return;
	}
	char tmp[32];
	int n = 0;
	for (int precision = 15; precision <= 17; precision++) {
		n = snprintf(tmp, sizeof(tmp), "%.*g", precision, value);
		if (precision == 17 || strtod(tmp, NULL) == value)
			break;
	}
	if (n > 0 && (size_t)n < sizeof(tmp))
		pw_outbuf_append(buf, tmp, (size_t)n);
}

void pw_outbuf_printf(struct pw_outbuf *buf, const char *fmt, ...)
{
	va_list ap;
	size_t room = buf->cap - buf->len;

	if (buf->failed)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(room ? buf->data + buf->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= room) {
		if (pw_outbuf_reserve(buf, (size_t)n + 1) < 0)
			return;
		va_start(ap, fmt);
		vsnprintf(buf->data + buf->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	buf->len += (size_t)n;
}
