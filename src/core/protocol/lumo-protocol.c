/* lumo-protocol.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "lumo-protocol"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-protocol.h"
#include "lumo-text.h"

static const char * const reserved_namespaces[] = {
  "browser", "page", "file", "network", "devtools", "webmcp", "ext", NULL
};

/* ---- extension IDs ------------------------------------------------------ */

gboolean
lumo_is_extension_id_len (const char *s,
                          gsize       len)
{
  if (s == NULL || len != LUMO_EXTENSION_ID_LEN)
    return FALSE;

  /* Byte-wise on purpose: a NUL or any byte of a multi-byte UTF-8 sequence
   * is outside 'a'…'p', so it is refused without decoding. */
  for (gsize i = 0; i < len; i++)
    if (s[i] < 'a' || s[i] > 'p')
      return FALSE;

  return TRUE;
}

gboolean
lumo_is_extension_id (const char *s)
{
  if (s == NULL)
    return FALSE;

  return lumo_is_extension_id_len (s, strnlen (s, LUMO_EXTENSION_ID_LEN + 1));
}

void
lumo_caller_key_fill (char        key[LUMO_CALLER_KEY_SIZE],
                      const char *provider_id,
                      const char *caller_id)
{
  key[0] = '\0';
  g_return_if_fail (lumo_is_extension_id (provider_id));
  g_return_if_fail (lumo_is_extension_id (caller_id));

  memcpy (key, provider_id, LUMO_EXTENSION_ID_LEN);
  key[LUMO_EXTENSION_ID_LEN] = '/';
  memcpy (key + LUMO_EXTENSION_ID_LEN + 1, caller_id, LUMO_EXTENSION_ID_LEN);
  key[LUMO_CALLER_KEY_SIZE - 1] = '\0';
}

char *
lumo_caller_key_new (const char *provider_id,
                     const char *caller_id)
{
  char key[LUMO_CALLER_KEY_SIZE];

  g_return_val_if_fail (lumo_is_extension_id (provider_id), NULL);
  g_return_val_if_fail (lumo_is_extension_id (caller_id), NULL);

  lumo_caller_key_fill (key, provider_id, caller_id);
  return g_strdup (key);
}

gboolean
lumo_caller_key_split (const char *key,
                       char        provider_id[LUMO_EXTENSION_ID_LEN + 1],
                       char        caller_id[LUMO_EXTENSION_ID_LEN + 1])
{
  const char *caller;

  if (key == NULL || strnlen (key, LUMO_CALLER_KEY_SIZE) != LUMO_CALLER_KEY_SIZE - 1 ||
      key[LUMO_EXTENSION_ID_LEN] != '/')
    return FALSE;

  caller = key + LUMO_EXTENSION_ID_LEN + 1;
  if (!lumo_is_extension_id_len (key, LUMO_EXTENSION_ID_LEN) ||
      !lumo_is_extension_id_len (caller, LUMO_EXTENSION_ID_LEN))
    return FALSE;

  memcpy (provider_id, key, LUMO_EXTENSION_ID_LEN);
  provider_id[LUMO_EXTENSION_ID_LEN] = '\0';
  memcpy (caller_id, caller, LUMO_EXTENSION_ID_LEN);
  caller_id[LUMO_EXTENSION_ID_LEN] = '\0';
  return TRUE;
}

static char *
describe_char (const char *p)
{
  gunichar c = g_utf8_get_char_validated (p, -1);

  if (c == (gunichar) -1 || c == (gunichar) -2)
    return g_strdup_printf ("byte 0x%02x", (guchar) *p);
  if (c < 0x20 || c == 0x7f)
    return g_strdup_printf ("control character U+%04X", c);
  else
    {
      char buf[8] = { 0 };

      g_unichar_to_utf8 (c, buf);
      return g_strdup_printf ("character “%s”", buf);
    }
}

