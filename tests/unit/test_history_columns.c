/* test_history_columns.c — a window of history as columns (lib/history_columns.c), decoded straight
 * from store frames (pw_store_decode_columns) and from the ring's points: /history renders it byte
 * for byte as it renders the same window decoded into points (JSON and CSV; lines in the same order,
 * gaps, a CPU that came online, rates that fall on a half at their 0.01); a point found twice is
 * taken once and the window is cut at since and until; a frame refused halfway leaves the columns as
 * they were; figures past 32 bits, too many lines, and more points than allowed are refused. Also
 * pw_write_scaled against pw_write_fixed. */
#include "fixed_text.h"
#include "fixture_util.h"
#include "history_columns.h"
#include "history_json.h"
#include "history_points.h"
#include "store_codec.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CPU_CAP 4
#define NPOINTS 40
#define SEC INT64_C(1000000000)
#define MS INT64_C(1000000)
#define T0 (INT64_C(1796065147) * SEC + 250 * MS)
#define ALL ((UINT64_C(1) << PW_HS_COUNT) - 1)

static size_t psize(void)
{
	return pw_history_point_size(CPU_CAP);
}

static struct pw_history_point *at(void *points, uint32_t i)
{
	return (struct pw_history_point *)(void *)((char *)points + (size_t)i * psize());
}

/* NPOINTS points of a run: pw_test_history_point's, with a restart at 17, a second missed at 25,
 * a CPU offline from 30, rates on a half at their 0.01 (209517.125 / s: a float above 2^17 keeps
 * 1/64ths) and lines that change ranking. */
static void *run_points(void)
{
	void *pts = calloc(NPOINTS, psize());
	ck_assert_ptr_nonnull(pts);
	int64_t t = T0;
	for (uint32_t i = 0; i < NPOINTS; i++) {
		struct pw_history_point *p = at(pts, i);
		pw_test_history_point(p, CPU_CAP, i % 6, 0);
		t += i == 25 ? 3 * SEC : SEC + (int64_t)(i % 3) * 7 * MS;
		p->real_ns = t;
		p->flags = i == 0 || i == 17 ? PW_HISTORY_RUN_START : 0;
		p->intr_rate = 209517.125f + 0.5f * (float)i;
		p->ctxt_rate = 131072.625f + (float)i;
		if (i >= 30)
			p->ncpu = 3;
		if (i >= 20)
			pw_test_set_line(p, 4, i % 2 ? "77" : "78", 12.345f);
	}
	return pts;
}

/* Points [first, first + n) as one BLOCK frame appended to out. */
static void encode(void *pts, uint32_t first, uint32_t n, struct pw_store_buf *out)
{
	struct pw_store_dict d = {0};
	ck_assert_int_eq(pw_store_dict_build(&d, at(pts, first), psize(), n), 0);
	ck_assert_int_eq(pw_store_encode(PW_STORE_BLOCK, &d, at(pts, first), psize(), n, out), 0);
	pw_store_dict_done(&d);
}

/* The frames of buf (one after another). */
static size_t frame_len(const struct pw_store_buf *buf, size_t off)
{
	ssize_t n = pw_store_frame_length(buf->data + off, buf->len - off, NULL);
	ck_assert_int_gt(n, 0);
	return (size_t)n;
}

/* The disk part as the points path reads it: every frame decoded into points, those in the window
 * kept (since < t <= until, newer than the one before). */
static uint32_t disk_points(const struct pw_store_buf *buf, int64_t since, int64_t until, void *out)
{
	struct pw_store_decoder *dec = pw_store_decoder_new();
	void *scratch = calloc(PW_STORE_POINTS_MAX, psize());
	uint32_t n = 0;
	ck_assert_ptr_nonnull(scratch);
	for (size_t off = 0; off < buf->len;) {
		size_t len = frame_len(buf, off);
		int got = pw_store_decode(dec, buf->data + off, len, scratch, psize(), CPU_CAP,
		                          PW_STORE_POINTS_MAX);
		ck_assert_int_gt(got, 0);
		for (int i = 0; i < got; i++) {
			struct pw_history_point *p = at(scratch, (uint32_t)i);
			if (p->real_ns > since && p->real_ns <= until &&
			    (n == 0 || p->real_ns > at(out, n - 1)->real_ns))
				memcpy(at(out, n++), p, psize());
		}
		off += len;
	}
	free(scratch);
	pw_store_decoder_free(dec);
	return n;
}

