/* json_util.h — the helpers the JSON exporters (/status, /alerts, Alertmanager) share, so they round,
 * format and build alike. The figure helpers return a new jansson reference, or NULL on allocation
 * failure; a non-finite number becomes null. */
#ifndef PW_JSON_UTIL_H
#define PW_JSON_UTIL_H

#include "outbuf.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* value rounded to decimals (0..3) places. */
json_t *pw_json_real(double value, int decimals);

/* A fraction as a percentage with one decimal: 0.1234 -> 12.3. */
json_t *pw_json_percent(double fraction);

/* A rate: one decimal below 100/s, whole above (1.26 -> 1.3, 1501.26 -> 1501). */
json_t *pw_json_rate(double per_second);

/* kHz as whole MHz; null for 0 (not read: no CPU runs at 0 Hz). */
json_t *pw_json_mhz(uint32_t khz);

/* A string from a fixed buffer of max bytes (NUL-terminated or full); null when empty. Free text
 * from outside may hold anything: control characters and bytes that are not UTF-8 (a name cut
 * inside a character) become "\xNN" (pw_text_escape) rather than failing the document, so the
 * string is always valid, printable UTF-8. Already escaped text passes unchanged. */
json_t *pw_json_text(const char *str, size_t max);

/* Unix time in nanoseconds as RFC 3339 UTC with milliseconds: "2023-11-14T22:13:20.123Z". */
json_t *pw_json_rfc3339(int64_t real_ns);

/* Set obj[key] to value, taking the reference. A NULL value (a helper above out of memory) or a
 * failed set only raises *failed, so a document is built without a check per field and dropped once
 * at the end if anything failed. */
void pw_json_set(bool *failed, json_t *obj, const char *key, json_t *value);

/* Append value to array, taking the reference; as pw_json_set. */
void pw_json_push(bool *failed, json_t *array, json_t *value);

/* The pretty-printed text of root (2-space indent, keys in insertion order) with a trailing
 * newline: malloc'd, or NULL on allocation failure. root stays the caller's. */
char *pw_json_dump(const json_t *root);

/* The same text appended to out, without an intermediate copy (the HTTP responses). Returns 0, or
 * -1 on allocation failure. */
int pw_json_dump_into(const json_t *root, struct pw_outbuf *out);

#endif
