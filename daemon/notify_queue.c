/* notify_queue.c — a doubly linked FIFO of notifications, and its JSON file form. */
#include "notify_queue.h"

#include "alert.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUE_FILE_VERSION 1
/* JSON escapes a byte to at most 6 ("\u001f"); the document's own text around the items and around
 * each item's strings (keys, numbers, indentation) is well under these. */
#define ESCAPED_MAX(bytes) (6 * (uint64_t)(bytes))
#define DOC_OVERHEAD 64
#define ITEM_OVERHEAD 256

size_t pw_nq_file_max(uint32_t cap)
{
	const uint64_t item = ITEM_OVERHEAD + ESCAPED_MAX(PW_RECEIVER_NAME_MAX - 1) +
	                      ESCAPED_MAX(sizeof(((struct pw_nq_item *)0)->kind) - 1) +
	                      ESCAPED_MAX(PW_NQ_BODY_MAX);
	uint64_t max = DOC_OVERHEAD + (uint64_t)cap * item;

	return max > SIZE_MAX ? SIZE_MAX : (size_t)max;
}

struct pw_nq_item *pw_nq_item_new(const char *receiver, int alert, const char *kind, int64_t real_ns,
                                  char *body)
{
	struct pw_nq_item *it = body && strlen(body) <= PW_NQ_BODY_MAX ? calloc(1, sizeof(*it)) : NULL;

	if (!it) {
		free(body);
		return NULL;
	}
	snprintf(it->receiver, sizeof(it->receiver), "%s", receiver);
	snprintf(it->kind, sizeof(it->kind), "%s", kind);
	it->rx = -1;
	it->alert = alert;
	it->enqueued_real_ns = real_ns;
	it->body = body;
	return it;
}

void pw_nq_item_free(struct pw_nq_item *it)
{
	if (!it)
		return;
	free(it->body);
	free(it);
}

void pw_nq_append(struct pw_nq *q, struct pw_nq_item *it)
{
	it->next = NULL;
	it->prev = q->tail;
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->len++;
}

void pw_nq_remove(struct pw_nq *q, struct pw_nq_item *it)
{
	if (it->prev)
		it->prev->next = it->next;
	else
		q->head = it->next;
	if (it->next)
		it->next->prev = it->prev;
	else
		q->tail = it->prev;
	it->prev = it->next = NULL;
	q->len--;
}

void pw_nq_clear(struct pw_nq *q)
{
	while (q->head) {
		struct pw_nq_item *it = q->head;
		pw_nq_remove(q, it);
		pw_nq_item_free(it);
	}
}

struct pw_nq_item *pw_nq_oldest_idle(const struct pw_nq *q)
{
	for (struct pw_nq_item *it = q->head; it; it = it->next)
		if (!it->in_flight)
			return it;
	return NULL;
}

struct pw_nq_item *pw_nq_first_for(const struct pw_nq *q, int rx)
{
	for (struct pw_nq_item *it = q->head; it; it = it->next)
		if (it->rx == rx)
			return it;
	return NULL;
}

char *pw_nq_encode(const struct pw_nq *q)
{
	json_t *doc = json_pack("{s:i, s:[]}", "version", QUEUE_FILE_VERSION, "notifications");
	json_t *list = doc ? json_object_get(doc, "notifications") : NULL;
	bool failed = !list;

	for (const struct pw_nq_item *it = q->head; it && !failed; it = it->next)
		failed = json_array_append_new(
		                 list, json_pack("{s:s, s:i, s:s, s:I, s:I, s:s}", "receiver", it->receiver,
		                                 "alert", it->alert, "kind", it->kind, "enqueued_ns",
		                                 (json_int_t)it->enqueued_real_ns, "attempts",
		                                 (json_int_t)it->attempts, "body", it->body)) < 0;
	char *text = failed ? NULL : json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return text;
}

int pw_nq_decode(struct pw_nq *q, const char *text, size_t len)
{
	json_t *doc = json_loadb(text, len, 0, NULL), *list, *entry;
	struct pw_nq tmp = {0};
	json_int_t version = 0;
	size_t i;
	int r = 0;

	if (!doc || json_unpack(doc, "{s:I, s:o}", "version", &version, "notifications", &list) < 0 ||
	    version != QUEUE_FILE_VERSION || !json_is_array(list)) {
		json_decref(doc);
		return -EINVAL;
	}
	json_array_foreach(list, i, entry)
	{
		const char *receiver, *kind, *body;
		json_int_t enqueued, attempts;
		int alert;
		if (json_unpack(entry, "{s:s, s:i, s:s, s:I, s:I, s:s}", "receiver", &receiver, "alert",
		                &alert, "kind", &kind, "enqueued_ns", &enqueued, "attempts", &attempts,
		                "body", &body) < 0 ||
		    attempts < 0 || attempts > UINT32_MAX || alert < 0 || alert >= PW_ALERT_COUNT ||
		    strlen(body) > PW_NQ_BODY_MAX) {
			r = -EINVAL;
			break;
		}
		char *copy = strdup(body);
		struct pw_nq_item *it = pw_nq_item_new(receiver, alert, kind, (int64_t)enqueued, copy);
		if (!it) {
			r = -ENOMEM;
			break;
		}
		it->attempts = (uint32_t)attempts;
		pw_nq_append(&tmp, it);
	}
	json_decref(doc);
	if (r < 0) {
		pw_nq_clear(&tmp);
		return r;
	}
	r = (int)tmp.len;
	while (tmp.head) {
		struct pw_nq_item *it = tmp.head;
		pw_nq_remove(&tmp, it);
		pw_nq_append(q, it);
	}
	return r;
}
