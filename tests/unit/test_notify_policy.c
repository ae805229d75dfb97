/* test_notify_policy.c — what the notifier sends, when (daemon/notify_policy.c): transitions become
 * one notification per receiver, resolved only after firing; still-firing repeats follow each
 * receiver's period; an Alertmanager push replaces its waiting predecessor; a full queue drops its
 * oldest waiting item; the queue saved and restored through the state dir, at most once a second
 * however fast it changes, and the largest body a renderer makes within the queue file's bound.
 * The core cases build the notifier's state by hand (no thread, no request); the "thread" cases run
 * the real notifier thread against a receiver that refuses connections on 127.0.0.1. */
#include "clock.h"
#include "fixture_util.h"
#include "notifier_internal.h"
#include "state_file.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
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
	nf.saved_ns = INT64_MIN;
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
	char dir[200], path[300];

	pw_scratch_make(dir, sizeof(dir), NULL, "policy");
	setup_notifier(64);
	nf.state_dir = dir;
	event(PW_ALERT_MEMORY_SWAPPING, PW_ALERT_PENDING, PW_ALERT_FIRING, false);
	pw_nf_save(&nf, 0);
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
	unlink(pw_scratch_path(dir, PW_NOTIFY_QUEUE_FILE));
	pw_nf_load(&nf); /* none saved yet */
	ck_assert_uint_eq(nf.queue.len, 0);
	pw_scratch_remove(dir);
}
END_TEST

/* The directory the tests that write files work in: made and removed once, by the parent process,
 * so it goes also when a test failed (a failing test's own cleanup does not run). */
static char base[200];

static void setup_base(void)
{
	pw_scratch_make(base, sizeof(base), NULL, "policy");
}

static void teardown_base(void)
{
	pw_scratch_remove(base);
}

/* Decode the queue file in dir: how many notifications it holds. */
static int file_items(const char *dir, uint32_t cap)
{
	char err[256];
	struct pw_nq q = {0};
	void *buf;
	size_t len;

	ck_assert_msg(pw_state_read_file(dir, PW_NOTIFY_QUEUE_FILE, pw_nq_file_max(cap), &buf, &len, err,
	                                 sizeof(err)) == 0,
	              "%s", err);
	int n = pw_nq_decode(&q, buf, len);
	free(buf);
	pw_nq_clear(&q);
	return n;
}

/* A thousand transitions within a second: the first is written at once, the rest wait for the
 * period, then one write has them all. */
START_TEST(test_save_coalesced)
{
	char dir[256];

	pw_scratch_make(dir, sizeof(dir), base, "t");
	setup_notifier(2048);
	nf.state_dir = dir;
	const int64_t t0 = 1000 * NS_PER_S;
	for (int i = 0; i < 1000; i++) {
		bool resolve = i % 2;
		event(PW_ALERT_MEMORY_SWAPPING, resolve ? PW_ALERT_FIRING : PW_ALERT_PENDING,
		      resolve ? PW_ALERT_INACTIVE : PW_ALERT_FIRING, resolve);
		pw_nf_save_if_due(&nf, t0 + i * NS_PER_MS);
	}
	ck_assert_uint_eq(nf.saves, 1);
	ck_assert(nf.dirty);
	ck_assert_int_eq(pw_nf_save_due_ns(&nf), t0 + NS_PER_S);
	pw_nf_save_if_due(&nf, t0 + NS_PER_S - 1);
	ck_assert_uint_eq(nf.saves, 1);
	pw_nf_save_if_due(&nf, t0 + NS_PER_S);
	ck_assert_uint_eq(nf.saves, 2);
	ck_assert(!nf.dirty);
	ck_assert_int_eq(pw_nf_save_due_ns(&nf), INT64_MAX); /* nothing to write: no wake-up for it */
	/* 1000 webhook messages and the Alertmanager's one push (each replaced the one before). */
	ck_assert_uint_eq(nf.queue.len, 1001);
	ck_assert_int_eq(file_items(dir, nf.queue_cap), 1001);
	pw_nq_clear(&nf.queue);
	pw_scratch_remove(dir);
}
END_TEST

/* An alert whose every text is as long as it can be and escapes at worst (a control character is
 * six bytes in JSON), for the largest bodies. */
