/* history_columns.c — see history_columns.h. */
#define _GNU_SOURCE /* qsort_r */
#include "history_columns.h"

#include "prefault.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void pw_history_columns_init(struct pw_history_columns *c, uint32_t cpu_cap, uint32_t max_rows,
                             size_t max_bytes)
{
	memset(c, 0, sizeof(*c));
	c->cpu_cap = cpu_cap;
	c->max_rows = max_rows;
	c->max_bytes = max_bytes;
	c->last_ns = INT64_MIN;
}

/* values large enough for cols columns of rows rows (the columns already there stay at their
 * offsets: the caller moves them when rows changes). */
static int values_fit(struct pw_history_columns *c, uint32_t cols, uint32_t rows)
{
	size_t need = (size_t)cols * rows * sizeof(int32_t);
	if (need > c->max_bytes)
		return -E2BIG;
	if (need <= c->values_size)
		return 0;
	int32_t *v = realloc(c->values, need);
	if (!v)
		return -ENOMEM;
	/* Fresh pages faulted in with one call, not one fault each (prefault.h): an hour of 16 CPUs
	 * is 550 of them, and a cold answer's first. */
	pw_prefault((char *)v + c->values_size, need - c->values_size);
	c->values = v;
	c->values_size = need;
	return 0;
}

int pw_history_columns_reserve(struct pw_history_columns *c, uint32_t rows)
{
	if (rows <= c->cap)
		return 0;
	if (rows > c->max_rows)
		rows = c->max_rows;
	if (rows <= c->cap)
		return -E2BIG;
	int64_t *t = realloc(c->time_ns, (size_t)rows * sizeof(*t));
	if (t)
		c->time_ns = t;
	uint32_t *f = realloc(c->flags, (size_t)rows * sizeof(*f));
	if (f)
		c->flags = f;
	if (!t || !f)
		return -ENOMEM;
	int e = values_fit(c, c->cols_cap, rows);
	if (e < 0)
		return e;
	/* Each column to its place at the new stride, the last first: they only move up. */
	for (uint32_t k = c->ncols; k-- > 1;)
		memmove(c->values + (size_t)k * rows, c->values + (size_t)k * c->cap,
		        c->cols[k].len * sizeof(int32_t));
	c->cap = rows;
	return 0;
}

int pw_history_columns_add_row(struct pw_history_columns *c, int64_t real_ns, uint32_t flags)
{
	if (c->n == c->cap) {
		int e = pw_history_columns_reserve(c, c->cap > 32 ? c->cap * 2 : 64);
		if (e < 0)
			return e;
	}
	c->time_ns[c->n] = real_ns;
	c->flags[c->n] = flags;
	c->last_ns = real_ns;
	return (int)c->n++;
}

/* Where the column of a host, softirq or per-CPU series is kept in index; -1 for a line (looked
 * up by name), -2 for a CPU past cpu_cap. */
static long index_key(const struct pw_history_columns *c, const struct pw_history_series *id)
{
	switch (pw_history_signal_def(id->signal)->scope) {
	case PW_SCOPE_HOST:
		return id->signal;
	case PW_SCOPE_SOFTIRQ:
		return PW_HS_COUNT + (long)id->inst;
	case PW_SCOPE_CPU:
		if (id->inst >= c->cpu_cap)
			return -2;
		return PW_HS_COUNT + PW_SOFTIRQ_COUNT + (long)id->inst * PW_HS_COUNT + id->signal;
	default:
		return -1;
	}
}

static size_t index_size(const struct pw_history_columns *c)
{
	return PW_HS_COUNT + PW_SOFTIRQ_COUNT + (size_t)c->cpu_cap * PW_HS_COUNT;
}

int pw_history_columns_find(const struct pw_history_columns *c, const struct pw_history_series *id)
{
	long key = index_key(c, id);
	if (key >= 0)
		return c->index ? c->index[key] - 1 : -1;
	if (key == -2)
		return -1;
	for (uint32_t k = 0; k < c->ncols; k++)
		if (c->cols[k].id.signal == PW_HS_LINE &&
		    strncmp(c->cols[k].id.irq, id->irq, PW_IRQ_NAME_MAX) == 0)
			return (int)k;
	return -1;
}

