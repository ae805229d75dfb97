/* http_stats.h — what the HTTP server reports about the connections and logins it refused, as
 * plain data: the daemon's HTTP server fills it, the Prometheus exporter renders it (http_prom.c).
 * A fixed, small series set: no per-client labels. */
#ifndef PW_HTTP_STATS_H
#define PW_HTTP_STATS_H

#include "outbuf.h"

#include <stdbool.h>
#include <stdint.h>

struct pw_http_stats {
	uint64_t cut_deadline;         /* connections shut down: no whole request within the timeout */
	uint64_t cut_shed;             /* kept-alive connections closed near the connection limit */
	uint64_t auth_bad_credentials; /* 401: missing or wrong credentials on a protected endpoint */
	uint64_t auth_throttled;       /* 429: failure budget or bcrypt budget exhausted */
};

/* Append the HTTP server's families (text 0.0.4, or OpenMetrics when om) to out. Pure; the caller
 * checks pw_outbuf_ok. */
void pw_http_prom_render(struct pw_outbuf *out, bool om, const struct pw_http_stats *stats);

#endif
