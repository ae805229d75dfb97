/* test_text_escape.c — pw_text_escape: control bytes (C0, DEL, C1) and bytes that are not UTF-8
 * become \xNN, valid UTF-8 and backslashes stay; a cut never splits an escape or a character; the
 * result is always printable valid UTF-8 (jansson takes it) and escaping it again changes nothing. */
#include "fixture_util.h"
#include "text_escape.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Escape an exact heap copy of src[0..len) (ASan catches a read past len) into a buffer of size. */
static size_t esc(const char *src, size_t len, char *buf, size_t size)
{
	char *copy = pw_test_exact_copy(src, len);
	size_t n = pw_text_escape(copy, len, buf, size);

	free(copy);
	return n;
}

static void assert_escapes(const char *src, size_t len, const char *want)
{
	char buf[512];
	size_t n = esc(src, len, buf, sizeof(buf));

	ck_assert_str_eq(buf, want);
	ck_assert_uint_eq(n, strlen(want));
}

#define ESCAPES(lit, want) assert_escapes(lit, sizeof(lit) - 1, want)

/* Printable ASCII and valid UTF-8 (U+00A0 on) pass as they are; so does the backslash. */
START_TEST(test_kept)
{
	ESCAPES("", "");
	ESCAPES("kworker/u16:3-events_unbound", "kworker/u16:3-events_unbound");
	ESCAPES("read) (er", "read) (er");
	ESCAPES(" ~!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}", " ~!\"#$%&'()*+,-./09:;<=>?@AZ[\\]^_`az{|}");
	ESCAPES("a\\x1b", "a\\x1b"); /* text that looks escaped stays: see the idempotence test */
	ESCAPES("caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf",
	        "caf\xc3\xa9 \xc2\xa0 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf");
	ESCAPES("\xe2\x80\xa8", "\xe2\x80\xa8"); /* U+2028: a character, not a control (see the header) */
}
END_TEST

