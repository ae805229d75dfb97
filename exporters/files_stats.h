/* files_stats.h — how perfwatchd's own files fare (the baselines and the notification queue in the
 * state dir, the --record file), as plain data: the daemon fills it, the Prometheus exporter renders
 * it (files_prom.c). A full, read-only or removed disk shows here, not only in the log. */
#ifndef PW_FILES_STATS_H
#define PW_FILES_STATS_H

#include "outbuf.h"

#include <stdbool.h>
#include <stdint.h>

enum pw_own_file {
	PW_FILE_BASELINES,     /* STATE_DIR/baselines */
	PW_FILE_NOTIFICATIONS, /* STATE_DIR/notifications */
	PW_FILE_RECORDING,     /* --record FILE */
	PW_FILE_HISTORY,       /* STATE_DIR/history */
	PW_FILE_COUNT
};

/* A write in progress this long is "stuck" for /status: a record is one write() and a save two
 * fsyncs of a small file, milliseconds on a working disk and rarely a second on a busy one; past
 * this, the disk hangs (fsfreeze, a dead NFS server, a failing device). */
#define PW_FILE_STUCK_NS (2 * INT64_C(1000000000))

struct pw_file_stats {
	bool configured; /* the daemon writes this file at all; else no series */
	bool failing;    /* the last write (or open) failed and none has succeeded since */
	bool stuck;      /* blocked_ns >= PW_FILE_STUCK_NS */
	uint64_t errors; /* saves that failed (baselines, notifications); samples not recorded */
	/* Writes given up because the writer thread was behind: records that did not fit its queue,
	 * baselines snapshots replaced by a newer one before they were written. */
	uint64_t dropped;
	int64_t blocked_ns; /* how long the write in progress has been waiting; 0: none in progress */
	uint64_t waiting;   /* records queued for the writer (recording), for /status */
};

struct pw_files_stats {
	struct pw_file_stats file[PW_FILE_COUNT];
};

/* The file label value of f: "baselines", "notifications", "recording", "history". */
const char *pw_own_file_str(enum pw_own_file f);

/* Append the families of the configured files (text 0.0.4, or OpenMetrics when om) to out; nothing
 * when none is. Pure; the caller checks pw_outbuf_ok. */
void pw_files_prom_render(struct pw_outbuf *out, bool om, const struct pw_files_stats *stats);

#endif
