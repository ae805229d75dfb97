/* test_interrupts.c — /proc/interrupts parser: labels per format, column mapping, malformed input,
 * and invariants over the real captures. */
#define _GNU_SOURCE /* memmem */
#include "fixture_util.h"
#include "interrupts.h"
#include "procstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CPU_CAP 64
#define LINE_CAP 512

static struct pw_irq_line lines[LINE_CAP];
static uint64_t per_cpu[CPU_CAP];
static uint64_t matrix[LINE_CAP * CPU_CAP];

/* Parse a heap copy of exactly len bytes, so ASan reports any read past len. */
static int parse_exact(const char *buf, size_t len, uint32_t line_cap, uint32_t cpu_cap,
                       struct pw_interrupts *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_interrupts_parse(copy, len, lines, line_cap, per_cpu, matrix, cpu_cap, ret);

	free(copy);
	return r;
}

static int parse_str(const char *text, struct pw_interrupts *ret)
{
	return parse_exact(text, strlen(text), LINE_CAP, CPU_CAP, ret);
}

static int parse_fixture(const char *relpath, struct pw_interrupts *ret)
{
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);
	int r = parse_exact(buf, len, LINE_CAP, CPU_CAP, ret);

	free(buf);
	return r;
}

static const struct pw_irq_line *find_line(const struct pw_interrupts *irq, const char *name)
{
	for (uint32_t i = 0; i < irq->nlines; i++) {
		if (strcmp(lines[i].irq, name) == 0)
			return &lines[i];
	}
	ck_abort_msg("no line %s", name);
	return NULL;
}

static uint64_t cell(const struct pw_irq_line *line, uint32_t cpu)
{
	return matrix[(size_t)(line - lines) * CPU_CAP + cpu];
}

/* ---- core ---- */

START_TEST(test_vm_idle_values)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;

	ck_assert_int_eq(parse_fixture("kernels/vm-2cpu-idle-1/proc/interrupts", &irq), 0);
	ck_assert_uint_eq(irq.ncolumns, 2);
	ck_assert_uint_eq(irq.cpu_seen, 2);
	ck_assert_uint_eq(irq.nlines, 35);
	ck_assert_uint_eq(irq.dropped, 0);
	ck_assert_uint_eq(per_cpu[0], 141126);
	ck_assert_uint_eq(per_cpu[1], 186598);
	ck_assert_uint_eq(per_cpu[2], 0);

	l = find_line(&irq, "41");
	ck_assert_str_eq(l->chip, "PCI-MSIX-0000:00:04.0");
	ck_assert_str_eq(l->device, "virtio3-rx");
	ck_assert_uint_eq(l->total, 61453);
	ck_assert_uint_eq(l->flags, 0);
	ck_assert_uint_eq(cell(l, 0), 61453);
	ck_assert_uint_eq(cell(l, 1), 0);

	l = find_line(&irq, "24");
	ck_assert_str_eq(l->chip, "IO-APIC");
	ck_assert_str_eq(l->device, "ACPI:Ged");
	ck_assert_str_eq(find_line(&irq, "32")->device, "virtio0-reporting_vq");

	l = find_line(&irq, "LOC");
	ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED);
	ck_assert_str_eq(l->chip, "");
	ck_assert_str_eq(l->device, "Local timer interrupts");
	ck_assert_uint_eq(cell(l, 1), 18259);
	ck_assert_uint_eq(l->total, 21189 + 18259);

	l = find_line(&irq, "ERR");
	ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED | PW_IRQ_LINE_SINGLE_TOTAL);
	ck_assert_str_eq(l->device, "");
	ck_assert_uint_eq(l->total, 0);
	ck_assert_str_eq(find_line(&irq, "PIW")->device, "Posted-interrupt wakeup event");
	ck_assert_str_eq(lines[irq.nlines - 1].irq, "PIW");
}
END_TEST

