/* test_procstat.c — /proc/stat parser: known values, old-kernel and malformed quirks, real captures. */
#include "fixture_util.h"
#include "procstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CAP 256

static const uint32_t all_keys = PW_PROCSTAT_HAS_CPU | PW_PROCSTAT_HAS_INTR | PW_PROCSTAT_HAS_CTXT |
                                 PW_PROCSTAT_HAS_BTIME | PW_PROCSTAT_HAS_PROCESSES |
                                 PW_PROCSTAT_HAS_PROCS_RUNNING | PW_PROCSTAT_HAS_PROCS_BLOCKED |
                                 PW_PROCSTAT_HAS_SOFTIRQ;

static struct pw_cpu_times cpus[CPU_CAP];

/* Parse a heap copy of exactly len bytes, so ASan reports any read past len. */
static int parse_exact(const char *buf, size_t len, struct pw_cpu_times *out, uint32_t cap,
                       struct pw_procstat *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_procstat_parse(copy, len, out, cap, ret, NULL);

	free(copy);
	return r;
}

static int parse_str(const char *text, struct pw_procstat *ret)
{
	return parse_exact(text, strlen(text), cpus, CPU_CAP, ret);
}

static int parse_fixture(const char *relpath, struct pw_procstat *ret)
{
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	int r = parse_exact(buf, len, cpus, CPU_CAP, ret);

	free(buf);
	return r;
}

/* ---- core ---- */

START_TEST(test_vm_idle_values)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_fixture("kernels/vm-2cpu-idle-1/proc/stat", &st), 0);
	ck_assert_uint_eq(st.present, all_keys);
	ck_assert_uint_eq(st.cpu_seen, 2);
	ck_assert_uint_eq(st.total.nmodes, 10);
	ck_assert(st.total.present);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_USER], 2581);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_SYSTEM], 3391);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_IDLE], 57169);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_STEAL], 23);
	ck_assert(cpus[0].present && cpus[1].present && !cpus[2].present);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_USER], 1001);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_IDLE], 29109);
	ck_assert_uint_eq(cpus[1].ticks[PW_MODE_USER], 1580);
	ck_assert_uint_eq(cpus[1].ticks[PW_MODE_IOWAIT], 250);
	ck_assert_uint_eq(cpus[1].ticks[PW_MODE_SOFTIRQ], 36);
	ck_assert_uint_eq(cpus[1].nmodes, 10);
	ck_assert_uint_eq(st.intr_total, 321574);
	ck_assert_uint_eq(st.ctxt, 806741);
	ck_assert_uint_eq(st.btime, 1796065140);
	ck_assert_uint_eq(st.processes, 6435);
	ck_assert_uint_eq(st.procs_running, 1);
	ck_assert_uint_eq(st.procs_blocked, 0);
	ck_assert_uint_eq(st.softirq_total, 111426);
}
END_TEST

START_TEST(test_host_load_values)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_fixture("kernels/host-16cpu-load-1/proc/stat", &st), 0);
	ck_assert_uint_eq(st.cpu_seen, 16);
	ck_assert_uint_eq(cpus[15].ticks[PW_MODE_SYSTEM], 33);
	ck_assert_uint_eq(cpus[14].ticks[PW_MODE_SYSTEM], 233);
	ck_assert_uint_eq(cpus[9].ticks[PW_MODE_IOWAIT], 77);
	ck_assert_uint_eq(st.procs_running, 10);
	ck_assert_uint_eq(st.intr_total, 61222);
	ck_assert_uint_eq(st.softirq_total, 17323);
}
END_TEST

/* Column counts of older kernels: nmodes says how many, the rest stays 0, missing keys stay absent. */
START_TEST(test_old_kernels)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_fixture("quirks/stat-2.4-4cols/stat", &st), 0);
	ck_assert_uint_eq(st.total.nmodes, 4);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_IDLE], 3699176);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_IOWAIT], 0);
	ck_assert_uint_eq(cpus[1].nmodes, 4);
	ck_assert_uint_eq(cpus[1].ticks[PW_MODE_USER], 3312);
	ck_assert_uint_eq(st.present, PW_PROCSTAT_HAS_CPU | PW_PROCSTAT_HAS_INTR | PW_PROCSTAT_HAS_CTXT |
	                                      PW_PROCSTAT_HAS_BTIME | PW_PROCSTAT_HAS_PROCESSES);
	ck_assert_uint_eq(st.intr_total, 1462898);
	ck_assert_uint_eq(st.processes, 86031);

	ck_assert_int_eq(parse_fixture("quirks/stat-2.6.9-7cols/stat", &st), 0);
	ck_assert_uint_eq(st.total.nmodes, 7);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_SOFTIRQ], 456);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_STEAL], 0);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_IRQ], 127);
	ck_assert_uint_eq(st.present, all_keys & ~(uint32_t)PW_PROCSTAT_HAS_SOFTIRQ);

	ck_assert_int_eq(parse_fixture("quirks/stat-2.6.18-8cols/stat", &st), 0);
	ck_assert_uint_eq(st.total.nmodes, 8);
	ck_assert_uint_eq(cpus[1].nmodes, 8);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_SOFTIRQ], 6839);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_GUEST], 0);
	ck_assert_uint_eq(st.procs_running, 2);
	ck_assert(!(st.present & PW_PROCSTAT_HAS_SOFTIRQ));
}
END_TEST

