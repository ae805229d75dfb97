/* test_kvfile.c — pw_kvfile_parse on its own: lookup through the sorted table, the key suffix,
 * and what fails a file. test_vmstat and test_meminfo run it over real captures. */
#include "fixture_util.h"
#include "kvfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { F_BB, F_A, F_CCC, F_COUNT };

static const struct pw_kvfile_key keys[F_COUNT] = {
        [F_BB] = PW_KVFILE_KEY("bb"),
        [F_A] = PW_KVFILE_KEY("a"),
        [F_CCC] = PW_KVFILE_KEY("ccc"),
};
static const unsigned char sorted[F_COUNT] = {F_A, F_BB, F_CCC};
static const struct pw_kvfile plain = {.keys = keys, .sorted = sorted, .count = F_COUNT};
static const struct pw_kvfile colon = {.keys = keys, .sorted = sorted, .count = F_COUNT, .key_suffix = ':'};

/* Parse an exact heap copy, so ASan reports any read past len. */
static int parse(const struct pw_kvfile *table, const char *s, uint64_t *values, uint32_t *present)
{
	char *copy = pw_test_exact_copy(s, strlen(s));
	int r = pw_kvfile_parse(table, copy, strlen(s), values, present);

	free(copy);
	return r;
}

START_TEST(test_lookup)
{
	uint64_t v[F_COUNT] = {0};
	uint32_t present = 0;

	ck_assert_int_eq(parse(&plain, "zz 1\nccc 3\nb 9\na 1\nbbb 9\nbb 2", v, &present), 0);
	ck_assert_uint_eq(present, (1u << F_A) | (1u << F_BB) | (1u << F_CCC));
	ck_assert_uint_eq(v[F_A], 1);
	ck_assert_uint_eq(v[F_BB], 2);
	ck_assert_uint_eq(v[F_CCC], 3);
}
END_TEST

START_TEST(test_suffix)
{
	uint64_t v[F_COUNT] = {0};
	uint32_t present = 0;

	ck_assert_int_eq(parse(&colon, "bb:   42 kB\nother: 1\n", v, &present), 0);
	ck_assert_uint_eq(present, 1u << F_BB);
	ck_assert_uint_eq(v[F_BB], 42);
	ck_assert_int_eq(parse(&colon, "bb 42\n", v, &present), -EINVAL);
	ck_assert_int_eq(parse(&plain, "bb: 42\n", v, &present), 0); /* "bb:" is just another key */
}
END_TEST

START_TEST(test_malformed)
{
	uint64_t v[F_COUNT] = {0};
	uint32_t present = 0;

	ck_assert_int_eq(parse(&plain, "", v, &present), -EINVAL);
	ck_assert_int_eq(parse(&plain, "zz\n", v, &present), -EINVAL); /* every line has a number */
	ck_assert_int_eq(parse(&plain, "a x\n", v, &present), -EINVAL);
	ck_assert_int_eq(parse(&plain, "zz 99999999999999999999\n", v, &present), 0); /* not kept */
	ck_assert_int_eq(parse(&plain, "a 99999999999999999999\n", v, &present), -ERANGE);
}
END_TEST

static Suite *kvfile_suite(void)
{
	Suite *s = suite_create("kvfile");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_lookup);
	tcase_add_test(core, test_suffix);
	tcase_add_test(malformed, test_malformed);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(kvfile_suite());
}
