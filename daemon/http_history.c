/* http_history.c — GET /history and GET /ui. The window is copied out of the history ring once per
 * request (pw_history_copy_window: seqlock reads, the sampler never waits), and read from the store
 * for what the ring no longer holds, rendered by exporters/history_json, and the copy freed: nothing
 * is held while nobody looks.
 *
 * All of that runs on a thread of its own (pw-history): a day from disk takes tens of milliseconds,
 * and on MHD's one thread a /metrics scrape would wait behind it. MHD's thread copies the request,
 * suspends the connection and queues it; the history thread makes the answer and resumes the
 * connection; MHD's thread queues the answer. Requests are answered in order, one at a time. A long
 * answer is queued once its first block is made, and sent while the rest is (history_stream.h). */
#define _GNU_SOURCE /* strcasestr, pthread_setname_np */
#include "http_history.h"
#include "http_respond.h"

#include "clock.h"
#include "gzip.h"
#include "history.h"
#include "history_columns.h"
#include "history_json.h"
#include "history_query.h"
#include "history_store.h"
#include "history_stream.h"
#include "history_tier.h"
#include "history_transitions.h"
#include "outbuf.h"
#include "prefault.h"
#include "warm_buffers.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ARGS 16
/* Requests waiting for the history thread; more get 503 at once. The page asks for one window at a
 * time, a few clients at most. */
#define MAX_QUEUED 32
#define TRANSITIONS_CAP 256
#define DISK_TRANSITIONS_CAP 2048 /* from the store's file: the newest in the window */
#define GZIP_MIN_BYTES (64 * 1024)
/* An answer that reaches this is sent as it is made (history_stream.h); a smaller one goes whole,
 * with its length. Streaming pays for megabytes (a 16-CPU hour: 2.5-4 MB); below, it raised the
 * memory peak of test_faults_memory (128 clients that never read, 700 KB answers) by 0.7-1 MiB,
 * to within its limit. */
#define STREAM_MIN_BYTES (1024 * 1024)
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

struct args {
	struct pw_history_arg a[MAX_ARGS];
	size_t n;
	bool overflow;
};

/* One request for the history thread: what it asked (copied on MHD's thread: the connection is not
 * read from another) and, once made, the answer. */
struct pw_http_history_job {
	struct pw_http_history_job *next;
	struct MHD_Connection *conn;
	struct args args; /* keys and values: strdup'ed */
	char *accept, *accept_encoding;
	unsigned status;
	struct MHD_Response *resp; /* NULL: no answer could be made (MHD closes the connection) */
	const char *type, *encoding;
};

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

	/* the queue of the history thread */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct pw_http_history_job *head, *tail;
	unsigned queued;
	bool stopping, started;
};

static void *history_main(void *arg);

/* A buffer was kept for the next answer (warm_buffers.h): the thread times its freeing. */
static void wake_history(void *ctx)
{
	struct pw_http_history *hh = ctx;
	pthread_mutex_lock(&hh->lock);
	pthread_cond_signal(&hh->wake);
	pthread_mutex_unlock(&hh->lock);
}

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
	pthread_mutex_init(&hh->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* the warm buffers' idle wait */
	pthread_cond_init(&hh->wake, &attr);
	pthread_condattr_destroy(&attr);
	if (!(hh->sample = malloc(pw_ring_payload_size(pw_sampler_latest(sampler)))) ||
	    pthread_create(&hh->thread, NULL, history_main, hh) != 0) {
		pw_http_history_free(hh);
		return NULL;
	}
	hh->started = true;
	pthread_setname_np(hh->thread, "pw-history"); /* for top -H and perf; failure is harmless */
	pw_warm_set_waker(wake_history, hh);
	return hh;
}