START_TEST(test_offline_cpu_sparse)
{
	struct pw_procstat st;

	/* Stale data must not survive in the slot of the CPU that went offline. */
	memset(cpus, 0x5a, sizeof(cpus));
	ck_assert_int_eq(parse_fixture("quirks/stat-cpu1-offline/stat", &st), 0);
	ck_assert_uint_eq(st.cpu_seen, 4);
	ck_assert(cpus[0].present && !cpus[1].present && cpus[2].present && cpus[3].present);
	ck_assert_uint_eq(cpus[1].nmodes, 0);
	ck_assert_uint_eq(cpus[1].ticks[PW_MODE_USER], 0);
	ck_assert(!cpus[4].present);
	ck_assert_uint_eq(cpus[4].ticks[PW_MODE_IDLE], 0);
	ck_assert_uint_eq(cpus[2].ticks[PW_MODE_USER], 2644);
	ck_assert_uint_eq(cpus[3].ticks[PW_MODE_SOFTIRQ], 64);
	ck_assert_uint_eq(st.softirq_total, 611822);
}
END_TEST

START_TEST(test_near_u64_max)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_fixture("quirks/stat-near-u64-max/stat", &st), 0);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_USER], UINT64_MAX);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_SYSTEM], UINT64_MAX - 1);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_IDLE], UINT64_C(1) << 63);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_USER], UINT64_MAX);
	ck_assert_uint_eq(st.intr_total, UINT64_MAX);
	ck_assert_uint_eq(st.ctxt, UINT64_MAX);
	ck_assert_uint_eq(st.processes, UINT64_MAX - 15);
	ck_assert_uint_eq(st.softirq_total, UINT64_MAX);
}
END_TEST

START_TEST(test_unknown_keys_and_extra_columns)
{
	struct pw_procstat st;
	const char *text = "cpu  1 2 3 4 5 6 7 8 9 10 11 12\n"
	                   "cpu0 1 2 3 4 5 6 7 8 9 10 11 12\n"
	                   "page 5741 1808\n"
	                   "cpufreq 99\n"
	                   "cpu_new x y\n"
	                   "intr 77 1 2 junk that is skipped\n"
	                   "processes_total 5\n"
	                   "procs_running 3\n"
	                   "\n"
	                   "ctxt 9 10\n";

	ck_assert_int_eq(parse_str(text, &st), 0);
	ck_assert_uint_eq(st.total.nmodes, 10);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_GUEST_NICE], 10);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_GUEST], 9);
	ck_assert_uint_eq(st.cpu_seen, 1);
	ck_assert_uint_eq(st.intr_total, 77);
	ck_assert_uint_eq(st.ctxt, 9);
	ck_assert_uint_eq(st.procs_running, 3);
	ck_assert(!(st.present & PW_PROCSTAT_HAS_PROCESSES));
	ck_assert_uint_eq(st.present, PW_PROCSTAT_HAS_CPU | PW_PROCSTAT_HAS_INTR | PW_PROCSTAT_HAS_CTXT |
	                                      PW_PROCSTAT_HAS_PROCS_RUNNING);
}
END_TEST

START_TEST(test_no_trailing_newline)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_str("cpu  1 2 3 4\ncpu0 1 2 3 4\nctxt 42", &st), 0);
	ck_assert_uint_eq(st.ctxt, 42);
	ck_assert_uint_eq(cpus[0].ticks[PW_MODE_IDLE], 4);
}
END_TEST

