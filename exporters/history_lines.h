/* history_lines.h — which slot of a history point holds each interrupt line a /history answer
 * shows, found once per point rather than by name for every value.
 *
 * A point keeps PW_HISTORY_LINES lines by name; neighbouring points nearly always keep the same
 * names in the same slots, so the slots found for one point serve the next whose names are the
 * same bytes. Not thread-safe: one per render. */
#ifndef PW_HISTORY_LINES_H
#define PW_HISTORY_LINES_H

#include "history.h"

#include <math.h>

#define PW_HISTORY_LINES_SHOWN 16 /* lines an answer shows at most */

struct pw_history_line_slots {
	const char (*names)[PW_IRQ_NAME_MAX]; /* [n]: the lines looked for; outlive this */
	uint32_t n;
	const struct pw_history_point *p;             /* slot[] is for p; NULL: no point yet */
	char seen[PW_HISTORY_LINES][PW_IRQ_NAME_MAX]; /* p's line names when slot[] was found */
	int8_t slot[PW_HISTORY_LINES_SHOWN];          /* of names[i] in p, or -1 */
};

/* Look for names[0..n) (n <= PW_HISTORY_LINES_SHOWN). */
void pw_history_line_slots_init(struct pw_history_line_slots *s, const char (*names)[PW_IRQ_NAME_MAX],
                                uint32_t n);

/* Find the slots of p (after pw_history_line_rate() missed them). */
void pw_history_line_slots_find(struct pw_history_line_slots *s, const struct pw_history_point *p);

/* The rate of names[i] in p as pw_history_series_get() reads it (the first slot of that name;
 * NAN when none). */
static inline double pw_history_line_rate(struct pw_history_line_slots *s, uint32_t i,
                                          const struct pw_history_point *p)
{
	if (s->p != p)
		pw_history_line_slots_find(s, p);
	return s->slot[i] < 0 ? NAN : p->lines[s->slot[i]].rate;
}

#endif
