/* disk_writer.c — the writer thread and its hand-off from the detector thread (disk_writer.h).
 *
 * Why records are encoded on the detector thread and not here: a queue of encoded records (1-2 KB
 * on small hosts) holds 10-20 times more samples in the same bytes than one of raw samples, and
 * the encoder's state (the previous sample) stays with the one thread that sees every sample. The
 * price is that only the encoder can make a keyframe, so when this side cannot write a delta (a
 * failed write, a new file) it asks for one (want_key) and skips deltas until it comes; which
 * record starts the run's segment is decided here, where it is known which one reached the file
 * (pw_recorder_append). */
#define _GNU_SOURCE /* pthread_setname_np */
#include "disk_writer.h"

#include "clock.h"
#include "history.h"
#include "history_store.h"
#include "log.h"
#include "recorder.h"
#include "recording.h"
#include "state_file.h"
#include "transitions.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NS_PER_S INT64_C(1000000000)
/* History points wait this long at most before the writer is woken for them (group commit): each
 * wake-up, open and write of the head is shared by the points of a few seconds, and a kill -9
 * loses at most these seconds of the store (the ring still holds them). */
#define STORE_COMMIT_NS (2 * NS_PER_S)

/* One encoded record, or one history point, waiting for the disk. */
struct record {
	struct record *next;
	enum { RECORD, POINT, TRANSITIONS } kind; /* a recording's record, a history point, transitions */
	uint64_t seq;                             /* the encoder's count: a gap before a delta shows */
	int64_t now_ns; /* the sample's time: the recorder's retries and checks run on it */
	size_t len;
	unsigned char bytes[];
};

struct pw_disk_writer {
	pthread_t thread;
	pthread_mutex_t lock; /* held to link, unlink or swap, never during I/O */
	pthread_cond_t wake;  /* work or stop, for the writer */
	pthread_cond_t ended; /* the writer is done, for the stop (CLOCK_MONOTONIC) */

	/* Under lock. */
	struct record *head, *tail;
	int64_t batch_first_ns; /* the first point queued since the writer was last woken; 0: none */
	int64_t last_point_ns;  /* the newest point queued: the interval comes from it */
	size_t queued;          /* records waiting or being written */
	size_t queued_bytes;    /* and their bytes: what the bound counts */
	void *slot;             /* the baselines snapshot waiting, when slot_pending */
	int slot_len;
	int64_t slot_ns;
	bool slot_pending, slot_final;
	bool stop, done;

	/* Set up before the thread starts, then read-only. */
	size_t queue_cap, state_size;
	bool started;            /* the thread runs: start and stop are the owner's calls, on one thread */
	char *state_dir;         /* NULL: no baselines */
	struct pw_recorder *rec; /* NULL: no recording; appended to by the writer only */
	struct pw_history_store *store;    /* NULL: no history on disk; the writer's */
	struct pw_history_reducer reducer; /* pw_disk_writer_history()'s caller's */
	struct pw_rec_encoder *enc;        /* the producer's */

	/* The producer's alone. */
	uint64_t seq;
	void *producer_buf;
	struct pw_ratelimit behind_records, behind_state, behind_store;

	/* The writer's alone. */
	void *write_buf;
	bool store_dirty; /* points appended since the last flush */
	struct pw_ratelimit complain;

	/* Any thread. */
	atomic_bool want_key; /* the writer needs a keyframe next */
	atomic_uint_fast64_t rec_dropped, state_dropped, state_errors;
	atomic_size_t rec_waiting; /* a copy of queued */
	atomic_bool state_failing;
	/* Monotonic time the write in progress began; 0: none. */
	atomic_int_fast64_t rec_since, state_since, store_since;
	atomic_uint_fast64_t store_queue_dropped;
};

/* A writer given up on at a stop: its thread may still wake one day and touch it, so it is never
 * freed (and stays reachable for the leak checker). */
static struct pw_disk_writer *abandoned;

