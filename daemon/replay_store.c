/* replay_store.c — perfwatchd --replay STATE_DIR: the detector over the history kept on disk, so an
 * incident from last night is judged again (with other rule settings, say). The store holds history
 * points, not counters: each is rebuilt into a sample (lib/history_sample.h), read ten minutes at a
 * time so memory stays bounded over days. */
#include "replay.h"

#include "clock.h"
#include "history_query.h"
#include "history_sample.h"
#include "history_store.h"
#include "history_tier.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NS_PER_MS INT64_C(1000000)
#define WINDOW_NS (600 * INT64_C(1000000000))
#define WINDOW_POINTS_MAX (1u << 20) /* ten minutes at the shortest interval (10 ms) is 60 000 */
#define EVENTS_CAP (2 * PW_ALERT_COUNT)

struct store_replay {
	const struct pw_options *opts;
	char dir[PW_OPT_TEXT_MAX + 16];
	int64_t interval_ns; /* the store's sampling interval: resolve times */
	uint32_t cpu_cap;    /* fixed by the first points read (read_window) */
	size_t point_size;
	struct pw_detector_config config;
	struct pw_detector *detector;
	struct pw_sample *sample;
	int64_t last_ns; /* the time of the point judged last */
	bool cpus_cut;   /* a point held more CPUs than cpu_cap: said once */
	struct pw_alert_event events[EVENTS_CAP];
	unsigned long long samples, transitions, runs;
	int64_t replayed_ns;
};

static int fail(const struct store_replay *rp, int status, const char *what)
{
	return pw_replay_fail(rp->opts, status, what);
}

/* STATE_DIR/history, or the store directory itself. */
static void find_store(struct store_replay *rp)
{
	struct stat st;

	pw_history_store_dir(rp->opts->replay, rp->dir, sizeof(rp->dir));
	if (stat(rp->dir, &st) != 0 || !S_ISDIR(st.st_mode))
		snprintf(rp->dir, sizeof(rp->dir), "%s", rp->opts->replay);
}

static int parse_window(struct store_replay *rp, int64_t first_ms, int64_t *since, int64_t *until)
{
	int64_t now = pw_real_ns();
	char why[PW_OPT_TEXT_MAX + 64];

	*since = first_ms == INT64_MIN ? INT64_MIN : first_ms * NS_PER_MS - 1;
	*until = now;
	if (rp->opts->replay_since[0] && pw_history_parse_time(rp->opts->replay_since, now, since) < 0) {
		snprintf(why, sizeof(why), "--since %s: not a time (-2h, 2026-12-04T03:00:00Z, Unix seconds)",
		         rp->opts->replay_since);
		return fail(rp, 2, why);
	}
	if (rp->opts->replay_until[0] && pw_history_parse_time(rp->opts->replay_until, now, until) < 0) {
		snprintf(why, sizeof(why), "--until %s: not a time", rp->opts->replay_until);
		return fail(rp, 2, why);
	}
	if (*until <= *since)
		return fail(rp, 2, "--until must be after --since");
	/* Nothing is kept before the oldest file: start there, not at a --since of years ago. */
	if (first_ms != INT64_MIN && *since < first_ms * NS_PER_MS - 1)
		*since = first_ms * NS_PER_MS - 1;
	return 0;
}

/* One point: the first of a daemon run (or of the replay) starts a new detector, as the daemon did. */
static int judge(struct store_replay *rp, const struct pw_history_point *p)
{
	bool run_start = !rp->detector || (p->flags & PW_HISTORY_RUN_START);

	if (!run_start && p->real_ns <= rp->last_ns)
		return 0;
	if (run_start) {
		pw_detector_free(rp->detector);
		if (!(rp->detector = pw_detector_new(&rp->config, rp->cpu_cap, PW_HISTORY_LINES)))
			return -ENOMEM;
		if (!rp->sample &&
		    !(rp->sample = malloc(pw_sample_size(rp->cpu_cap, PW_HISTORY_LINES, false))))
			return -ENOMEM;
		pw_sample_init(rp->sample, rp->cpu_cap, PW_HISTORY_LINES, false);
		rp->runs++;
	}
	int64_t interval = run_start ? 0 : p->real_ns - rp->last_ns;
	uint64_t seq = run_start ? 1 : rp->sample->seq + 1;
	pw_history_point_to_sample(p, interval, rp->sample);
	rp->sample->seq = rp->sample->samples_taken = seq;
	rp->last_ns = p->real_ns;
	if (p->ncpu >= rp->cpu_cap && !rp->cpus_cut) {
		fprintf(stderr,
		        "perfwatchd: replay %s: points from %lld ms on hold more CPUs than the first "
		        "ones: CPUs from %u on are left out\n",
		        rp->opts->replay, (long long)(p->real_ns / NS_PER_MS), rp->cpu_cap);
		rp->cpus_cut = true;
	}
	size_t n = pw_detector_observe(rp->detector, rp->sample, rp->events, EVENTS_CAP);
	for (size_t i = 0; i < n && i < EVENTS_CAP; i++)
		if (pw_replay_print_event(rp->opts, &rp->events[i]) < 0)
			return -ENOMEM;
	rp->transitions += n;
	rp->samples++;
	rp->replayed_ns += interval;
	return 0;
}

