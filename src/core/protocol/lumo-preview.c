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
#include "lumo-protocol.h"

/* How deep a nested value of an unknown field is written out. */
#define MAX_DEPTH 3

/* The scalar fields of lumo-userscripts' previews (extension/src/provider/
 * preview.ts) in the order a reviewer reads them; matches and sitePack
 * have writers of their own. */
static const struct {
  const char *key;
  const char *label;
} known_fields[] = {
  { "action", N_("Action") },
  { "name", N_("Name") },
  { "uuid", N_("Script") },
  { "missing", N_("Missing") },
  { "enabled", N_("Enabled") },
  { "bytes", N_("Size") },
  { "added", N_("Lines added") },
  { "removed", N_("Lines removed") },
  { "sourceSha256", N_("Source SHA-256") },
  { "matches", N_("Runs on") },
  { "sitePack", NULL },
  { "pack", N_("Site pack") },
  { "version", N_("Version") },
  { "origin", N_("From") },
  { "type", N_("Type") },
  { "tool", N_("Tool") },
  { "title", N_("Title") },
  { "write", N_("Writes") },
  { "argKeys", N_("Arguments") },
  { "argCount", N_("Number of arguments") },
  { "argsBytes", N_("Size of the arguments") },
};

static const char * const content_words[] = {
  "source", "code", "content", "body", "text", "diff", "patch", "script", "html", "js", "css",
  "data", "value", "args", "argument", "param", "payload",
};

typedef struct
{
  GPtrArray *fields;
  guint      hidden;
  /* Strings inside nested values are shown only for the fields whose
   * shape the provider's contract fixes (matches, sitePack, argKeys); in
   * any other field a nested string could be a piece of code. */
  gboolean   nested_strings;
} Out;

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

static void
add_field (Out        *out,
           const char *label,
           char       *value)
{
  LumoPreviewField *field = g_new0 (LumoPreviewField, 1);

  field->label = g_strdup (label);
  field->value = value;
  g_ptr_array_add (out->fields, field);
}

static gboolean
holds (JsonNode *node,
       GType     type)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == type;
}

/* A string fit to show, as display text; NULL (and counted) when it is
 * long, spans lines or names content. */
static char *
string_text (Out        *out,
             const char *s,
             gboolean    digest_only)
{
  char *clean;

  if ((digest_only && !is_hex_digest (s)) ||
      strchr (s, '\n') != NULL || strchr (s, '\r') != NULL ||
      !g_utf8_validate (s, -1, NULL) || g_utf8_strlen (s, -1) > LUMO_PREVIEW_MAX_VALUE_CHARS)
    {
      out->hidden++;
      return NULL;
    }

  clean = lumo_clean_display_name (s, LUMO_PREVIEW_MAX_VALUE_CHARS * 4);
  return clean != NULL ? clean : g_strdup ("“”");
}

static char *value_text (Out      *out,
                         JsonNode *node,
                         guint     depth);

/* "a, b, c"; an element that cannot be shown is "…" (and counted). */
static char *
list_text (Out       *out,
           JsonArray *array,
           guint      depth)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint n = json_array_get_length (array);

  if (n == 0)
    return g_strdup (_("none"));

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *item = value_text (out, json_array_get_element (array, i), depth + 1);

      if (i > 0)
        g_string_append (text, ", ");
      g_string_append (text, item != NULL ? item : "…");
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* "key: value, …" of an object of an unknown field. */
static char *
object_text (Out        *out,
             JsonObject *object,
             guint       depth)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GList) members = json_object_get_members (object);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *key = l->data;
      g_autofree char *item = NULL;

      if (!is_plain_key (key) || is_content_key (key))
        {
          out->hidden++;
          continue;
        }
      item = value_text (out, json_object_get_member (object, key), depth + 1);
      if (text->len > 0)
        g_string_append (text, ", ");
      g_string_append_printf (text, "%s: %s", key, item != NULL ? item : "…");
    }

  if (text->len == 0)
    return g_strdup (_("none"));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static char *
