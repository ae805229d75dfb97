/* history.h — the compact record of one sample kept for the whole --history window.
 *
 * Full counters live only in the few newest samples; the history keeps each interval's derived
 * figures at reduced precision (shares in 1/10000, rates as float), so an hour at 1 s costs
 * 3600 * pw_history_point_size(ncpu) bytes: 296 B a sample on 2 CPUs, ~3.8 KiB on 256. */
#ifndef PW_HISTORY_H
#define PW_HISTORY_H

#include "ring.h"
#include "sample.h"

#define PW_HISTORY_UNKNOWN UINT16_MAX /* a share or ratio that was not derived */
/* The first point of a daemon run: history shows a gap before it, never a line from the run before. */
#define PW_HISTORY_RUN_START 1u
/* A point of the per-minute tier is one of three of the same time: the minute's mean, min or max
 * (bits 1-2), over PW_HISTORY_COUNT(flags) samples (bits 8-31). A sample's are 0. */
#define PW_HISTORY_STAT_SHIFT 1
#define PW_HISTORY_STAT(flags) (((flags) >> PW_HISTORY_STAT_SHIFT) & 3u)
enum pw_history_stat_kind { PW_HISTORY_SAMPLE, PW_HISTORY_MEAN, PW_HISTORY_MIN, PW_HISTORY_MAX };
#define PW_HISTORY_COUNT_SHIFT 8
#define PW_HISTORY_COUNT(flags) ((flags) >> PW_HISTORY_COUNT_SHIFT)

struct pw_history_cpu {
	uint16_t busy, user, system, irq, iowait; /* shares in 1/10000; irq = irq + softirq */
	uint16_t freq_ratio;                      /* average / max frequency in 1/10000 */
	uint16_t avg_mhz;                         /* average frequency over the interval; 0 unknown */
};

/* The interrupt lines a point keeps rates for: the busiest by count since boot, a ranking that
 * changes slowly, so a line that pauses (incident 3) stays in the picture while its rate drops. */
#define PW_HISTORY_LINES 6

struct pw_history_line {
	char irq[PW_IRQ_NAME_MAX]; /* "25", "LOC"; "" for an unused slot */
	float rate;                /* per second, NAN when unknown */
};

struct pw_history_point {
	int64_t mono_ns, real_ns;
	uint64_t seq;
	uint16_t share[PW_MODE_GUEST]; /* host mode shares in 1/10000 */
	uint16_t busy_cpus, ncpu;
	uint16_t psi_some_stall[PW_PSI_COUNT];    /* share of the interval some task stalled, from the
	                                           * stall totals: hundredths of a percent, or
	                                           * PW_HISTORY_UNKNOWN (not avg10, which lags by 10 s) */
	float intr_rate, ctxt_rate, softirq_rate; /* per second, NAN when unknown */
	float swap_in_rate, swap_out_rate, major_fault_rate;
	uint64_t mem_available_kb;                 /* UINT64_MAX when MemAvailable is absent */
	uint64_t cached_kb;                        /* page cache (meminfo Cached); UINT64_MAX when absent */
	uint32_t procs_running;                    /* UINT32_MAX when unknown */
	uint32_t flags;                            /* PW_HISTORY_RUN_START */
	float softirq_type_rate[PW_SOFTIRQ_COUNT]; /* per second, NAN when unknown */
	struct pw_history_line lines[PW_HISTORY_LINES];
	struct pw_history_cpu cpus[]; /* [ncpu] */
};

/* Bytes of one point for up to cpu_cap CPUs (a multiple of 8). */
size_t pw_history_point_size(uint32_t cpu_cap);

/* What the next point's PSI stall share is taken against: the stall totals of the sample reduced
 * before it. Zero it before the first. */
struct pw_history_reducer {
	int64_t mono_ns; /* the previous sample's; 0: none */
	uint64_t psi_total_us[PW_PSI_COUNT];
	uint32_t psi_present; /* bit (1u << resource): its total above is valid */
};

/* Reduce sample into ret, which has room for sample->cpu_cap CPUs; reducer (NULL: the stall shares
 * are unknown) then remembers sample's stall totals. Pure but for *reducer. */
void pw_history_point_from(const struct pw_sample *sample, struct pw_history_reducer *reducer,
                           struct pw_history_point *ret);

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

/* Copy the points of ring (history points) with since_real_ns < real_ns <= until_real_ns into buf,
 * oldest first; buf has room for cap payloads of pw_ring_payload_size() bytes. Stops at the first
 * point at or before since, or at the tail the writer overwrote. Returns how many. Any thread; never
 * blocks the writer. */
uint32_t pw_history_copy_window(const struct pw_ring *ring, int64_t since_real_ns, int64_t until_real_ns,
                                void *buf, uint32_t cap);

#endif
