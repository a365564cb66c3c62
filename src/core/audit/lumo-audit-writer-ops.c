/* lumo-audit-writer-ops.c — what a group commit does for each op
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Appending a row (chained to the tail), importing rows, filling in a
 * result, applying retention: each inside the writer thread's open
 * transaction (lumo-audit-writer.c). The search index and audit_order
 * are written by the catch-up (lumo-audit-writer-index.c), except where
 * a row they already hold changes.
 */
#define G_LOG_DOMAIN "lumo-audit"

#include "config.h"

#include <string.h>

#include "lumo-audit-private.h"
#include "lumo-audit-secret.h"
#include "lumo-db.h"
#include "lumo-error.h"

/* The INSERT's parameter of a column of LUMO_AUDIT_COLUMNS. */
#define PARAM(column) (LUMO_AUDIT_COL_##column + 1)

/* The row alone: the search index catches up later (see the top). */
gboolean
_lumo_audit_writer_insert_row (LumoAuditStore           *self,
            const LumoAuditQueuedRow *row,
            gint64                   *tail_id,
            guint8                   *tail_hash,
            GError                  **error)
{
  LumoAuditChainFields f = {
    .id = *tail_id + 1,
    .time_us = row->time_us,
    .provider_id = row->provider_id,
    .caller_id = row->caller_id,
    .caller_name = row->caller_name,
    .tool = row->tool,
    .write = row->write,
    .target = row->target,
    .params_hmac = row->params_hmac,
    .decision = row->decision,
    .reason = row->reason,
    .caller_kind = row->caller_kind,
    .by_grant = row->by_grant,
  };
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  sqlite3_stmt *stmt;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->insert_stmt,
                       "INSERT INTO audit (" LUMO_AUDIT_COLUMN_NAMES ") "
                       "VALUES (" LUMO_AUDIT_COLUMN_PARAMS ")", error)))
    return FALSE;

  lumo_audit_chain_row_hash (tail_hash, &f, hash);

  /* Every parameter is bound (or NULL below): a cached statement keeps
   * its last row's bindings otherwise. */
  sqlite3_bind_int64 (stmt, PARAM (ID), f.id);
  sqlite3_bind_int64 (stmt, PARAM (TIME_US), f.time_us);
  sqlite3_bind_text (stmt, PARAM (PROVIDER_ID), f.provider_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_ID), f.caller_id, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_NAME), f.caller_name, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (TOOL), f.tool, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, PARAM (WRITE), f.write ? 1 : 0);
  sqlite3_bind_text (stmt, PARAM (TARGET), f.target, -1, SQLITE_STATIC);
  sqlite3_bind_blob (stmt, PARAM (PARAMS_HMAC), f.params_hmac, LUMO_AUDIT_HASH_SIZE, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (DECISION), f.decision, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (REASON), f.reason, -1, SQLITE_STATIC);
  sqlite3_bind_blob (stmt, PARAM (HASH), hash, sizeof hash, SQLITE_STATIC);
  sqlite3_bind_text (stmt, PARAM (CALLER_KIND), f.caller_kind, -1, SQLITE_STATIC);
  sqlite3_bind_int (stmt, PARAM (BY_GRANT), f.by_grant ? 1 : 0);

  if (row->result != NULL)
    {
      lumo_audit_chain_result_mac (self->secret, hash, row->result, row->result_text,
                                   row->result_time_us, mac);
      sqlite3_bind_text (stmt, PARAM (RESULT), row->result, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, PARAM (RESULT_TEXT), row->result_text, -1, SQLITE_STATIC);
      sqlite3_bind_int64 (stmt, PARAM (RESULT_TIME_US), row->result_time_us);
      sqlite3_bind_blob (stmt, PARAM (RESULT_MAC), mac, sizeof mac, SQLITE_STATIC);
    }
  else
    {
      sqlite3_bind_null (stmt, PARAM (RESULT));
      sqlite3_bind_null (stmt, PARAM (RESULT_TEXT));
      sqlite3_bind_null (stmt, PARAM (RESULT_TIME_US));
      sqlite3_bind_null (stmt, PARAM (RESULT_MAC));
    }

  if (!_lumo_audit_writer_step_done (self, stmt, "Cannot append to the audit log", error))
    return FALSE;

  *tail_id = f.id;
  memcpy (tail_hash, hash, sizeof hash);
  return TRUE;
}

