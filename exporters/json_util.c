/* json_util.c — rounding and formatting shared by the JSON exporters. */
#include "json_util.h"

#include "text_escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

json_t *pw_json_real(double value, int decimals)
{
	double scale = decimals <= 0 ? 1 : decimals == 1 ? 10 : decimals == 2 ? 100 : 1000;

	return isfinite(value) ? json_real(round(value * scale) / scale) : json_null();
}

json_t *pw_json_percent(double fraction)
{
	return pw_json_real(fraction * 100.0, 1);
}

json_t *pw_json_rate(double per_second)
{
	return pw_json_real(per_second, fabs(per_second) >= 100 ? 0 : 1);
}

json_t *pw_json_mhz(uint32_t khz)
{
	return khz ? json_integer((khz + 500) / 1000) : json_null();
}

json_t *pw_json_text(const char *str, size_t max)
{
	size_t n = strnlen(str, max), want;
	json_t *text;
	char *copy;

	if (n == 0)
		return json_null();
	/* jansson refuses invalid UTF-8 (and would pass control characters on, JSON-escaped, to
	 * whoever prints the string): escape both, as lib does for process names. */
	want = pw_text_escape(str, n, NULL, 0);
	if (want == n)
		return json_stringn(str, n);
	copy = malloc(want + 1);
	if (!copy)
		return NULL;
	pw_text_escape(str, n, copy, want + 1);
	text = json_stringn(copy, want);
	free(copy);
	return text;
}

json_t *pw_json_rfc3339(int64_t real_ns)
{
	int64_t rem = real_ns % 1000000000;
	time_t secs = (time_t)(real_ns / 1000000000);
	struct tm tm;
	char buf[40];

	if (rem < 0) { /* round towards the past, so the milliseconds are never negative */
		secs--;
		rem += 1000000000;
	}
	if (!gmtime_r(&secs, &tm) || strftime(buf, 24, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		return json_null();
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ".%03dZ", (int)(rem / 1000000));
	return json_string(buf);
}

static int append_chunk(const char *buffer, size_t size, void *data)
{
	struct pw_outbuf *out = data;

	pw_outbuf_append(out, buffer, size);
	return out->failed ? -1 : 0;
}

int pw_json_dump_into(const json_t *root, struct pw_outbuf *out)
{
	if (json_dump_callback(root, append_chunk, out,
	                       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) < 0)
		return -1;
	pw_outbuf_putc(out, '\n');
	return out->failed ? -1 : 0;
}

char *pw_json_dump(const json_t *root)
{
	char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	size_t len;
	char *grown;

	if (!text)
		return NULL;
	len = strlen(text);
	grown = realloc(text, len + 2);
	if (!grown) {
		free(text);
		return NULL;
	}
	grown[len] = '\n';
	grown[len + 1] = '\0';
	return grown;
}

/* A time that may be unset (0). */

void pw_json_set(bool *failed, json_t *obj, const char *key, json_t *value)
{
	if (!value || json_object_set_new(obj, key, value) < 0)
		*failed = true;
}

void pw_json_push(bool *failed, json_t *array, json_t *value)
{
	if (!value || json_array_append_new(array, value) < 0)
		*failed = true;
}
