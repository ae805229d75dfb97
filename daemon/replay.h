/* replay.h — perfwatchd --replay FILE: the detector over a recording, as fast as the CPU goes, with
 * the recorded timestamps. No threads, no HTTP, no /proc: same file and flags, same output. */
#ifndef PW_REPLAY_H
#define PW_REPLAY_H

#include "options.h"

/* Replay opts->replay with the detector configured by opts (--alert-for, --baseline-warmup, the
 * [rule.NAME] sections; resolve times default to three of the recording's intervals). Prints each
 * alert transition on stdout (text, or JSON lines with opts->replay_json) and a summary line on
 * stderr. Returns the exit status: 0 (also when the file ends in a record cut short), 1 when a
 * corrupt record stopped it (reported with its offset), 2 when the file cannot be replayed at all
 * (missing, not a recording, another format version or sample layout, corrupt header). */
int pw_replay_run(const struct pw_options *opts);

#endif
