/* rules_cpu.c — the rules on how CPU time is spent: CpuFrequencyLow (busy CPUs held below their
 * speed), SystemTimeHigh (the kernel eating CPUs) and StealHigh (the hypervisor taking them). */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

bool pw_rule_cpu_frequency_low(const struct pw_detector *d, const struct pw_now *now,
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
	a->severity = pw_rule_severity_below(min_ratio, rc->critical);
	pw_rule_set_scope(a, "the host");
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

/* ---- SystemTimeHigh --------------------------------------------------------------------------- */

/* The pathology is the kernel eating CPUs: a syscall storm, lock contention. What it is not: system
 * time that rises in step with user time (a traffic surge: the kernel a steady fraction of the
 * work), or a kernel-heavy workload the baseline learned. So a CPU counts when its system time is
 * far above that CPU's baseline AND the kernel's share of its busy time, sys / (sys + user), is
 * above what this host's work normally has: past KERNEL_MIX_RISE over the learned mix, and at
 * least half. The learned mix counts in proportion to the busy time it was learned from: an idle
 * host's few busy percent are a poller's habit (one reading /proc is mostly kernel time), and a
 * 57% kernel mix learned at 10% busy hid a syscall storm at 64% kernel time (live case a). Incident
 * 5's signature, system time 3x user time on half the CPUs, only makes it critical. */
#define KERNEL_MIX_MIN 0.5
#define KERNEL_MIX_RISE 0.15
#define KERNEL_MIX_MAX 0.95
#define BUSY_BASELINE_MIN 0.10  /* user + system share from which the host's mix counts at all */
#define BUSY_BASELINE_FULL 0.30 /* and from which it counts in full */
#define SYSTEM_MIN_CPUS 0.5     /* kernel time on such CPUs must add up to half a CPU */
#define SYSTEM_DOMINANCE 3.0    /* the write-up's signature */

static double kernel_mix(double sys, double user)
{
	return sys + user > 0 ? sys / (sys + user) : 0;
}

static double kernel_mix_required(const struct pw_detector *d)
{
	double sys = d->host[PW_SIG_SYSTEM].mean, user = d->host[PW_SIG_USER].mean, busy = sys + user;

	if (!(busy >= BUSY_BASELINE_MIN))
		return KERNEL_MIX_MIN;
	double learned = fmax(KERNEL_MIX_MIN, kernel_mix(sys, user) + KERNEL_MIX_RISE);
	double weight = fmin(1, (busy - BUSY_BASELINE_MIN) / (BUSY_BASELINE_FULL - BUSY_BASELINE_MIN));
	return fmin(KERNEL_MIX_MAX, KERNEL_MIX_MIN + weight * (learned - KERNEL_MIX_MIN));
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
		if (!pw_rule_high(d, &d->cpu_system[id], sys, rc->threshold, rc->sigmas,
		                  PW_SHARE_SPREAD_FLOOR) ||
		    kernel_mix(sys, user) < mix_required)
			continue;
		v.counted++;
		v.cpus_in_kernel += sys;
		uint32_t at = pw_rule_top_slot(ev->cpus, sizeof(ev->cpus[0]), keys, &ev->ncpus, PW_EV_CPUS,
		                               (float)sys);
		if (at == PW_EV_CPUS)
			continue;
		ev->cpus[at].cpu = id;
		ev->cpus[at].system = (float)sys;
		ev->cpus[at].user = (float)user;
	}
	return v;
}

bool pw_rule_system_time_high(const struct pw_detector *d, const struct pw_now *now,
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
	bool host = pw_rule_high(d, b, h[PW_SIG_SYSTEM], rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR) &&
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
	pw_rule_headline_share_above(a, h[PW_SIG_SYSTEM], b, rc->critical);
	if (v.signature * 2 >= now->online_cpus && v.signature > 0)
		a->severity = PW_SEVERITY_CRITICAL;
	pw_rule_set_scope(a, "the host");
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

bool pw_rule_steal_high(const struct pw_detector *d, const struct pw_now *now,
                        const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_baseline *b = &d->host[PW_SIG_STEAL];
	double value = now->host[PW_SIG_STEAL];

	if (!pw_detector_warm(d) ||
	    !pw_rule_high(d, b, value, rc->threshold, rc->sigmas, PW_SHARE_SPREAD_FLOOR))
		return false;
	a->evidence.steal.host_steal = (float)value;
	a->evidence.steal.steal_baseline = (float)b->mean;
	pw_rule_headline_share_above(a, value, b, rc->critical);
	pw_rule_set_scope(a, "the host");
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
