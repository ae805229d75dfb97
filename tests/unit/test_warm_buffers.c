/* test_warm_buffers.c — the buffers kept between /history answers (daemon/warm_buffers.c): which one
 * a taker gets, what is not kept, the bound, the waker, and that an idle keep frees everything. */
#include "fixture_util.h"
#include "warm_buffers.h"

#include "clock.h"

#include <stdlib.h>
#include <string.h>

#define KIB ((size_t)1024)

/* A buffer of n KiB with its first byte set, so a taker can tell which one it got. */
static void *buffer(size_t kib, char mark)
{
	char *p = malloc(kib * KIB);
	ck_assert_ptr_nonnull(p);
	p[0] = mark;
	return p;
}

static void teardown(void)
{
	pw_warm_set_waker(NULL, NULL);
	pw_warm_drop_all();
}

START_TEST(test_take_fits)
{
	size_t cap;

	ck_assert_ptr_null(pw_warm_take(1, &cap));
	ck_assert_uint_eq(cap, 0);
	pw_warm_give(buffer(512, 'a'));
	pw_warm_give(buffer(2048, 'b'));
	pw_warm_give(buffer(1024, 'c'));
	/* The smallest that fits. */
	char *p = pw_warm_take(600 * KIB, &cap);
	ck_assert_int_eq(p[0], 'c');
	ck_assert_uint_ge(cap, 1024 * KIB);
	free(p);
	/* None fits: the largest, to grow. */
	p = pw_warm_take(4096 * KIB, &cap);
	ck_assert_int_eq(p[0], 'b');
	ck_assert_uint_ge(cap, 2048 * KIB);
	memset(p, 1, cap); /* all of cap is the caller's */
	free(p);
	p = pw_warm_take(0, &cap);
	ck_assert_int_eq(p[0], 'a');
	free(p);
	ck_assert_ptr_null(pw_warm_take(0, &cap));
}
END_TEST

/* Small buffers (malloc's heap keeps those warm) and what passes the bound are freed, not kept. */
START_TEST(test_bounded)
{
	size_t cap;

	pw_warm_give(NULL);
	pw_warm_give(buffer(64, 's'));
	ck_assert_ptr_null(pw_warm_take(0, &cap));
	for (int i = 0; i < 12; i++)
		pw_warm_give(buffer(3 * 1024, (char)('0' + i)));
	int n = 0;
	size_t total = 0;
	void *p;
	while ((p = pw_warm_take(0, &cap))) {
		n++;
		total += cap;
		free(p);
	}
	ck_assert_int_eq(n, 5); /* 16 MiB of 3 MiB buffers */
	ck_assert_uint_le(total, 16 * 1024 * KIB);
}
END_TEST

static int wakes;
static void count_wake(void *ctx)
{
	ck_assert_ptr_eq(ctx, &wakes);
	wakes++;
}

/* The waker hears of the first buffer kept, not of the others; an idle keep is freed whole. */
START_TEST(test_waker_and_idle)
{
	size_t cap;

	pw_warm_set_waker(count_wake, &wakes);
	ck_assert_int_eq(pw_warm_drop_idle(pw_mono_ns()), 0); /* nothing kept: no need to look again */
	pw_warm_give(buffer(512, 'a'));
	pw_warm_give(buffer(512, 'b'));
	ck_assert_int_eq(wakes, 1);
	int64_t now = pw_mono_ns(), next = pw_warm_drop_idle(now);
	ck_assert_int_gt(next, now); /* not idle yet: kept, look again then */
	ck_assert_int_le(next, now + PW_WARM_IDLE_NS);
	ck_assert_int_eq(pw_warm_drop_idle(next), 0);
	ck_assert_ptr_null(pw_warm_take(0, &cap));
	pw_warm_give(buffer(512, 'c'));
	ck_assert_int_eq(wakes, 2);
}
END_TEST

static Suite *warm_suite(void)
{
	Suite *s = suite_create("warm_buffers");
	TCase *core = tcase_create("core");

	tcase_add_checked_fixture(core, NULL, teardown);
	tcase_add_test(core, test_take_fits);
	tcase_add_test(core, test_bounded);
	tcase_add_test(core, test_waker_and_idle);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(warm_suite());
}
