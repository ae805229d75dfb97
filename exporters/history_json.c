/* history_json.c — GET /history's document: a window of history points as JSON columns or CSV
 * rows. Figures leave lib's units for base units: shares as 0..1, rates per second, bytes, hertz,
 * PSI in percent. Numbers are printed with fixed decimals through integer arithmetic: an hour of a
 * 16-CPU host is half a million values, and snprintf("%g") would dominate the render. */
#include "history_json.h"

#include "fixed_text.h"
#include "history_lines.h"
#include "prefault.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LINE_SERIES PW_HISTORY_LINES_SHOWN
#define NS INT64_C(1000000000)

/* One column: a signal, and which CPU, line or softirq type. */
struct series {
	struct pw_history_series id;
	struct pw_history_reader reader; /* of id */
	int line;                        /* a line series: its index in render's lines; else -1 */
	char key[80];                    /* "percpu_busy_ratio.cpu3": the CSV column, the page's handle */
	/* A window in columns: this series' (NULL: unknown throughout), and its figures as q * mul / div
	 * (mul and div whole), printed as q * mul with `scaled` decimals when exact. */
	const int32_t *q;
	int64_t mul, div;
	int scaled;
	bool exact;
};

/* One entry of every column: the points [first, end) of the window (one point, or a step's), or a
 * gap (first == end): null values where the daemon was not running, so a chart breaks its line
 * instead of joining two runs. */
struct row {
	uint32_t first, end;
	int64_t time_ns;
};

struct render {
	struct pw_outbuf *out;
	const struct pw_history_query *q;
	const struct pw_history_window *w;
	struct series *series;
	uint32_t nseries;
	struct row *rows; /* what each column holds, in order: points or steps, and gaps */
	uint32_t nrows;
	bool agg;                                     /* rows are steps: mean, min, max */
	char lines[MAX_LINE_SERIES][PW_IRQ_NAME_MAX]; /* the line series' lines */
	struct pw_history_line_slots slots[3];        /* their slots in points, mins, maxs */
	const struct pw_history_sink *sink;           /* NULL: the whole answer stays in out */
	size_t flushed;                               /* bytes handed to the sink so far */
};

static const struct pw_history_point *point_in(const struct pw_history_window *w, const void *points,
                                               uint32_t i)
{
	return (const struct pw_history_point *)(const void *)((const char *)points +
	                                                       (size_t)i * w->point_size);
}

static const struct pw_history_point *point(const struct pw_history_window *w, uint32_t i)
{
	return (const struct pw_history_point *)(const void *)((const char *)w->points +
	                                                       (size_t)i * w->point_size);
}

static int64_t time_of(const struct pw_history_window *w, uint32_t i)
{
	return w->columns ? w->columns->time_ns[i] : point(w, i)->real_ns;
}

static uint32_t flags_of(const struct pw_history_window *w, uint32_t i)
{
	return w->columns ? w->columns->flags[i] : point(w, i)->flags;
}

enum { POINTS, MINS, MAXS }; /* which of the window's arrays a point is from */

/* The figure of one series at point i (of the array `from`), in base units; NAN when unknown.
 * Inlined: a call per figure was a tenth of a CSV hour. */
static inline __attribute__((always_inline)) double value(struct render *r, const struct series *se,
                                                          uint32_t i, int from)
{
	const struct pw_history_window *w = r->w;
	if (w->columns) {
		int32_t q = se->q ? se->q[i] : PW_COLUMN_UNKNOWN;
		return q == PW_COLUMN_UNKNOWN ? NAN : (double)q * (double)se->mul / (double)se->div;
	}
	const struct pw_history_point *p = point_in(w,
	                                            from == POINTS ? w->points
	                                            : from == MINS ? w->mins
	                                                           : w->maxs,
	                                            i);
	if (se->line >= 0)
		return pw_history_line_rate(&r->slots[from], (uint32_t)se->line, p);
	return pw_history_read(&se->reader, p);
}

static int decimals(const struct series *se)
{
	return pw_history_signal_def(se->id.signal)->decimals;
}

