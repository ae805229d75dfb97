/* history_query.c — GET /history's arguments into a query. */
#define _GNU_SOURCE /* timegm */
#include "history_query.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define NS INT64_C(1000000000)
#define MAX_STEP_NS (24 * 3600 * NS)

int pw_history_parse_duration(const char *text, int64_t *ret_ns)
{
	static const struct {
		const char *unit;
		int64_t ns;
	} units[] = {{"ms", NS / 1000}, {"s", NS}, {"m", 60 * NS}, {"h", 3600 * NS}, {"d", 86400 * NS}};
	const char *p = text;
	int64_t total = 0;

	if (!p || !*p)
		return -EINVAL;
	while (*p) {
		int64_t n = 0;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (n > 1000000000)
				return -EINVAL;
			n = n * 10 + (*p - '0');
		}
		size_t u = 0, nunits = sizeof(units) / sizeof(units[0]);
		for (; u < nunits; u++) {
			size_t len = strlen(units[u].unit);
			/* "m" must not take the "m" of "ms" */
			if (strncmp(p, units[u].unit, len) == 0 && !(len == 1 && p[0] == 'm' && p[1] == 's'))
				break;
		}
		if (u == nunits || n > INT64_MAX / units[u].ns || total > INT64_MAX - n * units[u].ns)
			return -EINVAL;
		total += n * units[u].ns;
		p += strlen(units[u].unit);
	}
	*ret_ns = total;
	return 0;
}

/* Digits of an exact width, e.g. the "2024" of a date. */
static bool digits(const char **p, int width, int *ret)
{
	int v = 0;
	for (int i = 0; i < width; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return false;
		v = v * 10 + (**p - '0');
	}
	*ret = v;
	return true;
}

/* The largest |seconds| whose nanoseconds, plus a fraction of a second, fit an int64_t. */
#define TIME_MAX_S ((INT64_MAX - NS) / NS)

static int parse_rfc3339(const char *p, int64_t *ret_ns)
{
	struct tm tm = {0};
	int year, mon, day, hour, min, sec, frac_ns = 0;

	if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &mon) || *p++ != '-' ||
	    !digits(&p, 2, &day) || (*p != 'T' && *p != 't' && *p != ' ') || !*p++ || !digits(&p, 2, &hour) ||
	    *p++ != ':' || !digits(&p, 2, &min) || *p++ != ':' || !digits(&p, 2, &sec))
		return -EINVAL;
	if (mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 60)
		return -EINVAL;
	if (*p == '.') {
		int scale = 100000000;
		if (!isdigit((unsigned char)*++p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++, scale /= 10)
			frac_ns += (*p - '0') * scale;
	}
	int offset_s = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1, oh, om;
		if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om) || oh > 23 || om > 59)
			return -EINVAL;
		offset_s = sign * (oh * 3600 + om * 60);
	} else {
		return -EINVAL;
	}
	if (*p)
		return -EINVAL;
	tm.tm_year = year - 1900;
	tm.tm_mon = mon - 1;
	tm.tm_mday = day;
	tm.tm_hour = hour;
	tm.tm_min = min;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	if (t == (time_t)-1 || tm.tm_mday != day) /* timegm normalizes Feb 30 to Mar 2 */
		return -EINVAL;
	/* Nanoseconds since 1970 in 64 bits reach only the years 1677 to 2262. */
	int64_t unix_s = (int64_t)t - offset_s;
	if (unix_s > TIME_MAX_S || unix_s < -TIME_MAX_S)
		return -EINVAL;
	*ret_ns = unix_s * NS + frac_ns;
	return 0;
}

static int parse_unix(const char *p, int64_t *ret_ns)
{
	int64_t sec = 0, frac_ns = 0, scale = 100000000;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		sec = sec * 10 + (*p - '0');
		if (sec > TIME_MAX_S)
			return -EINVAL;
	}
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, scale /= 10)
			frac_ns += (*p - '0') * scale;
	if (*p)
		return -EINVAL;
	*ret_ns = sec * NS + frac_ns;
	return 0;
}

int pw_history_parse_time(const char *text, int64_t now_real_ns, int64_t *ret_ns)
{
	int64_t ago;

	if (!text || !*text)
		return -EINVAL;
	if (strcmp(text, "now") == 0)
		return *ret_ns = now_real_ns, 0;
	if (text[0] == '-') {
		if (pw_history_parse_duration(text + 1, &ago) < 0)
			return -EINVAL;
		return *ret_ns = now_real_ns - ago, 0;
	}
	if (strlen(text) >= 20 && text[4] == '-')
		return parse_rfc3339(text, ret_ns);
	return parse_unix(text, ret_ns);
}

