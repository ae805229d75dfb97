/* loadavg.h — parser for /proc/loadavg.
 *
 * Kernel doc: Documentation/filesystems/proc.rst; fs/proc/loadavg.c prints
 * "%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d". */
#ifndef PW_LOADAVG_H
#define PW_LOADAVG_H

#include "pw_types.h"

struct pw_loadavg {
	uint32_t load1, load5, load15; /* hundredths: 0.64 -> 64 */
	uint32_t runnable;             /* currently runnable scheduling entities */
	uint32_t threads;              /* existing scheduling entities */
	uint32_t last_pid;
};

/* Parse /proc/loadavg. Returns 0, -EINVAL or -ERANGE. Thread-safe. */
int pw_loadavg_parse(const char *buf, size_t len, struct pw_loadavg *ret);

#endif
