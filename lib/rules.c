/* rules.c — the incident rules: each says whether its condition holds on this sample and, if so,
 * explains it in plain words with the figures and the baselines they are compared to. */
#include "detector_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PCT(x) (100.0 * (x))

static void set_text(struct pw_alert *a, const char *scope)
{
	snprintf(a->scope, sizeof(a->scope), "%s", scope);
}

static enum pw_severity severity_above(double value, double critical)
{
	return value >= critical ? PW_SEVERITY_CRITICAL : PW_SEVERITY_WARNING;
}

static enum pw_severity severity_below(double value, double critical)
{
	return value <= critical ? PW_SEVERITY_CRITICAL : PW_SEVERITY_WARNING;
}

/* The headline of a rule on a share of CPU time that rose above its baseline. */
static void headline_share_above(struct pw_alert *a, double value, const struct pw_baseline *b,
                                 double critical)
{
	a->value = value;
	a->baseline = b->mean;
	a->spread = pw_baseline_spread(b, PW_SHARE_SPREAD_FLOOR);
	a->severity = severity_above(value, critical);
}

/* Unusually high against a baseline that has learned through the warmup (a CPU or a source that
 * appeared later is not compared with a few samples), and big enough to matter. */
static bool high(const struct pw_detector *d, const struct pw_baseline *b, double value, double threshold,
                 double sigmas, double floor)
{
	return isfinite(value) && value >= threshold && pw_baseline_learned(b, pw_warmup_s(d)) &&
	       pw_baseline_score(b, value, floor) >= sigmas;
}

/* ---- InterruptTimeHigh ----------------------------------------------------------------------- */

/* Bounded insertion for the evidence lists, which keep the cap entries with the highest keys in
 * descending order. keys[] runs parallel to arr (*n entries of size bytes). Makes room for an entry
 * with key and returns its slot (to fill by the caller), or cap when it does not make the cut. */
static uint32_t top_slot(void *arr, size_t size, float *keys, uint32_t *n, uint32_t cap, float key)
{
	char *a = arr;
	uint32_t at = *n < cap ? (*n)++ : cap;

	for (; at > 0 && keys[at - 1] < key; at--) {
		if (at < cap) {
			memcpy(a + at * size, a + (at - 1) * size, size);
			keys[at] = keys[at - 1];
		}
	}
	if (at < cap)
		keys[at] = key;
	return at;
}

/* CPUs by handler share, highest first. */
static void irq_cpus(const struct pw_detector *d, const struct pw_sample *s, struct pw_ev_interrupt_time *ev,
                     double threshold)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	float keys[PW_EV_CPUS];

	ev->ncpus = 0;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		const float *sh = cpus[id].share;
		float irq = sh[PW_MODE_IRQ] + sh[PW_MODE_SOFTIRQ];
		if (!(cpus[id].derived_valid & PW_DERIVED_SHARES) || irq < threshold / 2)
			continue;
		uint32_t at = top_slot(ev->cpus, sizeof(ev->cpus[0]), keys, &ev->ncpus, PW_EV_CPUS, irq);
		if (at == PW_EV_CPUS)
			continue;
		ev->cpus[at].cpu = id;
		ev->cpus[at].irq = sh[PW_MODE_IRQ];
		ev->cpus[at].softirq = sh[PW_MODE_SOFTIRQ];
		ev->cpus[at].baseline = (float)d->cpu_irq[id].mean;
	}
}

/* Lines whose rate rose most above their baseline. */
static void irq_lines(const struct pw_detector *d, const struct pw_sample *s, struct pw_ev_line *out,
                      uint32_t *ret_n)
{
	const struct pw_line_sample *lines = pw_sample_lines_const(s);
	float keys[PW_EV_LINES];
	uint32_t n = 0;

	for (uint32_t i = 0; i < s->nlines && i < s->line_cap; i++) {
		const struct pw_line_baseline *b = pw_detector_line(d, i, lines[i].line.irq);
		float rate = lines[i].rate, base = b ? (float)b->rate.mean : 0;
		if (!isfinite(rate) || rate <= 0)
			continue;
		uint32_t at = top_slot(out, sizeof(out[0]), keys, &n, PW_EV_LINES, rate - base);
		if (at == PW_EV_LINES)
			continue;
		snprintf(out[at].irq, sizeof(out[at].irq), "%s", lines[i].line.irq);
		snprintf(out[at].device, sizeof(out[at].device), "%s", lines[i].line.device);
		out[at].rate = rate;
		out[at].baseline = base;
	}
	*ret_n = n;
}

static void irq_softirqs(const struct pw_detector *d, const struct pw_sample *s,
                         struct pw_ev_interrupt_time *ev)
{
	float keys[PW_EV_SOFTIRQS];

	ev->nsoftirqs = 0;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		float rate = s->derived.softirq_rate[t], base = (float)d->softirq[t].mean;
		if (!(s->derived.valid & PW_DERIVED_RATES) || !isfinite(rate) || rate <= 0)
			continue;
		uint32_t at = top_slot(ev->softirqs, sizeof(ev->softirqs[0]), keys, &ev->nsoftirqs,
		                       PW_EV_SOFTIRQS, rate - base);
		if (at == PW_EV_SOFTIRQS)
			continue;
		ev->softirqs[at].type = (uint32_t)t;
		ev->softirqs[at].rate = rate;
		ev->softirqs[at].baseline = base;
	}
}

/* Handler time is charged to a kind of event only as far as the kernel counts it: per CPU, its
 * hardware interrupts and each softirq type (no time per kind). A rise in handler time is explained
 * by traffic when the events added over their baselines account for it at a plausible cost each:
 * twice the CPU's learned cost per event, and never less than IRQ_PLAUSIBLE_COST_US, since a change
 * in the mix (disk completions instead of timer ticks, loopback packets with no hardware interrupt)
 * raises the average cost without any handler getting slower. More time than that per added event,
 * or more time at the same events, is a cost rise: a slow driver (incident 1), a costlier path per
 * packet (thousands of netfilter rules). */
