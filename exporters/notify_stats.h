/* notify_stats.h — what the notifier reports about its deliveries, as plain data: the daemon's
 * notifier fills it, the Prometheus exporter renders it (notify_prom.c). */
#ifndef PW_NOTIFY_STATS_H
#define PW_NOTIFY_STATS_H

#include "outbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* Delivery latency histogram: upper bounds in seconds (the last bucket, +Inf, is implicit). */
#define PW_NOTIFY_LATENCY_BUCKETS 10
extern const double pw_notify_latency_bounds[PW_NOTIFY_LATENCY_BUCKETS];

struct pw_notify_receiver_stats {
	const char *name; /* [A-Za-z0-9_.-]: safe as a label value as it is; the filler's storage */
	const char *type; /* "webhook" or "alertmanager" (static string) */
	uint64_t sent;    /* notifications delivered (2xx) */
	uint64_t failed;  /* attempts that failed (network, timeout, 5xx, 429, 4xx) */
	uint64_t retried; /* attempts after a failed one */
	uint64_t dropped; /* given up: rejected with 4xx, queue full, receiver gone */
	uint32_t queued;  /* waiting for delivery now */
	/* enqueue to 2xx, retries included: cumulative counts per bucket, +Inf = latency_count */
	uint64_t latency_buckets[PW_NOTIFY_LATENCY_BUCKETS];
	uint64_t latency_count;
	double latency_sum;
};

/* How many receivers there are and how long their names may be is the filler's business (the
 * daemon's receiver configuration): the exporter renders the array it is given. */
struct pw_notify_stats {
	uint32_t queue_capacity;
	uint64_t queue_saves; /* times the queue was written to the state dir */
	uint32_t nreceivers;
	const struct pw_notify_receiver_stats *receivers; /* [nreceivers], the filler's storage */
};

/* Record one delivery's latency into a receiver's histogram. */
void pw_notify_observe_latency(struct pw_notify_receiver_stats *stats, double seconds);

/* Append the notifier's families (text 0.0.4, or OpenMetrics when om) to out. Pure; the caller
 * checks pw_outbuf_ok. */
void pw_notify_prom_render(struct pw_outbuf *out, bool om, const struct pw_notify_stats *stats);

#endif
