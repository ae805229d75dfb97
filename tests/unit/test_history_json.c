/* test_history_json.c — /history's renderer: a window of points as JSON columns (values in base
 * units, unknown as null, baselines, transitions inside the window only) and as CSV; steps give
 * mean/min/max; the size bound refuses a client's step and coarsens the default one. Also the
 * window copy out of a real ring. */
#include "fixture_util.h"
#include "history_json.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS INT64_C(1000000000)
#define T0 (INT64_C(1714564800) * NS)
#define NCPU 2
#define NPTS 10

static size_t psize(void)
{
	return pw_history_point_size(NCPU);
}

/* NPTS points, one a second from T0 + 1 s: interrupts 100 * i, cpu1 busy i/10, irq 25 rate i. */
static void *make_points(void)
{
	char *buf = calloc(NPTS, psize());
	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < NPTS; i++) {
		struct pw_history_point *p = (void *)(buf + i * psize());
		p->real_ns = T0 + (i + 1) * NS;
		p->mono_ns = (i + 1) * NS;
		p->ncpu = NCPU;
		for (int m = 0; m < PW_MODE_GUEST; m++)
			p->share[m] = 0;
		p->share[PW_MODE_USER] = 2500;
		p->share[PW_MODE_NICE] = 500;
		p->share[PW_MODE_IDLE] = 7000;
		p->intr_rate = 100.0f * i;
		p->ctxt_rate = p->softirq_rate = p->swap_in_rate = p->swap_out_rate = p->major_fault_rate =
		        NAN;
		p->mem_available_kb = 1000;
		p->cached_kb = UINT64_MAX;
		p->procs_running = 3;
		for (int t = 0; t < PW_SOFTIRQ_COUNT; t++)
			p->softirq_type_rate[t] = NAN;
		for (int r = 0; r < PW_PSI_COUNT; r++)
			p->psi_some_stall[r] = PW_HISTORY_UNKNOWN;
		p->psi_some_stall[PW_PSI_CPU] = 1250;
		strcpy(p->lines[0].irq, "25");
		p->lines[0].rate = (float)i;
		for (int k = 1; k < PW_HISTORY_LINES; k++)
			p->lines[k].rate = NAN;
		p->cpus[1].busy = (uint16_t)(1000 * i);
		p->cpus[1].freq_ratio = PW_HISTORY_UNKNOWN;
		p->cpus[1].avg_mhz = 2400;
		p->cpus[0].busy = PW_HISTORY_UNKNOWN;
	}
	return buf;
}

static struct pw_history_query query(uint64_t signals, int64_t step_ns)
{
	return (struct pw_history_query){.since_ns = T0,
	                                 .until_ns = T0 + 60 * NS,
	                                 .step_ns = step_ns,
	                                 .step_given = step_ns != 0,
	                                 .signals = signals};
}

static const struct pw_irq_line names[1] = {{.irq = "25", .device = "eth0-rx-0"}};

static struct pw_history_window window(const void *points)
{
	static struct pw_baseline baselines[PW_SIG_COUNT];
	static struct pw_history_transition tr[3];
	baselines[PW_SIG_INTR_RATE] = (struct pw_baseline){.mean = 450, .var = 100, .learned_s = 600};
	tr[0] = (struct pw_history_transition){.real_ns = T0 - NS,
	                                       .alert = PW_ALERT_INTERRUPT_RATE_DROP,
	                                       .from = PW_ALERT_INACTIVE,
	                                       .to = PW_ALERT_PENDING};
	tr[1] = (struct pw_history_transition){.real_ns = T0 + 3 * NS,
	                                       .alert = PW_ALERT_INTERRUPT_RATE_DROP,
	                                       .from = PW_ALERT_PENDING,
	                                       .to = PW_ALERT_FIRING,
	                                       .scope = "host",
	                                       .value = 12.5};
	tr[2] = (struct pw_history_transition){.real_ns = T0 + 61 * NS,
	                                       .alert = PW_ALERT_INTERRUPT_RATE_DROP,
	                                       .from = PW_ALERT_FIRING,
	                                       .to = PW_ALERT_INACTIVE};
	return (struct pw_history_window){.points = points,
	                                  .point_size = psize(),
	                                  .npoints = NPTS,
	                                  .interval_ns = NS,
	                                  .now_real_ns = T0 + 60 * NS,
	                                  .baselines = baselines,
	                                  .transitions = tr,
	                                  .ntransitions = 3,
	                                  .lines = names,
	                                  .nlines = 1};
}

