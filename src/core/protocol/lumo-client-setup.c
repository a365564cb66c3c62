/* lumo-client-setup.c — shell words and JSON text for set-ups
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-protocol"

#include "config.h"

#include <string.h>

#include "lumo-canonical-json.h"
#include "lumo-client-setup.h"

char *
lumo_setup_shell_word (const char *word)
{
  g_return_val_if_fail (word != NULL, NULL);

  for (const char *p = word; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && strchr ("-_./:%@+=,", *p) == NULL)
      return g_shell_quote (word);

  return *word != '\0' ? g_strdup (word) : g_shell_quote (word);
}

static void
indent (GString *out,
        guint    depth)
{
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

static void
write_node (GString  *out,
            JsonNode *node,
            guint     depth)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      if (members == NULL)
        {
          g_string_append (out, "{}");
          return;
        }
      g_string_append (out, "{\n");
      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autoptr(JsonNode) name = json_node_init_string (json_node_alloc (), l->data);
          g_autofree char *quoted = lumo_canonical_json (name, NULL);

          indent (out, depth + 1);
          g_string_append_printf (out, "%s: ", quoted);
          write_node (out, json_object_get_member (object, l->data), depth + 1);
          g_string_append (out, l->next != NULL ? ",\n" : "\n");
        }
      indent (out, depth);
      g_string_append_c (out, '}');
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);
      guint n = json_array_get_length (array);

      if (n == 0)
        {
          g_string_append (out, "[]");
          return;
        }
      g_string_append (out, "[\n");
      for (guint i = 0; i < n; i++)
        {
          indent (out, depth + 1);
          write_node (out, json_array_get_element (array, i), depth + 1);
          g_string_append (out, i + 1 < n ? ",\n" : "\n");
        }
      indent (out, depth);
      g_string_append_c (out, ']');
    }
  else
    {
      g_autofree char *value = lumo_canonical_json (node, NULL);

      g_string_append (out, value != NULL ? value : "null");
    }
}

char *
lumo_setup_json_text (JsonNode *node)
{
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = g_string_new (NULL);
  write_node (out, node, 0);
  return g_string_free (out, FALSE);
}
