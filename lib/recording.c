/* recording.c — samples to records and back: XOR deltas against the previous sample, deflated,
 * framed with CRC-32s so a cut or a flipped bit is found at its record, never misread. */
#include "recording.h"

#include "rec_schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char magic[8] = {'P', 'W', 'R', 'E', 'C', 'O', 'R', 'D'};

/* Written in the writer's byte order: a reader with the other order sees 0x04030201. */
#define BYTE_ORDER_MARK 0x01020304u
#define KNOWN_FLAGS (PW_REC_KEYFRAME | PW_REC_SEGMENT)
#define KNOWN_FREQ_FLAGS (PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE | PW_FREQ_AVG_FROM_STATS)
#define KNOWN_DERIVED (PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ)
#define KNOWN_LINE_FLAGS (PW_IRQ_LINE_NAMED | PW_IRQ_LINE_SINGLE_TOTAL)
/* Level 1: deltas are mostly zeros, which every level squeezes alike; higher levels cost the
 * detector's thread more for a few percent. */
#define DEFLATE_LEVEL 1

/* ---- header ---------------------------------------------------------------------------------- */

/* Header offsets. */
enum {
	H_VERSION = 8,
	H_BYTE_ORDER = 12,
	H_SAMPLE_STRUCT = 16,
	H_CPU_STRUCT = 20,
	H_LINE_STRUCT = 24,
	H_CPU_CAP = 28,
	H_LINE_CAP = 32,
	H_SAMPLE_SIZE = 36,
	H_MATRIX = 40,
	H_USER_HZ = 44,
	H_PAGE_SIZE = 48,
	H_KEYFRAME_EVERY = 52,
	H_INTERVAL = 56,
	H_SCHEMA_SIZE = 64, /* version 3; 0 in version 2 */
	H_CRC = 68,         /* CRC-32 of bytes 0..68 */
};

