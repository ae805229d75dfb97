/* fixture_util.h — helpers the unit suites share: fixture files and kernel captures, exact-size
 * copies for ASan and a parser suite's wrappers around them, the cut-at-every-offset and
 * random-input loops of the parser suites, golden files, hand-built samples, and running a suite.
 * Every helper aborts the current test (ck_abort) on a failure of its own, so callers need not
 * check. */
#ifndef PW_FIXTURE_UTIL_H
#define PW_FIXTURE_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pw_sample;

/* Room for the capture ids pw_fixture_kernel_ids() lists (tests/fixtures/kernels holds 12). */
#define PW_FIXTURE_KERNELS_MAX 64

/* ---- fixture files ---- */

/* Read $PW_FIXTURES/relpath into a malloc'd buffer (NUL-terminated for convenience; parsers get the
 * length). Aborts the test (ck_abort) if it cannot be read. */
char *pw_fixture_read(const char *relpath, size_t *ret_len);

/* Same, for an absolute or cwd-relative path. */
char *pw_file_read(const char *path, size_t *ret_len);

/* Full path of a fixture (static buffer, valid until the next call). */
const char *pw_fixture_path(const char *relpath);

/* "kernels/<id>/<file>", a path for pw_fixture_read() (static buffer, valid until the next call). */
const char *pw_fixture_kernel_path(const char *id, const char *file);

/* The first number after key at the start of a line of a fixture text file: "nproc:" of a MANIFEST,
 * or with key "" the number the first line starts with (TIME, proc/uptime). Aborts the test if no
 * line starts with key or no number follows it. */
uint64_t pw_fixture_number(const char *relpath, const char *key);

/* nproc of capture id, from the "nproc:" line of its MANIFEST. */
uint64_t pw_fixture_kernel_nproc(const char *id);

/* Ids of the captures under $PW_FIXTURES/kernels, sorted (so the snapshots of one machine are in
 * time order): fills ids[0..n) with malloc'd names and returns n. Aborts the test if the directory
 * cannot be read, is empty or holds more than cap. Release with pw_fixture_kernel_ids_free(). */
size_t pw_fixture_kernel_ids(char **ids, size_t cap);

/* Free the n names pw_fixture_kernel_ids() filled in. */
void pw_fixture_kernel_ids_free(char **ids, size_t n);

/* Call check(id) for every capture, in pw_fixture_kernel_ids() order; returns how many there were. */
size_t pw_fixture_each_kernel(void (*check)(const char *id));

/* Compare text with the golden fixture relpath and fail the test at the first line that differs;
 * with PW_REGENERATE_GOLDEN=1 in the environment, rewrite the golden file with text instead. */
void pw_fixture_check_golden(const char *relpath, const char *text);

/* ---- parser input ---- */

/* A malloc'd copy of buf[0..len) in a block of exactly len bytes with no NUL after it, so ASan
 * reports any read past len. Never NULL (aborts the test); the caller frees it. */
char *pw_test_exact_copy(const char *buf, size_t len);

/* The three wrappers of a parser suite, for a parser int parse(const char *buf, size_t len, type *ret):
 * parse_exact(buf, len, ret) parses an exact copy (pw_test_exact_copy), parse_str(s, ret) a string,
 * parse_fixture(relpath) a fixture file and asserts that it parses, parse_result(buf, len) only says
 * what parse_exact returns (for pw_test_each_refused, pw_test_random_garbage). Needs <stdlib.h>, <string.h>.
 */