START_TEST(test_aarch64)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;

	ck_assert_int_eq(parse_fixture("quirks/interrupts-aarch64/interrupts", &irq), 0);
	ck_assert_uint_eq(irq.nlines, 17);
	ck_assert_uint_eq(irq.cpu_seen, 4);
	l = find_line(&irq, "11");
	ck_assert_str_eq(l->chip, "GICv3");
	ck_assert_str_eq(l->device, "arch_timer");
	ck_assert_uint_eq(l->total, 27536 + 20473 + 23464 + 20395);
	l = find_line(&irq, "26");
	ck_assert_str_eq(l->chip, "ITS-MSI");
	ck_assert_str_eq(l->device, "eth0-rx-0");
	ck_assert_str_eq(find_line(&irq, "17")->device, "nvme0q0");
	l = find_line(&irq, "IPI0");
	ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED);
	ck_assert_str_eq(l->chip, "");
	ck_assert_str_eq(l->device, "Rescheduling interrupts");
	ck_assert_uint_eq(cell(l, 3), 5270);
	ck_assert_str_eq(find_line(&irq, "IPI3")->device, "CPU stop (for crash dump) interrupts");
	ck_assert_str_eq(find_line(&irq, "IPI6")->device, "CPU wake-up interrupts");
	l = find_line(&irq, "Err");
	ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED | PW_IRQ_LINE_SINGLE_TOTAL);
	ck_assert_str_eq(l->device, "");
	ck_assert_uint_eq(per_cpu[0], 58067);
	ck_assert_uint_eq(per_cpu[3], 26110);
}
END_TEST

START_TEST(test_old_two_token_rest)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;

	ck_assert_int_eq(parse_fixture("quirks/interrupts-old-2.6/interrupts", &irq), 0);
	ck_assert_uint_eq(irq.nlines, 12);
	l = find_line(&irq, "0");
	ck_assert_str_eq(l->chip, "IO-APIC-edge");
	ck_assert_str_eq(l->device, "timer");
	ck_assert_uint_eq(l->total, 93612340);
	l = find_line(&irq, "169");
	ck_assert_str_eq(l->chip, "IO-APIC-level");
	ck_assert_str_eq(l->device, "uhci_hcd:usb1, eth0");
	ck_assert_uint_eq(cell(l, 1), 65432);
	l = find_line(&irq, "217");
	ck_assert_str_eq(l->chip, "PCI-MSI");
	ck_assert_str_eq(l->device, "ahci");
	/* NMI/LOC had no description before 2.6.24; the trailing blank must not become one. */
	l = find_line(&irq, "LOC");
	ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED);
	ck_assert_str_eq(l->device, "");
	ck_assert_uint_eq(l->total, 93611858 + 93611753);
	ck_assert_uint_eq(per_cpu[0], 187405559);
	ck_assert_uint_eq(per_cpu[1], 93678209);
}
END_TEST

/* Columns follow the header's ids: with CPU2 offline the third column is CPU3's. */
START_TEST(test_offline_cpu_columns)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;

	memset(per_cpu, 0xff, sizeof(per_cpu));
	memset(matrix, 0xff, sizeof(matrix));
	ck_assert_int_eq(parse_fixture("quirks/interrupts-cpu2-offline/interrupts", &irq), 0);
	ck_assert_uint_eq(irq.ncolumns, 3);
	ck_assert_uint_eq(irq.cpu_seen, 4);
	ck_assert_uint_eq(per_cpu[0], 51545);
	ck_assert_uint_eq(per_cpu[1], 40631);
	ck_assert_uint_eq(per_cpu[2], 0);
	ck_assert_uint_eq(per_cpu[3], 30411);
	ck_assert_uint_eq(per_cpu[4], 0);
	l = find_line(&irq, "LOC");
	ck_assert_uint_eq(cell(l, 2), 0);
	ck_assert_uint_eq(cell(l, 3), 30030);
	ck_assert_uint_eq(cell(l, CPU_CAP - 1), 0);
	l = find_line(&irq, "24");
	ck_assert_uint_eq(cell(l, 3), 77);
	ck_assert_str_eq(l->device, "virtio3-rx");
	/* ERR has one column: the other CPUs' cells are zero, not stale. */
	l = find_line(&irq, "ERR");
	ck_assert_uint_eq(cell(l, 1), 0);
}
END_TEST

