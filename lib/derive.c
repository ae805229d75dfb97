/* derive.c — interval figures from two consecutive samples. */
#include "derive.h"

#include <math.h>
#include <string.h>

/* guest and guest_nice are already inside user and nice: summing them would count twice. */
#define ACCOUNTED_MODES PW_MODE_GUEST

struct interval {
	const struct pw_sample *prev;
	struct pw_sample *cur;
	double seconds;
	uint64_t resets;
};

static bool both_up(const struct interval *iv, enum pw_source src)
{
	return pw_sample_has(iv->prev, src) && pw_sample_has(iv->cur, src);
}

static float rate_of(struct interval *iv, uint64_t now, uint64_t before)
{
	uint64_t delta;

	if (!pw_counter_delta(now, before, &delta)) {
		iv->resets++;
		return NAN;
	}
	return (float)((double)delta / iv->seconds);
}

/* Shares of each mode in the ticks elapsed; false on a reset or when no tick elapsed. */
static bool mode_shares(struct interval *iv, const struct pw_cpu_times *now,
                        const struct pw_cpu_times *before, float share[PW_MODE_COUNT])
{
	uint64_t delta[PW_MODE_COUNT] = {0}, total = 0;
	uint8_t nmodes = now->nmodes < before->nmodes ? now->nmodes : before->nmodes;

	for (int m = 0; m < nmodes; m++) {
		if (!pw_counter_delta(now->ticks[m], before->ticks[m], &delta[m])) {
			iv->resets++;
			return false;
		}
		if (m < ACCOUNTED_MODES)
			total += delta[m];
	}
	if (total == 0)
		return false;
	for (int m = 0; m < PW_MODE_COUNT; m++)
		share[m] = (float)((double)delta[m] / (double)total);
	return true;
}

/* Interval average frequency: from time_in_state when both samples have it, else the last reading. */
static void cpu_frequency(const struct pw_cpu_sample *before, struct pw_cpu_sample *now)
{
	uint64_t khz_time, time;

	if (!(now->freq_flags & PW_FREQ_HAS_CPUFREQ))
		return;
	now->avg_khz = now->cur_khz;
	if ((now->freq_flags & before->freq_flags & PW_FREQ_HAS_TIME_IN_STATE) &&
	    pw_counter_delta(now->tis.khz_time, before->tis.khz_time, &khz_time) &&
	    pw_counter_delta(now->tis.time, before->tis.time, &time) && time > 0) {
		now->avg_khz = (uint32_t)(khz_time / time);
		now->freq_flags |= PW_FREQ_AVG_FROM_STATS;
	}
	now->freq_ratio = now->max_khz ? (float)now->avg_khz / (float)now->max_khz : NAN;
	now->derived_valid |= PW_DERIVED_FREQ;
}

static void derive_cpu(struct interval *iv, uint32_t id)
{
	const struct pw_cpu_sample *before = &pw_sample_cpus_const(iv->prev)[id];
	struct pw_cpu_sample *now = &pw_sample_cpus(iv->cur)[id];

	cpu_frequency(before, now);
	if (both_up(iv, PW_SRC_STAT) && now->times.present && before->times.present &&
	    mode_shares(iv, &now->times, &before->times, now->share))
		now->derived_valid |= PW_DERIVED_SHARES;
	now->interrupt_rate = NAN;
	if (both_up(iv, PW_SRC_INTERRUPTS) && now->in_interrupts && before->in_interrupts)
		now->interrupt_rate = rate_of(iv, now->interrupts, before->interrupts);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		now->softirq_rate[t] = both_up(iv, PW_SRC_SOFTIRQS) && now->in_softirqs && before->in_softirqs
		                               ? rate_of(iv, now->softirq[t], before->softirq[t])
		                               : NAN;
	now->derived_valid |= PW_DERIVED_RATES;
}

/* The same line in prev: usually at the same index; lines shift when one appears or vanishes. */
static const struct pw_irq_line *find_line(const struct pw_sample *prev, uint32_t index, const char *irq)
{
	const struct pw_line_sample *lines = pw_sample_lines_const(prev);

	if (index < prev->nlines && strcmp(lines[index].line.irq, irq) == 0)
		return &lines[index].line;
	for (uint32_t i = 0; i < prev->nlines; i++)
		if (strcmp(lines[i].line.irq, irq) == 0)
			return &lines[i].line;
	return NULL;
}

