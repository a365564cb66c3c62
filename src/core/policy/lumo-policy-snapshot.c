/* lumo-policy-snapshot.c — what makes a removal undoable
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Removing a provider, forgetting a caller or removing a desktop agent
 * deletes rows (a provider's callers go with it, an agent's caller rows of
 * every provider with it, and every caller's review grants with it), so
 * the history row keeps a JSON snapshot of everything deleted, and undo
 * rebuilds the rows from it; a deny keeps the grants it cleared the same
 * way. An
 * agent's snapshot holds its token's MAC, as the agents table did — never
 * the token, which the policy never had. The snapshot is
 * ours, but it is read back from a file a person could edit, so it is
 * checked as it is read and the schema's CHECKs guard the IDs.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "lumo-error.h"
#include "lumo-policy-private.h"

/* A missing or non-string member binds NULL. */
static void
bind_member_text (sqlite3_stmt *stmt,
                  int           col,
                  JsonObject   *o,
                  const char   *name)
{
  sqlite3_bind_text (stmt, col, json_object_get_string_member_with_default (o, name, NULL),
                     -1, SQLITE_TRANSIENT);
}

static void
bind_time (sqlite3_stmt *stmt,
           int           col,
           gint64        t)
{
  if (t == 0)
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, t);
}

static void
add_optional_string (JsonBuilder *builder,
                     const char  *name,
                     const char  *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

/* A caller's object, with its review grants: they go with the row (the
 * schema's foreign key), so the snapshot must be taken before it goes. */
static gboolean
build_caller (sqlite3               *db,
              JsonBuilder           *builder,
              const LumoCallerInfo  *caller,
              GError               **error)
{
  json_builder_begin_object (builder);
  add_optional_string (builder, "provider_id", caller->provider_id);
  add_optional_string (builder, "id", caller->id);
  add_optional_string (builder, "display_name", caller->display_name);
  add_optional_string (builder, "state", lumo_caller_state_to_string (caller->state));
  json_builder_set_member_name (builder, "first_seen");
  json_builder_add_int_value (builder, caller->first_seen);
  json_builder_set_member_name (builder, "last_seen");
  json_builder_add_int_value (builder, caller->last_seen);
  json_builder_set_member_name (builder, "probe_count");
  json_builder_add_int_value (builder, (gint64) caller->probe_count);
  json_builder_set_member_name (builder, "write_count");
  json_builder_add_int_value (builder, (gint64) caller->write_count);
  if (!_lumo_policy_store_build_grants (db, builder, caller->provider_id, caller->id, NULL, error))
    return FALSE;
  json_builder_end_object (builder);

  return TRUE;
}

static char *
builder_to_string (JsonBuilder *builder)
{
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  return json_to_string (root, FALSE);
}

static gboolean
delete_caller (sqlite3     *db,
               const char  *provider_id,
               const char  *caller_id,
               GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db, "DELETE FROM callers WHERE provider_id = ? AND id = ?", error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);

  return _lumo_policy_store_step_done (db, stmt, "Cannot remove the caller", error);
}

char *
_lumo_policy_store_remove_caller (sqlite3     *db,
                                  const char  *provider_id,
                                  const char  *caller_id,
                                  GError     **error)
{
  g_autoptr(LumoCallerInfo) caller = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  if (!(caller = _lumo_policy_store_get_caller (db, provider_id, caller_id, error)))
    return NULL;

  if (!build_caller (db, builder, caller, error) ||
      !delete_caller (db, provider_id, caller_id, error))
    return NULL;

  return builder_to_string (builder);
}