static int parse_signals(const char *list, uint64_t *ret, char *err, size_t err_size)
{
	uint64_t set = 0;
	const char *p = list;

	if (!list || !*list)
		return snprintf(err, err_size, "signals: empty list (leave it out for all signals)"), -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		int s = pw_history_signal_parse(p, len);
		if (len == 0)
			return snprintf(err, err_size, "signals: empty name in the list"), -EINVAL;
		if (s < 0)
			return snprintf(err, err_size,
			                "signals: unknown signal '%.*s' (the names are in docs/history.md)",
			                (int)(len > 64 ? 64 : len), p),
			       -EINVAL;
		set |= UINT64_C(1) << s;
		if (!p[len])
			break;
		p += len + 1;
	}
	*ret = set;
	return 0;
}

/* Accept: CSV when text/csv comes before any JSON type (q-values are not weighed: browsers and
 * tools name one of the two). */
static enum pw_history_format negotiate(const char *accept)
{
	if (!accept)
		return PW_HISTORY_JSON;
	const char *csv = strcasestr(accept, "text/csv"), *json = strcasestr(accept, "json");
	return csv && (!json || csv < json) ? PW_HISTORY_CSV : PW_HISTORY_JSON;
}

enum { ARG_SINCE, ARG_UNTIL, ARG_STEP, ARG_SIGNALS, ARG_FORMAT, ARG_COUNT };
static const char *const arg_names[ARG_COUNT] = {"since", "until", "step", "signals", "format"};

static int parse_values(const char *const v[ARG_COUNT], int64_t now, struct pw_history_query *q, char *err,
                        size_t err_size)
{
	if (v[ARG_SINCE] && pw_history_parse_time(v[ARG_SINCE], now, &q->since_ns) < 0)
		return snprintf(err, err_size,
		                "since: '%.64s' is not a time (use -15m, an RFC 3339 time such as "
		                "2024-05-01T12:00:00Z, or Unix seconds)",
		                v[ARG_SINCE]),
		       -EINVAL;
	if (v[ARG_UNTIL] && pw_history_parse_time(v[ARG_UNTIL], now, &q->until_ns) < 0)
		return snprintf(err, err_size,
		                "until: '%.64s' is not a time (use -5m, now, an RFC 3339 time or Unix "
		                "seconds)",
		                v[ARG_UNTIL]),
		       -EINVAL;
	if (q->until_ns <= q->since_ns)
		return snprintf(err, err_size, "until must be later than since"), -EINVAL;
	if (v[ARG_STEP]) {
		if (pw_history_parse_duration(v[ARG_STEP], &q->step_ns) < 0)
			return snprintf(err, err_size, "step: '%.64s' is not a duration (use 1s, 10s, 1m)",
			                v[ARG_STEP]),
			       -EINVAL;
		if (q->step_ns < NS / 1000 || q->step_ns > MAX_STEP_NS)
			return snprintf(err, err_size, "step: must be between 1ms and 24h"), -EINVAL;
		q->step_given = true;
	}
	if (v[ARG_SIGNALS] && parse_signals(v[ARG_SIGNALS], &q->signals, err, err_size) < 0)
		return -EINVAL;
	if (v[ARG_FORMAT]) {
		if (strcmp(v[ARG_FORMAT], "json") == 0)
			q->format = PW_HISTORY_JSON;
		else if (strcmp(v[ARG_FORMAT], "csv") == 0)
			q->format = PW_HISTORY_CSV;
		else
			return snprintf(err, err_size, "format: '%.32s' is neither json nor csv",
			                v[ARG_FORMAT]),
			       -EINVAL;
	}
	return 0;
}

int pw_history_query_parse(const struct pw_history_arg *args, size_t nargs, const char *accept,
                           int64_t now_real_ns, int64_t history_ns, struct pw_history_query *ret, char *err,
                           size_t err_size)
{
	const char *v[ARG_COUNT] = {NULL};

	for (size_t i = 0; i < nargs; i++) {
		int a = 0;
		while (a < ARG_COUNT && strcmp(args[i].key, arg_names[a]) != 0)
			a++;
		if (a == ARG_COUNT)
			return snprintf(err, err_size,
			                "unknown parameter '%.64s' (known: since, until, step, signals, "
			                "format)",
			                args[i].key),
			       -EINVAL;
		if (v[a])
			return snprintf(err, err_size, "%s: given more than once", arg_names[a]), -EINVAL;
		if (!args[i].value || !*args[i].value)
			return snprintf(err, err_size, "%s: empty value", arg_names[a]), -EINVAL;
		v[a] = args[i].value;
	}
	*ret = (struct pw_history_query){
	        .since_ns = now_real_ns - history_ns,
	        .until_ns = now_real_ns,
	        .format = negotiate(accept),
	        .signals = (UINT64_C(1) << PW_HS_COUNT) - 1,
	};
	return parse_values(v, now_real_ns, ret, err, err_size);
}
