/* detector_internal.h — the detector's state, shared by detector.c (learning, alert lifecycle),
 * deviations.c and the rules (rules.c and its families, rules_internal.h: the conditions, evidence
 * and words). Not part of the public API. */
#ifndef PW_DETECTOR_INTERNAL_H
#define PW_DETECTOR_INTERNAL_H

#include "detector.h"

#include <math.h>

/* Spread floors: below these a baseline's own variation is treated as noise. */
#define PW_SHARE_SPREAD_FLOOR 0.01 /* one percentage point of CPU time */
#define PW_RATE_SPREAD_FLOOR 1.0   /* one event per second */
#define PW_RATE_SPREAD_REL 0.05    /* or 5% of the mean rate */

/* Past the warmup, an observation moves a baseline by at most this many spreads (baseline.h). */
#define PW_BASELINE_CLIP 3.0
/* and weighs no more than if ten minutes had been learned (the default warmup), however short the
 * warmup was. */
#define PW_BASELINE_MEMORY_S 600.0

/* Events a CPU's handler time can be charged to, as far as the kernel counts them per CPU: its
 * hardware interrupts (one kind: /proc/interrupts gives no time per line), then each softirq type. */
#define PW_CPU_EVENT_KINDS (1 + PW_SOFTIRQ_COUNT)
#define PW_KIND_HARDIRQ 0

struct pw_line_baseline {
	char irq[PW_IRQ_NAME_MAX];
	struct pw_baseline rate;
	struct pw_baseline recent; /* the last minute or so, learning even while frozen: a lasting drop */
	bool used;
};

struct pw_rule_state {
	struct pw_alert alert;    /* state INACTIVE when not active */
	int64_t clear_since_mono; /* firing, but the condition has been clear since then; 0 if holding */
};

/* The figures of the sample being evaluated, NAN when not derived. */
struct pw_now {
	const struct pw_sample *sample;
	double host[PW_SIG_COUNT];
	uint32_t online_cpus;
	bool psi_irq; /* /proc/pressure/irq exists: handler time is measured, not sampled by ticks */
	bool psi_any; /* some /proc/pressure file exists (without it the kernel's accounting is unknown) */
};

struct pw_detector {
	struct pw_detector_config config;
	uint32_t cpu_cap, line_cap;
	struct pw_baseline host[PW_SIG_COUNT];
	struct pw_baseline softirq[PW_SOFTIRQ_COUNT]; /* host rate per type */
	struct pw_baseline *cpu_irq, *cpu_system;     /* [cpu_cap] shares */
	struct pw_baseline *cpu_irq_cost;             /* [cpu_cap] handler time per event, us */
	struct pw_baseline host_irq_cost;
	struct pw_baseline *cpu_events; /* [cpu_cap][PW_CPU_EVENT_KINDS] events per second */
	/* The same with a short memory, learning only while the CPU's handler time is normal: the
	 * events just before an excursion began, which the added handler time is charged against. */
	struct pw_baseline *cpu_events_before;
	/* The rate of the last sample before the excursion (same layout): a steady load that only
	 * began seconds before its cost rose is not yet all in the short-memory level, but it is here. */
	double *cpu_events_last;
	struct pw_baseline recent_intr;      /* host interrupts/s, short memory: what a lasting drop adopts */
	struct pw_line_baseline *lines;      /* [line_cap] */
	uint64_t psi_total_us[PW_PSI_COUNT]; /* the previous sample's stall totals (some) */
	int64_t psi_mono_ns;                 /* and when; 0: none yet */
	uint32_t psi_seen;                   /* bit r: psi_total_us[r] holds a reading */
	uint32_t ndeviations;
	uint32_t quiet_samples; /* consecutive samples with no CPU in a handler-time excursion */
	struct pw_deviation deviations[PW_DEVIATIONS_MAX];
	enum pw_irq_accounting irq_accounting; /* of the newest sample */
	int64_t first_mono_ns, last_mono_ns, last_real_ns;
	int64_t learned_before_ns; /* learning time carried over from a state file (a restart) */
	struct pw_rule_state rules[PW_ALERT_COUNT];
};

enum pw_verdict {
	PW_VERDICT_CLEAR,
	PW_VERDICT_HOLDS,
	PW_VERDICT_UNKNOWN, /* the rule's figures are missing this sample: change nothing */
};

/* Evaluate rule name on now; on HOLDS, candidate is filled (value, baseline, severity, scope,
 * summary, description, evidence). */
enum pw_verdict pw_rule_evaluate(const struct pw_detector *d, enum pw_alert_name name,
                                 const struct pw_now *now, struct pw_alert *candidate);

/* Microseconds of handler time per hard or soft interrupt on one CPU: what tells a driver that
 * got slow (incident 1: the count stayed normal) from a device that simply got busier. NAN when
 * the rates are unknown or nothing happened. */
static inline double pw_cpu_irq_cost(const struct pw_cpu_sample *c)
{
	double events = c->interrupt_rate;

	if (!(c->derived_valid & PW_DERIVED_SHARES))
		return NAN;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
		events += c->softirq_rate[t];
	return events >= 1.0 ? (c->share[PW_MODE_IRQ] + c->share[PW_MODE_SOFTIRQ]) * 1e6 / events : NAN;
}

/* The same for the host: all CPUs' handler time over all events. */
static inline double pw_host_irq_cost(const struct pw_now *now)
{
	const struct pw_host_derived *d = &now->sample->derived;
	double events = (double)d->intr_rate + d->softirq_total_rate;

	return events >= 1.0 ? now->host[PW_SIG_IRQ] * now->online_cpus * 1e6 / events : NAN;
}

/* Seconds of learning a baseline needs before rules may compare with it. */
static inline double pw_warmup_s(const struct pw_detector *d)
{
	return (double)d->config.warmup_ns / 1e9;
}

/* Events per second of kind k (PW_KIND_HARDIRQ or 1 + softirq type) on a CPU; NAN unknown. */
static inline double pw_cpu_event_rate(const struct pw_cpu_sample *c, int k)
{
	return k == PW_KIND_HARDIRQ ? c->interrupt_rate : c->softirq_rate[k - 1];
}

static inline struct pw_baseline *pw_cpu_event_baseline(const struct pw_detector *d, uint32_t cpu, int k)
{
	return &d->cpu_events[(size_t)cpu * PW_CPU_EVENT_KINDS + (size_t)k];
}

static inline struct pw_baseline *pw_cpu_event_before(const struct pw_detector *d, uint32_t cpu, int k)
{
	return &d->cpu_events_before[(size_t)cpu * PW_CPU_EVENT_KINDS + (size_t)k];
}

static inline double *pw_cpu_event_last(const struct pw_detector *d, uint32_t cpu, int k)
{
	return &d->cpu_events_last[(size_t)cpu * PW_CPU_EVENT_KINDS + (size_t)k];
}

/* Fill d->deviations from now: every signal far from its baseline and by enough to matter. */
void pw_detector_find_deviations(struct pw_detector *d, const struct pw_now *now);

/* The line baseline tracking irq (NULL if none yet). */
const struct pw_line_baseline *pw_detector_line(const struct pw_detector *d, uint32_t index, const char *irq);

double pw_rate_spread_floor(const struct pw_baseline *b);

#endif
