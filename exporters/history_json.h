/* history_json.h — a window of history points as the GET /history document: JSON (columns of
 * values, each signal with its baseline, the alert transitions in the window) or CSV (one row per
 * point or step). Schema: docs/history.md. Pure; allocates only scratch per render. */
#ifndef PW_HISTORY_JSON_H
#define PW_HISTORY_JSON_H

#include "alert.h"
#include "baseline.h"
#include "detector.h"
#include "history.h"
#include "history_columns.h"
#include "history_query.h"
#include "outbuf.h"

/* At most this many values (series x points, x3 with steps) in one answer: about 12 MB of JSON. */
#define PW_HISTORY_MAX_VALUES 2000000u

/* One alert state change, compact (what the daemon's transition log keeps). */
struct pw_history_transition {
	int64_t real_ns;
	uint8_t alert;    /* enum pw_alert_name */
	uint8_t from, to; /* enum pw_alert_state */
	uint8_t severity; /* enum pw_severity */
	char scope[48];   /* "host", "cpu3", "irq 25 (eth0-rx-0)" */
	double value, baseline;
};

struct pw_history_window {
	const void *points; /* npoints history points, oldest first, point_size bytes apart */
	size_t point_size;
	uint32_t npoints;
	/* Points that each stand for several samples (a minute of them): their mins and maxs, laid out
	 * as points, and how many samples each is (the weight of its mean). NULL: points are samples. */
	const void *mins, *maxs;
	const uint32_t *counts;
	/* Or the window's samples as columns (points, mins, maxs NULL; npoints is columns->n): what a
	 * window read from disk comes as, printed from the integers the store keeps. */
	const struct pw_history_columns *columns;
	int64_t interval_ns; /* the sampling interval */
	int64_t now_real_ns;
	const struct pw_baseline *baselines;             /* [PW_SIG_COUNT] host baselines, or NULL */
	bool warm;                                       /* the detector finished its warmup */
	const struct pw_history_transition *transitions; /* any order; those inside the window show */
	size_t ntransitions;
	const struct pw_irq_line *lines; /* the newest sample's lines, to name devices (may be NULL) */
	uint32_t nlines;
};

/* Where a long answer goes while it is still being made, so its first bytes travel while the rest
 * is rendered. Between blocks of figures, once out holds min_bytes or more, flush is called and takes
 * all of out's bytes (out left empty); a negative return (the reader is gone) stops the render with
 * that error. */
struct pw_history_sink {
	int (*flush)(void *ctx, struct pw_outbuf *out);
	void *ctx;
	size_t min_bytes;
};

/* Render w as q asks into out (reset first), and into sink as it goes when sink is not NULL (out
 * then holds what was not flushed). Without a step of its own (q->step_given false) an answer over
 * PW_HISTORY_MAX_VALUES gets a coarser step, written back into q->step_ns; with one, it is refused,
 * before anything is written or flushed. Returns 0; -E2BIG with a sentence in err; -ENOMEM; the
 * sink's error. */
int pw_history_render(struct pw_outbuf *out, struct pw_history_query *q, const struct pw_history_window *w,
                      const struct pw_history_sink *sink, char *err, size_t err_size);

#endif
