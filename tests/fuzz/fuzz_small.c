/* fuzz_small.c — libFuzzer harness: the one-line files, /proc/pressure/{cpu,memory,io,irq} (lib/pressure.c),
 * /proc/loadavg (lib/loadavg.c) and /proc/[pid]/stat (lib/pidstat.c). */
#include "loadavg.h"
#include "pidstat.h"
#include "pressure.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_psi psi;
	struct pw_loadavg la;
	struct pw_pidstat ps;

	pw_pressure_parse((const char *)data, size, &psi);
	pw_loadavg_parse((const char *)data, size, &la);
	pw_pidstat_parse((const char *)data, size, &ps);
	return 0;
}
