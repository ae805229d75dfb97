/* history_columns.h — a window of history samples as columns: the points' times and flags, and per
 * series the integer the store keeps for each point (round(value / quantum), at the signal table's
 * quantum). A window read from disk is decoded into these straight from the store's own columns
 * (lib/store_codec.h) and printed from them: decoding into history points and taking every figure
 * back out of them was half of an hour's answer. The ring's points join them as the store would
 * keep them, so a point prints the same from memory and from disk. Pure.
 *
 * Values are 32-bit (an hour of 16 CPUs is 2 MB of them): a figure beyond that (a rate over 21
 * million a second, over 2 TiB of memory) is refused with -ERANGE, and the window is read as points
 * instead. Bounded: at most max_rows points, max_bytes of values, PW_HISTORY_COLUMNS_LINES lines. */
#ifndef PW_HISTORY_COLUMNS_H
#define PW_HISTORY_COLUMNS_H

#include "history.h"
#include "history_signals.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_COLUMN_UNKNOWN INT32_MIN
#define PW_HISTORY_COLUMNS_LINES 64 /* interrupt lines a window keeps (six a point, slowly changing) */

struct pw_history_column {
	struct pw_history_series id;
	uint32_t len; /* values written; those up to the window's n are unknown */
	/* Lines: the newest point that kept the line (its row + 1; 0: none) and its order among that
	 * point's lines, for the answer's order of lines (newest first, as from points). */
	uint32_t last_seen, rank;
};

struct pw_history_columns {
	uint32_t n, cap; /* points, and room for */
	int64_t *time_ns;
	uint32_t *flags;
	uint32_t ncpu; /* 1 + the highest CPU with a figure (or a point's ncpu) */
	struct pw_history_column *cols;
	uint32_t ncols, cols_cap;
	/* Column c's values at values + c * cap. May be handed in before the first row (a buffer an
	 * answer before left); grown with realloc, freed by pw_history_columns_done unless taken back. */
	int32_t *values;
	size_t values_size;
	int64_t last_ns; /* the newest point taken: one not after it is dropped (found twice) */
	uint32_t cpu_cap, max_rows;
	size_t max_bytes;
	int32_t *index; /* column of each host, softirq and per-CPU series + 1; 0: none yet */
	uint32_t nlines;
	bool too_wide; /* a value did not fit 32 bits */
};

/* An empty window for up to cpu_cap CPUs (series of CPUs past it are dropped, as from points). */
void pw_history_columns_init(struct pw_history_columns *c, uint32_t cpu_cap, uint32_t max_rows,
                             size_t max_bytes);

/* Room for rows points (a guess; more grow it). Returns 0, -E2BIG, -ENOMEM. */
int pw_history_columns_reserve(struct pw_history_columns *c, uint32_t rows);

/* A new point at real_ns (newer than any before), its values unknown: its row, or -E2BIG, -ENOMEM. */
int pw_history_columns_add_row(struct pw_history_columns *c, int64_t real_ns, uint32_t flags);

/* The column of id, made if new: its index, or -ENOENT (a CPU past cpu_cap), -ERANGE (too many
 * lines), -E2BIG, -ENOMEM. */
int pw_history_columns_column(struct pw_history_columns *c, const struct pw_history_series *id);

/* The column of id, or -1. */
int pw_history_columns_find(const struct pw_history_columns *c, const struct pw_history_series *id);

static inline int32_t *pw_history_column_values(const struct pw_history_columns *c, uint32_t col)
{
	return c->values + (size_t)col * c->cap;
}

/* Value q of column col at row (rows of a column are set in order); a q beyond 32 bits sets
 * too_wide. */
static inline void pw_history_columns_set(struct pw_history_columns *c, uint32_t col, uint32_t row, int64_t q)
{
	struct pw_history_column *k = &c->cols[col];
	int32_t *v = pw_history_column_values(c, col);
	if (q <= PW_COLUMN_UNKNOWN || q > INT32_MAX) {
		c->too_wide = true;
		return;
	}
	while (k->len < row)
		v[k->len++] = PW_COLUMN_UNKNOWN;
	v[row] = (int32_t)q;
	k->len = row + 1;
}

/* Append n points (point_size bytes apart, oldest first, newer than any before) as the store keeps
 * them. Returns 0, -ERANGE, -E2BIG, -ENOMEM. */
int pw_history_columns_add_points(struct pw_history_columns *c, const void *points, size_t point_size,
                                  uint32_t n);

/* Every column as long as the window (unknown to the end). */
void pw_history_columns_finish(struct pw_history_columns *c);

/* The lines with a point that kept them, newest first (at most max): their columns into ret. */
uint32_t pw_history_columns_lines(const struct pw_history_columns *c, uint32_t *ret, uint32_t max);

/* Free (values too, unless the caller took them and set values NULL). */
void pw_history_columns_done(struct pw_history_columns *c);

#endif
