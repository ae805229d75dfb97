/* fixture_util.h — helpers the unit suites share: load a fixture file, run a suite. */
#ifndef PW_FIXTURE_UTIL_H
#define PW_FIXTURE_UTIL_H

#include <check.h>
#include <stddef.h>

/* Read $PW_FIXTURES/relpath into a malloc'd buffer (NUL-terminated for convenience; parsers get the
 * length). Aborts the test (ck_abort) if it cannot be read. */
char *pw_fixture_read(const char *relpath, size_t *ret_len);

/* Same, for an absolute or cwd-relative path. */
char *pw_file_read(const char *path, size_t *ret_len);

/* Full path of a fixture (static buffer, valid until the next call). */
const char *pw_fixture_path(const char *relpath);

/* Run one suite and return the process exit status (0 when every test passed). */
int pw_run_suite(Suite *suite);

#endif
