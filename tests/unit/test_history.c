/* test_history.c — the compact history point (shares in 1/10000, unknown when not derived) and the
 * min/avg/max summary over a window of points in a real pw_ring. */
#include "derive.h"
#include "fixture_util.h"
#include "history.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC INT64_C(1000000000)
#define CPUS 4
#define TOL 1e-9

static struct pw_sample *new_sample(uint32_t cpu_cap)
{
	return pw_test_sample_new(cpu_cap, 4, false);
}

/* A point of exactly pw_history_point_size() bytes, filled with junk so unwritten fields show. */
static struct pw_history_point *new_point(uint32_t cpu_cap)
{
	size_t size = pw_history_point_size(cpu_cap);
	struct pw_history_point *p = malloc(size);

	ck_assert_ptr_nonnull(p);
	memset(p, 0xa5, size);
	return p;
}

static void assert_stat(struct pw_history_stat st, double min, double avg, double max)
{
	ck_assert_msg(fabs(st.min - min) < TOL && fabs(st.avg - avg) < TOL && fabs(st.max - max) < TOL,
	              "got %g/%g/%g, want %g/%g/%g", st.min, st.avg, st.max, min, avg, max);
}

static void assert_stat_nan(struct pw_history_stat st)
{
	ck_assert(isnan(st.min) && isnan(st.avg) && isnan(st.max));
}

/* A sample as pw_derive() leaves it: host and per-CPU figures of one interval. */
static struct pw_sample *derived_sample(void)
{
	struct pw_sample *s = new_sample(CPUS);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_host_derived *d = &s->derived;
	static const float host[PW_MODE_COUNT] = {0.30f, 0.05f,  0.10f, 0.50f, 0.025f,
	                                          0.01f, 0.015f, 0.0f,  0.20f, 0.02f};

	s->seq = 42;
	s->mono_ns = 7 * SEC;
	s->real_ns = INT64_C(1796065147) * SEC;
	s->ncpu = CPUS;
	d->valid = PW_DERIVED_SHARES | PW_DERIVED_RATES;
	memcpy(d->share, host, sizeof(host));
	d->busy_cpus = 2;
	d->intr_rate = 400.0f;
	d->ctxt_rate = 1000.0f;
	d->softirq_total_rate = 90.0f;
	d->fork_rate = 3.0f;
	d->vm_rate[PW_VM_PSWPIN] = 1.5f;
	d->vm_rate[PW_VM_PSWPOUT] = 20.0f;
	d->vm_rate[PW_VM_PGMAJFAULT] = 2.0f;
	s->source_up = s->source_present = (1u << PW_SRC_COUNT) - 1;
	s->psi_present = 1u << PW_PSI_CPU | 1u << PW_PSI_IO | 1u << PW_PSI_IRQ;
	s->psi[PW_PSI_CPU].some = (struct pw_psi_line){.avg10 = 1086, .present = true};
	s->psi[PW_PSI_IO].some = (struct pw_psi_line){.avg10 = 55, .present = true};
	s->psi[PW_PSI_MEMORY].some = (struct pw_psi_line){.avg10 = 300, .present = true}; /* file absent */
	s->psi[PW_PSI_IRQ].full = (struct pw_psi_line){.avg10 = 12, .present = true};     /* no "some" line */
	s->meminfo.kb[PW_MEM_AVAILABLE] = 24120980;
	s->meminfo.present = 1u << PW_MEM_AVAILABLE;

