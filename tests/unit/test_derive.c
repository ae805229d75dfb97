/* test_derive.c — interval figures from two hand-built samples: mode shares (guest inside user),
 * busy CPUs, per-line / per-CPU / host rates, vm rates, the time_in_state average frequency, and
 * the cases that must derive nothing or leave a figure out (a source down, a reset, a CPU whose
 * column came or went, time not advancing). Time is a parameter: mono_ns is set by hand. */
#include "derive.h"
#include "fixture_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CAP 4
#define LINE_CAP 8
#define SEC INT64_C(1000000000)
#define TOL 1e-5

/* ---- the baseline interval: prev at t = 1 s, cur at t = 2 s ---- */

/* Host ticks: deltas user 60 (guest 40 inside), nice 10 (guest_nice 4 inside), system 20, idle 100,
 * iowait 5, irq 2, softirq 3, steal 0: 200 ticks elapsed. */
static const uint64_t host_prev[PW_MODE_COUNT] = {1000, 20, 500, 8000, 100, 10, 20, 5, 300, 6};
static const uint64_t host_cur[PW_MODE_COUNT] = {1060, 30, 520, 8100, 105, 12, 23, 5, 340, 10};

/* cpu0: 90% busy (guest 50 inside user 80); cpu1: 40% user, 30% idle, 30% iowait (not busy: iowait
 * is idle time); cpu2: 60% system (busy); cpu3 has no /proc/stat line. Each 100 ticks. */
static const uint64_t cpu_prev[3][PW_MODE_COUNT] = {
        {500, 0, 200, 4000, 50, 5, 10, 2, 100, 0},
        {300, 10, 200, 3000, 40, 3, 6, 2, 100, 6},
        {200, 10, 100, 1000, 10, 2, 4, 1, 0, 0},
};
static const uint64_t cpu_cur[3][PW_MODE_COUNT] = {
        {580, 0, 210, 4010, 50, 5, 10, 2, 150, 0},
        {340, 10, 200, 3030, 70, 3, 6, 2, 100, 6},
        {200, 10, 160, 1040, 10, 2, 4, 1, 0, 0},
};

static struct pw_sample *new_sample(int64_t mono_ns)
{
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);

	s->mono_ns = mono_ns;
	s->user_hz = 100;
	return s;
}

static void set_times(struct pw_cpu_times *t, const uint64_t ticks[PW_MODE_COUNT])
{
	memcpy(t->ticks, ticks, sizeof(t->ticks));
	t->nmodes = PW_MODE_COUNT;
	t->present = true;
}

static void add_line(struct pw_sample *s, const char *irq, uint64_t total)
{
	struct pw_line_sample *l;

	ck_assert_uint_lt(s->nlines, s->line_cap);
	l = &pw_sample_lines(s)[s->nlines++];
	snprintf(l->line.irq, sizeof(l->line.irq), "%s", irq);
	l->line.total = total;
	s->interrupts.nlines = s->nlines;
}

static const struct pw_line_sample *line_of(const struct pw_sample *s, const char *irq)
{
	return &pw_sample_lines_const(s)[pw_test_line_index(s, irq)];
}

static void set_vm(struct pw_sample *s, enum pw_vmstat_field f, uint64_t value)
{
	s->vmstat.value[f] = value;
	s->vmstat.present |= 1u << f;
}

static void set_freq(struct pw_cpu_sample *c, uint32_t flags, uint32_t cur_khz, uint32_t max_khz,
                     uint64_t khz_time, uint64_t time)
{
	c->freq_flags = flags;
	c->cur_khz = cur_khz;
	c->max_khz = max_khz;
	c->tis.khz_time = khz_time;
	c->tis.time = time;
}

/* Everything but lines, vmstat and frequencies, which differ between prev and cur. */
static struct pw_sample *common(int64_t mono_ns, bool is_cur)
{
	struct pw_sample *s = new_sample(mono_ns);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	static const uint64_t irqs[2][3] = {{1000, 2000, 500}, {1300, 2100, 500}};

	s->source_up = s->source_present = (1u << PW_SRC_COUNT) - 1;
	s->ncpu = 3;
	s->stat.present = 0xff;
	s->stat.cpu_seen = 3;
	set_times(&s->stat.total, is_cur ? host_cur : host_prev);
	s->stat.intr_total = is_cur ? 10400 : 10000;
	s->stat.ctxt = is_cur ? 6000 : 5000;
	s->stat.processes = is_cur ? 103 : 100;
	s->stat.softirq_total = is_cur ? 2090 : 2000;
	for (int c = 0; c < 3; c++) {
		set_times(&cpus[c].times, is_cur ? cpu_cur[c] : cpu_prev[c]);
		cpus[c].online = cpus[c].in_interrupts = cpus[c].in_softirqs = true;
		cpus[c].interrupts = irqs[is_cur][c];
	}
	cpus[0].softirq[PW_SOFTIRQ_TIMER] = is_cur ? 150 : 100;
	cpus[0].softirq[PW_SOFTIRQ_NET_RX] = is_cur ? 40 : 10;
	cpus[1].softirq[PW_SOFTIRQ_TIMER] = is_cur ? 210 : 200;
	cpus[2].softirq[PW_SOFTIRQ_SCHED] = is_cur ? 9 : 5;
	s->softirqs.present = (1u << PW_SOFTIRQ_COUNT) - 1;
	s->softirqs.cpu_seen = 3;
	s->softirqs.total[PW_SOFTIRQ_TIMER] = is_cur ? 360 : 300;
	s->softirqs.total[PW_SOFTIRQ_NET_RX] = is_cur ? 40 : 10;
	s->softirqs.total[PW_SOFTIRQ_SCHED] = is_cur ? 9 : 5;
	s->interrupts.ncolumns = s->interrupts.cpu_seen = 3;
	return s;
}