/* The rows first, then, when the index was caught up, the index for all
 * of them in one statement (FTS5 tokenizes a run of rows in one pass at
 * about half the cost of one insert per row): an import is no decision,
 * and a million rows are better indexed in the transaction that holds them
 * than left to the catch-up. */
gboolean
_lumo_audit_writer_import_rows (LumoAuditStore  *self,
             LumoAuditOp     *op,
             gint64          *tail_id,
             guint8          *tail_hash,
             GError         **error)
{
  gint64 first = *tail_id;
  gint64 indexed_to;

  for (gsize i = 0; i < op->n_rows; i++)
    if (!_lumo_audit_writer_insert_row (self, &op->rows[i], tail_id, tail_hash, error))
      return FALSE;

  if (!_lumo_audit_writer_read_indexed_to (self, &indexed_to, error))
    return FALSE;

  return indexed_to < first || _lumo_audit_writer_index_rows (self, first, *tail_id, error);
}

/* The system journal's entry for a result, from the row as the result
 * statement below reads it. */
static LumoAuditJournalEntry *
journal_entry_for_result (sqlite3_stmt      *stmt,
                          const LumoAuditOp *op)
{
  LumoAuditJournalEntry *entry = g_new0 (LumoAuditJournalEntry, 1);
  LumoAuditDecision decision = LUMO_AUDIT_DECISION_ALLOW;
  LumoAuditCallerKind kind = LUMO_AUDIT_CALLER_KIND_EXTENSION;

  /* The stored spellings, as static strings (the CHECKs allow no other). */
  lumo_audit_decision_from_string ((const char *) sqlite3_column_text (stmt, 0), &decision);
  lumo_audit_caller_kind_from_string ((const char *) sqlite3_column_text (stmt, 9), &kind);

  entry->id = op->id;
  entry->tool = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
  entry->caller_id = g_strdup ((const char *) sqlite3_column_text (stmt, 4));
  entry->caller_name = g_strdup ((const char *) sqlite3_column_text (stmt, 5));
  entry->target = g_strdup ((const char *) sqlite3_column_text (stmt, 6));
  entry->provider_id = g_strdup ((const char *) sqlite3_column_text (stmt, 7));
  entry->reason = g_strdup ((const char *) sqlite3_column_text (stmt, 8));
  entry->decision = lumo_audit_decision_to_string (decision);
  entry->caller_kind = lumo_audit_caller_kind_to_string (kind);
  entry->by_grant = sqlite3_column_int (stmt, 10) != 0;
  entry->outcome = g_str_equal (op->result, "error") ? "error" : "ok";
  memcpy (entry->hash, sqlite3_column_blob (stmt, 2), LUMO_AUDIT_HASH_SIZE);
  if (sqlite3_column_bytes (stmt, 11) == LUMO_AUDIT_HASH_SIZE)
    memcpy (entry->params_hmac, sqlite3_column_blob (stmt, 11), LUMO_AUDIT_HASH_SIZE);
  return entry;
}

/* FALSE only for a failure of the database (which fails the batch); a
 * request that cannot be honoured is the op's own error. */
