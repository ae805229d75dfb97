/* test_meminfo.c — pw_meminfo_parse over real captures, quirk files and broken input. */
#include "fixture_util.h"
#include "meminfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALL_FIELDS ((1u << PW_MEM_COUNT) - 1)
#define BIT(f) (1u << (f))

PW_TEST_PARSER_WRAPPERS(struct pw_meminfo, pw_meminfo_parse)

START_TEST(test_field_names_round_trip)
{
	/* Also proves the binary-search table is in strcmp order: every name must be found. */
	for (int f = 0; f < PW_MEM_COUNT; f++) {
		char line[64];
		struct pw_meminfo mem;

		snprintf(line, sizeof(line), "%s:   %d kB\n", pw_meminfo_field_name(f), 1000 + f);
		ck_assert_int_eq(parse_str(line, &mem), 0);
		ck_assert_msg(mem.present == BIT(f), "field %s not found", pw_meminfo_field_name(f));
		ck_assert_uint_eq(mem.kb[f], 1000 + f);
	}
	ck_assert_str_eq(pw_meminfo_field_name(PW_MEM_ACTIVE_FILE), "Active(file)");
	ck_assert_str_eq(pw_meminfo_field_name(PW_MEM_COUNT), "unknown");
}
END_TEST

START_TEST(test_near_miss_keys_ignored)
{
	struct pw_meminfo mem;

	/* Prefixes, extensions and case changes of known keys are other keys. */
	ck_assert_int_eq(parse_str("Active:  5 kB\nMemTotalX: 6 kB\nMemTota: 7 kB\nmemtotal: 8 kB\n"
	                           "Inactive(file)x: 9 kB\nA: 1\nZzzz: 2\nMemFree: 3 kB\n",
	                           &mem),
	                 0);
	ck_assert_uint_eq(mem.present, BIT(PW_MEM_FREE));
	ck_assert_uint_eq(mem.kb[PW_MEM_FREE], 3);
}
END_TEST

START_TEST(test_format_variants)
{
	struct pw_meminfo mem;

	/* No final newline, no unit (HugePages_* style), tabs, extra columns, CRLF. */
	ck_assert_int_eq(parse_str("HugePages_Total:       0\nMemTotal:\t12 kB extra\r\nDirty: 4 kB", &mem),
	                 0);
	ck_assert_uint_eq(mem.present, BIT(PW_MEM_TOTAL) | BIT(PW_MEM_DIRTY));
	ck_assert_uint_eq(mem.kb[PW_MEM_TOTAL], 12);
	ck_assert_uint_eq(mem.kb[PW_MEM_DIRTY], 4);
	/* An embedded NUL is just a byte: the parser goes by length. */
	static const char nul[] = "MemTotal: 1\0 kB\nMemFree: 2 kB\n";
	ck_assert_int_eq(parse_exact(nul, sizeof(nul) - 1, &mem), 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_TOTAL], 1);
	ck_assert_uint_eq(mem.kb[PW_MEM_FREE], 2);
	/* The largest value that fits. */
	ck_assert_int_eq(parse_str("SwapTotal: 18446744073709551615 kB\n", &mem), 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_TOTAL], UINT64_MAX);
}
END_TEST

START_TEST(test_quirk_no_memavailable)
{
	struct pw_meminfo mem = parse_fixture("quirks/meminfo-no-memavailable/meminfo");

	ck_assert_uint_eq(mem.present, ALL_FIELDS & ~BIT(PW_MEM_AVAILABLE));
	ck_assert_uint_eq(mem.kb[PW_MEM_AVAILABLE], 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_TOTAL], 2061520);
	ck_assert_uint_eq(mem.kb[PW_MEM_FREE], 127428);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_TOTAL], 1048572);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_FREE], 1012324);
	ck_assert_uint_eq(mem.kb[PW_MEM_SRECLAIMABLE], 120040);
}
END_TEST

