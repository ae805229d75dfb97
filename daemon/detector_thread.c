/* detector_thread.c — the detector thread between the sampler's ring and the readers of alerts. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "detector_thread.h"

#include "clock.h"
#include "deviation_text.h"
#include "disk_writer.h"
#include "history_store.h"
#include "log.h"
#include "notifier.h"
#include "probes.h"
#include "recorder.h"
#include "state_file.h"
#include "transitions.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define VIEW_SLOTS 4
#define EVENTS_CAP (2 * PW_ALERT_COUNT)
#define TRANSITIONS_KEPT 256 /* hours of a flapping alert, for GET /history */

/* Logs, once a minute at most per source, the parse errors the sampler counted. */
struct error_reporter {
	uint64_t seen[PW_SRC_COUNT];
	struct pw_ratelimit limit[PW_SRC_COUNT];
};

/* Baselines kept in a state dir across restarts (written by the disk writer). */
struct persistence {
	char *dir;            /* NULL: baselines are not kept */
	int64_t every_ns;     /* save period, in sample time */
	int64_t last_save_ns; /* sample time of the last save; 0 before the first sample */
};

struct pw_detector_thread {
	const struct pw_sampler *sampler;
	struct pw_detector *detector;
	struct pw_ring *views; /* written by this thread only */
	struct pw_detector_view view;
	struct pw_sample *sample; /* scratch copy of the sample being judged */
	struct pw_alert_event events[EVENTS_CAP];
	uint64_t next_seq; /* the next publication to read */
	struct error_reporter errors;
	struct persistence state;
	struct pw_recorder *recorder;   /* the flight recorder until the writer takes it over, or NULL */
	struct pw_history_store *store; /* history on disk until the writer takes it over, or NULL */
	struct pw_disk_writer *writer;  /* baselines and recording; NULL: neither, or not started */
	struct pw_probes *probes;       /* NULL: alerts carry the detector's evidence only */
	struct pw_alert active[PW_ALERT_COUNT + 1]; /* scratch: what the probes look up for */
	char system_top[sizeof(((struct pw_deviation *)0)->evidence)]; /* who took the system time */
	bool system_top_warming; /* unusual system time, its first process scan in: the next names it */
	struct pw_ratelimit unusual_notice; /* deviations with no alert: a notice a minute at most */
	struct pw_transitions *transitions; /* the newest alert transitions, for GET /history */
	int wake_fd;                        /* the sampler's eventfd */
	struct { /* a reload's detector settings, handed over by pw_detector_thread_reconfigure */
		pthread_mutex_t lock;
		bool pending;
		struct pw_detector_config config;
	} reload;
	atomic_bool stop;
	bool running;
	pthread_t thread;

	struct pw_notifier *notifier; /* alert transitions go there too; NULL: no receivers */
};

/* What a state file that did not load means for the person reading the log. */
static const char *load_error_str(int r)
{
	switch (r) {
	case -EINVAL:
		return "corrupt or truncated";
	case -EPROTO:
		return "foreign format or version";
	default:
		return strerror(-r);
	}
}

/* Load DIR/baselines into the fresh detector; anything wrong with it is logged once and ignored. */
static void load_state(struct pw_detector_thread *dt)
{
	struct persistence *st = &dt->state;
	char err[PATH_MAX + 128];
	void *buf;
	size_t len;
	int r = pw_state_read(st->dir, &buf, &len, err, sizeof(err));

	if (r == -ENOENT) {
		pw_log(LOG_INFO, "state dir %s: no saved baselines yet, learning from scratch", st->dir);
		return;
	}
	if (r < 0) {
		pw_log(LOG_WARNING, "state file: %s: ignored, relearning", err);
		return;
	}
	r = pw_detector_state_load(dt->detector, buf, len);
	if (r < 0 && r != -ERANGE) {
		pw_log(LOG_WARNING, "state file %s/%s: %s: ignored, relearning", st->dir, PW_STATE_FILE,
		       load_error_str(r));
		free(buf);
		return;
	}
	if (r == -ERANGE)
		pw_log(LOG_NOTICE,
		       "state file %s/%s: saved for other CPU or interrupt-line capacities: host baselines "
		       "loaded, per-CPU and per-line ones only where they fit",
		       st->dir, PW_STATE_FILE);
	else
		pw_log(LOG_INFO, "state file %s/%s: baselines loaded", st->dir, PW_STATE_FILE);
	free(buf);
}

