/* recorder.h — the flight recorder's writer: appends every sample the detector thread judges to a
 * recording (lib/recording.h). Blocking file I/O, so it runs on the detector's thread, never the
 * sampler's. A failed write is logged at most once a minute and retried with the next sample; a
 * file that cannot be opened, or was removed, is tried again every second; sampling and detection
 * go on. */
#ifndef PW_RECORDER_H
#define PW_RECORDER_H

#include "files_stats.h"
#include "recording.h"

#include <stddef.h>

struct pw_recorder;

/* Open path for appending samples described by hdr. An existing recording must have the same layout
 * and capacities, and a record cut short at its end (a crash while writing) is cut off; a file that
 * cannot be opened or written now is logged and tried again later. Returns NULL with the reason in
 * err only when path holds something we must not append to: another layout or capacities, not a
 * recording, a corrupt record, or another process recording into it. */
struct pw_recorder *pw_recorder_open(const char *path, const struct pw_rec_header *hdr, char *err,
                                     size_t err_size);

/* Append s (the detector thread, samples in order). NULL recorder: does nothing. */
void pw_recorder_write(struct pw_recorder *rec, const struct pw_sample *s);

/* Samples not recorded so far and whether recording fails now, for /metrics. Any thread; NULL
 * recorder: not configured. */
void pw_recorder_stats(const struct pw_recorder *rec, struct pw_file_stats *ret);

/* Close (after the detector thread stopped). NULL: nothing. */
void pw_recorder_free(struct pw_recorder *rec);

#endif