static struct pw_sample *make_prev(void)
{
	struct pw_sample *s = common(1 * SEC, false);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	add_line(s, "0", 100);
	add_line(s, "1", 50);
	add_line(s, "LOC", 1000);
	add_line(s, "9", 500);
	set_vm(s, PW_VM_PSWPIN, 5);
	set_vm(s, PW_VM_PSWPOUT, 10);
	set_vm(s, PW_VM_PGFAULT, 1000);
	set_vm(s, PW_VM_PGMAJFAULT, 7);
	set_vm(s, PW_VM_WORKINGSET_REFAULT_ANON, 70); /* absent in cur */
	set_freq(&cpus[0], PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE, 1200000, 2000000,
	         UINT64_C(2000000) * 100 + UINT64_C(1000000) * 300, 400);
	set_freq(&cpus[1], PW_FREQ_HAS_CPUFREQ, 799941, 4700000, 0, 0);
	set_freq(&cpus[2], PW_FREQ_HAS_CPUFREQ, 1800000, 2400000, 0, 0);
	return s;
}

static struct pw_sample *make_cur(void)
{
	struct pw_sample *s = common(2 * SEC, true);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);

	/* "0" and "1" swapped places, "9" went backwards, "NEW" appeared. */
	add_line(s, "1", 80);
	add_line(s, "0", 160);
	add_line(s, "LOC", 1500);
	add_line(s, "9", 400);
	add_line(s, "NEW", 7);
	set_vm(s, PW_VM_PSWPIN, 5);
	set_vm(s, PW_VM_PSWPOUT, 30);
	set_vm(s, PW_VM_PGFAULT, 1500);
	set_vm(s, PW_VM_PGMAJFAULT, 9);
	set_vm(s, PW_VM_WORKINGSET_REFAULT_FILE, 50); /* absent in prev */
	/* cpu0: 30 units at 2 GHz and 70 at 1 GHz since prev: 1.3 GHz, not the instant 2 GHz. */
	set_freq(&cpus[0], PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE, 2000000, 2000000,
	         UINT64_C(2000000) * 130 + UINT64_C(1000000) * 370, 500);
	/* cpu1: intel_pstate, no stats; cpu2: stats appeared only now (cpufreq_stats loaded). */
	set_freq(&cpus[1], PW_FREQ_HAS_CPUFREQ, 3899876, 4700000, 0, 0);
	set_freq(&cpus[2], PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE, 1200000, 2400000, 123456789,
	         1000);
	s->counter_resets = 5; /* carried over from prev by the sampler */
	return s;
}

static void assert_nan(double x)
{
	ck_assert_msg(isnan(x), "expected NAN, got %g", x);
}

static void assert_near(double got, double want)
{
	ck_assert_msg(fabs(got - want) < TOL * (fabs(want) > 1 ? fabs(want) : 1), "got %.9g, want %.9g", got,
	              want);
}

static void assert_nothing_derived(const struct pw_sample *s)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);

	ck_assert_uint_eq(s->derived.valid, 0);
	ck_assert_uint_eq(s->derived.busy_cpus, 0);
	ck_assert_int_eq(s->interval_ns, 0);
	for (uint32_t c = 0; c < s->cpu_cap; c++) {
		ck_assert_uint_eq(cpus[c].derived_valid, 0);
		ck_assert_uint_eq(cpus[c].avg_khz, 0);
		ck_assert(!(cpus[c].freq_flags & PW_FREQ_AVG_FROM_STATS));
	}
}

/* ---- core ---- */