static void worst_alert(struct pw_alert *a, enum pw_alert_name name)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->state = PW_ALERT_FIRING;
	a->severity = PW_SEVERITY_CRITICAL;
	a->started_real_ns = a->fired_real_ns = INT64_MAX;
	memset(a->scope, 1, sizeof(a->scope) - 1);
	memset(a->summary, 1, sizeof(a->summary) - 1);
	memset(a->description, 1, sizeof(a->description) - 1);
}

START_TEST(test_body_bound)
{
	char instance[256], url[256], receiver[PW_RECEIVER_NAME_MAX];
	struct pw_alert a;

	memset(instance, 1, sizeof(instance) - 1);
	instance[sizeof(instance) - 1] = '\0';
	memset(url, 1, sizeof(url) - 1);
	url[sizeof(url) - 1] = '\0';
	memset(receiver, 'r', sizeof(receiver) - 1);
	receiver[sizeof(receiver) - 1] = '\0';
	struct pw_am_source src = {instance, url, receiver};
	size_t largest = 0;
	for (int name = 0; name < PW_ALERT_COUNT; name++) {
		worst_alert(&a, (enum pw_alert_name)name);
		for (int resolved = 0; resolved < 2; resolved++) {
			struct pw_am_alert in = {
			        .alert = &a, .resolved = resolved, .ends_real_ns = INT64_MAX};
			char *hook = pw_am_webhook_render(&in, &src), *api = pw_am_api_render(&in, &src);
			ck_assert_ptr_nonnull(hook);
			ck_assert_ptr_nonnull(api);
			largest = strlen(hook) > largest ? strlen(hook) : largest;
			largest = strlen(api) > largest ? strlen(api) : largest;
			free(hook);
			free(api);
		}
	}
	ck_assert_msg(largest <= PW_NQ_BODY_MAX, "a body of %zu bytes", largest);
	ck_assert_msg(largest < 20000, "a body of %zu bytes: the comment in notify_queue.h says < 20 KB",
	              largest);
}
END_TEST

/* ---- the real thread ---- */

/* A port on 127.0.0.1 that refuses connections: bound, never listened on (kept until closed). */
static int refusing_port(int *ret_port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	*ret_port = ntohs(sa.sin_port);
	return fd;
}

static struct pw_notifier *thread_notifier(const char *dir, int port, uint32_t cap)
{
	struct pw_receivers rs = {0};
	char url[64], err[256];

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/hook", port);
	ck_assert_int_eq(pw_receivers_add_url(&rs, PW_RECEIVER_WEBHOOK, url, err, sizeof(err)), 0);
	struct pw_notifier_config c = {.receivers = &rs,
	                               .instance = "host",
	                               .external_url = "http://127.0.0.1:10071",
	                               .webhook_repeat_ns = 3600 * NS_PER_S,
	                               .am_resend_ns = 60 * NS_PER_S,
	                               .queue_cap = cap,
	                               .state_dir = dir};
	struct pw_notifier *n = pw_notifier_new(&c, err, sizeof(err));
	ck_assert_msg(n != NULL, "%s", err);
	return n;
}

/* Hand over count transitions of one alert, firing and resolved in turn, one a millisecond, and
 * never into a half-full inbox (it holds 64 between two wake-ups; the detector makes a few per
 * interval): a slow save on a busy disk must not lose any. */
static void submit_burst(struct pw_notifier *n, const struct pw_alert *proto, int count)
{
	const struct timespec ms = {0, 1000000};

	for (int i = 0; i < count; i++) {
		for (;;) {
			pthread_mutex_lock(&n->lock);
			uint32_t waiting = n->inbox_len;
			pthread_mutex_unlock(&n->lock);
			if (waiting < INBOX_CAP / 2)
				break;
			nanosleep(&ms, NULL);
		}
		struct pw_alert_event ev = {.alert = *proto, .real_ns = 1700000000 * NS_PER_S};
		ev.resolved = i % 2;
		ev.from = ev.resolved ? PW_ALERT_FIRING : PW_ALERT_PENDING;
		ev.alert.state = ev.resolved ? PW_ALERT_INACTIVE : PW_ALERT_FIRING;
		pw_notifier_submit(n, &ev, 1);
		nanosleep(&ms, NULL);
	}
}

/* A burst of 1000 alerts to a receiver that is down: the queue is written a few times (at most once
 * a second, and at stop), not once per change, and the file holds all of them. */
