/* probe_procs.c — which processes took the CPU time: /proc/[pid]/stat of every process (at most
 * cap per scan), utime and stime compared with the previous scan. A process is the same one when
 * its pid and starttime match (pids are reused); one that started or ended within the window is
 * left out (its time is not in both scans). Process level: threads are summed in their process. */
#define _GNU_SOURCE
#include "probes_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int by_pid(const void *a, const void *b)
{
	const struct pw_proc_entry *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const struct pw_proc_entry *find(const struct pw_proc_entry *arr, uint32_t n, int32_t pid)
{
	struct pw_proc_entry key = {.pid = pid};
	return bsearch(&key, arr, n, sizeof(*arr), by_pid);
}

static bool is_pid(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= 10 && name[0] >= '1' && name[0] <= '9' && strspn(name, "0123456789") == len;
}

/* One process into e: 0, -ENOENT when it vanished or cannot be read, -EINVAL when its stat did
 * not parse. */
static int read_one(struct pw_probes *p, const char *pid, struct pw_proc_entry *e)
{
	char path[300]; /* d_name is at most 255 bytes; is_pid() keeps it to 10 */
	struct pw_pidstat st;

	snprintf(path, sizeof(path), "%s/stat", pid);
	if (pw_probe_read(p, p->proc_dirfd, path) < 0)
		return -ENOENT;
	if (pw_pidstat_parse(p->buf.data, p->buf.len, &st) < 0)
		return -EINVAL;
	e->pid = st.pid;
	e->starttime = st.starttime;
	e->utime = st.utime;
	e->stime = st.stime;
	memcpy(e->comm, st.comm, sizeof(e->comm));
	return 0;
}

/* Fill scan->cur; returns false when /proc cannot be listed. */
static bool list_processes(struct pw_probes *p, struct pw_proc_scan *scan, bool *ret_truncated,
                           uint32_t *ret_malformed)
{
	int fd = p->proc_dirfd >= 0 ? openat(p->proc_dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	scan->ncur = 0;
	*ret_truncated = false;
	*ret_malformed = 0;
	while ((de = readdir(dir))) {
		if (!is_pid(de->d_name))
			continue;
		if (scan->ncur == scan->cap) {
			*ret_truncated = true; /* bounded cost: say so rather than read on */
			break;
		}
		int r = read_one(p, de->d_name, &scan->cur[scan->ncur]);
		if (r == 0)
			scan->ncur++;
		else if (r == -EINVAL)
			(*ret_malformed)++;
	}
	closedir(dir);
	qsort(scan->cur, scan->ncur, sizeof(*scan->cur), by_pid);
	return true;
}

/* Keep the PW_EV_PROCS processes with the highest key, highest first. */
static void top_insert(struct pw_ev_processes *ev, float key, float *keys, const struct pw_proc_entry *e,
                       float sys, float user)
{
	uint32_t at = ev->n < PW_EV_PROCS ? ev->n++ : PW_EV_PROCS;

	for (; at > 0 && keys[at - 1] < key; at--) {
		if (at < PW_EV_PROCS) {
			ev->top[at] = ev->top[at - 1];
			keys[at] = keys[at - 1];
		}
	}
	if (at == PW_EV_PROCS)
		return;
	keys[at] = key;
	ev->top[at].pid = e->pid;
	snprintf(ev->top[at].comm, sizeof(ev->top[at].comm), "%s", e->comm);
	ev->top[at].system = sys;
	ev->top[at].user = user;
}

static void compare(struct pw_proc_scan *scan, double per_cpu_ticks)
{
	float sys_keys[PW_EV_PROCS], total_keys[PW_EV_PROCS];

	for (uint32_t i = 0; i < scan->ncur; i++) {
		const struct pw_proc_entry *e = &scan->cur[i], *was = find(scan->prev, scan->nprev, e->pid);
		if (!was || was->starttime != e->starttime || e->stime < was->stime || e->utime < was->utime)
			continue; /* new, reused pid, or counters that went backwards */
		float sys = (float)((double)(e->stime - was->stime) / per_cpu_ticks);
		float user = (float)((double)(e->utime - was->utime) / per_cpu_ticks);
		scan->by_system.system += sys;
		scan->by_system.user += user;
		if (sys > 0)
			top_insert(&scan->by_system, sys, sys_keys, e, sys, user);
		if (sys + user > 0)
			top_insert(&scan->by_total, sys + user, total_keys, e, sys, user);
	}
	scan->by_total.system = scan->by_system.system;
	scan->by_total.user = scan->by_system.user;
}

void pw_probe_procs(struct pw_probes *p, uint32_t user_hz, int64_t now_ns)
{
	struct pw_proc_scan *scan = &p->procs;
	struct pw_ev_processes head = {0};
	bool truncated;
	uint32_t malformed;

	if (!scan->cur) {
		scan->cur = calloc(scan->cap, sizeof(*scan->cur));
		scan->prev = calloc(scan->cap, sizeof(*scan->prev));
	}
	if (!scan->cur || !scan->prev || !list_processes(p, scan, &truncated, &malformed)) {
		pw_probe_procs_forget(scan);
		scan->by_system.status = scan->by_total.status = PW_PROBE_UNAVAILABLE;
		return;
	}
	head.truncated = truncated;
	head.malformed = malformed;
	head.scanned = scan->ncur;
	head.status = PW_PROBE_WARMING;
	double window_s = (double)(now_ns - scan->prev_ns) / 1e9;
	if (scan->have_prev && window_s > 0 && user_hz > 0) {
		head.status = PW_PROBE_OK;
		head.window_s = (float)window_s;
	}
	scan->by_system = scan->by_total = head;
	if (head.status == PW_PROBE_OK)
		compare(scan, window_s * user_hz);
	/* This scan is the next one's reference. */
	struct pw_proc_entry *t = scan->prev;
	scan->prev = scan->cur;
	scan->cur = t;
	scan->nprev = scan->ncur;
	scan->prev_ns = now_ns;
	scan->have_prev = true;
}

void pw_probe_procs_forget(struct pw_proc_scan *scan)
{
	scan->have_prev = false;
	scan->nprev = 0;
	memset(&scan->by_system, 0, sizeof(scan->by_system));
	memset(&scan->by_total, 0, sizeof(scan->by_total));
}

void pw_probe_procs_done(struct pw_proc_scan *scan)
{
	free(scan->cur);
	free(scan->prev);
	scan->cur = scan->prev = NULL;
}
