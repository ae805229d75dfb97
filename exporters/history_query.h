/* history_query.h — the query of GET /history: which window, which step, which signals, which
 * format; parsed from the request's arguments, every mistake named in one sentence for a 400.
 *
 * Pure: "now" is a parameter. The signal catalog (names, docs/history.md) lives here too, since
 * ?signals= is checked against it. */
#ifndef PW_HISTORY_QUERY_H
#define PW_HISTORY_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every signal /history serves; some have one series per CPU, line, softirq type. */
enum pw_history_signal {
	PW_HS_CPU_USER, /* host shares, 0..1 */
	PW_HS_CPU_SYSTEM,
	PW_HS_CPU_IOWAIT,
	PW_HS_CPU_IRQ, /* irq + softirq */
	PW_HS_CPU_HARDIRQ,
	PW_HS_CPU_SOFTIRQ,
	PW_HS_CPU_STEAL,
	PW_HS_CPU_IDLE,
	PW_HS_BUSY_CPUS,
	PW_HS_RUN_QUEUE,
	PW_HS_INTR,
	PW_HS_LINE, /* per busiest line */
	PW_HS_SOFTIRQS,
	PW_HS_SOFTIRQ_TYPE, /* per softirq type */
	PW_HS_CTXT,
	PW_HS_SWAP_IN,
	PW_HS_SWAP_OUT,
	PW_HS_MAJOR_FAULTS,
	PW_HS_MEM_AVAILABLE,
	PW_HS_PAGE_CACHE,
	PW_HS_PSI_CPU,
	PW_HS_PSI_MEMORY,
	PW_HS_PSI_IO,
	PW_HS_PSI_IRQ,
	PW_HS_PERCPU_BUSY, /* per CPU */
	PW_HS_PERCPU_USER,
	PW_HS_PERCPU_SYSTEM,
	PW_HS_PERCPU_IRQ,
	PW_HS_PERCPU_IOWAIT,
	PW_HS_PERCPU_FREQ,
	PW_HS_PERCPU_FREQ_RATIO,
	PW_HS_COUNT
};

/* "cpu_user_ratio", ...; NULL outside the enum. Parse: the enum or -1. */
const char *pw_history_signal_name(enum pw_history_signal signal);
int pw_history_signal_parse(const char *name, size_t len);

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