	/* cpu0: 90% busy, at 65% of its maximum frequency. */
	cpus[0].derived_valid = PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ;
	cpus[0].share[PW_MODE_USER] = 0.70f;
	cpus[0].share[PW_MODE_NICE] = 0.10f;
	cpus[0].share[PW_MODE_SYSTEM] = 0.05f;
	cpus[0].share[PW_MODE_IDLE] = 0.10f;
	cpus[0].share[PW_MODE_IRQ] = 0.02f;
	cpus[0].share[PW_MODE_SOFTIRQ] = 0.03f;
	cpus[0].freq_ratio = 0.65f;
	/* cpu1: shares, no frequency. */
	cpus[1].derived_valid = PW_DERIVED_SHARES | PW_DERIVED_RATES;
	cpus[1].share[PW_MODE_USER] = 0.20f;
	cpus[1].share[PW_MODE_IDLE] = 0.50f;
	cpus[1].share[PW_MODE_IOWAIT] = 0.30f;
	cpus[1].freq_ratio = 0.5f; /* not derived: must not show */
	/* cpu2: nothing derived, whatever the fields hold. */
	cpus[2].share[PW_MODE_USER] = 0.5f;
	cpus[2].freq_ratio = 0.5f;
	/* cpu3: frequency derived, but cpuinfo_max_freq was 0. */
	cpus[3].derived_valid = PW_DERIVED_FREQ;
	cpus[3].freq_ratio = NAN;
	return s;
}

/* ---- core ---- */

START_TEST(test_point_size)
{
	size_t header = offsetof(struct pw_history_point, cpus);

	for (uint32_t cap = 0; cap <= 1024; cap++) {
		size_t size = pw_history_point_size(cap), need = header + cap * sizeof(struct pw_history_cpu);

		ck_assert_uint_eq(size % 8, 0);
		ck_assert_uint_ge(size, need);
		ck_assert_uint_lt(size, need + 8); /* rounded up, not padded further */
		if (cap > 0)
			ck_assert_uint_ge(size, pw_history_point_size(cap - 1));
	}
	ck_assert_uint_gt(pw_history_point_size(256), pw_history_point_size(2));
}
END_TEST

START_TEST(test_point_from_derived)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = new_point(CPUS);
	static const uint16_t host[PW_MODE_GUEST] = {3000, 500, 1000, 5000, 250, 100, 150, 0};

	pw_history_point_from(s, NULL, p);
	ck_assert_int_eq(p->mono_ns, 7 * SEC);
	ck_assert_int_eq(p->real_ns, INT64_C(1796065147) * SEC);
	ck_assert_uint_eq(p->seq, 42);
	for (int m = 0; m < PW_MODE_GUEST; m++)
		ck_assert_msg(p->share[m] == host[m], "%s: %u", pw_cpu_mode_name(m), p->share[m]);
	ck_assert_uint_eq(p->busy_cpus, 2);
	ck_assert_uint_eq(p->ncpu, CPUS);
	for (int r = 0; r < PW_PSI_COUNT; r++) /* no sample before it: no stall share */
		ck_assert_uint_eq(p->psi_some_stall[r], PW_HISTORY_UNKNOWN);
	ck_assert(p->intr_rate == 400.0f);
	ck_assert(p->ctxt_rate == 1000.0f);
	ck_assert(p->softirq_rate == 90.0f);
	ck_assert(p->swap_in_rate == 1.5f);
	ck_assert(p->swap_out_rate == 20.0f);
	ck_assert(p->major_fault_rate == 2.0f);
	ck_assert_uint_eq(p->mem_available_kb, 24120980);

	/* busy = 1 - idle - iowait; user = user + nice; irq = irq + softirq. */
	ck_assert_uint_eq(p->cpus[0].busy, 9000);
	ck_assert_uint_eq(p->cpus[0].user, 8000);
	ck_assert_uint_eq(p->cpus[0].system, 500);
	ck_assert_uint_eq(p->cpus[0].irq, 500);
	ck_assert_uint_eq(p->cpus[0].iowait, 0);
	ck_assert_uint_eq(p->cpus[0].freq_ratio, 6500);
	ck_assert_uint_eq(p->cpus[1].busy, 2000);
	ck_assert_uint_eq(p->cpus[1].user, 2000);
	ck_assert_uint_eq(p->cpus[1].iowait, 3000);
	ck_assert_uint_eq(p->cpus[1].freq_ratio, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].busy, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].user, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].system, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].irq, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].iowait, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[2].freq_ratio, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[3].busy, PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->cpus[3].freq_ratio, PW_HISTORY_UNKNOWN); /* NAN ratio */
	free(s);
	free(p);
}
END_TEST

