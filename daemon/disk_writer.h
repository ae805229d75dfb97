/* disk_writer.h — the writer thread: the flight recording's records and the baselines' saves go
 * to disk from a thread of their own, so a disk that hangs (fsfreeze, a dead NFS server) stalls
 * only it, never the detector. The detector thread hands work over without waiting:
 *
 * - records, encoded on the detector thread, wait in a FIFO bounded in bytes; when it is full the
 *   record is dropped and counted, and the next one is a keyframe, so the file stays decodable;
 * - a baselines snapshot waits in one slot: a newer one replaces an older one not yet written
 *   (counted), never queued twice.
 *
 * The two sides share a mutex held only to link a record or swap a buffer, never during I/O. */
#ifndef PW_DISK_WRITER_H
#define PW_DISK_WRITER_H

#include "alert.h"
#include "files_stats.h"
#include "sample.h"

#include <stddef.h>
#include <stdint.h>

/* Records that may wait for the disk: at 1-2 KB a record, minutes of a small host at 1 s; a
 * 256-CPU host's 44 KB records, about 90 of them. */
#define PW_DISK_WRITER_QUEUE_BYTES (4u << 20)
/* How long a stop waits for the queue, the last baselines and the recording's fdatasync to reach
 * the disk before it gives up on a disk that hangs. */
#define PW_DISK_WRITER_STOP_WAIT_NS (5 * INT64_C(1000000000))

struct pw_disk_writer;
struct pw_recorder;
struct pw_history_store;

/* A writer for recorder (NULL: no recording; taken over: the writer closes it, on its thread), for
 * store (NULL: no history on disk; taken over likewise) and for the baselines in state_dir (NULL: none),
 * snapshots of at most state_size bytes; at most queue_bytes of records wait (one always may). Returns NULL
 * on allocation failure; recorder is then still the caller's. */
struct pw_disk_writer *pw_disk_writer_new(struct pw_recorder *recorder, struct pw_history_store *store,
                                          const char *state_dir, size_t state_size, size_t queue_bytes);

/* Start its thread; what was handed over before waits until then. Returns 0 or -errno. */
int pw_disk_writer_start(struct pw_disk_writer *w);

/* The producer's side: one thread (the detector's), never blocked by the disk. */

/* Encode s (samples in order) and queue its record; when the queue is full, drop it (counted,
 * logged once a minute) and make the next record a keyframe. No recording: nothing. */
void pw_disk_writer_record(struct pw_disk_writer *w, const struct pw_sample *s);

/* Queue s's history point for the store, in the same bounded queue as records (a full queue drops
 * it, counted). No store: nothing. */
void pw_disk_writer_history(struct pw_disk_writer *w, const struct pw_sample *s);

/* Queue the n alert transitions (events of the detector at now_ns, monotonic) for the store's
 * transitions file, in the same queue. No store: nothing. */
void pw_disk_writer_transitions(struct pw_disk_writer *w, const struct pw_alert_event *events, size_t n,
                                int64_t now_ns);

/* The buffer (state_size bytes) to encode the next baselines snapshot into; the producer's until
 * pw_disk_writer_save. */
void *pw_disk_writer_state_buffer(struct pw_disk_writer *w);

/* Hand that buffer's first len bytes to the writer as the snapshot taken at now_ns (sample
 * time); len < 0: encoding failed, counted as a failed save. A snapshot not yet written is
 * replaced (counted as dropped). final: the last one, its failure always logged. */
void pw_disk_writer_save(struct pw_disk_writer *w, int len, int64_t now_ns, bool final);

/* Any thread: the baselines', the recording's and the history store's figures into
 * ret->file[PW_FILE_BASELINES], [PW_FILE_RECORDING] and [PW_FILE_HISTORY] (the other entries are
 * left alone), blocked_ns and stuck as of now_ns (monotonic). NULL writer: those not configured. */
void pw_disk_writer_files(const struct pw_disk_writer *w, int64_t now_ns, struct pw_files_stats *ret);

/* Stop: the writer writes what is queued and the last snapshot, closes the recording and ends
 * (not started: it is started for that).
 * Waits at most wait_ns for that; a disk that hangs longer is given up on with a log line (what
 * was not written is lost, the thread is left blocked and the writer is not freed). Then frees
 * the writer. NULL: nothing. */
void pw_disk_writer_stop(struct pw_disk_writer *w, int64_t wait_ns);

#endif
