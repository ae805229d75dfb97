/* http_history.c — GET /history and GET /ui. The window is copied out of the history ring once per
 * request (pw_history_copy_window: seqlock reads, the sampler never waits), rendered by
 * exporters/history_json, and the copy freed: nothing is held while nobody looks. */
#define _GNU_SOURCE /* strcasestr */
#include "http_history.h"
#include "http_respond.h"

#include "clock.h"
#include "gzip.h"
#include "history.h"
#include "history_json.h"
#include "history_query.h"
#include "history_store.h"
#include "history_tier.h"
#include "history_transitions.h"
#include "outbuf.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ARGS 16
#define TRANSITIONS_CAP 256
#define DISK_TRANSITIONS_CAP 2048 /* from the store's file: the newest in the window */
#define GZIP_MIN_BYTES (64 * 1024)
/* Bodies above this (main.c's mmap threshold: their buffers are mappings of their own) are handed
 * to libmicrohttpd, freed once sent, and the heap trimmed: the whole hour is asked for rarely (a
 * page's first load), the live updates are small, so keeping the capacity would only keep RSS. */
#define BIG_BODY_BYTES (256 * 1024)
/* Points read from the store for one answer: 48 MiB of them (two days of a 2-CPU host at 1 s, a
 * day of a 16-CPU one). Longer windows wait for the per-minute tier. */
#define DISK_POINTS_BYTES (48u << 20)
/* A window longer than this without a step of its own is served per minute (from the minutes
 * tier): six hours at 1 s would be 21 600 points a series. */
#define LONG_WINDOW_NS (6 * 3600 * INT64_C(1000000000))

extern const unsigned char pw_ui_page[];
extern const size_t pw_ui_page_len;

struct pw_http_history {
	const struct pw_sampler *sampler;
	const struct pw_detector_thread *detector_thread;
	const struct pw_transitions *log;
	int64_t interval_ns, history_ns;
	char *store_dir; /* history on disk, or NULL */
	struct pw_outbuf body, gz;
	struct pw_detector_view view;
	struct pw_sample *sample; /* scratch: the newest sample, for line names */
	struct pw_history_transition transitions[DISK_TRANSITIONS_CAP + TRANSITIONS_CAP + PW_ALERT_COUNT * 2];
};

struct pw_http_history *pw_http_history_new(const struct pw_sampler *sampler,
                                            const struct pw_detector_thread *detector_thread,
                                            int64_t interval_ns, int64_t history_ns)
{
	struct pw_http_history *hh = calloc(1, sizeof(*hh));

	if (!hh)
		return NULL;
	hh->sampler = sampler;
	hh->detector_thread = detector_thread;
	hh->interval_ns = interval_ns;
	hh->history_ns = history_ns;
	pw_outbuf_init(&hh->body);
	pw_outbuf_init(&hh->gz);
	if (!(hh->sample = malloc(pw_ring_payload_size(pw_sampler_latest(sampler))))) {
		free(hh);
		return NULL;
	}
	return hh;
}

void pw_http_history_free(struct pw_http_history *hh)
{
	if (!hh)
		return;
	pw_outbuf_done(&hh->body);
	pw_outbuf_done(&hh->gz);
	free(hh->store_dir);
	free(hh->sample);
	free(hh);
}

int pw_http_history_set_store(struct pw_http_history *hh, const char *dir)
{
	free(hh->store_dir);
	hh->store_dir = dir ? strdup(dir) : NULL;
	return !dir || hh->store_dir ? 0 : -ENOMEM;
}

void pw_http_history_set_transitions(struct pw_http_history *hh, const struct pw_transitions *log)
{
	hh->log = log;
}

