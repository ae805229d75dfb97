/* probe_procs.c — which processes took the CPU time: /proc/[pid]/stat of every process, utime and
 * stime compared with the previous scan. A process is the same one when its pid and starttime match
 * (pids are reused); one that started or ended within the window is left out (its time is not in
 * both scans). Process level: threads are summed in their process.
 *
 * Bounded without hiding anyone: each process is compared as it is read and only the top
 * PW_EV_PROCS are kept with their comm, so a scan remembers 32 bytes a process (pid, starttime,
 * utime, stime) for the next one, in tables that grow with the processes there are, up to cap.
 * The cost is one open/read/close a process, 11-16 us: 11-16 ms per 1 000 processes
 * (docs/detection.md). Reading only the first 4 096 in /proc's order (lowest pids first) used to
 * let idle low pids hide a hog. */
#define _GNU_SOURCE
#include "probes_internal.h"
#include "text_escape.h"

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
	return n ? bsearch(&key, arr, n, sizeof(*arr), by_pid) : NULL; /* arr may be NULL when empty */
}

static bool is_pid(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= 10 && name[0] >= '1' && name[0] <= '9' && strspn(name, "0123456789") == len;
}

/* One process into e and its comm: 0, -ENOENT when it vanished or cannot be read, -EINVAL when
 * its stat did not parse. */
static int read_one(struct pw_probes *p, const char *pid, struct pw_proc_entry *e, char comm[PW_COMM_MAX])
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
	memcpy(comm, st.comm, PW_COMM_MAX);
	return 0;
}

/* Room for one more process in scan->cur: both tables grow together (they swap after each scan),
 * doubling, up to cap. False at cap or out of memory: the scan is then truncated. */
static bool room(struct pw_proc_scan *scan)
{
	struct pw_proc_entry *t;
	uint32_t want;

	if (scan->ncur < scan->alloc)
		return true;
	if (scan->alloc >= scan->cap)
		return false;
	want = scan->alloc ? scan->alloc * 2 : 256;
	if (want > scan->cap || want < scan->alloc)
		want = scan->cap;
	if (!(t = realloc(scan->cur, want * sizeof(*t))))
		return false;
	scan->cur = t;
	if (!(t = realloc(scan->prev, want * sizeof(*t))))
		return false;
	scan->prev = t;
	scan->alloc = want;
	return true;
}

/* Keep the PW_EV_PROCS processes with the highest key, highest first. */
static void top_insert(struct pw_ev_processes *ev, float key, float *keys, const struct pw_proc_entry *e,
                       const char *comm, float sys, float user)
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
	/* comm is any bytes the process chose: escaped here, where it becomes evidence, so every output
	 * (JSON, /status text, descriptions, the log, webhooks) shows it printable and valid UTF-8. */
	pw_text_escape(comm, strnlen(comm, PW_COMM_MAX), ev->top[at].comm, sizeof(ev->top[at].comm));
	ev->top[at].system = sys;
	ev->top[at].user = user;
}

/* The top lists so far: their keys, and the previous scan's ticks per CPU over the window. */
struct ranking {
	double per_cpu_ticks; /* 0: no window yet, nothing compared */
	float sys_keys[PW_EV_PROCS], total_keys[PW_EV_PROCS];
};

/* Compare one process with the previous scan: add its time to the sums, rank it. */
static void judge(struct pw_proc_scan *scan, struct ranking *rk, const struct pw_proc_entry *e,
                  const char *comm)
{
	const struct pw_proc_entry *was = find(scan->prev, scan->nprev, e->pid);

	if (!was || was->starttime != e->starttime || e->stime < was->stime || e->utime < was->utime)
		return; /* new, reused pid, or counters that went backwards */
	float sys = (float)((double)(e->stime - was->stime) / rk->per_cpu_ticks);
	float user = (float)((double)(e->utime - was->utime) / rk->per_cpu_ticks);
	scan->by_system.system += sys;
	scan->by_system.user += user;
	if (sys > 0)
		top_insert(&scan->by_system, sys, rk->sys_keys, e, comm, sys, user);
	if (sys + user > 0)
		top_insert(&scan->by_total, sys + user, rk->total_keys, e, comm, sys, user);
}

/* Read every process into scan->cur, ranking each as it comes (by_system and by_total hold the
 * scan's header); returns false when /proc cannot be listed. */
static bool list_processes(struct pw_probes *p, struct pw_proc_scan *scan, struct ranking *rk)
{
	int fd = p->proc_dirfd >= 0 ? openat(p->proc_dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char comm[PW_COMM_MAX];

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	scan->ncur = 0;
	while ((de = readdir(dir))) {
		if (!is_pid(de->d_name))
			continue;
		if (!room(scan)) {
			scan->by_system.truncated = true; /* bounded cost: say so rather than read on */
			break;
		}
		struct pw_proc_entry *e = &scan->cur[scan->ncur];
		int r = read_one(p, de->d_name, e, comm);
		if (r == -EINVAL)
			scan->by_system.malformed++;
		if (r < 0)
			continue;
		if (rk->per_cpu_ticks > 0)
			judge(scan, rk, e, comm);
		scan->ncur++;
	}
	closedir(dir);
	/* The next scan looks processes up in this one. */
	if (scan->ncur > 1) /* qsort(NULL, 0) is undefined: a tree with no processes has no table yet */
		qsort(scan->cur, scan->ncur, sizeof(*scan->cur), by_pid);
	return true;
}

void pw_probe_procs(struct pw_probes *p, uint32_t user_hz, int64_t now_ns)
{
	struct pw_proc_scan *scan = &p->procs;
	struct pw_ev_processes head = {.status = PW_PROBE_WARMING};
	struct ranking rk = {0};
	double window_s = (double)(now_ns - scan->prev_ns) / 1e9;

	if (scan->have_prev && window_s > 0 && user_hz > 0) {
		head.status = PW_PROBE_OK;
		head.window_s = (float)window_s;
		rk.per_cpu_ticks = window_s * user_hz;
	}
	scan->by_system = scan->by_total = head;
	if (!list_processes(p, scan, &rk)) {
		pw_probe_procs_forget(scan);
		scan->by_system.status = scan->by_total.status = PW_PROBE_UNAVAILABLE;
		return;
	}
	scan->by_system.scanned = scan->ncur;
	scan->by_total.scanned = scan->ncur;
	scan->by_total.truncated = scan->by_system.truncated;
	scan->by_total.malformed = scan->by_system.malformed;
	scan->by_total.system = scan->by_system.system;
	scan->by_total.user = scan->by_system.user;
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
	scan->alloc = scan->ncur = scan->nprev = 0;
}
