/* history_stream.c — chunks from the history thread to libmicrohttpd's. Both sides hold a reference:
 * the writer until pw_history_stream_end, the response until MHD destroys it (sent, or the client
 * gone); the last one out frees the stream. */
#include "history_stream.h"

#include "warm_buffers.h"

#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What MHD reads at a time into the response's own buffer (kept below the mmap threshold). */
#define STREAM_BLOCK_BYTES (64u * 1024)
/* Chunks sent are kept for the writer to fill again, up to this many: a fresh buffer per chunk was
 * a mapping made, faulted in and unmapped per block of the answer, and with the reader running on
 * the other CPU each unmapping interrupts it to flush its TLB. */
#define SPARES_MAX 2

struct chunk {
	struct chunk *next;
	char *data;
	size_t len, cap, off; /* off: sent so far */
};

struct pw_history_stream {
	pthread_mutex_t lock;
	struct MHD_Connection *conn;
	struct chunk *head, *tail;
	struct chunk *spares; /* sent, their buffers kept for the writer */
	unsigned nspares;
	int refs;
	bool ended, failed;
	bool waiting;     /* the reader found nothing and suspended the connection */
	bool reader_gone; /* MHD destroyed the response */
};

static void chunk_free(struct chunk *c)
{
	if (c)
		pw_warm_give(c->data); /* the next answer's chunks (warm_buffers.h) */
	free(c);
}

static void chunks_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		chunk_free(c);
		c = next;
	}
}

static void unref(struct pw_history_stream *s)
{
	pthread_mutex_lock(&s->lock);
	bool last = --s->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (!last)
		return;
	chunks_free(s->head);
	chunks_free(s->spares);
	pthread_mutex_destroy(&s->lock);
	free(s);
	malloc_trim(0); /* the chunks were megabytes; hand the heap's free pages back */
}

/* MHD's thread: the next bytes of the answer into buf. */
static ssize_t stream_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct pw_history_stream *s = cls;
	struct chunk *spent = NULL;
	ssize_t n = 0;
	(void)pos;

	pthread_mutex_lock(&s->lock);
	struct chunk *c = s->head;
	if (c) {
		size_t k = c->len - c->off < max ? c->len - c->off : max;
		memcpy(buf, c->data + c->off, k);
		c->off += k;
		if (c->off == c->len) {
			s->head = c->next;
			if (!s->head)
				s->tail = NULL;
			if (s->nspares < SPARES_MAX && !s->ended) {
				c->next = s->spares;
				s->spares = c;
				s->nspares++;
			} else {
				spent = c;
			}
		}
		n = (ssize_t)k;
	} else if (s->ended) {
		n = s->failed ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
	} else {
		/* Nothing yet: returning 0 alone would make MHD's thread spin; suspended, it serves the
		 * other connections, and the next push resumes this one. */
		s->waiting = true;
		MHD_suspend_connection(s->conn);
	}
	pthread_mutex_unlock(&s->lock);
	chunk_free(spent);
	return n;
}

static void stream_gone(void *cls)
{
	struct pw_history_stream *s = cls;
	pthread_mutex_lock(&s->lock);
	s->reader_gone = true;
	pthread_mutex_unlock(&s->lock);
	unref(s);
}

struct pw_history_stream *pw_history_stream_new(struct MHD_Connection *conn, struct MHD_Response **ret_resp)
{
	struct pw_history_stream *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->conn = conn;
	s->refs = 2;
	*ret_resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_BLOCK_BYTES, stream_read, s,
	                                              stream_gone);
	if (!*ret_resp) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return NULL;
	}
	return s;
}

/* Unlock s, and resume the connection if the reader waits: outside the lock, for MHD takes a lock
 * of its own. */
static void unlock_and_wake(struct pw_history_stream *s)
{
	bool wake = s->waiting && !s->reader_gone;
	s->waiting = false;
	pthread_mutex_unlock(&s->lock);
	if (wake)
		MHD_resume_connection(s->conn);
}

int pw_history_stream_push(struct pw_history_stream *s, struct pw_outbuf *out)
{
	pthread_mutex_lock(&s->lock);
	if (s->reader_gone) {
		pthread_mutex_unlock(&s->lock);
		return -EPIPE;
	}
	if (out->len == 0) {
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	struct chunk *c = s->spares;
	if (c) {
		s->spares = c->next;
		s->nspares--;
	} else if ((c = malloc(sizeof(*c)))) {
		*c = (struct chunk){0};
		c->data = pw_warm_take(out->len, &c->cap);
	} else {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	/* Down to its length: the renderer's slack was faulted in, and a client that does not read
	 * keeps the chunk for as long as it stays. */
	char *fit = out->cap > out->len ? realloc(out->data, out->len) : NULL;
	if (fit)
		out->data = fit, out->cap = out->len;
	/* The chunk takes out's bytes, and out a spare's buffer (or none) to write the next in. */
	struct chunk filled = {.data = out->data, .len = out->len, .cap = out->cap};
	pw_outbuf_init(out);
	out->data = c->data;
	out->cap = c->cap;
	*c = filled;
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	unlock_and_wake(s);
	return 0;
}

void pw_history_stream_end(struct pw_history_stream *s, bool failed)
{
	pthread_mutex_lock(&s->lock);
	s->ended = true;
	s->failed = failed;
	unlock_and_wake(s);
	unref(s);
}
