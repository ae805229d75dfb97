/* notify_prom.c — the notifier's self-metrics: deliveries, failures, retries and drops per
 * receiver, queue length and capacity, and the delivery latency histogram. Counter families follow
 * prometheus.c: "_total" samples, and in OpenMetrics a TYPE line without the suffix. */
#include "notify_stats.h"

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

static void banner(struct pw_outbuf *out, bool om, const char *name, const char *type, const char *suffix,
                   const char *help)
{
	if (om)
		pw_outbuf_printf(out, "# TYPE perfwatch_%s %s\n# HELP perfwatch_%s %s\n", name, type, name,
		                 help);
	else
		pw_outbuf_printf(out, "# HELP perfwatch_%s%s %s\n# TYPE perfwatch_%s%s %s\n", name, suffix,
		                 help, name, suffix, type);
}

static void receiver_labels(struct pw_outbuf *out, const struct pw_notify_receiver_stats *st)
{
	pw_outbuf_printf(out, "{receiver=\"%s\",type=\"%s\"", st->name, st->type);
}

/* One counter family, one series per receiver; field is the offset of its uint64_t. */
static void counter(struct pw_outbuf *out, bool om, const struct pw_notify_stats *stats, const char *name,
                    size_t field, const char *help)
{
	banner(out, om, name, "counter", "_total", help);
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		const struct pw_notify_receiver_stats *st = &stats->receivers[i];
		pw_outbuf_printf(out, "perfwatch_%s_total", name);
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
	static const char name[] = "notification_delivery_seconds";

	banner(out, om, name, "histogram", "",
	       "Time from an event to its delivery, retries included (perfwatch).");
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		const struct pw_notify_receiver_stats *st = &stats->receivers[i];
		for (int b = 0; b <= PW_NOTIFY_LATENCY_BUCKETS; b++) {
			pw_outbuf_printf(out, "perfwatch_%s_bucket", name);
			receiver_labels(out, st);
			if (b < PW_NOTIFY_LATENCY_BUCKETS)
				pw_outbuf_printf(out, ",le=\"%s\"} ", bound_text[b]);
			else
				pw_outbuf_puts(out, ",le=\"+Inf\"} ");
			pw_outbuf_u64(out, b < PW_NOTIFY_LATENCY_BUCKETS ? st->latency_buckets[b]
			                                                 : st->latency_count);
			pw_outbuf_putc(out, '\n');
		}
		pw_outbuf_printf(out, "perfwatch_%s_sum", name);
		receiver_labels(out, st);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_double(out, st->latency_sum);
		pw_outbuf_printf(out, "\nperfwatch_%s_count", name);
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
	counter(out, om, stats, "notifications_sent", offsetof(struct pw_notify_receiver_stats, sent),
	        "Notifications delivered with a 2xx answer (perfwatch).");
	counter(out, om, stats, "notifications_failed", offsetof(struct pw_notify_receiver_stats, failed),
	        "Delivery attempts that failed: network, timeout, or an error status (perfwatch).");
	counter(out, om, stats, "notifications_retried", offsetof(struct pw_notify_receiver_stats, retried),
	        "Delivery attempts that repeated a failed one (perfwatch).");
	counter(out, om, stats, "notifications_dropped", offsetof(struct pw_notify_receiver_stats, dropped),
	        "Notifications given up: refused with 4xx, or dropped from a full queue (perfwatch).");
	banner(out, om, "notification_queue_length", "gauge", "",
	       "Notifications waiting for delivery (perfwatch).");
	for (uint32_t i = 0; i < stats->nreceivers; i++) {
		pw_outbuf_puts(out, "perfwatch_notification_queue_length");
		receiver_labels(out, &stats->receivers[i]);
		pw_outbuf_puts(out, "} ");
		pw_outbuf_u64(out, stats->receivers[i].queued);
		pw_outbuf_putc(out, '\n');
	}
	banner(out, om, "notification_queue_capacity", "gauge", "",
	       "Notifications the queue holds before it drops the oldest (perfwatch).");
	pw_outbuf_puts(out, "perfwatch_notification_queue_capacity ");
	pw_outbuf_u64(out, stats->queue_capacity);
	pw_outbuf_putc(out, '\n');
	latency(out, om, stats);
}