static json_t *render_json(struct pw_history_query *q, const struct pw_history_window *w)
{
	struct pw_outbuf out;
	char err[256] = "";
	json_error_t jerr;

	pw_outbuf_init(&out);
	ck_assert_msg(pw_history_render(&out, q, w, NULL, err, sizeof(err)) == 0, "%s", err);
	json_t *doc = json_loadb(out.data, out.len, 0, &jerr);
	ck_assert_msg(doc != NULL, "not JSON: %s: %.*s", jerr.text, (int)(out.len < 300 ? out.len : 300),
	              out.data);
	pw_outbuf_done(&out);
	return doc;
}

static json_t *series(json_t *doc, const char *key)
{
	size_t i;
	json_t *s;
	json_array_foreach(json_object_get(doc, "signals"), i,
	                   s) if (strcmp(json_string_value(json_object_get(s, "key")), key) == 0) return s;
	ck_abort_msg("no series %s", key);
	return NULL;
}

static double at(json_t *s, const char *col, size_t i)
{
	json_t *v = json_array_get(json_object_get(s, col), i);
	ck_assert_ptr_nonnull(v);
	return json_is_null(v) ? NAN : json_number_value(v);
}

#define ALL ((UINT64_C(1) << PW_HS_COUNT) - 1)
#define BIT(s) (UINT64_C(1) << (s))

START_TEST(test_json_values)
{
	void *pts = make_points();
	struct pw_history_window w = window(pts);
	struct pw_history_query q = query(ALL, 0);
	json_t *doc = render_json(&q, &w);

	ck_assert_int_eq(json_integer_value(json_object_get(doc, "points")), NPTS);
	ck_assert(json_is_false(json_object_get(doc, "aggregated")));
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(doc, "time_ms"), 0)),
	                 T0 / 1000000 + 1000);
	ck_assert(fabs(at(series(doc, "cpu_user_ratio"), "values", 0) - 0.3) < 1e-9);
	json_t *intr = series(doc, "interrupts_per_second");
	ck_assert(at(intr, "values", 9) == 900);
	json_t *b = json_object_get(intr, "baseline");
	ck_assert(json_number_value(json_object_get(b, "mean")) == 450);
	ck_assert(json_number_value(json_object_get(b, "spread")) == 10);
	ck_assert_ptr_null(json_object_get(series(doc, "cpu_user_ratio"), "baseline")); /* not learned */
	ck_assert(isnan(at(series(doc, "context_switches_per_second"), "values", 0)));
	ck_assert(isnan(at(series(doc, "page_cache_bytes"), "values", 0)));
	ck_assert(at(series(doc, "memory_available_bytes"), "values", 0) == 1024000);
	ck_assert(at(series(doc, "pressure_cpu_some_percent"), "values", 0) == 12.5);
	ck_assert(at(series(doc, "percpu_busy_ratio.cpu1"), "values", 3) == 0.3);
	ck_assert(isnan(at(series(doc, "percpu_busy_ratio.cpu0"), "values", 3)));
	ck_assert(at(series(doc, "percpu_frequency_hertz.cpu1"), "values", 3) == 2.4e9);
	json_t *line = series(doc, "interrupt_line_per_second.irq25");
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(line, "labels"), "device")),
	                 "eth0-rx-0");
	ck_assert(at(line, "values", 7) == 7);
	ck_assert_str_eq(json_string_value(json_object_get(
	                         json_object_get(series(doc, "percpu_busy_ratio.cpu1"), "labels"), "cpu")),
	                 "1");
	/* Only the transition inside (since, until]. */
	json_t *tr = json_object_get(doc, "transitions");
	ck_assert_uint_eq(json_array_size(tr), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tr, 0), "to")), "firing");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(tr, 0), "alert")),
	                 "InterruptRateDrop");
	json_decref(doc);
	free(pts);
}
END_TEST

