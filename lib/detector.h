/* detector.h — learns each signal's baseline and runs the incident rules over every sample.
 *
 * Pure: time comes from the samples (mono_ns for intervals and pending times, real_ns for the
 * timestamps people read); no I/O, no clocks, no allocation after pw_detector_new. One thread feeds
 * it samples in order (the daemon's detector thread, or --replay). A rule fires only when its
 * figure is statistically unusual against the baseline AND practically significant, for its whole
 * pending time; it resolves after its condition stayed clear for the resolve time (hysteresis).
 * While a rule is pending or firing its signals stop learning (for up to half a half-life), so an
 * incident never becomes normal. */
#ifndef PW_DETECTOR_H
#define PW_DETECTOR_H

#include "alert.h"
#include "baseline.h"
#include "sample.h"

struct pw_rule_config {
	bool enabled;
	int64_t for_ns;     /* pending time before firing */
	int64_t resolve_ns; /* the condition must stay clear this long before the alert resolves */
	int64_t adopt_ns;   /* active this long, the level it alerts on becomes the baseline; 0 never */
	double threshold;   /* practical significance, in the rule's unit (docs/detection.md) */
	double critical;    /* the same figure from which severity is critical */
	double sigmas;      /* how unusual against the baseline (spreads); 0 for absolute rules */
};

struct pw_detector_config {
	int64_t warmup_ns;  /* baseline rules cannot fire before this much learning */
	double half_life_s; /* how fast baselines forget */
	double busy_share;  /* a CPU at least this busy is "busy" (CpuFrequencyLow) */
	struct pw_rule_config rules[PW_ALERT_COUNT];
};

/* Defaults: warmup 10 min, every rule pending alert_for_ns, resolve after three intervals of clear condition
 * (resolve_ns = interval_ns * 3), thresholds per docs/detection.md. */
void pw_detector_config_defaults(struct pw_detector_config *config, int64_t alert_for_ns,
                                 int64_t interval_ns);

struct pw_detector;

/* Create a detector for samples of these capacities. NULL on allocation failure. */
struct pw_detector *pw_detector_new(const struct pw_detector_config *config, uint32_t cpu_cap,
                                    uint32_t line_cap);
void pw_detector_free(struct pw_detector *detector);

/* Replace the rules' configuration, keeping baselines and alert state (a reload). */
void pw_detector_reconfigure(struct pw_detector *detector, const struct pw_detector_config *config);

/* Feed the next sample (with its derived figures). Writes the transitions it caused into
 * ret_events (at most cap; the rest are still applied) and returns how many there were. */
size_t pw_detector_observe(struct pw_detector *detector, const struct pw_sample *sample,
                           struct pw_alert_event *ret_events, size_t cap);

/* Copy the active (pending or firing) alerts into ret (at most cap); returns how many. */
size_t pw_detector_active(const struct pw_detector *detector, struct pw_alert *ret, size_t cap);

/* The baselines a dashboard draws a band around. */
enum pw_signal {
	PW_SIG_USER, /* host share */
	PW_SIG_SYSTEM,
	PW_SIG_IOWAIT,
	PW_SIG_IRQ, /* irq + softirq */
	PW_SIG_STEAL,
	PW_SIG_INTR_RATE, /* /proc/stat intr per second */
	PW_SIG_CTXT_RATE,
	PW_SIG_RUN_QUEUE, /* procs_running */
	PW_SIG_SWAP_IN,   /* pages per second */
	PW_SIG_SWAP_OUT,
	PW_SIG_MAJOR_FAULTS,
	PW_SIG_PSI_CPU, /* some avg10, percent */
	PW_SIG_PSI_MEMORY,
	PW_SIG_PSI_IO,
	PW_SIG_COUNT
};

const char *pw_signal_name(enum pw_signal signal); /* "cpu_user_ratio", "interrupts_per_second" ... */

/* The host baseline of a signal (learned_s 0 before the first observation). */
struct pw_baseline pw_detector_baseline(const struct pw_detector *detector, enum pw_signal signal);

/* True once the baselines have learned for the warmup time. */
bool pw_detector_warm(const struct pw_detector *detector);

