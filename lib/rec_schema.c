/* rec_schema.c — the schema block on disk, and reading another build's samples by field name. */
#include "rec_schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ROW_FIXED 14u   /* offset, size, count, kind, name length */
#define STRUCT_FIXED 8u /* sizeof, row count */

/* One field carried from the file's struct to this build's. */
struct op {
	uint32_t src, dst;           /* offsets in their structs */
	uint32_t src_size, dst_size; /* of an element */
	uint32_t count;              /* elements carried: the fewer of the two */
	bool cut;                    /* the file has more elements than this build */
	enum pw_field_kind kind;
};

struct ops {
	struct op *op;
	size_t n;
};

struct pw_rec_plan {
	struct ops ops[PW_SCHEMA_STRUCTS];
	uint32_t cpu_cap, line_cap;
	bool with_matrix;
	size_t src_cpus, src_lines, src_matrix; /* offsets of the file's arrays */
	uint32_t src_cpu_struct, src_line_struct;
};

/* A row of the file's block; name points into the block. */
struct row {
	const char *name;
	uint32_t name_len, offset, size, count;
	enum pw_field_kind kind;
};

struct table {
	uint32_t struct_size;
	uint32_t n;
	struct row *rows;
};

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put32(unsigned char **p, uint32_t v)
{
	memcpy(*p, &v, sizeof(v));
	*p += sizeof(v);
}

static uint32_t crc(const void *buf, size_t len)
{
	return (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)len);
}

size_t pw_rec_schema_write(const struct pw_rec_schema_table tables[PW_SCHEMA_STRUCTS], void *buf)
{
	unsigned char *p = buf;
	size_t len = sizeof(uint32_t); /* the CRC */

	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++) {
		const struct pw_field *f = tables[w].fields;
		len += STRUCT_FIXED;
		if (p) {
			put32(&p, tables[w].struct_size);
			put32(&p, (uint32_t)tables[w].n);
		}
		for (size_t i = 0; i < tables[w].n; i++) {
			size_t name_len = strlen(f[i].name);
			len += ROW_FIXED + name_len;
			if (!p)
				continue;
			put32(&p, f[i].offset);
			put32(&p, f[i].size);
			put32(&p, f[i].count);
			*p++ = (unsigned char)f[i].kind;
			*p++ = (unsigned char)name_len;
			memcpy(p, f[i].name, name_len);
			p += name_len;
		}
	}
	if (p) {
		uint32_t sum = crc(buf, len - sizeof(sum));
		memcpy(p, &sum, sizeof(sum));
	}
	return len;
}

static void own_tables(struct pw_rec_schema_table ret[PW_SCHEMA_STRUCTS])
{
	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++)
		ret[w].fields = pw_sample_schema(w, &ret[w].n, &ret[w].struct_size);
}

size_t pw_rec_schema_size(void)
{
	struct pw_rec_schema_table t[PW_SCHEMA_STRUCTS];

	own_tables(t);
	return pw_rec_schema_write(t, NULL);
}

void pw_rec_schema_encode(void *buf)
{
	struct pw_rec_schema_table t[PW_SCHEMA_STRUCTS];

	own_tables(t);
	pw_rec_schema_write(t, buf);
}

/* ---- parsing the file's block ---------------------------------------------------------------- */

/* The bytes of a block, read front to back; a read past the end sets short. */
struct cursor {
	const unsigned char *p;
	size_t left;
	bool short_;
};

static uint32_t take32(struct cursor *c)
{
	uint32_t v = 0;

	if (c->left < sizeof(v)) {
		c->short_ = true;
		return 0;
	}
	memcpy(&v, c->p, sizeof(v));
	c->p += sizeof(v), c->left -= sizeof(v);
	return v;
}

static const unsigned char *take(struct cursor *c, size_t n)
{
	const unsigned char *at = c->p;

	if (c->left < n) {
		c->short_ = true;
		return NULL;
	}
	c->p += n, c->left -= n;
	return at;
}

