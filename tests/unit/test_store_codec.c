/* test_store_codec.c — the history store's file format (lib/store_codec.c) over the signal table
 * (lib/history_signals.c): points come back at each signal's precision from a BLOCK and from
 * ROW_DICT + ROW frames; a damaged, cut or foreign frame or header is refused, never misread; a frame
 * is self-describing (a signal this build does not know is skipped, one the frame lacks reads as
 * unknown, the quantum the file names is the scale; into columns too); a CPU beyond the reader's
 * capacity is dropped; a slowly varying host costs under 2 bytes a value. */
#include "fixture_util.h"
#include "history_columns.h"
#include "history_points.h"
#include "history_signals.h"
#include "store_codec.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CPU_CAP 4
#define NPOINTS 6
#define SEC INT64_C(1000000000)
#define MS INT64_C(1000000)
#define T0 (INT64_C(1796065147) * SEC + 250 * MS + 345678) /* not on a millisecond: kept to the ms */

/* ---- points ---- */

struct points {
	uint32_t n, cpu_cap;
	size_t size; /* pw_history_point_size(cpu_cap) */
	unsigned char *data;
};

/* n points for cpu_cap CPUs in a block of exactly n * size bytes (ASan sees a write past it), filled
 * with junk so that what the decoder leaves unwritten shows. */
static struct points points_new(uint32_t n, uint32_t cpu_cap)
{
	struct points ps = {n, cpu_cap, pw_history_point_size(cpu_cap), NULL};

	ps.data = malloc(n * ps.size);
	ck_assert_ptr_nonnull(ps.data);
	memset(ps.data, 0xa5, n * ps.size);
	return ps;
}

static struct pw_history_point *at(const struct points *ps, uint32_t i)
{
	return (struct pw_history_point *)(void *)(ps->data + (size_t)i * ps->size);
}

static struct points realistic_points(uint32_t n, uint32_t cpu_cap)
{
	struct points ps = points_new(n, cpu_cap);

	for (uint32_t i = 0; i < n; i++)
		pw_test_history_point(at(&ps, i), cpu_cap, i, T0);
	return ps;
}

/* ---- comparing ---- */

static void series_name(const struct pw_history_series *se, char *buf, size_t size)
{
	char label[64];

	pw_history_series_label(se, label, sizeof(label));
	snprintf(buf, size, "%s{%s}", pw_history_signal_name(se->signal), label);
}

/* b read back for a: both unknown, or equal at the signal's precision: rates within half their
 * 0.01 (plus the float they are kept in), everything else exactly (shares in 1/10000, kB, MHz, PSI
 * in 1/100 %, counts). */
static void assert_value(const struct pw_history_series *se, double a, double b, const char *what, uint32_t i)
{
	const struct pw_history_signal_def *def = pw_history_signal_def(se->signal);
	char name[128];

	series_name(se, name, sizeof(name));
	ck_assert_msg(isnan(a) == isnan(b), "%s: point %u %s: %g read back as %g", what, i, name, a, b);
	if (isnan(a))
		return;
	if (strstr(def->unit, "per_second"))
		ck_assert_msg(fabs(a - b) <= 0.005 + fabs(a) * FLT_EPSILON,
		              "%s: point %u %s: %.6f read back as %.6f", what, i, name, a, b);
	else
		ck_assert_msg(a == b, "%s: point %u %s: %.9g read back as %.9g", what, i, name, a, b);
}

/* Every series of the originals' dictionary, its time to the millisecond and its flags. */
static void assert_points(const struct points *orig, uint32_t first, const struct points *got, uint32_t n,
                          const char *what)
{
	struct pw_store_dict d = {0};

	ck_assert_int_eq(pw_store_dict_build(&d, at(orig, first), orig->size, n), 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct pw_history_point *a = at(orig, first + i), *b = at(got, i);
		ck_assert_msg(b->real_ns == a->real_ns / MS * MS, "%s: point %u at %lld, want %lld", what,
		              first + i, (long long)b->real_ns, (long long)(a->real_ns / MS * MS));
		ck_assert_msg(b->flags == a->flags, "%s: point %u flags %#x, want %#x", what, first + i,
		              b->flags, a->flags);
		ck_assert_uint_le(b->ncpu, got->cpu_cap);
		for (uint32_t s = 0; s < d.n; s++)
			assert_value(&d.series[s], pw_history_series_get(&d.series[s], a),
			             pw_history_series_get(&d.series[s], b), what, first + i);
	}
	pw_store_dict_done(&d);
}

/* ---- encoding and decoding ---- */

static void encode(enum pw_store_frame_type type, const struct points *ps, uint32_t first, uint32_t n,
                   struct pw_store_buf *out)
{
	struct pw_store_dict d = {0};

	ck_assert_int_eq(pw_store_dict_build(&d, at(ps, first), ps->size, n), 0);
	ck_assert_int_eq(pw_store_encode(type, &d, at(ps, first), ps->size, n, out), 0);
	ck_assert(!out->failed);
	pw_store_dict_done(&d);
}

/* Decode the one frame buf[0..len) into got (cap points) with dec, or a fresh decoder when NULL. */
static int decode(struct pw_store_decoder *dec, const void *buf, size_t len, struct points *got, uint32_t cap)
{
	struct pw_store_decoder *mine = dec ? NULL : pw_store_decoder_new();
	uint32_t type;

	ck_assert_ptr_nonnull(dec ? dec : mine);
	ssize_t whole = pw_store_frame_length(buf, len, &type);
	ck_assert_msg(whole == (ssize_t)len, "frame of %zu bytes: length %zd", len, whole);
	int r = pw_store_decode(dec ? dec : mine, buf, len, got->data, got->size, got->cpu_cap, cap);
	pw_store_decoder_free(mine);
	return r;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t crc(const void *buf, size_t len)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
}