static void write_record(struct pw_disk_writer *w, struct record *r)
{
	if (r->kind != RECORD) {
		atomic_store(&w->store_since, pw_mono_ns());
		if (r->kind == POINT) {
			pw_history_store_append(w->store, (const void *)r->bytes, r->now_ns);
			w->store_dirty = true;
		} else
			pw_history_store_transitions(w->store, (const void *)r->bytes,
			                             r->len / sizeof(struct pw_history_transition),
			                             r->now_ns);
		atomic_store(&w->store_since, 0);
		return;
	}
	atomic_store(&w->rec_since, pw_mono_ns());
	bool want_key = pw_recorder_append(w->rec, r->bytes, r->len, r->seq, r->now_ns);
	atomic_store(&w->rec_since, 0);
	if (want_key)
		atomic_store(&w->want_key, true);
}

static void write_state(struct pw_disk_writer *w, int len, int64_t now_ns, bool final)
{
	char err[PATH_MAX + 128];
	uint64_t suppressed = 0;

	if (len >= 0) {
		atomic_store(&w->state_since, pw_mono_ns());
		int r = pw_state_write(w->state_dir, w->write_buf, (size_t)len, err, sizeof(err));
		atomic_store(&w->state_since, 0);
		if (r == 0) {
			pw_log(atomic_load(&w->state_failing) ? LOG_NOTICE : LOG_DEBUG,
			       "baselines saved to %s/%s", w->state_dir, PW_STATE_FILE);
			atomic_store(&w->state_failing, false);
			return;
		}
	} else {
		snprintf(err, sizeof(err), "cannot encode the baselines: %s", strerror(-len));
	}
	atomic_fetch_add(&w->state_errors, 1);
	atomic_store(&w->state_failing, true);
	if (final || pw_ratelimit_allow(&w->complain, now_ns, &suppressed))
		pw_log(LOG_WARNING,
		       "state file: %s; baselines not saved, the previous file stays (%" PRIu64
		       " failed saves not logged)",
		       err, suppressed);
}

/* Records first, in order, then the newest snapshot; until stopped with nothing left. */
static void *writer_main(void *arg)
{
	struct pw_disk_writer *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		if (w->head) {
			struct record *r = w->head;
			w->head = r->next;
			if (!w->head)
				w->tail = NULL;
			pthread_mutex_unlock(&w->lock);
			write_record(w, r);
			size_t len = r->len;
			free(r);
			pthread_mutex_lock(&w->lock);
			/* Counted until written: a record blocked in write() still takes its room. */
			w->queued--;
			w->queued_bytes -= len;
			atomic_store(&w->rec_waiting, w->queued);
		} else if (w->slot_pending) {
			void *buf = w->slot;
			int len = w->slot_len;
			int64_t now_ns = w->slot_ns;
			bool final = w->slot_final;
			w->slot = w->write_buf;
			w->write_buf = buf;
			w->slot_pending = false;
			pthread_mutex_unlock(&w->lock);
			write_state(w, len, now_ns, final);
			pthread_mutex_lock(&w->lock);
		} else if (w->store_dirty) {
			/* The queue is empty: what it held goes to the heads in one write. */
			w->store_dirty = false;
			pthread_mutex_unlock(&w->lock);
			atomic_store(&w->store_since, pw_mono_ns());
			pw_history_store_flush(w->store, pw_mono_ns());
			atomic_store(&w->store_since, 0);
			pthread_mutex_lock(&w->lock);
		} else if (w->stop) {
			break;
		} else {
			pthread_cond_wait(&w->wake, &w->lock);
		}
	}
	pthread_mutex_unlock(&w->lock);
	if (w->rec) {
		atomic_store(&w->rec_since, pw_mono_ns());
		pw_recorder_close(w->rec); /* its fdatasync may block as long as any write */
		atomic_store(&w->rec_since, 0);
	}
	if (w->store) {
		atomic_store(&w->store_since, pw_mono_ns());
		pw_history_store_close(w->store); /* the last block */
		atomic_store(&w->store_since, 0);
	}
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_broadcast(&w->ended);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static void writer_free(struct pw_disk_writer *w)
{
	struct record *r, *next;

	for (r = w->head; r; r = next) {
		next = r->next;
		free(r);
	}
	pw_recorder_free(w->rec);
	pw_history_store_free(w->store);
	pw_rec_encoder_free(w->enc);
	free(w->state_dir);
	free(w->slot);
	free(w->producer_buf);
	free(w->write_buf);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->ended);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

