/* lumo-audit-file.c — opening a collected audit log, read-only
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An admin opens another machine's audit.db (copied, or made with SQLite's
 * backup) or a JSON Lines export of one (lumo_audit_store_export()). The
 * file is never written:
 *
 *   - a database is opened as "file:…?mode=ro&immutable=1": SQLite takes
 *     no lock, reads no -wal and creates no -shm, so not a byte of the
 *     file or its folder changes. A -wal beside it with content would be
 *     missed, so it is refused with a message that says so. Its
 *     quick_check runs before the store is returned. A log of an older
 *     schema (an older install) is read through temporary views that give
 *     it the tables of the newest: for version 1 its rows the columns of
 *     version 2 (extension, no grant) and an audit_order; for version 2
 *     an audit_order with the time and params of version 3.
 *   - an export is read line by line (each line an audit row, checked like
 *     a row the writer makes) into a private in-memory database with the
 *     schema of audit.db, so the same queries, pages, counts, summaries,
 *     exports and the same verify run on it.
 *
 * The rows keep their ids, hashes and MACs: verify checks the chain as it
 * was written, and the result MACs and the retention anchor when the key
 * file (that machine's audit.key) is given. No head checkpoint is read: it
 * is a file of its own on the other machine, so a cut-off tail of a
 * collected log is not detected.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"
#include "lumo-json.h"

/* The newest schema a database may have to be opened here. */
#define SCHEMA_NEWEST 3

static const char sqlite_magic[16] = "SQLite format 3";

/* ---- the key -------------------------------------------------------------- */

static GBytes *
load_key (const char  *key_path,
          GError     **error)
{
  /* Never created: a key that is not there is an error, not a new key. */
  if (!g_file_test (key_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_SECRET,
                   "The key file “%s” does not exist", key_path);
      return NULL;
    }

  return lumo_secret_load_or_create (key_path, LUMO_AUDIT_SECRET_WHAT, error);
}

/* ---- a database ---------------------------------------------------------------- */

static char *
immutable_uri (const char  *path,
               GError     **error)
{
  g_autofree char *absolute = g_canonicalize_filename (path, NULL);
  g_autofree char *uri = g_filename_to_uri (absolute, NULL, error);

  if (uri == NULL)
    return NULL;

  return g_strconcat (uri, "?mode=ro&immutable=1", NULL);
}

static gint64
query_int (sqlite3    *db,
           const char *sql,
           int        *rc_out)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  gint64 value = 0;
  int rc;

  rc = sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      value = sqlite3_column_int64 (stmt, 0);
      rc = SQLITE_OK;
    }
  if (rc_out != NULL)
    *rc_out = rc == SQLITE_DONE ? SQLITE_OK : rc;

  return value;
}

/* After a failed quick_check: which rows can still be read, so the
 * message says where the damage starts. */
static gint64
last_readable_row (sqlite3 *db)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  gint64 last = 0;

  if (sqlite3_prepare_v2 (db, "SELECT id FROM main.audit ORDER BY id", -1, &stmt, NULL) != SQLITE_OK)
    return -1;
  while (sqlite3_step (stmt) == SQLITE_ROW)
    last = sqlite3_column_int64 (stmt, 0);

  return last;
}

/* Make a reader of an older log look like the newest schema; temporary
 * objects live in memory, never touch the file, and come first in name
 * lookups. Version 1 had no audit_order, version 2 one without time and
 * params: both are given one as a view whose time and params come from
 * the audit table, which in those versions has their indexes. */
static const char legacy_v1_sql[] =
  "PRAGMA temp_store = MEMORY;"
  "CREATE TEMP VIEW audit AS SELECT *, 'extension' AS caller_kind, 0 AS by_grant FROM main.audit;"
  "CREATE TEMP TABLE audit_fts_state (one INTEGER PRIMARY KEY, indexed_to INTEGER NOT NULL);"
  "INSERT INTO temp.audit_fts_state VALUES (1, (SELECT coalesce (max (id), 0) FROM main.audit));"
  /* No index behind it: a sort by caller, tool or outcome sorts every row. */
  "CREATE TEMP VIEW audit_order AS SELECT id, caller_name, caller_id, tool, "
  LUMO_AUDIT_OUTCOME_SQL_ ("") " AS outcome, time_us, params_hmac FROM main.audit;";