/* Line and type totals are sums over the CPU columns the kernel printed, and offline CPUs have no
 * column: when the set changes, the sums are not comparable (a drop is no reset, a return no burst). */
static bool same_cpu_columns(const struct interval *iv, bool interrupts)
{
	const struct pw_cpu_sample *before = pw_sample_cpus_const(iv->prev);
	const struct pw_cpu_sample *now = pw_sample_cpus_const(iv->cur);

	for (uint32_t id = 0; id < iv->cur->cpu_cap; id++) {
		bool was = interrupts ? before[id].in_interrupts : before[id].in_softirqs;
		bool is = interrupts ? now[id].in_interrupts : now[id].in_softirqs;
		if (was != is)
			return false;
	}
	return true;
}

static void derive_lines(struct interval *iv)
{
	struct pw_line_sample *lines = pw_sample_lines(iv->cur);
	bool up = both_up(iv, PW_SRC_INTERRUPTS) && same_cpu_columns(iv, true);

	for (uint32_t i = 0; i < iv->cur->nlines; i++) {
		const struct pw_irq_line *before = up ? find_line(iv->prev, i, lines[i].line.irq) : NULL;
		lines[i].rate = before ? rate_of(iv, lines[i].line.total, before->total) : NAN;
	}
}

static float stat_rate(struct interval *iv, uint32_t has, uint64_t now, uint64_t before)
{
	if (!(iv->cur->stat.present & iv->prev->stat.present & has))
		return NAN;
	return rate_of(iv, now, before);
}

static void derive_host(struct interval *iv)
{
	struct pw_host_derived *d = &iv->cur->derived;
	const struct pw_sample *prev = iv->prev;
	const struct pw_sample *cur = iv->cur;
	bool stat_up = both_up(iv, PW_SRC_STAT);

	if (stat_up && mode_shares(iv, &cur->stat.total, &prev->stat.total, d->share))
		d->valid |= PW_DERIVED_SHARES;
	d->intr_rate = NAN;
	d->ctxt_rate = NAN;
	d->fork_rate = NAN;
	d->softirq_total_rate = NAN;
	if (stat_up) {
		d->intr_rate =
		        stat_rate(iv, PW_PROCSTAT_HAS_INTR, cur->stat.intr_total, prev->stat.intr_total);
		d->ctxt_rate = stat_rate(iv, PW_PROCSTAT_HAS_CTXT, cur->stat.ctxt, prev->stat.ctxt);
		d->fork_rate =
		        stat_rate(iv, PW_PROCSTAT_HAS_PROCESSES, cur->stat.processes, prev->stat.processes);
		d->softirq_total_rate = stat_rate(iv, PW_PROCSTAT_HAS_SOFTIRQ, cur->stat.softirq_total,
		                                  prev->stat.softirq_total);
	}
	bool softirqs_up = both_up(iv, PW_SRC_SOFTIRQS) && same_cpu_columns(iv, false);
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		d->softirq_rate[t] = softirqs_up && (cur->softirqs.present >> t & 1u)
		                             ? rate_of(iv, cur->softirqs.total[t], prev->softirqs.total[t])
		                             : NAN;
	for (int f = 0; f < PW_VM_COUNT; f++)
		d->vm_rate[f] =
		        both_up(iv, PW_SRC_VMSTAT) && (cur->vmstat.present & prev->vmstat.present) >> f & 1u
		                ? rate_of(iv, cur->vmstat.value[f], prev->vmstat.value[f])
		                : NAN;
	d->valid |= PW_DERIVED_RATES;
}

static uint32_t count_busy_cpus(const struct pw_sample *s)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	uint32_t busy = 0;

	for (uint32_t id = 0; id < s->ncpu; id++)
		if ((cpus[id].derived_valid & PW_DERIVED_SHARES) && pw_busy_share(cpus[id].share) > 0.5)
			busy++;
	return busy;
}

void pw_derive(const struct pw_sample *prev, struct pw_sample *cur)
{
	struct interval iv = {.prev = prev, .cur = cur};

	if (!prev || prev->cpu_cap != cur->cpu_cap || cur->mono_ns <= prev->mono_ns)
		return;
	iv.seconds = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
	cur->interval_ns = cur->mono_ns - prev->mono_ns;
	for (uint32_t id = 0; id < cur->cpu_cap; id++)
		derive_cpu(&iv, id);
	derive_lines(&iv);
	derive_host(&iv);
	cur->derived.busy_cpus = count_busy_cpus(cur);
	cur->counter_resets += iv.resets;
}
