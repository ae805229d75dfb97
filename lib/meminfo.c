/* meminfo.c — parser for /proc/meminfo ("<Key>:<blanks><value>[ kB]" per line, ~55 lines).
 *
 * Kernel doc: Documentation/filesystems/proc.rst "meminfo"; printed by fs/proc/meminfo.c. Quirks:
 * MemAvailable exists since 3.14 (absent before, never estimated here); the unit column is "kB"
 * except for the HugePages_* counts and is not checked. Read every second, so keys are found by
 * binary search in a table sorted by (length, name). */
#include "meminfo.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

_Static_assert(PW_MEM_COUNT <= 32, "present is a 32-bit mask");

/* clang-format off */
#define KEY(s) { s, sizeof(s) - 1 }
/* clang-format on */

static const struct {
	const char *name;
	size_t len;
} mem_keys[PW_MEM_COUNT] = {
        [PW_MEM_TOTAL] = KEY("MemTotal"),
        [PW_MEM_FREE] = KEY("MemFree"),
        [PW_MEM_AVAILABLE] = KEY("MemAvailable"),
        [PW_MEM_BUFFERS] = KEY("Buffers"),
        [PW_MEM_CACHED] = KEY("Cached"),
        [PW_MEM_SWAP_CACHED] = KEY("SwapCached"),
        [PW_MEM_ACTIVE_FILE] = KEY("Active(file)"),
        [PW_MEM_INACTIVE_FILE] = KEY("Inactive(file)"),
        [PW_MEM_ACTIVE_ANON] = KEY("Active(anon)"),
        [PW_MEM_INACTIVE_ANON] = KEY("Inactive(anon)"),
        [PW_MEM_SWAP_TOTAL] = KEY("SwapTotal"),
        [PW_MEM_SWAP_FREE] = KEY("SwapFree"),
        [PW_MEM_DIRTY] = KEY("Dirty"),
        [PW_MEM_WRITEBACK] = KEY("Writeback"),
        [PW_MEM_SHMEM] = KEY("Shmem"),
        [PW_MEM_SRECLAIMABLE] = KEY("SReclaimable"),
};

/* The fields ordered by (name length, name); the unit test looks every name up, so a misplaced
 * entry fails it. */
static const unsigned char mem_sorted[PW_MEM_COUNT] = {
        PW_MEM_DIRTY,     PW_MEM_SHMEM,        PW_MEM_CACHED,        PW_MEM_BUFFERS,
        PW_MEM_FREE,      PW_MEM_TOTAL,        PW_MEM_SWAP_FREE,     PW_MEM_SWAP_TOTAL,
        PW_MEM_WRITEBACK, PW_MEM_SWAP_CACHED,  PW_MEM_ACTIVE_ANON,   PW_MEM_ACTIVE_FILE,
        PW_MEM_AVAILABLE, PW_MEM_SRECLAIMABLE, PW_MEM_INACTIVE_ANON, PW_MEM_INACTIVE_FILE,
};

const char *pw_meminfo_field_name(enum pw_meminfo_field field)
{
	return (unsigned)field < PW_MEM_COUNT ? mem_keys[field].name : "unknown";
}

/* Order by length, then bytes: most lines of the file have a length none of our keys has, so the
 * search usually ends on integer compares without touching memcmp. */
static int key_cmp(const char *key, size_t len, unsigned field)
{
	if (len != mem_keys[field].len)
		return len < mem_keys[field].len ? -1 : 1;
	return memcmp(key, mem_keys[field].name, len);
}

/* The field named key[0..len), or -1. */
static int mem_lookup(const char *key, size_t len)
{
	size_t lo = 0, hi = PW_MEM_COUNT;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(key, len, mem_sorted[mid]);

		if (c == 0)
			return mem_sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* One "<Key>: <value> [unit]" line; the cursor ends at the next line. */
static int mem_parse_line(struct pw_scan *scan, struct pw_meminfo *mem)
{
	const char *key;
	size_t key_len;
	uint64_t kb;

	if (pw_scan_token(scan, &key, &key_len) < 0 || key[key_len - 1] != ':')
		return -EINVAL;
	int field = mem_lookup(key, key_len - 1);
	int r = pw_scan_u64(scan, &kb);

	/* Every line must carry a number, but only a kept field may fail the file on overflow. */
	if (r == -EINVAL || (r == -ERANGE && field >= 0))
		return r;
	if (r == 0 && field >= 0) {
		mem->kb[field] = kb;
		mem->present |= 1u << field;
	}
	pw_scan_next_line(scan);
	return 0;
}

int pw_meminfo_parse(const char *buf, size_t len, struct pw_meminfo *ret)
{
	struct pw_meminfo mem = {0};
	struct pw_scan scan;

	/* An empty read is a failed source, not a kernel without memory. */
	if (len == 0)
		return -EINVAL;
	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		int r = mem_parse_line(&scan, &mem);

		if (r < 0)
			return r;
	}
	*ret = mem;
	return 0;
}
