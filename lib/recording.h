/* recording.h — the flight recorder's file format: every raw sample, compact, in order.
 *
 * A recording is a header, a schema block (the layout by field name, lib/rec_schema.h), then
 * records. A record is a 16-byte frame (payload length, flags, CRC-32
 * of the payload, CRC-32 of the frame's first 12 bytes) and a zlib-deflated payload: the sample's
 * bytes for a keyframe, else their XOR with the previous sample's (mostly zeros: counters move in
 * their low bytes, the rest repeats). A keyframe starts the file, every keyframe_every records, and
 * each segment (one daemon run appending to the file). Samples are the writer's raw bytes: the
 * header carries the byte order and struct sizes, the schema each field's name, kind, offset and
 * size, so a build of another layout reads them field by field (and one of the same layout, as
 * they are).
 *
 * Pure: the caller does the I/O. Encoder and decoder allocate their buffers when created, not per
 * record. docs/architecture.md ("The flight recorder") gives the reasons. */
#ifndef PW_RECORDING_H
#define PW_RECORDING_H

#include "sample.h"

#include <sys/types.h>

/* 3: a schema block follows the header (lib/rec_schema.h), so a build with another sample layout
 * reads the file by field name. 2: no schema, read only by a build of the same struct sizes. Bump
 * it when a field keeps its name and size but changes meaning, and translate or refuse the old. */
#define PW_REC_VERSION 3
#define PW_REC_VERSION_RAW 2
#define PW_REC_HEADER_SIZE 72
#define PW_REC_FRAME_SIZE 16
#define PW_REC_KEYFRAME_EVERY 60

/* What a reader accepts (pw_rec_header_check), so that a file cannot make it allocate more than a
 * host perfwatchd samples would, nor overflow the detector's time arithmetic. docs/architecture.md
 * ("The flight recorder") turns them into --replay's memory bound. */
#define PW_REC_CPU_MAX 8192u   /* the collector sizes for at most 8192 CPU ids */
#define PW_REC_LINE_MAX 65536u /* interrupt lines */
/* Bytes; binds with the per-CPU matrix (256 CPUs x 1532 lines: 3.4 MB). */
#define PW_REC_SAMPLE_MAX (32u << 20)
#define PW_REC_INTERVAL_MAX (INT64_C(86400) * 1000000000) /* a day; --interval allows an hour */
#define PW_REC_TIME_MAX (INT64_C(1) << 62) /* |sample times|: room to add intervals without overflow */
/* The schema block (this build's: about 4 KB, 170 rows). */
#define PW_REC_SCHEMA_MAX (64u << 10) /* bytes */
#define PW_REC_FIELDS_MAX 1024u       /* rows per struct */
#define PW_REC_STRUCT_MAX (64u << 10) /* sizeof of a struct (this build's pw_sample: about 3 KB) */
#define PW_REC_FIELD_NAME_MAX 64u

/* Record flags. */
enum {
	PW_REC_KEYFRAME = 1u << 0, /* the payload is the whole sample, not a delta */
	PW_REC_SEGMENT = 1u << 1,  /* first record of a daemon run: the detector starts afresh here */
};

struct pw_rec_header {
	uint32_t version;
	uint32_t sample_struct, cpu_struct, line_struct; /* sizeof: the layout fingerprint */
	uint32_t cpu_cap, line_cap;
	uint32_t sample_size; /* the block of the file's layout: every record inflates to this many bytes */
	bool with_matrix;
	uint32_t user_hz, page_size;
	uint32_t keyframe_every;
	int64_t interval_ns;  /* the sampling interval of the run that created the file */
	uint32_t schema_size; /* bytes of the schema block right after the header; 0 in version 2 */
};

/* This build's header for samples of these capacities. */
void pw_rec_header_init(struct pw_rec_header *hdr, uint32_t cpu_cap, uint32_t line_cap, bool with_matrix,
                        uint32_t user_hz, uint32_t page_size, int64_t interval_ns);

/* The PW_REC_HEADER_SIZE bytes of hdr, into buf. */
void pw_rec_header_encode(const struct pw_rec_header *hdr, void *buf);

/* Parse the header at the start of buf. Returns 0; -EINVAL when len is short of a header or its
 * checksum fails; -EPROTO when it is not a recording (magic) or another format version (ret->version
 * is then set). Does not judge the layout: see pw_rec_header_check. ret untouched on other failures. */
int pw_rec_header_decode(const void *buf, size_t len, struct pw_rec_header *ret);

