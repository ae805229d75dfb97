/* notify_send.c — libcurl options for one POST. No redirects (a receiver that moved is
 * misconfigured, and following would resend the body elsewhere), http and https only, no signals
 * (threads), TLS verification on unless the receiver says tls_insecure. */
#include "notify_send.h"

#include <stdio.h>
#include <string.h>

/* Connecting takes at most this (bounded further by the receiver's whole-request timeout): a
 * receiver that does not accept a connection in 5 s is down. */
#define CONNECT_TIMEOUT_MS 5000L

static size_t keep_answer(char *data, size_t size, size_t nmemb, void *user)
{
	struct pw_send_reply *reply = user;
	size_t len = size * nmemb, room = sizeof(reply->answer) - 1 - reply->answer_len;
	size_t take = len < room ? len : room;

	memcpy(reply->answer + reply->answer_len, data, take);
	reply->answer_len += take;
	reply->answer[reply->answer_len] = '\0';
	return len;
}

struct curl_slist *pw_send_headers(const struct pw_receiver *r)
{
	struct curl_slist *list = NULL, *grown;
	char line[sizeof(r->bearer_token) + 32];

	static const char user_agent[] = "User-Agent: perfwatchd/" PW_VERSION;
	/* Without "Expect:", libcurl would wait for a 100 Continue before sending a body over 1 KiB. */
	const char *fixed[] = {"Content-Type: application/json", user_agent, "Expect:"};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!(grown = pw_curl.slist_append(list, fixed[i])))
			goto oom;
		list = grown;
	}
	if (r->bearer_token[0]) {
		snprintf(line, sizeof(line), "Authorization: Bearer %s", r->bearer_token);
		grown = pw_curl.slist_append(list, line);
		explicit_bzero(line, sizeof(line));
		if (!grown)
			goto oom;
		list = grown;
	}
	for (uint32_t i = 0; i < r->nheaders; i++) {
		if (!(grown = pw_curl.slist_append(list, r->headers[i])))
			goto oom;
		list = grown;
	}
	return list;
oom:
	pw_curl.slist_free_all(list);
	return NULL;
}

CURL *pw_send_new(const struct pw_receiver *r, const char *url, const struct curl_slist *headers,
                  const char *body, struct pw_send_reply *reply)
{
	CURL *e = pw_curl.easy_init();
	long timeout_ms = (long)(r->timeout_ns / 1000000);

	if (!e)
		return NULL;
	memset(reply, 0, sizeof(*reply));
	pw_curl.easy_setopt(e, CURLOPT_URL, url);
	pw_curl.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	pw_curl.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	pw_curl.easy_setopt(e, CURLOPT_POSTFIELDS, body);
	pw_curl.easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	pw_curl.easy_setopt(e, CURLOPT_HTTPHEADER, headers);
	pw_curl.easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
	pw_curl.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
	                    timeout_ms < CONNECT_TIMEOUT_MS ? timeout_ms : CONNECT_TIMEOUT_MS);
	pw_curl.easy_setopt(e, CURLOPT_ERRORBUFFER, reply->error);
	pw_curl.easy_setopt(e, CURLOPT_WRITEFUNCTION, keep_answer);
	pw_curl.easy_setopt(e, CURLOPT_WRITEDATA, reply);
	if (r->basic_user[0]) {
		pw_curl.easy_setopt(e, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		pw_curl.easy_setopt(e, CURLOPT_USERNAME, r->basic_user);
		pw_curl.easy_setopt(e, CURLOPT_PASSWORD, r->basic_password);
	}
	if (r->ca_file[0])
		pw_curl.easy_setopt(e, CURLOPT_CAINFO, r->ca_file);
	if (r->tls_insecure) {
		pw_curl.easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		pw_curl.easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return e;
}

enum pw_send_outcome pw_send_outcome(CURLcode code, long status)
{
	if (code != CURLE_OK)
		return PW_SEND_RETRY;
	if (status >= 200 && status < 300)
		return PW_SEND_OK;
	/* 408 and 429 say "not now"; 5xx is the receiver's trouble, not the message's. */
	if (status == 408 || status == 429 || status >= 500)
		return PW_SEND_RETRY;
	return PW_SEND_REJECTED;
}
