/* sampler.h — the sampling thread: reads every counter family on an absolute-deadline schedule,
 * derives the interval's figures and publishes into two rings: the newest full samples, and the
 * compact history. It never waits on a reader and never logs; once running it allocates only when a
 * counter file outgrows its read buffer. */
#ifndef PW_SAMPLER_H
#define PW_SAMPLER_H

#include "collect.h"
#include "ring.h"

/* Full samples kept: enough for a reader that is a few intervals behind to still find its sample. */
#define PW_LATEST_SLOTS 8

struct pw_sampler;

/* Create the sampler over collector (borrowed; must outlive the sampler), taking a sample every
 * interval_ns and keeping history_slots compact points. Returns NULL on allocation failure. */
struct pw_sampler *pw_sampler_new(struct pw_collector *collector, int64_t interval_ns,
                                  uint32_t history_slots);

/* After each publication, add 1 to the eventfd fd (non-blocking: the sampler never waits on it), so a
 * reader can sleep until there is something new. Call before pw_sampler_start; -1 for none. */
void pw_sampler_notify(struct pw_sampler *sampler, int fd);

/* Send systemd's WATCHDOG=1 from the sampling loop every period_ns (half of WATCHDOG_USEC), between
 * samples, so a sampler that hangs stops the pings. Call before pw_sampler_start; 0 for none. */
void pw_sampler_watchdog(struct pw_sampler *sampler, int64_t period_ns);

/* Start the thread; the first sample is taken at once. Returns 0 or -errno. */
int pw_sampler_start(struct pw_sampler *sampler);

/* Stop and join the thread (returns within one sample's reading time). Idempotent. */
void pw_sampler_stop(struct pw_sampler *sampler);

/* Stop if running and free; accepts NULL. */
void pw_sampler_free(struct pw_sampler *sampler);

/* Rings for readers (any thread): full struct pw_sample payloads, and struct pw_history_point. */
const struct pw_ring *pw_sampler_latest(const struct pw_sampler *sampler);
const struct pw_ring *pw_sampler_history(const struct pw_sampler *sampler);

/* Any thread: CLOCK_MONOTONIC of the newest sample, or 0 before the first. */
int64_t pw_sampler_last_mono_ns(const struct pw_sampler *sampler);

/* The capacities of the samples it publishes. */
uint32_t pw_sampler_cpu_cap(const struct pw_sampler *sampler);
uint32_t pw_sampler_line_cap(const struct pw_sampler *sampler);

/* Bytes both rings hold. */
uint64_t pw_sampler_ring_bytes(const struct pw_sampler *sampler);

#endif
