/* scan.c — bounded tokenizer shared by the /proc and sysfs parsers. */
#include "scan.h"

#include <errno.h>
#include <string.h>

int pw_scan_hundredths(struct pw_scan *scan, uint32_t *ret)
{
	uint64_t whole, frac = 0;
	int r = pw_scan_u64(scan, &whole);

	if (r < 0)
		return r;
	if (scan->pos < scan->end && *scan->pos == '.') {
		int digits = 0;
		for (scan->pos++; scan->pos < scan->end && *scan->pos >= '0' && *scan->pos <= '9';
		     scan->pos++, digits++) {
			/* The kernel prints two decimals; anything finer is below our resolution. */
			if (digits < 2)
				frac = frac * 10 + (uint64_t)(*scan->pos - '0');
		}
		if (digits == 1) /* "0.5" is fifty hundredths */
			frac *= 10;
	}
	if (whole > UINT32_MAX / 100 || whole * 100 + frac > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)(whole * 100 + frac);
	return 0;
}

void pw_scan_rest_of_line(struct pw_scan *scan, const char **ret_start, size_t *ret_len)
{
	pw_scan_skip_blanks(scan);
	const char *start = scan->pos;
	const char *nl = memchr(start, '\n', pw_scan_remaining(scan));
	const char *stop = nl ? nl : scan->end;

	scan->pos = stop;
	while (stop > start && (pw_scan_is_blank(stop[-1]) || stop[-1] == '\r'))
		stop--;
	*ret_start = start;
	*ret_len = (size_t)(stop - start);
}

void pw_copy_label(char *dst, size_t size, const char *src, size_t len)
{
	if (size == 0)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

bool pw_token_is(const char *token, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(token, word, len) == 0;
}
