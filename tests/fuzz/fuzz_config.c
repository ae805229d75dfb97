/* fuzz_config.c — libFuzzer harness: the config file reader (daemon/options.c over libinih, with
 * receiver.c and http_auth.c for their sections). The input is the file, read through a memfd by
 * `perfwatchd --config FILE --check-config`. It must return 0 or -EINVAL with a reason; for a
 * problem on a line, "FILE:LINE: reason". */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];
static struct pw_options opts;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";

	if (fd < 0) {
		if ((fd = memfd_create("perfwatchd.conf", 0)) < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	char *argv[] = {"perfwatchd", "--config", path, "--check-config", NULL};
	int r = pw_options_load(&opts, 4, argv, err, sizeof(err));
	if (r == -EINVAL || r == -ENOMEM) {
		size_t plen = strlen(path);
		if (!err[0] || memchr(err, '\0', sizeof(err)) == NULL)
			abort();
		/* A file error names the file, and a line number when it has one. */
		if (strncmp(err, path, plen) == 0 && err[plen] != ':')
			abort();
	} else if (r != 0) {
		abort();
	}
	return 0;
}
