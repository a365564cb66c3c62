/* lumo-policy-store.c — the schema and statements of policy.db
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Callers of these functions own the transaction; nothing here begins or
 * commits one, so a change and its history row always land together.
 */
#define G_LOG_DOMAIN "lumo-policy"

#include "config.h"

#include "lumo-error.h"
#include "lumo-policy-private.h"

/* The CHECKs repeat the protocol's rules so that a hand-edited or damaged
 * database can never hold an ID that lumo_is_extension_id() refuses. */
#define ID_CHECK(col) "CHECK (length (" col ") = 32 AND " col " NOT GLOB '*[^a-p]*')"

static const char migration_1[] =
  "CREATE TABLE providers ("
  "  id           TEXT PRIMARY KEY NOT NULL " ID_CHECK ("id") ","
  "  namespace    TEXT,"
  "  display_name TEXT,"
  "  version      TEXT,"
  "  enabled      INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),"
  "  writes       INTEGER NOT NULL DEFAULT 1 CHECK (writes IN (0, 1)),"
  "  review       INTEGER NOT NULL DEFAULT 1 CHECK (review IN (0, 1)),"
  "  watched      INTEGER NOT NULL DEFAULT 0 CHECK (watched IN (0, 1)),"
  "  created      INTEGER NOT NULL,"
  "  first_seen   INTEGER,"
  "  last_seen    INTEGER"
  ") STRICT;"
  "CREATE TABLE callers ("
  "  provider_id  TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE,"
  "  id           TEXT NOT NULL " ID_CHECK ("id") ","
  "  state        TEXT NOT NULL CHECK (state IN ('pending', 'allowed', 'denied')),"
  "  display_name TEXT,"
  "  first_seen   INTEGER NOT NULL,"
  "  last_seen    INTEGER NOT NULL,"
  "  probe_count  INTEGER NOT NULL DEFAULT 0 CHECK (probe_count >= 0),"
  "  write_count  INTEGER NOT NULL DEFAULT 0 CHECK (write_count >= 0),"
  "  PRIMARY KEY (provider_id, id)"
  ") STRICT;"
  "CREATE INDEX callers_by_state ON callers (state, provider_id);"
  /* No foreign key to providers: the history outlives what it describes. */
  "CREATE TABLE history ("
  "  id           INTEGER PRIMARY KEY AUTOINCREMENT,"
  "  time         INTEGER NOT NULL,"
  "  origin       TEXT NOT NULL CHECK (origin IN ('ui', 'cli', 'import', 'bridge')),"
  "  provider_id  TEXT NOT NULL,"
  "  caller_id    TEXT,"
  "  field        TEXT NOT NULL"
  "               CHECK (field IN ('provider', 'enabled', 'writes', 'review', 'caller')),"
  "  old_value    TEXT,"
  "  new_value    TEXT,"
  "  snapshot     TEXT,"
  "  undoes       INTEGER UNIQUE REFERENCES history (id)"
  ") STRICT;";

/* Desktop agents (issue 12). A caller has a kind, and the existing ones
 * are extensions; an agent's token is stored only as HMAC-SHA256 under
 * agents.key. The history gets agent entries, which belong to no
 * provider: SQLite cannot change a CHECK in place, so the table is
 * rebuilt (ids, and so the undo links and AUTOINCREMENT, kept). */
static const char migration_2[] =
  "ALTER TABLE callers ADD COLUMN kind TEXT NOT NULL DEFAULT 'extension'"
  "  CHECK (kind IN ('extension', 'agent'));"
  "CREATE TABLE agents ("
  "  id           TEXT PRIMARY KEY NOT NULL " ID_CHECK ("id") ","
  "  name         TEXT NOT NULL CHECK (length (CAST (name AS BLOB)) BETWEEN 1 AND 128),"
  "  token_mac    BLOB NOT NULL CHECK (length (token_mac) = 32),"
  "  created      INTEGER NOT NULL"
  ") STRICT;"
  "CREATE TABLE history_new ("
  "  id           INTEGER PRIMARY KEY AUTOINCREMENT,"
  "  time         INTEGER NOT NULL,"
  "  origin       TEXT NOT NULL CHECK (origin IN ('ui', 'cli', 'import', 'bridge')),"
  "  provider_id  TEXT,"
  "  caller_id    TEXT,"
  "  field        TEXT NOT NULL"
  "               CHECK (field IN ('provider', 'enabled', 'writes', 'review', 'caller', 'agent')),"
  "  old_value    TEXT,"
  "  new_value    TEXT,"
  "  snapshot     TEXT,"
  "  undoes       INTEGER UNIQUE REFERENCES history_new (id),"
  "  CHECK ((field = 'agent') = (provider_id IS NULL))"
  ") STRICT;"
  "INSERT INTO history_new (id, time, origin, provider_id, caller_id, field, old_value, new_value,"
  "                         snapshot, undoes)"
  "  SELECT id, time, origin, provider_id, caller_id, field, old_value, new_value, snapshot, undoes"
  "  FROM history ORDER BY id;"
  "DROP TABLE history;"
  "ALTER TABLE history_new RENAME TO history;";

