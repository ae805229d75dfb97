/* test_rec_schema.c — recordings across a sample layout change (lib/rec_schema.c). A real recording
 * is re-encoded as an "older build" would have written it — a field removed, fields this build lacks,
 * every row in another order, fields narrower than now — and this build reads every field it shares
 * with the file at its recorded value, the removed ones as zero. A field whose kind changed or whose
 * numbers narrowed is refused by name; a malformed schema block is refused, never misread. */
#include "fixture_util.h"
#include "rec_schema.h"
#include "recording.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FIXTURE "recordings/incident4_swapping.pwrec"
#define SAMPLES_MAX 64
#define ROWS_MAX 256

/* The fixture, decoded by this build. */
static struct pw_rec_header fixture;
static struct pw_sample *samples[SAMPLES_MAX];
static size_t nsamples;

/* ---- the fixture ----------------------------------------------------------------------------- */

static struct pw_rec_decoder *open_recording(const unsigned char *buf, size_t len,
                                             struct pw_rec_header *ret_hdr, int *ret_err, char *why,
                                             size_t why_size)
{
	struct pw_rec_decoder *dec = NULL;
	int r = pw_rec_header_decode(buf, len, ret_hdr);

	if (r == 0)
		r = pw_rec_header_check(ret_hdr, why, why_size);
	if (r == 0)
		ck_assert_uint_le(pw_rec_data_offset(ret_hdr), len);
	if (r == 0)
		r = pw_rec_decoder_new(ret_hdr, buf + PW_REC_HEADER_SIZE, ret_hdr->schema_size, &dec, why,
		                       why_size);
	*ret_err = r;
	return dec;
}

/* Every sample of buf[0..len), in this build's layout, into ret (at most SAMPLES_MAX). */
static size_t decode_all(const unsigned char *buf, size_t len, struct pw_sample **ret, int *ret_err,
                         char *why, size_t why_size)
{
	struct pw_rec_header hdr;
	struct pw_rec_decoder *dec = open_recording(buf, len, &hdr, ret_err, why, why_size);
	size_t at, n = 0;
	uint32_t flags;

	if (!dec)
		return 0;
	at = pw_rec_data_offset(&hdr);
	while (n < SAMPLES_MAX) {
		struct pw_sample *s = malloc(pw_rec_decoder_sample_size(dec));
		ck_assert_ptr_nonnull(s);
		ssize_t got = pw_rec_decode(dec, buf + at, len - at, s, &flags);
		if (got <= 0) {
			ck_assert_int_eq(got, 0);
			free(s);
			break;
		}
		ret[n++] = s;
		at += (size_t)got;
	}
	ck_assert_uint_eq(at, len);
	pw_rec_decoder_free(dec);
	return n;
}

static void load_fixture(void)
{
	size_t len;
	unsigned char *buf = (unsigned char *)pw_fixture_read(FIXTURE, &len);
	char why[512];
	int err;

	ck_assert_int_eq(pw_rec_header_decode(buf, len, &fixture), 0);
	nsamples = decode_all(buf, len, samples, &err, why, sizeof(why));
	ck_assert_msg(err == 0, "%s: %s", FIXTURE, why);
	ck_assert_uint_ge(nsamples, 10);
	free(buf);
}

static void free_fixture(void)
{
	for (size_t i = 0; i < nsamples; i++)
		free(samples[i]);
	nsamples = 0;
}

/* ---- an older build -------------------------------------------------------------------------- */

/* How the older build's layout differs from this one's. */
struct change {
	const char *removed[PW_SCHEMA_STRUCTS]; /* a field it did not have (NULL: none) */
	const char *narrow[PW_SCHEMA_STRUCTS];  /* a field it kept in 2 bytes (values fit) */
	const char *wide[PW_SCHEMA_STRUCTS];    /* a field it kept in 8 bytes: this build cannot narrow */
	const char *as_uint[PW_SCHEMA_STRUCTS]; /* a field it kept as a 4-byte unsigned */
};

struct old_build {
	struct pw_field rows[PW_SCHEMA_STRUCTS][ROWS_MAX];
	struct pw_rec_schema_table tables[PW_SCHEMA_STRUCTS];
	size_t cpus, lines, sample_size; /* the old block's layout at the fixture's capacities */
};

