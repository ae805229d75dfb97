/* http_respond.c — the headers every answer carries, and queueing it. */
#include "http_respond.h"

enum MHD_Result pw_http_queue(struct MHD_Connection *conn, unsigned status, struct MHD_Response *resp,
                              const char *type, const char *encoding)
{
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