static int setup_state(struct pw_detector_thread *dt, const char *dir, int64_t every_ns)
{
	struct persistence *st = &dt->state;

	if (!dir || !*dir)
		return 0;
	st->every_ns = every_ns;
	if (!(st->dir = strdup(dir)))
		return -ENOMEM;
	load_state(dt);
	return 0;
}

/* Snapshot the baselines and hand them to the disk writer: the save itself never waits here. */
static void save_state(struct pw_detector_thread *dt, int64_t now_ns, bool final)
{
	void *buf = pw_disk_writer_state_buffer(dt->writer);

	dt->state.last_save_ns = now_ns;
	pw_disk_writer_save(dt->writer,
	                    pw_detector_state_save(dt->detector, buf, pw_detector_state_size(dt->detector)),
	                    now_ns, final);
}

/* After each sample: save when the period is up. */
static void persist(struct pw_detector_thread *dt, int64_t mono_ns)
{
	struct persistence *st = &dt->state;

	if (!st->dir)
		return;
	if (!st->last_save_ns)
		st->last_save_ns = mono_ns;
	else if (mono_ns - st->last_save_ns >= st->every_ns)
		save_state(dt, mono_ns, false);
}

const struct pw_transitions *pw_detector_thread_transitions(const struct pw_detector_thread *dt)
{
	return dt->transitions;
}

struct pw_detector_thread *pw_detector_thread_new(struct pw_sampler *sampler,
                                                  const struct pw_detector_config *config,
                                                  const char *state_dir, int64_t save_every_ns, char *err,
                                                  size_t err_size)
{
	struct pw_detector_thread *dt = calloc(1, sizeof(*dt));
	const struct pw_ring *latest = pw_sampler_latest(sampler);

	if (!dt)
		return snprintf(err, err_size, "out of memory"), NULL;
	dt->sampler = sampler;
	dt->next_seq = 1;
	pthread_mutex_init(&dt->reload.lock, NULL);
	dt->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	dt->sample = malloc(pw_ring_payload_size(latest));
	dt->views = pw_ring_new(VIEW_SLOTS, sizeof(struct pw_detector_view));
	dt->transitions = pw_transitions_new(TRANSITIONS_KEPT);
	if (dt->wake_fd < 0 || !dt->sample || !dt->views || !dt->transitions) {
		snprintf(err, err_size, "cannot set up the detector: %s",
		         dt->wake_fd < 0 ? strerror(errno) : "out of memory");
		pw_detector_thread_free(dt);
		return NULL;
	}
	pw_sampler_notify(sampler, dt->wake_fd);
	dt->detector = pw_detector_new(config, pw_sampler_cpu_cap(sampler), pw_sampler_line_cap(sampler));
	if (!dt->detector) {
		snprintf(err, err_size, "cannot set up the detector: out of memory");
		pw_detector_thread_free(dt);
		return NULL;
	}
	if (setup_state(dt, state_dir, save_every_ns) < 0) {
		snprintf(err, err_size, "cannot set up the state dir: out of memory");
		pw_detector_thread_free(dt);
		return NULL;
	}
	return dt;
}

static void log_event(const struct pw_alert_event *ev)
{
	const struct pw_alert *a = &ev->alert;
	const char *to = ev->resolved ? "resolved" : pw_alert_state_str(a->state);
	int level = a->state == PW_ALERT_FIRING ? LOG_WARNING : LOG_NOTICE;
	struct pw_log_alert_fields fields = {
	        .name = pw_alert_name_str(a->name),
	        .state = to,
	        .severity = pw_severity_str(a->severity),
	        .scope = a->scope,
	};

	pw_log_alert(level, &fields, "alert %s %s -> %s (%s): %s", fields.name, pw_alert_state_str(ev->from),
	             to, fields.severity, a->summary);
}

