/* history_signals.h — the one table of history signals: each signal's name, unit, family, scope,
 * the precision it is kept and served at, and how to read it from (and write it into) a history
 * point. GET /history, its CSV, /ui and the store on disk all take their signals from here, so adding
 * a signal to history is one row in history_signals.c (and its field in struct pw_history_point).
 *
 * Values cross this interface in base units: shares as 0..1, rates per second, bytes, hertz, PSI in
 * percent; NAN when unknown. */
#ifndef PW_HISTORY_SIGNALS_H
#define PW_HISTORY_SIGNALS_H

#include "history.h"
#include "round_half.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Every signal history keeps; some have one series per CPU, line, softirq type. The order is the
 * order of /history's answer; the store names signals, so it may change. */
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

/* What one series of a signal is of. */
enum pw_history_scope {
	PW_SCOPE_HOST,    /* one series */
	PW_SCOPE_CPU,     /* one per CPU id (label cpu) */
	PW_SCOPE_SOFTIRQ, /* one per softirq type (label type) */
	PW_SCOPE_LINE,    /* one per interrupt line a point kept (label irq) */
};

struct pw_history_signal_def {
	const char *name;   /* "interrupts_per_second" */
	const char *family; /* the /ui chart it belongs to: "cpu", "interrupts", ... */
	const char *unit;   /* "ratio", "per_second", "bytes", "hertz", "percent", "count", ... */
	enum pw_history_scope scope;
	/* The step values are kept in: the point's own resolution (1/10000 for shares, kB, MHz), or for
	 * float rates the 0.01 that /history prints. Stored values are round(value / quantum). */
	double quantum;
	int decimals; /* printed with this many decimals at most */
	int baseline; /* the detector's enum pw_signal with a host baseline, or -1 */
};

/* The row of signal; NULL outside the enum. */
const struct pw_history_signal_def *pw_history_signal_def(enum pw_history_signal signal);

/* "cpu_user_ratio", ...; NULL outside the enum. Parse: the enum or -1. */
const char *pw_history_signal_name(enum pw_history_signal signal);
int pw_history_signal_parse(const char *name, size_t len);

/* One series: a signal and which CPU, softirq type or line. */
struct pw_history_series {
	enum pw_history_signal signal;
	uint32_t inst;             /* CPU id or softirq type; 0 for host and line signals */
	char irq[PW_IRQ_NAME_MAX]; /* PW_SCOPE_LINE: the line's name, NUL-padded */
};

/* The integer the store keeps value as (value / quantum rounded half away from zero, as /history
 * prints it: round_half.h); false when value is unknown or beyond what the store keeps. */
static inline bool pw_history_quantize(double value, double quantum, int64_t *ret)
{
	double x = value / quantum;
	if (!(fabs(x) <= 0x1p52)) /* NAN too */
		return false;
	*ret = pw_round_half_away(x);
	return true;
}

/* The value of series at point p, in base units; NAN when unknown or not in p. */
double pw_history_series_get(const struct pw_history_series *series, const struct pw_history_point *p);

/* The same, with where the figure lies in a point found once per series rather than once per
 * point: /history reads every series at every point of a window (half a million values an hour at
 * 16 CPUs). pw_history_read() returns exactly what pw_history_series_get() does. */
enum pw_history_read_kind {
	PW_READ_ANY,      /* pw_history_series_get() */
	PW_READ_U16,      /* uint16 at offset, / div; PW_HISTORY_UNKNOWN is NAN */
	PW_READ_U16_PAIR, /* the sum of the uint16s at offset and offset2, / div */
	PW_READ_F32,      /* float at offset */
	PW_READ_CPU_U16,  /* uint16 at offset in cpus[cpu], / div; NAN past ncpu */
};

struct pw_history_reader {
	const struct pw_history_series *series;
	enum pw_history_read_kind kind;
	uint32_t offset, offset2, cpu;
	double div;
};

/* The reader of series, which must outlive it. */
void pw_history_reader_init(struct pw_history_reader *r, const struct pw_history_series *series);

static inline double pw_history_read(const struct pw_history_reader *r, const struct pw_history_point *p)
{
	const char *base = (const char *)p;
	uint16_t a, b;
	float f;

	switch (r->kind) {
	case PW_READ_U16:
		memcpy(&a, base + r->offset, sizeof(a));
		return a == PW_HISTORY_UNKNOWN ? NAN : a / r->div;
	case PW_READ_U16_PAIR:
		memcpy(&a, base + r->offset, sizeof(a));
		memcpy(&b, base + r->offset2, sizeof(b));
		return a == PW_HISTORY_UNKNOWN || b == PW_HISTORY_UNKNOWN ? NAN : (a + b) / r->div;
	case PW_READ_F32:
		memcpy(&f, base + r->offset, sizeof(f));
		return f;
	case PW_READ_CPU_U16:
		if (r->cpu >= p->ncpu)
			return NAN;
		memcpy(&a, (const char *)&p->cpus[r->cpu] + r->offset, sizeof(a));
		return a == PW_HISTORY_UNKNOWN ? NAN : a / r->div;
	default:
		return pw_history_series_get(r->series, p);
	}
}

/* Write value (base units; NAN: unknown) into p, which has room for cpu_cap CPUs. A CPU at or past
 * cpu_cap, or a line when p's line slots are full, is dropped; p->ncpu grows to cover a CPU set.
 * Returns 0, or -ENOBUFS when dropped. */
int pw_history_series_set(const struct pw_history_series *series, struct pw_history_point *p,
                          uint32_t cpu_cap, double value);

/* A point with nothing known, for cpu_cap CPUs (ncpu 0, no lines), at real_ns. */
void pw_history_point_unknown(struct pw_history_point *p, uint32_t cpu_cap, int64_t real_ns);

/* The series label value: "3" (cpu), "NET_RX" (type), the line's name; "" for host signals. */
void pw_history_series_label(const struct pw_history_series *series, char *buf, size_t size);

/* The series of signal with label value label (as pw_history_series_label writes it). Returns 0, or
 * -EINVAL when the label does not fit the signal's scope. */
int pw_history_series_from_label(enum pw_history_signal signal, const char *label, size_t len,
                                 struct pw_history_series *ret);

#endif
