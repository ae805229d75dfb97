/* sample.h — the sample: one flat, pointer-free snapshot of every counter family at one instant,
 * plus the figures derived over the interval that ended there.
 *
 * A sample is one contiguous block: struct pw_sample, then cpu_cap per-CPU records, then line_cap
 * interrupt lines, then (optionally) the line x CPU count matrix. Offsets, not pointers, locate the
 * arrays, so a sample can be copied byte for byte into and out of the ring. Kernel units throughout
 * (ticks, kHz, pages, kB); exporters convert. */
#ifndef PW_SAMPLE_H
#define PW_SAMPLE_H

#include "cpufreq.h"
#include "interrupts.h"
#include "loadavg.h"
#include "meminfo.h"
#include "pressure.h"
#include "procstat.h"
#include "softirqs.h"
#include "vmstat.h"

/* Bits of pw_cpu_sample.freq_flags. */
enum {
	PW_FREQ_HAS_CPUFREQ = 1u << 0,       /* cpufreq/ directory readable */
	PW_FREQ_HAS_TIME_IN_STATE = 1u << 1, /* stats/time_in_state readable */
	PW_FREQ_AVG_FROM_STATS = 1u << 2,    /* avg_khz came from time_in_state deltas */
};

/* Bits of the derived_valid fields: which derived figures this sample carries. */
enum {
	PW_DERIVED_SHARES = 1u << 0, /* mode shares (needs two samples with ticks elapsed) */
	PW_DERIVED_RATES = 1u << 1,  /* per-second rates (needs two samples) */
	PW_DERIVED_FREQ = 1u << 2,   /* avg_khz / freq_ratio */
};

struct pw_cpu_sample {
	struct pw_cpu_times times;          /* /proc/stat cpuN */
	uint64_t softirq[PW_SOFTIRQ_COUNT]; /* /proc/softirqs column */
	uint64_t interrupts;                /* /proc/interrupts column sum */
	struct pw_time_in_state tis;        /* stats/time_in_state sums */
	uint32_t cur_khz, min_khz, max_khz; /* scaling_cur_freq, cpuinfo_{min,max}_freq */
	uint32_t
	        base_khz; /* cpufreq/base_frequency (intel_pstate: the all-core guaranteed speed); 0 absent */
	uint32_t freq_flags; /* PW_FREQ_* */
	char governor[PW_CPUFREQ_NAME_MAX];
	char driver[PW_CPUFREQ_NAME_MAX];
	bool online;                     /* listed in devices/system/cpu/online (or in /proc/stat) */
	bool in_interrupts, in_softirqs; /* had a column in those files */
	/* Derived over the interval ending here. */
	uint32_t derived_valid; /* PW_DERIVED_* */
	uint32_t avg_khz;
	float freq_ratio;           /* avg_khz / max_khz (not pw_cpu_freq_reference()) */
	float share[PW_MODE_COUNT]; /* fraction 0..1 of this CPU's ticks in the interval */
	float interrupt_rate;       /* per second */
	float softirq_rate[PW_SOFTIRQ_COUNT];
};

struct pw_line_sample {
	struct pw_irq_line line;
	float rate; /* per second; valid when the sample has PW_DERIVED_RATES */
	uint32_t reserved;
};

struct pw_host_derived {
	uint32_t valid;             /* PW_DERIVED_* */
	float share[PW_MODE_COUNT]; /* host-wide mode shares */
	float intr_rate;            /* /proc/stat intr, per second */
	float ctxt_rate;
	float fork_rate; /* processes */
	float softirq_rate[PW_SOFTIRQ_COUNT];
	float softirq_total_rate;
	float vm_rate[PW_VM_COUNT]; /* /proc/vmstat counters per second */
	uint32_t busy_cpus;         /* CPUs with a busy share over 50% */
};

/* Recorded byte for byte by --record (lib/recording.c): a change of layout or of a field's meaning
 * bumps PW_REC_VERSION. */
struct pw_sample {
	uint64_t seq;        /* sampler's sample number, 1-based */
	int64_t mono_ns;     /* CLOCK_MONOTONIC when read */
	int64_t real_ns;     /* CLOCK_REALTIME when read */
	int64_t interval_ns; /* since the previous sample; 0 on the first */
	int64_t duration_ns; /* time spent reading and deriving this sample */

	/* Layout of the block. */
	uint32_t cpu_cap, line_cap;
	uint32_t off_cpus, off_lines, off_matrix; /* off_matrix 0: no matrix */
	uint32_t size;

