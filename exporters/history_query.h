/* history_query.h — the query of GET /history: which window, which step, which signals, which
 * format; parsed from the request's arguments, every mistake named in one sentence for a 400.
 *
 * Pure: "now" is a parameter. ?signals= is checked against lib's signal table (history_signals.h). */
#ifndef PW_HISTORY_QUERY_H
#define PW_HISTORY_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "history_signals.h"

enum pw_history_format { PW_HISTORY_JSON, PW_HISTORY_CSV };

struct pw_history_arg {
	const char *key, *value; /* value may be NULL ("?since") */
};

struct pw_history_query {
	int64_t since_ns, until_ns; /* CLOCK_REALTIME: points with since < time <= until */
	int64_t step_ns;            /* 0: every point as sampled; else mean/min/max per step */
	bool step_given;            /* the client chose the step (else the server may coarsen it) */
	enum pw_history_format format;
	uint64_t signals; /* bit (1 << pw_history_signal) */
};

/* Parse a duration: "90s", "15m", "1h30m", "500ms", "2d". Returns 0 or -EINVAL. */
int pw_history_parse_duration(const char *text, int64_t *ret_ns);

/* Parse a time: "-15m" (before now), "now", RFC 3339 ("2024-05-01T12:00:00.5Z", "...+02:00"), or
 * Unix seconds ("1714564800.25"). Returns 0 or -EINVAL. */
int pw_history_parse_time(const char *text, int64_t now_real_ns, int64_t *ret_ns);

/* The query from the request's arguments (since, until, step, signals, format) and Accept header
 * (NULL: none). Defaults: the last history_ns before now, every point, all signals, JSON unless
 * ?format=csv or Accept names text/csv before any JSON. Returns 0, or -EINVAL with a sentence in
 * err saying what is wrong (unknown or repeated parameter, bad value); ret is then unspecified. */
int pw_history_query_parse(const struct pw_history_arg *args, size_t nargs, const char *accept,
                           int64_t now_real_ns, int64_t history_ns, struct pw_history_query *ret, char *err,
                           size_t err_size);

#endif