/* Review grants (issue 13): a person's approval standing for one caller's
 * writes of one tool, for ten minutes (expires) or always (NULL). A grant
 * belongs to a caller row (gone with it: forget, a provider or desktop
 * agent removed) and exists only while that caller is allowed; the two
 * triggers keep that true whatever writes the file, so no path can leave
 * a grant to a denied caller. The history gets grant entries, which name a
 * tool: the table is rebuilt again for the CHECKs (ids kept). */
static const char migration_3[] =
  "CREATE TABLE grants ("
  "  provider_id  TEXT NOT NULL,"
  "  caller_id    TEXT NOT NULL,"
  "  tool         TEXT NOT NULL CHECK (length (tool) BETWEEN 3 AND 57"
  "                                    AND tool GLOB '[a-z]*.*'"
  "                                    AND tool NOT GLOB '*[^A-Za-z0-9_.-]*'),"
  "  created      INTEGER NOT NULL,"
  "  expires      INTEGER CHECK (expires IS NULL OR expires > created),"
  "  PRIMARY KEY (provider_id, caller_id, tool),"
  "  FOREIGN KEY (provider_id, caller_id) REFERENCES callers (provider_id, id) ON DELETE CASCADE"
  ") STRICT;"
  "CREATE TRIGGER grants_need_allowed_caller BEFORE INSERT ON grants"
  "  WHEN NOT EXISTS (SELECT 1 FROM callers WHERE callers.provider_id = NEW.provider_id"
  "                   AND callers.id = NEW.caller_id AND callers.state = 'allowed')"
  "  BEGIN SELECT RAISE (ABORT, 'a review grant needs an allowed caller'); END;"
  "CREATE TRIGGER callers_not_allowed_lose_grants AFTER UPDATE OF state ON callers"
  "  WHEN NEW.state != 'allowed'"
  "  BEGIN DELETE FROM grants WHERE grants.provider_id = NEW.provider_id"
  "                             AND grants.caller_id = NEW.id; END;"
  "CREATE TABLE history_new ("
  "  id           INTEGER PRIMARY KEY AUTOINCREMENT,"
  "  time         INTEGER NOT NULL,"
  "  origin       TEXT NOT NULL CHECK (origin IN ('ui', 'cli', 'import', 'bridge')),"
  "  provider_id  TEXT,"
  "  caller_id    TEXT,"
  "  field        TEXT NOT NULL"
  "               CHECK (field IN ('provider', 'enabled', 'writes', 'review', 'caller', 'agent',"
  "                                'grant')),"
  "  old_value    TEXT,"
  "  new_value    TEXT,"
  "  snapshot     TEXT,"
  "  undoes       INTEGER UNIQUE REFERENCES history_new (id),"
  "  tool         TEXT,"
  "  CHECK ((field = 'agent') = (provider_id IS NULL)),"
  "  CHECK ((field = 'grant') = (tool IS NOT NULL))"
  ") STRICT;"
  "INSERT INTO history_new (id, time, origin, provider_id, caller_id, field, old_value, new_value,"
  "                         snapshot, undoes)"
  "  SELECT id, time, origin, provider_id, caller_id, field, old_value, new_value, snapshot, undoes"
  "  FROM history ORDER BY id;"
  "DROP TABLE history;"
  "ALTER TABLE history_new RENAME TO history;";

