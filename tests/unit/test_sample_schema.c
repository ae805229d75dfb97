/* test_sample_schema.c — lib/sample_schema.c describes every byte of the sample's three structs
 * that is not padding, once, with rows a reader can trust (in order, within the struct, sizes that
 * fit their kind, unique names). A field added to sample.h without its row fails here, by offset. */
#include "fixture_util.h"
#include "sample_schema.h"

#include <stdio.h>
#include <string.h>

static const char *const struct_names[PW_SCHEMA_STRUCTS] = {"pw_sample", "pw_cpu_sample", "pw_line_sample"};

static bool size_fits_kind(const struct pw_field *f)
{
	switch (f->kind) {
	case PW_FIELD_UINT:
	case PW_FIELD_INT:
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	case PW_FIELD_FLOAT:
		return f->size == 4 || f->size == 8;
	case PW_FIELD_LAYOUT:
		return f->size == 4;
	default:
		return f->size == 1;
	}
}

START_TEST(rows_are_sound)
{
	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++) {
		size_t n;
		uint32_t size, end = 0;
		const struct pw_field *f = pw_sample_schema(w, &n, &size);

		ck_assert_uint_gt(n, 0);
		for (size_t i = 0; i < n; i++) {
			ck_assert_msg(size_fits_kind(&f[i]), "%s.%s: size %u for its kind", struct_names[w],
			              f[i].name, f[i].size);
			ck_assert_msg(f[i].offset >= end, "%s.%s: overlaps the row before or out of order",
			              struct_names[w], f[i].name);
			ck_assert_uint_ge(f[i].count, 1);
			end = f[i].offset + f[i].size * f[i].count;
			ck_assert_uint_le(end, size);
			for (size_t j = 0; j < i; j++)
				ck_assert_msg(strcmp(f[i].name, f[j].name) != 0, "%s.%s: two rows",
				              struct_names[w], f[i].name);
		}
	}
}
END_TEST

/* Which bytes of a struct of size bytes are not padding (nonzero in ret). Returns false when the
 * compiler cannot say (then every byte is marked). */
static bool data_bytes(enum pw_schema_struct w, uint32_t size, unsigned char *ret)
{
	memset(ret, 0xff, size);
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
	switch (w) {
	case PW_SCHEMA_SAMPLE:
		__builtin_clear_padding((struct pw_sample *)(void *)ret);
		break;
	case PW_SCHEMA_CPU:
		__builtin_clear_padding((struct pw_cpu_sample *)(void *)ret);
		break;
	default:
		__builtin_clear_padding((struct pw_line_sample *)(void *)ret);
	}
	return true;
#else
	(void)w; /* no __builtin_clear_padding (clang): the gap check below stands in */
	return false;
#endif
}

START_TEST(every_byte_has_a_row)
{
	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++) {
		size_t n;
		uint32_t size;
		const struct pw_field *f = pw_sample_schema(w, &n, &size);
		static unsigned char data[sizeof(struct pw_sample)], covered[sizeof(struct pw_sample)];

		ck_assert_uint_le(size, sizeof(data));
		bool exact = data_bytes(w, size, data);
		memset(covered, 0, size);
		for (size_t i = 0; i < n; i++)
			memset(covered + f[i].offset, 1, (size_t)f[i].size * f[i].count);
		uint32_t gap = 0;
		for (uint32_t b = 0; b < size; b++) {
			const char *after = "the start";
			for (size_t i = 0; i < n && f[i].offset < b; i++)
				after = f[i].name;
			ck_assert_msg(
			        !exact || !data[b] || covered[b],
			        "struct %s: byte %u (after %s) is a field with no row in lib/sample_schema.c",
			        struct_names[w], b, after);
			ck_assert_msg(!exact || data[b] || !covered[b],
			              "struct %s: byte %u is padding, yet has a row", struct_names[w], b);
			/* Without the compiler's word, a gap of 8 bytes or more is no padding. */
			gap = covered[b] ? 0 : gap + 1;
			ck_assert_msg(gap < 8,
			              "struct %s: bytes %u..%u (after %s) have no row in lib/sample_schema.c",
			              struct_names[w], b + 1 - gap, b, after);
		}
	}
}
END_TEST

static Suite *sample_schema_suite(void)
{
	Suite *s = suite_create("sample_schema");
	TCase *core = tcase_create("core");

	tcase_add_test(core, rows_are_sound);
	tcase_add_test(core, every_byte_has_a_row);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(sample_schema_suite());
}
