/* history_tier.h — one tier of the history store (history_store.h): a sequence of history points
 * in files of its own under the store's directory (lib/store_codec.h is the format).
 *
 * Files: PREFIX-<first point's Unix ms>.pwh hold deflated blocks of points; PREFIX.head holds the
 * points of the block being filled, one frame each, written a few at a time (each flush), so a kill
 * loses at most the points since the last flush. A block reaches its data file (fdatasync) before the head is
 * emptied; at start a head left by a crash becomes a block, a data file's torn tail is cut and a
 * file that is not ours is removed, each logged. Files are open only while written.
 *
 * The writer side runs on the disk writer's thread (blocking I/O: never the sampler's or the
 * detector's); a write that fails is counted, logged at most once a minute, and retried with the
 * next point; the points of the block stay in memory meanwhile. Readers read the files without
 * any lock: frames carry checksums, a block is appended before the head is cut, and a point found
 * twice is kept once. */
#ifndef PW_HISTORY_TIER_H
#define PW_HISTORY_TIER_H

#include "files_stats.h"
#include "history.h"

#include <stddef.h>
#include <stdint.h>

struct pw_history_tier_config {
	const char *dir;              /* the store's directory (created 0700; its parent must exist) */
	const char *prefix;           /* "samples", "minutes": names the files */
	uint32_t tier;                /* enum pw_store_tier, in the files' headers */
	int64_t interval_ns;          /* time between points: sizes blocks */
	uint32_t points_per_interval; /* points that share a time (3 for a minute's mean, min, max); 0: 1 */
	uint32_t cpu_cap;             /* points are pw_history_point_size(cpu_cap) bytes */
	int64_t retention_ns;         /* drop files whose points are all older than this */
	uint64_t retention_size;      /* and the oldest files while the tier is larger */
	int64_t block_span_ns;    /* a block holds at most this much: what a crash may leave in the head */
	int64_t file_span_max_ns; /* a file holds at most this much (or retention_ns / 16) */
};

struct pw_history_tier;

/* A tier for cfg; nothing is touched on disk until it is prepared. NULL on allocation failure. */
struct pw_history_tier *pw_history_tier_new(const struct pw_history_tier_config *cfg);

/* The writer's side: one thread. */

/* Set up the directory and recover from a crash, once (tried again a second after a failure, of
 * now_ns, monotonic). Returns 0 when ready, else -errno (-EAGAIN: not yet time to try again). */
int pw_history_tier_prepare(struct pw_history_tier *t, int64_t now_ns);

/* The time of the newest point the tier holds, in Unix ms (INT64_MIN: none), once prepared. */
int64_t pw_history_tier_newest_ms(const struct pw_history_tier *t);

/* The first point of its oldest data file, in Unix ms (INT64_MIN: none), once prepared. */
int64_t pw_history_tier_oldest_ms(const struct pw_history_tier *t);

/* Its directory, as configured. */
const char *pw_history_tier_dir(const struct pw_history_tier *t);

/* Append p (the next point, in time order), preparing the tier first if needed. Its row reaches
 * the head at the next flush; the block reaches its data file when full. */
void pw_history_tier_append(struct pw_history_tier *t, const struct pw_history_point *p, int64_t now_ns);

/* Write the rows appended since the last flush into the head, in one write (group commit: a point
 * a row costs an open and a write, a few points share them). */
void pw_history_tier_flush(struct pw_history_tier *t, int64_t now_ns);

/* Write the block being filled and empty the head (a clean stop). */
void pw_history_tier_close(struct pw_history_tier *t);

/* Any thread: how writing fares, for /metrics and /status. */
void pw_history_tier_stats(const struct pw_history_tier *t, struct pw_file_stats *ret);

/* Free. A tier not closed leaves its head and block as a crash would, for the next start.
 * NULL: nothing. */
void pw_history_tier_free(struct pw_history_tier *t);

/* Any thread, from the files alone: the points of the tier PREFIX in dir with since_ns < real_ns <=
 * until_ns, oldest first, each point_size (>= pw_history_point_size(cpu_cap)) bytes; points of
 * the same time are all kept, a point older than the one before is dropped. *ret_points is
 * malloc'ed (NULL when none). Returns the count, -E2BIG when there are more than max_points, or
 * -ENOMEM; files that are missing or damaged are skipped. */
int pw_history_tier_read(const char *dir, const char *prefix, uint32_t cpu_cap, size_t point_size,
                         int64_t since_ns, int64_t until_ns, uint32_t max_points, void **ret_points);

struct pw_history_columns;

/* The same window of the samples tier into cols (lib/history_columns.h), after what it holds: no
 * history point in between. Returns 0; -ERANGE when a value does not fit the columns (read the
 * window as points then), -E2BIG past their bounds, -ENOMEM. */
int pw_history_tier_read_columns(const char *dir, const char *prefix, int64_t since_ns, int64_t until_ns,
                                 struct pw_history_columns *cols);

/* Any thread: the first point of the tier's oldest data file, in Unix ms (INT64_MIN when there is
 * none: its points, if any, are all in the head), and the sampling interval in that file's header
 * (the head's without one; 0 when unreadable). Returns 0, or -errno when dir cannot be listed. */
int pw_history_tier_describe(const char *dir, const char *prefix, int64_t *ret_first_ms,
                             int64_t *ret_interval_ns);

#endif
