/* replay.c — read a recording record by record and feed the detector, printing what it says. */
#include "replay.h"

#include "alerts_json.h"
#include "clock.h"
#include "history_store.h"
#include "json_util.h"
#include "rec_convert.h"
#include "recording.h"
#include "state_file.h"
#include "transitions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EVENTS_CAP (2 * PW_ALERT_COUNT)
/* The read buffer's first size; it grows to the largest record of the file (a few KB in practice,
 * at most a compressed sample of PW_REC_SAMPLE_MAX bytes). */
#define READ_CHUNK 65536

/* The file, read in chunks: a record is decoded from the buffer once it is whole there. */
struct reader {
	FILE *file;
	unsigned char *buf;
	size_t cap, start, end; /* unread bytes are buf[start..end) */
	long long base;         /* file offset of buf[0] */
	bool eof;
};

struct replay {
	const struct pw_options *opts;
	struct pw_rec_header hdr;
	struct pw_detector_config config;
	struct pw_detector *detector;
	struct pw_rec_decoder *decoder;
	struct pw_sample *sample;
	struct pw_alert_event events[EVENTS_CAP];
	struct pw_history_store *store; /* --to-store */
	struct pw_rec_convert *convert; /* --to-recording */
	struct pw_history_point *point;
	struct pw_history_reducer reducer;
	unsigned long long samples, transitions, segments;
	int64_t recorded_ns; /* sum of the samples' intervals: recorded time, gaps between runs left out */
};

int pw_replay_fail(const struct pw_options *opts, int status, const char *what)
{
	fprintf(stderr, "perfwatchd: replay %s: %s\n", opts->replay, what);
	return status;
}

static int fail(const struct replay *rp, int status, const char *what)
{
	return pw_replay_fail(rp->opts, status, what);
}

/* Read the schema block after the header and make the decoder, which judges it. Returns 0 or the
 * exit status. */
static int read_schema(struct replay *rp, struct reader *rd)
{
	unsigned char *schema = malloc(rp->hdr.schema_size ? rp->hdr.schema_size : 1);
	char why[512];
	int r;

	if (!schema)
		return fail(rp, 1, "out of memory");
	size_t got = fread(schema, 1, rp->hdr.schema_size, rd->file);
	if (got < rp->hdr.schema_size) {
		snprintf(why, sizeof(why), "ends in its schema block (%zu of %u bytes)", got,
		         rp->hdr.schema_size);
		r = -EPROTO;
	} else {
		r = pw_rec_decoder_new(&rp->hdr, schema, got, &rp->decoder, why, sizeof(why));
	}
	free(schema);
	if (r == -ENOMEM)
		return fail(rp, 1, "out of memory");
	if (r < 0)
		return fail(rp, 2, why);
	rd->base = (long long)pw_rec_data_offset(&rp->hdr);
	return 0;
}

/* Read and judge the header and the schema block. Returns 0 or the exit status. */
static int read_header(struct replay *rp, struct reader *rd)
{
	unsigned char head[PW_REC_HEADER_SIZE];
	char why[512];
	size_t got = fread(head, 1, sizeof(head), rd->file);
	int r;

	rp->hdr.version = 0;
	r = pw_rec_header_decode(head, got, &rp->hdr);
	if (r == -EPROTO && rp->hdr.version)
		snprintf(why, sizeof(why), "recording format version %u; this build reads versions %d and %d",
		         rp->hdr.version, PW_REC_VERSION_RAW, PW_REC_VERSION);
	else if (r == -EPROTO)
		snprintf(why, sizeof(why), "not a perfwatch recording");
	else if (r < 0 && got < sizeof(head))
		snprintf(why, sizeof(why), "%zu bytes, too short for a recording header", got);
	else if (r < 0)
		snprintf(why, sizeof(why), "corrupt header (checksum)");
	else
		r = pw_rec_header_check(&rp->hdr, why, sizeof(why));
	if (r < 0)
		return fail(rp, 2, why);
	return read_schema(rp, rd);
}

void pw_replay_configure(const struct pw_options *opts, int64_t interval_ns, struct pw_detector_config *ret)
{
	*ret = opts->detector;
	if (interval_ns <= 0 || interval_ns > INT64_MAX / 3)
		return;
	for (int i = 0; i < PW_ALERT_COUNT; i++)
		if (!(opts->rule_resolve_set >> i & 1u))
			ret->rules[i].resolve_ns = 3 * interval_ns;
}

