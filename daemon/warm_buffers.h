/* warm_buffers.h — the big buffers of a /history answer kept for the next one, for a moment.
 *
 * An hour of a 16-CPU host from disk writes ~7 MB of fresh memory (the points decoded, the text),
 * and on a paravirtualised machine a fresh page costs 4-11 µs at its first write: 1 650 page
 * faults were a third of the answer. Buffers an answer is done with are kept here and the next
 * answer fills them again; once no answer has taken or given one for WARM_IDLE_NS they are freed,
 * so an idle daemon holds none (the history thread calls pw_warm_drop_idle).
 *
 * Any thread (a mutex). Buffers are malloc'ed (from 256 KiB up: each its own mapping, so realloc
 * keeps its pages and free returns them); smaller ones are not kept. */
#ifndef PW_WARM_BUFFERS_H
#define PW_WARM_BUFFERS_H

#include <stddef.h>
#include <stdint.h>

#define PW_WARM_IDLE_NS INT64_C(1000000000)

/* A kept buffer: the smallest of at least want bytes, else the largest; NULL when none is kept.
 * *ret_cap: its size. The caller owns it (free or pw_warm_give). */
void *pw_warm_take(size_t want, size_t *ret_cap);

/* Keep p (malloc'ed; NULL: nothing) for the next taker, or free it when it is small or the keep
 * is full. */
void pw_warm_give(void *p);

/* Free what is kept when nothing was taken or given for PW_WARM_IDLE_NS (now_ns: CLOCK_MONOTONIC).
 * Returns 0 when nothing is kept any more, else when to call again (CLOCK_MONOTONIC ns). */
int64_t pw_warm_drop_idle(int64_t now_ns);

/* wake(ctx) is called (from the giving thread, no lock of ours held) when a buffer is kept while
 * none was: whoever calls pw_warm_drop_idle should then look again. NULL: nobody. */
void pw_warm_set_waker(void (*wake)(void *ctx), void *ctx);

/* Free everything kept (at exit). */
void pw_warm_drop_all(void);

#endif