static const char legacy_v2_sql[] =
  "PRAGMA temp_store = MEMORY;"
  "CREATE TEMP VIEW audit_order AS SELECT o.id AS id, o.caller_name AS caller_name,"
  " o.caller_id AS caller_id, o.tool AS tool, o.outcome AS outcome, a.time_us AS time_us,"
  " a.params_hmac AS params_hmac FROM main.audit_order o JOIN main.audit a ON a.id = o.id;";

gboolean
_lumo_audit_file_prepare_reader (LumoAuditStore  *self,
                                 sqlite3         *db,
                                 GError         **error)
{
  if (self->legacy_schema == 1)
    return lumo_db_exec (db, legacy_v1_sql, error);
  if (self->legacy_schema == 2)
    return lumo_db_exec (db, legacy_v2_sql, error);

  return lumo_db_exec (db, "PRAGMA temp_store = MEMORY", error);
}

static gboolean
open_database (LumoAuditStore  *self,
               GError         **error)
{
  g_autofree char *wal = g_strconcat (self->path, "-wal", NULL);
  g_autoptr(GError) local_error = NULL;
  GStatBuf st;
  sqlite3 *db;
  gint64 version, has_table, last;
  int rc;

  if (g_stat (wal, &st) == 0 && st.st_size > 0)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_BUSY,
                   "“%s” has a write-ahead log beside it (%s) that may hold its newest rows; "
                   "a read-only open would miss them. Copy the log while Lumo Access is not "
                   "running on that machine, or open its JSON Lines export instead",
                   self->path, wal);
      return FALSE;
    }

  if (!(self->uri = immutable_uri (self->path, error)))
    return FALSE;

  db = lumo_db_open_with_vfs (self->uri, NULL,
                              LUMO_DB_FLAGS_READ_ONLY | LUMO_DB_FLAGS_URI | LUMO_DB_FLAGS_NO_CHECK |
                              LUMO_DB_FLAGS_NO_MIGRATE,
                              NULL, 0, &local_error);
  if (db == NULL)
    {
      g_set_error (error, LUMO_ERROR, local_error->code, "Cannot open the audit log “%s”: %s",
                   self->path, local_error->message);
      return FALSE;
    }

  /* The header first: a file that is not a database fails here. */
  has_table = query_int (db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'audit'",
                         &rc);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                   "“%s” is not a readable database: %s", self->path, sqlite3_errmsg (db));
      lumo_db_close (db);
      return FALSE;
    }
  version = query_int (db, "PRAGMA user_version", NULL);
  if (has_table == 0 || version < 1)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                   "“%s” is an SQLite database but not an audit log (it has no audit table "
                   "of a known schema)", self->path);
      lumo_db_close (db);
      return FALSE;
    }
  if (version > SCHEMA_NEWEST)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_TOO_NEW,
                   "The audit log “%s” has schema version %" G_GINT64_FORMAT ", but this version "
                   "of Lumo Access knows only up to %d; update Lumo Access",
                   self->path, version, SCHEMA_NEWEST);
      lumo_db_close (db);
      return FALSE;
    }
  self->legacy_schema = version < SCHEMA_NEWEST ? (guint) version : 0;

  if (!lumo_db_quick_check (db, self->path, &local_error))
    {
      last = last_readable_row (db);
      if (last >= 0)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_DB_CORRUPT,
                     "%s; rows up to %" G_GINT64_FORMAT " can still be read",
                     local_error->message, last);
      else
        g_propagate_error (error, g_steal_pointer (&local_error));
      lumo_db_close (db);
      return FALSE;
    }

  if (!_lumo_audit_file_prepare_reader (self, db, error) ||
      !lumo_db_exec (db, "PRAGMA query_only = ON", error) ||
      !_lumo_audit_query_register_functions (db, error))
    {
      lumo_db_close (db);
      return FALSE;
    }

  _lumo_audit_store_release_reader (self, db);
  return TRUE;
}

/* ---- an export ------------------------------------------------------------------ */

typedef struct
{
  const char *file;
  guint       line;
} Where;

static gboolean G_GNUC_PRINTF (3, 4)
line_error (GError     **error,
            const Where *where,
            const char  *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
               "“%s”, line %u is not an audit row: %s", where->file, where->line, message);
  return FALSE;
}

