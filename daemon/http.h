/* http.h — the HTTP endpoints (libmicrohttpd, one internal polling thread): /metrics, /status,
 * /healthz. Handlers only read the sampler's rings; a scrape never touches /proc. */
#ifndef PW_HTTP_H
#define PW_HTTP_H

#include "detector_thread.h"
#include "notifier.h"
#include "options.h"
#include "sampler.h"

#include <stddef.h>

struct pw_http;

/* Listen on opts->listen_addr and serve from sampler, detector_thread and notifier (NULL: no receivers)
 * (borrowed; must outlive the server). Returns NULL with a reason in err on failure (port in use,
 * bad address, allocation). */
struct pw_http *pw_http_start(const struct pw_options *opts, const struct pw_sampler *sampler,
                              const struct pw_detector_thread *detector_thread, struct pw_notifier *notifier,
                              char *err, size_t err_size);

/* A reloaded [auth] section: a new checker (users, hashes, protected endpoints; empty caches) that
 * the HTTP thread adopts before its next request, so a request is judged by the old or the new
 * section, never a mix, and no thread frees what another uses. Per-client failure records and
 * the bcrypt budget carry over. Any thread; returns 0 or -ENOMEM (the old section stays). */
int pw_http_reconfigure_auth(struct pw_http *http, const struct pw_auth_config *cfg);

/* Stop accepting, close connections, free; accepts NULL. */
void pw_http_stop(struct pw_http *http);

#endif
