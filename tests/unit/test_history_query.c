/* test_history_query.c — GET /history's arguments: defaults, times (relative, RFC 3339, Unix),
 * steps, signal lists, format negotiation; and every malformed query refused with a sentence
 * naming what is wrong. */
#include "history_query.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS INT64_C(1000000000)
#define NOW (INT64_C(1714564800) * NS) /* 2024-05-01T12:00:00Z */
#define HOUR (3600 * NS)

static int parse(const char *key1, const char *v1, const char *key2, const char *v2, const char *accept,
                 struct pw_history_query *q, char *err)
{
	struct pw_history_arg args[2] = {{key1, v1}, {key2, v2}};
	size_t n = key2 ? 2 : key1 ? 1 : 0;
	return pw_history_query_parse(args, n, accept, NOW, HOUR, q, err, 256);
}

static struct pw_history_query ok1(const char *key, const char *value)
{
	struct pw_history_query q;
	char err[256] = "";
	int r = parse(key, value, NULL, NULL, NULL, &q, err);
	ck_assert_msg(r == 0, "%s=%s: %s", key, value, err);
	return q;
}

START_TEST(test_defaults)
{
	struct pw_history_query q;
	char err[256];

	ck_assert_int_eq(parse(NULL, NULL, NULL, NULL, NULL, &q, err), 0);
	ck_assert_int_eq(q.since_ns, NOW - HOUR);
	ck_assert_int_eq(q.until_ns, NOW);
	ck_assert_int_eq(q.step_ns, 0);
	ck_assert(!q.step_given);
	ck_assert_int_eq(q.format, PW_HISTORY_JSON);
	ck_assert_uint_eq(q.signals, (UINT64_C(1) << PW_HS_COUNT) - 1);
}
END_TEST

START_TEST(test_times)
{
	ck_assert_int_eq(ok1("since", "-15m").since_ns, NOW - 15 * 60 * NS);
	ck_assert_int_eq(ok1("since", "-1h30m").since_ns, NOW - 90 * 60 * NS);
	ck_assert_int_eq(ok1("since", "-500ms").since_ns, NOW - NS / 2);
	ck_assert_int_eq(ok1("since", "2024-05-01T11:59:00Z").since_ns, NOW - 60 * NS);
	ck_assert_int_eq(ok1("since", "2024-05-01T11:59:00.25Z").since_ns, NOW - 60 * NS + NS / 4);
	ck_assert_int_eq(ok1("since", "2024-05-01T13:59:00+02:00").since_ns, NOW - 60 * NS);
	ck_assert_int_eq(ok1("since", "2024-05-01t10:59:00-01:00").since_ns, NOW - 60 * NS);
	ck_assert_int_eq(ok1("since", "1714564799.5").since_ns, NOW - NS / 2);
	ck_assert_int_eq(ok1("until", "-1m").until_ns, NOW - 60 * NS);
	ck_assert_int_eq(ok1("until", "now").until_ns, NOW);
}
END_TEST

START_TEST(test_step_signals_format)
{
	struct pw_history_query q = ok1("step", "10s");
	ck_assert_int_eq(q.step_ns, 10 * NS);
	ck_assert(q.step_given);
	ck_assert_int_eq(ok1("step", "1m").step_ns, 60 * NS);
	q = ok1("signals", "interrupts_per_second,percpu_frequency_ratio");
	ck_assert_uint_eq(q.signals, (UINT64_C(1) << PW_HS_INTR) | (UINT64_C(1) << PW_HS_PERCPU_FREQ_RATIO));
	ck_assert_int_eq(ok1("format", "csv").format, PW_HISTORY_CSV);

	char err[256];
	ck_assert_int_eq(parse(NULL, NULL, NULL, NULL, "text/csv", &q, err), 0);
	ck_assert_int_eq(q.format, PW_HISTORY_CSV);
	ck_assert_int_eq(parse(NULL, NULL, NULL, NULL, "application/json, text/csv", &q, err), 0);
	ck_assert_int_eq(q.format, PW_HISTORY_JSON);
	ck_assert_int_eq(parse(NULL, NULL, NULL, NULL, "*/*", &q, err), 0);
	ck_assert_int_eq(q.format, PW_HISTORY_JSON);
	ck_assert_int_eq(parse("format", "json", NULL, NULL, "text/csv", &q, err), 0);
	ck_assert_int_eq(q.format, PW_HISTORY_JSON);
	for (int s = 0; s < PW_HS_COUNT; s++) {
		const char *name = pw_history_signal_name(s);
		ck_assert_ptr_nonnull(name);
		ck_assert_int_eq(pw_history_signal_parse(name, strlen(name)), s);
	}
	ck_assert_ptr_null(pw_history_signal_name(PW_HS_COUNT));
}
END_TEST