value_text (Out      *out,
            JsonNode *node,
            guint     depth)
{
  char *text;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup (_("none"));
  if (holds (node, G_TYPE_BOOLEAN))
    return g_strdup (json_node_get_boolean (node) ? _("Yes") : _("No"));
  if (holds (node, G_TYPE_INT64))
    return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
  if (holds (node, G_TYPE_DOUBLE))
    return g_strdup_printf ("%g", json_node_get_double (node));
  if (holds (node, G_TYPE_STRING))
    {
      if (depth > 0 && !out->nested_strings)
        {
          out->hidden++;
          return NULL;
        }
      return string_text (out, json_node_get_string (node), FALSE);
    }

  if (depth >= MAX_DEPTH)
    {
      out->hidden++;
      return NULL;
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    text = list_text (out, json_node_get_array (node), depth);
  else if (JSON_NODE_HOLDS_OBJECT (node))
    text = object_text (out, json_node_get_object (node), depth);
  else
    text = NULL;

  if (text != NULL && g_utf8_strlen (text, -1) > LUMO_PREVIEW_MAX_LINE_CHARS)
    {
      g_free (text);
      out->hidden++;
      return NULL;
    }

  return text;
}

/* An {"old": …, "new": …} pair, as an update sends it. */
static gboolean
is_old_new (JsonNode *node)
{
  JsonObject *object;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  object = json_node_get_object (node);
  return json_object_get_size (object) == 2 &&
         json_object_has_member (object, "old") && json_object_has_member (object, "new");
}

static char *
old_to_new (const char *old_text,
            const char *new_text)
{
  /* Translators: a value before and after a change, "a.test → b.test". */
  return g_strdup_printf (_("%s → %s"), old_text != NULL ? old_text : "…", new_text != NULL ? new_text : "…");
}

/* ---- site packs ---------------------------------------------------------- */

typedef struct
{
  char *summary;   /* domain · type · version */
  char *url;
  char *always;
  char *tools;     /* "name (writes), name (reads)" */
} PackText;

static void
pack_text_clear (PackText *p)
{
  g_free (p->summary);
  g_free (p->url);
  g_free (p->always);
  g_free (p->tools);
}

static char *
tools_text (Out      *out,
            JsonNode *node)
{
  g_autoptr(GString) text = g_string_new (NULL);
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return value_text (out, node, 1);

  array = json_node_get_array (node);
  if (json_array_get_length (array) == 0)
    return g_strdup (_("none"));

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *tool = json_array_get_element (array, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (tool) ? json_node_get_object (tool) : NULL;
      JsonNode *name = object != NULL ? json_object_get_member (object, "name") : NULL;
      JsonNode *write = object != NULL ? json_object_get_member (object, "write") : NULL;
      g_autofree char *shown = holds (name, G_TYPE_STRING) ? string_text (out, json_node_get_string (name), FALSE) : NULL;

      if (i > 0)
        g_string_append (text, ", ");
      if (shown == NULL)
        {
          if (!holds (name, G_TYPE_STRING))
            out->hidden++;
          g_string_append (text, "…");
        }
      else if (!holds (write, G_TYPE_BOOLEAN))
        /* Translators: a site tool whose class the preview does not say. */
        g_string_append_printf (text, _("%s (class unknown)"), shown);
      else if (json_node_get_boolean (write))
        /* Translators: a site tool that changes the page. */
        g_string_append_printf (text, _("%s (writes)"), shown);
      else
        /* Translators: a site tool that only reads the page. */
        g_string_append_printf (text, _("%s (reads)"), shown);
    }

  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
pack_text (Out      *out,
           JsonNode *node,
           PackText *p)
{
  JsonObject *object;
  g_autoptr(GString) summary = g_string_new (NULL);
  const char *parts[] = { "domain", "type", "version" };

  memset (p, 0, sizeof *p);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    {
      /* Translators: an update that turns a plain script into a site pack has no old pack. */
      p->summary = g_strdup (_("no site pack"));
      p->url = g_strdup (_("none"));
      p->always = g_strdup (_("none"));
      p->tools = g_strdup (_("none"));
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      out->hidden++;
      return;
    }

  object = json_node_get_object (node);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      JsonNode *member = json_object_get_member (object, parts[i]);
      g_autofree char *text = member != NULL ? value_text (out, member, 1) : NULL;

      if (text == NULL)
        continue;
      if (summary->len > 0)
        g_string_append (summary, " · ");
      g_string_append (summary, text);
    }
  p->summary = g_string_free (g_steal_pointer (&summary), FALSE);
  if (json_object_has_member (object, "url"))
    p->url = value_text (out, json_object_get_member (object, "url"), 1);
  if (json_object_has_member (object, "isAlwaysEnabled"))
    p->always = value_text (out, json_object_get_member (object, "isAlwaysEnabled"), 1);
  p->tools = tools_text (out, json_object_get_member (object, "tools"));
}

static void
add_pack_row (Out        *out,
              const char *label,
              const char *old_text,
              const char *new_text,
              gboolean    update)
{
  if (!update)
    {
      if (new_text != NULL)
        add_field (out, label, g_strdup (new_text));
      return;
    }
  if (old_text != NULL || new_text != NULL)
    add_field (out, label, old_to_new (old_text, new_text));
}

static void
add_site_pack (Out      *out,
               JsonNode *node)
{
  gboolean update = is_old_new (node);
  PackText old_pack = { 0 };
  PackText new_pack = { 0 };

  if (update)
    {
      JsonObject *pair = json_node_get_object (node);

      pack_text (out, json_object_get_member (pair, "old"), &old_pack);
      pack_text (out, json_object_get_member (pair, "new"), &new_pack);
    }
  else
    pack_text (out, node, &new_pack);

  add_pack_row (out, _("Site pack"), old_pack.summary, new_pack.summary, update);
  add_pack_row (out, _("Site pack address"), old_pack.url, new_pack.url, update);
  add_pack_row (out, _("Always on"), old_pack.always, new_pack.always, update);
  add_pack_row (out, _("Site pack tools"), old_pack.tools, new_pack.tools, update);

  pack_text_clear (&old_pack);
  pack_text_clear (&new_pack);
}

/* ---- the known fields ---------------------------------------------------- */

static char *
format_known (Out        *out,
              const char *key,
              JsonNode   *node)
{
  if (g_str_equal (key, "bytes") && holds (node, G_TYPE_INT64))
    return g_format_size_full ((guint64) MAX (json_node_get_int (node), 0), G_FORMAT_SIZE_LONG_FORMAT);
  if (g_str_equal (key, "argsBytes") && holds (node, G_TYPE_INT64))
    return g_format_size_full ((guint64) MAX (json_node_get_int (node), 0), G_FORMAT_SIZE_LONG_FORMAT);

  if (g_str_equal (key, "action") && holds (node, G_TYPE_STRING))
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
      if (g_str_equal (action, "site_tool"))
        return g_strdup (_("Run a site tool"));
    }

  if (g_str_equal (key, "matches") && is_old_new (node))
    {
      JsonObject *pair = json_node_get_object (node);
      g_autofree char *old_text = value_text (out, json_object_get_member (pair, "old"), 1);
      g_autofree char *new_text = value_text (out, json_object_get_member (pair, "new"), 1);

      return old_to_new (old_text, new_text);
    }

  /* "sourceSha256" is a digest by contract; any other string under a name
   * that suggests content would be left out. */
  if (holds (node, G_TYPE_STRING))
    return string_text (out, json_node_get_string (node),
                        g_str_equal (key, "sourceSha256") || is_content_key (key));

  /* argKeys is a list of argument names, never their values. */
  return value_text (out, node, g_str_equal (key, "argKeys") || g_str_equal (key, "matches") ? 0 : MAX_DEPTH);
}

