/* test_collect.c — the collector over real fixture trees (no mocks): exact values against the files,
 * the cpufreq trees, and copies of them under /tmp broken on purpose (a file removed, junk, an empty
 * file, a FIFO, a cpufreq directory vanishing, the online set changing). Reads are driven by hand:
 * pw_sample_init() before each, as the sampler does; time is set by hand where samples are derived. */
#define _GNU_SOURCE
#include "collect.h"
#include "derive.h"
#include "fixture_util.h"
#include "scan.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEC INT64_C(1000000000)
#define VM "kernels/vm-2cpu-idle-1"
#define HOST "kernels/host-16cpu-load-1"
#define ACPI "cpufreq/acpi-ondemand-16cpu"
#define CPU_DIR "sys/devices/system/cpu"
#define SYS_CPU "devices/system/cpu" /* under a sysfs root */
#define ALL_SOURCES ((1u << PW_SRC_COUNT) - 1)
#define NO_CPUFREQ (ALL_SOURCES & ~(1u << PW_SRC_CPUFREQ))
#define BIT(src) (1u << (src))

/* ---- helpers ---- */

/* Scratch root for the copied trees: made before a test case, removed after it by the parent
 * process (unchecked fixture), so it goes away even when a forked test fails. */
static char scratch_root[256];

