/* history_store.c — the two tiers of history on disk and the per-minute summaries between them
 * (history_store.h). */
#include "history_store.h"

#include "history_signals.h"
#include "history_tier.h"
#include "history_transitions.h"
#include "log.h"
#include "store_codec.h"
#include "warm_buffers.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S INT64_C(1000000000)
#define NS_PER_MS INT64_C(1000000)
#define MINUTE_MS INT64_C(60000)
/* The minutes tier's share of the size bound: a minute costs about what 20 samples do. */
#define MINUTES_SIZE_SHARE 8
#define CATCH_UP_CHUNK_NS (3600 * NS_PER_S) /* samples read at a time when summing at start */
#define TRANSITIONS_KEEP_MAX 256            /* transitions kept while their file cannot be written */

/* Sums of one minute, per series. */
struct minute {
	int64_t start_ms; /* INT64_MIN: nothing summed */
	uint32_t samples;
	struct pw_store_dict dict, scratch;
	double *sum, *min, *max;
	uint32_t *n;
	uint32_t cap;
};

struct pw_history_store {
	struct pw_history_tier *samples, *minutes;
	uint32_t cpu_cap;
	size_t point_size;
	bool caught_up; /* the minutes a previous run left unwritten are written */
	struct minute m;
	void *out; /* 3 points: a minute's mean, min and max */
	char *dir;
	int64_t transitions_ns; /* the transitions file's retention: the minutes' */
	struct pw_ratelimit complain;
	/* Transitions not written yet (their file failed), oldest first: tried again with each flush. */
	struct pw_history_transition unwritten[TRANSITIONS_KEEP_MAX];
	size_t nunwritten;
	atomic_uint_fast64_t transition_errors, transitions_dropped;
	atomic_bool transitions_failing;
};

void pw_history_store_dir(const char *state_dir, char *buf, size_t size)
{
	snprintf(buf, size, "%s/history", state_dir);
}

struct pw_history_store *pw_history_store_new(const struct pw_history_store_config *cfg)
{
	struct pw_history_store *st = calloc(1, sizeof(*st));
	struct pw_history_tier_config samples = {
	        .dir = cfg->dir,
	        .prefix = PW_HISTORY_SAMPLES,
	        .tier = PW_STORE_TIER_SAMPLES,
	        .interval_ns = cfg->interval_ns,
	        .cpu_cap = cfg->cpu_cap,
	        .retention_ns = cfg->retention_ns,
	        .retention_size = cfg->retention_size - cfg->retention_size / MINUTES_SIZE_SHARE,
	        .block_span_ns = 300 * NS_PER_S, /* what a crash may leave in the head */
	        /* Retention drops a quarter of an hour at a time, and a window reads at most a quarter
	         * hour before its start (an hour from disk: 1.1 h decoded, 1.5 h with hourly files). */
	        .file_span_max_ns = 900 * NS_PER_S,
	};
	struct pw_history_tier_config minutes = {
	        .dir = cfg->dir,
	        .prefix = PW_HISTORY_MINUTES,
	        .tier = PW_STORE_TIER_MINUTES,
	        .interval_ns = PW_HISTORY_MINUTE_NS,
	        .points_per_interval = 3,
	        .cpu_cap = cfg->cpu_cap,
	        .retention_ns = cfg->retention_ns > INT64_MAX / 10 ? INT64_MAX : cfg->retention_ns * 10,
	        .retention_size = cfg->retention_size / MINUTES_SIZE_SHARE,
	        .block_span_ns = 3 * 3600 * NS_PER_S,
	        .file_span_max_ns = 6 * 3600 * NS_PER_S, /* a day from disk: 1.1 days decoded */
	};

	if (!st)
		return NULL;
	st->cpu_cap = cfg->cpu_cap;
	st->point_size = pw_history_point_size(cfg->cpu_cap);
	st->m.start_ms = INT64_MIN;
	st->transitions_ns = minutes.retention_ns;
	st->complain.period_ns = 60 * NS_PER_S;
	st->dir = strdup(cfg->dir);
	st->samples = pw_history_tier_new(&samples);
	st->minutes = pw_history_tier_new(&minutes);
	st->out = calloc(3, st->point_size);
	if (!st->samples || !st->minutes || !st->out || !st->dir) {
		pw_history_store_free(st);
		return NULL;
	}
	return st;
}

/* ---- summing a minute ---- */

/* Room for n series in every per-series array. */
static int minute_grow(struct minute *m, uint32_t n)
{
	if (n <= m->cap)
		return 0;
	uint32_t cap = m->cap ? m->cap * 2 : 64;
	while (cap < n)
		cap *= 2;
	struct pw_history_series *series = realloc(m->dict.series, cap * sizeof(*series));
	if (!series)
		return -ENOMEM;
	m->dict.series = series;
	m->dict.cap = cap;
	double **arrays[] = {&m->sum, &m->min, &m->max};
	for (size_t k = 0; k < 3; k++) {
		double *a = realloc(*arrays[k], cap * sizeof(double));
		if (!a)
			return -ENOMEM;
		*arrays[k] = a;
	}
	uint32_t *cnt = realloc(m->n, cap * sizeof(uint32_t));
	if (!cnt)
		return -ENOMEM;
	m->n = cnt;
	m->cap = cap;
	return 0;
}

