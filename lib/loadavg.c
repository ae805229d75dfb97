/* loadavg.c — parser for /proc/loadavg: "0.64 0.19 0.06 1/88 6439".
 *
 * Kernel doc: Documentation/filesystems/proc.rst; fs/proc/loadavg.c prints
 * "%lu.%02lu %lu.%02lu %lu.%02lu %u/%d %d\n". Nothing has changed in this format since 2.6. */
#include "loadavg.h"

#include "scan.h"

#include <errno.h>

/* A decimal that must fit 32 bits. */
static int scan_u32(struct pw_scan *scan, uint32_t *ret)
{
	uint64_t value;
	int r = pw_scan_u64(scan, &value);

	if (r < 0)
		return r;
	if (value > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)value;
	return 0;
}

/* "<runnable>/<threads>" */
static int scan_ratio(struct pw_scan *scan, uint32_t *ret_num, uint32_t *ret_den)
{
	int r = scan_u32(scan, ret_num);

	if (r < 0)
		return r;
	if (scan->pos >= scan->end || *scan->pos != '/')
		return -EINVAL;
	scan->pos++;
	return scan_u32(scan, ret_den);
}

int pw_loadavg_parse(const char *buf, size_t len, struct pw_loadavg *ret)
{
	struct pw_loadavg la;
	struct pw_scan scan;
	int r;

	pw_scan_init(&scan, buf, len);
	r = pw_scan_hundredths(&scan, &la.load1);
	if (r == 0)
		r = pw_scan_hundredths(&scan, &la.load5);
	if (r == 0)
		r = pw_scan_hundredths(&scan, &la.load15);
	if (r == 0)
		r = scan_ratio(&scan, &la.runnable, &la.threads);
	if (r == 0)
		r = scan_u32(&scan, &la.last_pid);
	if (r < 0)
		return r;
	*ret = la;
	return 0;
}
