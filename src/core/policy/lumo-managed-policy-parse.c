/* lumo-managed-policy-parse.c — reading policy.d: the files, the schema,
 * and what a bad value counts as
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each file is read with core's strict JSON parser (lumo_json_parse_located(),
 * so a problem has a line and a column) and checked key by key. Nothing
 * here is ever looser than the file could have meant: a value of the
 * wrong type binds its key at the strictest value, a file that does not
 * parse binds every key (docs/admin.md, "When a file is wrong"). Unknown
 * keys are reported and otherwise ignored, so that a key a newer version
 * knows does not lock an older one down.
 */
#define G_LOG_DOMAIN "lumo-managed-policy"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "lumo-json.h"
#include "lumo-managed-policy-private.h"
#include "lumo-protocol.h"
#include "lumo-review-queue.h"

/* Deep enough for the schema (providers → ID → callers → deny → entry). */
#define MAX_DEPTH 16

typedef struct
{
  LumoManagedPolicy *policy;
  const char        *file;
  const char        *data;
  gsize              len;
  GHashTable        *offsets;
} Reader;

static guint
line_of (Reader   *r,
         JsonNode *node)
{
  guint line = 0;

  lumo_json_line_column (r->data, r->len, lumo_json_node_offset (r->offsets, node), &line, NULL);
  return line;
}

G_GNUC_PRINTF (4, 5)
static void
problem (Reader     *r,
         JsonNode   *node,
         const char *field,
         const char *format,
         ...)
{
  g_autofree char *message = NULL;
  guint line = 0;
  guint column = 0;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  lumo_json_line_column (r->data, r->len, lumo_json_node_offset (r->offsets, node), &line, &column);
  _lumo_managed_policy_add_problem (r->policy, r->file, line, column, field, message);
}

static const char *
type_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_NULL (node))
    /* Translators: a JSON value's type, as in "must be a list of IDs, not %s". */
    return _("null");
  if (JSON_NODE_HOLDS_OBJECT (node))
    return _("an object");
  if (JSON_NODE_HOLDS_ARRAY (node))
    return _("an array");

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_BOOLEAN: return _("true or false");
    case G_TYPE_INT64:   return _("a whole number");
    case G_TYPE_DOUBLE:  return _("a number with a fraction");
    case G_TYPE_STRING:  return _("a string");
    default:             return _("another value");
    }
}

static gboolean
is_boolean (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

static gboolean
is_integer_in (JsonNode *node,
               gint64    min,
               gint64    max,
               guint    *out)
{
  gint64 v;

  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;

  v = json_node_get_int (node);
  if (v < min || v > max)
    return FALSE;

  *out = (guint) v;
  return TRUE;
}

static char *
join_field (const char *prefix,
            const char *name)
{
  return prefix != NULL ? g_strconcat (prefix, ".", name, NULL) : g_strdup (name);
}

/* ---- one scope ----------------------------------------------------------- */

/* A switch-like key that binds only in one direction: @strict_when is the
 * value that binds @slot; the other leaves the person's choice. */
static void
read_flag (Reader            *r,
           JsonNode          *node,
           const char        *field,
           gboolean           strict_when,
           LumoManagedSource *slot,
           const char        *strict_reading)
{
  if (!is_boolean (node))
    {
      /* Translators: the first %s is a JSON type ("a string"), the second
       * the value the key is read as instead ("false (writes off)"). */
      problem (r, node, field, _("must be true or false, not %s; read as %s"), type_name (node), strict_reading);
      _lumo_managed_bind (slot, r->file, line_of (r, node));
      return;
    }

  if (json_node_get_boolean (node) == strict_when)
    _lumo_managed_bind (slot, r->file, line_of (r, node));
}

static void
read_id_list (Reader           *r,
              JsonNode         *node,
              const char       *field,
              gboolean          deny,
              LumoManagedScope *scope)
{
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      if (deny)
        {
          problem (r, node, field, _("must be a list of IDs, not %s; read as denying every caller"), type_name (node));
          _lumo_managed_bind (&scope->deny_all, r->file, line_of (r, node));
        }
      else
        problem (r, node, field, _("must be a list of IDs, not %s; read as allowing no one"), type_name (node));
      return;
    }

  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autofree char *element_field = g_strdup_printf ("%s[%u]", field, i);
      const char *id = NULL;

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING)
        id = json_node_get_string (element);

      if (id == NULL || !lumo_is_extension_id (id))
        {
          /* What it meant to name is unknown: on a deny list it could be
           * anyone, on an allow list it allows no one. */
          if (deny)
            {
              problem (r, element, element_field,
                       "is not a caller ID (32 letters a–p); read as denying every caller");
              _lumo_managed_bind (&scope->deny_all, r->file, line_of (r, element));
            }
          else
            problem (r, element, element_field,
                     "is not a caller ID (32 letters a–p); it allows no one");
          continue;
        }

      _lumo_managed_bind_id (deny ? scope->deny : scope->allow, id, r->file, line_of (r, element));
    }
}

