/* detector.c — baselines learning, and the pending -> firing -> resolved lifecycle of each rule. */
#include "detector_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1e9
#define WALL_STEP_MIN_NS INT64_C(1000000000)

static const char *const alert_names[PW_ALERT_COUNT] = {
        "InterruptTimeHigh", "CpuFrequencyLow", "InterruptRateDrop", "MemorySwapping",
        "IoWaitHigh",        "SystemTimeHigh",  "StealHigh",
};

static const char *const signal_names[PW_SIG_COUNT] = {
        "cpu_user_ratio",
        "cpu_system_ratio",
        "cpu_iowait_ratio",
        "cpu_irq_ratio",
        "cpu_steal_ratio",
        "interrupts_per_second",
        "context_switches_per_second",
        "run_queue",
        "swap_in_pages_per_second",
        "swap_out_pages_per_second",
        "major_faults_per_second",
        "pressure_cpu_some_percent",
        "pressure_memory_some_percent",
        "pressure_io_some_percent",
};

/* The rule whose incident a signal describes: it stops learning while that rule is active. */
static const enum pw_alert_name signal_owner[PW_SIG_COUNT] = {
        [PW_SIG_USER] = PW_ALERT_SYSTEM_TIME_HIGH,
        [PW_SIG_SYSTEM] = PW_ALERT_SYSTEM_TIME_HIGH,
        [PW_SIG_IOWAIT] = PW_ALERT_IOWAIT_HIGH,
        [PW_SIG_IRQ] = PW_ALERT_INTERRUPT_TIME_HIGH,
        [PW_SIG_STEAL] = PW_ALERT_STEAL_HIGH,
        [PW_SIG_INTR_RATE] = PW_ALERT_INTERRUPT_RATE_DROP,
        [PW_SIG_CTXT_RATE] = PW_ALERT_SYSTEM_TIME_HIGH,
        [PW_SIG_RUN_QUEUE] = PW_ALERT_SYSTEM_TIME_HIGH,
        [PW_SIG_SWAP_IN] = PW_ALERT_MEMORY_SWAPPING,
        [PW_SIG_SWAP_OUT] = PW_ALERT_MEMORY_SWAPPING,
        [PW_SIG_MAJOR_FAULTS] = PW_ALERT_MEMORY_SWAPPING,
        [PW_SIG_PSI_CPU] = PW_ALERT_SYSTEM_TIME_HIGH,
        [PW_SIG_PSI_MEMORY] = PW_ALERT_MEMORY_SWAPPING,
        [PW_SIG_PSI_IO] = PW_ALERT_IOWAIT_HIGH,
};

const char *pw_alert_name_str(enum pw_alert_name name)
{
	return (unsigned)name < PW_ALERT_COUNT ? alert_names[name] : "unknown";
}

int pw_alert_name_parse(const char *str)
{
	for (int i = 0; i < PW_ALERT_COUNT; i++)
		if (strcmp(alert_names[i], str) == 0)
			return i;
	return -1;
}

const char *pw_alert_state_str(enum pw_alert_state state)
{
	static const char *const names[] = {"inactive", "pending", "firing"};
	return (unsigned)state <= PW_ALERT_FIRING ? names[state] : "unknown";
}

const char *pw_severity_str(enum pw_severity severity)
{
	return severity == PW_SEVERITY_CRITICAL ? "critical" : "warning";
}

const char *pw_signal_name(enum pw_signal signal)
{
	return (unsigned)signal < PW_SIG_COUNT ? signal_names[signal] : "unknown";
}

double pw_rate_spread_floor(const struct pw_baseline *b)
{
	double rel = PW_RATE_SPREAD_REL * fabs(b->mean);
	return rel > PW_RATE_SPREAD_FLOOR ? rel : PW_RATE_SPREAD_FLOOR;
}

