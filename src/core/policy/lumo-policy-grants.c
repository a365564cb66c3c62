/* lumo-policy-grants.c — review grants: a person's approval that stands
 * for one caller's writes of one tool
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A grant is a row of `grants` (provider, caller, tool, created, expires or
 * NULL for always), made when a person approves a write for ten minutes or
 * always, and ended by a revoke, by its caller losing its allowed state or
 * its row (the schema's trigger and foreign key), or by the wall clock. It
 * only ever stands in for review: lumo_policy_authorize() looks for one
 * after the writes switch and the rate limit, in the snapshot like every
 * other decision input, so it costs no database read.
 *
 * Every change is one transaction with its history entry (field "grant",
 * the tool in the entry's own column, the replaced or revoked grant as the
 * snapshot that undo restores). A grant that runs out is no change: the
 * row stays until the next grant change of this file deletes it, and the
 * snapshot drops it when the one-shot timeout for the earliest expiry
 * fires (or lumo_policy_refresh() looks), announcing ::grant-changed. The
 * timeout exists only while a timed grant is in force.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include <string.h>

#include "lumo-error.h"
#include "lumo-policy-private.h"
#include "lumo-protocol.h"

#define GRANT_COLUMNS "provider_id, caller_id, tool, created, coalesce (expires, 0)"

gint64
_lumo_policy_wall_now (LumoPolicy *self)
{
  return self->wall_clock != NULL ? self->wall_clock (self->wall_clock_data) : g_get_real_time ();
}

/* A timed grant counts from when it was made until it runs out; a clock
 * set back before its start does not make it last longer (fail closed). */
gboolean
_lumo_policy_grant_is_live (const LumoGrantInfo *grant,
                            gint64               now)
{
  if (grant->expires == 0)
    return TRUE;

  return grant->created <= now && now < grant->expires;
}

char *
_lumo_policy_grant_key (const char *provider_id,
                        const char *caller_id,
                        const char *tool)
{
  /* IDs are a–p only and a tool has no '/', so the key is unambiguous. */
  return g_strconcat (provider_id, "/", caller_id, "/", tool, NULL);
}

static LumoGrantInfo *
grant_from_row (sqlite3_stmt *stmt)
{
  LumoGrantInfo *grant = g_new0 (LumoGrantInfo, 1);

  grant->provider_id = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  grant->caller_id = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
  grant->tool = g_strdup ((const char *) sqlite3_column_text (stmt, 2));
  grant->created = sqlite3_column_int64 (stmt, 3);
  grant->expires = sqlite3_column_int64 (stmt, 4);
  grant->scope = grant->expires == 0 ? LUMO_GRANT_SCOPE_ALWAYS : LUMO_GRANT_SCOPE_TEN_MINUTES;

  return grant;
}

GPtrArray *
_lumo_policy_store_list_grants (sqlite3     *db,
                                const char  *provider_id,
                                const char  *caller_id,
                                const char  *tool,
                                GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT " GRANT_COLUMNS " FROM grants "
                                "WHERE (?1 IS NULL OR provider_id = ?1) AND (?2 IS NULL OR caller_id = ?2) "
                                "  AND (?3 IS NULL OR tool = ?3) "
                                "ORDER BY provider_id, caller_id, tool",
                                error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, tool, -1, SQLITE_TRANSIENT);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_grant_info_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, grant_from_row (stmt));
  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, "Cannot read the review grants");
      return NULL;
    }

  return g_steal_pointer (&list);
}

GHashTable *
_lumo_policy_store_load_grants (sqlite3  *db,
                                gint64    now,
                                GError  **error)
{
  g_autoptr(GPtrArray) list = NULL;
  GHashTable *grants;

  if (!(list = _lumo_policy_store_list_grants (db, NULL, NULL, NULL, error)))
    return NULL;

  grants = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                  (GDestroyNotify) lumo_grant_info_free);
  for (guint i = 0; i < list->len; i++)
    {
      LumoGrantInfo *grant = g_ptr_array_index (list, i);

      if (_lumo_policy_grant_is_live (grant, now))
        g_hash_table_insert (grants,
                             _lumo_policy_grant_key (grant->provider_id, grant->caller_id, grant->tool),
                             lumo_grant_info_copy (grant));
    }

  return grants;
}

/* ---- snapshots: what undo restores ------------------------------------------ */