START_TEST(test_device_with_spaces)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;

	ck_assert_int_eq(parse_fixture("quirks/interrupts-shared-device/interrupts", &irq), 0);
	ck_assert_str_eq(find_line(&irq, "9")->device, "acpi");
	l = find_line(&irq, "16");
	ck_assert_str_eq(l->chip, "IO-APIC");
	ck_assert_str_eq(l->device, "ehci_hcd:usb1, uhci_hcd:usb3, i915");
	ck_assert_uint_eq(l->total, 40008);
	l = find_line(&irq, "120");
	ck_assert_str_eq(l->chip, "PCI-MSI");
	ck_assert_str_eq(l->device, "PCIe PME, aerdrv");
	l = find_line(&irq, "121");
	ck_assert_str_eq(l->chip, "PCI-MSI");
	ck_assert_str_eq(l->device, "");
	ck_assert_uint_eq(l->total, 5);
	l = find_line(&irq, "122");
	ck_assert_str_eq(l->chip, "XT-PIC");
	ck_assert_str_eq(l->device, "cascade");
}
END_TEST

/* Formats seen in the wild besides the fixtures: Level/Edge plus a handler, fewer columns than CPUs,
 * labels longer than the buffers. */
START_TEST(test_inline_variants)
{
	struct pw_interrupts irq;
	const struct pw_irq_line *l;
	const char *text =
	        "      CPU0 CPU1 CPU2\n"
	        " 5: 1 2 3 GIC-0 37 Level -fasteoi mmc0\n"
	        " 6: 4 5\n"
	        " 7: 1 1 1 very-long-chip-name-that-goes-on-and-on-beyond-forty 7-edge "
	        "a-device-name-that-is-much-longer-than-seventy-one-bytes-so-it-gets-cut-short-here\n"
	        "VERYLONGNAMEDLINE_XYZ: 9 9 9 Something\n"
	        "\n"
	        "MIS: 3\n";

	ck_assert_int_eq(parse_str(text, &irq), 0);
	ck_assert_uint_eq(irq.nlines, 5);
	l = find_line(&irq, "5");
	ck_assert_str_eq(l->chip, "GIC-0");
	ck_assert_str_eq(l->device, "mmc0");
	l = find_line(&irq, "6");
	ck_assert_uint_eq(l->total, 9);
	ck_assert_uint_eq(cell(l, 2), 0);
	ck_assert_str_eq(l->chip, "");
	l = &lines[2];
	ck_assert_uint_eq(strlen(l->chip), PW_IRQ_CHIP_MAX - 1);
	ck_assert(strncmp(l->chip, "very-long-chip-name", 19) == 0);
	ck_assert_uint_eq(strlen(l->device), PW_IRQ_DEVICE_MAX - 1);
	ck_assert(strncmp(l->device, "a-device-name", 13) == 0);
	ck_assert_uint_eq(strlen(lines[3].irq), PW_IRQ_NAME_MAX - 1);
	ck_assert_uint_eq(lines[3].flags, PW_IRQ_LINE_NAMED);
	ck_assert_uint_eq(lines[3].total, 27);
	ck_assert_str_eq(lines[4].irq, "MIS");
	ck_assert_uint_eq(lines[4].flags, PW_IRQ_LINE_NAMED | PW_IRQ_LINE_SINGLE_TOTAL);
	ck_assert_uint_eq(lines[4].total, 3);
	ck_assert_uint_eq(cell(&lines[4], 0), 0);
	/* MIS's count belongs to no CPU. */
	ck_assert_uint_eq(per_cpu[0], 1 + 4 + 1 + 9);
	ck_assert_uint_eq(per_cpu[2], 3 + 1 + 9);
}
END_TEST

/* Set the count of the single-total line NAME ("%*s: %10u" in the kernel) in buf to value. */
static void set_single_total(char *buf, size_t len, const char *name, unsigned value)
{
	char key[16], field[11];
	char *at;

	snprintf(key, sizeof(key), "\n%s:", name);
	at = memmem(buf, len, key, strlen(key));
	ck_assert_ptr_nonnull(at);
	at += strlen(key) + 1;
	ck_assert_uint_eq(at[10], '\n');
	snprintf(field, sizeof(field), "%10u", value);
	memcpy(at, field, 10);
}

/* x86 ERR and MIS print one host-wide count: it is the line's total and no CPU's column. The
 * captures have 0 there, so the same capture is parsed again with the counts set. */
