/* fixture_util.c — shared helpers of the unit suites (contracts in fixture_util.h). */
#include "fixture_util.h"
#include "sample.h"
#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixture files ---- */

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
	ck_assert_ptr_nonnull(buf);
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

const char *pw_fixture_kernel_path(const char *id, const char *file)
{
	static char path[512];
	int n = snprintf(path, sizeof(path), "kernels/%s/%s", id, file);

	ck_assert(n > 0 && (size_t)n < sizeof(path));
	return path;
}

uint64_t pw_fixture_number(const char *relpath, const char *key)
{
	size_t len, klen = strlen(key);
	char *buf = pw_fixture_read(relpath, &len);
	struct pw_scan scan;
	uint64_t value = 0;
	bool found = false;

	pw_scan_init(&scan, buf, len);
	while (!found && !pw_scan_eof(&scan)) {
		if ((size_t)(scan.end - scan.pos) > klen && memcmp(scan.pos, key, klen) == 0) {
			scan.pos += klen;
			ck_assert_int_eq(pw_scan_u64(&scan, &value), 0);
			found = true;
		}
		pw_scan_next_line(&scan);
	}
	free(buf);
	ck_assert_msg(found, "%s has no %s", relpath, key);
	return value;
}

uint64_t pw_fixture_kernel_nproc(const char *id)
{
	return pw_fixture_number(pw_fixture_kernel_path(id, "MANIFEST"), "nproc:");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t pw_fixture_kernel_ids(char **ids, size_t cap)
{
	const char *root = pw_fixture_path("kernels");
	DIR *dir = opendir(root);
	struct dirent *de;
	size_t n = 0;

	ck_assert_msg(dir != NULL, "cannot open %s: %s", root, strerror(errno));
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		ck_assert_uint_lt(n, cap);
		ids[n] = strdup(de->d_name);
		ck_assert_ptr_nonnull(ids[n]);
		n++;
	}
	closedir(dir);
	qsort(ids, n, sizeof(*ids), cmp_names);
	ck_assert_uint_gt(n, 0);
	return n;
}

void pw_fixture_kernel_ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
}

size_t pw_fixture_each_kernel(void (*check)(const char *id))
{
	char *ids[PW_FIXTURE_KERNELS_MAX];
	size_t n = pw_fixture_kernel_ids(ids, PW_FIXTURE_KERNELS_MAX);

	for (size_t i = 0; i < n; i++)
		check(ids[i]);
	pw_fixture_kernel_ids_free(ids, n);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot write %s: %s", path, strerror(errno));
	ck_assert_uint_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	ck_assert_int_eq(fclose(f), 0);
}

void pw_fixture_check_golden(const char *relpath, const char *text)
{
	const char *regen = getenv("PW_REGENERATE_GOLDEN");
	size_t len;

	if (regen && strcmp(regen, "1") == 0) {
		write_text(pw_fixture_path(relpath), text);
		return;
	}
	char *golden = pw_fixture_read(relpath, &len);
	if (strcmp(golden, text) != 0) {
		size_t i = 0, line = 1, start = 0;
		for (; golden[i] && golden[i] == text[i]; i++)
			if (golden[i] == '\n') {
				line++;
				start = i + 1;
			}
		ck_abort_msg(
		        "%s differs at line %zu:\n  want: %.120s\n  got:  %.120s\n(PW_REGENERATE_GOLDEN=1 "
		        "rewrites it)",
		        relpath, line, golden + start, text + start);
	}
	free(golden);
}

/* ---- parser input ---- */

char *pw_test_exact_copy(const char *buf, size_t len)
{
	char *copy = malloc(len);

	/* malloc(0) may return NULL; one byte then stands in for the empty block. */
	if (!copy && len == 0)
		copy = malloc(1);
	ck_assert_ptr_nonnull(copy);
	if (len > 0)
		memcpy(copy, buf, len);
	return copy;
}