static bool same_series(const struct pw_history_series *a, const struct pw_history_series *b)
{
	return a->signal == b->signal && a->inst == b->inst && strncmp(a->irq, b->irq, PW_IRQ_NAME_MAX) == 0;
}

/* The index of se in the minute's dictionary, added when new; -1 when out of memory. hint: where
 * it was in the sample before (series come in the same order sample after sample). */
static int64_t series_index(struct minute *m, const struct pw_history_series *se, uint32_t hint)
{
	if (hint < m->dict.n && same_series(&m->dict.series[hint], se))
		return hint;
	for (uint32_t i = 0; i < m->dict.n; i++)
		if (same_series(&m->dict.series[i], se))
			return i;
	if (minute_grow(m, m->dict.n + 1) < 0)
		return -1;
	uint32_t i = m->dict.n++;
	m->dict.series[i] = *se;
	m->sum[i] = 0;
	m->n[i] = 0;
	return i;
}

static void minute_add(struct minute *m, const struct pw_history_point *p, size_t point_size)
{
	if (pw_store_dict_build(&m->scratch, p, point_size, 1) < 0)
		return;
	for (uint32_t k = 0; k < m->scratch.n; k++) {
		double v = pw_history_series_get(&m->scratch.series[k], p);
		if (!isfinite(v))
			continue;
		int64_t i = series_index(m, &m->scratch.series[k], k);
		if (i < 0)
			return;
		if (m->n[i] == 0 || v < m->min[i])
			m->min[i] = v;
		if (m->n[i] == 0 || v > m->max[i])
			m->max[i] = v;
		m->sum[i] += v;
		m->n[i]++;
	}
	m->samples++;
}

/* The minute summed so far into the minutes tier, as three points; then start afresh. */
static void minute_write(struct pw_history_store *st, int64_t now_ns)
{
	struct minute *m = &st->m;

	if (m->start_ms != INT64_MIN && m->samples) {
		for (int k = 0; k < 3; k++) {
			struct pw_history_point *p = (void *)((char *)st->out + (size_t)k * st->point_size);
			pw_history_point_unknown(p, st->cpu_cap, m->start_ms * NS_PER_MS);
			p->flags = (uint32_t)(k + PW_HISTORY_MEAN) << PW_HISTORY_STAT_SHIFT |
			           (m->samples < (1u << 24) ? m->samples : (1u << 24) - 1)
			                   << PW_HISTORY_COUNT_SHIFT;
			for (uint32_t i = 0; i < m->dict.n; i++) {
				if (!m->n[i])
					continue;
				double v = k == 0 ? m->sum[i] / m->n[i] : k == 1 ? m->min[i] : m->max[i];
				pw_history_series_set(&m->dict.series[i], p, st->cpu_cap, v);
			}
			pw_history_tier_append(st->minutes, p, now_ns);
		}
	}
	m->start_ms = INT64_MIN;
	m->samples = 0;
	m->dict.n = 0;
}

static int64_t minute_of(const struct pw_history_point *p)
{
	int64_t ms = p->real_ns / NS_PER_MS;
	return ms - ((ms % MINUTE_MS) + MINUTE_MS) % MINUTE_MS;
}

/* Sum p into its minute, writing the one before when p starts a new one. */
static void minute_feed(struct pw_history_store *st, const struct pw_history_point *p, int64_t now_ns)
{
	int64_t minute = minute_of(p);

	if (minute < st->m.start_ms)
		return; /* the wall clock stepped back into a minute already written */
	if (minute != st->m.start_ms) {
		minute_write(st, now_ns);
		st->m.start_ms = minute;
	}
	minute_add(&st->m, p, st->point_size);
}

/* At start: the minutes the runs before left unwritten (a crash, or a store from before the
 * minutes tier), summed from the samples on disk up to the first of this run. */
static void catch_up(struct pw_history_store *st, const struct pw_history_point *first, int64_t now_ns,
                     const char *dir)
{
	int64_t newest = pw_history_tier_newest_ms(st->minutes);
	int64_t since = newest == INT64_MIN ? INT64_MIN : (newest + MINUTE_MS) * NS_PER_MS - 1;
	/* Up to the first of this run, which is in the samples tier already, as its milliseconds. */
	int64_t until = first->real_ns / NS_PER_MS * NS_PER_MS - 1;
	/* No minute yet: from the oldest sample on disk (none: nothing to sum; the head the last run
	 * left is in a data file by now). */
	int64_t oldest = pw_history_tier_oldest_ms(st->samples);
	if (since == INT64_MIN && oldest != INT64_MIN)
		since = oldest * NS_PER_MS - 1;

	/* Chunks of an hour, so a week of samples is never in memory at once. */
	for (int64_t from = since; since != INT64_MIN && from < until;) {
		int64_t to = until - from > CATCH_UP_CHUNK_NS ? from + CATCH_UP_CHUNK_NS : until;
		void *pts = NULL;
		int n = pw_history_tier_read(dir, PW_HISTORY_SAMPLES, st->cpu_cap, st->point_size, from, to,
		                             UINT32_MAX, &pts);
		for (int i = 0; i < n; i++)
			minute_feed(st, (const void *)((const char *)pts + (size_t)i * st->point_size),
			            now_ns);
		pw_warm_give(pts); /* the next hour's points go in it */
		from = to;
	}
	/* The last minute of the runs before is complete as it will be, unless this run goes on in it:
	 * then its sums go on too, and the minute is written once, whole, when it ends. */
	if (st->m.start_ms != INT64_MIN && st->m.start_ms != minute_of(first)) {
		minute_write(st, now_ns);
		pw_log(LOG_INFO, "history store %s: minutes the last run had not summed are written", dir);
	}
	pw_warm_drop_all(); /* the reads above left buffers for a /history answer that may never come */
}

