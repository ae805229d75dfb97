/* test_softirqs.c — /proc/softirqs parser: row mapping, column mapping, malformed input, and
 * agreement with the softirq line of /proc/stat over the real captures. */
#include "fixture_util.h"
#include "procstat.h"
#include "scan.h"
#include "softirqs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CAP 64
#define ALL_TYPES ((1u << PW_SOFTIRQ_COUNT) - 1)

static uint64_t per_cpu[CPU_CAP * PW_SOFTIRQ_COUNT];

static uint64_t at(uint32_t cpu, enum pw_softirq_type type)
{
	return per_cpu[cpu * PW_SOFTIRQ_COUNT + type];
}

/* Parse a heap copy of exactly len bytes, so ASan reports any read past len. */
static int parse_exact(const char *buf, size_t len, uint64_t *out, uint32_t cap, struct pw_softirqs *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_softirqs_parse(copy, len, out, cap, ret);

	free(copy);
	return r;
}

static int parse_str(const char *text, struct pw_softirqs *ret)
{
	return parse_exact(text, strlen(text), per_cpu, CPU_CAP, ret);
}

static int parse_fixture(const char *relpath, struct pw_softirqs *ret)
{
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	int r = parse_exact(buf, len, per_cpu, CPU_CAP, ret);

	free(buf);
	return r;
}

/* The per-type counts of the "softirq" line of /proc/stat, which pw_procstat_parse() skips
 * (it keeps only the total): total first, then one column per type in enum order. */
static void stat_softirq_line(const char *relpath, uint64_t *ret_total, uint64_t types[PW_SOFTIRQ_COUNT])
{
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	const char *key = "softirq ";
	struct pw_scan scan;
	bool found = false;

	pw_scan_init(&scan, buf, len);
	while (!found && !pw_scan_eof(&scan)) {
		if ((size_t)(scan.end - scan.pos) > strlen(key) && memcmp(scan.pos, key, strlen(key)) == 0) {
			scan.pos += strlen(key);
			ck_assert_int_eq(pw_scan_u64(&scan, ret_total), 0);
			for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
				ck_assert_int_eq(pw_scan_u64(&scan, &types[t]), 0);
			found = true;
		}
		pw_scan_next_line(&scan);
	}
	free(buf);
	ck_assert_msg(found, "%s has no softirq line", relpath);
}

/* ---- core ---- */

START_TEST(test_vm_idle_values)
{
	struct pw_softirqs si;

	ck_assert_int_eq(parse_fixture("kernels/vm-2cpu-idle-1/proc/softirqs", &si), 0);
	ck_assert_uint_eq(si.present, ALL_TYPES);
	ck_assert_uint_eq(si.cpu_seen, 2);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_TIMER], 11658);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_NET_RX], 1571);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_BLOCK], 36611);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_SCHED], 30702);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_RCU], 30878);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_HI], 0);
	ck_assert_uint_eq(at(0, PW_SOFTIRQ_TIMER), 6396);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_TIMER), 5262);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_BLOCK), 36611);
	ck_assert_uint_eq(at(0, PW_SOFTIRQ_NET_TX), 4);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_RCU), 15823);
	ck_assert_uint_eq(at(2, PW_SOFTIRQ_RCU), 0);
}
END_TEST

START_TEST(test_host_values)
{
	struct pw_softirqs si;

	ck_assert_int_eq(parse_fixture("kernels/host-16cpu-load-1/proc/softirqs", &si), 0);
	ck_assert_uint_eq(si.cpu_seen, 16);
	ck_assert_uint_eq(at(15, PW_SOFTIRQ_BLOCK), 1069);
	ck_assert_uint_eq(at(8, PW_SOFTIRQ_NET_TX), 2);
	ck_assert_uint_eq(at(2, PW_SOFTIRQ_TIMER), 767);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_NET_RX], 68);
}
END_TEST

START_TEST(test_block_iopoll)
{
	struct pw_softirqs si;

	ck_assert_int_eq(parse_fixture("quirks/softirqs-block-iopoll/softirqs", &si), 0);
	ck_assert_uint_eq(si.present, ALL_TYPES);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_IRQ_POLL], 10);
	ck_assert_uint_eq(at(0, PW_SOFTIRQ_IRQ_POLL), 7);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_IRQ_POLL), 3);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_BLOCK], 34580);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_TIMER], 2500566);
}
END_TEST

START_TEST(test_unknown_row)
{
	struct pw_softirqs si;

	ck_assert_int_eq(parse_fixture("quirks/softirqs-unknown-row/softirqs", &si), 0);
	ck_assert_uint_eq(si.present, ALL_TYPES);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_HRTIMER], 1);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_RCU], 1300);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_RCU), 600);
	uint64_t sum = 0;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		sum += si.total[t];
	ck_assert_uint_eq(sum, 3 + 300 + 7 + 110 + 11 + 0 + 15 + 1700 + 1 + 1300);
}
END_TEST

