/* pw_types.h — enums and limits shared by every perfwatch module.
 *
 * The order of the mode and softirq enums is the kernel's column order in
 * /proc/stat and /proc/softirqs, so parsers can index by column number. */
#ifndef PW_TYPES_H
#define PW_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* /proc/stat cpu columns, Documentation/filesystems/proc.rst "1.7 Miscellaneous kernel statistics". */
enum pw_cpu_mode {
	PW_MODE_USER,
	PW_MODE_NICE,
	PW_MODE_SYSTEM,
	PW_MODE_IDLE,
	PW_MODE_IOWAIT,     /* 2.5.41+ */
	PW_MODE_IRQ,        /* 2.6.0+ */
	PW_MODE_SOFTIRQ,    /* 2.6.0+ */
	PW_MODE_STEAL,      /* 2.6.11+ */
	PW_MODE_GUEST,      /* 2.6.24+, already included in user */
	PW_MODE_GUEST_NICE, /* 2.6.33+, already included in nice */
	PW_MODE_COUNT
};

/* /proc/softirqs rows, include/linux/interrupt.h softirq_to_name[]. */
enum pw_softirq_type {
	PW_SOFTIRQ_HI,
	PW_SOFTIRQ_TIMER,
	PW_SOFTIRQ_NET_TX,
	PW_SOFTIRQ_NET_RX,
	PW_SOFTIRQ_BLOCK,
	PW_SOFTIRQ_IRQ_POLL, /* "BLOCK_IOPOLL" before 4.4 */
	PW_SOFTIRQ_TASKLET,
	PW_SOFTIRQ_SCHED,
	PW_SOFTIRQ_HRTIMER,
	PW_SOFTIRQ_RCU,
	PW_SOFTIRQ_COUNT
};

/* Counter families; each has one reader and one up/absent state. */
enum pw_source {
	PW_SRC_STAT,
	PW_SRC_INTERRUPTS,
	PW_SRC_SOFTIRQS,
	PW_SRC_CPUFREQ,
	PW_SRC_VMSTAT,
	PW_SRC_MEMINFO,
	PW_SRC_PRESSURE,
	PW_SRC_LOADAVG,
	PW_SRC_COUNT
};

enum pw_psi_resource { PW_PSI_CPU, PW_PSI_MEMORY, PW_PSI_IO, PW_PSI_IRQ, PW_PSI_COUNT };

/* Label buffers for one /proc/interrupts line; longer names are truncated. */
#define PW_IRQ_NAME_MAX 16
#define PW_IRQ_CHIP_MAX 40
#define PW_IRQ_DEVICE_MAX 72
#define PW_CPUFREQ_NAME_MAX 24

const char *pw_cpu_mode_name(enum pw_cpu_mode mode);
const char *pw_softirq_name(enum pw_softirq_type type);
const char *pw_source_name(enum pw_source source);
const char *pw_psi_resource_name(enum pw_psi_resource resource);

#endif
