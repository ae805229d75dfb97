/* interrupts.h — parser for /proc/interrupts.
 *
 * Kernel doc: Documentation/filesystems/proc.rst "1.2 ... /proc/interrupts"; format from
 * kernel/irq/proc.c show_interrupts() and arch_show_interrupts() (x86 named lines NMI, LOC, ...).
 * Quirks: the header names only online CPUs ("CPU0 CPU2" when cpu1 is offline), so columns map to
 * CPU ids through it; ERR/MIS (arm: Err) carry one host-wide count and no text; x86 prints "chip
 * hwirq-edge device", aarch64 "chip hwirq Level device", kernels before 3.x "IO-APIC-edge device";
 * device names may contain spaces and commas ("ehci_hcd:usb1, eth0"). */
#ifndef PW_INTERRUPTS_H
#define PW_INTERRUPTS_H

#include "pw_types.h"

enum {
	PW_IRQ_LINE_NAMED = 1u << 0, /* an arch line like LOC/NMI rather than an IRQ number */
	/* One host-wide count instead of a column per CPU (x86 ERR and MIS, arm Err): the total is
	 * that count, and the line adds to no CPU's sum or matrix column. */
	PW_IRQ_LINE_SINGLE_TOTAL = 1u << 1,
};

struct pw_irq_line {
	char irq[PW_IRQ_NAME_MAX];      /* "24", "LOC", "IPI0" */
	char chip[PW_IRQ_CHIP_MAX];     /* "IO-APIC", "PCI-MSIX-0000:00:04.0"; "" for named lines */
	char device[PW_IRQ_DEVICE_MAX]; /* "virtio3-rx", or the description of a named line */
	uint64_t total;                 /* sum over all CPU columns, or the single count */
	uint32_t flags;                 /* PW_IRQ_LINE_* */
};

struct pw_interrupts {
	uint32_t nlines;   /* lines stored in lines[] */
	uint32_t ncolumns; /* CPU columns in the header */
	uint32_t cpu_seen; /* highest CPU id in the header + 1 */
	uint32_t dropped;  /* lines that did not fit line_cap */
};

/* Parse /proc/interrupts content buf[0..len). Lines go to lines[0..line_cap); per-CPU sums of all
 * lines to per_cpu[id] (may be NULL); the CPU x line counts to matrix[line * cpu_cap + id] (may be
 * NULL). Both per_cpu and matrix rows are zeroed first for CPUs absent from the header. A
 * PW_IRQ_LINE_SINGLE_TOTAL line counts in neither (its matrix row stays zero).
 * Returns 0, -EINVAL (no header, a non-number in a count column), -ERANGE (overflow), or -ENOBUFS
 * when lines or CPU ids did not fit (what fits is stored and *ret filled). Thread-safe. */
int pw_interrupts_parse(const char *buf, size_t len, struct pw_irq_line *lines, uint32_t line_cap,
                        uint64_t *per_cpu, uint64_t *matrix, uint32_t cpu_cap, struct pw_interrupts *ret);

#endif
