/* test_history_tiers.c — the history store's two tiers on real files (daemon/history_store.c,
 * daemon/history_tier.c), with sample times made up so minutes pass at once: the minutes tier
 * holds exactly the mean, min and max of the samples each minute covers; the minutes a killed run
 * left unwritten are summed from its samples at the next start, and a minute a restart falls in is
 * written once, with both runs' samples; writes a full disk refused are made once it takes them. */
#include "fixture_util.h"
#include "history_signals.h"
#include "history_store.h"
#include "history_tier.h"
#include "history_transitions.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CPU_CAP 2
#define SEC INT64_C(1000000000)
#define T0 (INT64_C(1800000000) * SEC) /* a minute boundary */

static char dir[256];
static size_t point_size;

static void setup(void)
{
	pw_scratch_make(dir, sizeof(dir), NULL, "history-store");
	point_size = pw_history_point_size(CPU_CAP);
}

static void teardown(void)
{
	pw_scratch_remove(dir);
}

/* Sample t (seconds after T0): figures that move differently, so means, mins and maxs differ. */
static void sample_at(struct pw_history_point *p, int t)
{
	pw_history_point_unknown(p, CPU_CAP, T0 + t * SEC + 3000000);
	p->flags = t == 0 ? PW_HISTORY_RUN_START : 0;
	p->intr_rate = (float)(1000 + (t * 37) % 101);
	p->ctxt_rate = (float)(t % 7 == 0 ? NAN : 50 + t % 7);
	p->mem_available_kb = 1000000 + (uint64_t)(t % 13) * 4;
	p->share[PW_MODE_IDLE] = (uint16_t)(9000 + (t * 11) % 500);
	p->ncpu = 2;
	p->cpus[0] = (struct pw_history_cpu){100, 50, 40, 10, 0, 7000, 2000};
	p->cpus[1] = (struct pw_history_cpu){(uint16_t)(200 + t % 30), 150, 40, 10, 0, 8000, 2400};
}

static struct pw_history_store *open_store(void)
{
	struct pw_history_store_config cfg = {.dir = pw_scratch_path(dir, "history"),
	                                      .interval_ns = SEC,
	                                      .cpu_cap = CPU_CAP,
	                                      .retention_ns = 3600 * SEC,
	                                      .retention_size = 64u << 20};
	struct pw_history_store *st = pw_history_store_new(&cfg);
	ck_assert_ptr_nonnull(st);
	return st;
}

static int read_tier(const char *prefix, void **ret)
{
	return pw_history_tier_read(pw_scratch_path(dir, "history"), prefix, CPU_CAP, point_size, INT64_MIN,
	                            INT64_MAX, UINT32_MAX, ret);
}

static const struct pw_history_point *at(void *pts, int i)
{
	return (const void *)((const char *)pts + (size_t)i * point_size);
}

/* Every minute of the minutes tier against the samples tier's samples of that minute. */
static int check_minutes(void)
{
	void *samples = NULL, *minutes = NULL;
	int ns = read_tier(PW_HISTORY_SAMPLES, &samples), nm = read_tier(PW_HISTORY_MINUTES, &minutes);
	const enum pw_history_signal sigs[] = {PW_HS_INTR, PW_HS_CTXT, PW_HS_MEM_AVAILABLE, PW_HS_CPU_IDLE,
	                                       PW_HS_PERCPU_BUSY};
	ck_assert_int_gt(ns, 0);
	ck_assert_int_eq(nm % 3, 0);
	for (int m = 0; m < nm; m += 3) {
		const struct pw_history_point *mean = at(minutes, m), *min = at(minutes, m + 1),
		                              *max = at(minutes, m + 2);
		int64_t start = mean->real_ns;
		ck_assert_uint_eq(PW_HISTORY_STAT(mean->flags), PW_HISTORY_MEAN);
		ck_assert_uint_eq(PW_HISTORY_STAT(min->flags), PW_HISTORY_MIN);
		ck_assert_uint_eq(PW_HISTORY_STAT(max->flags), PW_HISTORY_MAX);
		ck_assert_int_eq(min->real_ns, start);
		for (size_t k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++) {
			struct pw_history_series se = {.signal = sigs[k], .inst = 1};
			double sum = 0, lo = INFINITY, hi = -INFINITY;
			uint32_t n = 0, count = 0;
			for (int i = 0; i < ns; i++) {
				const struct pw_history_point *p = at(samples, i);
				if (p->real_ns < start || p->real_ns >= start + 60 * SEC)
					continue;
				count++;
				double v = pw_history_series_get(&se, p);
				if (!isfinite(v))
					continue;
				sum += v, n++;
				lo = fmin(lo, v), hi = fmax(hi, v);
			}
			ck_assert_uint_eq(PW_HISTORY_COUNT(mean->flags), count);
			double q = pw_history_signal_def(sigs[k])->quantum;
			ck_assert_msg(fabs(pw_history_series_get(&se, mean) - sum / n) <= q,
			              "%s mean %g, samples %g", pw_history_signal_name(sigs[k]),
			              pw_history_series_get(&se, mean), sum / n);
			ck_assert_double_eq_tol(pw_history_series_get(&se, min), lo, q / 2);
			ck_assert_double_eq_tol(pw_history_series_get(&se, max), hi, q / 2);
		}
	}
	free(samples);
	free(minutes);
	return nm / 3;
}