static bool named(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

static size_t align_to(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

/* Its rows: this build's in reverse order (every offset moves), less the removed field, sizes and
 * kinds as changed, and two fields of its own. */
static void old_build_make(const struct change *ch, struct old_build *ob)
{
	static const char *const extra[PW_SCHEMA_STRUCTS] = {"legacy.counter", "legacy.cpu_state",
	                                                     "legacy.line"};

	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++) {
		size_t n, k = 0, off = 0;
		uint32_t size;
		const struct pw_field *f = pw_sample_schema(w, &n, &size);
		struct pw_field *rows = ob->rows[w];

		ck_assert_uint_lt(n, ROWS_MAX);
		for (size_t i = n; i-- > 0;) {
			if (named(ch->removed[w], f[i].name))
				continue;
			struct pw_field r = f[i];
			if (named(ch->narrow[w], r.name))
				r.size = 2;
			if (named(ch->wide[w], r.name))
				r.size = 8;
			if (named(ch->as_uint[w], r.name))
				r.kind = PW_FIELD_UINT;
			off = align_to(off, r.size < 8 ? r.size : 8);
			r.offset = (uint32_t)off;
			off += (size_t)r.size * r.count;
			rows[k++] = r;
		}
		off = align_to(off, 8);
		rows[k++] = (struct pw_field){extra[w], (uint32_t)off, 8, 3, PW_FIELD_UINT};
		ob->tables[w] = (struct pw_rec_schema_table){rows, k, (uint32_t)align_to(off + 24, 8)};
	}
	ob->cpus = align_to(ob->tables[PW_SCHEMA_SAMPLE].struct_size, 8);
	ob->lines = ob->cpus + align_to((size_t)fixture.cpu_cap * ob->tables[PW_SCHEMA_CPU].struct_size, 8);
	ob->sample_size =
	        ob->lines + align_to((size_t)fixture.line_cap * ob->tables[PW_SCHEMA_LINE].struct_size, 8);
	ck_assert(!fixture.with_matrix);
}

static const struct pw_field *find(const struct pw_field *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

/* One struct of this build (src) as the older build laid it out (dst). */
static void struct_to_old(const struct pw_rec_schema_table *old, enum pw_schema_struct w,
                          const unsigned char *src, unsigned char *dst)
{
	size_t n;
	uint32_t size;
	const struct pw_field *mine = pw_sample_schema(w, &n, &size);

	for (size_t i = 0; i < old->n; i++) {
		const struct pw_field *o = &old->fields[i], *f = find(mine, n, o->name);
		if (!f) { /* the older build's own: this build must drop it */
			memset(dst + o->offset, 0xa5, (size_t)o->size * o->count);
			continue;
		}
		for (uint32_t e = 0; e < o->count; e++) {
			const unsigned char *from = src + f->offset + (size_t)e * f->size;
			unsigned char *to = dst + o->offset + (size_t)e * o->size;
			if (o->size == f->size) {
				memcpy(to, from, o->size);
			} else if (o->size == 2) {
				uint32_t v;
				memcpy(&v, from, sizeof(v));
				ck_assert_msg(v <= UINT16_MAX,
				              "%s: %u does not fit the older build's 2 bytes", o->name, v);
				uint16_t narrow = (uint16_t)v;
				memcpy(to, &narrow, sizeof(narrow));
			} else {
				uint64_t v = 0;
				memcpy(&v, from, f->size);
				memcpy(to, &v, sizeof(v));
			}
		}
	}
}

static void sample_to_old(const struct old_build *ob, const struct pw_sample *s, unsigned char *dst)
{
	memset(dst, 0, ob->sample_size);
	struct_to_old(&ob->tables[PW_SCHEMA_SAMPLE], PW_SCHEMA_SAMPLE, (const unsigned char *)s, dst);
	for (uint32_t id = 0; id < s->cpu_cap; id++)
		struct_to_old(&ob->tables[PW_SCHEMA_CPU], PW_SCHEMA_CPU,
		              (const unsigned char *)&pw_sample_cpus_const(s)[id],
		              dst + ob->cpus + id * ob->tables[PW_SCHEMA_CPU].struct_size);
	for (uint32_t i = 0; i < s->line_cap; i++)
		struct_to_old(&ob->tables[PW_SCHEMA_LINE], PW_SCHEMA_LINE,
		              (const unsigned char *)&pw_sample_lines_const(s)[i],
		              dst + ob->lines + i * ob->tables[PW_SCHEMA_LINE].struct_size);
}

static void append(unsigned char **buf, size_t *len, const void *bytes, size_t n)
{
	*buf = realloc(*buf, *len + n);
	ck_assert_ptr_nonnull(*buf);
	memcpy(*buf + *len, bytes, n);
	*len += n;
}

static uint32_t crc(const void *buf, size_t len)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
}

/* A keyframe record of the len bytes at sample: the frame of lib/recording.h, then the deflated bytes. */
static void append_keyframe(unsigned char **buf, size_t *len, const unsigned char *sample, size_t n,
                            bool first)
{
	uLongf zlen = compressBound(n);
	unsigned char *z = malloc(zlen);
	uint32_t frame[4];

	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(compress2(z, &zlen, sample, n, 1), Z_OK);
	frame[0] = (uint32_t)zlen;
	frame[1] = PW_REC_KEYFRAME | (first ? PW_REC_SEGMENT : 0);
	frame[2] = crc(z, zlen);
	frame[3] = crc(frame, 12);
	append(buf, len, frame, sizeof(frame));
	append(buf, len, z, zlen);
	free(z);
}

/* The fixture's samples as the older build would have recorded them. */
static unsigned char *old_recording(const struct old_build *ob, size_t *ret_len)
{
	struct pw_rec_header h;
	unsigned char head[PW_REC_HEADER_SIZE], *buf = NULL, *block, *old = malloc(ob->sample_size);
	size_t len = 0;

	ck_assert_ptr_nonnull(old);
	pw_rec_header_init(&h, fixture.cpu_cap, fixture.line_cap, false, fixture.user_hz, fixture.page_size,
	                   fixture.interval_ns);
	h.sample_struct = ob->tables[PW_SCHEMA_SAMPLE].struct_size;
	h.cpu_struct = ob->tables[PW_SCHEMA_CPU].struct_size;
	h.line_struct = ob->tables[PW_SCHEMA_LINE].struct_size;
	h.sample_size = (uint32_t)ob->sample_size;
	h.schema_size = (uint32_t)pw_rec_schema_write(ob->tables, NULL);
	pw_rec_header_encode(&h, head);
	append(&buf, &len, head, sizeof(head));
	block = malloc(h.schema_size);
	ck_assert_ptr_nonnull(block);
	pw_rec_schema_write(ob->tables, block);
	append(&buf, &len, block, h.schema_size);
	free(block);
	for (size_t t = 0; t < nsamples; t++) {
		sample_to_old(ob, samples[t], old);
		append_keyframe(&buf, &len, old, ob->sample_size, t == 0);
	}
	free(old);
	*ret_len = len;
	return buf;
}

/* Every field of this build's struct w in got: the removed one zero, the rest as recorded. */
static void check_struct(enum pw_schema_struct w, const struct change *ch, const unsigned char *got,
                         const unsigned char *want, size_t t)
{
	static const unsigned char zero[256];
	size_t n;
	uint32_t size;
	const struct pw_field *f = pw_sample_schema(w, &n, &size);

	for (size_t i = 0; i < n; i++) {
		size_t bytes = (size_t)f[i].size * f[i].count;
		ck_assert_uint_le(bytes, sizeof(zero));
		if (named(ch->removed[w], f[i].name))
			ck_assert_msg(memcmp(got + f[i].offset, zero, bytes) == 0,
			              "sample %zu: %s, removed, not zero", t, f[i].name);
		else
			ck_assert_msg(memcmp(got + f[i].offset, want + f[i].offset, bytes) == 0,
			              "sample %zu: %s differs", t, f[i].name);
	}
}

static const struct change older = {
        .removed = {"loadavg.last_pid", "base_khz", "rate"},
        .narrow = {"user_hz", "tis.nstates", NULL},
};

START_TEST(older_build)
{
	struct old_build ob;
	struct pw_sample *got[SAMPLES_MAX];
	size_t len;
	char why[512];
	int err;

	load_fixture();
	old_build_make(&older, &ob);
	unsigned char *buf = old_recording(&ob, &len);
	size_t n = decode_all(buf, len, got, &err, why, sizeof(why));
	ck_assert_msg(err == 0, "%s", why);
	ck_assert_uint_eq(n, nsamples);
	for (size_t t = 0; t < n; t++) {
		const struct pw_sample *s = got[t], *want = samples[t];
		ck_assert_uint_eq(s->size, want->size);
		check_struct(PW_SCHEMA_SAMPLE, &older, (const unsigned char *)s, (const unsigned char *)want,
		             t);
		for (uint32_t id = 0; id < s->cpu_cap; id++)
			check_struct(PW_SCHEMA_CPU, &older,
			             (const unsigned char *)&pw_sample_cpus_const(s)[id],
			             (const unsigned char *)&pw_sample_cpus_const(want)[id], t);
		for (uint32_t i = 0; i < s->line_cap; i++)
			check_struct(PW_SCHEMA_LINE, &older,
			             (const unsigned char *)&pw_sample_lines_const(s)[i],
			             (const unsigned char *)&pw_sample_lines_const(want)[i], t);
		free(got[t]);
	}
	/* The test is worth something only if the fixture has what was removed. */
	ck_assert_uint_gt(samples[nsamples - 1]->loadavg.last_pid, 0);
	free(buf);
	free_fixture();
}
END_TEST

/* A field the older build kept wider, or as another kind: refused at open, by name. */
START_TEST(cannot_carry_over)
{
	static const struct {
		struct change change;
		const char *field;
	} cases[] = {
	        {{.wide = {"user_hz"}}, "user_hz"},
	        {{.wide = {NULL, "cur_khz"}}, "cur_khz"},
	        {{.as_uint = {NULL, "freq_ratio"}}, "freq_ratio"},
	        {{.as_uint = {"mono_ns"}}, "mono_ns"},
	};

	load_fixture();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct old_build ob;
		struct pw_sample *got[SAMPLES_MAX];
		size_t len;
		char why[512] = "";
		int err;

		old_build_make(&cases[i].change, &ob);
		unsigned char *buf = old_recording(&ob, &len);
		ck_assert_uint_eq(decode_all(buf, len, got, &err, why, sizeof(why)), 0);
		ck_assert_int_eq(err, -EPROTO);
		ck_assert_msg(strstr(why, cases[i].field), "%s: %s", cases[i].field, why);
		free(buf);
	}
	free_fixture();
}
END_TEST

