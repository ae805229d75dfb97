/* notifier_internal.h — the notifier's state, shared by its files: notifier.c (thread, receivers,
 * life cycle), notify_policy.c (what is sent when: events, repeats, the queue bound, persistence)
 * and notify_transfer.c (requests, outcomes, backoff). All of it belongs to the notifier's thread,
 * except the members marked as shared. */
#ifndef PW_NOTIFIER_INTERNAL_H
#define PW_NOTIFIER_INTERNAL_H

#include "alertmanager_json.h"
#include "log.h"
#include "notifier.h"
#include "notify_queue.h"
#include "notify_send.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define NS_PER_MS INT64_C(1000000)
#define NS_PER_S INT64_C(1000000000)
#define INBOX_CAP 64 /* transitions between two wake-ups: the detector makes at most 2 per rule */
#define BACKOFF_MIN_NS (500 * NS_PER_MS)
#define BACKOFF_MAX_NS (60 * NS_PER_S)
/* The longest sleep: retries, repeats and curl's own timers are waited for exactly, and other
 * threads wake the notifier, so this only bounds an idle notifier's wake-ups. */
#define POLL_MAX_MS 60000
/* Alertmanager holds a pushed alert until endsAt: as Prometheus does, 4 resend intervals ahead, so
 * a few lost pushes do not resolve it, and a perfwatchd that died resolves within minutes. */
#define AM_HOLD_RESENDS 4
#define COMPLAIN_PERIOD_NS (60 * NS_PER_S)
/* The queue file is written at most once per this period (and at stop): notify_policy.c says why. */
#define SAVE_PERIOD_NS (1 * NS_PER_S)

struct rx {
	struct pw_receiver cfg;
	char url[1100]; /* what is POSTed to */
	struct pw_am_source source;
	struct pw_notify_receiver_stats stats;
	struct curl_slist *headers;
	CURL *easy;                           /* the transfer in flight, or NULL */
	struct pw_nq_item *item;              /* what it sends */
	struct pw_send_reply *reply;          /* its error text and answer (heap: a reload moves it) */
	int64_t next_try_ns;                  /* monotonic: no attempt before */
	int64_t backoff_ns;                   /* 0 after a success */
	int64_t last_sent_ns[PW_ALERT_COUNT]; /* monotonic: last firing, repeat or push enqueued */
	struct pw_ratelimit complain;         /* failed deliveries */
	struct pw_ratelimit refuse_complain;  /* notifications the receiver refused (dropped) */
};

struct pw_notifier {
	/* Shared with the other threads, under lock (held only to copy). */
	pthread_mutex_t lock;
	struct pw_alert_event inbox[INBOX_CAP];
	uint32_t inbox_len;
	uint64_t inbox_lost;
	struct pw_receivers *pending; /* a reconfigure not applied yet */
	struct pw_notifier_snapshot published;
	struct pw_file_stats file_published; /* the queue file's saves */
	atomic_int_fast64_t save_since;      /* monotonic start of the save in progress; 0: none */
	atomic_bool stop;
	CURLM *multi;    /* curl_multi_wakeup is the one call other threads make on it */
	bool curl_ready; /* curl_global_init succeeded: cleaned up with it */

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
	bool dirty;        /* the queue changed since it was saved */
	int64_t saved_ns;  /* monotonic: the last save tried; INT64_MIN: none yet */
	uint64_t saves;    /* queue files written */
	bool save_failing; /* the last save failed (retried SAVE_PERIOD_NS later: still dirty) */
	uint64_t save_errors;
	uint64_t rng;
	struct pw_ratelimit drop_complain, save_complain;
	struct pw_alert_event events[INBOX_CAP]; /* the inbox, taken */
	pthread_t thread;
	bool running;
};

/* notifier.c */
int64_t pw_nf_repeat_ns(const struct pw_notifier *n, const struct rx *r); /* repeat or resend period */
/* base + times x period (period, times >= 0), saturated at INT64_MAX: deadlines and endsAt from a
 * configured duration, which may be as long as an int64_t holds. */
int64_t pw_nf_after(int64_t base_ns, int64_t period_ns, int times);
void pw_nf_abort(struct pw_notifier *n, struct rx *r);        /* item stays queued */
void pw_nf_map_items(struct pw_notifier *n, const char *why); /* items to receiver indices; drop orphans */

/* notify_policy.c */
void pw_nf_drop(struct pw_notifier *n, struct pw_nq_item *item, const char *why);
void pw_nf_on_event(struct pw_notifier *n, const struct pw_alert_event *event);
void pw_nf_repeat_firing(struct pw_notifier *n, int64_t now_ns);
void pw_nf_save(struct pw_notifier *n, int64_t now_ns);        /* now, changed or not */
void pw_nf_save_if_due(struct pw_notifier *n, int64_t now_ns); /* changed, and the period is over */
int64_t pw_nf_save_due_ns(const struct pw_notifier *n);        /* when that is; INT64_MAX: never */
void pw_nf_load(struct pw_notifier *n);

/* notify_transfer.c */
void pw_nf_start_transfers(struct pw_notifier *n, int64_t now_ns);
void pw_nf_collect_finished(struct pw_notifier *n);

#endif
