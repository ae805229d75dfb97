/* rules_internal.h — what the rule files share: the rule signature, the helpers rules.c keeps for
 * headlines, severities and evidence lists, and each family's rules for rules.c's table. Included
 * only by rules*.c; the detector sees nothing but pw_rule_evaluate (detector_internal.h). */
#ifndef PW_RULES_INTERNAL_H
#define PW_RULES_INTERNAL_H

#include "detector_internal.h"

#define PCT(x) (100.0 * (x))

/* A rule: whether its condition holds on now under its settings rc and, if it does, a filled in
 * (value, baseline, spread, severity, scope, summary, description, evidence). a arrives zeroed but
 * for its name. Pure: reads d, writes only a. */
typedef bool (*pw_rule_fn)(const struct pw_detector *d, const struct pw_now *now,
                           const struct pw_rule_config *rc, struct pw_alert *a);

/* rules.c: the helpers (their contracts are there). */
void pw_rule_set_scope(struct pw_alert *a, const char *scope);
enum pw_severity pw_rule_severity_above(double value, double critical);
enum pw_severity pw_rule_severity_below(double value, double critical);
void pw_rule_headline_share_above(struct pw_alert *a, double value, const struct pw_baseline *b,
                                  double critical);
bool pw_rule_high(const struct pw_detector *d, const struct pw_baseline *b, double value, double threshold,
                  double sigmas, double floor);
uint32_t pw_rule_top_slot(void *arr, size_t size, float *keys, uint32_t *n, uint32_t cap, float key);

/* rules_interrupts.c */
bool pw_rule_interrupt_time_high(const struct pw_detector *d, const struct pw_now *now,
                                 const struct pw_rule_config *rc, struct pw_alert *a);
bool pw_rule_interrupt_rate_drop(const struct pw_detector *d, const struct pw_now *now,
                                 const struct pw_rule_config *rc, struct pw_alert *a);
/* rules_cpu.c */
bool pw_rule_cpu_frequency_low(const struct pw_detector *d, const struct pw_now *now,
                               const struct pw_rule_config *rc, struct pw_alert *a);
bool pw_rule_system_time_high(const struct pw_detector *d, const struct pw_now *now,
                              const struct pw_rule_config *rc, struct pw_alert *a);
bool pw_rule_steal_high(const struct pw_detector *d, const struct pw_now *now,
                        const struct pw_rule_config *rc, struct pw_alert *a);
/* rules_memory_io.c */
bool pw_rule_memory_swapping(const struct pw_detector *d, const struct pw_now *now,
                             const struct pw_rule_config *rc, struct pw_alert *a);
bool pw_rule_iowait_high(const struct pw_detector *d, const struct pw_now *now,
                         const struct pw_rule_config *rc, struct pw_alert *a);
/* The conditions of MemorySwapping and IoWaitHigh on this sample: other rules defer to them (the
 * handler time of block completions, the kernel time of page reclaim). */
bool pw_rule_memory_holds(const struct pw_detector *d, const struct pw_now *now);
bool pw_rule_io_stall_holds(const struct pw_detector *d, const struct pw_now *now);

#endif
