/* test_baseline.c — the exponentially weighted mean and variance behind every detector rule: the first
 * observation, convergence, the half-life (independent of the sampling interval), the weighted
 * variance of a known series, the spread floor, scores, and the inputs that must change nothing. */
#include "baseline.h"
#include "fixture_util.h"

#include <math.h>
#include <string.h>

#define TOL 1e-9

static void assert_near(double got, double want, double tol)
{
	ck_assert_msg(fabs(got - want) <= tol, "got %.12g, want %.12g (+- %g)", got, want, tol);
}

/* Fold value in n times, dt_s apart. */
static void feed(struct pw_baseline *b, double value, int n, double dt_s, double half_life_s)
{
	for (int i = 0; i < n; i++)
		pw_baseline_update(b, value, dt_s, half_life_s);
}

/* The weight one observation of dt_s seconds gets (what the header promises: halving per half-life). */
static double alpha_of(double dt_s, double half_life_s)
{
	return 1.0 - exp2(-dt_s / half_life_s);
}

/* ---- core ---- */

/* Past the warmup (issue 8: an incident in the first minutes must not teach itself as normal in
 * seconds): after 40 s of learning 10 +- 1, a minute at 50 moves the clipped baseline by a few units
 * and its spread by a few times, where the plain update learns the new level as normal. */
START_TEST(test_clipped_learning_is_slow)
{
	struct pw_baseline plain = {0}, clipped;

	for (int t = 0; t < 40; t++)
		pw_baseline_update(&plain, 10 + (t % 2 ? 1 : -1), 1, 3600);
	clipped = plain;
	for (int t = 0; t < 60; t++) {
		pw_baseline_update(&plain, 50, 1, 3600);
		pw_baseline_update_clipped(&clipped, 50, 1, 3600, 0.01, 3, 600);
	}
	ck_assert_msg(plain.mean > 30, "plain mean %g", plain.mean);
	ck_assert_msg(clipped.mean < 14, "clipped mean %g", clipped.mean);
	ck_assert_msg(pw_baseline_score(&clipped, 50, 0.01) > 4, "score %g",
	              pw_baseline_score(&clipped, 50, 0.01));
	ck_assert_double_eq(clipped.learned_s, plain.learned_s);
}
END_TEST

START_TEST(test_first_observation_sets_mean)
{
	struct pw_baseline b = {0};

	ck_assert(!pw_baseline_learned(&b, 0.5));
	pw_baseline_update(&b, 42.5, 2.0, 3600);
	ck_assert_double_eq(b.mean, 42.5);
	ck_assert_double_eq(b.var, 0);
	ck_assert_double_eq(b.learned_s, 2.0);
	ck_assert(pw_baseline_learned(&b, 2.0));
	ck_assert(!pw_baseline_learned(&b, 2.5));
	/* No spread yet: the floor stands in for it. */
	ck_assert_double_eq(pw_baseline_spread(&b, 0.25), 0.25);
}
END_TEST

START_TEST(test_learned_sums_intervals)
{
	struct pw_baseline b = {0};

	pw_baseline_update(&b, 1, 1.0, 60);
	pw_baseline_update(&b, 2, 0.5, 60);
	pw_baseline_update(&b, 3, 2.5, 60);
	assert_near(b.learned_s, 4.0, TOL);
	ck_assert(pw_baseline_learned(&b, 4.0));
	ck_assert(!pw_baseline_learned(&b, 4.01));
}
END_TEST

START_TEST(test_constant_stays_exact)
{
	struct pw_baseline b = {0};

	for (int i = 0; i < 500; i++) {
		pw_baseline_update(&b, 0.02, 1.0, 3600);
		ck_assert_double_eq(b.mean, 0.02);
		ck_assert_double_eq(b.var, 0);
	}
	ck_assert_double_eq(pw_baseline_score(&b, 0.02, 0.01), 0);
}
END_TEST

START_TEST(test_mean_converges_to_constant)
{
	struct pw_baseline b = {0};

	/* An atypical start (100) is forgotten: after 50 half-lives nothing of it remains. */
	pw_baseline_update(&b, 100, 1.0, 60);
	feed(&b, 7.0, 3000, 1.0, 60);
	assert_near(b.mean, 7.0, 1e-9);
	ck_assert_msg(b.var < 1e-9, "var %g", b.var);
	/* And it gets there monotonically, never overshooting. */
	struct pw_baseline c = {0};
	pw_baseline_update(&c, 100, 1.0, 60);
	double last = c.mean;
	for (int i = 0; i < 600; i++) {
		pw_baseline_update(&c, 7.0, 1.0, 60);
		ck_assert_msg(c.mean < last && c.mean > 7.0, "step %d: %g after %g", i, c.mean, last);
		last = c.mean;
	}
}
END_TEST

