/* notifier.c — the delivery thread and its life cycle: receivers (set up, replaced on reload), the
 * inbox other threads hand transitions to, the published counters, and the loop. One libcurl multi
 * handle drives the requests (notify_transfer.c); the thread sleeps in curl_multi_poll until a
 * transfer moves, a retry or repeat is due, or another thread wakes it (curl_multi_wakeup: new
 * events, a reload, stop). What is sent when is notify_policy.c's. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "notifier_internal.h"

#include "clock.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- receivers ------------------------------------------------------------------------------- */

int64_t pw_nf_repeat_ns(const struct pw_notifier *n, const struct rx *r)
{
	if (r->cfg.repeat_ns)
		return r->cfg.repeat_ns;
	return r->cfg.type == PW_RECEIVER_WEBHOOK ? n->webhook_repeat_ns : n->am_resend_ns;
}

int64_t pw_nf_after(int64_t base_ns, int64_t period_ns, int times)
{
	/* Durations are at most INT64_MAX ns (pw_parse_duration): 2000000h times four is not. */
	if (period_ns > 0 && times > 0 && period_ns > (INT64_MAX - (base_ns > 0 ? base_ns : 0)) / times)
		return INT64_MAX;
	return base_ns + period_ns * times;
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
	r->stats.type = pw_receiver_type_str(cfg->type);
	r->complain.period_ns = COMPLAIN_PERIOD_NS;
	r->refuse_complain.period_ns = COMPLAIN_PERIOD_NS;
	r->headers = pw_send_headers(cfg);
	r->reply = calloc(1, sizeof(*r->reply));
	return r->headers && r->reply ? 0 : -ENOMEM;
}

/* Whether a reload left a receiver's settings as they were (its line in the file aside). */
static bool same_settings(const struct pw_receiver *a, const struct pw_receiver *b)
{
	if (a->type != b->type || a->nheaders != b->nheaders || a->tls_insecure != b->tls_insecure ||
	    a->repeat_ns != b->repeat_ns || a->timeout_ns != b->timeout_ns || strcmp(a->url, b->url) != 0 ||
	    strcmp(a->bearer_token, b->bearer_token) != 0 || strcmp(a->basic_user, b->basic_user) != 0 ||
	    strcmp(a->basic_password, b->basic_password) != 0 || strcmp(a->ca_file, b->ca_file) != 0)
		return false;
	for (uint32_t i = 0; i < a->nheaders; i++)
		if (strcmp(a->headers[i], b->headers[i]) != 0)
			return false;
	return true;
}

static int rx_find(const struct pw_notifier *n, const char *name)
{
	for (uint32_t i = 0; i < n->nrx; i++)
		if (strcmp(n->rx[i].cfg.name, name) == 0)
			return (int)i;
	return -1;
}

/* Stop a transfer; its notification stays queued, not counted as an attempt. */
void pw_nf_abort(struct pw_notifier *n, struct rx *r)
{
	if (!r->easy)
		return;
	pw_curl.multi_remove_handle(n->multi, r->easy);
	pw_curl.easy_cleanup(r->easy);
	r->easy = NULL;
	r->item->in_flight = false;
	r->item = NULL;
}

/* Release what rx_setup made, aborting a transfer in flight. */
static void rx_done(struct pw_notifier *n, struct rx *r)
{
	pw_nf_abort(n, r);
	pw_curl.slist_free_all(r->headers);
	free(r->reply);
	r->headers = NULL;
	r->reply = NULL;
}

/* A receiver a reload keeps unchanged moves whole to its new place: its transfer in flight (which
 * aborting would send twice), backoff, counters and repeat times. The old place is left empty. */
static void rx_move(struct pw_notifier *n, struct rx *to, struct rx *from)
{
	struct pw_receiver cfg = to->cfg;

	rx_done(n, to);
	*to = *from;
	to->cfg = cfg; /* the same settings, but its section may have moved in the file */
	to->source.receiver = to->cfg.name;
	memset(from, 0, sizeof(*from));
}

