/* bridge-test-util.c — helpers shared by the bridge tests and the fuzz replay
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "bridge-test-util.h"

char *
bridge_fixture_dir (void)
{
  const char *srcdir = g_getenv ("G_TEST_SRCDIR");

  /* G_TEST_SRCDIR is tests/ under meson test; fall back to the layout of a
   * build directory beside the sources. */
  if (srcdir != NULL)
    return g_build_filename (srcdir, "fixtures", "bridge", NULL);

  return g_build_filename ("..", "tests", "fixtures", "bridge", NULL);
}

static gint
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
bridge_fixture_files (const char *prefix)
{
  g_autofree char *dir_path = bridge_fixture_dir ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  GPtrArray *files = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_no_error (error);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_prefix (name, prefix) && g_str_has_suffix (name, ".json"))
        g_ptr_array_add (files, g_build_filename (dir_path, name, NULL));
    }
  g_ptr_array_sort (files, compare_paths);
  g_assert_cmpuint (files->len, >, 0);
  return files;
}

JsonNode *
bridge_load_json (const char *path)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

char *
bridge_json_to_string (JsonNode *node)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();

  json_generator_set_root (generator, node);
  return json_generator_to_data (generator, NULL);
}

static gboolean
mismatch (char       **where,
          const char  *path)
{
  if (where != NULL && *where == NULL)
    *where = g_strdup (*path ? path : "(root)");
  return FALSE;
}

static gboolean
matches (JsonNode    *actual,
         JsonNode    *expect,
         const char  *path,
         char       **where)
{
  if (JSON_NODE_HOLDS_VALUE (expect) && json_node_get_value_type (expect) == G_TYPE_STRING &&
      g_str_equal (json_node_get_string (expect), "<any>"))
    return actual != NULL || mismatch (where, path);

  if (actual == NULL || JSON_NODE_TYPE (actual) != JSON_NODE_TYPE (expect))
    return mismatch (where, path);

  switch (JSON_NODE_TYPE (expect))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *a = json_node_get_object (actual);
        JsonObject *e = json_node_get_object (expect);
        g_autoptr(GList) members = json_object_get_members (e);

        for (GList *l = members; l != NULL; l = l->next)
          {
            g_autofree char *sub = g_strdup_printf ("%s.%s", path, (const char *) l->data);

            if (!matches (json_object_get_member (a, l->data), json_object_get_member (e, l->data), sub, where))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *a = json_node_get_array (actual);
        JsonArray *e = json_node_get_array (expect);

        if (json_array_get_length (a) != json_array_get_length (e))
          return mismatch (where, path);
        for (guint i = 0; i < json_array_get_length (e); i++)
          {
            g_autofree char *sub = g_strdup_printf ("%s[%u]", path, i);

            if (!matches (json_array_get_element (a, i), json_array_get_element (e, i), sub, where))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_NULL:
      return TRUE;

    case JSON_NODE_VALUE:
    default:
      return json_node_equal (actual, expect) || mismatch (where, path);
    }
}

gboolean
bridge_json_matches (JsonNode  *actual,
                     JsonNode  *expect,
                     char     **where)
{
  g_return_val_if_fail (expect != NULL, FALSE);

  return matches (actual, expect, "", where);
}