void pw_detector_thread_reconfigure(struct pw_detector_thread *dt, const struct pw_detector_config *config)
{
	pthread_mutex_lock(&dt->reload.lock);
	dt->reload.config = *config;
	dt->reload.pending = true;
	pthread_mutex_unlock(&dt->reload.lock);
	/* Wake the thread now rather than at the next sample, which may be an hour away. */
	uint64_t one = 1;
	if (write(dt->wake_fd, &one, sizeof(one)) < 0)
		pw_log(LOG_WARNING, "cannot wake the detector thread: %s", strerror(errno));
}

/* On the detector thread, before the next sample is judged: the detector is not thread-safe, so a
 * reload only ever reaches it here. */
static void apply_reload(struct pw_detector_thread *dt)
{
	bool pending;

	pthread_mutex_lock(&dt->reload.lock);
	pending = dt->reload.pending;
	if (pending)
		pw_detector_reconfigure(dt->detector, &dt->reload.config);
	dt->reload.pending = false;
	pthread_mutex_unlock(&dt->reload.lock);
	if (pending)
		pw_log(LOG_INFO,
		       "reload: new rule settings in effect in the detector (baselines and alerts kept)");
}

/* The sampler never logs; its parse-error counters are reported from here, with the sample's clock. */
static void report_errors(struct error_reporter *rep, const struct pw_sample *s)
{
	uint64_t suppressed;

	for (int src = 0; src < PW_SRC_COUNT; src++) {
		uint64_t now = s->parse_errors[src];
		if (now == rep->seen[src])
			continue;
		rep->limit[src].period_ns = 60 * INT64_C(1000000000);
		if (pw_ratelimit_allow(&rep->limit[src], s->mono_ns, &suppressed))
			pw_log(LOG_WARNING,
			       "source %s: %" PRIu64 " unreadable or malformed reads so far; skipped, "
			       "sampling goes on",
			       pw_source_name((enum pw_source)src), now);
		rep->seen[src] = now;
	}
}

int pw_detector_thread_probe(struct pw_detector_thread *dt, const char *procfs, const char *sysfs,
                             int64_t interval_ns)
{
	/* Half an interval: when the thread catches up on several samples at once, one scan serves. */
	struct pw_probes_config pc = {.procfs = procfs, .sysfs = sysfs, .min_gap_ns = interval_ns / 2};

	pw_probes_free(dt->probes);
	dt->probes = pw_probes_new(&pc);
	return dt->probes ? 0 : -ENOMEM;
}

/* After a sample was judged: look up what the active alerts need, and hand it to the transitions
 * about to be logged. */
static void probe(struct pw_detector_thread *dt, size_t nevents)
{
	struct pw_deviation devs[PW_DEVIATIONS_MAX];
	bool system_unusual = false, system_alert = false;

	if (!dt->probes)
		return;
	size_t n = pw_detector_active(dt->detector, dt->active, PW_ALERT_COUNT);
	size_t ndevs = pw_detector_deviations(dt->detector, devs, PW_DEVIATIONS_MAX);
	for (size_t i = 0; i < ndevs; i++)
		system_unusual |= pw_deviation_is_system_time(&devs[i]);
	for (size_t i = 0; i < n; i++)
		system_alert |= dt->active[i].name == PW_ALERT_SYSTEM_TIME_HIGH;
	/* System time far from normal with no alert on it yet: the diagnosis names who takes it, so
	 * the processes are read as if SystemTimeHigh were pending (the same bounded scan). */
	if (system_unusual && !system_alert)
		dt->active[n++] =
		        (struct pw_alert){.name = PW_ALERT_SYSTEM_TIME_HIGH, .state = PW_ALERT_PENDING};
	pw_probes_update(dt->probes, dt->active, n, dt->sample, pw_mono_ns());
	for (size_t i = 0; i < nevents && i < EVENTS_CAP; i++)
		pw_probes_apply(dt->probes, &dt->events[i].alert);
	dt->system_top[0] = '\0';
	dt->system_top_warming = false;
	if (system_unusual) {
		/* Active, or pw_probes_apply leaves it as it is. */
		struct pw_alert probed = {.name = PW_ALERT_SYSTEM_TIME_HIGH, .state = PW_ALERT_PENDING};
		pw_probes_apply(dt->probes, &probed);
		const struct pw_ev_processes *p = &probed.evidence.system_time.processes;
		dt->system_top_warming = p->status == PW_PROBE_WARMING;
		if (p->status == PW_PROBE_OK && p->n > 0)
			snprintf(dt->system_top, sizeof(dt->system_top),
			         "most system time: %.*s (pid %d) %.0f%% of a CPU",
			         (int)strnlen(p->top[0].comm, sizeof(p->top[0].comm)), p->top[0].comm,
			         (int)p->top[0].pid, 100.0 * p->top[0].system);
	}
}

