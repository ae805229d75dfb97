/* readfile.h — whole-file reads from an open descriptor into a reusable buffer. */
#ifndef PW_READFILE_H
#define PW_READFILE_H

#include <stddef.h>

struct pw_filebuf {
	char *data;
	size_t cap;
	size_t len;
};

/* Read the whole file behind fd from offset 0 into buf (pread; retried on EINTR), growing buf when
 * the content does not fit. Returns 0 (buf->len set, possibly 0), -errno of the read, or -ENOMEM. */
int pw_read_whole(int fd, struct pw_filebuf *buf);

/* Open path relative to dirfd (O_NONBLOCK: a FIFO planted there must not hang the caller), read it
 * whole into buf as pw_read_whole does, and close it. Returns 0 or -errno (-ENOENT when absent or dirfd < 0).
 * For small files read once, such as sysfs attributes found at a rescan. */
int pw_read_at(int dirfd, const char *path, struct pw_filebuf *buf);

/* Free the buffer's memory; accepts an empty buffer. */
void pw_filebuf_done(struct pw_filebuf *buf);

#endif