__attribute__((format(printf, 1, 2))) static void run(const char *fmt, ...)
{
	char cmd[2 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	ck_assert_msg(system(cmd) == 0, "failed: %s", cmd);
}

static void scratch_setup(void)
{
	pw_scratch_make(scratch_root, sizeof(scratch_root), NULL, "collect");
}

static void scratch_teardown(void)
{
	if (scratch_root[0] == '/')
		pw_scratch_remove(scratch_root);
}

/* ret = a/b; paths here are short, so truncation is a test bug. */
static void join(char *ret, size_t size, const char *a, const char *b)
{
	int n = snprintf(ret, size, "%s/%s", a, b);

	ck_assert(n > 0 && (size_t)n < size);
}

static void fixture_dir(const char *rel, char *ret, size_t size)
{
	int n = snprintf(ret, size, "%s", pw_fixture_path(rel));

	ck_assert(n > 0 && (size_t)n < size);
}

/* cp -a a fixture directory into a fresh directory under the scratch root (symlinks kept). */
static void copy_tree(const char *rel, char *ret, size_t size)
{
	char src[PATH_MAX];

	fixture_dir(rel, src, sizeof(src));
	join(ret, size, scratch_root, "tree-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(ret));
	run("cp -a '%s/.' '%s/'", src, ret);
}

/* A scratch copy of the VM capture: its root, proc and sys paths (buffers of PATH_MAX bytes). */
static void copy_vm(char *tree, char *proc, char *sys)
{
	copy_tree(VM, tree, PATH_MAX);
	join(proc, PATH_MAX, tree, "proc");
	join(sys, PATH_MAX, tree, "sys");
}

static const char *at(const char *dir, const char *rel)
{
	static char path[PATH_MAX];

	join(path, sizeof(path), dir, rel);
	return path;
}

/* Rewrite a file in place (same inode, so a descriptor the collector holds sees the new content). */
static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

static void write_str(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static struct pw_collector *collector_at(const char *procfs, const char *sysfs, uint32_t rescan_every,
                                         bool matrix)
{
	struct pw_collector_config cfg = {
	        .procfs = procfs,
	        .sysfs = sysfs,
	        .user_hz = 100,
	        .page_size = 4096,
	        .rescan_every = rescan_every,
	        .interrupts_matrix = matrix,
	};
	int err = 1;
	struct pw_collector *c = pw_collector_new(&cfg, &err);

	ck_assert_msg(c != NULL, "pw_collector_new(%s, %s): %s", procfs, sysfs, strerror(-err));
	return c;
}

/* Collector over a fixture capture's own proc and sys. */
static struct pw_collector *collector_of(const char *rel, uint32_t rescan_every, bool matrix)
{
	char proc[PATH_MAX], sys[PATH_MAX];

	join(proc, sizeof(proc), pw_fixture_path(rel), "proc");
	join(sys, sizeof(sys), pw_fixture_path(rel), "sys");
	return collector_at(proc, sys, rescan_every, matrix);
}

static struct pw_sample *sample_for(const struct pw_collector *c)
{
	struct pw_sample *s = calloc(1, pw_sample_size(pw_collector_cpu_cap(c), pw_collector_line_cap(c),
	                                               pw_collector_has_matrix(c)));

	ck_assert_ptr_nonnull(s);
	return s;
}

static void read_into(struct pw_collector *c, struct pw_sample *s)
{
	pw_sample_init(s, pw_collector_cpu_cap(c), pw_collector_line_cap(c), pw_collector_has_matrix(c));
	pw_collector_read(c, s);
}

static uint64_t errors_total(const struct pw_sample *s)
{
	uint64_t n = 0;

	for (int i = 0; i < PW_SRC_COUNT; i++)
		n += s->parse_errors[i];
	return n;
}

static void assert_sources(const struct pw_sample *s, uint32_t present, uint32_t up)
{
	ck_assert_msg(s->source_present == present, "present 0x%x, want 0x%x", s->source_present, present);
	ck_assert_msg(s->source_up == up, "up 0x%x, want 0x%x", s->source_up, up);
}

static size_t count_lines(const char *rel)
{
	size_t len, n = 0;
	char *buf = pw_fixture_read(rel, &len);

	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	free(buf);
	return n;
}

static uint64_t fixture_u64(const char *rel)
{
	size_t len;
	char *buf = pw_fixture_read(rel, &len);
	uint64_t v;

	ck_assert_int_eq(pw_sysfs_parse_u64(buf, len, &v), 0);
	free(buf);
	return v;
}

/* ---- core ---- */

START_TEST(test_vm_layout)
{
	struct pw_collector *c = collector_of(VM, 10, true);

	ck_assert_uint_eq(pw_collector_cpu_cap(c), 2);
	ck_assert_uint_ge(pw_collector_line_cap(c), count_lines(VM "/proc/interrupts"));
	ck_assert(pw_collector_has_matrix(c));
	pw_collector_free(c);
	pw_collector_free(NULL);
}
END_TEST

/* A fixture tree's counters keep no clock; this machine's /proc does (pw_derive_kernel()). */
START_TEST(test_reads_kernel)
{
	struct pw_collector *tree = collector_of(VM, 10, false);
	struct pw_collector *kernel = collector_at("/proc", "/sys", 10, false);

	ck_assert(!pw_collector_reads_kernel(tree));
	ck_assert(pw_collector_reads_kernel(kernel));
	pw_collector_free(tree);
	pw_collector_free(kernel);
}
END_TEST

START_TEST(test_vm_values)
{
	struct pw_collector *c = collector_of(VM, 10, true);
	struct pw_sample *s = sample_for(c);
	const struct pw_cpu_sample *cpus;
	const uint64_t *matrix;
	uint32_t l;

	read_into(c, s);
	cpus = pw_sample_cpus_const(s);
	/* Every source but cpufreq (none on this VM); the empty pressure/irq is no error. */
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ);
	ck_assert_uint_eq(errors_total(s), 0);
	ck_assert_uint_eq(s->user_hz, 100);
	ck_assert_uint_eq(s->page_size, 4096);

	/* /proc/stat */
	ck_assert_uint_eq(s->ncpu, 2);
	ck_assert_uint_eq(s->stat.total.ticks[PW_MODE_USER], 2581);
	ck_assert_uint_eq(cpus[0].times.ticks[PW_MODE_USER], 1001);
	ck_assert_uint_eq(cpus[0].times.ticks[PW_MODE_IDLE], 29109);
	ck_assert_uint_eq(cpus[1].times.ticks[PW_MODE_IOWAIT], 250);
	ck_assert(cpus[0].times.present && cpus[1].times.present);
	ck_assert_uint_eq(s->stat.ctxt, 806741);
	ck_assert_uint_eq(s->stat.processes, 6435);
	ck_assert(cpus[0].online && cpus[1].online);

	/* /proc/interrupts: 35 lines under the header, a line's total, the matrix and column sums. */
	ck_assert_uint_eq(s->nlines, 35);
	ck_assert_uint_eq(s->interrupts.dropped, 0);
	l = pw_test_line_index(s, "36");
	ck_assert_uint_eq(pw_sample_lines(s)[l].line.total, 36611);
	ck_assert_str_eq(pw_sample_lines(s)[l].line.device, "virtio1-req.0");
	ck_assert_uint_eq(pw_sample_lines(s)[pw_test_line_index(s, "LOC")].line.total, 21189 + 18259);
	matrix = pw_sample_matrix_const(s);
	ck_assert_ptr_nonnull(matrix);
	ck_assert_uint_eq(matrix[(size_t)l * s->cpu_cap + 0], 0);
	ck_assert_uint_eq(matrix[(size_t)l * s->cpu_cap + 1], 36611);
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		uint64_t column = 0;
		for (uint32_t i = 0; i < s->nlines; i++)
			column += matrix[(size_t)i * s->cpu_cap + cpu];
		ck_assert_uint_eq(cpus[cpu].interrupts, column);
		ck_assert(cpus[cpu].in_interrupts && cpus[cpu].in_softirqs);
	}

	/* /proc/softirqs */
	ck_assert_uint_eq(cpus[0].softirq[PW_SOFTIRQ_TIMER], 6396);
	ck_assert_uint_eq(cpus[1].softirq[PW_SOFTIRQ_BLOCK], 36611);
	ck_assert_uint_eq(s->softirqs.total[PW_SOFTIRQ_RCU], 15055 + 15823);

	/* meminfo, vmstat, loadavg */
	ck_assert_uint_eq(s->meminfo.kb[PW_MEM_TOTAL], 24683652);
	ck_assert_uint_eq(s->meminfo.kb[PW_MEM_AVAILABLE], 24120980);
	ck_assert_uint_eq(s->meminfo.kb[PW_MEM_DIRTY], 132752);
	ck_assert(s->vmstat.present & BIT(PW_VM_PGMAJFAULT));
	ck_assert_uint_eq(s->vmstat.value[PW_VM_PGMAJFAULT], 962);
	ck_assert_uint_eq(s->vmstat.value[PW_VM_PGFAULT], 1716858);
	ck_assert_uint_eq(s->vmstat.value[PW_VM_PGPGIN], 1268933);
	ck_assert_uint_eq(s->loadavg.load1, 64);
	ck_assert_uint_eq(s->loadavg.load15, 6);
	ck_assert_uint_eq(s->loadavg.threads, 88);
	ck_assert_uint_eq(s->loadavg.last_pid, 6439);

	/* PSI: pressure/irq is an empty file (unreadable to the capturing user): absent, not an error. */
	ck_assert_uint_eq(s->psi_present, BIT(PW_PSI_CPU) | BIT(PW_PSI_MEMORY) | BIT(PW_PSI_IO));
	ck_assert_uint_eq(s->psi[PW_PSI_CPU].some.avg10, 1086);
	ck_assert_uint_eq(s->psi[PW_PSI_CPU].some.total_us, 10045246);
	ck_assert_uint_eq(s->psi[PW_PSI_IO].full.avg10, 48);
	ck_assert_uint_eq(s->parse_errors[PW_SRC_PRESSURE], 0);

	/* No cpufreq on this VM. */
	for (uint32_t cpu = 0; cpu < 2; cpu++)
		ck_assert_uint_eq(cpus[cpu].freq_flags, 0);
	/* Derived fields are the caller's business. */
	ck_assert_uint_eq(s->derived.valid, 0);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* Reading the same tree again gives the same counters and no errors (buffers and fds are reused). */
START_TEST(test_vm_reads_repeat)
{
	struct pw_collector *c = collector_of(VM, 2, false);
	struct pw_sample *a = sample_for(c), *b = sample_for(c);

	read_into(c, a);
	for (int i = 0; i < 5; i++) {
		read_into(c, b);
		assert_sources(b, NO_CPUFREQ, NO_CPUFREQ);
		ck_assert_uint_eq(errors_total(b), 0);
		/* Field by field: struct padding is not part of the reading. */
		ck_assert_mem_eq(a->stat.total.ticks, b->stat.total.ticks, sizeof(a->stat.total.ticks));
		ck_assert_uint_eq(b->stat.ctxt, a->stat.ctxt);
		ck_assert_uint_eq(b->stat.intr_total, a->stat.intr_total);
		for (uint32_t cpu = 0; cpu < 2; cpu++) {
			const struct pw_cpu_sample *ca = &pw_sample_cpus(a)[cpu],
			                           *cb = &pw_sample_cpus(b)[cpu];
			ck_assert_mem_eq(ca->times.ticks, cb->times.ticks, sizeof(ca->times.ticks));
			ck_assert_mem_eq(ca->softirq, cb->softirq, sizeof(ca->softirq));
			ck_assert_uint_eq(cb->interrupts, ca->interrupts);
		}
		ck_assert_mem_eq(a->softirqs.total, b->softirqs.total, sizeof(a->softirqs.total));
		ck_assert_uint_eq(b->nlines, a->nlines);
		for (uint32_t l = 0; l < b->nlines; l++) {
			ck_assert_str_eq(pw_sample_lines(b)[l].line.irq, pw_sample_lines(a)[l].line.irq);
			ck_assert_uint_eq(pw_sample_lines(b)[l].line.total, pw_sample_lines(a)[l].line.total);
		}
		ck_assert_ptr_null(pw_sample_matrix_const(b));
	}
	pw_collector_free(c);
	free(a);
	free(b);
}
END_TEST

/* acpi-cpufreq, ondemand, 16 CPUs (cpuN/cpufreq are symlinks to cpufreq/policyN). */
START_TEST(test_acpi_cpufreq)
{
	char proc[PATH_MAX], sys[PATH_MAX], rel[256];
	struct pw_collector *c;
	struct pw_sample *s;
	const struct pw_cpu_sample *cpus;

	fixture_dir(HOST "/proc", proc, sizeof(proc));
	fixture_dir(ACPI "/t0/sys", sys, sizeof(sys));
	c = collector_at(proc, sys, 10, false);
	ck_assert_uint_eq(pw_collector_cpu_cap(c), 16);
	s = sample_for(c);
	read_into(c, s);
	cpus = pw_sample_cpus_const(s);
	assert_sources(s, ALL_SOURCES, ALL_SOURCES);
	ck_assert_uint_eq(errors_total(s), 0);
	ck_assert_uint_eq(s->ncpu, 16);
	for (uint32_t cpu = 0; cpu < 16; cpu++) {
		struct pw_time_in_state want;
		size_t len;
		char *buf;

		ck_assert_msg(cpus[cpu].freq_flags == (PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE),
		              "cpu%u flags 0x%x", cpu, cpus[cpu].freq_flags);
		snprintf(rel, sizeof(rel), ACPI "/t0/" CPU_DIR "/cpufreq/policy%u/scaling_cur_freq", cpu);
		ck_assert_uint_eq(cpus[cpu].cur_khz, fixture_u64(rel));
		ck_assert_uint_eq(cpus[cpu].min_khz, 1200000);
		ck_assert_uint_eq(cpus[cpu].max_khz, 2000000);
		ck_assert_uint_eq(cpus[cpu].base_khz, 0); /* acpi-cpufreq has no base_frequency */
		ck_assert_str_eq(cpus[cpu].governor, "ondemand");
		ck_assert_str_eq(cpus[cpu].driver, "acpi-cpufreq");
		ck_assert(cpus[cpu].online);
		snprintf(rel, sizeof(rel), ACPI "/t0/" CPU_DIR "/cpu%u/cpufreq/stats/time_in_state", cpu);
		buf = pw_fixture_read(rel, &len);
		ck_assert_int_eq(pw_time_in_state_parse(buf, len, &want), 0);
		free(buf);
		ck_assert_uint_eq(cpus[cpu].tis.khz_time, want.khz_time);
		ck_assert_uint_eq(cpus[cpu].tis.time, want.time);
		ck_assert_uint_eq(cpus[cpu].tis.min_khz, 1200000);
		ck_assert_uint_eq(cpus[cpu].tis.max_khz, 2000000);
		ck_assert_uint_eq(cpus[cpu].tis.nstates, 9);
	}
	/* Hand-checked sums (README: 27 360 000 units per CPU, give or take a few). */
	ck_assert_uint_eq(cpus[0].tis.time, 27360000);
	ck_assert_uint_eq(cpus[3].tis.time, 27359991);
	ck_assert_uint_eq(cpus[3].tis.khz_time, UINT64_C(36721322800000));
	ck_assert_uint_eq(cpus[3].cur_khz, 2000000); /* one instant: not the 1.94 GHz average */
	pw_collector_free(c);
	free(s);
}
END_TEST

/* intel_pstate active: cpufreq without stats/, so no time_in_state. */
START_TEST(test_intel_pstate)
{
	char proc[PATH_MAX], sys[PATH_MAX];
	static const uint32_t cur[4] = {3899876, 799941, 1204566, 4699921};
	struct pw_collector *c;
	struct pw_sample *s;

	fixture_dir(VM "/proc", proc, sizeof(proc));
	fixture_dir("cpufreq/intel-pstate-4cpu/sys", sys, sizeof(sys));
	c = collector_at(proc, sys, 10, false);
	ck_assert_uint_eq(pw_collector_cpu_cap(c), 4); /* possible 0-3 outranks /proc/stat's 2 */
	s = sample_for(c);
	read_into(c, s);
	ck_assert(pw_sample_has(s, PW_SRC_CPUFREQ));
	ck_assert_uint_eq(s->parse_errors[PW_SRC_CPUFREQ], 0);
	for (int cpu = 0; cpu < 4; cpu++) {
		const struct pw_cpu_sample *p = &pw_sample_cpus_const(s)[cpu];

		ck_assert_uint_eq(p->freq_flags, PW_FREQ_HAS_CPUFREQ);
		ck_assert_uint_eq(p->cur_khz, cur[cpu]);
		ck_assert_uint_eq(p->min_khz, 800000);
		ck_assert_uint_eq(p->max_khz, 4700000);
		ck_assert_uint_eq(p->base_khz, 2900000); /* the all-core reference of CpuFrequencyLow */
		ck_assert_str_eq(p->governor, "powersave");
		ck_assert_str_eq(p->driver, "intel_pstate");
		ck_assert_uint_eq(p->tis.nstates, 0);
	}
	pw_collector_free(c);
	free(s);
}
END_TEST

/* vanishing-2cpu: cpu1 offline and without cpufreq/: absent for that CPU, no error, cpu0 intact. */
START_TEST(test_vanishing_cpu)
{
	char proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector *c;
	struct pw_sample *s;
	const struct pw_cpu_sample *cpus;

	fixture_dir(VM "/proc", proc, sizeof(proc));
	fixture_dir("cpufreq/vanishing-2cpu/sys", sys, sizeof(sys));
	c = collector_at(proc, sys, 1, false);
	s = sample_for(c);
	for (int i = 0; i < 3; i++) {
		read_into(c, s);
		cpus = pw_sample_cpus_const(s);
		assert_sources(s, ALL_SOURCES, ALL_SOURCES);
		ck_assert_uint_eq(errors_total(s), 0);
		ck_assert_uint_eq(cpus[0].freq_flags, PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE);
		ck_assert_uint_eq(cpus[0].cur_khz, 1400000);
		ck_assert_uint_eq(cpus[0].max_khz, 2600000);
		ck_assert_str_eq(cpus[0].governor, "schedutil");
		ck_assert_uint_eq(cpus[0].tis.time, 412233 + 98812 + 77120 + 2633871);
		ck_assert_uint_eq(cpus[1].freq_flags, 0);
		ck_assert(cpus[0].online && !cpus[1].online);
		ck_assert(!cpus[1].in_interrupts && !cpus[1].in_softirqs);
	}
	pw_collector_free(c);
	free(s);
}
END_TEST

/* ---- malformed: copies of the trees, broken on purpose ---- */

/* A file that does not exist is absent (not an error) and is picked up by a later rescan. */
/* A file deleted and created anew while open (a rename over it, a restored fixture) is read from its
 * new inode after the next rescan, not from the dead one for ever. */
START_TEST(test_replaced_file_is_reopened)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	const uint32_t rescan_every = 3;
	struct pw_collector *c;
	struct pw_sample *s;
	uint32_t reads = 0;

	copy_vm(tree, proc, sys);
	c = collector_at(proc, sys, rescan_every, false);
	s = sample_for(c);
	read_into(c, s);
	ck_assert_uint_eq(s->stat.ctxt, 806741);
	/* The next capture, written beside and renamed over: a new inode. */
	run("cp '%s' '%s.new' && mv '%s.new' '%s'", pw_fixture_path("kernels/vm-2cpu-idle-2/proc/stat"),
	    at(proc, "stat"), at(proc, "stat"), at(proc, "stat"));
	do {
		read_into(c, s);
		reads++;
	} while (s->stat.ctxt == 806741 && reads < rescan_every + 1);
	ck_assert_msg(reads <= rescan_every, "the new stat was read after %u reads (rescan_every %u)", reads,
	              rescan_every);
	ck_assert_uint_eq(s->stat.ctxt, 809073);
	ck_assert_uint_eq(errors_total(s), 0);
	pw_collector_free(c);
	free(s);
}
END_TEST

START_TEST(test_missing_file)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	const uint32_t rescan_every = 3;
	struct pw_collector *c;
	struct pw_sample *s;
	uint32_t reads = 0;

	copy_vm(tree, proc, sys);
	ck_assert_int_eq(unlink(at(proc, "softirqs")), 0);
	c = collector_at(proc, sys, rescan_every, false);
	s = sample_for(c);
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ & ~BIT(PW_SRC_SOFTIRQS), NO_CPUFREQ & ~BIT(PW_SRC_SOFTIRQS));
	ck_assert_uint_eq(errors_total(s), 0);
	ck_assert(!pw_sample_cpus(s)[0].in_softirqs);
	ck_assert_uint_eq(s->stat.ctxt, 806741); /* the rest is read */

	run("cp '%s' '%s'", pw_fixture_path(VM "/proc/softirqs"), at(proc, "softirqs"));
	do {
		read_into(c, s);
		reads++;
	} while (!pw_sample_has(s, PW_SRC_SOFTIRQS) && reads < rescan_every + 1);
	ck_assert_msg(reads <= rescan_every, "softirqs back after %u reads (rescan_every %u)", reads,
	              rescan_every);
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ);
	ck_assert_uint_eq(errors_total(s), 0);
	ck_assert_uint_eq(pw_sample_cpus(s)[0].softirq[PW_SOFTIRQ_TIMER], 6396);
	ck_assert(pw_sample_cpus(s)[0].in_softirqs);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* Without a pressure/ directory (CONFIG_PSI=n, kernels before 4.20): absent, not an error. */