static void disk_columns(const struct pw_store_buf *buf, int64_t since, int64_t until,
                         struct pw_history_columns *c)
{
	struct pw_store_decoder *dec = pw_store_decoder_new();
	for (size_t off = 0; off < buf->len;) {
		size_t len = frame_len(buf, off);
		ck_assert_int_ge(pw_store_decode_columns(dec, buf->data + off, len, c, since, until), 0);
		off += len;
	}
	pw_store_decoder_free(dec);
}

static char *render(const struct pw_history_window *w, int64_t since, int64_t until, int64_t step,
                    enum pw_history_format format)
{
	struct pw_history_query q = {.since_ns = since,
	                             .until_ns = until,
	                             .step_ns = step,
	                             .step_given = step != 0,
	                             .format = format,
	                             .signals = ALL};
	struct pw_outbuf out;
	char err[256] = "";
	pw_outbuf_init(&out);
	ck_assert_msg(pw_history_render(&out, &q, w, NULL, err, sizeof(err)) == 0, "%s", err);
	pw_outbuf_putc(&out, '\0');
	return out.data;
}

/* The window (since, until] of the run, the points up to ring_from on disk and the rest in the ring,
 * rendered from points and from columns: the same bytes. */
static void same_answers(int64_t since, int64_t until, int64_t ring_from)
{
	void *pts = run_points(), *from_points = calloc(NPOINTS, psize());
	struct pw_store_buf buf = {0};
	ck_assert_ptr_nonnull(from_points);
	/* Blocks of 15: lines and CPUs change inside and between them. */
	for (uint32_t first = 0; first < NPOINTS; first += 15)
		encode(pts, first, NPOINTS - first < 15 ? NPOINTS - first : 15, &buf);
	uint32_t ring = 0, nring = 0;
	while (ring < NPOINTS && at(pts, ring)->real_ns <= ring_from)
		ring++;
	for (uint32_t i = ring; i < NPOINTS && at(pts, i)->real_ns <= until; i++)
		nring++;

	uint32_t n = disk_points(&buf, since, ring_from, from_points);
	memcpy(at(from_points, n), at(pts, ring), (size_t)nring * psize());
	struct pw_history_window wp = {.points = from_points,
	                               .point_size = psize(),
	                               .npoints = n + nring,
	                               .interval_ns = SEC,
	                               .now_real_ns = until};

	struct pw_history_columns c;
	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	disk_columns(&buf, since, ring_from, &c);
	ck_assert_int_eq(pw_history_columns_add_points(&c, at(pts, ring), psize(), nring), 0);
	pw_history_columns_finish(&c);
	struct pw_history_window wc = wp;
	wc.points = NULL;
	wc.columns = &c;
	wc.npoints = c.n;
	ck_assert_uint_eq(c.n, n + nring);
	ck_assert_uint_gt(c.n, 5);

	for (int csv = 0; csv < 2; csv++) {
		char *a = render(&wp, since, until, 0, csv ? PW_HISTORY_CSV : PW_HISTORY_JSON);
		char *b = render(&wc, since, until, 0, csv ? PW_HISTORY_CSV : PW_HISTORY_JSON);
		size_t k = 0;
		while (a[k] && a[k] == b[k])
			k++;
		ck_assert_msg(a[k] == b[k], "%s differs at byte %zu: points '%.60s', columns '%.60s'",
		              csv ? "CSV" : "JSON", k, a + (k > 20 ? k - 20 : 0), b + (k > 20 ? k - 20 : 0));
		/* A rate on a half (209525.125) prints as the store keeps it, rounded away from zero. */
		char *intr = strstr(b, csv ? "\n" : "\"interrupts_per_second\"");
		ck_assert_msg(strstr(b, "209525.13"), "%.300s", intr ? intr : b);
		free(a);
		free(b);
	}
	/* Coarsened to steps, the columns' figures still come out: the interrupt lines' step means. */
	char *agg = render(&wc, since, until, 5 * SEC, PW_HISTORY_JSON);
	ck_assert_ptr_nonnull(strstr(agg, "\"aggregated\":true"));
	ck_assert_ptr_nonnull(strstr(agg, "\"interrupt_line_per_second.irq78\""));
	free(agg);

	pw_history_columns_done(&c);
	pw_store_buf_done(&buf);
	free(pts);
	free(from_points);
}