static struct pw_disk_writer *writer_new(const char *state_dir, size_t state_size, size_t queue_bytes)
{
	struct pw_disk_writer *w = calloc(1, sizeof(*w));
	pthread_condattr_t attr;

	if (!w)
		return NULL;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->ended, &attr);
	pthread_condattr_destroy(&attr);
	w->queue_cap = queue_bytes;
	w->state_size = state_size;
	w->behind_records.period_ns = w->behind_state.period_ns = w->behind_store.period_ns =
	        w->complain.period_ns = 60 * NS_PER_S;
	if (state_dir && *state_dir &&
	    (!(w->state_dir = strdup(state_dir)) || !(w->slot = malloc(state_size)) ||
	     !(w->producer_buf = malloc(state_size)) || !(w->write_buf = malloc(state_size)))) {
		writer_free(w);
		return NULL;
	}
	return w;
}

struct pw_disk_writer *pw_disk_writer_new(struct pw_recorder *recorder, struct pw_history_store *store,
                                          const char *state_dir, size_t state_size, size_t queue_bytes)
{
	struct pw_disk_writer *w = writer_new(state_dir, state_size, queue_bytes);

	if (w && recorder && !(w->enc = pw_rec_encoder_new(pw_recorder_header(recorder)))) {
		writer_free(w);
		return NULL;
	}
	if (w) {
		w->rec = recorder;
		w->store = store;
	}
	return w;
}

int pw_disk_writer_start(struct pw_disk_writer *w)
{
	int r = pthread_create(&w->thread, NULL, writer_main, w);

	if (r != 0)
		return -r;
	pthread_setname_np(w->thread, "pw-writer"); /* for top -H; failure is harmless */
	w->started = true;
	return 0;
}

/* Whether the writer must be woken for rec now, under the lock. A point may wait for the next ones
 * unless waiting one more interval would keep the first of them from the disk longer than
 * STORE_COMMIT_NS, or the queue is half full; anything else goes at once. */
static bool wake_for(struct pw_disk_writer *w, const struct record *rec)
{
	if (rec->kind != POINT || w->queued_bytes * 2 >= w->queue_cap) {
		w->batch_first_ns = 0;
		return true;
	}
	int64_t interval = w->last_point_ns ? rec->now_ns - w->last_point_ns : 0;
	w->last_point_ns = rec->now_ns;
	if (!w->batch_first_ns)
		w->batch_first_ns = rec->now_ns;
	if (rec->now_ns + interval - w->batch_first_ns < STORE_COMMIT_NS)
		return false;
	w->batch_first_ns = 0;
	return true;
}

/* Link rec at the queue's tail if it fits the bound (one always may); false when it does not. */
static bool enqueue(struct pw_disk_writer *w, struct record *rec, size_t *ret_queued, size_t *ret_bytes)
{
	pthread_mutex_lock(&w->lock);
	bool fits = w->queued == 0 || w->queued_bytes + rec->len <= w->queue_cap;
	if (fits) {
		if (w->tail)
			w->tail->next = rec;
		else
			w->head = rec;
		w->tail = rec;
		w->queued++;
		w->queued_bytes += rec->len;
		atomic_store(&w->rec_waiting, w->queued);
		if (wake_for(w, rec))
			pthread_cond_signal(&w->wake);
	}
	*ret_queued = w->queued;
	*ret_bytes = w->queued_bytes;
	pthread_mutex_unlock(&w->lock);
	return fits;
}

void pw_disk_writer_history(struct pw_disk_writer *w, const struct pw_sample *s)
{
	size_t len = pw_history_point_size(s->cpu_cap), queued, queued_bytes;
	struct record *rec;
	uint64_t suppressed = 0;

	if (!w || !w->store)
		return;
	if ((rec = malloc(sizeof(*rec) + len))) {
		*rec = (struct record){.kind = POINT, .now_ns = s->mono_ns, .len = len};
		pw_history_point_from(s, &w->reducer, (void *)rec->bytes);
		if (enqueue(w, rec, &queued, &queued_bytes))
			return;
	}
	free(rec);
	uint64_t dropped = atomic_fetch_add(&w->store_queue_dropped, 1) + 1;
	if (pw_ratelimit_allow(&w->behind_store, s->mono_ns, &suppressed))
		pw_log(LOG_WARNING,
		       "history store: the disk writer is behind (the disk is slow or hangs): %" PRIu64
		       " points not stored so far; they stay in memory for --history; detection goes on",
		       dropped);
}