/* The frame header the format documents (store_codec.h): payload length, type, the payload's CRC-32,
 * the CRC-32 of those 12 bytes. */
static void frame_header(unsigned char *f, uint32_t type, const void *payload, size_t len)
{
	put32(f, (uint32_t)len);
	put32(f + 4, type);
	put32(f + 8, crc(payload, len));
	put32(f + 12, crc(f, 12));
}

/* ---- round trips ---- */

START_TEST(block_round_trip)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};
	uint32_t type = 0;

	encode(PW_STORE_BLOCK, &orig, 0, NPOINTS, &out);
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, &type), (ssize_t)out.len);
	ck_assert_uint_eq(type, PW_STORE_BLOCK);
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, NPOINTS), NPOINTS);
	assert_points(&orig, 0, &got, NPOINTS, "block");
	/* What was written to this precision reads back to the same point. */
	for (uint32_t i = 0; i < NPOINTS; i++) {
		struct pw_history_point *a = at(&orig, i), *b = at(&got, i);
		ck_assert_uint_eq(b->share[PW_MODE_SYSTEM], a->share[PW_MODE_SYSTEM]);
		ck_assert_uint_eq(b->share[PW_MODE_IRQ], a->share[PW_MODE_IRQ]);
		ck_assert_uint_eq(b->mem_available_kb, a->mem_available_kb);
		ck_assert_uint_eq(b->cached_kb, a->cached_kb);
		ck_assert_uint_eq(b->procs_running, a->procs_running);
		ck_assert_uint_eq(b->ncpu, a->ncpu);
		ck_assert_uint_eq(b->cpus[0].avg_mhz, a->cpus[0].avg_mhz);
		ck_assert_uint_eq(b->cpus[1].freq_ratio, PW_HISTORY_UNKNOWN);
	}
	ck_assert_uint_eq(at(&got, 0)->flags, PW_HISTORY_RUN_START);
	ck_assert_uint_eq(at(&got, 4)->flags, PW_HISTORY_RUN_START);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* The head file as the daemon writes it: a ROW_DICT whenever the point's dictionary differs from the
 * one before (a CPU online, a line in the ranking), else a ROW. */
START_TEST(rows_round_trip)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(1, CPU_CAP);
	struct pw_store_dict prev = {0}, d = {0};
	struct pw_store_buf out = {0};
	struct pw_store_header hdr = {PW_STORE_VERSION, PW_STORE_TIER_SAMPLES, SEC}, back;
	size_t ends[NPOINTS];
	unsigned types[4] = {0};

	out.data = malloc(PW_STORE_HEADER_SIZE);
	ck_assert_ptr_nonnull(out.data);
	out.len = out.cap = PW_STORE_HEADER_SIZE;
	pw_store_header_encode(&hdr, out.data);
	for (uint32_t i = 0; i < NPOINTS; i++) {
		ck_assert_int_eq(pw_store_dict_build(&d, at(&orig, i), orig.size, 1), 0);
		bool same = i > 0 && pw_store_dict_equal(&d, &prev);
		ck_assert_int_eq(pw_store_encode(same ? PW_STORE_ROW : PW_STORE_ROW_DICT, &d, at(&orig, i),
		                                 orig.size, 1, &out),
		                 0);
		ends[i] = out.len;
		struct pw_store_dict t = prev;
		prev = d;
		d = t;
	}

	/* Read as the daemon does: the header, then frame after frame. */
	struct pw_store_decoder *dec = pw_store_decoder_new();
	size_t off = PW_STORE_HEADER_SIZE;
	ck_assert_int_eq(pw_store_header_decode(out.data, out.len, &back), 0);
	ck_assert_uint_eq(back.version, PW_STORE_VERSION);
	ck_assert_uint_eq(back.tier, PW_STORE_TIER_SAMPLES);
	ck_assert_int_eq(back.interval_ns, SEC);
	for (uint32_t i = 0; i < NPOINTS; i++) {
		uint32_t type = 0;
		ssize_t n = pw_store_frame_length(out.data + off, out.len - off, &type);
		ck_assert_int_eq(n, (ssize_t)(ends[i] - off));
		ck_assert(type == PW_STORE_ROW || type == PW_STORE_ROW_DICT);
		types[type]++;
		memset(got.data, 0x5a, got.size);
		ck_assert_int_eq(
		        pw_store_decode(dec, out.data + off, (size_t)n, got.data, got.size, CPU_CAP, 1), 1);
		char what[32];
		snprintf(what, sizeof(what), "row %u (type %u)", i, type);
		assert_points(&orig, i, &got, 1, what);
		off += (size_t)n;
	}
	ck_assert_uint_eq(off, out.len);
	/* Points 0, 1 (two more CPUs), 3 (line 25 gave way to CAL), 5 (line eth0) bring a dictionary. */
	ck_assert_uint_eq(types[PW_STORE_ROW_DICT], 4);
	ck_assert_uint_eq(types[PW_STORE_ROW], 2);
	/* A ROW is the point alone: far smaller than the same point with its dictionary. */
	ck_assert_uint_lt(ends[2] - ends[1], (ends[1] - ends[0]) / 4);

	pw_store_decoder_free(dec);
	pw_store_dict_done(&prev);
	pw_store_dict_done(&d);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* Several frames appended to one buffer, as a data file holds them, and the decoder reused. */
