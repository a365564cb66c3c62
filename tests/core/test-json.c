/* test-json.c — the strict parser at the bridge's trust boundary
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-json.h"

static JsonNode *
parse_ok (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = lumo_json_parse (json, strlen (json), LUMO_JSON_DEFAULT_MAX_DEPTH, &error);

  g_test_message ("good: %s", json);
  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static void
assert_refused (const char *json,
                gsize       len,
                const char *needle)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = lumo_json_parse (json, len, LUMO_JSON_DEFAULT_MAX_DEPTH, &error);
  g_autofree char *raw = g_strndup (json, len);
  g_autofree char *escaped = g_strescape (raw, NULL);

  g_test_message ("bad: %s", escaped);
  g_assert_null (node);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("“%s” does not mention “%s”", error->message, needle);
}

#define REFUSED(json, needle) assert_refused (json, sizeof json - 1, needle)

static void
test_values (void)
{
  g_autoptr(JsonNode) object = parse_ok (" {\"a\": [1, -2.5, true, false, null, \"x\"], \"b\": {}}\r\n\t");
  g_autoptr(JsonNode) big = parse_ok ("[18446744073709551616, 9223372036854775807, -9223372036854775808, 9223372036854775808]");
  g_autoptr(JsonNode) str = parse_ok ("\"\\u00e9\\ud83d\\ude00\\n\\/\\\\\\\"\\b\\f\\r\\t é\"");
  JsonArray *a;

  a = json_object_get_array_member (json_node_get_object (object), "a");
  g_assert_cmpint (json_array_get_int_element (a, 0), ==, 1);
  g_assert_cmpfloat (json_array_get_double_element (a, 1), ==, -2.5);
  g_assert_true (json_array_get_boolean_element (a, 2));
  g_assert_true (json_array_get_null_element (a, 4));
  g_assert_cmpstr (json_array_get_string_element (a, 5), ==, "x");

  /* Beyond gint64 a number is a double, never a wrapped integer. */
  a = json_node_get_array (big);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 0)), ==, G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_array_get_double_element (a, 0), ==, 18446744073709551616.0);
  g_assert_cmpint (json_array_get_int_element (a, 1), ==, G_MAXINT64);
  g_assert_cmpint (json_array_get_int_element (a, 2), ==, G_MININT64);
  g_assert_cmpint (json_node_get_value_type (json_array_get_element (a, 3)), ==, G_TYPE_DOUBLE);

  g_assert_cmpstr (json_node_get_string (str), ==, "é😀\n/\\\"\b\f\r\t é");
}

static void
test_scalars_at_top (void)
{
  g_autoptr(JsonNode) n = parse_ok ("42");
  g_autoptr(JsonNode) s = parse_ok ("\"\"");
  g_autoptr(JsonNode) t = parse_ok ("true");

  g_assert_cmpint (json_node_get_int (n), ==, 42);
  g_assert_cmpstr (json_node_get_string (s), ==, "");
  g_assert_true (json_node_get_boolean (t));
}

static void
test_refused (void)
{
  REFUSED ("", "no value");
  REFUSED ("   ", "no value");
  REFUSED ("{\"a\":1} x", "trailing");
  REFUSED ("{\"a\":1}{}", "trailing");
  REFUSED ("[1,]", "JSON value");
  REFUSED ("{\"a\":1,}", "member name");
  REFUSED ("/* c */ [1]", "JSON value");
  REFUSED ("['a']", "JSON value");
  REFUSED ("{a:1}", "member name");
  REFUSED ("[01]", "leading zero");
  REFUSED ("[-01]", "leading zero");
  REFUSED ("[.5]", "JSON value");
  REFUSED ("[1.]", "decimal point");
  REFUSED ("[1e]", "exponent");
  REFUSED ("[-]", "digit");
  REFUSED ("[0x10]", "“,” or “]”");
  REFUSED ("[+1]", "JSON value");
  REFUSED ("[NaN]", "JSON value");
  REFUSED ("[Infinity]", "JSON value");
  REFUSED ("[1e400]", "out of the range");
  REFUSED ("[-1e400]", "out of the range");
  REFUSED ("[tru]", "JSON value");
  REFUSED ("[nul", "JSON value");
  REFUSED ("[true false]", "“,” or “]”");
  REFUSED ("\"a\tb\"", "control character");
  REFUSED ("\"a\nb\"", "control character");
  REFUSED ("\"abc", "not terminated");
  REFUSED ("\"abc\\", "not terminated");
  REFUSED ("\"\\x\"", "unknown escape");
  REFUSED ("\"\\u12\"", "four hex digits");
  REFUSED ("\"\\u12g4\"", "four hex digits");
  REFUSED ("\"\\ud800\"", "lone high surrogate");
  REFUSED ("\"\\ud800\\u0041\"", "lone high surrogate");
  REFUSED ("\"\\udc00\"", "lone low surrogate");
  REFUSED ("\"\\u0000\"", "U+0000");
  REFUSED ("{\"a\":1,\"a\":2}", "appears twice");
  REFUSED ("{\"a\":1,\"\\u0061\":2}", "appears twice");
  REFUSED ("{\"a\" 1}", "“:”");
  REFUSED ("[1", "“,” or “]”");
  REFUSED ("{", "member name");
  REFUSED ("\"\xff\"", "UTF-8");
  REFUSED ("\"\xc3\"", "UTF-8");
  REFUSED ("\"\xed\xa0\x80\"", "UTF-8");   /* an encoded surrogate */
  REFUSED ("[1]\0", "NUL");
  REFUSED ("\xef\xbb\xbf[1]", "JSON value");   /* no byte-order mark */
}