static void put_fixed(struct pw_outbuf *out, double v, int decimals)
{
	if (pw_outbuf_reserve(out, PW_FIXED_MAX) == 0)
		out->len +=
		        (size_t)(pw_write_fixed(out->data + out->len, v, decimals) - (out->data + out->len));
}

static void put_json_string(struct pw_outbuf *out, const char *s)
{
	pw_outbuf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			pw_outbuf_putc(out, '\\'), pw_outbuf_putc(out, (char)c);
		else if (c < 0x20)
			pw_outbuf_printf(out, "\\u%04x", c);
		else
			pw_outbuf_putc(out, (char)c);
	}
	pw_outbuf_putc(out, '"');
}

/* ---- which series ---- */

static bool selected(const struct render *r, enum pw_history_signal s)
{
	return r->q->signals >> s & 1u;
}

static void key_of(struct series *se, const char *suffix)
{
	const char *name = pw_history_signal_name(se->id.signal);
	if (!suffix)
		snprintf(se->key, sizeof(se->key), "%s", name);
	else
		snprintf(se->key, sizeof(se->key), "%s.%s", name, suffix);
	/* Keys go into CSV headers unquoted: nothing but [A-Za-z0-9_.-]. */
	for (char *c = se->key; *c; c++)
		if (!(*c == '_' || *c == '.' || *c == '-' || (*c >= '0' && *c <= '9') ||
		      ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z')))
			*c = '_';
}

static bool same_lines(const struct pw_history_point *a, const struct pw_history_point *b)
{
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		if (memcmp(a->lines[k].irq, b->lines[k].irq, PW_IRQ_NAME_MAX) != 0)
			return false;
	return true;
}

/* The busiest lines of the window: every name any point kept, newest points first. */
static uint32_t window_lines(const struct pw_history_window *w, char names[][PW_IRQ_NAME_MAX])
{
	uint32_t n = 0;
	for (uint32_t i = w->npoints; i-- > 0 && n < MAX_LINE_SERIES;) {
		const struct pw_history_point *p = point(w, i);
		if (i + 1 < w->npoints && same_lines(p, point(w, i + 1)))
			continue; /* nearly always: the names were looked up a point ago */
		for (int k = 0; k < PW_HISTORY_LINES && n < MAX_LINE_SERIES; k++) {
			uint32_t j = 0;
			if (!p->lines[k].irq[0])
				continue;
			while (j < n && strncmp(names[j], p->lines[k].irq, PW_IRQ_NAME_MAX) != 0)
				j++;
			if (j == n)
				memcpy(names[n++], p->lines[k].irq, PW_IRQ_NAME_MAX);
		}
	}
	return n;
}

/* The same of a window in columns: into names, and their columns into cols. */
static uint32_t column_lines(const struct pw_history_columns *c, char names[][PW_IRQ_NAME_MAX],
                             uint32_t *cols)
{
	uint32_t n = pw_history_columns_lines(c, cols, MAX_LINE_SERIES);
	for (uint32_t i = 0; i < n; i++)
		memcpy(names[i], c->cols[cols[i]].id.irq, PW_IRQ_NAME_MAX);
	return n;
}

static uint32_t window_ncpu(const struct pw_history_window *w)
{
	uint32_t ncpu = 0;
	if (w->columns)
		return w->columns->ncpu;
	for (uint32_t i = 0; i < w->npoints; i++)
		if (point(w, i)->ncpu > ncpu)
			ncpu = point(w, i)->ncpu;
	return ncpu;
}

/* How a series of a window in columns prints: q * mul / div, and exactly from q when its quantum is
 * a whole number or a power of ten no finer than the decimals it is printed with. */
static void column_of(struct render *r, struct series *se, const uint32_t *line_cols)
{
	const struct pw_history_columns *c = r->w->columns;
	const struct pw_history_signal_def *d = pw_history_signal_def(se->id.signal);
	int col = se->line >= 0 ? (int)line_cols[se->line] : pw_history_columns_find(c, &se->id);
	static const int64_t pow10[] = {1, 10, 100, 1000, 10000};

	se->q = col >= 0 ? pw_history_column_values(c, (uint32_t)col) : NULL;
	se->mul = 1;
	se->div = 1;
	/* q * mul below 9 * 10^15 (pw_write_scaled's bound) for every 32-bit q. */
	if (d->quantum >= 1 && d->quantum == floor(d->quantum) && d->quantum < 4e6) {
		se->mul = (int64_t)d->quantum;
		se->exact = true;
		return;
	}
	for (int e = 1; e <= d->decimals && e <= 4; e++) {
		if (fabs(d->quantum * (double)pow10[e] - 1) < 1e-9) {
			se->div = pow10[e];
			se->scaled = e;
			se->exact = true;
		}
	}
}

static int plan_series(struct render *r)
{
	uint32_t line_cols[MAX_LINE_SERIES];
	uint32_t nlines = r->w->columns ? column_lines(r->w->columns, r->lines, line_cols)
	                                : window_lines(r->w, r->lines);
	uint32_t ncpu = window_ncpu(r->w);
	size_t cap = PW_HS_COUNT + MAX_LINE_SERIES + PW_SOFTIRQ_COUNT + (size_t)ncpu * PW_HS_COUNT;
	char suffix[48];

	if (!(r->series = calloc(cap, sizeof(*r->series))))
		return -ENOMEM;
	for (int s = 0; s < PW_HS_COUNT; s++) {
		if (!selected(r, s))
			continue;
		uint32_t count = s == PW_HS_LINE           ? nlines
		                 : s == PW_HS_SOFTIRQ_TYPE ? PW_SOFTIRQ_COUNT
		                 : s >= PW_HS_PERCPU_BUSY  ? ncpu
		                                           : 1;
		for (uint32_t i = 0; i < count; i++) {
			struct series *se = &r->series[r->nseries++];
			se->id.signal = s;
			se->id.inst = i;
			se->line = s == PW_HS_LINE ? (int)i : -1;
			if (s == PW_HS_LINE) {
				memcpy(se->id.irq, r->lines[i], PW_IRQ_NAME_MAX);
				snprintf(suffix, sizeof(suffix), "irq%.*s", PW_IRQ_NAME_MAX, r->lines[i]);
			} else if (s == PW_HS_SOFTIRQ_TYPE) {
				snprintf(suffix, sizeof(suffix), "%s", pw_softirq_name(i));
			} else if (s >= PW_HS_PERCPU_BUSY) {
				snprintf(suffix, sizeof(suffix), "cpu%u", i);
			}
			key_of(se, count == 1 && s != PW_HS_LINE && s < PW_HS_PERCPU_BUSY ? NULL : suffix);
			pw_history_reader_init(&se->reader, &se->id);
			if (r->w->columns)
				column_of(r, se, line_cols);
		}
	}
	for (int k = 0; k < 3; k++)
		pw_history_line_slots_init(&r->slots[k], (const char(*)[PW_IRQ_NAME_MAX])r->lines, nlines);
	return 0;
}

/* ---- steps ---- */

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

static bool aggregated(const struct render *r)
{
	return r->q->step_ns > r->w->interval_ns;
}

static bool add_row(struct render *r, uint32_t cap, uint32_t first, uint32_t end, int64_t time_ns)
{
	if (r->nrows == cap)
		return false;
	r->rows[r->nrows++] = (struct row){first, end, time_ns};
	return true;
}

/* A point that does not continue the one before: a new run of the daemon, or missed samples. */
static bool gap_before(const struct render *r, uint32_t i)
{
	if (i == 0)
		return false;
	return (flags_of(r->w, i) & PW_HISTORY_RUN_START) ||
	       time_of(r->w, i) - time_of(r->w, i - 1) > r->w->interval_ns * 5 / 2;
}

static int plan_rows(struct render *r)
{
	uint32_t n = r->w->npoints, cap = n * 2 + 1;
	int64_t step = r->q->step_ns, prev = 0;

	free(r->rows);
	r->nrows = 0;
	r->agg = aggregated(r);
	if (!(r->rows = malloc((size_t)cap * sizeof(*r->rows))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		int64_t t = time_of(r->w, i);
		if (!r->agg) {
			/* Between two runs: an interval after the point before, or halfway to this one when
			 * the daemon came back sooner, so time_ms never goes back. Unsigned: the points may
			 * lie centuries apart. */
			if (gap_before(r, i)) {
				int64_t before = time_of(r->w, i - 1);
				uint64_t half = ((uint64_t)t - (uint64_t)before) / 2;
				add_row(r, cap, i, i,
				        before + (half < (uint64_t)r->w->interval_ns ? (int64_t)half
				                                                     : r->w->interval_ns));
			}
			add_row(r, cap, i, i + 1, t);
			continue;
		}
		int64_t b = floor_div(t, step);
		if (i > 0 && b == prev) {
			r->rows[r->nrows - 1].end = i + 1;
			continue;
		}
		/* Steps with no point between two that have some: one null step marks the hole. */
		if (i > 0 && b > prev + 1)
			add_row(r, cap, i, i, (prev + 1) * step);
		add_row(r, cap, i, i + 1, b * step);
		prev = b;
	}
	return 0;
}

static size_t cells(const struct render *r)
{
	return (size_t)r->nseries * r->nrows * (r->agg ? 3 : 1);
}

/* Keep the answer under PW_HISTORY_MAX_VALUES: refuse a client's step, coarsen our default. */
static int fit(struct render *r, struct pw_history_query *q, char *err, size_t err_size)
{
	int e = plan_rows(r);
	if (e < 0 || cells(r) <= PW_HISTORY_MAX_VALUES)
		return e;
	if (q->step_given)
		return snprintf(err, err_size,
		                "the answer would hold %zu values, over the limit of %u: ask for fewer "
		                "signals "
		                "(?signals=) or a coarser ?step=",
		                cells(r), PW_HISTORY_MAX_VALUES),
		       -E2BIG;
	/* The window may span nearly all of int64 (since=-106751d&until=9223372035): unsigned. */
	uint64_t span = (uint64_t)q->until_ns - (uint64_t)q->since_ns;
	int64_t step = q->step_ns > NS ? q->step_ns : NS;
	while (cells(r) > PW_HISTORY_MAX_VALUES && (uint64_t)step < span && step <= INT64_MAX / 2) {
		step *= 2;
		q->step_ns = step;
		if ((e = plan_rows(r)) < 0)
			return e;
	}
	return 0;
}

/* ---- JSON ---- */

static int64_t ms(int64_t ns)
{
	return floor_div(ns, 1000000);
}

/* ---- the figures ---- */

/* Figures taken out of the points at a time (512 KiB): a block of series for JSON, whose columns
 * are series, a block of rows for CSV. One walk over the points per block, not per series: a
 * series reads one cache line of a point, and an hour of them is megabytes. */
#define BLOCK_VALUES 65536
#define PREFAULT_TEXT_MIN (64u << 10)
#define PREFAULT_TEXT_ROUND (256u << 10)

static uint32_t nstats(const struct render *r)
{
	return r->agg ? 3 : 1; /* mean, min, max */
}

/* mean, min and max of a series over one row's points; NAN when none had the figure. */
static void stats(struct render *r, const struct series *se, const struct row *row, double ret[3])
{
	const struct pw_history_window *w = r->w;
	double sum = 0, lo = INFINITY, hi = -INFINITY, n = 0;
	for (uint32_t i = row->first; i < row->end; i++) {
		double v = value(r, se, i, POINTS), weight = w->counts ? w->counts[i] : 1;
		if (!isfinite(v))
			continue;
		double vlo = w->mins ? value(r, se, i, MINS) : v;
		double vhi = w->maxs ? value(r, se, i, MAXS) : v;
		vlo = isfinite(vlo) ? vlo : v;
		vhi = isfinite(vhi) ? vhi : v;
		sum += v * weight;
		lo = vlo < lo ? vlo : lo;
		hi = vhi > hi ? vhi : hi;
		n += weight;
	}
	ret[0] = n ? sum / n : NAN;
	ret[1] = n ? lo : NAN;
	ret[2] = n ? hi : NAN;
}

/* The figures of series [s0, s0 + ns) in rows [r0, r0 + nr) into
 * v[((s - s0) * nr + (k - r0)) * nstats + stat]: the point's, or the step's mean, min and max; NAN
 * where unknown and in gap rows. */
static void extract(struct render *r, uint32_t s0, uint32_t ns, uint32_t r0, uint32_t nr, double *v)
{
	uint32_t nst = nstats(r);
	for (uint32_t k = 0; k < nr; k++) {
		const struct row *row = &r->rows[r0 + k];
		for (uint32_t s = 0; s < ns; s++) {
			double *out = &v[((size_t)s * nr + k) * nst];
			if (row->first == row->end)
				out[0] = out[nst - 1] = out[nst / 2] = NAN;
			else if (!r->agg)
				out[0] = value(r, &r->series[s0 + s], row->first, POINTS);
			else
				stats(r, &r->series[s0 + s], row, out);
		}
	}
}

/* How many series or rows (of `across` figures each, of `count` in all) make a block, and, when
 * the figures are to be taken out of points (want), the block's memory (NULL: out of memory),
 * faulted in: 512 KiB is a fresh mapping per answer, and its faults were a quarter of those of an
 * hour's render. */
static double *block_new(const struct render *r, uint32_t across, uint32_t count, uint32_t *ret_per_block,
                         bool want)
{
	size_t unit = (size_t)across * nstats(r), n = unit ? BLOCK_VALUES / unit : count;
	n = n < 1 ? 1 : n > count ? count : n;
	*ret_per_block = (uint32_t)n;
	if (!want)
		return NULL;
	double *block = malloc((n * unit + 1) * sizeof(double));
	if (block)
		pw_prefault(block, (n * unit + 1) * sizeof(double));
	return block;
}

/* Bytes of the answer so far, flushed or not. */
static size_t text_len(const struct render *r)
{
	return r->flushed + r->out->len;
}

/* Room for the text of the next n figures, faulted in with one call: an hour's answer is megabytes
 * of fresh pages, and a fault per page cost a third of its render on a VM. The guess is what the
 * figures so far took (done of them since the answer's byte `since`), a tenth more, or before any
 * two bytes a figure ("0,"), the least one takes: a guess too high would be memory a tight limit has
 * no room for. pw_prefault does nothing below 256 KiB, so a guess of 64 KiB or more is rounded up to
 * it (the blocks of a 16-CPU hour fell just short, and their pages faulted one by one). */
static void prefault_text(struct render *r, size_t n, size_t done, size_t since)
{
	struct pw_outbuf *out = r->out;
	size_t bytes = done ? (text_len(r) - since) * n / done * 11 / 10 : 2 * n;
	if (bytes >= PREFAULT_TEXT_MIN && bytes < PREFAULT_TEXT_ROUND)
		bytes = PREFAULT_TEXT_ROUND;
	if (pw_outbuf_reserve(out, bytes) == 0)
		pw_prefault(out->data + out->len, bytes);
}

/* Hand the text so far to the sink, once there is enough of it. Returns 0 or the sink's error. */
static int flush_text(struct render *r)
{
	size_t n = r->out->len;
	if (!r->sink || n < r->sink->min_bytes || !pw_outbuf_ok(r->out))
		return 0;
	int e = r->sink->flush(r->sink->ctx, r->out);
	if (e == 0)
		r->flushed += n;
	return e;
}

/* One column (a series' values, or its means, mins or maxs) from its block: nrows figures,
 * stat-th of every nstats. */
static void json_column(struct render *r, const struct series *se, const double *v, uint32_t stat)
{
	struct pw_outbuf *out = r->out;
	int dec = decimals(se), nst = (int)nstats(r);
	if (r->agg && stat == 0 && dec < 2)
		dec = 2; /* a mean has more digits than its samples */
	if (pw_outbuf_reserve(out, (size_t)r->nrows * (PW_FIXED_MAX + 1) + 2) < 0)
		return;
	char *p = out->data + out->len;
	*p++ = '[';
	for (uint32_t k = 0; k < r->nrows; k++) {
		if (k)
			*p++ = ',';
		p = pw_write_fixed(p, v[(size_t)k * nst + stat], dec);
	}
	*p++ = ']';
	out->len = (size_t)(p - out->data);
}

/* The figures of a series of a window in columns, every point or gap, as q * mul with `scaled`
 * decimals: a constant where it is inlined, so pw_write_scaled divides by multiplying. */
static inline __attribute__((always_inline)) char *put_scaled_column(char *p, const struct render *r,
                                                                     const struct series *se, int scaled)
{
	for (uint32_t k = 0; k < r->nrows; k++) {
		const struct row *row = &r->rows[k];
		int32_t q = se->q && row->first != row->end ? se->q[row->first] : PW_COLUMN_UNKNOWN;
		if (k)
			*p++ = ',';
		if (q == PW_COLUMN_UNKNOWN) {
			memcpy(p, "null", 4);
			p += 4;
		} else {
			p = pw_write_scaled(p, q * se->mul, scaled);
		}
	}
	return p;
}

/* The same for a series of a window in columns, from the integers themselves when they print
 * exactly, without a figure taken out into a block first. */
static void json_column_q(struct render *r, const struct series *se)
{
	struct pw_outbuf *out = r->out;
	if (pw_outbuf_reserve(out, (size_t)r->nrows * (PW_FIXED_MAX + 1) + 2) < 0)
		return;
	char *p = out->data + out->len;
	*p++ = '[';
	if (se->exact && se->scaled == 0) {
		p = put_scaled_column(p, r, se, 0);
	} else if (se->exact && se->scaled == 2) {
		p = put_scaled_column(p, r, se, 2);
	} else if (se->exact && se->scaled == 4) {
		p = put_scaled_column(p, r, se, 4);
	} else {
		for (uint32_t k = 0; k < r->nrows; k++) {
			const struct row *row = &r->rows[k];
			if (k)
				*p++ = ',';
			p = pw_write_fixed(p, row->first == row->end ? NAN : value(r, se, row->first, POINTS),
			                   decimals(se));
		}
	}
	*p++ = ']';
	out->len = (size_t)(p - out->data);
}

static const char *device_of(const struct pw_history_window *w, const char *irq)
{
	for (uint32_t i = 0; w->lines && i < w->nlines; i++)
		if (strncmp(w->lines[i].irq, irq, PW_IRQ_NAME_MAX) == 0)
			return w->lines[i].device;
	return "";
}

static void json_labels(struct render *r, const struct series *se)
{
	struct pw_outbuf *out = r->out;
	pw_outbuf_puts(out, ",\"labels\":{");
	if (se->id.signal == PW_HS_LINE) {
		char irq[PW_IRQ_NAME_MAX + 1];
		snprintf(irq, sizeof(irq), "%.*s", PW_IRQ_NAME_MAX, se->id.irq);
		pw_outbuf_puts(out, "\"irq\":");
		put_json_string(out, irq);
		pw_outbuf_puts(out, ",\"device\":");
		put_json_string(out, device_of(r->w, irq));
	} else if (se->id.signal == PW_HS_SOFTIRQ_TYPE) {
		pw_outbuf_printf(out, "\"type\":\"%s\"", pw_softirq_name(se->id.inst));
	} else if (se->id.signal >= PW_HS_PERCPU_BUSY) {
		pw_outbuf_printf(out, "\"cpu\":\"%u\"", se->id.inst);
	}
	pw_outbuf_putc(out, '}');
}

static void json_baseline(struct render *r, const struct series *se)
{
	int sig = pw_history_signal_def(se->id.signal)->baseline;
	if (sig < 0 || !r->w->baselines || r->w->baselines[sig].learned_s <= 0)
		return;
	const struct pw_baseline *b = &r->w->baselines[sig];
	int dec = decimals(se) + 2;
	pw_outbuf_puts(r->out, ",\"baseline\":{\"mean\":");
	put_fixed(r->out, b->mean, dec > 4 ? 4 : dec);
	pw_outbuf_puts(r->out, ",\"spread\":");
	put_fixed(r->out, pw_baseline_spread(b, 0.0), dec > 4 ? 4 : dec);
	pw_outbuf_printf(r->out, ",\"learned_seconds\":%.0f}", b->learned_s);
}

static void json_series(struct render *r, const struct series *se, const double *v)
{
	struct pw_outbuf *out = r->out;
	const struct pw_history_signal_def *d = pw_history_signal_def(se->id.signal);

	pw_outbuf_printf(out, "{\"key\":\"%s\",\"name\":\"%s\",\"family\":\"%s\",\"unit\":\"%s\"", se->key,
	                 d->name, d->family, d->unit);
	json_labels(r, se);
	json_baseline(r, se);
	if (r->agg) {
		static const char *const names[3] = {"mean", "min", "max"};
		for (int k = 0; k < 3; k++) {
			pw_outbuf_printf(out, ",\"%s\":", names[k]);
			json_column(r, se, v, (uint32_t)k);
		}
	} else {
		pw_outbuf_puts(out, ",\"values\":");
		if (v)
			json_column(r, se, v, 0);
		else
			json_column_q(r, se);
	}
	pw_outbuf_putc(out, '}');
}

static void json_transitions(struct render *r)
{
	struct pw_outbuf *out = r->out;
	bool first = true;
	pw_outbuf_puts(out, "\"transitions\":[");
	for (size_t i = 0; i < r->w->ntransitions; i++) {
		const struct pw_history_transition *t = &r->w->transitions[i];
		if (t->real_ns <= r->q->since_ns || t->real_ns > r->q->until_ns)
			continue;
		pw_outbuf_printf(out,
		                 "%s{\"time_ms\":%lld,\"alert\":\"%s\",\"from\":\"%s\",\"to\":\"%s\","
		                 "\"severity\":\"%s\",\"scope\":",
		                 first ? "" : ",", (long long)ms(t->real_ns), pw_alert_name_str(t->alert),
		                 pw_alert_state_str(t->from), pw_alert_state_str(t->to),
		                 pw_severity_str(t->severity));
		char scope[sizeof(t->scope) + 1];
		snprintf(scope, sizeof(scope), "%.*s", (int)sizeof(t->scope), t->scope);
		put_json_string(out, scope);
		pw_outbuf_puts(out, ",\"value\":");
		put_fixed(out, t->value, 4);
		pw_outbuf_puts(out, ",\"baseline\":");
		put_fixed(out, t->baseline, 4);
		pw_outbuf_putc(out, '}');
		first = false;
	}
	pw_outbuf_putc(out, ']');
}

static int render_json(struct render *r)
{
	struct pw_outbuf *out = r->out;
	pw_outbuf_printf(
	        out,
	        "{\"interval_seconds\":%.3f,\"step_seconds\":%.3f,\"aggregated\":%s,\"since_ms\":%lld,"
	        "\"until_ms\":%lld,\"now_ms\":%lld,\"points\":%u,\"warm\":%s,\"time_ms\":[",
	        (double)r->w->interval_ns / 1e9, (double)(r->agg ? r->q->step_ns : r->w->interval_ns) / 1e9,
	        r->agg ? "true" : "false", (long long)ms(r->q->since_ns), (long long)ms(r->q->until_ns),
	        (long long)ms(r->w->now_real_ns), r->nrows, r->w->warm ? "true" : "false");
	for (uint32_t k = 0; k < r->nrows; k++) {
		if (k)
			pw_outbuf_putc(out, ',');
		int64_t t = ms(r->rows[k].time_ns);
		if (t >= 0)
			pw_outbuf_u64(out, (uint64_t)t);
		else
			pw_outbuf_printf(out, "%lld", (long long)t);
	}
	pw_outbuf_puts(out, "],\"signals\":[");
	uint32_t per_block;
	/* Columns print from their integers; points' figures are taken out a block at a time. */
	bool from_columns = r->w->columns && !r->agg;
	double *block = block_new(r, r->nrows, r->nseries, &per_block, !from_columns);
	if (!block && !from_columns)
		return -ENOMEM;
	size_t since = text_len(r);
	int e = 0;
	for (uint32_t s0 = 0; s0 < r->nseries && e == 0; s0 += per_block) {
		uint32_t ns = r->nseries - s0 < per_block ? r->nseries - s0 : per_block;
		if (!from_columns)
			extract(r, s0, ns, 0, r->nrows, block);
		prefault_text(r, (size_t)ns * r->nrows * nstats(r), (size_t)s0 * r->nrows * nstats(r), since);
		for (uint32_t s = s0; s < s0 + ns; s++) {
			if (s)
				pw_outbuf_putc(out, ',');
			json_series(r, &r->series[s],
			            from_columns ? NULL : block + (size_t)(s - s0) * r->nrows * nstats(r));
		}
		e = flush_text(r);
	}
	free(block);
	if (e < 0)
		return e;
	pw_outbuf_puts(out, "],");
	json_transitions(r);
	pw_outbuf_puts(out, "}\n");
	return 0;
}

/* ---- CSV ---- */

static void csv_time(struct pw_outbuf *out, int64_t ns)
{
	time_t sec = (time_t)floor_div(ns, NS);
	struct tm tm;
	char buf[40];
	gmtime_r(&sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	pw_outbuf_printf(out, "%s.%03dZ", buf, (int)((ns - (int64_t)sec * NS) / 1000000));
}

static int render_csv(struct render *r)
{
	struct pw_outbuf *out = r->out;
	pw_outbuf_puts(out, "time");
	for (uint32_t s = 0; s < r->nseries; s++) {
		if (r->agg)
			pw_outbuf_printf(out, ",%s:mean,%s:min,%s:max", r->series[s].key, r->series[s].key,
			                 r->series[s].key);
		else
			pw_outbuf_printf(out, ",%s", r->series[s].key);
	}
	pw_outbuf_putc(out, '\n');
	uint32_t per_block, nst = nstats(r);
	double *block = block_new(r, r->nseries, r->nrows, &per_block, true);
	if (!block)
		return -ENOMEM;
	size_t since = text_len(r);
	int e = 0;
	for (uint32_t r0 = 0; r0 < r->nrows && e == 0; r0 += per_block) {
		uint32_t nr = r->nrows - r0 < per_block ? r->nrows - r0 : per_block;
		extract(r, 0, r->nseries, r0, nr, block);
		prefault_text(r, (size_t)r->nseries * nr * nst, (size_t)r->nseries * r0 * nst, since);
		for (uint32_t row = r0; row < r0 + nr; row++) {
			csv_time(out, r->rows[row].time_ns);
			for (uint32_t s = 0; s < r->nseries; s++) {
				int dec = decimals(&r->series[s]);
				for (uint32_t k = 0; k < nst; k++) {
					double v = block[((size_t)s * nr + (row - r0)) * nst + k];
					pw_outbuf_putc(out, ',');
					if (isfinite(v))
						put_fixed(out, v, r->agg && k == 0 && dec < 2 ? 2 : dec);
				}
			}
			pw_outbuf_putc(out, '\n');
		}
		e = flush_text(r);
	}
	free(block);
	return e;
}

int pw_history_render(struct pw_outbuf *out, struct pw_history_query *q, const struct pw_history_window *w,
                      const struct pw_history_sink *sink, char *err, size_t err_size)
{
	struct render r = {.out = out, .q = q, .w = w, .sink = sink};
	pw_fixed_text_init();
	int e = plan_series(&r);

	if (e == 0)
		e = fit(&r, q, err, err_size);
	if (e == 0) {
		pw_outbuf_reset(out);
		e = q->format == PW_HISTORY_CSV ? render_csv(&r) : render_json(&r);
		if (e == 0 && !pw_outbuf_ok(out))
			e = -ENOMEM;
	}
	if (e == -ENOMEM)
		snprintf(err, err_size, "out of memory");
	else if (e < 0 && e != -E2BIG)
		snprintf(err, err_size, "the answer was cut short: %s", strerror(-e));
	free(r.series);
	free(r.rows);
	return e;
}
