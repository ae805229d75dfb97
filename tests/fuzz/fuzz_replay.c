/* fuzz_replay.c — libFuzzer harness: the --replay path (daemon/replay.c) without the file: the
 * recording header and records (lib/recording.c), every valid sample through the detector
 * (lib/detector.c, lib/rules*.c, lib/deviations.c), each transition as the --replay --json line and
 * the active alerts as the /alerts document (exporters/alerts_json.c). The schema block after the
 * header (lib/rec_schema.c) is judged, and a foreign one translates every sample. The rules are set to fire
 * after a second with no warmup, so short inputs reach them. */
#include "alerts_json.h"
#include "detector.h"
#include "recording.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge(struct pw_detector *det, const struct pw_sample *s)
{
	struct pw_alert_event events[2 * PW_ALERT_COUNT];
	size_t n = pw_detector_observe(det, s, events, 2 * PW_ALERT_COUNT);

	for (size_t i = 0; i < n && i < 2 * PW_ALERT_COUNT; i++) {
		json_t *obj = pw_alert_event_json(&events[i]);
		char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
		free(text);
		json_decref(obj);
	}
}

static void render(const struct pw_detector *det)
{
	static struct pw_detector_view view;

	pw_detector_snapshot(det, &view);
	free(pw_alerts_render(&view));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pw_rec_header hdr;
	struct pw_detector_config cfg;
	char why[256];

	struct pw_rec_decoder *dec = NULL;

	/* The schema block is input too: pw_rec_decoder_new judges it. */
	if (pw_rec_header_decode(data, size, &hdr) < 0 || pw_rec_header_check(&hdr, why, sizeof(why)) < 0 ||
	    size < pw_rec_data_offset(&hdr) ||
	    pw_rec_decoder_new(&hdr, data + PW_REC_HEADER_SIZE, hdr.schema_size, &dec, why, sizeof(why)) < 0)
		return 0;
	pw_detector_config_defaults(&cfg, INT64_C(1000000000), hdr.interval_ns > 0 ? hdr.interval_ns : 1);
	cfg.warmup_ns = 0;
	struct pw_sample *sample = malloc(pw_rec_decoder_sample_size(dec));
	struct pw_detector *det = NULL;
	size_t off = pw_rec_data_offset(&hdr);
	uint32_t flags;
	ssize_t r;

	while (dec && sample && (r = pw_rec_decode(dec, data + off, size - off, sample, &flags)) > 0) {
		off += (size_t)r;
		if ((flags & PW_REC_SEGMENT) || !det) {
			pw_detector_free(det);
			if (!(det = pw_detector_new(&cfg, hdr.cpu_cap, hdr.line_cap)))
				break;
		}
		judge(det, sample);
	}
	if (det)
		render(det);
	pw_detector_free(det);
	pw_rec_decoder_free(dec);
	free(sample);
	return 0;
}