void pw_http_history_free(struct pw_http_history *hh)
{
	if (!hh)
		return;
	pw_http_history_stop(hh);
	pw_warm_set_waker(NULL, NULL);
	pw_warm_drop_all();
	pthread_mutex_destroy(&hh->lock);
	pthread_cond_destroy(&hh->wake);
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

/* job's answer, for MHD's thread to queue (resp NULL: none could be made). */
static void answer(struct pw_http_history_job *job, unsigned status, const char *type, const char *encoding,
                   struct MHD_Response *resp)
{
	job->status = status;
	job->type = type;
	job->encoding = encoding;
	job->resp = resp;
}

static void answer_text(struct pw_http_history_job *job, unsigned status, const char *what)
{
	char text[640];
	int n = snprintf(text, sizeof(text), "%s\n", what);
	answer(job, status, "text/plain; charset=utf-8", NULL,
	       MHD_create_response_from_buffer((size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1, text,
	                                       MHD_RESPMEM_MUST_COPY));
}

static char *copy_or_null(const char *s, bool *failed)
{
	char *c = s ? strdup(s) : NULL;
	*failed |= s && !c;
	return c;
}

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct args *args = cls;
	bool failed = false;
	(void)kind;
	if (args->n == MAX_ARGS) {
		args->overflow = true;
		return MHD_NO;
	}
	struct pw_history_arg *a = &args->a[args->n++];
	a->key = copy_or_null(key ? key : "", &failed);
	a->value = copy_or_null(value, &failed);
	args->overflow |= failed; /* answered as too many: the copy is what failed, rarely */
	return failed ? MHD_NO : MHD_YES;
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

/* The answer from out's bytes; a big buffer is handed over (no copy) and out left empty. */
static void answer_buf(struct pw_http_history_job *job, const char *type, struct pw_outbuf *out,
                       const char *encoding, bool big)
{
	if (!big) {
		answer(job, MHD_HTTP_OK, type, encoding,
		       MHD_create_response_from_buffer(out->len, out->data, MHD_RESPMEM_MUST_COPY));
		return;
	}
	/* Down to its length first: the doubling's slack was faulted in (pw_prefault), and an answer a
	 * slow client does not read keeps its buffer for as long as it stays. */
	char *fit = realloc(out->data, out->len ? out->len : 1);
	if (fit)
		out->data = fit, out->cap = out->len;
	answer(job, MHD_HTTP_OK, type, encoding,
	       MHD_create_response_from_buffer_with_free_callback(out->len, out->data, free_and_trim));
	if (job->resp)
		pw_outbuf_init(out); /* the response owns the bytes now */
}

/* The rendered body as job's answer, gzipped when the client accepts it (gzip) and it is long. */
static void answer_body(struct pw_http_history *hh, struct pw_http_history_job *job, const char *type,
                        bool gzip)
{
	/* An hour is megabytes: do not keep them while nobody looks. */
	bool big = hh->body.cap > BIG_BODY_BYTES;

	if (hh->body.len >= GZIP_MIN_BYTES && gzip &&
	    pw_gzip_compress(hh->body.data, hh->body.len, &hh->gz) == 0) {
		if (big)
			pw_outbuf_done(&hh->body);
		answer_buf(job, type, &hh->gz, "gzip", big);
	} else {
		if (big)
			pw_outbuf_done(&hh->gz);
		answer_buf(job, type, &hh->body, NULL, big);
	}
	if (big) { /* whatever answer_buf did not hand over (it failed) */
		pw_outbuf_done(&hh->body);
		pw_outbuf_done(&hh->gz);
	}
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
	pw_warm_give(g->points);
	pw_warm_give(g->mins);
	pw_warm_give(g->maxs);
	free(g->counts);
}

/* Room for n more points (and their min, max, count when per minute). */
static int gathered_reserve(struct gathered *g, uint32_t n, bool agg)
{
	if (g->n + n <= g->cap)
		return 0;
	/* Grown by half: the minutes come one at a time, and copying a day of them per minute was
	 * most of a day's answer. */
	uint32_t cap = g->n + n > g->cap + g->cap / 2 ? g->n + n : g->cap + g->cap / 2;
	char **arrays[] = {&g->points, &g->mins, &g->maxs};
	for (int k = 0; k < (agg ? 3 : 1); k++) {
		char *a = realloc(*arrays[k], (size_t)cap * g->point_size);
		if (!a)
			return -ENOMEM;
		/* Only what is written now: the growth by half past an hour adopted from disk (a few ring
		 * points after it) was 800 KB faulted in for nothing at 16 CPUs. */
		pw_prefault(a + (size_t)g->n * g->point_size, (size_t)n * g->point_size);
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

/* Append n samples (a sample is its own mean, min and max, of one). An empty window of samples
 * alone adopts *pts (cap points long) instead of copying it: an hour at 16 CPUs is 1.7 MB, and a
 * copy into fresh pages costs more than rendering half of it. */
static int gathered_samples(struct gathered *g, char **pts, uint32_t n, uint32_t cap)
{
	bool agg = g->mins != NULL;
	if (!agg && !g->points) {
		g->points = *pts;
		g->n = n;
		g->cap = cap;
		*pts = NULL;
		return 0;
	}
	if (gathered_reserve(g, n, agg) < 0)
		return -ENOMEM;
	memcpy(g->points + (size_t)g->n * g->point_size, *pts, (size_t)n * g->point_size);
	if (agg) {
		memcpy(g->mins + (size_t)g->n * g->point_size, *pts, (size_t)n * g->point_size);
		memcpy(g->maxs + (size_t)g->n * g->point_size, *pts, (size_t)n * g->point_size);
		for (uint32_t i = 0; i < n; i++)
			g->counts[g->n + i] = 1;
	}
	g->n += n;
	return 0;
}

/* The samples with since < time <= until as columns: the store's up to ring_from, then the ring's n
 * points. Returns 0, -ERANGE (figures the columns do not keep), -E2BIG, -ENOMEM. */
static int gather_columns(struct pw_http_history *hh, int64_t since_ns, int64_t ring_from, const char *points,
                          uint32_t n, size_t point_size, struct pw_history_columns *c)
{
	uint64_t want = ((uint64_t)ring_from - (uint64_t)since_ns) / (uint64_t)hh->interval_ns;
	want += want / 64 + 8 + n;
	pw_history_columns_init(c, pw_sampler_cpu_cap(hh->sampler), DISK_POINTS_BYTES / point_size + n,
	                        DISK_POINTS_BYTES);
	/* In the buffer an answer before left (warm_buffers.h). */
	c->values = pw_warm_take(SIZE_MAX, &c->values_size);
	int r = pw_history_columns_reserve(c, want < c->max_rows ? (uint32_t)want : c->max_rows);
	if (r == 0)
		r = pw_history_tier_read_columns(hh->store_dir, PW_HISTORY_SAMPLES, since_ns, ring_from, c);
	if (r == 0)
		r = pw_history_columns_add_points(c, points, point_size, n);
	if (r == 0)
		pw_history_columns_finish(c);
	return r;
}

static void columns_free(struct pw_history_columns *c)
{
	pw_warm_give(c->values);
	c->values = NULL;
	pw_history_columns_done(c);
}

/* The samples with since < time <= until: the store's for what the ring no longer holds, then the
 * ring's. Into cols when it is not NULL and the window reaches the store (*ret_columns then true),
 * else, or when the columns do not keep its figures, into g. Returns 0, -E2BIG (too many on disk),
 * -ENOMEM. */
static int gather_samples(struct pw_http_history *hh, int64_t since_ns, int64_t until_ns, struct gathered *g,
                          struct pw_history_columns *cols, bool *ret_columns)
{
	const struct pw_ring *ring = pw_sampler_history(hh->sampler);
	/* Room for the window's points: its span in intervals plus slack for jitter, at most the ring. */
	/* Unsigned: the window may span nearly all of int64. */
	uint64_t want = ((uint64_t)until_ns - (uint64_t)since_ns) / (uint64_t)hh->interval_ns;
	want += want / 64 + 8; /* no wrap: want is at most 2^64 / 10^7 */
	uint32_t cap = want < pw_ring_capacity(ring) ? (uint32_t)want : pw_ring_capacity(ring);
	size_t bytes = (size_t)cap * g->point_size, have = 0;
	/* In the buffer the window before was copied into (warm_buffers.h: it is kept for a second), not
	 * a second one beside it: under test_faults_memory's load the two together took the peak to
	 * within 50 KiB of its limit. */
	char *points = pw_warm_take(bytes, &have);
	int r = 0;

	if (have < bytes) {
		char *more = realloc(points, bytes ? bytes : 1);
		if (!more) {
			free(points);
			return -ENOMEM;
		}
		pw_prefault(more + have, bytes - have);
		points = more;
	}
	uint32_t n = pw_history_copy_window(ring, since_ns, until_ns, points, cap);
	/* What the ring no longer holds comes from the store: the window up to the ring's oldest (in
	 * the store's milliseconds, so the ring's oldest point is not read twice). */
	int64_t ring_from = until_ns;
	if (n) {
		int64_t oldest = ((const struct pw_history_point *)(const void *)points)->real_ns;
		ring_from = (oldest - ((oldest % 1000000) + 1000000) % 1000000) - 1;
	}
	if (hh->store_dir && since_ns < ring_from && cols) {
		r = gather_columns(hh, since_ns, ring_from, points, n, g->point_size, cols);
		if (r == 0 || r == -ENOMEM) {
			*ret_columns = r == 0;
			pw_warm_give(points);
			return r;
		}
		columns_free(cols); /* figures past 32 bits, or past the columns' bounds: as points */
		r = 0;
	}
	if (hh->store_dir && since_ns < ring_from) {
		void *disk = NULL;
		int got = pw_history_tier_read(hh->store_dir, PW_HISTORY_SAMPLES,
		                               pw_sampler_cpu_cap(hh->sampler), g->point_size, since_ns,
		                               ring_from, DISK_POINTS_BYTES / g->point_size, &disk);
		char *pts = disk;
		r = got < 0 ? got : gathered_samples(g, &pts, (uint32_t)got, (uint32_t)got);
		pw_warm_give(pts);
	}
	if (r == 0)
		r = gathered_samples(g, &points, n, cap);
	pw_warm_give(points);
	return r;
}

static char *gathered_at(const struct gathered *g, char *array, uint32_t i)
{
	return array + (size_t)i * g->point_size;
}

/* How many samples the ring may hold after end_ns up to until_ns, a few more for jitter: the room the
 * samples after the last minute take (the minute being summed). */
static uint32_t samples_after(const struct pw_http_history *hh, int64_t end_ns, int64_t until_ns)
{
	uint32_t cap = pw_ring_capacity(pw_sampler_history(hh->sampler));
	uint64_t n =
	        until_ns > end_ns ? ((uint64_t)until_ns - (uint64_t)end_ns) / (uint64_t)hh->interval_ns : 0;
	n += n / 64 + 8;
	return n < cap ? (uint32_t)n : cap;
}

/* The minute at i has no min or max point of its own (bit 0: min, bit 1: max): its mean stands in. */
static void minute_defaults(struct gathered *g, uint32_t i, unsigned have)
{
	if (!(have & 1u))
		memcpy(gathered_at(g, g->mins, i), gathered_at(g, g->points, i), g->point_size);
	if (!(have & 2u))
		memcpy(gathered_at(g, g->maxs, i), gathered_at(g, g->points, i), g->point_size);
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
	uint32_t means = 0;
	unsigned have = 3; /* of the minute at g->n - 1 */

	*ret_end_ns = since_ns;
	/* Room for every minute at once: grown a minute at a time, the arrays were copied over and over,
	 * and each minute was copied five times (its mean into all three arrays, then its min and max):
	 * a fifth of a day's answer. */
	int64_t end_ns = since_ns;
	for (int i = 0; i < got; i++) {
		const struct pw_history_point *p =
		        (const void *)((const char *)disk + (size_t)i * g->point_size);
		if (PW_HISTORY_STAT(p->flags) == PW_HISTORY_MEAN)
			means++, end_ns = p->real_ns + PW_HISTORY_MINUTE_NS - 1;
	}
	if (means && r == 0)
		r = gathered_reserve(g, means + samples_after(hh, end_ns, until_ns), true);
	for (int i = 0; i < got && r == 0; i++) {
		const struct pw_history_point *p =
		        (const void *)((const char *)disk + (size_t)i * g->point_size);
		unsigned kind = PW_HISTORY_STAT(p->flags);
		if (kind == PW_HISTORY_MEAN) {
			if (g->n)
				minute_defaults(g, g->n - 1, have);
			memcpy(gathered_at(g, g->points, g->n), p, g->point_size);
			g->counts[g->n++] = PW_HISTORY_COUNT(p->flags) ? PW_HISTORY_COUNT(p->flags) : 1;
			have = 0;
			*ret_end_ns = p->real_ns + PW_HISTORY_MINUTE_NS - 1;
		} else if (g->n && (kind == PW_HISTORY_MIN || kind == PW_HISTORY_MAX) &&
		           ((const struct pw_history_point *)(const void *)gathered_at(g, g->points,
		                                                                       g->n - 1))
		                           ->real_ns == p->real_ns) {
			memcpy(gathered_at(g, kind == PW_HISTORY_MIN ? g->mins : g->maxs, g->n - 1), p,
			       g->point_size);
			have |= kind == PW_HISTORY_MIN ? 1u : 2u;
		}
	}
	if (r == 0 && g->n)
		minute_defaults(g, g->n - 1, have);
	pw_warm_give(disk);
	return r;
}

/* Where the history thread streams an answer (pw_history_sink): the first flush makes the streamed
 * response and hands it to MHD's thread, and the job with it. */
struct stream_sink {
	struct pw_http_history_job *job; /* NULL once handed over */
	const char *type;
	struct pw_history_stream *stream;
};

static int stream_flush(void *ctx, struct pw_outbuf *out)
{
	struct stream_sink *ss = ctx;
	if (!ss->stream) {
		struct MHD_Response *resp;
		if (!(ss->stream = pw_history_stream_new(ss->job->conn, &resp)))
			return -ENOMEM;
		answer(ss->job, MHD_HTTP_OK, ss->type, NULL, resp);
		MHD_resume_connection(ss->job->conn); /* MHD's thread queues it, and frees the job */
		ss->job = NULL;
	}
	return pw_history_stream_push(ss->stream, out);
}

/* The history thread: job's answer. Returns true when the answer was streamed (the connection was
 * resumed, and the job is MHD's). */
static bool render(struct pw_http_history *hh, struct pw_http_history_job *job)
{
	const struct pw_ring *ring = pw_sampler_history(hh->sampler);
	struct pw_history_query q;
	struct pw_history_window w = {.interval_ns = hh->interval_ns, .now_real_ns = pw_real_ns()};
	struct gathered g = {.point_size = pw_ring_payload_size(ring)};
	struct pw_history_columns cols = {0};
	bool columns = false;
	char err[512];
	int r = 0;

	if (job->args.overflow) {
		answer_text(job, MHD_HTTP_BAD_REQUEST, "too many parameters");
		return false;
	}
	if (pw_history_query_parse(job->args.a, job->args.n, job->accept, w.now_real_ns, hh->history_ns, &q,
	                           err, sizeof(err)) < 0) {
		answer_text(job, MHD_HTTP_BAD_REQUEST, err);
		return false;
	}

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
	/* Every sample as it is (no step): from disk in columns. */
	if (r == 0)
		r = gather_samples(hh, samples_from, q.until_ns, &g,
		                   q.step_ns <= hh->interval_ns && !g.mins ? &cols : NULL, &columns);
	if (r < 0)
		columns_free(&cols);
	if (r == -E2BIG) {
		gathered_free(&g);
		snprintf(err, sizeof(err),
		         "the window holds more than %zu samples on disk: ask for a shorter one (?since=, "
		         "?until=), "
		         "or steps of whole minutes (?step=1m)",
		         (size_t)(DISK_POINTS_BYTES / g.point_size));
		answer_text(job, MHD_HTTP_BAD_REQUEST, err);
		return false;
	}
	if (r < 0) {
		gathered_free(&g);
		answer_text(job, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		return false;
	}
	w.points = g.points;
	w.mins = g.mins;
	w.maxs = g.maxs;
	w.counts = g.counts;
	w.point_size = g.point_size;
	w.npoints = g.n;
	if (columns) {
		w.columns = &cols;
		w.npoints = cols.n;
	}
	struct pw_irq_line *lines = window_context(hh, &q, &w) ? line_names(hh, &w.nlines) : NULL;
	w.lines = lines;

	const char *type = q.format == PW_HISTORY_CSV ? "text/csv; charset=utf-8" : "application/json";
	/* Streamed, unless it is to be gzipped: that takes the whole body. */
	struct stream_sink ss = {.job = job, .type = type};
	struct pw_history_sink sink = {.flush = stream_flush, .ctx = &ss, .min_bytes = STREAM_MIN_BYTES};
	bool gzip = pw_gzip_accepted(job->accept_encoding);
	/* A window whose points pass the streaming threshold makes text that does too: in a buffer an
	 * answer before left (warm_buffers.h). */
	if (!hh->body.data && (size_t)w.npoints * w.point_size >= STREAM_MIN_BYTES)
		hh->body.data = pw_warm_take(STREAM_MIN_BYTES, &hh->body.cap);
	int e = pw_history_render(&hh->body, &q, &w, gzip ? NULL : &sink, err, sizeof(err));
	free(lines);
	gathered_free(&g);
	columns_free(&cols);
	if (ss.stream) { /* the rest and the end; a failure now can only cut the answer short */
		if (e == 0)
			e = pw_history_stream_push(ss.stream, &hh->body);
		pw_history_stream_end(ss.stream, e < 0);
		pw_warm_give(hh->body.data);
		pw_outbuf_init(&hh->body);
		return true;
	}
	if (e < 0) {
		answer_text(job, e == -E2BIG ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR, err);
		return false;
	}
	answer_body(hh, job, type, gzip);
	return false;
}

/* ---- the history thread and its queue ---- */

void pw_http_history_job_free(struct pw_http_history_job *job)
{
	if (!job)
		return;
	for (size_t i = 0; i < job->args.n; i++) {
		free((char *)job->args.a[i].key);
		free((char *)job->args.a[i].value);
	}
	free(job->accept);
	free(job->accept_encoding);
	if (job->resp)
		MHD_destroy_response(job->resp);
	free(job);
}

static void *history_main(void *arg)
{
	struct pw_http_history *hh = arg;

	pthread_mutex_lock(&hh->lock);
	for (;;) {
		/* While buffers are kept warm for the next answer, wake to free them once idle (a buffer kept
		 * while none was signals wake: wake_history). */
		while (!hh->head && !hh->stopping) {
			int64_t next_ns = pw_warm_drop_idle(pw_mono_ns());
			if (!next_ns) {
				pthread_cond_wait(&hh->wake, &hh->lock);
				continue;
			}
			struct timespec until = {next_ns / 1000000000, next_ns % 1000000000};
			pthread_cond_timedwait(&hh->wake, &hh->lock, &until);
		}
		struct pw_http_history_job *job = hh->head;
		if (!job)
			break; /* stopping, and nothing is waiting */
		hh->head = job->next;
		if (!hh->head)
			hh->tail = NULL;
		hh->queued--;
		bool stopping = hh->stopping;
		pthread_mutex_unlock(&hh->lock);
		bool streamed = false;
		if (stopping)
			answer_text(job, MHD_HTTP_SERVICE_UNAVAILABLE, "perfwatchd is stopping");
		else
			streamed = render(hh, job);
		if (!streamed)
			MHD_resume_connection(job->conn); /* MHD's thread queues the answer */
		pthread_mutex_lock(&hh->lock);
	}
	pthread_mutex_unlock(&hh->lock);
	return NULL;
}

void pw_http_history_stop(struct pw_http_history *hh)
{
	if (!hh->started)
		return;
	pthread_mutex_lock(&hh->lock);
	hh->stopping = true;
	pthread_cond_signal(&hh->wake);
	pthread_mutex_unlock(&hh->lock);
	pthread_join(hh->thread, NULL);
	hh->started = false;
}

enum MHD_Result pw_http_history_serve(struct pw_http_history *hh, struct MHD_Connection *conn,
                                      struct pw_http_history_job **ret_job)
{
	struct pw_http_history_job *job = calloc(1, sizeof(*job));
	bool failed = !job;

	if (job) {
		job->conn = conn;
		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, collect_arg, &job->args);
		job->accept = copy_or_null(
		        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT), &failed);
		job->accept_encoding = copy_or_null(
		        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING),
		        &failed);
	}
	pthread_mutex_lock(&hh->lock);
	bool busy = hh->stopping || hh->queued >= MAX_QUEUED;
	if (!failed && !busy) {
		/* Suspended before the history thread can see it: it resumes only what is suspended. */
		MHD_suspend_connection(conn);
		if (hh->tail)
			hh->tail->next = job;
		else
			hh->head = job;
		hh->tail = job;
		hh->queued++;
		pthread_cond_signal(&hh->wake);
	}
	pthread_mutex_unlock(&hh->lock);
	if (failed || busy) {
		pw_http_history_job_free(job);
		const char *body = failed ? "out of memory\n" : "too many /history requests waiting\n";
		struct MHD_Response *resp =
		        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
		if (!resp)
			return MHD_NO;
		if (!failed)
			MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
		return pw_http_queue(conn,
		                     failed ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_SERVICE_UNAVAILABLE,
		                     resp, "text/plain; charset=utf-8", NULL);
	}
	*ret_job = job;
	return MHD_YES;
}

enum MHD_Result pw_http_history_answer(struct MHD_Connection *conn, struct pw_http_history_job *job)
{
	struct MHD_Response *resp = job->resp;
	job->resp = NULL; /* pw_http_queue drops the reference */
	enum MHD_Result r = resp ? pw_http_queue(conn, job->status, resp, job->type, job->encoding) : MHD_NO;
	pw_http_history_job_free(job);
	return r;
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