#define IRQ_COST_GROWTH 2.0
#define IRQ_PLAUSIBLE_COST_US 100.0
/* Handler time that traffic explains fires only from half a CPU: past that, one CPU serving a queue
 * has less time for everything else than its handlers take, and is on the way to receive livelock;
 * below it the diagnosis names the traffic. */
#define IRQ_TRAFFIC_SHARE 0.5

struct irq_verdict {
	double value;      /* the handler share judged (of the CPU, or of the host) */
	double added_time; /* share of a CPU (host: CPUs) above the baseline */
	double added_events, added_block;
	double cost_us, cost_baseline_us;
	bool traffic;
};

/* Events added on one CPU since before its handler time rose (the short-memory level that stops
 * learning during an excursion: a steady load that got dearer adds none), and how many of them are
 * block completions. */
static double before_level(const struct pw_detector *d, uint32_t id, int k)
{
	const struct pw_baseline *b = pw_cpu_event_before(d, id, k)->learned_s > 0
	                                      ? pw_cpu_event_before(d, id, k)
	                                      : pw_cpu_event_baseline(d, id, k);
	return b->learned_s > 0 ? b->mean : 0;
}

/* Events of kind k added on the whole host since before the excursion: what moved from one CPU to
 * another (a receiver that migrated) adds nothing. */
static double host_added(const struct pw_detector *d, const struct pw_sample *s, int k)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	double now = 0, before = 0;

	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		double rate = pw_cpu_event_rate(&cpus[id], k);
		now += isfinite(rate) ? rate : 0;
		before += before_level(d, id, k);
	}
	return now > before ? now - before : 0;
}

static void cpu_added_events(const struct pw_detector *d, const double host[PW_CPU_EVENT_KINDS], uint32_t id,
                             const struct pw_cpu_sample *c, struct irq_verdict *v)
{
	for (int k = 0; k < PW_CPU_EVENT_KINDS; k++) {
		double rate = pw_cpu_event_rate(c, k);
		if (!isfinite(rate))
			continue;
		double added = fmin(rate - before_level(d, id, k), host[k]);
		if (added <= 0)
			continue;
		v->added_events += added;
		if (k == 1 + PW_SOFTIRQ_BLOCK)
			v->added_block += added;
	}
}

static void host_added_events(const struct pw_detector *d, const struct pw_now *now, struct irq_verdict *v)
{
	const struct pw_host_derived *hd = &now->sample->derived;
	double intr = now->host[PW_SIG_INTR_RATE] - d->host[PW_SIG_INTR_RATE].mean;

	if (isfinite(intr) && intr > 0)
		v->added_events += intr;
	if (!(hd->valid & PW_DERIVED_RATES))
		return;
	for (int t = 0; t < PW_SOFTIRQ_COUNT; t++) {
		double added = hd->softirq_rate[t] - d->softirq[t].mean;
		if (!isfinite(added) || added <= 0)
			continue;
		v->added_events += added;
		if (t == PW_SOFTIRQ_BLOCK)
			v->added_block += added;
	}
}

/* Whether handler time the added events explain, judged as traffic, fires: only when it is large,
 * and never for block completions while the host is I/O- or memory-bound (IoWaitHigh and
 * MemorySwapping carry them). */
static bool traffic_fires(const struct irq_verdict *v, double cpus, bool io_bound)
{
	return v->value * cpus >= IRQ_TRAFFIC_SHARE && !(io_bound && v->added_block > 0);
}

/* Traffic when the added events account for the added time at a plausible cost. (Not "the average
 * cost did not double": with tick-sampled handler time an idle CPU's cost per event is noise, and
 * a live netfilter case at 44 us a packet read as traffic against it.) */
static void classify(struct irq_verdict *v, const struct pw_baseline *cost_base, double cost_us,
                     double warmup_s)
{
	bool learned = pw_baseline_learned(cost_base, warmup_s) && isfinite(cost_base->mean);
	double plausible = fmax(learned ? IRQ_COST_GROWTH * cost_base->mean : 0, IRQ_PLAUSIBLE_COST_US);

	v->cost_us = cost_us;
	v->cost_baseline_us = learned ? cost_base->mean : NAN;
	v->traffic = v->added_time <= v->added_events * plausible * 1e-6;
}

/* The CPU whose handler time is most unusual and significant and not explained away; the host when
 * none is (and per-CPU shares are missing). Returns the CPU id, -1 for the host, -2 when the
 * condition does not hold. */
static int irq_where(const struct pw_detector *d, const struct pw_now *now, const struct pw_rule_config *rc,
                     struct irq_verdict *ret, const struct pw_baseline **ret_base)
{
	const struct pw_sample *s = now->sample;
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	bool io_bound = pw_rule_io_stall_holds(d, now) || pw_rule_memory_holds(d, now);
	bool per_cpu = false;
	int where = -2;
	double host[PW_CPU_EVENT_KINDS];

	/* Once per sample, not per CPU judged: each sum runs over all CPUs. */
	for (int k = 0; k < PW_CPU_EVENT_KINDS; k++)
		host[k] = host_added(d, s, k);

	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		const struct pw_cpu_sample *c = &cpus[id];
		double irq = c->share[PW_MODE_IRQ] + c->share[PW_MODE_SOFTIRQ];
		if (!(c->derived_valid & PW_DERIVED_SHARES))
			continue;
		per_cpu = true;
		if (!high(d, &d->cpu_irq[id], irq, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) ||
		    (where >= -1 && irq <= ret->value))
			continue;
		struct irq_verdict v = {.value = irq, .added_time = irq - d->cpu_irq[id].mean};
		cpu_added_events(d, host, id, c, &v);
		classify(&v, &d->cpu_irq_cost[id], pw_cpu_irq_cost(c), pw_warmup_s(d));
		if (v.traffic && !traffic_fires(&v, 1, io_bound))
			continue;
		*ret = v;
		where = (int)id;
		*ret_base = &d->cpu_irq[id];
	}
	if (where == -2 && !per_cpu &&
	    high(d, &d->host[PW_SIG_IRQ], now->host[PW_SIG_IRQ], rc->threshold, rc->sigmas,
	         PW_SHARE_SPREAD_FLOOR)) {
		double cpus_n = now->online_cpus ? now->online_cpus : 1;
		struct irq_verdict v = {.value = now->host[PW_SIG_IRQ],
		                        .added_time =
		                                (now->host[PW_SIG_IRQ] - d->host[PW_SIG_IRQ].mean) * cpus_n};
		host_added_events(d, now, &v);
		classify(&v, &d->host_irq_cost, pw_host_irq_cost(now), pw_warmup_s(d));
		if (!v.traffic || traffic_fires(&v, cpus_n, io_bound)) {
			*ret = v;
			where = -1;
			*ret_base = &d->host[PW_SIG_IRQ];
		}
	}
	return where;
}

