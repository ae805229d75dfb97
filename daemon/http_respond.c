/* http_respond.c — the headers every answer carries, and queueing it. */
#include "http_respond.h"

#include <stdio.h>
#include <string.h>

#define CSP "Content-Security-Policy"
#define NO_FRAMES "frame-ancestors 'none'"

void pw_http_safety_headers(struct MHD_Response *resp)
{
	const char *csp = MHD_get_response_header(resp, CSP);
	char old[1024], merged[sizeof(old) + sizeof(NO_FRAMES) + 2];

	/* One policy: a second header would apply too, but one reads better. */
	if (!csp) {
		MHD_add_response_header(resp, CSP, NO_FRAMES);
	} else if (!strstr(csp, "frame-ancestors")) {
		if (strlen(csp) < sizeof(old)) {
			snprintf(old, sizeof(old), "%s", csp);
			snprintf(merged, sizeof(merged), "%s; " NO_FRAMES, old);
			MHD_del_response_header(resp, CSP, old);
			MHD_add_response_header(resp, CSP, merged);
		} else {
			MHD_add_response_header(resp, CSP, NO_FRAMES);
		}
	}
	if (!MHD_get_response_header(resp, "X-Content-Type-Options"))
		MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
}

enum MHD_Result pw_http_queue(struct MHD_Connection *conn, unsigned status, struct MHD_Response *resp,
                              const char *type, const char *encoding)
{
	pw_http_safety_headers(resp);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (encoding)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, encoding);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	enum MHD_Result r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

enum MHD_Result pw_http_respond(struct MHD_Connection *conn, unsigned status, const char *type,
                                const char *body, size_t len, const char *encoding)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);

	return resp ? pw_http_queue(conn, status, resp, type, encoding) : MHD_NO;
}