START_TEST(test_host_shares)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const float *share = cur->derived.share;
	static const double want[PW_MODE_COUNT] = {0.30, 0.05,  0.10, 0.50, 0.025,
	                                           0.01, 0.015, 0.0,  0.20, 0.02};
	double sum = 0;

	pw_derive(prev, cur);
	ck_assert(cur->derived.valid & PW_DERIVED_SHARES);
	ck_assert(cur->derived.valid & PW_DERIVED_RATES);
	ck_assert_int_eq(cur->interval_ns, SEC);
	for (int m = 0; m < PW_MODE_COUNT; m++)
		assert_near(share[m], want[m]);
	/* guest is inside user: the accounted modes add up to the whole interval, once. */
	for (int m = 0; m < PW_MODE_GUEST; m++)
		sum += share[m];
	assert_near(sum, 1.0);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_cpu_shares_and_busy)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);

	/* cpu3 has no line in either read; whatever its slot holds is not a reading. */
	set_times(&pw_sample_cpus(prev)[3].times, cpu_prev[0]);
	set_times(&pw_sample_cpus(cur)[3].times, cpu_cur[0]);
	pw_sample_cpus(prev)[3].times.present = pw_sample_cpus(cur)[3].times.present = false;
	pw_derive(prev, cur);
	for (int c = 0; c < 3; c++)
		ck_assert_msg(cpus[c].derived_valid & PW_DERIVED_SHARES, "cpu%d", c);
	assert_near(cpus[0].share[PW_MODE_USER], 0.8);
	assert_near(cpus[0].share[PW_MODE_SYSTEM], 0.1);
	assert_near(cpus[0].share[PW_MODE_IDLE], 0.1);
	assert_near(cpus[0].share[PW_MODE_GUEST], 0.5);
	assert_near(cpus[1].share[PW_MODE_USER], 0.4);
	assert_near(cpus[1].share[PW_MODE_IDLE], 0.3);
	assert_near(cpus[1].share[PW_MODE_IOWAIT], 0.3);
	assert_near(cpus[1].share[PW_MODE_GUEST], 0.0);
	assert_near(cpus[2].share[PW_MODE_SYSTEM], 0.6);
	assert_near(cpus[2].share[PW_MODE_IDLE], 0.4);
	ck_assert(!(cpus[3].derived_valid & PW_DERIVED_SHARES));
	/* cpu0 and cpu2 are over 50% busy; cpu1's iowait is idle time. */
	ck_assert_uint_eq(cur->derived.busy_cpus, 2);
	free(prev);
	free(cur);
}
END_TEST

/* Two CPUs over one second: cpu0 and cpu1 as given, the host line their sum. */
static void set_two_cpus(struct pw_sample *prev, struct pw_sample *cur, const uint64_t d0[PW_MODE_COUNT],
                         const uint64_t d1[PW_MODE_COUNT])
{
	struct pw_cpu_sample *p = pw_sample_cpus(prev), *c = pw_sample_cpus(cur);
	uint64_t host_d[PW_MODE_COUNT], zero[PW_MODE_COUNT] = {0};

	prev->ncpu = cur->ncpu = 2;
	for (int m = 0; m < PW_MODE_COUNT; m++)
		host_d[m] = d0[m] + d1[m];
	set_times(&prev->stat.total, zero);
	set_times(&cur->stat.total, host_d);
	set_times(&p[0].times, zero);
	set_times(&c[0].times, d0);
	set_times(&p[1].times, zero);
	set_times(&c[1].times, d1);
	p[2].times.present = c[2].times.present = false;
}

/* Live figures (4 KiB direct writes at 12 000/s, 2-vCPU VM, tick accounting): cpu1 serves the disk;
 * cpu0, idle 95 of the second, is woken for cpu1's load balancing and its ticks charge 27 of softirq
 * on top: 127 ticks in 100. On the kernel's clock its sampled time is fitted into what idle and
 * steal leave: none. */
static const uint64_t woken_cpu0[PW_MODE_COUNT] = {0, 0, 0, 95, 0, 0, 27, 5};
static const uint64_t serving_cpu1[PW_MODE_COUNT] = {0, 0, 20, 4, 9, 0, 31, 37};

START_TEST(test_sampled_time_fitted_into_the_interval)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);

	set_two_cpus(prev, cur, woken_cpu0, serving_cpu1);
	pw_derive_kernel(prev, cur);
	assert_near(cpus[0].share[PW_MODE_SOFTIRQ], 0.0);
	assert_near(cpus[0].share[PW_MODE_IDLE], 0.95);
	assert_near(cpus[0].share[PW_MODE_STEAL], 0.05);
	/* cpu1's 101 ticks are within a tick's rounding of the interval. */
	assert_near(cpus[1].share[PW_MODE_SOFTIRQ], 31.0 / 101);
	assert_near(cpus[1].share[PW_MODE_SYSTEM], 20.0 / 101);
	/* The host loses what cpu0 lost: 31 ticks of softirq in 201. */
	assert_near(cur->derived.share[PW_MODE_SOFTIRQ], 31.0 / 201);
	assert_near(cur->derived.share[PW_MODE_IDLE], 99.0 / 201);
	free(prev);
	free(cur);
}
END_TEST