static void irq_words(struct pw_alert *a, const struct pw_ev_interrupt_time *ev)
{
	char top[160] = "", cause[200], estimate[160] = "";

	if (ev->traffic)
		snprintf(cause, sizeof(cause),
		         " The time grew with traffic (%.0f events/s above normal at a plausible cost each), "
		         "but it takes a real part of a CPU.",
		         ev->added_events);
	else if (isfinite(ev->cost_baseline_us))
		snprintf(cause, sizeof(cause),
		         " Each interrupt costs %.1f us of handler time against %.1f us normally: the "
		         "handlers "
		         "got slower, not busier.",
		         ev->cost_us, ev->cost_baseline_us);
	else
		snprintf(cause, sizeof(cause), " More events do not explain it.");
	if (ev->time_estimated)
		snprintf(estimate, sizeof(estimate),
		         " (Estimate: this kernel samples handler time by timer ticks, no "
		         "CONFIG_IRQ_TIME_ACCOUNTING.)");

	if (ev->nsoftirqs > 0 && ev->softirqs[0].rate > ev->softirqs[0].baseline)
		snprintf(top, sizeof(top),
		         " The softirq that grew most is %s: %.0f/s against %.0f/s normally.",
		         pw_softirq_name((enum pw_softirq_type)ev->softirqs[0].type), ev->softirqs[0].rate,
		         ev->softirqs[0].baseline);
	snprintf(a->summary, sizeof(a->summary),
	         "Interrupt handlers take %.1f%% of %s (normally %.1f%%), time no process accounts for",
	         PCT(a->value), a->scope, PCT(a->baseline));
	snprintf(a->description, sizeof(a->description),
	         "Time in hard and soft interrupt handlers on %s is %.1f%% against a baseline of %.1f%% +- "
	         "%.1f%%; "
	         "host-wide hardirq %.1f%%, softirq %.1f%%. The host takes %.0f interrupts/s against %.0f/s "
	         "normally.%s%s This CPU time is charged to no process: look at the drivers behind the "
	         "busiest lines and softirqs in the evidence (power management, NIC, storage).%s",
	         a->scope, PCT(a->value), PCT(a->baseline), PCT(a->spread), PCT(ev->host_irq),
	         PCT(ev->host_softirq), ev->intr_rate, ev->intr_baseline, cause, top, estimate);
}

static bool interrupt_time_high(const struct pw_detector *d, const struct pw_now *now,
                                const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_sample *s = now->sample;
	const struct pw_baseline *base = NULL;
	struct irq_verdict v = {0};
	char scope[32];

	if (!pw_detector_warm(d))
		return false;
	int where = irq_where(d, now, rc, &v, &base);
	if (where == -2)
		return false;
	double value = v.value;
	struct pw_ev_interrupt_time *ev = &a->evidence.interrupt_time;
	memset(ev, 0, sizeof(*ev));
	ev->host_irq = s->derived.share[PW_MODE_IRQ];
	ev->host_softirq = s->derived.share[PW_MODE_SOFTIRQ];
	ev->host_baseline = (float)d->host[PW_SIG_IRQ].mean;
	ev->intr_rate = (float)now->host[PW_SIG_INTR_RATE];
	ev->intr_baseline = (float)d->host[PW_SIG_INTR_RATE].mean;
	irq_cpus(d, s, ev, rc->threshold);
	irq_lines(d, s, ev->lines, &ev->nlines);
	irq_softirqs(d, s, ev);
	ev->cost_us = (float)v.cost_us;
	ev->cost_baseline_us = (float)v.cost_baseline_us;
	ev->added_events = (float)v.added_events;
	ev->traffic = v.traffic;
	ev->time_estimated = now->psi_any && !now->psi_irq;
	headline_share_above(a, value, base, rc->critical);
	if (where >= 0)
		snprintf(scope, sizeof(scope), "cpu%d", where);
	else
		snprintf(scope, sizeof(scope), "the host");
	set_text(a, scope);
	irq_words(a, ev);
	return true;
}

/* ---- CpuFrequencyLow -------------------------------------------------------------------------- */