static void rx_free_all(struct pw_notifier *n)
{
	for (uint32_t i = 0; i < n->nrx; i++)
		rx_done(n, &n->rx[i]);
	free(n->rx);
	n->rx = NULL;
	n->nrx = 0;
}

/* Point every queued item at its receiver's new index; drop those whose receiver is gone. */
void pw_nf_map_items(struct pw_notifier *n, const char *why)
{
	struct pw_nq_item *it = n->queue.head, *next;
	uint64_t dropped = 0;

	/* A queue file or a reload can orphan a million items: the first is named, the rest counted. */
	for (; it; it = next) {
		next = it->next;
		if ((it->rx = rx_find(n, it->receiver)) >= 0)
			continue;
		if (dropped++ == 0)
			pw_log(LOG_WARNING, "notifier: %s notification of %s for receiver %s dropped: %s",
			       it->kind, pw_alert_name_str((enum pw_alert_name)it->alert), it->receiver, why);
		pw_nq_remove(&n->queue, it);
		pw_nq_item_free(it);
		n->dirty = true;
	}
	if (dropped > 1)
		pw_log(LOG_WARNING, "notifier: %" PRIu64 " more notifications dropped: %s", dropped - 1, why);
}

/* Install receivers (at start and on reconfigure): counters and repeat times follow the name; a
 * receiver whose settings did not change also keeps its transfer in flight and its backoff. */
static int set_receivers(struct pw_notifier *n, const struct pw_receivers *rs)
{
	struct rx *fresh = calloc(rs->n ? rs->n : 1, sizeof(*fresh));

	if (!fresh)
		return -ENOMEM;
	for (uint32_t i = 0; i < rs->n; i++) {
		if (rx_setup(n, &fresh[i], &rs->list[i]) < 0) {
			for (uint32_t j = 0; j <= i; j++)
				rx_done(n, &fresh[j]);
			free(fresh);
			return -ENOMEM;
		}
	}
	/* Only now, when nothing can fail any more, may the old receivers give up what they hold. */
	for (uint32_t i = 0; i < rs->n; i++) {
		int old = rx_find(n, rs->list[i].name);
		if (old >= 0 && same_settings(&n->rx[old].cfg, &rs->list[i])) {
			rx_move(n, &fresh[i], &n->rx[old]);
		} else if (old >= 0 && n->rx[old].cfg.type == rs->list[i].type) {
			fresh[i].stats = n->rx[old].stats;
			memcpy(fresh[i].last_sent_ns, n->rx[old].last_sent_ns, sizeof(fresh[i].last_sent_ns));
		}
	}
	rx_free_all(n);
	n->rx = fresh;
	n->nrx = rs->n;
	pw_nf_map_items(n, "the receiver is no longer configured");
	return 0;
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
		pw_nf_on_event(n, &n->events[i]);
}

/* Point a snapshot's view at its own arrays (after it was filled or copied). */
static void snapshot_link(struct pw_notifier_snapshot *s)
{
	s->view.receivers = s->receivers;
	for (uint32_t i = 0; i < s->view.nreceivers; i++)
		s->receivers[i].name = s->names[i];
}

static void publish_stats(struct pw_notifier *n)
{
	struct pw_notifier_snapshot *s = &n->published;

	pthread_mutex_lock(&n->lock);
	s->view.queue_capacity = n->queue_cap;
	s->view.queue_saves = n->saves;
	s->view.nreceivers = n->nrx < PW_RECEIVERS_MAX ? n->nrx : PW_RECEIVERS_MAX;
	for (uint32_t i = 0; i < s->view.nreceivers; i++) {
		s->receivers[i] = n->rx[i].stats;
		s->receivers[i].queued = 0;
		snprintf(s->names[i], sizeof(s->names[i]), "%s", n->rx[i].cfg.name);
	}
	snapshot_link(s);
	for (const struct pw_nq_item *it = n->queue.head; it; it = it->next)
		if (it->rx >= 0 && (uint32_t)it->rx < s->view.nreceivers)
			s->receivers[it->rx].queued++;
	n->file_published = (struct pw_file_stats){
	        .configured = n->state_dir != NULL, .failing = n->save_failing, .errors = n->save_errors};
	pthread_mutex_unlock(&n->lock);
}

