/* lumo-policy-undo.c — reverting the newest change a person made
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The history is an undo stack of the changes people made (origin ui, cli
 * or import). Automatic entries (origin bridge: a provider's first hello, a
 * new pending caller) are never undone: "undo" must not silently drop a
 * request that arrived after the person's last click. An undo is itself an
 * entry that points at what it reverted (history.undoes, UNIQUE, so nothing
 * is reverted twice) and is not undoable, so repeated undos walk back.
 *
 * The stack stays consistent because automatic entries only ever add rows:
 * when an entry is reverted, every later human change to the same thing has
 * already been reverted.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-policy-private.h"

static const char *
on_off (gboolean on)
{
  return on ? "on" : "off";
}

static const char *
provider_presence (const LumoProviderInfo *provider)
{
  return provider->first_seen != 0 ? "registered" : "watched";
}

static LumoHistoryEntry *
find_undoable (sqlite3  *db,
               char    **snapshot,
               GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  LumoHistoryEntry *entry;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT h.id, h.provider_id, h.caller_id, h.field, "
                                "       h.old_value, h.new_value, h.snapshot, h.origin, h.time, h.tool "
                                "FROM history h "
                                "WHERE h.origin != 'bridge' AND h.undoes IS NULL "
                                "  AND NOT EXISTS (SELECT 1 FROM history u WHERE u.undoes = h.id) "
                                "ORDER BY h.id DESC LIMIT 1",
                                error)))
    return NULL;

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "Nothing to undo: every change made by a person has been undone already");
      return NULL;
    }
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, db, rc, "Cannot read the policy history");
      return NULL;
    }

  entry = g_new0 (LumoHistoryEntry, 1);
  entry->id = sqlite3_column_int64 (stmt, 0);
  entry->provider_id = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
  entry->caller_id = g_strdup ((const char *) sqlite3_column_text (stmt, 2));
  entry->field = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
  entry->old_value = g_strdup ((const char *) sqlite3_column_text (stmt, 4));
  entry->new_value = g_strdup ((const char *) sqlite3_column_text (stmt, 5));
  *snapshot = g_strdup ((const char *) sqlite3_column_text (stmt, 6));
  for (LumoPolicyOrigin o = LUMO_POLICY_ORIGIN_UI; o <= LUMO_POLICY_ORIGIN_BRIDGE; o++)
    if (g_strcmp0 ((const char *) sqlite3_column_text (stmt, 7), lumo_policy_origin_to_string (o)) == 0)
      entry->origin = o;
  entry->time = sqlite3_column_int64 (stmt, 8);
  entry->tool = g_strdup ((const char *) sqlite3_column_text (stmt, 9));

  return entry;
}

static gboolean
require_provider (sqlite3                 *db,
                  const LumoHistoryEntry  *entry,
                  LumoProviderInfo       **provider,
                  GError                 **error)
{
  g_autoptr(GError) local_error = NULL;

  *provider = _lumo_policy_store_get_provider (db, entry->provider_id, &local_error);
  if (*provider != NULL)
    return TRUE;

  if (g_error_matches (local_error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND))
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                 "Cannot undo change #%" G_GINT64_FORMAT ": the provider “%s” no longer exists",
                 entry->id, entry->provider_id);
  else
    g_propagate_error (error, g_steal_pointer (&local_error));

  return FALSE;
}

static gboolean
undo_switch (sqlite3                 *db,
             const LumoHistoryEntry  *entry,
             LumoPolicyOrigin         origin,
             GError                 **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  LumoPolicySwitch sw;
  gboolean current;
  gboolean restored = g_strcmp0 (entry->old_value, "on") == 0;

  if (!lumo_policy_switch_from_string (entry->field, &sw))
    g_assert_not_reached ();
  if (!require_provider (db, entry, &provider, error))
    return FALSE;

  current = sw == LUMO_POLICY_SWITCH_ENABLED ? provider->enabled
          : sw == LUMO_POLICY_SWITCH_WRITES ? provider->writes
          : provider->review;

  return _lumo_policy_store_set_switch (db, entry->provider_id, sw, restored, error) &&
         _lumo_policy_store_add_history (db, origin, entry->provider_id, NULL, entry->field,
                                         on_off (current), on_off (restored), NULL,
                                         entry->id, error);
}

static gboolean
undo_caller (sqlite3                 *db,
             const LumoHistoryEntry  *entry,
             const char              *snapshot,
             LumoPolicyOrigin         origin,
             GError                 **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(LumoCallerInfo) current = NULL;
  g_autofree char *removed = NULL;
  const char *current_state;
  LumoCallerState state;

  if (!require_provider (db, entry, &provider, error))
    return FALSE;

  current = _lumo_policy_store_get_caller (db, entry->provider_id, entry->caller_id, NULL);
  current_state = current != NULL ? lumo_caller_state_to_string (current->state) : NULL;

  if (entry->old_value == NULL)
    {
      /* The change created the caller: reverting removes it again. */
      if (current != NULL &&
          !(removed = _lumo_policy_store_remove_caller (db, entry->provider_id,
                                                        entry->caller_id, error)))
        return FALSE;
    }
  else if (entry->new_value == NULL && snapshot != NULL)
    {
      if (!_lumo_policy_store_restore_caller (db, snapshot, error))
        return FALSE;
    }
  else
    {
      if (!lumo_caller_state_from_string (entry->old_value, &state))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                       "Cannot undo change #%" G_GINT64_FORMAT ": “%s” is not a caller state",
                       entry->id, entry->old_value);
          return FALSE;
        }
      if (!_lumo_policy_store_put_caller (db, entry->provider_id, entry->caller_id,
                                          state, NULL, error))
        return FALSE;
      /* A deny cleared the caller's review grants: they come back with
       * the allowed state. */
      if (state == LUMO_CALLER_STATE_ALLOWED && snapshot != NULL &&
          !_lumo_policy_store_restore_grants_snapshot (db, snapshot, error))
        return FALSE;
    }

  return _lumo_policy_store_add_history (db, origin, entry->provider_id, entry->caller_id,
                                         "caller", current_state, entry->old_value, removed,
                                         entry->id, error);
}