/* A gap row stands between two runs: an interval after the last point of the first, or, when the
 * second began sooner than that (a restart within the interval), halfway; time_ms never goes back. */
START_TEST(test_gap_rows)
{
	void *pts = make_points();
	struct pw_history_point *p5 = (void *)((char *)pts + 5 * psize());
	struct pw_history_point *p8 = (void *)((char *)pts + 8 * psize());
	struct pw_history_point *p9 = (void *)((char *)pts + 9 * psize());
	p5->flags = PW_HISTORY_RUN_START;
	p5->real_ns = T0 + 5 * NS + 300 * 1000000; /* 300 ms after point 4 */
	p8->real_ns = T0 + 12 * NS;                /* 4 s after point 7: missed samples */
	p9->real_ns = T0 + 13 * NS;
	struct pw_history_window w = window(pts);
	struct pw_history_query q = query(ALL, 0);
	json_t *doc = render_json(&q, &w);
	json_t *t = json_object_get(doc, "time_ms");

	ck_assert_int_eq(json_integer_value(json_object_get(doc, "points")), NPTS + 2);
	for (size_t i = 1; i < json_array_size(t); i++)
		ck_assert_int_le(json_integer_value(json_array_get(t, i - 1)),
		                 json_integer_value(json_array_get(t, i)));
	ck_assert_int_eq(json_integer_value(json_array_get(t, 5)), (T0 + 5 * NS + 150 * 1000000) / 1000000);
	ck_assert(isnan(at(series(doc, "interrupts_per_second"), "values", 5)));
	/* Point 8 four seconds after point 7: its gap an interval after point 7. */
	ck_assert_int_eq(json_integer_value(json_array_get(t, 9)), (T0 + 9 * NS) / 1000000);
	ck_assert(isnan(at(series(doc, "interrupts_per_second"), "values", 9)));
	ck_assert(at(series(doc, "interrupts_per_second"), "values", 10) == 800);
	json_decref(doc);
	free(pts);
}
END_TEST

START_TEST(test_json_steps)
{
	void *pts = make_points();
	struct pw_history_window w = window(pts);
	struct pw_history_query q = query(BIT(PW_HS_INTR), 5 * NS);
	json_t *doc = render_json(&q, &w);

	/* T0+1..T0+4 fall in the step from T0, T0+5..T0+9 in the next, T0+10 in a third. */
	ck_assert(json_is_true(json_object_get(doc, "aggregated")));
	ck_assert_int_eq(json_integer_value(json_object_get(doc, "points")), 3);
	json_t *s = series(doc, "interrupts_per_second");
	ck_assert(at(s, "mean", 0) == 150 && at(s, "min", 0) == 0 && at(s, "max", 0) == 300);
	ck_assert(at(s, "mean", 1) == 600 && at(s, "min", 1) == 400 && at(s, "max", 1) == 800);
	ck_assert(at(s, "mean", 2) == 900);
	ck_assert_int_eq(json_integer_value(json_array_get(json_object_get(doc, "time_ms"), 1)),
	                 T0 / 1000000 + 5000);
	ck_assert_uint_eq(json_array_size(json_object_get(doc, "signals")), 1);
	json_decref(doc);
	free(pts);
}
END_TEST