/* ---- malformed blocks ------------------------------------------------------------------------ */

/* The block's CRC, made right again after a change. */
static void reseal(unsigned char *block, size_t len)
{
	uint32_t sum = crc(block, len - 4);
	memcpy(block + len - 4, &sum, 4);
}

static int plan_for(const struct pw_rec_header *hdr, const unsigned char *block, size_t len, char *why,
                    size_t n)
{
	struct pw_rec_plan *plan = NULL;
	int r = pw_rec_plan_new(hdr, block, len, &plan, why, n);

	pw_rec_plan_free(plan);
	return r;
}

/* This build's header, as if written by a build whose tables are ob's. */
static void header_for(const struct old_build *ob, struct pw_rec_header *ret)
{
	pw_rec_header_init(ret, 2, 3, false, 100, 4096, 1000000000);
	ret->sample_struct = ob->tables[PW_SCHEMA_SAMPLE].struct_size;
	ret->cpu_struct = ob->tables[PW_SCHEMA_CPU].struct_size;
	ret->line_struct = ob->tables[PW_SCHEMA_LINE].struct_size;
}

START_TEST(malformed_blocks)
{
	struct old_build ob;
	struct pw_rec_header h;
	struct change none = {0};
	char why[512];

	fixture.cpu_cap = 2, fixture.line_cap = 3, fixture.with_matrix = false;
	old_build_make(&none, &ob);
	header_for(&ob, &h);
	size_t len = pw_rec_schema_write(ob.tables, NULL);
	unsigned char *block = malloc(len + 8), *copy = malloc(len + 8);
	ck_assert_ptr_nonnull(block);
	ck_assert_ptr_nonnull(copy);
	pw_rec_schema_write(ob.tables, block);
	ck_assert_int_eq(plan_for(&h, block, len, why, sizeof(why)), 0);

	/* Every prefix, resealed: cut short, never read past its end (ASan watches). */
	for (size_t cut = 0; cut < len; cut++) {
		unsigned char *exact = malloc(cut ? cut : 1);
		ck_assert_ptr_nonnull(exact);
		memcpy(exact, block, cut);
		if (cut >= 4)
			reseal(exact, cut);
		ck_assert_msg(plan_for(&h, exact, cut, why, sizeof(why)) == -EPROTO, "cut at %zu", cut);
		free(exact);
	}
	/* A flipped bit: the checksum. Bytes after the tables. */
	memcpy(copy, block, len);
	copy[len / 2] ^= 4;
	ck_assert_int_eq(plan_for(&h, copy, len, why, sizeof(why)), -EPROTO);
	memcpy(copy, block, len);
	memset(copy + len, 0, 4);
	reseal(copy, len + 4);
	ck_assert_int_eq(plan_for(&h, copy, len + 4, why, sizeof(why)), -EPROTO);
	/* Struct sizes other than the header's. */
	h.cpu_struct += 8;
	ck_assert_int_eq(plan_for(&h, block, len, why, sizeof(why)), -EPROTO);
	header_for(&ob, &h);

	/* Rows: out of the struct, a count that overflows 32 bits, a bad name, a name twice, an
	 * unknown kind, a size its kind cannot have. Each the first row of the sample's table. */
	struct pw_field *first = &ob.rows[PW_SCHEMA_SAMPLE][0], saved = *first;
	const struct pw_field bad[] = {
	        {saved.name, ob.tables[PW_SCHEMA_SAMPLE].struct_size, 4, 1, PW_FIELD_UINT},
	        {saved.name, 0, 8, UINT32_MAX, PW_FIELD_UINT},
	        {"Seq", 0, 8, 1, PW_FIELD_UINT},
	        {"seq one", 0, 8, 1, PW_FIELD_UINT},
	        {ob.rows[PW_SCHEMA_SAMPLE][1].name, 0, 1, 1, PW_FIELD_BOOL},
	        {saved.name, 0, 4, 1, (enum pw_field_kind)0},
	        {saved.name, 0, 4, 1, (enum pw_field_kind)(PW_FIELD_KIND_MAX + 1)},
	        {saved.name, 0, 3, 1, PW_FIELD_UINT},
	        {saved.name, 0, 2, 1, PW_FIELD_TEXT},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		*first = bad[i];
		size_t n = pw_rec_schema_write(ob.tables, NULL);
		unsigned char *b = malloc(n);
		ck_assert_ptr_nonnull(b);
		pw_rec_schema_write(ob.tables, b);
		ck_assert_msg(plan_for(&h, b, n, why, sizeof(why)) == -EPROTO, "bad row %zu accepted", i);
		free(b);
	}
	*first = saved;
	free(block);
	free(copy);
}
END_TEST