/* The probes' findings beside the deviations they explain, and a notice in the log when signals
 * are far from normal without an alert (at most one a minute: the diagnosis has the rest). */
static void explain_deviations(struct pw_detector_thread *dt)
{
	struct pw_detector_view *v = &dt->view;
	char text[PW_DEVIATIONS_MAX * 360];
	uint64_t suppressed;

	for (uint32_t i = 0; i < v->ndeviations && i < PW_DEVIATIONS_MAX; i++)
		if (pw_deviation_is_system_time(&v->deviations[i]))
			snprintf(v->deviations[i].evidence, sizeof(v->deviations[i].evidence), "%s",
			         dt->system_top);
	/* The process scan needs a second look: a notice now could not name who takes the system
	 * time, and the next one is a minute away. */
	if (v->ndeviations == 0 || v->nalerts > 0 || !dt->sample || dt->system_top_warming)
		return;
	dt->unusual_notice.period_ns = 60 * INT64_C(1000000000);
	if (pw_ratelimit_allow(&dt->unusual_notice, dt->sample->mono_ns, &suppressed) &&
	    pw_deviations_text(v, text, sizeof(text)) > 0)
		pw_log(LOG_NOTICE, "no alert, but far from normal: %s", text);
}

/* Judge every sample published since the last pass, oldest first. */
static void catch_up(struct pw_detector_thread *dt)
{
	const struct pw_ring *latest = pw_sampler_latest(dt->sampler);
	uint64_t head = pw_ring_head(latest);

	apply_reload(dt);
	for (; dt->next_seq <= head; dt->next_seq++) {
		if (pw_ring_read(latest, dt->next_seq, dt->sample) < 0) {
			dt->view.samples_missed++; /* overwritten before we got to it */
			continue;
		}
		pw_disk_writer_record(dt->writer, dt->sample); /* queued: never waits on the disk */
		pw_disk_writer_history(dt->writer, dt->sample);
		size_t n = pw_detector_observe(dt->detector, dt->sample, dt->events, EVENTS_CAP);
		probe(dt, n);
		pw_transitions_record(dt->transitions, dt->events, n < EVENTS_CAP ? n : EVENTS_CAP);
		pw_disk_writer_transitions(dt->writer, dt->events, n < EVENTS_CAP ? n : EVENTS_CAP,
		                           dt->sample->mono_ns);
		for (size_t i = 0; i < n && i < EVENTS_CAP; i++)
			log_event(&dt->events[i]);
		if (dt->notifier && n) /* copies into the notifier's inbox; never waits on a receiver */
			pw_notifier_submit(dt->notifier, dt->events, n < EVENTS_CAP ? n : EVENTS_CAP);
		report_errors(&dt->errors, dt->sample);
		dt->view.samples_seen++;
		persist(dt, dt->sample->mono_ns);
	}
	pw_detector_snapshot(dt->detector, &dt->view);
	for (uint32_t i = 0; dt->probes && i < dt->view.nalerts && i < PW_ALERT_COUNT; i++)
		pw_probes_apply(dt->probes, &dt->view.alerts[i]);
	explain_deviations(dt);
	pw_ring_publish(dt->views, &dt->view);
}