static void
build_grant (JsonBuilder         *builder,
             const LumoGrantInfo *grant)
{
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "provider_id");
  json_builder_add_string_value (builder, grant->provider_id);
  json_builder_set_member_name (builder, "caller_id");
  json_builder_add_string_value (builder, grant->caller_id);
  json_builder_set_member_name (builder, "tool");
  json_builder_add_string_value (builder, grant->tool);
  json_builder_set_member_name (builder, "created");
  json_builder_add_int_value (builder, grant->created);
  json_builder_set_member_name (builder, "expires");
  json_builder_add_int_value (builder, grant->expires);
  json_builder_end_object (builder);
}

gboolean
_lumo_policy_store_build_grants (sqlite3      *db,
                                 JsonBuilder  *builder,
                                 const char   *provider_id,
                                 const char   *caller_id,
                                 guint        *n_grants,
                                 GError      **error)
{
  g_autoptr(GPtrArray) grants = NULL;

  if (!(grants = _lumo_policy_store_list_grants (db, provider_id, caller_id, NULL, error)))
    return FALSE;

  json_builder_set_member_name (builder, "grants");
  json_builder_begin_array (builder);
  for (guint i = 0; i < grants->len; i++)
    build_grant (builder, g_ptr_array_index (grants, i));
  json_builder_end_array (builder);

  if (n_grants != NULL)
    *n_grants = grants->len;

  return TRUE;
}

/* The one INSERT of a grant row (@expires 0: always); a row of the same
 * key is replaced. The schema refuses a grant to a caller that is not
 * allowed, and one that breaks its CHECKs. */
static gboolean
put_grant (sqlite3     *db,
           const char  *provider_id,
           const char  *caller_id,
           const char  *tool,
           gint64       created,
           gint64       expires,
           GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO grants (provider_id, caller_id, tool, created, expires) "
                                "VALUES (?, ?, ?, ?, ?) "
                                "ON CONFLICT (provider_id, caller_id, tool) DO UPDATE SET "
                                "  created = excluded.created, expires = excluded.expires",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, tool, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (stmt, 4, created);
  if (expires != 0)
    sqlite3_bind_int64 (stmt, 5, expires);

  return _lumo_policy_store_step_done (db, stmt, "Cannot store the review grant", error);
}

static gboolean
restore_grant_object (sqlite3     *db,
                      JsonObject  *o,
                      GError     **error)
{
  /* A snapshot that does not hold a grant fails the schema's CHECKs. */
  return put_grant (db,
                    json_object_get_string_member_with_default (o, "provider_id", NULL),
                    json_object_get_string_member_with_default (o, "caller_id", NULL),
                    json_object_get_string_member_with_default (o, "tool", NULL),
                    json_object_get_int_member_with_default (o, "created", 0),
                    json_object_get_int_member_with_default (o, "expires", 0),
                    error);
}

gboolean
_lumo_policy_store_restore_grants (sqlite3     *db,
                                   JsonObject  *o,
                                   GError     **error)
{
  JsonNode *node = json_object_get_member (o, "grants");
  JsonArray *grants;

  /* Snapshots from before grants have none. */
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                   "The snapshot's “grants” is not an array");
      return FALSE;
    }

  grants = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (grants); i++)
    {
      JsonNode *grant = json_array_get_element (grants, i);

      if (!JSON_NODE_HOLDS_OBJECT (grant))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                       "Grant %u of the snapshot is not an object", i);
          return FALSE;
        }
      if (!restore_grant_object (db, json_node_get_object (grant), error))
        return FALSE;
    }

  return TRUE;
}

char *
_lumo_policy_grant_snapshot (const LumoGrantInfo *grant)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "grants");
  json_builder_begin_array (builder);
  build_grant (builder, grant);
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);

  return json_to_string (root, FALSE);
}

/* ---- changes ---------------------------------------------------------------- */

/* The row of @tool, live or not; NULL (no error) when there is none. */
static gboolean
get_grant_row (sqlite3        *db,
               const char     *provider_id,
               const char     *caller_id,
               const char     *tool,
               LumoGrantInfo **grant,
               GError        **error)
{
  g_autoptr(GPtrArray) rows = NULL;

  if (!(rows = _lumo_policy_store_list_grants (db, provider_id, caller_id, tool, error)))
    return FALSE;

  *grant = rows->len > 0 ? g_ptr_array_steal_index (rows, 0) : NULL;
  return TRUE;
}

/* Housekeeping inside a grant change: rows that ran out are no grants. */
static gboolean
delete_run_out (sqlite3  *db,
                gint64    now,
                GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db, "DELETE FROM grants WHERE expires IS NOT NULL AND expires <= ?",
                                error)))
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, now);

  return _lumo_policy_store_step_done (db, stmt, "Cannot delete the review grants that ran out", error);
}

