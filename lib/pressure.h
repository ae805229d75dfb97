/* pressure.h — parser for one /proc/pressure/{cpu,memory,io,irq} file (PSI).
 *
 * Kernel doc: Documentation/accounting/psi.rst. Quirks: "full" for cpu since 5.13 (all zeros at
 * system level); irq (CONFIG_IRQ_TIME_ACCOUNTING) since 6.1 and has only "full"; averages are
 * percentages with two decimals, total is microseconds. */
#ifndef PW_PRESSURE_H
#define PW_PRESSURE_H

#include "pw_types.h"

struct pw_psi_line {
	uint32_t avg10, avg60, avg300; /* hundredths of a percent: 10.86 -> 1086 */
	uint64_t total_us;
	bool present;
};

struct pw_psi {
	struct pw_psi_line some, full;
};

/* Parse one pressure file. Returns 0 (at least one of some/full present), -EINVAL or -ERANGE.
 * Thread-safe. */
int pw_pressure_parse(const char *buf, size_t len, struct pw_psi *ret);

#endif