static void *thread_main(void *arg)
{
	struct pw_detector_thread *dt = arg;
	struct pollfd pfd = {.fd = dt->wake_fd, .events = POLLIN};
	uint64_t count;

	/* Sleeps until the sampler (or pw_detector_thread_stop) writes the eventfd: no idle wake-ups. */
	while (!atomic_load(&dt->stop)) {
		if (poll(&pfd, 1, -1) > 0 && read(dt->wake_fd, &count, sizeof(count)) > 0 &&
		    !atomic_load(&dt->stop))
			catch_up(dt);
	}
	/* The sampler has stopped: judge (and record) what it left, then save what was learned. Not before
	 * the first sample: that would replace a good file with one that has forgotten its warmup. */
	if (dt->writer) {
		catch_up(dt);
		if (dt->state.dir && dt->state.last_save_ns)
			save_state(dt, dt->state.last_save_ns, true);
	}
	return NULL;
}

void pw_detector_thread_files(const struct pw_detector_thread *dt, struct pw_files_stats *ret)
{
	pw_disk_writer_files(dt->writer, pw_mono_ns(), ret);
}

void pw_detector_thread_record(struct pw_detector_thread *dt, struct pw_recorder *recorder)
{
	dt->recorder = recorder;
}

void pw_detector_thread_store(struct pw_detector_thread *dt, struct pw_history_store *store)
{
	dt->store = store;
}

void pw_detector_thread_set_notifier(struct pw_detector_thread *dt, struct pw_notifier *notifier)
{
	dt->notifier = notifier;
}

int pw_detector_thread_start(struct pw_detector_thread *dt)
{
	int r;

	if (dt->state.dir || dt->recorder || dt->store) {
		dt->writer =
		        pw_disk_writer_new(dt->recorder, dt->store, dt->state.dir,
		                           pw_detector_state_size(dt->detector), PW_DISK_WRITER_QUEUE_BYTES);
		if (!dt->writer) {
			pw_log(LOG_ERR, "cannot set up the disk writer: out of memory");
			return -ENOMEM;
		}
		dt->recorder = NULL; /* the writer's now */
		dt->store = NULL;
		if ((r = pw_disk_writer_start(dt->writer)) < 0) {
			pw_log(LOG_ERR, "cannot start the disk writer: %s", strerror(-r));
			return r; /* the writer is stopped (started for that) and freed with the thread */
		}
	}
	if ((r = pthread_create(&dt->thread, NULL, thread_main, dt)) != 0) {
		pw_disk_writer_stop(dt->writer, PW_DISK_WRITER_STOP_WAIT_NS);
		dt->writer = NULL;
		return -r;
	}
	pthread_setname_np(dt->thread, "pw-detector"); /* for top -H and perf; failure is harmless */
	dt->running = true;
	return 0;
}

void pw_detector_thread_stop(struct pw_detector_thread *dt)
{
	if (!dt->running)
		return;
	uint64_t one = 1;

	atomic_store(&dt->stop, true);
	if (write(dt->wake_fd, &one, sizeof(one)) < 0)
		pw_log(LOG_WARNING, "cannot wake the detector thread: %s", strerror(errno));
	pthread_join(dt->thread, NULL);
	dt->running = false;
	/* What the thread queued last (its final catch-up and baselines) reaches the disk, within a
	 * bound: a disk that hangs must not hang the stop. */
	pw_disk_writer_stop(dt->writer, PW_DISK_WRITER_STOP_WAIT_NS);
	dt->writer = NULL;
}

void pw_detector_thread_free(struct pw_detector_thread *dt)
{
	if (!dt)
		return;
	pw_detector_thread_stop(dt);
	if (dt->wake_fd >= 0)
		close(dt->wake_fd);
	pw_detector_free(dt->detector);
	pw_probes_free(dt->probes);
	pw_ring_free(dt->views);
	pw_transitions_free(dt->transitions);
	pw_disk_writer_stop(dt->writer, PW_DISK_WRITER_STOP_WAIT_NS); /* the thread never ran */
	pw_recorder_free(dt->recorder);                               /* never handed to a writer */
	pw_history_store_free(dt->store);
	free(dt->state.dir);
	free(dt->sample);
	pthread_mutex_destroy(&dt->reload.lock);
	free(dt);
}

bool pw_detector_thread_view(const struct pw_detector_thread *dt, struct pw_detector_view *ret)
{
	return pw_ring_read_latest(dt->views, ret) != 0;
}