/* Every C0 control, DEL and the C1 controls U+0080..U+009F (both bytes of their encoding). */
START_TEST(test_controls)
{
	char want[8], src[1];

	for (int c = 0; c < 0x20; c++) {
		src[0] = (char)c;
		snprintf(want, sizeof(want), "\\x%02x", c);
		assert_escapes(src, 1, want);
	}
	ESCAPES("\x7f", "\\x7f");
	ESCAPES("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
	ESCAPES("line\r\nforged: x\a", "line\\x0d\\x0aforged: x\\x07");
	ESCAPES("\xc2\x80", "\\xc2\\x80");
	ESCAPES("a\xc2\x85z", "a\\xc2\\x85z"); /* NEL */
	ESCAPES("\xc2\x9b", "\\xc2\\x9b");     /* CSI */
	ESCAPES("\xc2\x9f\xc2\xa0", "\\xc2\\x9f\xc2\xa0");
	ESCAPES("a\0b", "a\\x00b"); /* a NUL inside len is a byte like any other */
}
END_TEST

/* Bytes that are not part of a valid sequence (RFC 3629) are escaped one by one; the next byte
 * starts over, so a broken sequence does not swallow the character after it. */
START_TEST(test_invalid_utf8)
{
	ESCAPES("\x80", "\\x80");
	ESCAPES("\x9b", "\\x9b"); /* a lone C1 byte */
	ESCAPES("\xff\xfe", "\\xff\\xfe");
	ESCAPES("\xc0\xaf", "\\xc0\\xaf");                   /* overlong '/' */
	ESCAPES("\xc1\xbf", "\\xc1\\xbf");                   /* overlong */
	ESCAPES("\xe0\x80\xaf", "\\xe0\\x80\\xaf");          /* overlong, 3 bytes */
	ESCAPES("\xf0\x80\x80\xaf", "\\xf0\\x80\\x80\\xaf"); /* overlong, 4 bytes */
	ESCAPES("\xed\xa0\x80", "\\xed\\xa0\\x80");          /* a surrogate (U+D800) */
	ESCAPES("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* past U+10FFFF */
	ESCAPES("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	ESCAPES("\xe2\x82", "\\xe2\\x82");                   /* cut short at the end */
	ESCAPES("\xe2\x82z\xc3\xa9", "\\xe2\\x82z\xc3\xa9"); /* ... and in the middle */
	ESCAPES("\xc3\xc3\xa9", "\\xc3\xc3\xa9");
	ESCAPES("pw\x1b]0;\x07\n\x9b\xff\xc3\xa9\x7fok", "pw\\x1b]0;\\x07\\x0a\\x9b\\xff\xc3\xa9\\x7fok");
}
END_TEST

/* A small buffer takes whole units only: never "\x1" nor half of "é"; always NUL-terminated; the
 * return value is the whole length, as snprintf's. */
START_TEST(test_cut)
{
	const char src[] = "ab\x1b\xc3\xa9z";
	const char *full = "ab\\x1b\xc3\xa9z";
	const char *want[] = {"",  "", "a", "ab", "ab", "ab", "ab", "ab\\x1b", "ab\\x1b", "ab\\x1b\xc3\xa9",
	                      full};
	char buf[16];

	for (size_t size = 1; size <= 10; size++) {
		memset(buf, 'X', sizeof(buf));
		ck_assert_uint_eq(esc(src, sizeof(src) - 1, buf, size), strlen(full));
		ck_assert_msg(strcmp(buf, want[size]) == 0, "size %zu: '%s', want '%s'", size, buf,
		              want[size]);
		ck_assert_uint_eq(buf[size], 'X'); /* nothing written past size */
	}
	ck_assert_uint_eq(esc(src, sizeof(src) - 1, buf, 11), strlen(full));
	ck_assert_str_eq(buf, full);
	/* size 0: a pure measurement, buf untouched (may be NULL). */
	ck_assert_uint_eq(pw_text_escape(src, sizeof(src) - 1, NULL, 0), strlen(full));
	/* 4-byte characters are kept whole or not at all. */
	ck_assert_uint_eq(esc("\xf0\x9f\x98\x80", 4, buf, 4), 4);
	ck_assert_str_eq(buf, "");
}
END_TEST

/* Is s[0..len) valid UTF-8 (RFC 3629) without C0, DEL or C1 controls? */
static bool printable_utf8(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len); /* jansson's own validation: what the JSON exporters meet */
	bool ok = j != NULL;

	json_decref(j);
	for (size_t i = 0; ok && i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		ok = c >= 0x20 && c != 0x7f && !(c == 0xc2 && i + 1 < len && (unsigned char)s[i + 1] < 0xa0);
	}
	return ok;
}

/* Random bytes, biased towards the interesting ones: the result is printable UTF-8, the same
 * whatever the buffer size up to where it is cut, and escaping it again changes nothing. */
START_TEST(test_random)
{
	static const unsigned char pick[] = {0x00, 0x07, 0x0a, 0x1b, 0x5c, 0x78, 0x7f, 0x80,
	                                     0x85, 0x9b, 0xa0, 0xbf, 0xc0, 0xc2, 0xc3, 0xe0,
	                                     0xe2, 0xed, 0xf0, 0xf4, 0xf5, 0xff};
	char src[24], out[128], again[128], small[40];
	unsigned seed = 12345;

	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(rand_r(&seed) % (int)sizeof(src));
		for (size_t i = 0; i < len; i++)
			src[i] = (char)(rand_r(&seed) % 3 ? pick[rand_r(&seed) % sizeof(pick)]
			                                  : rand_r(&seed) % 256);
		size_t n = esc(src, len, out, sizeof(out));
		ck_assert_uint_lt(n, sizeof(out));
		ck_assert_uint_eq(n, strlen(out));
		ck_assert_msg(printable_utf8(out, n), "round %d: not printable UTF-8", round);
		ck_assert_uint_eq(esc(out, n, again, sizeof(again)), n);
		ck_assert_str_eq(again, out);
		size_t cut = esc(src, len, small, sizeof(small));
		ck_assert_uint_eq(cut, n);
		ck_assert(strncmp(small, out, strlen(small)) == 0);
		ck_assert(printable_utf8(small, strlen(small)));
	}
}
END_TEST

static Suite *text_escape_suite(void)
{
	Suite *s = suite_create("text_escape");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_kept);
	tcase_add_test(core, test_controls);
	tcase_add_test(core, test_cut);
	tcase_add_test(malformed, test_invalid_utf8);
	tcase_add_test(malformed, test_random);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(text_escape_suite());
}
