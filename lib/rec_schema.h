/* rec_schema.h — a recording's schema block: this build's sample layout by name (lib/sample_schema.c)
 * as it is written after a version-3 header, and the plan that reads the samples of a file whose
 * layout differs (an older or newer build) into this build's, field by field.
 *
 * Block (the writer's byte order, which the header's mark fixes): for each of pw_sample,
 * pw_cpu_sample and pw_line_sample, u32 sizeof and u32 row count, then per row u32 offset, u32
 * element size, u32 count, u8 kind (enum pw_field_kind), u8 name length and the name; last a CRC-32
 * of all before. Uncompressed: 4 KB once per file, and a fuzzer mutates its names and numbers
 * directly. A block is input like any other: pw_rec_plan_new bounds it (PW_REC_SCHEMA_MAX and friends,
 * recording.h) and judges every row. */
#ifndef PW_REC_SCHEMA_H
#define PW_REC_SCHEMA_H

#include "recording.h"
#include "sample_schema.h"

#include <stddef.h>

/* The rows of one struct (pw_sample_schema's, or another build's). */
struct pw_rec_schema_table {
	const struct pw_field *fields;
	size_t n;
	uint32_t struct_size;
};

/* The block describing tables (one per struct, in enum pw_schema_struct order): returns its length,
 * and writes it to buf unless buf is NULL. Names must be at most PW_REC_FIELD_NAME_MAX bytes. */
size_t pw_rec_schema_write(const struct pw_rec_schema_table tables[PW_SCHEMA_STRUCTS], void *buf);

/* The length of this build's block. */
size_t pw_rec_schema_size(void);

/* This build's block into buf, which holds pw_rec_schema_size() bytes. */
void pw_rec_schema_encode(void *buf);

struct pw_rec_plan;

/* Judge the schema block (len bytes) of a recording whose header is hdr (pw_rec_header_check
 * passed) against this build. Returns 0 and *ret NULL when the file's layout is this build's (its
 * bytes are samples as they are); 0 and a plan when they need translating; -EPROTO with the reason
 * in why when the block is malformed (length, checksum, a row out of its struct, a bad name or
 * kind, a name twice, struct sizes other than the header's) or a field cannot be carried over (its
 * kind changed, or its numbers narrowed); -ENOMEM. */
int pw_rec_plan_new(const struct pw_rec_header *hdr, const void *block, size_t len, struct pw_rec_plan **ret,
                    char *why, size_t why_size);
void pw_rec_plan_free(struct pw_rec_plan *plan);

/* One sample of the file's layout (hdr->sample_size bytes at file) into out, this build's layout
 * for the header's capacities (pw_sample_size bytes): every field this build has, by name, from the
 * file, zero where the file lacks it; the layout fields this build's own. out may then be as
 * invalid as the file's bytes were: the decoder judges it. */
void pw_rec_plan_apply(const struct pw_rec_plan *plan, const void *file, struct pw_sample *out);

#endif
