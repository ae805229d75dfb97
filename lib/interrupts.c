/* interrupts.c — parses /proc/interrupts into per-line labels and totals, per-CPU sums and a matrix. */
#include "interrupts.h"

#include "cpu_header.h"

#include <errno.h>
#include <string.h>

struct irq_ctx {
	struct pw_cpu_header hdr;
	struct pw_irq_line *lines;
	uint32_t line_cap;
	uint64_t *per_cpu;
	uint64_t *matrix;
	uint32_t cpu_cap;
	uint32_t nlines;
	uint32_t dropped;
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool all_digits(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
	}
	return len > 0;
}

/* One count column. A token that starts with a digit must be a whole number; anything else ends the
 * counts (ERR/MIS print one column, and the label text follows the last count). Returns 1 for a
 * count, 0 at the end of the counts. */
static int scan_count(struct pw_scan *scan, uint64_t *ret)
{
	int r;

	pw_scan_skip_blanks(scan);
	if (pw_scan_eof(scan) || !is_digit(*scan->pos))
		return 0;
	r = pw_scan_u64(scan, ret);
	if (r < 0)
		return r;
	if (!pw_scan_eof(scan) && *scan->pos != ' ' && *scan->pos != '\t' && *scan->pos != '\n')
		return -EINVAL;
	return 1;
}

/* Read the counts of one line into per_cpu and the line's matrix row (row may be NULL). */
static int parse_counts(struct pw_scan *scan, struct irq_ctx *ctx, uint64_t *row, uint64_t *ret_total)
{
	struct pw_scan walk;
	uint64_t total = 0, value;
	int r = 0;

	pw_cpu_header_walk(&ctx->hdr, &walk);
	for (uint32_t col = 0; col < ctx->hdr.ncolumns && (r = scan_count(scan, &value)) > 0; col++) {
		uint32_t id = pw_cpu_header_column_cpu(&ctx->hdr, &walk, col);
		if (__builtin_add_overflow(total, value, &total))
			return -ERANGE;
		if (id >= ctx->cpu_cap)
			continue;
		if (ctx->per_cpu && __builtin_add_overflow(ctx->per_cpu[id], value, &ctx->per_cpu[id]))
			return -ERANGE;
		if (row)
			row[id] = value;
	}
	if (r < 0)
		return r;
	*ret_total = total;
	return 0;
}

/* Move past one token if it satisfies pred; returns whether it did. */
static bool skip_token_if(struct pw_scan *scan, bool (*pred)(const char *tok, size_t len))
{
	struct pw_scan peek = *scan;
	const char *tok;
	size_t len;

	if (pw_scan_token(&peek, &tok, &len) < 0 || !pred(tok, len))
		return false;
	*scan = peek;
	return true;
}

/* "5-edge", "27", "524288": the hwirq number, with the flow handler appended on x86. */
static bool is_hwirq(const char *tok, size_t len)
{
	size_t i = 0;

	while (i < len && is_digit(tok[i]))
		i++;
	return i > 0 && (i == len || tok[i] == '-');
}

/* "-edge" after a blank hwirq (no irq domain), or the handler after Level/Edge. */
static bool is_handler(const char *tok, size_t len)
{
	return len > 1 && tok[0] == '-';
}

/* CONFIG_GENERIC_IRQ_SHOW_LEVEL (arm64) prints the trigger as its own token. */
static bool is_trigger(const char *tok, size_t len)
{
	return pw_token_is(tok, len, "Level") || pw_token_is(tok, len, "Edge");
}

/* The next byte after blanks, or '\0' at the end of the line. */
static char next_char(struct pw_scan *scan)
{
	return pw_scan_at_eol(scan) ? '\0' : *scan->pos;
}

/* After the counts of a numbered line: chip, then optional hwirq/handler/trigger tokens, then the
 * device names (which may contain spaces and commas) up to the end of the line. Peeking at the first
 * byte keeps the usual line from scanning its device name twice. */
static void parse_numbered_rest(struct pw_scan *scan, struct pw_irq_line *line)
{
	const char *tok, *rest;
	size_t len, rest_len;
	char c;

	if (pw_scan_token(scan, &tok, &len) < 0)
		return;
	pw_copy_label(line->chip, sizeof(line->chip), tok, len);
	c = next_char(scan);
	if ((is_digit(c) && skip_token_if(scan, is_hwirq)) || (c == '-' && skip_token_if(scan, is_handler)))
		c = next_char(scan);
	if ((c == 'L' || c == 'E') && skip_token_if(scan, is_trigger) && next_char(scan) == '-')
		skip_token_if(scan, is_handler);
	pw_scan_rest_of_line(scan, &rest, &rest_len);
	pw_copy_label(line->device, sizeof(line->device), rest, rest_len);
}

