/* ring.c — the sample history: a single-writer, many-reader seqlock ring (contract in ring.h).
 *
 * Layout: one allocation, 64-byte aligned. A read-only line of geometry, then head on a line of its
 * own (the writer bumps it every publish; readers poll it), then nslots slots, each a whole number of
 * 64-byte lines: { seq, payload words... }. Publication k (1, 2, ...) lives in slot (k - 1) % nslots.
 *
 * Slot seq protocol: 0 = never written; 2k - 1 = the writer is filling it with publication k;
 * 2k = it holds publication k. Seq only grows, so a reader that sees a larger value knows its
 * publication was overwritten (-ESTALE) and a smaller one that it is not there yet (-ENODATA).
 *
 * Memory ordering follows Hans Boehm, "Can seqlocks get along with programming language memory
 * models?" (MSPC 2012), the C11 form of the kernel's Documentation/locking/seqlock.rst: every access
 * to shared slot memory is atomic (a plain memcpy racing with the writer would be a data race, i.e.
 * undefined behaviour, and TSan would rightly flag it), payload words are relaxed, and two fences
 * order them against seq. See the comments in pw_ring_publish() and pw_ring_read(). */
#include "ring.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PW_CACHELINE 64
#define WORDS_PER_LINE (PW_CACHELINE / sizeof(uint64_t))

/* The ring promises readers never block the writer: 64-bit atomics must not hide a lock. */
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the ring needs lock-free 64-bit atomics");
_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t), "uint64_t is not long long sized");

struct pw_ring {
	size_t payload_size;
	size_t nwords; /* payload words per slot: payload_size rounded up to 8 bytes */
	size_t stride; /* words per slot: seq + payload, rounded up to a cache line */
	uint32_t nslots;
	alignas(PW_CACHELINE) _Atomic uint64_t head;    /* written only by the writer; alone on its line */
	alignas(PW_CACHELINE) _Atomic uint64_t words[]; /* nslots * stride; word 0 of a slot is its seq */
};

static _Atomic uint64_t *slot_of(const struct pw_ring *ring, uint64_t k)
{
	/* Readers only load through this pointer; the cast drops the const the API puts on them. */
	return (_Atomic uint64_t *)&ring->words[((k - 1) % ring->nslots) * ring->stride];
}

struct pw_ring *pw_ring_new(uint32_t nslots, size_t payload_size)
{
	struct pw_ring *ring;
	size_t nwords, stride, size;

	if (nslots == 0 || payload_size > SIZE_MAX / 2)
		return NULL;
	nwords = (payload_size + 7) / 8;
	stride = (1 + nwords + WORDS_PER_LINE - 1) / WORDS_PER_LINE * WORDS_PER_LINE;
	if (stride > (SIZE_MAX - sizeof(*ring)) / sizeof(uint64_t) / nslots)
		return NULL;
	/* sizeof(*ring) is a multiple of 64, so size is too, as aligned_alloc() wants. */
	size = sizeof(*ring) + (size_t)nslots * stride * sizeof(uint64_t);
	ring = aligned_alloc(PW_CACHELINE, size);
	if (!ring)
		return NULL;
	ring->payload_size = payload_size;
	ring->nwords = nwords;
	ring->stride = stride;
	ring->nslots = nslots;
	atomic_init(&ring->head, 0);
	for (size_t i = 0; i < (size_t)nslots * stride; i++)
		atomic_init(&ring->words[i], 0);
	return ring;
}

void pw_ring_free(struct pw_ring *ring)
{
	free(ring);
}

size_t pw_ring_payload_size(const struct pw_ring *ring)
{
	return ring->payload_size;
}

uint32_t pw_ring_capacity(const struct pw_ring *ring)
{
	return ring->nslots;
}

uint64_t pw_ring_head(const struct pw_ring *ring)
{
	return atomic_load_explicit(&ring->head, memory_order_acquire);
}

/* Store the caller's bytes as whole words; the caller's buffer need not be aligned nor a multiple
 * of 8 long, so the tail word is zero-padded. */
