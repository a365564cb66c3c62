/* lumo-audit-store-read.c — reading the audit log: readers, rows,
 * verification and export (pages, counts and summaries are in
 * lumo-audit-store-pages.c)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every read runs on a connection from the store's reader pool, so a count
 * can run beside a page fetch, and neither waits for the writer (WAL).
 * Cancellation interrupts a running statement through a progress handler.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>
#include <time.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"

#define EXPORT_PAGE_SIZE   1000

static int
on_progress_cb (gpointer user_data)
{
  return g_cancellable_is_cancelled (user_data) ? 1 : 0;
}

/* A reader with @cancellable watched while it is held. */
sqlite3 *
_lumo_audit_read_begin (LumoAuditStore  *self,
                        GCancellable    *cancellable,
                        GError         **error)
{
  sqlite3 *db;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  if (!(db = _lumo_audit_store_acquire_reader (self, error)))
    return NULL;

  if (cancellable != NULL)
    sqlite3_progress_handler (db, 1000, on_progress_cb, cancellable);

  return db;
}

void
_lumo_audit_read_end (LumoAuditStore *self,
                      sqlite3        *db)
{
  sqlite3_progress_handler (db, 0, NULL, NULL);
  _lumo_audit_store_release_reader (self, db);
}

void
_lumo_audit_set_step_error (GError       **error,
                sqlite3       *db,
                int            rc,
                GCancellable  *cancellable,
                const char    *what)
{
  if (rc == SQLITE_INTERRUPT && g_cancellable_set_error_if_cancelled (cancellable, error))
    return;

  lumo_db_set_error (error, db, rc, what);
}

sqlite3_stmt *
_lumo_audit_prepare_bound (sqlite3      *db,
               const char   *sql,
               GPtrArray    *binds,
               GError      **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  if (!(stmt = lumo_db_prepare (db, sql, error)) ||
      !_lumo_audit_query_bind (stmt, binds, error))
    return NULL;

  return g_steal_pointer (&stmt);
}

LumoAuditRow *
lumo_audit_store_get_row (LumoAuditStore  *self,
                          gint64           id,
                          GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  LumoAuditRow *row = NULL;
  sqlite3 *db;
  int rc;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(db = _lumo_audit_read_begin (self, NULL, error)))
    return NULL;

  if ((stmt = lumo_db_prepare (db, "SELECT " LUMO_AUDIT_ROW_COLUMNS " FROM audit a WHERE a.id = ?",
                               error)))
    {
      sqlite3_bind_int64 (stmt, 1, id);
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        row = _lumo_audit_row_new_from_stmt (stmt);
      else if (rc == SQLITE_DONE)
        g_set_error (error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                     "There is no audit row %" G_GINT64_FORMAT, id);
      else
        lumo_db_set_error (error, db, rc, "Cannot read the audit row");
    }

  g_clear_pointer (&stmt, sqlite3_finalize);
  _lumo_audit_read_end (self, db);
  return row;
}

GPtrArray *
lumo_audit_store_list_allowed_writes (LumoAuditStore  *self,
                                      gint64           since_us,
                                      GError         **error)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(sqlite3_stmt) stmt = NULL;
  gboolean ok = FALSE;
  sqlite3 *db;
  int rc;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!(db = _lumo_audit_read_begin (self, NULL, error)))
    return NULL;

  /* The time index is audit_order's, up to the watermark; the rows above
   * it (a killed writer's, or those of the last moments) are a rowid
   * range of their own. One statement, so one snapshot. */
  if ((stmt = lumo_db_prepare (db, "SELECT " LUMO_AUDIT_ROW_COLUMNS " FROM audit_order o "
                                   "CROSS JOIN audit a ON a.id = o.id "
                                   "WHERE o.time_us >= ?1 AND +o.id <= (SELECT indexed_to FROM audit_fts_state) "
                                   "AND a.write = 1 AND a.decision = 'allow' "
                                   "UNION ALL SELECT " LUMO_AUDIT_ROW_COLUMNS " FROM audit a "
                                   "WHERE a.id > (SELECT indexed_to FROM audit_fts_state) "
                                   "AND a.time_us >= ?1 AND a.write = 1 AND a.decision = 'allow' "
                                   "ORDER BY 2, 1",
                               error)))
    {
      sqlite3_bind_int64 (stmt, 1, since_us);
      while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        g_ptr_array_add (rows, _lumo_audit_row_new_from_stmt (stmt));
      ok = rc == SQLITE_DONE;
      if (!ok)
        lumo_db_set_error (error, db, rc, "Cannot read the recent writes");
    }

  g_clear_pointer (&stmt, sqlite3_finalize);
  _lumo_audit_read_end (self, db);

  return ok ? g_steal_pointer (&rows) : NULL;
}