/* Shares as the columns give them: cpu0's own ticks, whatever they add up to. */
static void assert_shares_as_counted(const struct pw_sample *cur, const uint64_t cpu0[PW_MODE_COUNT])
{
	double total = 0;

	for (int m = 0; m < PW_MODE_GUEST; m++)
		total += (double)cpu0[m];
	for (int m = 0; m < PW_MODE_GUEST; m++)
		assert_near(pw_sample_cpus_const(cur)[0].share[m], (double)cpu0[m] / total);
}

/* What is left alone: a fixture tree's counters (no clock of theirs: pw_derive), an unknown tick
 * unit, a CPU within a few ticks of the interval, and a CPU that counted less than the interval. */
START_TEST(test_sampled_time_left_alone)
{
	static const uint64_t near[PW_MODE_COUNT] = {0, 0, 0, 98, 0, 0, 5, 0};
	static const uint64_t offline_part[PW_MODE_COUNT] = {10, 0, 0, 30, 0, 0, 0, 0};
	struct pw_sample *prev = make_prev(), *cur = make_cur();

	set_two_cpus(prev, cur, woken_cpu0, serving_cpu1);
	pw_derive(prev, cur);
	assert_shares_as_counted(cur, woken_cpu0);

	set_two_cpus(prev, cur, woken_cpu0, serving_cpu1);
	cur->user_hz = 0;
	pw_derive_kernel(prev, cur);
	assert_shares_as_counted(cur, woken_cpu0);
	cur->user_hz = prev->user_hz;

	set_two_cpus(prev, cur, near, serving_cpu1);
	pw_derive_kernel(prev, cur);
	assert_shares_as_counted(cur, near);

	set_two_cpus(prev, cur, offline_part, serving_cpu1);
	pw_derive_kernel(prev, cur);
	assert_shares_as_counted(cur, offline_part);
	free(prev);
	free(cur);
}
END_TEST

/* Kernels before 2.5.41 print 4 columns: shares over those, the rest 0. */
START_TEST(test_four_column_kernel)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	static const uint64_t old_prev[PW_MODE_COUNT] = {100, 0, 100, 800};
	static const uint64_t old_cur[PW_MODE_COUNT] = {130, 10, 110, 850};

	set_times(&prev->stat.total, old_prev);
	set_times(&cur->stat.total, old_cur);
	prev->stat.total.nmodes = cur->stat.total.nmodes = 4;
	pw_derive(prev, cur);
	ck_assert(cur->derived.valid & PW_DERIVED_SHARES);
	assert_near(cur->derived.share[PW_MODE_USER], 0.3);
	assert_near(cur->derived.share[PW_MODE_NICE], 0.1);
	assert_near(cur->derived.share[PW_MODE_SYSTEM], 0.1);
	assert_near(cur->derived.share[PW_MODE_IDLE], 0.5);
	assert_near(cur->derived.share[PW_MODE_IOWAIT], 0.0);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_line_rates)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();

	pw_derive(prev, cur);
	assert_near(line_of(cur, "0")->rate, 60.0); /* moved from index 0 to 1 */
	assert_near(line_of(cur, "1")->rate, 30.0); /* moved from index 1 to 0 */
	assert_near(line_of(cur, "LOC")->rate, 500.0);
	assert_nan(line_of(cur, "NEW")->rate); /* no previous total */
	assert_nan(line_of(cur, "9")->rate);   /* went backwards: a reset, not a huge rate */
	ck_assert_uint_eq(cur->counter_resets, 5 + 1);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_cpu_interrupt_rates)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);

	pw_derive(prev, cur);
	for (int c = 0; c < CPU_CAP; c++)
		ck_assert(cpus[c].derived_valid & PW_DERIVED_RATES);
	assert_near(cpus[0].interrupt_rate, 300.0);
	assert_near(cpus[1].interrupt_rate, 100.0);
	assert_near(cpus[2].interrupt_rate, 0.0);
	assert_nan(cpus[3].interrupt_rate); /* no column */
	assert_near(cpus[0].softirq_rate[PW_SOFTIRQ_TIMER], 50.0);
	assert_near(cpus[0].softirq_rate[PW_SOFTIRQ_NET_RX], 30.0);
	assert_near(cpus[0].softirq_rate[PW_SOFTIRQ_HI], 0.0);
	assert_near(cpus[1].softirq_rate[PW_SOFTIRQ_TIMER], 10.0);
	assert_near(cpus[2].softirq_rate[PW_SOFTIRQ_SCHED], 4.0);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		assert_nan(cpus[3].softirq_rate[t]);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_host_rates)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_host_derived *d = &cur->derived;

	pw_derive(prev, cur);
	assert_near(d->intr_rate, 400.0);
	assert_near(d->ctxt_rate, 1000.0);
	assert_near(d->fork_rate, 3.0);
	assert_near(d->softirq_total_rate, 90.0);
	assert_near(d->softirq_rate[PW_SOFTIRQ_TIMER], 60.0);
	assert_near(d->softirq_rate[PW_SOFTIRQ_NET_RX], 30.0);
	assert_near(d->softirq_rate[PW_SOFTIRQ_SCHED], 4.0);
	assert_near(d->softirq_rate[PW_SOFTIRQ_HI], 0.0);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_vm_rates)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const float *vm = cur->derived.vm_rate;

	pw_derive(prev, cur);
	assert_near(vm[PW_VM_PGFAULT], 500.0);
	assert_near(vm[PW_VM_PSWPOUT], 20.0);
	assert_near(vm[PW_VM_PSWPIN], 0.0);
	assert_near(vm[PW_VM_PGMAJFAULT], 2.0);
	assert_nan(vm[PW_VM_WORKINGSET_REFAULT_FILE]); /* only in cur */
	assert_nan(vm[PW_VM_WORKINGSET_REFAULT_ANON]); /* only in prev */
	assert_nan(vm[PW_VM_OOM_KILL]);                /* in neither */
	ck_assert_uint_eq(cur->counter_resets, 5 + 1); /* only line "9": an absent field is no reset */
	free(prev);
	free(cur);
}
END_TEST

