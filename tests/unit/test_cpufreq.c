/* test_cpufreq.c — the cpufreq sysfs parsers over hand-built sysfs trees (incident 2), real captures
 * and broken input. */
#include "cpufreq.h"
#include "fixture_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_CAP 256 /* kernel_max 255 on the captured kernels */
#define ACPI "cpufreq/acpi-ondemand-16cpu"
#define SYS "sys/devices/system/cpu"

/* Each wrapper parses a copy in a heap block of exactly len bytes, so ASan reports any read past len. */
static int u64_exact(const char *buf, size_t len, uint64_t *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_sysfs_parse_u64(copy, len, ret);

	free(copy);
	return r;
}

static int word_exact(const char *buf, size_t len, char *ret, size_t size)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_sysfs_parse_word(copy, len, ret, size);

	free(copy);
	return r;
}

static int tis_exact(const char *buf, size_t len, struct pw_time_in_state *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_time_in_state_parse(copy, len, ret);

	free(copy);
	return r;
}

static int cpulist_exact(const char *buf, size_t len, bool *mask, uint32_t cap)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_cpulist_parse(copy, len, mask, cap);

	free(copy);
	return r;
}

static int tis_str(const char *s, struct pw_time_in_state *ret)
{
	return tis_exact(s, strlen(s), ret);
}

static int cpulist_str(const char *s, bool *mask, uint32_t cap)
{
	return cpulist_exact(s, strlen(s), mask, cap);
}

/* Fixture readers: "<tree>/sys/devices/system/cpu/<name>", asserting that the file parses. */
static char *read_cpu_file(const char *tree, const char *name, size_t *len)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/" SYS "/%s", tree, name);
	return pw_fixture_read(rel, len);
}

static bool cpu_file_exists(const char *tree, const char *name)
{
	char rel[512];

	snprintf(rel, sizeof(rel), "%s/" SYS "/%s", tree, name);
	return access(pw_fixture_path(rel), F_OK) == 0;
}

static uint64_t read_u64(const char *tree, const char *name)
{
	size_t len;
	uint64_t value;
	char *buf = read_cpu_file(tree, name, &len);

	ck_assert_msg(u64_exact(buf, len, &value) == 0, "%s/%s", tree, name);
	free(buf);
	return value;
}

static void read_word(const char *tree, const char *name, char *ret, size_t size)
{
	size_t len;
	char *buf = read_cpu_file(tree, name, &len);

	ck_assert_msg(word_exact(buf, len, ret, size) == 0, "%s/%s", tree, name);
	free(buf);
}

static struct pw_time_in_state read_tis(const char *tree, uint32_t cpu)
{
	char name[64];
	size_t len;
	struct pw_time_in_state tis;

	snprintf(name, sizeof(name), "cpu%u/cpufreq/stats/time_in_state", cpu);
	char *buf = read_cpu_file(tree, name, &len);
	ck_assert_msg(tis_exact(buf, len, &tis) == 0, "%s/%s", tree, name);
	free(buf);
	return tis;
}

static int read_cpulist(const char *tree, const char *name, bool *mask)
{
	size_t len;
	char *buf = read_cpu_file(tree, name, &len);
	int r = cpulist_exact(buf, len, mask, CPU_CAP);

	free(buf);
	return r;
}

/* ---- core ---- */