/* The first sample of a run has no interval: everything unknown, but time and gauges are kept. */
START_TEST(test_point_from_first_sample)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = new_point(CPUS);

	s->derived.valid = 0;
	for (int c = 0; c < CPUS; c++)
		pw_sample_cpus(s)[c].derived_valid = 0;
	s->derived.busy_cpus = 0;
	pw_history_point_from(s, NULL, p);
	for (int m = 0; m < PW_MODE_GUEST; m++)
		ck_assert_uint_eq(p->share[m], PW_HISTORY_UNKNOWN);
	ck_assert(isnan(p->intr_rate) && isnan(p->ctxt_rate) && isnan(p->softirq_rate));
	ck_assert(isnan(p->swap_in_rate) && isnan(p->swap_out_rate) && isnan(p->major_fault_rate));
	for (int c = 0; c < CPUS; c++) {
		ck_assert_uint_eq(p->cpus[c].busy, PW_HISTORY_UNKNOWN);
		ck_assert_uint_eq(p->cpus[c].freq_ratio, PW_HISTORY_UNKNOWN);
	}
	ck_assert_uint_eq(p->seq, 42);
	ck_assert_int_eq(p->mono_ns, 7 * SEC);
	ck_assert_uint_eq(p->mem_available_kb, 24120980);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_CPU], PW_HISTORY_UNKNOWN);
	free(s);
	free(p);
}
END_TEST

/* The stall share of each interval from the totals (as the detector takes it), not avg10: 0.25 s
 * of 2 s is 12.5%; a resource whose file went away, or whose total went backwards, is unknown. */
START_TEST(test_point_psi_stall_share)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = new_point(CPUS);
	struct pw_history_reducer r = {0};

	s->psi[PW_PSI_CPU].some.total_us = 1000000;
	s->psi[PW_PSI_IO].some.total_us = 500000;
	pw_history_point_from(s, &r, p);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_CPU], PW_HISTORY_UNKNOWN); /* the first */
	s->mono_ns += 2 * SEC;
	s->psi[PW_PSI_CPU].some.total_us += 250000;
	s->psi[PW_PSI_IO].some.total_us -= 1; /* reset */
	pw_history_point_from(s, &r, p);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_CPU], 1250);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_IO], PW_HISTORY_UNKNOWN);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_MEMORY], PW_HISTORY_UNKNOWN);
	s->mono_ns += 1 * SEC;
	s->psi[PW_PSI_IO].some.total_us += 1000000; /* all of it */
	pw_history_point_from(s, &r, p);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_CPU], 0);
	ck_assert_uint_eq(p->psi_some_stall[PW_PSI_IO], 10000);
	free(s);
	free(p);
}
END_TEST

/* The frequency ratio is against the reference CpuFrequencyLow judges by: base_frequency under
 * intel_pstate, where all-core turbo runs above it. */
START_TEST(test_point_freq_ratio_against_base)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = new_point(CPUS);
	struct pw_cpu_sample *c = pw_sample_cpus(s);

	c[0].avg_khz = 2400000;
	c[0].max_khz = 4500000;
	c[0].base_khz = 3000000;
	c[0].freq_ratio = 2.4f / 4.5f;
	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->cpus[0].freq_ratio, 8000);
	c[0].base_khz = 0;
	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->cpus[0].freq_ratio, 5333);
	free(s);
	free(p);
}
END_TEST

/* MemAvailable absent (kernels before 3.14) or meminfo down: UINT64_MAX, never a silent 0. */
START_TEST(test_point_mem_available_absent)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = new_point(CPUS);

	s->meminfo.present = 0;
	s->meminfo.kb[PW_MEM_AVAILABLE] = 0;
	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->mem_available_kb, UINT64_MAX);

	s->meminfo.present = 1u << PW_MEM_AVAILABLE;
	s->meminfo.kb[PW_MEM_AVAILABLE] = 24120980;
	s->source_up &= ~(1u << PW_SRC_MEMINFO);
	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->mem_available_kb, UINT64_MAX);
	free(s);
	free(p);
}
END_TEST

