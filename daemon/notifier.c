/* notifier.c — the delivery thread. One libcurl multi handle drives at most one request per
 * receiver at a time, so each receiver gets its notifications in order (a resolved message never
 * overtakes its firing one) while a slow receiver never holds up another. The thread sleeps in
 * curl_multi_poll until a transfer moves, a retry or repeat is due, or another thread wakes it
 * (curl_multi_wakeup: new events, a reload, stop). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "notifier.h"

#include "alertmanager_json.h"
#include "clock.h"
#include "log.h"
#include "notify_queue.h"
#include "notify_send.h"
#include "state_file.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define INBOX_CAP 64 /* transitions between two wake-ups: the detector makes at most 2 per rule */
#define BACKOFF_MIN_NS (500 * NS_PER_MS)
#define BACKOFF_MAX_NS (60 * NS_PER_S)
#define POLL_MAX_MS 1000
/* Alertmanager holds a pushed alert until endsAt: as Prometheus does, 4 resend intervals ahead, so
 * a few lost pushes do not resolve it, and a perfwatchd that died resolves within minutes. */
#define AM_HOLD_RESENDS 4
#define COMPLAIN_PERIOD_NS (60 * NS_PER_S)

struct rx {
	struct pw_receiver cfg;
	char url[1100]; /* what is POSTed to */
	struct pw_am_source source;
	struct pw_notify_receiver_stats stats;
	struct curl_slist *headers;
	CURL *easy;                           /* the transfer in flight, or NULL */
	struct pw_nq_item *item;              /* what it sends */
	struct pw_send_reply reply;           /* its error text and answer */
	int64_t next_try_ns;                  /* monotonic: no attempt before */
	int64_t backoff_ns;                   /* 0 after a success */
	int64_t last_sent_ns[PW_ALERT_COUNT]; /* monotonic: last firing, repeat or push enqueued */
	struct pw_ratelimit complain;
};

struct pw_notifier {
	/* Shared with the other threads, under lock (held only to copy). */
	pthread_mutex_t lock;
	struct pw_alert_event inbox[INBOX_CAP];
	uint32_t inbox_len;
	uint64_t inbox_lost;
	struct pw_receivers *pending; /* a reconfigure not applied yet */
	struct pw_notify_stats published;
	atomic_bool stop;
	CURLM *multi; /* curl_multi_wakeup is the one call other threads make on it */

	/* The notifier's thread only. */
	struct rx *rx;
	uint32_t nrx;
	struct pw_nq queue;
	uint32_t queue_cap;
	bool firing[PW_ALERT_COUNT];
	struct pw_alert alerts[PW_ALERT_COUNT]; /* the firing ones, as they fired */
	char instance[256], external_url[256];
	int64_t webhook_repeat_ns, am_resend_ns;
	char *state_dir;
	bool dirty; /* the queue changed since it was saved */
	uint64_t rng;
	struct pw_ratelimit drop_complain, save_complain;
	struct pw_alert_event events[INBOX_CAP]; /* the inbox, taken */
	pthread_t thread;
	bool running;
};

/* ---- receivers ------------------------------------------------------------------------------- */

static int64_t repeat_ns(const struct pw_notifier *n, const struct rx *r)
{
	if (r->cfg.repeat_ns)
		return r->cfg.repeat_ns;
	return r->cfg.type == PW_RECEIVER_WEBHOOK ? n->webhook_repeat_ns : n->am_resend_ns;
}

static int rx_setup(struct pw_notifier *n, struct rx *r, const struct pw_receiver *cfg)
{
	size_t len = strlen(cfg->url);

	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	if (cfg->type == PW_RECEIVER_ALERTMANAGER) /* a base URL, with or without its slash */
		snprintf(r->url, sizeof(r->url), "%.*s/api/v2/alerts",
		         (int)(len && cfg->url[len - 1] == '/' ? len - 1 : len), cfg->url);
	else
		snprintf(r->url, sizeof(r->url), "%s", cfg->url);
	r->source = (struct pw_am_source){n->instance, n->external_url, r->cfg.name};
	snprintf(r->stats.name, sizeof(r->stats.name), "%s", cfg->name);
	r->stats.type = pw_receiver_type_str(cfg->type);
	r->complain.period_ns = COMPLAIN_PERIOD_NS;
	return (r->headers = pw_send_headers(cfg)) ? 0 : -ENOMEM;
}