int pw_history_columns_column(struct pw_history_columns *c, const struct pw_history_series *id)
{
	long key = index_key(c, id);
	int found = key == -2 ? -ENOENT : pw_history_columns_find(c, id);
	if (found != -1)
		return found;
	if (!c->index && !(c->index = calloc(index_size(c), sizeof(*c->index))))
		return -ENOMEM;
	if (key < 0 && c->nlines == PW_HISTORY_COLUMNS_LINES)
		return -ERANGE;
	if (c->ncols == c->cols_cap) {
		/* At first room for what a store's block holds: host, softirq and per-CPU series and lines.
		 */
		uint64_t cap = c->cols_cap ? c->cols_cap + c->cols_cap / 2
		                           : PW_HS_COUNT + PW_SOFTIRQ_COUNT + (uint64_t)c->cpu_cap * 8 + 16;
		uint64_t fit = c->cap ? c->max_bytes / ((size_t)c->cap * sizeof(int32_t)) : cap;
		cap = cap < fit ? cap : fit > c->ncols ? fit : (uint64_t)c->ncols + 1;
		int e = values_fit(c, (uint32_t)cap, c->cap);
		if (e < 0)
			return e;
		struct pw_history_column *cols = realloc(c->cols, (size_t)cap * sizeof(*cols));
		if (!cols)
			return -ENOMEM;
		c->cols = cols;
		c->cols_cap = (uint32_t)cap;
	}
	c->cols[c->ncols] = (struct pw_history_column){.id = *id};
	if (key >= 0)
		c->index[key] = (int32_t)c->ncols + 1;
	else
		c->nlines++;
	return (int)c->ncols++;
}

/* One series of the points, where its figures go. */
struct taker {
	struct pw_history_series id;
	struct pw_history_reader reader;
	double quantum;
	int col;
	bool per_cpu; /* read only from the points that have its CPU */
};

static int take_figure(struct pw_history_columns *c, const struct taker *t, uint32_t row,
                       const struct pw_history_point *p)
{
	int64_t q;
	if (pw_history_quantize(pw_history_read(&t->reader, p), t->quantum, &q))
		pw_history_columns_set(c, (uint32_t)t->col, row, q);
	return c->too_wide ? -ERANGE : 0;
}

/* The columns of the last point's line slots (-1: an empty slot): neighbouring points nearly always
 * keep the same names, and looking each up by name was a third of taking an hour of ring points. */
struct line_memo {
	char names[PW_HISTORY_LINES][PW_IRQ_NAME_MAX];
	int col[PW_HISTORY_LINES];
	bool valid;
};

/* The columns of p's line slots into memo, unless they are the last point's. */
static int line_columns(struct pw_history_columns *c, struct line_memo *memo,
                        const struct pw_history_point *p)
{
	bool same = memo->valid;
	for (int k = 0; k < PW_HISTORY_LINES && same; k++)
		same = memcmp(memo->names[k], p->lines[k].irq, PW_IRQ_NAME_MAX) == 0;
	if (same)
		return 0;
	memo->valid = false;
	for (int k = 0; k < PW_HISTORY_LINES; k++) {
		struct pw_history_series id = {.signal = PW_HS_LINE};
		memcpy(memo->names[k], p->lines[k].irq, PW_IRQ_NAME_MAX);
		memo->col[k] = -1;
		if (!p->lines[k].irq[0])
			continue;
		memcpy(id.irq, p->lines[k].irq, PW_IRQ_NAME_MAX);
		int col = pw_history_columns_column(c, &id);
		if (col < 0)
			return col;
		memo->col[k] = col;
	}
	memo->valid = true;
	return 0;
}

/* The lines of p (row) into their columns: present even when the rate is unknown, as a point
 * shows them. */
static int take_lines(struct pw_history_columns *c, struct line_memo *memo, uint32_t row,
                      const struct pw_history_point *p)
{
	double quantum = pw_history_signal_def(PW_HS_LINE)->quantum;
	int e = line_columns(c, memo, p);
	if (e < 0)
		return e;
	for (int k = 0; k < PW_HISTORY_LINES; k++) {
		int64_t q;
		int col = memo->col[k];
		if (col < 0)
			continue;
		struct pw_history_column *k_col = &c->cols[col];
		if (k_col->last_seen == row + 1)
			continue; /* a name twice in a point: its first slot, as a point reads */
		k_col->last_seen = row + 1;
		k_col->rank = (uint32_t)k;
		if (pw_history_quantize(p->lines[k].rate, quantum, &q))
			pw_history_columns_set(c, (uint32_t)col, row, q);
	}
	return c->too_wide ? -ERANGE : 0;
}

