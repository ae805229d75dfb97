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
	uint32_t procs_blocked;
};

/* SystemTimeHigh: kernel time against user time, and the scheduler's view. */
struct pw_ev_system_time {
	float host_system, host_user, system_baseline;
	float ctxt_rate, ctxt_baseline;
	float run_queue, run_queue_baseline;
	uint32_t ncpus; /* CPUs where system time dominates, busiest first */
	struct {
		uint32_t cpu;
		float system, user;
	} cpus[PW_EV_CPUS];
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