START_TEST(blocks_in_a_file)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();

	encode(PW_STORE_BLOCK, &orig, 0, 2, &out);
	size_t first = out.len;
	encode(PW_STORE_BLOCK, &orig, 2, NPOINTS - 2, &out);
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), (ssize_t)first);
	ck_assert_int_eq(pw_store_decode(dec, out.data, first, got.data, got.size, CPU_CAP, NPOINTS), 2);
	assert_points(&orig, 0, &got, 2, "first block");
	ck_assert_int_eq(pw_store_frame_length(out.data + first, out.len - first, NULL),
	                 (ssize_t)(out.len - first));
	ck_assert_int_eq(
	        pw_store_decode(dec, out.data + first, out.len - first, got.data, got.size, CPU_CAP, NPOINTS),
	        NPOINTS - 2);
	assert_points(&orig, 2, &got, NPOINTS - 2, "second block");
	pw_store_decoder_free(dec);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* Real time steps back (NTP, an operator's date): the block the encoder wrote reads back, as it was.
 * (The daemon's start-up check cuts a data file at the first block that does not decode.) */
START_TEST(clock_stepping_back)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};

	at(&orig, 3)->real_ns = at(&orig, 2)->real_ns - 2 * SEC;
	at(&orig, 4)->real_ns = at(&orig, 3)->real_ns; /* and a point in the same millisecond */
	encode(PW_STORE_BLOCK, &orig, 0, NPOINTS, &out);
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, NPOINTS), NPOINTS);
	assert_points(&orig, 0, &got, NPOINTS, "clock stepped back");
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* ---- damage ---- */

START_TEST(row_without_dictionary)
{
	struct points orig = realistic_points(2, CPU_CAP), got = points_new(1, CPU_CAP);
	struct pw_store_buf dict_frame = {0}, row = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();

	encode(PW_STORE_ROW_DICT, &orig, 1, 1, &dict_frame);
	encode(PW_STORE_ROW, &orig, 1, 1, &row);
	/* A fresh decoder (the head's first frame lost), and one reset for a new file. */
	ck_assert_int_eq(decode(dec, row.data, row.len, &got, 1), -EBADMSG);
	ck_assert_int_eq(decode(dec, dict_frame.data, dict_frame.len, &got, 1), 1);
	ck_assert_int_eq(decode(dec, row.data, row.len, &got, 1), 1);
	assert_points(&orig, 1, &got, 1, "row after its dictionary");
	pw_store_decoder_reset(dec);
	ck_assert_int_eq(decode(dec, row.data, row.len, &got, 1), -EBADMSG);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&dict_frame);
	pw_store_buf_done(&row);
	free(orig.data);
	free(got.data);
}
END_TEST

/* A ROW_DICT that does not decode takes the dictionary before it out of use: the ROWs after it were
 * written against the lost one, and read with the old one they would put values under the wrong
 * series (here line 25's rate under line CAL's name, as both dictionaries have as many series). */
START_TEST(row_after_damaged_dictionary)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(1, CPU_CAP);
	struct pw_store_buf a = {0}, b = {0}, row = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();

	encode(PW_STORE_ROW_DICT, &orig, 2, 1, &a); /* lines LOC 25 NMI ... */
	encode(PW_STORE_ROW_DICT, &orig, 3, 1, &b); /* lines LOC CAL NMI ... */
	encode(PW_STORE_ROW, &orig, 4, 1, &row);
	ck_assert_int_eq(decode(dec, a.data, a.len, &got, 1), 1);
	b.data[b.len - 1] ^= 0x01;
	ck_assert_int_eq(decode(dec, b.data, b.len, &got, 1), -EBADMSG);
	ck_assert_int_eq(decode(dec, row.data, row.len, &got, 1), -EBADMSG);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&a);
	pw_store_buf_done(&b);
	pw_store_buf_done(&row);
	free(orig.data);
	free(got.data);
}
END_TEST

/* Every byte of a frame, flipped: its header's CRC finds it (the walk stops), or the payload's (the
 * frame is refused). Never a misread. */
static void flip_everywhere(enum pw_store_frame_type type, uint32_t n)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};

	encode(type, &orig, 0, n, &out);
	for (size_t i = 0; i < out.len; i++) {
		struct pw_store_decoder *dec = pw_store_decoder_new();
		ck_assert_ptr_nonnull(dec);
		out.data[i] ^= (unsigned char)(1u << (i % 8));
		ssize_t whole = pw_store_frame_length(out.data, out.len, NULL);
		if (i < PW_STORE_FRAME_SIZE) { /* the header's CRC covers the payload's */
			ck_assert_msg(whole == -EBADMSG, "type %d: header byte %zu flipped: length %zd", type,
			              i, whole);
		} else {
			ck_assert_int_eq(whole, (ssize_t)out.len);
			int r = pw_store_decode(dec, out.data, out.len, got.data, got.size, CPU_CAP, NPOINTS);
			ck_assert_msg(r == -EBADMSG, "type %d: byte %zu of %zu flipped: %d", type, i, out.len,
			              r);
		}
		out.data[i] ^= (unsigned char)(1u << (i % 8));
		pw_store_decoder_free(dec);
	}
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, NPOINTS), (int)n);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}

START_TEST(flipped_block)
{
	flip_everywhere(PW_STORE_BLOCK, NPOINTS);
}
END_TEST

START_TEST(flipped_row_dict)
{
	flip_everywhere(PW_STORE_ROW_DICT, 1);
}
END_TEST

/* A frame cut anywhere is not whole yet (a write under way, or a crash): length 0, and decoding the
 * cut bytes is refused. Read from an exact copy, so ASan sees a read past the cut. */
START_TEST(truncated_frames)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};

	encode(PW_STORE_BLOCK, &orig, 0, NPOINTS, &out);
	encode(PW_STORE_ROW_DICT, &orig, 0, 1, &out);
	size_t block = (size_t)pw_store_frame_length(out.data, out.len, NULL);
	size_t starts[] = {0, block};
	for (int f = 0; f < 2; f++) {
		size_t start = starts[f],
		       whole = (size_t)pw_store_frame_length(out.data + start, out.len - start, NULL);
		ck_assert_uint_gt(whole, PW_STORE_FRAME_SIZE);
		for (size_t cut = 0; cut < whole; cut++) {
			char *copy = pw_test_exact_copy((const char *)out.data + start, cut);
			struct pw_store_decoder *dec = pw_store_decoder_new();
			ck_assert_msg(pw_store_frame_length(copy, cut, NULL) == 0, "frame at %zu cut at %zu",
			              start, cut);
			ck_assert_int_eq(
			        pw_store_decode(dec, copy, cut, got.data, got.size, CPU_CAP, NPOINTS),
			        -EBADMSG);
			pw_store_decoder_free(dec);
			free(copy);
		}
	}
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