/* A member of the row: present, and of its type ('s' string, 'S' string
 * or null, 'n' integer, 'b' boolean). */
static gboolean
member (JsonObject   *obj,
        const char   *name,
        char          type,
        gboolean      optional,
        JsonNode    **out,
        const Where  *where,
        GError      **error)
{
  JsonNode *node = json_object_get_member (obj, name);

  *out = node;
  if (node == NULL)
    return optional || line_error (error, where, "the member “%s” is missing", name);

  if (JSON_NODE_HOLDS_NULL (node) && (type == 'S' || optional))
    {
      *out = NULL;
      return TRUE;
    }

  switch (type)
    {
    case 's':
    case 'S':
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        return TRUE;
      return line_error (error, where, "“%s” is not a string", name);
    case 'n':
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
        return TRUE;
      return line_error (error, where, "“%s” is not an integer", name);
    case 'b':
    default:
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_BOOLEAN)
        return TRUE;
      return line_error (error, where, "“%s” is not true or false", name);
    }
}

/* The export's time: exactly "YYYY-MM-DDTHH:MM:SS.ffffffZ", read without
 * floating point so that no microsecond is lost (the hash covers it). */
static gboolean
parse_time (const char *s,
            gint64     *out)
{
  g_autoptr(GDateTime) dt = NULL;
  int y, mo, d, h, mi, sec, frac;
  char tail;

  if (strlen (s) != 27 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != '.' || s[26] != 'Z')
    return FALSE;
  for (guint i = 0; i < 26; i++)
    if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && i != 19 && !g_ascii_isdigit (s[i]))
      return FALSE;
  if (sscanf (s, "%4d-%2d-%2dT%2d:%2d:%2d.%6d%c", &y, &mo, &d, &h, &mi, &sec, &frac, &tail) != 8)
    return FALSE;
  if (!(dt = g_date_time_new_utc (y, mo, d, h, mi, sec)))
    return FALSE;

  *out = g_date_time_to_unix (dt) * G_USEC_PER_SEC + frac;
  return TRUE;
}

static gboolean
hex_member (JsonNode     *node,
            const char   *name,
            guint8       *out,
            const Where  *where,
            GError      **error)
{
  const char *hex = json_node_get_string (node);

  if (!lumo_audit_is_sha256_hex (hex) || !lumo_audit_hex_decode (hex, out, LUMO_AUDIT_HASH_SIZE))
    return line_error (error, where, "“%s” is not 64 lowercase hex digits", name);
  return TRUE;
}

#define PARAM(column) (LUMO_AUDIT_COL_##column + 1)

