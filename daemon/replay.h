/* replay.h — perfwatchd --replay: the detector over a recording (replay.c) or over the history on
 * disk of a state dir (replay_store.c), as fast as the CPU goes, with the recorded timestamps. No
 * threads, no HTTP, no /proc: same input and flags, same output. */
#ifndef PW_REPLAY_H
#define PW_REPLAY_H

#include "alert.h"
#include "options.h"

/* Replay opts->replay with the detector configured by opts (--alert-for, --baseline-warmup, the
 * [rule.NAME] sections; resolve times default to three of the recording's intervals). Prints each
 * alert transition on stdout (text, or JSON lines with opts->replay_json) and a summary line on
 * stderr. With --to-store DIR, also writes the recording's history points and transitions into the
 * store of state dir DIR; with --to-recording FILE, writes the samples again to the new FILE in
 * this build's format (rec_convert.h). A directory goes to pw_replay_store_run(). Returns the exit status: 0
 * (also when the file ends in a record cut short), 1 when a corrupt record stopped it (reported
 * with its offset), 2 when the file cannot be replayed at all (missing, not a recording, another
 * format version or sample layout, corrupt header). */
int pw_replay_run(const struct pw_options *opts);

/* Replay the history store of state dir opts->replay (or the store directory itself) between
 * --since and --until: each stored point rebuilt into a sample (lib/history_sample.h says what
 * the store lacks), a new detector at each daemon run's first point. Output as pw_replay_run();
 * returns 0, 1 on a read error, 2 when there is no store or a time does not parse. */
int pw_replay_store_run(const struct pw_options *opts);

/* The detector's settings for a replay: opts', but rules without their own resolve time resolve
 * after three of the replayed samples' intervals, as the daemon that took them did (the --interval
 * of this command plays no part). An interval that is not positive, or so large that three of it
 * overflow (a crafted store header), leaves the resolve times as configured. */
void pw_replay_configure(const struct pw_options *opts, int64_t interval_ns, struct pw_detector_config *ret);

/* "perfwatchd: replay PATH: what" on stderr; returns status. */
int pw_replay_fail(const struct pw_options *opts, int status, const char *what);

/* One transition on stdout: the daemon's log line prefixed by its time, or a JSON line. Returns 0
 * or -ENOMEM. */
int pw_replay_print_event(const struct pw_options *opts, const struct pw_alert_event *ev);

#endif
