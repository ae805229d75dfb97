/* http_guard.c — per-request receive deadlines, enforced by a thread that sleeps until the earliest
 * one, or for one timeout while none is set. A request never wakes it: a new deadline is a timeout
 * away, never before the thread's next wake-up (a signal per request doubled a scrape's context
 * switches and cost 15% of its latency). */
#define _GNU_SOURCE
#include "http_guard.h"

#include "clock.h"
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>

struct pw_guard_conn {
	struct pw_guard_conn *prev, *next;
	int fd;
	int64_t deadline_ns; /* 0: not waiting for a request */
	bool shed;           /* the deadline is a shedding of an idle kept-alive connection */
};

struct pw_guard {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	struct pw_guard_conn head; /* circular list of open connections */
	int64_t timeout_ns;
	int64_t wake_ns;  /* when the thread wakes next: only a deadline before it must wake it */
	unsigned open;    /* connections registered */
	unsigned shed_at; /* from this many open, idle kept-alive connections are closed at once */
	bool stop;
	uint64_t cut, shed; /* connections shut down since the last log line: late, or shed */
	/* The same since the start, for /metrics: written by the guard's thread under the lock, read
	 * by the HTTP thread without it. */
	_Atomic uint64_t cut_total, shed_total;
	struct pw_ratelimit log_limit;
};

/* Give c a deadline `after` from now (0: due at once). */
static void arm(struct pw_guard *g, struct pw_guard_conn *c, int64_t after)
{
	c->deadline_ns = pw_mono_ns() + after;
	c->shed = after == 0;
	if (c->deadline_ns < g->wake_ns)
		pthread_cond_signal(&g->wake); /* a shedding, or a timeout shortened since the sleep began */
}

static void disarm(struct pw_guard_conn *c)
{
	c->deadline_ns = 0;
}

/* Shut down every connection past its deadline; returns the earliest deadline still ahead (0: none). */
static int64_t reap(struct pw_guard *g, int64_t now)
{
	int64_t next = 0;
	uint64_t suppressed;

	for (struct pw_guard_conn *c = g->head.next; c != &g->head; c = c->next) {
		if (!c->deadline_ns)
			continue;
		if (c->deadline_ns <= now) {
			shutdown(c->fd, SHUT_RDWR);
			disarm(c);
			*(c->shed ? &g->shed : &g->cut) += 1;
			atomic_fetch_add_explicit(c->shed ? &g->shed_total : &g->cut_total, 1,
			                          memory_order_relaxed);
		} else if (!next || c->deadline_ns < next) {
			next = c->deadline_ns;
		}
	}
	if ((g->cut || g->shed) && pw_ratelimit_allow(&g->log_limit, now, &suppressed)) {
		pw_log(LOG_NOTICE,
		       "http: closed %llu connections that sent no whole request within %.3g s, and %llu "
		       "idle "
		       "ones near the connection limit",
		       (unsigned long long)g->cut, (double)g->timeout_ns / 1e9, (unsigned long long)g->shed);
		g->cut = g->shed = 0;
	}
	return next;
}

static void *guard_main(void *arg)
{
	struct pw_guard *g = arg;

	pthread_setname_np(pthread_self(), "pw-http-guard");
	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		int64_t now = pw_mono_ns(), next = reap(g, now);
		/* No deadline: any set before the next look is at least a timeout away. */
		g->wake_ns = next ? next : now + g->timeout_ns;
		struct timespec ts = {.tv_sec = g->wake_ns / 1000000000, .tv_nsec = g->wake_ns % 1000000000};
		pthread_cond_timedwait(&g->wake, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

struct pw_guard *pw_guard_new(int64_t timeout_ns, unsigned max_connections)
{
	struct pw_guard *g = calloc(1, sizeof(*g));
	pthread_condattr_t attr;
	int r;

	if (!g)
		return NULL;
	g->timeout_ns = timeout_ns;
	g->shed_at = max_connections - max_connections / 8;
	g->log_limit.period_ns = 60 * INT64_C(1000000000);
	g->head.next = g->head.prev = &g->head;
	pthread_mutex_init(&g->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&g->wake, &attr);
	pthread_condattr_destroy(&attr);
	if ((r = pthread_create(&g->thread, NULL, guard_main, g)) != 0) {
		pthread_cond_destroy(&g->wake);
		pthread_mutex_destroy(&g->lock);
		free(g);
		errno = r;
		return NULL;
	}
	return g;
}

void pw_guard_free(struct pw_guard *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->thread, NULL);
	while (g->head.next != &g->head) {
		struct pw_guard_conn *c = g->head.next;
		g->head.next = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static struct pw_guard_conn *conn_started(struct pw_guard *g, int fd)
{
	struct pw_guard_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd = fd;
	pthread_mutex_lock(&g->lock);
	c->next = g->head.next;
	c->prev = &g->head;
	g->head.next->prev = c;
	g->head.next = c;
	g->open++;
	arm(g, c, g->timeout_ns);
	pthread_mutex_unlock(&g->lock);
	return c;
}

static void conn_request_done(struct pw_guard *g, struct pw_guard_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	disarm(c);
	pthread_mutex_unlock(&g->lock);
}

static void conn_response_done(struct pw_guard *g, struct pw_guard_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	/* Near the connection limit, a kept-alive connection waiting for its next request would keep
	 * new clients queued behind it: close it now (its response is already in the kernel). */
	arm(g, c, g->open >= g->shed_at ? 0 : g->timeout_ns);
	pthread_mutex_unlock(&g->lock);
}

static void conn_closed(struct pw_guard *g, struct pw_guard_conn *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	disarm(c);
	g->open--;
	c->prev->next = c->next;
	c->next->prev = c->prev;
	pthread_mutex_unlock(&g->lock);
	free(c);
}

void pw_guard_on_connection(void *guard, struct MHD_Connection *conn, void **socket_context,
                            enum MHD_ConnectionNotificationCode code)
{
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = ci ? conn_started(guard, ci->connect_fd) : NULL;
	} else {
		conn_closed(guard, *socket_context);
		*socket_context = NULL;
	}
}

void pw_guard_on_completed(void *guard, struct MHD_Connection *conn, void **state,
                           enum MHD_RequestTerminationCode code)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	(void)state;
	(void)code;

	if (ci)
		conn_response_done(guard, ci->socket_context);
}

void pw_guard_request_received(struct pw_guard *g, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	if (ci)
		conn_request_done(g, ci->socket_context);
}

void pw_guard_stats(struct pw_guard *g, uint64_t *ret_cut, uint64_t *ret_shed)
{
	*ret_cut = atomic_load_explicit(&g->cut_total, memory_order_relaxed);
	*ret_shed = atomic_load_explicit(&g->shed_total, memory_order_relaxed);
}