START_TEST(test_no_pressure_dir)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector *c;
	struct pw_sample *s;

	copy_vm(tree, proc, sys);
	run("rm -r '%s'", at(proc, "pressure"));
	c = collector_at(proc, sys, 1, false);
	s = sample_for(c);
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ & ~BIT(PW_SRC_PRESSURE), NO_CPUFREQ & ~BIT(PW_SRC_PRESSURE));
	ck_assert_uint_eq(s->psi_present, 0);
	ck_assert_uint_eq(errors_total(s), 0);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* Junk where a counter file belongs: counted as a parse error, present but down, others still up;
 * good content again brings it back. */
START_TEST(test_garbage_file)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector *c;
	struct pw_sample *s;
	size_t len;
	char *junk;

	copy_vm(tree, proc, sys);
	c = collector_at(proc, sys, 100, false);
	s = sample_for(c);
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ);

	junk = pw_fixture_read("quirks/loadavg-garbage/loadavg", &len);
	write_file(at(proc, "loadavg"), junk, len);
	free(junk);
	for (uint64_t n = 1; n <= 2; n++) {
		read_into(c, s);
		assert_sources(s, NO_CPUFREQ, NO_CPUFREQ & ~BIT(PW_SRC_LOADAVG));
		ck_assert_uint_eq(s->parse_errors[PW_SRC_LOADAVG], n); /* cumulative */
		ck_assert_uint_eq(errors_total(s), n);
		ck_assert_uint_eq(s->meminfo.kb[PW_MEM_TOTAL], 24683652);
	}

	/* Binary junk in /proc/stat: stat down, the rest up. */
	junk = pw_fixture_read("quirks/stat-garbage/stat", &len);
	write_file(at(proc, "stat"), junk, len);
	free(junk);
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ & ~BIT(PW_SRC_LOADAVG) & ~BIT(PW_SRC_STAT));
	ck_assert_uint_eq(s->parse_errors[PW_SRC_STAT], 1);
	ck_assert_uint_eq(s->parse_errors[PW_SRC_LOADAVG], 3);
	ck_assert(!pw_sample_cpus(s)[0].times.present);
	ck_assert_uint_eq(pw_sample_lines(s)[pw_test_line_index(s, "36")].line.total, 36611);

	run("cp '%s' '%s'", pw_fixture_path(VM "/proc/loadavg"), at(proc, "loadavg"));
	run("cp '%s' '%s'", pw_fixture_path(VM "/proc/stat"), at(proc, "stat"));
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ);
	ck_assert_uint_eq(s->parse_errors[PW_SRC_LOADAVG], 3);
	ck_assert_uint_eq(s->parse_errors[PW_SRC_STAT], 1);
	ck_assert_uint_eq(s->loadavg.load1, 64);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* /proc/stat readable but empty: a parse error of stat only. */