START_TEST(test_malformed_inputs)
{
	static const char *const bad[] = {
	        "",
	        "\n",
	        "garbage\n",
	        "MemTotal 5 kB\n", /* no colon */
	        "MemTotal:\n",     /* no number */
	        "MemTotal: kB\n",
	        "MemTotal: -5 kB\n",
	        "Foo: bar\n", /* unknown key, but still a line without a number */
	        "MemTotal: 1 kB\n\nMemFree: 2 kB\n",
	        ":\n",
	};

	pw_test_each_refused(parse_result, bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

START_TEST(test_overflow)
{
	struct pw_meminfo mem;

	ck_assert_int_eq(parse_str("MemTotal: 18446744073709551616 kB\n", &mem), -ERANGE);
	/* An overflow in a key we do not keep does not fail the sample. */
	ck_assert_int_eq(parse_str("VmallocTotal: 99999999999999999999 kB\nMemTotal: 1 kB\n", &mem), 0);
	ck_assert_uint_eq(mem.present, BIT(PW_MEM_TOTAL));
}
END_TEST

START_TEST(test_output_untouched_on_error)
{
	struct pw_meminfo mem, before;

	memset(&mem, 0xa5, sizeof(mem));
	memcpy(&before, &mem, sizeof(mem));
	ck_assert_int_eq(parse_str("MemTotal: 1 kB\nMemFree: x\n", &mem), -EINVAL);
	ck_assert_mem_eq(&mem, &before, sizeof(mem));
	ck_assert_int_eq(parse_str("MemTotal: 1 kB\nMemFree: 99999999999999999999 kB\n", &mem), -ERANGE);
	ck_assert_mem_eq(&mem, &before, sizeof(mem));
}
END_TEST

/* A prefix only loses fields, and a cut number only loses digits. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_meminfo *part = ret;
	const struct pw_meminfo *full = whole;
	int r = pw_meminfo_parse(buf, len, part);

	if (r < 0)
		return r;
	ck_assert_uint_eq(part->present & ~full->present, 0);
	for (int f = 0; f < PW_MEM_COUNT; f++)
		if (part->present & BIT(f))
			ck_assert_uint_le(part->kb[f], full->kb[f]);
	return r;
}

START_TEST(test_truncated_every_offset)
{
	static const char relpath[] = "kernels/vm-2cpu-idle-1/proc/meminfo";
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	struct pw_meminfo full, part;

	ck_assert_int_eq(parse_exact(buf, len, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &part, &full);
	ck_assert_uint_eq(part.present, full.present);
	ck_assert_mem_eq(part.kb, full.kb, sizeof(full.kb));
	free(buf);
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "MemTotalFrScdhv():_ kB0123456789\n\t\0\xff";

	pw_test_random_garbage(parse_result, alphabet, sizeof(alphabet) - 1, 12345, 160, 20000);
}
END_TEST

START_TEST(test_vm_2cpu_idle_1_values)
{
	struct pw_meminfo mem = parse_fixture("kernels/vm-2cpu-idle-1/proc/meminfo");

	ck_assert_uint_eq(mem.present, ALL_FIELDS);
	ck_assert_uint_eq(mem.kb[PW_MEM_TOTAL], 24683652);
	ck_assert_uint_eq(mem.kb[PW_MEM_FREE], 22722212);
	ck_assert_uint_eq(mem.kb[PW_MEM_AVAILABLE], 24120980);
	ck_assert_uint_eq(mem.kb[PW_MEM_BUFFERS], 25356);
	ck_assert_uint_eq(mem.kb[PW_MEM_CACHED], 1552100);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_CACHED], 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_ACTIVE_FILE], 237280);
	ck_assert_uint_eq(mem.kb[PW_MEM_INACTIVE_FILE], 1331316);
	ck_assert_uint_eq(mem.kb[PW_MEM_ACTIVE_ANON], 1536);
	ck_assert_uint_eq(mem.kb[PW_MEM_INACTIVE_ANON], 6308);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_TOTAL], 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_SWAP_FREE], 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_DIRTY], 132752);
	ck_assert_uint_eq(mem.kb[PW_MEM_WRITEBACK], 0);
	ck_assert_uint_eq(mem.kb[PW_MEM_SHMEM], 8956);
	ck_assert_uint_eq(mem.kb[PW_MEM_SRECLAIMABLE], 86044);
}
END_TEST

START_TEST(test_host_16cpu_load_2_values)
{
	struct pw_meminfo mem = parse_fixture("kernels/host-16cpu-load-2/proc/meminfo");

	ck_assert_uint_eq(mem.present, ALL_FIELDS);
	ck_assert_uint_eq(mem.kb[PW_MEM_TOTAL], 131981020);
	ck_assert_uint_eq(mem.kb[PW_MEM_FREE], 130698984);
	ck_assert_uint_eq(mem.kb[PW_MEM_AVAILABLE], 131451836);
	ck_assert_uint_eq(mem.kb[PW_MEM_INACTIVE_FILE], 906164);
	ck_assert_uint_eq(mem.kb[PW_MEM_DIRTY], 2400);
}
END_TEST

static void check_capture(const char *id)
{
	struct pw_meminfo mem = parse_fixture(pw_fixture_kernel_path(id, "proc/meminfo"));
	const uint64_t *kb = mem.kb;

	/* Every field we read exists on the 6.x kernels of these captures. */
	ck_assert_msg(mem.present == ALL_FIELDS, "%s: present %#x", id, mem.present);
	ck_assert_msg(kb[PW_MEM_TOTAL] > 0, "%s", id);
	ck_assert_msg(kb[PW_MEM_FREE] <= kb[PW_MEM_TOTAL], "%s: MemFree > MemTotal", id);
	ck_assert_msg(kb[PW_MEM_AVAILABLE] <= kb[PW_MEM_TOTAL], "%s: MemAvailable > MemTotal", id);
	ck_assert_msg(kb[PW_MEM_SWAP_FREE] <= kb[PW_MEM_SWAP_TOTAL], "%s: SwapFree > SwapTotal", id);
	ck_assert_msg(kb[PW_MEM_SHMEM] <= kb[PW_MEM_CACHED], "%s: Shmem > Cached", id);
	ck_assert_msg(kb[PW_MEM_CACHED] + kb[PW_MEM_BUFFERS] <= kb[PW_MEM_TOTAL], "%s", id);
}

START_TEST(test_every_capture)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_capture), 0);
}
END_TEST

static Suite *meminfo_suite(void)
{
	Suite *s = suite_create("meminfo");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_field_names_round_trip);
	tcase_add_test(core, test_near_miss_keys_ignored);
	tcase_add_test(core, test_format_variants);
	tcase_add_test(core, test_quirk_no_memavailable);
	tcase_add_test(malformed, test_malformed_inputs);
	tcase_add_test(malformed, test_overflow);
	tcase_add_test(malformed, test_output_untouched_on_error);
	tcase_add_test(malformed, test_truncated_every_offset);
	tcase_add_test(malformed, test_random_garbage);
	tcase_add_test(kernels, test_vm_2cpu_idle_1_values);
	tcase_add_test(kernels, test_host_16cpu_load_2_values);
	tcase_add_test(kernels, test_every_capture);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(meminfo_suite());
}