static int rx_find(const struct pw_notifier *n, const char *name)
{
	for (uint32_t i = 0; i < n->nrx; i++)
		if (strcmp(n->rx[i].cfg.name, name) == 0)
			return (int)i;
	return -1;
}

/* Stop a transfer; its notification stays queued, not counted as an attempt. */
static void rx_abort(struct pw_notifier *n, struct rx *r)
{
	if (!r->easy)
		return;
	curl_multi_remove_handle(n->multi, r->easy);
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	r->item->in_flight = false;
	r->item = NULL;
}

static void rx_free_all(struct pw_notifier *n)
{
	for (uint32_t i = 0; i < n->nrx; i++) {
		rx_abort(n, &n->rx[i]);
		curl_slist_free_all(n->rx[i].headers);
	}
	free(n->rx);
	n->rx = NULL;
	n->nrx = 0;
}

/* Point every queued item at its receiver's new index; drop those whose receiver is gone. */
static void map_items(struct pw_notifier *n, const char *why)
{
	struct pw_nq_item *it = n->queue.head, *next;

	for (; it; it = next) {
		next = it->next;
		if ((it->rx = rx_find(n, it->receiver)) >= 0)
			continue;
		pw_log(LOG_WARNING, "notifier: %s notification of %s for receiver %s dropped: %s", it->kind,
		       pw_alert_name_str((enum pw_alert_name)it->alert), it->receiver, why);
		pw_nq_remove(&n->queue, it);
		pw_nq_item_free(it);
		n->dirty = true;
	}
}

/* Install receivers (at start and on reconfigure): counters and repeat times follow the name. */
static int set_receivers(struct pw_notifier *n, const struct pw_receivers *rs)
{
	struct rx *fresh = calloc(rs->n ? rs->n : 1, sizeof(*fresh));

	if (!fresh)
		return -ENOMEM;
	for (uint32_t i = 0; i < rs->n; i++) {
		if (rx_setup(n, &fresh[i], &rs->list[i]) < 0) {
			for (uint32_t j = 0; j <= i; j++)
				curl_slist_free_all(fresh[j].headers);
			free(fresh);
			return -ENOMEM;
		}
		int old = rx_find(n, rs->list[i].name);
		if (old >= 0 && n->rx[old].cfg.type == rs->list[i].type) {
			struct pw_notify_receiver_stats *st = &fresh[i].stats;
			char name[PW_NOTIFY_NAME_MAX];
			memcpy(name, st->name, sizeof(name));
			*st = n->rx[old].stats;
			memcpy(st->name, name, sizeof(name));
			memcpy(fresh[i].last_sent_ns, n->rx[old].last_sent_ns, sizeof(fresh[i].last_sent_ns));
		}
	}
	rx_free_all(n);
	n->rx = fresh;
	n->nrx = rs->n;
	map_items(n, "the receiver is no longer configured");
	return 0;
}

/* ---- the queue --------------------------------------------------------------------------------- */

static void drop(struct pw_notifier *n, struct pw_nq_item *it, const char *why)
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
	struct pw_nq_item *it = pw_nq_item_new(r->cfg.name, alert, kind, pw_real_ns(), body), *old, *next;

	if (!it) {
		r->stats.dropped++;
		pw_log(LOG_ERR, "notifier: out of memory: %s notification of %s for %s lost", kind,
		       pw_alert_name_str(alert), r->cfg.name);
		return;
	}
	it->rx = rx;
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
		drop(n, old, "the queue is full (--notify-queue)");
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
		in.ends_real_ns = pw_real_ns() + AM_HOLD_RESENDS * repeat_ns(n, r);
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

