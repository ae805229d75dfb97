/* test_nq.c — the notification queue on its own (daemon/notify_queue.c, symbols pw_nq_*;
 * test_notify_queue is the end-to-end test of its persistence): list order and look-ups, the file
 * form encoded and decoded back field for field, and decoding that refuses a document not of this
 * form (wrong version, missing or mistyped fields, an alert out of range) without appending. */
#include "alert.h"
#include "fixture_util.h"
#include "notify_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pw_nq_item *item(const char *receiver, int alert, const char *kind, int64_t ns,
                               const char *body)
{
	struct pw_nq_item *it = pw_nq_item_new(receiver, alert, kind, ns, strdup(body));

	ck_assert_ptr_nonnull(it);
	return it;
}

static int decode(struct pw_nq *q, const char *text)
{
	return pw_nq_decode(q, text, strlen(text));
}

START_TEST(test_list)
{
	struct pw_nq q = {0};
	struct pw_nq_item *a = item("ops", 0, "firing", 1, "{}"), *b = item("am", 1, "push", 2, "[]"),
	                  *c = item("ops", 2, "resolved", 3, "{}");

	ck_assert_int_eq(a->rx, -1);
	pw_nq_append(&q, a);
	pw_nq_append(&q, b);
	pw_nq_append(&q, c);
	ck_assert_uint_eq(q.len, 3);
	a->rx = c->rx = 0;
	b->rx = 1;
	ck_assert_ptr_eq(pw_nq_first_for(&q, 1), b);
	ck_assert_ptr_eq(pw_nq_first_for(&q, 0), a);
	ck_assert_ptr_null(pw_nq_first_for(&q, 5));
	a->in_flight = true;
	ck_assert_ptr_eq(pw_nq_oldest_idle(&q), b);
	pw_nq_remove(&q, b);
	ck_assert_uint_eq(q.len, 2);
	ck_assert_ptr_eq(q.head->next, c);
	ck_assert_ptr_eq(c->prev, a);
	ck_assert_ptr_eq(pw_nq_oldest_idle(&q), c);
	pw_nq_item_free(b);
	pw_nq_clear(&q);
	ck_assert_uint_eq(q.len, 0);
	ck_assert_ptr_null(q.head);
	ck_assert_ptr_null(q.tail);
	/* A NULL body (its render ran out of memory) makes no item. */
	ck_assert_ptr_null(pw_nq_item_new("ops", 0, "firing", 0, NULL));
	pw_nq_item_free(NULL);
}
END_TEST

START_TEST(test_roundtrip)
{
	struct pw_nq q = {0}, back = {0};
	struct pw_nq_item *a = item("ops", PW_ALERT_COUNT - 1, "repeat", INT64_C(1700000000123456789),
	                            "{\"a\": \"\\u00e9\\n\"}");

	a->attempts = 4;
	pw_nq_append(&q, a);
	pw_nq_append(&q, item("am", 0, "push", 5, "[]"));
	char *text = pw_nq_encode(&q);
	ck_assert_ptr_nonnull(text);
	/* Decoding appends after what is there. */
	pw_nq_append(&back, item("first", 0, "firing", 0, "{}"));
	ck_assert_int_eq(decode(&back, text), 2);
	ck_assert_uint_eq(back.len, 3);
	const struct pw_nq_item *got = back.head->next;
	ck_assert_str_eq(got->receiver, "ops");
	ck_assert_int_eq(got->rx, -1);
	ck_assert_int_eq(got->alert, PW_ALERT_COUNT - 1);
	ck_assert_str_eq(got->kind, "repeat");
	ck_assert_int_eq(got->enqueued_real_ns, INT64_C(1700000000123456789));
	ck_assert_uint_eq(got->attempts, 4);
	ck_assert_str_eq(got->body, a->body);
	ck_assert(!got->in_flight);
	ck_assert_str_eq(back.tail->receiver, "am");
	free(text);

	struct pw_nq empty = {0};
	text = pw_nq_encode(&empty);
	ck_assert_int_eq(decode(&empty, text), 0);
	free(text);
	pw_nq_clear(&q);
	pw_nq_clear(&back);
}
END_TEST