START_TEST(corrupt_frame_header)
{
	struct points orig = realistic_points(1, CPU_CAP), got = points_new(1, CPU_CAP);
	struct pw_store_buf out = {0};
	unsigned char f[PW_STORE_FRAME_SIZE];

	encode(PW_STORE_ROW_DICT, &orig, 0, 1, &out);
	memcpy(f, out.data, sizeof(f));
	/* A header whose own CRC holds but says what the format has not: an unknown type, a payload
	 * beyond the limit. The walk cannot go on past either. */
	put32(out.data + 4, 4);
	put32(out.data + 12, crc(out.data, 12));
	struct pw_store_decoder *dec = pw_store_decoder_new();
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), -EBADMSG);
	ck_assert_int_eq(pw_store_decode(dec, out.data, out.len, got.data, got.size, CPU_CAP, 1), -EBADMSG);
	memcpy(out.data, f, sizeof(f));
	put32(out.data + 4, 0);
	put32(out.data + 12, crc(out.data, 12));
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), -EBADMSG);
	memcpy(out.data, f, sizeof(f));
	put32(out.data, PW_STORE_PAYLOAD_MAX + 1);
	put32(out.data + 12, crc(out.data, 12));
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), -EBADMSG);
	/* The header's CRC itself. */
	memcpy(out.data, f, sizeof(f));
	out.data[13] ^= 0x80;
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), -EBADMSG);
	/* A length that is right by its CRC but not the payload's: the payload CRC refuses it. */
	memcpy(out.data, f, sizeof(f));
	put32(out.data, get32(f) - 1);
	put32(out.data + 12, crc(out.data, 12));
	ck_assert_int_eq(pw_store_frame_length(out.data, out.len, NULL), (ssize_t)out.len - 1);
	ck_assert_int_eq(pw_store_decode(dec, out.data, out.len - 1, got.data, got.size, CPU_CAP, 1),
	                 -EBADMSG);
	/* Right again. */
	memcpy(out.data, f, sizeof(f));
	ck_assert_int_eq(pw_store_decode(dec, out.data, out.len, got.data, got.size, CPU_CAP, 1), 1);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

START_TEST(file_header)
{
	struct pw_store_header hdr = {PW_STORE_VERSION, PW_STORE_TIER_SAMPLES, 250 * MS}, back;
	unsigned char buf[PW_STORE_HEADER_SIZE + 1], good[PW_STORE_HEADER_SIZE];

	pw_store_header_encode(&hdr, good);
	memcpy(buf, good, sizeof(good));
	ck_assert_int_eq(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back), 0);
	ck_assert_uint_eq(back.version, PW_STORE_VERSION);
	ck_assert_uint_eq(back.tier, PW_STORE_TIER_SAMPLES);
	ck_assert_int_eq(back.interval_ns, 250 * MS);
	/* Intervals beyond 32 bits of nanoseconds. */
	hdr.interval_ns = 3600 * SEC;
	pw_store_header_encode(&hdr, buf);
	ck_assert_int_eq(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back), 0);
	ck_assert_int_eq(back.interval_ns, 3600 * SEC);

	/* Short: not yet a header. */
	for (size_t len = 0; len < PW_STORE_HEADER_SIZE; len++) {
		char *copy = pw_test_exact_copy((const char *)good, len);
		ck_assert_int_eq(pw_store_header_decode(copy, len, &back), -EINVAL);
		free(copy);
	}
	/* Not a store file: the magic, or any byte under the checksum. */
	for (size_t i = 0; i < PW_STORE_HEADER_SIZE; i++) {
		memcpy(buf, good, sizeof(good));
		buf[i] ^= 0x04;
		ck_assert_msg(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back) == -EPROTO, "byte %zu",
		              i);
	}
	memcpy(buf, good, sizeof(good));
	memcpy(buf, "PWREC\r\n\0", 8); /* a recording, say */
	put32(buf + 28, crc(buf, 28));
	ck_assert_int_eq(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back), -EPROTO);
	/* A newer format: refused, saying which. Version 0 was never written. */
	memcpy(buf, good, sizeof(good));
	put32(buf + 8, PW_STORE_VERSION + 1);
	put32(buf + 28, crc(buf, 28));
	ck_assert_int_eq(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back), -EPROTO);
	ck_assert_uint_eq(back.version, PW_STORE_VERSION + 1);
	put32(buf + 8, 0);
	put32(buf + 28, crc(buf, 28));
	ck_assert_int_eq(pw_store_header_decode(buf, PW_STORE_HEADER_SIZE, &back), -EPROTO);
}
END_TEST

/* ---- self-description ---- */

struct bytes {
	unsigned char b[1 << 16];
	size_t n;
};