static enum MHD_Result respond_error(struct MHD_Connection *conn, unsigned status, const char *what)
{
	char text[640];
	int n = snprintf(text, sizeof(text), "%s\n", what);
	return pw_http_respond(conn, status, "text/plain; charset=utf-8", text,
	                       (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1, NULL);
}

struct args {
	struct pw_history_arg a[MAX_ARGS];
	size_t n;
	bool overflow;
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *args = cls;
	(void)kind;
	if (args->n == MAX_ARGS) {
		args->overflow = true;
		return MHD_NO;
	}
	args->a[args->n++] = (struct pw_history_arg){key, value};
	return MHD_YES;
}

/* The alerts the log has not seen (it is not wired, or they began before it): the active ones,
 * from the detector's view, as the transitions that made them pending and firing. */
static size_t active_transitions(const struct pw_detector_view *v, struct pw_history_transition *log,
                                 size_t n, struct pw_history_transition *ret)
{
	size_t k = 0;
	for (uint32_t i = 0; i < v->nalerts; i++) {
		const struct pw_alert *a = &v->alerts[i];
		struct pw_history_transition t = {.alert = (uint8_t)a->name,
		                                  .severity = (uint8_t)a->severity,
		                                  .value = a->value,
		                                  .baseline = a->baseline};
		snprintf(t.scope, sizeof(t.scope), "%s", a->scope);
		bool known = false;
		for (size_t j = 0; j < n; j++)
			known |= log[j].alert == t.alert &&
			         log[j].real_ns / 1000000 == a->started_real_ns / 1000000;
		if (known)
			continue;
		t.real_ns = a->started_real_ns;
		t.from = PW_ALERT_INACTIVE;
		t.to = PW_ALERT_PENDING;
		ret[k++] = t;
		if (a->state == PW_ALERT_FIRING && a->fired_real_ns) {
			t.real_ns = a->fired_real_ns;
			t.from = PW_ALERT_PENDING;
			t.to = PW_ALERT_FIRING;
			ret[k++] = t;
		}
	}
	return k;
}

/* Is t (from the in-memory log) among the n from the store? They keep milliseconds. */
static bool on_disk(const struct pw_history_transition *t, const struct pw_history_transition *disk, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (disk[i].alert == t->alert && disk[i].to == t->to &&
		    disk[i].real_ns / 1000000 == t->real_ns / 1000000)
			return true;
	return false;
}

/* Baselines and transitions into w (the store's in the window, then the in-memory log's it does
 * not have yet); true when the newest sample was copied into hh->sample. */
static bool window_context(struct pw_http_history *hh, const struct pw_history_query *q,
                           struct pw_history_window *w)
{
	if (!pw_detector_thread_view(hh->detector_thread, &hh->view))
		memset(&hh->view, 0, sizeof(hh->view));
	w->baselines = hh->view.baselines;
	w->warm = hh->view.warm;
	size_t ndisk = hh->store_dir ? pw_history_transitions_read(hh->store_dir, q->since_ns, q->until_ns,
	                                                           hh->transitions, DISK_TRANSITIONS_CAP)
	                             : 0;
	size_t nlog = pw_transitions_copy(hh->log, hh->transitions + ndisk, TRANSITIONS_CAP), n = ndisk;
	for (size_t i = 0; i < nlog; i++)
		if (!on_disk(&hh->transitions[ndisk + i], hh->transitions, ndisk))
			hh->transitions[n++] = hh->transitions[ndisk + i];
	n += active_transitions(&hh->view, hh->transitions, n, hh->transitions + n);
	w->transitions = hh->transitions;
	w->ntransitions = n;
	return pw_ring_read_latest(pw_sampler_latest(hh->sampler), hh->sample) != 0;
}

/* The newest sample's interrupt lines as plain pw_irq_line records, for device names. */
static struct pw_irq_line *line_names(struct pw_http_history *hh, uint32_t *ret_n)
{
	const struct pw_line_sample *ls = pw_sample_lines_const(hh->sample);
	uint32_t n = hh->sample->nlines;
	struct pw_irq_line *lines = n ? malloc(n * sizeof(*lines)) : NULL;

