/* prometheus.h — a sample as Prometheus text exposition 0.0.4 or OpenMetrics 1.0.0.
 *
 * Counters are cumulative in base units (seconds, bytes, hertz) with the perfwatch_ prefix; the
 * per-interval figures are gauges. Spec: prometheus.io/docs/instrumenting/exposition_formats and
 * the OpenMetrics 1.0 specification (counter families without _total, "# UNIT", "# EOF"). */
#ifndef PW_PROMETHEUS_H
#define PW_PROMETHEUS_H

#include "detector.h"
#include "files_stats.h"
#include "http_stats.h"
#include "notify_stats.h"
#include "outbuf.h"
#include "sample.h"

enum pw_prom_format { PW_PROM_TEXT, PW_PROM_OPENMETRICS };

/* What the daemon knows about itself that the sample does not carry. */
struct pw_prom_self {
	const char *version;        /* build_info label */
	double interval_seconds;    /* configured sampling interval */
	double last_scrape_seconds; /* duration of the previous /metrics render, or < 0 if none */
	uint64_t scrapes_total;
	uint32_t history_capacity;               /* samples the history ring holds */
	uint64_t history_bytes;                  /* memory the rings hold */
	const struct pw_detector_view *detector; /* alerts and baselines, or NULL: detector off */
	const struct pw_notify_stats *notify;    /* deliveries, or NULL: no receivers */
	const struct pw_http_stats *http;        /* cut connections, refused logins, or NULL */
	const struct pw_files_stats *files;      /* own files' write errors, or NULL */
};

struct pw_prom_options {
	enum pw_prom_format format;
	bool interrupts_per_cpu; /* emit the CPU x line matrix (needs a sample that carries it) */
};

/* Content-Type header value for a format. */
const char *pw_prom_content_type(enum pw_prom_format format);

/* Choose the format from an HTTP Accept header (may be NULL): OpenMetrics when it names
 * application/openmetrics-text, else the text format. */
enum pw_prom_format pw_prom_negotiate(const char *accept);

/* Append the exposition of sample (may be NULL: only self-metrics) to out, with self->detector's
 * alerts and baselines when there is one. Returns 0 or -ENOMEM.
 * Pure: no clocks, no I/O; thread-safe for distinct out buffers. */
int pw_prom_render(struct pw_outbuf *out, const struct pw_sample *sample,
                   const struct pw_prom_options *options, const struct pw_prom_self *self);

#endif
