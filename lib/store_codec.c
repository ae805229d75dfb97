/* store_codec.c — encode and decode the history store's frames (store_codec.h). */
#include "store_codec.h"

#include "history_columns.h"

#include <errno.h>
#include <libdeflate.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const unsigned char magic[8] = {'P', 'W', 'H', 'I', 'S', 'T', '\r', '\n'};

/* ---- bytes ---- */

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* CRC-32 (zlib's, computed by libdeflate: a third of zlib's time on a block). */
static uint32_t crc(const void *buf, size_t len)
{
	return libdeflate_crc32(0, buf, len);
}

void pw_store_header_encode(const struct pw_store_header *hdr, void *buf)
{
	unsigned char *p = buf;
	uint64_t interval = (uint64_t)hdr->interval_ns;

	memset(p, 0, PW_STORE_HEADER_SIZE);
	memcpy(p, magic, sizeof(magic));
	put32(p + 8, hdr->version);
	put32(p + 12, hdr->tier);
	put32(p + 16, (uint32_t)interval);
	put32(p + 20, (uint32_t)(interval >> 32));
	put32(p + 28, crc(p, 28));
}

int pw_store_header_decode(const void *buf, size_t len, struct pw_store_header *ret)
{
	const unsigned char *p = buf;

	if (len < PW_STORE_HEADER_SIZE)
		return -EINVAL;
	if (memcmp(p, magic, sizeof(magic)) != 0 || get32(p + 28) != crc(p, 28))
		return -EPROTO;
	struct pw_store_header h = {
	        .version = get32(p + 8),
	        .tier = get32(p + 12),
	        .interval_ns = (int64_t)((uint64_t)get32(p + 16) | (uint64_t)get32(p + 20) << 32),
	};
	*ret = h;
	return h.version > PW_STORE_VERSION || h.version == 0 ? -EPROTO : 0;
}

static bool reserve(struct pw_store_buf *b, size_t more)
{
	if (b->failed)
		return false;
	if (b->len + more <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + more)
		cap *= 2;
	unsigned char *data = realloc(b->data, cap);
	if (!data)
		return !(b->failed = true);
	b->data = data;
	b->cap = cap;
	return true;
}

static void put_bytes(struct pw_store_buf *b, const void *bytes, size_t n)
{
	if (reserve(b, n)) {
		memcpy(b->data + b->len, bytes, n);
		b->len += n;
	}
}