START_TEST(test_decode_rejects)
{
	static const char *const bad[] = {
	        "",
	        "not json",
	        "[]",
	        "{\"notifications\": []}",
	        "{\"version\": 2, \"notifications\": []}",
	        "{\"version\": 1, \"notifications\": {}}",
	        "{\"version\": 1}",
	        /* a good entry, then bad ones: nothing is appended */
	        "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": 0, \"kind\": "
	        "\"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": 0, \"body\": \"{}\"}, {\"receiver\": \"a\"}]}",
	        "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": 99, \"kind\": "
	        "\"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": 0, \"body\": \"{}\"}]}",
	        "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": -1, \"kind\": "
	        "\"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": 0, \"body\": \"{}\"}]}",
	        "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": 0, \"kind\": "
	        "\"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": -3, \"body\": \"{}\"}]}",
	        "{\"version\": 1, \"notifications\": [{\"receiver\": 7, \"alert\": 0, \"kind\": \"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": 0, \"body\": \"{}\"}]}",
	        "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": 0, \"kind\": "
	        "\"push\", "
	        "\"enqueued_ns\": 1, \"attempts\": 0, \"body\": {}}]}",
	};
	struct pw_nq q = {0};

	pw_nq_append(&q, item("kept", 0, "firing", 0, "{}"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(decode(&q, bad[i]) == -EINVAL, "accepted: %s", bad[i]);
		ck_assert_uint_eq(q.len, 1);
	}
	/* Cut at every offset: never a crash, never a partial append. */
	struct pw_nq src = {0};
	pw_nq_append(&src, item("ops", 1, "firing", 9, "{\"x\": 1}"));
	char *text = pw_nq_encode(&src);
	for (size_t cut = 0; cut < strlen(text); cut++) {
		ck_assert_int_eq(pw_nq_decode(&q, text, cut), -EINVAL);
		ck_assert_uint_eq(q.len, 1);
	}
	free(text);
	pw_nq_clear(&src);
	pw_nq_clear(&q);
}
END_TEST

/* The file bound: a queue of cap items, each field as long as it may be and escaping at worst,
 * encodes within pw_nq_file_max(cap); bodies over PW_NQ_BODY_MAX never enter the queue. */
START_TEST(test_file_bound)
{
	char receiver[PW_RECEIVER_NAME_MAX], kind[16];
	char *body = malloc(PW_NQ_BODY_MAX + 2);
	struct pw_nq q = {0};
	const uint32_t cap = 3;

	ck_assert_ptr_nonnull(body);
	memset(receiver, 1, sizeof(receiver) - 1);
	receiver[sizeof(receiver) - 1] = '\0';
	memset(kind, 1, sizeof(kind) - 1);
	kind[sizeof(kind) - 1] = '\0';
	memset(body, 1, PW_NQ_BODY_MAX + 1);
	body[PW_NQ_BODY_MAX + 1] = '\0';
	ck_assert_ptr_null(pw_nq_item_new("ops", 0, "push", 0, strdup(body)));
	body[PW_NQ_BODY_MAX] = '\0';
	for (uint32_t i = 0; i < cap; i++) {
		struct pw_nq_item *it = item(receiver, PW_ALERT_COUNT - 1, kind, INT64_MIN, body);
		it->attempts = UINT32_MAX;
		pw_nq_append(&q, it);
	}
	char *text = pw_nq_encode(&q);
	ck_assert_ptr_nonnull(text);
	ck_assert_uint_le(strlen(text), pw_nq_file_max(cap));
	ck_assert_uint_ge(strlen(text), pw_nq_file_max(cap) * 9 / 10); /* and not far above it */
	/* A document with a body longer than any queue holds is not ours. */
	struct pw_nq back = {0};
	ck_assert_int_eq(decode(&back, text), (int)cap);
	pw_nq_clear(&back);
	char *over = malloc(PW_NQ_BODY_MAX + 256);
	ck_assert_ptr_nonnull(over);
	int n = snprintf(over, PW_NQ_BODY_MAX + 256,
	                 "{\"version\": 1, \"notifications\": [{\"receiver\": \"a\", \"alert\": 0, "
	                 "\"kind\": \"push\", \"enqueued_ns\": 1, \"attempts\": 0, \"body\": \"");
	memset(over + n, 'b', PW_NQ_BODY_MAX + 1);
	snprintf(over + n + PW_NQ_BODY_MAX + 1, 8, "\"}]}");
	ck_assert_int_eq(decode(&back, over), -EINVAL);
	ck_assert_uint_eq(back.len, 0);
	free(over);
	free(text);
	free(body);
	pw_nq_clear(&q);
}
END_TEST

static Suite *notify_queue_suite(void)
{
	Suite *s = suite_create("notify_queue");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_test(core, test_list);
	tcase_add_test(core, test_roundtrip);
	tcase_add_test(core, test_file_bound);
	tcase_add_test(malformed, test_decode_rejects);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(notify_queue_suite());
}
