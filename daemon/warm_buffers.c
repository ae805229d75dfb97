/* warm_buffers.c — big buffers kept between /history answers (warm_buffers.h). */
#define _GNU_SOURCE
#include "warm_buffers.h"

#include "clock.h"

#include <malloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#define KEEP_MIN_BYTES (256u << 10) /* below this malloc's heap serves it warm anyway */
#define KEEP_MAX 8                  /* the points and the text of an answer, a few chunks */
#define KEEP_MAX_BYTES (16u << 20)  /* an hour of a 16-CPU host is ~8 MB of buffers */

static struct kept {
	void *p;
	size_t cap;
} kept[KEEP_MAX];
static unsigned nkept;
static size_t kept_bytes;
static int64_t last_use_ns;
static void (*waker)(void *ctx);
static void *waker_ctx;
static unsigned waking; /* calls of waker under way */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t woken = PTHREAD_COND_INITIALIZER;

void pw_warm_set_waker(void (*wake)(void *ctx), void *ctx)
{
	pthread_mutex_lock(&lock);
	waker = wake;
	waker_ctx = ctx;
	while (waking) /* the old waker's ctx may be freed once this returns */
		pthread_cond_wait(&woken, &lock);
	pthread_mutex_unlock(&lock);
}

/* For want bytes: one that fits beats one that does not; of those that fit the smallest, of the
 * others the largest (realloc grows it, its pages kept). */
static bool better(size_t cap, size_t than, size_t want)
{
	if ((cap >= want) != (than >= want))
		return cap >= want;
	return cap >= want ? cap < than : cap > than;
}

void *pw_warm_take(size_t want, size_t *ret_cap)
{
	void *p = NULL;
	int best = -1;

	*ret_cap = 0;
	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < nkept; i++)
		if (best < 0 || better(kept[i].cap, kept[best].cap, want))
			best = (int)i;
	if (best >= 0) {
		p = kept[best].p;
		*ret_cap = kept[best].cap;
		kept_bytes -= kept[best].cap;
		kept[best] = kept[--nkept];
	}
	last_use_ns = pw_mono_ns();
	pthread_mutex_unlock(&lock);
	return p;
}

void pw_warm_give(void *p)
{
	if (!p)
		return;
	size_t cap = malloc_usable_size(p);
	void (*wake)(void *) = NULL;
	void *ctx = NULL;
	pthread_mutex_lock(&lock);
	last_use_ns = pw_mono_ns();
	if (cap >= KEEP_MIN_BYTES && nkept < KEEP_MAX && kept_bytes + cap <= KEEP_MAX_BYTES) {
		if (nkept == 0 && waker) {
			wake = waker, ctx = waker_ctx;
			waking++;
		}
		kept[nkept++] = (struct kept){p, cap};
		kept_bytes += cap;
		p = NULL;
	}
	pthread_mutex_unlock(&lock);
	free(p);
	if (!wake)
		return;
	wake(ctx);
	pthread_mutex_lock(&lock);
	if (--waking == 0)
		pthread_cond_broadcast(&woken);
	pthread_mutex_unlock(&lock);
}

/* Called with the lock held: the buffers, to free outside it. */
static unsigned take_all(void **out)
{
	unsigned n = nkept;
	for (unsigned i = 0; i < n; i++)
		out[i] = kept[i].p;
	nkept = 0;
	kept_bytes = 0;
	return n;
}

int64_t pw_warm_drop_idle(int64_t now_ns)
{
	void *drop[KEEP_MAX];
	unsigned n = 0;

	pthread_mutex_lock(&lock);
	if (now_ns - last_use_ns >= PW_WARM_IDLE_NS)
		n = take_all(drop);
	int64_t next = nkept ? last_use_ns + PW_WARM_IDLE_NS : 0;
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < n; i++)
		free(drop[i]);
	return next;
}

void pw_warm_drop_all(void)
{
	void *drop[KEEP_MAX];

	pthread_mutex_lock(&lock);
	unsigned n = take_all(drop);
	pthread_mutex_unlock(&lock);
	for (unsigned i = 0; i < n; i++)
		free(drop[i]);
}
