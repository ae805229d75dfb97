/* sample_schema.h — the sample's layout by name: one row per leaf field of struct pw_sample,
 * struct pw_cpu_sample and struct pw_line_sample (dotted name, kind, offset, element size, count).
 *
 * The flight recorder writes this table into every recording (lib/rec_schema.c), so a later build
 * finds each recorded field by name whatever its offset. A field added to sample.h needs its row
 * here: test_sample_schema fails, naming the offset, until every byte that is not padding has one.
 * Arrays indexed by an enum (ticks[PW_MODE_COUNT], kb[PW_MEM_COUNT], ...) are one row: their
 * enums only grow at the end, or a recorded element would be read as its neighbour. */
#ifndef PW_SAMPLE_SCHEMA_H
#define PW_SAMPLE_SCHEMA_H

#include "sample.h"

#include <stddef.h>
#include <stdint.h>

enum pw_field_kind {
	PW_FIELD_UINT = 1, /* unsigned integer of 1, 2, 4 or 8 bytes */
	PW_FIELD_INT,      /* signed integer */
	PW_FIELD_FLOAT,    /* float or double */
	PW_FIELD_BOOL,     /* one byte, 0 or 1 */
	PW_FIELD_TEXT,     /* char[count], NUL-terminated */
	PW_FIELD_LAYOUT,   /* uint32_t describing the block (capacities, offsets, size): not data */
	PW_FIELD_KIND_MAX = PW_FIELD_LAYOUT,
};

/* The three structs a sample block is made of, in block order. */
enum pw_schema_struct { PW_SCHEMA_SAMPLE, PW_SCHEMA_CPU, PW_SCHEMA_LINE, PW_SCHEMA_STRUCTS };

struct pw_field {
	const char *name; /* "stat.total.ticks", "psi.io.some.avg10" */
	uint32_t offset;  /* within its struct */
	uint32_t size;    /* of one element */
	uint32_t count;   /* elements: 1 for a scalar */
	enum pw_field_kind kind;
};

/* This build's rows for one struct, in offset order (*ret_n of them), and the struct's sizeof in
 * *ret_struct_size. Static data: thread-safe. */
const struct pw_field *pw_sample_schema(enum pw_schema_struct which, size_t *ret_n,
                                        uint32_t *ret_struct_size);

#endif
