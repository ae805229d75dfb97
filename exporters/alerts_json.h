/* alerts_json.h — the detector's active alerts as the /alerts document, and the same list for
 * /status: each alert with its figures and its evidence under named keys, rounded for people.
 *
 * The names, states and keys are a fixed interface (tools outside the project read them);
 * docs/metrics.md describes every field. Also home of the JSON figure helpers both JSON documents
 * share (pw_json_*), so /alerts and /status round and format alike. */
#ifndef PW_ALERTS_JSON_H
#define PW_ALERTS_JSON_H

#include "detector.h"

#include <jansson.h>

/* Render the active (pending or firing) alerts of view (NULL: detector off, no alerts) as the
 * pretty-printed document {"alerts": [...]} with a trailing newline. Returns a malloc'd
 * NUL-terminated string the caller frees, or NULL on allocation failure. Pure; thread-safe. */
char *pw_alerts_render(const struct pw_detector_view *view);

/* The "alerts" array of that document as a new jansson reference the caller owns (json_decref), for
 * /status to embed. view may be NULL (an empty array). NULL on allocation failure. */
json_t *pw_alerts_json_array(const struct pw_detector_view *view);

/* The active alerts of view, most urgent first: firing before pending, critical before warning,
 * then rule order. Stores pointers into view (valid while view is) into ret, at most cap; returns
 * how many. view may be NULL (0). */
size_t pw_alerts_by_urgency(const struct pw_detector_view *view, const struct pw_alert **ret, size_t cap);

/* ---- figure helpers shared by the JSON exporters ----
 * Each returns a new reference, or NULL on allocation failure; a non-finite number becomes null. */

/* value rounded to decimals (0..3) places. */
json_t *pw_json_real(double value, int decimals);

/* A fraction as a percentage with one decimal: 0.1234 -> 12.3. */
json_t *pw_json_percent(double fraction);

/* A rate: one decimal below 100/s, whole above (1.26 -> 1.3, 1501.26 -> 1501). */
json_t *pw_json_rate(double per_second);

/* kHz as whole MHz; null for 0 (not read: no CPU runs at 0 Hz). */
json_t *pw_json_mhz(uint32_t khz);

/* A string from a fixed buffer of max bytes (NUL-terminated or full); null when empty. Bytes that
 * are not UTF-8 (a kernel name cut inside a character) become '?' rather than failing the document. */
json_t *pw_json_text(const char *str, size_t max);

/* Unix time in nanoseconds as RFC 3339 UTC with milliseconds: "2023-11-14T22:13:20.123Z". */
json_t *pw_json_rfc3339(int64_t real_ns);

/* The pretty-printed text of root (2-space indent, keys in insertion order) with a trailing
 * newline: malloc'd, or NULL on allocation failure. root stays the caller's. */
char *pw_json_dump(const json_t *root);

#endif