/* Shares and ratios at the edges: 1.0 and a turbo ratio above 1 saturate at 10000, NAN is unknown. */
START_TEST(test_point_saturation)
{
	struct pw_sample *s = derived_sample();
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_history_point *p = new_point(CPUS);

	memset(cpus[0].share, 0, sizeof(cpus[0].share));
	cpus[0].share[PW_MODE_USER] = 0.75f;
	cpus[0].share[PW_MODE_NICE] = 0.25f;
	cpus[0].freq_ratio = 1.08f;
	s->derived.share[PW_MODE_IDLE] = 1.0f;
	s->derived.share[PW_MODE_STEAL] = NAN;
	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->cpus[0].busy, 10000);
	ck_assert_uint_eq(p->cpus[0].user, 10000);
	ck_assert_uint_eq(p->cpus[0].freq_ratio, 10000);
	ck_assert_uint_eq(p->share[PW_MODE_IDLE], 10000);
	ck_assert_uint_eq(p->share[PW_MODE_STEAL], PW_HISTORY_UNKNOWN);
	free(s);
	free(p);
}
END_TEST

/* Two samples with real ticks, derived as the sampler does: cpu0 split idle/iowait, cpu1 busy. */
static struct pw_sample *derive_ticks(uint64_t idle, uint64_t iowait, uint64_t user)
{
	struct pw_sample *prev = new_sample(2), *cur = new_sample(2);
	struct pw_cpu_sample *pc = pw_sample_cpus(prev), *cc = pw_sample_cpus(cur);

	prev->mono_ns = SEC;
	cur->mono_ns = 2 * SEC;
	prev->source_up = cur->source_up = 1u << PW_SRC_STAT;
	prev->ncpu = cur->ncpu = 2;
	prev->stat.total.nmodes = cur->stat.total.nmodes = PW_MODE_COUNT;
	prev->stat.total.present = cur->stat.total.present = true;
	cur->stat.total.ticks[PW_MODE_IDLE] = idle;
	cur->stat.total.ticks[PW_MODE_IOWAIT] = iowait;
	cur->stat.total.ticks[PW_MODE_USER] = user;
	for (int c = 0; c < 2; c++) {
		pc[c].times.nmodes = cc[c].times.nmodes = PW_MODE_COUNT;
		pc[c].times.present = cc[c].times.present = true;
	}
	cc[0].times.ticks[PW_MODE_IDLE] = idle;
	cc[0].times.ticks[PW_MODE_IOWAIT] = iowait;
	cc[0].times.ticks[PW_MODE_USER] = user;
	cc[1].times.ticks[PW_MODE_USER] = 100;
	pw_derive(prev, cur);
	free(prev);
	ck_assert(cur->derived.valid & PW_DERIVED_SHARES);
	return cur;
}

/* A CPU that spent the whole interval idle or in iowait is 0% busy, not unknown: in float,
 * 1 - 0.6f - 0.4f is -2.98e-8, which once mapped to PW_HISTORY_UNKNOWN. */
START_TEST(test_cpu_busy_idle_plus_iowait_is_zero)
{
	struct pw_history_point *p = new_point(2);

	for (uint64_t idle = 0; idle <= 100; idle++) {
		struct pw_sample *s = derive_ticks(idle, 100 - idle, 0);

		pw_history_point_from(s, NULL, p);
		ck_assert_msg(p->cpus[0].busy == 0, "idle %llu, iowait %llu ticks: busy %u (want 0)",
		              (unsigned long long)idle, (unsigned long long)(100 - idle), p->cpus[0].busy);
		ck_assert_uint_eq(p->cpus[1].busy, 10000);
		free(s);
	}
	free(p);
}
END_TEST

/* The figures the /history page needs beyond the summary: page cache, run queue, softirq types,
 * average MHz per CPU, and the busiest lines by count since boot (kept while their rate drops). */