/* Rates are per second of the interval, not per interval. */
START_TEST(test_rates_scale_with_elapsed_time)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();

	cur->mono_ns = prev->mono_ns + SEC / 4;
	pw_derive(prev, cur);
	ck_assert_int_eq(cur->interval_ns, SEC / 4);
	assert_near(cur->derived.ctxt_rate, 4000.0);
	assert_near(line_of(cur, "0")->rate, 240.0);
	assert_near(pw_sample_cpus(cur)[0].interrupt_rate, 1200.0);
	assert_near(cur->derived.vm_rate[PW_VM_PGFAULT], 2000.0);
	/* Shares do not depend on the wall time. */
	assert_near(cur->derived.share[PW_MODE_USER], 0.30);
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_frequency)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);

	pw_derive(prev, cur);
	/* cpu0: delta(khz_time) / delta(time) = (60e6 + 70e6) / 100. */
	ck_assert(cpus[0].derived_valid & PW_DERIVED_FREQ);
	ck_assert(cpus[0].freq_flags & PW_FREQ_AVG_FROM_STATS);
	ck_assert_uint_eq(cpus[0].avg_khz, 1300000);
	assert_near(cpus[0].freq_ratio, 0.65);
	/* cpu1: no stats at all: the last reading. */
	ck_assert(cpus[1].derived_valid & PW_DERIVED_FREQ);
	ck_assert(!(cpus[1].freq_flags & PW_FREQ_AVG_FROM_STATS));
	ck_assert_uint_eq(cpus[1].avg_khz, 3899876);
	assert_near(cpus[1].freq_ratio, 3899876.0 / 4700000.0);
	/* cpu2: stats only in cur: the last reading. */
	ck_assert(cpus[2].derived_valid & PW_DERIVED_FREQ);
	ck_assert(!(cpus[2].freq_flags & PW_FREQ_AVG_FROM_STATS));
	ck_assert_uint_eq(cpus[2].avg_khz, 1200000);
	assert_near(cpus[2].freq_ratio, 0.5);
	/* cpu3: no cpufreq. */
	ck_assert(!(cpus[3].derived_valid & PW_DERIVED_FREQ));
	ck_assert_uint_eq(cpus[3].avg_khz, 0);
	free(prev);
	free(cur);
}
END_TEST

/* The incident figure of tests/fixtures/cpufreq/acpi-ondemand-16cpu (README): cpu3's time_in_state
 * sums at t0 and t1, 10 s apart, average 1.94 GHz = 97% of 2.0 GHz. */
START_TEST(test_frequency_incident_cpu3)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	struct pw_cpu_sample *before = &pw_sample_cpus(prev)[3], *now = &pw_sample_cpus(cur)[3];
	const uint32_t flags = PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE;

	set_freq(before, flags, 2000000, 2000000, UINT64_C(36721322800000), 27359991);
	set_freq(now, flags, 1300000, 2000000, UINT64_C(36723262800000), 27360991);
	cur->mono_ns = prev->mono_ns + 10 * SEC;
	pw_derive(prev, cur);
	ck_assert(now->freq_flags & PW_FREQ_AVG_FROM_STATS);
	ck_assert_uint_eq(now->avg_khz, 1940000);
	assert_near(now->freq_ratio, 0.97);
	free(prev);
	free(cur);
}
END_TEST

/* ---- malformed ---- */

enum tis_case { TIS_PREV_LACKS, TIS_CUR_LACKS, TIS_TIME_STILL, TIS_TIME_BACK, TIS_KHZ_TIME_BACK, TIS_CASES };

