/* history_lines.c — see history_lines.h. */
#include "history_lines.h"

#include <string.h>

void pw_history_line_slots_init(struct pw_history_line_slots *s, const char (*names)[PW_IRQ_NAME_MAX],
                                uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->names = names;
	s->n = n < PW_HISTORY_LINES_SHOWN ? n : PW_HISTORY_LINES_SHOWN;
}

static bool same_names(const struct pw_history_line_slots *s, const struct pw_history_point *p)
{
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		if (memcmp(s->seen[k], p->lines[k].irq, PW_IRQ_NAME_MAX) != 0)
			return false;
	return true;
}

void pw_history_line_slots_find(struct pw_history_line_slots *s, const struct pw_history_point *p)
{
	bool had = s->p != NULL;
	s->p = p;
	/* strncmp reads no byte but these: the same bytes, the same slots. */
	if (had && same_names(s, p))
		return;
	for (int k = 0; k < PW_HISTORY_LINES; k++)
		memcpy(s->seen[k], p->lines[k].irq, PW_IRQ_NAME_MAX);
	for (uint32_t i = 0; i < s->n; i++) {
		s->slot[i] = -1;
		for (int k = 0; k < PW_HISTORY_LINES && s->slot[i] < 0; k++)
			if (p->lines[k].irq[0] && strncmp(p->lines[k].irq, s->names[i], PW_IRQ_NAME_MAX) == 0)
				s->slot[i] = (int8_t)k;
	}
}
