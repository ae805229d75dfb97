/* test_history_sample.c — a sample rebuilt from a history point (--replay of the store): what the
 * point keeps comes back at its precision, what it lacks is rebuilt as history_sample.h says. */
#include "fixture_util.h"
#include "history.h"
#include "history_sample.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC INT64_C(1000000000)
#define CPUS 4
#define SHARE_TOL 1e-4f

/* A derived sample: cpu0 busy in interrupts at 65% of 3 GHz, cpu1 waiting on I/O, cpu2 without
 * derived figures (offline), cpu3 idle; three interrupt lines; PSI for cpu and memory. */
static struct pw_sample *derived_sample(void)
{
	struct pw_sample *s = pw_test_sample_new(CPUS, 8, false);
	struct pw_cpu_sample *cpus = pw_sample_cpus(s);
	struct pw_line_sample *lines = pw_sample_lines(s);
	struct pw_host_derived *d = &s->derived;
	static const float host[PW_MODE_COUNT] = {0.30f, 0.05f, 0.10f, 0.40f, 0.05f, 0.04f, 0.06f, 0.0f};

	s->seq = 9;
	s->real_ns = s->mono_ns = INT64_C(1796065147) * SEC;
	s->ncpu = CPUS;
	s->source_up = s->source_present = (1u << PW_SRC_COUNT) - 1;
	d->valid = PW_DERIVED_SHARES | PW_DERIVED_RATES;
	memcpy(d->share, host, sizeof(host));
	d->intr_rate = 1000.0f;
	d->ctxt_rate = 5000.0f;
	d->softirq_total_rate = 300.0f;
	d->softirq_rate[PW_SOFTIRQ_NET_RX] = 200.0f;
	d->softirq_rate[PW_SOFTIRQ_TIMER] = 100.0f;
	d->vm_rate[PW_VM_PSWPOUT] = 250.0f;
	d->busy_cpus = 1;
	s->stat.procs_running = 3;
	s->stat.present = PW_PROCSTAT_HAS_PROCS_RUNNING;
	s->meminfo.kb[PW_MEM_AVAILABLE] = 512000;
	s->meminfo.present = 1u << PW_MEM_AVAILABLE;
	s->psi_present = 1u << PW_PSI_CPU | 1u << PW_PSI_MEMORY;
	s->psi[PW_PSI_CPU].some = (struct pw_psi_line){.avg10 = 1000, .present = true};
	s->psi[PW_PSI_MEMORY].some = (struct pw_psi_line){.avg10 = 2500, .present = true};

	cpus[0].derived_valid = PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ;
	cpus[0].share[PW_MODE_USER] = 0.50f;
	cpus[0].share[PW_MODE_SYSTEM] = 0.10f;
	cpus[0].share[PW_MODE_IRQ] = 0.12f;
	cpus[0].share[PW_MODE_SOFTIRQ] = 0.18f;
	cpus[0].share[PW_MODE_IDLE] = 0.10f;
	cpus[0].avg_khz = 1950000;
	cpus[0].max_khz = 3000000;
	cpus[0].freq_ratio = 0.65f;
	cpus[1].derived_valid = PW_DERIVED_SHARES;
	cpus[1].share[PW_MODE_USER] = 0.10f;
	cpus[1].share[PW_MODE_IRQ] = 0.10f;
	cpus[1].share[PW_MODE_IOWAIT] = 0.40f;
	cpus[1].share[PW_MODE_IDLE] = 0.40f;
	cpus[3].derived_valid = PW_DERIVED_SHARES;
	cpus[3].share[PW_MODE_IDLE] = 1.0f;

	const char *names[] = {"LOC", "25", "26"};
	const float rates[] = {700.0f, 250.0f, 50.0f};
	for (uint32_t i = 0; i < 3; i++) {
		snprintf(lines[i].line.irq, sizeof(lines[i].line.irq), "%s", names[i]);
		lines[i].line.total = 1000 - i;
		lines[i].rate = rates[i];
	}
	s->nlines = 3;
	return s;
}

static struct pw_sample *rebuilt(const struct pw_history_point *p, int64_t interval_ns, struct pw_sample *into)
{
	if (!into) {
		into = malloc(pw_sample_size(CPUS, PW_HISTORY_LINES, false));
		ck_assert_ptr_nonnull(into);
		pw_sample_init(into, CPUS, PW_HISTORY_LINES, false);
	}
	pw_history_point_to_sample(p, interval_ns, into);
	return into;
}

static struct pw_history_point *point_of(const struct pw_sample *s)
{
	struct pw_history_point *p = malloc(pw_history_point_size(CPUS));

	ck_assert_ptr_nonnull(p);
	pw_history_point_from(s, NULL, p);
	return p;
}

