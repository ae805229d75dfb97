/* test_recording.c — the flight recorder's format (lib/recording.c): samples come back bit for bit;
 * a recording cut at any byte reads up to its last complete record and no further, never misread; a
 * flipped bit anywhere is found at the record that holds it; another version, layout, byte order or
 * capacities is refused with a reason. */
#include "fixture_util.h"
#include "rec_schema.h"
#include "recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CPU_CAP 3
#define LINE_CAP 5
#define NSAMPLES 9
#define KEY_EVERY 4
#define SEC INT64_C(1000000000)

struct recording {
	struct pw_rec_header hdr;
	unsigned char *buf;
	size_t len;
	size_t ends[NSAMPLES]; /* offset just past each record */
	uint32_t flags[NSAMPLES];
	struct pw_sample *samples[NSAMPLES];
};

/* Sample t: counters that grow a little each second, as the kernel's do, plus some noise. */
static struct pw_sample *sample_at(int t)
{
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);
	unsigned char *cpus = (unsigned char *)pw_sample_cpus(s);
	uint32_t x = 2463534242u + (uint32_t)t;

	pw_test_sample_second(s, t);
	for (size_t i = 0; i < CPU_CAP * sizeof(struct pw_cpu_sample); i += 8) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		uint64_t v = (uint64_t)i * 1000 + (uint64_t)t * (i % 64) + (i % 40 == 0 ? x % 7 : 0);
		memcpy(cpus + i, &v, sizeof(v));
	}
	for (uint32_t l = 0; l < s->nlines; l++)
		pw_sample_lines(s)[l].line.total = 1000u * l + 37u * (uint64_t)t;
	/* Noise, but a valid sample: the decoder refuses strings without their NUL, bools other than
	 * 0 or 1, mode counts beyond the array, unknown flags. */
	for (uint32_t id = 0; id < CPU_CAP; id++) {
		struct pw_cpu_sample *c = &pw_sample_cpus(s)[id];
		c->times.nmodes = PW_MODE_COUNT;
		c->times.present = c->online = true;
		c->in_interrupts = c->in_softirqs = id % 2;
		c->freq_flags &= PW_FREQ_HAS_CPUFREQ | PW_FREQ_HAS_TIME_IN_STATE | PW_FREQ_AVG_FROM_STATS;
		c->derived_valid &= PW_DERIVED_SHARES | PW_DERIVED_RATES | PW_DERIVED_FREQ;
		snprintf(c->governor, sizeof(c->governor), "%s", id ? "ondemand" : "performance");
		snprintf(c->driver, sizeof(c->driver), "acpi-cpufreq");
	}
	return s;
}

/* A decoder for this build's samples (its own schema). */
static struct pw_rec_decoder *decoder_new(const struct pw_rec_header *hdr)
{
	unsigned char *schema = malloc(pw_rec_schema_size());
	struct pw_rec_decoder *dec;
	char why[256];

	ck_assert_ptr_nonnull(schema);
	pw_rec_schema_encode(schema);
	ck_assert_int_eq(pw_rec_decoder_new(hdr, schema, pw_rec_schema_size(), &dec, why, sizeof(why)), 0);
	free(schema);
	return dec;
}

static void record_all(struct recording *rec)
{
	struct pw_rec_encoder *enc;

	pw_rec_header_init(&rec->hdr, CPU_CAP, LINE_CAP, false, 100, 4096, SEC);
	rec->hdr.keyframe_every = KEY_EVERY;
	enc = pw_rec_encoder_new(&rec->hdr);
	ck_assert_ptr_nonnull(enc);
	rec->len = pw_rec_data_offset(&rec->hdr);
	rec->buf = malloc(rec->len);
	ck_assert_ptr_nonnull(rec->buf);
	pw_rec_header_encode(&rec->hdr, rec->buf);
	pw_rec_schema_encode(rec->buf + PW_REC_HEADER_SIZE);
	for (int t = 0; t < NSAMPLES; t++) {
		const void *out;
		size_t n;
		rec->samples[t] = sample_at(t);
		ck_assert_int_eq(pw_rec_encode(enc, rec->samples[t], &out, &n), 0);
		rec->buf = realloc(rec->buf, rec->len + n);
		ck_assert_ptr_nonnull(rec->buf);
		memcpy(rec->buf + rec->len, out, n);
		rec->len += n;
		rec->ends[t] = rec->len;
	}
	pw_rec_encoder_free(enc);
}