static gboolean
undo_provider (sqlite3                 *db,
               const LumoHistoryEntry  *entry,
               const char              *snapshot,
               LumoPolicyOrigin         origin,
               GError                 **error)
{
  g_autoptr(LumoProviderInfo) current = NULL;
  g_autofree char *removed = NULL;
  const char *current_presence;

  current = _lumo_policy_store_get_provider (db, entry->provider_id, NULL);
  current_presence = current != NULL ? provider_presence (current) : NULL;

  if (entry->old_value == NULL)
    {
      if (current != NULL &&
          !(removed = _lumo_policy_store_remove_provider (db, entry->provider_id, error)))
        return FALSE;
    }
  else if (!_lumo_policy_store_restore_provider (db, snapshot, error))
    {
      return FALSE;
    }

  return _lumo_policy_store_add_history (db, origin, entry->provider_id, NULL, "provider",
                                         current_presence, entry->old_value, removed,
                                         entry->id, error);
}

/* Undoing an agent's creation removes it (and its caller rows) again;
 * undoing its removal brings back its row — the token's MAC, so the same
 * token works again — and its caller rows on providers that still exist. */
static gboolean
undo_agent (sqlite3                 *db,
            const LumoHistoryEntry  *entry,
            const char              *snapshot,
            LumoPolicyOrigin         origin,
            GError                 **error)
{
  g_autofree char *removed = NULL;
  g_autoptr(GPtrArray) agents = NULL;
  const char *current_name = NULL;

  if (!(agents = _lumo_policy_store_list_agents (db, error)))
    return FALSE;
  for (guint i = 0; i < agents->len; i++)
    {
      LumoAgentInfo *agent = g_ptr_array_index (agents, i);

      if (g_strcmp0 (agent->id, entry->caller_id) == 0)
        current_name = agent->name;
    }

  if (entry->old_value == NULL)
    {
      if (current_name != NULL &&
          !(removed = _lumo_policy_store_remove_agent (db, entry->caller_id, error)))
        return FALSE;
    }
  else if (current_name != NULL)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DUPLICATE,
                   "Cannot undo change #%" G_GINT64_FORMAT ": the desktop agent “%s” exists",
                   entry->id, entry->caller_id);
      return FALSE;
    }
  else if (!_lumo_policy_store_restore_agent (db, snapshot, error))
    {
      return FALSE;
    }

  return _lumo_policy_store_add_history (db, origin, NULL, entry->caller_id, "agent",
                                         current_name, entry->old_value, removed,
                                         entry->id, error);
}

