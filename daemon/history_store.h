/* history_store.h — days of history on disk: every history point, in STATE_DIR/history, kept by
 * age and by size (lib/store_codec.h is the format).
 *
 * Files: samples-<first point's Unix ms>.pwh hold deflated blocks of up to a few minutes of
 * points; samples.head holds the points of the block being filled, one frame each as they come,
 * so a kill loses at most what the disk writer had not written yet. A block reaches its data file
 * before the head is emptied; at start a head left by a crash becomes a block, a data file's torn
 * tail is cut and a file that is not ours is removed, each logged.
 *
 * The writer side runs on the disk writer's thread (blocking I/O: never the sampler's or the
 * detector's); a write that fails is counted, logged at most once a minute, and retried with the
 * next point; the points of the block stay in memory meanwhile. Readers (the HTTP thread) read the
 * files without taking any lock: frames carry checksums, a block is appended before the head is
 * cut, and a point found twice is kept once. */
#ifndef PW_HISTORY_STORE_H
#define PW_HISTORY_STORE_H

#include "files_stats.h"
#include "history.h"

#include <stddef.h>
#include <stdint.h>

struct pw_history_store_config {
	const char *dir;         /* the store's directory (created 0700; its parent must exist) */
	int64_t interval_ns;     /* the sampling interval: sizes blocks */
	uint32_t cpu_cap;        /* points are pw_history_point_size(cpu_cap) bytes */
	int64_t retention_ns;    /* drop files whose points are all older than this */
	uint64_t retention_size; /* and the oldest files while the store is larger */
};

struct pw_history_store;

/* The store's directory under state_dir (STATE_DIR/history), into buf. */
void pw_history_store_dir(const char *state_dir, char *buf, size_t size);

/* A store for cfg; nothing is touched on disk until the first append. NULL on allocation failure. */
struct pw_history_store *pw_history_store_new(const struct pw_history_store_config *cfg);

/* The writer's side: one thread. Append p (the next point, in time order); now_ns is monotonic,
 * for retries and rate limits. */
void pw_history_store_append(struct pw_history_store *st, const struct pw_history_point *p, int64_t now_ns);

/* Write the block being filled and empty the head (a clean stop). */
void pw_history_store_close(struct pw_history_store *st);

/* Any thread: how writing fares, for /metrics and /status. */
void pw_history_store_stats(const struct pw_history_store *st, struct pw_file_stats *ret);

/* Close if the writer did not, and free. NULL: nothing. */
void pw_history_store_free(struct pw_history_store *st);

/* Any thread, from the files alone: the points with since_ns < real_ns <= until_ns, oldest first,
 * each point_size (>= pw_history_point_size(cpu_cap)) bytes. *ret_points is malloc'ed (NULL when
 * none). Returns the count, -E2BIG when there are more than max_points, or -ENOMEM; files that
 * are missing or damaged are skipped. */
int pw_history_store_read(const char *dir, uint32_t cpu_cap, size_t point_size, int64_t since_ns,
                          int64_t until_ns, uint32_t max_points, void **ret_points);

#endif