const LumoMigration lumo_policy_migrations[] = {
  { 1, migration_1 },
  { 2, migration_2 },
  { 3, migration_3 },
};
const guint lumo_policy_n_migrations = G_N_ELEMENTS (lumo_policy_migrations);

#define PROVIDER_COLUMNS \
  "id, namespace, display_name, version, enabled, writes, review, watched, " \
  "created, first_seen, last_seen"
#define CALLER_COLUMNS \
  "provider_id, id, display_name, state, first_seen, last_seen, probe_count, write_count, kind"
#define HISTORY_COLUMNS \
  "h.id, h.time, h.origin, h.provider_id, h.caller_id, h.field, h.old_value, " \
  "h.new_value, coalesce (h.undoes, 0), " \
  "coalesce ((SELECT u.id FROM history u WHERE u.undoes = h.id), 0), h.tool"

char *
_lumo_policy_store_clean_text (const char *text)
{
  /* Names come from other extensions (the CLI and tests pass them too):
   * the one rule for display text, so a crafted name cannot break a table
   * or hide another line in the UI. */
  return lumo_clean_display_name (text, LUMO_POLICY_MAX_DISPLAY_LEN);
}

static char *
column_strdup (sqlite3_stmt *stmt,
               int           col)
{
  return g_strdup ((const char *) sqlite3_column_text (stmt, col));
}

gboolean
_lumo_policy_store_step_done (sqlite3       *db,
                              sqlite3_stmt  *stmt,
                              const char    *what,
                              GError       **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, what);
      return FALSE;
    }

  return TRUE;
}

static LumoProviderInfo *
provider_from_row (sqlite3_stmt *stmt)
{
  LumoProviderInfo *info = g_new0 (LumoProviderInfo, 1);

  info->id = column_strdup (stmt, 0);
  info->namespace_ = column_strdup (stmt, 1);
  info->display_name = column_strdup (stmt, 2);
  info->version = column_strdup (stmt, 3);
  info->enabled = sqlite3_column_int (stmt, 4) != 0;
  info->writes = sqlite3_column_int (stmt, 5) != 0;
  info->review = sqlite3_column_int (stmt, 6) != 0;
  info->watched = sqlite3_column_int (stmt, 7) != 0;
  info->created = sqlite3_column_int64 (stmt, 8);
  info->first_seen = sqlite3_column_int64 (stmt, 9);
  info->last_seen = sqlite3_column_int64 (stmt, 10);

  return info;
}

static LumoCallerInfo *
caller_from_row (sqlite3_stmt *stmt)
{
  LumoCallerInfo *info = g_new0 (LumoCallerInfo, 1);

  info->provider_id = column_strdup (stmt, 0);
  info->id = column_strdup (stmt, 1);
  info->display_name = column_strdup (stmt, 2);
  if (!lumo_caller_state_from_string ((const char *) sqlite3_column_text (stmt, 3), &info->state))
    g_assert_not_reached ();  /* the CHECK constraint allows nothing else */
  info->first_seen = sqlite3_column_int64 (stmt, 4);
  info->last_seen = sqlite3_column_int64 (stmt, 5);
  info->probe_count = sqlite3_column_int64 (stmt, 6);
  info->write_count = sqlite3_column_int64 (stmt, 7);
  info->kind = g_strcmp0 ((const char *) sqlite3_column_text (stmt, 8), "agent") == 0
               ? LUMO_CALLER_KIND_AGENT : LUMO_CALLER_KIND_EXTENSION;

  return info;
}

static LumoPolicyOrigin
origin_from_string (const char *str)
{
  for (LumoPolicyOrigin o = LUMO_POLICY_ORIGIN_UI; o <= LUMO_POLICY_ORIGIN_BRIDGE; o++)
    if (g_strcmp0 (str, lumo_policy_origin_to_string (o)) == 0)
      return o;

  g_assert_not_reached ();
}

static LumoHistoryEntry *
history_from_row (sqlite3_stmt *stmt)
{
  LumoHistoryEntry *entry = g_new0 (LumoHistoryEntry, 1);

  entry->id = sqlite3_column_int64 (stmt, 0);
  entry->time = sqlite3_column_int64 (stmt, 1);
  entry->origin = origin_from_string ((const char *) sqlite3_column_text (stmt, 2));
  entry->provider_id = column_strdup (stmt, 3);
  entry->caller_id = column_strdup (stmt, 4);
  entry->field = column_strdup (stmt, 5);
  entry->old_value = column_strdup (stmt, 6);
  entry->new_value = column_strdup (stmt, 7);
  entry->undoes = sqlite3_column_int64 (stmt, 8);
  entry->undone_by = sqlite3_column_int64 (stmt, 9);
  entry->tool = column_strdup (stmt, 10);

  return entry;
}

