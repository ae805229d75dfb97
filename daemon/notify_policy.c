/* notify_policy.c — what is sent, when: alert transitions and still-firing repeats become queued
 * notifications per receiver; the queue's bound (drop the oldest waiting); Alertmanager pushes
 * replacing older ones; the queue saved to and restored from the state dir. */
#include "notifier_internal.h"

#include "clock.h"
#include "state_file.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the queue --------------------------------------------------------------------------------- */

void pw_nf_drop(struct pw_notifier *n, struct pw_nq_item *it, const char *why)
{
	uint64_t suppressed = 0;

	if (it->rx >= 0)
		n->rx[it->rx].stats.dropped++;
	if (pw_ratelimit_allow(&n->drop_complain, pw_mono_ns(), &suppressed))
		pw_log(LOG_WARNING,
		       "notifier: %s notification of %s for %s dropped: %s (%" PRIu64 " more not logged)",
		       it->kind, pw_alert_name_str((enum pw_alert_name)it->alert), it->receiver, why,
		       suppressed);
	pw_nq_remove(&n->queue, it);
	pw_nq_item_free(it);
	n->dirty = true;
}

/* Queue body for receiver r. An Alertmanager push states the alert's whole truth, so it replaces
 * pushes of the same alert still waiting; a full queue loses its oldest waiting notification. */
static void enqueue(struct pw_notifier *n, int rx, enum pw_alert_name alert, const char *kind, char *body)
{
	struct rx *r = &n->rx[rx];
	/* No renderer makes a body that long (a test checks): the queue file's bound relies on it. */
	const char *why = !body ? "out of memory" : strlen(body) > PW_NQ_BODY_MAX ? "body too long" : NULL;
	struct pw_nq_item *it = pw_nq_item_new(r->cfg.name, alert, kind, pw_real_ns(), body), *old, *next;

	if (!it) {
		r->stats.dropped++;
		pw_log(LOG_ERR, "notifier: %s: %s notification of %s for %s lost",
		       why ? why : "out of memory", kind, pw_alert_name_str(alert), r->cfg.name);
		return;
	}
	it->rx = rx;
	it->enqueued_mono_ns = pw_mono_ns(); /* the latency this run measures: immune to clock steps */
	if (r->cfg.type == PW_RECEIVER_ALERTMANAGER)
		for (old = n->queue.head; old; old = next) {
			next = old->next;
			if (old->rx == rx && old->alert == (int)alert && !old->in_flight) {
				pw_nq_remove(&n->queue, old);
				pw_nq_item_free(old);
			}
		}
	if (n->queue.len >= n->queue_cap) {
		old = pw_nq_oldest_idle(&n->queue);
		if (!old) { /* everything is being sent: the newcomer is the one that cannot stay */
			pw_nq_append(&n->queue, it);
			old = it;
		}
		pw_nf_drop(n, old, "the queue is full (--notify-queue)");
		if (old == it)
			return;
	}
	pw_nq_append(&n->queue, it);
	n->dirty = true;
}

static char *render(const struct pw_notifier *n, const struct rx *r, const struct pw_alert *a, bool resolved,
                    int64_t end_ns)
{
	struct pw_am_alert in = {.alert = a, .resolved = resolved, .ends_real_ns = resolved ? end_ns : 0};

	if (r->cfg.type == PW_RECEIVER_WEBHOOK)
		return pw_am_webhook_render(&in, &r->source);
	if (!resolved)
		in.ends_real_ns =
		        pw_nf_after(pw_real_ns(), pw_nf_after(0, pw_nf_repeat_ns(n, r), AM_HOLD_RESENDS), 1);
	return pw_am_api_render(&in, &r->source);
}

static void notify_all(struct pw_notifier *n, const struct pw_alert *a, bool resolved, int64_t end_ns)
{
	int64_t now = pw_mono_ns();

	for (uint32_t i = 0; i < n->nrx; i++) {
		struct rx *r = &n->rx[i];
		const char *kind = r->cfg.type == PW_RECEIVER_ALERTMANAGER ? "push"
		                   : resolved                              ? "resolved"
		                                                           : "firing";
		enqueue(n, (int)i, a->name, kind, render(n, r, a, resolved, end_ns));
		if (!resolved)
			r->last_sent_ns[a->name] = now;
	}
}

void pw_nf_on_event(struct pw_notifier *n, const struct pw_alert_event *ev)
{
	const struct pw_alert *a = &ev->alert;

	if ((unsigned)a->name >= PW_ALERT_COUNT)
		return;
	if (ev->resolved && n->firing[a->name]) {
		n->firing[a->name] = false;
		/* Its times as the detector has them now: moved with a wall clock step since it fired. */
		n->alerts[a->name].started_real_ns = a->started_real_ns;
		n->alerts[a->name].fired_real_ns = a->fired_real_ns;
		notify_all(n, &n->alerts[a->name], true, ev->real_ns);
	} else if (!ev->resolved && a->state == PW_ALERT_FIRING && ev->from != PW_ALERT_FIRING) {
		n->firing[a->name] = true;
		n->alerts[a->name] = *a;
		notify_all(n, a, false, 0);
	}
}

/* Still firing: webhooks hear it again every repeat interval (unless the last message has not
 * even gone out), Alertmanagers get a fresh push every resend interval. */