GPtrArray *
lumo_preview_format (const char *preview_json,
                     guint      *n_hidden)
{
  Out out = { g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_preview_field_free), 0, FALSE };
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GList) members = NULL;
  JsonObject *object;

  if (n_hidden != NULL)
    *n_hidden = 0;

  if (preview_json == NULL ||
      !(root = json_from_string (preview_json, NULL)) ||
      !JSON_NODE_HOLDS_OBJECT (root))
    return out.fields;

  object = json_node_get_object (root);

  for (guint i = 0; i < G_N_ELEMENTS (known_fields); i++)
    {
      JsonNode *node = json_object_get_member (object, known_fields[i].key);
      char *value;

      if (node == NULL)
        continue;
      out.nested_strings = TRUE;
      if (g_str_equal (known_fields[i].key, "sitePack"))
        add_site_pack (&out, node);
      else if ((value = format_known (&out, known_fields[i].key, node)) != NULL)
        add_field (&out, _(known_fields[i].label), value);
      out.nested_strings = FALSE;
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
      if (!is_plain_key (key) || is_content_key (key))
        {
          out.hidden++;
          continue;
        }

      if ((value = value_text (&out, json_object_get_member (object, key), 0)) != NULL)
        add_field (&out, key, value);
    }

  if (n_hidden != NULL)
    *n_hidden = out.hidden;

  return out.fields;
}

char *
lumo_preview_to_text (const char *preview_json)
{
  guint n_hidden = 0;
  g_autoptr(GPtrArray) fields = lumo_preview_format (preview_json, &n_hidden);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < fields->len; i++)
    {
      const LumoPreviewField *field = g_ptr_array_index (fields, i);

      if (text->len > 0)
        g_string_append_c (text, '\n');
      /* Translators: one line of a write's preview, "Name: Dark mode". */
      g_string_append_printf (text, _("%s: %s"), field->label, field->value);
    }

  if (n_hidden > 0)
    {
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                                 "%u field of the preview is not shown: it could hold content.",
                                                 "%u fields of the preview are not shown: they could hold content.",
                                                 n_hidden), n_hidden);
    }

  return text->len > 0 ? g_string_free (g_steal_pointer (&text), FALSE) : NULL;
}