static gboolean
validate_grant_key (const char  *provider_id,
                    const char  *caller_id,
                    const char  *tool,
                    GError     **error)
{
  return lumo_validate_extension_id (provider_id, "provider ID", error) &&
         lumo_validate_extension_id (caller_id, "caller ID", error) &&
         lumo_validate_qualified_tool_name (tool, error);
}

gboolean
lumo_policy_add_grant (LumoPolicy        *self,
                       const char        *provider_id,
                       const char        *caller_id,
                       const char        *tool,
                       LumoGrantScope     scope,
                       LumoPolicyOrigin   origin,
                       GError           **error)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(LumoGrantInfo) current = NULL;
  g_autofree char *snapshot = NULL;
  const char *old_value = NULL;
  gint64 now;
  gboolean ok;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!validate_grant_key (provider_id, caller_id, tool, error))
    return FALSE;
  if (scope != LUMO_GRANT_SCOPE_TEN_MINUTES && scope != LUMO_GRANT_SCOPE_ALWAYS)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "A review grant is for ten minutes or always; an approval of one write is no grant");
      return FALSE;
    }

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  if (!(caller = _lumo_policy_store_get_caller (self->db, provider_id, caller_id, error)))
    return _lumo_policy_finish (self, FALSE, error);
  if (caller->state != LUMO_CALLER_STATE_ALLOWED)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_AUTHORIZED,
                   "The caller “%s” is %s on the provider “%s”, so its writes cannot be approved "
                   "beyond this one",
                   caller_id, lumo_caller_state_to_string (caller->state), provider_id);
      return _lumo_policy_finish (self, FALSE, error);
    }

  now = _lumo_policy_wall_now (self);
  if (!get_grant_row (self->db, provider_id, caller_id, tool, &current, error))
    return _lumo_policy_finish (self, FALSE, error);
  if (current != NULL && _lumo_policy_grant_is_live (current, now))
    {
      /* Always stays always; ten minutes more starts again from now. */
      if (current->scope == LUMO_GRANT_SCOPE_ALWAYS && scope == LUMO_GRANT_SCOPE_ALWAYS)
        {
          lumo_db_rollback (self->db);
          return TRUE;
        }
      old_value = lumo_grant_scope_to_string (current->scope);
      snapshot = _lumo_policy_grant_snapshot (current);
    }

  ok = delete_run_out (self->db, now, error) &&
       put_grant (self->db, provider_id, caller_id, tool, now,
                  scope == LUMO_GRANT_SCOPE_TEN_MINUTES ? now + LUMO_GRANT_TIMED_US : 0, error);
  ok = ok && _lumo_policy_store_add_grant_history (self->db, origin, provider_id, caller_id, tool,
                                                   old_value, lumo_grant_scope_to_string (scope),
                                                   snapshot, 0, error);

  return _lumo_policy_finish (self, ok, error);
}

gboolean
lumo_policy_revoke_grant (LumoPolicy        *self,
                          const char        *provider_id,
                          const char        *caller_id,
                          const char        *tool,
                          LumoPolicyOrigin   origin,
                          GError           **error)
{
  g_autoptr(LumoGrantInfo) current = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *snapshot = NULL;
  gint64 now;
  gboolean ok;

  g_return_val_if_fail (LUMO_IS_POLICY (self), FALSE);
  g_return_val_if_fail (_lumo_policy_origin_is_valid (origin), FALSE);

  if (!validate_grant_key (provider_id, caller_id, tool, error))
    return FALSE;

  if (!_lumo_policy_begin (self, error))
    return FALSE;

  now = _lumo_policy_wall_now (self);
  if (!get_grant_row (self->db, provider_id, caller_id, tool, &current, error))
    return _lumo_policy_finish (self, FALSE, error);
  if (current == NULL || !_lumo_policy_grant_is_live (current, now))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "The caller “%s” has no review grant for “%s” on the provider “%s”%s",
                   caller_id, tool, provider_id, current != NULL ? " (it ran out already)" : "");
      return _lumo_policy_finish (self, FALSE, error);
    }

  snapshot = _lumo_policy_grant_snapshot (current);
  ok = (stmt = lumo_db_prepare (self->db,
                                "DELETE FROM grants WHERE provider_id = ? AND caller_id = ? AND tool = ?",
                                error)) != NULL;
  if (ok)
    {
      sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (stmt, 3, tool, -1, SQLITE_TRANSIENT);
      ok = _lumo_policy_store_step_done (self->db, stmt, "Cannot revoke the review grant", error);
    }

  ok = ok && delete_run_out (self->db, now, error) &&
       _lumo_policy_store_add_grant_history (self->db, origin, provider_id, caller_id, tool,
                                             lumo_grant_scope_to_string (current->scope), NULL,
                                             snapshot, 0, error);

  return _lumo_policy_finish (self, ok, error);
}

