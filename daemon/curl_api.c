/* curl_api.c — libcurl through dlopen() (curl_api.h). */
#include "curl_api.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>

#ifndef PW_LIBCURL_SONAME
#error "PW_LIBCURL_SONAME: the build names the libcurl the headers belong to (the top CMakeLists.txt)"
#endif

struct pw_curl_api pw_curl;

/* Each entry: where the pointer goes and the symbol's name. */
#define PW_CURL_SYMBOLS(X)                                                                                   \
	X(global_init)                                                                                       \
	X(global_cleanup)                                                                                    \
	X(easy_init)                                                                                         \
	X(easy_setopt)                                                                                       \
	X(easy_getinfo)                                                                                      \
	X(easy_strerror)                                                                                     \
	X(easy_cleanup)                                                                                      \
	X(multi_init)                                                                                        \
	X(multi_add_handle)                                                                                  \
	X(multi_remove_handle)                                                                               \
	X(multi_perform)                                                                                     \
	X(multi_poll)                                                                                        \
	X(multi_wakeup)                                                                                      \
	X(multi_info_read)                                                                                   \
	X(multi_cleanup)                                                                                     \
	X(slist_append)                                                                                      \
	X(slist_free_all)

int pw_curl_load(char *err, size_t n)
{
	static bool loaded;
	struct pw_curl_api api;
	void *lib;

	if (loaded)
		return 0;
	/* Kept for the life of the process: libcurl's global state is not meant to be unloaded. */
	if (!(lib = dlopen(PW_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL)))
		return snprintf(err, n, "cannot load libcurl (%s), needed to deliver alerts: %s",
		                PW_LIBCURL_SONAME, dlerror()),
		       -1;
#define PW_CURL_FIND(name)                                                                                   \
	if (!(*(void **)&api.name = dlsym(lib, "curl_" #name)))                                              \
		return snprintf(err, n, "%s has no curl_%s: %s", PW_LIBCURL_SONAME, #name, dlerror()), -1;
	PW_CURL_SYMBOLS(PW_CURL_FIND)
#undef PW_CURL_FIND
	pw_curl = api;
	loaded = true;
	return 0;
}