START_TEST(test_burst_writes)
{
	char dir[256];
	struct pw_notifier_snapshot stats;
	struct pw_alert a;
	int port, fd = refusing_port(&port);

	pw_scratch_make(dir, sizeof(dir), base, "t");
	struct pw_notifier *n = thread_notifier(dir, port, 1024);
	memset(&a, 0, sizeof(a));
	a.name = PW_ALERT_SYSTEM_TIME_HIGH;
	snprintf(a.summary, sizeof(a.summary), "burst");
	ck_assert_int_eq(pw_notifier_start(n), 0);
	int64_t start = pw_mono_ns();
	submit_burst(n, &a, 1000);
	pw_notifier_stop(n);
	int64_t took = pw_mono_ns() - start;
	pw_notifier_stats(n, &stats);
	uint64_t bound = (uint64_t)(took / SAVE_PERIOD_NS) + 2;
	fprintf(stderr, "test_burst_writes: 1000 alerts in %.2f s: the queue written %" PRIu64 " times\n",
	        (double)took / 1e9, stats.view.queue_saves);
	ck_assert_msg(stats.view.queue_saves >= 1 && stats.view.queue_saves <= bound,
	              "%" PRIu64 " writes in %.2f s (want 1 to %" PRIu64 ")", stats.view.queue_saves,
	              (double)took / 1e9, bound);
	ck_assert_uint_eq(n->queue.len, 1000);
	ck_assert_uint_eq(stats.receivers[0].queued, 1000);
	ck_assert_int_eq(file_items(dir, 1024), 1000);
	pw_notifier_free(n);
	close(fd);
	pw_scratch_remove(dir);
}
END_TEST

/* A queue filled to capacity with the largest bodies, saved at stop, comes back whole, item for
 * item, in a restarted notifier; the file is within the bound the reader takes. */
START_TEST(test_full_restart)
{
	char dir[256], path[300];
	const uint32_t cap = 200;
	struct pw_notifier_snapshot stats;
	struct pw_alert a;
	struct stat st;
	int port, fd = refusing_port(&port);

	pw_scratch_make(dir, sizeof(dir), base, "t");
	struct pw_notifier *n = thread_notifier(dir, port, cap);
	worst_alert(&a, PW_ALERT_CPU_FREQUENCY_LOW);
	ck_assert_int_eq(pw_notifier_start(n), 0);
	submit_burst(n, &a, 300);
	pw_notifier_stop(n);
	pw_notifier_stats(n, &stats);
	ck_assert_uint_eq(n->queue.len, cap);
	ck_assert_uint_eq(stats.receivers[0].dropped, 100); /* the oldest, to make room */
	char *before = pw_nq_encode(&n->queue);
	ck_assert_ptr_nonnull(before);
	pw_notifier_free(n);

	snprintf(path, sizeof(path), "%s/%s", dir, PW_NOTIFY_QUEUE_FILE);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_gt((uint64_t)st.st_size, (uint64_t)cap * 10000); /* big bodies indeed */
	ck_assert_uint_le((uint64_t)st.st_size, pw_nq_file_max(cap));
	n = thread_notifier(dir, port, cap);
	ck_assert_uint_eq(n->queue.len, cap);
	char *after = pw_nq_encode(&n->queue);
	ck_assert_ptr_nonnull(after);
	ck_assert(strcmp(before, after) == 0);
	free(before);
	free(after);
	pw_notifier_free(n);
	close(fd);
	pw_scratch_remove(dir);
}
END_TEST

static Suite *notify_policy_suite(void)
{
	Suite *s = suite_create("notify_policy");
	TCase *core = tcase_create("core");
	TCase *thread = tcase_create("thread");

	tcase_add_unchecked_fixture(core, setup_base, teardown_base);
	tcase_add_unchecked_fixture(thread, setup_base, teardown_base);
	tcase_add_test(core, test_transitions);
	tcase_add_test(core, test_repeats);
	tcase_add_test(core, test_bound);
	tcase_add_test(core, test_persistence);
	tcase_add_test(core, test_save_coalesced);
	tcase_add_test(core, test_body_bound);
	tcase_set_timeout(thread, 60);
	tcase_add_test(thread, test_burst_writes);
	tcase_add_test(thread, test_full_restart);
	suite_add_tcase(s, core);
	suite_add_tcase(s, thread);
	return s;
}

int main(void)
{
	pw_log_init(LOG_ERR);
	return pw_run_suite(notify_policy_suite());
}