static void b_put(struct bytes *o, const void *p, size_t n)
{
	ck_assert_uint_le(o->n + n, sizeof(o->b));
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void b_varint(struct bytes *o, uint64_t v)
{
	do {
		unsigned char c = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		b_put(o, &c, 1);
		v >>= 7;
	} while (v);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void b_series(struct bytes *o, const char *name, const char *label, const char *unit, double quantum)
{
	uint64_t bits;
	unsigned char q[8];

	b_varint(o, strlen(name));
	b_put(o, name, strlen(name));
	b_varint(o, strlen(label));
	b_put(o, label, strlen(label));
	b_varint(o, strlen(unit));
	b_put(o, unit, strlen(unit));
	memcpy(&bits, &quantum, sizeof(bits));
	for (int k = 0; k < 8; k++)
		q[k] = (unsigned char)(bits >> (8 * k));
	b_put(o, q, sizeof(q));
}

/* One series of a hand-made frame: what its dictionary entry says and its token for the point. */
struct crafted {
	char name[64], label[64], unit[32];
	double quantum;
	uint64_t token;
};

/* A ROW_DICT written from the format's description alone (store_codec.h), not by the encoder: the
 * point's dictionary with memory_available_bytes at mem_quantum (1024 is the encoder's; another is a
 * writer's choice the reader must follow), and the extra series put in at the front, the middle and
 * the end. Returns the frame's length. */
static size_t craft_row_dict(const struct pw_history_point *p, size_t point_size, const struct crafted *extra,
                             size_t nextra, double mem_quantum, unsigned char *frame, size_t size)
{
	struct pw_store_dict d = {0};
	struct bytes *o = malloc(sizeof(*o));
	size_t n = 0;

	ck_assert_ptr_nonnull(o);
	o->n = 0;
	ck_assert_int_eq(pw_store_dict_build(&d, p, point_size, 1), 0);
	struct crafted *all = calloc(d.n + nextra, sizeof(*all));
	ck_assert_ptr_nonnull(all);
	for (uint32_t s = 0; s < d.n; s++) {
		const struct pw_history_signal_def *def = pw_history_signal_def(d.series[s].signal);
		if (s == 0 && nextra > 0)
			all[n++] = extra[0];
		if (s == d.n / 2 && nextra > 1)
			all[n++] = extra[1];
		struct crafted *c = &all[n++];
		snprintf(c->name, sizeof(c->name), "%s", def->name);
		pw_history_series_label(&d.series[s], c->label, sizeof(c->label));
		snprintf(c->unit, sizeof(c->unit), "%s", def->unit);
		c->quantum = d.series[s].signal == PW_HS_MEM_AVAILABLE ? mem_quantum : def->quantum;
		double v = pw_history_series_get(&d.series[s], p);
		c->token = isnan(v) ? 0 : zigzag((int64_t)llround(v / c->quantum)) + 1;
	}
	for (size_t k = 2; k < nextra; k++)
		all[n++] = extra[k];
	b_varint(o, n);
	for (size_t s = 0; s < n; s++)
		b_series(o, all[s].name, all[s].label, all[s].unit, all[s].quantum);
	b_varint(o, 1);                       /* points */
	b_varint(o, zigzag(p->real_ns / MS)); /* the first point's time as it is */
	b_varint(o, p->flags);
	for (size_t s = 0; s < n; s++) /* a token per series: one point, so its q less 0 */
		b_varint(o, all[s].token);
	ck_assert_uint_le(PW_STORE_FRAME_SIZE + o->n, size);
	memcpy(frame + PW_STORE_FRAME_SIZE, o->b, o->n);
	frame_header(frame, PW_STORE_ROW_DICT, o->b, o->n);
	n = PW_STORE_FRAME_SIZE + o->n;
	pw_store_dict_done(&d);
	free(all);
	free(o);
	return n;
}

/* A frame from a newer perfwatch (a signal this build lacks), or a damaged entry (a known signal
 * whose label does not fit its scope, or whose quantum is not a step): those series are skipped, the
 * others read at the quantum the frame names. Their tokens take several bytes, so skipping must
 * read them whole. */
/* The one-point frame buf[0..len) decoded into columns (as /history reads a window): every series
 * of the original point orig[i] holds exactly what the encoder would write for it. */
static void assert_columns(const struct points *orig, uint32_t i, const void *buf, size_t len)
{
	struct pw_store_decoder *dec = pw_store_decoder_new();
	struct pw_store_dict d = {0};
	struct pw_history_columns c;

	pw_history_columns_init(&c, CPU_CAP, 16, 1u << 20);
	ck_assert_int_eq(pw_store_decode_columns(dec, buf, len, &c, INT64_MIN, INT64_MAX), 1);
	pw_history_columns_finish(&c);
	ck_assert_int_eq(pw_store_dict_build(&d, at(orig, i), orig->size, 1), 0);
	for (uint32_t s = 0; s < d.n; s++) {
		char name[128];
		int64_t q;
		series_name(&d.series[s], name, sizeof(name));
		int col = pw_history_columns_find(&c, &d.series[s]);
		ck_assert_msg(col >= 0, "point %u: no column for %s", i, name);
		int32_t got = pw_history_column_values(&c, (uint32_t)col)[0];
		double quantum = pw_history_signal_def(d.series[s].signal)->quantum;
		if (pw_history_quantize(pw_history_series_get(&d.series[s], at(orig, i)), quantum, &q))
			ck_assert_msg(got == q, "point %u %s: %d in its column, want %lld", i, name, got,
			              (long long)q);
		else
			ck_assert_msg(got == PW_COLUMN_UNKNOWN, "point %u %s: %d, want unknown", i, name,
			              got);
	}
	pw_store_dict_done(&d);
	pw_history_columns_done(&c);
	pw_store_decoder_free(dec);
}

START_TEST(unknown_signal_skipped)
{
	static const struct crafted extra[] = {
	        {"no_such_signal", "", "widgets", 0.5, 2 * 987654 + 1},
	        {"no_such_signal", "eth0", "per_second", 0.01, 2 * 123456789 + 1},
	        {"percpu_busy_ratio", "cpu1", "ratio", 1e-4, 2 * 4000 + 1},    /* label not a CPU id */
	        {"cpu_steal_ratio", "", "ratio", 0.0, 2 * 4000 + 1},           /* no step */
	        {"cpu_system_ratio", "", "ratio", NAN, 2 * 4000 + 1},          /* no step */
	        {"softirq_type_per_second", "NET_RX2", "per_second", 0.01, 3}, /* no such type */
	        {"interrupt_line_per_second", "", "per_second", 0.01, 3},      /* a line has a name */
	};
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(1, CPU_CAP);
	unsigned char frame[1 << 16];

	for (uint32_t i = 0; i < NPOINTS; i++) {
		size_t len = craft_row_dict(at(&orig, i), orig.size, extra, sizeof(extra) / sizeof(extra[0]),
		                            1.0, frame, sizeof(frame));
		memset(got.data, 0x5a, got.size);
		ck_assert_int_eq(decode(NULL, frame, len, &got, 1), 1);
		assert_points(&orig, i, &got, 1, "unknown signals");
		ck_assert_uint_eq(at(&got, 0)->mem_available_kb, at(&orig, i)->mem_available_kb);
		/* Into columns too: the extras skipped, memory kept in bytes read at this build's kB. */
		assert_columns(&orig, i, frame, len);
	}
	/* Without the extras and at the encoder's quantum, the hand-made frame is what the encoder writes,
	 * byte for byte: the format is what store_codec.h says it is. */
	struct pw_store_buf out = {0};
	for (uint32_t i = 0; i < NPOINTS; i++) {
		size_t len = craft_row_dict(at(&orig, i), orig.size, NULL, 0, 1024.0, frame, sizeof(frame));
		out.len = 0;
		encode(PW_STORE_ROW_DICT, &orig, i, 1, &out);
		ck_assert_uint_eq(len, out.len);
		ck_assert_msg(memcmp(frame, out.data, len) == 0, "point %u: not the encoder's bytes", i);
	}
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* A frame from a writer that kept fewer signals (an older perfwatch, say one without per-CPU figures,
 * lines or softirq types): the rest read as unknown, not as 0 and not as the junk in the buffer. */
START_TEST(fewer_series_unknown)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_history_series host[PW_HS_COUNT];
	struct pw_store_dict all = {0}, few = {.series = host};
	struct pw_store_buf out = {0};

	for (int s = 0; s < PW_HS_COUNT; s++)
		if (pw_history_signal_def(s)->scope == PW_SCOPE_HOST)
			host[few.n++] = (struct pw_history_series){.signal = s};
	few.cap = few.n;
	ck_assert_int_eq(pw_store_encode(PW_STORE_BLOCK, &few, orig.data, orig.size, NPOINTS, &out), 0);
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, NPOINTS), NPOINTS);
	ck_assert_int_eq(pw_store_dict_build(&all, orig.data, orig.size, NPOINTS), 0);
	for (uint32_t i = 0; i < NPOINTS; i++) {
		const struct pw_history_point *a = at(&orig, i), *b = at(&got, i);
		ck_assert_uint_eq(b->ncpu, 0);
		for (int k = 0; k < PW_HISTORY_LINES; k++)
			ck_assert_str_eq(b->lines[k].irq, "");
		for (uint32_t s = 0; s < all.n; s++) {
			const struct pw_history_series *se = &all.series[s];
			double va = pw_history_series_get(se, a), vb = pw_history_series_get(se, b);
			if (pw_history_signal_def(se->signal)->scope == PW_SCOPE_HOST)
				assert_value(se, va, vb, "host series", i);
			else
				ck_assert_msg(isnan(vb), "point %u: %s[%u] %g, want unknown", i,
				              pw_history_signal_name(se->signal), se->inst, vb);
		}
		ck_assert_uint_eq(b->flags, a->flags);
	}
	pw_store_dict_done(&all);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* ---- bounds ---- */

/* A file from a larger host read by a reader with room for fewer CPUs (a store copied from another
 * machine): the CPUs past its capacity are dropped, never written past the point. */
START_TEST(cpu_beyond_capacity)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP);
	struct pw_store_buf block = {0}, row = {0};

	encode(PW_STORE_BLOCK, &orig, 0, NPOINTS, &block);
	encode(PW_STORE_ROW_DICT, &orig, 2, 1, &row);
	for (uint32_t cap = 0; cap < CPU_CAP; cap++) {
		struct points got = points_new(NPOINTS, cap); /* exactly n points of cap CPUs: ASan's bound */
		ck_assert_int_eq(decode(NULL, block.data, block.len, &got, NPOINTS), NPOINTS);
		for (uint32_t i = 0; i < NPOINTS; i++) {
			const struct pw_history_point *a = at(&orig, i), *b = at(&got, i);
			ck_assert_uint_eq(b->ncpu, a->ncpu < cap ? a->ncpu : cap);
			for (uint32_t c = 0; c < b->ncpu; c++)
				ck_assert(memcmp(&b->cpus[c], &a->cpus[c], sizeof(b->cpus[c])) == 0);
			for (uint32_t c = 0; c < CPU_CAP; c++) {
				struct pw_history_series se = {.signal = PW_HS_PERCPU_BUSY, .inst = c};
				double v = pw_history_series_get(&se, b);
				ck_assert(c < cap && c < a->ncpu ? v == a->cpus[c].busy / 10000.0 : isnan(v));
			}
			ck_assert_uint_eq(b->mem_available_kb, a->mem_available_kb);
			ck_assert(b->intr_rate == a->intr_rate ||
			          fabsf(b->intr_rate - a->intr_rate) <= 0.005f);
		}
		free(got.data);
		got = points_new(1, cap);
		ck_assert_int_eq(decode(NULL, row.data, row.len, &got, 1), 1);
		ck_assert_uint_eq(at(&got, 0)->ncpu, cap);
		free(got.data);
	}
	pw_store_buf_done(&block);
	pw_store_buf_done(&row);
	free(orig.data);
}
END_TEST