void pw_detector_config_defaults(struct pw_detector_config *c, int64_t alert_for_ns, int64_t interval_ns)
{
	/* threshold, critical, sigmas per rule; units in docs/detection.md. */
	static const double table[PW_ALERT_COUNT][3] = {
	        [PW_ALERT_INTERRUPT_TIME_HIGH] = {0.05, 0.20, 4}, /* share of a CPU in handlers */
	        [PW_ALERT_CPU_FREQUENCY_LOW] = {0.85, 0.70, 0},   /* avg/max frequency of busy CPUs */
	        [PW_ALERT_INTERRUPT_RATE_DROP] = {0.50, 0.05, 4}, /* rate as a fraction of baseline */
	        [PW_ALERT_MEMORY_SWAPPING] = {1.0, 100.0, 4},     /* pages swapped per second */
	        [PW_ALERT_IOWAIT_HIGH] = {0.10, 0.25, 4},         /* host iowait share */
	        [PW_ALERT_SYSTEM_TIME_HIGH] = {0.25, 0.60, 4},    /* host system share */
	        [PW_ALERT_STEAL_HIGH] = {0.10, 0.30, 4},          /* host steal share */
	};

	memset(c, 0, sizeof(*c));
	c->warmup_ns = 600 * (int64_t)NS_PER_S;
	c->half_life_s = 3600;
	c->busy_share = 0.5;
	for (int i = 0; i < PW_ALERT_COUNT; i++) {
		c->rules[i].enabled = true;
		c->rules[i].for_ns = alert_for_ns;
		c->rules[i].resolve_ns = 3 * interval_ns;
		c->rules[i].threshold = table[i][0];
		c->rules[i].critical = table[i][1];
		c->rules[i].sigmas = table[i][2];
	}
	/* Interrupts that fell and stayed down are a workload that ended, not a pause (incident 3 is
	 * seconds long): after two minutes the new level is normal. */
	c->rules[PW_ALERT_INTERRUPT_RATE_DROP].adopt_ns = 120 * (int64_t)NS_PER_S;
}

struct pw_detector *pw_detector_new(const struct pw_detector_config *config, uint32_t cpu_cap,
                                    uint32_t line_cap)
{
	struct pw_detector *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->config = *config;
	d->cpu_cap = cpu_cap;
	d->line_cap = line_cap;
	d->cpu_irq = calloc(cpu_cap, sizeof(*d->cpu_irq));
	d->cpu_system = calloc(cpu_cap, sizeof(*d->cpu_system));
	d->cpu_irq_cost = calloc(cpu_cap, sizeof(*d->cpu_irq_cost));
	d->cpu_events = calloc((size_t)cpu_cap * PW_CPU_EVENT_KINDS, sizeof(*d->cpu_events));
	d->cpu_events_before = calloc((size_t)cpu_cap * PW_CPU_EVENT_KINDS, sizeof(*d->cpu_events_before));
	d->cpu_events_last = calloc((size_t)cpu_cap * PW_CPU_EVENT_KINDS, sizeof(*d->cpu_events_last));
	d->lines = calloc(line_cap, sizeof(*d->lines));
	if (!d->cpu_irq || !d->cpu_system || !d->cpu_irq_cost || !d->cpu_events || !d->cpu_events_before ||
	    !d->cpu_events_last || !d->lines) {
		pw_detector_free(d);
		return NULL;
	}
	return d;
}

void pw_detector_free(struct pw_detector *d)
{
	if (!d)
		return;
	free(d->cpu_irq);
	free(d->cpu_system);
	free(d->cpu_irq_cost);
	free(d->cpu_events);
	free(d->cpu_events_before);
	free(d->cpu_events_last);
	free(d->lines);
	free(d);
}

void pw_detector_reconfigure(struct pw_detector *d, const struct pw_detector_config *config)
{
	d->config = *config;
}

static double share_or_nan(const struct pw_sample *s, double value)
{
	return (s->derived.valid & PW_DERIVED_SHARES) ? value : NAN;
}

static double rate_or_nan(const struct pw_sample *s, float value)
{
	return (s->derived.valid & PW_DERIVED_RATES) ? (double)value : NAN;
}

static bool psi_has(const struct pw_sample *s, enum pw_psi_resource r)
{
	return (s->psi_present >> r & 1u) && s->psi[r].some.present;
}

/* Percent of the interval some task stalled on r, from the stall totals (avg10 would lag a sudden
 * stall by ten seconds); avg10 for the first reading. NAN without PSI. */