	for (uint32_t i = 0; lines && i < n; i++)
		lines[i] = ls[i].line;
	*ret_n = lines ? n : 0;
	return lines;
}

/* libmicrohttpd is done with a big body: free it and hand the heap's free pages back to the kernel
 * (the window copy and the body are megabytes at 16 CPUs and tens at 256; what they left in the
 * arenas would otherwise stay resident for the life of the process). */
static void free_and_trim(void *body)
{
	free(body);
	malloc_trim(0);
}

/* Queue out's bytes; a big buffer is handed over (no copy) and out left empty. */
static enum MHD_Result respond_buf(struct MHD_Connection *conn, const char *type, struct pw_outbuf *out,
                                   const char *encoding, bool big)
{
	if (!big)
		return pw_http_respond(conn, MHD_HTTP_OK, type, out->data, out->len, encoding);
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer_with_free_callback(out->len, out->data, free_and_trim);
	if (!resp)
		return MHD_NO;
	pw_outbuf_init(out); /* the response owns the bytes now */
	return pw_http_queue(conn, MHD_HTTP_OK, resp, type, encoding);
}

static enum MHD_Result send_body(struct pw_http_history *hh, struct MHD_Connection *conn, const char *type)
{
	const char *ae = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);
	/* An hour is megabytes: do not keep them while nobody looks. */
	bool big = hh->body.cap > BIG_BODY_BYTES;
	enum MHD_Result r;

	if (hh->body.len >= GZIP_MIN_BYTES && pw_gzip_accepted(ae) &&
	    pw_gzip_compress(hh->body.data, hh->body.len, &hh->gz) == 0) {
		if (big)
			pw_outbuf_done(&hh->body);
		r = respond_buf(conn, type, &hh->gz, "gzip", big);
	} else {
		if (big)
			pw_outbuf_done(&hh->gz);
		r = respond_buf(conn, type, &hh->body, NULL, big);
	}
	if (big) { /* whatever respond_buf did not hand over (it failed) */
		pw_outbuf_done(&hh->body);
		pw_outbuf_done(&hh->gz);
	}
	return r;
}

/* Points gathered for a window: samples, or per-minute means with their mins, maxs and counts. */
struct gathered {
	char *points, *mins, *maxs; /* mins, maxs: NULL for samples alone */
	uint32_t *counts;
	uint32_t n, cap;
	size_t point_size;
};

static void gathered_free(struct gathered *g)
{
	free(g->points);
	free(g->mins);
	free(g->maxs);
	free(g->counts);
}

/* Room for n more points (and their min, max, count when per minute). */
static int gathered_reserve(struct gathered *g, uint32_t n, bool agg)
{
	if (g->n + n <= g->cap)
		return 0;
	uint32_t cap = g->n + n;
	char **arrays[] = {&g->points, &g->mins, &g->maxs};
	for (int k = 0; k < (agg ? 3 : 1); k++) {
		char *a = realloc(*arrays[k], (size_t)cap * g->point_size);
		if (!a)
			return -ENOMEM;
		*arrays[k] = a;
	}
	uint32_t *c = agg ? realloc(g->counts, (size_t)cap * sizeof(*c)) : NULL;
	if (agg && !c)
		return -ENOMEM;
	if (agg)
		g->counts = c;
	g->cap = cap;
	return 0;
}

/* Append n samples (a sample is its own mean, min and max, of one). */
static int gathered_samples(struct gathered *g, const char *pts, uint32_t n)
{
	bool agg = g->mins != NULL;
	if (gathered_reserve(g, n, agg) < 0)
		return -ENOMEM;
	memcpy(g->points + (size_t)g->n * g->point_size, pts, (size_t)n * g->point_size);
	if (agg) {
		memcpy(g->mins + (size_t)g->n * g->point_size, pts, (size_t)n * g->point_size);
		memcpy(g->maxs + (size_t)g->n * g->point_size, pts, (size_t)n * g->point_size);
		for (uint32_t i = 0; i < n; i++)
			g->counts[g->n + i] = 1;
	}
	g->n += n;
	return 0;
}

