/* notify_send.h — one delivery attempt as a libcurl easy handle: a JSON POST with the receiver's
 * authentication, headers, TLS settings and timeouts, and what its outcome means for the queue. */
#ifndef PW_NOTIFY_SEND_H
#define PW_NOTIFY_SEND_H

#include "receiver.h"

#include "curl_api.h"

/* What the attempt left behind, for the log: libcurl's error and the first bytes of the answer. */
struct pw_send_reply {
	char error[CURL_ERROR_SIZE];
	char answer[128];
	size_t answer_len;
};

enum pw_send_outcome {
	PW_SEND_OK,       /* 2xx: delivered */
	PW_SEND_RETRY,    /* network error, timeout, 5xx, 408, 429: try again later */
	PW_SEND_REJECTED, /* any other status: the receiver will never take it; drop it */
};

/* The request headers of a receiver: Content-Type, User-Agent, Authorization (bearer), its own.
 * NULL when out of memory. Free with curl_slist_free_all. */
struct curl_slist *pw_send_headers(const struct pw_receiver *receiver);

/* An easy handle POSTing body (borrowed: must live until the transfer ends) to url, with headers
 * (borrowed) and the receiver's timeout, basic auth and TLS settings; reply receives the error text
 * and the answer's first bytes. NULL when out of memory. */
CURL *pw_send_new(const struct pw_receiver *receiver, const char *url, const struct curl_slist *headers,
                  const char *body, struct pw_send_reply *reply);

/* Classify a finished transfer. */
enum pw_send_outcome pw_send_outcome(CURLcode code, long status);

#endif