START_TEST(test_single_total_16cpu)
{
	static uint64_t clean[CPU_CAP];
	struct pw_interrupts irq;
	uint64_t col0 = 0, sum_cpus = 0, sum_lines = 0;
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/interrupts", &len);

	ck_assert_int_eq(parse_exact(buf, len, LINE_CAP, CPU_CAP, &irq), 0);
	ck_assert_uint_eq(irq.ncolumns, 16);
	memcpy(clean, per_cpu, sizeof(clean));

	set_single_total(buf, len, "ERR", 4321);
	set_single_total(buf, len, "MIS", 65);
	ck_assert_int_eq(parse_exact(buf, len, LINE_CAP, CPU_CAP, &irq), 0);
	ck_assert_uint_eq(irq.nlines, 40);
	for (const char *const *name = (const char *const[]){"ERR", "MIS", NULL}; *name; name++) {
		const struct pw_irq_line *l = find_line(&irq, *name);
		ck_assert_uint_eq(l->flags, PW_IRQ_LINE_NAMED | PW_IRQ_LINE_SINGLE_TOTAL);
		ck_assert_str_eq(l->device, "");
		for (uint32_t c = 0; c < CPU_CAP; c++)
			ck_assert_uint_eq(cell(l, c), 0);
	}
	ck_assert_uint_eq(find_line(&irq, "ERR")->total, 4321);
	ck_assert_uint_eq(find_line(&irq, "MIS")->total, 65);
	/* cpu0's sum is its column over the other lines, and no CPU moved with ERR/MIS. */
	for (uint32_t i = 0; i < irq.nlines; i++) {
		sum_lines += lines[i].total;
		if (!(lines[i].flags & PW_IRQ_LINE_SINGLE_TOTAL))
			col0 += cell(&lines[i], 0);
	}
	ck_assert_uint_eq(per_cpu[0], col0);
	ck_assert_uint_eq(per_cpu[0], 13 + 778 + 199 + 2946 + 9 + 1); /* IRQ 44, LOC, RES, CAL, TLB, HYP */
	ck_assert(memcmp(per_cpu, clean, sizeof(clean)) == 0);
	for (uint32_t c = 0; c < CPU_CAP; c++)
		sum_cpus += per_cpu[c];
	ck_assert_uint_eq(sum_cpus, sum_lines - 4321 - 65);
	free(buf);
}
END_TEST

/* Too few line slots or CPU slots: what fits is stored, per_cpu still covers every line. */
START_TEST(test_capacity)
{
	struct pw_interrupts irq;
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-load-1/proc/interrupts", &len);

	ck_assert_int_eq(parse_exact(buf, len, 10, CPU_CAP, &irq), -ENOBUFS);
	ck_assert_uint_eq(irq.nlines, 10);
	ck_assert_uint_eq(irq.dropped, 30);
	ck_assert_uint_eq(per_cpu[0], 3946);
	ck_assert_uint_eq(per_cpu[15], 4800);

	ck_assert_int_eq(parse_exact(buf, len, LINE_CAP, 8, &irq), -ENOBUFS);
	ck_assert_uint_eq(irq.nlines, 40);
	ck_assert_uint_eq(irq.cpu_seen, 16);
	ck_assert_uint_eq(per_cpu[7], 3356);
	/* Line totals still include the CPUs past cpu_cap. */
	ck_assert_uint_eq(find_line(&irq, "31")->total, 1069);

	ck_assert_int_eq(pw_interrupts_parse(buf, len, NULL, 0, NULL, NULL, 0, &irq), -ENOBUFS);
	ck_assert_uint_eq(irq.nlines, 0);
	ck_assert_uint_eq(irq.dropped, 40);
	ck_assert_int_eq(pw_interrupts_parse(buf, len, lines, LINE_CAP, NULL, NULL, 16, &irq), 0);
	free(buf);
}
END_TEST

/* ---- malformed ---- */

