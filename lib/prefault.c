/* prefault.c — see prefault.h. */
#define _GNU_SOURCE
#include "prefault.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define PREFAULT_MIN_BYTES (256 * 1024) /* below: heap memory, mostly resident already */

void pw_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1), to = ((uintptr_t)p + len) & ~(page - 1);
	if (len >= PREFAULT_MIN_BYTES && to > from)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)p, (void)len;
#endif
}