/* The samples with since < time <= until: the store's for what the ring no longer holds, then the
 * ring's. Returns 0, -E2BIG (too many on disk), -ENOMEM. */
static int gather_samples(struct pw_http_history *hh, int64_t since_ns, int64_t until_ns, struct gathered *g)
{
	const struct pw_ring *ring = pw_sampler_history(hh->sampler);
	/* Room for the window's points: its span in intervals plus slack for jitter, at most the ring. */
	/* Unsigned: the window may span nearly all of int64. */
	uint64_t want = ((uint64_t)until_ns - (uint64_t)since_ns) / (uint64_t)hh->interval_ns;
	want += want / 64 + 8; /* no wrap: want is at most 2^64 / 10^7 */
	uint32_t cap = want < pw_ring_capacity(ring) ? (uint32_t)want : pw_ring_capacity(ring);
	char *points = malloc((size_t)cap * g->point_size);
	int r = 0;

	if (!points)
		return -ENOMEM;
	uint32_t n = pw_history_copy_window(ring, since_ns, until_ns, points, cap);
	/* What the ring no longer holds comes from the store: the window up to the ring's oldest (in
	 * the store's milliseconds, so the ring's oldest point is not read twice). */
	int64_t ring_from = until_ns;
	if (n) {
		int64_t oldest = ((const struct pw_history_point *)(const void *)points)->real_ns;
		ring_from = (oldest - ((oldest % 1000000) + 1000000) % 1000000) - 1;
	}
	if (hh->store_dir && since_ns < ring_from) {
		void *disk = NULL;
		int got = pw_history_tier_read(hh->store_dir, PW_HISTORY_SAMPLES,
		                               pw_sampler_cpu_cap(hh->sampler), g->point_size, since_ns,
		                               ring_from, DISK_POINTS_BYTES / g->point_size, &disk);
		r = got < 0 ? got : gathered_samples(g, disk, (uint32_t)got);
		free(disk);
	}
	if (r == 0)
		r = gathered_samples(g, points, n);
	free(points);
	return r;
}

/* The minutes tier's means, mins and maxs with since < minute <= until; *ret_end_ns: the end of the
 * last minute found (since_ns when none). */
static int gather_minutes(struct pw_http_history *hh, int64_t since_ns, int64_t until_ns, struct gathered *g,
                          int64_t *ret_end_ns)
{
	void *disk = NULL;
	int got = pw_history_tier_read(hh->store_dir, PW_HISTORY_MINUTES, pw_sampler_cpu_cap(hh->sampler),
	                               g->point_size, since_ns, until_ns, DISK_POINTS_BYTES / g->point_size,
	                               &disk);
	int r = got < 0 ? got : 0;

	*ret_end_ns = since_ns;
	for (int i = 0; i < got && r == 0; i++) {
		const struct pw_history_point *p =
		        (const void *)((const char *)disk + (size_t)i * g->point_size);
		unsigned kind = PW_HISTORY_STAT(p->flags);
		if (kind == PW_HISTORY_MEAN) {
			if ((r = gathered_reserve(g, 1, true)) < 0)
				break;
			/* min and max default to the mean until their points come */
			memcpy(g->points + (size_t)g->n * g->point_size, p, g->point_size);
			memcpy(g->mins + (size_t)g->n * g->point_size, p, g->point_size);
			memcpy(g->maxs + (size_t)g->n * g->point_size, p, g->point_size);
			g->counts[g->n++] = PW_HISTORY_COUNT(p->flags) ? PW_HISTORY_COUNT(p->flags) : 1;
			*ret_end_ns = p->real_ns + PW_HISTORY_MINUTE_NS - 1;
		} else if (g->n && (kind == PW_HISTORY_MIN || kind == PW_HISTORY_MAX) &&
		           ((const struct pw_history_point *)(const void *)(g->points +
		                                                            (size_t)(g->n - 1) *
		                                                                    g->point_size))
		                           ->real_ns == p->real_ns) {
			memcpy((kind == PW_HISTORY_MIN ? g->mins : g->maxs) +
			               (size_t)(g->n - 1) * g->point_size,
			       p, g->point_size);
		}
	}
	free(disk);
	return r;
}

