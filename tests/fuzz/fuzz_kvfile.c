/* fuzz_kvfile.c — libFuzzer harness: the key/value files, /proc/vmstat and /proc/meminfo
 * (lib/vmstat.c, lib/meminfo.c over lib/kvfile.c). */
#include "meminfo.h"
#include "vmstat.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_vmstat vm;
	struct pw_meminfo mi;

	pw_vmstat_parse((const char *)data, size, &vm);
	pw_meminfo_parse((const char *)data, size, &mi);
	return 0;
}