gboolean
lumo_validate_extension_id (const char  *s,
                            const char  *what,
                            GError     **error)
{
  g_autofree char *shown = NULL;
  gsize len;
  glong n_chars;

  if (what == NULL)
    what = "extension ID";

  if (s == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID,
                   "The %s is missing", what);
      return FALSE;
    }

  if (lumo_is_extension_id (s))
    return TRUE;

  len = strlen (s);
  n_chars = g_utf8_validate (s, len, NULL) ? g_utf8_strlen (s, len) : (glong) len;
  shown = lumo_utf8_excerpt (s, 64);

  for (gsize i = 0; i < len && i < LUMO_EXTENSION_ID_LEN; i++)
    {
      if (s[i] < 'a' || s[i] > 'p')
        {
          g_autofree char *desc = describe_char (s + i);

          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID,
                       "The %s “%s” is not an extension ID: %s at position %" G_GSIZE_FORMAT
                       " is not one of a–p",
                       what, shown, desc, i + 1);
          return FALSE;
        }
    }

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID,
               "The %s “%s” is not an extension ID: it has %ld characters instead of 32",
               what, shown, n_chars);
  return FALSE;
}

char *
lumo_extension_id_from_origin (const char  *origin,
                               GError     **error)
{
  static const gsize prefix_len = sizeof LUMO_EXTENSION_ORIGIN_PREFIX - 1;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *shown = NULL;
  gsize len;

  if (origin == NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID, "The origin is missing");
      return NULL;
    }

  len = strlen (origin);
  shown = lumo_utf8_excerpt (origin, 80);
  if (len < prefix_len || strncmp (origin, LUMO_EXTENSION_ORIGIN_PREFIX, prefix_len) != 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID,
                   "The origin “%s” does not start with “" LUMO_EXTENSION_ORIGIN_PREFIX "”",
                   shown);
      return NULL;
    }

  if (len != prefix_len + LUMO_EXTENSION_ID_LEN + 1 || origin[len - 1] != '/')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ID,
                   "The origin “%s” is not of the form "
                   "“chrome-extension://<32 letters a–p>/”",
                   shown);
      return NULL;
    }

  id = g_strndup (origin + prefix_len, LUMO_EXTENSION_ID_LEN);
  if (!lumo_validate_extension_id (id, "origin’s extension ID", &local_error))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  return g_steal_pointer (&id);
}

char *
lumo_extension_origin_from_id (const char *id)
{
  if (!lumo_is_extension_id (id))
    return NULL;

  return g_strconcat (LUMO_EXTENSION_ORIGIN_PREFIX, id, "/", NULL);
}

/* ---- names -------------------------------------------------------------- */

static gboolean
is_line_break (gunichar c)
{
  return c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
         c == 0x85 || c == 0x2028 || c == 0x2029;
}

/* Controls, the separators and the bidi controls: never display text. */
static gboolean
is_unsafe (gunichar c)
{
  return c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c == 0x061c || c == 0x200e || c == 0x200f ||
         (c >= 0x2028 && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

/* What JavaScript's \s matches, so both ends collapse the same runs. */
static gboolean
is_space (gunichar c)
{
  return g_unichar_isspace (c) || c == 0xfeff;
}

char *
lumo_clean_display_name (const char *name,
                         gsize       max_bytes)
{
  g_autofree char *valid = NULL;
  g_autofree char *cut = NULL;
  GString *out;
  gboolean pending_space = FALSE;

  if (name == NULL)
    return NULL;

  valid = g_utf8_make_valid (name, -1);
  out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (is_line_break (c) || is_space (c))
        {
          /* Collapsed, and never at the start. */
          pending_space = out->len > 0;
          continue;
        }
      if (is_unsafe (c))
        continue;

      if (pending_space)
        g_string_append_c (out, ' ');
      pending_space = FALSE;
      g_string_append_unichar (out, c);
    }

  cut = lumo_utf8_cut (out->str, max_bytes);
  g_string_free (out, TRUE);
  g_strchomp (cut);

  return *cut != '\0' ? g_steal_pointer (&cut) : NULL;
}

const char * const *
lumo_reserved_namespaces (void)
{
  return reserved_namespaces;
}

gboolean
lumo_is_reserved_namespace (const char *ns)
{
  if (ns == NULL)
    return FALSE;

  return g_strv_contains (reserved_namespaces, ns);
}

static gboolean
check_charset (const char  *s,
               gboolean     is_namespace,
               const char  *what,
               GError     **error)
{
  for (gsize i = 0; s[i] != '\0'; i++)
    {
      char c = s[i];
      gboolean ok;

      if (is_namespace)
        ok = (c >= 'a' && c <= 'z') ||
             (i > 0 && ((c >= '0' && c <= '9') || c == '_' || c == '-'));
      else
        ok = g_ascii_isalnum (c) || c == '_' || c == '-';

      if (!ok)
        {
          g_autofree char *desc = describe_char (s + i);
          g_autofree char *shown = lumo_utf8_excerpt (s, 64);

          if (is_namespace && i == 0)
            g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME,
                         "The %s “%s” must start with a lower-case letter a–z, not %s",
                         what, shown, desc);
          else
            g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME,
                         "The %s “%s” has %s at position %" G_GSIZE_FORMAT
                         "; only %s are allowed",
                         what, shown, desc, i + 1,
                         is_namespace ? "a–z, 0–9, “_” and “-”"
                                      : "A–Z, a–z, 0–9, “_” and “-”");
          return FALSE;
        }
    }

  return TRUE;
}