static int
compare_grants (gconstpointer a,
                gconstpointer b)
{
  const LumoGrantInfo *ga = *(LumoGrantInfo * const *) a;
  const LumoGrantInfo *gb = *(LumoGrantInfo * const *) b;
  int cmp;

  if ((cmp = strcmp (ga->provider_id, gb->provider_id)) != 0 ||
      (cmp = strcmp (ga->caller_id, gb->caller_id)) != 0)
    return cmp;

  return strcmp (ga->tool, gb->tool);
}

GPtrArray *
lumo_policy_list_grants (LumoPolicy  *self,
                         const char  *provider_id,
                         GError     **error)
{
  GPtrArray *list;
  GHashTableIter iter;
  gpointer value;

  g_return_val_if_fail (LUMO_IS_POLICY (self), NULL);

  if (provider_id != NULL && !lumo_validate_extension_id (provider_id, "provider ID", error))
    return NULL;

  /* The snapshot, after another process's commits and the clock. */
  if (!_lumo_policy_ensure_current (self, error))
    return NULL;
  _lumo_policy_grants_expire (self);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_grant_info_free);
  g_hash_table_iter_init (&iter, self->grants);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const LumoGrantInfo *grant = value;

      if (provider_id == NULL || g_str_equal (grant->provider_id, provider_id))
        g_ptr_array_add (list, lumo_grant_info_copy (grant));
    }
  g_ptr_array_sort (list, compare_grants);

  return list;
}

/* ---- running out ------------------------------------------------------------ */

static gboolean
on_grant_timeout_cb (gpointer user_data)
{
  LumoPolicy *self = user_data;

  g_clear_pointer (&self->grant_source, g_source_unref);
  _lumo_policy_grants_expire (self);

  return G_SOURCE_REMOVE;
}

void
_lumo_policy_grants_arm (LumoPolicy *self)
{
  gint64 earliest = G_MAXINT64;
  gint64 now;
  GHashTableIter iter;
  gpointer value;
  guint seconds;

  if (self->grant_source != NULL)
    {
      g_source_destroy (self->grant_source);
      g_clear_pointer (&self->grant_source, g_source_unref);
    }

  g_hash_table_iter_init (&iter, self->grants);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const LumoGrantInfo *grant = value;

      if (grant->expires != 0)
        earliest = MIN (earliest, grant->expires);
    }
  if (earliest == G_MAXINT64)
    return;

  /* Seconds are enough for a label; the decision reads the clock itself. */
  now = _lumo_policy_wall_now (self);
  seconds = earliest <= now ? 0 : (guint) MIN ((earliest - now + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC,
                                               G_MAXUINT / 2);
  self->grant_source = seconds == 0 ? g_timeout_source_new (0) : g_timeout_source_new_seconds (seconds);
  g_source_set_callback (self->grant_source, on_grant_timeout_cb, self, NULL);
  g_source_set_static_name (self->grant_source, "[lumo] review grant runs out");
  g_source_attach (self->grant_source, self->context);
}

void
_lumo_policy_grants_expire (LumoPolicy *self)
{
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_grant_info_free);
  g_autoptr(LumoPolicy) hold = g_object_ref (self);
  gint64 now = _lumo_policy_wall_now (self);
  GHashTableIter iter;
  gpointer value;

  g_hash_table_iter_init (&iter, self->grants);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      if (!_lumo_policy_grant_is_live (value, now))
        {
          g_ptr_array_add (gone, lumo_grant_info_copy (value));
          g_hash_table_iter_remove (&iter);
        }
    }

  _lumo_policy_grants_arm (self);

  g_ptr_array_sort (gone, compare_grants);
  for (guint i = 0; i < gone->len; i++)
    {
      const LumoGrantInfo *grant = g_ptr_array_index (gone, i);

      _lumo_policy_emit_grant_changed (self, grant->provider_id, grant->caller_id, grant->tool);
    }
}

void
lumo_policy_set_wall_clock (LumoPolicy    *self,
                            LumoClockFunc  clock,
                            gpointer       user_data)
{
  g_return_if_fail (LUMO_IS_POLICY (self));

  self->wall_clock = clock;
  self->wall_clock_data = user_data;
  _lumo_policy_grants_arm (self);
}
