/* diskstats.h — parser for /proc/diskstats: per block device I/O counts and busy time.
 *
 * Kernel doc: Documentation/admin-guide/iostats.rst; block/genhd.c diskstats_show() prints
 * "%4d %7d %s" (major, minor, name) then 11 fields before 4.18, 15 since 4.18 (discards) and 17
 * since 5.5 (flushes). Field 10 (io_ticks, ms the device had I/O in flight) over an interval is its
 * utilisation. Partitions, loop and ram devices are listed too. */
#ifndef PW_DISKSTATS_H
#define PW_DISKSTATS_H

#include "pw_types.h"

#define PW_DISK_NAME_MAX 32

struct pw_disk {
	char name[PW_DISK_NAME_MAX];
	uint32_t major, minor;
	uint64_t reads, writes;                 /* completed: fields 1 and 5 */
	uint64_t sectors_read, sectors_written; /* fields 3 and 7, 512-byte units */
	uint64_t io_ticks_ms;                   /* field 10 */
};

/* Parse /proc/diskstats into ret[0..cap). A malformed line (fewer than 11 fields, junk, a number
 * too big) is skipped and counted in *ret_bad; the others are kept. Returns the number of devices
 * stored, or -ENOBUFS when more than cap were listed (the first cap are stored). Thread-safe. */
int pw_diskstats_parse(const char *buf, size_t len, struct pw_disk *ret, uint32_t cap, uint32_t *ret_bad);

/* Whether a device is worth showing as a disk: not loop or ram, and not a partition by its name
 * (sda1, nvme0n1p2, mmcblk0p1, vda3; but md0, dm-1, nvme0n1, zram0, sr0 are whole). A name-only
 * guess for trees without /sys/block. */
bool pw_disk_name_is_whole(const char *name);

#endif
