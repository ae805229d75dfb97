/* history.h — the compact record of one sample kept for the whole --history window.
 *
 * Full counters live only in the few newest samples; the history keeps each interval's derived
 * figures at reduced precision (shares in 1/10000, rates as float), so an hour at 1 s costs
 * 3600 * pw_history_point_size(ncpu) bytes: 112 B a sample on 2 CPUs, ~3.1 KiB on 256. */
#ifndef PW_HISTORY_H
#define PW_HISTORY_H

#include "ring.h"
#include "sample.h"

#define PW_HISTORY_UNKNOWN UINT16_MAX /* a share or ratio that was not derived */

struct pw_history_cpu {
	uint16_t busy, user, system, irq, iowait; /* shares in 1/10000; irq = irq + softirq */
	uint16_t freq_ratio;                      /* average / max frequency in 1/10000 */
};

struct pw_history_point {
	int64_t mono_ns, real_ns;
	uint64_t seq;
	uint16_t share[PW_MODE_GUEST]; /* host mode shares in 1/10000 */
	uint16_t busy_cpus, ncpu;
	uint16_t psi_some_avg10[PW_PSI_COUNT];    /* hundredths of a percent, or PW_HISTORY_UNKNOWN */
	float intr_rate, ctxt_rate, softirq_rate; /* per second, NAN when unknown */
	float swap_in_rate, swap_out_rate, major_fault_rate;
	uint64_t mem_available_kb;    /* UINT64_MAX when MemAvailable is absent */
	struct pw_history_cpu cpus[]; /* [ncpu] */
};

/* Bytes of one point for up to cpu_cap CPUs (a multiple of 8). */
size_t pw_history_point_size(uint32_t cpu_cap);

/* Reduce sample into ret, which has room for sample->cpu_cap CPUs. Pure. */
void pw_history_point_from(const struct pw_sample *sample, struct pw_history_point *ret);

struct pw_history_stat {
	double min, avg, max; /* NAN when no point had the figure */
};

struct pw_history_summary {
	uint32_t points;
	double span_seconds;
	struct pw_history_stat busy_percent; /* host busy share (100 - idle - iowait) */
	struct pw_history_stat intr_rate;    /* interrupts per second */
	struct pw_history_stat ctxt_rate;
	struct pw_history_stat swap_out_rate; /* pages per second */
};

/* Summarize the points of ring (whose payloads are history points) newer than since_mono_ns, using
 * scratch (pw_ring_payload_size() bytes) to copy them. Any thread. */
void pw_history_summarize(const struct pw_ring *ring, int64_t since_mono_ns, void *scratch,
                          struct pw_history_summary *ret);

#endif