/* This build's own block: no plan, its bytes are read as they are. */
START_TEST(own_block)
{
	struct pw_rec_header h;
	struct pw_rec_plan *plan = (struct pw_rec_plan *)&h;
	unsigned char *block = malloc(pw_rec_schema_size());
	char why[256];

	ck_assert_ptr_nonnull(block);
	pw_rec_schema_encode(block);
	pw_rec_header_init(&h, 2, 3, false, 100, 4096, 1000000000);
	ck_assert_uint_eq(h.schema_size, pw_rec_schema_size());
	ck_assert_int_eq(pw_rec_plan_new(&h, block, h.schema_size, &plan, why, sizeof(why)), 0);
	ck_assert_ptr_null(plan);
	/* The same block under a header of other struct sizes: the two disagree. */
	h.sample_struct += 8;
	ck_assert_int_eq(pw_rec_plan_new(&h, block, h.schema_size, &plan, why, sizeof(why)), -EPROTO);
	free(block);
}
END_TEST

static Suite *rec_schema_suite(void)
{
	Suite *s = suite_create("rec_schema");
	TCase *core = tcase_create("core"), *malformed = tcase_create("malformed");

	tcase_add_test(core, own_block);
	tcase_add_test(core, older_build);
	tcase_add_test(core, cannot_carry_over);
	tcase_add_test(malformed, malformed_blocks);
	suite_add_tcase(s, core);
	suite_add_tcase(s, malformed);
	return s;
}

int main(void)
{
	return pw_run_suite(rec_schema_suite());
}