static void put_varint(struct pw_store_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_bytes(b, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void put_string(struct pw_store_buf *b, const char *s)
{
	size_t n = strnlen(s, PW_STORE_STRING_MAX);
	put_varint(b, n);
	put_bytes(b, s, n);
}

void pw_store_buf_done(struct pw_store_buf *b)
{
	free(b->data);
	*b = (struct pw_store_buf){0};
}

/* ---- the dictionary ---- */

void pw_store_dict_done(struct pw_store_dict *d)
{
	free(d->series);
	free(d->known);
	free(d->quantum);
	*d = (struct pw_store_dict){0};
}

static int dict_add(struct pw_store_dict *d, const struct pw_history_series *se)
{
	if (d->n == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 64;
		struct pw_history_series *s = realloc(d->series, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		d->series = s;
		d->cap = cap;
	}
	d->series[d->n++] = *se;
	return 0;
}

static const struct pw_history_point *point_at(const void *points, size_t point_size, uint32_t i)
{
	return (const struct pw_history_point *)(const void *)((const char *)points + (size_t)i * point_size);
}

/* The lines of the points, in order of first appearance. */
static int add_lines(struct pw_store_dict *d, const void *points, size_t point_size, uint32_t n)
{
	uint32_t first = d->n;

	for (uint32_t i = 0; i < n; i++) {
		const struct pw_history_point *p = point_at(points, point_size, i);
		for (int k = 0; k < PW_HISTORY_LINES; k++) {
			struct pw_history_series se = {.signal = PW_HS_LINE};
			if (!p->lines[k].irq[0])
				continue;
			memcpy(se.irq, p->lines[k].irq, PW_IRQ_NAME_MAX);
			se.irq[PW_IRQ_NAME_MAX - 1] = '\0';
			uint32_t j = first;
			while (j < d->n && strncmp(d->series[j].irq, se.irq, PW_IRQ_NAME_MAX) != 0)
				j++;
			if (j == d->n && dict_add(d, &se) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int pw_store_dict_build(struct pw_store_dict *d, const void *points, size_t point_size, uint32_t n)
{
	uint32_t ncpu = 0;

	d->n = 0;
	for (uint32_t i = 0; i < n; i++)
		if (point_at(points, point_size, i)->ncpu > ncpu)
			ncpu = point_at(points, point_size, i)->ncpu;
	for (int s = 0; s < PW_HS_COUNT; s++) {
		enum pw_history_scope scope = pw_history_signal_def(s)->scope;
		uint32_t count = scope == PW_SCOPE_CPU       ? ncpu
		                 : scope == PW_SCOPE_SOFTIRQ ? PW_SOFTIRQ_COUNT
		                                             : 1;
		if (scope == PW_SCOPE_LINE) {
			if (add_lines(d, points, point_size, n) < 0)
				return -ENOMEM;
			continue;
		}
		for (uint32_t i = 0; i < count; i++)
			if (dict_add(d, &(struct pw_history_series){.signal = s, .inst = i}) < 0)
				return -ENOMEM;
	}
	return 0;
}

bool pw_store_dict_equal(const struct pw_store_dict *a, const struct pw_store_dict *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->series[i].signal != b->series[i].signal || a->series[i].inst != b->series[i].inst ||
		    strncmp(a->series[i].irq, b->series[i].irq, PW_IRQ_NAME_MAX) != 0)
			return false;
	return true;
}

/* ---- encoding ---- */

static void put_dict(struct pw_store_buf *b, const struct pw_store_dict *d)
{
	char label[PW_STORE_STRING_MAX];

	put_varint(b, d->n);
	for (uint32_t i = 0; i < d->n; i++) {
		const struct pw_history_signal_def *def = pw_history_signal_def(d->series[i].signal);
		uint64_t bits;
		unsigned char q[8];
		pw_history_series_label(&d->series[i], label, sizeof(label));
		put_string(b, def->name);
		put_string(b, label);
		put_string(b, def->unit);
		memcpy(&bits, &def->quantum, sizeof(bits));
		for (int k = 0; k < 8; k++)
			q[k] = (unsigned char)(bits >> (8 * k));
		put_bytes(b, q, sizeof(q));
	}
}

static void put_points(struct pw_store_buf *b, const struct pw_store_dict *d, const void *points,
                       size_t point_size, uint32_t n)
{
	int64_t prev_ms = 0, prev_delta = 0;

	put_varint(b, n);
	for (uint32_t i = 0; i < n; i++) {
		int64_t t = point_at(points, point_size, i)->real_ns / 1000000;
		int64_t delta = t - prev_ms;
		put_varint(b, zigzag(i == 0 ? t : delta - prev_delta));
		prev_delta = i == 0 ? 0 : delta;
		prev_ms = t;
	}
	for (uint32_t i = 0; i < n; i++)
		put_varint(b, point_at(points, point_size, i)->flags);
	for (uint32_t s = 0; s < d->n; s++) {
		double quantum = pw_history_signal_def(d->series[s].signal)->quantum;
		int64_t prev = 0, q;
		for (uint32_t i = 0; i < n; i++) {
			double v = pw_history_series_get(&d->series[s], point_at(points, point_size, i));
			if (!pw_history_quantize(v, quantum, &q)) {
				put_varint(b, 0);
				continue;
			}
			put_varint(b, zigzag(q - prev) + 1);
			prev = q;
		}
	}
}

static int deflate_into(struct pw_store_buf *out, const struct pw_store_buf *raw)
{
	uLongf bound = compressBound((uLong)raw->len);
	unsigned char len[4];

	put32(len, (uint32_t)raw->len);
	put_bytes(out, len, sizeof(len));
	if (!reserve(out, bound))
		return -ENOMEM;
	if (compress2(out->data + out->len, &bound, raw->data, (uLong)raw->len, 6) != Z_OK)
		return -ENOMEM;
	out->len += bound;
	return 0;
}

int pw_store_encode(enum pw_store_frame_type type, const struct pw_store_dict *dict, const void *points,
                    size_t point_size, uint32_t n, struct pw_store_buf *out)
{
	struct pw_store_buf raw = {0};
	unsigned char frame[PW_STORE_FRAME_SIZE] = {0};
	size_t start = out->len;
	int r = 0;

	/* Nothing its own reader would refuse. */
	if (n == 0 || n > PW_STORE_POINTS_MAX || (type != PW_STORE_BLOCK && n != 1) ||
	    type < PW_STORE_BLOCK || type > PW_STORE_ROW ||
	    (type != PW_STORE_ROW && dict->n > PW_STORE_SERIES_MAX))
		return -EINVAL;
	put_bytes(out, frame, sizeof(frame));
	struct pw_store_buf *body = type == PW_STORE_BLOCK ? &raw : out;
	if (type != PW_STORE_ROW)
		put_dict(body, dict);
	put_points(body, dict, points, point_size, n);
	if (type == PW_STORE_BLOCK)
		r = raw.failed ? -ENOMEM : raw.len > PW_STORE_PAYLOAD_MAX ? -EINVAL : deflate_into(out, &raw);
	pw_store_buf_done(&raw);
	if (r == 0 && (out->failed || out->len - start - sizeof(frame) > PW_STORE_PAYLOAD_MAX))
		r = out->failed ? -ENOMEM : -EINVAL;
	if (r < 0) {
		out->len = start;
		return r;
	}
	unsigned char *f = out->data + start;
	size_t payload = out->len - start - sizeof(frame);
	put32(f, (uint32_t)payload);
	put32(f + 4, type);
	put32(f + 8, crc(f + sizeof(frame), payload));
	put32(f + 12, crc(f, 12));
	return 0;
}

/* ---- decoding ---- */

/* Where a series' stored integer goes into a point as it is, when pw_history_series_set would
 * scale it by the quantum and back to the same uint16 (a share in 1/10000 kept in 1/10000). */
struct direct {
	uint32_t offset; /* of the uint16 in the point; 0: through pw_history_series_set */
	uint32_t cpu;    /* the per-CPU figure's CPU; UINT32_MAX for a host figure */
};

struct pw_store_decoder {
	struct pw_store_dict dict;
	bool have_dict;
	unsigned char *raw; /* inflated payload */
	size_t raw_cap;
	struct direct *direct; /* [dict.n] */
	uint32_t direct_cap;
	unsigned char *dict_bytes; /* the dictionary's bytes as the last frame brought it */
	size_t dict_len, dict_cap; /* 0: none (dict not from a whole dictionary) */
	/* libdeflate inflates a block in half zlib's time: most of reading an hour was inflating. */
	struct libdeflate_decompressor *inflater;
	/* Of the frame's points, as many as the largest frame so far (a block of a 2-CPU host is 221
	 * points; PW_STORE_POINTS_MAX of each would be 64 KiB a decoder, kept by the heap after). */
	int64_t *times_ms;
	uint32_t *flags;
	int32_t *rows; /* decoding into columns: each point's row, or -1 */
	uint32_t points_cap;
};

struct pw_store_decoder *pw_store_decoder_new(void)
{
	return calloc(1, sizeof(struct pw_store_decoder));
}

void pw_store_decoder_free(struct pw_store_decoder *dec)
{
	if (!dec)
		return;
	pw_store_dict_done(&dec->dict);
	libdeflate_free_decompressor(dec->inflater);
	free(dec->times_ms);
	free(dec->flags);
	free(dec->rows);
	free(dec->dict_bytes);
	free(dec->raw);
	free(dec->direct);
	free(dec);
}

void pw_store_decoder_reset(struct pw_store_decoder *dec)
{
	dec->have_dict = false;
}

ssize_t pw_store_frame_length(const void *buf, size_t len, uint32_t *ret_type)
{
	const unsigned char *f = buf;

	if (len < PW_STORE_FRAME_SIZE)
		return 0;
	uint32_t payload = get32(f), type = get32(f + 4);
	if (get32(f + 12) != crc(f, 12) || payload > PW_STORE_PAYLOAD_MAX || type < PW_STORE_BLOCK ||
	    type > PW_STORE_ROW)
		return -EBADMSG;
	if (len - PW_STORE_FRAME_SIZE < payload)
		return 0;
	if (ret_type)
		*ret_type = type;
	return (ssize_t)(PW_STORE_FRAME_SIZE + payload);
}

struct cursor {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get_varint_long(struct cursor *c)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (c->p >= c->end)
			break;
		unsigned char byte = *c->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

/* Most tokens are one byte (a steady series' runs) or two (a noisy rate's): those without a loop
 * or a call. */
static inline __attribute__((always_inline)) uint64_t get_varint(struct cursor *c)
{
	if (c->end - c->p >= 2) {
		unsigned b0 = c->p[0], b1 = c->p[1];
		if (b0 < 0x80)
			return c->p++, b0;
		if (b1 < 0x80)
			return c->p += 2, (b0 & 0x7f) | b1 << 7;
	} else if (c->p < c->end && *c->p < 0x80) {
		return *c->p++;
	}
	return get_varint_long(c);
}

static const char *get_string(struct cursor *c, size_t *ret_len)
{
	uint64_t n = get_varint(c);
	if (c->bad || n > PW_STORE_STRING_MAX || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	const char *s = (const char *)c->p;
	c->p += n;
	*ret_len = (size_t)n;
	return s;
}

static int grow_dict(struct pw_store_dict *d, uint32_t n)
{
	if (n <= d->cap)
		return 0;
	struct pw_history_series *s = realloc(d->series, n * sizeof(*s));
	if (s)
		d->series = s;
	int *k = realloc(d->known, n * sizeof(*k));
	if (k)
		d->known = k;
	double *q = realloc(d->quantum, n * sizeof(*q));
	if (q)
		d->quantum = q;
	if (!s || !k || !q)
		return -ENOMEM;
	d->cap = n;
	return 0;
}

static int get_dict(struct cursor *c, struct pw_store_dict *d)
{
	uint64_t n = get_varint(c);

	/* Every series takes at least 11 bytes: a count beyond the payload is a lie, not an allocation. */
	if (c->bad || n > PW_STORE_SERIES_MAX || n > (uint64_t)(c->end - c->p) / 11)
		return -EBADMSG;
	if (grow_dict(d, (uint32_t)n) < 0)
		return -ENOMEM;
	d->n = (uint32_t)n;
	for (uint32_t i = 0; i < d->n; i++) {
		size_t name_len = 0, label_len = 0, unit_len = 0;
		const char *name = get_string(c, &name_len), *label = get_string(c, &label_len);
		get_string(c, &unit_len); /* for people and other readers; the quantum carries the scale */
		if (c->bad || c->end - c->p < 8)
			return -EBADMSG;
		uint64_t bits = 0;
		for (int k = 0; k < 8; k++)
			bits |= (uint64_t)c->p[k] << (8 * k);
		c->p += 8;
		memcpy(&d->quantum[i], &bits, sizeof(bits));
		int sig = pw_history_signal_parse(name, name_len);
		d->known[i] = sig >= 0 && isfinite(d->quantum[i]) && d->quantum[i] > 0 &&
		              pw_history_series_from_label(sig, label, label_len, &d->series[i]) == 0;
	}
	return 0;
}

static int inflate_payload(struct pw_store_decoder *dec, const unsigned char *payload, size_t len,
                           size_t *ret_len)
{
	if (len < 4)
		return -EBADMSG;
	uLongf raw_len = get32(payload);
	if (raw_len > PW_STORE_PAYLOAD_MAX || raw_len == 0)
		return -EBADMSG;
	if (raw_len > dec->raw_cap) {
		unsigned char *raw = realloc(dec->raw, raw_len);
		if (!raw)
			return -ENOMEM;
		dec->raw = raw;
		dec->raw_cap = raw_len;
	}
	if (!dec->inflater && !(dec->inflater = libdeflate_alloc_decompressor()))
		return -ENOMEM;
	size_t got = 0;
	if (libdeflate_zlib_decompress(dec->inflater, payload + 4, len - 4, dec->raw, raw_len, &got) !=
	            LIBDEFLATE_SUCCESS ||
	    got != raw_len)
		return -EBADMSG;
	*ret_len = raw_len;
	return 0;
}

static struct pw_history_point *point_mut(void *points, size_t point_size, uint32_t i)
{
	return (struct pw_history_point *)(void *)((char *)points + (size_t)i * point_size);
}

/* Each series of the dictionary just decoded: whether its integers go into points as they are. They
 * do when the series is a uint16 read back divided by 1/quantum: pw_history_series_set would
 * compute nearbyint(k * quantum * div), which is k for every k below PW_HISTORY_UNKNOWN (the error
 * of two roundings is far below a half). Setting each value through the signal's switch, a
 * multiplication and a library call to nearbyint was a tenth of reading an hour from disk. */
static int resolve_direct(struct pw_store_decoder *dec)
{
	const struct pw_store_dict *d = &dec->dict;
	if (d->n > dec->direct_cap) {
		struct direct *w = realloc(dec->direct, d->n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		dec->direct = w;
		dec->direct_cap = d->n;
	}
	for (uint32_t s = 0; s < d->n; s++) {
		struct pw_history_reader r;
		dec->direct[s] = (struct direct){0, UINT32_MAX};
		if (!d->known[s])
			continue;
		pw_history_reader_init(&r, &d->series[s]);
		if ((r.kind != PW_READ_U16 && r.kind != PW_READ_CPU_U16) ||
		    fabs(d->quantum[s] * r.div - 1) > 1e-9)
			continue;
		dec->direct[s].offset = r.offset;
		if (r.kind == PW_READ_CPU_U16)
			dec->direct[s].cpu = r.cpu;
	}
	return 0;
}

/* Put the stored integer k of series s into p, directly when it can (see resolve_direct); else
 * false. */
static bool put_direct(const struct direct *w, struct pw_history_point *p, int64_t k)
{
	if (!w->offset || k < 0 || k >= PW_HISTORY_UNKNOWN)
		return false;
	uint16_t v = (uint16_t)k;
	if (w->cpu == UINT32_MAX) {
		memcpy((char *)p + w->offset, &v, sizeof(v));
		return true;
	}
	if (w->cpu >= p->ncpu) /* pw_history_series_set marks the CPUs up to it unknown first */
		return false;
	memcpy((char *)&p->cpus[w->cpu] + w->offset, &v, sizeof(v));
	return true;
}

/* Room in dec for the times, flags and rows of n points. */
static int points_room(struct pw_store_decoder *dec, uint32_t n)
{
	if (n <= dec->points_cap)
		return 0;
	int64_t *t = realloc(dec->times_ms, n * sizeof(*t));
	if (t)
		dec->times_ms = t;
	uint32_t *f = realloc(dec->flags, n * sizeof(*f));
	if (f)
		dec->flags = f;
	int32_t *r = realloc(dec->rows, n * sizeof(*r));
	if (r)
		dec->rows = r;
	if (!t || !f || !r)
		return -ENOMEM;
	dec->points_cap = n;
	return 0;
}

/* The times of a frame's n points (first, then delta of delta) and their flags into dec. */
static int get_times_flags(struct pw_store_decoder *dec, struct cursor *c, uint32_t n)
{
	int64_t prev_ms = 0, prev_delta = 0;

	if (points_room(dec, n) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		int64_t v = unzigzag(get_varint(c)), t;
		if (c->bad || v > PW_STORE_TIME_MAX_MS || v < -PW_STORE_TIME_MAX_MS)
			return -EBADMSG;
		int64_t delta = i == 0 ? 0 : prev_delta + v;
		t = i == 0 ? v : prev_ms + delta;
		/* The wall clock may step back: a delta of either sign, within the bounds. */
		if (delta > PW_STORE_TIME_MAX_MS || delta < -PW_STORE_TIME_MAX_MS ||
		    t > PW_STORE_TIME_MAX_MS || t < -PW_STORE_TIME_MAX_MS)
			return -EBADMSG;
		dec->times_ms[i] = t;
		prev_delta = delta;
		prev_ms = t;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t flags = get_varint(c);
		if (c->bad || flags > UINT32_MAX)
			return -EBADMSG;
		dec->flags[i] = (uint32_t)flags;
	}
	return 0;
}

/* The next token of a series: false when the frame is corrupt; *known false for an unknown value,
 * else *q the value after the one before (*q holds it). */
static inline __attribute__((always_inline)) bool get_token(struct cursor *c, int64_t *q, bool *known)
{
	uint64_t token = get_varint(c);
	*known = false;
	if (c->bad)
		return false;
	if (token == 0)
		return true;
	int64_t delta = unzigzag(token - 1);
	if (delta > (INT64_C(1) << 53) || delta < -(INT64_C(1) << 53))
		return false;
	*q += delta;
	*known = true;
	return *q <= (INT64_C(1) << 53) && *q >= -(INT64_C(1) << 53);
}

static int get_points(struct pw_store_decoder *dec, struct cursor *c, void *points, size_t point_size,
                      uint32_t cpu_cap, uint32_t cap)
{
	uint64_t n = get_varint(c);
	int r;

	if (c->bad || n == 0 || n > PW_STORE_POINTS_MAX)
		return -EBADMSG;
	if (n > cap)
		return -ENOBUFS;
	if ((r = get_times_flags(dec, c, (uint32_t)n)) < 0)
		return r;
	for (uint32_t i = 0; i < n; i++) {
		struct pw_history_point *p = point_mut(points, point_size, i);
		pw_history_point_unknown(p, cpu_cap, dec->times_ms[i] * 1000000);
		p->flags = dec->flags[i];
	}
	for (uint32_t s = 0; s < dec->dict.n; s++) {
		int64_t q = 0;
		bool known;
		for (uint32_t i = 0; i < n; i++) {
			if (!get_token(c, &q, &known))
				return -EBADMSG;
			if (!known)
				continue;
			struct pw_history_point *p = point_mut(points, point_size, i);
			if (dec->dict.known[s] && !put_direct(&dec->direct[s], p, q))
				pw_history_series_set(&dec->dict.series[s], p, cpu_cap,
				                      (double)q * dec->dict.quantum[s]);
		}
	}
	return c->p == c->end ? (int)n : -EBADMSG;
}

/* The dictionary at c into dec: the one before as it is when the bytes are the same (the blocks of a
 * window nearly always name the same series, and parsing a hundred and fifty names a block showed
 * in an hour's profile), else parsed and kept with its bytes. */
static int get_dict_again(struct pw_store_decoder *dec, struct cursor *c)
{
	const unsigned char *start = c->p;
	if (dec->dict_len && dec->dict_len <= (size_t)(c->end - c->p) &&
	    memcmp(c->p, dec->dict_bytes, dec->dict_len) == 0) {
		c->p += dec->dict_len;
		return 0;
	}
	dec->dict_len = 0;
	int r = get_dict(c, &dec->dict);
	if (r == 0)
		r = resolve_direct(dec);
	if (r < 0)
		return r;
	size_t len = (size_t)(c->p - start);
	if (len > dec->dict_cap) {
		unsigned char *b = realloc(dec->dict_bytes, len);
		if (!b)
			return 0; /* parsed all the same: the next frame parses its own */
		dec->dict_bytes = b;
		dec->dict_cap = len;
	}
	memcpy(dec->dict_bytes, start, len);
	dec->dict_len = len;
	return 0;
}

/* Check the frame at buf[0..len), inflate it and read its dictionary: *c is at its points after. */
static int open_frame(struct pw_store_decoder *dec, const void *buf, size_t len, uint32_t *ret_type,
                      struct cursor *c)
{
	uint32_t type = 0;
	ssize_t whole = pw_store_frame_length(buf, len, &type);
	const unsigned char *payload = (const unsigned char *)buf + PW_STORE_FRAME_SIZE;
	size_t payload_len;
	int r;

	if (whole <= 0)
		return -EBADMSG;
	/* A frame that brings a dictionary replaces the old one even when it is damaged: the rows after
	 * it must not be read with the dictionary of a frame before. */
	if (type != PW_STORE_ROW)
		dec->have_dict = false;
	payload_len = (size_t)whole - PW_STORE_FRAME_SIZE;
	if (get32((const unsigned char *)buf + 8) != crc(payload, payload_len))
		return -EBADMSG;
	if (type == PW_STORE_BLOCK) {
		size_t raw_len = 0;
		if ((r = inflate_payload(dec, payload, payload_len, &raw_len)) < 0)
			return r;
		*c = (struct cursor){dec->raw, dec->raw + raw_len, false};
	} else {
		*c = (struct cursor){payload, payload + payload_len, false};
	}
	if (type != PW_STORE_ROW) {
		if ((r = get_dict_again(dec, c)) < 0)
			return r;
		dec->have_dict = true;
	} else if (!dec->have_dict) {
		return -EBADMSG;
	}
	*ret_type = type;
	return 0;
}

int pw_store_decode(struct pw_store_decoder *dec, const void *buf, size_t len, void *points,
                    size_t point_size, uint32_t cpu_cap, uint32_t cap)
{
	uint32_t type;
	struct cursor c;
	int r = open_frame(dec, buf, len, &type, &c);

	if (r < 0)
		return r;
	if (type != PW_STORE_BLOCK && cap > 1)
		cap = 1;
	r = get_points(dec, &c, points, point_size, cpu_cap, cap);
	return r == -ENOBUFS && type != PW_STORE_BLOCK ? -EBADMSG : r;
}

/* ---- decoding into columns ---- */

/* Where series s of the dictionary goes in cols: its column, or -1 (unknown to this build, or a CPU
 * past the columns' cap); < -1: an error. */
static int column_of(const struct pw_store_decoder *dec, uint32_t s, struct pw_history_columns *cols)
{
	if (!dec->dict.known[s])
		return -1;
	int col = pw_history_columns_column(cols, &dec->dict.series[s]);
	return col == -ENOENT ? -1 : col;
}

/* count tokens of a series, q the value before them; into dst when not NULL (PW_COLUMN_UNKNOWN
 * where unknown or beyond 32 bits, *wide then set). Returns 1 + the index of the last known value
 * stored (0: none), or -EBADMSG. Inlined three ways: the tokens before the window's points, those
 * in it, those after. */
static inline __attribute__((always_inline)) int tokens(struct cursor *c, int64_t *q, uint32_t count,
                                                        int32_t *dst, bool *wide)
{
	int last = 0;
	bool known;
	for (uint32_t i = 0; i < count; i++) {
		if (!get_token(c, q, &known))
			return -EBADMSG;
		int32_t out = PW_COLUMN_UNKNOWN;
		if (known && *q > PW_COLUMN_UNKNOWN && *q <= INT32_MAX)
			out = (int32_t)*q, last = (int)i + 1;
		else if (known)
			*wide = true;
		if (dst)
			dst[i] = out;
	}
	return last;
}

/* Series s's tokens into column col (-1: read past them). The frame's points [a, b) are the
 * columns' rows [first, first + b - a) (b == 0: none of them; a > b: not in one run, rows[] says). */
static int get_column(struct pw_store_decoder *dec, struct cursor *c, uint32_t s, uint32_t n, int col,
                      struct pw_history_columns *cols, uint32_t first, uint32_t a, uint32_t b)
{
	int32_t *v = col >= 0 && b > 0 ? pw_history_column_values(cols, (uint32_t)col) : NULL;
	int64_t q = 0, k;
	int newest = -1; /* the row of the newest known value */
	bool wide = false, known;

	if (!v) /* a series this build does not know (its id is not set), or no point taken */
		return tokens(c, &q, n, NULL, &wide) < 0 ? -EBADMSG : 0;
	const struct pw_history_series *id = &dec->dict.series[s];
	double stored = dec->dict.quantum[s], quantum = pw_history_signal_def(id->signal)->quantum;
	while (cols->cols[col].len < first) /* the rows of frames before this one where it was not */
		v[cols->cols[col].len++] = PW_COLUMN_UNKNOWN;
	if (a < b && stored == quantum) { /* the frame's points in the window are one run: nearly always */
		int last;
		bool ignored = false;
		if (tokens(c, &q, a, NULL, &ignored) < 0 ||
		    (last = tokens(c, &q, b - a, v + first, &wide)) < 0 ||
		    tokens(c, &q, n - b, NULL, &ignored) < 0)
			return -EBADMSG;
		newest = last ? (int)first + last - 1 : -1;
	} else {
		for (uint32_t i = 0; i < n; i++) {
			if (!get_token(c, &q, &known))
				return -EBADMSG;
			int32_t row = dec->rows[i];
			if (row < 0)
				continue;
			k = q;
			/* A store kept at another quantum (an older build): at this one's. */
			if (known && stored != quantum)
				known = pw_history_quantize((double)q * stored, quantum, &k);
			if (known && (k <= PW_COLUMN_UNKNOWN || k > INT32_MAX)) {
				wide = true;
				known = false;
			}
			v[row] = known ? (int32_t)k : PW_COLUMN_UNKNOWN;
			newest = known ? row : newest;
		}
	}
	cols->too_wide |= wide;
	cols->cols[col].len = cols->n;
	if (newest >= 0 && id->signal == PW_HS_LINE) {
		cols->cols[col].last_seen = (uint32_t)newest + 1;
		cols->cols[col].rank = s;
	}
	if (newest >= 0 && pw_history_signal_def(id->signal)->scope == PW_SCOPE_CPU && id->inst >= cols->ncpu)
		cols->ncpu = id->inst + 1;
	return 0;
}

static int get_columns(struct pw_store_decoder *dec, struct cursor *c, uint32_t max,
                       struct pw_history_columns *cols, int64_t since_ns, int64_t until_ns)
{
	uint64_t n = get_varint(c);
	int r;

	if (c->bad || n == 0 || n > max)
		return -EBADMSG;
	if ((r = get_times_flags(dec, c, (uint32_t)n)) < 0)
		return r;
	uint32_t first = cols->n, a = UINT32_MAX, b = 0; /* the points taken: [a, b) when one run */
	bool run = true;
	for (uint32_t i = 0; i < n; i++) {
		int64_t t = dec->times_ms[i] * 1000000;
		dec->rows[i] = -1;
		if (t <= since_ns || t > until_ns || t <= cols->last_ns)
			continue; /* outside the window, or found already */
		if ((r = pw_history_columns_add_row(cols, t, dec->flags[i])) < 0)
			return r;
		dec->rows[i] = r;
		run &= b == 0 || b == i;
		a = a < i ? a : i;
		b = i + 1;
	}
	if (!run)
		a = b; /* rows[] says where each goes */
	for (uint32_t s = 0; s < dec->dict.n; s++) {
		int col = column_of(dec, s, cols);
		if (col < -1)
			return col;
		if ((r = get_column(dec, c, s, (uint32_t)n, col, cols, first, b ? a : 0, b)) < 0)
			return r;
	}
	if (c->p != c->end)
		return -EBADMSG;
	return cols->too_wide ? -ERANGE : 0;
}

/* Undo what a frame refused halfway added: its rows, and what its lines and CPUs said. */
static void columns_back_to(struct pw_history_columns *cols, uint32_t n, int64_t last_ns, uint32_t ncpu)
{
	cols->n = n;
	cols->last_ns = last_ns;
	cols->ncpu = ncpu;
	for (uint32_t k = 0; k < cols->ncols; k++) {
		struct pw_history_column *col = &cols->cols[k];
		col->len = col->len < n ? col->len : n;
		if (col->last_seen > n)
			col->last_seen = 0;
	}
}

int pw_store_decode_columns(struct pw_store_decoder *dec, const void *buf, size_t len,
                            struct pw_history_columns *cols, int64_t since_ns, int64_t until_ns)
{
	uint32_t type, n = cols->n, ncpu = cols->ncpu;
	int64_t last_ns = cols->last_ns;
	struct cursor c;
	int r = open_frame(dec, buf, len, &type, &c);

	if (r == 0)
		r = get_columns(dec, &c, type == PW_STORE_BLOCK ? PW_STORE_POINTS_MAX : 1, cols, since_ns,
		                until_ns);
	if (r == 0)
		return (int)(cols->n - n);
	if (r != -ERANGE) /* too wide: the caller reads the window as points, and drops this */
		columns_back_to(cols, n, last_ns, ncpu);
	return r;
}