/* A level of 10 learned for 10 half-lives, then a step to 20: after one half-life the mean is
 * halfway (15), after two three quarters (17.5), whatever the sampling interval. */
static void check_step(double dt_s)
{
	const double hl = 60;
	int per_half_life = (int)lround(hl / dt_s);
	struct pw_baseline b = {0};

	feed(&b, 10.0, 10 * per_half_life, dt_s, hl);
	assert_near(b.mean, 10.0, TOL);
	feed(&b, 20.0, per_half_life, dt_s, hl);
	assert_near(b.mean, 15.0, 1e-9);
	feed(&b, 20.0, per_half_life, dt_s, hl);
	assert_near(b.mean, 17.5, 1e-9);
}

START_TEST(test_step_half_life_1s)
{
	check_step(1.0);
}
END_TEST

START_TEST(test_step_half_life_100ms)
{
	check_step(0.1);
}
END_TEST

START_TEST(test_step_dt_independent)
{
	const double hl = 3600;
	struct pw_baseline a = {0}, b = {0}, c = {0};

	feed(&a, 50.0, 36000, 1.0, hl);
	feed(&b, 50.0, 360000, 0.1, hl);
	/* Irregular intervals: 0.5 s and 1.5 s in turn (a sampler that runs late, then catches up). */
	for (int i = 0; i < 36000; i++)
		pw_baseline_update(&c, 50.0, i % 2 ? 1.5 : 0.5, hl);
	/* Ten minutes at 80. */
	feed(&a, 80.0, 600, 1.0, hl);
	feed(&b, 80.0, 6000, 0.1, hl);
	for (int i = 0; i < 600; i++)
		pw_baseline_update(&c, 80.0, i % 2 ? 1.5 : 0.5, hl);
	double want = 80.0 - 30.0 * exp2(-600.0 / hl);
	assert_near(a.mean, want, 1e-7);
	assert_near(b.mean, want, 1e-7);
	assert_near(c.mean, want, 1e-7);
}
END_TEST

/* 4, 6, 4, 6 ...: the exponentially weighted variance of two alternating values is
 * W_last * W_other * (a - b)^2 with W_last = 1 / (2 - alpha), W_other = (1 - alpha) / (2 - alpha). */
START_TEST(test_alternating_variance)
{
	const double hl = 10, dt = 1;
	double alpha = alpha_of(dt, hl);
	double w_last = 1.0 / (2.0 - alpha), w_other = (1.0 - alpha) / (2.0 - alpha);
	struct pw_baseline b = {0};

	for (int i = 0; i < 4000; i++)
		pw_baseline_update(&b, i % 2 ? 6.0 : 4.0, dt, hl);
	/* Ended on a 6. */
	assert_near(b.mean, 6.0 * w_last + 4.0 * w_other, 1e-9);
	assert_near(b.var, w_last * w_other * 4.0, 1e-9);
	/* Close to the plain variance of the series (1), a little under it. */
	ck_assert(b.var < 1.0 && b.var > 0.99);
	assert_near(pw_baseline_spread(&b, 0.01), sqrt(b.var), TOL);
	pw_baseline_update(&b, 4.0, dt, hl);
	assert_near(b.mean, 4.0 * w_last + 6.0 * w_other, 1e-9);
	assert_near(b.var, w_last * w_other * 4.0, 1e-9);
}
END_TEST

START_TEST(test_spread_floor)
{
	struct pw_baseline flat = {.mean = 5, .var = 0, .learned_s = 100};
	struct pw_baseline wide = {.mean = 5, .var = 4, .learned_s = 100};
	struct pw_baseline empty = {0};

	ck_assert_double_eq(pw_baseline_spread(&flat, 0.01), 0.01);
	ck_assert_double_eq(pw_baseline_spread(&flat, 0), 0);
	ck_assert_double_eq(pw_baseline_spread(&wide, 1), 2);
	ck_assert_double_eq(pw_baseline_spread(&wide, 3), 3);
	ck_assert_double_eq(pw_baseline_spread(&empty, 0.5), 0.5);
}
END_TEST

