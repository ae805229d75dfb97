/* sample_schema.c — the table of the sample's leaf fields. Rows are built from offsetof and sizeof,
 * and the kind from the member's type, so only a missing row can be wrong: test_sample_schema finds it. */
#include "sample_schema.h"

/* One line per macro, rows grouped as the structs group them. */
// clang-format off

/* The kind of a member, from its type; an array passed where a scalar belongs matches nothing and
 * does not compile. */
#define KIND(x) _Generic((x), \
	uint8_t: PW_FIELD_UINT, uint16_t: PW_FIELD_UINT, uint32_t: PW_FIELD_UINT, uint64_t: PW_FIELD_UINT, \
	int8_t: PW_FIELD_INT, int16_t: PW_FIELD_INT, int32_t: PW_FIELD_INT, int64_t: PW_FIELD_INT, \
	float: PW_FIELD_FLOAT, double: PW_FIELD_FLOAT, bool: PW_FIELD_BOOL, char: PW_FIELD_TEXT)
#define MEMBER(T, m) (((T *)0)->m)

/* A scalar, an array, a scalar named by hand (a member of an array of structs), a layout field. */
#define ROW(T, m) {#m, offsetof(T, m), sizeof(MEMBER(T, m)), 1, KIND(MEMBER(T, m))}
#define ARRAY(T, m) {#m, offsetof(T, m), sizeof(MEMBER(T, m)[0]), \
	sizeof(MEMBER(T, m)) / sizeof(MEMBER(T, m)[0]), KIND(MEMBER(T, m)[0])}
#define NAMED(T, name, m) {name, offsetof(T, m), sizeof(MEMBER(T, m)), 1, KIND(MEMBER(T, m))}
#define LAYOUT(m) {#m, offsetof(struct pw_sample, m), sizeof(uint32_t), 1, PW_FIELD_LAYOUT}

#define S(m) ROW(struct pw_sample, m)
#define SA(m) ARRAY(struct pw_sample, m)
/* psi[] by resource name: a resource added to the enum then moves no recorded value. */
#define PSI_LINE(res, name, line) \
	NAMED(struct pw_sample, "psi." name "." #line ".avg10", psi[res].line.avg10), \
	NAMED(struct pw_sample, "psi." name "." #line ".avg60", psi[res].line.avg60), \
	NAMED(struct pw_sample, "psi." name "." #line ".avg300", psi[res].line.avg300), \
	NAMED(struct pw_sample, "psi." name "." #line ".total_us", psi[res].line.total_us), \
	NAMED(struct pw_sample, "psi." name "." #line ".present", psi[res].line.present)
#define PSI(res, name) PSI_LINE(res, name, some), PSI_LINE(res, name, full)

static const struct pw_field sample_fields[] = {
	S(seq), S(mono_ns), S(real_ns), S(interval_ns), S(duration_ns),
	LAYOUT(cpu_cap), LAYOUT(line_cap), LAYOUT(off_cpus), LAYOUT(off_lines), LAYOUT(off_matrix), LAYOUT(size),
	S(ncpu), S(nlines), S(user_hz), S(page_size), S(source_present), S(source_up), SA(parse_errors),
	S(counter_resets), S(samples_taken), S(missed_deadlines), S(duration_total_ns),
	SA(stat.total.ticks), S(stat.total.nmodes), S(stat.total.present), S(stat.intr_total), S(stat.ctxt),
	S(stat.btime), S(stat.processes), S(stat.procs_running), S(stat.procs_blocked), S(stat.softirq_total),
	S(stat.present), S(stat.cpu_seen),
	S(interrupts.nlines), S(interrupts.ncolumns), S(interrupts.cpu_seen), S(interrupts.dropped),
	SA(softirqs.total), S(softirqs.present), S(softirqs.cpu_seen),
	SA(vmstat.value), S(vmstat.present),
	SA(meminfo.kb), S(meminfo.present),
	PSI(PW_PSI_CPU, "cpu"), PSI(PW_PSI_MEMORY, "memory"), PSI(PW_PSI_IO, "io"), PSI(PW_PSI_IRQ, "irq"),
	S(psi_present),
	S(loadavg.load1), S(loadavg.load5), S(loadavg.load15), S(loadavg.runnable), S(loadavg.threads),
	S(loadavg.last_pid),
	S(derived.valid), SA(derived.share), S(derived.intr_rate), S(derived.ctxt_rate), S(derived.fork_rate),
	SA(derived.softirq_rate), S(derived.softirq_total_rate), SA(derived.vm_rate), S(derived.busy_cpus),
};
_Static_assert(PW_PSI_COUNT == 4, "a pressure resource needs its PSI() rows in sample_fields");

#define C(m) ROW(struct pw_cpu_sample, m)
#define CA(m) ARRAY(struct pw_cpu_sample, m)
static const struct pw_field cpu_fields[] = {
	CA(times.ticks), C(times.nmodes), C(times.present), CA(softirq), C(interrupts),
	C(tis.khz_time), C(tis.time), C(tis.nstates), C(tis.min_khz), C(tis.max_khz),
	C(cur_khz), C(min_khz), C(max_khz), C(base_khz), C(freq_flags), CA(governor), CA(driver),
	C(online), C(in_interrupts), C(in_softirqs), C(derived_valid), C(avg_khz), C(freq_ratio),
	CA(share), C(interrupt_rate), CA(softirq_rate),
};

#define L(m) ROW(struct pw_line_sample, m)
#define LA(m) ARRAY(struct pw_line_sample, m)
static const struct pw_field line_fields[] = {
	LA(line.irq), LA(line.chip), LA(line.device), L(line.total), L(line.flags), L(rate), L(reserved),
};

// clang-format on

#define N(a) (sizeof(a) / sizeof((a)[0]))

const struct pw_field *pw_sample_schema(enum pw_schema_struct which, size_t *ret_n, uint32_t *ret_struct_size)
{
	switch (which) {
	case PW_SCHEMA_SAMPLE:
		*ret_n = N(sample_fields), *ret_struct_size = sizeof(struct pw_sample);
		return sample_fields;
	case PW_SCHEMA_CPU:
		*ret_n = N(cpu_fields), *ret_struct_size = sizeof(struct pw_cpu_sample);
		return cpu_fields;
	default:
		*ret_n = N(line_fields), *ret_struct_size = sizeof(struct pw_line_sample);
		return line_fields;
	}
}