int pw_replay_print_event(const struct pw_options *opts, const struct pw_alert_event *ev)
{
	const struct pw_alert *a = &ev->alert;

	if (opts->replay_json) {
		json_t *obj = pw_alert_event_json(ev);
		char *text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
		json_decref(obj);
		if (!text)
			return -ENOMEM;
		puts(text);
		free(text);
		return 0;
	}
	json_t *when = pw_json_rfc3339(ev->real_ns);
	if (!when)
		return -ENOMEM;
	/* The daemon's log line, prefixed by the sample's time. */
	printf("%s alert %s %s -> %s (%s): %s\n", json_is_string(when) ? json_string_value(when) : "-",
	       pw_alert_name_str(a->name), pw_alert_state_str(ev->from),
	       ev->resolved ? "resolved" : pw_alert_state_str(a->state), pw_severity_str(a->severity),
	       a->summary);
	json_decref(when);
	return 0;
}

/* --to-store: the sample's history point and the alert transitions, as the daemon keeps them. */
static void keep(struct replay *rp, size_t nevents)
{
	struct pw_history_transition t[EVENTS_CAP];

	pw_history_point_from(rp->sample, &rp->reducer, rp->point);
	pw_history_store_append(rp->store, rp->point, pw_mono_ns());
	for (size_t i = 0; i < nevents; i++)
		pw_transition_compact(&rp->events[i], &t[i]);
	if (nevents)
		pw_history_store_transitions(rp->store, t, nevents, pw_mono_ns());
}

/* --to-store DIR: the store under state dir DIR (made 0700 when missing), for the recording's
 * layout and interval, within --retention-time and --retention-size of its newest sample. */
static int open_store(struct replay *rp)
{
	char dir[PW_OPT_TEXT_MAX + 16], why[PW_OPT_TEXT_MAX + 512];
	const char *state_dir = rp->opts->replay_to_store;

	if (mkdir(state_dir, 0700) < 0 && errno != EEXIST) {
		snprintf(why, sizeof(why), "--to-store %s: %s", state_dir, strerror(errno));
		return fail(rp, 2, why);
	}
	if (pw_state_check_dir(state_dir, why, sizeof(why)) < 0)
		return fail(rp, 2, why);
	pw_history_store_dir(state_dir, dir, sizeof(dir));
	struct pw_history_store_config sc = {
	        .dir = dir,
	        .interval_ns = rp->hdr.interval_ns > 0 ? rp->hdr.interval_ns : 1000000000,
	        .cpu_cap = rp->hdr.cpu_cap,
	        .retention_ns = rp->opts->retention_ns,
	        .retention_size = rp->opts->retention_size,
	};
	if (!(rp->store = pw_history_store_new(&sc)) ||
	    !(rp->point = calloc(1, pw_history_point_size(rp->hdr.cpu_cap))))
		return fail(rp, 1, "out of memory");
	return 0;
}

/* One decoded sample: a new daemon run starts a new detector, as the daemon did. */
static int judge(struct replay *rp, uint32_t flags)
{
	if ((flags & PW_REC_SEGMENT) || !rp->detector) {
		pw_detector_free(rp->detector);
		if (!(rp->detector = pw_detector_new(&rp->config, rp->hdr.cpu_cap, rp->hdr.line_cap)))
			return -ENOMEM;
		rp->segments++;
	}
	size_t n = pw_detector_observe(rp->detector, rp->sample, rp->events, EVENTS_CAP);
	for (size_t i = 0; i < n && i < EVENTS_CAP; i++)
		if (pw_replay_print_event(rp->opts, &rp->events[i]) < 0)
			return -ENOMEM;
	if (rp->store)
		keep(rp, n < EVENTS_CAP ? n : EVENTS_CAP);
	if (rp->convert) /* a write error sticks: reported when the file is closed */
		pw_rec_convert_add(rp->convert, rp->sample, flags);
	rp->transitions += n;
	rp->samples++;
	/* Each interval is bounded (PW_REC_TIME_MAX), their sum over a long file is not: saturate. */
	int64_t interval = rp->sample->interval_ns;
	rp->recorded_ns = rp->recorded_ns > INT64_MAX - interval ? INT64_MAX : rp->recorded_ns + interval;
	return 0;
}

/* More bytes behind the unread ones, in a buffer of at least want bytes (the record that starts
 * there, whole); sets eof at the end of the file. Returns 0 or -errno. */
static int refill(struct reader *rd, size_t want)
{
	memmove(rd->buf, rd->buf + rd->start, rd->end - rd->start);
	rd->base += (long long)rd->start;
	rd->end -= rd->start;
	rd->start = 0;
	if (want > rd->cap) {
		unsigned char *grown = realloc(rd->buf, want);
		if (!grown)
			return -ENOMEM;
		rd->buf = grown;
		rd->cap = want;
	}
	size_t got = fread(rd->buf + rd->end, 1, rd->cap - rd->end, rd->file);
	rd->end += got;
	if (got == 0 && ferror(rd->file))
		return -errno;
	rd->eof = got == 0;
	return 0;
}