/* One line → one row, with the checks the writer applies to its own. */
static gboolean
load_line (sqlite3       *db,
           sqlite3_stmt  *insert,
           const char    *text,
           gsize          len,
           const Where   *where,
           GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  LumoAuditQueuedRow row = { 0, };
  LumoAuditRecord record = { 0, };
  JsonObject *obj;
  JsonNode *n_id, *n_time, *n_provider, *n_caller, *n_name, *n_tool, *n_write, *n_target,
           *n_params, *n_decision, *n_reason, *n_result, *n_text, *n_rtime, *n_hash, *n_kind,
           *n_grant, *n_mac;
  guint8 hash[LUMO_AUDIT_HASH_SIZE], mac[LUMO_AUDIT_HASH_SIZE];
  LumoAuditDecision decision;
  LumoAuditCallerKind kind = LUMO_AUDIT_CALLER_KIND_EXTENSION;
  gint64 time_us, result_time_us = 0;
  const char *result = NULL;
  gboolean ok = FALSE;
  int rc;

  if (!(root = lumo_json_parse (text, len, 8, &local_error)))
    return line_error (error, where, "%s", local_error->message);
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return line_error (error, where, "not a JSON object");
  obj = json_node_get_object (root);

  /* caller_kind, by_grant and result_mac came with schema version 2: an
   * older export has none of them. */
  if (!member (obj, "id", 'n', FALSE, &n_id, where, error) ||
      !member (obj, "time", 's', FALSE, &n_time, where, error) ||
      !member (obj, "provider", 's', FALSE, &n_provider, where, error) ||
      !member (obj, "caller", 's', FALSE, &n_caller, where, error) ||
      !member (obj, "caller_name", 's', FALSE, &n_name, where, error) ||
      !member (obj, "tool", 's', FALSE, &n_tool, where, error) ||
      !member (obj, "write", 'b', FALSE, &n_write, where, error) ||
      !member (obj, "target", 's', FALSE, &n_target, where, error) ||
      !member (obj, "params_hmac", 's', FALSE, &n_params, where, error) ||
      !member (obj, "decision", 's', FALSE, &n_decision, where, error) ||
      !member (obj, "reason", 's', FALSE, &n_reason, where, error) ||
      !member (obj, "result", 'S', FALSE, &n_result, where, error) ||
      !member (obj, "result_text", 'S', FALSE, &n_text, where, error) ||
      !member (obj, "result_time", 'S', FALSE, &n_rtime, where, error) ||
      !member (obj, "hash", 's', FALSE, &n_hash, where, error) ||
      !member (obj, "caller_kind", 's', TRUE, &n_kind, where, error) ||
      !member (obj, "by_grant", 'b', TRUE, &n_grant, where, error) ||
      !member (obj, "result_mac", 'S', TRUE, &n_mac, where, error))
    return FALSE;

  if (json_node_get_int (n_id) < 1)
    return line_error (error, where, "the id %" G_GINT64_FORMAT " is not positive",
                       json_node_get_int (n_id));
  if (!parse_time (json_node_get_string (n_time), &time_us))
    return line_error (error, where, "the time “%.40s” is not as an export writes it "
                       "(2025-01-31T10:00:00.000000Z)", json_node_get_string (n_time));
  if (!lumo_audit_decision_from_string (json_node_get_string (n_decision), &decision))
    return line_error (error, where, "the decision “%.40s” is not allow, deny or pending-review",
                       json_node_get_string (n_decision));
  if (n_kind != NULL && !lumo_audit_caller_kind_from_string (json_node_get_string (n_kind), &kind))
    return line_error (error, where, "the caller kind “%.40s” is not extension or agent",
                       json_node_get_string (n_kind));
  if (!hex_member (n_hash, "hash", hash, where, error))
    return FALSE;

  record.time_us = time_us;
  record.provider_id = json_node_get_string (n_provider);
  record.caller_id = json_node_get_string (n_caller);
  record.caller_name = json_node_get_string (n_name);
  record.tool = json_node_get_string (n_tool);
  record.write = json_node_get_boolean (n_write);
  record.target = json_node_get_string (n_target);
  record.decision = decision;
  record.reason = json_node_get_string (n_reason);
  record.caller_kind = kind;
  record.by_grant = n_grant != NULL && json_node_get_boolean (n_grant);
  if (!_lumo_audit_validate_record (NULL, &record, json_node_get_string (n_params), &row, &local_error))
    {
      line_error (error, where, "%s", local_error->message);
      goto out;
    }
  /* Stored text is what the writer stored: never changed on the way in. */
  if (time_us == 0 || !g_str_equal (row.caller_name, record.caller_name) ||
      !g_str_equal (row.target, record.target))
    {
      line_error (error, where, "the time, caller name or target is not as the store writes it");
      goto out;
    }

  if (n_result != NULL)
    {
      LumoAuditResult r = g_str_equal (json_node_get_string (n_result), "ok") ? LUMO_AUDIT_RESULT_OK
                        : g_str_equal (json_node_get_string (n_result), "error") ? LUMO_AUDIT_RESULT_ERROR
                        : LUMO_AUDIT_RESULT_NONE;

      if (r == LUMO_AUDIT_RESULT_NONE)
        {
          line_error (error, where, "the result “%.40s” is not ok, error or null",
                      json_node_get_string (n_result));
          goto out;
        }
      if (decision == LUMO_AUDIT_DECISION_DENY)
        {
          line_error (error, where, "a denied write has no result");
          goto out;
        }
      if (n_rtime == NULL || !parse_time (json_node_get_string (n_rtime), &result_time_us))
        {
          line_error (error, where, "the result has no result_time as an export writes it");
          goto out;
        }
      if (r == LUMO_AUDIT_RESULT_OK && n_text != NULL)
        {
          line_error (error, where, "a successful result has no result_text");
          goto out;
        }
      result = lumo_audit_result_to_string (r);
    }
  else if (n_text != NULL || n_rtime != NULL || n_mac != NULL)
    {
      line_error (error, where, "result_text, result_time or result_mac without a result");
      goto out;
    }
  if (n_mac != NULL && !hex_member (n_mac, "result_mac", mac, where, error))
    goto out;

  sqlite3_reset (insert);
  sqlite3_clear_bindings (insert);
  sqlite3_bind_int64 (insert, PARAM (ID), json_node_get_int (n_id));
  sqlite3_bind_int64 (insert, PARAM (TIME_US), row.time_us);
  sqlite3_bind_text (insert, PARAM (PROVIDER_ID), row.provider_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (insert, PARAM (CALLER_ID), row.caller_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (insert, PARAM (CALLER_NAME), row.caller_name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (insert, PARAM (TOOL), row.tool, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int (insert, PARAM (WRITE), row.write ? 1 : 0);
  sqlite3_bind_text (insert, PARAM (TARGET), row.target, -1, SQLITE_TRANSIENT);
  sqlite3_bind_blob (insert, PARAM (PARAMS_HMAC), row.params_hmac, LUMO_AUDIT_HASH_SIZE, SQLITE_TRANSIENT);
  sqlite3_bind_text (insert, PARAM (DECISION), row.decision, -1, SQLITE_STATIC);
  sqlite3_bind_text (insert, PARAM (REASON), row.reason, -1, SQLITE_TRANSIENT);
  sqlite3_bind_blob (insert, PARAM (HASH), hash, sizeof hash, SQLITE_TRANSIENT);
  sqlite3_bind_text (insert, PARAM (CALLER_KIND), row.caller_kind, -1, SQLITE_STATIC);
  sqlite3_bind_int (insert, PARAM (BY_GRANT), row.by_grant ? 1 : 0);
  if (result != NULL)
    {
      sqlite3_bind_text (insert, PARAM (RESULT), result, -1, SQLITE_STATIC);
      if (n_text != NULL)
        sqlite3_bind_text (insert, PARAM (RESULT_TEXT), json_node_get_string (n_text), -1,
                           SQLITE_TRANSIENT);
      sqlite3_bind_int64 (insert, PARAM (RESULT_TIME_US), result_time_us);
      if (n_mac != NULL)
        sqlite3_bind_blob (insert, PARAM (RESULT_MAC), mac, sizeof mac, SQLITE_TRANSIENT);
    }

  rc = sqlite3_step (insert);
  if (rc == SQLITE_CONSTRAINT_PRIMARYKEY)
    line_error (error, where, "row %" G_GINT64_FORMAT " appears twice", json_node_get_int (n_id));
  else if (rc != SQLITE_DONE)
    line_error (error, where, "%s", sqlite3_errmsg (db));
  else
    ok = TRUE;

out:
  g_free (row.provider_id);
  g_free (row.caller_id);
  g_free (row.caller_name);
  g_free (row.tool);
  g_free (row.target);
  g_free (row.reason);
  g_free (row.result_text);
  return ok;
}

static gboolean
open_export (LumoAuditStore  *self,
             GError         **error)
{
  static gint counter;
  g_autoptr(GFile) file = g_file_new_for_path (self->path);
  g_autoptr(GFileInputStream) in = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(sqlite3_stmt) insert = NULL;
  g_autoptr(GError) local_error = NULL;
  Where where = { self->path, 0 };
  gboolean ok = TRUE;

  self->uri = g_strdup_printf ("file:lumo-audit-export-%d-%u?mode=memory&cache=shared",
                               (int) getpid (), (guint) g_atomic_int_add (&counter, 1));
  self->writer_db = lumo_db_open_with_vfs (self->uri, NULL, LUMO_DB_FLAGS_URI | LUMO_DB_FLAGS_NO_CHECK,
                                           lumo_audit_migrations, lumo_audit_n_migrations, error);
  if (self->writer_db == NULL)
    return FALSE;

  if (!(in = g_file_read (file, NULL, &local_error)))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, "Cannot read “%s”: %s", self->path,
                   local_error->message);
      return FALSE;
    }
  lines = g_data_input_stream_new (G_INPUT_STREAM (in));
  g_data_input_stream_set_newline_type (lines, G_DATA_STREAM_NEWLINE_TYPE_LF);

  if (!(insert = lumo_db_prepare (self->writer_db,
                                  "INSERT INTO audit (" LUMO_AUDIT_COLUMN_NAMES ") "
                                  "VALUES (" LUMO_AUDIT_COLUMN_PARAMS ")", error)) ||
      !lumo_db_begin (self->writer_db, error))
    return FALSE;

  for (;;)
    {
      g_autofree char *line = NULL;
      gsize len = 0;

      line = g_data_input_stream_read_line (lines, &len, NULL, &local_error);
      where.line++;
      if (line == NULL)
        {
          if (local_error != NULL)
            {
              g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, "Cannot read “%s” at line %u: %s",
                           self->path, where.line, local_error->message);
              ok = FALSE;
            }
          break;
        }
      /* Only the newline at the very end of the file may leave a line empty. */
      if (len == 0)
        {
          g_autofree char *next = g_data_input_stream_read_line (lines, NULL, NULL, NULL);

          if (next != NULL)
            ok = line_error (error, &where, "an empty line");
          break;
        }
      if (!(ok = load_line (self->writer_db, insert, line, len, &where, error)))
        break;
    }

  ok = ok &&
       lumo_db_exec (self->writer_db,
                     "INSERT INTO audit_fts (rowid, tool, caller_id, caller_name, target, result_text) "
                     "SELECT id, tool, caller_id, caller_name, target, result_text FROM audit;"
                     "INSERT INTO audit_order (id, caller_name, caller_id, tool, outcome, time_us, "
                     "params_hmac) SELECT id, caller_name, caller_id, tool, "
                     LUMO_AUDIT_OUTCOME_SQL_ ("") ", time_us, params_hmac FROM audit;"
                     "UPDATE audit_fts_state SET indexed_to = (SELECT coalesce (max (id), 0) FROM audit);",
                     error) &&
       lumo_db_commit (self->writer_db, error);
  if (!ok)
    lumo_db_rollback (self->writer_db);

  return ok;
}

/* ---- the store -------------------------------------------------------------------- */

static gboolean
is_database (const char  *path,
             gboolean    *is_db,
             GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  char head[sizeof sqlite_magic];
  FILE *f;
  gsize n;

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "“%s” is not a file that can be read", path);
      return FALSE;
    }
  if (!(f = g_fopen (path, "rb")))
    {
      int saved_errno = errno;

      g_set_error (error, LUMO_ERROR, LUMO_ERROR_IO, "Cannot read “%s”: %s", path,
                   g_strerror (saved_errno));
      return FALSE;
    }
  n = fread (head, 1, sizeof head, f);
  fclose (f);

  *is_db = n == sizeof head && memcmp (head, sqlite_magic, sizeof head) == 0;
  return TRUE;
}