static void put32(unsigned char *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static uint32_t get32(const unsigned char *p, size_t off)
{
	uint32_t v;
	memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t crc(const void *buf, size_t len)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
}

void pw_rec_header_init(struct pw_rec_header *hdr, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix,
                        uint32_t user_hz, uint32_t page_size, int64_t interval_ns)
{
	*hdr = (struct pw_rec_header){
	        .version = PW_REC_VERSION,
	        .sample_struct = sizeof(struct pw_sample),
	        .cpu_struct = sizeof(struct pw_cpu_sample),
	        .line_struct = sizeof(struct pw_line_sample),
	        .cpu_cap = cpu_cap,
	        .line_cap = line_cap,
	        .sample_size = (uint32_t)pw_sample_size(cpu_cap, line_cap, with_matrix),
	        .with_matrix = with_matrix,
	        .user_hz = user_hz,
	        .page_size = page_size,
	        .keyframe_every = PW_REC_KEYFRAME_EVERY,
	        .interval_ns = interval_ns,
	        .schema_size = (uint32_t)pw_rec_schema_size(),
	};
}

void pw_rec_header_encode(const struct pw_rec_header *hdr, void *buf)
{
	unsigned char *p = buf;

	memset(p, 0, PW_REC_HEADER_SIZE);
	memcpy(p, magic, sizeof(magic));
	put32(p, H_VERSION, hdr->version);
	put32(p, H_BYTE_ORDER, BYTE_ORDER_MARK);
	put32(p, H_SAMPLE_STRUCT, hdr->sample_struct);
	put32(p, H_CPU_STRUCT, hdr->cpu_struct);
	put32(p, H_LINE_STRUCT, hdr->line_struct);
	put32(p, H_CPU_CAP, hdr->cpu_cap);
	put32(p, H_LINE_CAP, hdr->line_cap);
	put32(p, H_SAMPLE_SIZE, hdr->sample_size);
	put32(p, H_MATRIX, hdr->with_matrix);
	put32(p, H_USER_HZ, hdr->user_hz);
	put32(p, H_PAGE_SIZE, hdr->page_size);
	put32(p, H_KEYFRAME_EVERY, hdr->keyframe_every);
	memcpy(p + H_INTERVAL, &hdr->interval_ns, sizeof(hdr->interval_ns));
	put32(p, H_SCHEMA_SIZE, hdr->schema_size);
	put32(p, H_CRC, crc(p, H_CRC));
}

int pw_rec_header_decode(const void *buf, size_t len, struct pw_rec_header *ret)
{
	const unsigned char *p = buf;
	struct pw_rec_header h;

	if (len >= sizeof(magic) && memcmp(p, magic, sizeof(magic)) != 0)
		return -EPROTO;
	if (len < PW_REC_HEADER_SIZE)
		return -EINVAL;
	/* The version before the checksum: a future format may checksum differently. */
	if (get32(p, H_VERSION) != PW_REC_VERSION && get32(p, H_VERSION) != PW_REC_VERSION_RAW) {
		ret->version = get32(p, H_VERSION);
		return -EPROTO;
	}
	if (get32(p, H_CRC) != crc(p, H_CRC) || get32(p, H_MATRIX) > 1)
		return -EINVAL;
	h = (struct pw_rec_header){
	        .version = get32(p, H_VERSION),
	        .sample_struct = get32(p, H_SAMPLE_STRUCT),
	        .cpu_struct = get32(p, H_CPU_STRUCT),
	        .line_struct = get32(p, H_LINE_STRUCT),
	        .cpu_cap = get32(p, H_CPU_CAP),
	        .line_cap = get32(p, H_LINE_CAP),
	        .sample_size = get32(p, H_SAMPLE_SIZE),
	        .with_matrix = get32(p, H_MATRIX) != 0,
	        .user_hz = get32(p, H_USER_HZ),
	        .page_size = get32(p, H_PAGE_SIZE),
	        .keyframe_every = get32(p, H_KEYFRAME_EVERY),
	        .schema_size = get32(p, H_SCHEMA_SIZE),
	};
	memcpy(&h.interval_ns, p + H_INTERVAL, sizeof(h.interval_ns));
	/* A byte-swapped writer's mark reads differently; record it as a layout the check refuses. */
	if (get32(p, H_BYTE_ORDER) != BYTE_ORDER_MARK)
		h.sample_struct = 0;
	*ret = h;
	return 0;
}

/* The bytes of a sample block of the file's layout (pw_sample_size with its struct sizes); no
 * overflow for struct sizes and capacities within the limits. */
static uint64_t file_sample_size(const struct pw_rec_header *h)
{
	uint64_t size = (h->sample_struct + UINT64_C(7)) & ~UINT64_C(7);

	size += ((uint64_t)h->cpu_cap * h->cpu_struct + 7) & ~UINT64_C(7);
	size += ((uint64_t)h->line_cap * h->line_struct + 7) & ~UINT64_C(7);
	if (h->with_matrix)
		size += (uint64_t)h->line_cap * h->cpu_cap * sizeof(uint64_t);
	return size;
}

static bool same_structs(const struct pw_rec_header *h)
{
	return h->sample_struct == sizeof(struct pw_sample) &&
	       h->cpu_struct == sizeof(struct pw_cpu_sample) &&
	       h->line_struct == sizeof(struct pw_line_sample);
}

/* The layout: version 2 only as this build's own, version 3 any whose schema can say where fields are. */
static int layout_check(const struct pw_rec_header *h, char *why, size_t n)
{
	if (h->sample_struct == 0)
		return snprintf(why, n, "recorded on a machine of the other byte order"), -EPROTO;
	if (h->version == PW_REC_VERSION_RAW && (!same_structs(h) || h->schema_size != 0))
		return snprintf(why, n,
		                "recorded by a perfwatchd with another sample layout (format version 2, "
		                "without "
		                "field names; struct sizes %u/%u/%u, this build %zu/%zu/%zu): replay it with "
		                "the "
		                "build that recorded it, or record it again",
		                h->sample_struct, h->cpu_struct, h->line_struct, sizeof(struct pw_sample),
		                sizeof(struct pw_cpu_sample), sizeof(struct pw_line_sample)),
		       -EPROTO;
	if (h->version == PW_REC_VERSION &&
	    (h->schema_size == 0 || h->schema_size > PW_REC_SCHEMA_MAX ||
	     h->sample_struct > PW_REC_STRUCT_MAX || h->cpu_struct > PW_REC_STRUCT_MAX ||
	     h->line_struct > PW_REC_STRUCT_MAX))
		return snprintf(why, n,
		                "struct sizes %u/%u/%u and a %u-byte schema, beyond the format's %u-byte "
		                "structs "
		                "and %u-byte schema",
		                h->sample_struct, h->cpu_struct, h->line_struct, h->schema_size,
		                PW_REC_STRUCT_MAX, PW_REC_SCHEMA_MAX),
		       -EPROTO;
	return 0;
}

int pw_rec_header_check(const struct pw_rec_header *h, char *why, size_t n)
{
	int r = layout_check(h, why, n);

	if (r < 0)
		return r;
	/* Capacities beyond any host, or a size that does not match them, are not ours: the size is
	 * what a reader allocates, several times over. */
	if (h->cpu_cap > PW_REC_CPU_MAX || h->line_cap > PW_REC_LINE_MAX)
		return snprintf(why, n, "%u CPUs and %u interrupt lines, beyond the format's %u and %u",
		                h->cpu_cap, h->line_cap, PW_REC_CPU_MAX, PW_REC_LINE_MAX),
		       -EPROTO;
	if (h->sample_size != file_sample_size(h))
		return snprintf(why, n, "sample size %u does not match %u CPUs and %u interrupt lines",
		                h->sample_size, h->cpu_cap, h->line_cap),
		       -EPROTO;
	/* Both layouts: the file's is inflated, this build's is what it translates to. */
	size_t mine = pw_sample_size(h->cpu_cap, h->line_cap, h->with_matrix);
	if (h->sample_size > PW_REC_SAMPLE_MAX || mine > PW_REC_SAMPLE_MAX)
		return snprintf(why, n, "samples of %u bytes (%zu in this build), beyond the format's %u",
		                h->sample_size, mine, PW_REC_SAMPLE_MAX),
		       -EPROTO;
	/* Replay resolves alerts after 3 intervals: bounded, the product cannot overflow. */
	if (h->interval_ns < 0 || h->interval_ns > PW_REC_INTERVAL_MAX)
		return snprintf(why, n, "interval of %lld ns, beyond the format's 0 to %lld",
		                (long long)h->interval_ns, (long long)PW_REC_INTERVAL_MAX),
		       -EPROTO;
	return 0;
}

int pw_rec_header_same(const struct pw_rec_header *have, const struct pw_rec_header *want, char *why,
                       size_t n)
{
	int r = pw_rec_header_check(have, why, n);

	if (r < 0)
		return r;
	/* Records are the writer's bytes: only a file of this very layout takes them. A version-2 file
	 * of it (made before version 3) does: its records are the same, and a daemon upgraded with
	 * --record naming it goes on recording rather than refusing to start. */
	bool raw = have->version == PW_REC_VERSION_RAW;
	if ((have->version != want->version && !raw) || have->sample_struct != want->sample_struct ||
	    have->cpu_struct != want->cpu_struct || have->line_struct != want->line_struct ||
	    (!raw && have->schema_size != want->schema_size))
		return snprintf(why, n,
		                "recorded by a perfwatchd with another sample layout (format version %u, "
		                "struct sizes %u/%u/%u); convert it with --replay FILE --to-recording NEW",
		                have->version, have->sample_struct, have->cpu_struct, have->line_struct),
		       -EPROTO;
	if (have->cpu_cap != want->cpu_cap || have->line_cap != want->line_cap ||
	    have->with_matrix != want->with_matrix)
		return snprintf(why, n,
		                "recorded with other capacities (%u CPUs, %u interrupt lines%s; now %u, "
		                "%u%s)",
		                have->cpu_cap, have->line_cap, have->with_matrix ? ", per-CPU matrix" : "",
		                want->cpu_cap, want->line_cap, want->with_matrix ? ", per-CPU matrix" : ""),
		       -EPROTO;
	if (have->user_hz != want->user_hz || have->page_size != want->page_size)
		return snprintf(why, n, "recorded with USER_HZ %u and %u-byte pages (now %u and %u)",
		                have->user_hz, have->page_size, want->user_hz, want->page_size),
		       -EPROTO;
	return 0;
}

/* ---- frames ---------------------------------------------------------------------------------- */

/* Frame offsets. */
enum { F_LEN = 0, F_FLAGS = 4, F_PAYLOAD_CRC = 8, F_CRC = 12 };

ssize_t pw_rec_frame_length(const struct pw_rec_header *hdr, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (len < PW_REC_FRAME_SIZE)
		return 0;
	uint32_t payload = get32(p, F_LEN), flags = get32(p, F_FLAGS);
	if (get32(p, F_CRC) != crc(p, F_CRC) || (flags & ~KNOWN_FLAGS) || payload == 0 ||
	    payload > compressBound(hdr->sample_size) + 64)
		return -EBADMSG;
	return PW_REC_FRAME_SIZE + (ssize_t)payload;
}

uint32_t pw_rec_frame_flags(const void *frame)
{
	return get32(frame, F_FLAGS);
}

void pw_rec_frame_set_flags(void *frame, uint32_t flags)
{
	put32(frame, F_FLAGS, flags);
	put32(frame, F_CRC, crc(frame, F_CRC));
}

/* ---- encoder --------------------------------------------------------------------------------- */

struct pw_rec_encoder {
	struct pw_rec_header hdr;
	z_stream z;
	unsigned char *prev;  /* the previous sample's bytes */
	unsigned char *delta; /* scratch: the XOR */
	unsigned char *out;   /* the record: frame, then payload */
	size_t out_cap;
	uint32_t since_key; /* records since the last keyframe */
	bool need_key, segment;
	bool z_ready;
};

struct pw_rec_encoder *pw_rec_encoder_new(const struct pw_rec_header *hdr)
{
	struct pw_rec_encoder *enc = calloc(1, sizeof(*enc));

	if (!enc)
		return NULL;
	enc->hdr = *hdr;
	enc->out_cap = PW_REC_FRAME_SIZE + deflateBound(NULL, hdr->sample_size) + 64;
	enc->prev = calloc(1, hdr->sample_size);
	enc->delta = malloc(hdr->sample_size);
	enc->out = malloc(enc->out_cap);
	enc->need_key = enc->segment = true;
	if (!enc->prev || !enc->delta || !enc->out ||
	    deflateInit2(&enc->z, DEFLATE_LEVEL, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		pw_rec_encoder_free(enc);
		return NULL;
	}
	enc->z_ready = true;
	return enc;
}

void pw_rec_encoder_free(struct pw_rec_encoder *enc)
{
	if (!enc)
		return;
	if (enc->z_ready)
		deflateEnd(&enc->z);
	free(enc->prev);
	free(enc->delta);
	free(enc->out);
	free(enc);
}

void pw_rec_encoder_resync(struct pw_rec_encoder *enc, bool segment)
{
	enc->need_key = true;
	enc->segment |= segment;
}

/* Under the fuzzer's comparison tracing a byte loop over a whole sample cost more than the rest of a
 * replay, and its coverage says nothing: clang builds it untraced. */
#if defined(__clang__)
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

/* dst ^= src over n bytes (a delta frame against the previous sample), a word at a time. */
static NO_COVERAGE void xor_into(unsigned char *dst, const unsigned char *src, size_t n)
{
	size_t i = 0;

	for (; i + sizeof(uint64_t) <= n; i += sizeof(uint64_t)) {
		uint64_t a, b;
		memcpy(&a, dst + i, sizeof(a));
		memcpy(&b, src + i, sizeof(b));
		a ^= b;
		memcpy(dst + i, &a, sizeof(a));
	}
	for (; i < n; i++)
		dst[i] ^= src[i];
}

int pw_rec_encode(struct pw_rec_encoder *enc, const struct pw_sample *s, const void **ret_buf,
                  size_t *ret_len)
{
	size_t size = enc->hdr.sample_size;
	const unsigned char *bytes = (const unsigned char *)s;
	bool key = enc->need_key || enc->since_key + 1 >= enc->hdr.keyframe_every;
	uint32_t flags = (key ? PW_REC_KEYFRAME : 0) | (enc->segment ? PW_REC_SEGMENT : 0);

	if (s->size != size || s->cpu_cap != enc->hdr.cpu_cap || s->line_cap != enc->hdr.line_cap)
		return -EINVAL;
	memcpy(enc->delta, bytes, size);
	if (!key)
		xor_into(enc->delta, enc->prev, size);
	if (deflateReset(&enc->z) != Z_OK)
		return -ENOMEM;
	enc->z.next_in = enc->delta;
	enc->z.avail_in = (uInt)size;
	enc->z.next_out = enc->out + PW_REC_FRAME_SIZE;
	enc->z.avail_out = (uInt)(enc->out_cap - PW_REC_FRAME_SIZE);
	if (deflate(&enc->z, Z_FINISH) != Z_STREAM_END)
		return -ENOMEM;

	uint32_t payload = (uint32_t)enc->z.total_out;
	put32(enc->out, F_LEN, payload);
	put32(enc->out, F_FLAGS, flags);
	put32(enc->out, F_PAYLOAD_CRC, crc(enc->out + PW_REC_FRAME_SIZE, payload));
	put32(enc->out, F_CRC, crc(enc->out, F_CRC));
	memcpy(enc->prev, bytes, size);
	enc->since_key = key ? 0 : enc->since_key + 1;
	enc->need_key = enc->segment = false;
	*ret_buf = enc->out;
	*ret_len = PW_REC_FRAME_SIZE + payload;
	return 0;
}

/* ---- decoder --------------------------------------------------------------------------------- */

struct pw_rec_decoder {
	struct pw_rec_header hdr;
	z_stream z;
	unsigned char *prev;      /* the previous sample's bytes (the file's layout) */
	unsigned char *delta;     /* scratch: the inflated payload */
	struct pw_rec_plan *plan; /* NULL: the file's layout is this build's */
	struct pw_sample *out;    /* with a plan: the sample in this build's layout */
	size_t out_size;          /* this build's pw_sample_size for the header's capacities */
	struct pw_sample layout;  /* what pw_sample_init gives for the header's capacities */
	bool have_prev;
	bool z_ready;
};

size_t pw_rec_data_offset(const struct pw_rec_header *hdr)
{
	return PW_REC_HEADER_SIZE + (size_t)hdr->schema_size;
}

int pw_rec_decoder_new(const struct pw_rec_header *hdr, const void *schema, size_t schema_len,
                       struct pw_rec_decoder **ret, char *why, size_t n)
{
	struct pw_rec_decoder *dec = calloc(1, sizeof(*dec));
	int r = 0;

	if (!dec)
		return -ENOMEM;
	dec->hdr = *hdr;
	dec->out_size = pw_sample_size(hdr->cpu_cap, hdr->line_cap, hdr->with_matrix);
	if (hdr->version != PW_REC_VERSION_RAW)
		r = pw_rec_plan_new(hdr, schema, schema_len, &dec->plan, why, n);
	/* Not touched until a record fills them: a file that is only a header costs no memory. */
	if (r == 0 && (!(dec->prev = malloc(hdr->sample_size)) || !(dec->delta = malloc(hdr->sample_size)) ||
	               (dec->plan && !(dec->out = malloc(dec->out_size))) || inflateInit(&dec->z) != Z_OK))
		r = -ENOMEM;
	if (r < 0) {
		pw_rec_decoder_free(dec);
		return r;
	}
	dec->z_ready = true;
	pw_sample_layout(&dec->layout, hdr->cpu_cap, hdr->line_cap, hdr->with_matrix);
	*ret = dec;
	return 0;
}

size_t pw_rec_decoder_sample_size(const struct pw_rec_decoder *dec)
{
	return dec->out_size;
}

void pw_rec_decoder_free(struct pw_rec_decoder *dec)
{
	if (!dec)
		return;
	if (dec->z_ready)
		inflateEnd(&dec->z);
	free(dec->prev);
	free(dec->delta);
	free(dec->out);
	pw_rec_plan_free(dec->plan);
	free(dec);
}

/* Inflate exactly sample_size bytes from the payload: not one more, not one less. */
static int inflate_payload(struct pw_rec_decoder *dec, const unsigned char *payload, uint32_t len)
{
	if (inflateReset(&dec->z) != Z_OK)
		return -EBADMSG;
	dec->z.next_in = (unsigned char *)payload; /* zlib's API is not const; it does not write */
	dec->z.avail_in = len;
	dec->z.next_out = dec->delta;
	dec->z.avail_out = dec->hdr.sample_size;
	if (inflate(&dec->z, Z_FINISH) != Z_STREAM_END || dec->z.avail_out || dec->z.avail_in)
		return -EBADMSG;
	return 0;
}

/* A sample whose layout or counts contradict the header would send readers out of bounds. */
static bool sample_fits(const struct pw_rec_decoder *dec, const struct pw_sample *s)
{
	const struct pw_sample *l = &dec->layout;

	return s->cpu_cap == l->cpu_cap && s->line_cap == l->line_cap && s->off_cpus == l->off_cpus &&
	       s->off_lines == l->off_lines && s->off_matrix == l->off_matrix && s->size == l->size &&
	       s->ncpu <= s->cpu_cap && s->nlines <= s->line_cap && s->interrupts.nlines <= s->line_cap;
}

/* The byte of a bool, read as a byte: loading 0x41 through a bool is undefined behaviour. */
static bool bool_ok(const bool *field)
{
	unsigned char b;

	memcpy(&b, field, 1);
	return b <= 1;
}

/* Readers print strings with "%s": each must end within its array. */
static bool text_ok(const char *field, size_t size)
{
	return memchr(field, '\0', size) != NULL;
}

/* Times the detector adds and subtracts (now - started + interval / 4): bounded, so none overflows.
 * An interval is never longer than the monotonic time it ends at. */
static bool times_ok(const struct pw_sample *s)
{
	return s->mono_ns >= 0 && s->mono_ns <= PW_REC_TIME_MAX && s->real_ns >= -PW_REC_TIME_MAX &&
	       s->real_ns <= PW_REC_TIME_MAX && s->interval_ns >= 0 && s->interval_ns <= s->mono_ns &&
	       s->duration_ns >= 0 && s->duration_ns <= PW_REC_TIME_MAX;
}

static bool cpu_ok(const struct pw_cpu_sample *c)
{
	return c->times.nmodes <= PW_MODE_COUNT && bool_ok(&c->times.present) && bool_ok(&c->online) &&
	       bool_ok(&c->in_interrupts) && bool_ok(&c->in_softirqs) &&
	       text_ok(c->governor, sizeof(c->governor)) && text_ok(c->driver, sizeof(c->driver)) &&
	       !(c->freq_flags & ~KNOWN_FREQ_FLAGS) && !(c->derived_valid & ~KNOWN_DERIVED);
}

static bool line_ok(const struct pw_line_sample *l)
{
	return text_ok(l->line.irq, sizeof(l->line.irq)) && text_ok(l->line.chip, sizeof(l->line.chip)) &&
	       text_ok(l->line.device, sizeof(l->line.device)) && !(l->line.flags & ~KNOWN_LINE_FLAGS);
}

/* A record's checksums say its bytes are the ones written, not that a writer we trust wrote them:
 * every field a reader uses unchecked (as an index, a string, a bool, in time arithmetic) is judged
 * here, once, so the detector and exporters never see a sample the sampler could not have made.
 * Every slot up to the capacities, not only the counts in use: exporters may walk them all. */
static bool sample_valid(const struct pw_rec_decoder *dec, const struct pw_sample *s)
{
	if (!sample_fits(dec, s) || !times_ok(s) || s->stat.total.nmodes > PW_MODE_COUNT ||
	    !bool_ok(&s->stat.total.present) || (s->derived.valid & ~KNOWN_DERIVED))
		return false;
	for (int r = 0; r < PW_PSI_COUNT; r++)
		if (!bool_ok(&s->psi[r].some.present) || !bool_ok(&s->psi[r].full.present))
			return false;
	for (uint32_t id = 0; id < s->cpu_cap; id++)
		if (!cpu_ok(&pw_sample_cpus_const(s)[id]))
			return false;
	for (uint32_t i = 0; i < s->line_cap; i++)
		if (!line_ok(&pw_sample_lines_const(s)[i]))
			return false;
	return true;
}

ssize_t pw_rec_decode(struct pw_rec_decoder *dec, const void *buf, size_t len, struct pw_sample *ret,
                      uint32_t *ret_flags)
{
	const unsigned char *p = buf;
	ssize_t total = pw_rec_frame_length(&dec->hdr, buf, len);
	size_t size = dec->hdr.sample_size;

	if (total <= 0)
		return total;
	if ((size_t)total > len)
		return 0;
	uint32_t payload = get32(p, F_LEN), flags = get32(p, F_FLAGS);
	if (get32(p, F_PAYLOAD_CRC) != crc(p + PW_REC_FRAME_SIZE, payload))
		return -EBADMSG;
	if (!(flags & PW_REC_KEYFRAME) && !dec->have_prev)
		return -EBADMSG;
	if (inflate_payload(dec, p + PW_REC_FRAME_SIZE, payload) < 0)
		return -EBADMSG;
	if (!(flags & PW_REC_KEYFRAME))
		xor_into(dec->delta, dec->prev, size);
	/* Judged in this build's layout: another build's bytes once translated. */
	const struct pw_sample *sample = (const struct pw_sample *)(const void *)dec->delta;
	if (dec->plan) {
		pw_rec_plan_apply(dec->plan, dec->delta, dec->out);
		sample = dec->out;
	}
	if (!sample_valid(dec, sample))
		return -EBADMSG;
	memcpy(ret, sample, dec->out_size);
	/* The file's bytes are the next record's base: swap rather than copy. */
	unsigned char *base = dec->delta;
	dec->delta = dec->prev;
	dec->prev = base;
	dec->have_prev = true;
	*ret_flags = flags;
	return total;
}
