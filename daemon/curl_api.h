/* curl_api.h — libcurl, loaded with dlopen() when the first receiver needs it.
 *
 * Why not linked: libcurl brings about twenty libraries (OpenSSL's libcrypto through libssh2,
 * Kerberos, LDAP, ...) whose relocated data alone is ~600 KiB of private memory in every process
 * that loads them, and a perfwatchd without receivers (scraped by Prometheus, which alerts) never
 * sends a byte with it. The build records the library's SONAME (PW_LIBCURL_SONAME), so the one
 * the headers describe is the one loaded. Call sites use pw_curl.NAME where libcurl's API has
 * curl_NAME. */
#ifndef PW_CURL_API_H
#define PW_CURL_API_H

#include <curl/curl.h>

#include <stddef.h>

struct pw_curl_api {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_global_cleanup) *global_cleanup;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_multi_init) *multi_init;
	__typeof__(curl_multi_add_handle) *multi_add_handle;
	__typeof__(curl_multi_remove_handle) *multi_remove_handle;
	__typeof__(curl_multi_perform) *multi_perform;
	__typeof__(curl_multi_poll) *multi_poll;
	__typeof__(curl_multi_wakeup) *multi_wakeup;
	__typeof__(curl_multi_info_read) *multi_info_read;
	__typeof__(curl_multi_cleanup) *multi_cleanup;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
};

/* Filled by pw_curl_load(); read-only after it. */
extern struct pw_curl_api pw_curl;

/* Load libcurl and find its functions, once (later calls return at once). Call it before any
 * thread uses pw_curl. Returns 0, or -1 with the reason in err. */
int pw_curl_load(char *err, size_t n);

#endif
