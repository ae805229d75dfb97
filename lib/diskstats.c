/* diskstats.c — parser for /proc/diskstats (Documentation/admin-guide/iostats.rst).
 *
 * "   8       0 sda 2870 912 1287730 1685 37 0 504 3 0 916 1689 [8 0 296 1 [7 0]]". Only the first
 * eleven fields exist on every kernel since 2.6.25; the rest are ignored. */
#include "diskstats.h"

#include "scan.h"

#include <errno.h>
#include <string.h>

#define FIELDS 11

static int scan_u32(struct pw_scan *scan, uint32_t *ret)
{
	uint64_t v;
	int r = pw_scan_u64(scan, &v);

	if (r < 0)
		return r;
	if (v > UINT32_MAX)
		return -ERANGE;
	*ret = (uint32_t)v;
	return 0;
}

/* One line; the cursor at its start. 0 or a negative errno (the caller skips the line). */
static int parse_line(struct pw_scan *scan, struct pw_disk *d)
{
	uint64_t f[FIELDS];
	const char *name;
	size_t len;
	int r;

	if ((r = scan_u32(scan, &d->major)) < 0 || (r = scan_u32(scan, &d->minor)) < 0)
		return r;
	if (pw_scan_token(scan, &name, &len) < 0)
		return -EINVAL;
	pw_copy_label(d->name, sizeof(d->name), name, len);
	for (int i = 0; i < FIELDS; i++) {
		if ((r = pw_scan_u64(scan, &f[i])) < 0)
			return r;
		if (!pw_scan_eof(scan) && !pw_scan_is_blank(*scan->pos) && *scan->pos != '\n')
			return -EINVAL;
	}
	d->reads = f[0];
	d->sectors_read = f[2];
	d->writes = f[4];
	d->sectors_written = f[6];
	d->io_ticks_ms = f[9];
	return 0;
}

int pw_diskstats_parse(const char *buf, size_t len, struct pw_disk *ret, uint32_t cap, uint32_t *ret_bad)
{
	struct pw_scan scan;
	uint32_t n = 0, bad = 0;
	bool full = false;

	pw_scan_init(&scan, buf, len);
	while (!pw_scan_eof(&scan)) {
		struct pw_disk d = {0};

		if (pw_scan_at_eol(&scan)) { /* a blank line */
			pw_scan_next_line(&scan);
			continue;
		}
		if (parse_line(&scan, &d) < 0)
			bad++;
		else if (n < cap)
			ret[n++] = d;
		else
			full = true;
		pw_scan_next_line(&scan);
	}
	*ret_bad = bad;
	return full ? -ENOBUFS : (int)n;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool pw_disk_name_is_whole(const char *name)
{
	static const char *const lettered[] = {"sd", "hd", "vd", "xvd"};
	size_t len = strlen(name);

	if (strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0 || len == 0)
		return false;
	/* sda1, vdb2: letters then a partition number. */
	for (size_t i = 0; i < sizeof(lettered) / sizeof(lettered[0]); i++) {
		size_t pre = strlen(lettered[i]), at = pre;
		if (strncmp(name, lettered[i], pre) != 0)
			continue;
		while (name[at] >= 'a' && name[at] <= 'z')
			at++;
		if (at > pre)
			return !all_digits(name + at);
	}
	/* nvme0n1p2, mmcblk0p1, nbd0p1: a digit, 'p', digits. */
	const char *p = strrchr(name, 'p');
	if (p && p > name && p[-1] >= '0' && p[-1] <= '9' && all_digits(p + 1))
		return false;
	return true;
}