/* Can this build read samples described by hdr? Returns 0, or -EPROTO with the reason in why
 * (another byte order; version 2 of other struct sizes: the samples would be misread; capacities,
 * struct, sample or schema sizes, or the interval beyond the PW_REC_*_MAX limits). The schema block
 * is judged by pw_rec_decoder_new. */
int pw_rec_header_check(const struct pw_rec_header *hdr, char *why, size_t why_size);

/* May samples described by want be appended to a file with header have? Returns 0, or -EPROTO with
 * the reason in why (version, struct or schema sizes, capacities, matrix, user_hz or page size
 * differ). A version-2 file of want's struct sizes may be (it has no schema block, and stays
 * version 2). The caller compares the schema blocks' bytes of a version-3 file. */
int pw_rec_header_same(const struct pw_rec_header *have, const struct pw_rec_header *want, char *why,
                       size_t why_size);

/* ---- writing ---- */

struct pw_rec_encoder;

/* An encoder for samples described by hdr (checked with pw_rec_header_check by the caller). Its
 * first record is a keyframe flagged PW_REC_SEGMENT. NULL on allocation failure. */
struct pw_rec_encoder *pw_rec_encoder_new(const struct pw_rec_header *hdr);
void pw_rec_encoder_free(struct pw_rec_encoder *enc);

/* Encode the next sample (hdr's layout: s->size == sample_size). On success *ret_buf points at the
 * record (frame and payload, valid until the next call) and *ret_len is its size. Returns 0, -EINVAL
 * for a sample of another layout, -ENOMEM if zlib fails. */
int pw_rec_encode(struct pw_rec_encoder *enc, const struct pw_sample *s, const void **ret_buf,
                  size_t *ret_len);

/* The last record did not reach the file: make the next one a keyframe (flagged PW_REC_SEGMENT too
 * when segment is true, i.e. nothing of this run was written yet). */
void pw_rec_encoder_resync(struct pw_rec_encoder *enc, bool segment);

/* The flags of the record whose PW_REC_FRAME_SIZE-byte frame starts at frame (a record
 * pw_rec_encode made). */
uint32_t pw_rec_frame_flags(const void *frame);

/* Replace those flags and the frame's checksum with them; the payload is untouched. A writer that
 * takes records encoded elsewhere decides itself which one starts its segment (PW_REC_SEGMENT). */
void pw_rec_frame_set_flags(void *frame, uint32_t flags);

/* ---- reading ---- */

struct pw_rec_decoder;

/* The offset of the first record: after the header and its schema block. */
size_t pw_rec_data_offset(const struct pw_rec_header *hdr);

/* A decoder into *ret for a recording with header hdr (checked with pw_rec_header_check by the
 * caller) and the hdr->schema_size bytes at schema that follow it (ignored in version 2). Returns
 * 0; -EPROTO with the reason in why when the schema is malformed or this build cannot carry a
 * field over (pw_rec_plan_new); -ENOMEM. */
int pw_rec_decoder_new(const struct pw_rec_header *hdr, const void *schema, size_t schema_len,
                       struct pw_rec_decoder **ret, char *why, size_t why_size);
void pw_rec_decoder_free(struct pw_rec_decoder *dec);

/* Bytes of the samples pw_rec_decode gives: this build's layout at the file's capacities. */
size_t pw_rec_decoder_sample_size(const struct pw_rec_decoder *dec);

/* Decode the record at the start of buf[0..len) into ret (pw_rec_decoder_sample_size bytes, this
 * build's layout whatever the file's) and its flags into
 * *ret_flags. Returns the bytes it took (> 0); 0 when buf holds only the start of a record (read
 * more, or at the end of the file: cut short); -EBADMSG when the record is corrupt (checksum, length,
 * zlib stream, a sample contradicting the header or invalid in itself — a string without its NUL, a
 * bool other than 0/1, a count beyond its array, a time out of bounds — or a delta with no keyframe
 * before it). ret is untouched unless it returns > 0, and then safe for the detector and exporters. */
ssize_t pw_rec_decode(struct pw_rec_decoder *dec, const void *buf, size_t len, struct pw_sample *ret,
                      uint32_t *ret_flags);

/* The length of the record whose frame starts buf[0..len) (frame included): > 0, 0 when len is short
 * of a frame, -EBADMSG when the frame is corrupt. Walks a file without decoding it. */
ssize_t pw_rec_frame_length(const struct pw_rec_header *hdr, const void *buf, size_t len);

#endif