	uint32_t ncpu;    /* CPU ids in use: highest id seen + 1 (<= cpu_cap) */
	uint32_t nlines;  /* lines stored (<= line_cap) */
	uint32_t user_hz; /* sysconf(_SC_CLK_TCK), carried for exporters */
	uint32_t page_size;

	uint32_t source_present;             /* bit (1u << pw_source): the file exists */
	uint32_t source_up;                  /* bit (1u << pw_source): this read parsed */
	uint64_t parse_errors[PW_SRC_COUNT]; /* cumulative reads that did not parse */
	uint64_t counter_resets;             /* cumulative counters seen going backwards */
	uint64_t samples_taken;              /* cumulative, including this one */
	uint64_t missed_deadlines;
	uint64_t duration_total_ns;

	struct pw_procstat stat;
	struct pw_interrupts interrupts;
	struct pw_softirqs softirqs;
	struct pw_vmstat vmstat;
	struct pw_meminfo meminfo;
	struct pw_psi psi[PW_PSI_COUNT];
	uint32_t psi_present; /* bit (1u << pw_psi_resource) */
	struct pw_loadavg loadavg;
	struct pw_host_derived derived;
};

/* Bytes a sample with these capacities occupies (a multiple of 8). */
size_t pw_sample_size(uint32_t cpu_cap, uint32_t line_cap, bool with_matrix);

/* Set only the layout fields of *ret (capacities, offsets, size) for these capacities. */
void pw_sample_layout(struct pw_sample *ret, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix);

/* Zero the block at sample (pw_sample_size() bytes) and set its layout. */
void pw_sample_init(struct pw_sample *sample, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix);

static inline struct pw_cpu_sample *pw_sample_cpus(struct pw_sample *sample)
{
	return (struct pw_cpu_sample *)((char *)sample + sample->off_cpus);
}

static inline const struct pw_cpu_sample *pw_sample_cpus_const(const struct pw_sample *sample)
{
	return (const struct pw_cpu_sample *)((const char *)sample + sample->off_cpus);
}

static inline struct pw_line_sample *pw_sample_lines(struct pw_sample *sample)
{
	return (struct pw_line_sample *)((char *)sample + sample->off_lines);
}

static inline const struct pw_line_sample *pw_sample_lines_const(const struct pw_sample *sample)
{
	return (const struct pw_line_sample *)((const char *)sample + sample->off_lines);
}

/* The line x CPU matrix (line * cpu_cap + cpu), or NULL when the sample has none. */
static inline const uint64_t *pw_sample_matrix_const(const struct pw_sample *sample)
{
	return sample->off_matrix ? (const uint64_t *)((const char *)sample + sample->off_matrix) : NULL;
}

static inline uint64_t *pw_sample_matrix(struct pw_sample *sample)
{
	return sample->off_matrix ? (uint64_t *)((char *)sample + sample->off_matrix) : NULL;
}

static inline bool pw_sample_has(const struct pw_sample *sample, enum pw_source source)
{
	return (sample->source_up >> source) & 1u;
}

/* The frequency a CPU is judged against for "low" (CpuFrequencyLow), in kHz: base_frequency where
 * the driver has one below cpuinfo_max_freq (intel_pstate, whose maximum is the single-core turbo a
 * busy host at all-core turbo never reaches; base is what every core is guaranteed), else
 * cpuinfo_max_freq; 0 when neither was read. freq_ratio and perfwatch_cpu_frequency_ratio keep
 * dividing by cpuinfo_max_freq ("% of max"): the two meet where a driver has no base_frequency. */
static inline uint32_t pw_cpu_freq_reference(const struct pw_cpu_sample *cpu)
{
	return cpu->base_khz > 0 && cpu->base_khz < cpu->max_khz ? cpu->base_khz : cpu->max_khz;
}

/* The one definition of "busy": the fraction of an interval a CPU ran anything, every mode but idle
 * and iowait (a CPU waiting on I/O runs nothing), from a derived share[] (a CPU's or the host's; a
 * mode the kernel lacks has share 0). Clamped to [0, 1]: the shares are rounded floats, so a fully
 * idle CPU's 1 - idle - iowait can come out at -3e-8. NaN shares give NaN. */
static inline double pw_busy_share(const float share[PW_MODE_COUNT])
{
	double busy = 1.0 - share[PW_MODE_IDLE] - share[PW_MODE_IOWAIT];

	return busy < 0.0 ? 0.0 : busy > 1.0 ? 1.0 : busy;
}

#endif