/* Busy CPUs with an interval-average frequency; their mean ratio (to the reference) and the lowest. */
static void frequency_figures(const struct pw_detector *d, const struct pw_sample *s,
                              struct pw_ev_frequency *ev, double *ret_min_ratio)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	double sum = 0, min = INFINITY;

	memset(ev, 0, sizeof(*ev));
	ev->from_time_in_state = true;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap; id++) {
		const struct pw_cpu_sample *c = &cpus[id];
		bool measured = (c->derived_valid & PW_DERIVED_FREQ) &&
		                (c->derived_valid & PW_DERIVED_SHARES) && c->max_khz > 0 &&
		                isfinite(c->freq_ratio);
		if (!measured || pw_busy_share(c->share) < d->config.busy_share)
			continue; /* an idle CPU at low frequency is the governor doing its job */
		/* In double: the float ratio of 1.7 / 2.0 GHz is 0.85000002, just above a 0.85 threshold. */
		uint32_t reference = pw_cpu_freq_reference(c);
		double ratio = (double)c->avg_khz / reference;
		ratio = ratio > 1.0 ? 1.0 : ratio; /* above the reference (turbo) is full speed, not more */
		sum += ratio;
		min = ratio < min ? ratio : min;
		ev->from_time_in_state &= (c->freq_flags & PW_FREQ_AVG_FROM_STATS) != 0;
		ev->reference_base |= reference != c->max_khz;
		if (ev->busy_cpus++ == 0) {
			snprintf(ev->governor, sizeof(ev->governor), "%s", c->governor);
			snprintf(ev->driver, sizeof(ev->driver), "%s", c->driver);
		}
		if (ev->ncpus < PW_EV_FREQ_CPUS) {
			ev->cpus[ev->ncpus].cpu = id;
			ev->cpus[ev->ncpus].busy = (float)pw_busy_share(c->share);
			ev->cpus[ev->ncpus].avg_khz = c->avg_khz;
			ev->cpus[ev->ncpus].max_khz = c->max_khz;
			ev->cpus[ev->ncpus].base_khz =
			        pw_cpu_freq_reference(c) == c->max_khz ? 0 : c->base_khz;
			ev->ncpus++;
		}
	}
	ev->busy_avg_ratio = ev->busy_cpus ? (float)(sum / ev->busy_cpus) : NAN;
	*ret_min_ratio = min;
}

static bool cpu_frequency_low(const struct pw_detector *d, const struct pw_now *now,
                              const struct pw_rule_config *rc, struct pw_alert *a)
{
	struct pw_ev_frequency *ev = &a->evidence.frequency;
	double min_ratio;

	/* Not a baseline rule: a busy CPU below its maximum is wrong on any host, from the start. */
	frequency_figures(d, now->sample, ev, &min_ratio);
	if (ev->busy_cpus == 0 || min_ratio > rc->threshold)
		return false;
	const char *reference = ev->reference_base ? "base" : "maximum";
	a->value = min_ratio;
	a->baseline = 1.0;
	a->spread = 0;
	a->severity = severity_below(min_ratio, rc->critical);
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary),
	         "%u busy CPU%s run at %.0f%% of their %s frequency on average (lowest %.0f%%, governor "
	         "%s)",
	         ev->busy_cpus, ev->busy_cpus == 1 ? "" : "s", PCT(ev->busy_avg_ratio), reference,
	         PCT(min_ratio), ev->governor[0] ? ev->governor : "unknown");
	snprintf(a->description, sizeof(a->description),
	         "%u CPUs are at least %.0f%% busy, yet over the last interval they averaged %.0f%% of their "
	         "%s frequency (%s), the slowest %.0f%%. Driver %s, governor %s. The %s governor raises "
	         "the "
	         "frequency only past its up_threshold, so a steadily busy CPU can stay below maximum. Users "
	         "fix "
	         "this with the performance governor (cpupower frequency-set -g performance) or a lower "
	         "ondemand up_threshold.",
	         ev->busy_cpus, PCT(d->config.busy_share), PCT(ev->busy_avg_ratio), reference,
	         ev->from_time_in_state ? "average from cpufreq time_in_state"
	                                : "from scaling_cur_freq readings",
	         PCT(min_ratio), ev->driver[0] ? ev->driver : "unknown",
	         ev->governor[0] ? ev->governor : "unknown", ev->governor[0] ? ev->governor : "current");
	return true;
}

/* ---- InterruptRateDrop ------------------------------------------------------------------------ */

/* A baseline worth watching for a collapse: learned through warmup and busy enough. */
#define RATE_DROP_MIN_BASELINE 100.0 /* interrupts per second */
#define RATE_DROP_MIN_SHARE 0.10     /* a line must carry this share of the host's interrupts */

static bool collapsed(const struct pw_baseline *b, double rate, const struct pw_rule_config *rc)
{
	return isfinite(rate) && b->mean >= RATE_DROP_MIN_BASELINE && rate <= rc->threshold * b->mean &&
	       pw_baseline_score(b, rate, pw_rate_spread_floor(b)) <= -rc->sigmas;
}

/* The busy line that collapsed furthest below its baseline, or -1. */
static int dropped_line(const struct pw_detector *d, const struct pw_now *now,
                        const struct pw_rule_config *rc)
{
	const struct pw_sample *s = now->sample;
	const struct pw_line_sample *lines = pw_sample_lines_const(s);
	double host_mean = d->host[PW_SIG_INTR_RATE].mean, worst = 1.0;
	int found = -1;

	for (uint32_t i = 0; i < s->nlines && i < s->line_cap; i++) {
		const struct pw_line_baseline *b = pw_detector_line(d, i, lines[i].line.irq);
		if (!b || !pw_baseline_learned(&b->rate, (double)d->config.warmup_ns / 1e9) ||
		    b->rate.mean < RATE_DROP_MIN_SHARE * host_mean || !collapsed(&b->rate, lines[i].rate, rc))
			continue;
		if (lines[i].rate / b->rate.mean < worst) {
			worst = lines[i].rate / b->rate.mean;
			found = (int)i;
		}
	}
	return found;
}