void pw_history_store_append(struct pw_history_store *st, const struct pw_history_point *p, int64_t now_ns)
{
	pw_history_tier_append(st->samples, p, now_ns);
	if (!st->caught_up && pw_history_tier_prepare(st->samples, now_ns) == 0 &&
	    pw_history_tier_prepare(st->minutes, now_ns) == 0) {
		catch_up(st, p, now_ns, pw_history_tier_dir(st->samples));
		st->caught_up = true;
	}
	minute_feed(st, p, now_ns);
}

static void write_transitions(struct pw_history_store *st, int64_t now_ns)
{
	uint64_t suppressed = 0;
	size_t n = st->nunwritten, written = 0;

	if (!n)
		return;
	int r = pw_history_transitions_append(st->dir, st->unwritten, n, st->unwritten[n - 1].real_ns,
	                                      st->transitions_ns, &written);
	memmove(st->unwritten, st->unwritten + written, (n - written) * sizeof(*st->unwritten));
	st->nunwritten = n - written;
	atomic_store(&st->transitions_failing, r < 0);
	if (r == 0)
		return;
	atomic_fetch_add(&st->transition_errors, 1);
	if (pw_ratelimit_allow(&st->complain, now_ns, &suppressed))
		pw_log(LOG_WARNING,
		       "history store %s: cannot write the alert transitions: %s; kept and tried again "
		       "(%" PRIu64 " failures not logged)",
		       st->dir, strerror(-r), suppressed);
}

void pw_history_store_flush(struct pw_history_store *st, int64_t now_ns)
{
	pw_history_tier_flush(st->samples, now_ns);
	pw_history_tier_flush(st->minutes, now_ns);
	write_transitions(st, now_ns);
}

void pw_history_store_transitions(struct pw_history_store *st, const struct pw_history_transition *t,
                                  size_t n, int64_t now_ns)
{
	if (n > TRANSITIONS_KEEP_MAX) { /* more than kept at once: the oldest go */
		atomic_fetch_add(&st->transitions_dropped, n - TRANSITIONS_KEEP_MAX);
		t += n - TRANSITIONS_KEEP_MAX;
		n = TRANSITIONS_KEEP_MAX;
	}
	size_t over =
	        st->nunwritten + n > TRANSITIONS_KEEP_MAX ? st->nunwritten + n - TRANSITIONS_KEEP_MAX : 0;
	if (over) {
		memmove(st->unwritten, st->unwritten + over,
		        (st->nunwritten - over) * sizeof(*st->unwritten));
		st->nunwritten -= over;
		atomic_fetch_add(&st->transitions_dropped, over);
	}
	memcpy(st->unwritten + st->nunwritten, t, n * sizeof(*t));
	st->nunwritten += n;
	write_transitions(st, now_ns);
}

void pw_history_store_close(struct pw_history_store *st)
{
	if (!st)
		return;
	minute_write(st, 0);
	pw_history_tier_close(st->samples);
	pw_history_tier_close(st->minutes);
	write_transitions(st, 0);
}

void pw_history_store_stats(const struct pw_history_store *st, struct pw_file_stats *ret)
{
	struct pw_file_stats m;
	struct pw_history_store *w = (struct pw_history_store *)st; /* atomics only */

	pw_history_tier_stats(st ? st->samples : NULL, ret);
	if (!st)
		return;
	pw_history_tier_stats(st->minutes, &m);
	ret->errors += m.errors + atomic_load(&w->transition_errors);
	ret->failing |= m.failing || atomic_load(&w->transitions_failing);
	ret->dropped += m.dropped + atomic_load(&w->transitions_dropped);
}

void pw_history_store_free(struct pw_history_store *st)
{
	if (!st)
		return;
	pw_history_tier_free(st->samples);
	pw_history_tier_free(st->minutes);
	pw_store_dict_done(&st->m.dict);
	pw_store_dict_done(&st->m.scratch);
	free(st->m.sum);
	free(st->m.min);
	free(st->m.max);
	free(st->m.n);
	free(st->out);
	free(st->dir);
	free(st);
}
