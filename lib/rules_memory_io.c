/* rules_memory_io.c — the rules on memory and storage: MemorySwapping (swap traffic or memory
 * stalls) and IoWaitHigh (CPUs idle on I/O, or tasks stalled on it), which share their evidence
 * (paging, page cache, PSI) and words; other rules defer to both. */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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

	return pw_rule_high(d, b, now->host[sig], threshold, sigmas, PSI_SPREAD_FLOOR) &&
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
	v.out = pw_rule_high(d, out, h[PW_SIG_SWAP_OUT], rc->threshold, rc->sigmas,
	                     pw_rate_spread_floor(out) / 2);
	v.in = pw_rule_high(d, in, h[PW_SIG_SWAP_IN], rc->threshold, rc->sigmas,
	                    pw_rate_spread_floor(in) / 2);
	v.psi = psi_high(d, now, PW_SIG_PSI_MEMORY, PSI_MEMORY_THRESHOLD, rc->sigmas);
	return v;
}

bool pw_rule_memory_holds(const struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_rule_config *rc = &d->config.rules[PW_ALERT_MEMORY_SWAPPING];
	struct memory_verdict v = memory_judge(d, now, rc);

	return rc->enabled && (v.out || v.in || v.psi);
}

bool pw_rule_memory_swapping(const struct pw_detector *d, const struct pw_now *now,
                             const struct pw_rule_config *rc, struct pw_alert *a)
{
	const double *h = now->host;
	const struct pw_baseline *out = &d->host[PW_SIG_SWAP_OUT], *in = &d->host[PW_SIG_SWAP_IN];
	struct memory_verdict v = memory_judge(d, now, rc);
	const struct pw_ev_memory *ev = &a->evidence.memory;

	if (!v.out && !v.in && !v.psi)
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	pw_rule_set_scope(a, "the host");
	if (v.out || v.in) {
		a->value = v.out ? h[PW_SIG_SWAP_OUT] : h[PW_SIG_SWAP_IN];
		a->baseline = v.out ? out->mean : in->mean;
		a->spread = pw_baseline_spread(v.out ? out : in, pw_rate_spread_floor(v.out ? out : in) / 2);
		a->severity = pw_rule_severity_above(h[PW_SIG_SWAP_OUT] + h[PW_SIG_SWAP_IN], rc->critical);
		snprintf(a->summary, sizeof(a->summary),
		         "The host is swapping: %.1f pages/s out, %.1f/s in (normally %.1f, %.1f)",
		         ev->swap_out, ev->swap_in, out->mean, in->mean);
	} else {
		const struct pw_baseline *b = &d->host[PW_SIG_PSI_MEMORY];
		a->value = h[PW_SIG_PSI_MEMORY];
		a->baseline = b->mean;
		a->spread = pw_baseline_spread(b, PSI_SPREAD_FLOOR);
		a->severity = pw_rule_severity_above(a->value, PSI_MEMORY_CRITICAL);
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
	/* The same growth as PSI's: a host whose disk work keeps CPUs in iowait a fifth of the time is
	 * not stalled at a quarter (a live direct-I/O workload on a disk whose speed wanders). */
	v.iowait = pw_rule_high(d, &d->host[PW_SIG_IOWAIT], now->host[PW_SIG_IOWAIT], rc->threshold,
	                        rc->sigmas, PW_SHARE_SPREAD_FLOOR) &&
	           now->host[PW_SIG_IOWAIT] >= PSI_STALL_GROWTH * d->host[PW_SIG_IOWAIT].mean;
	v.psi = psi_high(d, now, PW_SIG_PSI_IO, PSI_IO_THRESHOLD, rc->sigmas);
	return v;
}

bool pw_rule_io_stall_holds(const struct pw_detector *d, const struct pw_now *now)
{
	const struct pw_rule_config *rc = &d->config.rules[PW_ALERT_IOWAIT_HIGH];
	struct io_verdict v = io_judge(d, now, rc);

	return rc->enabled && (v.iowait || v.psi);
}

bool pw_rule_iowait_high(const struct pw_detector *d, const struct pw_now *now,
                         const struct pw_rule_config *rc, struct pw_alert *a)
{
	const struct pw_baseline *b = &d->host[PW_SIG_IOWAIT], *pb = &d->host[PW_SIG_PSI_IO];
	double value = now->host[PW_SIG_IOWAIT], psi = now->host[PW_SIG_PSI_IO];
	struct io_verdict v = io_judge(d, now, rc);
	char lead[240];

	if (!v.iowait && !v.psi)
		return false;
	memory_evidence(d, now, &a->evidence.memory);
	pw_rule_set_scope(a, "the host");
	if (v.iowait) {
		pw_rule_headline_share_above(a, value, b, rc->critical);
		if (v.psi && psi >= PSI_IO_CRITICAL)
			a->severity = PW_SEVERITY_CRITICAL;
		snprintf(a->summary, sizeof(a->summary),
		         "CPUs wait on I/O %.1f%% of the time (normally %.1f%%)", PCT(value), PCT(b->mean));
	} else {
		a->value = psi;
		a->baseline = pb->mean;
		a->spread = pw_baseline_spread(pb, PSI_SPREAD_FLOOR);
		a->severity = pw_rule_severity_above(psi, PSI_IO_CRITICAL);
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
