/* test_notify_policy.c — what the notifier sends, when (daemon/notify_policy.c), without a network:
 * transitions become one notification per receiver, resolved only after firing; still-firing
 * repeats follow each receiver's period; an Alertmanager push replaces its waiting predecessor; a
 * full queue drops its oldest waiting item; the queue saved and restored through the state dir.
 * The notifier's state is built by hand: no thread is started, no request made. */
#include "fixture_util.h"
#include "notifier_internal.h"
#include "state_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct rx receivers[2];
static struct pw_notifier nf;

/* A webhook "hook" and an Alertmanager "am", queue bound cap. */
static void setup_notifier(uint32_t cap)
{
	memset(receivers, 0, sizeof(receivers));
	memset(&nf, 0, sizeof(nf));
	snprintf(receivers[0].cfg.name, sizeof(receivers[0].cfg.name), "hook");
	receivers[0].cfg.type = PW_RECEIVER_WEBHOOK;
	snprintf(receivers[1].cfg.name, sizeof(receivers[1].cfg.name), "am");
	receivers[1].cfg.type = PW_RECEIVER_ALERTMANAGER;
	for (int i = 0; i < 2; i++) {
		receivers[i].source =
		        (struct pw_am_source){"host", "http://127.0.0.1:10071", receivers[i].cfg.name};
		receivers[i].complain.period_ns = NS_PER_S;
	}
	nf.rx = receivers;
	nf.nrx = 2;
	nf.queue_cap = cap;
	nf.webhook_repeat_ns = 3600 * NS_PER_S;
	nf.am_resend_ns = 60 * NS_PER_S;
	nf.drop_complain.period_ns = nf.save_complain.period_ns = NS_PER_S;
	snprintf(nf.instance, sizeof(nf.instance), "host");
}

static void event(enum pw_alert_name name, enum pw_alert_state from, enum pw_alert_state to, bool resolved)
{
	struct pw_alert_event ev = {.from = from, .resolved = resolved, .real_ns = 1700000000 * NS_PER_S};

	ev.alert.name = name;
	ev.alert.state = to;
	snprintf(ev.alert.summary, sizeof(ev.alert.summary), "test");
	pw_nf_on_event(&nf, &ev);
}

static uint32_t count(int rx, const char *kind)
{
	uint32_t n = 0;

	for (const struct pw_nq_item *it = nf.queue.head; it; it = it->next)
		n += it->rx == rx && strcmp(it->kind, kind) == 0;
	return n;
}

START_TEST(test_transitions)
{
	setup_notifier(64);
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_INACTIVE, PW_ALERT_PENDING, false);
	ck_assert_uint_eq(nf.queue.len, 0); /* pending is not news */
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_INACTIVE, true);
	ck_assert_uint_eq(nf.queue.len, 0); /* nor is a resolve of what never fired */
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_FIRING, false);
	ck_assert_uint_eq(count(0, "firing"), 1);
	ck_assert_uint_eq(count(1, "push"), 1);
	ck_assert(nf.dirty);
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_FIRING, PW_ALERT_INACTIVE, true);
	ck_assert_uint_eq(count(0, "resolved"), 1);
	/* The resolve's push replaced the firing push still waiting for the Alertmanager. */
	ck_assert_uint_eq(count(1, "push"), 1);
	ck_assert_uint_eq(nf.queue.len, 3);
	ck_assert_ptr_nonnull(strstr(nf.queue.head->body, "MemorySwapping"));
	pw_nq_clear(&nf.queue);
}
END_TEST

