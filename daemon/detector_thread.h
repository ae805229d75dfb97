/* detector_thread.h — the detector's thread: wakes on each new sample, feeds every sample in order to the
 * detector, logs alert transitions, and publishes the detector's view for the HTTP readers. A reader
 * of the sampler's ring like any other: it never slows the sampler. */
#ifndef PW_DETECTOR_THREAD_H
#define PW_DETECTOR_THREAD_H

#include "detector.h"
#include "files_stats.h"
#include "sampler.h"

struct pw_detector_thread;

/* Create the detector for the sampler's samples and hook it to the sampler's notifications. Call
 * before pw_sampler_start. With a state_dir (NULL or "": none), the baselines saved there are
 * loaded now (a missing, unreadable, corrupt or foreign file is logged and ignored: the detector
 * relearns), saved every save_every_ns of sample time and at stop: snapshots taken on the detector's
 * thread, written by the disk writer's (disk_writer.h).
 * Returns NULL with a reason in err. */
struct pw_detector_thread *pw_detector_thread_new(struct pw_sampler *sampler,
                                                  const struct pw_detector_config *config,
                                                  const char *state_dir, int64_t save_every_ns, char *err,
                                                  size_t err_size);

/* Append every judged sample to recorder, taken over (the disk writer writes and closes it; freed
 * with the detector thread). Call before pw_detector_thread_start. */
struct pw_recorder;
struct pw_history_store;
void pw_detector_thread_record(struct pw_detector_thread *detector_thread, struct pw_recorder *recorder);

/* Hand store (history on disk) to the thread's disk writer, before start; it owns it from now on. */
void pw_detector_thread_store(struct pw_detector_thread *detector_thread, struct pw_history_store *store);
/* Look up evidence the samples lack (lib/probes.h) under these roots while alerts are active, on
 * the detector's thread; the published view and the logged events carry it. Call before
 * pw_detector_thread_start. Returns 0 or -ENOMEM. */
int pw_detector_thread_probe(struct pw_detector_thread *detector_thread, const char *procfs,
                             const char *sysfs, int64_t interval_ns);
/* Hand alert transitions to notifier too (NULL: none). Call before pw_detector_thread_start. */
struct pw_notifier;
/* The log of alert transitions this thread appends to (GET /history reads it); lives as long as
 * the detector thread. */
struct pw_transitions;
const struct pw_transitions *pw_detector_thread_transitions(const struct pw_detector_thread *detector_thread);

void pw_detector_thread_set_notifier(struct pw_detector_thread *detector_thread,
                                     struct pw_notifier *notifier);

int pw_detector_thread_start(struct pw_detector_thread *detector_thread);

/* Stop and join; idempotent. With a state dir or a recorder, the thread judges (and records) what
 * is left in the ring and saves the baselines before it ends: stop the sampler first. Then the disk
 * writer writes what is queued, waiting at most PW_DISK_WRITER_STOP_WAIT_NS for a disk that hangs. */
void pw_detector_thread_stop(struct pw_detector_thread *detector_thread);
void pw_detector_thread_free(struct pw_detector_thread *detector_thread);

/* Any thread: hand new detector settings (a reload) to the detector thread, which applies them with
 * pw_detector_reconfigure at once (it is woken) and before it judges any further sample, keeping baselines
 * and alert state. config is copied; when several arrive before that, the last wins. */
void pw_detector_thread_reconfigure(struct pw_detector_thread *detector_thread,
                                    const struct pw_detector_config *config);

/* Any thread: how the baselines file and the recording fare (write errors, failing now, dropped,
 * blocked now) into ret->file[PW_FILE_BASELINES] and [PW_FILE_RECORDING]; the other entries are
 * left alone. */
void pw_detector_thread_files(const struct pw_detector_thread *detector_thread, struct pw_files_stats *ret);

/* Any thread: the newest published view into ret. False before the first sample was judged. */
bool pw_detector_thread_view(const struct pw_detector_thread *detector_thread, struct pw_detector_view *ret);

#endif
