/* cpufreq.h — parsers for the sysfs cpufreq attributes of one CPU and for CPU lists.
 *
 * Kernel doc: Documentation/admin-guide/pm/cpufreq.rst (scaling_cur_freq, cpuinfo_min_freq,
 * cpuinfo_max_freq, scaling_governor, scaling_driver: kHz and one word each) and
 * Documentation/cpu-freq/cpufreq-stats.rst (stats/time_in_state: "<kHz> <time in 10 ms units>" per
 * line). Documentation/admin-guide/cputopology.rst for the "0-3,5" CPU list format.
 * Quirks: intel_pstate (active mode) has no stats/; cpufreq/ vanishes while a CPU is offline;
 * cpuinfo_cur_freq is root-only, so it is not read. */
#ifndef PW_CPUFREQ_H
#define PW_CPUFREQ_H

#include "pw_types.h"

/* time_in_state reduced to the two sums the interval average needs:
 * avg_khz = delta(khz_time) / delta(time). */
struct pw_time_in_state {
	uint64_t khz_time; /* sum of kHz * time over states */
	uint64_t time;     /* sum of time (10 ms units) */
	uint32_t nstates;
	uint32_t min_khz, max_khz; /* lowest and highest state listed */
};

/* Parse a sysfs attribute holding one unsigned decimal number and an optional newline.
 * Returns 0 and sets *ret, -EINVAL (empty, junk) or -ERANGE. */
int pw_sysfs_parse_u64(const char *buf, size_t len, uint64_t *ret);

/* Parse a sysfs attribute holding one word ("ondemand\n") into ret[0..size) NUL-terminated,
 * truncating. Returns 0, or -EINVAL if empty or more than one word. */
int pw_sysfs_parse_word(const char *buf, size_t len, char *ret, size_t size);

/* Parse stats/time_in_state. Returns 0, -EINVAL (malformed line, or no states), -ERANGE (a product
 * or sum overflows 64 bits). Thread-safe. */
int pw_time_in_state_parse(const char *buf, size_t len, struct pw_time_in_state *ret);

/* Parse a CPU list ("0-3,5,7-8\n", or "\n" for none) into mask[0..cap): mask[id] = true for listed
 * ids, false otherwise. Returns the number of listed ids, -EINVAL, or -ENOBUFS if an id >= cap
 * (ids below cap are still set). */
int pw_cpulist_parse(const char *buf, size_t len, bool *mask, uint32_t cap);

#endif