START_TEST(columns_render_as_points)
{
	int64_t end = T0 + 50 * SEC;
	same_answers(T0, end, end);                               /* all from disk */
	same_answers(T0, end, T0 + 22 * SEC);                     /* disk, then the ring */
	same_answers(T0 + 9 * SEC, T0 + 33 * SEC, T0 + 28 * SEC); /* cut at both ends */
	same_answers(T0 - SEC, end, T0);                          /* all from the ring */
}
END_TEST

/* A frame read twice (a block written while the head was read) adds nothing the second time; the
 * window's bounds hold. */
START_TEST(found_twice_and_cut)
{
	void *pts = run_points();
	struct pw_store_buf buf = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();
	struct pw_history_columns c;
	encode(pts, 0, 15, &buf);
	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	int64_t since = at(pts, 2)->real_ns, until = at(pts, 11)->real_ns;
	ck_assert_int_eq(pw_store_decode_columns(dec, buf.data, buf.len, &c, since, until), 9);
	ck_assert_int_eq(pw_store_decode_columns(dec, buf.data, buf.len, &c, since, until), 0);
	ck_assert_uint_eq(c.n, 9);
	ck_assert_int_eq(c.time_ns[0], at(pts, 3)->real_ns);
	ck_assert_int_eq(c.time_ns[8], until);
	pw_history_columns_finish(&c);
	struct pw_history_series user = {.signal = PW_HS_CPU_SYSTEM};
	int col = pw_history_columns_find(&c, &user);
	ck_assert_int_ge(col, 0);
	ck_assert_int_eq(pw_history_column_values(&c, (uint32_t)col)[0], at(pts, 3)->share[PW_MODE_SYSTEM]);
	pw_history_columns_done(&c);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&buf);
	free(pts);
}
END_TEST

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t crc(const void *buf, size_t len)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
}

/* A frame whose checksums hold but whose tokens end early (a writer's bug, a crafted file): its
 * points were taken before the end showed, and are given back. */
START_TEST(refused_frame_leaves_columns)
{
	void *pts = run_points();
	struct pw_store_buf good = {0}, bad = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();
	struct pw_store_dict d = {0};
	struct pw_history_columns c;

	encode(pts, 0, 5, &good);
	ck_assert_int_eq(pw_store_dict_build(&d, at(pts, 20), psize(), 1), 0);
	ck_assert_int_eq(pw_store_encode(PW_STORE_ROW_DICT, &d, at(pts, 20), psize(), 1, &bad), 0);
	bad.len -= 3; /* the last tokens cut, the header made to match */
	put32(bad.data, (uint32_t)(bad.len - PW_STORE_FRAME_SIZE));
	put32(bad.data + 8, crc(bad.data + PW_STORE_FRAME_SIZE, bad.len - PW_STORE_FRAME_SIZE));
	put32(bad.data + 12, crc(bad.data, 12));

	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	ck_assert_int_eq(pw_store_decode_columns(dec, good.data, good.len, &c, INT64_MIN, INT64_MAX), 5);
	uint32_t ncols = c.ncols, lens[256];
	for (uint32_t k = 0; k < ncols; k++)
		lens[k] = c.cols[k].len;
	ck_assert_int_eq(pw_store_decode_columns(dec, bad.data, bad.len, &c, INT64_MIN, INT64_MAX), -EBADMSG);
	ck_assert_uint_eq(c.n, 5);
	ck_assert_int_eq(c.last_ns, at(pts, 4)->real_ns);
	for (uint32_t k = 0; k < ncols; k++)
		ck_assert_uint_le(c.cols[k].len, lens[k] > 5 ? lens[k] : 5);
	/* Line 77 came only with the refused frame: not shown. */
	uint32_t lines[PW_HISTORY_COLUMNS_LINES];
	uint32_t nl = pw_history_columns_lines(&c, lines, PW_HISTORY_COLUMNS_LINES);
	for (uint32_t k = 0; k < nl; k++)
		ck_assert_str_ne(c.cols[lines[k]].id.irq, "78");

	pw_history_columns_done(&c);
	pw_store_dict_done(&d);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&good);
	pw_store_buf_done(&bad);
	free(pts);
}
END_TEST

