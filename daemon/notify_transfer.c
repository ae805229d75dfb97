/* notify_transfer.c — requests on the multi handle: at most one per receiver in flight, so each
 * receiver gets its notifications in order; outcomes (delivered, retried after a backoff with
 * jitter, refused and dropped), counted and logged rate-limited. */
#include "notifier_internal.h"

#include "clock.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- transfers ------------------------------------------------------------------------------- */

void pw_nf_start_transfers(struct pw_notifier *n, int64_t now)
{
	for (uint32_t i = 0; i < n->nrx; i++) {
		struct rx *r = &n->rx[i];
		struct pw_nq_item *it;
		if (r->easy || now < r->next_try_ns || !(it = pw_nq_first_for(&n->queue, (int)i)))
			continue;
		r->easy = pw_send_new(&r->cfg, r->url, r->headers, it->body, r->reply);
		if (!r->easy || pw_curl.multi_add_handle(n->multi, r->easy) != CURLM_OK) {
			pw_curl.easy_cleanup(r->easy); /* accepts NULL */
			r->easy = NULL;
			r->next_try_ns = now + BACKOFF_MIN_NS;
			continue;
		}
		it->in_flight = true;
		r->item = it;
		if (it->attempts > 0)
			r->stats.retried++;
	}
}

/* Exponential backoff with "equal jitter": half the step fixed, half random, so receivers that
 * came back are not hit by every sender at the same instant. */
static int64_t backoff(struct pw_notifier *n, struct rx *r)
{
	r->backoff_ns = r->backoff_ns ? r->backoff_ns * 2 : BACKOFF_MIN_NS;
	if (r->backoff_ns > BACKOFF_MAX_NS)
		r->backoff_ns = BACKOFF_MAX_NS;
	n->rng ^= n->rng << 13;
	n->rng ^= n->rng >> 7;
	n->rng ^= n->rng << 17;
	return r->backoff_ns / 2 + (int64_t)(n->rng % (uint64_t)(r->backoff_ns / 2 + 1));
}

static void describe(const struct rx *r, CURLcode code, long status, char *buf, size_t size)
{
	if (code != CURLE_OK)
		snprintf(buf, size, "%s", r->reply->error[0] ? r->reply->error : pw_curl.easy_strerror(code));
	else
		snprintf(buf, size, "HTTP %ld%s%.100s", status, r->reply->answer_len ? ": " : "",
		         r->reply->answer);
	/* The receiver's words go to the log: its first line only, and no terminal escapes, bells or
	 * other control characters (each shown as '?'). */
	buf[strcspn(buf, "\r\n")] = '\0';
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

/* From enqueue to delivery on the monotonic clock, so a wall clock step is no latency; an item read
 * back from the queue file (another run, perhaps another boot) has only its wall time. */
static double latency_seconds(const struct pw_nq_item *it)
{
	if (it->enqueued_mono_ns)
		return (double)(pw_mono_ns() - it->enqueued_mono_ns) / 1e9;
	int64_t waited = pw_real_ns() - it->enqueued_real_ns;
	return waited > 0 ? (double)waited / 1e9 : 0.0;
}

static void finish(struct pw_notifier *n, struct rx *r, CURLcode code)
{
	struct pw_nq_item *it = r->item;
	int64_t now = pw_mono_ns();
	uint64_t suppressed = 0;
	long status = 0;
	char what[256];

	pw_curl.easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	describe(r, code, status, what, sizeof(what));
	pw_curl.multi_remove_handle(n->multi, r->easy);
	pw_curl.easy_cleanup(r->easy);
	r->easy = NULL;
	r->item = NULL;
	it->in_flight = false;
	switch (pw_send_outcome(code, status)) {
	case PW_SEND_OK:
		r->stats.sent++;
		pw_notify_observe_latency(&r->stats, latency_seconds(it));
		pw_log(LOG_DEBUG, "notifier: %s: %s of %s delivered", r->cfg.name, it->kind,
		       pw_alert_name_str((enum pw_alert_name)it->alert));
		if (r->backoff_ns)
			pw_log(LOG_NOTICE, "notifier: %s: delivering again", r->cfg.name);
		r->backoff_ns = 0;
		pw_nq_remove(&n->queue, it);
		pw_nq_item_free(it);
		n->dirty = true;
		return;
	case PW_SEND_REJECTED:
		r->stats.failed++;
		r->backoff_ns = 0;
		/* A receiver that refuses everything would otherwise log the whole queue, item by item. */
		if (pw_ratelimit_allow(&r->refuse_complain, now, &suppressed))
			pw_log(LOG_WARNING,
			       "notifier: %s refused the %s notification of %s (%s); dropped (%" PRIu64
			       " refusals not logged)",
			       r->cfg.name, it->kind, pw_alert_name_str((enum pw_alert_name)it->alert), what,
			       suppressed);
		r->stats.dropped++;
		pw_nq_remove(&n->queue, it);
		pw_nq_item_free(it);
		n->dirty = true;
		return;
	case PW_SEND_RETRY:
		break;
	}
	r->stats.failed++;
	it->attempts++;
	int64_t delay = backoff(n, r);
	r->next_try_ns = now + delay;
	if (pw_ratelimit_allow(&r->complain, now, &suppressed))
		pw_log(LOG_WARNING,
		       "notifier: %s: delivery failed (%s); retrying in %.1f s (%" PRIu64
		       " failures not logged)",
		       r->cfg.name, what, (double)delay / 1e9, suppressed);
}

/* The receiver whose transfer this is (looked up, not stored in the handle: a reload moves a kept
 * receiver, its transfer in flight included, to a new struct). */
static struct rx *rx_of(struct pw_notifier *n, const CURL *easy)
{
	for (uint32_t i = 0; i < n->nrx; i++)
		if (n->rx[i].easy == easy)
			return &n->rx[i];
	return NULL;
}

void pw_nf_collect_finished(struct pw_notifier *n)
{
	CURLMsg *msg;
	int left;

	while ((msg = pw_curl.multi_info_read(n->multi, &left))) {
		struct rx *r;
		if (msg->msg == CURLMSG_DONE && (r = rx_of(n, msg->easy_handle)))
			finish(n, r, msg->data.result);
	}
}