START_TEST(more_points_than_room)
{
	struct points orig = realistic_points(NPOINTS, CPU_CAP), got = points_new(NPOINTS, CPU_CAP);
	struct pw_store_buf out = {0};
	struct pw_store_dict d = {0};

	encode(PW_STORE_BLOCK, &orig, 0, NPOINTS, &out);
	for (uint32_t cap = 0; cap < NPOINTS; cap++) {
		memset(got.data, 0x5a, NPOINTS * got.size);
		ck_assert_int_eq(decode(NULL, out.data, out.len, &got, cap), -ENOBUFS);
		for (size_t b = (size_t)cap * got.size; b < NPOINTS * got.size; b++)
			ck_assert_msg(got.data[b] == 0x5a, "cap %u: byte %zu written", cap, b);
	}
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, NPOINTS), NPOINTS);

	/* The encoder's own bounds: no point, more than a frame holds, a row of two. */
	ck_assert_int_eq(pw_store_dict_build(&d, orig.data, orig.size, NPOINTS), 0);
	size_t len = out.len;
	ck_assert_int_eq(pw_store_encode(PW_STORE_BLOCK, &d, orig.data, orig.size, 0, &out), -EINVAL);
	ck_assert_int_eq(
	        pw_store_encode(PW_STORE_BLOCK, &d, orig.data, orig.size, PW_STORE_POINTS_MAX + 1, &out),
	        -EINVAL);
	ck_assert_int_eq(pw_store_encode(PW_STORE_ROW_DICT, &d, orig.data, orig.size, 2, &out), -EINVAL);
	ck_assert_int_eq(pw_store_encode(PW_STORE_ROW, &d, orig.data, orig.size, 2, &out), -EINVAL);
	ck_assert_uint_eq(out.len, len);
	pw_store_dict_done(&d);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* A first time beyond what int64 nanoseconds hold (year 2262) is a damaged frame, not an overflow. */
