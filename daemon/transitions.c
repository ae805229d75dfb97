/* transitions.c — the bounded alert transition log behind /history's "transitions". */
#include "transitions.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pw_transitions {
	pthread_mutex_t lock; /* held only while copying records */
	size_t cap, n, next;  /* ring of cap records; next = where the next one goes */
	struct pw_history_transition records[];
};

struct pw_transitions *pw_transitions_new(size_t cap)
{
	struct pw_transitions *log;

	if (cap == 0 || !(log = calloc(1, sizeof(*log) + cap * sizeof(log->records[0]))))
		return NULL;
	pthread_mutex_init(&log->lock, NULL);
	log->cap = cap;
	return log;
}

void pw_transitions_free(struct pw_transitions *log)
{
	if (!log)
		return;
	pthread_mutex_destroy(&log->lock);
	free(log);
}

void pw_transition_compact(const struct pw_alert_event *ev, struct pw_history_transition *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->real_ns = ev->real_ns;
	ret->alert = (uint8_t)ev->alert.name;
	ret->from = (uint8_t)ev->from;
	ret->to = (uint8_t)ev->alert.state;
	ret->severity = (uint8_t)ev->alert.severity;
	snprintf(ret->scope, sizeof(ret->scope), "%s", ev->alert.scope);
	ret->value = ev->alert.value;
	ret->baseline = ev->alert.baseline;
}

void pw_transitions_record(struct pw_transitions *log, const struct pw_alert_event *events, size_t n)
{
	struct pw_history_transition rec;

	for (size_t i = 0; log && i < n; i++) {
		pw_transition_compact(&events[i], &rec); /* outside the lock */
		pthread_mutex_lock(&log->lock);
		log->records[log->next] = rec;
		log->next = (log->next + 1) % log->cap;
		if (log->n < log->cap)
			log->n++;
		pthread_mutex_unlock(&log->lock);
	}
}

size_t pw_transitions_copy(const struct pw_transitions *log, struct pw_history_transition *ret, size_t cap)
{
	struct pw_transitions *l = (struct pw_transitions *)log; /* the lock is not part of the value */
	size_t n;

	if (!log)
		return 0;
	pthread_mutex_lock(&l->lock);
	n = l->n < cap ? l->n : cap;
	for (size_t i = 0; i < n; i++)
		ret[i] = l->records[(l->next + l->cap - n + i) % l->cap];
	pthread_mutex_unlock(&l->lock);
	return n;
}
