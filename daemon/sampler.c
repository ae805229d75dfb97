/* sampler.c — the one writer of both rings. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "sampler.h"

#include "clock.h"
#include "derive.h"
#include "history.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

struct pw_sampler {
	struct pw_collector *collector;
	int64_t interval_ns;
	struct pw_ring *latest, *history;
	struct pw_sample *samples[2]; /* current and previous, swapped each sample */
	struct pw_history_point *point;
	struct pw_history_reducer reducer; /* the sampler thread's */
	size_t sample_size;
	uint64_t taken, missed, notify_failures;
	int64_t duration_total_ns;

	int notify_fd;
	int64_t watchdog_ns;  /* ping systemd's watchdog this often; 0: no watchdog */
	int64_t last_ping_ns; /* CLOCK_MONOTONIC of the last ping */
	pthread_t thread;
	bool running;
	pthread_mutex_t stop_lock; /* only for the stop wake-up, never held while sampling */
	pthread_cond_t stop_cond;
	bool stop;
	_Atomic int64_t last_mono_ns;
};

struct pw_sampler *pw_sampler_new(struct pw_collector *collector, int64_t interval_ns, uint32_t history_slots)
{
	struct pw_sampler *s = calloc(1, sizeof(*s));
	uint32_t cpu_cap = pw_collector_cpu_cap(collector);
	pthread_condattr_t attr;

	if (!s)
		return NULL;
	s->collector = collector;
	s->notify_fd = -1;
	s->interval_ns = interval_ns;
	s->sample_size =
	        pw_sample_size(cpu_cap, pw_collector_line_cap(collector), pw_collector_has_matrix(collector));
	s->latest = pw_ring_new(PW_LATEST_SLOTS, s->sample_size);
	s->history = pw_ring_new(history_slots, pw_history_point_size(cpu_cap));
	s->samples[0] = aligned_alloc(64, (s->sample_size + 63) & ~(size_t)63);
	s->samples[1] = aligned_alloc(64, (s->sample_size + 63) & ~(size_t)63);
	s->point = calloc(1, pw_history_point_size(cpu_cap));
	pthread_mutex_init(&s->stop_lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->stop_cond, &attr);
	pthread_condattr_destroy(&attr);
	if (!s->latest || !s->history || !s->samples[0] || !s->samples[1] || !s->point) {
		pw_sampler_free(s);
		return NULL;
	}
	return s;
}

static void take_sample(struct pw_sampler *s)
{
	struct pw_collector *c = s->collector;
	struct pw_sample *prev = s->samples[s->taken & 1];
	struct pw_sample *cur = s->samples[(s->taken + 1) & 1];
	int64_t start = pw_mono_ns();

	pw_sample_init(cur, pw_collector_cpu_cap(c), pw_collector_line_cap(c), pw_collector_has_matrix(c));
	/* Stamped just before the first read (not before the zeroing): the rates divide by it. */
	cur->real_ns = pw_real_ns();
	cur->mono_ns = pw_mono_ns();
	pw_collector_read(c, cur);
	cur->seq = ++s->taken;
	cur->samples_taken = s->taken;
	cur->missed_deadlines = s->missed;
	if (s->taken > 1) {
		cur->counter_resets = prev->counter_resets;
		if (pw_collector_reads_kernel(c))
			pw_derive_kernel(prev, cur);
		else
			pw_derive(prev, cur);
	}
	cur->duration_ns = pw_mono_ns() - start;
	s->duration_total_ns += cur->duration_ns;
	cur->duration_total_ns = (uint64_t)s->duration_total_ns;
	pw_ring_publish(s->latest, cur);
	pw_history_point_from(cur, &s->reducer, s->point);
	pw_ring_publish(s->history, s->point);
	atomic_store_explicit(&s->last_mono_ns, cur->mono_ns, memory_order_release);
	if (s->notify_fd >= 0) {
		uint64_t one = 1;
		/* EFD_NONBLOCK: a full counter (never in practice) drops the wake-up, not the sampler. */
		if (write(s->notify_fd, &one, sizeof(one)) < 0)
			s->notify_failures++;
	}
}

void pw_sampler_notify(struct pw_sampler *s, int fd)
{
	s->notify_fd = fd;
}