START_TEST(time_out_of_range)
{
	struct points orig = realistic_points(1, CPU_CAP), got = points_new(1, CPU_CAP);
	static const int64_t times_ms[] = {INT64_MAX / MS + 1, -(INT64_MAX / MS) - 2, INT64_C(1) << 50,
	                                   INT64_C(1) << 52, -(INT64_C(1) << 52)};
	unsigned char frame[4096];

	for (size_t k = 0; k < sizeof(times_ms) / sizeof(times_ms[0]); k++) {
		struct bytes *o = malloc(sizeof(*o));
		ck_assert_ptr_nonnull(o);
		o->n = 0;
		b_varint(o, 1);
		b_series(o, "cpu_system_ratio", "", "ratio", 1e-4);
		b_varint(o, 1);
		b_varint(o, zigzag(times_ms[k]));
		b_varint(o, 0);
		b_varint(o, 2 * 800 + 1);
		memcpy(frame + PW_STORE_FRAME_SIZE, o->b, o->n);
		frame_header(frame, PW_STORE_ROW_DICT, o->b, o->n);
		int r = decode(NULL, frame, PW_STORE_FRAME_SIZE + o->n, &got, 1);
		ck_assert_msg(r == -EBADMSG, "time %lld ms: %d, at %lld ns", (long long)times_ms[k], r,
		              (long long)at(&got, 0)->real_ns);
		free(o);
	}
	/* The extremes that fit still read. */
	at(&orig, 0)->real_ns = INT64_MAX / MS * MS;
	struct pw_store_buf out = {0};
	encode(PW_STORE_ROW_DICT, &orig, 0, 1, &out);
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, 1), 1);
	ck_assert_int_eq(at(&got, 0)->real_ns, INT64_MAX / MS * MS);
	pw_store_buf_done(&out);
	free(orig.data);
	free(got.data);
}
END_TEST

/* ---- size ---- */

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* +- spread, from the generator. */
static int jitter(uint32_t *x, int spread)
{
	return (int)(lcg(x) % (uint32_t)(2 * spread + 1)) - spread;
}

/* An idle-ish 2-CPU host at 1 s for 5 minutes: shares that jitter by a few 1/10000, rates from
 * counts over intervals of 1 s +- 2 ms, memory that drifts by kB, a frequency governor at work. */
