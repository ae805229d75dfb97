/* fuzz_store.c — libFuzzer harness: a history store file (lib/store_codec.c) walked as the daemon's
 * reader walks one (daemon/history_store.c): the header, then frame after frame through
 * pw_store_frame_length and pw_store_decode with one decoder, into points with room for 4 CPUs (so
 * CPUs beyond it are dropped), and through pw_store_decode_columns with another, into columns as
 * /history reads a window (lib/history_columns.h: bounded rows and bytes; a frame the points refuse
 * the columns refuse too, and leave as they were). Every batch that decodes is encoded again (a
 * BLOCK, and a ROW_DICT then a ROW for one point) and must decode to the same times, flags and values
 * at each signal's precision, and into columns to exactly the integers the encoder wrote;
 * a BLOCK read with room for one point fewer is -ENOBUFS.
 *
 * An input whose first byte is odd gets its header's magic and CRC, and each frame's length (cut to
 * what is left) and CRCs, fixed; with bit 1 also set, its BLOCK payloads are taken as the raw
 * dictionary and points and deflated here. So mutations get past the checksums and zlib to the
 * dictionary and point parsers. Seeds (tests/fuzz/corpus/store): frames from the encoder. */
#include "history_columns.h"
#include "store_codec.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CPU_CAP = 4 };

static const unsigned char magic[8] = {'P', 'W', 'H', 'I', 'S', 'T', '\r', '\n'};

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

static struct pw_history_point *point(void *points, size_t size, uint32_t i)
{
	return (struct pw_history_point *)(void *)((char *)points + (size_t)i * size);
}

/* The input with its checksums fixed (and BLOCK payloads deflated when deflate): a malloc'd file. */
static unsigned char *fix(const uint8_t *in, size_t size, bool deflate, size_t *ret_len)
{
	size_t cap = size + 64, len = 0, off = PW_STORE_HEADER_SIZE;
	unsigned char *out = malloc(cap);

	if (!out)
		return NULL;
	if (size < PW_STORE_HEADER_SIZE) {
		memcpy(out, in, size);
		*ret_len = size;
		return out;
	}
	memcpy(out, in, PW_STORE_HEADER_SIZE);
	memcpy(out, magic, sizeof(magic));
	put32(out + 28, crc(out, 28));
	len = PW_STORE_HEADER_SIZE;
	while (off + PW_STORE_FRAME_SIZE <= size) {
		const unsigned char *f = in + off, *payload = f + PW_STORE_FRAME_SIZE;
		size_t n = get32(f), left = size - off - PW_STORE_FRAME_SIZE;
		uint32_t type = get32(f + 4);
		if (n > left)
			n = left;
		uLong room = deflate && type == PW_STORE_BLOCK ? 4 + compressBound((uLong)n) : (uLong)n;
		if (len + PW_STORE_FRAME_SIZE + room > cap) {
			cap = 2 * (len + PW_STORE_FRAME_SIZE + room);
			unsigned char *more = realloc(out, cap);
			if (!more) {
				free(out);
				return NULL;
			}
			out = more;
		}
		unsigned char *h = out + len, *p = h + PW_STORE_FRAME_SIZE;
		if (deflate && type == PW_STORE_BLOCK) {
			put32(p, (uint32_t)n);
			uLongf z = room - 4;
			if (compress2(p + 4, &z, payload, (uLong)n, 1) != Z_OK)
				abort();
			room = 4 + z;
		} else {
			memcpy(p, payload, n);
		}
		put32(h, (uint32_t)room);
		put32(h + 4, type);
		put32(h + 8, crc(p, room));
		put32(h + 12, crc(h, 12));
		len += PW_STORE_FRAME_SIZE + room;
		off += PW_STORE_FRAME_SIZE + n;
	}
	/* A torn tail, shorter than a frame header: as it is. */
	if (len + size - off > cap) {
		unsigned char *more = realloc(out, len + size - off);
		if (!more) {
			free(out);
			return NULL;
		}
		out = more;
	}
	memcpy(out + len, in + off, size - off);
	*ret_len = len + size - off;
	return out;
}

/* b is a read back for a: both unknown, or equal at the quantum (plus the float rates are kept in);
 * a value the format cannot keep (infinite, or beyond 2^52 quanta) is written as unknown. */
