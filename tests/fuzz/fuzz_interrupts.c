/* fuzz_interrupts.c — libFuzzer harness: /proc/interrupts (lib/interrupts.c, lib/cpu_header.c), with
 * and without the per-CPU sums and the line x CPU matrix, and with capacities small enough that
 * lines and CPU ids overflow them. */
#include "interrupts.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { LINES = 16, CPUS = 8 };
	static struct pw_irq_line lines[LINES];
	static uint64_t per_cpu[CPUS], matrix[LINES * CPUS];
	struct pw_interrupts st;

	pw_interrupts_parse((const char *)data, size, lines, LINES, per_cpu, matrix, CPUS, &st);
	pw_interrupts_parse((const char *)data, size, lines, 2, NULL, NULL, 2, &st);
	return 0;
}
