/* outbuf.h — a growable output buffer that keeps its capacity between uses, so a renderer reaches a
 * steady state with no allocation per scrape.
 *
 * Appends never fail loudly: an allocation failure sets `failed` and later appends are dropped;
 * check pw_outbuf_ok() once at the end. */
#ifndef PW_OUTBUF_H
#define PW_OUTBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pw_outbuf {
	char *data;
	size_t len;
	size_t cap;
	bool failed;
};

/* "00" to "99": two decimal digits per entry, so number formatting does one division per two
 * digits (pw_outbuf_u64, /history's fixed-point figures). */
extern const char pw_digit_pairs[201];

void pw_outbuf_init(struct pw_outbuf *buf);
void pw_outbuf_done(struct pw_outbuf *buf);

/* Empty the buffer, keeping its memory. */
void pw_outbuf_reset(struct pw_outbuf *buf);

/* Make room for n more bytes; returns 0 or -ENOMEM (and sets failed). */
int pw_outbuf_reserve(struct pw_outbuf *buf, size_t n);

void pw_outbuf_append(struct pw_outbuf *buf, const char *bytes, size_t n);
void pw_outbuf_puts(struct pw_outbuf *buf, const char *str);
void pw_outbuf_putc(struct pw_outbuf *buf, char c);
void pw_outbuf_u64(struct pw_outbuf *buf, uint64_t value);

/* value / divisor printed exactly when divisor divides a power of ten up to 10^9 (USER_HZ 100,
 * 250, 1000 ...), e.g. 12345 / 100 -> "123.45"; otherwise as %.17g. */
void pw_outbuf_ratio(struct pw_outbuf *buf, uint64_t value, uint64_t divisor);

/* A double in Prometheus' float syntax: shortest %g that round-trips, NaN, +Inf, -Inf. */
void pw_outbuf_double(struct pw_outbuf *buf, double value);

void pw_outbuf_printf(struct pw_outbuf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline bool pw_outbuf_ok(const struct pw_outbuf *buf)
{
	return !buf->failed;
}

#endif
