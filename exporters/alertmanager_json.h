/* alertmanager_json.h — an alert as Alertmanager speaks it: the webhook message (version "4", what
 * Alertmanager's own webhook_config POSTs) and the API v2 push (POST /api/v2/alerts, what Prometheus
 * sends). Both carry the same labels (alertname, instance, severity) and annotations (summary,
 * description, scope), so a receiver sees the same alert whichever path it came by.
 *
 * Formats: prometheus.io/docs/alerting/latest/configuration/#webhook_config and Alertmanager's
 * api/v2/openapi.yaml (postableAlerts). docs/alerting.md describes what we fill in. */
#ifndef PW_ALERTMANAGER_JSON_H
#define PW_ALERTMANAGER_JSON_H

#include "alert.h"

#include <stdbool.h>
#include <stdint.h>

/* Who sends, to whom: the same for every message of one receiver. Strings are borrowed. */
struct pw_am_source {
	const char *instance;     /* "instance" label: the host's name unless configured */
	const char *external_url; /* where perfwatchd serves, e.g. "http://127.0.0.1:10071" */
	const char *receiver;     /* the receiver's name, for the webhook's "receiver" field */
};

/* One alert at one moment: resolved ones carry their end. */
struct pw_am_alert {
	const struct pw_alert *alert;
	bool resolved;
	int64_t ends_real_ns; /* resolved: when; firing: 0 (webhook) or how long AM should hold it (API) */
};

/* Alertmanager's fingerprint of the alert's label set: FNV-1a 64 over the labels sorted by name,
 * each name and value followed by a 0xff byte (model.LabelSet.Fingerprint), so ours match the
 * fingerprints Alertmanager shows for the same alert. Pure. */
uint64_t pw_am_fingerprint(const struct pw_alert *alert, const char *instance);

/* The webhook message (compact JSON, NUL-terminated, malloc'd; the caller frees it) for one alert:
 * status firing or resolved, groupKey and groupLabels by alertname. NULL on allocation failure.
 * Pure; thread-safe. */
char *pw_am_webhook_render(const struct pw_am_alert *alert, const struct pw_am_source *source);

/* The API v2 body: a one-element array [{labels, annotations, startsAt, endsAt, generatorURL}] with
 * endsAt = alert->ends_real_ns (must be set). Compact JSON, malloc'd; NULL on allocation failure. */
char *pw_am_api_render(const struct pw_am_alert *alert, const struct pw_am_source *source);

#endif
