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
	double cpu_reference_ticks;    /* see fit_sampled_time() */
	double removed[PW_MODE_COUNT]; /* sampled ticks taken off the CPUs, by mode */
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

/* Ticks by mode of one /proc/stat line over the interval. */
struct ticks {
	double mode[PW_MODE_COUNT];
	double total; /* the modes up to guest (guest and guest_nice are inside user and nice) */
};

/* The ticks of one line over the interval; false on a reset (counted) or when no tick elapsed. */
static bool interval_ticks(struct interval *iv, const struct pw_cpu_times *now,
                           const struct pw_cpu_times *before, struct ticks *t)
{
	uint8_t nmodes = now->nmodes < before->nmodes ? now->nmodes : before->nmodes;

	memset(t, 0, sizeof(*t));
	for (int m = 0; m < nmodes; m++) {
		uint64_t delta;
		if (!pw_counter_delta(now->ticks[m], before->ticks[m], &delta)) {
			iv->resets++;
			return false;
		}
		t->mode[m] = (double)delta;
		if (m < ACCOUNTED_MODES)
			t->total += (double)delta;
	}
	return t->total > 0;
}

/* /proc/stat mixes measured time with sampled time. idle and iowait come from the idle clock and
 * steal from the hypervisor's; user, nice, system, irq and softirq are timer-tick samples, each
 * charging a whole tick to the context it lands in. A CPU woken from idle hundreds of times a second
 * (a busy neighbour's IPIs to balance load) has ticks land in the short work after each wake, for
 * time the idle clock already counted: its columns then add up to more time than passed. Live, 4 KiB
 * direct writes at 12 000/s left the other CPU at 125-131% of the interval, "27% softirq" where
 * perf saw 3%. The sampled modes are fitted into the time the measured ones leave. */
#define OVERCOUNT_SLACK_TICKS 2.0 /* a tick's rounding on each of two reads */
#define OVERCOUNT_SLACK_SHARE 0.03

static void fit_sampled_time(struct ticks *t, double reference, double removed[PW_MODE_COUNT])
{
	static const int sampled_modes[] = {PW_MODE_USER,    PW_MODE_NICE,  PW_MODE_SYSTEM,    PW_MODE_IRQ,
	                                    PW_MODE_SOFTIRQ, PW_MODE_GUEST, PW_MODE_GUEST_NICE};
	double measured = t->mode[PW_MODE_IDLE] + t->mode[PW_MODE_IOWAIT] + t->mode[PW_MODE_STEAL];
	double sampled = t->total - measured;

	if (t->total - reference <= fmax(OVERCOUNT_SLACK_TICKS, OVERCOUNT_SLACK_SHARE * reference) ||
	    sampled <= 0)
		return;
	double keep = fmax(reference - measured, 0) / sampled;
	for (size_t i = 0; i < sizeof(sampled_modes) / sizeof(sampled_modes[0]); i++) {
		int m = sampled_modes[i];
		removed[m] += t->mode[m] * (1 - keep);
		t->mode[m] *= keep;
	}
	t->total = measured + sampled * keep;
}

/* The ticks one CPU's columns may add up to: the interval's, when the counters keep the samples'
 * clock (the host's own procfs); unbounded otherwise (a fixture tree's counters run on no clock). */
static double cpu_reference_ticks(const struct interval *iv, bool kernel_clock)
{
	return kernel_clock && iv->cur->user_hz > 0 ? iv->seconds * iv->cur->user_hz : INFINITY;
}

static void shares_of(const struct ticks *t, float share[PW_MODE_COUNT])
{
	for (int m = 0; m < PW_MODE_COUNT; m++)
		share[m] = (float)(t->mode[m] / t->total);
}

/* Shares of each mode in one CPU's ticks, sampled time fitted into the interval (its excess added to
 * iv->removed). */
static bool cpu_mode_shares(struct interval *iv, const struct pw_cpu_times *now,
                            const struct pw_cpu_times *before, float share[PW_MODE_COUNT])
{
	struct ticks t;

	if (!interval_ticks(iv, now, before, &t))
		return false;
	fit_sampled_time(&t, iv->cpu_reference_ticks, iv->removed);
	shares_of(&t, share);
	return true;
}

/* The host's shares, less the sampled time taken off its CPUs. */
static bool host_mode_shares(struct interval *iv, const struct pw_cpu_times *now,
                             const struct pw_cpu_times *before, float share[PW_MODE_COUNT])
{
	struct ticks t;

	if (!interval_ticks(iv, now, before, &t))
		return false;
	for (int m = 0; m < PW_MODE_COUNT; m++) {
		double take = fmin(iv->removed[m], t.mode[m]);
		t.mode[m] -= take;
		if (m < ACCOUNTED_MODES)
			t.total -= take;
	}
	if (t.total <= 0)
		return false;
	shares_of(&t, share);
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
	    cpu_mode_shares(iv, &now->times, &before->times, now->share))
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

	if (stat_up && host_mode_shares(iv, &cur->stat.total, &prev->stat.total, d->share))
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

static void derive(const struct pw_sample *prev, struct pw_sample *cur, bool kernel_clock)
{
	struct interval iv = {.prev = prev, .cur = cur};

	if (!prev || prev->cpu_cap != cur->cpu_cap || cur->mono_ns <= prev->mono_ns)
		return;
	iv.seconds = (double)(cur->mono_ns - prev->mono_ns) / 1e9;
	cur->interval_ns = cur->mono_ns - prev->mono_ns;
	iv.cpu_reference_ticks = cpu_reference_ticks(&iv, kernel_clock);
	for (uint32_t id = 0; id < cur->cpu_cap; id++)
		derive_cpu(&iv, id);
	derive_lines(&iv);
	derive_host(&iv);
	cur->derived.busy_cpus = count_busy_cpus(cur);
	cur->counter_resets += iv.resets;
}

void pw_derive(const struct pw_sample *prev, struct pw_sample *cur)
{
	derive(prev, cur, false);
}

void pw_derive_kernel(const struct pw_sample *prev, struct pw_sample *cur)
{
	derive(prev, cur, true);
}
