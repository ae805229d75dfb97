/* rules_interrupts.c — the interrupt rules: InterruptTimeHigh (handler time that traffic does not
 * explain, or that takes a real part of a CPU) and InterruptRateDrop (a busy host or line whose
 * interrupts collapse). */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- InterruptTimeHigh ----------------------------------------------------------------------- */

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
		uint32_t at =
		        pw_rule_top_slot(ev->cpus, sizeof(ev->cpus[0]), keys, &ev->ncpus, PW_EV_CPUS, irq);
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
		uint32_t at = pw_rule_top_slot(out, sizeof(out[0]), keys, &n, PW_EV_LINES, rate - base);
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
		uint32_t at = pw_rule_top_slot(ev->softirqs, sizeof(ev->softirqs[0]), keys, &ev->nsoftirqs,
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

/* The events of kind k on one CPU before its handler time rose: the short-memory level that stops
 * learning during an excursion, or the last rate before it when higher (a load that began a few
 * seconds earlier is not yet all in the level). A steady load that got dearer adds none. */
static double before_level(const struct pw_detector *d, uint32_t id, int k)
{
	const struct pw_baseline *b = pw_cpu_event_before(d, id, k)->learned_s > 0
	                                      ? pw_cpu_event_before(d, id, k)
	                                      : pw_cpu_event_baseline(d, id, k);
	if (b->learned_s <= 0)
		return 0;
	return b == pw_cpu_event_before(d, id, k) ? fmax(b->mean, *pw_cpu_event_last(d, id, k)) : b->mean;
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
		if (!pw_rule_high(d, &d->cpu_irq[id], irq, rc->threshold, rc->sigmas,
		                  PW_SHARE_SPREAD_FLOOR) ||
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
	    pw_rule_high(d, &d->host[PW_SIG_IRQ], now->host[PW_SIG_IRQ], rc->threshold, rc->sigmas,
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

bool pw_rule_interrupt_time_high(const struct pw_detector *d, const struct pw_now *now,
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
	pw_rule_headline_share_above(a, value, base, rc->critical);
	if (where >= 0)
		snprintf(scope, sizeof(scope), "cpu%d", where);
	else
		snprintf(scope, sizeof(scope), "the host");
	pw_rule_set_scope(a, scope);
	irq_words(a, ev);
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
		if (!b || !pw_baseline_learned(&b->rate, pw_warmup_s(d)) ||
		    b->rate.mean < RATE_DROP_MIN_SHARE * host_mean || !collapsed(&b->rate, lines[i].rate, rc))
			continue;
		if (lines[i].rate / b->rate.mean < worst) {
			worst = lines[i].rate / b->rate.mean;
			found = (int)i;
		}
	}
	return found;
}

bool pw_rule_interrupt_rate_drop(const struct pw_detector *d, const struct pw_now *now,
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
		pw_rule_set_scope(a, "the host");
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
	a->severity = pw_rule_severity_below(rate / b->mean, rc->critical);
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
