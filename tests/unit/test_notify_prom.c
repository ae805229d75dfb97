/* test_notify_prom.c — the notifier's self-metrics (exporters/notify_prom.c) from a hand-built array:
 * the exporter renders whatever receivers and names it is given (the daemon owns how many and how
 * long), both formats against golden files (PW_REGENERATE_GOLDEN=1 rewrites them), and nothing at
 * all without receivers. */
#include "fixture_util.h"
#include "notify_stats.h"

#include <stdlib.h>
#include <string.h>

#define GOLDEN_TEXT "golden/exporters/notify.prom"
#define GOLDEN_OM "golden/exporters/notify.om"

static char *render(const struct pw_notify_stats *stats, bool om)
{
	struct pw_outbuf out;

	pw_outbuf_init(&out);
	pw_notify_prom_render(&out, om, stats);
	ck_assert(pw_outbuf_ok(&out));
	pw_outbuf_putc(&out, '\0');
	char *text = strdup(out.data);
	pw_outbuf_done(&out);
	ck_assert_ptr_nonnull(text);
	return text;
}

START_TEST(test_golden)
{
	/* Names live in the caller's storage, of any length: longer than the daemon allows, too. */
	char *long_name = malloc(201);
	struct pw_notify_receiver_stats rx[3] = {
	        {.name = "ops",
	         .type = "webhook",
	         .sent = 7,
	         .failed = 3,
	         .retried = 2,
	         .dropped = 1,
	         .queued = 4},
	        {.name = "am-1.eu_west", .type = "alertmanager", .sent = 1},
	        {.name = long_name, .type = "webhook"},
	};

	ck_assert_ptr_nonnull(long_name);
	memset(long_name, 'x', 200);
	long_name[200] = '\0';
	pw_notify_observe_latency(&rx[0], 0.02);
	pw_notify_observe_latency(&rx[0], 7.5);
	pw_notify_observe_latency(&rx[1], 4000);
	struct pw_notify_stats stats = {
	        .queue_capacity = 1024, .queue_saves = 12, .nreceivers = 3, .receivers = rx};
	char *text = render(&stats, false), *om = render(&stats, true);
	pw_fixture_check_golden(GOLDEN_TEXT, text);
	pw_fixture_check_golden(GOLDEN_OM, om);
	free(text);
	free(om);
	free(long_name);
}
END_TEST

START_TEST(test_none)
{
	struct pw_notify_stats stats = {.queue_capacity = 5};
	char *text = render(&stats, false);

	ck_assert_str_eq(text, "");
	free(text);
	text = render(NULL, true);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

static Suite *notify_prom_suite(void)
{
	Suite *s = suite_create("notify_prom");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_golden);
	tcase_add_test(core, test_none);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(notify_prom_suite());
}