gboolean
lumo_validate_namespace (const char  *ns,
                         GError     **error)
{
  gsize len;

  if (ns == NULL || ns[0] == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME, "The namespace is empty");
      return FALSE;
    }

  /* Charset first: after it, bytes and characters are the same. */
  if (!check_charset (ns, TRUE, "namespace", error))
    return FALSE;

  len = strlen (ns);
  if (len > LUMO_MAX_NAMESPACE_LEN)
    {
      g_autofree char *shown = lumo_utf8_excerpt (ns, 64);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The namespace “%s” has %" G_GSIZE_FORMAT " characters; at most %d are allowed",
                   shown, len, LUMO_MAX_NAMESPACE_LEN);
      return FALSE;
    }

  if (lumo_is_reserved_namespace (ns))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_RESERVED_NAMESPACE,
                   "The namespace “%s” is reserved for built-in tools", ns);
      return FALSE;
    }

  return TRUE;
}

gboolean
lumo_validate_tool_name (const char  *name,
                         GError     **error)
{
  gsize len;

  if (name == NULL || name[0] == '\0')
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME, "The tool name is empty");
      return FALSE;
    }

  if (!check_charset (name, FALSE, "tool name", error))
    return FALSE;

  len = strlen (name);
  if (len > LUMO_MAX_TOOL_NAME_LEN)
    {
      g_autofree char *shown = lumo_utf8_excerpt (name, 64);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The tool name “%s” has %" G_GSIZE_FORMAT " characters; at most %d are allowed",
                   shown, len, LUMO_MAX_TOOL_NAME_LEN);
      return FALSE;
    }

  return TRUE;
}

char *
lumo_qualified_tool_name (const char  *ns,
                          const char  *name,
                          GError     **error)
{
  g_autofree char *qualified = NULL;
  gsize len;

  if (!lumo_validate_namespace (ns, error) || !lumo_validate_tool_name (name, error))
    return NULL;

  qualified = g_strconcat (ns, LUMO_TOOL_NAME_SEPARATOR, name, NULL);
  len = strlen (qualified);
  if (len > LUMO_MAX_QUALIFIED_NAME_LEN)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_LIMIT_EXCEEDED,
                   "The qualified tool name “%s” has %" G_GSIZE_FORMAT
                   " characters; at most %d are allowed "
                   "(the function-name limit of model APIs)",
                   qualified, len, LUMO_MAX_QUALIFIED_NAME_LEN);
      return NULL;
    }

  return g_steal_pointer (&qualified);
}

gboolean
lumo_validate_qualified_tool_name (const char  *qualified,
                                   GError     **error)
{
  g_autofree char *ns = NULL;
  g_autofree char *rebuilt = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *sep;

  if (qualified == NULL || !g_utf8_validate (qualified, -1, NULL) ||
      (sep = strstr (qualified, LUMO_TOOL_NAME_SEPARATOR)) == NULL)
    {
      g_autofree char *shown = qualified != NULL ? lumo_utf8_excerpt (qualified, 64) : NULL;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME,
                   "The tool “%s” is not a qualified name (namespace.name)",
                   shown != NULL ? shown : "");
      return FALSE;
    }

  /* Neither part may hold the separator, so the first one splits. */
  ns = g_strndup (qualified, sep - qualified);
  if (!(rebuilt = lumo_qualified_tool_name (ns, sep + strlen (LUMO_TOOL_NAME_SEPARATOR), &local_error)))
    {
      g_autofree char *shown = lumo_utf8_excerpt (qualified, 64);

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_NAME,
                   "The tool “%s” is not a qualified name: %s", shown, local_error->message);
      return FALSE;
    }

  return TRUE;
}