char *
_lumo_policy_store_remove_provider (sqlite3     *db,
                                    const char  *provider_id,
                                    GError     **error)
{
  g_autoptr(LumoProviderInfo) provider = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(provider = _lumo_policy_store_get_provider (db, provider_id, error)) ||
      !(callers = _lumo_policy_store_list_callers (db, provider_id, LUMO_CALLER_STATE_ANY, error)))
    return NULL;

  json_builder_begin_object (builder);
  add_optional_string (builder, "id", provider->id);
  add_optional_string (builder, "namespace", provider->namespace_);
  add_optional_string (builder, "display_name", provider->display_name);
  add_optional_string (builder, "version", provider->version);
  json_builder_set_member_name (builder, "enabled");
  json_builder_add_boolean_value (builder, provider->enabled);
  json_builder_set_member_name (builder, "writes");
  json_builder_add_boolean_value (builder, provider->writes);
  json_builder_set_member_name (builder, "review");
  json_builder_add_boolean_value (builder, provider->review);
  json_builder_set_member_name (builder, "watched");
  json_builder_add_boolean_value (builder, provider->watched);
  json_builder_set_member_name (builder, "created");
  json_builder_add_int_value (builder, provider->created);
  json_builder_set_member_name (builder, "first_seen");
  json_builder_add_int_value (builder, provider->first_seen);
  json_builder_set_member_name (builder, "last_seen");
  json_builder_add_int_value (builder, provider->last_seen);
  json_builder_set_member_name (builder, "callers");
  json_builder_begin_array (builder);
  for (guint i = 0; i < callers->len; i++)
    if (!build_caller (db, builder, g_ptr_array_index (callers, i), error))
      return NULL;
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  /* ON DELETE CASCADE removes the callers (and their grants) with it. */
  if (!(stmt = lumo_db_prepare (db, "DELETE FROM providers WHERE id = ?", error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  if (!_lumo_policy_store_step_done (db, stmt, "Cannot remove the provider", error))
    return NULL;

  return builder_to_string (builder);
}

static JsonObject *
parse_snapshot (const char  *snapshot,
                GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  if (snapshot == NULL ||
      !json_parser_load_from_data (parser, snapshot, -1, NULL) ||
      !(root = json_parser_get_root (parser)) ||
      !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                   "The history entry has no usable snapshot, so it cannot be undone");
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

static gboolean
restore_caller_object (sqlite3     *db,
                       JsonObject  *o,
                       GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  /* An upsert, not REPLACE: a caller that came back (probed again) since
   * it was forgotten gets its old state and counters back. */
  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO callers (provider_id, id, display_name, state, "
                                "  first_seen, last_seen, probe_count, write_count, kind) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, " LUMO_POLICY_CALLER_KIND_SQL ("?2") ") "
                                "ON CONFLICT (provider_id, id) DO UPDATE SET "
                                "  display_name = excluded.display_name, state = excluded.state, "
                                "  first_seen = min (first_seen, excluded.first_seen), "
                                "  last_seen = max (last_seen, excluded.last_seen), "
                                "  probe_count = max (probe_count, excluded.probe_count), "
                                "  write_count = max (write_count, excluded.write_count)",
                                error)))
    return FALSE;
  bind_member_text (stmt, 1, o, "provider_id");
  bind_member_text (stmt, 2, o, "id");
  bind_member_text (stmt, 3, o, "display_name");
  bind_member_text (stmt, 4, o, "state");
  sqlite3_bind_int64 (stmt, 5, json_object_get_int_member_with_default (o, "first_seen", 0));
  sqlite3_bind_int64 (stmt, 6, json_object_get_int_member_with_default (o, "last_seen", 0));
  sqlite3_bind_int64 (stmt, 7, json_object_get_int_member_with_default (o, "probe_count", 0));
  sqlite3_bind_int64 (stmt, 8, json_object_get_int_member_with_default (o, "write_count", 0));

  /* Its grants after it: the schema lets only an allowed caller have any. */
  return _lumo_policy_store_step_done (db, stmt, "Cannot restore the caller", error) &&
         _lumo_policy_store_restore_grants (db, o, error);
}

/* The "callers" of a snapshot. @skip_gone: a caller of a provider removed
 * since is left out (an agent's callers span providers); else it fails. */
static gboolean
restore_callers (sqlite3     *db,
                 JsonObject  *o,
                 gboolean     skip_gone,
                 GError     **error)
{
  JsonNode *callers_node = json_object_get_member (o, "callers");
  JsonArray *callers = callers_node != NULL && JSON_NODE_HOLDS_ARRAY (callers_node)
                       ? json_node_get_array (callers_node) : NULL;

  for (guint i = 0; callers != NULL && i < json_array_get_length (callers); i++)
    {
      JsonNode *caller = json_array_get_element (callers, i);
      g_autoptr(LumoProviderInfo) provider = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (caller))
        {
          g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                       "Caller %u of the snapshot is not an object", i);
          return FALSE;
        }
      if (skip_gone &&
          !(provider = _lumo_policy_store_get_provider (db, json_object_get_string_member_with_default (
                          json_node_get_object (caller), "provider_id", ""), NULL)))
        continue;
      if (!restore_caller_object (db, json_node_get_object (caller), error))
        return FALSE;
    }

  return TRUE;
}