static double psi_stall(struct pw_detector *d, const struct pw_sample *s, enum pw_psi_resource r)
{
	double pct;

	if (!psi_has(s, r)) {
		d->psi_seen &= ~(1u << r);
		return NAN;
	}
	uint64_t total = s->psi[r].some.total_us;
	int64_t dt_ns = s->mono_ns - d->psi_mono_ns;
	if ((d->psi_seen >> r & 1u) && d->psi_mono_ns && dt_ns > 0 && total >= d->psi_total_us[r])
		pct = fmin(100.0, (double)(total - d->psi_total_us[r]) * 1e5 / (double)dt_ns);
	else
		pct = s->psi[r].some.avg10 / 100.0;
	d->psi_total_us[r] = total;
	d->psi_seen |= 1u << r;
	return pct;
}

static void read_figures(struct pw_detector *d, const struct pw_sample *s, struct pw_now *now)
{
	const float *share = s->derived.share;
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	double *h = now->host;

	now->sample = s;
	h[PW_SIG_USER] = share_or_nan(s, share[PW_MODE_USER] + share[PW_MODE_NICE]);
	h[PW_SIG_SYSTEM] = share_or_nan(s, share[PW_MODE_SYSTEM]);
	h[PW_SIG_IOWAIT] = share_or_nan(s, share[PW_MODE_IOWAIT]);
	h[PW_SIG_IRQ] = share_or_nan(s, share[PW_MODE_IRQ] + share[PW_MODE_SOFTIRQ]);
	h[PW_SIG_STEAL] = share_or_nan(s, share[PW_MODE_STEAL]);
	h[PW_SIG_INTR_RATE] = rate_or_nan(s, s->derived.intr_rate);
	h[PW_SIG_CTXT_RATE] = rate_or_nan(s, s->derived.ctxt_rate);
	h[PW_SIG_RUN_QUEUE] =
	        pw_sample_has(s, PW_SRC_STAT) && (s->stat.present & PW_PROCSTAT_HAS_PROCS_RUNNING)
	                ? (double)s->stat.procs_running
	                : NAN;
	h[PW_SIG_SWAP_IN] = rate_or_nan(s, s->derived.vm_rate[PW_VM_PSWPIN]);
	h[PW_SIG_SWAP_OUT] = rate_or_nan(s, s->derived.vm_rate[PW_VM_PSWPOUT]);
	h[PW_SIG_MAJOR_FAULTS] = rate_or_nan(s, s->derived.vm_rate[PW_VM_PGMAJFAULT]);
	h[PW_SIG_PSI_CPU] = psi_stall(d, s, PW_PSI_CPU);
	h[PW_SIG_PSI_MEMORY] = psi_stall(d, s, PW_PSI_MEMORY);
	h[PW_SIG_PSI_IO] = psi_stall(d, s, PW_PSI_IO);
	d->psi_mono_ns = s->mono_ns;
	now->psi_any = s->psi_present != 0;
	now->psi_irq = (s->psi_present >> PW_PSI_IRQ & 1u) != 0;
	d->irq_accounting = now->psi_irq   ? PW_IRQ_ACCOUNTING_MEASURED
	                    : now->psi_any ? PW_IRQ_ACCOUNTING_TICKS
	                                   : PW_IRQ_ACCOUNTING_UNKNOWN;
	now->online_cpus = 0;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap; id++)
		now->online_cpus += cpus[id].online && cpus[id].times.present;
}

/* A rule's signals stop learning while it is pending or firing, so an incident never becomes the
 * normal; but not for ever: after half a half-life a lasting change is the host's new normal (a
 * load test that ended), and learning resumes so the alert can resolve. */
static bool rule_active(const struct pw_detector *d, enum pw_alert_name name)
{
	const struct pw_alert *a = &d->rules[name].alert;

	return a->state != PW_ALERT_INACTIVE &&
	       (double)(d->last_mono_ns - a->started_mono_ns) / NS_PER_S < d->config.half_life_s / 2;
}

