/* fuzz_replay_samples.c — libFuzzer harness: samples that pass the recording's checksums but hold
 * any bytes, through the decoder's validation, the detector and the alert JSON. fuzz_replay mutates
 * whole files, so almost every input stops at a CRC or in zlib; here the input is a list of patches
 * to real samples (a fixture recording's, decoded once), which are then encoded as a recording,
 * decoded (pw_rec_decode judges every field), and the valid ones fed to the detector, as --replay
 * does. A sample the decoder accepts must decode to the bytes that were encoded.
 *
 * Input: byte 0 picks where in the recording the run of samples starts; then patches of
 * {u8 sample, u16 offset (little-endian), u8 length (<= 16), length bytes}. PW_FUZZ_RECORDING
 * names another recording (default: the swapping incident of tests/fixtures/recordings). */
#include "alerts_json.h"
#include "detector.h"
#include "rec_schema.h"
#include "recording.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A run of 4 samples: a keyframe and three deltas, room for a rule set to fire after 1 s to go
 * pending and fire. 8 halved the rate (deflate and inflate of every sample dominate). */
enum { BASE_MAX = 512, RUN = 4 };

static struct pw_rec_header hdr; /* this build's, at the recording's capacities */
static struct pw_sample *base[BASE_MAX];
static size_t nbase;

static void load(void)
{
	const char *path = getenv("PW_FUZZ_RECORDING");
	FILE *f = fopen(path ? path : PW_FUZZ_DEFAULT_RECORDING, "rb");
	static unsigned char file[1 << 22];
	size_t len = f ? fread(file, 1, sizeof(file), f) : 0;
	char why[256];
	uint32_t flags;
	ssize_t r;
	struct pw_rec_header have;
	struct pw_rec_decoder *dec = NULL;

	if (f)
		fclose(f);
	if (pw_rec_header_decode(file, len, &have) < 0 || pw_rec_header_check(&have, why, sizeof(why)) < 0 ||
	    len < pw_rec_data_offset(&have) ||
	    pw_rec_decoder_new(&have, file + PW_REC_HEADER_SIZE, have.schema_size, &dec, why, sizeof(why)) <
	            0) {
		fprintf(stderr, "fuzz_replay_samples: cannot read %s\n",
		        path ? path : PW_FUZZ_DEFAULT_RECORDING);
		abort();
	}
	/* Its samples decode to this build's layout, which the runs re-encode. */
	pw_rec_header_init(&hdr, have.cpu_cap, have.line_cap, have.with_matrix, have.user_hz, have.page_size,
	                   have.interval_ns);
	size_t off = pw_rec_data_offset(&have);
	while (nbase < BASE_MAX && (base[nbase] = malloc(hdr.sample_size)) &&
	       (r = pw_rec_decode(dec, file + off, len - off, base[nbase], &flags)) > 0) {
		off += (size_t)r;
		nbase++;
	}
	pw_rec_decoder_free(dec);
	if (nbase < RUN)
		abort();
}

static void judge(struct pw_detector *det, const struct pw_sample *s)
{
	struct pw_alert_event events[2 * PW_ALERT_COUNT];
	size_t n = pw_detector_observe(det, s, events, 2 * PW_ALERT_COUNT);

	for (size_t i = 0; i < n && i < 2 * PW_ALERT_COUNT; i++) {
		json_t *obj = pw_alert_event_json(&events[i]);
		free(obj ? json_dumps(obj, JSON_COMPACT) : NULL);
		json_decref(obj);
	}
}

/* Apply the input's patches to the run of samples. */
static void patch(struct pw_sample **run, const uint8_t *p, size_t len)
{
	while (len >= 4) {
		size_t which = p[0] % RUN, at = (size_t)(p[1] | p[2] << 8) % hdr.sample_size, n = p[3] % 17;
		p += 4;
		len -= 4;
		if (n > len)
			n = len;
		if (n > hdr.sample_size - at)
			n = hdr.sample_size - at;
		memcpy((unsigned char *)run[which] + at, p, n);
		p += n;
		len -= n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pw_sample *run[RUN], *out;
	static struct pw_detector_view view;
	static struct pw_rec_encoder *enc;
	static struct pw_rec_decoder *dec;
	struct pw_detector_config cfg;

	if (!nbase) {
		load();
		for (int i = 0; i < RUN; i++)
			run[i] = malloc(hdr.sample_size);
		out = malloc(hdr.sample_size);
		/* zlib's state is costly to set up: one encoder and decoder, each input a new segment. */
		enc = pw_rec_encoder_new(&hdr);
		unsigned char *schema = malloc(hdr.schema_size);
		char why[256];
		if (schema)
			pw_rec_schema_encode(schema);
		if (!schema || pw_rec_decoder_new(&hdr, schema, hdr.schema_size, &dec, why, sizeof(why)) < 0)
			abort();
		free(schema);
	}
	if (size < 1)
		return 0;
	size_t start = data[0] * (nbase - RUN + 1) / 256;
	for (int i = 0; i < RUN; i++)
		memcpy(run[i], base[start + (size_t)i], hdr.sample_size);
	patch(run, data + 1, size - 1);

	pw_detector_config_defaults(&cfg, INT64_C(1000000000), hdr.interval_ns > 0 ? hdr.interval_ns : 1);
	cfg.warmup_ns = 0;
	pw_rec_encoder_resync(enc, true);
	struct pw_detector *det = pw_detector_new(&cfg, hdr.cpu_cap, hdr.line_cap);
	for (int i = 0; enc && dec && det && i < RUN; i++) {
		const void *rec;
		size_t rec_len;
		uint32_t flags;
		if (pw_rec_encode(enc, run[i], &rec, &rec_len) < 0)
			continue; /* a patched layout: the encoder refuses it */
		ssize_t r = pw_rec_decode(dec, rec, rec_len, out, &flags);
		if (r < 0)
			break; /* invalid: --replay stops at it */
		if ((size_t)r != rec_len || memcmp(out, run[i], hdr.sample_size) != 0)
			abort(); /* accepted, but not the sample that was encoded */
		judge(det, out);
	}
	if (det) {
		pw_detector_snapshot(det, &view);
		free(pw_alerts_render(&view));
	}
	pw_detector_free(det);
	return 0;
}