/* How long the thread may sleep: until the next retry, repeat or save is due, at most POLL_MAX_MS. */
static int pw_nf_sleep_ms(const struct pw_notifier *n, int64_t now)
{
	int64_t until = now + POLL_MAX_MS * NS_PER_MS;

	if (pw_nf_save_due_ns(n) < until)
		until = pw_nf_save_due_ns(n);
	for (uint32_t i = 0; i < n->nrx; i++) {
		const struct rx *r = &n->rx[i];
		if (!r->easy && pw_nq_first_for(&n->queue, (int)i) && r->next_try_ns < until)
			until = r->next_try_ns;
		for (int a = 0; a < PW_ALERT_COUNT; a++)
			if (n->firing[a] && pw_nf_after(r->last_sent_ns[a], pw_nf_repeat_ns(n, r), 1) < until)
				until = pw_nf_after(r->last_sent_ns[a], pw_nf_repeat_ns(n, r), 1);
	}
	return until <= now ? 0 : (int)((until - now + NS_PER_MS - 1) / NS_PER_MS);
}

static void *notifier_main(void *arg)
{
	struct pw_notifier *n = arg;
	int running;

	while (!atomic_load(&n->stop)) {
		take_inbox(n);
		pw_nf_repeat_firing(n, pw_mono_ns());
		pw_nf_start_transfers(n, pw_mono_ns());
		pw_curl.multi_perform(n->multi, &running);
		pw_nf_collect_finished(n);
		pw_nf_save_if_due(n, pw_mono_ns());
		publish_stats(n);
		pw_curl.multi_poll(n->multi, NULL, 0, pw_nf_sleep_ms(n, pw_mono_ns()), NULL);
	}
	/* What the detector handed over last (it stops before us) joins the queue, which is kept. */
	take_inbox(n);
	for (uint32_t i = 0; i < n->nrx; i++)
		pw_nf_abort(n, &n->rx[i]);
	if (n->state_dir)
		pw_nf_save(n, pw_mono_ns());
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
	n->saved_ns = INT64_MIN;
	if (pw_curl_load(err, n_err) < 0) {
		pw_notifier_free(n);
		return NULL;
	}
	n->curl_ready = pw_curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
	if (!n->curl_ready || !(n->multi = pw_curl.multi_init())) {
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
		pw_nf_load(n);
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
		pw_curl.multi_wakeup(n->multi);
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
	pw_curl.multi_wakeup(n->multi);
	return 0;
}

void pw_notifier_stats(struct pw_notifier *n, struct pw_notifier_snapshot *ret)
{
	pthread_mutex_lock(&n->lock);
	*ret = n->published;
	pthread_mutex_unlock(&n->lock);
	snapshot_link(ret);
}

void pw_notifier_file_stats(struct pw_notifier *n, struct pw_file_stats *ret)
{
	int64_t since = atomic_load(&n->save_since), now = pw_mono_ns();

	pthread_mutex_lock(&n->lock);
	*ret = n->file_published;
	pthread_mutex_unlock(&n->lock);
	ret->blocked_ns = since && now > since ? now - since : 0;
	ret->stuck = ret->blocked_ns >= PW_FILE_STUCK_NS;
}

void pw_notifier_stop(struct pw_notifier *n)
{
	if (!n->running)
		return;
	atomic_store(&n->stop, true);
	pw_curl.multi_wakeup(n->multi);
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
		pw_curl.multi_cleanup(n->multi);
	if (n->curl_ready)
		pw_curl.global_cleanup();
	free(n->pending);
	free(n->state_dir);
	pthread_mutex_destroy(&n->lock);
	free(n);
}