gboolean
_lumo_policy_store_restore_grants_snapshot (sqlite3     *db,
                                            const char  *snapshot,
                                            GError     **error)
{
  g_autoptr(JsonObject) o = NULL;

  if (!(o = parse_snapshot (snapshot, error)))
    return FALSE;

  return _lumo_policy_store_restore_grants (db, o, error);
}

char *
_lumo_policy_store_grants_snapshot (sqlite3     *db,
                                    const char  *provider_id,
                                    const char  *caller_id,
                                    GError     **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  guint n = 0;

  json_builder_begin_object (builder);
  if (!_lumo_policy_store_build_grants (db, builder, provider_id, caller_id, &n, error))
    return NULL;
  json_builder_end_object (builder);

  /* "" when there are none: nothing to restore, and no snapshot to keep. */
  return n > 0 ? builder_to_string (builder) : g_strdup ("");
}

gboolean
_lumo_policy_store_restore_caller (sqlite3     *db,
                                   const char  *snapshot,
                                   GError     **error)
{
  g_autoptr(JsonObject) o = NULL;

  if (!(o = parse_snapshot (snapshot, error)))
    return FALSE;

  return restore_caller_object (db, o, error);
}

gboolean
_lumo_policy_store_restore_provider (sqlite3     *db,
                                     const char  *snapshot,
                                     GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(JsonObject) o = NULL;

  if (!(o = parse_snapshot (snapshot, error)))
    return FALSE;

  /* If the provider said hello again since it was removed, keep what the
   * hello told us and bring back the person's switches. */
  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO providers (id, namespace, display_name, version, "
                                "  enabled, writes, review, watched, created, first_seen, last_seen) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                                "ON CONFLICT (id) DO UPDATE SET "
                                "  enabled = excluded.enabled, writes = excluded.writes, "
                                "  review = excluded.review, watched = excluded.watched, "
                                "  created = min (created, excluded.created), "
                                "  namespace = coalesce (namespace, excluded.namespace), "
                                "  display_name = coalesce (display_name, excluded.display_name), "
                                "  version = coalesce (version, excluded.version), "
                                "  first_seen = coalesce (min (first_seen, excluded.first_seen), "
                                "                         first_seen, excluded.first_seen)",
                                error)))
    return FALSE;
  bind_member_text (stmt, 1, o, "id");
  bind_member_text (stmt, 2, o, "namespace");
  bind_member_text (stmt, 3, o, "display_name");
  bind_member_text (stmt, 4, o, "version");
  sqlite3_bind_int (stmt, 5, json_object_get_boolean_member_with_default (o, "enabled", TRUE));
  sqlite3_bind_int (stmt, 6, json_object_get_boolean_member_with_default (o, "writes", TRUE));
  sqlite3_bind_int (stmt, 7, json_object_get_boolean_member_with_default (o, "review", TRUE));
  sqlite3_bind_int (stmt, 8, json_object_get_boolean_member_with_default (o, "watched", FALSE));
  sqlite3_bind_int64 (stmt, 9, json_object_get_int_member_with_default (o, "created", g_get_real_time ()));
  bind_time (stmt, 10, json_object_get_int_member_with_default (o, "first_seen", 0));
  bind_time (stmt, 11, json_object_get_int_member_with_default (o, "last_seen", 0));
  if (!_lumo_policy_store_step_done (db, stmt, "Cannot restore the provider", error))
    return FALSE;

  return restore_callers (db, o, FALSE, error);
}

/* ---- desktop agents -------------------------------------------------------- */

