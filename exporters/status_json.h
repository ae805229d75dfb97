/* status_json.h — a sample as the /status document: what the machine is doing, in figures rounded
 * for people (percentages with one decimal, MHz, MiB), the detector's active alerts and a short
 * diagnosis in plain words. Raw counters belong to /metrics. */
#ifndef PW_STATUS_JSON_H
#define PW_STATUS_JSON_H

#include "detector.h"
#include "files_stats.h"
#include "history.h"

#include "sample.h"
#include <jansson.h>

struct pw_status_self {
	const char *version;
	double interval_seconds;
	int64_t now_real_ns; /* for the sample's age; the caller reads the clock */
	int64_t now_mono_ns;
	uint32_t history_samples; /* samples currently in the history ring */
	uint32_t top_n;           /* how many interrupt lines / softirq types to list (e.g. 5) */
	const struct pw_history_summary *recent; /* the last minute, or NULL */
	const struct pw_detector_view *detector; /* the detector's snapshot, or NULL: detector off */
	const struct pw_files_stats *files;      /* perfwatchd's own files, or NULL: "files" left out */
};

/* Render sample (may be NULL: sampler not ready yet) as pretty-printed JSON with a trailing
 * newline. Returns a malloc'd NUL-terminated string the caller frees, or NULL on allocation failure.
 * "alerts" lists self->detector's active alerts ([] without a detector), "diagnosis" says in one
 * short paragraph what they mean, "detector" is its state (null without one), "files" how the
 * files perfwatchd writes fare (only when it writes any). Thread-safe. */
char *pw_status_render(const struct pw_sample *sample, const struct pw_status_self *self);

/* The same document appended to out (no intermediate string). Returns 0, or -1 on allocation
 * failure. */
struct pw_outbuf;
int pw_status_render_into(const struct pw_sample *sample, const struct pw_status_self *self,
                          struct pw_outbuf *out);

/* The same document as a tree, for other renderings of it (status_text.c); NULL on allocation
 * failure. The caller json_decref()s it. */
json_t *pw_status_document(const struct pw_sample *sample, const struct pw_status_self *self);

#endif