START_TEST(test_point_page_figures)
{
	struct pw_sample *s = pw_test_sample_new(2, 8, false);
	struct pw_line_sample *lines = pw_sample_lines(s);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_history_point *p = new_point(2);
	static const uint64_t totals[8] = {5, 900, 30, 7000, 30, 1, 800, 600};

	s->ncpu = 2;
	s->nlines = 8;
	s->source_up = s->source_present = (1u << PW_SRC_COUNT) - 1;
	s->derived.valid = PW_DERIVED_SHARES | PW_DERIVED_RATES;
	s->derived.softirq_rate[PW_SOFTIRQ_NET_RX] = 54500.0f;
	s->meminfo.kb[PW_MEM_CACHED] = 420000;
	s->meminfo.present = 1u << PW_MEM_CACHED;
	s->stat.procs_running = 3;
	for (int i = 0; i < 8; i++) {
		snprintf(lines[i].line.irq, sizeof(lines[i].line.irq), "%d", 20 + i);
		lines[i].line.total = totals[i];
		lines[i].rate = (float)i;
	}
	lines[3].rate = 0.0f; /* the busiest line pauses */
	cpus[0].derived_valid = PW_DERIVED_FREQ;
	cpus[0].avg_khz = 2399600;
	cpus[0].freq_ratio = 0.8f;

	pw_history_point_from(s, NULL, p);
	ck_assert_uint_eq(p->cached_kb, 420000);
	ck_assert_uint_eq(p->mem_available_kb, UINT64_MAX);
	ck_assert_uint_eq(p->procs_running, 3);
	ck_assert(p->softirq_type_rate[PW_SOFTIRQ_NET_RX] == 54500.0f);
	ck_assert_uint_eq(p->cpus[0].avg_mhz, 2400);
	ck_assert_uint_eq(p->cpus[0].freq_ratio, 8000);
	ck_assert_uint_eq(p->cpus[1].avg_mhz, 0);
	static const char *const want[PW_HISTORY_LINES] = {"23", "21", "26", "27", "22", "24"};
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		ck_assert_str_eq(p->lines[k].irq, want[k]);
	ck_assert(p->lines[0].rate == 0.0f);
	ck_assert(p->lines[1].rate == 1.0f);

	s->nlines = 2; /* fewer lines than slots: the rest are empty and unknown */
	s->derived.valid = 0;
	pw_history_point_from(s, NULL, p);
	ck_assert_str_eq(p->lines[0].irq, "21");
	ck_assert_str_eq(p->lines[1].irq, "20");
	ck_assert_str_eq(p->lines[2].irq, "");
	ck_assert(isnan(p->lines[0].rate) && isnan(p->lines[5].rate));
	ck_assert(isnan(p->softirq_type_rate[PW_SOFTIRQ_NET_RX]));
	free(p);
	free(s);
}
END_TEST

/* ---- summaries over a ring ---- */

struct fig {
	int64_t t;             /* seconds */
	uint16_t idle, iowait; /* 1/10000 */
	float intr, ctxt, swap_out;
};

static void publish(struct pw_ring *ring, struct pw_history_point *p, const struct fig *f)
{
	memset(p, 0, pw_history_point_size(CPUS));
	for (int m = 0; m < PW_MODE_GUEST; m++)
		p->share[m] = f->idle == PW_HISTORY_UNKNOWN ? PW_HISTORY_UNKNOWN : 0;
	p->mono_ns = f->t * SEC;
	p->share[PW_MODE_IDLE] = f->idle;
	p->share[PW_MODE_IOWAIT] = f->iowait;
	p->intr_rate = f->intr;
	p->ctxt_rate = f->ctxt;
	p->swap_out_rate = f->swap_out;
	p->swap_in_rate = p->softirq_rate = p->major_fault_rate = NAN;
	pw_ring_publish(ring, p);
}

static const struct fig five[] = {
        {1, 8000, 1000, 100, 1000, 0},  /* busy 10% */
        {2, 8000, 0, 200, 2000, 0},     /* 20% */
        {3, 6000, 1000, 300, 3000, 10}, /* 30% */
        {4, 6000, 0, 400, 4000, 0},     /* 40% */
        {5, 2500, 2500, 500, 5000, 0},  /* 50% */
};