START_TEST(test_sysfs_u64)
{
	uint64_t v = 0;

	ck_assert_int_eq(u64_exact("1200000\n", 8, &v), 0);
	ck_assert_uint_eq(v, 1200000);
	ck_assert_int_eq(u64_exact("2000000", 7, &v), 0); /* the newline is optional */
	ck_assert_uint_eq(v, 2000000);
	ck_assert_int_eq(u64_exact(" 7 \n", 4, &v), 0);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(u64_exact("18446744073709551615\n", 21, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
}
END_TEST

START_TEST(test_sysfs_word)
{
	char word[PW_CPUFREQ_NAME_MAX];
	char tiny[4];

	ck_assert_int_eq(word_exact("ondemand\n", 9, word, sizeof(word)), 0);
	ck_assert_str_eq(word, "ondemand");
	ck_assert_int_eq(word_exact("acpi-cpufreq", 12, word, sizeof(word)), 0);
	ck_assert_str_eq(word, "acpi-cpufreq");
	/* Truncated to the buffer, still NUL-terminated. */
	ck_assert_int_eq(word_exact("powersave\n", 10, tiny, sizeof(tiny)), 0);
	ck_assert_str_eq(tiny, "pow");
}
END_TEST

START_TEST(test_time_in_state_sums)
{
	struct pw_time_in_state tis = read_tis(ACPI "/t0", 3);

	ck_assert_uint_eq(tis.nstates, 9);
	ck_assert_uint_eq(tis.min_khz, 1200000);
	ck_assert_uint_eq(tis.max_khz, 2000000);
	ck_assert_uint_eq(tis.time, 27359991);
	ck_assert_uint_eq(tis.khz_time, 36721322800000u);
	tis = read_tis("cpufreq/vanishing-2cpu", 0);
	ck_assert_uint_eq(tis.nstates, 4);
	ck_assert_uint_eq(tis.min_khz, 1400000);
	ck_assert_uint_eq(tis.max_khz, 2600000);
	ck_assert_uint_eq(tis.time, 3222036);
	ck_assert_uint_eq(tis.khz_time, 5115427600000u);
	/* Ascending order, a zero state, extra columns. */
	ck_assert_int_eq(tis_str("0 4\n800000 1 x\n900000 0\n", &tis), 0);
	ck_assert_uint_eq(tis.nstates, 3);
	ck_assert_uint_eq(tis.min_khz, 0);
	ck_assert_uint_eq(tis.max_khz, 900000);
	ck_assert_uint_eq(tis.time, 5);
	ck_assert_uint_eq(tis.khz_time, 800000);
}
END_TEST

START_TEST(test_cpulist)
{
	bool mask[16];

	ck_assert_int_eq(cpulist_str("0-3,5,7-8\n", mask, 16), 7);
	for (int i = 0; i < 16; i++)
		ck_assert_int_eq(mask[i], (i <= 3 || i == 5 || i == 7 || i == 8));
	ck_assert_int_eq(cpulist_str("\n", mask, 16), 0);
	for (int i = 0; i < 16; i++)
		ck_assert(!mask[i]);
	ck_assert_int_eq(cpulist_str("", mask, 16), 0);
	ck_assert_int_eq(cpulist_str("15", mask, 16), 1);
	ck_assert(mask[15] && !mask[0]);
	ck_assert_int_eq(cpulist_str("0,0,0-1,1\n", mask, 16), 2); /* listed twice, counted once */
	/* Over capacity: the ids that fit are still set, and a huge range is not walked. */
	ck_assert_int_eq(cpulist_str("0-3,200\n", mask, 8), -ENOBUFS);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(mask[i], i <= 3);
	ck_assert_int_eq(cpulist_str("6-4294967295\n", mask, 8), -ENOBUFS);
	ck_assert(mask[6] && mask[7] && !mask[5]);
}
END_TEST

START_TEST(test_acpi_ondemand_tree)
{
	bool online[CPU_CAP];
	char word[PW_CPUFREQ_NAME_MAX];

	ck_assert_int_eq(read_cpulist(ACPI "/t1", "online", online), 16);
	ck_assert_uint_eq(read_u64(ACPI "/t1", "cpufreq/ondemand/up_threshold"), 95);
	ck_assert_uint_eq(read_u64(ACPI "/t1", "cpufreq/ondemand/sampling_rate"), 10000);
	for (uint32_t cpu = 0; cpu < 16; cpu++) {
		char name[128];

		ck_assert(online[cpu]);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_driver", cpu);
		read_word(ACPI "/t1", name, word, sizeof(word));
		ck_assert_str_eq(word, "acpi-cpufreq");
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_governor", cpu);
		read_word(ACPI "/t1", name, word, sizeof(word));
		ck_assert_str_eq(word, "ondemand");
		snprintf(name, sizeof(name), "cpu%u/cpufreq/cpuinfo_min_freq", cpu);
		ck_assert_uint_eq(read_u64(ACPI "/t1", name), 1200000);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/cpuinfo_max_freq", cpu);
		ck_assert_uint_eq(read_u64(ACPI "/t1", name), 2000000);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_cur_freq", cpu);
		uint64_t cur = read_u64(ACPI "/t1", name);
		ck_assert(cur >= 1200000 && cur <= 2000000 && cur % 100000 == 0);
		struct pw_time_in_state tis = read_tis(ACPI "/t1", cpu);
		ck_assert_uint_eq(tis.nstates, 9);
		ck_assert_uint_eq(tis.min_khz, 1200000);
		ck_assert_uint_eq(tis.max_khz, 2000000);
	}
}
END_TEST

/* INCIDENTS.md incident 2: the interval average frequency atop showed, from two time_in_state
 * snapshots 10 s apart: avg = delta(sum kHz*time) / delta(sum time). */
START_TEST(test_incident_2_interval_average)
{
	uint64_t avg_khz[16], sum_khz_time = 0, sum_time = 0;

	for (uint32_t cpu = 0; cpu < 16; cpu++) {
		struct pw_time_in_state t0 = read_tis(ACPI "/t0", cpu);
		struct pw_time_in_state t1 = read_tis(ACPI "/t1", cpu);
		uint64_t dkt = t1.khz_time - t0.khz_time, dt = t1.time - t0.time;

		ck_assert_uint_ge(t1.khz_time, t0.khz_time);
		ck_assert_uint_eq(dt, 1000); /* 10 s in 10 ms units */
		avg_khz[cpu] = dkt / dt;
		ck_assert(avg_khz[cpu] >= t1.min_khz && avg_khz[cpu] <= t1.max_khz);
		sum_khz_time += dkt;
		sum_time += dt;
	}
	ck_assert_uint_eq(avg_khz[3], 1940000);
	ck_assert_uint_eq(avg_khz[7], 1520000);
	ck_assert_uint_eq(avg_khz[12], 1430000);
	ck_assert_uint_eq(sum_khz_time / sum_time, 1630000);
	/* As atop prints it: per cent of the maximum, truncated. */
	ck_assert_uint_eq(avg_khz[7] * 100 / 2000000, 76);
	ck_assert_uint_eq(avg_khz[12] * 100 / 2000000, 71);
	ck_assert_uint_eq(sum_khz_time / sum_time * 100 / 2000000, 81);
	/* The busiest CPU is the only one near the maximum; scaling_cur_freq alone would not say so. */
	for (uint32_t cpu = 0; cpu < 16; cpu++)
		ck_assert(cpu == 3 || avg_khz[cpu] < 1900000);
}
END_TEST

START_TEST(test_intel_pstate_tree)
{
	static const char tree[] = "cpufreq/intel-pstate-4cpu";
	bool online[CPU_CAP];
	char word[PW_CPUFREQ_NAME_MAX];

	ck_assert_int_eq(read_cpulist(tree, "online", online), 4);
	for (uint32_t cpu = 0; cpu < 4; cpu++) {
		char name[128];

		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_driver", cpu);
		read_word(tree, name, word, sizeof(word));
		ck_assert_str_eq(word, "intel_pstate");
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_governor", cpu);
		read_word(tree, name, word, sizeof(word));
		ck_assert_str_eq(word, "powersave");
		snprintf(name, sizeof(name), "cpu%u/cpufreq/cpuinfo_min_freq", cpu);
		ck_assert_uint_eq(read_u64(tree, name), 800000);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/cpuinfo_max_freq", cpu);
		ck_assert_uint_eq(read_u64(tree, name), 4700000);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_cur_freq", cpu);
		uint64_t cur = read_u64(tree, name);
		ck_assert(cur >= 790000 && cur <= 4700000);
		/* Active-mode intel_pstate keeps no statistics. */
		snprintf(name, sizeof(name), "cpu%u/cpufreq/stats", cpu);
		ck_assert(!cpu_file_exists(tree, name));
	}
	/* A multi-word attribute is not a word. */
	size_t len;
	char *buf = read_cpu_file(tree, "cpu0/cpufreq/scaling_available_governors", &len);
	ck_assert_int_eq(word_exact(buf, len, word, sizeof(word)), -EINVAL);
	free(buf);
}
END_TEST

START_TEST(test_vanishing_tree)
{
	static const char tree[] = "cpufreq/vanishing-2cpu";
	bool online[CPU_CAP], possible[CPU_CAP], offline[CPU_CAP];
	char word[PW_CPUFREQ_NAME_MAX];

	ck_assert_int_eq(read_cpulist(tree, "online", online), 1);
	ck_assert_int_eq(read_cpulist(tree, "possible", possible), 2);
	ck_assert_int_eq(read_cpulist(tree, "offline", offline), 1);
	ck_assert(online[0] && !online[1] && offline[1] && possible[1]);
	ck_assert_uint_eq(read_u64(tree, "cpu1/online"), 0);
	ck_assert(!cpu_file_exists(tree, "cpu1/cpufreq"));
	ck_assert(cpu_file_exists(tree, "cpu0/cpufreq/scaling_cur_freq"));
	read_word(tree, "cpu0/cpufreq/scaling_governor", word, sizeof(word));
	ck_assert_str_eq(word, "schedutil");
	ck_assert_uint_eq(read_u64(tree, "cpu0/cpufreq/scaling_cur_freq"), 1400000);
}
END_TEST

/* ---- malformed ---- */

START_TEST(test_sysfs_malformed)
{
	static const char *const bad[] = {"",         "\n",     "abc\n", "12 34\n",
	                                  "12\n34\n", "12\n\n", "-1\n",  "0x10\n"};
	char word[8] = "keep";
	uint64_t v = 42;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(u64_exact(bad[i], strlen(bad[i]), &v) == -EINVAL, "accepted \"%s\"", bad[i]);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(u64_exact("18446744073709551616\n", 21, &v), -ERANGE);
	ck_assert_uint_eq(v, 42);
	ck_assert_int_eq(word_exact("", 0, word, sizeof(word)), -EINVAL);
	ck_assert_int_eq(word_exact("\n", 1, word, sizeof(word)), -EINVAL);
	ck_assert_int_eq(word_exact("performance powersave\n", 22, word, sizeof(word)), -EINVAL);
	ck_assert_int_eq(word_exact("a\nb\n", 4, word, sizeof(word)), -EINVAL);
	ck_assert_str_eq(word, "keep");
}
END_TEST

START_TEST(test_time_in_state_malformed)
{
	static const char *const bad[] = {
	        "",
	        "\n",
	        "garbage\n",
	        "1200000\n",
	        "1200000 x\n",
	        "1200000 5\n\n",
	        "1200000 5\n-1 5\n",
	        "1200000 5",
	};
	struct pw_time_in_state tis, before;

	memset(&tis, 0xa5, sizeof(tis));
	memcpy(&before, &tis, sizeof(tis));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(tis_str(bad[i], &tis) == -EINVAL, "accepted \"%s\"", bad[i]);
	ck_assert_mem_eq(&tis, &before, sizeof(tis));
}
END_TEST

START_TEST(test_time_in_state_quirks)
{
	struct pw_time_in_state tis;
	size_t len;
	char *buf = pw_fixture_read("quirks/time-in-state-truncated/time_in_state", &len);

	ck_assert_int_eq(tis_exact(buf, len, &tis), -EINVAL);
	free(buf);
	buf = pw_fixture_read("quirks/time-in-state-overflow/time_in_state", &len);
	ck_assert_int_eq(tis_exact(buf, len, &tis), -ERANGE);
	free(buf);
}
END_TEST

START_TEST(test_time_in_state_overflow)
{
	struct pw_time_in_state tis;

	/* kHz wider than the 32-bit min/max fields. */
	ck_assert_int_eq(tis_str("4294967296 1\n", &tis), -ERANGE);
	/* One product over 2^64. */
	ck_assert_int_eq(tis_str("4294967295 4294967297\n", &tis), 0); /* 2^64 - 1 exactly */
	ck_assert_uint_eq(tis.khz_time, UINT64_MAX);
	ck_assert_int_eq(tis_str("4294967295 4294967298\n", &tis), -ERANGE);
	/* Products that fit, but not their sum: 4e9 * 4611686018 = 18446744072000000000. */
	ck_assert_int_eq(tis_str("4000000000 4611686018\n", &tis), 0);
	ck_assert_uint_eq(tis.khz_time, 18446744072000000000u);
	ck_assert_int_eq(tis_str("4000000000 4611686018\n1 1709551616\n", &tis), -ERANGE);
	/* The time sum alone. */
	ck_assert_int_eq(tis_str("0 18446744073709551615\n0 1\n", &tis), -ERANGE);
	ck_assert_int_eq(tis_str("1 18446744073709551616\n", &tis), -ERANGE);
}
END_TEST

/* Only a cut at a line end parses: then it is a true subset of the states. */
static int tis_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_time_in_state *part = ret;
	const struct pw_time_in_state *full = whole;
	int r = pw_time_in_state_parse(buf, len, part);

	ck_assert_msg(r < 0 || buf[len - 1] == '\n', "offset %zu accepted mid-line", len);
	if (r == 0) {
		ck_assert_uint_le(part->nstates, full->nstates);
		ck_assert_uint_le(part->time, full->time);
		ck_assert_uint_le(part->khz_time, full->khz_time);
	}
	return r;
}

START_TEST(test_time_in_state_truncated_every_offset)
{
	size_t len;
	char *buf = read_cpu_file(ACPI "/t1", "cpu3/cpufreq/stats/time_in_state", &len);
	struct pw_time_in_state full, part;

	ck_assert_int_eq(tis_exact(buf, len, &full), 0);
	pw_test_every_prefix(ACPI "/t1/" SYS "/cpu3/cpufreq/stats/time_in_state", buf, len, tis_prefix, &part,
	                     &full);
	ck_assert_uint_eq(part.khz_time, full.khz_time);
	free(buf);
}
END_TEST

START_TEST(test_cpulist_malformed)
{
	static const char *const bad[] = {
	        "3-1\n",
	        "0-\n",
	        "-1\n",
	        "0,,1\n",
	        "0-3,\n",
	        ",0\n",
	        "a\n",
	        "0 1\n",
	        "0-3\n5\n",
	        "0-3\n\n",
	        "0--3\n",
	        "0-3-5\n",
	        "99999999999999999999999\n",
	};
	bool mask[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(cpulist_str(bad[i], mask, 16) == -EINVAL, "accepted \"%s\"", bad[i]);
}
END_TEST

START_TEST(test_cpulist_truncated_every_offset)
{
	static const char list[] = "0-3,5,7-8,10-15\n";
	bool mask[16];

	for (size_t n = 0; n < sizeof(list); n++) {
		int r = cpulist_exact(list, n, mask, 16);

		ck_assert_msg(r == -EINVAL || (r >= 0 && r <= 14), "offset %zu: %d", n, r);
	}
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "0123456789 -,\n\t\0\xffx";
	uint32_t seed = 2024;
	char buf[96];

	for (int iter = 0; iter < 20000; iter++) {
		struct pw_time_in_state tis;
		bool mask[8];
		char word[8];
		uint64_t v;
		size_t len = pw_test_random_input(&seed, alphabet, sizeof(alphabet) - 1, buf, sizeof(buf));
		int r = tis_exact(buf, len, &tis);
		ck_assert(r == 0 || r == -EINVAL || r == -ERANGE);
		r = cpulist_exact(buf, len, mask, 8);
		ck_assert(r == -EINVAL || r == -ENOBUFS || (r >= 0 && r <= 8));
		r = u64_exact(buf, len, &v);
		ck_assert(r == 0 || r == -EINVAL || r == -ERANGE);
		r = word_exact(buf, len, word, sizeof(word));
		ck_assert(r == 0 || r == -EINVAL);
	}
}
END_TEST

/* ---- kernels ---- */

static void check_capture(const char *id)
{
	bool online[CPU_CAP], possible[CPU_CAP], present[CPU_CAP], offline[CPU_CAP];
	char tree[300];
	int n_online, n_possible;

	snprintf(tree, sizeof(tree), "kernels/%s", id);
	n_online = read_cpulist(tree, "online", online);
	n_possible = read_cpulist(tree, "possible", possible);
	ck_assert_msg(n_online == (int)pw_fixture_kernel_nproc(id), "%s: %d online", id, n_online);
	ck_assert_int_ge(read_cpulist(tree, "present", present), n_online);
	ck_assert_int_ge(read_cpulist(tree, "offline", offline), 0);
	for (uint32_t cpu = 0; cpu < CPU_CAP; cpu++) {
		char name[64];

		ck_assert_msg(!online[cpu] || present[cpu], "%s: cpu%u online, not present", id, cpu);
		ck_assert_msg(!present[cpu] || possible[cpu], "%s: cpu%u present, not possible", id, cpu);
		/* offline is exactly possible minus online. */
		ck_assert_msg(offline[cpu] == (possible[cpu] && !online[cpu]), "%s: cpu%u offline", id, cpu);
		snprintf(name, sizeof(name), "cpu%u/online", cpu);
		if (cpu_file_exists(tree, name))
			ck_assert_uint_eq(read_u64(tree, name), online[cpu]);
		/* These VMs expose no cpufreq; if a capture does, its attributes must parse. */
		snprintf(name, sizeof(name), "cpu%u/cpufreq/scaling_cur_freq", cpu);
		if (cpu_file_exists(tree, name))
			ck_assert_uint_gt(read_u64(tree, name), 0);
		snprintf(name, sizeof(name), "cpu%u/cpufreq/stats/time_in_state", cpu);
		if (cpu_file_exists(tree, name))
			ck_assert_uint_gt(read_tis(tree, cpu).nstates, 0);
	}
	ck_assert_int_ge(n_possible, n_online);
}

START_TEST(test_capture_values)
{
	bool mask[CPU_CAP];

	ck_assert_int_eq(read_cpulist("kernels/vm-2cpu-idle-1", "online", mask), 2);
	ck_assert(mask[0] && mask[1] && !mask[2]);
	ck_assert_int_eq(read_cpulist("kernels/vm-2cpu-idle-1", "offline", mask), 0);
	ck_assert_int_eq(read_cpulist("kernels/host-16cpu-load-2", "possible", mask), 16);
	ck_assert(mask[15] && !mask[16]);
	ck_assert_uint_eq(read_u64("kernels/host-16cpu-load-2", "kernel_max"), 255);
}
END_TEST

START_TEST(test_every_capture)
{
	ck_assert_uint_gt(pw_fixture_each_kernel(check_capture), 0);
}
END_TEST

static Suite *cpufreq_suite(void)
{
	Suite *s = suite_create("cpufreq");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_sysfs_u64);
	tcase_add_test(core, test_sysfs_word);
	tcase_add_test(core, test_time_in_state_sums);
	tcase_add_test(core, test_cpulist);
	tcase_add_test(core, test_acpi_ondemand_tree);
	tcase_add_test(core, test_incident_2_interval_average);
	tcase_add_test(core, test_intel_pstate_tree);
	tcase_add_test(core, test_vanishing_tree);
	tcase_add_test(malformed, test_sysfs_malformed);
	tcase_add_test(malformed, test_time_in_state_malformed);
	tcase_add_test(malformed, test_time_in_state_quirks);
	tcase_add_test(malformed, test_time_in_state_overflow);
	tcase_add_test(malformed, test_time_in_state_truncated_every_offset);
	tcase_add_test(malformed, test_cpulist_malformed);
	tcase_add_test(malformed, test_cpulist_truncated_every_offset);
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
	return pw_run_suite(cpufreq_suite());
}