static bool interrupt_rate_drop(const struct pw_detector *d, const struct pw_now *now,
                                const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_alert *active = &d->rules[PW_ALERT_INTERRUPT_RATE_DROP].alert;
	struct pw_ev_rate_drop *ev = &a->evidence.rate_drop;
	const struct pw_baseline *b = &d->host[PW_SIG_INTR_RATE];
	double rate = now->host[PW_SIG_INTR_RATE];
	int line = -1;

	if (!pw_detector_warm(d))
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->host = collapsed(b, rate, rc);
	if (!ev->host && (line = dropped_line(d, now, rc)) < 0)
		return false;
	if (ev->host) {
		snprintf(ev->line.irq, sizeof(ev->line.irq), "all");
		snprintf(ev->line.device, sizeof(ev->line.device), "all interrupt lines");
		set_text(a, "the host");
	} else {
		const struct pw_line_sample *l = &pw_sample_lines_const(now->sample)[line];
		b = &pw_detector_line(d, (uint32_t)line, l->line.irq)->rate;
		rate = l->rate;
		snprintf(ev->line.irq, sizeof(ev->line.irq), "%s", l->line.irq);
		snprintf(ev->line.device, sizeof(ev->line.device), "%s", l->line.device);
		snprintf(a->scope, sizeof(a->scope), "irq %.8s (%.24s)", l->line.irq, l->line.device);
	}
	ev->line.rate = (float)rate;
	ev->line.baseline = (float)b->mean;
	ev->baseline_spread = (float)pw_baseline_spread(b, pw_rate_spread_floor(b));
	bool ongoing = active->state != PW_ALERT_INACTIVE;
	ev->min_rate = ongoing && active->evidence.rate_drop.min_rate < rate
	                       ? active->evidence.rate_drop.min_rate
	                       : (float)rate;
	ev->started_real_ns = ongoing ? active->started_real_ns : now->sample->real_ns;
	a->value = rate;
	a->baseline = b->mean;
	a->spread = ev->baseline_spread;
	a->severity = severity_below(rate / b->mean, rc->critical);
	snprintf(a->summary, sizeof(a->summary), "Interrupts on %s collapsed to %.0f/s from %.0f/s normally",
	         a->scope, rate, b->mean);
	snprintf(
	        a->description, sizeof(a->description),
	        "The interrupt rate of %s fell to %.0f/s (%.0f%% of its baseline %.0f/s +- %.0f/s); the "
	        "lowest "
	        "since the drop began was %.0f/s. A device that stops interrupting stalls whatever it serves "
	        "(a NIC pausing for seconds stalls the network); a 15-60 s scrape averages such a pause "
	        "away, "
	        "1 s sampling does not.",
	        a->scope, rate, PCT(rate / b->mean), b->mean, a->spread, ev->min_rate);
	return true;
}

/* ---- MemorySwapping and IoWaitHigh ------------------------------------------------------------ */

static uint64_t mem_kb(const struct pw_sample *s, enum pw_meminfo_field f)
{
	return pw_sample_has(s, PW_SRC_MEMINFO) && (s->meminfo.present >> f & 1u) ? s->meminfo.kb[f] : 0;
}

static uint32_t psi_some(const struct pw_sample *s, enum pw_psi_resource r)
{
	return (s->psi_present >> r & 1u) && s->psi[r].some.present ? s->psi[r].some.avg10 : UINT32_MAX;
}

static void memory_evidence(const struct pw_detector *d, const struct pw_now *now, struct pw_ev_memory *ev)
{
	const struct pw_sample *s = now->sample;
	const float *vm = s->derived.vm_rate;

	memset(ev, 0, sizeof(*ev));
	ev->swap_in = (float)now->host[PW_SIG_SWAP_IN];
	ev->swap_out = (float)now->host[PW_SIG_SWAP_OUT];
	ev->swap_in_baseline = (float)d->host[PW_SIG_SWAP_IN].mean;
	ev->swap_out_baseline = (float)d->host[PW_SIG_SWAP_OUT].mean;
	ev->major_faults = (float)now->host[PW_SIG_MAJOR_FAULTS];
	ev->major_faults_baseline = (float)d->host[PW_SIG_MAJOR_FAULTS].mean;
	/* Before 5.9 one counter; since, anon and file separately. */
	ev->refaults =
	        isfinite(vm[PW_VM_WORKINGSET_REFAULT])
	                ? vm[PW_VM_WORKINGSET_REFAULT]
	                : (isfinite(vm[PW_VM_WORKINGSET_REFAULT_FILE]) ? vm[PW_VM_WORKINGSET_REFAULT_FILE]
	                                                               : 0) +
	                          (isfinite(vm[PW_VM_WORKINGSET_REFAULT_ANON])
	                                   ? vm[PW_VM_WORKINGSET_REFAULT_ANON]
	                                   : 0);
	ev->iowait = (float)now->host[PW_SIG_IOWAIT];
	ev->iowait_baseline = (float)d->host[PW_SIG_IOWAIT].mean;
	ev->mem_total_kb = mem_kb(s, PW_MEM_TOTAL);
	ev->mem_available_kb = mem_kb(s, PW_MEM_AVAILABLE);
	ev->mem_free_kb = mem_kb(s, PW_MEM_FREE);
	ev->cached_kb = mem_kb(s, PW_MEM_CACHED);
	ev->swap_total_kb = mem_kb(s, PW_MEM_SWAP_TOTAL);
	ev->swap_free_kb = mem_kb(s, PW_MEM_SWAP_FREE);
	ev->psi_memory_some = psi_some(s, PW_PSI_MEMORY);
	ev->psi_io_some = psi_some(s, PW_PSI_IO);
	ev->psi_memory_stall = (float)now->host[PW_SIG_PSI_MEMORY];
	ev->psi_io_stall = (float)now->host[PW_SIG_PSI_IO];
	ev->psi_memory_baseline = (float)d->host[PW_SIG_PSI_MEMORY].mean;
	ev->psi_io_baseline = (float)d->host[PW_SIG_PSI_IO].mean;
	ev->procs_blocked = (uint32_t)s->stat.procs_blocked;
}

static void memory_words(struct pw_alert *a, const struct pw_ev_memory *ev, const char *lead)
{
	snprintf(a->description, sizeof(a->description),
	         "%s Swap-out %.1f pages/s (normally %.1f), swap-in %.1f/s (normally %.1f), major faults "
	         "%.0f/s "
	         "(normally %.0f), page-cache refaults %.0f/s; iowait %.1f%% of CPU time (normally %.1f%%), "
	         "%u "
	         "tasks blocked on I/O. Memory available %.0f of %.0f MiB, page cache %.0f MiB, swap free "
	         "%.0f of "
	         "%.0f MiB. Memory shortage drives paging, paging drives disk I/O: fix memory first (who "
	         "grew, "
	         "what to move), the cache later.",
	         lead, ev->swap_out, ev->swap_out_baseline, ev->swap_in, ev->swap_in_baseline,
	         ev->major_faults, ev->major_faults_baseline, ev->refaults, PCT(ev->iowait),
	         PCT(ev->iowait_baseline), ev->procs_blocked, ev->mem_available_kb / 1024.0,
	         ev->mem_total_kb / 1024.0, ev->cached_kb / 1024.0, ev->swap_free_kb / 1024.0,
	         ev->swap_total_kb / 1024.0);
}

