/* cpufreq_scan.h — the I/O half of cpufreq: finds each CPU's devices/system/cpu/cpuN/cpufreq
 * directory, keeps its per-sample files open and reads them through the parsers of cpufreq.h.
 *
 * The static attributes (cpuinfo_{min,max}_freq, base_frequency, scaling_driver) are read at a rescan
 * only; scaling_cur_freq, scaling_governor and stats/time_in_state every sample. A CPU whose read fails
 * loses its cpufreq until the next rescan. Not thread-safe: owned by one collector. */
#ifndef PW_CPUFREQ_SCAN_H
#define PW_CPUFREQ_SCAN_H

#include "sample.h"

#include <stdint.h>

struct pw_cpufreq_scan;

/* A scan of CPUs 0..cpu_cap-1 under cpu_dirfd (borrowed: the caller keeps it open for the scan's
 * life; -1 when sysfs has no cpu directory). Nothing is opened until the first rescan. Returns NULL
 * when out of memory. */
struct pw_cpufreq_scan *pw_cpufreq_scan_new(int cpu_dirfd, uint32_t cpu_cap);

/* Close every file and free; accepts NULL. */
void pw_cpufreq_scan_free(struct pw_cpufreq_scan *scan);

/* (Re)discover every CPU's cpufreq directory and its static attributes. */
void pw_cpufreq_scan_rescan(struct pw_cpufreq_scan *scan);

/* Fill cur_khz, min/max/base_khz, driver, governor, tis and freq_flags of cpus[0..cpu_cap-1] for
 * the CPUs that have cpufreq. Returns -ENODATA when no CPU has it (the source is absent), -EINVAL when
 * a file held junk (that CPU's freq_flags are 0), else 0: a CPU gone offline is simply absent. */
int pw_cpufreq_scan_read(struct pw_cpufreq_scan *scan, struct pw_cpu_sample *cpus);

#endif