LumoProviderInfo *
_lumo_policy_store_get_provider (sqlite3     *db,
                                 const char  *provider_id,
                                 GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db, "SELECT " PROVIDER_COLUMNS " FROM providers WHERE id = ?", error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return provider_from_row (stmt);
  if (rc == SQLITE_DONE)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                 "No provider with the ID “%s” is known", provider_id);
  else
    lumo_db_set_error (error, db, rc, "Cannot read the provider");

  return NULL;
}

GPtrArray *
_lumo_policy_store_list_providers (sqlite3  *db,
                                   GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT " PROVIDER_COLUMNS " FROM providers "
                                "ORDER BY coalesce (display_name, id) COLLATE NOCASE, id",
                                error)))
    return NULL;

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_provider_info_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, provider_from_row (stmt));
  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, "Cannot list the providers");
      return NULL;
    }

  return g_steal_pointer (&list);
}

LumoCallerInfo *
_lumo_policy_store_get_caller (sqlite3     *db,
                               const char  *provider_id,
                               const char  *caller_id,
                               GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT " CALLER_COLUMNS " FROM callers "
                                "WHERE provider_id = ? AND id = ?",
                                error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);

  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return caller_from_row (stmt);
  if (rc == SQLITE_DONE)
    g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                 "The caller “%s” is not known to the provider “%s”",
                 caller_id, provider_id);
  else
    lumo_db_set_error (error, db, rc, "Cannot read the caller");

  return NULL;
}

GPtrArray *
_lumo_policy_store_list_callers (sqlite3          *db,
                                 const char       *provider_id,
                                 LumoCallerState   state,
                                 GError          **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT " CALLER_COLUMNS " FROM callers "
                                "WHERE (?1 IS NULL OR provider_id = ?1) "
                                "  AND (?2 IS NULL OR state = ?2) "
                                "ORDER BY first_seen DESC, provider_id, id",
                                error)))
    return NULL;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  if (state != LUMO_CALLER_STATE_ANY)
    sqlite3_bind_text (stmt, 2, lumo_caller_state_to_string (state), -1, SQLITE_STATIC);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_caller_info_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, caller_from_row (stmt));
  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, "Cannot list the callers");
      return NULL;
    }

  return g_steal_pointer (&list);
}

GPtrArray *
_lumo_policy_store_list_history (sqlite3  *db,
                                 guint     limit,
                                 GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autoptr(GPtrArray) list = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT " HISTORY_COLUMNS " FROM history h "
                                "ORDER BY h.id DESC LIMIT ?",
                                error)))
    return NULL;
  sqlite3_bind_int64 (stmt, 1, limit == 0 ? -1 : (gint64) limit);

  list = g_ptr_array_new_with_free_func ((GDestroyNotify) lumo_history_entry_free);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    g_ptr_array_add (list, history_from_row (stmt));
  if (rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, db, rc, "Cannot read the policy history");
      return NULL;
    }

  return g_steal_pointer (&list);
}

gint64
_lumo_policy_store_last_history_id (sqlite3  *db,
                                    GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db, "SELECT coalesce (max (id), 0) FROM history", error)))
    return -1;

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, db, rc, "Cannot read the policy history");
      return -1;
    }

  return sqlite3_column_int64 (stmt, 0);
}

/* A provider's first hello sets first_seen and, when it was new, records
 * "registered"; a removal records "registered" as the old value. So the
 * two together remember every hello, also of providers removed since. */
int
_lumo_policy_store_has_seen_provider (sqlite3  *db,
                                      GError  **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (db,
                                "SELECT EXISTS (SELECT 1 FROM providers WHERE first_seen IS NOT NULL) "
                                "    OR EXISTS (SELECT 1 FROM history WHERE field = 'provider' "
                                "               AND 'registered' IN (old_value, new_value))",
                                error)))
    return -1;

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, db, rc, "Cannot read whether a provider has connected");
      return -1;
    }

  return sqlite3_column_int (stmt, 0) != 0;
}

