/* pw_types.c — names of the shared enums, as the kernel and our labels spell them. */
#include "pw_types.h"

static const char *const mode_names[PW_MODE_COUNT] = {
        "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice",
};

static const char *const softirq_names[PW_SOFTIRQ_COUNT] = {
        "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

static const char *const source_names[PW_SRC_COUNT] = {
        "stat", "interrupts", "softirqs", "cpufreq", "vmstat", "meminfo", "pressure", "loadavg",
};

static const char *const psi_names[PW_PSI_COUNT] = {"cpu", "memory", "io", "irq"};

const char *pw_cpu_mode_name(enum pw_cpu_mode mode)
{
	return (unsigned)mode < PW_MODE_COUNT ? mode_names[mode] : "unknown";
}

const char *pw_softirq_name(enum pw_softirq_type type)
{
	return (unsigned)type < PW_SOFTIRQ_COUNT ? softirq_names[type] : "unknown";
}

const char *pw_source_name(enum pw_source source)
{
	return (unsigned)source < PW_SRC_COUNT ? source_names[source] : "unknown";
}

const char *pw_psi_resource_name(enum pw_psi_resource resource)
{
	return (unsigned)resource < PW_PSI_COUNT ? psi_names[resource] : "unknown";
}
