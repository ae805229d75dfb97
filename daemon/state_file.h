/* state_file.h — the detector's saved baselines on disk: DIR/baselines, replaced atomically so a
 * crash at any moment leaves either the old file or the new one, never a mix. The bytes are
 * lib/detector_state.c's; this module only moves them. Blocking I/O: call it from the detector's
 * thread (or at startup), never from the sampler. */
#ifndef PW_STATE_FILE_H
#define PW_STATE_FILE_H

#include <stddef.h>

#define PW_STATE_FILE "baselines"

/* The same for DIR/name (the notifier keeps its queue in DIR/notifications). The reader refuses a
 * file over max_len bytes with -EFBIG: the writer's own bound, so what it writes reads back. */
int pw_state_write_file(const char *dir, const char *name, const void *buf, size_t len, char *err,
                        size_t err_size);
int pw_state_read_file(const char *dir, const char *name, size_t max_len, void **ret_buf, size_t *ret_len,
                       char *err, size_t err_size);

/* Write buf to DIR/baselines.tmp, fsync it, rename it over DIR/baselines and fsync DIR. Returns 0,
 * or -errno with "what: why" in err (the temporary file is removed, the old file stays). */
int pw_state_write(const char *dir, const void *buf, size_t len, char *err, size_t err_size);

/* Read DIR/baselines whole (at most 256 MiB) into a malloc'd *ret_buf (the caller frees
 * it) and its size into *ret_len. Returns 0; -ENOENT when there is none (nothing saved yet, err left
 * alone); other -errno with the reason in err. Outputs untouched on failure. */
int pw_state_read(const char *dir, void **ret_buf, size_t *ret_len, char *err, size_t err_size);

/* Check that DIR is a directory we can create files in. Returns 0 or -errno with the reason. */
int pw_state_check_dir(const char *dir, char *err, size_t err_size);

#endif
