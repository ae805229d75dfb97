/* ring.h — a fixed-size, lock-free history of fixed-size payloads: one writer, any number of readers.
 *
 * Concurrency contract: pw_ring_publish() is called by exactly one thread (the sampler) and never
 * waits on a reader. Readers (pw_ring_read*) may run on any threads at any time; they never block
 * the writer and never return a torn payload: each slot carries a sequence counter that is odd
 * while the writer fills it (see Documentation/locking/seqlock.rst), and a reader retries or
 * reports the slot as overwritten. Payloads must be plain data without pointers. */
#ifndef PW_RING_H
#define PW_RING_H

#include <stddef.h>
#include <stdint.h>

struct pw_ring;

/* Create a ring of nslots slots of payload_size bytes each (rounded up to 8). Returns NULL on
 * allocation failure or nslots == 0. The only allocation the ring ever makes. */
struct pw_ring *pw_ring_new(uint32_t nslots, size_t payload_size);

/* Free the ring; accepts NULL. No reader or writer may be running. */
void pw_ring_free(struct pw_ring *ring);

size_t pw_ring_payload_size(const struct pw_ring *ring);
uint32_t pw_ring_capacity(const struct pw_ring *ring);

/* Writer only. Copy payload (payload_size bytes) into the next slot, overwriting the oldest, and
 * return its publication number (1, 2, ...). Wait-free. */
uint64_t pw_ring_publish(struct pw_ring *ring, const void *payload);

/* Any thread. Number of payloads published so far (the newest publication number). */
uint64_t pw_ring_head(const struct pw_ring *ring);

/* Any thread. Copy the newest payload into ret (payload_size bytes). Returns its publication
 * number, or 0 when nothing was published yet. Retries while the writer laps it. */
uint64_t pw_ring_read_latest(const struct pw_ring *ring, void *ret);

/* Any thread. Copy publication number seq into ret. Returns 0, -ENODATA if seq was not published
 * yet (or is 0), -ESTALE if it has been overwritten (or is overwritten while being copied).
 * On any failure, ret may have been partly written: do not use it. */
int pw_ring_read(const struct pw_ring *ring, uint64_t seq, void *ret);

#endif
