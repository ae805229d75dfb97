/* history_points.h — history points as a real run leaves them, for the store's and /history's
 * suites. */
#ifndef PW_TEST_HISTORY_POINTS_H
#define PW_TEST_HISTORY_POINTS_H

#include "history.h"

#include <stdint.h>

/* Interrupt line k of p: irq, at rate (NAN: not known yet). */
void pw_test_set_line(struct pw_history_point *p, int k, const char *irq, float rate);

/* Point i of a small run on a host with up to 4 CPUs (cpu_cap at most), the first at t0 (points a
 * second apart, give or take milliseconds): with the gaps a real run has (a share, a PSI file, a
 * rate or a meminfo field not known, a CPU that came online, lines whose ranking changed, a daemon
 * restart at points 0 and 4). */
void pw_test_history_point(struct pw_history_point *p, uint32_t cpu_cap, uint32_t i, int64_t t0);

#endif