START_TEST(test_csv)
{
	void *pts = make_points();
	struct pw_history_window w = window(pts);
	struct pw_history_query q = query(BIT(PW_HS_INTR) | BIT(PW_HS_CTXT) | BIT(PW_HS_PERCPU_BUSY), 0);
	struct pw_outbuf out;
	char err[256];

	q.format = PW_HISTORY_CSV;
	pw_outbuf_init(&out);
	ck_assert_int_eq(pw_history_render(&out, &q, &w, NULL, err, sizeof(err)), 0);
	pw_outbuf_putc(&out, '\0');
	ck_assert_msg(strncmp(out.data,
	                      "time,interrupts_per_second,context_switches_per_second,percpu_busy_ratio.cpu0,"
	                      "percpu_busy_ratio.cpu1\n2024-05-01T12:00:01.000Z,0,,,0\n"
	                      "2024-05-01T12:00:02.000Z,100,,,0.1\n",
	                      150) == 0,
	              "%s", out.data);
	q.step_ns = 5 * NS;
	q.signals = BIT(PW_HS_INTR);
	ck_assert_int_eq(pw_history_render(&out, &q, &w, NULL, err, sizeof(err)), 0);
	pw_outbuf_putc(&out, '\0');
	ck_assert_str_eq(
	        out.data,
	        "time,interrupts_per_second:mean,interrupts_per_second:min,interrupts_per_second:max\n"
	        "2024-05-01T12:00:00.000Z,150,0,300\n2024-05-01T12:00:05.000Z,600,400,800\n"
	        "2024-05-01T12:00:10.000Z,900,900,900\n");
	pw_outbuf_done(&out);
	free(pts);
}
END_TEST

/* Over PW_HISTORY_MAX_VALUES: the client's own step is refused, the default one coarsened. */
/* n points for cpus CPUs, one a second from T0 + 1 s, nothing known but the CPUs. */
static char *unknown_points(int n, uint32_t cpus)
{
	size_t size = pw_history_point_size(cpus);
	char *buf = calloc((size_t)n, size);
	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < n; i++) {
		struct pw_history_point *p = (void *)(buf + i * size);
		pw_history_point_unknown(p, cpus, T0 + (i + 1) * NS);
		p->ncpu = (uint16_t)cpus;
	}
	return buf;
}

START_TEST(test_size_bound)
{
	enum { N = 3600, CPUS = 256 };
	size_t size = pw_history_point_size(CPUS);
	char *buf = unknown_points(N, CPUS);
	struct pw_history_window w = {.points = buf, .point_size = size, .npoints = N, .interval_ns = NS};
	struct pw_history_query q = query(ALL, NS);
	struct pw_outbuf out;
	char err[256] = "";

	q.until_ns = T0 + 3601 * NS;
	pw_outbuf_init(&out);
	ck_assert_int_eq(pw_history_render(&out, &q, &w, NULL, err, sizeof(err)), -E2BIG);
	ck_assert_msg(strstr(err, "over the limit") && strstr(err, "step"), "%s", err);
	q.step_given = false;
	q.step_ns = 0;
	ck_assert_int_eq(pw_history_render(&out, &q, &w, NULL, err, sizeof(err)), 0);
	ck_assert_int_ge(q.step_ns, 2 * NS);
	ck_assert_uint_lt(out.len, 40u * 1000 * 1000);
	pw_outbuf_done(&out);
	free(buf);
}
END_TEST

/* A sink that keeps every flush, or refuses the second. */
struct chunks {
	struct pw_outbuf all;
	unsigned flushes, refuse_at;
};

static int keep_chunk(void *ctx, struct pw_outbuf *out)
{
	struct chunks *c = ctx;
	if (++c->flushes == c->refuse_at)
		return -EPIPE;
	pw_outbuf_append(&c->all, out->data, out->len);
	pw_outbuf_done(out); /* taken: the renderer goes on in a fresh buffer */
	return 0;
}

/* A streamed answer is the whole answer, in pieces: JSON and CSV, with several blocks of figures
 * (8 CPUs x 2 000 points is well over a block); a sink that fails stops the render with its error;
 * a sink never sees an answer below its min_bytes. */
