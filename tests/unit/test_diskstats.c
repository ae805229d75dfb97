/* test_diskstats.c — pw_diskstats_parse over the kernel captures and a mix of formats and device
 * kinds; the whole-disk name test; malformed lines skipped and counted. */
#include "diskstats.h"
#include "fixture_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAP 64

static int parse_exact(const char *buf, size_t len, struct pw_disk *ret, uint32_t cap, uint32_t *bad)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_diskstats_parse(copy, len, ret, cap, bad);

	free(copy);
	return r;
}

static const struct pw_disk *find(const struct pw_disk *d, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

START_TEST(test_capture)
{
	struct pw_disk d[CAP];
	uint32_t bad = 99;
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/diskstats", &len);
	int n = parse_exact(buf, len, d, CAP, &bad);

	ck_assert_int_eq(n, 11); /* loop0-7, vda, vdb, zram0 */
	ck_assert_uint_eq(bad, 0);
	const struct pw_disk *vda = find(d, n, "vda");
	ck_assert_ptr_nonnull(vda);
	ck_assert_uint_eq(vda->major, 254);
	ck_assert_uint_eq(vda->minor, 0);
	ck_assert_uint_eq(vda->reads, 2870);
	ck_assert_uint_eq(vda->sectors_read, 1287730);
	ck_assert_uint_eq(vda->writes, 37);
	ck_assert_uint_eq(vda->sectors_written, 504);
	ck_assert_uint_eq(vda->io_ticks_ms, 916);
	ck_assert_uint_eq(find(d, n, "vdb")->io_ticks_ms, 116);
	free(buf);
}
END_TEST

static void check_kernel(const char *id)
{
	struct pw_disk d[CAP];
	uint32_t bad;
	size_t len;
	char *buf = pw_file_read(pw_fixture_path(pw_fixture_kernel_path(id, "proc/diskstats")), &len);
	int n = parse_exact(buf, len, d, CAP, &bad);

	ck_assert_msg(n > 0 && bad == 0, "%s: %d devices, %u bad lines", id, n, bad);
	ck_assert_msg(find(d, n, "vda") != NULL, "%s: no vda", id);
	free(buf);
}

START_TEST(test_kernels)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_kernel), 0);
}
END_TEST

START_TEST(test_mixed)
{
	struct pw_disk d[CAP];
	uint32_t bad = 0;
	size_t len;
	char *buf = pw_fixture_read("quirks/diskstats-mixed/diskstats", &len);
	int n = parse_exact(buf, len, d, CAP, &bad);

	ck_assert_int_eq(n, 11);
	ck_assert_uint_eq(bad, 2); /* sr0 junk, sdb cut short */
	ck_assert_ptr_null(find(d, n, "sr0"));
	ck_assert_uint_eq(find(d, n, "sda")->io_ticks_ms, 903120);
	ck_assert_uint_eq(find(d, n, "nvme0n1")->writes, 9120331);
	ck_assert_uint_eq(find(d, n, "mmcblk0")->io_ticks_ms, 288); /* 11 fields, before 4.18 */
	ck_assert_uint_eq(find(d, n, "dm-0")->sectors_written, 813000000);
	/* Over capacity: the first ones kept, the caller told. */
	ck_assert_int_eq(parse_exact(buf, len, d, 3, &bad), -ENOBUFS);
	ck_assert_str_eq(d[2].name, "sda");
	free(buf);
}
END_TEST

START_TEST(test_whole_names)
{
	static const char *const whole[] = {"sda",     "sdab",     "vda",     "xvdb", "hdc",
	                                    "nvme0n1", "nvme10n2", "mmcblk0", "dm-0", "dm-12",
	                                    "md127",   "zram0",    "sr0",     "nbd3"};
	static const char *const not_whole[] = {"sda1",      "sdab12",      "vda3",      "xvdb1",  "hdc2",
	                                        "nvme0n1p1", "nvme10n2p15", "mmcblk0p1", "nbd3p2", "loop0",
	                                        "loop12",    "ram0",        ""};

	for (size_t i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		ck_assert_msg(pw_disk_name_is_whole(whole[i]), "%s", whole[i]);
	for (size_t i = 0; i < sizeof(not_whole) / sizeof(not_whole[0]); i++)
		ck_assert_msg(!pw_disk_name_is_whole(not_whole[i]), "%s", not_whole[i]);
}
END_TEST

START_TEST(test_malformed)
{
	struct pw_disk d[CAP];
	uint32_t bad;
	static const char huge[] = "8 0 sda 1 2 3 4 5 6 7 8 9 18446744073709551616 11\n8 16 sdb 1 2 3 4 5 "
	                           "6 7 8 9 10 11\n";

	ck_assert_int_eq(parse_exact("", 0, d, CAP, &bad), 0);
	ck_assert_uint_eq(bad, 0);
	ck_assert_int_eq(parse_exact("\n\n", 2, d, CAP, &bad), 0);
	ck_assert_int_eq(parse_exact(huge, sizeof(huge) - 1, d, CAP, &bad), 1);
	ck_assert_uint_eq(bad, 1);
	ck_assert_str_eq(d[0].name, "sdb");
	ck_assert_uint_eq(d[0].io_ticks_ms, 10);
	/* A line cut inside its eleventh field is bad, not a small io_ticks. */
	ck_assert_int_eq(parse_exact("8 0 sda 1 2 3 4 5 6 7 8 9 10 1", 30, d, CAP, &bad), 1);
	ck_assert_int_eq(parse_exact("8 0 sda 1 2 3 4 5 6 7 8 9 10", 28, d, CAP, &bad), 0);
	ck_assert_uint_eq(bad, 1);
	ck_assert_int_eq(parse_exact("8 0 sda 1 2 3 4 5 6 7 8 9 10x 11\n", 33, d, CAP, &bad), 0);
	ck_assert_uint_eq(bad, 1);
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "0123456789 sda-\n\t\0\xff";
	uint32_t seed = 11, bad;
	char buf[512];
	struct pw_disk d[4];

	for (int i = 0; i < 20000; i++) {
		size_t len = pw_test_random_input(&seed, alphabet, sizeof(alphabet) - 1, buf, sizeof(buf));
		int r = parse_exact(buf, len, d, 4, &bad);
		ck_assert(r >= 0 || r == -ENOBUFS);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("diskstats");
	TCase *core = tcase_create("core"), *malformed = tcase_create("malformed"),
	      *kernels = tcase_create("kernels");

	tcase_add_test(core, test_capture);
	tcase_add_test(core, test_mixed);
	tcase_add_test(core, test_whole_names);
	tcase_add_test(kernels, test_kernels);
	tcase_add_test(malformed, test_malformed);
	tcase_add_test(malformed, test_random_garbage);
	suite_add_tcase(s, core);
	suite_add_tcase(s, kernels);
	suite_add_tcase(s, malformed);
	return pw_run_suite(s);
}
