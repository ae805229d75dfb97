/* test_disk_writer.c — the hand-off to the writer thread (daemon/disk_writer.c) and the recorder's
 * part in keeping a recording decodable (daemon/recorder.c), on real files in a temporary
 * directory: records that do not fit the queue are dropped and counted and the next one is a
 * keyframe; a delta after a gap is not written; exactly the first record written starts the
 * segment; a baselines snapshot not yet written is replaced by the newer one; a stop writes what
 * is queued. A writer not started yet stands for one the disk holds up. */
#include "disk_writer.h"
#include "fixture_util.h"
#include "recorder.h"
#include "recording.h"
#include "state_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CPU_CAP 2
#define LINE_CAP 4
#define SEC INT64_C(1000000000)
#define NSAMPLES 16

static char dir[256];
static struct pw_rec_header hdr;
static struct pw_sample *samples[NSAMPLES];

/* Sample t: counters that grow each second, valid for the decoder's checks. */
static struct pw_sample *sample_at(int t)
{
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);

	pw_test_sample_second(s, t);
	for (uint32_t id = 0; id < CPU_CAP; id++) {
		struct pw_cpu_sample *c = &pw_sample_cpus(s)[id];
		c->times.nmodes = PW_MODE_COUNT;
		c->times.present = c->online = true;
		for (int m = 0; m < PW_MODE_COUNT; m++)
			c->times.ticks[m] = 1000u * (uint64_t)m + 7u * (uint64_t)t * (id + 1);
	}
	for (uint32_t l = 0; l < s->nlines; l++)
		pw_sample_lines(s)[l].line.total = 1000u * l + 37u * (uint64_t)t;
	return s;
}

static void setup(void)
{
	pw_scratch_make(dir, sizeof(dir), NULL, "writer");
	pw_rec_header_init(&hdr, CPU_CAP, LINE_CAP, false, 100, 4096, SEC);
	for (int t = 0; t < NSAMPLES; t++)
		samples[t] = sample_at(t);
}

static void teardown(void)
{
	for (int t = 0; t < NSAMPLES; t++)
		free(samples[t]);
	pw_scratch_remove(dir);
}

static const char *in_dir(const char *name)
{
	return pw_scratch_path(dir, name);
}

static struct pw_recorder *open_recording(void)
{
	char err[512];
	struct pw_recorder *rec = pw_recorder_open(in_dir("run.pwrec"), &hdr, err, sizeof(err));

	ck_assert_msg(rec != NULL, "%s", err);
	return rec;
}

/* Decode the recording as --replay reads it: which sample each record holds and its flags. The
 * file must decode whole. Returns the number of records. */
static int read_back(int *ret_t, uint32_t *ret_flags, int max)
{
	FILE *f = fopen(in_dir("run.pwrec"), "rb");
	static unsigned char buf[1 << 20];
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);
	struct pw_rec_header have;
	struct pw_rec_decoder *dec;
	char why[256];
	size_t len, at;
	int n = 0;

	ck_assert_ptr_nonnull(f);
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	ck_assert_int_eq(pw_rec_header_decode(buf, len, &have), 0);
	at = pw_rec_data_offset(&have);
	ck_assert_uint_le(at, len);
	ck_assert_int_eq(
	        pw_rec_decoder_new(&have, buf + PW_REC_HEADER_SIZE, have.schema_size, &dec, why, sizeof(why)),
	        0);
	while (at < len) {
		uint32_t flags;
		ssize_t used = pw_rec_decode(dec, buf + at, len - at, s, &flags);
		ck_assert_msg(used > 0, "record %d at %zu: %zd", n, at, used);
		ck_assert_int_lt(n, max);
		ret_t[n] = -1;
		for (int t = 0; t < NSAMPLES; t++)
			if (memcmp(s, samples[t], s->size) == 0)
				ret_t[n] = t;
		ret_flags[n++] = flags;
		at += (size_t)used;
	}
	pw_rec_decoder_free(dec);
	free(s);
	return n;
}

static struct pw_file_stats recording_stats(const struct pw_disk_writer *w)
{
	struct pw_files_stats fs = {0};

	pw_disk_writer_files(w, 0, &fs);
	return fs.file[PW_FILE_RECORDING];
}

/* Until the writer has taken every record (5 s at most). */
static void wait_drained(const struct pw_disk_writer *w)
{
	struct timespec ms = {0, 1000000};

	for (int i = 0; i < 5000 && recording_stats(w).waiting > 0; i++)
		nanosleep(&ms, NULL);
	ck_assert_uint_eq(recording_stats(w).waiting, 0);
}

START_TEST(test_full_queue_drops_then_keyframe)
{
	struct pw_rec_encoder *enc = pw_rec_encoder_new(&hdr);
	size_t three = 0, len;
	const void *out;

	/* Room for exactly the first three records (encoding is deterministic). */
	for (int t = 0; t < 3; t++) {
		ck_assert_int_eq(pw_rec_encode(enc, samples[t], &out, &len), 0);
		three += len;
	}
	pw_rec_encoder_free(enc);
	struct pw_disk_writer *w = pw_disk_writer_new(open_recording(), NULL, NULL, 0, three);
	ck_assert_ptr_nonnull(w);
	/* The writer does not run yet: as if its disk hung. 0-2 fit, 3-9 are dropped. */
	for (int t = 0; t < 10; t++)
		pw_disk_writer_record(w, samples[t]);
	struct pw_file_stats st = recording_stats(w);
	ck_assert(st.configured);
	ck_assert_uint_eq(st.dropped, 7);
	ck_assert_uint_eq(st.waiting, 3);
	ck_assert_int_eq(pw_disk_writer_start(w), 0);
	wait_drained(w);
	/* The disk is back: the next record is a keyframe, the rest deltas after it. */
	for (int t = 10; t < 14; t++) {
		pw_disk_writer_record(w, samples[t]);
		wait_drained(w);
	}
	st = recording_stats(w);
	ck_assert_uint_eq(st.dropped, 7);
	ck_assert_uint_eq(st.errors, 0);
	pw_disk_writer_stop(w, 5 * SEC);

	int t[NSAMPLES];
	uint32_t flags[NSAMPLES];
	int n = read_back(t, flags, NSAMPLES);
	static const int want_t[] = {0, 1, 2, 10, 11, 12, 13};
	static const uint32_t want_flags[] = {
	        PW_REC_KEYFRAME | PW_REC_SEGMENT, 0, 0, PW_REC_KEYFRAME, 0, 0, 0};
	ck_assert_int_eq(n, 7);
	for (int i = 0; i < n; i++) {
		ck_assert_int_eq(t[i], want_t[i]);
		ck_assert_uint_eq(flags[i], want_flags[i]);
	}
}
END_TEST

