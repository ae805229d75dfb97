/* http_tls.h — the HTTPS certificate and key: read whole at start, checked with GnuTLS (the library
 * Debian's libmicrohttpd uses) so a missing, unreadable, garbage or mismatched file is one clear
 * message at start and in --check-config, never a silent plain-HTTP fallback. */
#ifndef PW_HTTP_TLS_H
#define PW_HTTP_TLS_H

#include <stddef.h>

/* Used when --tls-priorities is not given: GnuTLS defaults without TLS 1.0 and 1.1. */
#define PW_TLS_DEFAULT_PRIORITIES "NORMAL:-VERS-TLS1.0:-VERS-TLS1.1"

/* PEM text of a certificate chain and its private key, NUL-terminated, malloc'd. */
struct pw_tls_material {
	char *cert;
	char *key;
};

/* Read cert_path and key_path, check that both parse, that the key belongs to the first
 * certificate and that priorities is a valid GnuTLS priority string. Returns 0 with the PEM text
 * in *ret (release with pw_tls_material_done), or -errno with "what: why" in err, *ret untouched. */
int pw_tls_load(const char *cert_path, const char *key_path, const char *priorities,
                struct pw_tls_material *ret, char *err, size_t err_size);

/* Wipe and free the key, free the certificate; accepts a zeroed struct. */
void pw_tls_material_done(struct pw_tls_material *m);

#endif