static void check_value(const struct pw_history_series *se, double a, double b)
{
	double q = pw_history_signal_def(se->signal)->quantum;

	if (isnan(a) || !isfinite(a) || !(fabs(a / q) <= 0x1p52)) {
		if (!isnan(b))
			abort();
		return;
	}
	if (isnan(b) || fabs(a - b) > q / 2 + fabs(a) * 1e-6)
		abort();
}

static void check_same(const struct pw_store_dict *d, void *a, void *b, size_t size, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct pw_history_point *pa = point(a, size, i), *pb = point(b, size, i);
		if (pa->real_ns != pb->real_ns || pa->flags != pb->flags || pb->ncpu > CPU_CAP)
			abort();
		for (uint32_t s = 0; s < d->n; s++)
			check_value(&d->series[s], pw_history_series_get(&d->series[s], pa),
			            pw_history_series_get(&d->series[s], pb));
	}
}

/* The block out (n points, d's series) in columns: exactly the integers the encoder wrote, when the
 * points' times rise (else the later of two times is dropped, found twice). */
static void columns_same(const struct pw_store_dict *d, void *points, size_t size, uint32_t n,
                         const struct pw_store_buf *out)
{
	struct pw_store_decoder *dec = pw_store_decoder_new();
	struct pw_history_columns c;
	pw_history_columns_init(&c, CPU_CAP, PW_STORE_POINTS_MAX, 64u << 20);
	int r = dec ? pw_store_decode_columns(dec, out->data, out->len, &c, INT64_MIN, INT64_MAX) : -ENOMEM;
	bool rising = true;
	for (uint32_t i = 1; i < n; i++)
		rising &= point(points, size, i)->real_ns > point(points, size, i - 1)->real_ns;
	if (r == -ENOMEM || r == -ERANGE || r == -E2BIG)
		goto done; /* past 32 bits, too many lines: the window is read as points then */
	if (r < 0 || (rising && r != (int)n) || r > (int)n)
		abort();
	pw_history_columns_finish(&c);
	for (uint32_t s = 0; rising && s < d->n; s++) {
		int col = pw_history_columns_find(&c, &d->series[s]);
		if (col < 0) {
			if (d->series[s].signal < PW_HS_PERCPU_BUSY || d->series[s].inst < CPU_CAP)
				abort(); /* a series the block has, not taken */
			continue;
		}
		const int32_t *v = pw_history_column_values(&c, (uint32_t)col);
		double quantum = pw_history_signal_def(d->series[s].signal)->quantum;
		for (uint32_t i = 0; i < n; i++) {
			int64_t q;
			bool known = pw_history_quantize(
			        pw_history_series_get(&d->series[s], point(points, size, i)), quantum, &q);
			if (known ? v[i] != q : v[i] != PW_COLUMN_UNKNOWN)
				abort();
		}
	}
done:
	pw_history_columns_done(&c);
	pw_store_decoder_free(dec);
}

/* What decoded (n points) is written again and reads back the same. */
static void round_trip(void *points, void *again, size_t size, uint32_t n)
{
	struct pw_store_dict d = {0};
	struct pw_store_buf out = {0};
	struct pw_store_decoder *dec = pw_store_decoder_new();

	if (!dec || pw_store_dict_build(&d, points, size, n) < 0)
		goto done;
	int r = pw_store_encode(PW_STORE_BLOCK, &d, points, size, n, &out);
	if (r == -ENOMEM)
		goto done;
	if (r < 0 || pw_store_frame_length(out.data, out.len, NULL) != (ssize_t)out.len)
		abort();
	r = pw_store_decode(dec, out.data, out.len, again, size, CPU_CAP, n);
	if (r == -ENOMEM)
		goto done;
	if (r != (int)n)
		abort(); /* the encoder wrote a block its own decoder refuses */
	check_same(&d, points, again, size, n);
	columns_same(&d, points, size, n, &out);
	if (n == 1) {
		size_t first;
		out.len = 0;
		if (pw_store_encode(PW_STORE_ROW_DICT, &d, points, size, 1, &out) < 0)
			goto done;
		first = out.len;
		if (pw_store_encode(PW_STORE_ROW, &d, points, size, 1, &out) < 0)
			goto done;
		if (pw_store_decode(dec, out.data, first, again, size, CPU_CAP, 1) != 1)
			abort();
		check_same(&d, points, again, size, 1);
		if (pw_store_decode(dec, out.data + first, out.len - first, again, size, CPU_CAP, 1) != 1)
			abort();
		check_same(&d, points, again, size, 1);
	}
done:
	pw_store_decoder_free(dec);
	pw_store_dict_done(&d);
	pw_store_buf_done(&out);
}

