/* test_state_file.c — the daemon's state files on their own (daemon/state_file.c): an atomic write
 * read back byte for byte, a stale or planted temporary replaced, a symlink, FIFO or directory in
 * the file's place refused without following it, outputs untouched on failure, and the checks of
 * the state directory. Each test works in its own temporary directory. */
#include "fixture_util.h"
#include "state_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void setup(void)
{
	pw_scratch_make(dir, sizeof(dir), NULL, "state");
}

static void teardown(void)
{
	pw_scratch_remove(dir);
}

static const char *in_dir(const char *name)
{
	return pw_scratch_path(dir, name);
}

START_TEST(test_roundtrip)
{
	static const unsigned char data[] = {0, 1, 2, 255, '\n', 0};
	char err[256] = "";
	void *buf = NULL;
	size_t len = 0;

	ck_assert_int_eq(pw_state_read(dir, &buf, &len, err, sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, ""); /* nothing saved yet is not an error to report */
	ck_assert_msg(pw_state_write(dir, data, sizeof(data), err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(pw_state_read(dir, &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, sizeof(data));
	ck_assert_mem_eq(buf, data, sizeof(data));
	free(buf);

	/* A second write replaces the file whole; no temporary is left. */
	ck_assert_int_eq(pw_state_write(dir, "x", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_read(dir, &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, 1);
	free(buf);
	ck_assert_int_eq(access(in_dir(PW_STATE_FILE ".tmp"), F_OK), -1);
	struct stat st;
	ck_assert_int_eq(stat(in_dir(PW_STATE_FILE), &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);

	/* Other names, and an empty file. */
	ck_assert_int_eq(pw_state_write_file(dir, "notifications", "", 0, err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_read_file(dir, "notifications", 16, &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, 0);
	free(buf);
}
END_TEST

START_TEST(test_stale_tmp)
{
	char err[256];
	void *buf;
	size_t len;

	/* A temporary left by a crash, and one planted as a symlink to a file we must not touch. */
	int fd = open(in_dir(PW_STATE_FILE ".tmp"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "old", 3), 3);
	close(fd);
	ck_assert_int_eq(pw_state_write(dir, "new", 3, err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_read(dir, &buf, &len, err, sizeof(err)), 0);
	ck_assert_mem_eq(buf, "new", 3);
	free(buf);

	fd = open(in_dir("victim"), O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "keep", 4), 4);
	close(fd);
	char target[128];
	snprintf(target, sizeof(target), "%s", in_dir("victim"));
	ck_assert_int_eq(symlink(target, in_dir(PW_STATE_FILE ".tmp")), 0);
	ck_assert_int_eq(pw_state_write(dir, "newer", 5, err, sizeof(err)), 0);
	char *victim = pw_file_read(in_dir("victim"), &len);
	ck_assert_uint_eq(len, 4);
	ck_assert_mem_eq(victim, "keep", 4);
	free(victim);
}
END_TEST

/* The reader's bound is the caller's: a file of max_len bytes reads, one byte more does not. */
START_TEST(test_bound)
{
	char data[100], err[256] = "";
	void *buf = (void *)0x1;
	size_t len = 77;

	memset(data, 'q', sizeof(data));
	ck_assert_int_eq(pw_state_write_file(dir, "q", data, sizeof(data), err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_read_file(dir, "q", sizeof(data) - 1, &buf, &len, err, sizeof(err)),
	                 -EFBIG);
	ck_assert_msg(strstr(err, "too large"), "%s", err);
	ck_assert_ptr_eq(buf, (void *)0x1);
	ck_assert_uint_eq(len, 77);
	ck_assert_int_eq(pw_state_read_file(dir, "q", sizeof(data), &buf, &len, err, sizeof(err)), 0);
	ck_assert_uint_eq(len, sizeof(data));
	free(buf);
}
END_TEST

START_TEST(test_not_regular)
{
	char err[256] = "";
	void *buf = (void *)0x1;
	size_t len = 77;

	/* A symlink in the file's place is not followed. */
	ck_assert_int_eq(symlink("/etc/passwd", in_dir("link")), 0);
	ck_assert_int_lt(pw_state_read_file(dir, "link", 1024, &buf, &len, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "cannot open"), "%s", err);
	/* A FIFO does not hang the reader. */
	ck_assert_int_eq(mkfifo(in_dir("fifo"), 0600), 0);
	ck_assert_int_eq(pw_state_read_file(dir, "fifo", 1024, &buf, &len, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	ck_assert_int_eq(mkdir(in_dir("sub"), 0700), 0);
	ck_assert_int_eq(pw_state_read_file(dir, "sub", 1024, &buf, &len, err, sizeof(err)), -EINVAL);
	/* Outputs untouched on every failure. */
	ck_assert_ptr_eq(buf, (void *)0x1);
	ck_assert_uint_eq(len, 77);
}
END_TEST

START_TEST(test_bad_dir)
{
	char err[256] = "", longdir[5000];

	ck_assert_int_eq(pw_state_check_dir(dir, err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_check_dir(in_dir("missing"), err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "missing"), "%s", err);
	ck_assert_int_eq(pw_state_write(dir, "x", 1, err, sizeof(err)), 0);
	ck_assert_int_eq(pw_state_check_dir(in_dir(PW_STATE_FILE), err, sizeof(err)), -ENOTDIR);
	ck_assert_msg(strstr(err, "not a directory"), "%s", err);
	ck_assert_int_lt(pw_state_write(in_dir("missing"), "x", 1, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "cannot create"), "%s", err);

	memset(longdir, 'd', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	ck_assert_int_eq(pw_state_write(longdir, "x", 1, err, sizeof(err)), -ENAMETOOLONG);
	void *buf;
	size_t len;
	ck_assert_int_eq(pw_state_read(longdir, &buf, &len, err, sizeof(err)), -ENAMETOOLONG);
	ck_assert_uint_eq(strlen(err), sizeof(err) - 1); /* the reason, cut to err's size */
}
END_TEST

static Suite *state_file_suite(void)
{
	Suite *s = suite_create("state_file");
	TCase *core = tcase_create("core");
	TCase *malformed = tcase_create("malformed");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_checked_fixture(malformed, setup, teardown);
	tcase_add_test(core, test_roundtrip);
	tcase_add_test(core, test_stale_tmp);
	tcase_add_test(malformed, test_bound);
	tcase_add_test(malformed, test_not_regular);
	tcase_add_test(malformed, test_bad_dir);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(state_file_suite());
}