/* 3 TiB of memory in kB does not fit 32 bits: refused from disk and from the ring, for the caller to
 * read the window as points. */
START_TEST(too_wide)
{
	void *pts = run_points();
	struct pw_store_buf buf = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();
	struct pw_history_columns c;
	at(pts, 2)->mem_available_kb = UINT64_C(3) << 30;
	encode(pts, 0, 5, &buf);
	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	ck_assert_int_eq(pw_store_decode_columns(dec, buf.data, buf.len, &c, INT64_MIN, INT64_MAX), -ERANGE);
	pw_history_columns_done(&c);
	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	ck_assert_int_eq(pw_history_columns_add_points(&c, pts, psize(), 5), -ERANGE);
	pw_history_columns_done(&c);
	pw_store_decoder_free(dec);
	pw_store_buf_done(&buf);
	free(pts);
}
END_TEST

/* More points than max_rows, values past max_bytes, more lines than the columns keep: refused. */
START_TEST(bounded)
{
	void *pts = run_points();
	struct pw_history_columns c;

	pw_history_columns_init(&c, CPU_CAP, 10, 1u << 20);
	ck_assert_int_eq(pw_history_columns_add_points(&c, pts, psize(), 15), -E2BIG);
	ck_assert_uint_eq(c.n, 10);
	pw_history_columns_done(&c);

	pw_history_columns_init(&c, CPU_CAP, 1000, 4096); /* 1 KiB of values: a few columns of 30 */
	ck_assert_int_eq(pw_history_columns_add_points(&c, pts, psize(), 30), -E2BIG);
	ck_assert_uint_le(c.values_size, 4096);
	pw_history_columns_done(&c);

	for (uint32_t i = 0; i < 12; i++) /* six new names a point: 72 lines */
		for (int k = 0; k < PW_HISTORY_LINES; k++) {
			char name[16];
			snprintf(name, sizeof(name), "%u", 1000 + i * PW_HISTORY_LINES + (uint32_t)k);
			pw_test_set_line(at(pts, i), k, name, 1.0f);
		}
	pw_history_columns_init(&c, CPU_CAP, 1000, 1u << 20);
	ck_assert_int_eq(pw_history_columns_add_points(&c, pts, psize(), 12), -ERANGE);
	ck_assert_uint_eq(c.nlines, PW_HISTORY_COLUMNS_LINES);
	pw_history_columns_done(&c);
	free(pts);
}
END_TEST

/* Printed from its integer, a figure is what pw_write_fixed makes of it as a double. */
START_TEST(scaled_as_fixed)
{
	static const double pow10[] = {1, 10, 100, 1000, 10000};
	uint64_t x = 88172645463325252u;
	char a[PW_FIXED_MAX + 1], b[PW_FIXED_MAX + 1];

	pw_fixed_text_init();
	for (int i = 0; i < 600000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int dec = (int)(x % 5);
		int64_t n = (int64_t)(x >> 20) % (i % 3 ? 100000 : INT64_C(3000000000)) - (i % 2 ? 0 : 50000);
		char *ea = pw_write_scaled(a, n, dec), *eb = pw_write_fixed(b, (double)n / pow10[dec], dec);
		*ea = *eb = '\0';
		ck_assert_msg(strcmp(a, b) == 0, "%lld at %d decimals: %s, want %s", (long long)n, dec, a, b);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("history_columns");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, columns_render_as_points);
	tcase_add_test(tc, found_twice_and_cut);
	tcase_add_test(tc, refused_frame_leaves_columns);
	tcase_add_test(tc, too_wide);
	tcase_add_test(tc, bounded);
	tcase_add_test(tc, scaled_as_fixed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return pw_run_suite(suite());
}