/* The same frame into the window's columns: refused exactly when the points refuse it (then left as
 * they were), else its points newer than the window's newest taken; rows and values bounded. */
static void walk_columns(struct pw_store_decoder *dec, const unsigned char *frame, size_t len,
                         struct pw_history_columns *c, int points_got)
{
	uint32_t n0 = c->n;
	int r = pw_store_decode_columns(dec, frame, len, c, INT64_MIN, INT64_MAX);
	if (r == -ENOMEM || r == -ERANGE || r == -E2BIG) {
		uint32_t cap = c->cpu_cap, rows = c->max_rows;
		size_t bytes = c->max_bytes;
		if (c->values_size > bytes || c->n > rows)
			abort();
		pw_history_columns_done(c); /* the daemon reads such a window as points */
		pw_history_columns_init(c, cap, rows, bytes);
		return;
	}
	if ((r == -EBADMSG) != (points_got == -EBADMSG) || (r < 0 && r != -EBADMSG))
		abort();
	if (r == -EBADMSG ? c->n != n0 : c->n != n0 + (uint32_t)r || r > points_got)
		abort();
	for (uint32_t i = n0 > 0 ? n0 : 1; i < c->n; i++)
		if (c->time_ns[i] <= c->time_ns[i - 1])
			abort();
	if (c->ncpu > CPU_CAP || c->nlines > PW_HISTORY_COLUMNS_LINES)
		abort();
	for (uint32_t k = 0; k < c->ncols; k++)
		if (c->cols[k].len > c->n)
			abort();
}

static void walk(const unsigned char *file, size_t len, void *points, void *again, size_t size)
{
	struct pw_store_header h;
	size_t off = PW_STORE_HEADER_SIZE;
	int r = pw_store_header_decode(file, len, &h);

	if (r != 0 && r != -EINVAL && r != -EPROTO)
		abort();
	if (r < 0)
		return;
	struct pw_store_decoder *dec = pw_store_decoder_new(), *cdec = pw_store_decoder_new();
	struct pw_history_columns cols;
	pw_history_columns_init(&cols, CPU_CAP, 8 * PW_STORE_POINTS_MAX, 16u << 20);
	if (!dec || !cdec)
		goto done;
	while (off < len) {
		uint32_t type = 0;
		ssize_t n = pw_store_frame_length(file + off, len - off, &type);
		if (n == 0 || n == -EBADMSG)
			break; /* torn, or a header the walk cannot go on past */
		if (n < PW_STORE_FRAME_SIZE || (size_t)n > len - off || type < PW_STORE_BLOCK ||
		    type > PW_STORE_ROW)
			abort();
		int got = pw_store_decode(dec, file + off, (size_t)n, points, size, CPU_CAP,
		                          PW_STORE_POINTS_MAX);
		walk_columns(cdec, file + off, (size_t)n, &cols, got);
		if (got > 0) {
			if ((uint32_t)got > PW_STORE_POINTS_MAX || (type != PW_STORE_BLOCK && got != 1))
				abort();
			if (type == PW_STORE_BLOCK) {
				/* One point fewer than the block holds: refused, whatever the decoder's
				 * state. */
				struct pw_store_decoder *other = pw_store_decoder_new();
				int less = other ? pw_store_decode(other, file + off, (size_t)n, again, size,
				                                   CPU_CAP, (uint32_t)got - 1)
				                 : -ENOBUFS;
				if (less != -ENOBUFS && less != -ENOMEM)
					abort();
				pw_store_decoder_free(other);
			}
			round_trip(points, again, size, (uint32_t)got);
		} else if (got != -EBADMSG && got != -ENOBUFS && got != -ENOMEM) {
			abort();
		}
		off += (size_t)n;
	}
done:
	pw_history_columns_done(&cols);
	pw_store_decoder_free(cdec);
	pw_store_decoder_free(dec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static void *points, *again;
	static size_t point_size;
	unsigned char *fixed = NULL;
	size_t len = size;

	if (!points) {
		point_size = pw_history_point_size(CPU_CAP);
		points = malloc(PW_STORE_POINTS_MAX * point_size);
		again = malloc(PW_STORE_POINTS_MAX * point_size);
		if (!points || !again)
			abort();
	}
	if (size > 0 && (data[0] & 1)) {
		if (!(fixed = fix(data, size, data[0] & 2, &len)))
			return 0;
	}
	walk(fixed ? fixed : data, len, points, again, point_size);
	free(fixed);
	return 0;
}