static void
read_callers (Reader           *r,
              JsonNode         *node,
              const char       *field,
              LumoManagedScope *scope)
{
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      problem (r, node, field, _("must be an object with “allow” and “deny” lists, not %s; "
               "read as denying every caller"), type_name (node));
      _lumo_managed_bind (&scope->deny_all, r->file, line_of (r, node));
      return;
    }

  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (object, name);
      g_autofree char *member_field = join_field (field, name);

      if (g_str_equal (name, "allow"))
        read_id_list (r, value, member_field, FALSE, scope);
      else if (g_str_equal (name, "deny"))
        read_id_list (r, value, member_field, TRUE, scope);
      else
        problem (r, value, member_field, _("is not a key of “callers” (allow, deny); ignored"));
    }
}

/* The keys of the whole app, not of a provider. */
static gboolean
is_global_key (const char *name)
{
  return g_str_equal (name, "minAuditRetentionDays") || g_str_equal (name, "reviewTimeoutSeconds") ||
         g_str_equal (name, "auditJournal");
}

static void read_global_key (Reader     *r,
                             const char *name,
                             JsonNode   *value,
                             const char *field);

/* The keys of a scope. @prefix: NULL at the top level, "providers.ID"
 * inside a provider. Returns FALSE for a key that is not a scope key. */
static gboolean
read_scope_key (Reader           *r,
                LumoManagedScope *scope,
                const char       *name,
                JsonNode         *value,
                const char       *field)
{
  if (g_str_equal (name, "enabled"))
    read_flag (r, value, field, FALSE, &scope->enabled_off, _("false (agent access off)"));
  else if (g_str_equal (name, "writes"))
    read_flag (r, value, field, FALSE, &scope->writes_off, _("false (writes off)"));
  else if (g_str_equal (name, "review"))
    read_flag (r, value, field, TRUE, &scope->review_on, _("true (each write reviewed)"));
  else if (g_str_equal (name, "onlyListedCallers"))
    read_flag (r, value, field, TRUE, &scope->only_listed, _("true (only listed callers)"));
  else if (g_str_equal (name, "desktopAgents"))
    read_flag (r, value, field, FALSE, &scope->agents_forbidden, _("false (desktop agents forbidden)"));
  else if (g_str_equal (name, "callers"))
    read_callers (r, value, field, scope);
  else
    return FALSE;

  return TRUE;
}

static void
read_scope_object (Reader           *r,
                   LumoManagedScope *scope,
                   JsonObject       *object,
                   const char       *prefix)
{
  g_autoptr(GList) members = json_object_get_members (object);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (object, name);
      g_autofree char *field = join_field (prefix, name);

      if (read_scope_key (r, scope, name, value, field) || g_str_equal (name, "comment"))
        continue;

      if (is_global_key (name))
        {
          /* Not per provider; still as strict as it asked, for all. */
          problem (r, value, field, _("applies to every provider; put it at the top level of the file"));
          read_global_key (r, name, value, field);
          continue;
        }

      problem (r, value, field, _("is not a key of the managed policy; ignored"));
    }
}

/* ---- the top level ----------------------------------------------------------- */

static void
read_providers (Reader   *r,
                JsonNode *node)
{
  JsonObject *object;
  g_autoptr(GList) members = NULL;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      /* It could have said anything of any provider. */
      problem (r, node, "providers", _("must be an object of provider IDs, not %s; "
               "read as the strictest value of every key for every provider"), type_name (node));
      _lumo_managed_scope_strictest (&r->policy->all, r->file, line_of (r, node));
      return;
    }

  object = json_node_get_object (node);
  members = json_object_get_members (object);
  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *id = l->data;
      JsonNode *value = json_object_get_member (object, id);
      g_autofree char *field = g_strconcat ("providers.", id, NULL);
      gboolean valid_id = lumo_is_extension_id (id);
      LumoManagedScope *scope = valid_id ? _lumo_managed_policy_provider_scope (r->policy, id)
                                         : &r->policy->all;

      /* A misspelt ID could have meant any provider: what it says counts
       * for all of them. */
      if (!valid_id)
        problem (r, value, field, _("is not a provider ID (32 letters a–p); what it sets counts for every provider"));

      if (!JSON_NODE_HOLDS_OBJECT (value))
        {
          problem (r, value, field, _("must be an object, not %s; read as the strictest value of every key"),
                   type_name (value));
          _lumo_managed_scope_strictest (scope, r->file, line_of (r, value));
          continue;
        }

      read_scope_object (r, scope, json_node_get_object (value), field);
    }
}

