/* json_assert.c — assertions on a parsed JSON document by dotted path, shared by the JSON suites. */
#include "json_assert.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *pw_json_at(json_t *root, const char *path)
{
	char copy[256], *save = NULL;
	json_t *node = root;

	snprintf(copy, sizeof(copy), "%s", path);
	for (char *key = strtok_r(copy, ".", &save); key && node; key = strtok_r(NULL, ".", &save))
		node = json_is_array(node) ? json_array_get(node, strtoul(key, NULL, 10))
		                           : json_object_get(node, key);
	ck_assert_msg(node != NULL, "no %s", path);
	return node;
}

void pw_assert_json_number(json_t *root, const char *path, double want)
{
	json_t *node = pw_json_at(root, path);

	ck_assert_msg(json_is_number(node), "%s is not a number", path);
	ck_assert_msg(fabs(json_number_value(node) - want) < 1e-9, "%s = %.17g, want %.17g", path,
	              json_number_value(node), want);
}

void pw_assert_json_string(json_t *root, const char *path, const char *want)
{
	json_t *node = pw_json_at(root, path);

	ck_assert_msg(json_is_string(node), "%s is not a string", path);
	ck_assert_str_eq(json_string_value(node), want);
}

void pw_assert_json_null(json_t *root, const char *path)
{
	ck_assert_msg(json_is_null(pw_json_at(root, path)), "%s is not null", path);
}

json_t *pw_json_parse_rendered(char *text, char **ret_text)
{
	json_error_t error;

	ck_assert_ptr_nonnull(text);
	ck_assert_uint_gt(strlen(text), 0);
	ck_assert_int_eq(text[strlen(text) - 1], '\n');
	json_t *root = json_loads(text, 0, &error);
	ck_assert_msg(root != NULL, "invalid JSON at line %d: %s", error.line, error.text);
	if (ret_text)
		*ret_text = text;
	else
		free(text);
	return root;
}