void pw_disk_writer_transitions(struct pw_disk_writer *w, const struct pw_alert_event *events, size_t n,
                                int64_t now_ns)
{
	size_t len = n * sizeof(struct pw_history_transition), queued, queued_bytes;
	struct record *rec;

	if (!w || !w->store || !n)
		return;
	if ((rec = malloc(sizeof(*rec) + len))) {
		*rec = (struct record){.kind = TRANSITIONS, .now_ns = now_ns, .len = len};
		for (size_t i = 0; i < n; i++)
			pw_transition_compact(&events[i],
			                      (struct pw_history_transition *)(void *)rec->bytes + i);
		if (enqueue(w, rec, &queued, &queued_bytes))
			return;
	}
	free(rec);
	atomic_fetch_add(&w->store_queue_dropped, 1);
}

void pw_disk_writer_record(struct pw_disk_writer *w, const struct pw_sample *s)
{
	const void *buf;
	size_t len = 0, queued = 0, queued_bytes = 0;
	uint64_t suppressed = 0;
	struct record *rec = NULL;
	bool behind = false;

	if (!w || !w->enc)
		return;
	if (atomic_exchange(&w->want_key, false))
		pw_rec_encoder_resync(w->enc, false);
	uint64_t seq = ++w->seq;
	int r = pw_rec_encode(w->enc, s, &buf, &len);
	if (r == 0 && (rec = malloc(sizeof(*rec) + len))) {
		*rec = (struct record){.seq = seq, .now_ns = s->mono_ns, .len = len};
		memcpy(rec->bytes, buf, len);
		if (enqueue(w, rec, &queued, &queued_bytes))
			return;
		behind = true;
	}
	free(rec);
	/* The next record must not need this one. */
	pw_rec_encoder_resync(w->enc, false);
	uint64_t dropped = atomic_fetch_add(&w->rec_dropped, 1) + 1;
	if (!pw_ratelimit_allow(&w->behind_records, s->mono_ns, &suppressed))
		return;
	if (!behind)
		pw_log(LOG_WARNING,
		       "record %s: cannot encode a sample: %s; %" PRIu64 " samples dropped so far",
		       pw_recorder_path(w->rec), r < 0 ? strerror(-r) : "out of memory", dropped);
	else
		pw_log(LOG_WARNING,
		       "record %s: the disk writer is behind (%zu records, %zu KiB waiting: the disk is slow "
		       "or "
		       "hangs); %" PRIu64
		       " records dropped so far, the next written is a keyframe; detection "
		       "goes on",
		       pw_recorder_path(w->rec), queued, queued_bytes >> 10, dropped);
}

void *pw_disk_writer_state_buffer(struct pw_disk_writer *w)
{
	return w->producer_buf;
}

void pw_disk_writer_save(struct pw_disk_writer *w, int len, int64_t now_ns, bool final)
{
	uint64_t suppressed = 0;
	void *buf = w->producer_buf;

	pthread_mutex_lock(&w->lock);
	bool replaced = w->slot_pending;
	w->producer_buf = w->slot;
	w->slot = buf;
	w->slot_len = len;
	w->slot_ns = now_ns;
	w->slot_final = final;
	w->slot_pending = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (!replaced)
		return;
	uint64_t dropped = atomic_fetch_add(&w->state_dropped, 1) + 1;
	if (pw_ratelimit_allow(&w->behind_state, now_ns, &suppressed))
		pw_log(LOG_WARNING,
		       "state dir %s: the last baselines snapshot has not reached the disk yet (slow or "
		       "hanging): replaced by a newer one; %" PRIu64 " snapshots dropped so far",
		       w->state_dir, dropped);
}

