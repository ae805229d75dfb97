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

/* Handler time not explained by more events: the time per event grew well past its baseline
 * (a NIC that got busier raises the time and the count together; a slow driver only the time). With
 * the event rates unknown, the shares alone decide. */
#define IRQ_COST_GROWTH 2.0

static bool unexplained(const struct pw_detector *d, const struct pw_baseline *cost_base, double cost)
{
	if (!isfinite(cost) || !pw_baseline_learned(cost_base, pw_warmup_s(d)))
		return true;
	return cost >= IRQ_COST_GROWTH * cost_base->mean;
}

/* The CPU whose handler time is most unusual and significant; host when none is. Returns the CPU
 * id, -1 for the host, -2 when the condition does not hold. */
static int irq_where(const struct pw_detector *d, const struct pw_now *now, const struct pw_rule_config *rc,
                     double *ret_value, const struct pw_baseline **ret_base)
{
	const struct pw_sample *s = now->sample;
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	int where = -2;
	double best = 0;

	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap && id < d->cpu_cap; id++) {
		double irq = cpus[id].share[PW_MODE_IRQ] + cpus[id].share[PW_MODE_SOFTIRQ];
		if ((cpus[id].derived_valid & PW_DERIVED_SHARES) &&
		    high(d, &d->cpu_irq[id], irq, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) &&
		    unexplained(d, &d->cpu_irq_cost[id], pw_cpu_irq_cost(&cpus[id])) && irq > best) {
			best = irq;
			where = (int)id;
			*ret_base = &d->cpu_irq[id];
		}
	}
	if (where == -2 &&
	    high(d, &d->host[PW_SIG_IRQ], now->host[PW_SIG_IRQ], rc->threshold, rc->sigmas,
	         PW_SHARE_SPREAD_FLOOR) &&
	    unexplained(d, &d->host_irq_cost, pw_host_irq_cost(now))) {
		best = now->host[PW_SIG_IRQ];
		where = -1;
		*ret_base = &d->host[PW_SIG_IRQ];
	}
	*ret_value = best;
	return where;
}

static void irq_words(struct pw_alert *a, const struct pw_ev_interrupt_time *ev)
{
	char top[160] = "";

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
	         "normally, so look at the time per interrupt, not the count.%s This CPU time is charged to "
	         "no "
	         "process: look at the drivers behind the busiest lines and softirqs in the evidence "
	         "(power management, NIC, storage).",
	         a->scope, PCT(a->value), PCT(a->baseline), PCT(a->spread), PCT(ev->host_irq),
	         PCT(ev->host_softirq), ev->intr_rate, ev->intr_baseline, top);
}

static bool interrupt_time_high(const struct pw_detector *d, const struct pw_now *now,
                                const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_sample *s = now->sample;
	const struct pw_baseline *base = NULL;
	double value;
	char scope[32];

	if (!pw_detector_warm(d))
		return false;
	int where = irq_where(d, now, rc, &value, &base);
	if (where == -2)
		return false;
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

static double cpu_busy(const struct pw_cpu_sample *cpu)
{
	return 1.0 - cpu->share[PW_MODE_IDLE] - cpu->share[PW_MODE_IOWAIT];
}

/* What "full speed" is for a CPU: intel_pstate's cpuinfo_max_freq is the single-core turbo, which
 * a busy host at all-core turbo never reaches, so its base_frequency (guaranteed on every core) is
 * the reference when it exists; elsewhere the maximum. */
static uint32_t freq_reference(const struct pw_cpu_sample *c)
{
	return c->base_khz > 0 && c->base_khz < c->max_khz ? c->base_khz : c->max_khz;
}

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
		if (!measured || cpu_busy(c) < d->config.busy_share)
			continue; /* an idle CPU at low frequency is the governor doing its job */
		/* In double: the float ratio of 1.7 / 2.0 GHz is 0.85000002, just above a 0.85 threshold. */
		double ratio = (double)c->avg_khz / freq_reference(c);
		ratio = ratio > 1.0 ? 1.0 : ratio; /* above the reference (turbo) is full speed, not more */
		sum += ratio;
		min = ratio < min ? ratio : min;
		ev->from_time_in_state &= (c->freq_flags & PW_FREQ_AVG_FROM_STATS) != 0;
		ev->reference_base |= freq_reference(c) != c->max_khz;
		if (ev->busy_cpus++ == 0) {
			snprintf(ev->governor, sizeof(ev->governor), "%s", c->governor);
			snprintf(ev->driver, sizeof(ev->driver), "%s", c->driver);
		}
		if (ev->ncpus < PW_EV_FREQ_CPUS) {
			ev->cpus[ev->ncpus].cpu = id;
			ev->cpus[ev->ncpus].busy = (float)cpu_busy(c);
			ev->cpus[ev->ncpus].avg_khz = c->avg_khz;
			ev->cpus[ev->ncpus].max_khz = c->max_khz;
			ev->cpus[ev->ncpus].base_khz = freq_reference(c) == c->max_khz ? 0 : c->base_khz;
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

static bool memory_swapping(const struct pw_detector *d, const struct pw_now *now,
                            const struct pw_rule_config *rc, struct pw_alert *a)
{
	const double *h = now->host;
	const struct pw_baseline *out = &d->host[PW_SIG_SWAP_OUT], *in = &d->host[PW_SIG_SWAP_IN];
	bool swapping_out =
	        high(d, out, h[PW_SIG_SWAP_OUT], rc->threshold, rc->sigmas, pw_rate_spread_floor(out) / 2);
	bool swapping_in =
	        high(d, in, h[PW_SIG_SWAP_IN], rc->threshold, rc->sigmas, pw_rate_spread_floor(in) / 2);

	if (!pw_detector_warm(d) || (!swapping_out && !swapping_in))
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	a->value = swapping_out ? h[PW_SIG_SWAP_OUT] : h[PW_SIG_SWAP_IN];
	a->baseline = swapping_out ? out->mean : in->mean;
	a->spread = pw_baseline_spread(swapping_out ? out : in,
	                               pw_rate_spread_floor(swapping_out ? out : in) / 2);
	a->severity = severity_above(h[PW_SIG_SWAP_OUT] + h[PW_SIG_SWAP_IN], rc->critical);
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary),
	         "The host is swapping: %.1f pages/s out, %.1f/s in (normally %.1f, %.1f)",
	         a->evidence.memory.swap_out, a->evidence.memory.swap_in, out->mean, in->mean);
	memory_words(a, &a->evidence.memory, "Pages are moving between memory and swap.");
	return true;
}