/* Whenever the time_in_state average cannot be formed, the interval falls back to the last reading. */
START_TEST(test_frequency_fallbacks)
{
	for (int k = 0; k < TIS_CASES; k++) {
		struct pw_sample *prev = make_prev(), *cur = make_cur();
		struct pw_cpu_sample *before = &pw_sample_cpus(prev)[0], *now = &pw_sample_cpus(cur)[0];

		switch ((enum tis_case)k) {
		case TIS_PREV_LACKS:
			before->freq_flags &= ~(uint32_t)PW_FREQ_HAS_TIME_IN_STATE;
			break;
		case TIS_CUR_LACKS:
			now->freq_flags &= ~(uint32_t)PW_FREQ_HAS_TIME_IN_STATE;
			break;
		case TIS_TIME_STILL:
			now->tis.time = before->tis.time;
			break;
		case TIS_TIME_BACK:
			now->tis.time = before->tis.time - 1;
			break;
		case TIS_KHZ_TIME_BACK:
			now->tis.khz_time = before->tis.khz_time - 1;
			break;
		case TIS_CASES:
			break;
		}
		pw_derive(prev, cur);
		ck_assert_msg(now->derived_valid & PW_DERIVED_FREQ, "case %d", k);
		ck_assert_msg(!(now->freq_flags & PW_FREQ_AVG_FROM_STATS), "case %d", k);
		ck_assert_msg(now->avg_khz == 2000000, "case %d: avg %u", k, now->avg_khz);
		assert_near(now->freq_ratio, 1.0);
		free(prev);
		free(cur);
	}
}
END_TEST

START_TEST(test_frequency_no_max)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	struct pw_cpu_sample *now = &pw_sample_cpus(cur)[0];

	now->max_khz = 0; /* cpuinfo_max_freq unreadable */
	pw_derive(prev, cur);
	ck_assert(now->derived_valid & PW_DERIVED_FREQ);
	ck_assert_uint_eq(now->avg_khz, 1300000);
	assert_nan(now->freq_ratio);
	free(prev);
	free(cur);
}
END_TEST

/* A source down in either sample: its figures are NAN or not marked derived, the others stand. */
START_TEST(test_source_down)
{
	static const enum pw_source sources[] = {PW_SRC_STAT, PW_SRC_INTERRUPTS, PW_SRC_SOFTIRQS,
	                                         PW_SRC_VMSTAT};

	for (size_t i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		for (int side = 0; side < 2; side++) {
			struct pw_sample *prev = make_prev(), *cur = make_cur();
			const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);
			const struct pw_host_derived *d = &cur->derived;
			enum pw_source src = sources[i];

			(side ? cur : prev)->source_up &= ~(1u << src);
			pw_derive(prev, cur);
			ck_assert_msg(d->valid & PW_DERIVED_RATES, "%s side %d", pw_source_name(src), side);
			bool stat = src == PW_SRC_STAT, irq = src == PW_SRC_INTERRUPTS;
			bool soft = src == PW_SRC_SOFTIRQS, vm = src == PW_SRC_VMSTAT;

			ck_assert(!(d->valid & PW_DERIVED_SHARES) == stat);
			ck_assert(isnan(d->ctxt_rate) == stat);
			ck_assert(isnan(d->intr_rate) == stat);
			ck_assert(isnan(d->fork_rate) == stat);
			ck_assert(isnan(d->softirq_total_rate) == stat);
			ck_assert_uint_eq(d->busy_cpus, stat ? 0 : 2);
			for (int c = 0; c < 3; c++) {
				ck_assert(!(cpus[c].derived_valid & PW_DERIVED_SHARES) == stat);
				ck_assert(isnan(cpus[c].interrupt_rate) == irq);
				ck_assert(isnan(cpus[c].softirq_rate[PW_SOFTIRQ_TIMER]) == soft);
			}
			ck_assert(isnan(line_of(cur, "LOC")->rate) == irq);
			ck_assert(isnan(line_of(cur, "0")->rate) == irq);
			ck_assert(isnan(d->softirq_rate[PW_SOFTIRQ_TIMER]) == soft);
			ck_assert(isnan(d->vm_rate[PW_VM_PGFAULT]) == vm);
			/* Lines not compared: the drop of "9" is not seen, so not counted. */
			ck_assert_uint_eq(cur->counter_resets, irq ? 5 : 6);
			/* Frequency does not depend on these sources. */
			ck_assert_uint_eq(cpus[0].avg_khz, 1300000);
			free(prev);
			free(cur);
		}
	}
}
END_TEST

/* The CPUs did not tick (same /proc/stat twice): no shares, but rates still. */
START_TEST(test_zero_elapsed_ticks)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(cur);

	cur->stat.total = prev->stat.total;
	for (int c = 0; c < 3; c++)
		pw_sample_cpus(cur)[c].times = pw_sample_cpus(prev)[c].times;
	pw_derive(prev, cur);
	ck_assert(!(cur->derived.valid & PW_DERIVED_SHARES));
	for (int c = 0; c < CPU_CAP; c++)
		ck_assert(!(cpus[c].derived_valid & PW_DERIVED_SHARES));
	ck_assert_uint_eq(cur->derived.busy_cpus, 0);
	ck_assert(cur->derived.valid & PW_DERIVED_RATES);
	assert_near(cur->derived.ctxt_rate, 1000.0);
	ck_assert_uint_eq(cur->counter_resets, 6); /* no tick elapsed is no reset */
	free(prev);
	free(cur);
}
END_TEST