/* Offline CPUs, missing rows, short rows and extra columns. */
START_TEST(test_columns_and_rows)
{
	struct pw_softirqs si;
	const char *text = "      CPU0 CPU2 CPU5\n"
	                   "    HI: 1 2 3\n"
	                   " TIMER: 10 20 30 40 50\n"
	                   "   RCU: 7\n";

	memset(per_cpu, 0xff, sizeof(per_cpu));
	ck_assert_int_eq(parse_str(text, &si), 0);
	ck_assert_uint_eq(si.cpu_seen, 6);
	ck_assert_uint_eq(si.present,
	                  (1u << PW_SOFTIRQ_HI) | (1u << PW_SOFTIRQ_TIMER) | (1u << PW_SOFTIRQ_RCU));
	ck_assert_uint_eq(at(2, PW_SOFTIRQ_HI), 2);
	ck_assert_uint_eq(at(5, PW_SOFTIRQ_TIMER), 30);
	ck_assert_uint_eq(at(1, PW_SOFTIRQ_TIMER), 0);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_TIMER], 60);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_RCU], 7);
	ck_assert_uint_eq(at(2, PW_SOFTIRQ_RCU), 0);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_SCHED], 0);
	ck_assert_uint_eq(at(0, PW_SOFTIRQ_SCHED), 0);
	ck_assert_uint_eq(at(CPU_CAP - 1, PW_SOFTIRQ_RCU), 0);
}
END_TEST

START_TEST(test_capacity)
{
	struct pw_softirqs si;
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/softirqs", &len);

	memset(per_cpu, 0xff, sizeof(per_cpu));
	ck_assert_int_eq(parse_exact(buf, len, per_cpu, 4, &si), -ENOBUFS);
	ck_assert_uint_eq(si.cpu_seen, 16);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_BLOCK], 641 + 1069); /* CPUs 14 and 15 */
	ck_assert_uint_eq(at(3, PW_SOFTIRQ_TIMER), 73);
	ck_assert_uint_eq(per_cpu[4 * PW_SOFTIRQ_COUNT], UINT64_MAX); /* past cpu_cap: not touched */
	ck_assert_int_eq(parse_exact(buf, len, NULL, 0, &si), -ENOBUFS);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_SCHED], 3910);
	ck_assert_int_eq(parse_exact(buf, len, NULL, 16, &si), 0);
	free(buf);
}
END_TEST

/* ---- malformed ---- */

START_TEST(test_bad_input)
{
	struct pw_softirqs si, before;
	size_t len;
	char *garbage = pw_fixture_read("quirks/stat-garbage/stat", &len);

	memset(&si, 0x5a, sizeof(si));
	before = si;
	ck_assert_int_eq(parse_exact(garbage, len, per_cpu, CPU_CAP, &si), -EINVAL);
	ck_assert(memcmp(&si, &before, sizeof(si)) == 0);
	free(garbage);
	ck_assert_int_eq(parse_str("", &si), -EINVAL);
	ck_assert_int_eq(parse_str("\nHI: 1\n", &si), -EINVAL);
	ck_assert_int_eq(parse_str("CPU1 CPU0\nHI: 1 2\n", &si), -EINVAL);
	ck_assert_int_eq(parse_str("CPU0 CPU1\nHI 1 2\n", &si), -EINVAL);
	ck_assert_int_eq(parse_str("CPU0 CPU1\nHI: 1 x\n", &si), -EINVAL);
	ck_assert_int_eq(parse_str("CPU0 CPU1\nHI: 1 -2\n", &si), -EINVAL);
	ck_assert_int_eq(parse_str("CPU0 CPU1\nHI: 1 18446744073709551616\n", &si), -ERANGE);
	ck_assert_int_eq(parse_str("CPU0 CPU1\nHI: 1 18446744073709551615\n", &si), -ERANGE);
	/* An unknown row is not validated beyond its name. */
	ck_assert_int_eq(parse_str("CPU0 CPU1\nFUTURE: a b\nHI: 1 2\n", &si), 0);
	ck_assert_uint_eq(si.total[PW_SOFTIRQ_HI], 3);
}
END_TEST

START_TEST(test_no_nul)
{
	struct pw_softirqs a, b;
	static uint64_t saved[CPU_CAP * PW_SOFTIRQ_COUNT];
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-idle-3/proc/softirqs", &len);

	ck_assert_int_eq(pw_softirqs_parse(buf, len, per_cpu, CPU_CAP, &a), 0);
	memcpy(saved, per_cpu, sizeof(saved));
	ck_assert_int_eq(parse_exact(buf, len, per_cpu, CPU_CAP, &b), 0);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
	ck_assert(memcmp(saved, per_cpu, sizeof(saved)) == 0);
	free(buf);
}
END_TEST

