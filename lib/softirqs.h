/* softirqs.h — parser for /proc/softirqs.
 *
 * Kernel doc: Documentation/filesystems/proc.rst "1.2 ... /proc/softirqs"; fs/proc/softirqs.c.
 * Quirks: the header names only online CPUs; before 4.4 IRQ_POLL was called BLOCK_IOPOLL; rows the
 * kernel may add later are ignored. */
#ifndef PW_SOFTIRQS_H
#define PW_SOFTIRQS_H

#include "pw_types.h"

struct pw_softirqs {
	uint64_t total[PW_SOFTIRQ_COUNT]; /* per type, summed over CPUs */
	uint32_t present;                 /* bit (1u << type) when the row was seen */
	uint32_t cpu_seen;                /* highest CPU id in the header + 1 */
};

/* Parse /proc/softirqs content buf[0..len). Per-CPU counts go to per_cpu[id * PW_SOFTIRQ_COUNT +
 * type] for id < cpu_cap (may be NULL); the whole array is zeroed first. Returns 0, -EINVAL,
 * -ERANGE or -ENOBUFS (a CPU id >= cpu_cap; totals still include it). Thread-safe. */
int pw_softirqs_parse(const char *buf, size_t len, uint64_t *per_cpu, uint32_t cpu_cap,
                      struct pw_softirqs *ret);

#endif
