/* test_ring.c — single-threaded behaviour of the ring: numbering, wrap-around, sizes, bad input.
 * Concurrency is tested by tests/stress/stress_ring.c under ThreadSanitizer. */
#include "fixture_util.h"
#include "ring.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

struct payload {
	uint64_t k;
	uint32_t a;
	char tag[12];
};

static struct payload make(uint64_t k)
{
	struct payload p;

	memset(&p, 0, sizeof(p));
	p.k = k;
	p.a = (uint32_t)(k * 7 + 1);
	for (size_t i = 0; i < sizeof(p.tag); i++)
		p.tag[i] = (char)('a' + (k + i) % 26);
	return p;
}

static void assert_payload(const struct payload *got, uint64_t k)
{
	struct payload want = make(k);

	ck_assert_mem_eq(got, &want, sizeof(want));
}

START_TEST(test_empty)
{
	struct pw_ring *r = pw_ring_new(4, sizeof(struct payload));
	struct payload p;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(pw_ring_capacity(r), 4);
	ck_assert_uint_eq(pw_ring_payload_size(r), sizeof(struct payload));
	ck_assert_uint_eq(pw_ring_head(r), 0);
	ck_assert_uint_eq(pw_ring_read_latest(r, &p), 0);
	ck_assert_int_eq(pw_ring_read(r, 1, &p), -ENODATA);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_round_trip)
{
	struct pw_ring *r = pw_ring_new(4, sizeof(struct payload));
	struct payload in = make(1), out;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(pw_ring_publish(r, &in), 1);
	ck_assert_uint_eq(pw_ring_head(r), 1);
	memset(&out, 0xa5, sizeof(out));
	ck_assert_int_eq(pw_ring_read(r, 1, &out), 0);
	assert_payload(&out, 1);
	memset(&out, 0xa5, sizeof(out));
	ck_assert_uint_eq(pw_ring_read_latest(r, &out), 1);
	assert_payload(&out, 1);
	ck_assert_int_eq(pw_ring_read(r, 2, &out), -ENODATA);

	in = make(2);
	ck_assert_uint_eq(pw_ring_publish(r, &in), 2);
	ck_assert_uint_eq(pw_ring_read_latest(r, &out), 2);
	assert_payload(&out, 2);
	ck_assert_int_eq(pw_ring_read(r, 1, &out), 0);
	assert_payload(&out, 1);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_wrap_around)
{
	const uint32_t cap = 4;
	struct pw_ring *r = pw_ring_new(cap, sizeof(struct payload));
	struct payload p;
	uint64_t k;

	ck_assert_ptr_nonnull(r);
	for (k = 1; k <= cap + 3; k++) {
		p = make(k);
		ck_assert_uint_eq(pw_ring_publish(r, &p), k);
	}
	ck_assert_uint_eq(pw_ring_head(r), cap + 3);
	for (k = 1; k <= 3; k++)
		ck_assert_int_eq(pw_ring_read(r, k, &p), -ESTALE);
	for (k = 4; k <= cap + 3; k++) {
		ck_assert_int_eq(pw_ring_read(r, k, &p), 0);
		assert_payload(&p, k);
	}
	ck_assert_int_eq(pw_ring_read(r, cap + 4, &p), -ENODATA);
	/* Far ahead lands on a slot holding an older publication: still "not yet". */
	ck_assert_int_eq(pw_ring_read(r, 1000, &p), -ENODATA);
	ck_assert_uint_eq(pw_ring_read_latest(r, &p), cap + 3);
	assert_payload(&p, cap + 3);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_odd_size)
{
	/* 13 bytes: two words per slot; the reader must not write past byte 13 of ret, and neither
	 * buffer needs to be aligned. */
	unsigned char in[1 + 13], out[1 + 13 + 8];
	struct pw_ring *r = pw_ring_new(3, 13);

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(pw_ring_payload_size(r), 13);
	for (int i = 0; i < 13; i++)
		in[1 + i] = (unsigned char)(0xf0 + i);
	ck_assert_uint_eq(pw_ring_publish(r, in + 1), 1);
	memset(out, 0x5a, sizeof(out));
	ck_assert_int_eq(pw_ring_read(r, 1, out + 1), 0);
	ck_assert_mem_eq(out + 1, in + 1, 13);
	ck_assert_uint_eq(out[0], 0x5a);
	for (size_t i = 1 + 13; i < sizeof(out); i++)
		ck_assert_uint_eq(out[i], 0x5a);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_capacity_one)
{
	struct pw_ring *r = pw_ring_new(1, sizeof(struct payload));
	struct payload p;

	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(pw_ring_capacity(r), 1);
	for (uint64_t k = 1; k <= 3; k++) {
		p = make(k);
		ck_assert_uint_eq(pw_ring_publish(r, &p), k);
		ck_assert_uint_eq(pw_ring_read_latest(r, &p), k);
		assert_payload(&p, k);
	}
	ck_assert_int_eq(pw_ring_read(r, 1, &p), -ESTALE);
	ck_assert_int_eq(pw_ring_read(r, 2, &p), -ESTALE);
	ck_assert_int_eq(pw_ring_read(r, 3, &p), 0);
	assert_payload(&p, 3);
	ck_assert_int_eq(pw_ring_read(r, 4, &p), -ENODATA);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_zero_slots)
{
	ck_assert_ptr_null(pw_ring_new(0, 8));
	ck_assert_ptr_null(pw_ring_new(0, 0));
}
END_TEST

START_TEST(test_huge_payload)
{
	ck_assert_ptr_null(pw_ring_new(2, SIZE_MAX));
	ck_assert_ptr_null(pw_ring_new(UINT32_MAX, SIZE_MAX / 4));
}
END_TEST

START_TEST(test_read_zero)
{
	struct pw_ring *r = pw_ring_new(2, sizeof(struct payload));
	struct payload p = make(1);

	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(pw_ring_read(r, 0, &p), -ENODATA);
	pw_ring_publish(r, &p);
	ck_assert_int_eq(pw_ring_read(r, 0, &p), -ENODATA);
	ck_assert_int_eq(pw_ring_read(r, UINT64_MAX, &p), -ENODATA);
	pw_ring_free(r);
}
END_TEST

START_TEST(test_free_null)
{
	pw_ring_free(NULL);
}
END_TEST

static Suite *ring_suite(void)
{
	Suite *s = suite_create("ring");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_empty);
	tcase_add_test(core, test_round_trip);
	tcase_add_test(core, test_wrap_around);
	tcase_add_test(core, test_odd_size);
	tcase_add_test(core, test_capacity_one);
	suite_add_tcase(s, core);

	tcase_add_test(malformed, test_zero_slots);
	tcase_add_test(malformed, test_huge_payload);
	tcase_add_test(malformed, test_read_zero);
	tcase_add_test(malformed, test_free_null);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	Suite *s = ring_suite();

	return pw_run_suite(s);
}
