/* history_sample.c — a sample rebuilt from a history point (history_sample.h says what is lost). */
#include "history_sample.h"

#include <math.h>
#include <string.h>

static bool known(uint16_t v)
{
	return v != PW_HISTORY_UNKNOWN;
}

static float ratio_or_zero(uint16_t v)
{
	return known(v) ? (float)v / 10000.0f : 0.0f;
}

static float finite_or_zero(float v)
{
	return isfinite(v) ? v : 0.0f;
}

static void rebuild_host(const struct pw_history_point *p, struct pw_sample *s)
{
	struct pw_host_derived *d = &s->derived;

	if (known(p->share[PW_MODE_IDLE])) {
		d->valid |= PW_DERIVED_SHARES;
		for (int m = 0; m < PW_MODE_GUEST; m++)
			d->share[m] = ratio_or_zero(p->share[m]);
	}
	if (isfinite(p->intr_rate)) {
		d->valid |= PW_DERIVED_RATES;
		d->intr_rate = p->intr_rate;
		d->ctxt_rate = finite_or_zero(p->ctxt_rate);
		d->softirq_total_rate = finite_or_zero(p->softirq_rate);
		for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
			d->softirq_rate[t] = finite_or_zero(p->softirq_type_rate[t]);
		d->vm_rate[PW_VM_PSWPIN] = finite_or_zero(p->swap_in_rate);
		d->vm_rate[PW_VM_PSWPOUT] = finite_or_zero(p->swap_out_rate);
		d->vm_rate[PW_VM_PGMAJFAULT] = finite_or_zero(p->major_fault_rate);
		s->source_up |= 1u << PW_SRC_INTERRUPTS | 1u << PW_SRC_SOFTIRQS | 1u << PW_SRC_VMSTAT;
	}
	d->busy_cpus = p->busy_cpus;
	if (p->procs_running != UINT32_MAX) {
		s->source_up |= 1u << PW_SRC_STAT;
		s->stat.procs_running = p->procs_running;
		s->stat.present |= PW_PROCSTAT_HAS_PROCS_RUNNING;
	}
	if (p->mem_available_kb != UINT64_MAX) {
		s->meminfo.kb[PW_MEM_AVAILABLE] = p->mem_available_kb;
		s->meminfo.present |= 1u << PW_MEM_AVAILABLE;
	}
	if (p->cached_kb != UINT64_MAX) {
		s->meminfo.kb[PW_MEM_CACHED] = p->cached_kb;
		s->meminfo.present |= 1u << PW_MEM_CACHED;
	}
	if (s->meminfo.present)
		s->source_up |= 1u << PW_SRC_MEMINFO;
}

static void rebuild_cpus(const struct pw_history_point *p, struct pw_sample *s)
{
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	const struct pw_host_derived *d = &s->derived;
	bool rates = d->valid & PW_DERIVED_RATES;
	double irq_sum = 0;
	uint32_t measured = 0;

	for (uint32_t id = 0; id < s->ncpu; id++)
		if (known(p->cpus[id].busy)) {
			irq_sum += ratio_or_zero(p->cpus[id].irq);
			measured++;
		}
	for (uint32_t id = 0; id < s->ncpu; id++) {
		const struct pw_history_cpu *h = &p->cpus[id];
		struct pw_cpu_sample *c = &cpus[id];
		if (!known(h->busy))
			continue; /* offline, or not derived yet */
		c->online = true;
		c->times.present = true;
		c->derived_valid = PW_DERIVED_SHARES;
		float busy = ratio_or_zero(h->busy), iowait = ratio_or_zero(h->iowait);
		c->share[PW_MODE_USER] = ratio_or_zero(h->user);
		c->share[PW_MODE_SYSTEM] = ratio_or_zero(h->system);
		c->share[PW_MODE_IRQ] = ratio_or_zero(h->irq);
		c->share[PW_MODE_IOWAIT] = iowait;
		c->share[PW_MODE_IDLE] = fmaxf(0.0f, 1.0f - busy - iowait);
		if (rates) {
			/* The host's events shared out by interrupt time (history_sample.h). */
			double weight = irq_sum > 0 ? ratio_or_zero(h->irq) / irq_sum : 1.0 / measured;
			c->derived_valid |= PW_DERIVED_RATES;
			c->interrupt_rate = (float)(d->intr_rate * weight);
			for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
				c->softirq_rate[t] = (float)(d->softirq_rate[t] * weight);
		}
		if (known(h->freq_ratio) && h->freq_ratio > 0 && h->avg_mhz > 0) {
			c->derived_valid |= PW_DERIVED_FREQ;
			c->freq_flags = PW_FREQ_HAS_CPUFREQ;
			c->avg_khz = c->cur_khz = (uint32_t)h->avg_mhz * 1000u;
			c->freq_ratio = (float)h->freq_ratio / 10000.0f;
			c->max_khz = (uint32_t)lrint(c->avg_khz / (double)c->freq_ratio);
		}
	}
	if (measured)
		s->source_up |= 1u << PW_SRC_STAT;
}