START_TEST(test_bad_input)
{
	struct pw_interrupts irq, before;
	size_t len;
	char *garbage = pw_fixture_read("quirks/stat-garbage/stat", &len);

	memset(&irq, 0x5a, sizeof(irq));
	before = irq;
	ck_assert_int_eq(parse_exact(garbage, len, LINE_CAP, CPU_CAP, &irq), -EINVAL);
	ck_assert(memcmp(&irq, &before, sizeof(irq)) == 0);
	free(garbage);
	ck_assert_int_eq(parse_str("", &irq), -EINVAL);
	ck_assert_int_eq(parse_str("\n 0: 1 2 timer\n", &irq), -EINVAL); /* no header */
	ck_assert_int_eq(parse_str("CPU0 CPUx\n", &irq), -EINVAL);       /* bad header token */
	ck_assert_int_eq(parse_str("CPU0 CPU2 CPU1\n", &irq), -EINVAL);  /* out of order */
	ck_assert_int_eq(parse_str("CPU0 CPU0\n", &irq), -EINVAL);       /* duplicate */
	ck_assert_int_eq(parse_str("CPU0 CPU99999999999\n", &irq), -ERANGE);
	ck_assert_int_eq(parse_str("CPU0 CPU1\n 0 1 2 timer\n", &irq), -EINVAL); /* no colon */
	ck_assert_int_eq(parse_str("CPU0 CPU1\n0: 1 2x IO-APIC\n", &irq), -EINVAL);
	ck_assert_int_eq(parse_str("CPU0 CPU1\n0: 18446744073709551616 0\n", &irq), -ERANGE);
	/* Each count fits, their sum does not. */
	ck_assert_int_eq(parse_str("CPU0 CPU1\n0: 18446744073709551615 1\n", &irq), -ERANGE);
	ck_assert_int_eq(parse_str("CPU0\n0: 18446744073709551615\n1: 1\n", &irq), -ERANGE);
	/* Header only is a valid (if odd) file. */
	ck_assert_int_eq(parse_str("CPU0 CPU1", &irq), 0);
	ck_assert_uint_eq(irq.nlines, 0);
}
END_TEST

START_TEST(test_no_nul)
{
	struct pw_interrupts a, b;
	static struct pw_irq_line saved[LINE_CAP];
	size_t len;
	char *buf = pw_fixture_read("kernels/host-16cpu-idle-1/proc/interrupts", &len);

	ck_assert_int_eq(pw_interrupts_parse(buf, len, lines, LINE_CAP, per_cpu, matrix, CPU_CAP, &a), 0);
	memcpy(saved, lines, sizeof(saved));
	ck_assert_int_eq(parse_exact(buf, len, LINE_CAP, CPU_CAP, &b), 0);
	ck_assert(memcmp(&a, &b, sizeof(a)) == 0);
	ck_assert(memcmp(saved, lines, a.nlines * sizeof(lines[0])) == 0);
	free(buf);
}
END_TEST

/* A prefix never has more lines or columns than the whole file. */
static int parse_prefix(const char *buf, size_t len, void *ret, const void *whole)
{
	struct pw_interrupts *irq = ret;
	const struct pw_interrupts *full = whole;
	int r = pw_interrupts_parse(buf, len, lines, LINE_CAP, per_cpu, matrix, CPU_CAP, irq);

	if (r == 0) {
		ck_assert_uint_le(irq->nlines, full->nlines);
		ck_assert_uint_le(irq->ncolumns, full->ncolumns);
	}
	return r;
}

static void check_prefixes(const char *relpath)
{
	struct pw_interrupts full, irq;
	size_t len;
	char *buf = pw_fixture_read(relpath, &len);

	ck_assert_int_eq(pw_interrupts_parse(buf, len, lines, LINE_CAP, per_cpu, matrix, CPU_CAP, &full), 0);
	pw_test_every_prefix(relpath, buf, len, parse_prefix, &irq, &full);
	free(buf);
}

START_TEST(test_every_prefix)
{
	check_prefixes("kernels/vm-2cpu-idle-1/proc/interrupts");
	check_prefixes("kernels/host-16cpu-load-1/proc/interrupts");
	check_prefixes("quirks/interrupts-aarch64/interrupts");
	check_prefixes("quirks/interrupts-cpu2-offline/interrupts");
}
END_TEST

/* ---- kernels ---- */

static uint64_t named_total(const struct pw_interrupts *irq, const char *name)
{
	for (uint32_t i = 0; i < irq->nlines; i++) {
		if (strcmp(lines[i].irq, name) == 0)
			return lines[i].total;
	}
	return UINT64_MAX;
}