static gboolean
insert_history (sqlite3           *db,
                LumoPolicyOrigin   origin,
                const char        *provider_id,
                const char        *caller_id,
                const char        *field,
                const char        *tool,
                const char        *old_value,
                const char        *new_value,
                const char        *snapshot,
                gint64             undoes,
                GError           **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO history (time, origin, provider_id, caller_id, field, "
                                "                     old_value, new_value, snapshot, undoes, tool) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                error)))
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, g_get_real_time ());
  sqlite3_bind_text (stmt, 2, lumo_policy_origin_to_string (origin), -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 3, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 4, caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 5, field, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 6, old_value, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 7, new_value, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 8, snapshot, -1, SQLITE_TRANSIENT);
  if (undoes > 0)
    sqlite3_bind_int64 (stmt, 9, undoes);
  sqlite3_bind_text (stmt, 10, tool, -1, SQLITE_TRANSIENT);

  return _lumo_policy_store_step_done (db, stmt, "Cannot record the change in the policy history", error);
}

gboolean
_lumo_policy_store_add_history (sqlite3           *db,
                                LumoPolicyOrigin   origin,
                                const char        *provider_id,
                                const char        *caller_id,
                                const char        *field,
                                const char        *old_value,
                                const char        *new_value,
                                const char        *snapshot,
                                gint64             undoes,
                                GError           **error)
{
  return insert_history (db, origin, provider_id, caller_id, field, NULL, old_value, new_value,
                         snapshot, undoes, error);
}

gboolean
_lumo_policy_store_add_grant_history (sqlite3           *db,
                                      LumoPolicyOrigin   origin,
                                      const char        *provider_id,
                                      const char        *caller_id,
                                      const char        *tool,
                                      const char        *old_value,
                                      const char        *new_value,
                                      const char        *snapshot,
                                      gint64             undoes,
                                      GError           **error)
{
  return insert_history (db, origin, provider_id, caller_id, "grant", tool, old_value, new_value,
                         snapshot, undoes, error);
}

gboolean
_lumo_policy_store_insert_provider (sqlite3     *db,
                                    const char  *provider_id,
                                    gboolean     watched,
                                    GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  /* The switch defaults live in the schema (all on). */
  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO providers (id, watched, created) VALUES (?, ?, ?)",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (stmt, 2, watched ? 1 : 0);
  sqlite3_bind_int64 (stmt, 3, g_get_real_time ());

  return _lumo_policy_store_step_done (db, stmt, "Cannot add the provider", error);
}

gboolean
_lumo_policy_store_set_switch (sqlite3           *db,
                               const char        *provider_id,
                               LumoPolicySwitch   sw,
                               gboolean           on,
                               GError           **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  g_autofree char *sql = NULL;

  /* The column name comes from our own enum, never from input. */
  sql = g_strdup_printf ("UPDATE providers SET %s = ? WHERE id = ?",
                         lumo_policy_switch_to_string (sw));
  if (!(stmt = lumo_db_prepare (db, sql, error)))
    return FALSE;
  sqlite3_bind_int (stmt, 1, on ? 1 : 0);
  sqlite3_bind_text (stmt, 2, provider_id, -1, SQLITE_TRANSIENT);

  return _lumo_policy_store_step_done (db, stmt, "Cannot change the switch", error);
}

gboolean
_lumo_policy_store_put_caller (sqlite3          *db,
                               const char       *provider_id,
                               const char       *caller_id,
                               LumoCallerState   state,
                               const char       *display_name,
                               GError          **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  gint64 now = g_get_real_time ();

  if (!(stmt = lumo_db_prepare (db,
                                "INSERT INTO callers (provider_id, id, state, display_name, "
                                "                     first_seen, last_seen, kind) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?5, " LUMO_POLICY_CALLER_KIND_SQL ("?2") ") "
                                "ON CONFLICT (provider_id, id) DO UPDATE SET "
                                "  state = excluded.state, "
                                "  display_name = coalesce (excluded.display_name, display_name)",
                                error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 3, lumo_caller_state_to_string (state), -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 4, display_name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (stmt, 5, now);

  return _lumo_policy_store_step_done (db, stmt, "Cannot change the caller", error);
}