static void recording_free(struct recording *rec)
{
	for (int t = 0; t < NSAMPLES; t++)
		free(rec->samples[t]);
	free(rec->buf);
}

/* Read buf[0..len) as replay does. Returns the records decoded (each checked against rec) and sets
 * *ret_err to the header's error, or the first record's that failed (0 when it just ended), and
 * *ret_at to where reading stopped. */
static int read_back(const struct recording *rec, const unsigned char *buf, size_t len, int *ret_err,
                     size_t *ret_at)
{
	struct pw_rec_header hdr;
	struct pw_rec_decoder *dec;
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false);
	char why[256];
	int n = 0, r = pw_rec_header_decode(buf, len, &hdr);

	*ret_at = 0;
	if (r == 0)
		r = pw_rec_header_check(&hdr, why, sizeof(why));
	if (r == 0 && len < pw_rec_data_offset(&hdr))
		r = -EPROTO; /* cut in the schema block */
	if (r == 0)
		r = pw_rec_decoder_new(&hdr, buf + PW_REC_HEADER_SIZE, hdr.schema_size, &dec, why,
		                       sizeof(why));
	if (r < 0) {
		free(s);
		*ret_err = r;
		return 0;
	}
	size_t at = pw_rec_data_offset(&hdr);
	for (;;) {
		uint32_t flags;
		ssize_t got = pw_rec_decode(dec, buf + at, len - at, s, &flags);
		if (got <= 0) {
			*ret_err = (int)got;
			break;
		}
		ck_assert_int_lt(n, NSAMPLES);
		ck_assert_msg(memcmp(s, rec->samples[n], hdr.sample_size) == 0, "sample %d differs", n);
		ck_assert_uint_eq(flags, rec->flags[n]);
		at += (size_t)got;
		n++;
	}
	*ret_at = at;
	pw_rec_decoder_free(dec);
	free(s);
	return n;
}

static void expected_flags(struct recording *rec)
{
	for (int t = 0; t < NSAMPLES; t++)
		rec->flags[t] = (t % KEY_EVERY == 0 ? PW_REC_KEYFRAME : 0) | (t == 0 ? PW_REC_SEGMENT : 0);
}

START_TEST(round_trip)
{
	struct recording rec;
	size_t at;
	int err;

	record_all(&rec);
	expected_flags(&rec);
	ck_assert_int_eq(read_back(&rec, rec.buf, rec.len, &err, &at), NSAMPLES);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(at, rec.len);
	/* Compact: a delta is a fraction of a keyframe, and a keyframe a fraction of the sample. */
	size_t key = rec.ends[0] - pw_rec_data_offset(&rec.hdr), delta = rec.ends[1] - rec.ends[0];
	ck_assert_uint_lt(key, rec.hdr.sample_size / 2);
	ck_assert_uint_lt(delta, key / 2);
	recording_free(&rec);
}
END_TEST

/* Cut at every byte: the records wholly before the cut come back, then "need more", never corrupt. */
START_TEST(truncated_everywhere)
{
	struct recording rec;

	record_all(&rec);
	expected_flags(&rec);
	for (size_t cut = 0; cut <= rec.len; cut++) {
		unsigned char *copy = (unsigned char *)pw_test_exact_copy((const char *)rec.buf, cut);
		int complete = 0, err;
		size_t at;
		while (complete < NSAMPLES && rec.ends[complete] <= cut)
			complete++;
		int n = read_back(&rec, copy, cut, &err, &at);
		if (cut < PW_REC_HEADER_SIZE) {
			ck_assert_msg(err == -EINVAL, "header cut at %zu: %d", cut, err);
		} else if (cut < pw_rec_data_offset(&rec.hdr)) {
			ck_assert_msg(err == -EPROTO, "schema cut at %zu: %d", cut, err);
		} else {
			ck_assert_msg(n == complete && err == 0, "cut at %zu: %d records, error %d", cut, n,
			              err);
			ck_assert_uint_eq(at,
			                  complete ? rec.ends[complete - 1] : pw_rec_data_offset(&rec.hdr));
		}
		free(copy);
	}
	recording_free(&rec);
}
END_TEST