/* ---- verify ------------------------------------------------------------------------ */

gboolean
lumo_audit_store_verify (LumoAuditStore         *self,
                         LumoAuditProgressFunc   progress,
                         gpointer                user_data,
                         GCancellable           *cancellable,
                         LumoAuditVerifyReport  *report,
                         GError                **error)
{
  LumoAuditVerifyReport local_report;
  sqlite3 *db;
  gboolean ok;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (report == NULL)
    report = &local_report;
  memset (report, 0, sizeof *report);

  if (!(db = _lumo_audit_read_begin (self, cancellable, error)))
    return FALSE;

  ok = _lumo_audit_chain_verify (db, self->secret, self->read_only ? NULL : self->head_path,
                                 progress, user_data, cancellable, report, error);
  /* A collected log's key file may simply be another log's. */
  if (!ok && self->read_only && self->secret != NULL && error != NULL && *error != NULL &&
      (report->fault == LUMO_AUDIT_FAULT_RESULT_CHANGED || report->fault == LUMO_AUDIT_FAULT_ANCHOR))
    {
      char *message = g_strdup_printf ("%s (or the key file “%s” is not the one this log was "
                                       "written with)", (*error)->message, self->key_path);

      g_free ((*error)->message);
      (*error)->message = message;
    }
  _lumo_audit_read_end (self, db);

  return ok;
}

/* ---- export -------------------------------------------------------------------------- */

/* The export's columns, in order, and how JSON Lines writes each: 'n' a
 * number, 'b' a boolean, 's' a string (or null). New columns go at the
 * end, so a CSV reader that counts columns keeps working. */
static const struct { const char *name; char json; } export_columns[] = {
  { "id", 'n' }, { "time", 's' }, { "provider", 's' }, { "caller", 's' },
  { "caller_name", 's' }, { "tool", 's' }, { "write", 'b' }, { "target", 's' },
  { "params_hmac", 's' }, { "decision", 's' }, { "reason", 's' }, { "result", 's' },
  { "result_text", 's' }, { "result_time", 's' }, { "hash", 's' },
  { "caller_kind", 's' }, { "by_grant", 'b' }, { "result_mac", 's' },
};