LumoAuditStore *
lumo_audit_store_open_file (const char  *path,
                            const char  *key_path,
                            GError     **error)
{
  g_autoptr(LumoAuditStore) self = NULL;
  gboolean is_db = FALSE;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* The key first: a wrong key file is refused before the log is read. */
  self = g_object_new (LUMO_TYPE_AUDIT_STORE, NULL);
  self->read_only = TRUE;
  self->path = g_strdup (path);
  if (key_path != NULL && !(self->secret = load_key (key_path, error)))
    return NULL;
  self->key_path = g_strdup (key_path);

  if (!is_database (path, &is_db, error))
    return NULL;
  if (is_db ? !open_database (self, error) : !open_export (self, error))
    return NULL;

  /* Checked before it was handed out: the page shows it as checked. */
  self->integrity = LUMO_AUDIT_INTEGRITY_OK;
  return g_steal_pointer (&self);
}

static void
open_file_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  char **paths = task_data;
  GError *error = NULL;
  LumoAuditStore *store = lumo_audit_store_open_file (paths[0], paths[1], &error);

  if (store != NULL)
    g_task_return_pointer (task, store, g_object_unref);
  else
    g_task_return_error (task, error);
}

void
lumo_audit_store_open_file_async (const char          *path,
                                  const char          *key_path,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  char **paths;

  g_return_if_fail (path != NULL);

  paths = g_new0 (char *, 3);
  paths[0] = g_strdup (path);
  paths[1] = g_strdup (key_path);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, lumo_audit_store_open_file_async);
  g_task_set_task_data (task, paths, (GDestroyNotify) g_strfreev);
  g_task_run_in_thread (task, open_file_thread);
}

LumoAuditStore *
lumo_audit_store_open_file_finish (GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == lumo_audit_store_open_file_async,
                        NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
