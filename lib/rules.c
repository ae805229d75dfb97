/* rules.c — the rule table: which rule judges which alert, whether its figures exist in this sample,
 * and the helpers every rule uses for its headline, severity and evidence lists. The rules
 * themselves, one file per family: rules_interrupts.c, rules_cpu.c, rules_memory_io.c. */
#include "rules_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void pw_rule_set_scope(struct pw_alert *a, const char *scope)
{
	snprintf(a->scope, sizeof(a->scope), "%s", scope);
}

enum pw_severity pw_rule_severity_above(double value, double critical)
{
	return value >= critical ? PW_SEVERITY_CRITICAL : PW_SEVERITY_WARNING;
}

enum pw_severity pw_rule_severity_below(double value, double critical)
{
	return value <= critical ? PW_SEVERITY_CRITICAL : PW_SEVERITY_WARNING;
}

/* The headline of a rule on a share of CPU time that rose above its baseline. */
void pw_rule_headline_share_above(struct pw_alert *a, double value, const struct pw_baseline *b,
                                  double critical)
{
	a->value = value;
	a->baseline = b->mean;
	a->spread = pw_baseline_spread(b, PW_SHARE_SPREAD_FLOOR);
	a->severity = pw_rule_severity_above(value, critical);
}

/* Unusually high against a baseline that has learned through the warmup (a CPU or a source that
 * appeared later is not compared with a few samples), and big enough to matter. */
bool pw_rule_high(const struct pw_detector *d, const struct pw_baseline *b, double value, double threshold,
                  double sigmas, double floor)
{
	return isfinite(value) && value >= threshold && pw_baseline_learned(b, pw_warmup_s(d)) &&
	       pw_baseline_score(b, value, floor) >= sigmas;
}

/* Bounded insertion for the evidence lists, which keep the cap entries with the highest keys in
 * descending order. keys[] runs parallel to arr (*n entries of size bytes). Makes room for an entry
 * with key and returns its slot (to fill by the caller), or cap when it does not make the cut. */
uint32_t pw_rule_top_slot(void *arr, size_t size, float *keys, uint32_t *n, uint32_t cap, float key)
{
	char *a = arr;
	uint32_t at = *n < cap ? (*n)++ : cap;

	for (; at > 0 && keys[at - 1] < key; at--) {
		if (at < cap) {
			memcpy(a + at * size, a + (at - 1) * size, size);
			keys[at] = keys[at - 1];
		}
	}
	if (at < cap)
		keys[at] = key;
	return at;
}

/* Whether the rule's figures exist in this sample at all (a source down, a reset, the first sample). */
static bool inputs_known(const struct pw_detector *d, enum pw_alert_name name, const struct pw_now *now)
{
	const double *h = now->host;

	(void)d;
	switch (name) {
	case PW_ALERT_INTERRUPT_TIME_HIGH:
		return isfinite(h[PW_SIG_IRQ]);
	case PW_ALERT_CPU_FREQUENCY_LOW:
		return (now->sample->derived.valid & PW_DERIVED_SHARES) != 0;
	case PW_ALERT_INTERRUPT_RATE_DROP:
		return isfinite(h[PW_SIG_INTR_RATE]);
	case PW_ALERT_MEMORY_SWAPPING:
		return isfinite(h[PW_SIG_SWAP_OUT]) || isfinite(h[PW_SIG_SWAP_IN]);
	case PW_ALERT_IOWAIT_HIGH:
		return isfinite(h[PW_SIG_IOWAIT]);
	case PW_ALERT_SYSTEM_TIME_HIGH:
		return isfinite(h[PW_SIG_SYSTEM]);
	case PW_ALERT_STEAL_HIGH:
		return isfinite(h[PW_SIG_STEAL]);
	case PW_ALERT_COUNT:
		break;
	}
	return false;
}

enum pw_verdict pw_rule_evaluate(const struct pw_detector *d, enum pw_alert_name name,
                                 const struct pw_now *now, struct pw_alert *a)
{
	static const pw_rule_fn rules[PW_ALERT_COUNT] = {
	        [PW_ALERT_INTERRUPT_TIME_HIGH] = pw_rule_interrupt_time_high,
	        [PW_ALERT_CPU_FREQUENCY_LOW] = pw_rule_cpu_frequency_low,
	        [PW_ALERT_INTERRUPT_RATE_DROP] = pw_rule_interrupt_rate_drop,
	        [PW_ALERT_MEMORY_SWAPPING] = pw_rule_memory_swapping,
	        [PW_ALERT_IOWAIT_HIGH] = pw_rule_iowait_high,
	        [PW_ALERT_SYSTEM_TIME_HIGH] = pw_rule_system_time_high,
	        [PW_ALERT_STEAL_HIGH] = pw_rule_steal_high,
	};

	if (!inputs_known(d, name, now))
		return PW_VERDICT_UNKNOWN;
	memset(a, 0, sizeof(*a));
	a->name = name;
	return rules[name](d, now, &d->config.rules[name], a) ? PW_VERDICT_HOLDS : PW_VERDICT_CLEAR;
}
