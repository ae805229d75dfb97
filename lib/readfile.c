/* readfile.c — whole-file pread loop, the only I/O primitive the collector uses. */
#define _GNU_SOURCE
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static int grow(struct pw_filebuf *buf)
{
	size_t cap = buf->cap ? buf->cap * 2 : 4096;
	char *data = realloc(buf->data, cap);

	if (!data)
		return -ENOMEM;
	buf->data = data;
	buf->cap = cap;
	return 0;
}

int pw_read_whole(int fd, struct pw_filebuf *buf)
{
	size_t len = 0;

	if (buf->cap == 0 && grow(buf) < 0)
		return -ENOMEM;
	for (;;) {
		ssize_t n = pread(fd, buf->data + len, buf->cap - len, (off_t)len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		/* A full buffer may mean more content: grow once and read on. */
		if (len == buf->cap && grow(buf) < 0)
			return -ENOMEM;
	}
	buf->len = len;
	return 0;
}

void pw_filebuf_done(struct pw_filebuf *buf)
{
	free(buf->data);
	buf->data = NULL;
	buf->cap = buf->len = 0;
}

int pw_read_at(int dirfd, const char *path, struct pw_filebuf *buf)
{
	int fd = dirfd >= 0 ? openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;

	if (fd < 0)
		return dirfd >= 0 ? -errno : -ENOENT;
	int r = pw_read_whole(fd, buf);
	close(fd);
	return r;
}
