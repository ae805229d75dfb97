/* scan.h — a bounded cursor over a byte buffer, the one tokenizer every /proc parser shares.
 *
 * Never reads past the end given at init and never needs a NUL. "Blank" is space or tab; newlines
 * end lines and are only crossed by pw_scan_next_line(). */
#ifndef PW_SCAN_H
#define PW_SCAN_H

#include "pw_types.h"

#include <errno.h>
#include <string.h>

struct pw_scan {
	const char *pos;
	const char *end;
};

/* The hot helpers are inline: every parser calls them per token, every second. */

static inline bool pw_scan_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline size_t pw_scan_remaining(const struct pw_scan *scan)
{
	return scan->pos < scan->end ? (size_t)(scan->end - scan->pos) : 0;
}

static inline void pw_scan_init(struct pw_scan *scan, const char *buf, size_t len)
{
	scan->pos = buf;
	scan->end = buf + len;
}

/* True when the whole buffer has been consumed. */
static inline bool pw_scan_eof(const struct pw_scan *scan)
{
	return scan->pos >= scan->end;
}

static inline void pw_scan_skip_blanks(struct pw_scan *scan)
{
	while (scan->pos < scan->end && pw_scan_is_blank(*scan->pos))
		scan->pos++;
}

/* True at a newline or at the end of the buffer (after skipping blanks). */
static inline bool pw_scan_at_eol(struct pw_scan *scan)
{
	pw_scan_skip_blanks(scan);
	return scan->pos >= scan->end || *scan->pos == '\n';
}

/* Move past the next newline (or to the end). */
static inline void pw_scan_next_line(struct pw_scan *scan)
{
	const char *nl = memchr(scan->pos, '\n', pw_scan_remaining(scan));
	scan->pos = nl ? nl + 1 : scan->end;
}

/* Skip blanks, then read a decimal unsigned number. Returns 0, -EINVAL if no digit is there (the
 * cursor does not move), -ERANGE if it does not fit 64 bits. */
static inline int pw_scan_u64(struct pw_scan *scan, uint64_t *ret)
{
	pw_scan_skip_blanks(scan);
	const char *p = scan->pos;
	uint64_t value = 0;

	if (p >= scan->end || *p < '0' || *p > '9')
		return -EINVAL;
	for (; p < scan->end && *p >= '0' && *p <= '9'; p++) {
		unsigned digit = (unsigned)(*p - '0');
		/* One compare per digit; the exact test only near the top of the range. */
		if (value >= UINT64_MAX / 10 && (value > UINT64_MAX / 10 || digit > UINT64_MAX % 10))
			return -ERANGE;
		value = value * 10 + digit;
	}
	scan->pos = p;
	*ret = value;
	return 0;
}

/* Skip blanks, then return the next token (up to a blank or newline) without copying.
 * Returns 0, or -EINVAL at end of line. */
static inline int pw_scan_token(struct pw_scan *scan, const char **ret_start, size_t *ret_len)
{
	pw_scan_skip_blanks(scan);
	const char *start = scan->pos;

	while (scan->pos < scan->end && !pw_scan_is_blank(*scan->pos) && *scan->pos != '\n')
		scan->pos++;
	if (scan->pos == start)
		return -EINVAL;
	*ret_start = start;
	*ret_len = (size_t)(scan->pos - start);
	return 0;
}

/* Skip blanks, then read a number with at most two decimals ("10.86", "3", "0.5") as hundredths.
 * Returns 0, -EINVAL or -ERANGE (does not fit 32 bits). */
int pw_scan_hundredths(struct pw_scan *scan, uint32_t *ret);

/* Skip blanks, then return the next token (up to a blank or newline) without copying.
 * Returns 0, or -EINVAL at end of line. */
int pw_scan_token(struct pw_scan *scan, const char **ret_start, size_t *ret_len);

/* Return the rest of the current line with surrounding blanks trimmed (may be empty) and leave the
 * cursor at its newline. */
void pw_scan_rest_of_line(struct pw_scan *scan, const char **ret_start, size_t *ret_len);

/* Copy src[0..len) into dst as a NUL-terminated string, truncating to size - 1 bytes. */
void pw_copy_label(char *dst, size_t size, const char *src, size_t len);

/* True if token[0..len) equals the NUL-terminated word. */
bool pw_token_is(const char *token, size_t len, const char *word);

#endif