static bool iowait_high(const struct pw_detector *d, const struct pw_now *now,
                        const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_baseline *b = &d->host[PW_SIG_IOWAIT];
	double value = now->host[PW_SIG_IOWAIT];
	char lead[160];

	if (!pw_detector_warm(d) || !high(d, b, value, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR))
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	headline_share_above(a, value, b, rc->critical);
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary), "CPUs wait on I/O %.1f%% of the time (normally %.1f%%)",
	         PCT(value), PCT(b->mean));
	snprintf(lead, sizeof(lead),
	         "CPUs sit idle waiting for I/O %.1f%% of the time against %.1f%% +- %.1f%%.", PCT(value),
	         PCT(b->mean), PCT(a->spread));
	memory_words(a, &a->evidence.memory, lead);
	return true;
}

/* ---- SystemTimeHigh --------------------------------------------------------------------------- */

/* Kernel time dominates user time when it is at least this many times larger. */
#define SYSTEM_DOMINANCE 3.0

/* CPUs where system time dominates, busiest first; returns how many there are in all. */
static uint32_t system_cpus(const struct pw_sample *s, double threshold, struct pw_ev_system_time *ev)
{
	const struct pw_cpu_sample *cpus = pw_sample_cpus_const(s);
	float keys[PW_EV_CPUS];
	uint32_t count = 0;

	ev->ncpus = 0;
	for (uint32_t id = 0; id < s->ncpu && id < s->cpu_cap; id++) {
		const float *sh = cpus[id].share;
		float sys = sh[PW_MODE_SYSTEM], user = sh[PW_MODE_USER] + sh[PW_MODE_NICE];
		if (!(cpus[id].derived_valid & PW_DERIVED_SHARES) || sys < threshold ||
		    sys < SYSTEM_DOMINANCE * user)
			continue;
		count++;
		uint32_t at = top_slot(ev->cpus, sizeof(ev->cpus[0]), keys, &ev->ncpus, PW_EV_CPUS, sys);
		if (at == PW_EV_CPUS)
			continue;
		ev->cpus[at].cpu = id;
		ev->cpus[at].system = sys;
		ev->cpus[at].user = user;
	}
	return count;
}

static bool system_time_high(const struct pw_detector *d, const struct pw_now *now,
                             const struct pw_rule_config *rc, struct pw_alert *a)
{
	const double *h = now->host;
	const struct pw_baseline *b = &d->host[PW_SIG_SYSTEM];
	struct pw_ev_system_time *ev = &a->evidence.system_time;

	if (!pw_detector_warm(d) ||
	    !high(d, b, h[PW_SIG_SYSTEM], rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) ||
	    h[PW_SIG_SYSTEM] < SYSTEM_DOMINANCE * h[PW_SIG_USER])
		return false;
	memset(ev, 0, sizeof(*ev));
	/* Across CPUs: one CPU stuck in the kernel is not lock contention. */
	uint32_t dominated = system_cpus(now->sample, rc->threshold, ev);
	if (dominated * 2 < now->online_cpus && now->online_cpus > 1)
		return false;
	ev->host_system = (float)h[PW_SIG_SYSTEM];
	ev->host_user = (float)h[PW_SIG_USER];
	ev->system_baseline = (float)b->mean;
	ev->ctxt_rate = (float)h[PW_SIG_CTXT_RATE];
	ev->ctxt_baseline = (float)d->host[PW_SIG_CTXT_RATE].mean;
	ev->run_queue = (float)h[PW_SIG_RUN_QUEUE];
	ev->run_queue_baseline = (float)d->host[PW_SIG_RUN_QUEUE].mean;
	headline_share_above(a, h[PW_SIG_SYSTEM], b, rc->critical);
	set_text(a, "the host");
	snprintf(a->summary, sizeof(a->summary),
	         "Kernel time is %.0f%% of the CPUs against %.1f%% user time (normally %.0f%% system)",
	         PCT(a->value), PCT(ev->host_user), PCT(b->mean));
	snprintf(a->description, sizeof(a->description),
	         "System time is %.1f%% of all CPU time (baseline %.1f%% +- %.1f%%) while user time is "
	         "%.1f%%, on "
	         "%u of %u CPUs. Context switches %.0f/s (normally %.0f), run queue %.1f (normally %.1f). "
	         "Kernel "
	         "time that dwarfs user time across many CPUs points at lock contention or a syscall storm: "
	         "find "
	         "the processes with the most system time and what they call.",
	         PCT(a->value), PCT(b->mean), PCT(a->spread), PCT(ev->host_user), dominated, now->online_cpus,
	         ev->ctxt_rate, ev->ctxt_baseline, ev->run_queue, ev->run_queue_baseline);
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
