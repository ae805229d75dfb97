/* notify_prom.c — the notifier's self-metrics: deliveries, failures, retries and drops per
 * receiver, queue length and capacity, and the delivery latency histogram. */
#include "notify_stats.h"

#include "prom_family.h"

#include <stddef.h>

const double pw_notify_latency_bounds[PW_NOTIFY_LATENCY_BUCKETS] = {0.01, 0.05, 0.1, 0.5, 1,
                                                                    5,    30,   60,  300, 3600};

void pw_notify_observe_latency(struct pw_notify_receiver_stats *st, double seconds)
{
	for (int i = 0; i < PW_NOTIFY_LATENCY_BUCKETS; i++)
		if (seconds <= pw_notify_latency_bounds[i])
			st->latency_buckets[i]++;
	st->latency_count++;
	st->latency_sum += seconds;
}

enum notify_family {
	N_SENT,
	N_FAILED,
	N_RETRIED,
	N_DROPPED,
	N_QUEUE_LENGTH,
	N_QUEUE_CAPACITY,
	N_QUEUE_SAVES,
	N_LATENCY,
	N_COUNT
};

static const struct pw_prom_family families[N_COUNT] = {
        [N_SENT] = PW_PROM_COUNTER("notifications_sent",
                                   "Notifications delivered with a 2xx answer (perfwatch)."),
        [N_FAILED] = PW_PROM_COUNTER(
                "notifications_failed",
                "Delivery attempts that failed: network, timeout, or an error status (perfwatch)."),
        [N_RETRIED] = PW_PROM_COUNTER("notifications_retried",
                                      "Delivery attempts that repeated a failed one (perfwatch)."),
        [N_DROPPED] = PW_PROM_COUNTER(
                "notifications_dropped",
                "Notifications given up: refused with 4xx, or dropped from a full queue (perfwatch)."),
        [N_QUEUE_LENGTH] =
                PW_PROM_GAUGE("notification_queue_length", "Notifications waiting for delivery (perfwatch)."),
        [N_QUEUE_CAPACITY] =
                PW_PROM_GAUGE("notification_queue_capacity",
                              "Notifications the queue holds before it drops the oldest (perfwatch)."),
        [N_QUEUE_SAVES] =
                PW_PROM_COUNTER("notification_queue_saves", "Times the notification queue was written to the "
                                                            "state dir, at most once a second (perfwatch)."),
        [N_LATENCY] = PW_PROM_HISTOGRAM("notification_delivery_seconds",
                                        "Time from an event to its delivery, retries included (perfwatch)."),
};

static void receiver_labels(struct pw_outbuf *out, const struct pw_notify_receiver_stats *st)
{
	pw_outbuf_printf(out, "{receiver=\"%s\",type=\"%s\"", st->name, st->type);
}

/* One counter family, one series per receiver; field is the offset of its uint64_t. */
static void counter(struct pw_outbuf *out, bool om, const struct pw_notify_stats *stats,
                    enum notify_family id, size_t field)
{
	pw_prom_banner(out, om, &families[id]);
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		const struct pw_notify_receiver_stats *st = &stats->receivers[i];
		pw_prom_sample_name(out, &families[id]);
		receiver_labels(out, st);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_u64(out, *(const uint64_t *)(const void *)((const char *)st + field));
		pw_outbuf_putc(out, '\n');
	}
}

/* The bounds as OpenMetrics' canonical floats ("1.0", not "1"), which the text format takes too. */
static const char *const bound_text[PW_NOTIFY_LATENCY_BUCKETS] = {"0.01", "0.05", "0.1",  "0.5",   "1.0",
                                                                  "5.0",  "30.0", "60.0", "300.0", "3600.0"};

static void latency(struct pw_outbuf *out, bool om, const struct pw_notify_stats *stats)
{
	const struct pw_prom_family *family = &families[N_LATENCY];

	pw_prom_banner(out, om, family);
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		const struct pw_notify_receiver_stats *st = &stats->receivers[i];
		for (int b = 0; b <= PW_NOTIFY_LATENCY_BUCKETS; b++) {
			pw_prom_sample_name(out, family);
			pw_outbuf_puts(out, "_bucket");
			receiver_labels(out, st);
			if (b < PW_NOTIFY_LATENCY_BUCKETS)
				pw_outbuf_printf(out, ",le=\"%s\"} ", bound_text[b]);
			else
				pw_outbuf_puts(out, ",le=\"+Inf\"} ");
			pw_outbuf_u64(out, b < PW_NOTIFY_LATENCY_BUCKETS ? st->latency_buckets[b]
			                                                 : st->latency_count);
			pw_outbuf_putc(out, '\n');
		}
		pw_prom_sample_name(out, family);
		pw_outbuf_puts(out, "_sum");
		receiver_labels(out, st);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_double(out, st->latency_sum);
		pw_outbuf_putc(out, '\n');
		pw_prom_sample_name(out, family);
		pw_outbuf_puts(out, "_count");
		receiver_labels(out, st);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_u64(out, st->latency_count);
		pw_outbuf_putc(out, '\n');
	}
}

void pw_notify_prom_render(struct pw_outbuf *out, bool om, const struct pw_notify_stats *stats)
{
	if (!stats || stats->nreceivers == 0)
		return;
	counter(out, om, stats, N_SENT, offsetof(struct pw_notify_receiver_stats, sent));
	counter(out, om, stats, N_FAILED, offsetof(struct pw_notify_receiver_stats, failed));
	counter(out, om, stats, N_RETRIED, offsetof(struct pw_notify_receiver_stats, retried));
	counter(out, om, stats, N_DROPPED, offsetof(struct pw_notify_receiver_stats, dropped));
	pw_prom_banner(out, om, &families[N_QUEUE_LENGTH]);
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		pw_prom_sample_name(out, &families[N_QUEUE_LENGTH]);
		receiver_labels(out, &stats->receivers[i]);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_u64(out, stats->receivers[i].queued);
		pw_outbuf_putc(out, '\n');
	}
	pw_prom_banner(out, om, &families[N_QUEUE_CAPACITY]);
	pw_prom_sample_name(out, &families[N_QUEUE_CAPACITY]);
	pw_outbuf_putc(out, ' ');
	pw_outbuf_u64(out, stats->queue_capacity);
	pw_outbuf_putc(out, '\n');
	pw_prom_banner(out, om, &families[N_QUEUE_SAVES]);
	pw_prom_sample_name(out, &families[N_QUEUE_SAVES]);
	pw_outbuf_putc(out, ' ');
	pw_outbuf_u64(out, stats->queue_saves);
	pw_outbuf_putc(out, '\n');
	latency(out, om, stats);
}