static void
test_error_offsets (void)
{
  g_autoptr(GError) error = NULL;

  g_assert_null (lumo_json_parse ("[1, 2, x]", 9, 8, &error));
  g_assert_nonnull (strstr (error->message, "byte 7"));
  g_assert_nonnull (strstr (error->message, "found “x”"));
}

/* A file a person edits says where: each node's offset (a member at its
 * name), the failure's offset, and lines and columns in characters. */
static void
test_located (void)
{
  const char *text = "{\n  \"a\": 1,\n  \"bé\": [true,\n    \"x\"]\n}\n";
  g_autoptr(GHashTable) offsets = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;
  JsonArray *array;
  gsize error_offset = 99;
  guint line = 0, column = 0;

  root = lumo_json_parse_located (text, strlen (text), 8, &offsets, &error_offset, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (error_offset, ==, 0);
  object = json_node_get_object (root);
  array = json_node_get_array (json_object_get_member (object, "bé"));

  g_assert_cmpuint (lumo_json_node_offset (offsets, root), ==, 0);
  lumo_json_line_column (text, strlen (text), lumo_json_node_offset (offsets, json_object_get_member (object, "a")),
                         &line, &column);
  g_assert_cmpuint (line, ==, 2);
  g_assert_cmpuint (column, ==, 3);
  lumo_json_line_column (text, strlen (text), lumo_json_node_offset (offsets, json_object_get_member (object, "bé")),
                         &line, &column);
  g_assert_cmpuint (line, ==, 3);
  g_assert_cmpuint (column, ==, 3);
  lumo_json_line_column (text, strlen (text), lumo_json_node_offset (offsets, json_array_get_element (array, 1)),
                         &line, &column);
  g_assert_cmpuint (line, ==, 4);
  g_assert_cmpuint (column, ==, 5);
  /* "é" is one column, though two bytes. */
  lumo_json_line_column (text, strlen (text), lumo_json_node_offset (offsets, json_array_get_element (array, 0)),
                         &line, &column);
  g_assert_cmpuint (line, ==, 3);
  g_assert_cmpuint (column, ==, 10);

  /* A failure: where, as the error says it (and no table). */
  g_clear_pointer (&offsets, g_hash_table_unref);
  text = "{\n  \"a\": tru\n}";
  g_assert_null (lumo_json_parse_located (text, strlen (text), 8, &offsets, &error_offset, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_null (offsets);
  g_assert_cmpuint (error_offset, ==, 9);
  lumo_json_line_column (text, strlen (text), error_offset, &line, &column);
  g_assert_cmpuint (line, ==, 2);
  g_assert_cmpuint (column, ==, 8);
  g_clear_error (&error);

  /* The strict rules are the same: a duplicate name, a bad byte. */
  text = "{\"a\":1,\n\"a\":2}";
  g_assert_null (lumo_json_parse_located (text, strlen (text), 8, NULL, &error_offset, &error));
  g_assert_cmpuint (error_offset, ==, 8);
  g_clear_error (&error);
  g_assert_null (lumo_json_parse_located ("[1,\n\xff]", 6, 8, NULL, &error_offset, &error));
  g_assert_cmpuint (error_offset, ==, 4);
}

static void
test_length_delimited (void)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  /* Only @len bytes are read: what follows is not part of the value. */
  node = lumo_json_parse ("[1]garbage", 3, 8, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (node));
}

static void
test_depth (void)
{
  g_autoptr(GString) ok = g_string_new (NULL);
  g_autoptr(GString) deep = g_string_new (NULL);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 10; i++)
    g_string_append (ok, "{\"a\":[");
  g_string_append (ok, "1");
  for (guint i = 0; i < 10; i++)
    g_string_append (ok, "]}");
  node = lumo_json_parse (ok->str, ok->len, 20, &error);
  g_assert_no_error (error);
  g_clear_pointer (&node, json_node_unref);

  node = lumo_json_parse (ok->str, ok->len, 19, &error);
  g_assert_null (node);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "deeper than 19"));
  g_clear_error (&error);

  /* A megabyte of "[" fails cleanly instead of exhausting the stack. */
  for (guint i = 0; i < 1024 * 1024; i++)
    g_string_append_c (deep, '[');
  node = lumo_json_parse (deep->str, deep->len, LUMO_JSON_DEFAULT_MAX_DEPTH, &error);
  g_assert_null (node);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/values", test_values);
  g_test_add_func ("/json/scalars-at-top", test_scalars_at_top);
  g_test_add_func ("/json/refused", test_refused);
  g_test_add_func ("/json/error-offsets", test_error_offsets);
  g_test_add_func ("/json/located", test_located);
  g_test_add_func ("/json/length-delimited", test_length_delimited);
  g_test_add_func ("/json/depth", test_depth);

  return g_test_run ();
}