/* One flipped bit at every byte: the header refuses, or reading stops at the record holding it with
 * -EBADMSG after returning every record before it intact. */
START_TEST(flipped_everywhere)
{
	struct recording rec;

	record_all(&rec);
	expected_flags(&rec);
	for (size_t i = 0; i < rec.len; i++) {
		int bad = 0, err;
		size_t at;
		rec.buf[i] ^= (unsigned char)(1u << (i % 8));
		int n = read_back(&rec, rec.buf, rec.len, &err, &at);
		rec.buf[i] ^= (unsigned char)(1u << (i % 8));
		if (i < pw_rec_data_offset(&rec.hdr)) {
			ck_assert_msg(err == -EINVAL || err == -EPROTO, "header or schema byte %zu: %d", i,
			              err);
			continue;
		}
		while (rec.ends[bad] <= i)
			bad++;
		ck_assert_msg(n == bad && err == -EBADMSG, "byte %zu: %d records, error %d", i, n, err);
		ck_assert_uint_eq(at, bad ? rec.ends[bad - 1] : pw_rec_data_offset(&rec.hdr));
	}
	recording_free(&rec);
}
END_TEST

START_TEST(foreign)
{
	struct recording rec;
	struct pw_rec_header h, other;
	unsigned char buf[PW_REC_HEADER_SIZE];
	char why[256];

	record_all(&rec);
	ck_assert_int_eq(pw_rec_header_decode("PK\3\4 not ours at all, longer than a header.......", 50, &h),
	                 -EPROTO);
	/* Another format version: refused before its checksum is looked at, and named. */
	other = rec.hdr;
	other.version = PW_REC_VERSION + 1;
	pw_rec_header_encode(&other, buf);
	ck_assert_int_eq(pw_rec_header_decode(buf, sizeof(buf), &h), -EPROTO);
	ck_assert_uint_eq(h.version, PW_REC_VERSION + 1);
	/* Version 2 (no schema) of another sample layout: a clear reason, never a misread. Of this
	 * build's layout it reads, and takes appended records (an upgraded daemon goes on recording). */
	other = rec.hdr;
	other.version = PW_REC_VERSION_RAW;
	other.schema_size = 0;
	pw_rec_header_encode(&other, buf);
	ck_assert_int_eq(pw_rec_header_decode(buf, sizeof(buf), &h), 0);
	ck_assert_int_eq(pw_rec_header_check(&h, why, sizeof(why)), 0);
	ck_assert_int_eq(pw_rec_header_same(&h, &rec.hdr, why, sizeof(why)), 0);
	other.cpu_struct += 8;
	other.sample_size += 8 * CPU_CAP;
	pw_rec_header_encode(&other, buf);
	ck_assert_int_eq(pw_rec_header_decode(buf, sizeof(buf), &h), 0);
	ck_assert_int_eq(pw_rec_header_check(&h, why, sizeof(why)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "another sample layout"));
	/* Version 3 of another layout: the header is fine, the schema decides (schema_change). */
	other = rec.hdr;
	other.cpu_struct += 8;
	other.sample_size += 8 * CPU_CAP;
	ck_assert_int_eq(pw_rec_header_check(&other, why, sizeof(why)), 0);
	ck_assert_int_eq(pw_rec_header_same(&other, &rec.hdr, why, sizeof(why)), -EPROTO);
	/* The other byte order. */
	pw_rec_header_encode(&rec.hdr, buf);
	uint32_t swapped = 0x04030201u, c;
	memcpy(buf + 12, &swapped, 4);
	c = (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, 68);
	memcpy(buf + 68, &c, 4);
	ck_assert_int_eq(pw_rec_header_decode(buf, sizeof(buf), &h), 0);
	ck_assert_int_eq(pw_rec_header_check(&h, why, sizeof(why)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "byte order"));
	/* Appending needs the same capacities and units. */
	pw_rec_header_init(&other, CPU_CAP + 1, LINE_CAP, false, 100, 4096, SEC);
	ck_assert_int_eq(pw_rec_header_same(&rec.hdr, &other, why, sizeof(why)), -EPROTO);
	ck_assert_ptr_nonnull(strstr(why, "other capacities"));
	pw_rec_header_init(&other, CPU_CAP, LINE_CAP, false, 250, 4096, SEC);
	ck_assert_int_eq(pw_rec_header_same(&rec.hdr, &other, why, sizeof(why)), -EPROTO);
	pw_rec_header_init(&other, CPU_CAP, LINE_CAP, false, 100, 4096, 2 * SEC);
	ck_assert_int_eq(pw_rec_header_same(&rec.hdr, &other, why, sizeof(why)), 0);
	recording_free(&rec);
}
END_TEST