static void
read_timeout (Reader     *r,
              JsonNode   *node,
              const char *field)
{
  JsonObject *object;
  g_autoptr(GList) members = NULL;
  guint min_s = 0;
  guint max_s = 0;
  gboolean ok = JSON_NODE_HOLDS_OBJECT (node);

  if (!ok)
    problem (r, node, field, _("must be an object with “min” and “max” in seconds, not %s; "
             "read as exactly %d seconds"), type_name (node), LUMO_REVIEW_DEFAULT_TIMEOUT_S);
  else
    {
      object = json_node_get_object (node);
      members = json_object_get_members (object);
    }

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (object, name);
      g_autofree char *member_field = join_field (field, name);
      gboolean is_min = g_str_equal (name, "min");

      if (!is_min && !g_str_equal (name, "max"))
        {
          problem (r, value, member_field, _("is not a key of “%s” (min, max); ignored"), field);
          continue;
        }
      if (!is_integer_in (value, 1, LUMO_REVIEW_MAX_TIMEOUT_S, is_min ? &min_s : &max_s))
        {
          problem (r, value, member_field, _("must be a whole number of seconds from 1 to %d, not %s; "
                   "the timeout is read as exactly %d seconds"),
                   LUMO_REVIEW_MAX_TIMEOUT_S, type_name (value), LUMO_REVIEW_DEFAULT_TIMEOUT_S);
          ok = FALSE;
        }
    }

  if (ok && min_s > 0 && max_s > 0 && min_s > max_s)
    {
      problem (r, node, field, _("“min” (%u) is above “max” (%u); the timeout is read as exactly %d seconds"),
               min_s, max_s, LUMO_REVIEW_DEFAULT_TIMEOUT_S);
      ok = FALSE;
    }

  /* No direction of a timeout lets a write through: the narrowest bounds
   * there are, pinned at the default. */
  if (!ok)
    min_s = max_s = LUMO_REVIEW_DEFAULT_TIMEOUT_S;

  _lumo_managed_bind_timeout (r->policy, min_s, max_s, r->file, line_of (r, node));
}

static void
read_global_key (Reader     *r,
                 const char *name,
                 JsonNode   *value,
                 const char *field)
{
  guint days;

  if (g_str_equal (name, "minAuditRetentionDays"))
    {
      if (!is_integer_in (value, 0, LUMO_MANAGED_MAX_RETENTION_DAYS, &days))
        {
          problem (r, value, field, _("must be a whole number of days from 0 (forever) to %d, not %s; "
                   "read as 0 (keep every audit row forever)"), LUMO_MANAGED_MAX_RETENTION_DAYS,
                   type_name (value));
          days = LUMO_MANAGED_RETENTION_FOREVER;
        }
      _lumo_managed_bind_retention (r->policy, days, r->file, line_of (r, value));
    }
  else if (g_str_equal (name, "reviewTimeoutSeconds"))
    read_timeout (r, value, field);
  else if (g_str_equal (name, "auditJournal"))
    read_flag (r, value, field, TRUE, &r->policy->journal_on, _("true (audit rows go to the journal)"));
  else
    g_assert_not_reached ();
}

static void
read_root (Reader     *r,
           JsonObject *root)
{
  g_autoptr(GList) members = json_object_get_members (root);

  for (const GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (root, name);

      if (read_scope_key (r, &r->policy->all, name, value, name) || g_str_equal (name, "comment"))
        continue;

      if (g_str_equal (name, "providers"))
        read_providers (r, value);
      else if (is_global_key (name))
        read_global_key (r, name, value, name);
      else
        problem (r, value, name, _("is not a key of the managed policy; ignored"));
    }
}

void
_lumo_managed_policy_read_file (LumoManagedPolicy *self,
                                const char        *file,
                                const char        *data,
                                gsize              len)
{
  g_autoptr(GHashTable) offsets = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;
  gsize error_offset = 0;
  Reader r = { self, file, data, len, NULL };

  if (!(root = lumo_json_parse_located (data, len, MAX_DEPTH, &offsets, &error_offset, &error)))
    {
      g_autofree char *message = g_strdup_printf (_("%s; the whole file is read as the strictest value "
                                                    "of every key"), error->message);
      guint line, column;

      lumo_json_line_column (data, len, error_offset, &line, &column);
      _lumo_managed_policy_add_problem (self, file, line, column, NULL, message);
      _lumo_managed_policy_file_strictest (self, file);
      return;
    }

  r.offsets = offsets;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      problem (&r, root, NULL, _("the file must hold one JSON object, not %s; the whole file is read "
               "as the strictest value of every key"), type_name (root));
      _lumo_managed_policy_file_strictest (self, file);
      return;
    }

  read_root (&r, json_node_get_object (root));
}