/* A rule with an adopt time whose alert has been active that long: the level it alerts on lasted,
 * so it is the host's new normal (a batch job that ended for good), not a pause. */
static bool adopt_due(const struct pw_detector *d, enum pw_alert_name name)
{
	const struct pw_alert *a = &d->rules[name].alert;
	int64_t adopt_ns = d->config.rules[name].adopt_ns;

	return adopt_ns > 0 && a->state != PW_ALERT_INACTIVE &&
	       d->last_mono_ns - a->started_mono_ns >= adopt_ns;
}

const struct pw_line_baseline *pw_detector_line(const struct pw_detector *d, uint32_t index, const char *irq)
{
	if (index < d->line_cap && d->lines[index].used && strcmp(d->lines[index].irq, irq) == 0)
		return &d->lines[index];
	for (uint32_t i = 0; i < d->line_cap; i++)
		if (d->lines[i].used && strcmp(d->lines[i].irq, irq) == 0)
			return &d->lines[i];
	return NULL;
}

/* The slot for irq: its own, else the one at its index if free, else the first free one. */
static struct pw_line_baseline *line_slot(struct pw_detector *d, uint32_t index, const char *irq)
{
	struct pw_line_baseline *found = (struct pw_line_baseline *)pw_detector_line(d, index, irq);

	if (found)
		return found;
	for (uint32_t i = 0; i <= d->line_cap; i++) {
		uint32_t at = i == 0 ? index : i - 1;
		if (at < d->line_cap && !d->lines[at].used) {
			d->lines[at].used = true;
			snprintf(d->lines[at].irq, sizeof(d->lines[at].irq), "%s", irq);
			return &d->lines[at];
		}
	}
	return NULL;
}

/* Past the warmup a baseline learns through a clip (baseline.h), so what no rule holds back still
 * takes minutes, not seconds, to become normal. */
static void learn_one(const struct pw_detector *d, struct pw_baseline *b, double x, double dt, double floor)
{
	if (pw_detector_warm(d))
		pw_baseline_update_clipped(b, x, dt, d->config.half_life_s, floor, PW_BASELINE_CLIP,
		                           PW_BASELINE_MEMORY_S);
	else
		pw_baseline_update(b, x, dt, d->config.half_life_s);
}

/* How long the events before an excursion are remembered: a few seconds of a steady load. */
#define BEFORE_HALF_LIFE_S 5.0
#define QUIET_SPELL_SAMPLES 3

static void learn_cpus(struct pw_detector *d, const struct pw_sample *s, double dt)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	bool irq_frozen = rule_active(d, PW_ALERT_INTERRUPT_TIME_HIGH);
	bool sys_frozen = rule_active(d, PW_ALERT_SYSTEM_TIME_HIGH);

	/* The events before an excursion stop learning on every CPU while any CPU is in one: traffic
	 * that moves to another CPU is not new traffic. */
	bool excursion = false;
	for (uint32_t id = 0; id < s->cpu_cap && id < d->cpu_cap; id++) {
		const struct pw_cpu_sample *c = &cpus[id];
		const struct pw_rule_config *rc = &d->config.rules[PW_ALERT_INTERRUPT_TIME_HIGH];
		excursion |=
		        (c->derived_valid & PW_DERIVED_SHARES) && pw_baseline_learned(&d->cpu_irq[id], 1) &&
		        pw_baseline_score(&d->cpu_irq[id], c->share[PW_MODE_IRQ] + c->share[PW_MODE_SOFTIRQ],
		                          PW_SHARE_SPREAD_FLOOR) >= rc->sigmas;
	}
	d->quiet_samples = excursion ? 0 : d->quiet_samples + 1;
	/* The last rate before an excursion only from a quiet spell: one calm sample inside an
	 * incident (tick noise) must not make the incident's rate "what was there before". */
	bool quiet_spell = d->quiet_samples >= QUIET_SPELL_SAMPLES;
	for (uint32_t id = 0; id < s->cpu_cap && id < d->cpu_cap; id++) {
		const struct pw_cpu_sample *c = &cpus[id];
		if (!(c->derived_valid & PW_DERIVED_SHARES))
			continue;
		double irq = c->share[PW_MODE_IRQ] + c->share[PW_MODE_SOFTIRQ];
		for (int k = 0; k < PW_CPU_EVENT_KINDS && !excursion; k++) {
			double rate = pw_cpu_event_rate(c, k);
			pw_baseline_update(pw_cpu_event_before(d, id, k), rate, dt, BEFORE_HALF_LIFE_S);
			if (quiet_spell)
				*pw_cpu_event_last(d, id, k) = isfinite(rate) ? rate : 0;
		}
		if (!irq_frozen) {
			learn_one(d, &d->cpu_irq[id], irq, dt, PW_SHARE_SPREAD_FLOOR);
			pw_baseline_update(&d->cpu_irq_cost[id], pw_cpu_irq_cost(c), dt,
			                   d->config.half_life_s);
			for (int k = 0; k < PW_CPU_EVENT_KINDS; k++) {
				struct pw_baseline *b = pw_cpu_event_baseline(d, id, k);
				learn_one(d, b, pw_cpu_event_rate(c, k), dt, pw_rate_spread_floor(b));
			}
		}
		if (!sys_frozen)
			learn_one(d, &d->cpu_system[id], c->share[PW_MODE_SYSTEM], dt, PW_SHARE_SPREAD_FLOOR);
	}
}