START_TEST(test_prev_null)
{
	struct pw_sample *cur = make_cur();

	pw_derive(NULL, cur);
	assert_nothing_derived(cur);
	ck_assert_uint_eq(cur->counter_resets, 5);
	free(cur);
}
END_TEST

/* A clock that did not advance (or a caller that swapped the samples) derives nothing. */
START_TEST(test_time_not_increasing)
{
	static const int64_t offsets[] = {0, -1, -SEC};

	for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
		struct pw_sample *prev = make_prev(), *cur = make_cur();

		cur->mono_ns = prev->mono_ns + offsets[i];
		pw_derive(prev, cur);
		assert_nothing_derived(cur);
		ck_assert_uint_eq(cur->counter_resets, 5);
		free(prev);
		free(cur);
	}
}
END_TEST

enum reset_case {
	RESET_HOST_TICKS,
	RESET_CPU_TICKS,
	RESET_CTXT,
	RESET_CPU_IRQS,
	RESET_SOFTIRQ,
	RESET_VM,
	RESETS
};

/* One counter going backwards: that figure is left out and one reset is counted; the rest stands. */
START_TEST(test_counter_backwards)
{
	for (int k = 0; k < RESETS; k++) {
		struct pw_sample *prev = make_prev(), *cur = make_cur();
		struct pw_cpu_sample *cpus = pw_sample_cpus(cur);
		const struct pw_host_derived *d = &cur->derived;

		/* Keep line "9" out of it so the count is this case's alone. */
		pw_sample_lines(cur)[3].line.total = 500;
		switch ((enum reset_case)k) {
		case RESET_HOST_TICKS:
			cur->stat.total.ticks[PW_MODE_IDLE] = 10;
			break;
		case RESET_CPU_TICKS:
			cpus[1].times.ticks[PW_MODE_SYSTEM] = 0;
			break;
		case RESET_CTXT:
			cur->stat.ctxt = 4999;
			break;
		case RESET_CPU_IRQS:
			cpus[1].interrupts = 5;
			break;
		case RESET_SOFTIRQ:
			cur->softirqs.total[PW_SOFTIRQ_NET_RX] = 1;
			break;
		case RESET_VM:
			cur->vmstat.value[PW_VM_PGFAULT] = 999;
			break;
		case RESETS:
			break;
		}
		pw_derive(prev, cur);
		ck_assert_msg(cur->counter_resets == 6, "case %d: resets %llu", k,
		              (unsigned long long)cur->counter_resets);
		ck_assert(!(d->valid & PW_DERIVED_SHARES) == (k == RESET_HOST_TICKS));
		ck_assert(!(cpus[1].derived_valid & PW_DERIVED_SHARES) == (k == RESET_CPU_TICKS));
		ck_assert(cpus[0].derived_valid & PW_DERIVED_SHARES);
		ck_assert(isnan(d->ctxt_rate) == (k == RESET_CTXT));
		ck_assert(isnan(cpus[1].interrupt_rate) == (k == RESET_CPU_IRQS));
		ck_assert(isnan(d->softirq_rate[PW_SOFTIRQ_NET_RX]) == (k == RESET_SOFTIRQ));
		ck_assert(isnan(d->vm_rate[PW_VM_PGFAULT]) == (k == RESET_VM));
		assert_near(d->intr_rate, 400.0);
		assert_near(line_of(cur, "9")->rate, 0.0);
		free(prev);
		free(cur);
	}
}
END_TEST

/* cpu2 lost its /proc/interrupts and /proc/softirqs column (it went offline): the line and type
 * totals dropped by its share. Not comparable, so NAN, and not a reset. */
START_TEST(test_cpu_columns_change)
{
	struct pw_sample *prev = make_prev(), *cur = make_cur();
	struct pw_cpu_sample *cpus = pw_sample_cpus(cur);
	const struct pw_host_derived *d = &cur->derived;

	cpus[2].in_interrupts = cpus[2].in_softirqs = false;
	cpus[2].interrupts = 0;
	memset(cpus[2].softirq, 0, sizeof(cpus[2].softirq));
	cur->softirqs.total[PW_SOFTIRQ_SCHED] = 0;
	pw_sample_lines(cur)[2].line.total = 900; /* LOC: 1000 before, now without cpu2 */
	pw_derive(prev, cur);
	for (uint32_t i = 0; i < cur->nlines; i++)
		assert_nan(pw_sample_lines(cur)[i].rate);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		assert_nan(d->softirq_rate[t]);
	ck_assert_uint_eq(cur->counter_resets, 5);
	assert_nan(cpus[2].interrupt_rate);
	assert_nan(cpus[2].softirq_rate[PW_SOFTIRQ_SCHED]);
	/* The CPUs that kept their column still have rates. */
	assert_near(cpus[0].interrupt_rate, 300.0);
	assert_near(cpus[0].softirq_rate[PW_SOFTIRQ_TIMER], 50.0);
	free(prev);
	free(cur);
}
END_TEST

