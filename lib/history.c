/* history.c — compact per-interval records and summaries over a window of them. */
#include "history.h"

#include <math.h>
#include <string.h>

size_t pw_history_point_size(uint32_t cpu_cap)
{
	size_t size = sizeof(struct pw_history_point) + (size_t)cpu_cap * sizeof(struct pw_history_cpu);

	return (size + 7) & ~(size_t)7;
}

static uint16_t ten_thousandths(float fraction)
{
	if (!isfinite(fraction) || fraction < 0.0f)
		return PW_HISTORY_UNKNOWN;
	return fraction >= 1.0f ? 10000 : (uint16_t)lrintf(fraction * 10000.0f);
}

static void reduce_cpu(const struct pw_cpu_sample *cpu, struct pw_history_cpu *ret)
{
	const float *share = cpu->share;
	bool shares = cpu->derived_valid & PW_DERIVED_SHARES;

	ret->busy = shares ? ten_thousandths((float)pw_busy_share(share)) : PW_HISTORY_UNKNOWN;
	ret->user = shares ? ten_thousandths(share[PW_MODE_USER] + share[PW_MODE_NICE]) : PW_HISTORY_UNKNOWN;
	ret->system = shares ? ten_thousandths(share[PW_MODE_SYSTEM]) : PW_HISTORY_UNKNOWN;
	ret->irq = shares ? ten_thousandths(share[PW_MODE_IRQ] + share[PW_MODE_SOFTIRQ]) : PW_HISTORY_UNKNOWN;
	ret->iowait = shares ? ten_thousandths(share[PW_MODE_IOWAIT]) : PW_HISTORY_UNKNOWN;
	/* Against the frequency CpuFrequencyLow judges by (base_frequency under intel_pstate, whose
	 * all-core turbo is below cpuinfo_max_freq), so the chart shows what the rule sees. */
	bool freq = cpu->derived_valid & PW_DERIVED_FREQ;
	uint32_t reference = pw_cpu_freq_reference(cpu);
	float ratio = reference > 0 && reference != cpu->max_khz
	                      ? (float)((double)cpu->freq_ratio * cpu->max_khz / reference)
	                      : cpu->freq_ratio;
	ret->freq_ratio = freq ? ten_thousandths(ratio) : PW_HISTORY_UNKNOWN;
	ret->avg_mhz = freq && cpu->avg_khz / 1000 < UINT16_MAX ? (uint16_t)((cpu->avg_khz + 500) / 1000) : 0;
}

/* The PW_HISTORY_LINES lines with the highest counts since boot, busiest first. Linear in the
 * number of lines, no allocation: the sampler calls it every sample. */
static void reduce_lines(const struct pw_sample *s, bool rates, struct pw_history_point *ret)
{
	const struct pw_line_sample *lines = pw_sample_lines_const(s);
	uint32_t top[PW_HISTORY_LINES], n = 0;

	for (uint32_t i = 0; i < s->nlines; i++) {
		uint64_t total = lines[i].line.total;
		uint32_t at = n;

		if (n == PW_HISTORY_LINES && lines[top[n - 1]].line.total >= total)
			continue;
		if (n < PW_HISTORY_LINES)
			n++;
		else
			at = PW_HISTORY_LINES - 1;
		/* Insertion into the sorted few; ties keep file order. */
		while (at > 0 && lines[top[at - 1]].line.total < total) {
			top[at] = top[at - 1];
			at--;
		}
		top[at] = i;
	}
	memset(ret->lines, 0, sizeof(ret->lines));
	for (uint32_t k = 0; k < n; k++) {
		const struct pw_line_sample *l = &lines[top[k]];
		memcpy(ret->lines[k].irq, l->line.irq, sizeof(ret->lines[k].irq));
		ret->lines[k].irq[sizeof(ret->lines[k].irq) - 1] = '\0';
		ret->lines[k].rate = rates && isfinite(l->rate) ? l->rate : NAN;
	}
	for (uint32_t k = n; k < PW_HISTORY_LINES; k++)
		ret->lines[k].rate = NAN;
}

/* Percent of the time since the previous sample some task stalled on each resource, from the
 * totals (what the detector takes too), in hundredths. */
static void reduce_psi(const struct pw_sample *s, struct pw_history_reducer *r, struct pw_history_point *ret)
{
	int64_t dt_ns = r && r->mono_ns ? s->mono_ns - r->mono_ns : 0;
	uint32_t present = 0;

	for (int k = 0; k < PW_PSI_COUNT; k++) {
		bool has = (s->psi_present >> k & 1u) && s->psi[k].some.present;
		uint64_t total = s->psi[k].some.total_us;
		ret->psi_some_stall[k] = PW_HISTORY_UNKNOWN;
		if (!has)
			continue;
		present |= 1u << k;
		if (dt_ns > 0 && (r->psi_present >> k & 1u) && total >= r->psi_total_us[k]) {
			double pct = (double)(total - r->psi_total_us[k]) * 1e5 / (double)dt_ns;
			ret->psi_some_stall[k] = (uint16_t)lrint(fmin(pct, 100.0) * 100.0);
		}
		if (r)
			r->psi_total_us[k] = total;
	}
	if (r) {
		r->psi_present = present;
		r->mono_ns = s->mono_ns;
	}
}

void pw_history_point_from(const struct pw_sample *s, struct pw_history_reducer *reducer,
                           struct pw_history_point *ret)
{
	const struct pw_host_derived *d = &s->derived;
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	bool shares = d->valid & PW_DERIVED_SHARES;