static void check_capture(const char *id)
{
	static struct pw_cpu_times cpus[CPU_CAP];
	struct pw_interrupts irq;
	struct pw_procstat st;
	uint64_t nproc = pw_fixture_kernel_nproc(id);
	uint64_t sum_lines = 0, sum_columns = 0, sum_cpus = 0;
	uint32_t single = 0;
	size_t len;
	char *buf;

	ck_assert_msg(parse_fixture(pw_fixture_kernel_path(id, "proc/interrupts"), &irq) == 0, "%s", id);
	ck_assert_uint_eq(irq.ncolumns, nproc);
	ck_assert_uint_eq(irq.cpu_seen, nproc);
	ck_assert_uint_gt(irq.nlines, 0);
	for (uint32_t i = 0; i < irq.nlines; i++) {
		const struct pw_irq_line *l = &lines[i];
		uint64_t row = 0;
		for (uint32_t c = 0; c < CPU_CAP; c++)
			row += cell(l, c);
		sum_lines += l->total;
		if (l->flags & PW_IRQ_LINE_SINGLE_TOTAL) {
			/* x86 ERR and MIS, and only they: no column, no description. */
			ck_assert_msg(strcmp(l->irq, "ERR") == 0 || strcmp(l->irq, "MIS") == 0, "%s line %s",
			              id, l->irq);
			ck_assert_uint_eq(row, 0);
			ck_assert_str_eq(l->device, "");
			single++;
			continue;
		}
		ck_assert_msg(row == l->total, "%s line %s: total %llu, columns %llu", id, l->irq,
		              (unsigned long long)l->total, (unsigned long long)row);
		sum_columns += l->total;
		/* Every numbered line of these x86 captures has a chip and a device. */
		if (!(l->flags & PW_IRQ_LINE_NAMED)) {
			ck_assert_msg(l->chip[0] && l->device[0], "%s line %s", id, l->irq);
		} else {
			ck_assert_str_eq(l->chip, "");
		}
	}
	ck_assert_uint_eq(single, 2);
	for (uint32_t c = 0; c < CPU_CAP; c++)
		sum_cpus += per_cpu[c];
	ck_assert_uint_eq(sum_cpus, sum_columns);
	ck_assert_uint_gt(named_total(&irq, "LOC"), 0);

	/* /proc/stat "intr" counts every line except TLB, which x86 counts inside CAL as well. The two
	 * files were read a moment apart, so allow a few interrupts per CPU in between (seen: 0..10). */
	buf = pw_fixture_read(pw_fixture_kernel_path(id, "proc/stat"), &len);
	ck_assert_int_eq(pw_procstat_parse(buf, len, cpus, CPU_CAP, &st, NULL), 0);
	free(buf);
	uint64_t tlb = named_total(&irq, "TLB");
	if (tlb != UINT64_MAX) {
		int64_t drift = (int64_t)(sum_lines - tlb - st.intr_total);
		ck_assert_msg(drift >= -16 * (int64_t)nproc && drift <= 16 * (int64_t)nproc,
		              "%s: interrupts %llu - TLB %llu vs stat intr %llu", id,
		              (unsigned long long)sum_lines, (unsigned long long)tlb,
		              (unsigned long long)st.intr_total);
	}
}

START_TEST(test_captures)
{
	pw_fixture_each_kernel(check_capture);
}
END_TEST

static Suite *interrupts_suite(void)
{
	Suite *s = suite_create("interrupts");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *kernels = tcase_create("kernels");

	tcase_add_test(core, test_vm_idle_values);
	tcase_add_test(core, test_aarch64);
	tcase_add_test(core, test_old_two_token_rest);
	tcase_add_test(core, test_offline_cpu_columns);
	tcase_add_test(core, test_device_with_spaces);
	tcase_add_test(core, test_inline_variants);
	tcase_add_test(core, test_single_total_16cpu);
	tcase_add_test(core, test_capacity);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_bad_input);
	tcase_add_test(malformed, test_no_nul);
	tcase_add_test(malformed, test_every_prefix);
	suite_add_tcase(s, malformed);

	tcase_add_test(kernels, test_captures);
	suite_add_tcase(s, kernels);
	return s;
}

int main(void)
{
	return pw_run_suite(interrupts_suite());
}