/* PSI (percent of the interval some task stalled) judged beside the CPU-time figures: iowait counts
 * only idle CPUs, so a busy host (a niced batch job on every CPU) hides a stalled disk from it; PSI
 * io does not. PSI memory shows reclaim and refault stalls that the swap counters miss. */
/* PSI counts a task's waiting, iowait a CPU's idling: one task stalled 20% of the time is 10% iowait
 * on 2 CPUs and 1.25% on 16, so the PSI gate sits at the task's 10%. */
#define PSI_IO_THRESHOLD 10.0 /* percent: some task waited on I/O a tenth of the interval */
#define PSI_IO_CRITICAL 50.0
#define PSI_MEMORY_THRESHOLD 10.0 /* percent: a task waited on memory a tenth of the time */
#define PSI_MEMORY_CRITICAL 40.0
#define PSI_SPREAD_FLOOR 1.0
#define PSI_STALL_GROWTH 2.0

/* Past the threshold, far above normal, and at least twice the normal stall: a host whose disk
 * work normally keeps tasks waiting a quarter of the time is not stalled at 40%. */
static bool psi_high(const struct pw_detector *d, const struct pw_now *now, enum pw_signal sig,
                     double threshold, double sigmas)
{
	const struct pw_baseline *b = &d->host[sig];

	return high(d, b, now->host[sig], threshold, sigmas, PSI_SPREAD_FLOOR) &&
	       now->host[sig] >= PSI_STALL_GROWTH * b->mean;
}

struct memory_verdict {
	bool out, in, psi;
};

static struct memory_verdict memory_judge(const struct pw_detector *d, const struct pw_now *now,
                                          const struct pw_rule_config *rc)
{
	const double *h = now->host;
	const struct pw_baseline *out = &d->host[PW_SIG_SWAP_OUT], *in = &d->host[PW_SIG_SWAP_IN];
	struct memory_verdict v = {0};

	if (!pw_detector_warm(d))
		return v;
	v.out = high(d, out, h[PW_SIG_SWAP_OUT], rc->threshold, rc->sigmas, pw_rate_spread_floor(out) / 2);
	v.in = high(d, in, h[PW_SIG_SWAP_IN], rc->threshold, rc->sigmas, pw_rate_spread_floor(in) / 2);
	v.psi = psi_high(d, now, PW_SIG_PSI_MEMORY, PSI_MEMORY_THRESHOLD, rc->sigmas);
	return v;
}

bool pw_rule_memory_holds(const struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_rule_config *rc = &d->config.rules[PW_ALERT_MEMORY_SWAPPING];
	struct memory_verdict v = memory_judge(d, now, rc);

	return rc->enabled && (v.out || v.in || v.psi);
}

static bool memory_swapping(const struct pw_detector *d, const struct pw_now *now,
                            const struct pw_rule_config *rc, struct pw_alert *a)
{
	const double *h = now->host;
	const struct pw_baseline *out = &d->host[PW_SIG_SWAP_OUT], *in = &d->host[PW_SIG_SWAP_IN];
	struct memory_verdict v = memory_judge(d, now, rc);
	const struct pw_ev_memory *ev = &a->evidence.memory;

	if (!v.out && !v.in && !v.psi)
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	set_text(a, "the host");
	if (v.out || v.in) {
		a->value = v.out ? h[PW_SIG_SWAP_OUT] : h[PW_SIG_SWAP_IN];
		a->baseline = v.out ? out->mean : in->mean;
		a->spread = pw_baseline_spread(v.out ? out : in, pw_rate_spread_floor(v.out ? out : in) / 2);
		a->severity = severity_above(h[PW_SIG_SWAP_OUT] + h[PW_SIG_SWAP_IN], rc->critical);
		snprintf(a->summary, sizeof(a->summary),
		         "The host is swapping: %.1f pages/s out, %.1f/s in (normally %.1f, %.1f)",
		         ev->swap_out, ev->swap_in, out->mean, in->mean);
	} else {
		const struct pw_baseline *b = &d->host[PW_SIG_PSI_MEMORY];
		a->value = h[PW_SIG_PSI_MEMORY];
		a->baseline = b->mean;
		a->spread = pw_baseline_spread(b, PSI_SPREAD_FLOOR);
		a->severity = severity_above(a->value, PSI_MEMORY_CRITICAL);
		snprintf(a->summary, sizeof(a->summary),
		         "Tasks stall on memory %.0f%% of the time (normally %.1f%%): reclaim and refaults",
		         a->value, b->mean);
	}
	memory_words(a, ev,
	             "Pages are moving between memory and swap, or tasks wait for memory to be reclaimed.");
	return true;
}

struct io_verdict {
	bool iowait, psi;
};

static struct io_verdict io_judge(const struct pw_detector *d, const struct pw_now *now,
                                  const struct pw_rule_config *rc)
{
	struct io_verdict v = {0};

	if (!pw_detector_warm(d))
		return v;
	v.iowait = high(d, &d->host[PW_SIG_IOWAIT], now->host[PW_SIG_IOWAIT], rc->threshold, rc->sigmas,
	                PW_SHARE_SPREAD_FLOOR);
	v.psi = psi_high(d, now, PW_SIG_PSI_IO, PSI_IO_THRESHOLD, rc->sigmas);
	return v;
}

