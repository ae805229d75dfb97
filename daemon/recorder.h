/* recorder.h — the flight recorder's file: appends the records the detector thread encoded (lib/
 * recording.h) to a recording. Blocking file I/O, so it runs on the disk writer's thread
 * (disk_writer.h), never the sampler's or the detector's. A failed write is logged at most once a
 * minute and retried with the next record; a file that cannot be opened, or was removed, is tried
 * again every second; sampling and detection go on. */
#ifndef PW_RECORDER_H
#define PW_RECORDER_H

#include "files_stats.h"
#include "recording.h"

#include <stddef.h>

struct pw_recorder;

/* Open path for appending samples described by hdr (pw_rec_header_init's: this build's). An existing
 * recording must have the same layout and capacities, and a record cut short at its end (a crash while
 * writing) is cut off; a file that cannot be opened or written now is logged and tried again later. Returns
 * NULL with the reason in err only when path holds something we must not append to: another layout or
 * capacities, not a recording, a corrupt record, or another process recording into it. */
struct pw_recorder *pw_recorder_open(const char *path, const struct pw_rec_header *hdr, char *err,
                                     size_t err_size);

/* Append record (len bytes, as pw_rec_encode made it; its frame's PW_REC_SEGMENT flag is set or
 * cleared here) of the sample taken at now_ns; seq numbers the encoder's records (1, 2, ...), so
 * a delta after a gap shows. A delta that does not follow the file's last record, or any record
 * while the file cannot be opened or written, is not written and counted as not recorded. Returns
 * true when the next record written must be a keyframe (ask the encoder for one). One thread only. */
bool pw_recorder_append(struct pw_recorder *rec, void *record, size_t len, uint64_t seq, int64_t now_ns);

/* The header this recording's records follow (the encoder's). */
const struct pw_rec_header *pw_recorder_header(const struct pw_recorder *rec);

/* Samples not recorded so far and whether recording fails now, for /metrics. Any thread; NULL
 * recorder: not configured. */
void pw_recorder_stats(const struct pw_recorder *rec, struct pw_file_stats *ret);

/* The path it records to. */
const char *pw_recorder_path(const struct pw_recorder *rec);

/* Log what was recorded, fdatasync and close, on the thread that appends (it may block); once.
 * NULL: nothing. */
void pw_recorder_close(struct pw_recorder *rec);

/* Close if not closed yet, and free. NULL: nothing. */
void pw_recorder_free(struct pw_recorder *rec);

#endif