START_TEST(test_empty_stat)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector *c;
	struct pw_sample *s;

	copy_vm(tree, proc, sys);
	c = collector_at(proc, sys, 1, false);
	s = sample_for(c);
	write_file(at(proc, "stat"), "", 0);
	read_into(c, s);
	assert_sources(s, NO_CPUFREQ, NO_CPUFREQ & ~BIT(PW_SRC_STAT));
	ck_assert_uint_eq(s->parse_errors[PW_SRC_STAT], 1);
	ck_assert_uint_eq(errors_total(s), 1);
	ck_assert(!pw_sample_cpus(s)[0].times.present);
	/* sysfs still says which CPUs are online, so their columns are kept. */
	ck_assert(pw_sample_cpus(s)[1].online && pw_sample_cpus(s)[1].in_interrupts);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* A FIFO planted as /proc/loadavg must not hang the sampler (open is O_NONBLOCK, pread fails). */
START_TEST(test_fifo_loadavg)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector *c;
	struct pw_sample *s;

	copy_vm(tree, proc, sys);
	ck_assert_int_eq(unlink(at(proc, "loadavg")), 0);
	ck_assert_int_eq(mkfifo(at(proc, "loadavg"), 0600), 0);
	c = collector_at(proc, sys, 1, false);
	s = sample_for(c);
	for (int i = 0; i < 3; i++) {
		read_into(c, s);
		ck_assert(!pw_sample_has(s, PW_SRC_LOADAVG));
		ck_assert(s->parse_errors[PW_SRC_LOADAVG] > 0 || !(s->source_present & BIT(PW_SRC_LOADAVG)));
		ck_assert_uint_eq(s->source_up, NO_CPUFREQ & ~BIT(PW_SRC_LOADAVG));
	}
	pw_collector_free(c);
	free(s);
}
END_TEST

