/* test_loadavg.c — pw_loadavg_parse over real captures, quirk files and broken input. */
#include "fixture_util.h"
#include "loadavg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PW_TEST_PARSER_WRAPPERS(struct pw_loadavg, pw_loadavg_parse)

static void assert_loadavg(const struct pw_loadavg *la, uint32_t l1, uint32_t l5, uint32_t l15,
                           uint32_t runnable, uint32_t threads, uint32_t last_pid)
{
	ck_assert_uint_eq(la->load1, l1);
	ck_assert_uint_eq(la->load5, l5);
	ck_assert_uint_eq(la->load15, l15);
	ck_assert_uint_eq(la->runnable, runnable);
	ck_assert_uint_eq(la->threads, threads);
	ck_assert_uint_eq(la->last_pid, last_pid);
}

START_TEST(test_format_variants)
{
	struct pw_loadavg la;

	ck_assert_int_eq(parse_str("0.64 0.19 0.06 1/88 6439\n", &la), 0);
	assert_loadavg(&la, 64, 19, 6, 1, 88, 6439);
	/* No newline, big loads, tabs, an extra column. */
	ck_assert_int_eq(parse_str("1234.50\t99.09 100.00 4294967295/4294967295 4194304 extra", &la), 0);
	assert_loadavg(&la, 123450, 9909, 10000, UINT32_MAX, UINT32_MAX, 4194304);
	/* An embedded NUL after the last field is just a trailing byte. */
	static const char nul[] = "0.00 0.00 0.00 0/1 1\0junk";
	ck_assert_int_eq(parse_exact(nul, sizeof(nul) - 1, &la), 0);
	assert_loadavg(&la, 0, 0, 0, 0, 1, 1);
}
END_TEST

START_TEST(test_quirk_garbage)
{
	size_t len;
	char *buf = pw_fixture_read("quirks/loadavg-garbage/loadavg", &len);
	struct pw_loadavg la, before;

	memset(&la, 0xa5, sizeof(la));
	memcpy(&before, &la, sizeof(la));
	ck_assert_int_eq(parse_exact(buf, len, &la), -EINVAL);
	ck_assert_mem_eq(&la, &before, sizeof(la));
	free(buf);
}
END_TEST

START_TEST(test_malformed_inputs)
{
	static const char *const bad[] = {
	        "",
	        "\n",
	        "garbage\n",
	        "0.64 0.19 0.06\n",
	        "0.64 0.19 0.06 1/88\n",
	        "0.64 0.19 0.06 1 88 6439\n",
	        "0.64 0.19 0.06 1/ 6439\n",
	        "0.64 0.19 0.06 /88 6439\n",
	        "0.64 0.19 -0.06 1/88 6439\n",
	        "0.64 0.19 0.06\n1/88 6439\n",
	        "0.64,0.19,0.06 1/88 6439\n",
	        "0..64 0.19 0.06 1/88 6439\n",
	};

	pw_test_each_refused(parse_result, bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

START_TEST(test_overflow)
{
	struct pw_loadavg la;

	ck_assert_int_eq(parse_str("0.64 0.19 0.06 1/4294967296 6439\n", &la), -ERANGE);
	ck_assert_int_eq(parse_str("0.64 0.19 0.06 4294967296/88 6439\n", &la), -ERANGE);
	ck_assert_int_eq(parse_str("0.64 0.19 0.06 1/88 4294967296\n", &la), -ERANGE);
	ck_assert_int_eq(parse_str("42949673.00 0.19 0.06 1/88 6439\n", &la), -ERANGE);
	ck_assert_int_eq(parse_str("0.64 0.19 0.06 1/88 99999999999999999999999\n", &la), -ERANGE);
}
END_TEST

/* Only a cut inside last_pid still parses, with fewer digits. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_loadavg *part = ret;
	const struct pw_loadavg *full = whole;
	int r = pw_loadavg_parse(buf, len, part);

	if (r == 0)
		ck_assert_uint_le(part->last_pid, full->last_pid);
	return r;
}

START_TEST(test_truncated_every_offset)
{
	static const char relpath[] = "kernels/vm-2cpu-idle-1/proc/loadavg";
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	struct pw_loadavg full, part;

	ck_assert_int_eq(parse_exact(buf, len, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &part, &full);
	assert_loadavg(&part, full.load1, full.load5, full.load15, full.runnable, full.threads,
	               full.last_pid);
	free(buf);
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "0123456789. /\n\t\0\xff-";

	pw_test_random_garbage(parse_result, alphabet, sizeof(alphabet) - 1, 99, 64, 50000);
}
END_TEST

START_TEST(test_capture_values)
{
	struct pw_loadavg la = parse_fixture("kernels/vm-2cpu-idle-1/proc/loadavg");

	assert_loadavg(&la, 64, 19, 6, 1, 88, 6439);
	la = parse_fixture("kernels/host-16cpu-load-2/proc/loadavg");
	assert_loadavg(&la, 7, 2, 0, 10, 214, 2789);
}
END_TEST

static void check_capture(const char *id)
{
	struct pw_loadavg la = parse_fixture(pw_fixture_kernel_path(id, "proc/loadavg"));

	/* The reader of the file was itself running. */
	ck_assert_msg(la.runnable >= 1, "%s: nothing runnable", id);
	ck_assert_msg(la.runnable <= la.threads, "%s: runnable %u > threads %u", id, la.runnable, la.threads);
	ck_assert_msg(la.last_pid > 0, "%s", id);
	/* These machines have at most 16 CPUs and were never near 100 runnable. */
	ck_assert_msg(la.load1 < 10000 && la.load5 < 10000 && la.load15 < 10000, "%s: load", id);
}

START_TEST(test_every_capture)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_capture), 0);
}
END_TEST

static Suite *loadavg_suite(void)
{
	Suite *s = suite_create("loadavg");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_format_variants);
	tcase_add_test(core, test_quirk_garbage);
	tcase_add_test(malformed, test_malformed_inputs);
	tcase_add_test(malformed, test_overflow);
	tcase_add_test(malformed, test_truncated_every_offset);
	tcase_add_test(malformed, test_random_garbage);
	tcase_add_test(kernels, test_capture_values);
	tcase_add_test(kernels, test_every_capture);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(loadavg_suite());
}
