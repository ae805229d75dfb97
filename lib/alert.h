/* alert.h — an alert and its evidence as plain data: what the detector produces and every reader
 * (HTTP, the log, later the notifier) copies. Pointer-free, so it can travel through a ring. */
#ifndef PW_ALERT_H
#define PW_ALERT_H

#include "pw_types.h"

/* The rules. Names are a fixed interface (tools outside the project match on them). */
enum pw_alert_name {
	PW_ALERT_INTERRUPT_TIME_HIGH,
	PW_ALERT_CPU_FREQUENCY_LOW,
	PW_ALERT_INTERRUPT_RATE_DROP,
	PW_ALERT_MEMORY_SWAPPING,
	PW_ALERT_IOWAIT_HIGH,
	PW_ALERT_SYSTEM_TIME_HIGH,
	PW_ALERT_STEAL_HIGH,
	PW_ALERT_COUNT
};

enum pw_alert_state { PW_ALERT_INACTIVE, PW_ALERT_PENDING, PW_ALERT_FIRING };
enum pw_severity { PW_SEVERITY_WARNING, PW_SEVERITY_CRITICAL };

#define PW_EV_CPUS 8
#define PW_EV_FREQ_CPUS 16
#define PW_EV_LINES 5
#define PW_EV_SOFTIRQS 5

#define PW_EV_PROCS 5
#define PW_EV_DISKS 3
#define PW_EV_COMM_MAX 64 /* a comm escaped (text_escape.h): 15 bytes may take 60 */
#define PW_EV_DISK_NAME_MAX 32
#define PW_EV_AFFINITY_MAX 48
#define PW_EV_EPP_MAX 32

/* Evidence read from /proc and /sys by the daemon's probes (lib/probes.c) while an alert is active,
 * not by the detector: the detector leaves these zeroed, which reads "not probed". */
enum pw_probe_status {
	PW_PROBE_NOT_RUN,     /* not looked at (yet) */
	PW_PROBE_OK,          /* the figures below are measured */
	PW_PROBE_WARMING,     /* first scan done: per-interval figures need the next one */
	PW_PROBE_UNAVAILABLE, /* the source could not be read (no /proc/[pid], no diskstats) */
};

/* One process's CPU time over the probe window, in CPUs (1.0 = one CPU for the whole window). */
struct pw_ev_process {
	int32_t pid;
	char comm[PW_EV_COMM_MAX]; /* escaped: printable UTF-8, "\xNN" for control and non-UTF-8 bytes */
	float system, user;
};

/* Processes by CPU time over the probe window (bounded: at most pids_cap read per scan). */
struct pw_ev_processes {
	uint32_t status;     /* enum pw_probe_status */
	bool truncated;      /* more pids existed than the scan may read */
	uint32_t scanned;    /* processes read in the last scan */
	uint32_t malformed;  /* stat files that did not parse (skipped; a vanished process is not one) */
	float window_s;      /* between the two scans compared */
	float system, user;  /* all processes read, in CPUs */
	float host_busy;     /* the host's busy time (not idle, not iowait), in CPUs, last sample */
	float host_handlers; /* the host's irq + softirq time, in CPUs, last sample */
	uint32_t n;
	struct pw_ev_process top[PW_EV_PROCS];
};

/* A block device over the probe window. */
struct pw_ev_disk {
	char name[PW_EV_DISK_NAME_MAX];
	float utilization;   /* io_ticks delta / window, 0..1 */
	float reads, writes; /* completed per second */
};

struct pw_ev_disks {
	uint32_t status;    /* enum pw_probe_status */
	uint32_t malformed; /* diskstats lines that did not parse (skipped) */
	uint32_t n;         /* busiest first; partitions, loop and ram devices left out */
	struct pw_ev_disk top[PW_EV_DISKS];
};

/* The frequency governor's tunables (sysfs), UINT32_MAX / "" when the file is absent. */
struct pw_ev_governor {
	uint32_t status;       /* enum pw_probe_status */
	uint32_t up_threshold; /* percent busy before ondemand/conservative go up */
	uint32_t sampling_rate_us;
	char epp[PW_EV_EPP_MAX]; /* energy_performance_preference of the first busy CPU */
};

struct pw_ev_line {
	char irq[PW_IRQ_NAME_MAX];
	char device[PW_IRQ_DEVICE_MAX];
	float rate, baseline; /* per second */
};

