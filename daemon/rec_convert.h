/* rec_convert.h — perfwatchd --replay OLD --to-recording NEW: the samples replay decodes, written
 * again as a recording of this build (format version 3, this build's layout and schema block).
 * What a user with recordings of an older format wants: the same samples and runs, in a file the
 * next layout change cannot strand. Single-threaded, no logging: the caller reports. */
#ifndef PW_REC_CONVERT_H
#define PW_REC_CONVERT_H

#include "recording.h"

struct pw_rec_convert;

/* Create path (never an existing file, nor through a symlink; mode 0640) for the samples of a
 * recording with header src: same capacities, units and interval. Returns the converter, or NULL
 * with the reason in err. */
struct pw_rec_convert *pw_rec_convert_open(const char *path, const struct pw_rec_header *src, char *err,
                                           size_t err_size);

/* Append sample s (this build's layout, as pw_rec_decode gives it) with the source record's flags:
 * a PW_REC_SEGMENT record starts a segment here too. Returns 0 or -errno. */
int pw_rec_convert_add(struct pw_rec_convert *conv, const struct pw_sample *s, uint32_t flags);

/* Flush, sync and close; frees conv (NULL is fine). Returns 0, or -errno with the reason in err
 * when any write failed (the file is then removed: half a conversion is no recording to keep). */
int pw_rec_convert_close(struct pw_rec_convert *conv, char *err, size_t err_size);

#endif
