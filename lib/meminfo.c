/* meminfo.c — parser for /proc/meminfo ("<Key>:<blanks><value>[ kB]" per line, ~55 lines).
 *
 * Kernel doc: Documentation/filesystems/proc.rst "meminfo"; printed by fs/proc/meminfo.c. Quirks:
 * MemAvailable exists since 3.14 (absent before, never estimated here); the unit column is "kB"
 * except for the HugePages_* counts and is not checked.
 * Keys are looked up and lines walked by kvfile.h. */
#include "meminfo.h"

#include "kvfile.h"

_Static_assert(PW_MEM_COUNT <= 32, "present is a 32-bit mask");

static const struct pw_kvfile_key mem_keys[PW_MEM_COUNT] = {
        [PW_MEM_TOTAL] = PW_KVFILE_KEY("MemTotal"),
        [PW_MEM_FREE] = PW_KVFILE_KEY("MemFree"),
        [PW_MEM_AVAILABLE] = PW_KVFILE_KEY("MemAvailable"),
        [PW_MEM_BUFFERS] = PW_KVFILE_KEY("Buffers"),
        [PW_MEM_CACHED] = PW_KVFILE_KEY("Cached"),
        [PW_MEM_SWAP_CACHED] = PW_KVFILE_KEY("SwapCached"),
        [PW_MEM_ACTIVE_FILE] = PW_KVFILE_KEY("Active(file)"),
        [PW_MEM_INACTIVE_FILE] = PW_KVFILE_KEY("Inactive(file)"),
        [PW_MEM_ACTIVE_ANON] = PW_KVFILE_KEY("Active(anon)"),
        [PW_MEM_INACTIVE_ANON] = PW_KVFILE_KEY("Inactive(anon)"),
        [PW_MEM_SWAP_TOTAL] = PW_KVFILE_KEY("SwapTotal"),
        [PW_MEM_SWAP_FREE] = PW_KVFILE_KEY("SwapFree"),
        [PW_MEM_DIRTY] = PW_KVFILE_KEY("Dirty"),
        [PW_MEM_WRITEBACK] = PW_KVFILE_KEY("Writeback"),
        [PW_MEM_SHMEM] = PW_KVFILE_KEY("Shmem"),
        [PW_MEM_SRECLAIMABLE] = PW_KVFILE_KEY("SReclaimable"),
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

static const struct pw_kvfile mem_table = {
        .keys = mem_keys, .sorted = mem_sorted, .count = PW_MEM_COUNT, .key_suffix = ':'};

int pw_meminfo_parse(const char *buf, size_t len, struct pw_meminfo *ret)
{
	struct pw_meminfo parsed = {0};
	int r = pw_kvfile_parse(&mem_table, buf, len, parsed.kb, &parsed.present);

	if (r < 0)
		return r;
	*ret = parsed;
	return 0;
}