/* More CPUs than slots: what fits is stored, the total and cpu_seen still describe the whole file. */
START_TEST(test_capacity)
{
	struct pw_procstat st;
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/stat", &len);

	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(parse_exact(buf, len, cpus, 4, &st), -ENOBUFS);
	ck_assert_uint_eq(st.cpu_seen, 16);
	ck_assert_uint_eq(st.total.ticks[PW_MODE_USER], 897);
	ck_assert_uint_eq(cpus[3].ticks[PW_MODE_USER], 101);
	ck_assert_uint_eq(st.procs_running, 10);

	ck_assert_int_eq(parse_exact(buf, len, NULL, 0, &st), -ENOBUFS);
	ck_assert_uint_eq(st.cpu_seen, 16);
	ck_assert_uint_eq(st.ctxt, 25562);
	free(buf);
}
END_TEST

/* ---- malformed ---- */

/* On failure *ret is left untouched. */
static void expect_error(const char *relpath, int expected)
{
	struct pw_procstat st, before;

	memset(&st, 0xa5, sizeof(st));
	before = st;
	ck_assert_int_eq(parse_fixture(relpath, &st), expected);
	ck_assert(memcmp(&st, &before, sizeof(st)) == 0);
}

START_TEST(test_quirk_errors)
{
	expect_error("quirks/stat-truncated/stat", -EINVAL);
	expect_error("quirks/stat-garbage/stat", -EINVAL);
	expect_error("quirks/stat-empty/stat", -EINVAL);
	expect_error("quirks/stat-overflow/stat", -ERANGE);
}
END_TEST

START_TEST(test_bad_lines)
{
	struct pw_procstat st;

	ck_assert_int_eq(parse_str("", &st), -EINVAL);
	ck_assert_int_eq(parse_str("\n\n\n", &st), -EINVAL);
	ck_assert_int_eq(parse_str("cpu0 1 2 3 4\nctxt 5\n", &st), -EINVAL);         /* no total line */
	ck_assert_int_eq(parse_str("cpu  1 2 3\n", &st), -EINVAL);                   /* too few columns */
	ck_assert_int_eq(parse_str("cpu  1 2 x 4\n", &st), -EINVAL);                 /* not a number */
	ck_assert_int_eq(parse_str("cpu  1 2 3 -4\n", &st), -EINVAL);                /* negative */
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\nctxt\n", &st), -EINVAL);           /* key, no value */
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\nbtime abc\n", &st), -EINVAL);      /* value not a number */
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\ncpu0 1 2 3 4 5\n", &st), -EINVAL); /* torn column count */
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\ncpu0\n", &st), -EINVAL);
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\nintr 18446744073709551616 0\n", &st), -ERANGE);
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\ncpu99999999999 1 2 3 4\n", &st), -ERANGE);
	/* A huge but representable id is a capacity problem, and cpu_seen still says how many. */
	ck_assert_int_eq(parse_str("cpu  1 2 3 4\ncpu4294967294 1 2 3 4\n", &st), -ENOBUFS);
	ck_assert_uint_eq(st.cpu_seen, UINT32_MAX);
}
END_TEST

/* The real file in a buffer of exactly its size parses the same as the NUL-terminated read. */
START_TEST(test_no_nul)
{
	struct pw_procstat a, b;
	struct pw_cpu_times saved[2];
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-idle-2/proc/stat", &len);

	ck_assert_int_eq(pw_procstat_parse(buf, len, cpus, CPU_CAP, &a, NULL), 0);
	memcpy(saved, cpus, sizeof(saved));
	ck_assert_int_eq(parse_exact(buf, len, cpus, CPU_CAP, &b), 0);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
	ck_assert(memcmp(saved, cpus, sizeof(saved)) == 0);
	free(buf);
}
END_TEST

/* A prefix never reports a counter larger than the whole file has. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_procstat *st = ret;
	const struct pw_procstat *full = whole;
	int r = pw_procstat_parse(buf, len, cpus, CPU_CAP, st, NULL);

	if (r < 0)
		return r;
	ck_assert_uint_le(st->cpu_seen, full->cpu_seen);
	ck_assert_uint_le(st->total.ticks[PW_MODE_IDLE], full->total.ticks[PW_MODE_IDLE]);
	ck_assert_uint_le(st->ctxt, full->ctxt);
	ck_assert_uint_eq(st->present & ~full->present, 0);
	return r;
}

/* Every prefix of a real file: never crash or read past the cut (ASan), return only documented codes,
 * and never report a counter larger than the whole file has. */
static void check_prefixes(const char *relpath)
{
	struct pw_procstat full, st;
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);

	ck_assert_int_eq(pw_procstat_parse(buf, len, cpus, CPU_CAP, &full, NULL), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &st, &full);
	free(buf);
}

START_TEST(test_every_prefix)
{
	check_prefixes("kernels/vm-2cpu-idle-1/proc/stat");
	check_prefixes("kernels/host-16cpu-load-1/proc/stat");
	check_prefixes("quirks/stat-2.4-4cols/stat");
}
END_TEST

