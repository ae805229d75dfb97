/* test_alertmanager_json.c — the webhook v4 message and the API v2 push of one alert, parsed back
 * with jansson: every field Alertmanager's receivers read, its JSON type, RFC 3339 times, the
 * fingerprint (Alertmanager's own value for the label set, stable, distinct per label set), resolved
 * endsAt, and descriptions with quotes and newlines. */
#include "alertmanager_json.h"
#include "fixture_util.h"
#include "json_assert.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW_NS INT64_C(1700000000123456789) /* 2023-11-14T22:13:20.123Z */

static const struct pw_am_source source = {
        .instance = "db1", .external_url = "http://127.0.0.1:10071", .receiver = "ops"};

static void make_alert(struct pw_alert *a, enum pw_alert_name name, enum pw_severity severity)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->state = PW_ALERT_FIRING;
	a->severity = severity;
	a->started_real_ns = NOW_NS - INT64_C(95000000000);
	a->fired_real_ns = NOW_NS - INT64_C(35000000000);
	snprintf(a->scope, sizeof(a->scope), "cpu3");
	snprintf(a->summary, sizeof(a->summary), "interrupt handlers take 23%% of cpu3");
	snprintf(a->description, sizeof(a->description), "Handlers \"ate\" the time.\nLine 41: eth0\\rx");
}

static json_t *parse(char *text)
{
	json_error_t err;
	json_t *root;

	ck_assert_ptr_nonnull(text);
	root = json_loads(text, 0, &err);
	ck_assert_msg(root != NULL, "not JSON: %s: %s", err.text, text);
	free(text);
	return root;
}

START_TEST(test_webhook_firing)
{
	struct pw_alert a;
	make_alert(&a, PW_ALERT_INTERRUPT_TIME_HIGH, PW_SEVERITY_CRITICAL);
	struct pw_am_alert in = {.alert = &a};
	json_t *doc = parse(pw_am_webhook_render(&in, &source));

	pw_assert_json_string(doc, "version", "4");
	pw_assert_json_string(doc, "status", "firing");
	pw_assert_json_string(doc, "receiver", "ops");
	pw_assert_json_string(doc, "groupKey", "{}:{alertname=\"InterruptTimeHigh\"}");
	pw_assert_json_string(doc, "groupLabels.alertname", "InterruptTimeHigh");
	ck_assert_int_eq(json_object_size(pw_json_at(doc, "groupLabels")), 1);
	pw_assert_json_string(doc, "commonLabels.alertname", "InterruptTimeHigh");
	pw_assert_json_string(doc, "commonLabels.instance", "db1");
	pw_assert_json_string(doc, "commonLabels.severity", "critical");
	pw_assert_json_string(doc, "commonAnnotations.summary", "interrupt handlers take 23% of cpu3");
	pw_assert_json_string(doc, "externalURL", "http://127.0.0.1:10071");
	pw_assert_json_number(doc, "truncatedAlerts", 0);
	ck_assert(json_is_integer(pw_json_at(doc, "truncatedAlerts")));
	ck_assert_int_eq(json_array_size(pw_json_at(doc, "alerts")), 1);
	pw_assert_json_string(doc, "alerts.0.status", "firing");
	pw_assert_json_string(doc, "alerts.0.labels.alertname", "InterruptTimeHigh");
	pw_assert_json_string(doc, "alerts.0.labels.instance", "db1");
	pw_assert_json_string(doc, "alerts.0.labels.severity", "critical");
	ck_assert_int_eq(json_object_size(pw_json_at(doc, "alerts.0.labels")), 3);
	pw_assert_json_string(doc, "alerts.0.annotations.scope", "cpu3");
	pw_assert_json_string(doc, "alerts.0.startsAt", "2023-11-14T22:11:45.123Z");
	pw_assert_json_string(doc, "alerts.0.endsAt", "0001-01-01T00:00:00Z");
	pw_assert_json_string(doc, "alerts.0.generatorURL", "http://127.0.0.1:10071/alerts");
	pw_assert_json_string(doc, "alerts.0.fingerprint", "2b3576560f464788");
	json_decref(doc);
}
END_TEST

START_TEST(test_webhook_resolved)
{
	struct pw_alert a;
	make_alert(&a, PW_ALERT_INTERRUPT_TIME_HIGH, PW_SEVERITY_CRITICAL);
	a.state = PW_ALERT_INACTIVE;
	struct pw_am_alert in = {.alert = &a, .resolved = true, .ends_real_ns = NOW_NS};
	json_t *doc = parse(pw_am_webhook_render(&in, &source));

	pw_assert_json_string(doc, "status", "resolved");
	pw_assert_json_string(doc, "alerts.0.status", "resolved");
	pw_assert_json_string(doc, "alerts.0.startsAt", "2023-11-14T22:11:45.123Z");
	pw_assert_json_string(doc, "alerts.0.endsAt", "2023-11-14T22:13:20.123Z");
	/* The same alert firing and resolved: one fingerprint, so receivers pair them. */
	pw_assert_json_string(doc, "alerts.0.fingerprint", "2b3576560f464788");
	json_decref(doc);
}
END_TEST