/* Sleep until deadline_ns or a stop request; true when asked to stop. */
static bool wait_until(struct pw_sampler *s, int64_t deadline_ns)
{
	struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
	bool stop;

	pthread_mutex_lock(&s->stop_lock);
	while (!s->stop && pthread_cond_timedwait(&s->stop_cond, &s->stop_lock, &ts) != ETIMEDOUT)
		;
	stop = s->stop;
	pthread_mutex_unlock(&s->stop_lock);
	return stop;
}

void pw_sampler_watchdog(struct pw_sampler *s, int64_t period_ns)
{
	s->watchdog_ns = period_ns;
}

/* Absolute deadlines: lateness never accumulates into drift. A sample that ran past one or more whole
 * deadlines skips them and counts them as missed. */
static int64_t next_deadline(struct pw_sampler *s, int64_t deadline)
{
	int64_t now = pw_mono_ns();

	deadline += s->interval_ns;
	if (now >= deadline) {
		int64_t behind = (now - deadline) / s->interval_ns + 1;
		s->missed += (uint64_t)behind;
		deadline += behind * s->interval_ns;
	}
	return deadline;
}

/* Ping the watchdog when due; returns when the next ping is due (INT64_MAX without a watchdog). The
 * ping comes from this loop and nowhere else, so a sampler stuck in a read stops it and systemd
 * restarts the service. */
static int64_t watchdog_ping(struct pw_sampler *s)
{
	int64_t now = pw_mono_ns();

	if (!s->watchdog_ns)
		return INT64_MAX;
	if (now - s->last_ping_ns >= s->watchdog_ns) {
		sd_notify(0, "WATCHDOG=1");
		s->last_ping_ns = now;
	}
	return s->last_ping_ns + s->watchdog_ns;
}

static void *sampler_main(void *arg)
{
	struct pw_sampler *s = arg;
	int64_t deadline = pw_mono_ns();
	int64_t wake;

	do {
		if (pw_mono_ns() >= deadline) {
			take_sample(s);
			deadline = next_deadline(s, deadline);
		}
		/* An interval longer than the watchdog's half period wakes in between just to ping. */
		wake = watchdog_ping(s);
		if (deadline < wake)
			wake = deadline;
	} while (!wait_until(s, wake));
	return NULL;
}

int pw_sampler_start(struct pw_sampler *s)
{
	s->stop = false;
	int r = pthread_create(&s->thread, NULL, sampler_main, s);
	if (r != 0)
		return -r;
	pthread_setname_np(s->thread, "pw-sampler"); /* for top -H and perf; failure is harmless */
	s->running = true;
	return 0;
}

void pw_sampler_stop(struct pw_sampler *s)
{
	if (!s->running)
		return;
	pthread_mutex_lock(&s->stop_lock);
	s->stop = true;
	pthread_cond_signal(&s->stop_cond);
	pthread_mutex_unlock(&s->stop_lock);
	pthread_join(s->thread, NULL);
	s->running = false;
}

void pw_sampler_free(struct pw_sampler *s)
{
	if (!s)
		return;
	pw_sampler_stop(s);
	pw_ring_free(s->latest);
	pw_ring_free(s->history);
	free(s->samples[0]);
	free(s->samples[1]);
	free(s->point);
	pthread_cond_destroy(&s->stop_cond);
	pthread_mutex_destroy(&s->stop_lock);
	free(s);
}

const struct pw_ring *pw_sampler_latest(const struct pw_sampler *s)
{
	return s->latest;
}

const struct pw_ring *pw_sampler_history(const struct pw_sampler *s)
{
	return s->history;
}

int64_t pw_sampler_last_mono_ns(const struct pw_sampler *s)
{
	return atomic_load_explicit(&s->last_mono_ns, memory_order_acquire);
}

uint64_t pw_sampler_ring_bytes(const struct pw_sampler *s)
{
	return (uint64_t)pw_ring_payload_size(s->latest) * pw_ring_capacity(s->latest) +
	       (uint64_t)pw_ring_payload_size(s->history) * pw_ring_capacity(s->history);
}

uint32_t pw_sampler_cpu_cap(const struct pw_sampler *s)
{
	return pw_collector_cpu_cap(s->collector);
}

uint32_t pw_sampler_line_cap(const struct pw_sampler *s)
{
	return pw_collector_line_cap(s->collector);
}