/* Every bad query: refused, and the sentence names the parameter or the value. */
START_TEST(test_bad_queries)
{
	static const struct {
		const char *k1, *v1, *k2, *v2, *want;
	} bad[] = {
	        {"since", "yesterday", NULL, NULL, "since: 'yesterday' is not a time"},
	        {"since", "-15", NULL, NULL, "since: '-15'"},
	        {"since", "-15x", NULL, NULL, "since:"},
	        {"since", "-", NULL, NULL, "since:"},
	        {"since", "2024-13-01T00:00:00Z", NULL, NULL, "since:"},
	        {"since", "2024-02-30T00:00:00Z", NULL, NULL, "since:"},
	        {"since", "2024-05-01T12:00:00", NULL, NULL, "since:"}, /* no zone */
	        {"since", "2024-05-01T12:00:00Zjunk", NULL, NULL, "since:"},
	        {"since", "12.5.3", NULL, NULL, "since:"},
	        /* Beyond int64 nanoseconds (1677 to 2262): found by tests/fuzz/fuzz_history_query. */
	        {"since", "3024-05-01T12:00:00.5Z", NULL, NULL, "since:"},
	        {"since", "1024-05-01T12:00:00Z", NULL, NULL, "since:"},
	        {"until", "9223372039", NULL, NULL, "until:"},
	        {"since", "", NULL, NULL, "since: empty value"},
	        {"since", NULL, NULL, NULL, "since: empty value"},
	        {"until", "soon", NULL, NULL, "until: 'soon' is not a time"},
	        {"since", "-1m", "until", "-2m", "until must be later than since"},
	        {"since", "-1m", "since", "-2m", "since: given more than once"},
	        {"step", "fast", NULL, NULL, "step: 'fast' is not a duration"},
	        {"step", "0s", NULL, NULL, "step: must be between 1ms and 24h"},
	        {"step", "2d", NULL, NULL, "step: must be between 1ms and 24h"},
	        {"step", "10", NULL, NULL, "step: '10'"},
	        {"step", "99999999999999999999s", NULL, NULL, "step:"},
	        {"signals", "cpu_user_ratio,nope", NULL, NULL, "signals: unknown signal 'nope'"},
	        {"signals", "cpu_user_ratio,,busy_cpus", NULL, NULL, "signals: empty name"},
	        {"signals", ",", NULL, NULL, "signals: empty name"},
	        {"format", "xml", NULL, NULL, "format: 'xml' is neither json nor csv"},
	        {"from", "-1h", NULL, NULL, "unknown parameter 'from'"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pw_history_query q;
		char err[256] = "";
		int r = parse(bad[i].k1, bad[i].v1, bad[i].k2, bad[i].v2, NULL, &q, err);
		ck_assert_msg(r == -EINVAL, "case %zu accepted", i);
		ck_assert_msg(strstr(err, bad[i].want) != NULL, "case %zu: '%s' lacks '%s'", i, err,
		              bad[i].want);
	}
}
END_TEST

START_TEST(test_durations)
{
	int64_t ns;
	ck_assert_int_eq(pw_history_parse_duration("1h1m1s", &ns), 0);
	ck_assert_int_eq(ns, 3661 * NS);
	ck_assert_int_eq(pw_history_parse_duration("2d", &ns), 0);
	ck_assert_int_eq(ns, 2 * 86400 * NS);
	ck_assert_int_eq(pw_history_parse_duration("1m500ms", &ns), 0);
	ck_assert_int_eq(ns, 60 * NS + NS / 2);
	ck_assert_int_eq(pw_history_parse_duration("", &ns), -EINVAL);
	ck_assert_int_eq(pw_history_parse_duration("s", &ns), -EINVAL);
	ck_assert_int_eq(pw_history_parse_duration("1 s", &ns), -EINVAL);
	ck_assert_int_eq(pw_history_parse_duration("-1s", &ns), -EINVAL);
}
END_TEST

static Suite *history_query_suite(void)
{
	Suite *s = suite_create("history_query");
	TCase *core = tcase_create("core"), *malformed = tcase_create("malformed");

	tcase_add_test(core, test_defaults);
	tcase_add_test(core, test_times);
	tcase_add_test(core, test_step_signals_format);
	tcase_add_test(core, test_durations);
	tcase_add_test(malformed, test_bad_queries);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(history_query_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