	ret->mono_ns = s->mono_ns;
	ret->real_ns = s->real_ns;
	ret->seq = s->seq;
	for (int m = 0; m < PW_MODE_GUEST; m++)
		ret->share[m] = shares ? ten_thousandths(d->share[m]) : PW_HISTORY_UNKNOWN;
	ret->busy_cpus = (uint16_t)d->busy_cpus;
	ret->ncpu = (uint16_t)s->ncpu;
	reduce_psi(s, reducer, ret);
	bool rates = d->valid & PW_DERIVED_RATES;
	ret->intr_rate = rates ? d->intr_rate : NAN;
	ret->ctxt_rate = rates ? d->ctxt_rate : NAN;
	ret->softirq_rate = rates ? d->softirq_total_rate : NAN;
	ret->swap_in_rate = rates ? d->vm_rate[PW_VM_PSWPIN] : NAN;
	ret->swap_out_rate = rates ? d->vm_rate[PW_VM_PSWPOUT] : NAN;
	ret->major_fault_rate = rates ? d->vm_rate[PW_VM_PGMAJFAULT] : NAN;
	ret->mem_available_kb =
	        pw_sample_has(s, PW_SRC_MEMINFO) && (s->meminfo.present >> PW_MEM_AVAILABLE & 1u)
	                ? s->meminfo.kb[PW_MEM_AVAILABLE]
	                : UINT64_MAX;
	ret->cached_kb = pw_sample_has(s, PW_SRC_MEMINFO) && (s->meminfo.present >> PW_MEM_CACHED & 1u)
	                         ? s->meminfo.kb[PW_MEM_CACHED]
	                         : UINT64_MAX;
	ret->procs_running = pw_sample_has(s, PW_SRC_STAT) ? (uint32_t)s->stat.procs_running : UINT32_MAX;
	ret->flags = s->seq == 1 ? PW_HISTORY_RUN_START : 0;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		ret->softirq_type_rate[t] = rates ? d->softirq_rate[t] : NAN;
	reduce_lines(s, rates, ret);
	for (uint32_t id = 0; id < s->cpu_cap; id++)
		reduce_cpu(&cpus[id], &ret->cpus[id]);
}

struct accumulator {
	double min, max, sum;
	uint32_t n;
};

static void accumulate(struct accumulator *acc, double value)
{
	if (!isfinite(value))
		return;
	if (acc->n == 0 || value < acc->min)
		acc->min = value;
	if (acc->n == 0 || value > acc->max)
		acc->max = value;
	acc->sum += value;
	acc->n++;
}

static struct pw_history_stat finish(const struct accumulator *acc)
{
	if (acc->n == 0)
		return (struct pw_history_stat){NAN, NAN, NAN};
	return (struct pw_history_stat){acc->min, acc->sum / acc->n, acc->max};
}

void pw_history_summarize(const struct pw_ring *ring, int64_t since_mono_ns, void *scratch,
                          struct pw_history_summary *ret)
{
	struct accumulator busy = {0}, intr = {0}, ctxt = {0}, swap_out = {0};
	const struct pw_history_point *p = scratch;
	uint64_t head = pw_ring_head(ring);
	int64_t first_ns = 0, last_ns = 0;
	uint32_t points = 0;

	/* Newest first, so the walk stops at the window's start or at the overwritten tail. */
	for (uint64_t seq = head; seq > 0 && pw_ring_read(ring, seq, scratch) == 0; seq--) {
		if (p->mono_ns <= since_mono_ns)
			break;
		if (points++ == 0)
			last_ns = p->mono_ns;
		first_ns = p->mono_ns;
		uint32_t idle = p->share[PW_MODE_IDLE], iowait = p->share[PW_MODE_IOWAIT];
		if (idle != PW_HISTORY_UNKNOWN && iowait != PW_HISTORY_UNKNOWN)
			/* pw_busy_share() over the stored shares, in percent; each was rounded to
			 * 1/10000, so together they may exceed 10000 (then busy is 0). */
			accumulate(&busy, fmax(0.0, 100.0 - (idle + iowait) / 100.0));
		accumulate(&intr, p->intr_rate);
		accumulate(&ctxt, p->ctxt_rate);
		accumulate(&swap_out, p->swap_out_rate);
	}
	ret->points = points;
	ret->span_seconds = points ? (double)(last_ns - first_ns) / 1e9 : 0.0;
	ret->busy_percent = finish(&busy);
	ret->intr_rate = finish(&intr);
	ret->ctxt_rate = finish(&ctxt);
	ret->swap_out_rate = finish(&swap_out);
}

uint32_t pw_history_copy_window(const struct pw_ring *ring, int64_t since_real_ns, int64_t until_real_ns,
                                void *buf, uint32_t cap)
{
	size_t size = pw_ring_payload_size(ring);
	char *base = buf;
	uint32_t n = 0;

	if (cap == 0)
		return 0;
	/* Newest first into the end of buf, then moved to its start. */
	for (uint64_t seq = pw_ring_head(ring); seq > 0 && n < cap; seq--) {
		char *slot = base + (size_t)(cap - 1 - n) * size;
		if (pw_ring_read(ring, seq, slot) != 0)
			break;
		int64_t t = ((const struct pw_history_point *)(const void *)slot)->real_ns;
		if (t <= since_real_ns)
			break;
		if (t <= until_real_ns)
			n++;
	}
	if (n && n < cap)
		memmove(base, base + (size_t)(cap - n) * size, (size_t)n * size);
	return n;
}
