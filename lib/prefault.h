/* prefault.h — fault in a fresh buffer's pages in one call before writing it.
 *
 * A buffer of megabytes (an hour of history, the answer rendered from it) is a mapping of its own
 * (main.c pins malloc's mmap threshold at 256 KiB), and its first write takes one page fault per
 * 4 KiB: on a paravirtualised VM about 6 us each, a quarter of a whole hour's /history. */
#ifndef PW_PREFAULT_H
#define PW_PREFAULT_H

#include <stddef.h>

/* Populate the whole pages inside [p, p + len) writable; small ranges and kernels without
 * MADV_POPULATE_WRITE (before 5.14) are left to fault as usual. */
void pw_prefault(void *p, size_t len);

#endif
