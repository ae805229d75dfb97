/* fuzz_softirqs.c — libFuzzer harness: /proc/softirqs (lib/softirqs.c, lib/cpu_header.c). */
#include "softirqs.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { CPUS = 8 };
	static uint64_t per_cpu[CPUS * PW_SOFTIRQ_COUNT];
	struct pw_softirqs st;

	pw_softirqs_parse((const char *)data, size, per_cpu, CPUS, &st);
	pw_softirqs_parse((const char *)data, size, NULL, 1, &st);
	return 0;
}