static int64_t blocked_ns(const atomic_int_fast64_t *since, int64_t now_ns)
{
	int64_t t = atomic_load(since);

	return t && now_ns > t ? now_ns - t : 0;
}

void pw_disk_writer_files(const struct pw_disk_writer *cw, int64_t now_ns, struct pw_files_stats *ret)
{
	struct pw_disk_writer *w = (struct pw_disk_writer *)cw; /* atomics only */
	struct pw_file_stats *b = &ret->file[PW_FILE_BASELINES], *r = &ret->file[PW_FILE_RECORDING];
	struct pw_file_stats *h = &ret->file[PW_FILE_HISTORY];

	*b = (struct pw_file_stats){.configured = w && w->state_dir};
	*r = (struct pw_file_stats){.configured = w && w->rec};
	if (b->configured) {
		b->errors = atomic_load(&w->state_errors);
		b->failing = atomic_load(&w->state_failing);
		b->dropped = atomic_load(&w->state_dropped);
		b->blocked_ns = blocked_ns(&w->state_since, now_ns);
		b->stuck = b->blocked_ns >= PW_FILE_STUCK_NS;
	}
	if (r->configured) {
		pw_recorder_stats(w->rec, r);
		r->dropped = atomic_load(&w->rec_dropped);
		r->waiting = atomic_load(&w->rec_waiting);
		r->blocked_ns = blocked_ns(&w->rec_since, now_ns);
		r->stuck = r->blocked_ns >= PW_FILE_STUCK_NS;
	}
	pw_history_store_stats(w ? w->store : NULL, h);
	if (h->configured) {
		h->dropped += atomic_load(&w->store_queue_dropped);
		h->blocked_ns = blocked_ns(&w->store_since, now_ns);
		h->stuck = h->blocked_ns >= PW_FILE_STUCK_NS;
	}
}

/* The stop gave up: say what hangs and what is lost. */
static void give_up(struct pw_disk_writer *w, int64_t wait_ns, size_t queued, size_t queued_bytes,
                    bool state_pending)
{
	int64_t now = pw_mono_ns();
	int64_t rec_ns = blocked_ns(&w->rec_since, now), state_ns = blocked_ns(&w->state_since, now);
	bool on_state = w->state_dir && (!w->rec || state_ns > rec_ns);

	pw_log(LOG_ERR,
	       "disk writer: blocked %.1f s writing %s %s, still after waiting %.1f s at stop: giving up; "
	       "%zu records (%zu KiB)%s not written",
	       (double)(on_state ? state_ns : rec_ns) / 1e9, on_state ? "the baselines in" : "the recording",
	       on_state ? w->state_dir : pw_recorder_path(w->rec), (double)wait_ns / 1e9, queued,
	       queued_bytes >> 10, state_pending ? " and the last baselines" : "");
}

void pw_disk_writer_stop(struct pw_disk_writer *w, int64_t wait_ns)
{
	struct timespec deadline;
	int r = 0;

	if (!w)
		return;
	if (!w->started && pw_disk_writer_start(w) < 0) {
		pw_log(LOG_ERR, "disk writer: cannot start it to write what is queued: dropped");
		writer_free(w);
		return;
	}
	int64_t until = pw_mono_ns() + wait_ns;
	deadline.tv_sec = (time_t)(until / NS_PER_S);
	deadline.tv_nsec = (long)(until % NS_PER_S);
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	while (!w->done && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&w->ended, &w->lock, &deadline);
	bool done = w->done, state_pending = w->slot_pending;
	size_t queued = w->queued, queued_bytes = w->queued_bytes;
	pthread_mutex_unlock(&w->lock);
	if (!done) {
		give_up(w, wait_ns, queued, queued_bytes, state_pending);
		pthread_detach(w->thread);
		abandoned = w;
		return;
	}
	pthread_join(w->thread, NULL);
	uint64_t dropped = atomic_load(&w->rec_dropped);
	if (dropped)
		pw_log(LOG_WARNING, "record %s: %" PRIu64 " records dropped while the disk writer was behind",
		       pw_recorder_path(w->rec), dropped);
	writer_free(w);
}
