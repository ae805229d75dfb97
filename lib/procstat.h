/* procstat.h — parser for /proc/stat.
 *
 * Kernel doc: Documentation/filesystems/proc.rst, "1.7 Miscellaneous kernel statistics in /proc/stat".
 * Quirks: kernels before 2.6.33 print fewer than 10 cpu columns (4 before 2.5.41); offline CPUs have
 * no cpuN line; the "intr" line lists one count per IRQ number (hundreds of zeros on x86). */
#ifndef PW_PROCSTAT_H
#define PW_PROCSTAT_H

#include "pw_types.h"

/* Bits of pw_procstat.present: the keys the file actually had. */
enum {
	PW_PROCSTAT_HAS_CPU = 1u << 0,
	PW_PROCSTAT_HAS_INTR = 1u << 1,
	PW_PROCSTAT_HAS_CTXT = 1u << 2,
	PW_PROCSTAT_HAS_BTIME = 1u << 3,
	PW_PROCSTAT_HAS_PROCESSES = 1u << 4,
	PW_PROCSTAT_HAS_PROCS_RUNNING = 1u << 5,
	PW_PROCSTAT_HAS_PROCS_BLOCKED = 1u << 6,
	PW_PROCSTAT_HAS_SOFTIRQ = 1u << 7,
};

/* Mode times of one CPU (or the total), in USER_HZ ticks. nmodes = columns present (4..10);
 * columns past nmodes are 0 and must be treated as absent. */
struct pw_cpu_times {
	uint64_t ticks[PW_MODE_COUNT];
	uint8_t nmodes;
	bool present; /* a cpuN line was seen this read */
};

struct pw_procstat {
	struct pw_cpu_times total;
	uint64_t intr_total;
	uint64_t ctxt;
	uint64_t btime;
	uint64_t processes;
	uint64_t procs_running;
	uint64_t procs_blocked;
	uint64_t softirq_total;
	uint32_t present;  /* PW_PROCSTAT_HAS_* */
	uint32_t cpu_seen; /* highest cpuN id seen + 1 */
};

/* Parse /proc/stat content buf[0..len) (no NUL needed). Per-CPU times go to cpus[id] for
 * id < cpu_cap; every entry of cpus[0..cpu_cap) is first reset (present=false). Unknown keys and
 * extra columns are ignored. On success fills *ret and returns 0; -EINVAL if the content is
 * malformed (no "cpu " line, a non-number where a number belongs), -ERANGE if a number does not
 * fit 64 bits, -ENOBUFS if a cpuN id >= cpu_cap (the rest is still parsed). *ret_intr_off (may be
 * NULL) gets the offset of the "intr" line in buf, or len without one: pass buf + it to
 * pw_procstat_parse_irqs() to skip its search. Outputs are written only on success or -ENOBUFS.
 * Thread-safe (no state). */
int pw_procstat_parse(const char *buf, size_t len, struct pw_cpu_times *cpus, uint32_t cpu_cap,
                      struct pw_procstat *ret, size_t *ret_intr_off);

/* Parse the per-IRQ counts of the "intr" line (the numbers after its total) into counts[irq] for
 * irq < cap; the rest of the file is ignored. buf may start at that line (the offset
 * pw_procstat_parse() reports), which then is not searched for. The kernel sums each over every possible CPU,
 * so unlike a sum of /proc/interrupts columns they do not drop when a CPU goes offline. Returns how many
 * counts the line lists (may exceed cap: only cap are stored), -EINVAL without an intr line or with a
 * non-number in it, -ERANGE on overflow. Thread-safe. */
int pw_procstat_parse_irqs(const char *buf, size_t len, uint64_t *counts, uint32_t cap);

#endif
