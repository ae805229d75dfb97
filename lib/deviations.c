/* deviations.c — every signal far from its baseline and by enough to matter, whether or not a rule
 * fires on it: what the diagnosis names, so /status never calls a host "nothing unusual" while its
 * system time is twenty times normal. Ranked by how unusual (spreads) times how large (against the
 * smallest change worth naming), both capped so neither alone dominates. */
#include "detector_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEV_SIGMAS 4.0
#define DEV_CAP 25.0 /* caps of both rank factors */

/* The smallest change worth naming, per kind of figure. */
#define MIN_HOST_SHARE 0.05 /* of all CPUs' time */
#define MIN_CPU_SHARE 0.15  /* of one CPU's time */
#define MIN_RATE 500.0      /* interrupts, context switches per second */
#define MIN_SOFTIRQ 1000.0  /* softirqs of one type per second */
#define MIN_LINE 100.0      /* interrupts of one line per second */
#define MIN_SWAP 10.0       /* pages per second */
#define MIN_FAULTS 100.0    /* major faults per second */
#define MIN_PSI 10.0        /* percent of the time */

struct candidate {
	const char *what;
	char what_buf[sizeof(((struct pw_deviation *)0)->what)];
	int32_t cpu;
	enum pw_deviation_unit unit;
	enum pw_signal signal;
	double value, min_change;
	const struct pw_baseline *b;
};

/* A figure of one CPU (cpu >= 0), softirq type or interrupt line: no host signal, named by the
 * caller in what_buf. */
static struct candidate figure(int32_t cpu, enum pw_deviation_unit unit, double value, double min_change,
                               const struct pw_baseline *b)
{
	return (struct candidate){.cpu = cpu,
	                          .unit = unit,
	                          .signal = PW_SIG_COUNT,
	                          .value = value,
	                          .min_change = min_change,
	                          .b = b};
}

/* The spread below which a baseline's own variation is noise, by the kind of figure. */
static double spread_floor(enum pw_deviation_unit unit, const struct pw_baseline *b)
{
	switch (unit) {
	case PW_UNIT_SHARE:
		return PW_SHARE_SPREAD_FLOOR;
	case PW_UNIT_RATE:
		return pw_rate_spread_floor(b);
	case PW_UNIT_PERCENT: /* a percentage point of stall time */
	case PW_UNIT_TASKS:   /* one task */
		break;
	}
	return 1.0;
}

static void insert(struct pw_detector *d, const struct pw_deviation *dev)
{
	uint32_t at = d->ndeviations < PW_DEVIATIONS_MAX ? d->ndeviations++ : PW_DEVIATIONS_MAX;

	for (; at > 0 && d->deviations[at - 1].rank < dev->rank; at--)
		if (at < PW_DEVIATIONS_MAX)
			d->deviations[at] = d->deviations[at - 1];
	if (at < PW_DEVIATIONS_MAX)
		d->deviations[at] = *dev;
}

static void consider(struct pw_detector *d, const struct candidate *c)
{
	const struct pw_baseline *b = c->b;
	double floor = spread_floor(c->unit, b);

	if (!isfinite(c->value) || !pw_baseline_learned(b, pw_warmup_s(d)))
		return;
	double change = c->value - b->mean;
	/* A fall can be at most the whole mean: for rates, half of it is worth naming. */
	double needed = change < 0 ? fmin(c->min_change, 0.5 * b->mean) : c->min_change;
	double score = pw_baseline_score(b, c->value, floor);
	/* A rate that fell to a quarter of its normal is news even when a bursty load (disk I/O) left
	 * a wide spread: half the usual sigmas then. */
	double sigmas = c->unit == PW_UNIT_RATE && c->value <= 0.25 * b->mean ? DEV_SIGMAS / 2 : DEV_SIGMAS;
	if (fabs(score) < sigmas || !(fabs(change) >= needed) || needed <= 0)
		return;
	struct pw_deviation dev = {
	        .cpu = c->cpu,
	        .unit = c->unit,
	        .signal = c->signal,
	        .value = c->value,
	        .baseline = b->mean,
	        .spread = pw_baseline_spread(b, floor),
	        .score = score,
	        .rank = fmin(fabs(score) / DEV_SIGMAS, DEV_CAP) * fmin(fabs(change) / needed, DEV_CAP),
	};
	snprintf(dev.what, sizeof(dev.what), "%s", c->what ? c->what : c->what_buf);
	insert(d, &dev);
}