/* As the disk writer does with each batch: a point is in the head once flushed. */
static void append(struct pw_history_store *st, const struct pw_history_point *p, int t)
{
	pw_history_store_append(st, p, t * SEC);
	pw_history_store_flush(st, t * SEC);
}

START_TEST(test_minutes_are_the_samples_summed)
{
	struct pw_history_store *st = open_store();
	struct pw_history_point *p = calloc(1, point_size);

	for (int t = 0; t < 5 * 60 + 17; t++) {
		sample_at(p, t);
		append(st, p, t);
	}
	pw_history_store_close(st);
	pw_history_store_free(st);
	/* Five whole minutes and the 17 s the stop wrote. */
	ck_assert_int_eq(check_minutes(), 6);
	free(p);
}
END_TEST

START_TEST(test_killed_run_minutes_summed_at_start)
{
	struct pw_history_store *st = open_store();
	struct pw_history_point *p = calloc(1, point_size);
	int t;

	for (t = 0; t < 150; t++) {
		sample_at(p, t);
		append(st, p, t);
	}
	/* A kill: nothing closed; the head holds the samples since the last block, the minute being
	 * summed is lost from memory. */
	pw_history_store_free(st);
	st = open_store();
	for (t = 200; t < 230; t++) {
		sample_at(p, t);
		p->flags = t == 200 ? PW_HISTORY_RUN_START : 0;
		append(st, p, t);
	}
	pw_history_store_close(st);
	pw_history_store_free(st);
	/* Minutes 0, 1 and 2 (the killed run's, the last one partial) and minute 3 of the new run. */
	ck_assert_int_eq(check_minutes(), 4);
	free(p);
}
END_TEST

/* A restart inside a minute: the minute is written once, with both runs' samples. */
START_TEST(test_restart_inside_a_minute)
{
	struct pw_history_store *st = open_store();
	struct pw_history_point *p = calloc(1, point_size);
	int t;

	for (t = 0; t <= 70; t++) {
		sample_at(p, t);
		append(st, p, t);
	}
	pw_history_store_free(st); /* killed */
	st = open_store();
	for (t = 80; t <= 100; t++) {
		sample_at(p, t);
		p->flags = t == 80 ? PW_HISTORY_RUN_START : 0;
		append(st, p, t);
	}
	pw_history_store_close(st);
	pw_history_store_free(st);
	ck_assert_int_eq(check_minutes(), 2); /* minute 1 counts 11 + 21 samples */
	free(p);
}
END_TEST

static struct pw_history_transition transition(int64_t ms, int to)
{
	struct pw_history_transition t = {.real_ns = ms * 1000000,
	                                  .alert = PW_ALERT_CPU_FREQUENCY_LOW,
	                                  .from = (uint8_t)(to - 1),
	                                  .to = (uint8_t)to,
	                                  .severity = PW_SEVERITY_CRITICAL,
	                                  .value = 0.5,
	                                  .baseline = 0.9};
	snprintf(t.scope, sizeof(t.scope), "cpu3\ttab");
	return t;
}

/* Transitions round-trip by name; a torn last line, an unknown alert and an unknown column of a
 * newer writer are skipped; past its bound the file keeps only what is inside its retention. */
