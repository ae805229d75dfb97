/* probe_disks.c — the busiest disks: /proc/diskstats compared with the previous read. Utilisation
 * is io_ticks (ms with I/O in flight) over the window, as iostat's %util. Whole devices only: a
 * partition repeats its disk, loop and ram devices are not disks. */
#define _GNU_SOURCE
#include "probes_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Under a sysfs with block/, a whole disk is what it lists; without (fixture trees), the name. */
static bool whole_disk(const struct pw_probes *p, const char *name)
{
	struct stat st;
	char path[PW_DISK_NAME_MAX + 8];

	if (!pw_disk_name_is_whole(name))
		return false;
	if (p->sys_dirfd < 0 || fstatat(p->sys_dirfd, "block", &st, 0) < 0)
		return true;
	snprintf(path, sizeof(path), "block/%s", name);
	return fstatat(p->sys_dirfd, path, &st, 0) == 0;
}

static const struct pw_disk *find(const struct pw_disk *arr, uint32_t n, const struct pw_disk *d)
{
	for (uint32_t i = 0; i < n; i++)
		if (arr[i].major == d->major && arr[i].minor == d->minor && strcmp(arr[i].name, d->name) == 0)
			return &arr[i];
	return NULL;
}

/* Busiest first; equal utilisation (two idle disks, two saturated ones): more I/O first. */
static bool busier(const struct pw_ev_disk *a, const struct pw_ev_disk *b)
{
	if (a->utilization != b->utilization)
		return a->utilization > b->utilization;
	return a->reads + a->writes > b->reads + b->writes;
}

static void top_insert(struct pw_ev_disks *ev, const struct pw_ev_disk *disk)
{
	uint32_t at = ev->n < PW_EV_DISKS ? ev->n++ : PW_EV_DISKS;

	for (; at > 0 && busier(disk, &ev->top[at - 1]); at--)
		if (at < PW_EV_DISKS)
			ev->top[at] = ev->top[at - 1];
	if (at < PW_EV_DISKS)
		ev->top[at] = *disk;
}

static void compare(struct pw_probes *p, struct pw_disk_scan *scan, uint32_t n, double window_s)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct pw_disk *d = &scan->cur[i], *was = find(scan->prev, scan->nprev, d);
		if (!was || d->io_ticks_ms < was->io_ticks_ms || d->reads < was->reads ||
		    d->writes < was->writes || !whole_disk(p, d->name))
			continue;
		struct pw_ev_disk disk = {0};
		double util = (double)(d->io_ticks_ms - was->io_ticks_ms) / 1000.0 / window_s;
		snprintf(disk.name, sizeof(disk.name), "%s", d->name);
		disk.utilization = (float)(util > 1.0 ? 1.0 : util);
		disk.reads = (float)((double)(d->reads - was->reads) / window_s);
		disk.writes = (float)((double)(d->writes - was->writes) / window_s);
		top_insert(&scan->found, &disk);
	}
}

void pw_probe_disks(struct pw_probes *p, int64_t now_ns)
{
	struct pw_disk_scan *scan = &p->disks;
	uint32_t bad;
	int n;

	if (!scan->cur) {
		scan->cur = calloc(PW_PROBE_DISKS_CAP, sizeof(*scan->cur));
		scan->prev = calloc(PW_PROBE_DISKS_CAP, sizeof(*scan->prev));
	}
	if (!scan->cur || !scan->prev || pw_probe_read(p, p->proc_dirfd, "diskstats") < 0) {
		pw_probe_disks_forget(scan);
		scan->found.status = PW_PROBE_UNAVAILABLE;
		return;
	}
	n = pw_diskstats_parse(p->buf.data, p->buf.len, scan->cur, PW_PROBE_DISKS_CAP, &bad);
	if (n == -ENOBUFS)
		n = PW_PROBE_DISKS_CAP; /* the first ones; a host with more block devices is rare */
	double window_s = (double)(now_ns - scan->prev_ns) / 1e9;
	memset(&scan->found, 0, sizeof(scan->found));
	scan->found.status = PW_PROBE_WARMING;
	scan->found.malformed = bad;
	if (scan->have_prev && window_s > 0) {
		scan->found.status = PW_PROBE_OK;
		compare(p, scan, (uint32_t)n, window_s);
	}
	struct pw_disk *t = scan->prev;
	scan->prev = scan->cur;
	scan->cur = t;
	scan->nprev = (uint32_t)n;
	scan->prev_ns = now_ns;
	scan->have_prev = true;
}

void pw_probe_disks_forget(struct pw_disk_scan *scan)
{
	scan->have_prev = false;
	scan->nprev = 0;
	memset(&scan->found, 0, sizeof(scan->found));
}

void pw_probe_disks_done(struct pw_disk_scan *scan)
{
	free(scan->cur);
	free(scan->prev);
	scan->cur = scan->prev = NULL;
}