/* Without a readable /proc/stat there is nothing to watch: pw_collector_new fails with -errno. */
START_TEST(test_new_without_stat)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	struct pw_collector_config cfg = {.user_hz = 100, .page_size = 4096, .rescan_every = 1};
	int err = 0;

	copy_vm(tree, proc, sys);
	cfg.procfs = proc;
	cfg.sysfs = sys;
	ck_assert_int_eq(unlink(at(proc, "stat")), 0);
	ck_assert_ptr_null(pw_collector_new(&cfg, &err));
	ck_assert_int_eq(err, -ENOENT);

	/* A FIFO as stat: fails at once, does not block. */
	ck_assert_int_eq(mkfifo(at(proc, "stat"), 0600), 0);
	err = 0;
	ck_assert_ptr_null(pw_collector_new(&cfg, &err));
	ck_assert_int_lt(err, 0);

	/* No procfs at all. */
	cfg.procfs = at(tree, "no-such-proc");
	err = 0;
	ck_assert_ptr_null(pw_collector_new(&cfg, &err));
	ck_assert_int_eq(err, -ENOENT);
}
END_TEST

/* A copy of the acpi t0 tree as sysfs (the procfs is the host capture, read only). */
static struct pw_collector *acpi_copy(char *sys, size_t size, uint32_t rescan_every)
{
	char tree[PATH_MAX], proc[PATH_MAX];

	copy_tree(ACPI "/t0", tree, sizeof(tree));
	join(sys, size, tree, "sys");
	fixture_dir(HOST "/proc", proc, sizeof(proc));
	return collector_at(proc, sys, rescan_every, false);
}