/* ---- tool catalogues ---------------------------------------------------- */

G_DEFINE_BOXED_TYPE (LumoToolInfo, lumo_tool_info, lumo_tool_info_copy, lumo_tool_info_free)
G_DEFINE_BOXED_TYPE (LumoCatalogue, lumo_catalogue, lumo_catalogue_copy, lumo_catalogue_free)

LumoToolInfo *
lumo_tool_info_copy (const LumoToolInfo *info)
{
  LumoToolInfo *copy;

  g_return_val_if_fail (info != NULL, NULL);

  copy = g_new0 (LumoToolInfo, 1);
  copy->name = g_strdup (info->name);
  copy->qualified_name = g_strdup (info->qualified_name);
  copy->title = g_strdup (info->title);
  copy->description = g_strdup (info->description);
  copy->write = info->write;
  copy->descriptor = info->descriptor ? json_object_ref (info->descriptor) : NULL;

  return copy;
}

void
lumo_tool_info_free (LumoToolInfo *info)
{
  if (info == NULL)
    return;

  g_free (info->name);
  g_free (info->qualified_name);
  g_free (info->title);
  g_free (info->description);
  g_clear_pointer (&info->descriptor, json_object_unref);
  g_free (info);
}

void
lumo_tool_refusal_free (LumoToolRefusal *refusal)
{
  if (refusal == NULL)
    return;

  g_free (refusal->name);
  g_free (refusal->reason);
  g_free (refusal);
}

static LumoToolRefusal *
tool_refusal_copy (const LumoToolRefusal *refusal)
{
  LumoToolRefusal *copy = g_new0 (LumoToolRefusal, 1);

  copy->index = refusal->index;
  copy->name = g_strdup (refusal->name);
  copy->code = refusal->code;
  copy->reason = g_strdup (refusal->reason);

  return copy;
}

static void
add_refusal (GPtrArray  *refusals,
             guint       index,
             const char *name,
             int         code,
             const char *reason)
{
  LumoToolRefusal *refusal = g_new0 (LumoToolRefusal, 1);

  refusal->index = index;
  refusal->name = g_strdup (name);
  refusal->code = code;
  refusal->reason = g_strdup (reason);
  g_ptr_array_add (refusals, refusal);
}

static LumoCatalogue *
catalogue_new (const char *ns)
{
  LumoCatalogue *catalogue = g_new0 (LumoCatalogue, 1);

  catalogue->namespace_ = g_strdup (ns);
  catalogue->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_info_free);
  catalogue->refusals = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_tool_refusal_free);

  return catalogue;
}

LumoCatalogue *
lumo_catalogue_copy (const LumoCatalogue *catalogue)
{
  LumoCatalogue *copy;

  g_return_val_if_fail (catalogue != NULL, NULL);

  copy = catalogue_new (catalogue->namespace_);
  for (guint i = 0; i < catalogue->tools->len; i++)
    g_ptr_array_add (copy->tools, lumo_tool_info_copy (g_ptr_array_index (catalogue->tools, i)));
  for (guint i = 0; i < catalogue->refusals->len; i++)
    g_ptr_array_add (copy->refusals, tool_refusal_copy (g_ptr_array_index (catalogue->refusals, i)));

  return copy;
}

void
lumo_catalogue_free (LumoCatalogue *catalogue)
{
  if (catalogue == NULL)
    return;

  g_free (catalogue->namespace_);
  g_ptr_array_unref (catalogue->tools);
  g_ptr_array_unref (catalogue->refusals);
  g_free (catalogue);
}