static void rebuild_lines(const struct pw_history_point *p, struct pw_sample *s)
{
	struct pw_line_sample *lines = pw_sample_lines(s);
	bool rates = s->derived.valid & PW_DERIVED_RATES;
	uint32_t n = 0;

	for (int k = 0; k < PW_HISTORY_LINES && n < s->line_cap; k++) {
		if (!p->lines[k].irq[0])
			continue;
		memcpy(lines[n].line.irq, p->lines[k].irq, sizeof(lines[n].line.irq));
		lines[n].line.irq[sizeof(lines[n].line.irq) - 1] = '\0';
		lines[n].rate = rates ? finite_or_zero(p->lines[k].rate) : 0.0f;
		n++;
	}
	s->nlines = s->interrupts.nlines = n;
}

/* The point keeps each interval's stall share, in hundredths of a percent; the detector takes it
 * from the totals' growth, so the totals grow by it. avg10 gets the same figure (for the first
 * sample, which has no growth to take). */
static void rebuild_psi(const struct pw_history_point *p, int64_t interval_ns,
                        const uint64_t before_us[PW_PSI_COUNT], struct pw_sample *s)
{
	for (int r = 0; r < PW_PSI_COUNT; r++) {
		uint16_t stall = p->psi_some_stall[r];
		if (!known(stall))
			continue;
		s->psi_present |= 1u << r;
		s->psi[r].some.present = true;
		s->psi[r].some.avg10 = stall;
		double stalled_us = stall / 100.0 * (double)(interval_ns > 0 ? interval_ns : 0) / 1e5;
		s->psi[r].some.total_us = before_us[r] + (uint64_t)llround(stalled_us);
	}
	if (s->psi_present)
		s->source_up |= 1u << PW_SRC_PRESSURE;
}

void pw_history_point_to_sample(const struct pw_history_point *p, int64_t interval_ns, struct pw_sample *s)
{
	uint32_t cpu_cap = s->cpu_cap;
	uint64_t before_us[PW_PSI_COUNT];

	for (int r = 0; r < PW_PSI_COUNT; r++)
		before_us[r] = s->psi[r].some.total_us;
	pw_sample_init(s, cpu_cap, PW_HISTORY_LINES, false);
	s->seq = p->seq;
	s->samples_taken = p->seq;
	s->mono_ns = s->real_ns = p->real_ns; /* the store keeps wall-clock time only */
	s->interval_ns = interval_ns;
	s->ncpu = p->ncpu < cpu_cap ? p->ncpu : cpu_cap;
	s->user_hz = 100;
	s->page_size = 4096;
	rebuild_host(p, s);
	rebuild_cpus(p, s);
	rebuild_lines(p, s);
	rebuild_psi(p, interval_ns, before_us, s);
	s->source_present = s->source_up;
}