/* ---- kernels ---- */

static void check_capture(const char *id)
{
	struct pw_procstat st;
	uint64_t nproc = pw_fixture_kernel_nproc(id);
	uint64_t user_hz = pw_fixture_number(pw_fixture_kernel_path(id, "MANIFEST"), "user_hz:");
	uint64_t now = pw_fixture_number(pw_fixture_kernel_path(id, "TIME"), "");
	uint64_t uptime = pw_fixture_number(pw_fixture_kernel_path(id, "proc/uptime"), "");
	uint32_t online = 0;

	ck_assert_msg(parse_fixture(pw_fixture_kernel_path(id, "proc/stat"), &st) == 0, "%s", id);
	ck_assert_uint_eq(st.present, all_keys);
	ck_assert_uint_eq(st.total.nmodes, PW_MODE_COUNT);
	ck_assert_msg(st.cpu_seen == nproc, "%s: cpu_seen %u, nproc %u", id, st.cpu_seen, (unsigned)nproc);
	for (uint32_t c = 0; c < st.cpu_seen; c++) {
		online += cpus[c].present;
		if (cpus[c].present)
			ck_assert_uint_eq(cpus[c].nmodes, st.total.nmodes);
	}
	ck_assert_uint_eq(online, nproc);

	/* The kernel converts each CPU's nanoseconds to ticks separately (each drops < 1 tick) but the
	 * total once, and reads the counters twice; so Σ per-CPU is within ncpu ticks of the total. The
	 * captures show total - Σ in [0, ncpu] for every mode. */
	uint64_t ticks = 0;
	for (int m = 0; m < PW_MODE_COUNT; m++) {
		uint64_t sum = 0;
		for (uint32_t c = 0; c < st.cpu_seen; c++)
			sum += cpus[c].ticks[m];
		int64_t diff = (int64_t)(st.total.ticks[m] - sum);
		ck_assert_msg(diff >= -(int64_t)nproc && diff <= (int64_t)nproc,
		              "%s %s: total %llu, sum %llu", id, pw_cpu_mode_name(m),
		              (unsigned long long)st.total.ticks[m], (unsigned long long)sum);
		if (m < PW_MODE_GUEST) /* guest time is already inside user and nice */
			ticks += st.total.ticks[m];
	}
	/* All modes together account for (almost) every CPU-second since boot. */
	ck_assert_uint_le(ticks, (uptime + 1) * nproc * user_hz);
	ck_assert_uint_ge(ticks * 10, uptime * nproc * user_hz * 9);
	/* btime is TIME - uptime, give or take the second both are rounded to. */
	ck_assert_uint_le(st.btime + uptime, now + 1);
	ck_assert_uint_ge(st.btime + uptime + 2, now);
	ck_assert_uint_ge(st.procs_running, 1); /* the reader itself was running */
	ck_assert_uint_le(st.procs_running + st.procs_blocked, st.processes);
}

START_TEST(test_captures)
{
	pw_fixture_each_kernel(check_capture);
}
END_TEST

/* Machine prefix of "vm-2cpu-idle-1": everything before the state. */
static size_t machine_len(const char *id)
{
	const char *state = strstr(id, "-idle-");

	if (!state)
		state = strstr(id, "-load-");
	return state ? (size_t)(state - id) : strlen(id);
}

/* Snapshots of one machine, in time order, never go backwards. */
START_TEST(test_captures_monotonic)
{
	char *ids[PW_FIXTURE_KERNELS_MAX];
	size_t n = pw_fixture_kernel_ids(ids, PW_FIXTURE_KERNELS_MAX);
	struct pw_procstat prev = {0}, st;
	struct pw_cpu_times prev_cpus[CPU_CAP];

	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(parse_fixture(pw_fixture_kernel_path(ids[i], "proc/stat"), &st), 0);
		bool same = i > 0 && machine_len(ids[i]) == machine_len(ids[i - 1]) &&
		            memcmp(ids[i], ids[i - 1], machine_len(ids[i])) == 0;
		if (same) {
			ck_assert_uint_eq(st.btime, prev.btime);
			ck_assert_uint_ge(st.ctxt, prev.ctxt);
			ck_assert_uint_ge(st.intr_total, prev.intr_total);
			ck_assert_uint_ge(st.processes, prev.processes);
			ck_assert_uint_ge(st.softirq_total, prev.softirq_total);
			for (uint32_t c = 0; c < st.cpu_seen; c++) {
				for (int m = 0; m < PW_MODE_COUNT; m++)
					ck_assert_msg(cpus[c].ticks[m] >= prev_cpus[c].ticks[m],
					              "%s cpu%u %s", ids[i], c, pw_cpu_mode_name(m));
			}
		}
		prev = st;
		memcpy(prev_cpus, cpus, sizeof(prev_cpus));
	}
	pw_fixture_kernel_ids_free(ids, n);
}
END_TEST

