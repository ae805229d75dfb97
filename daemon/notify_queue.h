/* notify_queue.h — the notifications waiting for delivery, oldest first, and their file form.
 * Owned by the notifier's thread alone: no locking. An item's body is the exact request body, so a
 * notification read back after a restart is sent byte for byte as it was first rendered. */
#ifndef PW_NOTIFY_QUEUE_H
#define PW_NOTIFY_QUEUE_H

#include "receiver.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PW_NOTIFY_QUEUE_FILE "notifications"
/* A notification's body at most, in bytes: the renderers make under 20 KB from the largest alert
 * (test_notify_policy renders it), and this bounds the queue file. */
#define PW_NQ_BODY_MAX (32u * 1024)

struct pw_nq_item {
	struct pw_nq_item *prev, *next;
	char receiver[PW_RECEIVER_NAME_MAX];
	int rx;        /* the notifier's index of that receiver; -1: not configured */
	int alert;     /* enum pw_alert_name it is about */
	char kind[16]; /* "firing", "resolved", "repeat" (webhooks); "push" (Alertmanager) */
	bool in_flight;
	uint32_t attempts;
	int64_t enqueued_real_ns;
	int64_t enqueued_mono_ns; /* 0: read back from the file (another boot's monotonic clock) */
	char *body;               /* NUL-terminated JSON, owned */
};

struct pw_nq {
	struct pw_nq_item *head, *tail;
	uint32_t len;
};

/* A new item owning body (freed with the item, also on failure). NULL when out of memory or when
 * body is longer than PW_NQ_BODY_MAX. */
struct pw_nq_item *pw_nq_item_new(const char *receiver, int alert, const char *kind, int64_t real_ns,
                                  char *body);
void pw_nq_item_free(struct pw_nq_item *item);

void pw_nq_append(struct pw_nq *q, struct pw_nq_item *item);
void pw_nq_remove(struct pw_nq *q, struct pw_nq_item *item); /* unlink only: the caller frees */
void pw_nq_clear(struct pw_nq *q);                           /* free every item */

/* The oldest item not being sent, or NULL. */
struct pw_nq_item *pw_nq_oldest_idle(const struct pw_nq *q);

/* The oldest item for receiver index rx, or NULL. */
struct pw_nq_item *pw_nq_first_for(const struct pw_nq *q, int rx);

/* The queue as a JSON document {"version": 1, "notifications": [...]}: malloc'd text, or NULL when
 * out of memory. */
char *pw_nq_encode(const struct pw_nq *q);

/* The most bytes pw_nq_encode writes for a queue of cap items: the writer's bound and the reader's,
 * so a queue the daemon can hold can always be read back (and a file no queue of cap items makes is
 * refused before it is read). Derived from the items' bounded fields, each escaped at worst. */
size_t pw_nq_file_max(uint32_t cap);

/* Append the notifications of a document pw_nq_encode wrote (rx -1: the caller maps receivers).
 * Returns how many, or -EINVAL (not such a document, or a body over PW_NQ_BODY_MAX; nothing
 * appended) or -ENOMEM. */
int pw_nq_decode(struct pw_nq *q, const char *text, size_t len);

#endif