static void assert_freq_only_lacks(const struct pw_sample *s, int missing)
{
	for (int cpu = 0; cpu < 16; cpu++) {
		const struct pw_cpu_sample *p = &pw_sample_cpus_const(s)[cpu];

		if (cpu == missing) {
			ck_assert_msg(!(p->freq_flags & PW_FREQ_HAS_CPUFREQ), "cpu%d still has cpufreq", cpu);
			continue;
		}
		ck_assert_msg(p->freq_flags & PW_FREQ_HAS_CPUFREQ, "cpu%d lost cpufreq", cpu);
		ck_assert_str_eq(p->governor, "ondemand");
		ck_assert_uint_eq(p->max_khz, 2000000);
	}
}

/* Junk in one CPU's scaling_cur_freq: counted, that CPU's frequency dropped, the others kept. */
START_TEST(test_cpufreq_junk)
{
	char sys[PATH_MAX];
	struct pw_collector *c = acpi_copy(sys, sizeof(sys), 100);
	struct pw_sample *s = sample_for(c);

	read_into(c, s);
	assert_freq_only_lacks(s, -1);
	write_str(at(sys, SYS_CPU "/cpufreq/policy3/scaling_cur_freq"), "<unsupported>\n");
	read_into(c, s);
	assert_freq_only_lacks(s, 3);
	ck_assert_uint_eq(s->parse_errors[PW_SRC_CPUFREQ], 1);
	ck_assert(s->source_present & BIT(PW_SRC_CPUFREQ));
	ck_assert_uint_eq(s->source_up & NO_CPUFREQ, NO_CPUFREQ);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* A cpufreq file that opens but cannot be read (an offline CPU's inactive policy answers EBUSY on
 * newer kernels) makes that CPU's frequency absent, like a missing directory: no parse error, and
 * the other CPUs' frequencies stay. Here the read fails with EISDIR: scaling_cur_freq is a directory. */
START_TEST(test_cpufreq_failing_read_is_absent)
{
	char sys[PATH_MAX];
	struct pw_collector *c = acpi_copy(sys, sizeof(sys), 1);
	struct pw_sample *s = sample_for(c);
	const char *cur = at(sys, SYS_CPU "/cpufreq/policy5/scaling_cur_freq");

	ck_assert_int_eq(unlink(cur), 0);
	ck_assert_int_eq(mkdir(cur, 0700), 0);
	for (int i = 0; i < 3; i++) {
		read_into(c, s);
		assert_freq_only_lacks(s, 5);
		ck_assert_msg(pw_sample_has(s, PW_SRC_CPUFREQ), "read %d: cpufreq source down for one CPU",
		              i);
		ck_assert_msg(s->parse_errors[PW_SRC_CPUFREQ] == 0, "read %d: %llu cpufreq parse errors", i,
		              (unsigned long long)s->parse_errors[PW_SRC_CPUFREQ]);
	}
	pw_collector_free(c);
	free(s);
}
END_TEST

/* cpu5's cpufreq directory vanishes: cpu5 loses its frequency by the next rescan, the others keep
 * theirs, nothing is an error; it comes back when the directory does. */
START_TEST(test_cpufreq_dir_removed)
{
	char sys[PATH_MAX];
	const uint32_t rescan_every = 2;
	struct pw_collector *c = acpi_copy(sys, sizeof(sys), rescan_every);
	struct pw_sample *s = sample_for(c);
	const char *link = at(sys, SYS_CPU "/cpu5/cpufreq");

	read_into(c, s);
	assert_freq_only_lacks(s, -1);
	ck_assert_int_eq(unlink(link), 0);
	for (uint32_t i = 0; i < rescan_every; i++)
		read_into(c, s);
	assert_freq_only_lacks(s, 5);
	assert_sources(s, ALL_SOURCES, ALL_SOURCES);
	ck_assert_uint_eq(errors_total(s), 0);

	ck_assert_int_eq(symlink("../cpufreq/policy5", at(sys, SYS_CPU "/cpu5/cpufreq")), 0);
	for (uint32_t i = 0; i < rescan_every; i++)
		read_into(c, s);
	assert_freq_only_lacks(s, -1);
	ck_assert_str_eq(pw_sample_cpus(s)[5].driver, "acpi-cpufreq");
	ck_assert_uint_eq(errors_total(s), 0);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* A change of devices/system/cpu/online re-discovers cpufreq in the same read, not rescan_every
 * reads later. */
START_TEST(test_online_change_rescans)
{
	char sys[PATH_MAX];
	struct pw_collector *c = acpi_copy(sys, sizeof(sys), 1000);
	struct pw_sample *s = sample_for(c);
	const struct pw_cpu_sample *cpus;

	read_into(c, s);
	read_into(c, s);
	cpus = pw_sample_cpus_const(s); /* the layout is set by the first read_into() */
	assert_freq_only_lacks(s, -1);
	/* cpu5 goes offline: its cpufreq link goes, the online list says so. */
	ck_assert_int_eq(unlink(at(sys, SYS_CPU "/cpu5/cpufreq")), 0);
	write_str(at(sys, SYS_CPU "/online"), "0-4,6-15\n");
	read_into(c, s);
	assert_freq_only_lacks(s, 5);
	ck_assert(!cpus[5].online && cpus[4].online && cpus[6].online);
	ck_assert(!cpus[5].in_interrupts && cpus[6].in_interrupts);
	assert_sources(s, ALL_SOURCES, ALL_SOURCES);
	ck_assert_uint_eq(errors_total(s), 0);

	/* And back online. */
	ck_assert_int_eq(symlink("../cpufreq/policy5", at(sys, SYS_CPU "/cpu5/cpufreq")), 0);
	write_str(at(sys, SYS_CPU "/online"), "0-15\n");
	read_into(c, s);
	assert_freq_only_lacks(s, -1);
	ck_assert(cpus[5].online && cpus[5].in_interrupts);
	ck_assert_uint_eq(errors_total(s), 0);
	pw_collector_free(c);
	free(s);
}
END_TEST

/* ---- kernels ---- */

/* CLOCK_MONOTONIC stand-in for a capture: its /proc/uptime, in hundredths. */
static int64_t capture_ns(const char *id)
{
	size_t len;
	char *buf = pw_fixture_read(pw_fixture_kernel_path(id, "proc/uptime"), &len);
	struct pw_scan scan;
	uint32_t hundredths;

	pw_scan_init(&scan, buf, len);
	ck_assert_int_eq(pw_scan_hundredths(&scan, &hundredths), 0);
	free(buf);
	return (int64_t)hundredths * (SEC / 100);
}

static void assert_finite_nonneg(double x, const char *what, const char *id)
{
	ck_assert_msg(isfinite(x) && x >= 0, "%s %s: %g", id, what, x);
}

/* The snapshots of one machine in time order, read and derived as the sampler would. */
static void check_chain(const char *const *ids, size_t n, uint32_t ncpu)
{
	struct pw_sample *prev = NULL;

	for (size_t k = 0; k < n; k++) {
		struct pw_collector *c;
		struct pw_sample *s;
		const struct pw_cpu_sample *cpus;
		const struct pw_host_derived *d;
		char rel[256];

		snprintf(rel, sizeof(rel), "kernels/%s", ids[k]);
		c = collector_of(rel, 5, true);
		s = sample_for(c);
		d = &s->derived;
		ck_assert_uint_eq(pw_collector_cpu_cap(c), ncpu);
		read_into(c, s);
		s->mono_ns = capture_ns(ids[k]);
		assert_sources(s, NO_CPUFREQ, NO_CPUFREQ);
		ck_assert_uint_eq(errors_total(s), 0);
		ck_assert_uint_eq(s->ncpu, ncpu);
		if (prev) {
			/* Captures of one machine share the layout the sampler relies on. */
			ck_assert_uint_eq(s->size, prev->size);
			s->counter_resets = prev->counter_resets;
			pw_derive(prev, s);
			cpus = pw_sample_cpus_const(s);
			ck_assert_msg(s->counter_resets == 0, "%s: %llu resets", ids[k],
			              (unsigned long long)s->counter_resets);
			ck_assert(d->valid & PW_DERIVED_SHARES);
			ck_assert(d->valid & PW_DERIVED_RATES);
			double sum = 0, cpu_irq = 0, line_irq = 0;
			for (int m = 0; m < PW_MODE_COUNT; m++) {
				ck_assert(d->share[m] >= 0 && d->share[m] <= 1);
				if (m < PW_MODE_GUEST)
					sum += d->share[m];
			}
			ck_assert_msg(fabs(sum - 1) < 1e-4, "%s: shares add to %g", ids[k], sum);
			assert_finite_nonneg(d->ctxt_rate, "ctxt", ids[k]);
			assert_finite_nonneg(d->intr_rate, "intr", ids[k]);
			assert_finite_nonneg(d->fork_rate, "fork", ids[k]);
			assert_finite_nonneg(d->softirq_total_rate, "softirq", ids[k]);
			assert_finite_nonneg(d->vm_rate[PW_VM_PGFAULT], "pgfault", ids[k]);
			ck_assert_uint_le(d->busy_cpus, ncpu);
			for (uint32_t i = 0; i < s->nlines; i++) {
				assert_finite_nonneg(pw_sample_lines(s)[i].rate,
				                     pw_sample_lines(s)[i].line.irq, ids[k]);
				line_irq += pw_sample_lines(s)[i].rate;
			}
			for (uint32_t id = 0; id < ncpu; id++) {
				ck_assert(cpus[id].derived_valid & PW_DERIVED_SHARES);
				assert_finite_nonneg(cpus[id].interrupt_rate, "cpu interrupts", ids[k]);
				cpu_irq += cpus[id].interrupt_rate;
			}
			/* The same interrupts summed by line or by CPU column; numbered lines' totals come
			 * from /proc/stat (all possible CPUs), read a moment before /proc/interrupts. */
			ck_assert_msg(fabs(cpu_irq - line_irq) <= 1e-2 * line_irq + 1e-3, "%s: %g vs %g",
			              ids[k], cpu_irq, line_irq);
			for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
				double by_cpu = 0;
				for (uint32_t id = 0; id < ncpu; id++)
					by_cpu += cpus[id].softirq_rate[t];
				ck_assert(fabs(by_cpu - d->softirq_rate[t]) <=
				          1e-4 * d->softirq_rate[t] + 1e-3);
			}
		}
		pw_collector_free(c);
		free(prev);
		prev = s;
	}
	free(prev);
}

START_TEST(test_captures_chain)
{
	static const char *const vm[] = {"vm-2cpu-idle-1", "vm-2cpu-idle-2", "vm-2cpu-idle-3",
	                                 "vm-2cpu-load-1", "vm-2cpu-load-2", "vm-2cpu-load-3"};
	static const char *const host[] = {"host-16cpu-idle-1", "host-16cpu-idle-2", "host-16cpu-idle-3",
	                                   "host-16cpu-load-1", "host-16cpu-load-2", "host-16cpu-load-3"};

	check_chain(vm, 6, 2);
	check_chain(host, 6, 16);
}
END_TEST

/* Incident 2 end to end: t0 and t1 of the acpi tree, 10 s apart, read by the collector and derived:
 * the README's per-CPU interval averages, not scaling_cur_freq. */
START_TEST(test_acpi_interval_average)
{
	static const uint32_t avg[16] = {1810000, 1560000, 1640000, 1940000, 1600000, 1570000,
	                                 1680000, 1520000, 1750000, 1590000, 1620000, 1560000,
	                                 1430000, 1660000, 1580000, 1570000};
	char proc[PATH_MAX], sys0[PATH_MAX], sys1[PATH_MAX];
	struct pw_collector *c0, *c1;
	struct pw_sample *s0, *s1;
	uint64_t sum = 0;

	fixture_dir(HOST "/proc", proc, sizeof(proc));
	fixture_dir(ACPI "/t0/sys", sys0, sizeof(sys0));
	fixture_dir(ACPI "/t1/sys", sys1, sizeof(sys1));
	c0 = collector_at(proc, sys0, 10, false);
	c1 = collector_at(proc, sys1, 10, false);
	s0 = sample_for(c0);
	s1 = sample_for(c1);
	read_into(c0, s0);
	read_into(c1, s1);
	ck_assert_uint_eq(s0->size, s1->size);
	s0->mono_ns = 100 * SEC;
	s1->mono_ns = 110 * SEC;
	pw_derive(s0, s1);
	for (int cpu = 0; cpu < 16; cpu++) {
		const struct pw_cpu_sample *p = &pw_sample_cpus_const(s1)[cpu];

		ck_assert(p->derived_valid & PW_DERIVED_FREQ);
		ck_assert(p->freq_flags & PW_FREQ_AVG_FROM_STATS);
		ck_assert_msg(p->avg_khz == avg[cpu], "cpu%d: %u kHz, README %u", cpu, p->avg_khz, avg[cpu]);
		ck_assert(fabs(p->freq_ratio - avg[cpu] / 2000000.0) < 1e-6);
		sum += p->avg_khz;
	}
	ck_assert_uint_eq(sum / 16, 1630000);
	ck_assert(fabs(pw_sample_cpus_const(s1)[3].freq_ratio - 0.97) < 1e-6);
	ck_assert(fabs(pw_sample_cpus_const(s1)[12].freq_ratio - 0.715) < 1e-6);
	pw_collector_free(c0);
	pw_collector_free(c1);
	free(s0);
	free(s1);
}
END_TEST

/* x86 ERR and MIS print one host-wide count: the line's total, and no CPU's interrupts or rate. The
 * captures have 0 there; the copy gets counts between two samples, in place. */
START_TEST(test_single_total_lines)
{
	char tree[PATH_MAX], proc[PATH_MAX], sys[PATH_MAX];
	const struct pw_cpu_sample *cpus;
	struct pw_collector *c;
	struct pw_sample *s0, *s1;
	uint32_t err, mis;
	size_t len;
	char *buf, *at_err, *at_mis;

	copy_tree(HOST, tree, sizeof(tree));
	join(proc, sizeof(proc), tree, "proc");
	join(sys, sizeof(sys), tree, "sys");
	c = collector_at(proc, sys, 100, true);
	s0 = sample_for(c);
	s1 = sample_for(c);
	read_into(c, s0);
	s0->mono_ns = SEC;

	buf = pw_fixture_read(HOST "/proc/interrupts", &len);
	at_err = memmem(buf, len, "\nERR:          0\n", 17);
	at_mis = memmem(buf, len, "\nMIS:          0\n", 17);
	ck_assert(at_err && at_mis);
	memcpy(at_err + 1, "ERR:       4321", 15);
	memcpy(at_mis + 1, "MIS:         65", 15);
	write_file(at(proc, "interrupts"), buf, len);
	free(buf);
	read_into(c, s1);
	s1->mono_ns = 2 * SEC;
	pw_derive(s0, s1);

	err = pw_test_line_index(s1, "ERR");
	mis = pw_test_line_index(s1, "MIS");
	ck_assert_uint_eq(pw_sample_lines(s1)[err].line.total, 4321);
	ck_assert_uint_eq(pw_sample_lines(s1)[mis].line.total, 65);
	ck_assert_float_eq(pw_sample_lines(s1)[err].rate, 4321.0f);
	cpus = pw_sample_cpus_const(s1);
	/* cpu0's column over the capture's other lines: IRQ 44, LOC, RES, CAL, TLB, HYP. */
	ck_assert_uint_eq(cpus[0].interrupts, 13 + 778 + 199 + 2946 + 9 + 1);
	for (uint32_t cpu = 0; cpu < 16; cpu++) {
		ck_assert_uint_eq(cpus[cpu].interrupts, pw_sample_cpus_const(s0)[cpu].interrupts);
		ck_assert(cpus[cpu].derived_valid & PW_DERIVED_RATES);
		ck_assert_float_eq(cpus[cpu].interrupt_rate, 0.0f);
		ck_assert_uint_eq(pw_sample_matrix_const(s1)[(size_t)err * s1->cpu_cap + cpu], 0);
		ck_assert_uint_eq(pw_sample_matrix_const(s1)[(size_t)mis * s1->cpu_cap + cpu], 0);
	}
	pw_collector_free(c);
	free(s0);
	free(s1);
}
END_TEST

static Suite *collect_suite(void)
{
	Suite *s = suite_create("collect");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_vm_layout);
	tcase_add_test(core, test_reads_kernel);
	tcase_add_test(core, test_vm_values);
	tcase_add_test(core, test_vm_reads_repeat);
	tcase_add_test(core, test_acpi_cpufreq);
	tcase_add_test(core, test_intel_pstate);
	tcase_add_test(core, test_vanishing_cpu);
	suite_add_tcase(s, core);

	tcase_add_unchecked_fixture(malformed, scratch_setup, scratch_teardown);
	tcase_set_timeout(malformed, 30); /* a read blocking on the FIFO fails here, not in CI's limit */
	tcase_add_test(malformed, test_missing_file);
	tcase_add_test(malformed, test_replaced_file_is_reopened);
	tcase_add_test(malformed, test_no_pressure_dir);
	tcase_add_test(malformed, test_garbage_file);
	tcase_add_test(malformed, test_empty_stat);
	tcase_add_test(malformed, test_fifo_loadavg);
	tcase_add_test(malformed, test_new_without_stat);
	tcase_add_test(malformed, test_cpufreq_junk);
	tcase_add_test(malformed, test_cpufreq_failing_read_is_absent);
	tcase_add_test(malformed, test_cpufreq_dir_removed);
	tcase_add_test(malformed, test_online_change_rescans);
	suite_add_tcase(s, malformed);

	tcase_add_unchecked_fixture(kernels, scratch_setup, scratch_teardown);
	tcase_add_test(kernels, test_captures_chain);
	tcase_add_test(kernels, test_single_total_lines);
	tcase_add_test(kernels, test_acpi_interval_average);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(collect_suite());
}