static GPtrArray *
callers_of_agent (sqlite3     *db,
                  const char  *agent_id,
                  GError     **error)
{
  g_autoptr(GPtrArray) all = NULL;
  GPtrArray *mine;

  if (!(all = _lumo_policy_store_list_callers (db, NULL, LUMO_CALLER_STATE_ANY, error)))
    return NULL;

  mine = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_caller_info_free);
  for (guint i = 0; i < all->len; i++)
    {
      LumoCallerInfo *caller = g_ptr_array_index (all, i);

      if (g_str_equal (caller->id, agent_id))
        g_ptr_array_add (mine, lumo_caller_info_copy (caller));
    }

  return mine;
}

char *
_lumo_policy_store_remove_agent (sqlite3     *db,
                                 const char  *agent_id,
                                 GError     **error)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) callers = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db, "SELECT id, name, hex (token_mac), created FROM agents WHERE id = ?",
                                error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, agent_id, -1, SQLITE_TRANSIENT);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      if (rc == SQLITE_DONE)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                     "No desktop agent with the ID “%s” is known", agent_id);
      else
        lumo_db_set_error (error, db, rc, "Cannot read the desktop agent");
      return NULL;
    }

  json_builder_begin_object (builder);
  add_optional_string (builder, "id", (const char *) sqlite3_column_text (stmt, 0));
  add_optional_string (builder, "name", (const char *) sqlite3_column_text (stmt, 1));
  add_optional_string (builder, "token_mac", (const char *) sqlite3_column_text (stmt, 2));
  json_builder_set_member_name (builder, "created");
  json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 3));
  g_clear_pointer (&stmt, sqlite3_finalize);

  if (!(callers = callers_of_agent (db, agent_id, error)))
    return NULL;
  json_builder_set_member_name (builder, "callers");
  json_builder_begin_array (builder);
  for (guint i = 0; i < callers->len; i++)
    if (!build_caller (db, builder, g_ptr_array_index (callers, i), error))
      return NULL;
  json_builder_end_array (builder);
  json_builder_end_object (builder);

  for (guint i = 0; i < callers->len; i++)
    {
      LumoCallerInfo *caller = g_ptr_array_index (callers, i);

      if (!delete_caller (db, caller->provider_id, caller->id, error))
        return NULL;
    }

  if (!(stmt = lumo_db_prepare (db, "DELETE FROM agents WHERE id = ?", error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, agent_id, -1, SQLITE_TRANSIENT);
  if (!_lumo_policy_store_step_done (db, stmt, "Cannot remove the desktop agent", error))
    return NULL;

  return builder_to_string (builder);
}

gboolean
_lumo_policy_store_restore_agent (sqlite3     *db,
                                  const char  *snapshot,
                                  GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(JsonObject) o = NULL;

  if (!(o = parse_snapshot (snapshot, error)))
    return FALSE;

  /* The schema's CHECKs refuse a snapshot that does not hold an agent
   * (an ID of the wrong form, no name); the MAC is decoded here, as
   * SQLite 3.40 has no unhex(). */
  {
    const char *hex = json_object_get_string_member_with_default (o, "token_mac", NULL);
    guint8 mac[32];
    gboolean ok = hex != NULL && strlen (hex) == 64;

    for (guint i = 0; ok && i < 32; i++)
      {
        int hi = g_ascii_xdigit_value (hex[2 * i]);
        int lo = g_ascii_xdigit_value (hex[2 * i + 1]);

        ok = hi >= 0 && lo >= 0;
        mac[i] = (guint8) (hi << 4 | lo);
      }
    if (!ok)
      {
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                     "The history entry's snapshot holds no token MAC, so the agent cannot be restored");
        return FALSE;
      }

    if (!(stmt = lumo_db_prepare (db,
                                  "INSERT INTO agents (id, name, token_mac, created) VALUES (?, ?, ?, ?)",
                                  error)))
      return FALSE;
    bind_member_text (stmt, 1, o, "id");
    bind_member_text (stmt, 2, o, "name");
    sqlite3_bind_blob (stmt, 3, mac, sizeof mac, SQLITE_TRANSIENT);
    sqlite3_bind_int64 (stmt, 4, json_object_get_int_member_with_default (o, "created", g_get_real_time ()));
    if (!_lumo_policy_store_step_done (db, stmt, "Cannot restore the desktop agent", error))
      return FALSE;
  }

  return restore_callers (db, o, TRUE, error);
}
