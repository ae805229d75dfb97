/* test_pressure.c — pw_pressure_parse over real captures, quirk files and broken input. */
#include "fixture_util.h"
#include "pressure.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PW_TEST_PARSER_WRAPPERS(struct pw_psi, pw_pressure_parse)

static void assert_line(const struct pw_psi_line *line, uint32_t avg10, uint32_t avg60, uint32_t avg300,
                        uint64_t total_us)
{
	ck_assert(line->present);
	ck_assert_uint_eq(line->avg10, avg10);
	ck_assert_uint_eq(line->avg60, avg60);
	ck_assert_uint_eq(line->avg300, avg300);
	ck_assert_uint_eq(line->total_us, total_us);
}

static void assert_absent(const struct pw_psi_line *line)
{
	ck_assert(!line->present);
	ck_assert_uint_eq(line->avg10 | line->avg60 | line->avg300, 0);
	ck_assert_uint_eq(line->total_us, 0);
}

START_TEST(test_format_variants)
{
	struct pw_psi psi;

	/* Full scale, any pair order, unknown pairs and unknown line kinds ignored, no final newline. */
	ck_assert_int_eq(parse_str("some total=5 avg300=100.00 avg1=7 avg60=0.5 avg10=99.99\n"
	                           "partial avg10=1.00\n"
	                           "full avg10=0.01 avg60=1 avg300=12.34 total=18446744073709551615",
	                           &psi),
	                 0);
	assert_line(&psi.some, 9999, 50, 10000, 5);
	assert_line(&psi.full, 1, 100, 1234, UINT64_MAX);
	/* Tabs and repeated blanks. */
	ck_assert_int_eq(parse_str("some\tavg10=1.00  avg60=2.00\tavg300=3.00 total=4\n", &psi), 0);
	assert_line(&psi.some, 100, 200, 300, 4);
	assert_absent(&psi.full);
}
END_TEST

START_TEST(test_quirk_cpu_without_full)
{
	struct pw_psi psi = parse_fixture("quirks/pressure-cpu-no-full/cpu");

	assert_line(&psi.some, 117, 62, 25, 61034571);
	assert_absent(&psi.full);
}
END_TEST

START_TEST(test_quirk_irq_full_only)
{
	struct pw_psi psi = parse_fixture("quirks/pressure-irq-full-only/irq");

	assert_absent(&psi.some);
	assert_line(&psi.full, 21, 6, 1, 3819264);
}
END_TEST

START_TEST(test_malformed_inputs)
{
	static const char *const bad[] = {
	        "",
	        "\n",
	        "garbage\n",
	        "some\n",
	        "some avg10=1.00 avg60=1.00 avg300=1.00\n", /* no total */
	        "some avg10=1.00 avg60=1.00 total=1\n",     /* no avg300 */
	        "some avg10=x avg60=1.00 avg300=1.00 total=1\n",
	        "some avg10 avg60=1.00 avg300=1.00 total=1\n",
	        "some avg10=1.00x avg60=1.00 avg300=1.00 total=1\n",
	        "some avg10=1.0.0 avg60=1.00 avg300=1.00 total=1\n",
	        "some avg10= avg60=1.00 avg300=1.00 total=1\n",
	        "some avg10=1.00 avg60=1.00 avg300=1.00 total=-1\n",
	        "full avg10=1.00 avg60=1.00 avg300=1.00 total=1\n\n",
	};

	pw_test_each_refused(parse_result, bad, sizeof(bad) / sizeof(bad[0]));
}
END_TEST

START_TEST(test_overflow)
{
	struct pw_psi psi;

	ck_assert_int_eq(
	        parse_str("some avg10=0.00 avg60=0.00 avg300=0.00 total=18446744073709551616\n", &psi),
	        -ERANGE);
	ck_assert_int_eq(parse_str("full avg10=42949673.00 avg60=0.00 avg300=0.00 total=0\n", &psi), -ERANGE);
}
END_TEST

START_TEST(test_output_untouched_on_error)
{
	struct pw_psi psi, before;

	memset(&psi, 0xa5, sizeof(psi));
	memcpy(&before, &psi, sizeof(psi));
	ck_assert_int_eq(parse_str("some avg10=1.00 avg60=1.00 avg300=1.00 total=1\nfull avg10=1\n", &psi),
	                 -EINVAL);
	ck_assert_mem_eq(&psi, &before, sizeof(psi));
	ck_assert_int_eq(parse_str("", &psi), -EINVAL);
	ck_assert_mem_eq(&psi, &before, sizeof(psi));
}
END_TEST

static void assert_prefix_le(const struct pw_psi_line *part, const struct pw_psi_line *full)
{
	if (!part->present)
		return;
	ck_assert(full->present);
	ck_assert_uint_le(part->avg10, full->avg10);
	ck_assert_uint_le(part->avg60, full->avg60);
	ck_assert_uint_le(part->avg300, full->avg300);
	ck_assert_uint_le(part->total_us, full->total_us);
}