/* Version 2 (no schema block: recordings made before version 3, of this build's layout) reads as
 * before, sample for sample. */
START_TEST(version_2)
{
	struct recording rec;
	struct pw_rec_header v2;
	int err;
	size_t at, records;

	record_all(&rec);
	expected_flags(&rec);
	v2 = rec.hdr;
	v2.version = PW_REC_VERSION_RAW;
	v2.schema_size = 0;
	records = rec.len - pw_rec_data_offset(&rec.hdr);
	unsigned char *buf = malloc(PW_REC_HEADER_SIZE + records);
	ck_assert_ptr_nonnull(buf);
	pw_rec_header_encode(&v2, buf);
	memcpy(buf + PW_REC_HEADER_SIZE, rec.buf + pw_rec_data_offset(&rec.hdr), records);
	ck_assert_int_eq(read_back(&rec, buf, PW_REC_HEADER_SIZE + records, &err, &at), NSAMPLES);
	ck_assert_int_eq(err, 0);
	ck_assert_uint_eq(at, PW_REC_HEADER_SIZE + records);
	free(buf);
	recording_free(&rec);
}
END_TEST

/* A delta needs the keyframe before it; a sample of another layout is not encoded; after a lost
 * write the next record stands alone. */
START_TEST(keyframes)
{
	struct recording rec;
	struct pw_rec_decoder *dec;
	struct pw_rec_encoder *enc;
	struct pw_sample *s = pw_test_sample_new(CPU_CAP, LINE_CAP, false), *wide;
	const void *out;
	size_t n;
	uint32_t flags;

	record_all(&rec);
	dec = decoder_new(&rec.hdr);
	ck_assert_int_eq(pw_rec_decode(dec, rec.buf + rec.ends[0], rec.len - rec.ends[0], s, &flags),
	                 -EBADMSG);
	pw_rec_decoder_free(dec);

	enc = pw_rec_encoder_new(&rec.hdr);
	wide = pw_test_sample_new(CPU_CAP + 1, LINE_CAP, false);
	ck_assert_int_eq(pw_rec_encode(enc, wide, &out, &n), -EINVAL);
	ck_assert_int_eq(pw_rec_encode(enc, rec.samples[0], &out, &n), 0);
	ck_assert_int_eq(pw_rec_encode(enc, rec.samples[1], &out, &n), 0);
	pw_rec_encoder_resync(enc, false);
	ck_assert_int_eq(pw_rec_encode(enc, rec.samples[2], &out, &n), 0);
	dec = decoder_new(&rec.hdr);
	ck_assert_int_eq(pw_rec_decode(dec, out, n, s, &flags), (ssize_t)n);
	ck_assert_uint_eq(flags, PW_REC_KEYFRAME);
	ck_assert_mem_eq(s, rec.samples[2], rec.hdr.sample_size);
	pw_rec_decoder_free(dec);
	pw_rec_encoder_free(enc);
	free(wide);
	free(s);
	recording_free(&rec);
}
END_TEST

