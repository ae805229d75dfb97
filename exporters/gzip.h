/* gzip.h — gzip (RFC 1952) a rendered body for clients that send Accept-Encoding: gzip. */
#ifndef PW_GZIP_H
#define PW_GZIP_H

#include "outbuf.h"

/* True when an Accept-Encoding header value (may be NULL) accepts gzip (q != 0). */
bool pw_gzip_accepted(const char *accept_encoding);

/* Replace out's contents with gzip of in[0..len) (out reset first). Returns 0, -ENOMEM or -EIO. */
int pw_gzip_compress(const char *in, size_t len, struct pw_outbuf *out);

#endif
