/* meminfo.h — parser for /proc/meminfo (the fields swap and page-cache diagnosis needs).
 *
 * Kernel doc: Documentation/filesystems/proc.rst "meminfo". Quirks: MemAvailable since 3.14;
 * values are "kB" except the HugePages_* counts (no unit); absent keys stay absent. */
#ifndef PW_MEMINFO_H
#define PW_MEMINFO_H

#include "pw_types.h"

enum pw_meminfo_field {
	PW_MEM_TOTAL,
	PW_MEM_FREE,
	PW_MEM_AVAILABLE,
	PW_MEM_BUFFERS,
	PW_MEM_CACHED,
	PW_MEM_SWAP_CACHED,
	PW_MEM_ACTIVE_FILE,
	PW_MEM_INACTIVE_FILE,
	PW_MEM_ACTIVE_ANON,
	PW_MEM_INACTIVE_ANON,
	PW_MEM_SWAP_TOTAL,
	PW_MEM_SWAP_FREE,
	PW_MEM_DIRTY,
	PW_MEM_WRITEBACK,
	PW_MEM_SHMEM,
	PW_MEM_SRECLAIMABLE,
	PW_MEM_COUNT
};

struct pw_meminfo {
	uint64_t kb[PW_MEM_COUNT];
	uint32_t present; /* bit (1u << field) when the key was seen */
};

/* The key as /proc/meminfo spells it ("Active(file)"). */
const char *pw_meminfo_field_name(enum pw_meminfo_field field);

/* Parse /proc/meminfo content. Unknown keys ignored. Returns 0, -EINVAL or -ERANGE. Thread-safe. */
int pw_meminfo_parse(const char *buf, size_t len, struct pw_meminfo *ret);

#endif
