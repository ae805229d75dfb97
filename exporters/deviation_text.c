/* deviation_text.c — signals far from their baselines, in words a person reads. */
#include "deviation_text.h"

#include <stdio.h>
#include <string.h>

/* Figures to the precision a person needs: 190000/s, 38%, 0.4%. */
static int digits(double v)
{
	return v < 0 ? digits(-v) : v >= 10 ? 0 : 1;
}

int pw_deviation_text(const struct pw_deviation *dev, char *buf, size_t len)
{
	double v = dev->value, b = dev->baseline;
	const char *of = dev->cpu >= 0 ? "of the CPU" : "of the CPUs";

	switch (dev->unit) {
	case PW_UNIT_SHARE:
		return snprintf(buf, len, "%s %.*f%% %s, normally %.*f%%", dev->what, digits(100 * v),
		                100 * v, of, digits(100 * b), 100 * b);
	case PW_UNIT_PERCENT:
		return snprintf(buf, len, "%s %.*f%% of the time, normally %.*f%%", dev->what, digits(v), v,
		                digits(b), b);
	case PW_UNIT_TASKS:
		return snprintf(buf, len, "%s %.1f tasks, normally %.1f", dev->what, v, b);
	case PW_UNIT_RATE:
		break;
	}
	return snprintf(buf, len, "%s %.*f/s, normally %.*f/s", dev->what, digits(v), v, digits(b), b);
}

size_t pw_deviations_text(const struct pw_detector_view *view, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	for (uint32_t i = 0; i < view->ndeviations && i < PW_DEVIATIONS_MAX && used + 1 < len; i++) {
		const struct pw_deviation *dev = &view->deviations[i];
		char one[256];
		int n = pw_deviation_text(dev, one, sizeof(one));
		if (n < 0)
			continue;
		n = snprintf(buf + used, len - used, "%s%s%s%.*s%s", i ? "; " : "", one,
		             dev->evidence[0] ? " (" : "", (int)strnlen(dev->evidence, sizeof(dev->evidence)),
		             dev->evidence, dev->evidence[0] ? ")" : "");
		if (n < 0)
			break;
		used += (size_t)n < len - used ? (size_t)n : len - used - 1;
	}
	return used;
}