/* Encode sample t into a copy the recorder may change (it sets the segment flag). */
static size_t encode(struct pw_rec_encoder *enc, int t, unsigned char *buf, size_t cap)
{
	const void *out;
	size_t len;

	ck_assert_int_eq(pw_rec_encode(enc, samples[t], &out, &len), 0);
	ck_assert_uint_le(len, cap);
	memcpy(buf, out, len);
	return len;
}

START_TEST(test_gap_and_segment)
{
	struct pw_recorder *rec = open_recording();
	struct pw_rec_encoder *enc = pw_rec_encoder_new(&hdr);
	static unsigned char buf[1 << 16];
	struct pw_file_stats st;
	size_t len;

	/* The run's first record (keyframe, segment) never reaches the file: dropped. */
	encode(enc, 0, buf, sizeof(buf));
	pw_rec_encoder_resync(enc, false);
	/* The next keyframe is the first written: it starts the segment. */
	len = encode(enc, 1, buf, sizeof(buf));
	ck_assert_uint_eq(pw_rec_frame_flags(buf), PW_REC_KEYFRAME);
	ck_assert(!pw_recorder_append(rec, buf, len, 2, samples[1]->mono_ns));
	/* A delta after a gap (record 3 lost) cannot decode: not written, a keyframe asked for. */
	encode(enc, 2, buf, sizeof(buf));
	len = encode(enc, 3, buf, sizeof(buf));
	ck_assert(pw_recorder_append(rec, buf, len, 4, samples[3]->mono_ns));
	/* A keyframe flagged as a segment start is not one here: the run's segment started already. */
	pw_rec_encoder_resync(enc, true);
	len = encode(enc, 4, buf, sizeof(buf));
	ck_assert_uint_eq(pw_rec_frame_flags(buf), PW_REC_KEYFRAME | PW_REC_SEGMENT);
	ck_assert(!pw_recorder_append(rec, buf, len, 5, samples[4]->mono_ns));
	len = encode(enc, 5, buf, sizeof(buf));
	ck_assert(!pw_recorder_append(rec, buf, len, 6, samples[5]->mono_ns));
	pw_recorder_stats(rec, &st);
	ck_assert_uint_eq(st.errors, 1); /* the delta not written */
	ck_assert(!st.failing);
	pw_recorder_free(rec);
	pw_rec_encoder_free(enc);

	int t[NSAMPLES];
	uint32_t flags[NSAMPLES];
	ck_assert_int_eq(read_back(t, flags, NSAMPLES), 3);
	ck_assert_int_eq(t[0], 1);
	ck_assert_uint_eq(flags[0], PW_REC_KEYFRAME | PW_REC_SEGMENT);
	ck_assert_int_eq(t[1], 4);
	ck_assert_uint_eq(flags[1], PW_REC_KEYFRAME);
	ck_assert_int_eq(t[2], 5);
	ck_assert_uint_eq(flags[2], 0);
}
END_TEST

START_TEST(test_state_latest_wins)
{
	struct pw_disk_writer *w = pw_disk_writer_new(NULL, NULL, dir, 64, 0);
	struct pw_files_stats fs = {0};
	char err[256];
	void *buf, *first;
	size_t len;

	ck_assert_ptr_nonnull(w);
	/* Two snapshots before the writer could write the first: the second replaces it. */
	first = pw_disk_writer_state_buffer(w);
	memcpy(first, "first", 5);
	pw_disk_writer_save(w, 5, 1 * SEC, false);
	buf = pw_disk_writer_state_buffer(w);
	ck_assert_ptr_ne(buf, first); /* the one handed over is the writer's now */
	memcpy(buf, "second", 6);
	pw_disk_writer_save(w, 6, 2 * SEC, true);
	pw_disk_writer_files(w, 0, &fs);
	ck_assert(fs.file[PW_FILE_BASELINES].configured);
	ck_assert(!fs.file[PW_FILE_RECORDING].configured);
	ck_assert_uint_eq(fs.file[PW_FILE_BASELINES].dropped, 1);
	/* Never started: the stop starts it to write what waits. */
	pw_disk_writer_stop(w, 5 * SEC);
	ck_assert_msg(pw_state_read(dir, &buf, &len, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(len, 6);
	ck_assert_mem_eq(buf, "second", 6);
	free(buf);
}
END_TEST

static Suite *disk_writer_suite(void)
{
	Suite *s = suite_create("disk_writer");
	TCase *core = tcase_create("core");

	tcase_add_checked_fixture(core, setup, teardown);
	tcase_add_test(core, test_full_queue_drops_then_keyframe);
	tcase_add_test(core, test_gap_and_segment);
	tcase_add_test(core, test_state_latest_wins);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(disk_writer_suite());
}
