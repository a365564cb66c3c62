/* lumo-preview.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-preview"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "lumo-preview.h"

/* The fields of lumo-userscripts' preview (extension/src/provider/preview.ts)
 * in the order a reviewer reads them. */
static const struct {
  const char *key;
  const char *label;
} known_fields[] = {
  { "action", N_("Action") },
  { "name", N_("Name") },
  { "uuid", N_("Script") },
  { "bytes", N_("Size") },
  { "added", N_("Lines added") },
  { "removed", N_("Lines removed") },
  { "enabled", N_("Enabled") },
  { "sourceSha256", N_("Source SHA-256") },
};

static const char * const content_words[] = {
  "source", "code", "content", "body", "text", "diff", "patch", "script", "html", "js", "css",
  "data", "value", "args", "argument", "param", "payload",
};

void
lumo_preview_field_free (LumoPreviewField *field)
{
  if (field == NULL)
    return;
  g_free (field->label);
  g_free (field->value);
  g_free (field);
}

static gboolean
is_hex_digest (const char *s)
{
  gsize len = strlen (s);

  if (len != 32 && len != 40 && len != 64 && len != 128)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isxdigit (s[i]))
      return FALSE;
  return TRUE;
}

static gboolean
is_plain_key (const char *key)
{
  gsize len = strlen (key);

  if (len == 0 || len > 32 || !g_ascii_isalpha (key[0]))
    return FALSE;
  for (gsize i = 1; i < len; i++)
    if (!g_ascii_isalnum (key[i]) && key[i] != '_')
      return FALSE;
  return TRUE;
}

static gboolean
is_content_key (const char *key)
{
  g_autofree char *lower = g_ascii_strdown (key, -1);

  for (guint i = 0; i < G_N_ELEMENTS (content_words); i++)
    if (strstr (lower, content_words[i]) != NULL)
      return TRUE;
  return FALSE;
}

/* The text of a scalar value fit to show, or NULL. */
static char *
scalar_text (JsonNode *node,
             gboolean  content_key)
{
  GType type;

  if (!JSON_NODE_HOLDS_VALUE (node))
    return NULL;

  type = json_node_get_value_type (node);
  if (type == G_TYPE_BOOLEAN)
    return g_strdup (json_node_get_boolean (node) ? _("Yes") : _("No"));
  if (type == G_TYPE_INT64)
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  if (type == G_TYPE_DOUBLE)
    return g_strdup_printf ("%g", json_node_get_double (node));
  if (type == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (node);

      if (content_key && !is_hex_digest (s))
        return NULL;
      if (strchr (s, '\n') != NULL || strchr (s, '\r') != NULL ||
          g_utf8_strlen (s, -1) > LUMO_PREVIEW_MAX_VALUE_CHARS ||
          !g_utf8_validate (s, -1, NULL))
        return NULL;
      return g_strdup (s);
    }

  return NULL;
}

static void
add_field (GPtrArray  *fields,
           const char *label,
           char       *value)
{
  LumoPreviewField *field = g_new0 (LumoPreviewField, 1);

  field->label = g_strdup (label);
  field->value = value;
  g_ptr_array_add (fields, field);
}

static char *
format_known (const char *key,
              JsonNode   *node)
{
  if (g_str_equal (key, "bytes") && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_INT64)
    return g_format_size_full ((guint64) MAX (json_node_get_int (node), 0), G_FORMAT_SIZE_LONG_FORMAT);

  if (g_str_equal (key, "action") && JSON_NODE_HOLDS_VALUE (node) &&
      json_node_get_value_type (node) == G_TYPE_STRING)
    {
      const char *action = json_node_get_string (node);

      if (g_str_equal (action, "create"))
        return g_strdup (_("Create a script"));
      if (g_str_equal (action, "update"))
        return g_strdup (_("Change a script"));
      if (g_str_equal (action, "delete"))
        return g_strdup (_("Delete a script"));
      if (g_str_equal (action, "enable"))
        return g_strdup (_("Turn a script on"));
      if (g_str_equal (action, "disable"))
        return g_strdup (_("Turn a script off"));
    }

  /* "sourceSha256" is a digest by contract: is_content_key() would drop
   * any other string. */
  return scalar_text (node, is_content_key (key));
}

GPtrArray *
lumo_preview_format (const char *preview_json,
                     guint      *n_hidden)
{
  g_autoptr(GPtrArray) fields = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_preview_field_free);
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *object;
  guint hidden = 0;

  if (n_hidden != NULL)
    *n_hidden = 0;

  if (preview_json == NULL ||
      !(root = json_from_string (preview_json, NULL)) ||
      !JSON_NODE_HOLDS_OBJECT (root))
    return g_steal_pointer (&fields);

  object = json_node_get_object (root);

  for (guint i = 0; i < G_N_ELEMENTS (known_fields); i++)
    {
      JsonNode *node = json_object_get_member (object, known_fields[i].key);
      char *value;

      if (node == NULL)
        continue;
      if ((value = format_known (known_fields[i].key, node)) != NULL)
        add_field (fields, _(known_fields[i].label), value);
      else
        hidden++;
    }

  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      gboolean known = FALSE;
      char *value;

      for (guint i = 0; i < G_N_ELEMENTS (known_fields) && !known; i++)
        known = g_str_equal (key, known_fields[i].key);
      if (known)
        continue;

      /* The key is shown too, so it must be as harmless as a value: a
       * short identifier that does not name content. */
      if (!is_plain_key (key) || is_content_key (key) ||
          !(value = scalar_text (json_object_get_member (object, key), FALSE)))
        {
          hidden++;
          continue;
        }

      add_field (fields, key, value);
    }

  if (n_hidden != NULL)
    *n_hidden = hidden;

  return g_steal_pointer (&fields);
}
