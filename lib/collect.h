/* collect.h — the I/O half of the readers: keeps every counter file open under the procfs and
 * sysfs roots and fills a sample from them with pread, feeding the pure parsers.
 *
 * Missing files mark their source absent and are looked for again every rescan_every reads; a file
 * whose read fails is closed (absent until the next rescan); content that does not parse is counted
 * and leaves its source down for that sample. CPUs and their cpufreq directories may come and go:
 * cpufreq is re-discovered when devices/system/cpu/online changes and on every rescan, and a CPU
 * whose cpufreq read fails loses it until then. Not thread-safe: one collector, one thread. */
#ifndef PW_COLLECT_H
#define PW_COLLECT_H

#include "sample.h"

struct pw_collector_config {
	const char *procfs;     /* "/proc" */
	const char *sysfs;      /* "/sys" */
	uint32_t user_hz;       /* sysconf(_SC_CLK_TCK) */
	uint32_t page_size;     /* sysconf(_SC_PAGESIZE) */
	uint32_t rescan_every;  /* reads between layout rescans (>= 1) */
	bool interrupts_matrix; /* keep the line x CPU matrix in samples */
};

struct pw_collector;

/* Open the roots and size the samples. Returns NULL with *ret_err = -errno when procfs/stat cannot be
 * opened or read (nothing to watch), -ENOMEM on allocation failure. Allocates. */
struct pw_collector *pw_collector_new(const struct pw_collector_config *config, int *ret_err);

/* Close every file and free; accepts NULL. */
void pw_collector_free(struct pw_collector *collector);

/* Capacities samples must be created with: pw_sample_init(s, cpu_cap, line_cap, matrix). */
uint32_t pw_collector_cpu_cap(const struct pw_collector *collector);
uint32_t pw_collector_line_cap(const struct pw_collector *collector);
bool pw_collector_has_matrix(const struct pw_collector *collector);

/* Whether procfs is this kernel's own (a proc mount, not a fixture tree): its counters then keep
 * the clock the sampler stamps samples with (pw_derive_kernel()). */
bool pw_collector_reads_kernel(const struct pw_collector *collector);

/* Read every source into sample (created with the capacities above; its timestamps are the
 * caller's). Fills raw counters, source_present/source_up, cumulative parse_errors; derived fields
 * are left zero. Never fails as a whole: a failing source is reported in the sample. Allocates only
 * when a file outgrows its buffer. */
void pw_collector_read(struct pw_collector *collector, struct pw_sample *sample);

#endif