int pw_history_columns_add_points(struct pw_history_columns *c, const void *points, size_t point_size,
                                  uint32_t n)
{
	uint32_t ncpu = 0, ntakers = 0;
	const char *base = points;
	struct line_memo memo = {.valid = false};
	int e = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t pc = ((const struct pw_history_point *)(const void *)(base + i * point_size))->ncpu;
		ncpu = pc > ncpu ? pc : ncpu;
	}
	ncpu = ncpu < c->cpu_cap ? ncpu : c->cpu_cap;
	/* Every host, softirq and per-CPU series (lines come by name, take_lines). */
	struct taker *takers =
	        calloc(PW_HS_COUNT + PW_SOFTIRQ_COUNT + (size_t)ncpu * PW_HS_COUNT, sizeof(*takers));
	if (!takers)
		return n ? -ENOMEM : 0;
	for (int s = 0; s < PW_HS_COUNT; s++) {
		enum pw_history_scope scope = pw_history_signal_def(s)->scope;
		uint32_t count = scope == PW_SCOPE_HOST      ? 1
		                 : scope == PW_SCOPE_SOFTIRQ ? PW_SOFTIRQ_COUNT
		                 : scope == PW_SCOPE_CPU     ? ncpu
		                                             : 0;
		for (uint32_t i = 0; i < count; i++)
			takers[ntakers++] = (struct taker){.id = {.signal = s, .inst = i},
			                                   .per_cpu = scope == PW_SCOPE_CPU};
	}
	for (uint32_t k = 0; k < ntakers && e == 0; k++) {
		pw_history_reader_init(&takers[k].reader, &takers[k].id);
		takers[k].quantum = pw_history_signal_def(takers[k].id.signal)->quantum;
		if ((takers[k].col = pw_history_columns_column(c, &takers[k].id)) < 0)
			e = takers[k].col;
	}
	for (uint32_t i = 0; i < n && e == 0; i++) {
		const struct pw_history_point *p = (const void *)(base + i * point_size);
		int row = pw_history_columns_add_row(c, p->real_ns, p->flags);
		if (row < 0) {
			e = row;
			break;
		}
		uint32_t pc = p->ncpu < ncpu ? p->ncpu : ncpu;
		c->ncpu = pc > c->ncpu ? pc : c->ncpu;
		for (uint32_t k = 0; k < ntakers && e == 0; k++) {
			if (takers[k].per_cpu && takers[k].id.inst >= pc)
				continue;
			e = take_figure(c, &takers[k], (uint32_t)row, p);
		}
		if (e == 0)
			e = take_lines(c, &memo, (uint32_t)row, p);
	}
	free(takers);
	return e;
}

void pw_history_columns_finish(struct pw_history_columns *c)
{
	for (uint32_t k = 0; k < c->ncols; k++) {
		int32_t *v = pw_history_column_values(c, k);
		while (c->cols[k].len < c->n)
			v[c->cols[k].len++] = PW_COLUMN_UNKNOWN;
	}
}

static int newest_first(const void *a, const void *b, void *ctx)
{
	const struct pw_history_column *cols = ctx;
	const struct pw_history_column *x = &cols[*(const uint32_t *)a], *y = &cols[*(const uint32_t *)b];
	if (x->last_seen != y->last_seen)
		return x->last_seen > y->last_seen ? -1 : 1;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

uint32_t pw_history_columns_lines(const struct pw_history_columns *c, uint32_t *ret, uint32_t max)
{
	uint32_t all[PW_HISTORY_COLUMNS_LINES], n = 0;
	for (uint32_t k = 0; k < c->ncols && n < PW_HISTORY_COLUMNS_LINES; k++)
		if (c->cols[k].id.signal == PW_HS_LINE && c->cols[k].last_seen)
			all[n++] = k;
	qsort_r(all, n, sizeof(all[0]), newest_first, c->cols);
	n = n < max ? n : max;
	memcpy(ret, all, n * sizeof(*ret));
	return n;
}

void pw_history_columns_done(struct pw_history_columns *c)
{
	free(c->time_ns);
	free(c->flags);
	free(c->cols);
	free(c->values);
	free(c->index);
	memset(c, 0, sizeof(*c));
}
