/* text_escape.c — C0, DEL, C1 and bytes that are not UTF-8 as "\xNN"; see text_escape.h. */
#include "text_escape.h"

#include <stdbool.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s[0..len) that starts with a byte >= 0x80, or 0 when
 * there is none (RFC 3629, section 4: the second byte's range depends on the first). */
static size_t utf8_sequence(const unsigned char *s, size_t len)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte alone, an overlong lead (0xc0, 0xc1), or 0xf5-0xff */
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong below U+0800 */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates U+D800-U+DFFF */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong below U+10000 */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (len < n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* The next unit of s[0..len) (len > 0): how many bytes it takes (*ret_n) and whether it is
 * escaped; returns its width in the output. */
static size_t next_unit(const unsigned char *s, size_t len, size_t *ret_n)
{
	size_t n = 1;
	bool escape = s[0] < 0x20 || s[0] == 0x7f;

	if (s[0] >= 0x80) {
		n = utf8_sequence(s, len);
		/* U+0080-U+009F (0xc2 0x80-0x9f) are the C1 controls: each of their bytes escaped. */
		escape = n == 0 || (n == 2 && s[0] == 0xc2 && s[1] < 0xa0);
		if (escape)
			n = 1;
	}
	*ret_n = n;
	return escape ? 4 : n;
}

size_t pw_text_escape(const char *src, size_t len, char *buf, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)src;
	size_t total = 0, written = 0;
	bool writing = size > 0; /* until the first unit that does not fit */

	for (size_t in = 0, n; in < len; in += n) {
		size_t width = next_unit(s + in, len - in, &n);
		total += width;
		if (!writing)
			continue;
		if (written + width >= size) {
			writing = false;
			continue;
		}
		if (width == n) {
			memcpy(buf + written, s + in, n);
		} else {
			buf[written] = '\\';
			buf[written + 1] = 'x';
			buf[written + 2] = hex[s[in] >> 4];
			buf[written + 3] = hex[s[in] & 0xf];
		}
		written += width;
	}
	if (size > 0)
		buf[written] = '\0';
	return total;
}
