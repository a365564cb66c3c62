/* test-canonical-json.c — RFC 8785 against the shared vectors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * tests/fixtures/jcs/vectors.json is shared with the extension's tests:
 * both sides must produce the same bytes and hashes, or the audit log's
 * parameter hashes would not match what the provider sent.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-error.h"
#include "lumo-json.h"

static char *
fixture_path (void)
{
  /* G_TEST_SRCDIR is tests/ under meson test. */
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fixtures", "jcs", "vectors.json", NULL);

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_free (path);
      path = g_test_build_filename (G_TEST_DIST, "..", "fixtures", "jcs", "vectors.json", NULL);
    }

  return g_steal_pointer (&path);
}

static JsonNode *
parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = lumo_json_parse (json, strlen (json), LUMO_JSON_DEFAULT_MAX_DEPTH, &error);

  g_assert_no_error (error);
  return node;
}

static void
test_vectors (void)
{
  g_autofree char *path = fixture_path ();
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonArray *vectors;
  gsize len;

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  root = lumo_json_parse (contents, len, 16, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  vectors = json_node_get_array (root);
  g_assert_cmpuint (json_array_get_length (vectors), >=, 26);

  for (guint i = 0; i < json_array_get_length (vectors); i++)
    {
      JsonObject *v = json_array_get_object_element (vectors, i);
      const char *input = json_object_get_string_member (v, "input");
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *canonical = NULL;
      g_autofree char *sha256 = NULL;
      g_autoptr(JsonNode) again = NULL;
      g_autofree char *twice = NULL;

      g_test_message ("vector %u: %s", i, json_object_get_string_member (v, "name"));

      node = parse (input);
      canonical = lumo_canonical_json (node, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (canonical, ==, json_object_get_string_member (v, "canonical"));

      sha256 = lumo_canonical_json_sha256 (node, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (sha256, ==, json_object_get_string_member (v, "sha256"));

      /* The canonical form is a fixed point. */
      again = parse (canonical);
      twice = lumo_canonical_json (again, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (twice, ==, canonical);
    }
}

static void
test_json_glib_nodes (void)
{
  /* Nodes built by json-glib's own parser (as other code may hand us)
   * give the same bytes: gint64 values are doubles to JCS. */
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *canonical = NULL;

  json_parser_load_from_data (parser, "{\"b\": 9007199254740993, \"a\": [1.0, -0, 2.50]}", -1, &error);
  g_assert_no_error (error);
  canonical = lumo_canonical_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (canonical, ==, "{\"a\":[1,0,2.5],\"b\":9007199254740992}");
}

static void
test_numbers (void)
{
  struct { double value; const char *text; } cases[] = {
    { 1, "1" },
    { -1, "-1" },
    { 0.5, "0.5" },
    { 100, "100" },
    { 1e21, "1e+21" },
    { 1e-7, "1e-7" },
    { 1.5e-7, "1.5e-7" },
    { 0.000001, "0.000001" },
    { 123456789012345680000.0, "123456789012345680000" },
    { 5e-324, "5e-324" },
    { 2.2250738585072014e-308, "2.2250738585072014e-308" },
    { 0.1 + 0.2, "0.30000000000000004" },
    { 9.5367431640625e-07, "9.5367431640625e-7" },   /* 2^-20 */
    { 1.2676506002282294e+30, "1.2676506002282294e+30" }, /* 2^100 */
    { -0.0, "0" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = lumo_canonical_json_number (cases[i].value);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

static void
test_powers_of_two_round_trip (void)
{
  /* Next to powers of two the rounding interval is lopsided: every one of
   * them must still print as a decimal that reads back exactly, and no
   * shorter than needed. */
  for (int e = -1074; e <= 1023; e++)
    {
      double d = ldexp (1.0, e);
      double neighbours[] = { d, nextafter (d, 0), nextafter (d, INFINITY) };

      for (guint j = 0; j < G_N_ELEMENTS (neighbours); j++)
        {
          g_autofree char *text = NULL;

          if (!isfinite (neighbours[j]) || neighbours[j] == 0)
            continue;
          text = lumo_canonical_json_number (neighbours[j]);
          g_assert_cmpfloat (g_ascii_strtod (text, NULL), ==, neighbours[j]);
        }
    }
}

static void
test_refused (void)
{
  g_autoptr(JsonNode) nan_node = json_node_init_double (json_node_alloc (), NAN);
  g_autoptr(JsonNode) inf_node = json_node_init_double (json_node_alloc (), INFINITY);
  g_autoptr(JsonNode) array = NULL;
  g_autoptr(JsonArray) inner = json_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *none = NULL;

  g_assert_null (lumo_canonical_json (nan_node, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "NaN"));
  g_clear_error (&error);

  g_assert_null (lumo_canonical_json_sha256 (inf_node, &error));
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "Infinity"));
  g_clear_error (&error);

  /* Deep inside a structure too: nothing half-written is returned. */
  json_array_add_int_element (inner, 1);
  json_array_add_double_element (inner, -INFINITY);
  array = json_node_init_array (json_node_alloc (), inner);
  none = lumo_canonical_json (array, &error);
  g_assert_null (none);
  g_assert_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/canonical-json/vectors", test_vectors);
  g_test_add_func ("/canonical-json/json-glib-nodes", test_json_glib_nodes);
  g_test_add_func ("/canonical-json/numbers", test_numbers);
  g_test_add_func ("/canonical-json/powers-of-two", test_powers_of_two_round_trip);
  g_test_add_func ("/canonical-json/refused", test_refused);

  return g_test_run ();
}
