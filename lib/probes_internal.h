/* probes_internal.h — the parts of the probes (probes.c: dispatch, sysfs tunables, IRQ affinity,
 * words; probe_procs.c: the process scan; probe_disks.c: diskstats deltas). Not public API. */
#ifndef PW_PROBES_INTERNAL_H
#define PW_PROBES_INTERNAL_H

#include "diskstats.h"
#include "pidstat.h"
#include "probes.h"
#include "readfile.h"

/* What a scan keeps of one process (32 bytes; its comm only while ranked): pid + starttime say who
 * it is (pids are reused). */
struct pw_proc_entry {
	int32_t pid;
	uint64_t starttime, utime, stime;
};

struct pw_proc_scan {
	struct pw_proc_entry *cur, *prev; /* [alloc]: prev sorted by pid, cur once its scan is over */
	uint32_t cap;                     /* processes read per scan at most */
	uint32_t alloc, ncur, nprev;      /* alloc grows by doubling up to cap, as processes appear */
	bool have_prev;
	int64_t prev_ns;
	struct pw_ev_processes by_system, by_total; /* the findings of the last scan */
};

struct pw_disk_scan {
	struct pw_disk *cur, *prev; /* [PW_PROBE_DISKS_CAP] */
	uint32_t nprev;
	bool have_prev;
	int64_t prev_ns;
	struct pw_ev_disks found;
};

struct pw_probes {
	char *procfs, *sysfs;
	int proc_dirfd, sys_dirfd; /* -1 when the root cannot be opened */
	int64_t min_gap_ns;
	struct pw_filebuf buf;
	struct pw_proc_scan procs;
	struct pw_disk_scan disks;
	int64_t procs_ns, disks_ns; /* when each was last read (min_gap_ns) */
	struct pw_ev_governor governor;
	uint32_t naffinity;
	struct {
		char irq[PW_IRQ_NAME_MAX];
		char list[PW_EV_AFFINITY_MAX];
	} affinity[PW_EV_LINES];
};

/* Read a small file relative to dirfd into p->buf; 0 or -errno. */
int pw_probe_read(struct pw_probes *p, int dirfd, const char *path);

/* Scan /proc/[pid]/stat (every process, up to cap), compare each with the previous scan as it is
 * read and keep the top ones, fill the findings.
 * user_hz from the sample; the host figures are set by the caller. */
void pw_probe_procs(struct pw_probes *p, uint32_t user_hz, int64_t now_ns);
void pw_probe_procs_forget(struct pw_proc_scan *scan);
void pw_probe_procs_done(struct pw_proc_scan *scan);

/* Read /proc/diskstats, compare with the previous read, fill the busiest whole disks. */
void pw_probe_disks(struct pw_probes *p, int64_t now_ns);
void pw_probe_disks_forget(struct pw_disk_scan *scan);
void pw_probe_disks_done(struct pw_disk_scan *scan);

#endif