static double signal_floor(enum pw_signal sig, const struct pw_baseline *b)
{
	switch (sig) {
	case PW_SIG_USER:
	case PW_SIG_SYSTEM:
	case PW_SIG_IOWAIT:
	case PW_SIG_IRQ:
	case PW_SIG_STEAL:
		return PW_SHARE_SPREAD_FLOOR;
	case PW_SIG_PSI_CPU:
	case PW_SIG_PSI_MEMORY:
	case PW_SIG_PSI_IO:
		return 1.0; /* one percent of the time */
	default:
		return pw_rate_spread_floor(b);
	}
}

/* A drop that lasted its adopt time: the short-memory baselines become the normal, so the alert
 * resolves and the new level is compared with from now on. */
static void adopt_rates(struct pw_detector *d)
{
	if (pw_baseline_learned(&d->recent_intr, 1)) {
		d->host[PW_SIG_INTR_RATE].mean = d->recent_intr.mean;
		d->host[PW_SIG_INTR_RATE].var = d->recent_intr.var;
	}
	for (uint32_t i = 0; i < d->line_cap; i++) {
		struct pw_line_baseline *l = &d->lines[i];
		if (l->used && pw_baseline_learned(&l->recent, 1)) {
			l->rate.mean = l->recent.mean;
			l->rate.var = l->recent.var;
		}
	}
}

/* How long the short-memory rate baselines remember: a drop is adopted at the level of about the
 * last minute. */
#define RECENT_HALF_LIFE_S 20.0

static void learn(struct pw_detector *d, const struct pw_now *now, double dt)
{
	const struct pw_sample *s = now->sample;
	const struct pw_line_sample *lines = pw_sample_lines_const(s);
	double hl = d->config.half_life_s;
	bool lines_frozen =
	        rule_active(d, PW_ALERT_INTERRUPT_RATE_DROP) || rule_active(d, PW_ALERT_INTERRUPT_TIME_HIGH);

	for (int sig = 0; sig < PW_SIG_COUNT; sig++)
		if (!rule_active(d, signal_owner[sig]))
			learn_one(d, &d->host[sig], now->host[sig], dt,
			          signal_floor((enum pw_signal)sig, &d->host[sig]));
	if (!rule_active(d, PW_ALERT_INTERRUPT_TIME_HIGH) && (s->derived.valid & PW_DERIVED_RATES))
		for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
			learn_one(d, &d->softirq[t], s->derived.softirq_rate[t], dt,
			          pw_rate_spread_floor(&d->softirq[t]));
	if (!rule_active(d, PW_ALERT_INTERRUPT_TIME_HIGH))
		pw_baseline_update(&d->host_irq_cost, pw_host_irq_cost(now), dt, hl);
	learn_cpus(d, s, dt);
	pw_baseline_update(&d->recent_intr, now->host[PW_SIG_INTR_RATE], dt, RECENT_HALF_LIFE_S);
	for (uint32_t i = 0; i < s->nlines && i < s->line_cap; i++) {
		struct pw_line_baseline *slot =
		        isfinite(lines[i].rate) ? line_slot(d, i, lines[i].line.irq) : NULL;
		if (!slot)
			continue;
		pw_baseline_update(&slot->recent, lines[i].rate, dt, RECENT_HALF_LIFE_S);
		if (!lines_frozen)
			learn_one(d, &slot->rate, lines[i].rate, dt, pw_rate_spread_floor(&slot->rate));
	}
	if (adopt_due(d, PW_ALERT_INTERRUPT_RATE_DROP))
		adopt_rates(d);
}