START_TEST(test_host_figures_come_back)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = point_of(s);
	struct pw_sample *r = rebuilt(p, SEC, NULL);

	ck_assert_int_eq(r->real_ns, s->real_ns);
	ck_assert_int_eq(r->mono_ns, s->real_ns);
	ck_assert_int_eq(r->interval_ns, SEC);
	ck_assert_uint_eq(r->ncpu, CPUS);
	ck_assert_uint_eq(r->derived.valid, PW_DERIVED_SHARES | PW_DERIVED_RATES);
	for (int m = 0; m < PW_MODE_GUEST; m++)
		ck_assert_float_eq_tol(r->derived.share[m], s->derived.share[m], SHARE_TOL);
	ck_assert_float_eq(r->derived.intr_rate, 1000.0f);
	ck_assert_float_eq(r->derived.ctxt_rate, 5000.0f);
	ck_assert_float_eq(r->derived.softirq_total_rate, 300.0f);
	ck_assert_float_eq(r->derived.softirq_rate[PW_SOFTIRQ_NET_RX], 200.0f);
	ck_assert_float_eq(r->derived.vm_rate[PW_VM_PSWPOUT], 250.0f);
	ck_assert_uint_eq(r->derived.busy_cpus, 1);
	ck_assert(pw_sample_has(r, PW_SRC_STAT) && pw_sample_has(r, PW_SRC_MEMINFO));
	ck_assert_uint_eq(r->stat.procs_running, 3);
	ck_assert(r->stat.present & PW_PROCSTAT_HAS_PROCS_RUNNING);
	ck_assert_uint_eq(r->meminfo.kb[PW_MEM_AVAILABLE], 512000);
	ck_assert(!(r->meminfo.present >> PW_MEM_TOTAL & 1u)); /* not kept: absent, not 0 */
	ck_assert_uint_eq(r->nlines, 3);
	ck_assert_str_eq(pw_sample_lines(r)[1].line.irq, "25");
	ck_assert_float_eq(pw_sample_lines(r)[1].rate, 250.0f);
	free(r);
	free(p);
	free(s);
}
END_TEST

START_TEST(test_cpu_figures_come_back)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = point_of(s);
	struct pw_sample *r = rebuilt(p, SEC, NULL);
	const struct pw_cpu_sample *c = pw_sample_cpus(r);

	/* cpu0: busy 90%, irq + softirq as one figure, the frequency's ratio kept. */
	ck_assert(c[0].online && c[0].times.present);
	ck_assert_uint_eq(c[0].derived_valid, PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ);
	ck_assert_float_eq_tol(pw_busy_share(c[0].share), 0.90, SHARE_TOL);
	ck_assert_float_eq_tol(c[0].share[PW_MODE_IRQ] + c[0].share[PW_MODE_SOFTIRQ], 0.30f, SHARE_TOL);
	ck_assert_float_eq_tol(c[0].share[PW_MODE_SYSTEM], 0.10f, SHARE_TOL);
	ck_assert_uint_eq(c[0].avg_khz, 1950000);
	ck_assert_float_eq_tol((double)c[0].avg_khz / c[0].max_khz, 0.65, 1e-4);
	/* cpu1: waiting on I/O is not busy. */
	ck_assert_float_eq_tol(c[1].share[PW_MODE_IOWAIT], 0.40f, SHARE_TOL);
	ck_assert_float_eq_tol(pw_busy_share(c[1].share), 0.20, SHARE_TOL);
	ck_assert(!(c[1].derived_valid & PW_DERIVED_FREQ));
	/* cpu2 had nothing derived: offline, as the detector counts CPUs. */
	ck_assert(!c[2].online && c[2].derived_valid == 0);
	/* The host's events shared out by interrupt time: cpu0 has 0.30 of 0.40, cpu1 0.10, cpu3 none. */
	ck_assert_float_eq_tol(c[0].interrupt_rate, 750.0f, 0.5f);
	ck_assert_float_eq_tol(c[1].interrupt_rate, 250.0f, 0.5f);
	ck_assert_float_eq(c[3].interrupt_rate, 0.0f);
	ck_assert_float_eq_tol(c[0].softirq_rate[PW_SOFTIRQ_NET_RX] + c[1].softirq_rate[PW_SOFTIRQ_NET_RX], 200.0f,
	                       0.5f);
	free(r);
	free(p);
	free(s);
}
END_TEST

/* The detector takes the stall from the totals' growth: they grow by the point's stall share. */
START_TEST(test_psi_totals_grow_by_stall_share)
{
	struct pw_sample *s = derived_sample();
	struct pw_history_point *p = point_of(s);

	p->psi_some_stall[PW_PSI_CPU] = 1000;
	p->psi_some_stall[PW_PSI_MEMORY] = 2500;
	struct pw_sample *r = rebuilt(p, 0, NULL);

	ck_assert(r->psi_present >> PW_PSI_MEMORY & 1u);
	ck_assert(!(r->psi_present >> PW_PSI_IO & 1u));
	ck_assert_uint_eq(r->psi[PW_PSI_MEMORY].some.avg10, 2500);
	uint64_t before = r->psi[PW_PSI_MEMORY].some.total_us;
	rebuilt(p, 2 * SEC, r);
	/* 25% of 2 s */
	ck_assert_uint_eq(r->psi[PW_PSI_MEMORY].some.total_us - before, 500000);
	ck_assert_uint_eq(r->psi[PW_PSI_CPU].some.total_us, 200000);
	free(r);
	free(p);
	free(s);
}
END_TEST

/* A run's first point has nothing derived: neither has its sample. */
START_TEST(test_first_point_has_nothing_derived)
{
	struct pw_sample *s = pw_test_sample_new(CPUS, 8, false);
	struct pw_history_point *p;

	s->seq = 1;
	s->ncpu = CPUS;
	p = point_of(s);
	ck_assert(p->flags & PW_HISTORY_RUN_START);
	struct pw_sample *r = rebuilt(p, 0, NULL);
	ck_assert_uint_eq(r->derived.valid, 0);
	for (uint32_t id = 0; id < CPUS; id++)
		ck_assert_uint_eq(pw_sample_cpus(r)[id].derived_valid, 0);
	free(r);
	free(p);
	free(s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("history_sample");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_host_figures_come_back);
	tcase_add_test(tc, test_cpu_figures_come_back);
	tcase_add_test(tc, test_psi_totals_grow_by_stall_share);
	tcase_add_test(tc, test_first_point_has_nothing_derived);
	suite_add_tcase(s, tc);
	return pw_run_suite(s);
}