bool pw_rule_io_stall_holds(const struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_rule_config *rc = &d->config.rules[PW_ALERT_IOWAIT_HIGH];
	struct io_verdict v = io_judge(d, now, rc);

	return rc->enabled && (v.iowait || v.psi);
}

static bool iowait_high(const struct pw_detector *d, const struct pw_now *now,
                        const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_baseline *b = &d->host[PW_SIG_IOWAIT], *pb = &d->host[PW_SIG_PSI_IO];
	double value = now->host[PW_SIG_IOWAIT], psi = now->host[PW_SIG_PSI_IO];
	struct io_verdict v = io_judge(d, now, rc);
	char lead[240];

	if (!v.iowait && !v.psi)
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	set_text(a, "the host");
	if (v.iowait) {
		headline_share_above(a, value, b, rc->critical);
		if (v.psi && psi >= PSI_IO_CRITICAL)
			a->severity = PW_SEVERITY_CRITICAL;
		snprintf(a->summary, sizeof(a->summary),
		         "CPUs wait on I/O %.1f%% of the time (normally %.1f%%)", PCT(value), PCT(b->mean));
	} else {
		a->value = psi;
		a->baseline = pb->mean;
		a->spread = pw_baseline_spread(pb, PSI_SPREAD_FLOOR);
		a->severity = severity_above(psi, PSI_IO_CRITICAL);
		snprintf(a->summary, sizeof(a->summary),
		         "Tasks stall on I/O %.0f%% of the time (normally %.1f%%); busy CPUs hide it from "
		         "iowait (%.1f%%)",
		         psi, pb->mean, PCT(value));
	}
	snprintf(lead, sizeof(lead),
	         "Some task waited for I/O %.0f%% of the last interval (PSI io, normally %.1f%%); CPUs sat "
	         "idle waiting for I/O %.1f%% of the time against %.1f%% (iowait counts only idle CPUs).",
	         isfinite(psi) ? psi : 0.0, pb->mean, PCT(value), PCT(b->mean));
	memory_words(a, &a->evidence.memory, lead);
	return true;
}

/* ---- SystemTimeHigh --------------------------------------------------------------------------- */

/* The pathology is the kernel eating CPUs: a syscall storm, lock contention. What it is not: system
 * time that rises in step with user time (a traffic surge: the kernel a steady fraction of the
 * work), or a kernel-heavy workload the baseline learned. So a CPU counts when its system time is
 * far above that CPU's baseline AND the kernel's share of its busy time, sys / (sys + user), is
 * above what this host's work normally has: past KERNEL_MIX_RISE over the learned mix, and at
 * least half (with no busy baseline, an idle host's mix says nothing). Incident 5's signature,
 * system time 3x user time on half the CPUs, only makes it critical. */
#define KERNEL_MIX_MIN 0.5
#define KERNEL_MIX_RISE 0.15
#define KERNEL_MIX_MAX 0.95
#define BUSY_BASELINE_MIN 0.10 /* user + system share from which the host's mix is learned */
#define SYSTEM_MIN_CPUS 0.5    /* kernel time on such CPUs must add up to half a CPU */
#define SYSTEM_DOMINANCE 3.0   /* the write-up's signature */

static double kernel_mix(double sys, double user)
{
	return sys + user > 0 ? sys / (sys + user) : 0;
}

static double kernel_mix_required(const struct pw_detector *d)
{
	double sys = d->host[PW_SIG_SYSTEM].mean, user = d->host[PW_SIG_USER].mean;

	if (!(sys + user >= BUSY_BASELINE_MIN))
		return KERNEL_MIX_MIN;
	return fmin(KERNEL_MIX_MAX, fmax(KERNEL_MIX_MIN, kernel_mix(sys, user) + KERNEL_MIX_RISE));
}

struct system_verdict {
	double cpus_in_kernel; /* system time on the CPUs that count, in CPUs */
	uint32_t counted, signature;
};

/* CPUs where the kernel took over, busiest first. */
static struct system_verdict system_cpus(const struct pw_detector *d, const struct pw_sample *s,
                                         const struct pw_rule_config *rc, double mix_required,
                                         struct pw_ev_system_time *ev)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	float keys[PW_EV_CPUS];
	struct system_verdict v = {0};

	ev->ncpus = 0;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		const float *sh = cpus[id].share;
		double sys = sh[PW_MODE_SYSTEM], user = sh[PW_MODE_USER] + sh[PW_MODE_NICE];
		if (!(cpus[id].derived_valid & PW_DERIVED_SHARES))
			continue;
		v.signature += sys >= rc->threshold && sys >= SYSTEM_DOMINANCE * user;
		if (!high(d, &d->cpu_system[id], sys, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) ||
		    kernel_mix(sys, user) < mix_required)
			continue;
		v.counted++;
		v.cpus_in_kernel += sys;
		uint32_t at =
		        top_slot(ev->cpus, sizeof(ev->cpus[0]), keys, &ev->ncpus, PW_EV_CPUS, (float)sys);
		if (at == PW_EV_CPUS)
			continue;
		ev->cpus[at].cpu = id;
		ev->cpus[at].system = (float)sys;
		ev->cpus[at].user = (float)user;
	}
	return v;
}