static struct pw_ring *ring_of(uint32_t slots, const struct fig *figs, size_t n)
{
	struct pw_ring *ring = pw_ring_new(slots, pw_history_point_size(CPUS));
	struct pw_history_point *p = new_point(CPUS);

	ck_assert_ptr_nonnull(ring);
	for (size_t i = 0; i < n; i++)
		publish(ring, p, &figs[i]);
	free(p);
	return ring;
}

static void summarize(const struct pw_ring *ring, int64_t since_ns, struct pw_history_summary *ret)
{
	void *scratch = malloc(pw_ring_payload_size(ring));

	ck_assert_ptr_nonnull(scratch);
	memset(ret, 0x5a, sizeof(*ret));
	pw_history_summarize(ring, since_ns, scratch, ret);
	free(scratch);
}

START_TEST(test_summary_whole_window)
{
	struct pw_ring *ring = ring_of(16, five, 5);
	struct pw_history_summary sum;

	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 5);
	ck_assert(fabs(sum.span_seconds - 4.0) < TOL);
	assert_stat(sum.busy_percent, 10, 30, 50);
	assert_stat(sum.intr_rate, 100, 300, 500);
	assert_stat(sum.ctxt_rate, 1000, 3000, 5000);
	assert_stat(sum.swap_out_rate, 0, 2, 10);
	pw_ring_free(ring);
}
END_TEST

/* Only points strictly newer than since_mono_ns count. */
START_TEST(test_summary_since)
{
	struct pw_ring *ring = ring_of(16, five, 5);
	struct pw_history_summary sum;

	summarize(ring, 2 * SEC, &sum);
	ck_assert_uint_eq(sum.points, 3);
	ck_assert(fabs(sum.span_seconds - 2.0) < TOL);
	assert_stat(sum.busy_percent, 30, 40, 50);
	assert_stat(sum.intr_rate, 300, 400, 500);
	assert_stat(sum.swap_out_rate, 0, 10.0 / 3, 10);

	summarize(ring, 2 * SEC + SEC / 2, &sum);
	ck_assert_uint_eq(sum.points, 3);

	summarize(ring, 4 * SEC + 1, &sum);
	ck_assert_uint_eq(sum.points, 1);
	ck_assert(fabs(sum.span_seconds) < TOL);
	assert_stat(sum.intr_rate, 500, 500, 500);

	summarize(ring, 5 * SEC, &sum);
	ck_assert_uint_eq(sum.points, 0);
	assert_stat_nan(sum.busy_percent);
	assert_stat_nan(sum.intr_rate);
	pw_ring_free(ring);
}
END_TEST

/* A 4-slot ring that saw 10 points: only the 4 still held count. */
START_TEST(test_summary_overwritten)
{
	struct fig figs[10];
	struct pw_history_summary sum;

	for (int i = 0; i < 10; i++)
		figs[i] = (struct fig){i + 1, (uint16_t)(9000 - 500 * i), 0, 100.0f * (i + 1), 0, 0};
	struct pw_ring *ring = ring_of(4, figs, 10);

	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 4);
	ck_assert(fabs(sum.span_seconds - 3.0) < TOL);
	assert_stat(sum.intr_rate, 700, 850, 1000);
	assert_stat(sum.busy_percent, 40, 47.5, 55);
	pw_ring_free(ring);
}
END_TEST

START_TEST(test_summary_empty)
{
	struct pw_ring *ring = pw_ring_new(8, pw_history_point_size(CPUS));
	struct pw_history_summary sum;

	ck_assert_ptr_nonnull(ring);
	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 0);
	ck_assert(sum.span_seconds == 0.0);
	assert_stat_nan(sum.busy_percent);
	assert_stat_nan(sum.intr_rate);
	assert_stat_nan(sum.ctxt_rate);
	assert_stat_nan(sum.swap_out_rate);
	pw_ring_free(ring);
}
END_TEST

