/* state_file.c — DIR/baselines: write to a temporary, fsync, rename, fsync the directory.
 *
 * The directory may hold what someone else put there (the daemon often runs as root): the temporary
 * is created exclusively (O_EXCL: never through a symlink, never into an existing file or FIFO),
 * mode 0600, and files are read without following links or blocking, and only when regular. */
#define _GNU_SOURCE
#include "state_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_STATE_BYTES (256u << 20) /* far above any real file: a bigger one is not ours */

static int write_all(int fd, const unsigned char *p, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

int pw_state_write(const char *dir, const void *buf, size_t len, char *err, size_t n)
{
	return pw_state_write_file(dir, PW_STATE_FILE, buf, len, err, n);
}

/* Create the temporary exclusively. One left behind (a crash mid-save, or planted: a symlink, a
 * FIFO) is removed first: unlink removes a link, never its target, and if another appears before
 * our open, O_EXCL refuses it rather than follows it. */
static int create_tmp(const char *tmp)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0600);

	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, 0600);
	return fd < 0 ? -errno : fd;
}

int pw_state_write_file(const char *dir, const char *name, const void *buf, size_t len, char *err, size_t n)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	const char *step = "create";
	int r, fd;

	if (snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name) >= (int)sizeof(tmp) ||
	    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return snprintf(err, n, "%s: path too long", dir), -ENAMETOOLONG;
	fd = create_tmp(tmp);
	if (fd < 0)
		return r = fd, snprintf(err, n, "cannot create %s: %s", tmp, strerror(-r)), r;
	/* The data must be on disk before the rename makes it the file: else a crash could leave a
	 * renamed but empty file. */
	if ((r = write_all(fd, buf, len)) < 0)
		step = "write";
	else if (fsync(fd) < 0)
		r = -errno, step = "fsync";
	if (close(fd) < 0 && r == 0)
		r = -errno, step = "close";
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno, step = "rename";
	if (r < 0) {
		snprintf(err, n, "cannot %s %s: %s", step, tmp, strerror(-r));
		unlink(tmp);
		return r;
	}
	/* And the rename itself must survive a power cut. */
	if ((r = fsync_dir(dir)) < 0)
		return snprintf(err, n, "cannot fsync %s: %s", dir, strerror(-r)), r;
	return 0;
}

/* Read the regular file fd of fstat st whole, if it is at most max_len bytes (also while read). */
static int read_fd(int fd, const struct stat *st, size_t max_len, unsigned char **ret_buf, size_t *ret_len)
{
	unsigned char *buf;
	size_t len = 0;

	if ((uint64_t)st->st_size > max_len)
		return -EFBIG;
	/* One byte more than the size says, to notice a file that grew while we read it. */
	size_t cap = (size_t)st->st_size + 1;
	if (!(buf = malloc(cap)))
		return -ENOMEM;
	for (;;) {
		ssize_t got = read(fd, buf + len, cap - len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int r = -errno;
			free(buf);
			return r;
		}
		if (got == 0 || (len += (size_t)got) == cap)
			break;
	}
	if (len > max_len) { /* it grew past the bound as we read */
		free(buf);
		return -EFBIG;
	}
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int pw_state_read(const char *dir, void **ret_buf, size_t *ret_len, char *err, size_t n)
{
	return pw_state_read_file(dir, PW_STATE_FILE, MAX_STATE_BYTES, ret_buf, ret_len, err, n);
}

int pw_state_read_file(const char *dir, const char *name, size_t max_len, void **ret_buf, size_t *ret_len,
                       char *err, size_t n)
{
	char path[PATH_MAX];
	unsigned char *buf = NULL;
	size_t len = 0;
	struct stat st;
	int fd, r;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return snprintf(err, n, "%s: path too long", dir), -ENAMETOOLONG;
	/* O_NONBLOCK: opening a FIFO would wait for a writer, and start with it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0)
		return r = -errno, snprintf(err, n, "cannot open %s: %s", path, strerror(-r)), r;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL, snprintf(err, n, "cannot read %s: not a regular file", path);
	else
		r = read_fd(fd, &st, max_len, &buf, &len);
	close(fd);
	if (r == -EINVAL)
		return r;
	if (r < 0)
		return snprintf(err, n, "cannot read %s: %s", path, strerror(-r)), r;
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

int pw_state_check_dir(const char *dir, char *err, size_t n)
{
	struct stat st;
	int r;

	if (stat(dir, &st) < 0)
		return r = -errno, snprintf(err, n, "%s: %s", dir, strerror(-r)), r;
	if (!S_ISDIR(st.st_mode))
		return snprintf(err, n, "%s: not a directory", dir), -ENOTDIR;
	if (access(dir, W_OK | X_OK) < 0)
		return r = -errno, snprintf(err, n, "%s: cannot write there: %s", dir, strerror(-r)), r;
	return 0;
}