static void host_signals(struct pw_detector *d, const struct pw_now *now)
{
	static const struct {
		enum pw_signal sig;
		const char *what;
		enum pw_deviation_unit unit;
		double min_change;
	} table[] = {
	        {PW_SIG_USER, "user time", PW_UNIT_SHARE, MIN_HOST_SHARE},
	        {PW_SIG_SYSTEM, "system time", PW_UNIT_SHARE, MIN_HOST_SHARE},
	        {PW_SIG_IOWAIT, "iowait", PW_UNIT_SHARE, MIN_HOST_SHARE},
	        {PW_SIG_IRQ, "interrupt handler time", PW_UNIT_SHARE, MIN_HOST_SHARE},
	        {PW_SIG_STEAL, "steal time", PW_UNIT_SHARE, MIN_HOST_SHARE},
	        {PW_SIG_INTR_RATE, "interrupts", PW_UNIT_RATE, MIN_RATE},
	        {PW_SIG_CTXT_RATE, "context switches", PW_UNIT_RATE, MIN_RATE},
	        {PW_SIG_SWAP_IN, "swap-in", PW_UNIT_RATE, MIN_SWAP},
	        {PW_SIG_SWAP_OUT, "swap-out", PW_UNIT_RATE, MIN_SWAP},
	        {PW_SIG_MAJOR_FAULTS, "major page faults", PW_UNIT_RATE, MIN_FAULTS},
	        {PW_SIG_PSI_CPU, "tasks waiting for a CPU", PW_UNIT_PERCENT, MIN_PSI},
	        {PW_SIG_PSI_MEMORY, "tasks stalled on memory", PW_UNIT_PERCENT, MIN_PSI},
	        {PW_SIG_PSI_IO, "tasks stalled on I/O", PW_UNIT_PERCENT, MIN_PSI},
	        {PW_SIG_RUN_QUEUE, "run queue", PW_UNIT_TASKS, 0 /* from the CPU count */},
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct candidate c = {
		        .what = table[i].what,
		        .cpu = -1,
		        .unit = table[i].unit,
		        .signal = table[i].sig,
		        .value = now->host[table[i].sig],
		        /* The run queue: a few tasks more than there are CPUs to run them. */
		        .min_change = table[i].sig == PW_SIG_RUN_QUEUE ? fmax(2.0, now->online_cpus)
		                                                       : table[i].min_change,
		        .b = &d->host[table[i].sig],
		};
		consider(d, &c);
	}
}

static void cpu_signals(struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_sample *s = now->sample;
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);

	/* On one CPU the host figure says it all. */
	if (now->online_cpus < 2)
		return;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		const float *sh = cpus[id].share;
		if (!(cpus[id].derived_valid & PW_DERIVED_SHARES))
			continue;
		struct candidate c = figure((int32_t)id, PW_UNIT_SHARE, sh[PW_MODE_SYSTEM], MIN_CPU_SHARE,
		                            &d->cpu_system[id]);
		snprintf(c.what_buf, sizeof(c.what_buf), "system time on cpu%u", id);
		consider(d, &c);
		c = figure((int32_t)id, PW_UNIT_SHARE, (double)sh[PW_MODE_IRQ] + sh[PW_MODE_SOFTIRQ],
		           MIN_CPU_SHARE, &d->cpu_irq[id]);
		snprintf(c.what_buf, sizeof(c.what_buf), "interrupt handler time on cpu%u", id);
		consider(d, &c);
	}
}

static void event_signals(struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_sample *s = now->sample;
	const struct pw_line_sample *lines = pw_sample_lines_const(s);

	if (!(s->derived.valid & PW_DERIVED_RATES))
		return;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		struct candidate c = figure(-1, PW_UNIT_RATE, s->derived.softirq_rate[t],
		                            fmax(MIN_SOFTIRQ, d->softirq[t].mean), &d->softirq[t]);
		snprintf(c.what_buf, sizeof(c.what_buf), "%s softirqs",
		         pw_softirq_name((enum pw_softirq_type)t));
		consider(d, &c);
	}
	for (uint32_t i = 0; i < s->nlines && i < s->line_cap; i++) {
		const struct pw_line_baseline *lb = pw_detector_line(d, i, lines[i].line.irq);
		if (!lb)
			continue;
		struct candidate c = figure(-1, PW_UNIT_RATE, lines[i].rate,
		                            fmax(MIN_LINE, 0.5 * lb->rate.mean), &lb->rate);
		snprintf(c.what_buf, sizeof(c.what_buf), "interrupts on irq %.8s (%.16s)", lines[i].line.irq,
		         lines[i].line.device);
		consider(d, &c);
	}
}

void pw_detector_find_deviations(struct pw_detector *d, const struct pw_now *now)
{
	d->ndeviations = 0;
	host_signals(d, now);
	cpu_signals(d, now);
	event_signals(d, now);
}

size_t pw_detector_deviations(const struct pw_detector *d, struct pw_deviation *ret, size_t cap)
{
	size_t n = d->ndeviations < cap ? d->ndeviations : cap;

	memcpy(ret, d->deviations, n * sizeof(*ret));
	return n;
}