/* InterruptTimeHigh: where the handler time went, and that the count did not explain it. */
struct pw_ev_interrupt_time {
	float host_irq, host_softirq, host_baseline; /* shares of all CPUs' time */
	float intr_rate, intr_baseline;              /* interrupts per second */
	uint32_t ncpus;
	struct {
		uint32_t cpu;
		float irq, softirq, baseline; /* shares of that CPU */
	} cpus[PW_EV_CPUS];
	uint32_t nlines; /* lines whose rate rose most over their baseline */
	struct pw_ev_line lines[PW_EV_LINES];
	uint32_t nsoftirqs;
	struct {
		uint32_t type;
		float rate, baseline;
	} softirqs[PW_EV_SOFTIRQS];
	/* Why the time counts: per-event cost against the baseline (us per hard or soft interrupt on
	 * the CPU judged), and the events added over their baselines. traffic: the added events explain
	 * the time at a plausible cost, so only its size fired the rule. */
	float cost_us, cost_baseline_us, added_events;
	bool traffic;
	bool time_estimated; /* no CONFIG_IRQ_TIME_ACCOUNTING (no /proc/pressure/irq): tick-sampled */
	/* Probed: /proc/irq/N/smp_affinity_list of lines[i] ("" unknown, e.g. arch lines like LOC). */
	char affinity[PW_EV_LINES][PW_EV_AFFINITY_MAX];
	struct pw_ev_processes processes; /* by user + system: how little of the time they explain */
};

/* CpuFrequencyLow: the busy CPUs and their interval-average frequency. */
struct pw_ev_frequency {
	uint32_t busy_cpus;
	float busy_avg_ratio; /* mean avg/max frequency over busy CPUs */
	bool from_time_in_state;
	bool reference_base; /* some CPU was compared with its base_frequency (intel_pstate), not max */
	char governor[PW_CPUFREQ_NAME_MAX];
	char driver[PW_CPUFREQ_NAME_MAX];
	uint32_t ncpus;
	struct {
		uint32_t cpu;
		float busy;
		uint32_t avg_khz, max_khz;
		uint32_t base_khz; /* the reference when not 0; else max_khz */
	} cpus[PW_EV_FREQ_CPUS];
	struct pw_ev_governor tunables; /* probed */
};

/* InterruptRateDrop: which rate collapsed, from what, since when. */
struct pw_ev_rate_drop {
	bool host; /* the host total, else the line below */
	struct pw_ev_line line;
	float baseline_spread;
	float min_rate; /* lowest rate seen since the drop started */
	int64_t started_real_ns;
};

/* MemorySwapping and IoWaitHigh: the memory-pressure picture. */
struct pw_ev_memory {
	float swap_in, swap_out; /* pages per second */
	float swap_in_baseline, swap_out_baseline;
	float major_faults, major_faults_baseline;
	float refaults;                /* workingset refaults per second */
	float iowait, iowait_baseline; /* host shares */
	uint64_t mem_total_kb, mem_available_kb, mem_free_kb, cached_kb, swap_total_kb, swap_free_kb;
	uint32_t psi_memory_some, psi_io_some; /* avg10, hundredths of a percent; UINT32_MAX unknown */
	float psi_memory_stall,
	        psi_io_stall; /* percent of the last interval some task stalled; NAN unknown */
	float psi_memory_baseline, psi_io_baseline;
	uint32_t procs_blocked;
	struct pw_ev_disks disks; /* probed */
};

/* SystemTimeHigh: kernel time against user time, and the scheduler's view. */
struct pw_ev_system_time {
	float host_system, host_user, system_baseline;
	float ctxt_rate, ctxt_baseline;
	float run_queue, run_queue_baseline;
	float kernel_mix_required; /* the kernel's share of busy time a CPU needed (sys / (sys + user)) */
	uint32_t ncpus;            /* CPUs where system time dominates, busiest first */
	struct {
		uint32_t cpu;
		float system, user;
	} cpus[PW_EV_CPUS];
	struct pw_ev_processes processes; /* probed: by system time */
};

/* StealHigh: the hypervisor took the time. */
struct pw_ev_steal {
	float host_steal, steal_baseline;
};

struct pw_alert {
	enum pw_alert_name name;
	enum pw_alert_state state;
	enum pw_severity severity;
	int64_t started_real_ns; /* the condition first held (pending since) */
	int64_t started_mono_ns;
	int64_t fired_real_ns;          /* 0 while pending */
	double value, baseline, spread; /* the headline figure, its baseline mean and spread */
	char scope[48];                 /* "host", "cpu3", "irq 41 (eth0-rx-0)" */
	char summary[192];
	char description[768];
	union {
		struct pw_ev_interrupt_time interrupt_time;
		struct pw_ev_frequency frequency;
		struct pw_ev_rate_drop rate_drop;
		struct pw_ev_memory memory;
		struct pw_ev_system_time system_time;
		struct pw_ev_steal steal;
	} evidence; /* the member for name */
};

/* A state change, as the log and the notifier see it. */
struct pw_alert_event {
	struct pw_alert alert;    /* the alert after the change */
	enum pw_alert_state from; /* INACTIVE..FIRING */
	bool resolved;            /* FIRING -> INACTIVE (a pending alert that clears just goes inactive) */
	int64_t real_ns;
};

/* The name as tools see it ("InterruptTimeHigh"). */
const char *pw_alert_name_str(enum pw_alert_name name);
/* Parse a name; returns the enum or -1. */
int pw_alert_name_parse(const char *str);
const char *pw_alert_state_str(enum pw_alert_state state); /* "inactive", "pending", "firing" */
const char *pw_severity_str(enum pw_severity severity);    /* "warning", "critical" */

#endif
