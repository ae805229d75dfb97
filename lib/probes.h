/* probes.h — evidence the samples cannot give: which processes took the CPU time, the IRQ lines'
 * affinity, the frequency governor's tunables, the busiest disks. Read from /proc and /sys on the
 * detector's thread, only while an alert that needs them is pending or firing, and bounded (at most
 * pids_cap processes per scan, PW_PROBE_DISKS_CAP devices).
 *
 * Not part of the detector: the detector stays a pure function of the samples (a replay gives the
 * same alerts); the daemon adds these findings to the copies of the alerts it publishes and logs. */
#ifndef PW_PROBES_H
#define PW_PROBES_H

#include "alert.h"
#include "sample.h"

/* Every process is read (a hog may have any pid) up to this many: 11-16 us and 32-64 bytes each,
 * so 11-16 ms per 1 000 processes, ~0.5 s and 2 MiB at the bound (the traditional pid_max), which
 * no real host comes near; past it the evidence says truncated. */
#define PW_PROBE_PIDS_DEFAULT 32768
#define PW_PROBE_DISKS_CAP 256

struct pw_probes_config {
	const char *procfs; /* "/proc" (fixture trees in tests) */
	const char *sysfs;  /* "/sys" */
	uint32_t pids_cap;  /* processes read per scan at most (0: PW_PROBE_PIDS_DEFAULT) */
	int64_t min_gap_ns; /* a scan this soon after the last one reuses its results (catching up) */
};

struct pw_probes;

/* NULL on allocation failure. The roots are copied. */
struct pw_probes *pw_probes_new(const struct pw_probes_config *config);
void pw_probes_free(struct pw_probes *probes);

/* Read what the active alerts[0..n) need, now (now_ns: CLOCK_MONOTONIC of the call), and keep it
 * for pw_probes_apply(). sample is the newest one judged (USER_HZ, the host's busy time). Sources
 * no active alert needs are not read, and their previous scans are forgotten, so a later alert
 * never compares with a stale one. Missing or malformed files are left out, never fatal. One
 * thread only (the detector's); it may block on /proc, the sampler never waits for it. */
void pw_probes_update(struct pw_probes *probes, const struct pw_alert *alerts, size_t n,
                      const struct pw_sample *sample, int64_t now_ns);

/* Copy the latest findings for alert's rule into its evidence and add a sentence to its
 * description when it fits. Pure; an alert the probes have nothing for is left as it is. */
void pw_probes_apply(const struct pw_probes *probes, struct pw_alert *alert);

#endif
