/* store_codec.h — the history store's file format: history points as self-describing, compact
 * blocks of columns. Pure: the caller does the I/O (daemon/history_store.c).
 *
 * A store file is a PW_STORE_HEADER_SIZE-byte header (magic, format version, tier, the sampling
 * interval), then frames. A frame is 16 bytes (payload length, type, CRC-32 of the payload, CRC-32
 * of the frame's first 12 bytes) and its payload:
 *
 *   PW_STORE_BLOCK     u32 raw length, then zlib(dictionary, points): up to PW_STORE_POINTS_MAX points
 *   PW_STORE_ROW_DICT  dictionary, points (not deflated): one point as it comes, in the head file
 *   PW_STORE_ROW       points only, with the dictionary of the frame before
 *
 * The dictionary names every series of the frame (signal name, label value, unit, quantum), so a
 * reader needs no struct layout and a newer perfwatch reads an older file: a signal it does not know
 * is skipped, one the file lacks reads as unknown. Points are columns: times in milliseconds
 * (first, then delta of delta), a flags word each, then per series one token per point, 0 for
 * unknown or zigzag(q - previous q) + 1 with q = round(value / quantum): steady signals become runs
 * of one byte that zlib folds away. docs/history.md ("The store on disk") has the figures. */
#ifndef PW_STORE_CODEC_H
#define PW_STORE_CODEC_H

#include "history_signals.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PW_STORE_VERSION 1
#define PW_STORE_HEADER_SIZE 32
#define PW_STORE_FRAME_SIZE 16

/* What a reader accepts, so a crafted file cannot make it allocate more than these. */
#define PW_STORE_POINTS_MAX 4096u                  /* points in one frame */
#define PW_STORE_SERIES_MAX 65536u                 /* series in one dictionary */
#define PW_STORE_PAYLOAD_MAX (64u << 20)           /* bytes of a frame's payload, and inflated */
#define PW_STORE_TIME_MAX_MS (INT64_MAX / 1000000) /* |times|: in ns they fit an int64 (2262) */
#define PW_STORE_STRING_MAX 64u                    /* a name, label or unit */

enum pw_store_tier {
	PW_STORE_TIER_SAMPLES = 1, /* every sample */
	PW_STORE_TIER_MINUTES = 2, /* per minute: mean, min, max (struct pw_history_point .flags) */
};

enum pw_store_frame_type {
	PW_STORE_BLOCK = 1,
	PW_STORE_ROW_DICT = 2,
	PW_STORE_ROW = 3,
};

struct pw_store_header {
	uint32_t version;
	uint32_t tier;
	int64_t interval_ns;
};

void pw_store_header_encode(const struct pw_store_header *hdr, void *buf);

/* Returns 0; -EINVAL when len is short of a header; -EPROTO when it is not a store file (magic,
 * checksum) or of a newer format version (ret->version set then). */
int pw_store_header_decode(const void *buf, size_t len, struct pw_store_header *ret);

/* A growable byte buffer. */
struct pw_store_buf {
	unsigned char *data;
	size_t len, cap;
	bool failed; /* an allocation failed: contents incomplete */
};
void pw_store_buf_done(struct pw_store_buf *b);

/* The series of a frame. */
struct pw_store_dict {
	uint32_t n, cap;
	struct pw_history_series *series;
	int *known; /* decoded: 1 when this build knows the series, else its values are skipped */
	double *quantum;
};
void pw_store_dict_done(struct pw_store_dict *d);

/* Every series the n points (point_size bytes apart) have a value or a slot for: host signals,
 * each softirq type, each CPU below the largest ncpu, each line any point kept. Returns 0 or -ENOMEM. */
int pw_store_dict_build(struct pw_store_dict *d, const void *points, size_t point_size, uint32_t n);

bool pw_store_dict_equal(const struct pw_store_dict *a, const struct pw_store_dict *b);

/* Append one frame of type holding the n points (1 for rows) with dict to out. ROW frames omit the
 * dictionary (the reader takes the previous frame's). Returns 0, -ENOMEM, -EINVAL (n out of range). */
int pw_store_encode(enum pw_store_frame_type type, const struct pw_store_dict *dict, const void *points,
                    size_t point_size, uint32_t n, struct pw_store_buf *out);

/* ---- reading ---- */

/* The frame at buf[0..len): its total length (> 0) and type, 0 when len is short of the whole
 * frame, -EBADMSG when the frame's header is corrupt (the walk cannot go on past it). */
ssize_t pw_store_frame_length(const void *buf, size_t len, uint32_t *ret_type);

struct pw_store_decoder;

struct pw_store_decoder *pw_store_decoder_new(void);
void pw_store_decoder_free(struct pw_store_decoder *dec);

/* Forget the dictionary (a new file). */
void pw_store_decoder_reset(struct pw_store_decoder *dec);

/* Decode the whole frame at buf[0..len) (pw_store_frame_length() > 0) into points (cap of them,
 * point_size >= pw_history_point_size(cpu_cap) bytes apart). Returns the points decoded, or -EBADMSG when
 * the payload is corrupt (checksum, zlib, a count or time out of bounds, a ROW with no dictionary
 * before it), -ENOBUFS when it holds more than cap points, -ENOMEM. Points are untouched past the
 * count returned; on failure their contents are unspecified. */
int pw_store_decode(struct pw_store_decoder *dec, const void *buf, size_t len, void *points,
                    size_t point_size, uint32_t cpu_cap, uint32_t cap);

struct pw_history_columns;

/* Decode the frame at buf[0..len) into cols: its points with since_ns < time <= until_ns and newer
 * than cols' newest (a point found twice is taken once), each series into its column at this
 * build's quantum. Returns the points taken, -EBADMSG (as pw_store_decode; cols then as before the
 * frame), -ERANGE (a value beyond the columns' 32 bits, or too many lines: read the window as
 * points), -E2BIG (past the columns' bounds), -ENOMEM. */
int pw_store_decode_columns(struct pw_store_decoder *dec, const void *buf, size_t len,
                            struct pw_history_columns *cols, int64_t since_ns, int64_t until_ns);

#endif