void pw_test_every_prefix(const char *what, const char *buf, size_t len, pw_test_prefix_fn parse, void *ret,
                          const void *full)
{
	for (size_t n = 0; n <= len; n++) {
		char *copy = pw_test_exact_copy(buf, n);
		int r = parse(copy, n, ret, full);

		free(copy);
		ck_assert_msg(r == 0 || r == -EINVAL, "%s cut at %zu: %d", what, n, r);
	}
}

size_t pw_test_random_input(uint32_t *seed, const char *alphabet, size_t nalphabet, char *buf, size_t size)
{
	size_t len;

	*seed = *seed * 1103515245u + 12345u;
	len = (*seed >> 16) % size;
	for (size_t i = 0; i < len; i++) {
		*seed = *seed * 1103515245u + 12345u;
		buf[i] = alphabet[(*seed >> 16) % nalphabet];
	}
	return len;
}

void pw_test_each_refused(int (*parse)(const char *buf, size_t len), const char *const *bad, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(parse(bad[i], strlen(bad[i])) == -EINVAL, "accepted \"%s\"", bad[i]);
}

void pw_test_random_garbage(int (*parse)(const char *buf, size_t len), const char *alphabet, size_t nalphabet,
                            uint32_t seed, size_t size, int iterations)
{
	char *buf = malloc(size);

	ck_assert_ptr_nonnull(buf);
	for (int iter = 0; iter < iterations; iter++) {
		size_t len = pw_test_random_input(&seed, alphabet, nalphabet, buf, size);
		int r = parse(buf, len);

		ck_assert_msg(r == 0 || r == -EINVAL || r == -ERANGE, "input %d (%zu bytes): %d", iter, len,
		              r);
	}
	free(buf);
}

/* ---- samples ---- */

struct pw_sample *pw_test_sample_new(uint32_t cpu_cap, uint32_t line_cap, bool matrix)
{
	struct pw_sample *s = calloc(1, pw_sample_size(cpu_cap, line_cap, matrix));

	ck_assert_ptr_nonnull(s);
	pw_sample_init(s, cpu_cap, line_cap, matrix);
	return s;
}

uint32_t pw_test_line_index(const struct pw_sample *s, const char *irq)
{
	const struct pw_line_sample *lines = pw_sample_lines_const(s);

	for (uint32_t i = 0; i < s->nlines; i++)
		if (strcmp(lines[i].line.irq, irq) == 0)
			return i;
	ck_abort_msg("no line %s", irq);
	return UINT32_MAX;
}

/* ---- scratch directories ---- */

void pw_scratch_make(char *dir, size_t size, const char *parent, const char *tag)
{
	if (!parent)
		parent = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int n = snprintf(dir, size, "%s/pw-test-%s.XXXXXX", parent, tag);
	if (n < 0 || (size_t)n >= size || !mkdtemp(dir)) {
		fprintf(stderr, "cannot make a scratch directory in %s: %s\n", parent,
		        n < 0 || (size_t)n >= size ? "path too long" : strerror(errno));
		abort();
	}
}

void pw_scratch_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];

	/* Only what pw_scratch_make made: a quoted path without quotes in it. */
	if (!strstr(dir, "/pw-test-") || strchr(dir, '\'') ||
	    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= (int)sizeof(cmd) || system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

const char *pw_scratch_path(const char *dir, const char *name)
{
	static char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", dir, name);

	ck_assert_msg(n > 0 && (size_t)n < sizeof(path), "path too long: %s/%s", dir, name);
	return path;
}

/* ---- running ---- */

int pw_run_suite(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	srunner_run_all(runner, CK_NORMAL);
	int failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

void pw_test_sample_second(struct pw_sample *s, int t)
{
	const int64_t sec = INT64_C(1000000000);

	s->seq = (uint64_t)t + 1;
	s->mono_ns = 5000 * sec + t * sec;
	s->real_ns = INT64_C(1700000000) * sec + t * sec;
	s->interval_ns = t ? sec : 0;
	s->ncpu = s->cpu_cap;
	s->nlines = s->line_cap - 1;
	s->user_hz = 100;
	s->page_size = 4096;
	s->samples_taken = s->seq;
}