static bool name_ok(const char *name, uint32_t len)
{
	if (len == 0 || len > PW_REC_FIELD_NAME_MAX)
		return false;
	for (uint32_t i = 0; i < len; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') ||
		      name[i] == '_' || name[i] == '.'))
			return false;
	return true;
}

static bool size_ok(enum pw_field_kind kind, uint32_t size)
{
	switch (kind) {
	case PW_FIELD_UINT:
	case PW_FIELD_INT:
		return size == 1 || size == 2 || size == 4 || size == 8;
	case PW_FIELD_FLOAT:
		return size == 4 || size == 8;
	case PW_FIELD_LAYOUT:
		return size == 4;
	default:
		return size == 1;
	}
}

/* Every row within its struct, of a known kind at a size it has, named [a-z0-9_.]+, once. */
static int row_check(const struct table *t, uint32_t i, char *why, size_t n)
{
	const struct row *r = &t->rows[i];

	if (!name_ok(r->name, r->name_len))
		return snprintf(why, n, "schema: row %u has no valid name", i), -EPROTO;
	if (r->kind < PW_FIELD_UINT || r->kind > PW_FIELD_KIND_MAX || !size_ok(r->kind, r->size) ||
	    r->count == 0 || (uint64_t)r->offset + (uint64_t)r->size * r->count > t->struct_size)
		return snprintf(why, n,
		                "schema: field %.*s (kind %d, %u x %u bytes at %u) does not fit its %u-byte "
		                "struct",
		                (int)r->name_len, r->name, (int)r->kind, r->count, r->size, r->offset,
		                t->struct_size),
		       -EPROTO;
	for (uint32_t j = 0; j < i; j++)
		if (t->rows[j].name_len == r->name_len && memcmp(t->rows[j].name, r->name, r->name_len) == 0)
			return snprintf(why, n, "schema: field %.*s twice", (int)r->name_len, r->name),
			       -EPROTO;
	return 0;
}

static int table_parse(struct cursor *c, uint32_t want_size, struct table *t, char *why, size_t n)
{
	t->struct_size = take32(c);
	t->n = take32(c);
	if (c->short_)
		return snprintf(why, n, "schema: cut short"), -EPROTO;
	if (t->struct_size != want_size || t->n > PW_REC_FIELDS_MAX)
		return snprintf(why, n,
		                "schema: a struct of %u bytes and %u fields, the header says %u bytes",
		                t->struct_size, t->n, want_size),
		       -EPROTO;
	/* Rows are at least ROW_FIXED bytes: a count the block cannot hold allocates nothing. */
	if ((size_t)t->n * ROW_FIXED > c->left)
		return snprintf(why, n, "schema: cut short"), -EPROTO;
	if (t->n && !(t->rows = calloc(t->n, sizeof(*t->rows))))
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		struct row *r = &t->rows[i];
		r->offset = take32(c);
		r->size = take32(c);
		r->count = take32(c);
		const unsigned char *kind_len = take(c, 2);
		if (!kind_len)
			return snprintf(why, n, "schema: cut short"), -EPROTO;
		r->kind = kind_len[0];
		r->name_len = kind_len[1];
		if (!(r->name = (const char *)take(c, r->name_len)))
			return snprintf(why, n, "schema: cut short"), -EPROTO;
		int err = row_check(t, i, why, n);
		if (err < 0)
			return err;
	}
	return 0;
}

/* ---- the plan -------------------------------------------------------------------------------- */

static const struct row *find(const struct table *t, const char *name)
{
	size_t len = strlen(name);

	for (uint32_t i = 0; i < t->n; i++)
		if (t->rows[i].name_len == len && memcmp(t->rows[i].name, name, len) == 0)
			return &t->rows[i];
	return NULL;
}

static const char *const kind_names[] = {"?",    "unsigned integer", "signed integer", "float", "bool",
                                         "text", "layout field"};