/* A prefix never has a type or a count the whole file lacks. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_softirqs *si = ret;
	const struct pw_softirqs *full = whole;
	int r = pw_softirqs_parse(buf, len, per_cpu, CPU_CAP, si);

	if (r == 0) {
		ck_assert_uint_eq(si->present & ~full->present, 0);
		for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
			ck_assert_uint_le(si->total[t], full->total[t]);
	}
	return r;
}

static void check_prefixes(const char *relpath)
{
	struct pw_softirqs full, si;
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);

	ck_assert_int_eq(pw_softirqs_parse(buf, len, per_cpu, CPU_CAP, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &si, &full);
	free(buf);
}

START_TEST(test_every_prefix)
{
	check_prefixes("kernels/vm-2cpu-idle-1/proc/softirqs");
	check_prefixes("kernels/host-16cpu-load-1/proc/softirqs");
	check_prefixes("quirks/softirqs-block-iopoll/softirqs");
}
END_TEST

/* ---- kernels ---- */

static void check_capture(const char *id)
{
	struct pw_softirqs si;
	uint64_t nproc = pw_fixture_kernel_nproc(id);
	uint64_t stat_total, stat_types[PW_SOFTIRQ_COUNT], sum_types = 0, sum_stat = 0;

	ck_assert_msg(parse_fixture(pw_fixture_kernel_path(id, "proc/softirqs"), &si) == 0, "%s", id);
	ck_assert_uint_eq(si.present, ALL_TYPES);
	ck_assert_uint_eq(si.cpu_seen, nproc);
	stat_softirq_line(pw_fixture_kernel_path(id, "proc/stat"), &stat_total, stat_types);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		uint64_t column_sum = 0;
		for (uint32_t c = 0; c < CPU_CAP; c++)
			column_sum += at(c, (enum pw_softirq_type)t);
		ck_assert_uint_eq(si.total[t], column_sum);
		/* Same kernel counters, read a moment apart: /proc/softirqs was read after /proc/stat in
		 * these captures (seen: 0..16 more, on RCU and SCHED), never before. Allow a few events per
		 * CPU either way so a capture taken in the other order still passes. */
		int64_t drift = (int64_t)(si.total[t] - stat_types[t]);
		ck_assert_msg(drift >= -8 * (int64_t)nproc && drift <= 8 * (int64_t)nproc,
		              "%s %s: softirqs %llu, stat %llu", id, pw_softirq_name(t),
		              (unsigned long long)si.total[t], (unsigned long long)stat_types[t]);
		sum_types += si.total[t];
		sum_stat += stat_types[t];
	}
	/* Within /proc/stat the first number is exactly the sum of the per-type columns. */
	ck_assert_uint_eq(stat_total, sum_stat);
	ck_assert_uint_ge(sum_types + 8 * nproc, stat_total);
}

START_TEST(test_captures)
{
	pw_fixture_each_kernel(check_capture);
}
END_TEST

/* pw_procstat_parse() keeps the same total the softirq line starts with. */
START_TEST(test_captures_stat_total)
{
	static struct pw_cpu_times cpus[CPU_CAP];
	char *ids[PW_FIXTURE_KERNELS_MAX];
	size_t n = pw_fixture_kernel_ids(ids, PW_FIXTURE_KERNELS_MAX);

	for (size_t i = 0; i < n; i++) {
		struct pw_procstat st;
		uint64_t stat_total, types[PW_SOFTIRQ_COUNT];
		size_t len;
		char *buf = pw_fixture_read(pw_fixture_kernel_path(ids[i], "proc/stat"), &len);

		ck_assert_int_eq(pw_procstat_parse(buf, len, cpus, CPU_CAP, &st, NULL), 0);
		free(buf);
		stat_softirq_line(pw_fixture_kernel_path(ids[i], "proc/stat"), &stat_total, types);
		ck_assert_uint_eq(st.softirq_total, stat_total);
		free(ids[i]);
	}
}
END_TEST

static Suite *softirqs_suite(void)
{
	Suite *s = suite_create("softirqs");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_vm_idle_values);
	tcase_add_test(core, test_host_values);
	tcase_add_test(core, test_block_iopoll);
	tcase_add_test(core, test_unknown_row);
	tcase_add_test(core, test_columns_and_rows);
	tcase_add_test(core, test_capacity);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_bad_input);
	tcase_add_test(malformed, test_no_nul);
	tcase_add_test(malformed, test_every_prefix);
	suite_add_tcase(s, malformed);

	tcase_add_test(kernels, test_captures);
	tcase_add_test(kernels, test_captures_stat_total);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(softirqs_suite());
}