START_TEST(compact)
{
	enum { N = 300, NCPU = 2 };
	struct points ps = points_new(N, NCPU);
	struct pw_store_buf out = {0};
	struct pw_store_dict d = {0};
	uint32_t x = 12345;
	int64_t t = T0;

	for (uint32_t i = 0; i < N; i++) {
		struct pw_history_point *p = at(&ps, i);
		double interval = 1.0 + jitter(&x, 2) / 1000.0;
		t += (int64_t)(interval * 1e9);
		pw_history_point_unknown(p, NCPU, t);
		p->flags = i == 0 ? PW_HISTORY_RUN_START : 0;
		p->share[PW_MODE_USER] = (uint16_t)(1500 + jitter(&x, 3));
		p->share[PW_MODE_NICE] = 0;
		p->share[PW_MODE_SYSTEM] = (uint16_t)(400 + jitter(&x, 2));
		p->share[PW_MODE_IOWAIT] = (uint16_t)(100 + jitter(&x, 1));
		p->share[PW_MODE_IRQ] = (uint16_t)(10 + jitter(&x, 1));
		p->share[PW_MODE_SOFTIRQ] = (uint16_t)(30 + jitter(&x, 2));
		p->share[PW_MODE_STEAL] = 0;
		p->share[PW_MODE_IDLE] = (uint16_t)(10000 - 1500 - 400 - 100 - 10 - 30 + jitter(&x, 4));
		p->busy_cpus = 0;
		p->ncpu = NCPU;
		p->psi_some_stall[PW_PSI_CPU] = (uint16_t)(50 + i / 30);
		p->psi_some_stall[PW_PSI_MEMORY] = 0;
		p->psi_some_stall[PW_PSI_IO] = (uint16_t)(i % 60 < 5 ? 20 : 0);
		p->procs_running = 1 + lcg(&x) % 3;
		p->intr_rate = (float)((4000 + jitter(&x, 40)) / interval);
		p->ctxt_rate = (float)((9000 + jitter(&x, 200)) / interval);
		p->softirq_rate = (float)((800 + jitter(&x, 20)) / interval);
		p->swap_in_rate = p->swap_out_rate = 0.0f;
		p->major_fault_rate = (float)(i % 50 == 0 ? 3 / interval : 0);
		p->mem_available_kb = UINT64_C(24120980) - 4 * i + (uint64_t)(8 + jitter(&x, 8));
		p->cached_kb = UINT64_C(3456789) + i / 10;
		for (int k = 0; k < PW_SOFTIRQ_COUNT; k++) {
			static const int base[PW_SOFTIRQ_COUNT] = {0, 250, 2, 300, 20, 0, 1, 100, 0, 200};
			p->softirq_type_rate[k] = (float)((base[k] + jitter(&x, base[k] / 10)) / interval);
		}
		pw_test_set_line(p, 0, "LOC", (float)((2000 + jitter(&x, 20)) / interval));
		pw_test_set_line(p, 1, "25", (float)((100 + jitter(&x, 5)) / interval));
		pw_test_set_line(p, 2, "NMI", 0.0f);
		pw_test_set_line(p, 3, "27", (float)((50 + jitter(&x, 5)) / interval));
		for (uint32_t c = 0; c < NCPU; c++) {
			uint16_t user = (uint16_t)(1500 + jitter(&x, 5)),
			         system = (uint16_t)(400 + jitter(&x, 3));
			p->cpus[c] = (struct pw_history_cpu){
			        .busy = (uint16_t)(user + system + 40 + jitter(&x, 2)),
			        .user = user,
			        .system = system,
			        .irq = (uint16_t)(40 + jitter(&x, 2)),
			        .iowait = (uint16_t)(100 + jitter(&x, 1)),
			        .freq_ratio = (uint16_t)(i % 20 < 3 ? 10000 : 4000 + jitter(&x, 10)),
			        .avg_mhz = (uint16_t)(i % 20 < 3 ? 3000 : 1200 + jitter(&x, 4)),
			};
		}
	}
	encode(PW_STORE_BLOCK, &ps, 0, N, &out);
	ck_assert_int_eq(pw_store_dict_build(&d, ps.data, ps.size, N), 0);
	double values = (double)d.n * N, per_value = (double)out.len / values;
	/* Printed for the record: 0.765 bytes a value when written (11 469 bytes for 300 points of 50
	 * series, 38 bytes a point against pw_history_point_size(2) = 296 in memory). The bound is what
	 * the codec promises. */
	printf("store_codec: %u points x %u series = %.0f values in %zu bytes (frame included): %.3f bytes "
	       "a value, %.0f bytes a point\n",
	       N, d.n, values, out.len, per_value, (double)out.len / N);
	ck_assert_msg(per_value < 2.0, "%.3f bytes a value", per_value);

	struct points got = points_new(N, NCPU);
	ck_assert_int_eq(decode(NULL, out.data, out.len, &got, N), N);
	assert_points(&ps, 0, &got, N, "compact");
	pw_store_dict_done(&d);
	pw_store_buf_done(&out);
	free(ps.data);
	free(got.data);
}
END_TEST

/* The series reader (/history's per-point path) returns what pw_history_series_get() does, bit for
 * bit, for every series of every signal: unknowns, a CPU past a point's ncpu, a line not kept. */
START_TEST(reader_equals_get)
{
	struct points ps = realistic_points(NPOINTS, CPU_CAP);
	static const char *const irqs[] = {"LOC", "25", "nope"};

	for (int sig = 0; sig < PW_HS_COUNT; sig++) {
		for (uint32_t inst = 0; inst < CPU_CAP + 2; inst++) {
			for (int k = 0; k < 3; k++) {
				struct pw_history_series se = {.signal = sig, .inst = inst};
				struct pw_history_reader r;
				snprintf(se.irq, sizeof(se.irq), "%s", irqs[k]);
				pw_history_reader_init(&r, &se);
				for (uint32_t i = 0; i < ps.n; i++) {
					double want = pw_history_series_get(&se, at(&ps, i));
					double got = pw_history_read(&r, at(&ps, i));
					ck_assert_msg(memcmp(&want, &got, sizeof(want)) == 0 ||
					                      (isnan(want) && isnan(got)),
					              "%s inst %u point %u: %.17g, want %.17g",
					              pw_history_signal_name(sig), inst, i, got, want);
				}
			}
		}
	}
	free(ps.data);
}
END_TEST

static Suite *store_codec_suite(void)
{
	Suite *s = suite_create("store_codec");
	TCase *core = tcase_create("core"), *damage = tcase_create("damage"), *self = tcase_create("self");
	TCase *bounds = tcase_create("bounds");

	tcase_add_test(core, block_round_trip);
	tcase_add_test(core, rows_round_trip);
	tcase_add_test(core, blocks_in_a_file);
	tcase_add_test(core, clock_stepping_back);
	tcase_add_test(core, compact);
	tcase_add_test(core, reader_equals_get);
	tcase_add_test(damage, row_without_dictionary);
	tcase_add_test(damage, row_after_damaged_dictionary);
	tcase_add_test(damage, flipped_block);
	tcase_add_test(damage, flipped_row_dict);
	tcase_add_test(damage, truncated_frames);
	tcase_add_test(damage, corrupt_frame_header);
	tcase_add_test(damage, file_header);
	tcase_add_test(self, unknown_signal_skipped);
	tcase_add_test(self, fewer_series_unknown);
	tcase_add_test(bounds, cpu_beyond_capacity);
	tcase_add_test(bounds, more_points_than_room);
	tcase_add_test(bounds, time_out_of_range);
	suite_add_tcase(s, core);
	suite_add_tcase(s, damage);
	suite_add_tcase(s, self);
	suite_add_tcase(s, bounds);
	return s;
}

int main(void)
{
	return pw_run_suite(store_codec_suite());
}