/* This build's fields of one struct, each matched by name in the file's table. */
static int ops_build(enum pw_schema_struct w, const struct table *t, struct ops *ret, char *why, size_t n)
{
	size_t nf;
	uint32_t size;
	const struct pw_field *f = pw_sample_schema(w, &nf, &size);

	if (!(ret->op = calloc(nf, sizeof(*ret->op))))
		return -ENOMEM;
	for (size_t i = 0; i < nf; i++) {
		const struct row *r = find(t, f[i].name);
		/* Layout fields describe the block, and this build sets its own. */
		if (!r || f[i].kind == PW_FIELD_LAYOUT)
			continue;
		if (r->kind != f[i].kind)
			return snprintf(why, n, "field %s is a %s in the recording, a %s in this build",
			                f[i].name, kind_names[r->kind], kind_names[f[i].kind]),
			       -EPROTO;
		/* Narrowing would need each value judged: refused rather than clipped. */
		if (r->size > f[i].size)
			return snprintf(why, n,
			                "field %s has %u-byte values in the recording, %u in this build",
			                f[i].name, r->size, f[i].size),
			       -EPROTO;
		ret->op[ret->n++] = (struct op){
		        .src = r->offset,
		        .dst = f[i].offset,
		        .src_size = r->size,
		        .dst_size = f[i].size,
		        .count = r->count < f[i].count ? r->count : f[i].count,
		        .cut = r->count > f[i].count,
		        .kind = f[i].kind,
		};
	}
	return 0;
}

/* Is the block this build's own? Then the file's bytes are samples as they are. */
static bool block_is_ours(const void *block, size_t len)
{
	size_t mine = pw_rec_schema_size();
	unsigned char *buf;
	bool same = false;

	if (len != mine || !(buf = malloc(mine)))
		return false;
	pw_rec_schema_encode(buf);
	same = memcmp(buf, block, len) == 0;
	free(buf);
	return same;
}

static int plan_build(const struct pw_rec_header *hdr, struct cursor *c, struct pw_rec_plan *plan, char *why,
                      size_t n)
{
	const uint32_t sizes[PW_SCHEMA_STRUCTS] = {hdr->sample_struct, hdr->cpu_struct, hdr->line_struct};
	struct table t[PW_SCHEMA_STRUCTS] = {0};
	int err = 0;

	for (int w = 0; w < PW_SCHEMA_STRUCTS && !err; w++)
		err = table_parse(c, sizes[w], &t[w], why, n);
	if (!err && c->left != 0)
		err = (snprintf(why, n, "schema: %zu bytes after its tables", c->left), -EPROTO);
	for (int w = 0; w < PW_SCHEMA_STRUCTS && !err; w++)
		err = ops_build(w, &t[w], &plan->ops[w], why, n);
	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++)
		free(t[w].rows);
	return err;
}

int pw_rec_plan_new(const struct pw_rec_header *hdr, const void *block, size_t len, struct pw_rec_plan **ret,
                    char *why, size_t n)
{
	uint32_t sum;

	if (len < sizeof(sum) || len > PW_REC_SCHEMA_MAX)
		return snprintf(why, n, "schema block of %zu bytes", len), -EPROTO;
	memcpy(&sum, (const unsigned char *)block + len - sizeof(sum), sizeof(sum));
	if (sum != crc(block, len - sizeof(sum)))
		return snprintf(why, n, "corrupt schema block (checksum)"), -EPROTO;
	if (block_is_ours(block, len)) {
		/* The header's struct sizes are what the reader allocates by: they must be ours too. */
		if (hdr->sample_struct != sizeof(struct pw_sample) ||
		    hdr->cpu_struct != sizeof(struct pw_cpu_sample) ||
		    hdr->line_struct != sizeof(struct pw_line_sample))
			return snprintf(why, n, "schema: struct sizes other than the header's"), -EPROTO;
		*ret = NULL;
		return 0;
	}

	struct pw_rec_plan *plan = calloc(1, sizeof(*plan));
	struct cursor c = {.p = block, .left = len - sizeof(sum)};
	if (!plan)
		return -ENOMEM;
	int err = plan_build(hdr, &c, plan, why, n);
	if (err < 0) {
		pw_rec_plan_free(plan);
		return err;
	}
	plan->cpu_cap = hdr->cpu_cap;
	plan->line_cap = hdr->line_cap;
	plan->with_matrix = hdr->with_matrix;
	plan->src_cpu_struct = hdr->cpu_struct;
	plan->src_line_struct = hdr->line_struct;
	plan->src_cpus = align8(hdr->sample_struct);
	plan->src_lines = plan->src_cpus + align8((size_t)hdr->cpu_cap * hdr->cpu_struct);
	plan->src_matrix = plan->src_lines + align8((size_t)hdr->line_cap * hdr->line_struct);
	*ret = plan;
	return 0;
}