const LumoToolInfo *
lumo_catalogue_find (const LumoCatalogue *catalogue,
                     const char          *name)
{
  g_return_val_if_fail (catalogue != NULL, NULL);
  g_return_val_if_fail (name != NULL, NULL);

  for (guint i = 0; i < catalogue->tools->len; i++)
    {
      const LumoToolInfo *info = g_ptr_array_index (catalogue->tools, i);

      if (g_str_equal (info->name, name))
        return info;
    }

  return NULL;
}

static gboolean
get_optional_string (JsonObject  *object,
                     const char  *member,
                     char       **out,
                     GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  *out = NULL;
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The field “%s” must be a string", member);
      return FALSE;
    }

  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* Returns the info for one catalogue entry, or NULL with the reason. */
static LumoToolInfo *
parse_tool (const char  *ns,
            JsonNode    *node,
            char       **name_out,
            GError     **error)
{
  g_autoptr(LumoToolInfo) info = NULL;
  JsonObject *object;
  JsonNode *member;

  *name_out = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The tool descriptor is not a JSON object");
      return NULL;
    }

  object = json_node_get_object (node);
  member = json_object_get_member (object, "name");
  if (member == NULL || !JSON_NODE_HOLDS_VALUE (member) ||
      json_node_get_value_type (member) != G_TYPE_STRING)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "The tool descriptor has no string field “name”");
      return NULL;
    }

  info = g_new0 (LumoToolInfo, 1);
  info->name = g_strdup (json_node_get_string (member));
  *name_out = g_strdup (info->name);

  if (!(info->qualified_name = lumo_qualified_tool_name (ns, info->name, error)))
    return NULL;

  if (!get_optional_string (object, "title", &info->title, error) ||
      !get_optional_string (object, "description", &info->description, error))
    return NULL;

  member = json_object_get_member (object, "write");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_VALUE (member) || json_node_get_value_type (member) != G_TYPE_BOOLEAN)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                       "The field “write” must be true or false");
          return NULL;
        }
      info->write = json_node_get_boolean (member);
    }

  info->descriptor = json_object_ref (object);

  return g_steal_pointer (&info);
}

LumoCatalogue *
lumo_catalogue_validate (const char  *ns,
                         JsonArray   *tools,
                         GError     **error)
{
  g_autoptr(LumoCatalogue) catalogue = NULL;
  g_autoptr(GHashTable) seen = NULL;
  guint n;

  g_return_val_if_fail (tools != NULL, NULL);

  if (!lumo_validate_namespace (ns, error))
    return NULL;

  catalogue = catalogue_new (ns);
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  n = json_array_get_length (tools);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) local_error = NULL;
      g_autofree char *name = NULL;
      g_autofree char *reason = NULL;
      LumoToolInfo *info;

      info = parse_tool (ns, json_array_get_element (tools, i), &name, &local_error);
      if (info == NULL)
        {
          if (name != NULL && g_utf8_validate (name, -1, NULL))
            {
              g_autofree char *shown = lumo_utf8_excerpt (name, 64);

              reason = g_strdup_printf ("Tool %u (“%s”): %s", i + 1, shown, local_error->message);
            }
          else
            reason = g_strdup_printf ("Tool %u: %s", i + 1, local_error->message);
          add_refusal (catalogue->refusals, i, name, local_error->code, reason);
          continue;
        }

      if (g_hash_table_contains (seen, info->name))
        {
          reason = g_strdup_printf ("Tool %u (“%s”): the name is already used by an earlier "
                                    "tool of this catalogue",
                                    i + 1, info->name);
          add_refusal (catalogue->refusals, i, info->name, LUMO_ERROR_DUPLICATE, reason);
          lumo_tool_info_free (info);
          continue;
        }

      if (catalogue->tools->len >= LUMO_MAX_TOOLS)
        {
          reason = g_strdup_printf ("Tool %u (“%s”): a provider may offer at most %d tools",
                                    i + 1, info->name, LUMO_MAX_TOOLS);
          add_refusal (catalogue->refusals, i, info->name, LUMO_ERROR_LIMIT_EXCEEDED, reason);
          lumo_tool_info_free (info);
          continue;
        }

      g_hash_table_add (seen, info->name);
      g_ptr_array_add (catalogue->tools, info);
    }

  return g_steal_pointer (&catalogue);
}