START_TEST(test_transitions_file)
{
	const char *hist = pw_scratch_path(dir, "history");
	char path[512];
	struct pw_history_transition t[2] = {transition(1000, PW_ALERT_PENDING),
	                                     transition(2000, PW_ALERT_FIRING)},
	                             got[8];

	ck_assert_int_eq(mkdir(hist, 0700), 0);
	ck_assert_int_eq(pw_history_transitions_append(hist, t, 2, 2000 * 1000000LL, 3600 * SEC, NULL), 0);
	snprintf(path, sizeof(path), "%s/%s", hist, PW_HISTORY_TRANSITIONS_FILE);
	FILE *f = fopen(path, "a");
	fputs("3000\tNoSuchAlert\tpending\tfiring\tcritical\t1\t1\thost\n4000\tCpuFrequencyLow\tpen", f);
	fclose(f);
	size_t n = pw_history_transitions_read(hist, INT64_MIN, INT64_MAX, got, 8);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(got[1].real_ns, 2000 * 1000000LL);
	ck_assert_uint_eq(got[1].alert, PW_ALERT_CPU_FREQUENCY_LOW);
	ck_assert_uint_eq(got[1].to, PW_ALERT_FIRING);
	ck_assert_uint_eq(got[1].severity, PW_SEVERITY_CRITICAL);
	ck_assert_double_eq_tol(got[1].baseline, 0.9, 1e-9);
	ck_assert_str_eq(got[1].scope, "cpu3 tab"); /* a tab would have split the line */
	ck_assert_uint_eq(pw_history_transitions_read(hist, 1000 * 1000000LL, INT64_MAX, got, 8), 1);

	/* A newer writer's file: a column more, in another order. */
	f = fopen(path, "w");
	fputs("alert\ttime_ms\tfrom\tto\tseverity\tcolour\n"
	      "StealHigh\t5000\tinactive\tpending\twarning\tblue\n",
	      f);
	fclose(f);
	ck_assert_uint_eq(pw_history_transitions_read(hist, INT64_MIN, INT64_MAX, got, 8), 1);
	ck_assert_uint_eq(got[0].alert, PW_ALERT_STEAL_HIGH);
	ck_assert_int_eq(got[0].real_ns, 5000 * 1000000LL);

	/* Past 256 KiB the lines older than the retention go, the newer stay. */
	unlink(path);
	for (int i = 0; i < 6000; i++) {
		struct pw_history_transition old = transition(10000 + i, PW_ALERT_PENDING);
		ck_assert_int_eq(pw_history_transitions_append(hist, &old, 1, 0, INT64_C(1) << 62, NULL), 0);
	}
	struct pw_history_transition fresh = transition(1000000, PW_ALERT_FIRING);
	ck_assert_int_eq(pw_history_transitions_append(hist, &fresh, 1, 1000000 * 1000000LL, 100 * SEC, NULL),
	                 0);
	ck_assert_uint_eq(pw_history_transitions_read(hist, INT64_MIN, INT64_MAX, got, 8), 1);
	ck_assert_int_eq(got[0].real_ns, 1000000 * 1000000LL);
}
END_TEST

/* Writes fail past RLIMIT_FSIZE (EFBIG, with SIGXFSZ ignored as the daemon does): 0 stops every
 * write that would grow a file, as a full disk does, without root. */
static void file_size_limit(rlim_t limit)
{
	struct rlimit rl = {limit, RLIM_INFINITY};
	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static bool store_failing(const struct pw_history_store *st)
{
	struct pw_file_stats fs;
	pw_history_store_stats(st, &fs);
	return fs.failing;
}

/* A minute's point and two transitions that could not be written while the disk refused are
 * written with the next flush once it takes writes again, and failing clears then, not at the
 * next minute or the next transition; nothing is lost. */
START_TEST(test_failed_writes_tried_again)
{
	struct pw_history_store *st = open_store();
	struct pw_history_point *p = calloc(1, point_size);
	struct pw_history_transition t[2] = {transition(55000, PW_ALERT_PENDING),
	                                     transition(61000, PW_ALERT_FIRING)},
	                             got[4];
	int k;

	for (k = 0; k < 55; k++) {
		sample_at(p, k);
		append(st, p, k);
	}
	ck_assert(!store_failing(st));
	file_size_limit(0);
	for (; k < 65; k++) { /* the minute ends at 60: its point is refused */
		sample_at(p, k);
		append(st, p, k);
	}
	pw_history_store_transitions(st, t, 2, k * SEC);
	ck_assert(store_failing(st));
	file_size_limit(RLIM_INFINITY);
	sample_at(p, k);
	append(st, p, k);
	ck_assert_msg(!store_failing(st), "still failing once the disk takes writes");
	ck_assert_uint_eq(
	        pw_history_transitions_read(pw_scratch_path(dir, "history"), INT64_MIN, INT64_MAX, got, 4),
	        2);
	ck_assert_int_eq(got[1].real_ns, 61000 * INT64_C(1000000));
	/* Killed: the minute that was refused is in the minutes tier's head all the same. */
	pw_history_store_free(st);
	void *minutes = NULL;
	ck_assert_int_eq(read_tier(PW_HISTORY_MINUTES, &minutes), 3);
	ck_assert_int_eq(PW_HISTORY_COUNT(at(minutes, 0)->flags), 60);
	free(minutes);
	free(p);
}
END_TEST

static Suite *history_store_suite(void)
{
	Suite *s = suite_create("history_tiers");
	TCase *core = tcase_create("core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_minutes_are_the_samples_summed);
	tcase_add_test(core, test_killed_run_minutes_summed_at_start);
	tcase_add_test(core, test_restart_inside_a_minute);
	tcase_add_test(core, test_transitions_file);
	tcase_add_test(core, test_failed_writes_tried_again);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(history_store_suite());
}