/* A prefix only loses lines, and a cut number only loses digits. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_psi *part = ret;
	const struct pw_psi *full = whole;
	int r = pw_pressure_parse(buf, len, part);

	if (r == 0) {
		assert_prefix_le(&part->some, &full->some);
		assert_prefix_le(&part->full, &full->full);
	}
	return r;
}

START_TEST(test_truncated_every_offset)
{
	static const char relpath[] = "kernels/vm-2cpu-idle-1/proc/pressure/io";
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	struct pw_psi full, part;

	ck_assert_int_eq(parse_exact(buf, len, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &part, &full);
	assert_line(&part.some, full.some.avg10, full.some.avg60, full.some.avg300, full.some.total_us);
	assert_line(&part.full, full.full.avg10, full.full.avg60, full.full.avg300, full.full.total_us);
	free(buf);
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "somefulavgtr=136.0 89\n\t\0\xff";

	pw_test_random_garbage(parse_result, alphabet, sizeof(alphabet) - 1, 777, 160, 20000);
}
END_TEST

START_TEST(test_vm_2cpu_idle_1_values)
{
	struct pw_psi psi = parse_fixture("kernels/vm-2cpu-idle-1/proc/pressure/cpu");

	assert_line(&psi.some, 1086, 715, 242, 10045246);
	assert_line(&psi.full, 0, 0, 0, 0);
	psi = parse_fixture("kernels/vm-2cpu-idle-1/proc/pressure/io");
	assert_line(&psi.some, 55, 127, 51, 2436491);
	assert_line(&psi.full, 48, 106, 42, 2096471);
	psi = parse_fixture("kernels/vm-2cpu-idle-1/proc/pressure/memory");
	assert_line(&psi.some, 0, 0, 0, 0);
	assert_line(&psi.full, 0, 0, 0, 0);
}
END_TEST

START_TEST(test_host_16cpu_load_2_values)
{
	struct pw_psi psi = parse_fixture("kernels/host-16cpu-load-2/proc/pressure/cpu");

	assert_line(&psi.some, 44, 69, 20, 1145484);
	psi = parse_fixture("kernels/host-16cpu-load-2/proc/pressure/io");
	assert_line(&psi.some, 254, 88, 20, 689302);
	assert_line(&psi.full, 254, 88, 20, 687712);
}
END_TEST

static void check_line(const char *what, const struct pw_psi_line *line)
{
	ck_assert_msg(line->present, "%s: line absent", what);
	ck_assert_msg(line->avg10 <= 10000 && line->avg60 <= 10000 && line->avg300 <= 10000,
	              "%s: an average above 100%%", what);
}

static void check_capture(const char *id)
{
	static const char *const files[] = {"cpu", "memory", "io"};
	char rel[512];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pw_psi psi;

		snprintf(rel, sizeof(rel), "kernels/%s/proc/pressure/%s", id, files[i]);
		psi = parse_fixture(rel);
		check_line(rel, &psi.some);
		check_line(rel, &psi.full);
		/* "full" time is a subset of "some" time. */
		ck_assert_msg(psi.full.total_us <= psi.some.total_us, "%s: full > some", rel);
		/* psi.rst: system-wide cpu "full" is always zero (it exists for cgroups). */
		if (i == 0)
			ck_assert_msg(psi.full.total_us == 0 && psi.full.avg10 == 0, "%s: cpu full", rel);
	}
}

/* irq pressure only exists with IRQ time accounting; the captured kernels refused the read, which
 * a capture stores as an empty file and the parser must reject rather than report zero pressure. */
static void check_capture_irq(const char *id)
{
	char rel[512];
	size_t len;
	struct pw_psi psi;

	snprintf(rel, sizeof(rel), "kernels/%s/proc/pressure/irq", id);
	char *buf = pw_fixture_read(rel, &len);
	if (len == 0) {
		ck_assert_int_eq(parse_exact(buf, len, &psi), -EINVAL);
	} else {
		ck_assert_int_eq(parse_exact(buf, len, &psi), 0);
		ck_assert_msg(!psi.some.present, "%s: irq has no some line", rel);
		check_line(rel, &psi.full);
	}
	free(buf);
}

static void check_capture_and_irq(const char *id)
{
	check_capture(id);
	check_capture_irq(id);
}

START_TEST(test_every_capture)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_capture_and_irq), 0);
}
END_TEST

static Suite *pressure_suite(void)
{
	Suite *s = suite_create("pressure");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_format_variants);
	tcase_add_test(core, test_quirk_cpu_without_full);
	tcase_add_test(core, test_quirk_irq_full_only);
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
	return pw_run_suite(pressure_suite());
}
