/* text_escape.h — bytes from outside (a process name, an interrupt's device name) made safe to show
 * in free text: a terminal reading /status, a log line, a JSON document.
 *
 * Kept: printable ASCII (0x20-0x7e) and every valid UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing past U+10FFFF) of U+00A0 and above. Escaped as "\xNN" (two lowercase hex
 * digits), one escape per byte: the C0 controls (0x00-0x1f: ESC, CR, LF, BEL, ...), DEL (0x7f), the
 * C1 controls U+0080-U+009F (both bytes of their encoding, "\xc2\x9b"), and every byte that is not
 * part of a valid sequence (a lone 0x9b or 0xff, a cut or overlong sequence). So the result is
 * valid, printable UTF-8, and each "\xNN" names the original byte.
 *
 * A backslash is left as it is: the escaping is then idempotent (escaping an escaped text changes
 * nothing), so every layer may apply it without double escapes ("\x1b" never becomes "\x5cx1b").
 * The price: a name that holds the four characters "\x1b" reads the same as one holding ESC.
 * Other Unicode (U+2028, bidirectional overrides) is kept: it is not a control of a terminal or a
 * log line. */
#ifndef PW_TEXT_ESCAPE_H
#define PW_TEXT_ESCAPE_H

#include <stddef.h>

/* Escape src[0..len) (any bytes, NUL included) into buf, at most size - 1 bytes and a NUL, cut
 * before the first byte, escape or character that does not fit whole. Returns the length the
 * whole escaped text has, as snprintf does (the result was cut when it is >= size); size 0 only
 * measures (buf may then be NULL). It is len exactly when nothing needed escaping. Pure,
 * thread-safe. */
size_t pw_text_escape(const char *src, size_t len, char *buf, size_t size);

#endif