gboolean
_lumo_audit_writer_set_result (LumoAuditStore  *self,
            LumoAuditOp              *op,
            gboolean                  journal,
            GError         **error)
{
  g_autofree char *tool = NULL, *caller_id = NULL, *caller_name = NULL, *target = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  sqlite3_stmt *stmt;
  int rc;

  if (!(stmt = _lumo_audit_writer_cached (self, &self->result_read_stmt,
                       "SELECT decision, result, hash, tool, caller_id, caller_name, target, "
                       "provider_id, reason, caller_kind, by_grant, params_hmac "
                       "FROM audit WHERE id = ?", error)))
    return FALSE;

  sqlite3_bind_int64 (stmt, 1, op->id);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    {
      sqlite3_reset (stmt);
      g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_NOT_FOUND,
                   "There is no audit row %" G_GINT64_FORMAT, op->id);
      return TRUE;
    }
  if (rc != SQLITE_ROW)
    {
      lumo_db_set_error (error, self->writer_db, rc, "Cannot read the audit row");
      sqlite3_reset (stmt);
      return FALSE;
    }

  if (g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "deny") == 0)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                 "Audit row %" G_GINT64_FORMAT " was denied, so it has no result", op->id);
  else if (sqlite3_column_type (stmt, 1) != SQLITE_NULL)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_INVALID_ARGUMENT,
                 "Audit row %" G_GINT64_FORMAT " already has a result; it is set only once",
                 op->id);
  else if (sqlite3_column_bytes (stmt, 2) != LUMO_AUDIT_HASH_SIZE)
    g_set_error (&op->error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                 "Audit row %" G_GINT64_FORMAT " has no valid hash", op->id);

  if (op->error != NULL)
    {
      sqlite3_reset (stmt);
      return TRUE;
    }

  memcpy (hash, sqlite3_column_blob (stmt, 2), sizeof hash);
  tool = g_strdup ((const char *) sqlite3_column_text (stmt, 3));
  caller_id = g_strdup ((const char *) sqlite3_column_text (stmt, 4));
  caller_name = g_strdup ((const char *) sqlite3_column_text (stmt, 5));
  target = g_strdup ((const char *) sqlite3_column_text (stmt, 6));
  if (journal)
    op->journal = journal_entry_for_result (stmt, op);
  sqlite3_reset (stmt);

  lumo_audit_chain_result_mac (self->secret, hash, op->result, op->result_text, op->time_us, mac);

  if (!(stmt = _lumo_audit_writer_cached (self, &self->result_update_stmt,
                       "UPDATE audit SET result = ?, result_text = ?, result_time_us = ?, "
                       "result_mac = ? WHERE id = ?", error)))
    return FALSE;

  sqlite3_bind_text (stmt, 1, op->result, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, op->result_text, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 3, op->time_us);
  sqlite3_bind_blob (stmt, 4, mac, sizeof mac, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 5, op->id);
  if (!_lumo_audit_writer_step_done (self, stmt, "Cannot record the result", error))
    return FALSE;

  /* A row above the watermark is indexed with its result when the index
   * catches up; an indexed one gets its new outcome, and its text. */
  {
    gint64 indexed_to;

    if (!_lumo_audit_writer_read_indexed_to (self, &indexed_to, error))
      return FALSE;
    if (op->id > indexed_to)
      return TRUE;

    if (!(stmt = _lumo_audit_writer_cached (self, &self->order_update_stmt,
                         "UPDATE audit_order SET outcome = ? WHERE id = ?", error)))
      return FALSE;
    sqlite3_bind_int (stmt, 1, g_str_equal (op->result, "error") ? LUMO_AUDIT_OUTCOME_ERROR
                                                                  : LUMO_AUDIT_OUTCOME_OK);
    sqlite3_bind_int64 (stmt, 2, op->id);
    if (!_lumo_audit_writer_step_done (self, stmt, "Cannot record the result", error))
      return FALSE;

    if (op->result_text != NULL)
      return _lumo_audit_writer_fts_change (self, TRUE, op->id, tool, caller_id, caller_name, target, NULL, error) &&
             _lumo_audit_writer_fts_change (self, FALSE, op->id, tool, caller_id, caller_name, target,
                         op->result_text, error);
  }

  return TRUE;
}

static gboolean
exec_int (LumoAuditStore  *self,
          const char      *sql,
          gint64           arg,
          gboolean        *is_null,
          gint64          *out,
          GError         **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;
  int rc;

  if (!(stmt = lumo_db_prepare (self->writer_db, sql, error)))
    return FALSE;
  if (sqlite3_bind_parameter_count (stmt) > 0)
    sqlite3_bind_int64 (stmt, 1, arg);

  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    {
      lumo_db_set_error (error, self->writer_db, rc, "Cannot apply retention");
      return FALSE;
    }

  if (out != NULL)
    {
      *is_null = rc == SQLITE_DONE || sqlite3_column_type (stmt, 0) == SQLITE_NULL;
      *out = *is_null ? 0 : sqlite3_column_int64 (stmt, 0);
    }

  return TRUE;
}

/* Deletes the oldest rows up to the first one that is not older than the
 * cutoff: always a prefix of the chain, so the anchor (the hash of the last
 * deleted row) is all the remainder needs. */