void pw_nf_repeat_firing(struct pw_notifier *n, int64_t now)
{
	for (int a = 0; a < PW_ALERT_COUNT; a++) {
		if (!n->firing[a])
			continue;
		for (uint32_t i = 0; i < n->nrx; i++) {
			struct rx *r = &n->rx[i];
			if (now - r->last_sent_ns[a] < pw_nf_repeat_ns(n, r))
				continue;
			r->last_sent_ns[a] = now;
			bool webhook = r->cfg.type == PW_RECEIVER_WEBHOOK;
			bool waiting = false;
			for (const struct pw_nq_item *it = n->queue.head; it && webhook && !waiting;
			     it = it->next)
				waiting = it->rx == (int)i && it->alert == a;
			if (!waiting)
				enqueue(n, (int)i, (enum pw_alert_name)a, webhook ? "repeat" : "push",
				        render(n, r, &n->alerts[a], false, 0));
		}
	}
}

/* ---- persistence ------------------------------------------------------------------------------- */

/* The file is the whole queue, replaced atomically (state_file.c), written at most once per
 * SAVE_PERIOD_NS while it changes, and at stop. So its cost is at most one write and fsync of at
 * most pw_nq_file_max(queue_cap) bytes a second, however many notifications come and go: a burst of
 * a thousand alerts to a receiver that is down costs a few writes, not a thousand. The first change
 * after a quiet second is written at once. What a crash can lose is the last second's changes: a
 * notification enqueued then (sent again after the restart only if it was saved) or delivered
 * then (sent twice: at least once holds). An append-only journal would write less per change, but
 * needs a record format, torn-tail recovery and compaction, for a queue that changes a few times per
 * incident; a snapshot stays one document that pw_nq_decode checks whole. */
void pw_nf_save(struct pw_notifier *n, int64_t now)
{
	char err[PATH_MAX + 128];
	uint64_t suppressed = 0;
	size_t len = 0;
	char *text;

	n->saved_ns = now;
	if (!n->state_dir) {
		n->dirty = false;
		return;
	}
	if (!(text = pw_nq_encode(&n->queue)))
		snprintf(err, sizeof(err), "out of memory");
	else if ((len = strlen(text)) > pw_nq_file_max(n->queue_cap)) /* never: the queue holds queue_cap */
		snprintf(err, sizeof(err), "%zu bytes, over the %zu its reader takes", len,
		         pw_nq_file_max(n->queue_cap));
	else {
		/* A disk that hangs stops this thread here (deliveries too): /status shows it stuck. */
		atomic_store(&n->save_since, pw_mono_ns());
		if (pw_state_write_file(n->state_dir, PW_NOTIFY_QUEUE_FILE, text, len, err, sizeof(err)) == 0)
			n->dirty = false, n->saves++;
		atomic_store(&n->save_since, 0);
	}
	free(text);
	if (!n->dirty) {
		if (n->save_failing)
			pw_log(LOG_NOTICE, "notifier: queue saved to %s/%s again", n->state_dir,
			       PW_NOTIFY_QUEUE_FILE);
		n->save_failing = false;
		return;
	}
	n->save_errors++;
	n->save_failing = true;
	if (pw_ratelimit_allow(&n->save_complain, now, &suppressed))
		pw_log(LOG_WARNING,
		       "notifier: cannot save the queue: %s; retrying every second (%" PRIu64
		       " failures not logged)",
		       err, suppressed);
}

int64_t pw_nf_save_due_ns(const struct pw_notifier *n)
{
	if (!n->dirty || !n->state_dir)
		return INT64_MAX;
	return n->saved_ns == INT64_MIN ? INT64_MIN : pw_nf_after(n->saved_ns, SAVE_PERIOD_NS, 1);
}

void pw_nf_save_if_due(struct pw_notifier *n, int64_t now)
{
	if (n->dirty && now >= pw_nf_save_due_ns(n))
		pw_nf_save(n, now);
}

void pw_nf_load(struct pw_notifier *n)
{
	char err[PATH_MAX + 128];
	void *buf;
	size_t len;
	/* The bound pw_nf_save writes within: a bigger file is none we wrote for this --notify-queue. */
	int r = pw_state_read_file(n->state_dir, PW_NOTIFY_QUEUE_FILE, pw_nq_file_max(n->queue_cap), &buf,
	                           &len, err, sizeof(err));

	if (r == -ENOENT)
		return;
	if (r < 0) {
		pw_log(LOG_WARNING, "notifier: %s%s: queue not restored", err,
		       r == -EFBIG ? " (more than a queue of --notify-queue notifications can fill)" : "");
		return;
	}
	r = pw_nq_decode(&n->queue, buf, len);
	free(buf);
	if (r < 0) {
		pw_log(LOG_WARNING, "notifier: %s/%s: %s: queue not restored", n->state_dir,
		       PW_NOTIFY_QUEUE_FILE,
		       r == -EINVAL ? "not a queue file of this version" : strerror(-r));
		return;
	}
	pw_nf_map_items(n, "the receiver is no longer configured");
	while (n->queue.len > n->queue_cap)
		pw_nf_drop(n, n->queue.head, "the queue is full (--notify-queue)");
	if (r > 0)
		pw_log(LOG_INFO, "notifier: %d undelivered notifications restored from %s/%s", r,
		       n->state_dir, PW_NOTIFY_QUEUE_FILE);
}
