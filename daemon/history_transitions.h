/* history_transitions.h — the alert transitions kept with the history on disk
 * (STATE_DIR/history/transitions), so an alert span from last night is drawn with its samples.
 *
 * A text file, one transition a line, tab-separated under a header line that names the columns
 * (time_ms, alert, from, to, severity, value, baseline, scope): alerts and states by name, so a
 * newer perfwatch reads an older file and a column it does not know is skipped. Appended on the
 * disk writer's thread (O_APPEND, one write a line: a crash leaves at most a torn last line,
 * which readers skip); rewritten without the lines older than its retention once it passes
 * 256 KiB. Readers (the HTTP thread) read it whole, without a lock. */
#ifndef PW_HISTORY_TRANSITIONS_H
#define PW_HISTORY_TRANSITIONS_H

#include "history_json.h"

#include <stddef.h>
#include <stdint.h>

#define PW_HISTORY_TRANSITIONS_FILE "transitions"

/* Append the n transitions to dir's file (created 0600, with its header, when missing), then drop
 * the lines older than now_real_ns - retention_ns if the file has grown past its bound. Returns 0
 * or -errno (nothing half written stays: a failed line is cut off); *ret_written (may be NULL):
 * how many of t are in the file, the first ones. */
int pw_history_transitions_append(const char *dir, const struct pw_history_transition *t, size_t n,
                                  int64_t now_real_ns, int64_t retention_ns, size_t *ret_written);

/* The transitions with since_ns < time <= until_ns from dir's file, oldest first, at most cap of
 * them (the newest when more) into ret. Lines that do not parse are skipped. Returns the count. */
size_t pw_history_transitions_read(const char *dir, int64_t since_ns, int64_t until_ns,
                                   struct pw_history_transition *ret, size_t cap);

#endif
