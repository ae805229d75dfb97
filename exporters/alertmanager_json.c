/* alertmanager_json.c — webhook v4 messages and API v2 pushes with jansson. Free text goes through
 * pw_json_text: valid UTF-8, control characters as "\xNN", whatever a description or name holds. */
#include "alertmanager_json.h"
#include "json_util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Alertmanager's "not ended" time in webhook messages of firing alerts (Go's zero time). */
#define ZERO_TIME "0001-01-01T00:00:00Z"
#define FNV_OFFSET UINT64_C(14695981039346656037)
#define FNV_PRIME UINT64_C(1099511628211)

struct label {
	const char *name, *value;
};

/* The label set, sorted by name (alertname < instance < severity). */
static void labels_of(const struct pw_alert *a, const char *instance, struct label ret[3])
{
	ret[0] = (struct label){"alertname", pw_alert_name_str(a->name)};
	ret[1] = (struct label){"instance", instance ? instance : ""};
	ret[2] = (struct label){"severity", pw_severity_str(a->severity)};
}

static uint64_t fnv_add(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * FNV_PRIME;
	return (h ^ 0xffu) * FNV_PRIME;
}

uint64_t pw_am_fingerprint(const struct pw_alert *alert, const char *instance)
{
	struct label labels[3];
	uint64_t h = FNV_OFFSET;

	labels_of(alert, instance, labels);
	for (int i = 0; i < 3; i++)
		h = fnv_add(fnv_add(h, labels[i].name), labels[i].value);
	return h;
}

/* Any failure (NULL value, allocation) is remembered; the document is dropped whole. */
static json_t *labels_json(const struct pw_alert *a, const char *instance, bool *failed)
{
	struct label labels[3];
	json_t *obj = json_object();

	labels_of(a, instance, labels);
	for (int i = 0; i < 3; i++)
		pw_json_set(failed, obj, labels[i].name, pw_json_text(labels[i].value, SIZE_MAX));
	return obj;
}

/* Empty texts are left out: Alertmanager treats an empty annotation as absent anyway. */
static json_t *annotations_json(const struct pw_alert *a, bool *failed)
{
	json_t *obj = json_object();

	if (a->summary[0])
		pw_json_set(failed, obj, "summary", pw_json_text(a->summary, sizeof(a->summary)));
	if (a->description[0])
		pw_json_set(failed, obj, "description", pw_json_text(a->description, sizeof(a->description)));
	if (a->scope[0])
		pw_json_set(failed, obj, "scope", pw_json_text(a->scope, sizeof(a->scope)));
	return obj;
}

static json_t *generator_url(const struct pw_am_source *src)
{
	char url[1024];

	snprintf(url, sizeof(url), "%s/alerts", src->external_url ? src->external_url : "");
	return pw_json_text(url, sizeof(url));
}

/* The fields both formats share: labels, annotations, startsAt, endsAt, generatorURL. startsAt is
 * when the condition began (Prometheus' activeAt), not when the pending time ran out. */
static json_t *alert_json(const struct pw_am_alert *in, const struct pw_am_source *src, bool *failed)
{
	const struct pw_alert *a = in->alert;
	json_t *obj = json_object();

	if (!obj)
		return *failed = true, NULL;
	pw_json_set(failed, obj, "labels", labels_json(a, src->instance, failed));
	pw_json_set(failed, obj, "annotations", annotations_json(a, failed));
	pw_json_set(failed, obj, "startsAt", pw_json_rfc3339(a->started_real_ns));
	pw_json_set(failed, obj, "endsAt",
	            in->ends_real_ns ? pw_json_rfc3339(in->ends_real_ns) : json_string(ZERO_TIME));
	pw_json_set(failed, obj, "generatorURL", generator_url(src));
	return obj;
}

static char *dump(json_t *root, bool failed)
{
	char *text = failed || !root ? NULL : json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(root);
	return text;
}

char *pw_am_webhook_render(const struct pw_am_alert *in, const struct pw_am_source *src)
{
	const char *name = pw_alert_name_str(in->alert->name);
	const char *status = in->resolved ? "resolved" : "firing";
	char group_key[128], fingerprint[17];
	bool failed = false;
	json_t *doc = json_object(), *alerts = json_array(), *group = json_object();
	json_t *alert = alert_json(in, src, &failed);

	snprintf(group_key, sizeof(group_key), "{}:{alertname=\"%s\"}", name);
	snprintf(fingerprint, sizeof(fingerprint), "%016llx",
	         (unsigned long long)pw_am_fingerprint(in->alert, src->instance));
	if (!doc || !alerts || !group || !alert) {
		json_decref(alerts);
		json_decref(group);
		json_decref(alert);
		return dump(doc, true);
	}
	pw_json_set(&failed, alert, "status", json_string(status));
	pw_json_set(&failed, alert, "fingerprint", json_string(fingerprint));
	if (json_array_append_new(alerts, alert) < 0)
		failed = true;
	pw_json_set(&failed, group, "alertname", json_string(name));
	/* One alert per message, so the common labels and annotations are that alert's. */
	pw_json_set(&failed, doc, "version", json_string("4"));
	pw_json_set(&failed, doc, "groupKey", json_string(group_key));
	pw_json_set(&failed, doc, "truncatedAlerts", json_integer(0));
	pw_json_set(&failed, doc, "status", json_string(status));
	/* Names from the config file: any bytes, and one that is not UTF-8 must not drop the message. */
	pw_json_set(&failed, doc, "receiver",
	            src->receiver && src->receiver[0] ? pw_json_text(src->receiver, SIZE_MAX)
	                                              : json_string(""));
	pw_json_set(&failed, doc, "groupLabels", group);
	pw_json_set(&failed, doc, "commonLabels", labels_json(in->alert, src->instance, &failed));
	pw_json_set(&failed, doc, "commonAnnotations", annotations_json(in->alert, &failed));
	pw_json_set(&failed, doc, "externalURL",
	            src->external_url && src->external_url[0] ? pw_json_text(src->external_url, SIZE_MAX)
	                                                      : json_string(""));
	pw_json_set(&failed, doc, "alerts", alerts);
	return dump(doc, failed);
}

char *pw_am_api_render(const struct pw_am_alert *in, const struct pw_am_source *src)
{
	bool failed = false;
	json_t *list = json_array(), *alert = alert_json(in, src, &failed);

	if (!list || !alert || json_array_append_new(list, alert) < 0) {
		json_decref(list);
		return NULL;
	}
	return dump(list, failed);
}