static void on_event(struct pw_notifier *n, const struct pw_alert_event *ev)
{
	const struct pw_alert *a = &ev->alert;

	if ((unsigned)a->name >= PW_ALERT_COUNT)
		return;
	if (ev->resolved && n->firing[a->name]) {
		n->firing[a->name] = false;
		notify_all(n, &n->alerts[a->name], true, ev->real_ns);
	} else if (!ev->resolved && a->state == PW_ALERT_FIRING && ev->from != PW_ALERT_FIRING) {
		n->firing[a->name] = true;
		n->alerts[a->name] = *a;
		notify_all(n, a, false, 0);
	}
}

/* Still firing: webhooks hear it again every repeat interval (unless the last message has not
 * even gone out), Alertmanagers get a fresh push every resend interval. */
static void repeat_firing(struct pw_notifier *n, int64_t now)
{
	for (int a = 0; a < PW_ALERT_COUNT; a++) {
		if (!n->firing[a])
			continue;
		for (uint32_t i = 0; i < n->nrx; i++) {
			struct rx *r = &n->rx[i];
			if (now - r->last_sent_ns[a] < repeat_ns(n, r))
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

static void save(struct pw_notifier *n)
{
	char err[PATH_MAX + 128];
	uint64_t suppressed = 0;
	char *text;

	if (!n->state_dir) {
		n->dirty = false;
		return;
	}
	if (!(text = pw_nq_encode(&n->queue)))
		snprintf(err, sizeof(err), "out of memory");
	else if (pw_state_write_file(n->state_dir, PW_NOTIFY_QUEUE_FILE, text, strlen(text), err,
	                             sizeof(err)) == 0)
		n->dirty = false;
	free(text);
	if (n->dirty && pw_ratelimit_allow(&n->save_complain, pw_mono_ns(), &suppressed))
		pw_log(LOG_WARNING, "notifier: cannot save the queue: %s; retrying", err);
}

static void load(struct pw_notifier *n)
{
	char err[PATH_MAX + 128];
	void *buf;
	size_t len;
	int r = pw_state_read_file(n->state_dir, PW_NOTIFY_QUEUE_FILE, &buf, &len, err, sizeof(err));

	if (r == -ENOENT)
		return;
	if (r < 0) {
		pw_log(LOG_WARNING, "notifier: %s: queue not restored", err);
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
	map_items(n, "the receiver is no longer configured");
	while (n->queue.len > n->queue_cap)
		drop(n, n->queue.head, "the queue is full (--notify-queue)");
	if (r > 0)
		pw_log(LOG_INFO, "notifier: %d undelivered notifications restored from %s/%s", r,
		       n->state_dir, PW_NOTIFY_QUEUE_FILE);
}

/* ---- transfers ------------------------------------------------------------------------------- */

static void start_transfers(struct pw_notifier *n, int64_t now)
{
	for (uint32_t i = 0; i < n->nrx; i++) {
		struct rx *r = &n->rx[i];
		struct pw_nq_item *it;
		if (r->easy || now < r->next_try_ns || !(it = pw_nq_first_for(&n->queue, (int)i)))
			continue;
		r->easy = pw_send_new(&r->cfg, r->url, r->headers, it->body, &r->reply);
		if (!r->easy || curl_multi_add_handle(n->multi, r->easy) != CURLM_OK) {
			curl_easy_cleanup(r->easy); /* accepts NULL */
			r->easy = NULL;
			r->next_try_ns = now + BACKOFF_MIN_NS;
			continue;
		}
		curl_easy_setopt(r->easy, CURLOPT_PRIVATE, (void *)r);
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
		snprintf(buf, size, "%s", r->reply.error[0] ? r->reply.error : curl_easy_strerror(code));
	else
		snprintf(buf, size, "HTTP %ld%s%.100s", status, r->reply.answer_len ? ": " : "",
		         r->reply.answer);
	buf[strcspn(buf, "\r\n")] = '\0';
}

static void finish(struct pw_notifier *n, struct rx *r, CURLcode code)
{
	struct pw_nq_item *it = r->item;
	int64_t now = pw_mono_ns();
	uint64_t suppressed = 0;
	long status = 0;
	char what[256];

	curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
	describe(r, code, status, what, sizeof(what));
	curl_multi_remove_handle(n->multi, r->easy);
	curl_easy_cleanup(r->easy);
	r->easy = NULL;
	r->item = NULL;
	it->in_flight = false;
	switch (pw_send_outcome(code, status)) {
	case PW_SEND_OK:
		r->stats.sent++;
		pw_notify_observe_latency(&r->stats, (double)(pw_real_ns() - it->enqueued_real_ns) / 1e9);
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
		pw_log(LOG_WARNING, "notifier: %s refused the %s notification of %s (%s); dropped",
		       r->cfg.name, it->kind, pw_alert_name_str((enum pw_alert_name)it->alert), what);
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

static void collect_finished(struct pw_notifier *n)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(n->multi, &left))) {
		struct rx *r = NULL;
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		finish(n, r, msg->data.result);
	}
}

/* ---- the thread -------------------------------------------------------------------------------- */

/* Take what other threads handed over, under the lock, then act on it without. */
static void take_inbox(struct pw_notifier *n)
{
	struct pw_receivers *pending;
	uint32_t count;
	uint64_t lost;

	pthread_mutex_lock(&n->lock);
	count = n->inbox_len;
	memcpy(n->events, n->inbox, count * sizeof(n->inbox[0]));
	n->inbox_len = 0;
	lost = n->inbox_lost;
	n->inbox_lost = 0;
	pending = n->pending;
	n->pending = NULL;
	pthread_mutex_unlock(&n->lock);

	if (pending) {
		if (set_receivers(n, pending) < 0)
			pw_log(LOG_ERR, "notifier: out of memory: receivers not changed");
		else
			pw_log(LOG_INFO, "notifier: %u receivers configured", n->nrx);
		free(pending);
	}
	if (lost)
		pw_log(LOG_ERR, "notifier: %" PRIu64 " alert transitions lost: the inbox was full", lost);
	for (uint32_t i = 0; i < count; i++)
		on_event(n, &n->events[i]);
}

static void publish_stats(struct pw_notifier *n)
{
	pthread_mutex_lock(&n->lock);
	n->published.queue_capacity = n->queue_cap;
	n->published.nreceivers = n->nrx < PW_NOTIFY_RECEIVERS_MAX ? n->nrx : PW_NOTIFY_RECEIVERS_MAX;
	for (uint32_t i = 0; i < n->published.nreceivers; i++) {
		n->published.receivers[i] = n->rx[i].stats;
		n->published.receivers[i].queued = 0;
	}
	for (const struct pw_nq_item *it = n->queue.head; it; it = it->next)
		if (it->rx >= 0 && (uint32_t)it->rx < n->published.nreceivers)
			n->published.receivers[it->rx].queued++;
	pthread_mutex_unlock(&n->lock);
}

/* How long the thread may sleep: until the next retry or repeat is due, at most POLL_MAX_MS. */
static int sleep_ms(const struct pw_notifier *n, int64_t now)
{
	int64_t until = now + POLL_MAX_MS * NS_PER_MS;

	for (uint32_t i = 0; i < n->nrx; i++) {
		const struct rx *r = &n->rx[i];
		if (!r->easy && pw_nq_first_for(&n->queue, (int)i) && r->next_try_ns < until)
			until = r->next_try_ns;
		for (int a = 0; a < PW_ALERT_COUNT; a++)
			if (n->firing[a] && r->last_sent_ns[a] + repeat_ns(n, r) < until)
				until = r->last_sent_ns[a] + repeat_ns(n, r);
	}
	return until <= now ? 0 : (int)((until - now + NS_PER_MS - 1) / NS_PER_MS);
}

static void *notifier_main(void *arg)
{
	struct pw_notifier *n = arg;
	int running;

	while (!atomic_load(&n->stop)) {
		take_inbox(n);
		repeat_firing(n, pw_mono_ns());
		start_transfers(n, pw_mono_ns());
		curl_multi_perform(n->multi, &running);
		collect_finished(n);
		if (n->dirty)
			save(n);
		publish_stats(n);
		curl_multi_poll(n->multi, NULL, 0, sleep_ms(n, pw_mono_ns()), NULL);
	}
	/* What the detector handed over last (it stops before us) joins the queue, which is kept. */
	take_inbox(n);
	for (uint32_t i = 0; i < n->nrx; i++)
		rx_abort(n, &n->rx[i]);
	if (n->state_dir)
		save(n);
	publish_stats(n);
	return NULL;
}

/* ---- life cycle -------------------------------------------------------------------------------- */

struct pw_notifier *pw_notifier_new(const struct pw_notifier_config *c, char *err, size_t n_err)
{
	struct pw_notifier *n = calloc(1, sizeof(*n));

	if (!n)
		return snprintf(err, n_err, "out of memory"), NULL;
	pthread_mutex_init(&n->lock, NULL);
	snprintf(n->instance, sizeof(n->instance), "%s", c->instance);
	snprintf(n->external_url, sizeof(n->external_url), "%s", c->external_url);
	n->webhook_repeat_ns = c->webhook_repeat_ns;
	n->am_resend_ns = c->am_resend_ns;
	n->queue_cap = c->queue_cap ? c->queue_cap : 1;
	n->rng = (uint64_t)pw_real_ns() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15u;
	n->drop_complain.period_ns = 10 * NS_PER_S;
	n->save_complain.period_ns = COMPLAIN_PERIOD_NS;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(n->multi = curl_multi_init())) {
		snprintf(err, n_err, "cannot initialise libcurl");
		pw_notifier_free(n);
		return NULL;
	}
	if ((c->state_dir && *c->state_dir && !(n->state_dir = strdup(c->state_dir))) ||
	    set_receivers(n, c->receivers) < 0) {
		snprintf(err, n_err, "out of memory");
		pw_notifier_free(n);
		return NULL;
	}
	if (n->state_dir)
		load(n);
	publish_stats(n);
	return n;
}

int pw_notifier_start(struct pw_notifier *n)
{
	int r = pthread_create(&n->thread, NULL, notifier_main, n);

	if (r != 0)
		return -r;
	pthread_setname_np(n->thread, "pw-notifier");
	n->running = true;
	return 0;
}

void pw_notifier_submit(struct pw_notifier *n, const struct pw_alert_event *events, size_t count)
{
	bool any = false;

	pthread_mutex_lock(&n->lock);
	for (size_t i = 0; i < count; i++) {
		const struct pw_alert_event *ev = &events[i];
		if (!ev->resolved && !(ev->alert.state == PW_ALERT_FIRING && ev->from != PW_ALERT_FIRING))
			continue; /* pending and cleared-while-pending: nothing to tell */
		if (n->inbox_len < INBOX_CAP)
			n->inbox[n->inbox_len++] = *ev;
		else
			n->inbox_lost++;
		any = true;
	}
	pthread_mutex_unlock(&n->lock);
	if (any)
		curl_multi_wakeup(n->multi);
}

int pw_notifier_reconfigure(struct pw_notifier *n, const struct pw_receivers *receivers)
{
	struct pw_receivers *copy = malloc(sizeof(*copy));

	if (!copy)
		return -ENOMEM;
	*copy = *receivers;
	pthread_mutex_lock(&n->lock);
	free(n->pending);
	n->pending = copy;
	pthread_mutex_unlock(&n->lock);
	curl_multi_wakeup(n->multi);
	return 0;
}

void pw_notifier_stats(struct pw_notifier *n, struct pw_notify_stats *ret)
{
	pthread_mutex_lock(&n->lock);
	*ret = n->published;
	pthread_mutex_unlock(&n->lock);
}

void pw_notifier_stop(struct pw_notifier *n)
{
	if (!n->running)
		return;
	atomic_store(&n->stop, true);
	curl_multi_wakeup(n->multi);
	pthread_join(n->thread, NULL);
	n->running = false;
}

void pw_notifier_free(struct pw_notifier *n)
{
	if (!n)
		return;
	pw_notifier_stop(n);
	rx_free_all(n);
	pw_nq_clear(&n->queue);
	if (n->multi)
		curl_multi_cleanup(n->multi);
	curl_global_cleanup();
	free(n->pending);
	free(n->state_dir);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