/* The points of one window, read at the capacity of rp->cpu_cap CPUs. Until a point has been
 * judged the capacity is not fixed: a point that fills it may have been cut there (ncpu is the
 * highest CPU id + 1, which a host keeps), so the window is read again at a larger one. Returns
 * the count (*ret_points malloc'ed) or -errno. */
static int read_window(struct store_replay *rp, int64_t from, int64_t to, void **ret_points)
{
	static const uint32_t caps[] = {64, 1024, 8192};

	for (size_t c = 0;; c++) {
		int n = pw_history_tier_read(rp->dir, PW_HISTORY_SAMPLES, rp->cpu_cap, rp->point_size, from,
		                             to, WINDOW_POINTS_MAX, ret_points);
		if (n <= 0 || rp->detector || c + 1 == sizeof(caps) / sizeof(caps[0]))
			return n;
		uint32_t ncpu = 0;
		for (int i = 0; i < n; i++) {
			const struct pw_history_point *p =
			        (const void *)((char *)*ret_points + (size_t)i * rp->point_size);
			ncpu = p->ncpu > ncpu ? p->ncpu : ncpu;
		}
		if (ncpu < rp->cpu_cap)
			return n;
		free(*ret_points);
		rp->cpu_cap = caps[c + 1];
		rp->point_size = pw_history_point_size(rp->cpu_cap);
	}
}

/* Every window of the range, oldest first. Returns the exit status. */
static int play(struct store_replay *rp, int64_t since, int64_t until, bool one_window)
{
	char why[256];

	rp->cpu_cap = 64;
	rp->point_size = pw_history_point_size(rp->cpu_cap);
	for (int64_t from = since; from < until;) {
		int64_t to = one_window || until - from <= WINDOW_NS ? until : from + WINDOW_NS;
		void *points;
		int n = read_window(rp, from, to, &points);
		if (n < 0) {
			snprintf(why, sizeof(why), "cannot read the store: %s", strerror(-n));
			return fail(rp, 1, why);
		}
		int r = 0;
		for (int i = 0; i < n && r == 0; i++)
			r = judge(rp, (const void *)((char *)points + (size_t)i * rp->point_size));
		free(points);
		if (r < 0)
			return fail(rp, 1, "out of memory");
		from = to;
	}
	return 0;
}

int pw_replay_store_run(const struct pw_options *opts)
{
	struct store_replay rp = {.opts = opts};
	int64_t started = pw_mono_ns(), first_ms, since, until;
	char why[sizeof(rp.dir) + 256];
	int status;

	if (opts->replay_to_store[0])
		return fail(&rp, 2, "--to-store takes a recording, not a state dir");
	if (opts->replay_to_recording[0])
		return fail(&rp, 2, "--to-recording takes a recording, not a state dir");
	find_store(&rp);
	int r = pw_history_tier_describe(rp.dir, PW_HISTORY_SAMPLES, &first_ms, &rp.interval_ns);
	if (r < 0 || (first_ms == INT64_MIN && rp.interval_ns == 0)) {
		snprintf(why, sizeof(why), "no history store there (%s/%s-*.pwh)%s%s", rp.dir,
		         PW_HISTORY_SAMPLES, r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");
		return fail(&rp, 2, why);
	}
	if ((status = parse_window(&rp, first_ms, &since, &until)))
		return status;
	pw_replay_configure(opts, rp.interval_ns, &rp.config);
	/* Without data files every point is in the head: one read. */
	status = play(&rp, since, until, first_ms == INT64_MIN);
	if (fflush(stdout) != 0 && status == 0)
		status = fail(&rp, 1, "cannot write the output");
	fprintf(stderr,
	        "perfwatchd: replayed %llu stored samples, %.1f s of recorded time in %llu run(s), in %.3f s "
	        "of wall time; %llu alert transitions\n",
	        rp.samples, (double)rp.replayed_ns / 1e9, rp.runs, (double)(pw_mono_ns() - started) / 1e9,
	        rp.transitions);
	free(rp.sample);
	pw_detector_free(rp.detector);
	return status;
}