/* A signal far from its baseline, whether or not a rule fires on it: what the diagnosis names. */
#define PW_DEVIATIONS_MAX 8
enum pw_deviation_unit {
	PW_UNIT_SHARE,   /* fraction of all CPUs' time (or of one CPU's, when cpu >= 0) */
	PW_UNIT_RATE,    /* per second */
	PW_UNIT_PERCENT, /* PSI: percent of wall time some task stalled */
	PW_UNIT_TASKS,   /* run queue */
};

struct pw_deviation {
	char what[64]; /* "system time", "NET_RX softirqs", "interrupts on irq 24 (virtio0)" */
	int32_t cpu;   /* the CPU a per-CPU figure is of; -1 host-wide */
	enum pw_deviation_unit unit;
	double value, baseline, spread;
	double score;       /* spreads from the baseline, signed */
	double rank;        /* how unusual times how large; the list is sorted by it, highest first */
	char evidence[128]; /* filled by the daemon's probes ("most system time: dd (pid 42) 61% of a CPU") */
	enum pw_signal signal; /* the host signal, or PW_SIG_COUNT for per-CPU, softirq and line figures */
};

/* How the newest sample's irq and softirq times were measured: with CONFIG_IRQ_TIME_ACCOUNTING
 * (/proc/pressure/irq exists, 6.1+) exactly; without it the kernel charges a whole timer tick to
 * whatever it interrupted, so handler time is an estimate; no PSI at all: unknown. */
enum pw_irq_accounting { PW_IRQ_ACCOUNTING_UNKNOWN, PW_IRQ_ACCOUNTING_MEASURED, PW_IRQ_ACCOUNTING_TICKS };

/* What readers see of the detector: a plain snapshot, published by the detector's thread. */
struct pw_detector_view {
	uint64_t samples_seen;   /* samples observed so far */
	uint64_t samples_missed; /* samples the detector could not read (fell behind the ring) */
	int64_t real_ns;         /* time of the newest sample observed */
	bool warm;
	uint32_t nalerts; /* active alerts, in rule order */
	struct pw_alert alerts[PW_ALERT_COUNT];
	struct pw_baseline baselines[PW_SIG_COUNT];
	struct pw_rule_config rules[PW_ALERT_COUNT]; /* the settings in effect (a reload changes them) */
	uint32_t ndeviations; /* signals far from their baselines in the newest sample, most unusual first */
	struct pw_deviation deviations[PW_DEVIATIONS_MAX];
	enum pw_irq_accounting irq_accounting; /* how the kernel measures handler time */
};

/* The newest sample's deviations, most unusual first (at most cap); returns how many. */
size_t pw_detector_deviations(const struct pw_detector *detector, struct pw_deviation *ret, size_t cap);

/* Whether a deviation is about system time (host-wide or one CPU's): the probes can name who. */
static inline bool pw_deviation_is_system_time(const struct pw_deviation *dev)
{
	return dev->signal == PW_SIG_SYSTEM || (dev->cpu >= 0 && dev->what[0] == 's');
}

/* Fill ret from the detector's current state (samples_* are the caller's to set). */
void pw_detector_snapshot(const struct pw_detector *detector, struct pw_detector_view *ret);

/* Persistence (detector_state.c): the learned baselines as a self-checking little-endian blob, so a
 * restarted daemon does not relearn. Alert state is not part of it. Pure: the caller does the I/O.
 *
 * The bytes pw_detector_state_save needs for this detector (depends only on its capacities). */
size_t pw_detector_state_size(const struct pw_detector *detector);

/* Write the baselines and the learned time into buf. Returns the bytes written, or -ENOBUFS when
 * len is below pw_detector_state_size(). Does not change the detector. */
int pw_detector_state_save(const struct pw_detector *detector, void *buf, size_t len);

/* Replace the detector's baselines with those in buf and credit the learned time towards warmup,
 * counted back from the newest sample the detector has seen (none seen: only baselines, no credit;
 * load again after the first sample). Alerts are left alone. Returns 0; -EINVAL when buf is
 * truncated, corrupt or fails its checksum; -EPROTO for a foreign magic or version (the detector is
 * untouched on both); -ERANGE when it was saved with other CPU or line capacities: then the host
 * baselines and the per-CPU and per-line ones that fit (the lower ids, the first slots) are loaded. */
int pw_detector_state_load(struct pw_detector *detector, const void *buf, size_t len);

#endif