/* Every record in order. Returns the exit status. */
static int play(struct replay *rp, struct reader *rd)
{
	char why[256];

	for (;;) {
		uint32_t flags;
		ssize_t r = pw_rec_decode(rp->decoder, rd->buf + rd->start, rd->end - rd->start, rp->sample,
		                          &flags);
		if (r > 0) {
			rd->start += (size_t)r;
			if (judge(rp, flags) < 0)
				return fail(rp, 1, "out of memory");
			continue;
		}
		if (r < 0) {
			snprintf(why, sizeof(why), "corrupt record at offset %lld: stopped there",
			         rd->base + (long long)rd->start);
			return fail(rp, 1, why);
		}
		if (rd->eof) {
			if (rd->end > rd->start) {
				snprintf(why, sizeof(why),
				         "ends in a record cut short at offset %lld (%zu bytes; the recorder "
				         "stopped mid-write): replayed up to there",
				         rd->base + (long long)rd->start, rd->end - rd->start);
				fail(rp, 0, why);
			}
			return 0;
		}
		/* The unread bytes are short of a record: room for all of it (its frame says how long,
		 * bounded by the header's sample size), so the read cannot come back empty but at the end. */
		ssize_t need = pw_rec_frame_length(&rp->hdr, rd->buf + rd->start, rd->end - rd->start);
		int err = refill(rd, need > READ_CHUNK ? (size_t)need : READ_CHUNK);
		if (err < 0) {
			snprintf(why, sizeof(why), "cannot read: %s", strerror(-err));
			return fail(rp, 1, why);
		}
	}
}

static int replay_file(struct replay *rp, struct reader *rd)
{
	int status = read_header(rp, rd);

	if (status)
		return status;
	pw_replay_configure(rp->opts, rp->hdr.interval_ns, &rp->config);
	if (rp->opts->replay_to_store[0] && (status = open_store(rp)))
		return status;
	char why[PW_OPT_TEXT_MAX + 256];
	if (rp->opts->replay_to_recording[0] &&
	    !(rp->convert = pw_rec_convert_open(rp->opts->replay_to_recording, &rp->hdr, why, sizeof(why))))
		return fail(rp, 2, why);
	rd->cap = READ_CHUNK;
	rd->buf = malloc(rd->cap);
	rp->sample = malloc(pw_rec_decoder_sample_size(rp->decoder));
	if (!rd->buf || !rp->sample)
		return fail(rp, 1, "out of memory");
	return play(rp, rd);
}

int pw_replay_run(const struct pw_options *opts)
{
	struct replay rp = {.opts = opts};
	struct reader rd = {0};
	int64_t started = pw_mono_ns();
	struct stat st;
	int status;

	if (stat(opts->replay, &st) == 0 && S_ISDIR(st.st_mode))
		return pw_replay_store_run(opts);
	if (opts->replay_since[0] || opts->replay_until[0])
		return fail(&rp, 2, "--since and --until are for a state dir's history, not a recording");
	if (!(rd.file = fopen(opts->replay, "rb"))) {
		char why[256];
		snprintf(why, sizeof(why), "cannot open: %s", strerror(errno));
		return fail(&rp, 2, why);
	}
	status = replay_file(&rp, &rd);
	if (fflush(stdout) != 0 && status == 0)
		status = fail(&rp, 1, "cannot write the output");
	if (status != 2)
		fprintf(stderr,
		        "perfwatchd: replayed %llu samples, %.1f s of recorded time in %llu run(s), in %.3f "
		        "s of "
		        "wall time; %llu alert transitions\n",
		        rp.samples, (double)rp.recorded_ns / 1e9, rp.segments,
		        (double)(pw_mono_ns() - started) / 1e9, rp.transitions);
	fclose(rd.file);
	char why[PW_OPT_TEXT_MAX + 256];
	if (pw_rec_convert_close(rp.convert, why, sizeof(why)) < 0) {
		int failed = fail(&rp, 1, why);
		status = status ? status : failed;
	}
	if (rp.store) {
		pw_history_store_close(rp.store);
		struct pw_file_stats fs;
		pw_history_store_stats(rp.store, &fs);
		if (fs.errors && status == 0)
			status = fail(&rp, 1, "could not write all of the history store (see above)");
	}
	pw_history_store_free(rp.store);
	free(rp.point);
	free(rd.buf);
	free(rp.sample);
	pw_rec_decoder_free(rp.decoder);
	pw_detector_free(rp.detector);
	return status;
}
