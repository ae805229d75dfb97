/* fuzz_procstat.c — libFuzzer harness: /proc/stat (lib/procstat.c), both entry points. */
#include "procstat.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_cpu_times cpus[8];
	struct pw_procstat st;
	uint64_t irqs[64];
	size_t intr_off = 0;
	int r = pw_procstat_parse((const char *)data, size, cpus, 8, &st, &intr_off);

	if (r == 0 || r == -ENOBUFS)
		pw_procstat_parse_irqs((const char *)data + intr_off, size - intr_off, irqs, 64);
	pw_procstat_parse_irqs((const char *)data, size, irqs, 64);
	return 0;
}