enum MHD_Result pw_http_history_serve(struct pw_http_history *hh, struct MHD_Connection *conn)
{
	const struct pw_ring *ring = pw_sampler_history(hh->sampler);
	struct pw_history_query q;
	struct pw_history_window w = {.interval_ns = hh->interval_ns, .now_real_ns = pw_real_ns()};
	struct gathered g = {.point_size = pw_ring_payload_size(ring)};
	struct args args = {.n = 0};
	char err[512];
	int r = 0;

	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	if (args.overflow)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, "too many parameters");
	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	if (pw_history_query_parse(args.a, args.n, accept, w.now_real_ns, hh->history_ns, &q, err,
	                           sizeof(err)) < 0)
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, err);

	/* Steps of whole minutes come from the minutes tier, and so does a long window without a step
	 * of its own; the minutes not summed yet (the current one) from the samples. */
	if (hh->store_dir && !q.step_given && (uint64_t)q.until_ns - (uint64_t)q.since_ns > LONG_WINDOW_NS)
		q.step_ns = PW_HISTORY_MINUTE_NS;
	int64_t samples_from = q.since_ns;
	if (hh->store_dir && q.step_ns >= PW_HISTORY_MINUTE_NS && q.step_ns % PW_HISTORY_MINUTE_NS == 0) {
		/* A minute belongs to the window when it starts in it (its points are stamped so). */
		r = gather_minutes(hh, q.since_ns, q.until_ns, &g, &samples_from);
		if (r == 0 && !g.mins) /* no minute yet: the samples come as means, mins and maxs too */
			r = gathered_reserve(&g, 1, true);
	}
	if (r == 0)
		r = gather_samples(hh, samples_from, q.until_ns, &g);
	if (r == -E2BIG) {
		gathered_free(&g);
		snprintf(err, sizeof(err),
		         "the window holds more than %zu samples on disk: ask for a shorter one (?since=, "
		         "?until=), "
		         "or steps of whole minutes (?step=1m)",
		         (size_t)(DISK_POINTS_BYTES / g.point_size));
		return respond_error(conn, MHD_HTTP_BAD_REQUEST, err);
	}
	if (r < 0) {
		gathered_free(&g);
		return respond_error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
	}
	w.points = g.points;
	w.mins = g.mins;
	w.maxs = g.maxs;
	w.counts = g.counts;
	w.point_size = g.point_size;
	w.npoints = g.n;
	struct pw_irq_line *lines = window_context(hh, &q, &w) ? line_names(hh, &w.nlines) : NULL;
	w.lines = lines;

	int e = pw_history_render(&hh->body, &q, &w, err, sizeof(err));
	free(lines);
	gathered_free(&g);
	if (e < 0)
		return respond_error(
		        conn, e == -E2BIG ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR, err);
	return send_body(hh, conn,
	                 q.format == PW_HISTORY_CSV ? "text/csv; charset=utf-8" : "application/json");
}

bool pw_http_ui_wanted(const char *accept)
{
	if (!accept)
		return false;
	const char *html = strcasestr(accept, "text/html"), *plain = strcasestr(accept, "text/plain");
	return html && (!plain || html < plain);
}

enum MHD_Result pw_http_ui_serve(struct MHD_Connection *conn)
{
	struct MHD_Response *resp =
	        MHD_create_response_from_buffer(pw_ui_page_len, (void *)pw_ui_page, MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	/* Everything is inline and nothing leaves this origin. */
	MHD_add_response_header(resp, "Content-Security-Policy",
	                        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
	                        "connect-src 'self'; img-src data:");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	return pw_http_queue(conn, MHD_HTTP_OK, resp, "text/html; charset=utf-8", NULL);
}