/* One keyframe of s through the encoder (which takes any bytes of the right size) and the decoder. */
static ssize_t decode_one(const struct pw_rec_header *hdr, const struct pw_sample *s)
{
	struct pw_rec_encoder *enc = pw_rec_encoder_new(hdr);
	struct pw_rec_decoder *dec = decoder_new(hdr);
	struct pw_sample *out = pw_test_sample_new(hdr->cpu_cap, hdr->line_cap, hdr->with_matrix);
	const void *buf;
	size_t n;
	uint32_t flags;

	ck_assert_ptr_nonnull(enc);
	ck_assert_ptr_nonnull(dec);
	ck_assert_int_eq(pw_rec_encode(enc, s, &buf, &n), 0);
	ssize_t r = pw_rec_decode(dec, buf, n, out, &flags);
	ck_assert(r < 0 || (size_t)r == n);
	pw_rec_decoder_free(dec);
	pw_rec_encoder_free(enc);
	free(out);
	return r;
}

static void set_byte(void *field, unsigned char value)
{
	memcpy(field, &value, 1); /* a bool holding what no bool may hold, without storing through one */
}

/* The hostile samples of issue 10, each a record whose frame and checksums are right: strings without
 * their NUL (the detector and rules print them with "%s"), bools holding 0x41, counts beyond the
 * capacities, times that overflow the detector's arithmetic. Each is a corrupt record, never read. */
START_TEST(hostile_samples)
{
	struct pw_rec_header hdr;

	pw_rec_header_init(&hdr, CPU_CAP, LINE_CAP, false, 100, 4096, SEC);
	for (int i = 0;; i++) {
		struct pw_sample *s = sample_at(3);
		struct pw_cpu_sample *cpus = pw_sample_cpus(s);
		struct pw_line_sample *lines = pw_sample_lines(s);
		const char *what = NULL;
		switch (i) {
		case 0:
			memset(lines[s->nlines - 1].line.irq, 'A', PW_IRQ_NAME_MAX), what = "last line's irq";
			break;
		case 1:
			memset(lines[s->nlines - 1].line.device, 'A', PW_IRQ_DEVICE_MAX),
			        what = "last line's device";
			break;
		case 2:
			memset(lines[LINE_CAP - 1].line.device, 'A', PW_IRQ_DEVICE_MAX),
			        what = "unused line's device";
			break;
		case 3:
			memset(lines[0].line.chip, 'A', PW_IRQ_CHIP_MAX), what = "chip";
			break;
		case 4:
			memset(cpus[CPU_CAP - 1].governor, 'A', PW_CPUFREQ_NAME_MAX), what = "last governor";
			break;
		case 5:
			memset(cpus[CPU_CAP - 1].driver, 'A', PW_CPUFREQ_NAME_MAX), what = "last driver";
			break;
		case 6:
			set_byte(&cpus[1].online, 0x41), what = "online 0x41";
			break;
		case 7:
			set_byte(&cpus[0].times.present, 0x41), what = "cpu present 0x41";
			break;
		case 8:
			set_byte(&cpus[2].in_interrupts, 2), what = "in_interrupts 2";
			break;
		case 9:
			set_byte(&cpus[2].in_softirqs, 0xff), what = "in_softirqs 0xff";
			break;
		case 10:
			set_byte(&s->stat.total.present, 0x41), what = "total present 0x41";
			break;
		case 11:
			set_byte(&s->psi[PW_PSI_IO].full.present, 0x41), what = "psi present 0x41";
			break;
		case 12:
			s->stat.total.nmodes = PW_MODE_COUNT + 1, what = "host nmodes";
			break;
		case 13:
			cpus[1].times.nmodes = 200, what = "cpu nmodes";
			break;
		case 14:
			s->ncpu = CPU_CAP + 1, what = "ncpu";
			break;
		case 15:
			s->nlines = LINE_CAP + 1, what = "nlines";
			break;
		case 16:
			s->interrupts.nlines = LINE_CAP + 1, what = "interrupts.nlines";
			break;
		case 17:
			s->interval_ns = INT64_C(1) << 62, what = "interval 2^62";
			break;
		case 18:
			s->interval_ns = -SEC, what = "negative interval";
			break;
		case 19:
			s->mono_ns = INT64_MAX, what = "mono INT64_MAX";
			break;
		case 20:
			s->mono_ns = -1, what = "negative mono";
			break;
		case 21:
			s->real_ns = INT64_MIN, what = "real INT64_MIN";
			break;
		case 22:
			s->duration_ns = INT64_MAX, what = "duration INT64_MAX";
			break;
		case 23:
			lines[0].line.flags = 1u << 7, what = "line flags";
			break;
		case 24:
			cpus[0].freq_flags = 1u << 9, what = "freq flags";
			break;
		case 25:
			s->derived.valid = 1u << 5, what = "derived flags";
			break;
		case 26:
			s->off_lines += 8, what = "offset";
			break;
		}
		if (!what) {
			ck_assert_msg(decode_one(&hdr, s) > 0, "the untouched sample was refused");
			free(s);
			break;
		}
		ck_assert_msg(decode_one(&hdr, s) == -EBADMSG, "%s: not refused", what);
		free(s);
	}
}
END_TEST

