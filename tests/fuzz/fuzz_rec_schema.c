/* fuzz_rec_schema.c — libFuzzer harness: a recording's schema block (lib/rec_schema.c) and the
 * samples it translates. fuzz_replay takes whole files, whose header and block CRCs stop almost every
 * mutation of the block; here both CRCs are made right before reading, so the mutations reach the
 * block's parser (bounds, names, kinds, sizes, struct sizes against the header) and, when it yields a
 * plan, the translation of the records that follow and the decoder's judgement of the result. The
 * detector is fuzz_replay's part. Seeds: tests/fixtures/recordings (this build's block) and
 * tests/fuzz/corpus/rec_schema (blocks of "another build"). */
#include "recording.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Records decoded per input: the plan's work is the same for each. */
#define RECORDS_MAX 4

static void seal(unsigned char *buf, size_t len)
{
	uint32_t sum = (uint32_t)crc32(crc32(0, Z_NULL, 0), buf, (uInt)(len - 4));
	memcpy(buf + len - 4, &sum, 4);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_rec_header hdr;
	struct pw_rec_decoder *dec = NULL;
	char why[256];
	unsigned char *buf;

	if (size < PW_REC_HEADER_SIZE || !(buf = malloc(size)))
		return 0;
	memcpy(buf, data, size);
	seal(buf, PW_REC_HEADER_SIZE);
	if (pw_rec_header_decode(buf, size, &hdr) < 0 || pw_rec_header_check(&hdr, why, sizeof(why)) < 0 ||
	    size < pw_rec_data_offset(&hdr)) {
		free(buf);
		return 0;
	}
	if (hdr.schema_size >= 4)
		seal(buf + PW_REC_HEADER_SIZE, hdr.schema_size);
	if (pw_rec_decoder_new(&hdr, buf + PW_REC_HEADER_SIZE, hdr.schema_size, &dec, why, sizeof(why)) ==
	    0) {
		struct pw_sample *s = malloc(pw_rec_decoder_sample_size(dec));
		size_t off = pw_rec_data_offset(&hdr);
		uint32_t flags;
		ssize_t r;
		for (int n = 0;
		     s && n < RECORDS_MAX && (r = pw_rec_decode(dec, buf + off, size - off, s, &flags)) > 0;
		     n++)
			off += (size_t)r;
		free(s);
		pw_rec_decoder_free(dec);
	}
	free(buf);
	return 0;
}
