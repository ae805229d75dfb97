/* test_pidstat.c — pw_pidstat_parse over real lines, hostile comms, cut and overflowing input. */
#include "fixture_util.h"
#include "pidstat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_exact(const char *buf, size_t len, struct pw_pidstat *ret)
{
	char *copy = pw_test_exact_copy(buf, len);
	int r = pw_pidstat_parse(copy, len, ret);

	free(copy);
	return r;
}

static int parse_fixture(const char *name, struct pw_pidstat *ret)
{
	char rel[128];
	size_t len;

	snprintf(rel, sizeof(rel), "quirks/pidstat/%s", name);
	char *buf = pw_fixture_read(rel, &len);
	int r = parse_exact(buf, len, ret);
	free(buf);
	return r;
}

START_TEST(test_real)
{
	struct pw_pidstat st;

	ck_assert_int_eq(parse_fixture("bash.stat", &st), 0);
	ck_assert_int_eq(st.pid, 32276);
	ck_assert_str_eq(st.comm, "bash");
	ck_assert_int_eq(st.state, 'S');
	ck_assert_uint_eq(st.utime, 6);
	ck_assert_uint_eq(st.stime, 11);
	ck_assert_uint_eq(st.starttime, 922734);
	ck_assert_int_eq(parse_fixture("systemd.stat", &st), 0);
	ck_assert_int_eq(st.pid, 1);
	ck_assert_str_eq(st.comm, "systemd");
	ck_assert_uint_eq(st.utime, 267);
	ck_assert_uint_eq(st.stime, 406);
	ck_assert_uint_eq(st.starttime, 14);
	ck_assert_int_eq(parse_fixture("kworker-long.stat", &st), 0);
	ck_assert_str_eq(st.comm, "kworker/u16:3-events_unbound");
	ck_assert_int_eq(st.state, 'I');
	ck_assert_uint_eq(st.stime, 12);
}
END_TEST

/* comm is whatever the task set: the fields are found from the last ')'. */
START_TEST(test_hostile_comm)
{
	struct pw_pidstat st;

	ck_assert_int_eq(parse_fixture("paren-space.stat", &st), 0);
	ck_assert_int_eq(st.pid, 4242);
	ck_assert_str_eq(st.comm, "a) (b");
	ck_assert_int_eq(st.state, 'S');
	ck_assert_uint_eq(st.utime, 731);
	ck_assert_uint_eq(st.stime, 7931);
	ck_assert_uint_eq(st.starttime, 9001);
	ck_assert_int_eq(parse_fixture("hostile-huge.stat", &st), 0);
	ck_assert_str_eq(st.comm, "a) (b) ) )");
	ck_assert_int_eq(st.state, 'R');
	ck_assert_uint_eq(st.utime, UINT64_MAX);
	ck_assert_uint_eq(st.stime, UINT64_MAX - 1);
	ck_assert_uint_eq(st.starttime, UINT64_MAX - 2);
	/* A comm longer than PW_COMM_MAX is truncated, not an error. */
	static const char long_comm[] = "9 (0123456789012345678901234567890123456789) S 1 1 1 0 -1 0 0 0 0 0 "
	                                "5 6 0 0 20 0 1 0 77 0 0\n";
	ck_assert_int_eq(parse_exact(long_comm, sizeof(long_comm) - 1, &st), 0);
	ck_assert_uint_eq(strlen(st.comm), PW_COMM_MAX - 1);
	ck_assert_uint_eq(st.stime, 6);
	ck_assert_uint_eq(st.starttime, 77);
	/* Newlines and tabs in comm do not end anything. */
	static const char nl[] = "10 (x\ny\t) R 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n";
	ck_assert_int_eq(parse_exact(nl, sizeof(nl) - 1, &st), 0);
	ck_assert_uint_eq(st.stime, 4);
	ck_assert_uint_eq(st.starttime, 88);
}
END_TEST

START_TEST(test_malformed)
{
	struct pw_pidstat st = {.pid = -7};
	static const char *const bad[] = {
	        "",
	        "\n",
	        "42",
	        "42 comm S 1",                                               /* no parentheses */
	        "42 (comm S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n",   /* no ')' */
	        "42 (comm) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0\n",       /* 21 fields */
	        "42 (comm) S 1 1 1 0 -1 0 0 0 0 0 3x 4 0 0 20 0 1 0 88 0\n", /* junk in utime */
	        "42 (comm) S 1 1 1 0 -1 0 0 0 0 0 -3 4 0 0 20 0 1 0 88 0\n", /* negative utime */
	        "42 (comm) SS 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n", /* state not a letter */
	        "x42 (comm) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n", /* no pid */
	        "42 (comm) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88",      /* cut in starttime */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(parse_exact(bad[i], strlen(bad[i]), &st) == -EINVAL, "accepted #%zu: %s", i,
		              bad[i]);
	ck_assert_int_eq(parse_fixture("truncated.stat", &st), -EINVAL);
	ck_assert_int_eq(parse_fixture("overflow.stat", &st), -ERANGE);
	static const char pid0[] = "0 (x) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n";
	ck_assert_int_eq(parse_exact(pid0, sizeof(pid0) - 1, &st), -ERANGE);
	static const char bigpid[] = "4294967296 (x) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 88 0\n";
	ck_assert_int_eq(parse_exact(bigpid, sizeof(bigpid) - 1, &st), -ERANGE);
	ck_assert_int_eq(st.pid, -7); /* untouched on failure */
}
END_TEST

static int parse_prefix(const char *buf, size_t len, void *ret, const void *full)
{
	int r = pw_pidstat_parse(buf, len, ret);

	if (r == 0) {
		const struct pw_pidstat *a = ret, *b = full;
		ck_assert_uint_eq(a->stime, b->stime);
		ck_assert_uint_eq(a->starttime, b->starttime);
	}
	return r;
}

/* Every short read is refused or, once starttime is whole, parsed exactly as the whole line. */
START_TEST(test_every_prefix)
{
	static const char *const files[] = {"bash.stat", "paren-space.stat", "hostile-huge.stat"};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char rel[128];
		size_t len;
		struct pw_pidstat full, part;

		snprintf(rel, sizeof(rel), "quirks/pidstat/%s", files[i]);
		char *buf = pw_fixture_read(rel, &len);
		ck_assert_int_eq(parse_exact(buf, len, &full), 0);
		pw_test_every_prefix(rel, buf, len, parse_prefix, &part, &full);
		free(buf);
	}
}
END_TEST

START_TEST(test_random_garbage)
{
	static const char alphabet[] = "0123456789 ()\n\t\0\xff-RS";
	uint32_t seed = 7;
	char buf[256];
	struct pw_pidstat st;

	for (int i = 0; i < 20000; i++) {
		size_t len = pw_test_random_input(&seed, alphabet, sizeof(alphabet) - 1, buf, sizeof(buf));
		int r = parse_exact(buf, len, &st);
		ck_assert(r == 0 || r == -EINVAL || r == -ERANGE);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pidstat");
	TCase *core = tcase_create("core"), *malformed = tcase_create("malformed");

	tcase_add_test(core, test_real);
	tcase_add_test(core, test_hostile_comm);
	tcase_add_test(malformed, test_malformed);
	tcase_add_test(malformed, test_every_prefix);
	tcase_add_test(malformed, test_random_garbage);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return pw_run_suite(s);
}