static void copy_in(const struct pw_ring *ring, _Atomic uint64_t *dst, const unsigned char *src)
{
	size_t full = ring->payload_size / 8, tail = ring->payload_size % 8;
	uint64_t w;

	for (size_t i = 0; i < full; i++) {
		memcpy(&w, src + i * 8, 8);
		atomic_store_explicit(&dst[i], w, memory_order_relaxed);
	}
	if (tail) {
		w = 0;
		memcpy(&w, src + full * 8, tail);
		atomic_store_explicit(&dst[full], w, memory_order_relaxed);
	}
}

static void copy_out(const struct pw_ring *ring, unsigned char *dst, const _Atomic uint64_t *src)
{
	size_t full = ring->payload_size / 8, tail = ring->payload_size % 8;
	uint64_t w;

	for (size_t i = 0; i < full; i++) {
		w = atomic_load_explicit(&src[i], memory_order_relaxed);
		memcpy(dst + i * 8, &w, 8);
	}
	if (tail) {
		w = atomic_load_explicit(&src[full], memory_order_relaxed);
		memcpy(dst + full * 8, &w, tail);
	}
}

uint64_t pw_ring_publish(struct pw_ring *ring, const void *payload)
{
	/* Only this thread stores head, so a relaxed load sees our own last store. */
	uint64_t k = atomic_load_explicit(&ring->head, memory_order_relaxed) + 1;
	_Atomic uint64_t *slot = slot_of(ring, k);

	atomic_store_explicit(&slot[0], 2 * k - 1, memory_order_relaxed);
	/* A release store of seq would only order what comes before it. This fence orders the odd seq
	 * before the payload stores below: a reader that loads any of the new words and then issues its
	 * acquire fence synchronizes with this fence, so its second seq load sees 2k - 1 or later and it
	 * discards the copy. (seqlock.rst's write_seqcount_begin() has the same smp_wmb().) */
	atomic_thread_fence(memory_order_release);
	copy_in(ring, slot + 1, payload);
	/* Release: a reader that acquires 2k also sees every payload word of publication k. */
	atomic_store_explicit(&slot[0], 2 * k, memory_order_release);
	/* After seq, so a reader that finds k in head finds the slot already complete. */
	atomic_store_explicit(&ring->head, k, memory_order_release);
	return k;
}

int pw_ring_read(const struct pw_ring *ring, uint64_t seq, void *ret)
{
	const _Atomic uint64_t *slot;
	uint64_t s1, s2;

	/* 2 * seq must not wrap; such a publication number is never reached. */
	if (seq == 0 || seq > UINT64_MAX / 2)
		return -ENODATA;
	slot = slot_of(ring, seq);
	/* Acquire pairs with the writer's final release store of seq: the words of publication seq
	 * are visible to the loads below. */
	s1 = atomic_load_explicit(&slot[0], memory_order_acquire);
	if (s1 != 2 * seq) {
		/* The slot holds, or is being filled with, publication (s1 + 1) / 2; seq only grows. */
		if ((s1 + 1) / 2 > seq)
			return -ESTALE;
		return -ENODATA;
	}
	copy_out(ring, ret, slot + 1);
	/* Orders the relaxed payload loads before the re-check (seqlock.rst's read_seqcount_retry()
	 * smp_rmb()). If any word came from a later publication, the writer's release fence
	 * synchronizes with this one and the load below cannot miss the odd seq stored before it. */
	atomic_thread_fence(memory_order_acquire);
	s2 = atomic_load_explicit(&slot[0], memory_order_relaxed);
	if (s2 != s1)
		return -ESTALE;
	return 0;
}

uint64_t pw_ring_read_latest(const struct pw_ring *ring, void *ret)
{
	for (;;) {
		uint64_t k = atomic_load_explicit(&ring->head, memory_order_acquire);

		if (k == 0)
			return 0;
		/* Acquiring head made seq = 2k visible, so this fails only when the writer laps us. */
		if (pw_ring_read(ring, k, ret) == 0)
			return k;
	}
}