static bool system_time_high(const struct pw_detector *d, const struct pw_now *now,
                             const struct pw_rule_config *rc, struct pw_alert *a)
{
	const double *h = now->host;
	const struct pw_baseline *b = &d->host[PW_SIG_SYSTEM];
	struct pw_ev_system_time *ev = &a->evidence.system_time;
	double mix_required = kernel_mix_required(d);
	double online = now->online_cpus ? now->online_cpus : 1;

	if (!pw_detector_warm(d))
		return false;
	memset(ev, 0, sizeof(*ev));
	struct system_verdict v = system_cpus(d, now->sample, rc, mix_required, ev);
	/* Host-wide too: contention spread thinly over many CPUs, or no per-CPU figures. */
	bool host = high(d, b, h[PW_SIG_SYSTEM], rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) &&
	            kernel_mix(h[PW_SIG_SYSTEM], h[PW_SIG_USER]) >= mix_required;
	double in_kernel = fmax(v.cpus_in_kernel, host ? h[PW_SIG_SYSTEM] * online : 0);
	/* Page reclaim is kernel time too: while the host is short of memory, MemorySwapping says so. */
	if (in_kernel < SYSTEM_MIN_CPUS || pw_rule_memory_holds(d, now))
		return false;
	ev->kernel_mix_required = (float)mix_required;
	ev->host_system = (float)h[PW_SIG_SYSTEM];
	ev->host_user = (float)h[PW_SIG_USER];
	ev->system_baseline = (float)b->mean;
	ev->ctxt_rate = (float)h[PW_SIG_CTXT_RATE];
	ev->ctxt_baseline = (float)d->host[PW_SIG_CTXT_RATE].mean;
	ev->run_queue = (float)h[PW_SIG_RUN_QUEUE];
	ev->run_queue_baseline = (float)d->host[PW_SIG_RUN_QUEUE].mean;
	headline_share_above(a, h[PW_SIG_SYSTEM], b, rc->critical);
	if (v.signature * 2 >= now->online_cpus && v.signature > 0)
		a->severity = PW_SEVERITY_CRITICAL;
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary),
	         "Kernel time is %.0f%% of the CPUs against %.1f%% user time (normally %.0f%% system)",
	         PCT(a->value), PCT(ev->host_user), PCT(b->mean));
	snprintf(a->description, sizeof(a->description),
	         "System time is %.1f%% of all CPU time (baseline %.1f%% +- %.1f%%) while user time is "
	         "%.1f%%; on %u of %u CPUs the kernel took at least %.0f%% of the busy time, %.2f CPUs in "
	         "all, far above normal. Context switches %.0f/s (normally %.0f), run queue %.1f (normally "
	         "%.1f). Kernel time that outgrows the work it serves points at a syscall storm or lock "
	         "contention: find the processes with the most system time and what they call.",
	         PCT(a->value), PCT(b->mean), PCT(a->spread), PCT(ev->host_user), v.counted, now->online_cpus,
	         PCT(mix_required), in_kernel, ev->ctxt_rate, ev->ctxt_baseline, ev->run_queue,
	         ev->run_queue_baseline);
	return true;
}

/* ---- StealHigh -------------------------------------------------------------------------------- */

static bool steal_high(const struct pw_detector *d, const struct pw_now *now, const struct pw_rule_config *rc,
                       struct pw_alert *a)
{
	const struct pw_baseline *b = &d->host[PW_SIG_STEAL];
	double value = now->host[PW_SIG_STEAL];

	if (!pw_detector_warm(d) || !high(d, b, value, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR))
		return false;
	a->evidence.steal.host_steal = (float)value;
	a->evidence.steal.steal_baseline = (float)b->mean;
	headline_share_above(a, value, b, rc->critical);
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary), "The hypervisor takes %.1f%% of CPU time (normally %.1f%%)",
	         PCT(value), PCT(b->mean));
	snprintf(
	        a->description, sizeof(a->description),
	        "Steal time, CPU time this virtual machine was ready to use but the hypervisor gave to "
	        "others, is "
	        "%.1f%% against %.1f%% +- %.1f%%. Nothing inside the guest explains or fixes it: the host is "
	        "overcommitted or a neighbour is busy.",
	        PCT(value), PCT(b->mean), PCT(a->spread));
	return true;
}

/* Whether the rule's figures exist in this sample at all (a source down, a reset, the first sample). */
static bool inputs_known(const struct pw_detector *d, enum pw_alert_name name, const struct pw_now *now)
{
	const double *h = now->host;

	(void)d;
	switch (name) {
	case PW_ALERT_INTERRUPT_TIME_HIGH:
		return isfinite(h[PW_SIG_IRQ]);
	case PW_ALERT_CPU_FREQUENCY_LOW:
		return (now->sample->derived.valid & PW_DERIVED_SHARES) != 0;
	case PW_ALERT_INTERRUPT_RATE_DROP:
		return isfinite(h[PW_SIG_INTR_RATE]);
	case PW_ALERT_MEMORY_SWAPPING:
		return isfinite(h[PW_SIG_SWAP_OUT]) || isfinite(h[PW_SIG_SWAP_IN]);
	case PW_ALERT_IOWAIT_HIGH:
		return isfinite(h[PW_SIG_IOWAIT]);
	case PW_ALERT_SYSTEM_TIME_HIGH:
		return isfinite(h[PW_SIG_SYSTEM]);
	case PW_ALERT_STEAL_HIGH:
		return isfinite(h[PW_SIG_STEAL]);
	case PW_ALERT_COUNT:
		break;
	}
	return false;
}

enum pw_verdict pw_rule_evaluate(const struct pw_detector *d, enum pw_alert_name name,
                                 const struct pw_now *now, struct pw_alert *a)
{
	typedef bool (*rule_fn)(const struct pw_detector *, const struct pw_now *,
	                        const struct pw_rule_config *, struct pw_alert *);
	static const rule_fn rules[PW_ALERT_COUNT] = {
	        [PW_ALERT_INTERRUPT_TIME_HIGH] = interrupt_time_high,
	        [PW_ALERT_CPU_FREQUENCY_LOW] = cpu_frequency_low,
	        [PW_ALERT_INTERRUPT_RATE_DROP] = interrupt_rate_drop,
	        [PW_ALERT_MEMORY_SWAPPING] = memory_swapping,
	        [PW_ALERT_IOWAIT_HIGH] = iowait_high,
	        [PW_ALERT_SYSTEM_TIME_HIGH] = system_time_high,
	        [PW_ALERT_STEAL_HIGH] = steal_high,
	};

	if (!inputs_known(d, name, now))
		return PW_VERDICT_UNKNOWN;
	memset(a, 0, sizeof(*a));
	a->name = name;
	return rules[name](d, now, &d->config.rules[name], a) ? PW_VERDICT_HOLDS : PW_VERDICT_CLEAR;
}