gboolean
_lumo_audit_writer_apply_retention (LumoAuditStore  *self,
                 LumoAuditOp              *op,
                 GError         **error)
{
  g_autoptr(sqlite3_stmt) hash_stmt = NULL;
  g_autoptr(sqlite3_stmt) anchor_stmt = NULL;
  g_autofree char *cutoff_sql = NULL;
  guint8 hash[LUMO_AUDIT_HASH_SIZE];
  guint8 mac[LUMO_AUDIT_HASH_SIZE];
  gboolean none_newer, empty;
  gint64 first_newer, first, last, max_id, indexed_to;

  op->count = 0;

  /* The first row not older than the cutoff (LUMO_AUDIT_FIRST_KEPT_SQL). */
  if (!exec_int (self, LUMO_AUDIT_FIRST_KEPT_SQL,
                 op->time_us, &none_newer, &first_newer, error) ||
      !exec_int (self, "SELECT min (id) FROM audit", 0, &empty, &first, error) ||
      !exec_int (self, "SELECT max (id) FROM audit", 0, &empty, &last, error))
    return FALSE;

  if (empty)
    return TRUE;

  max_id = none_newer ? last : first_newer - 1;
  if (max_id < first)
    return TRUE;

  if (!(hash_stmt = lumo_db_prepare (self->writer_db, "SELECT hash FROM audit WHERE id = ?", error)))
    return FALSE;
  sqlite3_bind_int64 (hash_stmt, 1, max_id);
  if (sqlite3_step (hash_stmt) != SQLITE_ROW ||
      sqlite3_column_bytes (hash_stmt, 0) != LUMO_AUDIT_HASH_SIZE)
    {
      g_set_error (error, LUMO_ERROR, LUMO_ERROR_CHAIN_BROKEN,
                   "Audit row %" G_GINT64_FORMAT " is missing or has no valid hash; "
                   "retention stopped (run verify)", max_id);
      return FALSE;
    }
  memcpy (hash, sqlite3_column_blob (hash_stmt, 0), sizeof hash);

  /* Only rows the index holds leave it: removing one it never held would
   * damage it. */
  if (!_lumo_audit_writer_read_indexed_to (self, &indexed_to, error))
    return FALSE;

  cutoff_sql = g_strdup_printf ("INSERT INTO audit_retention_cutoff (one, before_us, max_id) "
                                "VALUES (1, %" G_GINT64_FORMAT ", ?)", op->time_us);
  if (!exec_int (self, cutoff_sql, max_id, NULL, NULL, error) ||
      !exec_int (self,
                 "INSERT INTO audit_fts (audit_fts, rowid, tool, caller_id, caller_name, target, "
                 "result_text) SELECT 'delete', id, tool, caller_id, caller_name, target, "
                 "result_text FROM audit WHERE id <= ?", MIN (max_id, indexed_to), NULL, NULL, error) ||
      !exec_int (self, "DELETE FROM audit_order WHERE id <= ?", max_id, NULL, NULL, error) ||
      !exec_int (self, "DELETE FROM audit WHERE id <= ?", max_id, NULL, NULL, error))
    return FALSE;
  op->count = sqlite3_changes64 (self->writer_db);

  lumo_audit_chain_head_mac (self->secret, "anchor", max_id, hash, mac);
  if (!(anchor_stmt = lumo_db_prepare (self->writer_db,
                                       "INSERT INTO audit_anchor (one, last_id, last_hash, mac, cutoff_us) "
                                       "VALUES (1, ?, ?, ?, ?) ON CONFLICT (one) DO UPDATE SET "
                                       "last_id = excluded.last_id, last_hash = excluded.last_hash, "
                                       "mac = excluded.mac, cutoff_us = excluded.cutoff_us", error)))
    return FALSE;
  sqlite3_bind_int64 (anchor_stmt, 1, max_id);
  sqlite3_bind_blob (anchor_stmt, 2, hash, sizeof hash, SQLITE_STATIC);
  sqlite3_bind_blob (anchor_stmt, 3, mac, sizeof mac, SQLITE_STATIC);
  sqlite3_bind_int64 (anchor_stmt, 4, op->time_us);

  return _lumo_audit_writer_step_done (self, anchor_stmt, "Cannot write the retention anchor", error) &&
         lumo_db_exec (self->writer_db, "DELETE FROM audit_retention_cutoff", error);
}
