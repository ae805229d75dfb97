/* status_text.h — /status as one screenful of plain text for a person at a terminal. */
#ifndef PW_STATUS_TEXT_H
#define PW_STATUS_TEXT_H

#include "outbuf.h"
#include "status_json.h"

/* Append the text rendering of the /status document to o. Returns 0, or -1 on allocation failure. */
int pw_status_render_text(struct pw_outbuf *o, const struct pw_sample *sample,
                          const struct pw_status_self *self);

#endif