/* Headers that would make a reader allocate beyond any host or overflow its time arithmetic. */
START_TEST(hostile_headers)
{
	struct pw_rec_header h, back;
	unsigned char buf[PW_REC_HEADER_SIZE];
	char why[256];
	const struct {
		uint32_t cpus, lines;
		bool matrix;
		int64_t interval_ns;
		const char *what;
	} cases[] = {
	        {CPU_CAP, LINE_CAP, false, INT64_C(1) << 62, "interval 2^62"},
	        {CPU_CAP, LINE_CAP, false, -SEC, "negative interval"},
	        {PW_REC_CPU_MAX + 1, LINE_CAP, false, SEC, "CPUs"},
	        {CPU_CAP, PW_REC_LINE_MAX + 1, false, SEC, "lines"},
	        {8192, 1u << 20, false, SEC, "163 MB of lines"},
	        {4096, 4096, true, SEC, "a 128 MiB matrix"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pw_rec_header_init(&h, cases[i].cpus, cases[i].lines, cases[i].matrix, 100, 4096,
		                   cases[i].interval_ns);
		pw_rec_header_encode(&h, buf);
		ck_assert_int_eq(pw_rec_header_decode(buf, sizeof(buf), &back), 0);
		ck_assert_msg(pw_rec_header_check(&back, why, sizeof(why)) == -EPROTO, "%s: accepted",
		              cases[i].what);
	}
	/* Version 3: struct sizes and the schema block are bounded too. */
	pw_rec_header_init(&h, CPU_CAP, LINE_CAP, false, 100, 4096, SEC);
	back = h;
	back.schema_size = 0;
	ck_assert_int_eq(pw_rec_header_check(&back, why, sizeof(why)), -EPROTO);
	back.schema_size = PW_REC_SCHEMA_MAX + 1;
	ck_assert_int_eq(pw_rec_header_check(&back, why, sizeof(why)), -EPROTO);
	back = h;
	back.line_struct = PW_REC_STRUCT_MAX + 8;
	back.sample_size += LINE_CAP * (PW_REC_STRUCT_MAX + 8 - h.line_struct);
	ck_assert_int_eq(pw_rec_header_check(&back, why, sizeof(why)), -EPROTO);
	/* The largest a host perfwatchd samples still fits. */
	pw_rec_header_init(&h, PW_REC_CPU_MAX, 2048, false, 100, 4096, 3600 * SEC);
	ck_assert_int_eq(pw_rec_header_check(&h, why, sizeof(why)), 0);
	pw_rec_header_init(&h, 256, 1532, true, 100, 4096, SEC);
	ck_assert_int_eq(pw_rec_header_check(&h, why, sizeof(why)), 0);
}
END_TEST

static Suite *recording_suite(void)
{
	Suite *s = suite_create("recording");
	TCase *core = tcase_create("core"), *malformed = tcase_create("malformed");

	tcase_add_test(core, round_trip);
	tcase_add_test(core, keyframes);
	tcase_add_test(core, version_2);
	tcase_add_test(malformed, truncated_everywhere);
	tcase_add_test(malformed, flipped_everywhere);
	tcase_add_test(malformed, foreign);
	tcase_add_test(malformed, hostile_samples);
	tcase_add_test(malformed, hostile_headers);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(recording_suite());
}
