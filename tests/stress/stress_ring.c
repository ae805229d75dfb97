/* stress_ring.c — one writer and several readers hammer a small ring; readers must never accept a
 * torn or mislabelled payload. Run under ThreadSanitizer (all shared accesses are atomic, so any
 * report is a real bug). Exit 0 on success, 1 with a message on failure.
 *
 * The writer keeps an invariant in every payload: word i of publication k is k * MULT + i (MULT odd,
 * so distinct k give distinct words). A copy mixing two publications, or labelled with the wrong
 * number, breaks it. The ring is small and the payload large (1 KiB) so the writer laps readers
 * often and overwrites slots while they are being copied. */
#include "ring.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NREADERS 4
#define NSLOTS 8
#define NWORDS 128 /* 1 KiB payload */
#define MAX_PUBLICATIONS 200000
#define MAX_SECONDS 3
#define MULT UINT64_C(0x9e3779b97f4a7c15)

struct reader_stats {
	uint64_t latest_ok;  /* pw_ring_read_latest() successes */
	uint64_t head_ok;    /* head + pw_ring_read() successes */
	uint64_t head_retry; /* ... that had to retry because the writer lapped the reader */
	uint64_t old_ok;     /* pw_ring_read() of an older publication: copied */
	uint64_t old_stale;  /* ... -ESTALE (overwritten before or while copying) */
	uint64_t old_nodata; /* ... -ENODATA (never expected for k <= head) */
	uint64_t torn;       /* accepted copies that break the invariant: must stay 0 */
	uint64_t backwards;  /* read_latest() going back in time: must stay 0 */
};

struct reader {
	pthread_t thread;
	unsigned id;
	struct reader_stats st;
};

static struct pw_ring *ring;
static atomic_bool writer_done;
static pthread_barrier_t start;

static void fill(uint64_t *w, uint64_t k)
{
	for (uint64_t i = 0; i < NWORDS; i++)
		w[i] = k * MULT + i;
}

/* Counts and reports (once per reader) a payload that is not publication k. */
static void check(struct reader *r, const uint64_t *w, uint64_t k, const char *how)
{
	for (uint64_t i = 0; i < NWORDS; i++) {
		if (w[i] == k * MULT + i)
			continue;
		if (r->st.torn++ == 0)
			fprintf(stderr,
			        "reader %u: torn payload accepted by %s for publication %" PRIu64
			        ": word %" PRIu64 " is %#" PRIx64 ", expected %#" PRIx64 "\n",
			        r->id, how, k, i, w[i], k * MULT + i);
		return;
	}
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	uint64_t buf[NWORDS], last = 0, rng = UINT64_C(0x2545f4914f6cdd1d) * (r->id + 1);
	bool done;

	pthread_barrier_wait(&start);
	do {
		/* Read the flag first: one full pass after the writer stopped still counts. */
		done = atomic_load_explicit(&writer_done, memory_order_acquire);

		uint64_t k = pw_ring_read_latest(ring, buf);
		if (k) {
			if (k < last && r->st.backwards++ == 0)
				fprintf(stderr,
				        "reader %u: read_latest went from %" PRIu64 " back to %" PRIu64 "\n",
				        r->id, last, k);
			last = k;
			check(r, buf, k, "read_latest");
			r->st.latest_ok++;
		}

		/* The same via head + read, to count how often the writer laps a reader. */
		for (;;) {
			k = pw_ring_head(ring);
			if (k == 0 || pw_ring_read(ring, k, buf) == 0)
				break;
			r->st.head_retry++;
		}
		if (k) {
			check(r, buf, k, "read(head)");
			r->st.head_ok++;
		}

		/* An older publication, from still-held to certainly overwritten: the slots the writer
		 * is about to refill are where tearing would show. */
		if (k > 1) {
			uint64_t back = xorshift(&rng) % (NSLOTS + 2);
			uint64_t old = k > back ? k - back : 1;
			int ret = pw_ring_read(ring, old, buf);

			if (ret == 0) {
				check(r, buf, old, "read(old)");
				r->st.old_ok++;
			} else if (ret == -ESTALE) {
				r->st.old_stale++;
			} else {
				r->st.old_nodata++;
			}
		}
	} while (!done);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Returns how many publications were made. */
static uint64_t run_writer(void)
{
	static uint64_t w[NWORDS];
	double deadline = now() + MAX_SECONDS;
	uint64_t k;

	for (k = 1; k <= MAX_PUBLICATIONS; k++) {
		fill(w, k);
		if (pw_ring_publish(ring, w) != k) {
			fprintf(stderr, "writer: publish did not return %" PRIu64 "\n", k);
			exit(1);
		}
		if (k % 1024 == 0 && now() > deadline)
			break;
	}
	return k > MAX_PUBLICATIONS ? MAX_PUBLICATIONS : k;
}

int main(void)
{
	struct reader readers[NREADERS] = {0};
	struct reader_stats sum = {0};
	uint64_t published;
	bool fail = false;

	ring = pw_ring_new(NSLOTS, NWORDS * sizeof(uint64_t));
	if (!ring) {
		fprintf(stderr, "pw_ring_new failed\n");
		return 1;
	}
	pthread_barrier_init(&start, NULL, NREADERS + 1);
	for (unsigned i = 0; i < NREADERS; i++) {
		readers[i].id = i;
		if (pthread_create(&readers[i].thread, NULL, reader_main, &readers[i]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	pthread_barrier_wait(&start);
	published = run_writer();
	atomic_store_explicit(&writer_done, true, memory_order_release);

	for (unsigned i = 0; i < NREADERS; i++) {
		struct reader_stats *st = &readers[i].st;

		pthread_join(readers[i].thread, NULL);
		printf("reader %u: latest_ok=%" PRIu64 " head_ok=%" PRIu64 " head_retry=%" PRIu64
		       " old_ok=%" PRIu64 " old_estale=%" PRIu64 " old_enodata=%" PRIu64 " torn=%" PRIu64
		       " backwards=%" PRIu64 "\n",
		       i, st->latest_ok, st->head_ok, st->head_retry, st->old_ok, st->old_stale,
		       st->old_nodata, st->torn, st->backwards);
		if (st->latest_ok == 0 || st->head_ok == 0) {
			fprintf(stderr, "FAIL: reader %u made no successful read\n", i);
			fail = true;
		}
		sum.old_ok += st->old_ok;
		sum.old_nodata += st->old_nodata;
		sum.torn += st->torn;
		sum.backwards += st->backwards;
	}
	printf("publications=%" PRIu64 " slots=%d payload=%zu bytes readers=%d\n", published, NSLOTS,
	       pw_ring_payload_size(ring), NREADERS);
	if (sum.torn) {
		fprintf(stderr, "FAIL: %" PRIu64 " torn payloads were accepted\n", sum.torn);
		fail = true;
	}
	if (sum.backwards) {
		fprintf(stderr, "FAIL: read_latest went backwards %" PRIu64 " times\n", sum.backwards);
		fail = true;
	}
	if (sum.old_nodata) {
		fprintf(stderr, "FAIL: %" PRIu64 " reads of published k returned -ENODATA\n", sum.old_nodata);
		fail = true;
	}
	if (sum.old_ok == 0) {
		fprintf(stderr, "FAIL: no older publication was ever read back\n");
		fail = true;
	}
	pthread_barrier_destroy(&start);
	pw_ring_free(ring);
	if (fail)
		return 1;
	printf("PASS\n");
	return 0;
}