/* Undoing a new grant ends it; undoing a revoke or a replacement brings
 * the grant before it back as it was, expiry and all (so a ten-minute
 * grant that has run out since stays run out). */
static gboolean
undo_grant (sqlite3                 *db,
            const LumoHistoryEntry  *entry,
            const char              *snapshot,
            LumoPolicyOrigin         origin,
            GError                 **error)
{
  g_autoptr(GPtrArray) current = NULL;
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *removed = NULL;
  const char *current_value = NULL;

  if (entry->tool == NULL ||
      !(current = _lumo_policy_store_list_grants (db, entry->provider_id, entry->caller_id, entry->tool,
                                                  error)))
    {
      if (entry->tool == NULL)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                     "Cannot undo change #%" G_GINT64_FORMAT ": the grant names no tool", entry->id);
      return FALSE;
    }
  if (current->len > 0)
    {
      const LumoGrantInfo *grant = g_ptr_array_index (current, 0);

      current_value = lumo_grant_scope_to_string (grant->scope);
      removed = _lumo_policy_grant_snapshot (grant);
    }

  if (!(stmt = lumo_db_prepare (db, "DELETE FROM grants WHERE provider_id = ? AND caller_id = ? AND tool = ?",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, entry->provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, entry->caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, entry->tool, -1, SQLITE_TRANSIENT);
  if (!_lumo_policy_store_step_done (db, stmt, "Cannot undo the review grant", error))
    return FALSE;

  if (entry->old_value != NULL)
    {
      caller = _lumo_policy_store_get_caller (db, entry->provider_id, entry->caller_id, NULL);
      if (caller == NULL || caller->state != LUMO_CALLER_STATE_ALLOWED)
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_AUTHORIZED,
                       "Cannot undo change #%" G_GINT64_FORMAT ": the caller “%s” is no longer allowed "
                       "on the provider “%s”, and a grant needs an allowed caller",
                       entry->id, entry->caller_id, entry->provider_id);
          return FALSE;
        }
      if (!_lumo_policy_store_restore_grants_snapshot (db, snapshot, error))
        return FALSE;
    }

  return _lumo_policy_store_add_grant_history (db, origin, entry->provider_id, entry->caller_id,
                                               entry->tool, current_value, entry->old_value,
                                               removed, entry->id, error);
}

LumoHistoryEntry *
_lumo_policy_store_undo_last (sqlite3           *db,
                              LumoPolicyOrigin   origin,
                              GError           **error)
{
  g_autoptr(LumoHistoryEntry) entry = NULL;
  g_autofree char *snapshot = NULL;
  gboolean ok;

  if (!(entry = find_undoable (db, &snapshot, error)))
    return NULL;

  if (g_str_equal (entry->field, "caller"))
    ok = undo_caller (db, entry, snapshot, origin, error);
  else if (g_str_equal (entry->field, "provider"))
    ok = undo_provider (db, entry, snapshot, origin, error);
  else if (g_str_equal (entry->field, "agent"))
    ok = undo_agent (db, entry, snapshot, origin, error);
  else if (g_str_equal (entry->field, "grant"))
    ok = undo_grant (db, entry, snapshot, origin, error);
  else
    ok = undo_switch (db, entry, origin, error);

  if (!ok)
    return NULL;

  entry->undone_by = sqlite3_last_insert_rowid (db);

  return g_steal_pointer (&entry);
}
