/* fixture_util.c — shared helpers of the unit suites. */
#include "fixture_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pw_fixture_path(const char *relpath)
{
	static char path[4096];
	const char *root = getenv("PW_FIXTURES");

	if (!root)
		ck_abort_msg("PW_FIXTURES is not set (run through ctest)");
	snprintf(path, sizeof(path), "%s/%s", root, relpath);
	return path;
}

char *pw_file_read(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		ck_abort_msg("cannot open %s: %s", path, strerror(errno));
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (len + 1 >= cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			ck_assert_ptr_nonnull(buf);
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	fclose(f);
	buf[len] = '\0';
	*ret_len = len;
	return buf;
}

char *pw_fixture_read(const char *relpath, size_t *ret_len)
{
	return pw_file_read(pw_fixture_path(relpath), ret_len);
}

int pw_run_suite(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