START_TEST(test_repeats)
{
	setup_notifier(64);
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_FIRING, false);
	int64_t t0 = receivers[0].last_sent_ns[PW_ALERT_MEMORY_SWAPPING];
	pw_nq_clear(&nf.queue);

	pw_nf_repeat_firing(&nf, t0 + 59 * NS_PER_S);
	ck_assert_uint_eq(nf.queue.len, 0);
	pw_nf_repeat_firing(&nf, t0 + 61 * NS_PER_S);
	ck_assert_uint_eq(count(1, "push"), 1); /* the Alertmanager's resend interval */
	ck_assert_uint_eq(count(0, "repeat"), 0);
	pw_nf_repeat_firing(&nf, t0 + 3601 * NS_PER_S);
	ck_assert_uint_eq(count(0, "repeat"), 1);
	ck_assert_uint_eq(count(1, "push"), 1); /* replaced, not added */
	/* A webhook whose last message has not gone out hears nothing more. */
	pw_nf_repeat_firing(&nf, t0 + 7202 * NS_PER_S);
	ck_assert_uint_eq(count(0, "repeat"), 1);
	/* A receiver's own period wins over the global one. */
	pw_nq_clear(&nf.queue);
	receivers[0].cfg.repeat_ns = 10 * NS_PER_S;
	int64_t t1 = receivers[0].last_sent_ns[PW_ALERT_MEMORY_SWAPPING];
	pw_nf_repeat_firing(&nf, t1 + 11 * NS_PER_S);
	ck_assert_uint_eq(count(0, "repeat"), 1);
	pw_nq_clear(&nf.queue);
}
END_TEST

START_TEST(test_bound)
{
	setup_notifier(2);
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_FIRING, false);
	ck_assert_uint_eq(nf.queue.len, 2);
	struct pw_nq_item *first = nf.queue.head;
	ck_assert_int_eq(first->rx, 0);
	/* Full: the oldest waiting item makes room each time, the one being sent stays. The webhook's
	 * resolve pushes out the firing push, then the resolve's push pushes out the webhook's resolve. */
	first->in_flight = true;
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_FIRING, PW_ALERT_INACTIVE, true);
	ck_assert_uint_eq(nf.queue.len, 2);
	ck_assert_ptr_eq(nf.queue.head, first);
	ck_assert_int_eq(nf.queue.tail->rx, 1);
	ck_assert_uint_eq(receivers[0].stats.dropped, 1);
	ck_assert_uint_eq(receivers[1].stats.dropped, 1);
	pw_nq_clear(&nf.queue);
}
END_TEST

START_TEST(test_persistence)
{
	char dir[] = "/tmp/pw-test-policy.XXXXXX", path[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setup_notifier(64);
	nf.state_dir = dir;
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_FIRING, false);
	pw_nf_save(&nf);
	ck_assert(!nf.dirty);
	pw_nq_clear(&nf.queue);

	/* Restored with a smaller bound and without the Alertmanager: its item is dropped. */
	nf.nrx = 1;
	pw_nf_load(&nf);
	ck_assert_uint_eq(nf.queue.len, 1);
	ck_assert_int_eq(nf.queue.head->rx, 0);
	ck_assert_str_eq(nf.queue.head->kind, "firing");
	pw_nq_clear(&nf.queue);

	/* Not a queue file: nothing restored, nothing crashes. */
	ck_assert_int_eq(pw_state_write_file(dir, PW_NOTIFY_QUEUE_FILE, "{}", 2, path, sizeof(path)), 0);
	pw_nf_load(&nf);
	ck_assert_uint_eq(nf.queue.len, 0);
	snprintf(path, sizeof(path), "%s/%s", dir, PW_NOTIFY_QUEUE_FILE);
	unlink(path);
	pw_nf_load(&nf); /* none saved yet */
	ck_assert_uint_eq(nf.queue.len, 0);
	rmdir(dir);
}
END_TEST

static Suite *notify_policy_suite(void)
{
	Suite *s = suite_create("notify_policy");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_transitions);
	tcase_add_test(core, test_repeats);
	tcase_add_test(core, test_bound);
	tcase_add_test(core, test_persistence);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	pw_log_init(LOG_ERR);
	return pw_run_suite(notify_policy_suite());
}