START_TEST(test_score_sign_and_magnitude)
{
	struct pw_baseline b = {.mean = 10, .var = 4, .learned_s = 100};

	assert_near(pw_baseline_score(&b, 14, 0.5), 2, TOL);
	assert_near(pw_baseline_score(&b, 6, 0.5), -2, TOL);
	assert_near(pw_baseline_score(&b, 10, 0.5), 0, TOL);
	/* The floor wins over a smaller spread. */
	assert_near(pw_baseline_score(&b, 14, 4), 1, TOL);
	assert_near(pw_baseline_score(&b, 2, 4), -2, TOL);

	/* A never-moving signal: one floor's worth of change is one spread. */
	struct pw_baseline flat = {.mean = 0.02, .var = 0, .learned_s = 600};
	assert_near(pw_baseline_score(&flat, 0.28, 0.01), 26, 1e-6);
}
END_TEST

START_TEST(test_score_empty_or_non_finite)
{
	struct pw_baseline empty = {0};
	struct pw_baseline b = {.mean = 10, .var = 4, .learned_s = 100};

	ck_assert_double_eq(pw_baseline_score(&empty, 1e9, 0.01), 0);
	ck_assert_double_eq(pw_baseline_score(&empty, -1e9, 0.01), 0);
	ck_assert_double_eq(pw_baseline_score(&b, NAN, 0.01), 0);
	ck_assert_double_eq(pw_baseline_score(&b, INFINITY, 0.01), 0);
	ck_assert_double_eq(pw_baseline_score(&b, -INFINITY, 0.01), 0);
}
END_TEST

/* ---- malformed ---- */

static void check_ignored(struct pw_baseline *b, double x, double dt_s)
{
	struct pw_baseline before = *b;

	pw_baseline_update(b, x, dt_s, 60);
	ck_assert_msg(memcmp(&before, b, sizeof(*b)) == 0, "x %g dt %g changed the baseline", x, dt_s);
}

START_TEST(test_ignored_inputs)
{
	static const double bad_x[] = {NAN, INFINITY, -INFINITY};
	static const double bad_dt[] = {0, -1, -1e-9, NAN, -INFINITY};
	struct pw_baseline empty = {0};
	struct pw_baseline learned = {0};

	feed(&learned, 3.0, 10, 1.0, 60);
	pw_baseline_update(&learned, 5.0, 1.0, 60);
	for (size_t i = 0; i < sizeof(bad_x) / sizeof(bad_x[0]); i++) {
		/* Not even as the first observation. */
		check_ignored(&empty, bad_x[i], 1.0);
		check_ignored(&learned, bad_x[i], 1.0);
	}
	for (size_t i = 0; i < sizeof(bad_dt) / sizeof(bad_dt[0]); i++) {
		check_ignored(&empty, 1.0, bad_dt[i]);
		check_ignored(&learned, 1.0, bad_dt[i]);
	}
	ck_assert_double_eq(empty.learned_s, 0);
	/* A valid observation after ignored ones is still the first. */
	pw_baseline_update(&empty, 9.0, 1.0, 60);
	ck_assert_double_eq(empty.mean, 9.0);
}
END_TEST

/* The first observation must not keep most of the weight after the warmup: a baseline started at
 * 0.30 (iowait while the host boots) and fed 0.02 for 599 s must have learned the 0.02 (a pure
 * exponential weight with a 1 h half-life would still hold 0.27 and blind IoWaitHigh for hours). */
START_TEST(test_warmup_is_learned_not_first_sample)
{
	struct pw_baseline b = {0};

	pw_baseline_update(&b, 0.30, 1.0, 3600);
	feed(&b, 0.02, 599, 1.0, 3600);
	/* The time-weighted mean of those 600 s is 0.0205. */
	ck_assert_msg(b.mean < 0.03, "after 600 s of mostly 0.02 the mean is %.4f", b.mean);
}
END_TEST

static Suite *baseline_suite(void)
{
	Suite *s = suite_create("baseline");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");
	TCase *traps = tcase_create("traps");

	tcase_add_test(core, test_first_observation_sets_mean);
	tcase_add_test(core, test_learned_sums_intervals);
	tcase_add_test(core, test_constant_stays_exact);
	tcase_add_test(core, test_mean_converges_to_constant);
	tcase_add_test(core, test_step_half_life_1s);
	tcase_add_test(core, test_step_half_life_100ms);
	tcase_add_test(core, test_step_dt_independent);
	tcase_add_test(core, test_alternating_variance);
	tcase_add_test(core, test_spread_floor);
	tcase_add_test(core, test_score_sign_and_magnitude);
	tcase_add_test(core, test_score_empty_or_non_finite);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_ignored_inputs);
	suite_add_tcase(s, malformed);

	tcase_add_test(traps, test_warmup_is_learned_not_first_sample);
	tcase_add_test(traps, test_clipped_learning_is_slow);
	suite_add_tcase(s, traps);
	return s;
}

int main(void)
{
	return pw_run_suite(baseline_suite());
}
