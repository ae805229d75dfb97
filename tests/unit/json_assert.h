/* json_assert.h — assertions on a parsed JSON document by dotted path ("alerts.0.evidence.cpus.0.cpu",
 * array indices as numbers), for the suites of the JSON exporters. Each aborts the test on failure. */
#ifndef PW_JSON_ASSERT_H
#define PW_JSON_ASSERT_H

#include <jansson.h>

/* A rendered document (malloc'd text, as the exporters return it): not empty, ends with a newline,
 * valid JSON; fails the test otherwise. Returns the parsed root; the text goes to *ret_text when
 * ret_text is given, else it is freed. */
json_t *pw_json_parse_rendered(char *text, char **ret_text);

/* The node at path (borrowed); fails the test when there is none. */
json_t *pw_json_at(json_t *root, const char *path);

void pw_assert_json_number(json_t *root, const char *path, double want); /* within 1e-9 */
void pw_assert_json_string(json_t *root, const char *path, const char *want);
void pw_assert_json_null(json_t *root, const char *path);

#endif
