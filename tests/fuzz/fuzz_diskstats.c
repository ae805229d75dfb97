/* fuzz_diskstats.c — libFuzzer harness: /proc/diskstats (lib/diskstats.c) and the whole-disk guess
 * on every name it keeps. */
#include "diskstats.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum { CAP = 16 };
	static struct pw_disk disks[CAP];
	uint32_t bad = 0;
	int n = pw_diskstats_parse((const char *)data, size, disks, CAP, &bad);

	if (n == -ENOBUFS)
		n = CAP;
	for (int i = 0; i < n; i++)
		pw_disk_name_is_whole(disks[i].name);
	return 0;
}