void pw_rec_plan_free(struct pw_rec_plan *plan)
{
	if (!plan)
		return;
	for (int w = 0; w < PW_SCHEMA_STRUCTS; w++)
		free(plan->ops[w].op);
	free(plan);
}

/* ---- translating a sample -------------------------------------------------------------------- */

/* One element widened: unsigned zero-extended, signed sign-extended, float to double. */
static void widen(const unsigned char *src, unsigned char *dst, const struct op *o)
{
	if (o->kind == PW_FIELD_FLOAT) {
		float f;
		memcpy(&f, src, sizeof(f));
		double d = f;
		memcpy(dst, &d, sizeof(d));
		return;
	}
	uint64_t u = 0;
	int64_t v = 0;
	switch (o->src_size) {
	case 1: {
		uint8_t x;
		memcpy(&x, src, 1);
		u = x, v = (int8_t)x;
		break;
	}
	case 2: {
		uint16_t x;
		memcpy(&x, src, 2);
		u = x, v = (int16_t)x;
		break;
	}
	default: {
		uint32_t x;
		memcpy(&x, src, 4);
		u = x, v = (int32_t)x;
	}
	}
	if (o->kind == PW_FIELD_INT)
		u = (uint64_t)v;
	/* Little or big endian: the low dst_size bytes of u, in this host's order. */
	switch (o->dst_size) {
	case 2: {
		uint16_t x = (uint16_t)u;
		memcpy(dst, &x, 2);
		break;
	}
	case 4: {
		uint32_t x = (uint32_t)u;
		memcpy(dst, &x, 4);
		break;
	}
	default:
		memcpy(dst, &u, 8);
	}
}

static void ops_apply(const struct ops *ops, const unsigned char *src, unsigned char *dst)
{
	for (size_t i = 0; i < ops->n; i++) {
		const struct op *o = &ops->op[i];
		if (o->src_size == o->dst_size)
			memcpy(dst + o->dst, src + o->src, (size_t)o->count * o->src_size);
		else
			for (uint32_t e = 0; e < o->count; e++)
				widen(src + o->src + (size_t)e * o->src_size,
				      dst + o->dst + (size_t)e * o->dst_size, o);
		/* A text array shorter in this build cuts the string, never leaves it unterminated. */
		if (o->kind == PW_FIELD_TEXT && o->cut)
			dst[o->dst + o->count - 1] = '\0';
	}
}

void pw_rec_plan_apply(const struct pw_rec_plan *plan, const void *file, struct pw_sample *out)
{
	const unsigned char *src = file;

	pw_sample_init(out, plan->cpu_cap, plan->line_cap, plan->with_matrix);
	ops_apply(&plan->ops[PW_SCHEMA_SAMPLE], src, (unsigned char *)out);
	for (uint32_t id = 0; id < plan->cpu_cap; id++)
		ops_apply(&plan->ops[PW_SCHEMA_CPU], src + plan->src_cpus + (size_t)id * plan->src_cpu_struct,
		          (unsigned char *)&pw_sample_cpus(out)[id]);
	for (uint32_t i = 0; i < plan->line_cap; i++)
		ops_apply(&plan->ops[PW_SCHEMA_LINE],
		          src + plan->src_lines + (size_t)i * plan->src_line_struct,
		          (unsigned char *)&pw_sample_lines(out)[i]);
	/* The matrix is counts only, line * cpu_cap + cpu in either layout. */
	if (plan->with_matrix)
		memcpy(pw_sample_matrix(out), src + plan->src_matrix,
		       (size_t)plan->line_cap * plan->cpu_cap * sizeof(uint64_t));
}