static char *
format_time (gint64 us)
{
  time_t secs = (time_t) (us / G_USEC_PER_SEC);
  int frac = (int) (us % G_USEC_PER_SEC);
  struct tm tm;

  if (frac < 0)
    {
      frac += G_USEC_PER_SEC;
      secs--;
    }
  if (gmtime_r (&secs, &tm) == NULL)
    return g_strdup ("");

  return g_strdup_printf ("%04d-%02d-%02dT%02d:%02d:%02d.%06dZ",
                          tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                          tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}

/* The row's fields as export_columns lists them; NULL for "no value". */
static void
row_fields (LumoAuditRow *row,
            char        **owned,
            const char  **fields)
{
  LumoAuditResult result = lumo_audit_row_get_result (row);

  owned[0] = g_strdup_printf ("%" G_GINT64_FORMAT, lumo_audit_row_get_id (row));
  owned[1] = format_time (lumo_audit_row_get_time_us (row));
  owned[2] = result != LUMO_AUDIT_RESULT_NONE
               ? format_time (lumo_audit_row_get_result_time_us (row))
               : NULL;

  fields[0] = owned[0];
  fields[1] = owned[1];
  fields[2] = lumo_audit_row_get_provider_id (row);
  fields[3] = lumo_audit_row_get_caller_id (row);
  fields[4] = lumo_audit_row_get_caller_name (row);
  fields[5] = lumo_audit_row_get_tool (row);
  fields[6] = lumo_audit_row_get_write (row) ? "true" : "false";
  fields[7] = lumo_audit_row_get_target (row);
  fields[8] = lumo_audit_row_get_params_hmac (row);
  fields[9] = lumo_audit_decision_to_string (lumo_audit_row_get_decision (row));
  fields[10] = lumo_audit_row_get_reason (row);
  fields[11] = lumo_audit_result_to_string (result);
  fields[12] = lumo_audit_row_get_result_text (row);
  fields[13] = owned[2];
  fields[14] = lumo_audit_row_get_hash (row);
  fields[15] = lumo_audit_caller_kind_to_string (lumo_audit_row_get_caller_kind (row));
  fields[16] = lumo_audit_row_get_by_grant (row) ? "true" : "false";
  fields[17] = lumo_audit_row_get_result_mac (row);
}

/* A spreadsheet opening the file runs a cell that starts with one of these
 * as a formula (CSV injection). Caller names and error texts come from
 * extensions and pages, so such a cell gets a leading apostrophe, as OWASP
 * recommends: shown as text, and visibly not the raw value. */
static gboolean
csv_needs_neutralising (const char *value)
{
  return value[0] != '\0' && strchr ("=+-@\t\r", value[0]) != NULL;
}

/* RFC 4180: quote a field that holds a comma, a quote or a line break, and
 * double the quotes inside. */
static void
append_csv_field (GString    *out,
                  const char *value)
{
  const char *prefix;

  if (value == NULL)
    return;

  prefix = csv_needs_neutralising (value) ? "'" : "";

  if (strpbrk (value, ",\"\r\n") == NULL)
    {
      g_string_append (out, prefix);
      g_string_append (out, value);
      return;
    }

  g_string_append_c (out, '"');
  g_string_append (out, prefix);
  for (const char *p = value; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
append_json_string (GString    *out,
                    const char *value)
{
  g_string_append_c (out, '"');
  for (const guchar *p = (const guchar *) value; *p; p++)
    {
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
          else
            g_string_append_c (out, (char) *p);
        }
    }
  g_string_append_c (out, '"');
}

static void
append_row (GString               *out,
            LumoAuditExportFormat  format,
            LumoAuditRow          *row)
{
  char *owned[3] = { NULL, };
  const char *fields[G_N_ELEMENTS (export_columns)];

  row_fields (row, owned, fields);

  if (format == LUMO_AUDIT_EXPORT_CSV)
    {
      for (guint i = 0; i < G_N_ELEMENTS (export_columns); i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          append_csv_field (out, fields[i]);
        }
      g_string_append (out, "\r\n");
    }
  else
    {
      g_string_append_c (out, '{');
      for (guint i = 0; i < G_N_ELEMENTS (export_columns); i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          append_json_string (out, export_columns[i].name);
          g_string_append_c (out, ':');
          if (export_columns[i].json != 's')
            g_string_append (out, fields[i]);
          else if (fields[i] == NULL)
            g_string_append (out, "null");
          else
            append_json_string (out, fields[i]);
        }
      g_string_append (out, "}\n");
    }

  for (guint i = 0; i < G_N_ELEMENTS (owned); i++)
    g_free (owned[i]);
}

gboolean
lumo_audit_store_export (LumoAuditStore         *self,
                         LumoAuditQuery         *query,
                         LumoAuditExportFormat   format,
                         GOutputStream          *out,
                         GCancellable           *cancellable,
                         LumoAuditProgressFunc   progress,
                         gpointer                user_data,
                         GError                **error)
{
  g_autoptr(LumoAuditQuery) all = NULL;
  g_autoptr(GString) buf = g_string_sized_new (EXPORT_PAGE_SIZE * 512);
  gint64 total, done = 0, before_id = 0;

  g_return_val_if_fail (LUMO_IS_AUDIT_STORE (self), FALSE);
  g_return_val_if_fail (format == LUMO_AUDIT_EXPORT_CSV || format == LUMO_AUDIT_EXPORT_JSONL, FALSE);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (out), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (query == NULL)
    query = all = lumo_audit_query_new ();

  total = progress != NULL ? lumo_audit_store_count (self, query, cancellable, error) : 0;
  if (total < 0)
    return FALSE;

  if (format == LUMO_AUDIT_EXPORT_CSV)
    {
      for (guint i = 0; i < G_N_ELEMENTS (export_columns); i++)
        {
          if (i > 0)
            g_string_append_c (buf, ',');
          g_string_append (buf, export_columns[i].name);
        }
      g_string_append (buf, "\r\n");
    }

  /* Keyset pages, each on a fresh read: rows appended meanwhile are newer
   * than the first page and so never show up half-way. */
  for (;;)
    {
      g_autoptr(GPtrArray) rows = NULL;

      rows = lumo_audit_store_fetch_page (self, query, before_id, EXPORT_PAGE_SIZE,
                                          cancellable, error);
      if (rows == NULL)
        return FALSE;

      for (guint i = 0; i < rows->len; i++)
        append_row (buf, format, g_ptr_array_index (rows, i));

      if (buf->len > 0 &&
          !g_output_stream_write_all (out, buf->str, buf->len, NULL, cancellable, error))
        return FALSE;
      g_string_truncate (buf, 0);

      done += rows->len;
      if (progress != NULL)
        progress (done, MAX (total, done), user_data);

      if (rows->len < EXPORT_PAGE_SIZE)
        break;
      before_id = lumo_audit_row_get_id (g_ptr_array_index (rows, rows->len - 1));
    }

  return TRUE;
}