static uint64_t *matrix_row(struct irq_ctx *ctx, uint32_t index)
{
	uint64_t *row;

	if (!ctx->matrix || ctx->cpu_cap == 0)
		return NULL;
	row = ctx->matrix + (size_t)index * ctx->cpu_cap;
	memset(row, 0, ctx->cpu_cap * sizeof(*row));
	return row;
}

/* x86 ERR and MIS, arm Err: one host-wide count and nothing after it, where every other named line
 * has a count per CPU column and a description. Its count belongs to no CPU. Told apart by
 * shape rather than by name, so it also holds for other arches and on a one-CPU host. */
static bool is_single_total(const struct pw_scan *scan)
{
	struct pw_scan peek = *scan;
	uint64_t value;

	return scan_count(&peek, &value) > 0 && pw_scan_at_eol(&peek);
}

/* The counts of a named line, then its description up to the end of the line. */
static int parse_named(struct pw_scan *scan, struct irq_ctx *ctx, uint64_t *row, struct pw_irq_line *line)
{
	const char *rest;
	size_t rest_len;
	int r;

	line->flags |= PW_IRQ_LINE_NAMED;
	if (is_single_total(scan)) {
		line->flags |= PW_IRQ_LINE_SINGLE_TOTAL;
		r = pw_scan_u64(scan, &line->total);
	} else {
		r = parse_counts(scan, ctx, row, &line->total);
	}
	if (r < 0)
		return r;
	pw_scan_rest_of_line(scan, &rest, &rest_len);
	pw_copy_label(line->device, sizeof(line->device), rest, rest_len);
	return 0;
}

/* One "NAME: counts rest" line. Lines past line_cap still count towards per_cpu. */
static int parse_line(struct pw_scan *scan, void *arg, const char *name, size_t name_len)
{
	struct irq_ctx *ctx = arg;
	struct pw_irq_line dummy, *line = &dummy;
	uint64_t *row = NULL;
	int r;

	if (ctx->nlines < ctx->line_cap) {
		line = &ctx->lines[ctx->nlines];
		row = matrix_row(ctx, ctx->nlines);
	}
	memset(line, 0, sizeof(*line));
	pw_copy_label(line->irq, sizeof(line->irq), name, name_len);
	if (all_digits(name, name_len)) {
		r = parse_counts(scan, ctx, row, &line->total);
		if (r == 0)
			parse_numbered_rest(scan, line);
	} else {
		r = parse_named(scan, ctx, row, line);
	}
	if (r < 0)
		return r;
	if (line == &dummy)
		ctx->dropped++;
	else
		ctx->nlines++;
	return 0;
}

int pw_interrupts_parse(const char *buf, size_t len, struct pw_irq_line *lines, uint32_t line_cap,
                        uint64_t *per_cpu, uint64_t *matrix, uint32_t cpu_cap, struct pw_interrupts *ret)
{
	struct irq_ctx ctx = {
	        .lines = lines,
	        .line_cap = line_cap,
	        .per_cpu = per_cpu,
	        .matrix = matrix,
	        .cpu_cap = cpu_cap,
	};
	struct pw_scan scan;
	int r;

	if (per_cpu && cpu_cap > 0)
		memset(per_cpu, 0, cpu_cap * sizeof(*per_cpu));
	pw_scan_init(&scan, buf, len);
	r = pw_cpu_header_parse(&scan, &ctx.hdr);
	if (r < 0)
		return r;
	pw_scan_next_line(&scan);
	r = pw_cpu_rows_parse(&scan, parse_line, &ctx);
	if (r < 0)
		return r;
	*ret = (struct pw_interrupts){
	        .nlines = ctx.nlines,
	        .ncolumns = ctx.hdr.ncolumns,
	        .cpu_seen = ctx.hdr.cpu_seen,
	        .dropped = ctx.dropped,
	};
	return ctx.dropped > 0 || ctx.hdr.cpu_seen > cpu_cap ? -ENOBUFS : 0;
}