static void emit(struct pw_alert_event *events, size_t cap, size_t *n, const struct pw_alert *alert,
                 enum pw_alert_state from, bool resolved, int64_t real_ns)
{
	if (*n < cap) {
		events[*n].alert = *alert;
		events[*n].from = from;
		events[*n].resolved = resolved;
		events[*n].real_ns = real_ns;
	}
	(*n)++;
}

/* Keep the identity and timing of an active alert, refresh its figures and words. */
static void refresh(struct pw_alert *alert, const struct pw_alert *candidate)
{
	struct pw_alert keep = *alert;

	*alert = *candidate;
	alert->state = keep.state;
	alert->started_real_ns = keep.started_real_ns;
	alert->started_mono_ns = keep.started_mono_ns;
	alert->fired_real_ns = keep.fired_real_ns;
}

static void step(struct pw_detector *d, enum pw_alert_name name, enum pw_verdict verdict,
                 const struct pw_alert *candidate, const struct pw_sample *s, struct pw_alert_event *events,
                 size_t cap, size_t *n)
{
	struct pw_rule_state *r = &d->rules[name];
	struct pw_alert *a = &r->alert;
	const struct pw_rule_config *rc = &d->config.rules[name];
	enum pw_alert_state from = a->state;
	enum pw_severity was = a->severity;

	/* Samples come one interval apart give or take timer jitter: 1.9999 s must count as the 2 s
	 * they stand for, not wait a whole further interval. */
	int64_t slop = s->interval_ns / 4;

	if (verdict == PW_VERDICT_UNKNOWN)
		return; /* no figures this sample (a source down, a reset): neither evidence nor all-clear */
	if (verdict == PW_VERDICT_HOLDS) {
		r->clear_since_mono = 0;
		if (from == PW_ALERT_INACTIVE) {
			*a = *candidate;
			a->state = PW_ALERT_PENDING;
			a->started_real_ns = s->real_ns;
			a->started_mono_ns = s->mono_ns;
			a->fired_real_ns = 0;
		} else {
			refresh(a, candidate);
		}
		if (a->state == PW_ALERT_PENDING && s->mono_ns - a->started_mono_ns + slop >= rc->for_ns) {
			a->state = PW_ALERT_FIRING;
			a->fired_real_ns = s->real_ns;
		}
	} else if (from == PW_ALERT_PENDING) {
		/* Shorter than the pending time: a blip, not an incident. */
		a->state = PW_ALERT_INACTIVE;
	} else if (from == PW_ALERT_FIRING) {
		if (r->clear_since_mono == 0)
			r->clear_since_mono = s->mono_ns;
		if (s->mono_ns - r->clear_since_mono + slop >= rc->resolve_ns) {
			a->state = PW_ALERT_INACTIVE;
			r->clear_since_mono = 0;
		}
	}
	/* A firing alert that escalates (or calms) from warning to critical is news too. */
	if (a->state != from ||
	    (from == PW_ALERT_FIRING && a->state == PW_ALERT_FIRING && a->severity != was))
		emit(events, cap, n, a, from, from == PW_ALERT_FIRING && a->state == PW_ALERT_INACTIVE,
		     s->real_ns);
}

