/* notifier.h — alert delivery on its own thread: webhooks (Alertmanager's webhook format) and
 * Alertmanager's API v2, over libcurl. The detector hands over alert transitions without waiting on
 * the network; the notifier renders, queues (bounded, persisted in the state dir), sends with
 * timeouts, retries with exponential backoff and jitter, and repeats still-firing alerts.
 * docs/alerting.md describes the formats and the delivery guarantees. */
#ifndef PW_NOTIFIER_H
#define PW_NOTIFIER_H

#include "alert.h"
#include "files_stats.h"
#include "notify_stats.h"
#include "receiver.h"

#include <stddef.h>
#include <stdint.h>

struct pw_notifier_config {
	const struct pw_receivers *receivers; /* copied */
	const char *instance;                 /* "instance" label */
	const char *external_url;             /* where perfwatchd serves, for generatorURL */
	int64_t webhook_repeat_ns;            /* still firing: to webhooks again after this */
	int64_t am_resend_ns;                 /* still firing: to Alertmanagers again after this */
	uint32_t queue_cap;                   /* notifications held; when full the oldest is dropped */
	const char *state_dir;                /* NULL or "": the queue is not kept across restarts */
};

struct pw_notifier;

/* Set up libcurl and the receivers, and load the queue a previous run left in the state dir
 * (notifications for receivers no longer configured are logged and dropped). Call from the main
 * thread before other threads use libcurl. NULL with a reason in err. */
struct pw_notifier *pw_notifier_new(const struct pw_notifier_config *config, char *err, size_t err_size);

int pw_notifier_start(struct pw_notifier *notifier);

/* Any thread (the detector's): hand over alert transitions. Only firing and resolved ones are kept.
 * Never waits on the network: it copies into an inbox under a lock that is held only for copies. */
void pw_notifier_submit(struct pw_notifier *notifier, const struct pw_alert_event *events, size_t count);

/* Any thread (a reload): replace the receivers. Those kept by name keep their queue and counters,
 * and with unchanged settings their transfer in flight and backoff; queued notifications of removed
 * receivers are dropped (logged). Applied by the notifier's thread at its next wake-up. Returns 0 or
 * -ENOMEM. */
int pw_notifier_reconfigure(struct pw_notifier *notifier, const struct pw_receivers *receivers);

/* The delivery counters at one moment: view is what the exporter renders, and points into this
 * struct's own arrays (sized by the receiver configuration's limits). */
struct pw_notifier_snapshot {
	struct pw_notify_stats view;
	struct pw_notify_receiver_stats receivers[PW_RECEIVERS_MAX];
	char names[PW_RECEIVERS_MAX][PW_RECEIVER_NAME_MAX];
};

/* Any thread: a copy of the delivery counters into ret (its view set to point into ret). */
void pw_notifier_stats(struct pw_notifier *notifier, struct pw_notifier_snapshot *ret);

/* Any thread: how saving the queue to the state dir fares (not configured without a state dir),
 * with how long a save in progress has waited for the disk. */
void pw_notifier_file_stats(struct pw_notifier *notifier, struct pw_file_stats *ret);

/* Stop within a moment: transfers in flight are aborted (their notifications stay queued), the
 * queue is saved to the state dir, the thread joined. Idempotent. */
void pw_notifier_stop(struct pw_notifier *notifier);
void pw_notifier_free(struct pw_notifier *notifier); /* stops first; accepts NULL */

#endif