/* Unknown figures (the first sample, a source down) count as points but not in the statistics. */
START_TEST(test_summary_skips_unknown)
{
	static const struct fig figs[] = {
	        {1, PW_HISTORY_UNKNOWN, PW_HISTORY_UNKNOWN, NAN, NAN, NAN}, /* first sample */
	        {2, 9000, 0, 100, NAN, 0},
	        {3, 7000, PW_HISTORY_UNKNOWN, NAN, NAN, NAN},
	        {4, 5000, 0, 300, NAN, 4},
	};
	struct pw_ring *ring = ring_of(8, figs, 4);
	struct pw_history_summary sum;

	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 4);
	ck_assert(fabs(sum.span_seconds - 3.0) < TOL);
	assert_stat(sum.busy_percent, 10, 30, 50);
	assert_stat(sum.intr_rate, 100, 200, 300);
	assert_stat_nan(sum.ctxt_rate);
	assert_stat(sum.swap_out_rate, 0, 2, 4);
	pw_ring_free(ring);
}
END_TEST

/* Host busy percent comes from separately rounded idle and iowait shares, which can add up to
 * 10001: a fully idle 8-CPU host (9 idle, 791 iowait ticks) must report 0%, not -0.01%. */
START_TEST(test_summary_busy_not_negative)
{
	struct pw_ring *ring = pw_ring_new(4, pw_history_point_size(2));
	struct pw_history_point *p = new_point(2);
	struct pw_sample *s = derive_ticks(9, 791, 0);
	struct pw_history_summary sum;

	ck_assert_ptr_nonnull(ring);
	pw_history_point_from(s, NULL, p);
	pw_ring_publish(ring, p);
	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 1);
	ck_assert_msg(sum.busy_percent.min >= 0.0, "busy min %g%% (idle %u + iowait %u)",
	              sum.busy_percent.min, p->share[PW_MODE_IDLE], p->share[PW_MODE_IOWAIT]);
	free(s);
	free(p);
	pw_ring_free(ring);
}
END_TEST

/* The sampler's path end to end: derived samples -> points -> ring -> summary. */
START_TEST(test_summary_of_derived_samples)
{
	struct pw_ring *ring = pw_ring_new(8, pw_history_point_size(2));
	struct pw_history_point *p = new_point(2);
	struct pw_history_summary sum;
	static const uint64_t idle[] = {75, 50, 25};

	ck_assert_ptr_nonnull(ring);
	for (int i = 0; i < 3; i++) {
		struct pw_sample *s = derive_ticks(idle[i], 0, 100 - idle[i]);

		s->mono_ns = (i + 1) * SEC;
		pw_history_point_from(s, NULL, p);
		pw_ring_publish(ring, p);
		free(s);
	}
	summarize(ring, 0, &sum);
	ck_assert_uint_eq(sum.points, 3);
	assert_stat(sum.busy_percent, 25, 50, 75);
	assert_stat_nan(sum.intr_rate); /* stat had no intr line in either sample */
	free(p);
	pw_ring_free(ring);
}
END_TEST

static Suite *history_suite(void)
{
	Suite *s = suite_create("history");
	TCase *core = tcase_create("core");
	TCase *summary = tcase_create("summary");

	tcase_add_test(core, test_point_size);
	tcase_add_test(core, test_point_from_derived);
	tcase_add_test(core, test_point_from_first_sample);
	tcase_add_test(core, test_point_mem_available_absent);
	tcase_add_test(core, test_point_saturation);
	tcase_add_test(core, test_cpu_busy_idle_plus_iowait_is_zero);
	tcase_add_test(core, test_point_page_figures);
	tcase_add_test(core, test_point_psi_stall_share);
	tcase_add_test(core, test_point_freq_ratio_against_base);
	suite_add_tcase(s, core);

	tcase_add_test(summary, test_summary_whole_window);
	tcase_add_test(summary, test_summary_since);
	tcase_add_test(summary, test_summary_overwritten);
	tcase_add_test(summary, test_summary_empty);
	tcase_add_test(summary, test_summary_skips_unknown);
	tcase_add_test(summary, test_summary_busy_not_negative);
	tcase_add_test(summary, test_summary_of_derived_samples);
	suite_add_tcase(s, summary);
	return s;
}

int main(void)
{
	return pw_run_suite(history_suite());
}