/* cpu1 offline in the middle sample, back in the last: no reset either way, and no burst. */
START_TEST(test_cpu_offline_then_online)
{
	struct pw_sample *a = make_prev(), *b = make_cur(), *c = make_cur();
	struct pw_cpu_sample *bc = pw_sample_cpus(b), *cc = pw_sample_cpus(c);

	b->counter_resets = c->counter_resets = 0;
	/* b: cpu1 has no /proc/stat line and no columns; its parsers left zeros. */
	memset(&bc[1].times, 0, sizeof(bc[1].times));
	bc[1].online = bc[1].in_interrupts = bc[1].in_softirqs = false;
	bc[1].interrupts = 0;
	memset(bc[1].softirq, 0, sizeof(bc[1].softirq));
	bc[1].freq_flags = 0;
	b->softirqs.total[PW_SOFTIRQ_TIMER] -= 210;
	for (uint32_t i = 0; i < b->nlines; i++)
		pw_sample_lines(b)[i].line.total /= 2;
	/* c: everything moved on from b's (cur) values; cpu1 is back. */
	c->mono_ns = b->mono_ns + SEC;
	c->stat.ctxt += 1000;
	for (int m = 0; m < PW_MODE_COUNT; m++)
		c->stat.total.ticks[m] += host_cur[m] - host_prev[m];
	for (int k = 0; k < 3; k++)
		for (int m = 0; m < PW_MODE_COUNT; m++)
			cc[k].times.ticks[m] += cpu_cur[k][m] - cpu_prev[k][m];
	cc[0].interrupts += 300;
	cc[1].interrupts += 100;

	pw_derive(a, b);
	ck_assert_uint_eq(b->counter_resets, 0);
	ck_assert(!(bc[1].derived_valid & PW_DERIVED_SHARES));
	assert_nan(bc[1].interrupt_rate);
	assert_nan(bc[1].softirq_rate[PW_SOFTIRQ_TIMER]);
	assert_nan(line_of(b, "LOC")->rate);
	assert_nan(b->derived.softirq_rate[PW_SOFTIRQ_TIMER]);
	ck_assert(bc[0].derived_valid & PW_DERIVED_SHARES);
	ck_assert(b->derived.valid & PW_DERIVED_SHARES);

	c->counter_resets = b->counter_resets;
	pw_derive(b, c);
	ck_assert_uint_eq(c->counter_resets, 0);
	ck_assert(!(cc[1].derived_valid & PW_DERIVED_SHARES)); /* no line in b to compare with */
	assert_nan(cc[1].interrupt_rate);
	assert_nan(cc[1].softirq_rate[PW_SOFTIRQ_TIMER]);
	assert_nan(line_of(c, "LOC")->rate);
	assert_nan(c->derived.softirq_rate[PW_SOFTIRQ_TIMER]);
	ck_assert(cc[0].derived_valid & PW_DERIVED_SHARES);
	assert_near(cc[0].interrupt_rate, 300.0);
	assert_near(c->derived.ctxt_rate, 1000.0);
	assert_near(c->derived.share[PW_MODE_USER], 0.30);
	/* cpu1 frequency: no cpufreq in b, so the last reading. */
	ck_assert(!(cc[1].freq_flags & PW_FREQ_AVG_FROM_STATS));
	free(a);
	free(b);
	free(c);
}
END_TEST

static Suite *derive_suite(void)
{
	Suite *s = suite_create("derive");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_host_shares);
	tcase_add_test(core, test_cpu_shares_and_busy);
	tcase_add_test(core, test_four_column_kernel);
	tcase_add_test(core, test_sampled_time_fitted_into_the_interval);
	tcase_add_test(core, test_sampled_time_left_alone);
	tcase_add_test(core, test_line_rates);
	tcase_add_test(core, test_cpu_interrupt_rates);
	tcase_add_test(core, test_host_rates);
	tcase_add_test(core, test_vm_rates);
	tcase_add_test(core, test_rates_scale_with_elapsed_time);
	tcase_add_test(core, test_frequency);
	tcase_add_test(core, test_frequency_incident_cpu3);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_frequency_fallbacks);
	tcase_add_test(malformed, test_frequency_no_max);
	tcase_add_test(malformed, test_source_down);
	tcase_add_test(malformed, test_zero_elapsed_ticks);
	tcase_add_test(malformed, test_prev_null);
	tcase_add_test(malformed, test_time_not_increasing);
	tcase_add_test(malformed, test_counter_backwards);
	tcase_add_test(malformed, test_cpu_columns_change);
	tcase_add_test(malformed, test_cpu_offline_then_online);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(derive_suite());
}