/* ---- the directory ------------------------------------------------------------ */

static void
file_unreadable (LumoManagedPolicy *self,
                 const char        *file,
                 const char        *why)
{
  g_autofree char *message = g_strdup_printf (_("%s; read as the strictest value of every key"), why);

  _lumo_managed_policy_add_problem (self, file, 0, 0, NULL, message);
  _lumo_managed_policy_file_strictest (self, file);
}

/* Non-blocking, so a FIFO named *.json cannot hang the reader. */
static char *
read_small_file (const char  *path,
                 gsize       *len,
                 char       **why)
{
  g_autofree char *data = NULL;
  struct stat st;
  gsize got = 0;
  int fd;

  if ((fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)) < 0)
    {
      *why = g_strdup_printf (_("cannot be opened: %s"), g_strerror (errno));
      return NULL;
    }

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      *why = g_strdup (_("is not a regular file"));
      close (fd);
      return NULL;
    }
  if (st.st_size > LUMO_MANAGED_MAX_FILE_SIZE)
    {
      *why = g_strdup_printf (_("is larger than %d bytes"), LUMO_MANAGED_MAX_FILE_SIZE);
      close (fd);
      return NULL;
    }

  data = g_malloc ((gsize) st.st_size + 1);
  while (got < (gsize) st.st_size)
    {
      gssize n = read (fd, data + got, (gsize) st.st_size - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          *why = g_strdup_printf (_("cannot be read: %s"), g_strerror (errno));
          close (fd);
          return NULL;
        }
      if (n == 0)
        break;
      got += (gsize) n;
    }
  close (fd);

  data[got] = '\0';
  *len = got;
  return g_steal_pointer (&data);
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Follows @file's symbolic links (at most LUMO_MANAGED_MAX_LINK_HOPS of
 * them) and notes each hop's target, so that it can be watched too: the
 * directory's monitor sees a link replaced, not what it leads to. */
static void
note_links (LumoManagedPolicy *self,
            const char        *file)
{
  g_autofree char *path = g_strdup (file);

  for (guint hop = 0; hop < LUMO_MANAGED_MAX_LINK_HOPS; hop++)
    {
      g_autofree char *target = NULL;
      g_autofree char *parent = NULL;
      struct stat st;

      if (g_lstat (path, &st) != 0 || !S_ISLNK (st.st_mode) ||
          !(target = g_file_read_link (path, NULL)))
        return;

      parent = g_path_get_dirname (path);
      g_free (path);
      path = g_canonicalize_filename (target, parent);
      if (!g_ptr_array_find_with_equal_func (self->linked, path, g_str_equal, NULL))
        g_ptr_array_add (self->linked, g_strdup (path));
    }
}

LumoManagedPolicy *
lumo_managed_policy_load (const char *dir)
{
  g_autoptr(LumoManagedPolicy) self = NULL;
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) d = NULL;
  const char *name;

  g_return_val_if_fail (dir != NULL, NULL);

  self = _lumo_managed_policy_new (dir);

  if (!(d = g_dir_open (dir, 0, &error)))
    {
      /* No directory is the usual case: an organization that sets nothing.
       * One that is there but cannot be read could hold anything. */
      if (!g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        {
          g_autofree char *why = g_strdup_printf (_("the managed policy directory cannot be read: %s"),
                                                  error->message);

          g_ptr_array_add (self->files, g_strdup (dir));
          file_unreadable (self, g_ptr_array_index (self->files, 0), why);
        }
      return g_steal_pointer (&self);
    }

  names = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] != '.' && g_str_has_suffix (name, ".json"))
      g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);

  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *data = NULL;
      g_autofree char *why = NULL;
      const char *file;
      gsize len = 0;

      g_ptr_array_add (self->files, g_build_filename (dir, g_ptr_array_index (names, i), NULL));
      file = g_ptr_array_index (self->files, self->files->len - 1);
      note_links (self, file);

      if (!(data = read_small_file (file, &len, &why)))
        file_unreadable (self, file, why);
      else
        _lumo_managed_policy_read_file (self, file, data, len);
    }

  return g_steal_pointer (&self);
}
