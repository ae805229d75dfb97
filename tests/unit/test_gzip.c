/* test_gzip.c — gzip bodies inflate back to the input with zlib, and Accept-Encoding parsing. */
#include "fixture_util.h"
#include "gzip.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Inflate a gzip stream (windowBits 15 + 16: gzip only) into a malloc'd buffer of *ret_len bytes. */
static char *gunzip(const char *data, size_t len, size_t *ret_len)
{
	z_stream zs;
	size_t cap = 4096, out = 0;
	char *buf = malloc(cap);

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	for (;;) {
		if (out == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		zs.next_out = (Bytef *)buf + out;
		zs.avail_out = (uInt)(cap - out);
		int rc = inflate(&zs, Z_NO_FLUSH);
		out = cap - zs.avail_out;
		if (rc == Z_STREAM_END)
			break;
		ck_assert_msg(rc == Z_OK || (rc == Z_BUF_ERROR && out == cap), "inflate: %d", rc);
	}
	ck_assert_uint_eq(zs.avail_in, 0); /* nothing after the gzip trailer */
	inflateEnd(&zs);
	*ret_len = out;
	return buf;
}

static void round_trip(const char *in, size_t len, struct pw_outbuf *out)
{
	size_t back_len;

	ck_assert_int_eq(pw_gzip_compress(in, len, out), 0);
	ck_assert(pw_outbuf_ok(out));
	ck_assert_uint_ge(out->len, 18); /* header + trailer */
	ck_assert_int_eq((unsigned char)out->data[0], 0x1f);
	ck_assert_int_eq((unsigned char)out->data[1], 0x8b);
	char *back = gunzip(out->data, out->len, &back_len);
	ck_assert_uint_eq(back_len, len);
	ck_assert(len == 0 || memcmp(back, in, len) == 0);
	free(back);
}

START_TEST(test_round_trip)
{
	static const char text[] = "# HELP perfwatch_load1 Load average over 1 minute (/proc/loadavg).\n"
	                           "# TYPE perfwatch_load1 gauge\nperfwatch_load1 0.64\n";
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	round_trip(text, sizeof(text) - 1, &out);
	round_trip("", 0, &out);
	round_trip(NULL, 0, &out);
	pw_outbuf_done(&out);
}
END_TEST

/* A large, partly incompressible body, into a buffer that already holds something. */
START_TEST(test_large)
{
	size_t len = 3 * 1024 * 1024;
	char *in = malloc(len);
	uint32_t state = 12345;
	struct pw_outbuf out;

	ck_assert_ptr_nonnull(in);
	for (size_t i = 0; i < len; i++) {
		state = state * 1103515245u + 12345u;
		in[i] = i % 2 ? (char)(state >> 24) : (char)('a' + i % 26);
	}
	pw_outbuf_init(&out);
	pw_outbuf_puts(&out, "old contents are replaced");
	round_trip(in, len, &out);
	ck_assert_uint_lt(out.len, len);
	pw_outbuf_done(&out);
	free(in);
}
END_TEST

START_TEST(test_accept_encoding)
{
	static const struct {
		const char *header;
		bool accepted;
	} cases[] = {
	        {"gzip", true},
	        {"gzip, deflate;q=0.5", true},
	        {"deflate, gzip;q=1.0, *;q=0.5", true},
	        {"br;q=1.0, gzip;q=0.8", true},
	        {"GZIP", true},
	        {"x-gzip", true},
	        {"  gzip  ", true},
	        {"*", true},
	        {"*;q=0, gzip", true},
	        {"gzip;q=0.001", true},
	        {"gzip;level=1", true},
	        {NULL, false},
	        {"", false},
	        {"identity", false},
	        {"deflate, br", false},
	        {"gzip;q=0", false},
	        {"gzip;q=0.000", false},
	        {"gzip ; q=0", false},
	        {"gzip;Q=0.0, deflate", false},
	        {"gzip;level=1;q=0", false},
	        {"*;q=0", false},
	        {"gzip;q=0, *", false},
	        {"gzipx", false},
	        {"xgzip", false},
	        {",,,", false},
	        {";q=1", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(pw_gzip_accepted(cases[i].header) == cases[i].accepted, "\"%s\" should be %s",
		              cases[i].header ? cases[i].header : "(null)",
		              cases[i].accepted ? "accepted" : "refused");
}
END_TEST

START_TEST(test_out_of_memory)
{
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	ck_assert_int_eq(pw_outbuf_reserve(&out, SIZE_MAX - 1), -ENOMEM);
	/* compress resets the buffer, so a failed earlier use does not poison it. */
	round_trip("abc", 3, &out);
	pw_outbuf_done(&out);
}
END_TEST

static Suite *gzip_suite(void)
{
	Suite *s = suite_create("gzip");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_round_trip);
	tcase_add_test(core, test_large);
	tcase_add_test(core, test_accept_encoding);
	tcase_add_test(malformed, test_out_of_memory);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(gzip_suite());
}