/* The per-IRQ counts of the intr line: what numbered lines' exported totals are, since they count
 * offline CPUs too. */
START_TEST(test_irq_counts)
{
	size_t len;
	char *buf = pw_fixture_read("kernels/vm-2cpu-idle-1/proc/stat", &len);
	char *copy = pw_test_exact_copy(buf, len);
	uint64_t counts[64] = {0};
	int n = pw_procstat_parse_irqs(copy, len, counts, 64);

	ck_assert_int_ge(n, 64);              /* x86 lists every possible IRQ number: hundreds */
	ck_assert_uint_eq(counts[36], 36611); /* virtio1-req.0 */
	ck_assert_uint_eq(counts[41], 61453); /* virtio3-rx */
	ck_assert_uint_eq(counts[42], 68980); /* virtio3-tx */
	ck_assert_int_eq(pw_procstat_parse_irqs(copy, len, NULL, 0), n); /* just count */
	ck_assert_int_eq(pw_procstat_parse_irqs("cpu  1 2 3 4\n", 13, counts, 64), -EINVAL);
	ck_assert_int_eq(pw_procstat_parse_irqs("intr 5 1 x 3\n", 13, counts, 64), -EINVAL);
	ck_assert_int_eq(pw_procstat_parse_irqs("intr 5 99999999999999999999\n", 27, counts, 64), -ERANGE);
	free(copy);
	free(buf);
}
END_TEST

/* The main parse tells where the intr line is, so the per-IRQ counts need no second search: the
 * same counts from there as from the whole file. */
START_TEST(test_intr_offset)
{
	static uint64_t from_line[1024], from_file[1024];
	struct pw_procstat st;
	size_t len, off = 0;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/stat", &len);
	char *copy = pw_test_exact_copy(buf, len);
	int n;

	ck_assert_int_eq(pw_procstat_parse(copy, len, cpus, CPU_CAP, &st, &off), 0);
	ck_assert_uint_lt(off, len);
	ck_assert(off > 0 && copy[off - 1] == '\n');
	ck_assert(memcmp(copy + off, "intr ", 5) == 0);
	n = pw_procstat_parse_irqs(copy + off, len - off, from_line, 1024);
	ck_assert_int_gt(n, 500);
	ck_assert_int_eq(pw_procstat_parse_irqs(copy, len, from_file, 1024), n);
	ck_assert(memcmp(from_line, from_file, sizeof(from_line)) == 0);
	free(copy);
	free(buf);

	/* No intr line: the offset is len, where the per-IRQ parse finds nothing. */
	const char *no_intr = "cpu  1 2 3 4\n";
	ck_assert_int_eq(pw_procstat_parse(no_intr, 13, cpus, CPU_CAP, &st, &off), 0);
	ck_assert_uint_eq(off, 13);
	ck_assert_int_eq(pw_procstat_parse_irqs(no_intr + off, 13 - off, from_line, 1024), -EINVAL);
	/* Left alone on failure, like *ret. */
	off = 7;
	ck_assert_int_eq(pw_procstat_parse("intr 1\n", 7, cpus, CPU_CAP, &st, &off), -EINVAL);
	ck_assert_uint_eq(off, 7);
}
END_TEST

static Suite *procstat_suite(void)
{
	Suite *s = suite_create("procstat");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_vm_idle_values);
	tcase_add_test(core, test_irq_counts);
	tcase_add_test(core, test_intr_offset);
	tcase_add_test(core, test_host_load_values);
	tcase_add_test(core, test_old_kernels);
	tcase_add_test(core, test_offline_cpu_sparse);
	tcase_add_test(core, test_near_u64_max);
	tcase_add_test(core, test_unknown_keys_and_extra_columns);
	tcase_add_test(core, test_no_trailing_newline);
	tcase_add_test(core, test_capacity);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_quirk_errors);
	tcase_add_test(malformed, test_bad_lines);
	tcase_add_test(malformed, test_no_nul);
	tcase_add_test(malformed, test_every_prefix);
	suite_add_tcase(s, malformed);

	tcase_add_test(kernels, test_captures);
	tcase_add_test(kernels, test_captures_monotonic);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(procstat_suite());
}
