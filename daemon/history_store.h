/* history_store.h — days of history on disk, in STATE_DIR/history: every history point (the
 * samples tier, history_tier.h), and per minute the mean, min and max of the samples, kept ten
 * times longer (the minutes tier), each within its share of the retention size.
 *
 * The minutes tier is a function of the samples tier: a minute is written once a sample of the
 * next one arrives (or at a stop); at start, the minutes that a crash left unwritten are summed
 * from the samples on disk, so a kill loses no minute either. Runs on the disk writer's thread. */
#ifndef PW_HISTORY_STORE_H
#define PW_HISTORY_STORE_H

#include "files_stats.h"
#include "history.h"
#include "history_json.h"

#include <stddef.h>
#include <stdint.h>

#define PW_HISTORY_SAMPLES "samples" /* the tiers' file prefixes, for pw_history_tier_read */
#define PW_HISTORY_MINUTES "minutes"
#define PW_HISTORY_MINUTE_NS (60 * INT64_C(1000000000))

struct pw_history_store_config {
	const char *dir;         /* the store's directory (created 0700; its parent must exist) */
	int64_t interval_ns;     /* the sampling interval */
	uint32_t cpu_cap;        /* points are pw_history_point_size(cpu_cap) bytes */
	int64_t retention_ns;    /* samples are kept this long, minutes ten times longer */
	uint64_t retention_size; /* both tiers together at most this many bytes */
};

struct pw_history_store;

/* The store's directory under state_dir (STATE_DIR/history), into buf. */
void pw_history_store_dir(const char *state_dir, char *buf, size_t size);

/* A store for cfg; nothing is touched on disk until the first append. NULL on allocation failure. */
struct pw_history_store *pw_history_store_new(const struct pw_history_store_config *cfg);

/* The writer's side: one thread. Append p (the next sample's point, in time order); now_ns is
 * monotonic, for retries and rate limits. It is safe from a kill after the next flush. */
void pw_history_store_append(struct pw_history_store *st, const struct pw_history_point *p, int64_t now_ns);

/* Write the points appended since the last flush to the heads (pw_history_tier_flush). */
void pw_history_store_flush(struct pw_history_store *st, int64_t now_ns);

/* Append n alert transitions to the store's transitions file (kept as long as the minutes). */
void pw_history_store_transitions(struct pw_history_store *st, const struct pw_history_transition *t,
                                  size_t n, int64_t now_ns);

/* Write the minute being summed and both tiers' blocks being filled (a clean stop). */
void pw_history_store_close(struct pw_history_store *st);

/* Any thread: how writing fares (both tiers), for /metrics and /status. */
void pw_history_store_stats(const struct pw_history_store *st, struct pw_file_stats *ret);

/* Free. A store not closed leaves its heads as a crash would: the next start recovers them.
 * NULL: nothing. */
void pw_history_store_free(struct pw_history_store *st);

#endif