#define PW_TEST_PARSER_WRAPPERS(type, parse)                                                                 \
	__attribute__((unused)) static int parse_exact(const char *buf, size_t len, type *ret)               \
	{                                                                                                    \
		char *copy = pw_test_exact_copy(buf, len);                                                   \
		int r = parse(copy, len, ret);                                                               \
		free(copy);                                                                                  \
		return r;                                                                                    \
	}                                                                                                    \
	__attribute__((unused)) static int parse_str(const char *s, type *ret)                               \
	{                                                                                                    \
		return parse_exact(s, strlen(s), ret);                                                       \
	}                                                                                                    \
	__attribute__((unused)) static type parse_fixture(const char *relpath)                               \
	{                                                                                                    \
		type value;                                                                                  \
		size_t len;                                                                                  \
		char *buf = pw_fixture_read(relpath, &len);                                                  \
		ck_assert_int_eq(parse_exact(buf, len, &value), 0);                                          \
		free(buf);                                                                                   \
		return value;                                                                                \
	}                                                                                                    \
	__attribute__((unused)) static int parse_result(const char *buf, size_t len)                         \
	{                                                                                                    \
		type value;                                                                                  \
		return parse_exact(buf, len, &value);                                                        \
	}

/* For pw_test_every_prefix(): parse buf[0..len) into ret, check a successful parse against full
 * (the whole file's, parsed by the suite beforehand), and return the parser's result. */
typedef int (*pw_test_prefix_fn)(const char *buf, size_t len, void *ret, const void *full);

/* Cut buf at every offset: call parse(prefix, n, ret, full) on an exact copy (pw_test_exact_copy)
 * of each prefix buf[0..n), n = 0..len in that order, so ret ends with the whole buffer's parse;
 * assert that each returns 0 or -EINVAL (a cut file is short, never out of range). A failure reads
 * "<what> cut at <n>: <result>". */
void pw_test_every_prefix(const char *what, const char *buf, size_t len, pw_test_prefix_fn parse, void *ret,
                          const void *full);

/* Random parser input: pick a length below size, fill buf[0..length) with bytes drawn from
 * alphabet[0..nalphabet) (which may hold NULs, so the count is explicit), stepping the LCG *seed;
 * returns the length. The same seed gives the same bytes on every platform. */
size_t pw_test_random_input(uint32_t *seed, const char *alphabet, size_t nalphabet, char *buf, size_t size);

/* Each of the n strings bad[] (NUL-terminated; their length without it) is refused: parse returns
 * -EINVAL. A failure names the string. */
void pw_test_each_refused(int (*parse)(const char *buf, size_t len), const char *const *bad, size_t n);

/* Feed iterations random inputs shorter than size bytes (pw_test_random_input from seed, over
 * alphabet[0..nalphabet)) to parse, which must return 0, -EINVAL or -ERANGE: no other error, and
 * (under ASan) no read past the input, whatever the bytes. */
void pw_test_random_garbage(int (*parse)(const char *buf, size_t len), const char *alphabet, size_t nalphabet,
                            uint32_t seed, size_t size, int iterations);

/* ---- samples ---- */

/* A sample block laid out by pw_sample_init() for cpu_cap CPUs, line_cap interrupt lines and, with
 * matrix, the per-CPU interrupt matrix; all fields zero. Never NULL (aborts the test); free() it. */
struct pw_sample *pw_test_sample_new(uint32_t cpu_cap, uint32_t line_cap, bool matrix);

/* The header of the t-th sample of a 1 s run (t = 0 first): sequence, clocks, interval, every CPU
 * and all but one line present, user_hz 100, 4 KiB pages. */
void pw_test_sample_second(struct pw_sample *s, int t);

/* Index of the interrupt line named irq among the lines of s; aborts the test if there is none. */
uint32_t pw_test_line_index(const struct pw_sample *s, const char *irq);

/* ---- scratch directories ---- */

/* A new empty directory PARENT/pw-test-TAG.XXXXXX (parent NULL: $TMPDIR, else /tmp); its path into
 * dir[0..size). Aborts the process on failure: it also serves fixtures the parent process runs once
 * (srunner_add_unchecked_fixture), so that the directory goes even when a test fails. */
void pw_scratch_make(char *dir, size_t size, const char *parent, const char *tag);

/* Remove dir and everything in it; says so on stderr (the test goes on) when it cannot. */
void pw_scratch_remove(const char *dir);

/* "dir/name" (static buffer, valid until the next call). Aborts the test if it does not fit. */
const char *pw_scratch_path(const char *dir, const char *name);

/* ---- running ---- */

/* Run one suite and return the process exit status (0 when every test passed). */
int pw_run_suite(Suite *suite);

#endif