/* a + b, saturated: sample times are checked to ±2^62 ns, so a difference of two may not fit. */
static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* The wall clock stepped between the previous sample and s (settimeofday, an NTP step): the
 * active alerts' wall times move with it, so that started <= fired <= resolved still holds, their
 * spans are what the monotonic clock measured, and a resolution's time is the clock's time then
 * (Alertmanager refuses an endsAt before startsAt, and resolves at endsAt). Slewing (chrony
 * changes the rate by up to 8.3%) is not a step: only a gap over 1 s + 10% of the interval is. */
static void follow_wall_clock(struct pw_detector *d, const struct pw_sample *s)
{
	int64_t elapsed = s->mono_ns - d->last_mono_ns; /* > 0: checked by the caller */
	int64_t expected = add_sat(d->last_real_ns, elapsed);
	int64_t step = add_sat(s->real_ns, expected == INT64_MIN ? INT64_MAX : -expected);
	int64_t tolerance = WALL_STEP_MIN_NS + elapsed / 10;

	if (!d->last_mono_ns || (step <= tolerance && step >= -tolerance))
		return;
	for (int name = 0; name < PW_ALERT_COUNT; name++) {
		struct pw_alert *a = &d->rules[name].alert;
		if (a->state == PW_ALERT_INACTIVE)
			continue;
		a->started_real_ns = add_sat(a->started_real_ns, step);
		if (a->fired_real_ns)
			a->fired_real_ns = add_sat(a->fired_real_ns, step);
	}
}

bool pw_detector_warm(const struct pw_detector *d)
{
	int64_t learned = d->learned_before_ns + (d->first_mono_ns ? d->last_mono_ns - d->first_mono_ns : 0);

	return learned >= d->config.warmup_ns;
}

size_t pw_detector_observe(struct pw_detector *d, const struct pw_sample *s, struct pw_alert_event *events,
                           size_t cap)
{
	struct pw_now now;
	struct pw_alert candidate;
	size_t n = 0;

	if (s->mono_ns <= d->last_mono_ns)
		return 0; /* replayed or out of order: time only moves forward */
	double dt = d->last_mono_ns ? (double)(s->mono_ns - d->last_mono_ns) / NS_PER_S : 0;
	follow_wall_clock(d, s);
	if (!d->first_mono_ns)
		d->first_mono_ns = s->mono_ns;
	d->last_mono_ns = s->mono_ns;
	d->last_real_ns = s->real_ns;
	read_figures(d, s, &now);
	for (int name = 0; name < PW_ALERT_COUNT; name++) {
		enum pw_verdict verdict =
		        d->config.rules[name].enabled
		                ? pw_rule_evaluate(d, (enum pw_alert_name)name, &now, &candidate)
		                : PW_VERDICT_CLEAR;
		step(d, (enum pw_alert_name)name, verdict, &candidate, s, events, cap, &n);
	}
	if (pw_detector_warm(d))
		pw_detector_find_deviations(d, &now);
	else
		d->ndeviations = 0;
	/* Learn after judging: the sample is compared with what came before it. */
	learn(d, &now, dt);
	return n;
}

size_t pw_detector_active(const struct pw_detector *d, struct pw_alert *ret, size_t cap)
{
	size_t n = 0;

	for (int name = 0; name < PW_ALERT_COUNT && n < cap; name++)
		if (d->rules[name].alert.state != PW_ALERT_INACTIVE)
			ret[n++] = d->rules[name].alert;
	return n;
}

struct pw_baseline pw_detector_baseline(const struct pw_detector *d, enum pw_signal signal)
{
	struct pw_baseline none = {0};
	return (unsigned)signal < PW_SIG_COUNT ? d->host[signal] : none;
}

void pw_detector_snapshot(const struct pw_detector *d, struct pw_detector_view *ret)
{
	ret->real_ns = d->last_real_ns;
	ret->warm = pw_detector_warm(d);
	ret->nalerts = (uint32_t)pw_detector_active(d, ret->alerts, PW_ALERT_COUNT);
	memcpy(ret->baselines, d->host, sizeof(ret->baselines));
	memcpy(ret->rules, d->config.rules, sizeof(ret->rules));
	ret->ndeviations = d->ndeviations;
	memcpy(ret->deviations, d->deviations, sizeof(ret->deviations));
	ret->irq_accounting = d->irq_accounting;
}