START_TEST(test_sink)
{
	enum { N = 2000, CPUS = 8 };
	size_t size = pw_history_point_size(CPUS);
	char *buf = unknown_points(N, CPUS);
	for (int i = 0; i < N; i++) {
		struct pw_history_point *p = (void *)(buf + i * size);
		p->intr_rate = (float)(i * 7 % 1000);
		for (int c = 0; c < CPUS; c++)
			p->cpus[c].busy = (uint16_t)((i * 37 + c * 101) % 10001);
	}
	struct pw_history_window w = {.points = buf, .point_size = size, .npoints = N, .interval_ns = NS};
	char err[256] = "";

	for (int csv = 0; csv < 2; csv++) {
		struct pw_history_query q = query(ALL, 0);
		q.until_ns = T0 + (N + 1) * NS;
		q.format = csv ? PW_HISTORY_CSV : PW_HISTORY_JSON;
		struct pw_outbuf whole, rest;
		struct chunks c = {.refuse_at = 0};
		struct pw_history_sink sink = {.flush = keep_chunk, .ctx = &c, .min_bytes = 1000};
		pw_outbuf_init(&whole);
		pw_outbuf_init(&rest);
		pw_outbuf_init(&c.all);
		ck_assert_int_eq(pw_history_render(&whole, &q, &w, NULL, err, sizeof(err)), 0);
		ck_assert_int_eq(pw_history_render(&rest, &q, &w, &sink, err, sizeof(err)), 0);
		ck_assert_uint_ge(c.flushes, 3);
		pw_outbuf_append(&c.all, rest.data, rest.len);
		ck_assert_uint_eq(c.all.len, whole.len);
		ck_assert(memcmp(c.all.data, whole.data, whole.len) == 0);

		/* The reader went away at the second flush: nothing more is made. */
		struct chunks gone = {.refuse_at = 2};
		sink.ctx = &gone;
		pw_outbuf_reset(&rest);
		ck_assert_int_eq(pw_history_render(&rest, &q, &w, &sink, err, sizeof(err)), -EPIPE);
		ck_assert_uint_eq(gone.flushes, 2);
		ck_assert_msg(strstr(err, "cut short"), "%s", err);

		/* Below min_bytes the answer stays whole in out. */
		struct chunks none = {.refuse_at = 0};
		sink = (struct pw_history_sink){
		        .flush = keep_chunk, .ctx = &none, .min_bytes = whole.len + 1};
		ck_assert_int_eq(pw_history_render(&rest, &q, &w, &sink, err, sizeof(err)), 0);
		ck_assert_uint_eq(none.flushes, 0);
		ck_assert_uint_eq(rest.len, whole.len);
		pw_outbuf_done(&whole);
		pw_outbuf_done(&rest);
		pw_outbuf_done(&c.all);
		pw_outbuf_done(&gone.all);
		pw_outbuf_done(&none.all);
	}
	free(buf);
}
END_TEST

START_TEST(test_copy_window)
{
	struct pw_ring *ring = pw_ring_new(8, psize());
	char *pts = make_points(), *got = malloc(8 * psize());
	ck_assert_ptr_nonnull(ring);
	for (int i = 0; i < NPTS; i++)
		pw_ring_publish(ring, pts + i * psize());
	/* The ring kept points 3..10; since T0+4 s exclusive, until T0+9 s inclusive: 5..9. */
	uint32_t n = pw_history_copy_window(ring, T0 + 4 * NS, T0 + 9 * NS, got, 8);
	ck_assert_uint_eq(n, 5);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_int_eq(((struct pw_history_point *)(void *)(got + i * psize()))->real_ns,
		                 T0 + (5 + i) * NS);
	ck_assert_uint_eq(pw_history_copy_window(ring, 0, T0 + 100 * NS, got, 8), 8);
	ck_assert_uint_eq(pw_history_copy_window(ring, 0, T0 + 100 * NS, got, 3), 3);
	ck_assert_int_eq(((struct pw_history_point *)(void *)got)->real_ns, T0 + 8 * NS);
	ck_assert_uint_eq(pw_history_copy_window(ring, T0 + 10 * NS, T0 + 100 * NS, got, 8), 0);
	pw_ring_free(ring);
	free(pts);
	free(got);
}
END_TEST

static Suite *history_json_suite(void)
{
	Suite *s = suite_create("history_json");
	TCase *core = tcase_create("core");

	tcase_add_test(core, test_json_values);
	tcase_add_test(core, test_json_steps);
	tcase_add_test(core, test_gap_rows);
	tcase_add_test(core, test_csv);
	tcase_add_test(core, test_size_bound);
	tcase_add_test(core, test_sink);
	tcase_add_test(core, test_copy_window);
	suite_add_tcase(s, core);
	return s;
}

int main(void)
{
	return pw_run_suite(history_json_suite());
}