START_TEST(test_api_push)
{
	struct pw_alert a;
	make_alert(&a, PW_ALERT_MEMORY_SWAPPING, PW_SEVERITY_WARNING);
	struct pw_am_alert in = {.alert = &a, .ends_real_ns = NOW_NS + INT64_C(240000000000)};
	json_t *doc = parse(pw_am_api_render(&in, &source));

	ck_assert(json_is_array(doc));
	ck_assert_int_eq(json_array_size(doc), 1);
	pw_assert_json_string(doc, "0.labels.alertname", "MemorySwapping");
	pw_assert_json_string(doc, "0.labels.instance", "db1");
	pw_assert_json_string(doc, "0.labels.severity", "warning");
	pw_assert_json_string(doc, "0.annotations.summary", "interrupt handlers take 23% of cpu3");
	pw_assert_json_string(doc, "0.startsAt", "2023-11-14T22:11:45.123Z");
	pw_assert_json_string(doc, "0.endsAt", "2023-11-14T22:17:20.123Z");
	pw_assert_json_string(doc, "0.generatorURL", "http://127.0.0.1:10071/alerts");
	/* postableAlert has no status or fingerprint: Alertmanager rejects unknown fields. */
	ck_assert_ptr_null(json_object_get(json_array_get(doc, 0), "status"));
	ck_assert_ptr_null(json_object_get(json_array_get(doc, 0), "fingerprint"));
	json_decref(doc);
}
END_TEST

START_TEST(test_fingerprint)
{
	struct pw_alert a, b;
	make_alert(&a, PW_ALERT_INTERRUPT_TIME_HIGH, PW_SEVERITY_CRITICAL);
	make_alert(&b, PW_ALERT_INTERRUPT_TIME_HIGH, PW_SEVERITY_CRITICAL);
	snprintf(b.summary, sizeof(b.summary), "other words"); /* annotations are not identity */
	b.started_real_ns += 1;

	ck_assert_uint_eq(pw_am_fingerprint(&a, "db1"), UINT64_C(0x2b3576560f464788));
	ck_assert_uint_eq(pw_am_fingerprint(&a, "db1"), pw_am_fingerprint(&b, "db1"));
	ck_assert_uint_ne(pw_am_fingerprint(&a, "db1"), pw_am_fingerprint(&a, "db2"));
	b.severity = PW_SEVERITY_WARNING;
	ck_assert_uint_ne(pw_am_fingerprint(&a, "db1"), pw_am_fingerprint(&b, "db1"));
	for (int i = 0; i < PW_ALERT_COUNT; i++)
		for (int j = i + 1; j < PW_ALERT_COUNT; j++) {
			make_alert(&a, (enum pw_alert_name)i, PW_SEVERITY_WARNING);
			make_alert(&b, (enum pw_alert_name)j, PW_SEVERITY_WARNING);
			ck_assert_uint_ne(pw_am_fingerprint(&a, "db1"), pw_am_fingerprint(&b, "db1"));
		}
}
END_TEST

START_TEST(test_hostile_text)
{
	struct pw_alert a;
	make_alert(&a, PW_ALERT_STEAL_HIGH, PW_SEVERITY_WARNING);
	a.summary[0] = '\0'; /* no summary: left out, not "" */
	snprintf(a.scope, sizeof(a.scope), "irq 41 (\xff\xfe)");
	struct pw_am_alert in = {.alert = &a};
	json_t *doc = parse(pw_am_webhook_render(&in, &source));

	/* Quotes and backslashes pass (JSON escapes them); a newline and bytes that are not UTF-8
	 * become "\xNN" (pw_json_text), so a receiver never prints a control character. */
	pw_assert_json_string(doc, "alerts.0.annotations.description",
	                      "Handlers \"ate\" the time.\\x0aLine 41: eth0\\rx");
	pw_assert_json_string(doc, "alerts.0.annotations.scope", "irq 41 (\\xff\\xfe)");
	ck_assert_ptr_null(json_object_get(pw_json_at(doc, "alerts.0.annotations"), "summary"));
	json_decref(doc);
}
END_TEST

static Suite *alertmanager_json_suite(void)
{
	Suite *s = suite_create("alertmanager_json");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_webhook_firing);
	tcase_add_test(core, test_webhook_resolved);
	tcase_add_test(core, test_api_push);
	tcase_add_test(core, test_fingerprint);
	tcase_add_test(malformed, test_hostile_text);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(alertmanager_json_suite());
}
